# Modeled on hunkim/DeepLearningZeroToAll/lab-11-3-mnist_cnn_class.py (a CNN built by a Python class inside its own variable_scope); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 14x14 (every second pixel); one conv layer of 8 filters.
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(777)
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)


def small(images):
    return images.reshape(-1, 28, 28)[:, ::2, ::2].reshape(-1, 196)


class Model:
    def __init__(self, sess, name):
        self.sess = sess
        self.name = name
        with tf.variable_scope(self.name):
            self.keep_prob = tf.placeholder(tf.float32)
            self.X = tf.placeholder(tf.float32, [None, 196])
            self.Y = tf.placeholder(tf.float32, [None, 10])
            image = tf.reshape(self.X, [-1, 14, 14, 1])
            kernel = tf.Variable(tf.random_normal([3, 3, 1, 8], stddev=0.01))
            conv = tf.nn.relu(tf.nn.conv2d(image, kernel, strides=[1, 1, 1, 1], padding="SAME"))
            pool = tf.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
            pool = tf.nn.dropout(pool, keep_prob=self.keep_prob)
            flat = tf.reshape(pool, [-1, 7 * 7 * 8])
            w = tf.get_variable(
                "W_out", shape=[7 * 7 * 8, 10], initializer=tf.contrib.layers.xavier_initializer()
            )
            b = tf.Variable(tf.random_normal([10]))
            self.logits = tf.matmul(flat, w) + b
        self.cost = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits_v2(logits=self.logits, labels=self.Y)
        )
        self.optimizer = tf.train.AdamOptimizer(learning_rate=0.01).minimize(self.cost)
        hit = tf.equal(tf.argmax(self.logits, 1), tf.argmax(self.Y, 1))
        self.accuracy = tf.reduce_mean(tf.cast(hit, tf.float32))

    def get_accuracy(self, x_test, y_test, keep_prop=1.0):
        return self.sess.run(
            self.accuracy, feed_dict={self.X: x_test, self.Y: y_test, self.keep_prob: keep_prop}
        )

    def train(self, x_data, y_data, keep_prop=0.8):
        return self.sess.run(
            [self.cost, self.optimizer],
            feed_dict={self.X: x_data, self.Y: y_data, self.keep_prob: keep_prop},
        )


sess = tf.Session()
m1 = Model(sess, "m1")
sess.run(tf.global_variables_initializer())

total_batch = mnist.train.num_examples // 100
for epoch in range(4):
    avg_cost = 0.0
    for _ in range(total_batch):
        xs, ys = mnist.train.next_batch(100)
        c, _ = m1.train(small(xs), ys)
        avg_cost += c / total_batch
    print("Epoch:", epoch + 1, "cost =", avg_cost)

print("Accuracy:", m1.get_accuracy(small(mnist.test.images), mnist.test.labels))
