"""Hessians of least squares with L2: symgrad's generated module against TensorFlow 1.

The model is ``mean((x @ w - y)**2) + 0.01 * sum(w**2)`` over ``n`` weights and
64 rows (``least_squares_l2`` in ``tests/tf_parity/programs_hessians.py``, the
program of the TF parity test). For n = 30, 300 and 3,000, each framework runs
in a fresh process and reports:

- build: seconds to build the graph and its Hessian (``sg.hessians`` then
  ``sg.compile`` for symgrad; ``tf.hessians`` and the first ``Session.run``,
  which compiles TF's while loop, for TensorFlow);
- size: lines of the generated module (symgrad) or ops in the graph (TF);
- run: median seconds of one evaluation of the Hessian, over 5 runs;
- error: the largest difference from the closed form ``2 x.T x / 64 + 0.02 I``.

Run:  python benchmarks/hessians.py [--tf-python /work/tfenv/bin/python] [n ...]
Writes the table to benchmarks/results/hessians.md as well. Without a Python that
imports TensorFlow, the TF columns are left out.
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
ROOT = HERE.parent
RESULTS = HERE / "results" / "hessians.md"


def measure(framework: str, weights: int) -> dict[str, float]:
    """Build, time and check one Hessian in this process (``framework``: symgrad or tensorflow)."""
    sys.path.insert(0, str(ROOT))
    from tests.tf_parity.programs_hessians import least_squares_l2

    if framework == "symgrad":
        import symgrad as tf
    else:
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    started = time.perf_counter()
    with tf.Graph().as_default() as graph:
        built = least_squares_l2(tf, weights)
        hessian = built["fetches"][1][0]
        feeds = built["feeds"]
        if framework == "symgrad":
            compiled = tf.compile(hessian, name=f"hessian_{weights}")
            arguments = dict(zip(["x", "y"], feeds.values(), strict=True))

            def run() -> np.ndarray:
                return compiled(**arguments)

            size = len(compiled.source.splitlines())
        else:
            session = tf.Session(graph=graph)
            session.run(tf.global_variables_initializer())

            def run() -> np.ndarray:
                return session.run(hessian, feed_dict=feeds)

            size = len(graph.get_operations())
        value = run()
        build = time.perf_counter() - started
        times = []
        for _ in range(5):
            started = time.perf_counter()
            run()
            times.append(time.perf_counter() - started)
    x = next(iter(feeds.values()))
    closed = 2 * x.T @ x / x.shape[0] + 0.02 * np.eye(weights)
    error = float(np.abs(np.asarray(value) - closed).max())
    return {"build": build, "size": size, "run": statistics.median(times), "error": error}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", nargs="*", type=int, default=[30, 300, 3000])
    parser.add_argument("--tf-python", default="/work/tfenv/bin/python")
    parser.add_argument("--child", choices=["symgrad", "tensorflow"])
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.weights[0])))
        return
    rows = []
    for weights in args.weights:
        row: dict[str, object] = {"n": weights}
        for framework, python in (("symgrad", sys.executable), ("tensorflow", args.tf_python)):
            done = subprocess.run(
                [python, __file__, "--child", framework, str(weights)],
                capture_output=True,
                text=True,
                env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"},
            )
            if done.returncode == 0:
                row[framework] = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
    lines = [
        "| n | symgrad build | module lines | symgrad run | TF build | TF graph ops | TF run "
        "| max error symgrad / TF |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        mine, theirs = row.get("symgrad", {}), row.get("tensorflow", {})

        def cell(result: dict, key: str) -> str:
            if key not in result:
                return "-"
            return f"{result[key]:.3g} s" if key in ("build", "run") else f"{result[key]:.3g}"

        lines.append(
            f"| {row['n']} | {cell(mine, 'build')} | {cell(mine, 'size')} | {cell(mine, 'run')} "
            f"| {cell(theirs, 'build')} | {cell(theirs, 'size')} | {cell(theirs, 'run')} "
            f"| {cell(mine, 'error')} / {cell(theirs, 'error')} |"
        )
    table = "\n".join(lines)
    print(table)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        "# Hessians of least squares with L2 (benchmarks/hessians.py)\n\n"
        "float64, 64 rows; each cell from a fresh process on a shared 2-core machine.\n\n"
        + table
        + "\n"
    )


if __name__ == "__main__":
    main()
