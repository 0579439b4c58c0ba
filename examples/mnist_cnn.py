"""The classic TF1 convolutional network for MNIST, on scikit-learn's digits at 28x28.

The network is the one of TensorFlow 1's "Deep MNIST" tutorial: 5x5 convolution with 32
filters, 2x2 max-pool, 5x5 convolution with 64 filters, 2x2 max-pool, a fully connected
layer (256 units here instead of 1,024, so that it trains in seconds), dropout, and a
10-way softmax, trained with Adam. It is written exactly as a TF1 program; ``import symgrad as
tf`` is its only symgrad-specific line (swap it for ``import tensorflow.compat.v1 as tf`` plus
``tf.disable_v2_behavior()`` to run it under TensorFlow).

Data: scikit-learn's 1,797 handwritten digits (8x8, values 0..16) become MNIST-shaped images
with NumPy only: every pixel is repeated 3x3 (``np.kron``, nearest-neighbour upsampling to
24x24), then a 2-pixel blank border is added (``np.pad``) to make 28x28, and the values are
scaled to [0, 1]. 1,497 images train the network, the other 300 test it.

Run:  python examples/mnist_cnn.py            (needs: pip install scikit-learn)
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.datasets import load_digits

import symgrad as tf

EPOCHS = 6
BATCH_SIZE = 50


def digits_28x28() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Train and test images of shape (n, 28, 28, 1) in [0, 1], with one-hot labels."""
    digits = load_digits()
    images = np.kron(digits.images, np.ones((1, 3, 3)))  # 8x8 -> 24x24, nearest neighbour
    images = np.pad(images, ((0, 0), (2, 2), (2, 2)))[..., np.newaxis] / 16.0
    labels = np.eye(10)[digits.target]
    order = np.random.RandomState(0).permutation(len(images))
    train, test = order[:1497], order[1497:]
    return (
        images[train].astype(np.float32),
        labels[train].astype(np.float32),
        images[test].astype(np.float32),
        labels[test].astype(np.float32),
    )


def weight_variable(shape):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def bias_variable(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def conv2d(x, W):
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def main(epochs: int = EPOCHS, batches_per_epoch: int | None = None) -> float:
    """Train for ``epochs`` (``batches_per_epoch`` batches each, all by default); return the
    test accuracy."""
    tf.set_random_seed(0)
    np.random.seed(0)
    train_x, train_y, test_x, test_y = digits_28x28()

    x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="images")
    y_ = tf.placeholder(tf.float32, [None, 10], name="labels")
    keep_prob = tf.placeholder(tf.float32, name="keep_prob")

    W_conv1 = weight_variable([5, 5, 1, 32])
    b_conv1 = bias_variable([32])
    h_pool1 = max_pool_2x2(tf.nn.relu(conv2d(x, W_conv1) + b_conv1))  # 14x14x32

    W_conv2 = weight_variable([5, 5, 32, 64])
    b_conv2 = bias_variable([64])
    h_pool2 = max_pool_2x2(tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2))  # 7x7x64

    W_fc1 = weight_variable([7 * 7 * 64, 256])
    b_fc1 = bias_variable([256])
    h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
    h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, W_fc1) + b_fc1)
    h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)

    W_fc2 = weight_variable([256, 10])
    b_fc2 = bias_variable([10])
    y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2

    cross_entropy = tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv)
    )
    train_step = tf.train.AdamOptimizer(1e-3).minimize(cross_entropy)
    correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

    start = time.perf_counter()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(epochs):
            order = np.random.permutation(len(train_x))
            starts = range(0, len(order) - BATCH_SIZE + 1, BATCH_SIZE)
            for i in starts[:batches_per_epoch]:
                batch = order[i : i + BATCH_SIZE]
                _, loss = sess.run(
                    [train_step, cross_entropy],
                    feed_dict={x: train_x[batch], y_: train_y[batch], keep_prob: 0.5},
                )
            print(f"epoch {epoch + 1}: last batch loss {loss:.4f}")
        test_accuracy = sess.run(accuracy, feed_dict={x: test_x, y_: test_y, keep_prob: 1.0})
    print(f"test accuracy {test_accuracy:.4f} ({time.perf_counter() - start:.1f} s)")
    return float(test_accuracy)


if __name__ == "__main__":
    main()
