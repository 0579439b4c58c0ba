# Modeled on aymericdamien/TensorFlow-Examples/examples/2_BasicModels/linear_regression.py (one-feature linear regression fed one sample at a time); written for symgrad's tests, not copied.
# Data: iris petal length (cm) predicts petal width; 120 flowers train, 30 test.
import numpy as np
from tf1_data import iris_csv

import symgrad as tf

rng = np.random
flowers = iris_csv()[rng.RandomState(0).permutation(150)]
train_x, train_y = flowers[:120, 2], flowers[:120, 3]
test_x, test_y = flowers[120:, 2], flowers[120:, 3]
n_samples = train_x.shape[0]

learning_rate = 0.05
epochs = 20

X = tf.placeholder("float")
Y = tf.placeholder("float")
slope = tf.Variable(rng.randn(), name="weight")
offset = tf.Variable(rng.randn(), name="bias")

line = tf.add(tf.multiply(X, slope), offset)
cost = tf.reduce_sum(tf.pow(line - Y, 2)) / (2 * n_samples)
optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(epochs):
        for px, py in zip(train_x, train_y, strict=False):
            sess.run(optimizer, feed_dict={X: px, Y: py})
        if (epoch + 1) % 5 == 0:
            print("Epoch", epoch + 1, "cost", sess.run(cost, feed_dict={X: train_x, Y: train_y}))
    training_cost = sess.run(cost, feed_dict={X: train_x, Y: train_y})
    print("Training cost=", training_cost, "W=", sess.run(slope), "b=", sess.run(offset))
    testing_cost = sess.run(
        tf.reduce_sum(tf.pow(line - Y, 2)) / (2 * test_x.shape[0]), feed_dict={X: test_x, Y: test_y}
    )
    print("Testing cost=", testing_cost)
