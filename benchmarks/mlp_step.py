"""Value and all 6 gradients of a 784-256-256-10 tanh MLP with softmax cross-entropy,
batch 128, float64, one thread: symgrad's generated code against hand-written backprop,
in one run, with the ratio.

Run:  python benchmarks/mlp_step.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.test_models import _backprop, _mlp  # noqa: E402  (the same model as the tests)

import symgrad as sg  # noqa: E402


def median_seconds(call, repeats: int) -> float:  # type: ignore[no-untyped-def]
    for _ in range(5):
        call()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with sg.Graph().as_default(), tempfile.TemporaryDirectory() as folder:
        model = _mlp(rng)
        start = time.perf_counter()
        compiled = sg.compile([model["loss"]] + sg.gradients(model["loss"], model["params"]), name="mlp",
                              path=Path(folder) / "mlp.py")
        compile_seconds = time.perf_counter() - start
        values = [np.array(p.initial_value.op.attrs["value"]) for p in model["params"]]
        x = rng.standard_normal((128, 784))
        y = np.eye(10)[rng.integers(0, 10, 128)]
        function = compiled.function
        generated = median_seconds(lambda: function(x, y, *values), args.repeats)
        forward_only = sg.compile(model["loss"], name="mlp_forward", path=Path(folder) / "forward.py").function
        forward = median_seconds(lambda: forward_only(x, y, *values), args.repeats)
    handwritten = median_seconds(lambda: _backprop(x, y, values), args.repeats)
    print(f"compile (gradients built beforehand): {compile_seconds:.2f} s")
    print("| system | ms per call | ratio to hand-written |")
    print("|---|---:|---:|")
    print(f"| hand-written NumPy backprop | {handwritten * 1e3:.3f} | 1.00 |")
    print(f"| symgrad generated (value + 6 gradients) | {generated * 1e3:.3f} | {generated / handwritten:.2f} |")
    print(f"| symgrad generated forward only | {forward * 1e3:.3f} | {forward / handwritten:.2f} |")


if __name__ == "__main__":
    main()
