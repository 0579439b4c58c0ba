"""Hessians through a batch axis known only at run time: ridge and logistic regression.

The two models every optimisation course derives the Hessian of, written as users write
them, with ``[None, n]`` placeholders for the data:

- ridge: ``mean((X w - y)**2) + 0.5 * sum(w * w)``, Hessian ``2 X^T X / N + I``;
- logistic: ``mean(sigmoid_cross_entropy_with_logits(y, X @ theta))`` (theta ``[n, 1]``),
  Hessian ``X^T diag(s (1 - s)) X / N``.

For n = 3, 300 and 3,000 weights, each in a fresh process: seconds to build and compile the
Hessian (``sg.hessians`` then ``sg.compile``), lines of the generated function bodies
(``compiled`` and ``_compiled_same_shapes``, the copied kernels aside) and of the whole
module, the median seconds of one evaluation on 64 rows (5 runs), and the largest
difference from the closed form relative to its largest entry.

Run:  python benchmarks/hessians_batch_free.py [n ...]
Writes the table to benchmarks/results/hessians_batch_free.md as well.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workloads.report import machine_info, simd_line  # noqa: E402  (not a package)

RESULTS = HERE / "results" / "hessians_batch_free.md"
ROWS = 64


def body_lines(source: str) -> int:
    """Non-blank lines of ``compiled`` and ``_compiled_same_shapes``."""
    total, counting = 0, False
    for line in source.splitlines():
        if line.startswith("def "):
            counting = line.startswith(("def compiled(", "def _compiled_same_shapes("))
        elif line and not line.startswith(" "):
            counting = False
        elif counting and line.strip():
            total += 1
    return total


def measure(model: str, weights: int) -> dict[str, float]:
    """Build, time and check one Hessian in this process."""
    import symgrad as sg

    start = time.perf_counter()
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, weights], name="X")
        y = sg.placeholder(sg.float64, [None], name="y")
        if model == "ridge":
            w = sg.placeholder(sg.float64, [weights], name="w")
            residual = sg.linalg.matvec(x, w) - y
            loss = sg.reduce_mean(sg.square(residual)) + 0.5 * sg.reduce_sum(w * w)
        else:
            w = sg.placeholder(sg.float64, [weights, 1], name="theta")
            labels = sg.reshape(y, [-1, 1])
            loss = sg.reduce_mean(
                sg.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=sg.matmul(x, w))
            )
        compiled = sg.compile(sg.hessians(loss, w)[0], inputs=[x, y, w])
    build = time.perf_counter() - start
    rng = np.random.default_rng(weights)
    data, labels_value = rng.standard_normal((ROWS, weights)), (rng.random(ROWS) < 0.5) * 1.0
    point = rng.standard_normal(weights) * 0.1
    if model == "ridge":
        expected = 2 * data.T @ data / ROWS + np.eye(weights)
    else:
        point = point.reshape(weights, 1)
        s = 1 / (1 + np.exp(-(data @ point)))
        expected = (data.T @ (s * (1 - s) * data) / ROWS).reshape(weights, 1, weights, 1)
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        got = compiled(data, labels_value, point)
        runs.append(time.perf_counter() - start)
    error = float(np.abs(got - expected).max() / np.abs(expected).max())
    source = compiled.source
    return {
        "build": build,
        "body": body_lines(source),
        "lines": len(source.splitlines()),
        "run": statistics.median(runs),
        "error": error,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", nargs="*", type=int, default=[3, 300, 3000])
    parser.add_argument("--one", nargs=2, metavar=("MODEL", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one[0], int(args.one[1]))))
        return
    rows = []
    for model in ("ridge", "logistic"):
        for weights in args.weights:
            command = [sys.executable, __file__, "--one", model, str(weights)]
            result = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
            rows.append(
                f"| {model} | {weights} | {result['build']:.2f} | {result['body']} | "
                f"{result['lines']} | {result['run'] * 1e3:.2f} | {result['error']:.1e} |"
            )
    info = machine_info()
    text = "\n".join(
        [
            "# Hessians through a `[None, n]` batch axis: ridge and logistic regression",
            "",
            f"{info['cpu']}, {info['cores']} cores, NumPy {info['numpy']}; {simd_line()}",
            "",
            f"Command: `python benchmarks/hessians_batch_free.py "
            f"{' '.join(map(str, args.weights))}` (each row a fresh process; {ROWS} rows fed)",
            "",
            "| model | n | build + compile s | body lines | module lines | run ms | "
            "max error / max entry |",
            "|---|---:|---:|---:|---:|---:|---:|",
            *rows,
        ]
    )
    print(text)
    RESULTS.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
