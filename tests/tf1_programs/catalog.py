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
# No program uses these now; they stay listed as the TF1 names the tutorials use that are missing.
NOT_YET: frozenset[str] = frozenset()

# Programs that fail under symgrad for a reason other than a missing name, with the reason.
# Each is an expected failure (strict) like the ones above: fix the gap, then delete the entry.
GAPS: dict[str, str] = {}


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
    # Run as a user runs it: the runner gives the default graph no seed under symgrad either,
    # so random ops draw from the operating system's entropy (other numbers every run), and
    # the test runs it ``runs`` times.
    unseeded: bool = False
    runs: int = 1


def _acc(stdout: str | None = None, expr: str | None = None, tol: float | None = None) -> Metric:
    return Metric("accuracy", stdout=stdout, expr=expr, tol=tol)


def _loss(stdout: str | None = None, expr: str | None = None, tol: float | None = None) -> Metric:
    return Metric("loss", stdout=stdout, expr=expr, tol=tol)


_PRINTED_ACCURACY = r"Accuracy:\s*([0-9.]+)"
_NLINTZ_ACCURACY = r"(?m)^\d+ ([0-9.]+)$"  # "epoch accuracy" lines; the last one counts


def _mnist(acc_tol: float | None = None, cost_tol: float | None = None) -> dict[str, Metric]:
    """The printed test accuracy and the last epoch's average cost (``avg_cost``)."""
    return {
        "accuracy": _acc(_PRINTED_ACCURACY, tol=acc_tol),
        "cost": _loss(expr="float(avg_cost)", tol=cost_tol),
    }


