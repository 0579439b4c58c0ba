# Modeled on hunkim/DeepLearningZeroToAll/lab-10-5-mnist_nn_dropout.py (xavier MLP with nn.dropout and a keep_prob placeholder); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; three layers of 256 instead of four of 512.
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(777)
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)

X = tf.placeholder(tf.float32, [None, 784])
Y = tf.placeholder(tf.float32, [None, 10])
keep_prob = tf.placeholder(tf.float32)

xavier = tf.contrib.layers.xavier_initializer()
W1 = tf.get_variable("W1", shape=[784, 256], initializer=xavier)
b1 = tf.Variable(tf.random_normal([256]))
L1 = tf.nn.dropout(tf.nn.relu(tf.matmul(X, W1) + b1), keep_prob=keep_prob)
W2 = tf.get_variable("W2", shape=[256, 256], initializer=xavier)
b2 = tf.Variable(tf.random_normal([256]))
L2 = tf.nn.dropout(tf.nn.relu(tf.matmul(L1, W2) + b2), keep_prob=keep_prob)
W3 = tf.get_variable("W3", shape=[256, 10], initializer=xavier)
b3 = tf.Variable(tf.random_normal([10]))
hypothesis = tf.matmul(L2, W3) + b3

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=hypothesis, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=0.001).minimize(cost)

sess = tf.Session()
sess.run(tf.global_variables_initializer())
total_batch = mnist.train.num_examples // 100
for epoch in range(4):
    avg_cost = 0.0
    for _ in range(total_batch):
        xs, ys = mnist.train.next_batch(100)
        c, _ = sess.run([cost, optimizer], feed_dict={X: xs, Y: ys, keep_prob: 0.7})
        avg_cost += c / total_batch
    print("Epoch:", epoch + 1, "cost =", avg_cost)

hit = tf.equal(tf.argmax(hypothesis, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(hit, tf.float32))
feed = {X: mnist.test.images, Y: mnist.test.labels, keep_prob: 1}
print("Accuracy:", sess.run(accuracy, feed_dict=feed))
