# Modeled on brando90/tensor_flow_experiments/tf_playground/batch_normalization/bn_so_example2_MAIN.py (the batch_norm function of the Stack Overflow answer to question 33949786 after a conv layer: the batch's moments in training and their ExponentialMovingAverage at inference, switched by tf.cond on a phase_train placeholder, the averages updated by ema.apply inside the training branch under control_dependencies); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 14x14; two conv layers of 8 and 16 filters with batch norm, dropout in the training branch of a second tf.cond, Adam for 200 steps.
import numpy as np
from tf1_data import input_data

import symgrad as tf

mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)


def small(images):
    return images.reshape(-1, 28, 28)[:, ::2, ::2].reshape(-1, 14, 14, 1)


def batch_norm(x, n_out, phase_train, scope="bn"):
    with tf.variable_scope(scope):
        beta = tf.Variable(tf.constant(0.0, shape=[n_out]), name="beta", trainable=True)
        gamma = tf.Variable(tf.constant(1.0, shape=[n_out]), name="gamma", trainable=True)
        batch_mean, batch_var = tf.nn.moments(x, [0, 1, 2], name="moments")
        ema = tf.train.ExponentialMovingAverage(decay=0.5)

        def mean_var_with_update():
            ema_apply_op = ema.apply([batch_mean, batch_var])
            with tf.control_dependencies([ema_apply_op]):
                return tf.identity(batch_mean), tf.identity(batch_var)

        mean, var = tf.cond(
            phase_train,
            mean_var_with_update,
            lambda: (ema.average(batch_mean), ema.average(batch_var)),
        )
        normed = tf.nn.batch_normalization(x, mean, var, beta, gamma, 1e-3)
    return normed, ema.average(batch_mean)


x = tf.placeholder(tf.float32, [None, 14, 14, 1])
y_ = tf.placeholder(tf.float32, [None, 10])
phase_train = tf.placeholder(tf.bool, name="phase_train")

W1 = tf.Variable(tf.truncated_normal([5, 5, 1, 8], stddev=0.1))
h1, moving_mean_1 = batch_norm(tf.nn.conv2d(x, W1, [1, 1, 1, 1], "SAME"), 8, phase_train, "bn1")
p1 = tf.nn.max_pool(tf.nn.relu(h1), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
W2 = tf.Variable(tf.truncated_normal([5, 5, 8, 16], stddev=0.1))
h2, moving_mean_2 = batch_norm(tf.nn.conv2d(p1, W2, [1, 1, 1, 1], "SAME"), 16, phase_train, "bn2")
p2 = tf.nn.max_pool(tf.nn.relu(h2), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
flat = tf.reshape(p2, [-1, 4 * 4 * 16])
flat = tf.cond(phase_train, lambda: tf.nn.dropout(flat, 0.75), lambda: flat)
W3 = tf.Variable(tf.truncated_normal([4 * 4 * 16, 10], stddev=0.1))
b3 = tf.Variable(tf.constant(0.1, shape=[10]))
logits = tf.matmul(flat, W3) + b3

loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
train_step = tf.train.AdamOptimizer(0.01).minimize(loss)
correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(200):
        batch_x, batch_y = mnist.train.next_batch(50)
        sess.run(train_step, feed_dict={x: small(batch_x), y_: batch_y, phase_train: True})
        if step % 50 == 0:
            train_loss = sess.run(
                loss, feed_dict={x: small(batch_x), y_: batch_y, phase_train: False}
            )
            print(f"step {step}, loss with the moving averages {train_loss:.4f}")
    test_x, test_y = small(mnist.test.images[:500]), mnist.test.labels[:500]
    test_accuracy = sess.run(accuracy, feed_dict={x: test_x, y_: test_y, phase_train: False})
    test_loss = sess.run(loss, feed_dict={x: test_x, y_: test_y, phase_train: False})
    # The moving average of the first layer's mean follows the batches' (decay 0.5).
    batch_means = sess.run(
        tf.nn.moments(tf.nn.conv2d(x, W1, [1, 1, 1, 1], "SAME"), [0, 1, 2])[0],
        feed_dict={x: small(batch_x)},
    )
    averaged = sess.run(moving_mean_1)
    average_gap = float(
        np.max(np.abs(averaged - batch_means)) / (np.max(np.abs(batch_means)) + 1e-6)
    )
    # Inference does not move the averages.
    sess.run(accuracy, feed_dict={x: test_x, y_: test_y, phase_train: False})
    unchanged = float(np.array_equal(sess.run(moving_mean_1), averaged))
    print(f"Test accuracy: {test_accuracy:.4f}")
