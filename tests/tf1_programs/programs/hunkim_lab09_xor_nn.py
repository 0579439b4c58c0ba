# Modeled on hunkim/DeepLearningZeroToAll/lab-09-2-xor-nn.py (XOR with a two-layer sigmoid network); written for symgrad's tests, not copied.
import numpy as np

import symgrad as tf

tf.set_random_seed(777)

pairs = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.float32)
xor = np.array([[0], [1], [1], [0]], dtype=np.float32)

X = tf.placeholder(tf.float32, [None, 2])
Y = tf.placeholder(tf.float32, [None, 1])

W1 = tf.Variable(tf.random_normal([2, 2]), name="weight1")
b1 = tf.Variable(tf.random_normal([2]), name="bias1")
hidden = tf.sigmoid(tf.matmul(X, W1) + b1)

W2 = tf.Variable(tf.random_normal([2, 1]), name="weight2")
b2 = tf.Variable(tf.random_normal([1]), name="bias2")
out = tf.sigmoid(tf.matmul(hidden, W2) + b2)

cost = -tf.reduce_mean(Y * tf.log(out) + (1 - Y) * tf.log(1 - out))
train = tf.train.GradientDescentOptimizer(learning_rate=0.1).minimize(cost)

guess = tf.cast(out > 0.5, dtype=tf.float32)
accuracy = tf.reduce_mean(tf.cast(tf.equal(guess, Y), dtype=tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(10001):
        cost_val, _ = sess.run([cost, train], feed_dict={X: pairs, Y: xor})
        if step % 2500 == 0:
            print(step, cost_val)
    a = sess.run(accuracy, feed_dict={X: pairs, Y: xor})
    print("Accuracy:", a)