PROGRAMS: dict[str, Program] = {
    "ageron_09_logistic_regression_log_loss": Program(
        {
            "precision": _acc(expr="float(precision)"),
            "recall": _acc(expr="float(recall)"),
            "loss": _loss(expr="float(loss_val)"),
        },
        notes="20,000 mini-batch steps of tf.losses.log_loss on the moons data",
    ),
    "ageron_11_reuse_by_name": Program(
        {
            "accuracy": _acc(r"Test accuracy:\s*([0-9.]+)"),
            "restored_equal": Metric("band", expr="restored_equal"),
            "hidden_units": Metric("band", expr="float(hidden_units)"),
            "kernel_rows": Metric("band", expr="float(kernel_rows)"),
            "logits_columns": Metric("band", expr="float(logits_shape[1])"),
        },
        notes="tensors and ops found by TF1's names; the batch-norm + Adam idiom saved into a "
        "folder that does not exist yet, restored and trained on",
    ),
    "ageron_10_mnist_checkpoints": Program(
        {
            "accuracy": _acc(r"Test accuracy:\s*([0-9.]+)"),
            "loss": _loss(expr="float(test_loss)"),
            "resumed_at": Metric("band", expr="float(resumed_at)"),
            "event_files": Metric("band", expr="float(summaries_written)"),
        },
        notes="training is interrupted and resumed from the checkpoint the tutorial writes "
        "every 5 epochs; the best model is restored for the test",
    ),
    "ageron_11_dropout_schedule": Program(
        {
            "schedule_accuracy": _acc(expr="float(schedule_accuracy)"),
            "steps_taken": Metric("band", expr="float(steps_taken)"),
            "final_learning_rate": Metric("band", expr="float(final_learning_rate)", tol=1e-7),
            "dropout_accuracy": _acc(expr="float(dropout_accuracy)"),
            "repeatable": Metric("band", expr="repeatable"),
        },
        notes="exponential_decay on the global_step minimize increments; tf.layers.dropout "
        "applied only while the training flag is fed True",
    ),
    "ageron_11_max_norm": Program(
        {
            "by_name_accuracy": _acc(expr="float(by_name_accuracy)"),
            "regularizer_accuracy": _acc(expr="float(acc_valid)"),
            "by_name_clipped": Metric("band", expr="by_name_clipped"),
            "by_name_rows_at_threshold": Metric("band", expr="by_name_rows_at_threshold"),
            "regularizer_clipped": Metric("band", expr="regularizer_clipped"),
            "regularizer_rows_at_threshold": Metric("band", expr="regularizer_rows_at_threshold"),
            "regularization_losses": Metric("band", expr="float(regularization_losses)"),
        },
        notes="the weights clipped by assign ops run after each step: by tensor name, and "
        "as a kernel_regularizer that returns None and collects its op",
    ),
    "ageron_11_batch_norm": Program(
        {
            "accuracy": _acc(r"Validation accuracy:\s*([0-9.]+)"),
            "loss": _loss(expr="float(valid_loss)"),
        },
        notes="labels declared shape=(None), which is no shape: in_top_k and the sparse "
        "cross-entropy take them as [batch]",
    ),
    "aymericdamien_linear_regression": Program(
        {
            "training_cost": _loss(expr="float(training_cost)"),
            "testing_cost": _loss(expr="float(testing_cost)"),
        }
    ),
    "aymericdamien_logistic_regression": Program(_mnist()),
    "aymericdamien_word2vec_unseeded": Program(
        {
            "first_loss": Metric("band", expr="first_loss", tol=30.0),
            "final_loss": _loss(expr="final_loss", tol=2.0),
            "start_correlation": Metric("band", expr="start_correlation", tol=0.03),
        },
        notes="no graph seed: the embeddings and the NCE weights, both random_normal of one "
        "shape, are two draws (the first loss and their correlation show it); run 3 times",
        unseeded=True,
        runs=3,
    ),
    "aymericdamien_recurrent_network": Program(
        {
            "accuracy": _acc(r"Testing Accuracy:\s*([0-9.]+)", tol=0.06),
            "loss": _loss(expr="float(final_loss)", tol=0.1),
        },
        notes="an LSTM unrolled over the 28 rows of each image by contrib.rnn.static_rnn",
    ),
    "aymericdamien_multilayer_perceptron": Program(
        _mnist(acc_tol=0.08, cost_tol=20.0),
        notes="linear layers with random_normal weights of stddev 1: the cost is large and varies",
    ),
    "caicloud_mnist_best_practice": Program(
        {
            "averaged_accuracy": _acc(_PRINTED_ACCURACY),
            "raw_accuracy": _acc(expr="raw_accuracy"),
            "loss": _loss(expr="final_loss", tol=0.05),
            "regularization": Metric("band", expr="final_regularization", tol=0.002),
            "final_learning_rate": Metric("band", expr="final_lr", tol=1e-6),
            "steps": Metric("band", expr="float(steps_taken)"),
        },
        notes="contrib l2_regularizer losses in REGULARIZATION_LOSSES summed by "
        "losses.get_regularization_loss; exponential_decay(staircase) on the global step; "
        "an ExponentialMovingAverage(decay, global_step) applied under control_dependencies "
        "with the step, its averages restored into a new graph by variables_to_restore",
    ),
    "golbin_06_02_dropout_unseeded": Program(
        {
            "accuracy": _acc(_PRINTED_ACCURACY),
            "cost": _loss(expr="float(avg_cost)", tol=0.05),
            "dropped_together": Metric("band", expr="dropped_together", tol=0.02),
        },
        notes="no graph seed: two dropouts of one tensor draw two masks; run 3 times",
        unseeded=True,
        runs=3,
    ),
    "golbin_04_02_deep_nn": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY, tol=3.0), "cost": _loss(expr="final_cost")},
        notes="the accuracy is printed in percent",
    ),
    "gorner_2_2_five_layers_dropout": Program(
        {
            "accuracy": _acc(r"test accuracy: ([0-9.]+)"),
            "loss": _loss(expr="float(test_loss)", tol=3.0),
        },
        notes="labels declared without a shape (argmax of them for accuracy, tf.shape of them, "
        "the softmax cross-entropy's labels), the flattened images fed instead of the "
        "placeholder, a learning rate placeholder fed a decayed number each step",
    ),
    "hunkim_lab04_multi_variable_regression": Program({"cost": _loss(expr="float(cost_val)")}),
    "hunkim_lab05_logistic_diabetes": Program(
        {"accuracy": _acc(expr="float(a)"), "cost": _loss(expr="float(cost_val)")}
    ),
    "hunkim_lab06_softmax_zoo": Program(
        {"accuracy": _acc(expr="float(acc_val)"), "cost": _loss(expr="float(cost_val)")}
    ),
    "hunkim_lab09_xor_nn": Program(
        {
            "accuracy": _acc(expr="float(a)", tol=0.26),
            "cost": _loss(expr="float(cost_val)", tol=0.6),
        },
        notes="a 2-2-1 sigmoid net can stall on XOR from some initial weights",
    ),
    "hunkim_lab10_mnist_nn": Program(
        _mnist(acc_tol=0.08, cost_tol=100.0),
        notes="random_normal weights of stddev 1: the cost is large and varies",
    ),
    "hunkim_lab10_mnist_xavier": Program(_mnist()),
    "hunkim_lab10_mnist_dropout": Program(_mnist()),
    "hunkim_lab11_mnist_cnn": Program(_mnist(acc_tol=0.06, cost_tol=0.1)),
    "hunkim_lab11_mnist_cnn_class": Program(_mnist(acc_tol=0.06, cost_tol=0.1)),
    "hunkim_lab11_mnist_cnn_layers": Program(_mnist(acc_tol=0.06, cost_tol=0.1)),
    "hunkim_lab13_mnist_scope": Program(_mnist()),
    "pkmital_09_convolutional_autoencoder": Program(
        {
            "error": _loss(r"Reconstruction error per image: ([0-9.]+)", tol=0.5),
            "relative_error": _loss(expr="per_image_error / baseline_error", tol=0.02),
            "code_size": Metric("band", expr="float(np.prod(code_shape[1:]))"),
            "output_rows": Metric("band", expr="float(recon.shape[1])"),
        },
        notes="a decoder of nn.conv2d_transpose on the encoder's own filters (tied weights), "
        "its output_shape a tf.stack of the dynamic batch size and static sizes",
    ),
    "tensorflow_custom_estimator_iris": Program(
        {
            "accuracy": _acc(r"Test set accuracy:\s*([0-9.]+)", tol=0.07),
            "loss": _loss(expr="float(final_loss)", tol=0.05),
        },
        notes="30 test flowers: one flower is 0.033 of accuracy",
    ),
    "tensorflow_guide_datasets_reinitializable": Program(
        {
            "accuracy": _acc(r"Validation accuracy:\s*([0-9.]+)"),
            "loss": _loss(expr="float(valid_loss)", tol=0.05),
            "steps": Metric("band", expr="float(steps)"),
        },
        notes="tf.data pipeline: shuffle, filter and batch; one Iterator.from_structure "
        "switched between the training and validation datasets with make_initializer, each "
        "epoch read until OutOfRangeError",
    ),
    "morvan_304_optimizer": Program(
        {
            f"loss_{label}": _loss(expr=f"float(np.mean(losses_his[{i}][-50:]))", tol=0.005)
            for i, label in enumerate(["sgd", "momentum", "rmsprop", "adam"])
        }
    ),
    "morvan_501_dropout": Program(
        {"overfit_loss": _loss(expr="float(o_loss_)"), "dropout_loss": _loss(expr="float(d_loss_)")}
    ),
    "morvan_502_batch_normalization": Program(
        {
            "loss": _loss(expr="float(losses[0][-1])", tol=20.0),
            "bn_loss": _loss(expr="float(losses[1][-1])", tol=40.0),
        },
        notes="a deep tanh net on y = x^2: the loss is in the hundreds and varies",
    ),
    "nlintz_03_net": Program({"accuracy": _acc(_NLINTZ_ACCURACY)}),
    "nlintz_04_modern_net": Program({"accuracy": _acc(_NLINTZ_ACCURACY, tol=0.08)}),
    "nlintz_08_word2vec": Program(
        {"loss": _loss(expr="mean_loss", tol=0.3)},
        notes="nce_loss samples its negative classes: the loss is averaged over 50 steps",
    ),
    "tensorflow_word2vec_basic": Program(
        {
            # TF's first loss spanned 93-109 over 12 runs (one batch, fresh draws): a band 15 wide
            "first_loss": Metric("band", expr="first_loss", tol=15.0),
            "final_loss": _loss(expr="final_loss", tol=0.05),
            "neighbour_accuracy": _acc(expr="neighbour_accuracy", tol=0.08),
        },
        notes="nce_loss with its default log-uniform sampler (unique draws) over a vocabulary "
        "of 300, 64 negatives: the first loss shows the expected counts it subtracts; the "
        "model is built in a tf.Graph() of its own, which has no seed: run 3 times",
        unseeded=True,
        runs=3,
    ),
    "tensorflow_deep_mnist_for_experts": Program(
        {
            "accuracy": _acc(r"test accuracy ([0-9.]+)"),
            "cross_entropy": _loss(expr="float(test_cross_entropy)"),
        },
        notes="dropout where two [None, ...] placeholders meet (the images' and the labels' "
        "batch sizes): the fast form's body for equal sizes draws the mask",
    ),
    "gorner_rnn_char_language_model": Program(
        {
            "valid_loss": _loss(expr="float(valid_loss)", tol=0.15),
            "valid_accuracy": _acc(expr="float(valid_accuracy)", tol=0.05),
            "known_words": _acc(expr="float(known_words)", tol=0.1),
            "lengths": Metric("band", expr="varied_lengths", tol=0.0),
        },
        notes="dynamic_rnn over [None, None] characters: a loop over the fed steps, another "
        "length every batch; a MultiRNNCell of GRUs (state_is_tuple=False) with input dropout "
        "drawn at every step; text generated one character at a time from the fed-back state",
    ),
    "brando90_batch_norm_cond": Program(
        {
            "accuracy": _acc(r"Test accuracy:\s*([0-9.]+)", tol=0.05),
            "loss": _loss(expr="float(test_loss)", tol=0.1),
            "average_gap": Metric("band", expr="average_gap", tol=0.3),
            "unchanged": Metric("band", expr="unchanged"),
        },
        notes="tf.cond on a phase_train placeholder: the batch's moments and ema.apply (an "
        "assignment inside the branch, run with the cond) in training, the moving averages at "
        "inference; dropout in the training branch of another cond",
    ),
    "udacity_seq2seq_sort_letters": Program(
        {
            "validation_loss": _loss(expr="float(validation_loss)", tol=0.1),
            "sorted_words": _acc(expr="float(sorted_words)", tol=0.15),
        },
        notes="contrib.seq2seq: an LSTM encoder over [None, None] ids, a TrainingHelper decoder "
        "run by dynamic_decode (a while_loop collecting TensorArrays) and a "
        "GreedyEmbeddingHelper decoder sharing its variables, sequence_loss with a "
        "sequence_mask, gradients clipped by value",
    ),
    "tensorflow_models_ptb_word_lm": Program(
        {
            "train_perplexity": _loss(r"Train Perplexity: ([0-9.]+)", tol=0.1),
            "valid_perplexity": _loss(r"Valid Perplexity: ([0-9.]+)", tol=0.1),
            "first_valid_perplexity": Metric("band", expr="valid_perplexities[0]", tol=0.5),
            "final_learning_rate": Metric("band", expr="final_lr", tol=1e-6),
            "steps": Metric("band", expr="float(steps_taken)"),
        },
        notes="two BasicLSTMCells in a MultiRNNCell unrolled by static_rnn; each batch's "
        "initial_state (LSTMStateTuple c and h of every layer) fed the previous batch's "
        "final_state; clip_by_global_norm, a learning-rate variable assigned per epoch; a "
        "second model shares the variables (reuse=True) for validation",
    ),
    "tensorflow_mnist_fully_connected": Program(
        {"accuracy": _acc(_PRINTED_ACCURACY), "loss": _loss(expr="final_loss", tol=0.1)}
    ),
    "tensorflow_reading_data_queues": Program(
        {
            "accuracy": _acc(r"Test accuracy:\s*([0-9.]+)"),
            "loss": _loss(expr="float(test_loss)"),
            "steps": Metric("band", expr="float(steps_taken)"),
        },
        notes="trains from slice_input_producer(num_epochs) + shuffle_batch through queue "
        "runners and a Coordinator loop that ends at OutOfRangeError",
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

    >>> "tf.placeholder" in tf_names("hunkim_lab09_xor_nn")
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
