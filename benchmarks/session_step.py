"""The cost of ``Session.run`` itself: one training step of small models, this checkout against
another one, in one run.

    python benchmarks/session_step.py                          # this checkout alone
    python benchmarks/session_step.py --against /path/to/other/checkout --rounds 7

Steps timed (each ``sess.run([train_op, loss], feed)``, gradient descent, float32, one thread):
W1, the seed's linear regression on scalars fed per call (the run's own overhead dominates);
W3, a 784-256-256-10 tanh MLP with softmax cross-entropy at batch 128; and a counter
(``sess.run(assign_add(v, 1))``, nothing but a run that assigns). Each checkout is timed in
fresh processes, alternating round by round, so that background load moves both alike; the
table gives each checkout's median over rounds of the per-round median step time, and the
ratio this / other.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

_PROBE = r"""
import json, sys, time
import numpy as np
import symgrad as sg

def timed(step, repeats):
    for _ in range(20):
        step()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        samples.append(time.perf_counter() - start)
    return float(np.median(samples))

results = {}
rng = np.random.default_rng(0)
with sg.Graph().as_default():
    x = sg.placeholder(sg.float32, name="x")
    y = sg.placeholder(sg.float32, name="y")
    w, b = sg.Variable(2.0, name="w"), sg.Variable(1.0, name="b")
    loss = sg.reduce_sum(sg.pow(y - (x * w + b), 2)) / 64
    train = sg.train.GradientDescentOptimizer(0.01).minimize(loss)
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        feed = {x: 3.0, y: 11.0}
        results["W1 step"] = timed(lambda: sess.run([train, loss], feed), 3000)
with sg.Graph().as_default():
    x = sg.placeholder(sg.float32, [None, 784], name="x")
    labels = sg.placeholder(sg.float32, [None, 10], name="labels")
    h = x
    for width in (256, 256):
        h = sg.tanh(sg.layers.dense(h, width))
    logits = sg.layers.dense(h, 10)
    loss = sg.reduce_mean(
        sg.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    )
    train = sg.train.GradientDescentOptimizer(0.01).minimize(loss)
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        feed = {
            x: rng.standard_normal((128, 784)).astype(np.float32),
            labels: np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)],
        }
        results["W3 step"] = timed(lambda: sess.run([train, loss], feed), 300)
with sg.Graph().as_default():
    counter = sg.Variable(0.0, name="counter")
    increment = sg.assign_add(counter, 1.0)
    with sg.Session() as sess:
        sess.run(counter.initializer)
        results["counter"] = timed(lambda: sess.run(increment), 3000)
print(json.dumps(results))
"""


def _probe(checkout: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(checkout), OMP_NUM_THREADS="1")
    env["OPENBLAS_NUM_THREADS"] = env["MKL_NUM_THREADS"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout of symgrad")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    checkouts = {"this": ROOT} | ({"other": args.against.resolve()} if args.against else {})
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    for _ in range(args.rounds):
        for name, path in checkouts.items():
            rounds[name].append(_probe(path))
    steps = list(rounds["this"][0])
    header = "| step | this (µs) |" + (" other (µs) | this / other |" if args.against else "")
    print(header)
    print("|---|---:|" + ("---:|---:|" if args.against else ""))
    for step in steps:
        this = statistics.median(r[step] for r in rounds["this"]) * 1e6
        row = f"| {step} | {this:.1f} |"
        if args.against:
            other = statistics.median(r[step] for r in rounds["other"]) * 1e6
            row += f" {other:.1f} | {this / other:.3f} |"
        print(row)


if __name__ == "__main__":
    main()
