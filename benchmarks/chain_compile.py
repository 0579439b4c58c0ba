"""Compile time and code size of a deep chain ``z = tanh(z * w_k + b_k)``.

For each depth: time to build the graph, to build the gradients of all 2*depth
parameters, and to compile() (trace, optimize, print, write, import), plus the
generated line count. Ratios are against the first depth, in the same run.

Run:  python benchmarks/chain_compile.py [DEPTH ...]      (default: 100 200 400)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import symgrad as sg


def measure(depth: int, folder: Path) -> dict:
    with sg.Graph().as_default():
        start = time.perf_counter()
        x = sg.placeholder(sg.float64, shape=[None], name="x")
        z, params = x, []
        for k in range(depth):
            w = sg.Variable(1.0, dtype=sg.float64, name=f"w{k}")
            b = sg.Variable(0.0, dtype=sg.float64, name=f"b{k}")
            params += [w, b]
            z = sg.tanh(z * w + b)
        loss = sg.reduce_sum(z)
        built = time.perf_counter()
        grads = sg.gradients(loss, params)
        differentiated = time.perf_counter()
        compiled = sg.compile(
            [loss] + grads, name=f"chain{depth}", path=folder / f"chain{depth}.py"
        )
        done = time.perf_counter()
    return {
        "depth": depth,
        "graph_s": built - start,
        "gradients_s": differentiated - built,
        "compile_s": done - differentiated,
        "total_s": done - start,
        "lines": compiled.source.count("\n"),
    }


def main(depths: list) -> None:
    with tempfile.TemporaryDirectory() as folder:
        rows = [measure(depth, Path(folder)) for depth in depths]
    base = rows[0]
    print(
        f"| depth | graph s | gradients s | compile s | total s | lines | total ×{base['depth']} | lines ×{base['depth']} |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['depth']} | {row['graph_s']:.2f} | {row['gradients_s']:.2f} | {row['compile_s']:.2f} "
            f"| {row['total_s']:.2f} | {row['lines']} | {row['total_s'] / base['total_s']:.2f} "
            f"| {row['lines'] / base['lines']:.2f} |"
        )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 200, 400])
