"""The sigmoid cross-entropy as one textbook function against TF's composition of it.

Logistic regression ``cost = sum(sigmoid_cross_entropy_with_logits(t, feats @ theta + c))``
with its two gradients, over ``--rows`` examples of ``--features`` features (float64). Timed
side by side in one process (interleaved rounds, medians):

- symgrad: the module ``sg.compile`` writes now, where the loss is one function whose
  gradient is ``sigmoid(z) - t`` (the stable form is its printer's business);
- symgrad, TF's composition: the same loss written out of the primitives TF's
  ``nn_impl.sigmoid_cross_entropy_with_logits`` uses (``where(z >= 0, z, 0) - z * t +
  softplus(where(z >= 0, -z, z))``), which is what symgrad compiled before;
- NumPy by hand: what a careful person writes;
- TensorFlow 1 (``compat.v1`` ``Session.run`` of the cost and ``tf.gradients``, one intra-
  and one inter-op thread), in a process of its own on the same data, when ``--tf-python``
  names a Python that imports TensorFlow (its rounds run after symgrad's, not interleaved).

It also reports each module's statements and ``np.errstate`` blocks, and checks that all
three agree.

Run:  python benchmarks/logistic_loss.py [--rows N] [--features D] [--repeats R]
      [--tf-python /work/tfenv/bin/python]
Writes the table to benchmarks/results/logistic_loss.md as well.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workloads.report import machine_info, simd_line  # noqa: E402  (not a package)

RESULTS = HERE / "results" / "logistic_loss.md"


def _composed_loss(sg: Any, labels: Any, logits: Any) -> Any:
    """TF's own formula, out of primitives."""
    nonnegative = sg.greater_equal(logits, sg.zeros_like(logits))
    relu_logits = sg.where(nonnegative, logits, sg.zeros_like(logits))
    negative_abs = sg.where(nonnegative, -logits, logits)
    return relu_logits - logits * labels + sg.nn.softplus(negative_abs)


def build(features: int, composed: bool) -> Any:
    import symgrad as sg

    with sg.Graph().as_default():
        feats = sg.placeholder(sg.float64, [None, features], name="feats")
        t = sg.placeholder(sg.float64, [None, 1], name="t")
        theta = sg.Variable(np.zeros((features, 1)), name="theta")
        c = sg.Variable(0.0, dtype=sg.float64, name="c")
        z = sg.matmul(feats, theta) + c
        if composed:
            losses = _composed_loss(sg, t, z)
        else:
            losses = sg.nn.sigmoid_cross_entropy_with_logits(labels=t, logits=z)
        cost = sg.reduce_sum(losses)
        return sg.compile([cost, *sg.gradients(cost, [theta, c])])


def by_hand(feats: np.ndarray, t: np.ndarray, theta: np.ndarray, c: float) -> tuple:
    z = feats @ theta + c
    cost = np.sum(np.maximum(z, 0) - z * t + np.log1p(np.exp(-np.abs(z))))
    error = 1 / (1 + np.exp(-z)) - t
    return cost, feats.T @ error, error.sum()


def tensorflow_times(data: str, repeats: int) -> list[float]:
    """Seconds of TF1 ``Session.run`` of the cost and both gradients (in a TF process)."""
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    arrays = np.load(data)
    feats_value, t_value = arrays["feats"], arrays["t"]
    with tf.Graph().as_default():
        feats = tf.placeholder(tf.float64, [None, feats_value.shape[1]])
        t = tf.placeholder(tf.float64, [None, 1])
        theta = tf.Variable(arrays["theta"])
        c = tf.Variable(np.float64(0.25))
        z = tf.matmul(feats, theta) + c
        cost = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=t, logits=z))
        fetches = [cost, *tf.gradients(cost, [theta, c])]
        config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
        with tf.Session(config=config) as session:
            session.run(tf.global_variables_initializer())
            feed = {feats: feats_value, t: t_value}
            session.run(fetches, feed)  # warm-up
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                session.run(fetches, feed)
                times.append(time.perf_counter() - start)
    return times


def shape_of(module: Any) -> tuple[int, int]:
    """(statements of the body the fed shapes take, ``np.errstate`` blocks in the bodies) of a
    module; the kernels it defines (``_sigmoid`` keeps exp's overflow to itself) are not
    counted."""
    source = module.source
    summaries = [line for line in source.splitlines() if "# Statements:" in line]
    statements = int(summaries[-1].split("Statements:")[1].split(",")[0])
    return statements, source.split("# Statements:", 1)[1].count("np.errstate")


def _machine_line() -> str:
    info = machine_info()
    return (
        f"{info['cpu']}, {info['cores']} cores, NumPy {info['numpy']}, load average "
        f"{info['load_average'][0]:.2f}; {simd_line()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--tf-python", default="", help="a Python that imports TensorFlow")
    parser.add_argument("--tf-child", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tf_child:
        print(json.dumps(tensorflow_times(args.tf_child, args.repeats)))
        return
    rng = np.random.default_rng(0)
    feats = rng.standard_normal((args.rows, args.features))
    t = (rng.random((args.rows, 1)) < 0.5).astype(np.float64)
    theta = rng.standard_normal((args.features, 1))
    inputs = (feats, t, theta, 0.25)
    textbook, composed = build(args.features, False), build(args.features, True)
    runs: dict[str, Callable[..., Any]] = {
        "symgrad (textbook function)": textbook,
        "symgrad (TF's composition)": composed,
        "NumPy by hand": by_hand,
    }
    reference = by_hand(*inputs)
    for name, run in runs.items():
        for got, want in zip(run(*inputs), reference, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-9, err_msg=name)
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run(*inputs)
            times[name].append(time.perf_counter() - start)
    if args.tf_python:
        with tempfile.TemporaryDirectory() as folder:
            data = os.path.join(folder, "data.npz")
            np.savez(data, feats=feats, t=t, theta=theta)
            command = [args.tf_python, __file__, "--tf-child", data, "--repeats", str(args.repeats)]
            environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
            done = subprocess.run(command, capture_output=True, text=True, env=environment)
            if done.returncode == 0:
                times["TensorFlow 1 Session.run"] = json.loads(done.stdout.splitlines()[-1])
    base = statistics.median(times["NumPy by hand"])
    shapes = {"symgrad (textbook function)": shape_of(textbook)}
    shapes["symgrad (TF's composition)"] = shape_of(composed)
    lines = [
        f"# Logistic regression: cost and both gradients, {args.rows} x {args.features} float64",
        "",
        _machine_line(),
        "",
        f"Command: `python benchmarks/logistic_loss.py --rows {args.rows} "
        f"--features {args.features} --repeats {args.repeats}"
        f"{' --tf-python ' + args.tf_python if args.tf_python else ''}` (medians; symgrad's and "
        f"NumPy's rounds interleaved, TensorFlow's in its own process after them)",
        "",
        "| form | ms per call | / by hand | statements | np.errstate blocks |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in times:
        median = statistics.median(times[name])
        statements, guards = shapes.get(name, ("", ""))
        lines.append(
            f"| {name} | {median * 1e3:.2f} | {median / base:.2f} | {statements} | {guards} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
