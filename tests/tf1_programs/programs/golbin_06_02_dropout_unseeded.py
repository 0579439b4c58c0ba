# Modeled on golbin/TensorFlow-Tutorials/06 - MNIST/02 - Dropout.py (two hidden ReLU layers of 256 without biases, random_normal weights of stddev 0.01, nn.dropout after each with a keep_prob placeholder, Adam; no graph seed); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; 8 epochs instead of 30.
# The program sets no seed, as the tutorial does: the two dropout layers have one shape and
# must drop units independently.
import numpy as np
from tf1_data import input_data

import symgrad as tf

mnist = input_data.read_data_sets("./mnist/data/", one_hot=True)

X = tf.placeholder(tf.float32, [None, 784])
Y = tf.placeholder(tf.float32, [None, 10])
keep_prob = tf.placeholder(tf.float32)

W1 = tf.Variable(tf.random_normal([784, 256], stddev=0.01))
L1 = tf.nn.dropout(tf.nn.relu(tf.matmul(X, W1)), keep_prob)
W2 = tf.Variable(tf.random_normal([256, 256], stddev=0.01))
L2 = tf.nn.dropout(tf.nn.relu(tf.matmul(L1, W2)), keep_prob)
W3 = tf.Variable(tf.random_normal([256, 10], stddev=0.01))
model = tf.matmul(L2, W3)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=model, labels=Y))
optimizer = tf.train.AdamOptimizer(0.001).minimize(cost)

sess = tf.Session()
sess.run(tf.global_variables_initializer())

batch_size = 100
total_batch = int(mnist.train.num_examples / batch_size)
for epoch in range(8):
    total_cost = 0
    for _i in range(total_batch):
        batch_xs, batch_ys = mnist.train.next_batch(batch_size)
        _, cost_val = sess.run(
            [optimizer, cost], feed_dict={X: batch_xs, Y: batch_ys, keep_prob: 0.8}
        )
        total_cost += cost_val
    avg_cost = total_cost / total_batch
    print("Epoch:", f"{epoch + 1:04d}", "Avg. cost =", f"{avg_cost:.3f}")

is_correct = tf.equal(tf.argmax(model, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(is_correct, tf.float32))
print(
    "Accuracy:",
    sess.run(accuracy, feed_dict={X: mnist.test.images, Y: mnist.test.labels, keep_prob: 1}),
)

# The fraction of units that two dropouts of one tensor drop together: about 0.2 * 0.2 when
# their masks are independent draws, 0.2 when they are one mask.
hidden = tf.placeholder(tf.float32, [200, 256])
twice = [tf.nn.dropout(hidden, keep_prob), tf.nn.dropout(hidden, keep_prob)]
mask_a, mask_b = sess.run(twice, feed_dict={hidden: np.ones((200, 256)), keep_prob: 0.8})
dropped_together = float(np.mean((mask_a == 0) & (mask_b == 0)))
print("dropped together", dropped_together)
