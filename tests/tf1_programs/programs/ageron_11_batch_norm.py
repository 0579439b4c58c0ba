# Modeled on ageron/handson-ml/11_deep_learning.ipynb, section "Batch Normalization" (a dense network with tf.layers.batch_normalization through functools.partial, a training placeholder_with_default, labels declared shape=(None), which is no shape at all, in_top_k, the UPDATE_OPS run next to the training op); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST, the test images for the validation set; 10 epochs of batches of 100 instead of 20 of 200; a graph-level seed added.
from functools import partial

import numpy as np
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(42)
mnist = input_data.read_data_sets("MNIST_data/")
X_valid, y_valid = mnist.test.images, mnist.test.labels.astype(np.int32)

n_inputs = 28 * 28
n_hidden1 = 300
n_hidden2 = 100
n_outputs = 10
batch_norm_momentum = 0.9
learning_rate = 0.01

X = tf.placeholder(tf.float32, shape=(None, n_inputs), name="X")
y = tf.placeholder(tf.int32, shape=(None), name="y")
training = tf.placeholder_with_default(False, shape=(), name="training")

with tf.name_scope("dnn"):
    he_init = tf.variance_scaling_initializer()
    batch_norm_layer = partial(
        tf.layers.batch_normalization, training=training, momentum=batch_norm_momentum
    )
    dense_layer = partial(tf.layers.dense, kernel_initializer=he_init)

    hidden1 = dense_layer(X, n_hidden1, name="hidden1")
    bn1 = tf.nn.elu(batch_norm_layer(hidden1))
    hidden2 = dense_layer(bn1, n_hidden2, name="hidden2")
    bn2 = tf.nn.elu(batch_norm_layer(hidden2))
    logits_before_bn = dense_layer(bn2, n_outputs, name="outputs")
    logits = batch_norm_layer(logits_before_bn)

with tf.name_scope("loss"):
    xentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(xentropy, name="loss")

with tf.name_scope("train"):
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    training_op = optimizer.minimize(loss)

with tf.name_scope("eval"):
    correct = tf.nn.in_top_k(logits, y, 1)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

init = tf.global_variables_initializer()
extra_update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)

n_epochs = 10
batch_size = 100
with tf.Session() as sess:
    init.run()
    for epoch in range(n_epochs):
        for _ in range(mnist.train.num_examples // batch_size):
            X_batch, y_batch = mnist.train.next_batch(batch_size)
            sess.run(
                [training_op, extra_update_ops],
                feed_dict={training: True, X: X_batch, y: y_batch.astype(np.int32)},
            )
        accuracy_val = accuracy.eval(feed_dict={X: X_valid, y: y_valid})
        print(epoch, "Validation accuracy:", accuracy_val)
    valid_loss = loss.eval(feed_dict={X: X_valid, y: y_valid})
