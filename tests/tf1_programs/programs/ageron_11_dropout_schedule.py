# Modeled on ageron/handson-ml/11_deep_learning.ipynb, sections "Learning Rate Scheduling" (exponential_decay on a global_step that minimize increments, MomentumOptimizer) and "Dropout" (tf.layers.dropout on the inputs and hidden layers, a training placeholder_with_default fed True only for the steps); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST (the test images for validation); 5 and 8 epochs; decay_steps 500 instead of 10,000 for the fewer steps; a graph-level seed added. Both networks train in one program, one after the other.
import numpy as np
from tf1_data import input_data

import symgrad as tf

mnist = input_data.read_data_sets("MNIST_data/")
X_train, y_train = mnist.train.images, mnist.train.labels.astype(np.int32)
X_valid, y_valid = mnist.test.images, mnist.test.labels.astype(np.int32)
n_inputs = 28 * 28
n_outputs = 10
batch_size = 50


def shuffled_batches(X, y, batch_size):
    order = np.random.permutation(len(X))
    for rows in np.array_split(order, len(X) // batch_size):
        yield X[rows], y[rows]


# Learning rate scheduling.
tf.reset_default_graph()
tf.set_random_seed(42)
n_hidden1 = 300
n_hidden2 = 50
X = tf.placeholder(tf.float32, shape=(None, n_inputs), name="X")
y = tf.placeholder(tf.int32, shape=(None), name="y")
with tf.name_scope("dnn"):
    hidden1 = tf.layers.dense(X, n_hidden1, activation=tf.nn.relu, name="hidden1")
    hidden2 = tf.layers.dense(hidden1, n_hidden2, activation=tf.nn.relu, name="hidden2")
    logits = tf.layers.dense(hidden2, n_outputs, name="outputs")
with tf.name_scope("loss"):
    xentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(xentropy, name="loss")
with tf.name_scope("eval"):
    correct = tf.nn.in_top_k(logits, y, 1)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
with tf.name_scope("train"):
    initial_learning_rate = 0.1
    decay_steps = 500
    decay_rate = 1 / 10
    global_step = tf.Variable(0, trainable=False, name="global_step")
    learning_rate = tf.train.exponential_decay(
        initial_learning_rate, global_step, decay_steps, decay_rate
    )
    optimizer = tf.train.MomentumOptimizer(learning_rate, momentum=0.9)
    training_op = optimizer.minimize(loss, global_step=global_step)
init = tf.global_variables_initializer()

with tf.Session() as sess:
    init.run()
    for epoch in range(5):
        for X_batch, y_batch in shuffled_batches(X_train, y_train, batch_size):
            sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
        accuracy_val = accuracy.eval(feed_dict={X: X_valid, y: y_valid})
        print(epoch, "Validation accuracy:", accuracy_val)
    schedule_accuracy = accuracy_val
    steps_taken, final_learning_rate = sess.run([global_step, learning_rate])

# Dropout.
tf.reset_default_graph()
tf.set_random_seed(42)
n_hidden1 = 300
n_hidden2 = 100
learning_rate = 0.01
X = tf.placeholder(tf.float32, shape=(None, n_inputs), name="X")
y = tf.placeholder(tf.int32, shape=(None), name="y")
training = tf.placeholder_with_default(False, shape=(), name="training")

dropout_rate = 0.5  # == 1 - keep_prob
X_drop = tf.layers.dropout(X, dropout_rate, training=training)
with tf.name_scope("dnn"):
    hidden1 = tf.layers.dense(X_drop, n_hidden1, activation=tf.nn.relu, name="hidden1")
    hidden1_drop = tf.layers.dropout(hidden1, dropout_rate, training=training)
    hidden2 = tf.layers.dense(hidden1_drop, n_hidden2, activation=tf.nn.relu, name="hidden2")
    hidden2_drop = tf.layers.dropout(hidden2, dropout_rate, training=training)
    logits = tf.layers.dense(hidden2_drop, n_outputs, name="outputs")
with tf.name_scope("loss"):
    xentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(xentropy, name="loss")
with tf.name_scope("train"):
    optimizer = tf.train.MomentumOptimizer(learning_rate, momentum=0.9)
    training_op = optimizer.minimize(loss)
with tf.name_scope("eval"):
    correct = tf.nn.in_top_k(logits, y, 1)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
init = tf.global_variables_initializer()

with tf.Session() as sess:
    init.run()
    for epoch in range(8):
        for X_batch, y_batch in shuffled_batches(X_train, y_train, batch_size):
            sess.run(training_op, feed_dict={X: X_batch, y: y_batch, training: True})
        accuracy_val = accuracy.eval(feed_dict={X: X_valid, y: y_valid})
        print(epoch, "Validation accuracy:", accuracy_val)
    dropout_accuracy = accuracy_val
    # Without training=True the layers pass their inputs through: two evaluations agree.
    repeatable = float(
        np.array_equal(
            logits.eval(feed_dict={X: X_valid[:20]}), logits.eval(feed_dict={X: X_valid[:20]})
        )
    )
