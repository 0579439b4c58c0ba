"""Steady-state time of one training step of the seed's program 1, side by side.

Compares, in one process: a hand-written NumPy step that converts its inputs
with np.asarray (the floor), symgrad's Session.run([train_op, gradients, loss]),
and TensorFlow 1's Session.run when TensorFlow is importable. Reports the
median per-step time and the ratio to the hand-written step.

Run:  python benchmarks/session_step.py [--steps N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Callable, Dict

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

rng = np.random.default_rng(0)
X = (rng.integers(-10, 100, 32) + rng.standard_normal(32) / 32).astype(np.float64)
Y = 3 * X + 2 + rng.standard_normal(32) / 32


def handwritten() -> Callable[[int], None]:
    state = {"w": np.float32(2.0), "b": np.float32(1.0)}

    def step(i: int) -> None:
        x = np.asarray(X[i % 32], dtype=np.float32)
        y = np.asarray(Y[i % 32], dtype=np.float32)
        w, b = state["w"], state["b"]
        residual = y - (x * w + b)
        loss = np.sum(residual ** 2) / 64
        grad_w = np.sum(-x * residual) / 32
        grad_b = np.sum(-residual) / 32
        state["w"], state["b"] = w - np.float32(0.01) * grad_w, b - np.float32(0.01) * grad_b
        return loss, [grad_w]

    return step


def graph_program(tf) -> Callable[[int], None]:  # type: ignore[no-untyped-def]
    x_input = tf.placeholder(tf.float32, name="x_input")
    y_input = tf.placeholder(tf.float32, name="y_input")
    w = tf.Variable(2.0, name="weight")
    b = tf.Variable(1.0, name="biases")
    y = tf.add(tf.multiply(x_input, w), b)
    loss_op = tf.reduce_sum(tf.pow(y_input - y, 2)) / (2 * 32)
    train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss_op)
    gradients_node = tf.gradients(loss_op, w)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())

    def step(i: int) -> None:
        return sess.run([train_op, gradients_node, loss_op],
                        feed_dict={x_input: X[i % 32], y_input: Y[i % 32]})

    return step


def median_time(step: Callable[[int], None], steps: int, repeats: int = 7) -> float:
    for i in range(200):
        step(i)  # warm up (and compile)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for i in range(steps):
            step(i)
        samples.append((time.perf_counter() - start) / steps)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    import symgrad
    systems: Dict[str, Callable[[int], None]] = {"hand-written NumPy": handwritten()}
    with symgrad.Graph().as_default():
        systems["symgrad Session.run"] = graph_program(symgrad)
    try:
        import tensorflow.compat.v1 as tf1
        tf1.disable_v2_behavior()
        with tf1.Graph().as_default():
            systems[f"TensorFlow {tf1.__version__} Session.run"] = graph_program(tf1)
    except ImportError:
        print("(TensorFlow not installed: skipped; pip install tensorflow-cpu to compare)")
    times = {name: median_time(step, args.steps) for name, step in systems.items()}
    base = times["hand-written NumPy"]
    print("| system | µs per step | ratio to hand-written |")
    print("|---|---:|---:|")
    for name, seconds in times.items():
        print(f"| {name} | {seconds * 1e6:.1f} | {seconds / base:.2f} |")


if __name__ == "__main__":
    main()
