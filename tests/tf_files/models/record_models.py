"""Record small TF1 models written by TensorFlow itself, as fixtures for symgrad's readers.

Run by hand from the repository root, with a Python that has TensorFlow 2.x and tf-keras::

    TF_CPP_MIN_LOG_LEVEL=3 TF_USE_LEGACY_KERAS=1 /work/tfenv/bin/python \
        tests/tf_files/models/record_models.py [NAME ...]

With ``tf.compat.v1`` in graph mode it builds each model (``mlp``, ``cnn``, ``lstm``,
``batch_norm``; all of them when no NAME is given), trains it a few steps on seeded synthetic
NumPy data and writes into ``tests/tf_files/models/<name>/``:

* ``model.ckpt-<step>.index``, ``.data-00000-of-00001``, ``.meta`` and ``checkpoint``, from
  ``tf.compat.v1.train.Saver(save_relative_paths=True)``;
* ``frozen.pb`` and ``frozen.pbtxt``: the inference graph with its variables turned into
  constants (``convert_variables_to_constants`` then ``remove_training_nodes``);
* ``saved_model/``: ``tf.compat.v1.saved_model.simple_save`` (tag ``serve``, signature
  ``serving_default``) of the same inference graph.

The inference graph is the model rebuilt in a fresh graph without loss and optimizer (batch
norm with ``training=False``) and restored from the checkpoint; the ``.meta`` keeps the whole
training graph. Besides:

* ``expected.json``: inputs, a test batch and TensorFlow's outputs for it, the checkpoint's
  variables, the training hyperparameters, the loss at the saved step, the losses of three more
  training steps resumed from the checkpoint on batches given in the file, the op types of each
  graph and TensorFlow's version.

Then it checks, with TensorFlow, that each model's checkpoint (imported with
``import_meta_graph`` from a copy of the folder elsewhere), frozen graph and SavedModel give the
recorded outputs, and that resuming from the checkpoint gives the recorded losses.

Other modes: ``--check`` only checks the folders already written; ``--ops`` prints the sorted op
types of each frozen graph, ``.meta`` graph and SavedModel graph. The other direction, in two
steps: ``--write-symgrad`` (run with the project's Python: symgrad as ``tf.compat.v1``)
restores TensorFlow's checkpoint into the same program, takes the resume steps and writes
symgrad's checkpoint and outputs into ``<name>/symgrad/``; then ``--check-symgrad`` (with
TensorFlow) restores that checkpoint into the same TF program and records TensorFlow's
outputs there (``tf_restored.json``), failing if they differ from symgrad's.

TensorFlow is imported only when the script runs, so that pytest can collect this folder
without it. Every float in ``expected.json`` is a float32 value written as ``repr(float(v))``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_NAMES = ("mlp", "cnn", "lstm", "batch_norm")
SEEDS = {"mlp": 101, "cnn": 202, "lstm": 303, "batch_norm": 404}
RESUME_STEPS = 3
INFERENCE_GRAPH = (
    "the inference graph (no loss, no optimizer; batch norm with training=False) "
    "rebuilt in a fresh graph and restored from the checkpoint"
)
# Outputs read back through another path of TensorFlow must agree this closely (they agree
# exactly on the machine that recorded them).
RTOL, ATOL = 1e-5, 1e-6

tf: Any = None  # tensorflow, imported by load_tensorflow()
tf1: Any = None  # tensorflow.compat.v1


def load_tensorflow() -> None:
    """Import TensorFlow in TF1 graph mode, as deterministic as it allows."""
    global tf, tf1
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers needs tf-keras
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # plain Eigen kernels: no oneDNN rounding
    os.environ["TF_DETERMINISTIC_OPS"] = "1"
    warnings.filterwarnings("ignore", category=UserWarning)  # "tf.layers is deprecated"
    import tensorflow

    tf = tensorflow
    tf1 = tensorflow.compat.v1
    tf1.disable_v2_behavior()
    tf1.logging.set_verbosity(tf1.logging.ERROR)
    tf.config.experimental.enable_op_determinism()


def session_config() -> Any:
    """One thread and no graph rewriting: every op runs as its own kernel, the same each run."""
    config = tf1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    return config


# --------------------------------------------------------------------------------------------
# Data: seeded NumPy; inputs are multiples of 1/16 (1/4 for images), exact in float32 and short
# in JSON.


def quantize(values: np.ndarray, step: float) -> np.ndarray:
    return (np.round(values / step) * step + 0.0).astype(np.float32)  # + 0.0: no -0.0


def split(
    rng: np.random.RandomState,
    x: np.ndarray,
    y: np.ndarray,
    n_train: int,
    n_test: int,
    resume_batch: int,
) -> dict[str, Any]:
    """Training rows, a test batch and RESUME_STEPS resume batches (disjoint rows)."""
    order = rng.permutation(len(x))
    x, y = x[order], y[order]
    start = n_train + n_test
    return {
        "train": (x[:n_train], y[:n_train]),
        "test": (x[n_train:start], y[n_train:start]),
        "resume": [
            (
                x[start + k * resume_batch : start + (k + 1) * resume_batch],
                y[start + k * resume_batch : start + (k + 1) * resume_batch],
            )
            for k in range(RESUME_STEPS)
        ],
    }


def mlp_data(rng: np.random.RandomState) -> dict[str, Any]:
    n = 64 + 4 + RESUME_STEPS * 8
    x = quantize(rng.randn(n, 8), 1 / 16)
    w = rng.randn(8, 3)
    y = np.argmax(x @ w + 0.3 * rng.randn(n, 3), axis=1).astype(np.int32)
    return split(rng, x, y, 64, 4, 8)


def cnn_data(rng: np.random.RandomState) -> dict[str, Any]:
    n = 80 + 3 + RESUME_STEPS * 4
    templates = (rng.rand(10, 784) < 0.2).astype(np.float64)
    labels = rng.randint(0, 10, size=n)
    keep = rng.rand(n, 784) < 0.85
    noise = rng.rand(n, 784) < 0.05
    intensity = 0.5 + 0.5 * rng.rand(n, 784)
    x = quantize(np.clip((templates[labels] * keep + noise) * intensity, 0.0, 1.0), 1 / 4)
    y = np.eye(10, dtype=np.float32)[labels]  # one-hot, as the tutorial feeds y_
    return split(rng, x, y, 80, 3, 4)


def lstm_data(rng: np.random.RandomState) -> dict[str, Any]:
    n = 64 + 4 + RESUME_STEPS * 8
    x = quantize(rng.randn(n, 5, 6), 1 / 16)
    w = rng.randn(6, 4)
    time_weights = np.linspace(0.2, 1.0, 5)[None, :, None]
    y = np.argmax((x * time_weights).sum(axis=1) @ w, axis=1).astype(np.int32)
    return split(rng, x, y, 64, 4, 8)


def batch_norm_data(rng: np.random.RandomState) -> dict[str, Any]:
    n = 64 + 4 + RESUME_STEPS * 8
    x = quantize(1.5 * rng.randn(n, 6) + 0.75, 1 / 16)  # off-centre, so batch norm has work
    w = rng.randn(6)
    y = ((x - 0.75) @ w > 0).astype(np.int32)
    return split(rng, x, y, 64, 4, 8)


# --------------------------------------------------------------------------------------------
# Models. Each builder returns a dict: inputs (name -> placeholder), optional (placeholder with
# default -> its default), labels, outputs (signature key -> tensor), and, for the training
# graph, loss, train_op and global_step.


def sparse_loss(labels: Any, logits: Any) -> Any:
    return tf1.reduce_mean(
        tf1.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), name="loss"
    )


def build_mlp(training_graph: bool = True) -> dict[str, Any]:
    x = tf1.placeholder(tf1.float32, [None, 8], name="x")
    y = tf1.placeholder(tf1.int32, [None], name="y")
    hidden = tf1.layers.dense(x, 16, activation=tf1.nn.relu, name="hidden")
    logits = tf1.layers.dense(hidden, 3, name="logits")
    logits_out = tf1.identity(logits, name="logits_out")
    probabilities = tf1.nn.softmax(logits, name="probabilities")
    if not training_graph:
        return {
            "inputs": {"x": x},
            "outputs": {"logits": logits_out, "probabilities": probabilities},
        }
    loss = sparse_loss(y, logits)
    global_step = tf1.train.get_or_create_global_step()
    train_op = tf1.train.AdamOptimizer(0.01).minimize(loss, global_step, name="train_op")
    return {
        "inputs": {"x": x},
        "optional": {},
        "labels": y,
        "outputs": {"logits": logits_out, "probabilities": probabilities},
        "loss": loss,
        "train_op": train_op,
        "global_step": global_step,
    }


def build_cnn(training_graph: bool = True) -> dict[str, Any]:
    """The "Deep MNIST for experts" network with 4 and 8 filters and 32 hidden units."""

    def weight_variable(shape: list[int], name: str) -> Any:
        return tf1.Variable(tf1.truncated_normal(shape, stddev=0.1), name=name)

    def bias_variable(shape: list[int], name: str) -> Any:
        return tf1.Variable(tf1.constant(0.1, shape=shape), name=name)

    def conv2d(inputs: Any, weights: Any) -> Any:
        return tf1.nn.conv2d(inputs, weights, strides=[1, 1, 1, 1], padding="SAME")

    def max_pool_2x2(inputs: Any) -> Any:
        return tf1.nn.max_pool(inputs, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")

    x = tf1.placeholder(tf1.float32, [None, 784], name="x")
    y = tf1.placeholder(tf1.float32, [None, 10], name="y")
    keep_prob = tf1.placeholder_with_default(1.0, [], name="keep_prob")
    x_image = tf1.reshape(x, [-1, 28, 28, 1])
    w_conv1, b_conv1 = weight_variable([5, 5, 1, 4], "W_conv1"), bias_variable([4], "b_conv1")
    h_pool1 = max_pool_2x2(tf1.nn.relu(tf1.nn.bias_add(conv2d(x_image, w_conv1), b_conv1)))
    w_conv2, b_conv2 = weight_variable([5, 5, 4, 8], "W_conv2"), bias_variable([8], "b_conv2")
    h_pool2 = max_pool_2x2(tf1.nn.relu(tf1.nn.bias_add(conv2d(h_pool1, w_conv2), b_conv2)))
    w_fc1, b_fc1 = weight_variable([7 * 7 * 8, 32], "W_fc1"), bias_variable([32], "b_fc1")
    h_pool2_flat = tf1.reshape(h_pool2, [-1, 7 * 7 * 8])
    h_fc1 = tf1.nn.relu(tf1.matmul(h_pool2_flat, w_fc1) + b_fc1)
    h_fc1_drop = tf1.nn.dropout(h_fc1, rate=1.0 - keep_prob)
    w_fc2, b_fc2 = weight_variable([32, 10], "W_fc2"), bias_variable([10], "b_fc2")
    logits = tf1.add(tf1.matmul(h_fc1_drop, w_fc2), b_fc2, name="logits")
    prediction = tf1.argmax(logits, 1, name="prediction")
    if not training_graph:
        return {"inputs": {"x": x}, "outputs": {"logits": logits, "prediction": prediction}}
    loss = tf1.reduce_mean(
        tf1.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits), name="loss"
    )
    global_step = tf1.train.get_or_create_global_step()
    train_op = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step, name="train_op")
    return {
        "inputs": {"x": x},
        "optional": {keep_prob: 1.0},
        "labels": y,
        "outputs": {"logits": logits, "prediction": prediction},
        "loss": loss,
        "train_op": train_op,
        "global_step": global_step,
    }


def build_lstm(training_graph: bool = True) -> dict[str, Any]:
    x = tf1.placeholder(tf1.float32, [None, 5, 6], name="x")
    y = tf1.placeholder(tf1.int32, [None], name="y")
    cell = tf1.nn.rnn_cell.BasicLSTMCell(16)
    outputs, _ = tf1.nn.static_rnn(cell, tf1.unstack(x, axis=1), dtype=tf1.float32)
    dense = tf1.layers.dense(outputs[-1], 4, name="output")
    logits = tf1.identity(dense, name="logits")
    if not training_graph:
        return {"inputs": {"x": x}, "outputs": {"logits": logits}}
    loss = sparse_loss(y, logits)
    global_step = tf1.train.get_or_create_global_step()
    train_op = tf1.train.RMSPropOptimizer(0.01).minimize(loss, global_step, name="train_op")
    return {
        "inputs": {"x": x},
        "optional": {},
        "labels": y,
        "outputs": {"logits": logits},
        "loss": loss,
        "train_op": train_op,
        "global_step": global_step,
    }


def build_batch_norm(training_graph: bool = True) -> dict[str, Any]:
    """The training graph takes ``training`` (default False); the inference graph, rebuilt for
    the frozen file, has ``training=False`` and neither optimizer nor loss."""
    x = tf1.placeholder(tf1.float32, [None, 6], name="x")
    if training_graph:
        training: Any = tf1.placeholder_with_default(False, [], name="training")
    else:
        training = False
    hidden = tf1.layers.dense(x, 8, name="hidden")
    normed = tf1.layers.batch_normalization(
        hidden, momentum=0.9, training=training, name="batch_normalization"
    )
    dense = tf1.layers.dense(tf1.nn.relu(normed), 2, name="output")
    logits = tf1.identity(dense, name="logits")
    if not training_graph:
        return {"inputs": {"x": x}, "outputs": {"logits": logits}}
    y = tf1.placeholder(tf1.int32, [None], name="y")
    loss = sparse_loss(y, logits)
    global_step = tf1.train.get_or_create_global_step()
    with tf1.control_dependencies(tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)):
        train_op = tf1.train.AdamOptimizer(0.01).minimize(loss, global_step, name="train_op")
    return {
        "inputs": {"x": x},
        "optional": {training: False},
        "labels": y,
        "outputs": {"logits": logits},
        "loss": loss,
        "train_op": train_op,
        "global_step": global_step,
    }


ADAM = {
    "optimizer": "tf.compat.v1.train.AdamOptimizer",
    "learning_rate": 0.01,
    "beta1": 0.9,
    "beta2": 0.999,
    "epsilon": 1e-08,
}

# name -> builder, data, hyperparameters, extra feeds while training before the checkpoint and
# while resuming from it (dropout is off when resuming: its random mask cannot be reproduced).
SPECS: dict[str, dict[str, Any]] = {
    "mlp": {
        "build": build_mlp,
        "data": mlp_data,
        "train_feeds": {},
        "resume_feeds": {},
        "hyperparameters": dict(
            ADAM,
            steps=32,
            batch_size=16,
            loss=(
                "mean of tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)"
            ),
        ),
    },
    "cnn": {
        "build": build_cnn,
        "data": cnn_data,
        "train_feeds": {"keep_prob:0": 0.75},
        "resume_feeds": {"keep_prob:0": 1.0},
        "hyperparameters": {
            "optimizer": "tf.compat.v1.train.GradientDescentOptimizer",
            "learning_rate": 0.1,
            "steps": 20,
            "batch_size": 16,
            "keep_prob_while_training": 0.75,
            "loss": "mean of tf.nn.softmax_cross_entropy_with_logits_v2(labels=y (one-hot), "
            "logits=logits)",
            "initializers": "weights tf.truncated_normal(stddev=0.1), biases tf.constant(0.1)",
        },
    },
    "lstm": {
        "build": build_lstm,
        "data": lstm_data,
        "train_feeds": {},
        "resume_feeds": {},
        "hyperparameters": {
            "optimizer": "tf.compat.v1.train.RMSPropOptimizer",
            "learning_rate": 0.01,
            "decay": 0.9,
            "momentum": 0.0,
            "epsilon": 1e-10,
            "centered": False,
            "steps": 32,
            "batch_size": 16,
            "lstm_units": 16,
            "forget_bias": 1.0,
            "loss": "mean of tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, "
            "logits=logits)",
        },
    },
    "batch_norm": {
        "build": build_batch_norm,
        "data": batch_norm_data,
        "train_feeds": {"training:0": True},
        "resume_feeds": {"training:0": True},
        "hyperparameters": dict(
            ADAM,
            steps=32,
            batch_size=16,
            batch_norm_momentum=0.9,
            batch_norm_epsilon=0.001,
            loss=(
                "mean of tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)"
            ),
        ),
    },
}


# --------------------------------------------------------------------------------------------
# JSON: sorted keys, indent 1, a list of numbers (a row) on one line; floats as repr(float).


def dumps(value: Any, level: int = 0) -> str:
    pad, inner = " " * level, " " * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f"{inner}{json.dumps(str(key))}: {dumps(value[key], level + 1)}"
            for key in sorted(value)
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if not any(isinstance(item, (dict, list, tuple)) for item in value):
            return "[" + ", ".join(dumps(item) for item in value) + "]"
        return (
            "[\n" + ",\n".join(inner + dumps(item, level + 1) for item in value) + "\n" + pad + "]"
        )
    if isinstance(value, float):
        if not np.isfinite(value):
            raise ValueError(f"non-finite float {value!r} in the fixture")
        return repr(value)
    return json.dumps(value)


def plain(array: Any) -> Any:
    """A NumPy value as nested lists of Python ints, floats (exact float32 values) and bools."""
    array = np.asarray(array)
    if array.dtype == np.float32:
        return array.astype(np.float64).tolist()
    if array.dtype.kind in "iub":
        return array.tolist()
    raise TypeError(f"unexpected dtype {array.dtype}")


def tensor_record(tensor: Any, value: Any = None) -> dict[str, Any]:
    record = {
        "name": tensor.name,
        "dtype": tensor.dtype.name,
        "shape": tensor.shape.as_list() if tensor.shape.rank is not None else None,
    }
    if value is not None:
        record["value"] = plain(value)
    return record


# --------------------------------------------------------------------------------------------
# Op types of the graphs written.


def graph_ops(graph_def: Any) -> list[str]:
    ops = {node.op for node in graph_def.node}
    for function in graph_def.library.function:
        ops.update(node.op for node in function.node_def)
    return sorted(ops)


def read_graph_def(path: str) -> Any:
    graph_def = tf1.GraphDef()
    with open(path, "rb") as handle:
        graph_def.ParseFromString(handle.read())
    return graph_def


def read_meta_graph(path: str) -> Any:
    meta_graph = tf1.MetaGraphDef()
    with open(path, "rb") as handle:
        meta_graph.ParseFromString(handle.read())
    return meta_graph


def read_saved_model(folder: str) -> Any:
    from tensorflow.core.protobuf import saved_model_pb2

    saved_model = saved_model_pb2.SavedModel()
    with open(os.path.join(folder, "saved_model.pb"), "rb") as handle:
        saved_model.ParseFromString(handle.read())
    return saved_model


def all_ops(folder: str) -> dict[str, list[str]]:
    state = tf1.train.get_checkpoint_state(folder)
    prefix = os.path.join(folder, os.path.basename(state.model_checkpoint_path))
    return {
        "frozen_graph": graph_ops(read_graph_def(os.path.join(folder, "frozen.pb"))),
        "meta_graph": graph_ops(read_meta_graph(prefix + ".meta").graph_def),
        "saved_model": graph_ops(
            read_saved_model(os.path.join(folder, "saved_model")).meta_graphs[0].graph_def
        ),
    }


# --------------------------------------------------------------------------------------------
# Recording.


def freeze(sess: Any, output_names: list[str]) -> Any:
    frozen = tf1.graph_util.convert_variables_to_constants(
        sess, sess.graph.as_graph_def(), output_names
    )
    frozen = tf1.graph_util.extract_sub_graph(frozen, output_names)
    return tf1.graph_util.remove_training_nodes(frozen, protected_nodes=output_names)


def export_inference(build: Callable[..., Any], prefix: str, seed: int, folder: str) -> Any:
    """Rebuild the inference graph (``training_graph=False``: no loss, no optimizer; batch norm
    with ``training=False``), restore the checkpoint into it, write its SavedModel and return
    it frozen."""
    graph = tf1.Graph()
    with graph.as_default():
        tf1.set_random_seed(seed)
        model = build(training_graph=False)
        saver = tf1.train.Saver(tf1.global_variables())
        with tf1.Session(graph=graph, config=session_config()) as sess:
            saver.restore(sess, prefix)
            tf1.saved_model.simple_save(
                sess,
                os.path.join(folder, "saved_model"),
                inputs=model["inputs"],
                outputs=model["outputs"],
            )
            return freeze(sess, [t.op.name for t in model["outputs"].values()])


def write_graph_def(graph_def: Any, folder: str) -> None:
    from google.protobuf import text_format

    with open(os.path.join(folder, "frozen.pb"), "wb") as handle:
        handle.write(graph_def.SerializeToString(deterministic=True))
    with open(os.path.join(folder, "frozen.pbtxt"), "w") as handle:
        handle.write(text_format.MessageToString(graph_def))


def record(name: str) -> None:
    spec = SPECS[name]
    seed = SEEDS[name]
    folder = os.path.join(HERE, name)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    data = spec["data"](np.random.RandomState(seed))
    hyper = spec["hyperparameters"]

    graph = tf1.Graph()
    with graph.as_default():
        tf1.set_random_seed(seed)
        model = spec["build"](training_graph=True)
        saver = tf1.train.Saver(save_relative_paths=True)
        init = tf1.global_variables_initializer()
    x, y = model["inputs"]["x"], model["labels"]
    train_feeds = {graph.get_tensor_by_name(k): v for k, v in spec["train_feeds"].items()}
    resume_feeds = {graph.get_tensor_by_name(k): v for k, v in spec["resume_feeds"].items()}

    with tf1.Session(graph=graph, config=session_config()) as sess:
        sess.run(init)
        train_x, train_y = data["train"]
        batch = hyper["batch_size"]
        losses = []
        for step in range(hyper["steps"]):
            start = (step * batch) % len(train_x)
            feed = {x: train_x[start : start + batch], y: train_y[start : start + batch]}
            feed.update(train_feeds)
            loss, _ = sess.run([model["loss"], model["train_op"]], feed)
            losses.append(loss)
        step = int(sess.run(model["global_step"]))
        path = saver.save(sess, os.path.join(folder, "model.ckpt"), global_step=step)
        prefix_name = os.path.basename(path)

        test_x, test_y = data["test"]
        outputs = sess.run(model["outputs"], {x: test_x})
        saved_loss = sess.run(model["loss"], {x: test_x, y: test_y})

        output_names = [t.op.name for t in model["outputs"].values()]
        frozen = export_inference(spec["build"], path, seed, folder)
        write_graph_def(frozen, folder)

        # Resume: the session holds exactly the checkpoint's values.
        resume_losses = []
        for batch_x, batch_y in data["resume"]:
            feed = {x: batch_x, y: batch_y}
            feed.update(resume_feeds)
            loss, _ = sess.run([model["loss"], model["train_op"]], feed)
            resume_losses.append(loss)
        step_after = int(sess.run(model["global_step"]))

    reader = tf1.train.load_checkpoint(path)
    dtypes = reader.get_variable_to_dtype_map()
    variables = [
        {"name": var_name, "shape": shape, "dtype": dtypes[var_name].name}
        for var_name, shape in tf1.train.list_variables(path)
    ]
    frozen_inputs = sorted(
        node.name + ":0"
        for node in frozen.node
        if node.op in ("Placeholder", "PlaceholderWithDefault")
    )
    ops = all_ops(folder)

    expected = {
        "model": name,
        "tensorflow_version": tf.__version__,
        "seed": seed,
        "inputs": [tensor_record(x, test_x)],
        "optional_inputs": [
            dict(tensor_record(t), default=v) for t, v in model["optional"].items()
        ],
        "labels": tensor_record(y, test_y),
        "outputs": [
            dict(tensor_record(t, outputs[key]), signature_key=key)
            for key, t in model["outputs"].items()
        ],
        "loss": {
            "name": model["loss"].name,
            "at_saved_step": float(saved_loss),
            "at_saved_step_means": "loss of the checkpoint's variables on the test batch "
            "(inputs + labels), optional inputs at their defaults",
            "last_training_step": float(losses[-1]),
            "first_training_step": float(losses[0]),
        },
        "hyperparameters": dict(hyper, train_feeds=spec["train_feeds"]),
        "checkpoint": {
            "checkpoint_file": "checkpoint",
            "prefix": prefix_name,
            "meta_graph": prefix_name + ".meta",
            "global_step": step,
            "variables": variables,
            "meta_graph_ops": ops["meta_graph"],
            "train_op": model["train_op"].name,
        },
        "resume": {
            "about": "restore the checkpoint, then run train_op once per batch, fetching the "
            "loss in the same run (the loss before that step's update)",
            "batches": [{x.name: plain(bx), y.name: plain(by)} for bx, by in data["resume"]],
            "extra_feeds": spec["resume_feeds"],
            "losses": [float(v) for v in resume_losses],
            "global_step_after": step_after,
        },
        "frozen_graph": {
            "file": "frozen.pb",
            "text_file": "frozen.pbtxt",
            "inputs": frozen_inputs,
            "outputs": [n + ":0" for n in output_names],
            "ops": ops["frozen_graph"],
            "made_from": INFERENCE_GRAPH,
        },
        "saved_model": {
            "folder": "saved_model",
            "tags": ["serve"],
            "signature": "serving_default",
            "inputs": {k: t.name for k, t in model["inputs"].items()},
            "outputs": {k: t.name for k, t in model["outputs"].items()},
            "ops": ops["saved_model"],
            "made_from": INFERENCE_GRAPH,
        },
    }
    with open(os.path.join(folder, "expected.json"), "w") as handle:
        handle.write(dumps(expected) + "\n")
    print(
        f"{name}: recorded step {step}, loss {losses[0]:.4f} -> {losses[-1]:.4f}, "
        f"resume losses {[round(float(v), 4) for v in resume_losses]}"
    )


# --------------------------------------------------------------------------------------------
# Checking, with TensorFlow: three ways of loading each model must give the recorded values.


def compare(what: str, got: Any, want: Any, problems: list[str]) -> str:
    got, want = np.asarray(got), np.asarray(want, dtype=np.asarray(got).dtype)
    if got.shape == want.shape and np.array_equal(got, want):
        return "exact"
    if got.shape == want.shape and np.allclose(got, want, rtol=RTOL, atol=ATOL):
        return f"max diff {np.max(np.abs(got.astype(np.float64) - want)):.3g}"
    problems.append(f"{what}: got {got!r}, want {want!r}")
    return "MISMATCH"


def feed_values(expected: dict[str, Any]) -> dict[str, Any]:
    return {
        item["name"]: np.asarray(item["value"], dtype=item["dtype"]) for item in expected["inputs"]
    }


def check_outputs(
    label: str,
    sess: Any,
    names: dict[str, str],
    feeds: dict[str, Any],
    expected: dict[str, Any],
    problems: list[str],
) -> str:
    """``names``: recorded output name -> the tensor name to fetch in this session."""
    graph = sess.graph
    feed = {graph.get_tensor_by_name(name): value for name, value in feeds.items()}
    wanted = {item["name"]: item for item in expected["outputs"]}
    got = sess.run({name: graph.get_tensor_by_name(names[name]) for name in wanted}, feed)
    results = [
        compare(f"{expected['model']} {label} {name}", got[name], item["value"], problems)
        for name, item in wanted.items()
    ]
    return ", ".join(sorted(set(results)))


def check(name: str) -> list[str]:
    problems: list[str] = []
    folder = os.path.join(HERE, name)
    with open(os.path.join(folder, "expected.json")) as handle:
        expected = json.load(handle)
    feeds = feed_values(expected)
    same = {item["name"]: item["name"] for item in expected["outputs"]}
    report = []

    # 1. Checkpoint, from a copy of the folder elsewhere (relative paths in `checkpoint`).
    with tempfile.TemporaryDirectory() as scratch:
        moved = os.path.join(scratch, name)
        shutil.copytree(folder, moved)
        graph = tf1.Graph()
        with graph.as_default(), tf1.Session(graph=graph, config=session_config()) as sess:
            prefix = tf1.train.latest_checkpoint(moved)
            if prefix is None or not prefix.startswith(moved):
                problems.append(f"{name}: latest_checkpoint gave {prefix!r}")
            saver = tf1.train.import_meta_graph(prefix + ".meta")
            saver.restore(sess, prefix)
            report.append(
                "checkpoint " + check_outputs("checkpoint", sess, same, feeds, expected, problems)
            )
            loss = graph.get_tensor_by_name(expected["loss"]["name"])
            labels = expected["labels"]
            saved = sess.run(
                loss,
                {
                    **{graph.get_tensor_by_name(k): v for k, v in feeds.items()},
                    graph.get_tensor_by_name(labels["name"]): np.asarray(
                        labels["value"], labels["dtype"]
                    ),
                },
            )
            report.append(
                "saved loss "
                + compare(f"{name} saved loss", saved, expected["loss"]["at_saved_step"], problems)
            )
            train_op = graph.get_operation_by_name(expected["checkpoint"]["train_op"])
            # Optimizer.minimize put the train op in the meta graph's "train_op" collection.
            if tf1.get_collection(tf1.GraphKeys.TRAIN_OP) != [train_op]:
                problems.append(f"{name}: the meta graph's train_op collection is wrong")
            resume = expected["resume"]
            dtypes = {item["name"]: item["dtype"] for item in expected["inputs"]}
            dtypes[labels["name"]] = labels["dtype"]
            got = []
            for batch in resume["batches"]:
                feed = {
                    graph.get_tensor_by_name(k): np.asarray(v, dtypes[k]) for k, v in batch.items()
                }
                feed.update(
                    {graph.get_tensor_by_name(k): v for k, v in resume["extra_feeds"].items()}
                )
                got.append(sess.run([loss, train_op], feed)[0])
            report.append(
                "resume " + compare(f"{name} resume losses", got, resume["losses"], problems)
            )
            step = sess.run(tf1.train.get_global_step(graph))
            if step != resume["global_step_after"]:
                problems.append(f"{name}: global step {step} after resuming")

    # 2. Frozen graph.
    graph = tf1.Graph()
    with graph.as_default():
        tf1.import_graph_def(read_graph_def(os.path.join(folder, "frozen.pb")), name="")
        if any(
            op.type in ("VariableV2", "VarHandleOp", "Enter", "Exit", "NextIteration")
            for op in graph.get_operations()
        ):
            problems.append(f"{name}: the frozen graph has variables or a loop")
        with tf1.Session(graph=graph, config=session_config()) as sess:
            report.append(
                "frozen " + check_outputs("frozen graph", sess, same, feeds, expected, problems)
            )

    # 3. SavedModel.
    graph = tf1.Graph()
    with graph.as_default(), tf1.Session(graph=graph, config=session_config()) as sess:
        meta = tf1.saved_model.loader.load(sess, ["serve"], os.path.join(folder, "saved_model"))
        signature = meta.signature_def["serving_default"]
        inputs = {
            expected["saved_model"]["inputs"][key]: info.name
            for key, info in signature.inputs.items()
        }
        outputs = {
            expected["saved_model"]["outputs"][key]: info.name
            for key, info in signature.outputs.items()
        }
        report.append(
            "saved model "
            + check_outputs(
                "saved model",
                sess,
                outputs,
                {inputs[k]: v for k, v in feeds.items()},
                expected,
                problems,
            )
        )

    print(f"{name}: {'; '.join(report)}")
    return problems


def print_ops(name: str) -> None:
    for kind, ops in all_ops(os.path.join(HERE, name)).items():
        print(f"{name} {kind} ({len(ops)}): {', '.join(ops)}")


# --------------------------------------------------------------------------------------------
# The other direction: checkpoints symgrad wrote, restored by TensorFlow.

SYMGRAD_FOLDER = "symgrad"


def write_symgrad_checkpoint(name: str) -> None:
    """With symgrad as ``tf.compat.v1`` (run with the project's Python, no TensorFlow): build
    the same program, restore TensorFlow's checkpoint, take the recorded resume steps, and save
    symgrad's checkpoint into ``<name>/symgrad/`` with symgrad's outputs for the test batch."""
    global tf1
    import symgrad

    tf1 = symgrad
    folder = os.path.join(HERE, name)
    with open(os.path.join(folder, "expected.json")) as file:
        expected = json.load(file)
    target = os.path.join(folder, SYMGRAD_FOLDER)
    shutil.rmtree(target, ignore_errors=True)
    with symgrad.Graph().as_default():
        # Seeded, so that TensorFlow (determinism on) runs the .meta's random ops.
        symgrad.set_random_seed(SEEDS[name])
        built = SPECS[name]["build"]()
        saver = symgrad.train.Saver(checkpoint_format="tf")
        with symgrad.Session() as sess:
            saver.restore(sess, os.path.join(folder, expected["checkpoint"]["prefix"]))
            for batch in expected["resume"]["batches"]:
                sess.run(built["train_op"], {**batch, **expected["resume"]["extra_feeds"]})
            prefix = saver.save(
                sess, os.path.join(target, "model.ckpt"), global_step=built["global_step"]
            )
            outputs = sess.run(
                {item["name"]: item["name"] for item in expected["outputs"]}, feed_values(expected)
            )
            # Three steps more, from symgrad's checkpoint: what TF, importing symgrad's .meta,
            # must do too.
            losses = []
            for batch in expected["resume"]["batches"]:
                feed = {**batch, **expected["resume"]["extra_feeds"]}
                losses.append(float(sess.run([built["train_op"], built["loss"]], feed)[1]))
    # The inference program, from that checkpoint: frozen and as a SavedModel, by symgrad.
    with symgrad.Graph().as_default() as graph:
        # Seeded, so that TensorFlow (determinism on) runs the CNN's dropout (keep_prob 1.0).
        symgrad.set_random_seed(SEEDS[name])
        inference = SPECS[name]["build"](training_graph=False)
        with symgrad.Session() as sess:
            symgrad.train.Saver().restore(sess, prefix)
            names = [t.op.name for t in inference["outputs"].values()]
            frozen = symgrad.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), names
            )
            symgrad.train.write_graph(frozen, target, "frozen.pb", as_text=False)
            symgrad.saved_model.simple_save(
                sess, os.path.join(target, "saved_model"), inference["inputs"], inference["outputs"]
            )
    record = {
        "about": "symgrad restored TensorFlow's checkpoint, took the resume steps and saved "
        "this checkpoint, then froze the inference program from it (frozen.pb) and saved it "
        "as a SavedModel (saved_model/); outputs are symgrad's for the test batch",
        "prefix": os.path.basename(prefix),
        "outputs": {key: plain(np.asarray(value)) for key, value in sorted(outputs.items())},
        "losses_after_the_checkpoint": losses,
    }
    with open(os.path.join(target, "symgrad_outputs.json"), "w") as file:
        file.write(dumps(record) + "\n")
    print(f"{name}: wrote {prefix}")


def check_symgrad_checkpoint(name: str) -> list[str]:
    """With TensorFlow: the same program restores symgrad's checkpoint; its outputs for the
    test batch are recorded (``tf_restored.json``) and compared with symgrad's."""
    folder = os.path.join(HERE, name, SYMGRAD_FOLDER)
    with open(os.path.join(HERE, name, "expected.json")) as file:
        expected = json.load(file)
    with open(os.path.join(folder, "symgrad_outputs.json")) as file:
        symgrad_record = json.load(file)
    problems: list[str] = []
    graph = tf1.Graph()
    with graph.as_default():
        tf1.set_random_seed(SEEDS[name])
        SPECS[name]["build"]()
        with tf1.Session(graph=graph, config=session_config()) as sess:
            tf1.train.Saver().restore(sess, os.path.join(folder, symgrad_record["prefix"]))
            feed = {graph.get_tensor_by_name(k): v for k, v in feed_values(expected).items()}
            got = sess.run(
                {key: graph.get_tensor_by_name(key) for key in symgrad_record["outputs"]}, feed
            )
    for key, value in sorted(got.items()):
        compare(
            f"{name} TF restoring symgrad's checkpoint {key}",
            value,
            symgrad_record["outputs"][key],
            problems,
        )
    # symgrad's frozen graph, imported by TensorFlow
    with tf1.Graph().as_default() as graph:
        graph_def = tf1.GraphDef()
        with open(os.path.join(folder, "frozen.pb"), "rb") as file:
            graph_def.ParseFromString(file.read())
        tf1.import_graph_def(graph_def, name="")
        with tf1.Session(graph=graph, config=session_config()) as sess:
            feed = {graph.get_tensor_by_name(k): v for k, v in feed_values(expected).items()}
            frozen = sess.run({key: graph.get_tensor_by_name(key) for key in got}, feed)
    # symgrad's SavedModel, loaded by TensorFlow
    with (
        tf1.Graph().as_default() as graph,
        tf1.Session(graph=graph, config=session_config()) as sess,
    ):
        folder_of_model = os.path.join(folder, "saved_model")
        meta = tf1.saved_model.loader.load(sess, ["serve"], folder_of_model)
        signature = meta.signature_def["serving_default"]
        values = feed_values(expected).values()
        feed = {
            graph.get_tensor_by_name(signature.inputs[k].name): v
            for k, v in zip(sorted(signature.inputs), values, strict=True)
        }
        names = [signature.outputs[k].name for k in signature.outputs]
        served = sess.run({n: graph.get_tensor_by_name(n) for n in names}, feed)
    # symgrad's .meta (its whole training graph), imported by TensorFlow: three training steps
    with (
        tf1.Graph().as_default() as graph,
        tf1.Session(graph=graph, config=session_config()) as sess,
    ):
        prefix = os.path.join(folder, symgrad_record["prefix"])
        tf1.train.import_meta_graph(prefix + ".meta").restore(sess, prefix)
        train_op = graph.get_operation_by_name("train_op")
        loss = graph.get_tensor_by_name("loss:0")
        losses = []
        for batch in expected["resume"]["batches"]:
            feed = {**batch, **expected["resume"]["extra_feeds"]}
            losses.append(float(sess.run([train_op, loss], feed)[1]))
    compare(
        f"{name} TF training symgrad's .meta",
        losses,
        symgrad_record["losses_after_the_checkpoint"],
        problems,
    )
    for label, results in (("frozen graph", frozen), ("SavedModel", served)):
        for key, value in sorted(results.items()):
            want = symgrad_record["outputs"][key]
            compare(f"{name} TF running symgrad's {label} {key}", value, want, problems)
    record = {
        "about": "TensorFlow restored symgrad's checkpoint into the same program, imported "
        "symgrad's frozen graph and loaded symgrad's SavedModel; their outputs for the test "
        "batch",
        "tensorflow_version": tf.__version__,
        "outputs": {key: plain(np.asarray(value)) for key, value in sorted(got.items())},
        "frozen_graph_outputs": {k: plain(np.asarray(v)) for k, v in sorted(frozen.items())},
        "saved_model_outputs": {k: plain(np.asarray(v)) for k, v in sorted(served.items())},
        "losses_training_symgrads_meta_graph": losses,
    }
    with open(os.path.join(folder, "tf_restored.json"), "w") as file:
        file.write(dumps(record) + "\n")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"models to record, from {', '.join(MODEL_NAMES)} (default: all)",
    )
    parser.add_argument("--check", action="store_true", help="only check the folders written")
    parser.add_argument("--ops", action="store_true", help="only print the op types of graphs")
    parser.add_argument(
        "--write-symgrad",
        action="store_true",
        help="with symgrad instead of TensorFlow: write symgrad's checkpoints of the models",
    )
    parser.add_argument(
        "--check-symgrad",
        action="store_true",
        help="with TensorFlow: restore symgrad's checkpoints and record TF's outputs",
    )
    args = parser.parse_args()
    names = args.names or list(MODEL_NAMES)
    unknown = sorted(set(names) - set(MODEL_NAMES))
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}")
    if args.write_symgrad:
        for name in names:
            write_symgrad_checkpoint(name)
        return
    load_tensorflow()
    if args.check_symgrad:
        problems = [problem for name in names for problem in check_symgrad_checkpoint(name)]
        for problem in problems:
            print("PROBLEM:", problem)
        sys.exit(1 if problems else 0)
    if args.ops:
        for name in names:
            print_ops(name)
        return
    if not args.check:
        for name in names:
            record(name)
    problems = [problem for name in names for problem in check(name)]
    for problem in problems:
        print("PROBLEM:", problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
