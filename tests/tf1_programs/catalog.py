"""What each program in ``programs/`` is measured by, and the TF1 names symgrad still lacks.

This module imports neither symgrad nor TensorFlow: the runner uses it under both.

A program's metrics are read after it ran, either from its stdout (the last match of a regular
expression, as a person would read the printed result) or by evaluating an expression over the
program's final global variables. ``kind`` says how symgrad's value is compared with the values
TensorFlow reached over several seeds (``tf_results.json``):

- ``"accuracy"`` (higher is better): symgrad's value >= the lowest TF value - ``tol``
  (default 0.03: random initial values and dropout masks cannot equal TF's numbers, so the
  quality is compared, not the digits).
- ``"loss"`` (lower is better): symgrad's value <= 1.2 x the highest TF value + ``tol``
  (default 0.02).
- ``"band"`` (no direction, e.g. a GAN's discriminator loss): within ``tol`` of the range TF
  reached.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field

PROGRAMS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")

# TF1 names (as the programs spell them) that symgrad does not have yet. Kept by hand, so that
# when a name lands the programs that need it turn from xfail into XPASS (a strict failure) and
# tests/test_tf1_programs.py::test_not_yet_names_are_missing names it: then delete it here.
NOT_YET = frozenset(
    {
        "tf.contrib.layers.flatten",
        "tf.contrib.layers.xavier_initializer",
        "tf.device",
        "tf.get_collection",
        "tf.get_variable",
        "tf.GraphKeys.TRAINABLE_VARIABLES",
        "tf.GraphKeys.UPDATE_OPS",
        "tf.layers.batch_normalization",
        "tf.layers.conv2d",
        "tf.layers.dense",
        "tf.layers.dropout",
        "tf.layers.max_pooling2d",
        "tf.local_variables_initializer",
        "tf.losses.sparse_softmax_cross_entropy",
        "tf.metrics.accuracy",
        "tf.nn.conv2d",
        "tf.nn.dropout",
        "tf.nn.embedding_lookup",
        "tf.nn.max_pool",
        "tf.nn.nce_loss",
        "tf.random_normal",
        "tf.random_normal_initializer",
        "tf.random_uniform",
        "tf.set_random_seed",
        "tf.train.RMSPropOptimizer",
        "tf.variable_scope",
        "tf.argmax",
        "tf.constant_initializer",
        "tf.control_dependencies",
        "tf.contrib.layers.l2_regularizer",
        "tf.no_op",
        "tf.train.ExponentialMovingAverage",
        "tf.train.exponential_decay",
        "tf.truncated_normal",
    }
)

# Programs that fail under symgrad for a reason other than a missing name, with the reason.
# Each is an expected failure (strict) like the ones above: fix the gap, then delete the entry.
GAPS: dict[str, str] = {
    "golbin_04_02_deep_nn": "matmul of placeholders declared without a shape (TF1 allows unknown rank)",
    "aymericdamien_convolutional_network_raw": "Tensor.get_shape().as_list() (a TensorShape)",
    "nlintz_05_convolutional_net": "Tensor.get_shape().as_list() (a TensorShape)",
    "hunkim_lab_06_2_softmax_zoo_classifier": (
        "a Python list of tensors as an op's argument, which TF1 packs into one tensor"
        " (stop_gradient([Y_one_hot]))"
    ),
}


@dataclass(frozen=True)
class Metric:
    """One number a program reaches: ``stdout`` regex (group 1 of the last match) or ``expr``."""

    kind: str
    stdout: str | None = None
    expr: str | None = None
    tol: float | None = None

    def tolerance(self) -> float:
        if self.tol is not None:
            return self.tol
        return {"accuracy": 0.03, "loss": 0.02}.get(self.kind, 0.0)


@dataclass(frozen=True)
class Program:
    metrics: dict[str, Metric]
    seconds: float = 300.0  # the subprocess timeout under symgrad (a loaded 2-core machine)
    notes: str = ""
    extra_needs: tuple[str, ...] = field(default=())


def _acc(stdout: str | None = None, expr: str | None = None, tol: float | None = None) -> Metric:
    return Metric("accuracy", stdout=stdout, expr=expr, tol=tol)


def _loss(stdout: str | None = None, expr: str | None = None, tol: float | None = None) -> Metric:
    return Metric("loss", stdout=stdout, expr=expr, tol=tol)


_PRINTED_ACCURACY = r"Accuracy:\s*([0-9.]+)"
_NLINTZ_ACCURACY = r"(?m)^\d+ ([0-9.]+)$"  # "epoch accuracy" lines; the last one counts
_GOLBIN_ACCURACY = r"정확도:\s*([0-9.]+)"  # "accuracy:" in Korean

PROGRAMS: dict[str, Program] = {
    "hunkim_lab_04_2_multi_variable_matmul_linear_regression": Program(
        {"cost": _loss(expr="cost_val", tol=2.0)}
    ),
    "hunkim_lab_05_2_logistic_regression_diabetes": Program(
        {"accuracy": _acc(expr="a"), "cost": _loss(expr="cost_val")}
    ),
    "hunkim_lab_06_2_softmax_zoo_classifier": Program(
        {"accuracy": _acc(expr="acc_val"), "cost": _loss(expr="cost_val")}
    ),
    "hunkim_lab_07_1_learning_rate_and_evaluation": Program({"cost": _loss(expr="cost_val")}),
    "hunkim_lab_09_3_xor_nn_wide_deep": Program(
        {"accuracy": _acc(expr="a"), "cost": _loss(expr="cost_val")}
    ),
    "hunkim_lab_10_1_mnist_softmax": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost")}
    ),
    "hunkim_lab_10_2_mnist_nn": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost", tol=0.5)},
        notes="random_normal weights of stddev 1: the cost is large and varies",
    ),
    "hunkim_lab_10_3_mnist_nn_xavier": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost")}
    ),
    "hunkim_lab_10_5_mnist_nn_dropout": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost")}
    ),
    "hunkim_lab_11_1_mnist_cnn": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost")}
    ),
    "hunkim_lab_11_3_mnist_cnn_class": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost")}
    ),
    "hunkim_lab_11_4_mnist_cnn_layers": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost")}
    ),
    "hunkim_lab_13_1_mnist_using_scope": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost")}
    ),
    "nlintz_02_logistic_regression": Program({"accuracy": _acc(_NLINTZ_ACCURACY)}),
    "nlintz_03_net": Program({"accuracy": _acc(_NLINTZ_ACCURACY)}),
    "nlintz_04_modern_net": Program({"accuracy": _acc(_NLINTZ_ACCURACY)}),
    "nlintz_05_convolutional_net": Program(
        {"accuracy": _acc(_NLINTZ_ACCURACY, tol=0.05)},
        notes="tested on 256 random test images",
    ),
    "nlintz_08_word2vec": Program(
        {"loss": _loss(expr="float(loss_val)", tol=1.0)},
        notes="nce_loss samples its negative classes: the last batch's loss is noisy",
    ),
    "aymericdamien_linear_regression": Program(
        {
            "training_cost": _loss(expr="float(training_cost)"),
            "testing_cost": _loss(expr="float(testing_cost)"),
        }
    ),
    "aymericdamien_logistic_regression": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost")}
    ),
    "aymericdamien_multilayer_perceptron": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "cost": _loss(expr="avg_cost", tol=5.0)},
        notes="linear layers with random_normal weights of stddev 1: the cost is large",
    ),
    "aymericdamien_convolutional_network_raw": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY, tol=0.06)},
        notes="30 steps from random_normal weights of stddev 1; 256 test images",
    ),
    "golbin_04_02_deep_nn": Program(
        {
            "accuracy": _acc(expr="float(sess.run(accuracy, feed_dict={X: x_data, Y: y_data}))"),
            "cost": _loss(expr="float(sess.run(cost, feed_dict={X: x_data, Y: y_data}))", tol=0.1),
        }
    ),
    "golbin_07_02_tf_layers": Program(
        {"accuracy": _acc(_GOLBIN_ACCURACY), "cost": _loss(expr="total_cost / total_batch")}
    ),
    "morvan_302_simple_classification": Program(
        {
            "accuracy": _acc(expr="float(acc)"),
            "loss": _loss(expr="float(sess.run(loss, {tf_x: x, tf_y: y}))"),
        }
    ),
    "morvan_304_optimizer": Program(
        {
            f"loss_{label}": _loss(expr=f"float(np.mean(losses_his[{i}][-50:]))", tol=0.005)
            for i, label in enumerate(["sgd", "momentum", "rmsprop", "adam"])
        }
    ),
    "morvan_406_gan": Program(
        {"d_loss": Metric("band", expr="float(Dl)", tol=0.15)},
        notes="a GAN: the discriminator's loss has no direction, it should stay where TF's does",
    ),
    "morvan_501_dropout": Program(
        {"overfit_loss": _loss(expr="float(o_loss_)"), "dropout_loss": _loss(expr="float(d_loss_)")}
    ),
    "morvan_502_batch_normalization": Program(
        {
            "loss": _loss(expr="float(losses[0][-1])", tol=5.0),
            "bn_loss": _loss(expr="float(losses[1][-1])", tol=5.0),
        }
    ),
    "yhzhao_learning_rate": Program({"x": _loss(expr="float(x_value)", tol=1e-4)}),
    "yhzhao_mnist_train": Program(
        {"accuracy": _acc(r"test accuracy, using average model is ([0-9.]+)")},
        notes="exponential_decay, ExponentialMovingAverage, l2_regularizer, control_dependencies",
    ),
}


def read_metrics(program: Program, stdout: str, namespace: dict) -> dict[str, float]:
    """The program's metrics from its printed output and its final globals."""
    values = {}
    for name, metric in program.metrics.items():
        if metric.stdout is not None:
            matches = re.findall(metric.stdout, stdout)
            if not matches:
                raise ValueError(f"metric {name}: no output matches {metric.stdout!r}")
            values[name] = float(matches[-1])
        else:
            values[name] = float(eval(metric.expr, dict(namespace)))  # expressions of our own table
    return values


def tf_names(name: str) -> list[str]:
    """The ``tf.`` names a program uses (longest attribute chains), sorted.

    >>> "tf.placeholder" in tf_names("hunkim_lab_09_3_xor_nn_wide_deep")
    True
    """
    with open(os.path.join(PROGRAMS_DIR, name + ".py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found: set[str] = set()
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            parts, cur = [], node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                inner.add(id(cur.value))
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id == "tf":
                found.add(".".join(["tf", *reversed(parts)]))
    return sorted(found)


def expected_failure(name: str) -> str | None:
    """Why the program cannot pass under symgrad yet (``NOT_YET`` names, ``GAPS``), or None."""
    reasons = []
    missing = missing_names(name)
    if missing:
        reasons.append("needs " + ", ".join(missing))
    if name in GAPS:
        reasons.append(GAPS[name])
    return "; ".join(reasons) or None


def missing_names(name: str) -> list[str]:
    """The names of ``NOT_YET`` (or a prefix of one) that the program uses."""
    needs = set(tf_names(name)) | set(PROGRAMS[name].extra_needs)
    return sorted(n for n in needs if any(n == m or n.startswith(m + ".") for m in NOT_YET))
