# Modeled on aymericdamien/TensorFlow-Examples/examples/2_BasicModels/logistic_regression.py (softmax regression on MNIST, zero-initialized weights, hand-written cross-entropy); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; five epochs.
from tf1_data import input_data

import symgrad as tf

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)

learning_rate = 0.1
training_epochs = 5
batch_size = 100

x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.float32, [None, 10])
W = tf.Variable(tf.zeros([784, 10]))
b = tf.Variable(tf.zeros([10]))

pred = tf.nn.softmax(tf.matmul(x, W) + b)
cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred), reduction_indices=1))
optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(training_epochs):
        avg_cost = 0.0
        n_batches = mnist.train.num_examples // batch_size
        for _ in range(n_batches):
            xs, ys = mnist.train.next_batch(batch_size)
            _, c = sess.run([optimizer, cost], feed_dict={x: xs, y: ys})
            avg_cost += c / n_batches
        print("Epoch:", epoch + 1, "cost=", avg_cost)
    correct = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    print("Accuracy:", accuracy.eval({x: mnist.test.images, y: mnist.test.labels}))
