# Modeled on nlintz/TensorFlow-Tutorials/04_modern_net.py (ReLU layers with nn.dropout on input and hidden, RMSProp); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; 256 hidden units instead of 625, 15 epochs.
import numpy as np
from tf1_data import input_data

import symgrad as tf


def init_weights(shape):
    return tf.Variable(tf.random_normal(shape, stddev=0.01))


def forward(X, w_h, w_h2, w_o, p_keep_input, p_keep_hidden):
    X = tf.nn.dropout(X, p_keep_input)
    h = tf.nn.dropout(tf.nn.relu(tf.matmul(X, w_h)), p_keep_hidden)
    h2 = tf.nn.dropout(tf.nn.relu(tf.matmul(h, w_h2)), p_keep_hidden)
    return tf.matmul(h2, w_o)


mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
trX, trY, teX, teY = mnist.train.images, mnist.train.labels, mnist.test.images, mnist.test.labels

X = tf.placeholder("float", [None, 784])
Y = tf.placeholder("float", [None, 10])
w_h = init_weights([784, 256])
w_h2 = init_weights([256, 256])
w_o = init_weights([256, 10])
p_keep_input = tf.placeholder("float")
p_keep_hidden = tf.placeholder("float")

py_x = forward(X, w_h, w_h2, w_o, p_keep_input, p_keep_hidden)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=py_x, labels=Y))
train_op = tf.train.RMSPropOptimizer(0.001, 0.9).minimize(cost)
predict_op = tf.argmax(py_x, 1)

with tf.Session() as sess:
    tf.global_variables_initializer().run()
    for i in range(15):
        for start, end in zip(range(0, len(trX), 128), range(128, len(trX) + 1, 128), strict=False):
            feed = {X: trX[start:end], Y: trY[start:end], p_keep_input: 0.8, p_keep_hidden: 0.5}
            sess.run(train_op, feed_dict=feed)
        test_feed = {X: teX, p_keep_input: 1.0, p_keep_hidden: 1.0}
        print(i, np.mean(np.argmax(teY, axis=1) == sess.run(predict_op, feed_dict=test_feed)))
