# Modeled on nlintz/TensorFlow-Tutorials/03_net.py (one sigmoid hidden layer, init_weights with random_normal stddev 0.01, plain gradient descent); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; 200 hidden units instead of 625.
import numpy as np
from tf1_data import input_data

import symgrad as tf


def init_weights(shape):
    return tf.Variable(tf.random_normal(shape, stddev=0.01))


def forward(X, w_hidden, w_out):
    hidden = tf.nn.sigmoid(tf.matmul(X, w_hidden))
    return tf.matmul(hidden, w_out)


mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
trX, trY, teX, teY = mnist.train.images, mnist.train.labels, mnist.test.images, mnist.test.labels

X = tf.placeholder("float", [None, 784])
Y = tf.placeholder("float", [None, 10])
w_h = init_weights([784, 200])
w_o = init_weights([200, 10])

py_x = forward(X, w_h, w_o)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=py_x, labels=Y))
train_op = tf.train.GradientDescentOptimizer(0.5).minimize(cost)
predict_op = tf.argmax(py_x, 1)

with tf.Session() as sess:
    tf.global_variables_initializer().run()
    for i in range(10):
        for start, end in zip(range(0, len(trX), 128), range(128, len(trX) + 1, 128), strict=False):
            sess.run(train_op, feed_dict={X: trX[start:end], Y: trY[start:end]})
        print(i, np.mean(np.argmax(teY, axis=1) == sess.run(predict_op, feed_dict={X: teX})))
