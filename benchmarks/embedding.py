"""The bag-of-words embedding model of tests/test_structural_snapshots.py, timed.

Its generated module against the NumPy one would write by hand (``_by_hand`` there), side by
side in one process: interleaved rounds, CPU time, the best of each round, medians over the
rounds. Most of either is the scatter-add of 10,000 rows of 128 into a 5,000-row table.

Run:  python benchmarks/embedding.py [--repeats N]

The same comparison was an assertion of that test until a loaded CI machine measured 28 ms
against 13 ms: a test checks that the module is right, this script how fast it is.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT)]

from workloads.report import simd_line  # noqa: E402

import symgrad as sg  # noqa: E402
from tests.test_structural_snapshots import (  # noqa: E402
    CLASSES,
    VOCABULARY,
    WIDTH,
    _by_hand,
    build_embedding_model,
)


def _cpu_best(run: Callable[[], Any], calls: int) -> float:
    best = float("inf")
    for _ in range(calls):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="interleaved rounds")
    args = parser.parse_args()
    rng = np.random.default_rng(2)
    arguments = (
        rng.integers(0, VOCABULARY, (500, 20)),
        rng.integers(0, CLASSES, 500),
        rng.uniform(-1, 1, (VOCABULARY, WIDTH)).astype(np.float32),
        rng.normal(0, 0.1, (WIDTH, CLASSES)).astype(np.float32),
        np.zeros(CLASSES, np.float32),
    )
    with tempfile.TemporaryDirectory() as directory, sg.Graph().as_default():
        outputs, inputs = build_embedding_model()
        compiled = sg.compile(
            outputs, inputs, name="embedding_model", path=Path(directory) / "m.py"
        )
        generated, hand_written = [], []
        for _ in range(args.repeats):
            generated.append(_cpu_best(lambda: compiled(*arguments), 3))
            hand_written.append(_cpu_best(lambda: _by_hand(*arguments), 3))
    ours, theirs = statistics.median(generated), statistics.median(hand_written)
    print(simd_line())
    print(f"generated module: {ours * 1e3:.2f} ms of CPU per call")
    print(f"NumPy by hand:    {theirs * 1e3:.2f} ms of CPU per call")
    print(f"ratio: {ours / theirs:.3f}x")


if __name__ == "__main__":
    main()
