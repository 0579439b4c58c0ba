# Modeled on ageron/handson-ml/11_deep_learning.ipynb, "Reusing a TensorFlow model" (the code that built the graph is at hand; the tensors and ops to reuse are then found by the names TF1 gives them: "X:0", "dnn/hidden1/Relu:0", "eval/accuracy:0", "GradientDescent", the kernels' "/read:0" tensors; a Saver restores the trained values and training goes on), plus the batch-norm + Adam idiom of the same chapter (UPDATE_OPS as control dependencies of the train op, whose slots and beta powers a Saver writes); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; 4 epochs, then 3 more after the restore.
import os
import tempfile

import numpy as np
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(42)
np.random.seed(42)
mnist = input_data.read_data_sets("MNIST_data/")
X_train, y_train = mnist.train.images, mnist.train.labels.astype(np.int32)
X_test, y_test = mnist.test.images, mnist.test.labels.astype(np.int32)


def build():
    X = tf.placeholder(tf.float32, shape=(None, 28 * 28), name="X")
    y = tf.placeholder(tf.int32, shape=(None), name="y")
    training = tf.placeholder_with_default(False, shape=(), name="training")
    with tf.name_scope("dnn"):
        hidden1 = tf.layers.dense(X, 100, name="hidden1", activation=tf.nn.relu)
        normed = tf.layers.batch_normalization(hidden1, training=training, momentum=0.9)
        hidden2 = tf.layers.dense(normed, 50, name="hidden2", activation=tf.nn.relu)
        # A bias added by hand, as the chapter's first networks do: TF1 names the sum "add".
        bias = tf.Variable(tf.zeros([10]), name="out_bias")
        weights = tf.Variable(tf.random_normal([50, 10], stddev=0.1), name="out_weights")
        logits = tf.matmul(hidden2, weights) + bias
    with tf.name_scope("loss"):
        xentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        tf.reduce_mean(xentropy, name="loss")
    with tf.name_scope("eval"):
        correct = tf.nn.in_top_k(logits, y, 1)
        tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")


def batches(batch_size=50):
    order = np.random.permutation(len(X_train))
    for rows in np.array_split(order, len(X_train) // batch_size):
        yield X_train[rows], y_train[rows]


workdir = tempfile.mkdtemp(prefix="reuse_by_name-")
checkpoint = os.path.join(workdir, "ckpt", "model.ckpt")  # the folder does not exist yet

# First run: build, train with batch norm and Adam, save.
build()
graph = tf.get_default_graph()
loss = graph.get_tensor_by_name("loss/loss:0")
with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)), tf.name_scope("train"):
    training_op = tf.train.AdamOptimizer(0.01).minimize(loss)
saver = tf.train.Saver()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _epoch in range(4):
        for X_batch, y_batch in batches():
            sess.run(training_op, feed_dict={"X:0": X_batch, "y:0": y_batch, "training:0": True})
    first_accuracy = sess.run("eval/accuracy:0", feed_dict={"X:0": X_test, "y:0": y_test})
    print("Accuracy after the first run:", first_accuracy)
    saved_path = saver.save(sess, checkpoint)
    saved_moving_mean = sess.run("batch_normalization/moving_mean:0")

# Second run: the same code builds the graph again; everything else is found by name.
tf.reset_default_graph()
build()
graph = tf.get_default_graph()
X = graph.get_tensor_by_name("X:0")
y = graph.get_tensor_by_name("y:0")
accuracy = graph.get_tensor_by_name("eval/accuracy:0")
hidden1 = graph.get_tensor_by_name("dnn/hidden1/Relu:0")
logits_sum = graph.get_tensor_by_name("dnn/add:0")
kernel_read = graph.get_tensor_by_name("hidden1/kernel/read:0")
loss = graph.get_tensor_by_name("loss/loss:0")
update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops), tf.name_scope("train"):
    training_op = tf.train.AdamOptimizer(0.01).minimize(loss)
assert graph.get_operation_by_name("train/Adam") is training_op
assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [training_op]
saver = tf.train.Saver()
with tf.Session() as sess:
    saver.restore(sess, tf.train.latest_checkpoint(os.path.dirname(checkpoint)))
    restored_accuracy = sess.run(accuracy, feed_dict={X: X_test, y: y_test})
    restored_moving_mean = sess.run("batch_normalization/moving_mean:0")
    kernel = sess.run(kernel_read)
    hidden_units = sess.run(hidden1, feed_dict={X: X_test[:5]}).shape[1]
    logits_shape = sess.run(logits_sum, feed_dict={X: X_test[:5]}).shape
    print("Accuracy after the restore:", restored_accuracy)
    for _epoch in range(3):
        for X_batch, y_batch in batches():
            sess.run(training_op, feed_dict={X: X_batch, y: y_batch, "training:0": True})
    accuracy_value = sess.run(accuracy, feed_dict={X: X_test, y: y_test})
    print("Test accuracy:", accuracy_value)

restored_equal = float(
    restored_accuracy == first_accuracy and np.allclose(restored_moving_mean, saved_moving_mean)
)
kernel_rows = kernel.shape[0]
print("hidden units", hidden_units, "logits", logits_shape, "kernel rows", kernel_rows)
