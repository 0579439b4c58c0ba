# Modeled on hunkim/DeepLearningZeroToAll/lab-11-2-mnist_deep_cnn.py (raw nn.conv2d / max_pool CNN with nn.dropout); written for symgrad's tests, not copied.
# Data: tf1_data's digits, every second pixel kept (14x14); 8 and 16 filters instead of 32 and 64.
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(777)
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)


def small(images):
    return images.reshape(-1, 28, 28)[:, ::2, ::2].reshape(-1, 196)


keep_prob = tf.placeholder(tf.float32)
X = tf.placeholder(tf.float32, [None, 196])
X_img = tf.reshape(X, [-1, 14, 14, 1])
Y = tf.placeholder(tf.float32, [None, 10])

K1 = tf.Variable(tf.random_normal([3, 3, 1, 8], stddev=0.01))
C1 = tf.nn.relu(tf.nn.conv2d(X_img, K1, strides=[1, 1, 1, 1], padding="SAME"))
P1 = tf.nn.max_pool(C1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
P1 = tf.nn.dropout(P1, keep_prob=keep_prob)

K2 = tf.Variable(tf.random_normal([3, 3, 8, 16], stddev=0.01))
C2 = tf.nn.relu(tf.nn.conv2d(P1, K2, strides=[1, 1, 1, 1], padding="SAME"))
P2 = tf.nn.max_pool(C2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
P2 = tf.nn.dropout(P2, keep_prob=keep_prob)
flat = tf.reshape(P2, [-1, 4 * 4 * 16])

W3 = tf.get_variable(
    "W3", shape=[4 * 4 * 16, 10], initializer=tf.contrib.layers.xavier_initializer()
)
b3 = tf.Variable(tf.random_normal([10]))
logits = tf.matmul(flat, W3) + b3

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=0.01).minimize(cost)

sess = tf.Session()
sess.run(tf.global_variables_initializer())
total_batch = mnist.train.num_examples // 100
for epoch in range(4):
    avg_cost = 0.0
    for _ in range(total_batch):
        xs, ys = mnist.train.next_batch(100)
        c, _ = sess.run([cost, optimizer], feed_dict={X: small(xs), Y: ys, keep_prob: 0.8})
        avg_cost += c / total_batch
    print("Epoch:", epoch + 1, "cost =", avg_cost)

correct = tf.equal(tf.argmax(logits, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
test_feed = {X: small(mnist.test.images), Y: mnist.test.labels, keep_prob: 1}
print("Accuracy:", sess.run(accuracy, feed_dict=test_feed))
