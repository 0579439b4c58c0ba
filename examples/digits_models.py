"""Logistic regression and a 2-hidden-layer MLP on scikit-learn's digits, trained with Session.

The 8x8 digit images (1,797 of them, shipped inside scikit-learn) are split
into 1,347 training and 450 test images. Both models use a `None` batch
dimension, softmax cross-entropy and Adam, exactly as a TF1 program would;
every step runs generated NumPy code. The module computing each model's loss
and gradients is written to examples/output/ for reading.

Run:  python examples/digits_models.py            (needs: pip install scikit-learn)
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

import symgrad as tf

OUTPUT = Path(os.environ.get("SYMGRAD_EXAMPLES_OUTPUT", Path(__file__).resolve().parent / "output"))


def load_digits(seed: int = 0) -> tuple:
    from sklearn.datasets import load_digits as sklearn_digits

    data = sklearn_digits()
    images = data.images.reshape(len(data.images), -1) / 16.0
    order = np.random.default_rng(seed).permutation(len(images))
    train, test = order[:1347], order[1347:]
    return images[train], data.target[train], images[test], data.target[test]


def build(hidden: tuple, seed: int = 0) -> dict:
    """A softmax classifier with tanh hidden layers (none: logistic regression), batch None."""
    rng = np.random.default_rng(seed)
    images = tf.placeholder(tf.float64, shape=[None, 64], name="images")
    labels = tf.placeholder(tf.int32, shape=[None], name="labels")
    activations, width, params = images, 64, []
    sizes = list(hidden) + [10]
    for layer, size in enumerate(sizes, start=1):
        weights = tf.Variable(
            rng.standard_normal((width, size)) * np.sqrt(1.0 / width), name=f"W{layer}"
        )
        biases = tf.Variable(np.zeros(size), name=f"b{layer}")
        params += [weights, biases]
        activations = tf.matmul(activations, weights) + biases
        if layer < len(sizes):
            activations = tf.tanh(activations)
        width = size
    logits = activations
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    return {"images": images, "labels": labels, "logits": logits, "loss": loss, "params": params}


def train(
    name: str, hidden: tuple, epochs: int, batch: int = 64, learning_rate: float = 0.01
) -> float:
    x_train, y_train, x_test, y_test = load_digits()
    with tf.Graph().as_default():
        model = build(hidden)
        train_op = tf.train.AdamOptimizer(learning_rate).minimize(model["loss"])
        gradients = tf.gradients(model["loss"], model["params"])
        tf.compile([model["loss"]] + gradients, name=name, path=OUTPUT / f"{name}.py")
        rng = np.random.default_rng(1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _epoch in range(epochs):
                order = rng.permutation(len(x_train))
                for start in range(0, len(order), batch):
                    chosen = order[start : start + batch]
                    sess.run(
                        train_op,
                        {model["images"]: x_train[chosen], model["labels"]: y_train[chosen]},
                    )
            logits = sess.run(model["logits"], {model["images"]: x_test})
            loss = sess.run(model["loss"], {model["images"]: x_test, model["labels"]: y_test})
    accuracy = float(np.mean(np.argmax(logits, axis=1) == y_test))
    print(f"{name}: test loss {loss:.4f}, test accuracy {accuracy:.1%} ({len(y_test)} images)")
    return accuracy


if __name__ == "__main__":
    train("logistic_regression", hidden=(), epochs=30)
    train("mlp", hidden=(64, 64), epochs=30)
