"""Large graphs: compile time and peak memory of a wide sum and of a deep chain.

Two graphs, each built, differentiated and compiled in a fresh process (so one
does not inherit the other's SymPy caches or allocator state):

- ``wide N``: ``y = reduce_sum(sum(v_i * x for i < N))`` over N scalar
  variables, with the gradient of ``y`` for every ``v_i`` (a Python ``sum``
  builds a left-deep chain of N ``add`` ops);
- ``chain N``: ``z = tanh(z * w_k + b_k)`` for k < N, with the gradients of
  ``reduce_sum(z)`` for all 2N parameters.

For each it reports the seconds to build the graph and its gradients, the
seconds of ``compile()`` (trace, optimize, print, format, write, import), the
generated line count and the process's peak resident memory. It then runs the
module once and checks the value against NumPy.

Run:  python benchmarks/scale.py [wide:N | chain:N ...]   (default: wide:20000 chain:2000)
Writes the table to benchmarks/results/scale.md as well.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import symgrad as sg

RESULTS = Path(__file__).parent / "results" / "scale.md"


def build(kind: str, size: int) -> tuple[list[sg.Tensor], sg.Tensor, float]:
    """The graph's fetches, its placeholder, and the expected value of the first fetch at x=[1, 2]."""
    x = sg.placeholder(sg.float64, shape=[None], name="x")
    if kind == "wide":
        variables = [sg.Variable(float(i % 7), dtype=sg.float64, name=f"v{i}") for i in range(size)]
        y = sg.reduce_sum(sum(v * x for v in variables))
        expected = 3.0 * sum(float(i % 7) for i in range(size))
        return [y, *sg.gradients(y, variables)], x, expected
    z, parameters = x, []
    for k in range(size):
        w = sg.Variable(1.0, dtype=sg.float64, name=f"w{k}")
        b = sg.Variable(0.0, dtype=sg.float64, name=f"b{k}")
        parameters += [w, b]
        z = sg.tanh(z * w + b)
    y = sg.reduce_sum(z)
    value = np.array([1.0, 2.0])
    for _ in range(size):
        value = np.tanh(value)
    return [y, *sg.gradients(y, parameters)], x, float(value.sum())


def measure(kind: str, size: int) -> dict:
    """Build, differentiate and compile one graph in this process."""
    with tempfile.TemporaryDirectory() as folder, sg.Graph().as_default():
        start = time.perf_counter()
        fetches, x, expected = build(kind, size)
        built = time.perf_counter()
        compiled = sg.compile(fetches, name=f"{kind}{size}", path=Path(folder) / "module.py")
        done = time.perf_counter()
        value = float(compiled(x=[1.0, 2.0])[0])
    return {
        "graph": f"{kind} {size}",
        "build_s": built - start,
        "compile_s": done - built,
        "lines": compiled.source.count("\n"),
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "value_ok": bool(np.isclose(value, expected, rtol=1e-9)),
    }


def in_fresh_process(case: str) -> dict:
    completed = subprocess.run(
        [sys.executable, __file__, "--worker", case],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main(cases: list[str]) -> None:
    rows = [in_fresh_process(case) for case in cases]
    lines = [
        f"Python {platform.python_version()}, {platform.machine()}, symgrad {sg.__version__}; "
        "each graph in a fresh process.",
        "",
        "| graph | build + gradients s | compile s | lines | peak MiB | value ok |",
        "|---|---:|---:|---:|---:|---|",
    ]
    lines += [
        f"| {r['graph']} | {r['build_s']:.2f} | {r['compile_s']:.2f} | {r['lines']} "
        f"| {r['peak_mib']:.0f} | {r['value_ok']} |"
        for r in rows
    ]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        kind, size = sys.argv[2].split(":")
        print(json.dumps(measure(kind, int(size))))
    else:
        main(sys.argv[1:] or ["wide:20000", "chain:2000"])
