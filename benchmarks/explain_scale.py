"""Time of ``explain_gradients`` on deep chains that already hold their gradient ops.

The chain is ``z = tanh(z * w_k + b_k)``; ``gradients`` of the loss with respect to
every parameter is built first (so the graph holds the gradient ops, which is
what made the old path search blow up), then ``explain_gradients(loss, [x, w0, w_last])``
is timed. Writes ``benchmarks/results/explain_scale.md``.

Run:  python benchmarks/explain_scale.py [DEPTH ...]      (default: 1000 10000)
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import symgrad as sg


def measure(depth: int) -> dict:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[None], name="x")
        z, params = x, []
        for k in range(depth):
            w = sg.Variable(1.0, dtype=sg.float64, name=f"w{k}")
            b = sg.Variable(0.0, dtype=sg.float64, name=f"b{k}")
            params += [w, b]
            z = sg.tanh(z * w + b)
        loss = sg.reduce_sum(z)
        start = time.perf_counter()
        sg.gradients(loss, params)
        differentiated = time.perf_counter()
        text = sg.explain_gradients(loss, [x, params[0], params[-2]])
        explained = time.perf_counter()
    return {
        "depth": depth,
        "ops": depth * 4,
        "gradients_s": differentiated - start,
        "explain_s": explained - differentiated,
        "lines": len(text.splitlines()),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main(depths: list[int]) -> None:
    rows = [measure(depth) for depth in depths]
    lines = [
        "# explain_gradients on deep chains with gradient ops",
        "",
        "`python benchmarks/explain_scale.py " + " ".join(map(str, depths)) + "`",
        "",
        "| depth | gradients() | explain_gradients() | lines | peak RSS |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['depth']:,} | {row['gradients_s']:.2f} s | {row['explain_s']:.2f} s "
            f"| {row['lines']} | {row['peak_rss_mb']:.0f} MB |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    (Path(__file__).parent / "results" / "explain_scale.md").write_text(text)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000])
