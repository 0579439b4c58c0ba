# Modeled on ageron/handson-ml/11_deep_learning.ipynb, section "Max norm" (the weights clipped with clip_by_norm and tf.assign after each training step: first through get_tensor_by_name and .eval(), then as a kernel_regularizer that returns no loss and adds its assign op to a collection run with sess.run); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST (the test images for validation); 8 epochs instead of 20; a threshold of 0.8 instead of 1.0, so that the smaller data's weights reach it; a graph-level seed added. Both networks train in one program, one after the other.
import numpy as np
from tf1_data import input_data

import symgrad as tf

mnist = input_data.read_data_sets("MNIST_data/")
X_train, y_train = mnist.train.images, mnist.train.labels.astype(np.int32)
X_valid, y_valid = mnist.test.images, mnist.test.labels.astype(np.int32)

n_inputs = 28 * 28
n_hidden1 = 300
n_hidden2 = 50
n_outputs = 10
learning_rate = 0.01
momentum = 0.9
n_epochs = 8
batch_size = 50


def shuffled_batches(X, y, batch_size):
    order = np.random.permutation(len(X))
    for rows in np.array_split(order, len(X) // batch_size):
        yield X[rows], y[rows]


def loss_train_eval(logits, y):
    with tf.name_scope("loss"):
        xentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        loss = tf.reduce_mean(xentropy, name="loss")
    with tf.name_scope("train"):
        optimizer = tf.train.MomentumOptimizer(learning_rate, momentum)
        training_op = optimizer.minimize(loss)
    with tf.name_scope("eval"):
        correct = tf.nn.in_top_k(logits, y, 1)
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    return training_op, accuracy


# The first way: clip each kernel by name after every step.
tf.reset_default_graph()
tf.set_random_seed(42)
X = tf.placeholder(tf.float32, shape=(None, n_inputs), name="X")
y = tf.placeholder(tf.int32, shape=(None), name="y")
with tf.name_scope("dnn"):
    hidden1 = tf.layers.dense(X, n_hidden1, activation=tf.nn.relu, name="hidden1")
    hidden2 = tf.layers.dense(hidden1, n_hidden2, activation=tf.nn.relu, name="hidden2")
    logits = tf.layers.dense(hidden2, n_outputs, name="outputs")
training_op, accuracy = loss_train_eval(logits, y)

threshold = 0.8
weights = tf.get_default_graph().get_tensor_by_name("hidden1/kernel:0")
clipped_weights = tf.clip_by_norm(weights, clip_norm=threshold, axes=1)
clip_weights = tf.assign(weights, clipped_weights)
weights2 = tf.get_default_graph().get_tensor_by_name("hidden2/kernel:0")
clipped_weights2 = tf.clip_by_norm(weights2, clip_norm=threshold, axes=1)
clip_weights2 = tf.assign(weights2, clipped_weights2)
init = tf.global_variables_initializer()

with tf.Session() as sess:
    init.run()
    for epoch in range(n_epochs):
        for X_batch, y_batch in shuffled_batches(X_train, y_train, batch_size):
            sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
            clip_weights.eval()
            clip_weights2.eval()
        acc_valid = accuracy.eval(feed_dict={X: X_valid, y: y_valid})
        print(epoch, "Validation accuracy:", acc_valid)
    by_name_accuracy = acc_valid
    by_name_norms = np.concatenate(
        [np.linalg.norm(sess.run(w), axis=1) for w in (weights, weights2)]
    )


# The second way: a kernel_regularizer that adds its clipping op to a collection.
def max_norm_regularizer(threshold, axes=1, name="max_norm", collection="max_norm"):
    def max_norm(weights):
        clipped = tf.clip_by_norm(weights, clip_norm=threshold, axes=axes)
        clip_weights = tf.assign(weights, clipped, name=name)
        tf.add_to_collection(collection, clip_weights)
        return None  # there is no regularization loss term

    return max_norm


tf.reset_default_graph()
tf.set_random_seed(42)
X = tf.placeholder(tf.float32, shape=(None, n_inputs), name="X")
y = tf.placeholder(tf.int32, shape=(None), name="y")
max_norm_reg = max_norm_regularizer(threshold=threshold)
with tf.name_scope("dnn"):
    hidden1 = tf.layers.dense(
        X, n_hidden1, activation=tf.nn.relu, kernel_regularizer=max_norm_reg, name="hidden1"
    )
    hidden2 = tf.layers.dense(
        hidden1, n_hidden2, activation=tf.nn.relu, kernel_regularizer=max_norm_reg, name="hidden2"
    )
    logits = tf.layers.dense(hidden2, n_outputs, name="outputs")
training_op, accuracy = loss_train_eval(logits, y)
init = tf.global_variables_initializer()

clip_all_weights = tf.get_collection("max_norm")
with tf.Session() as sess:
    init.run()
    for epoch in range(n_epochs):
        for X_batch, y_batch in shuffled_batches(X_train, y_train, batch_size):
            sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
            sess.run(clip_all_weights)
        acc_valid = accuracy.eval(feed_dict={X: X_valid, y: y_valid})
        print(epoch, "Validation accuracy:", acc_valid)
    kernels = [v for v in tf.trainable_variables() if v.name.startswith("hidden")]
    kernels = [v for v in kernels if "kernel" in v.name]
    regularizer_norms = np.concatenate([np.linalg.norm(sess.run(w), axis=1) for w in kernels])
    regularization_losses = len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))


# Clipped after the last step: no row of a kernel is longer than the threshold, and some
# rows reached it.
by_name_clipped = float(by_name_norms.max() <= threshold * (1 + 1e-6))
by_name_rows_at_threshold = float(np.sum(np.isclose(by_name_norms, threshold, rtol=1e-5)) > 0)
regularizer_clipped = float(regularizer_norms.max() <= threshold * (1 + 1e-6))
regularizer_rows_at_threshold = float(
    np.sum(np.isclose(regularizer_norms, threshold, rtol=1e-5)) > 0
)
