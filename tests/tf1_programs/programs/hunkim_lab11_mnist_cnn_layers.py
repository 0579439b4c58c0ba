# Modeled on hunkim/DeepLearningZeroToAll/lab-11-4-mnist_cnn_layers.py (a CNN of tf.layers: conv2d, max_pooling2d, dropout(training=...), dense); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 14x14 (every second pixel); smaller filters and dense layer.
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(777)
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)


def small(images):
    return images.reshape(-1, 28, 28)[:, ::2, ::2].reshape(-1, 196)


# A scalar flag with a declared shape: symgrad loses the rank of tf.where (which
# layers.dropout uses) when the flag's placeholder has no shape at all.
training = tf.placeholder(tf.bool, shape=[])
X = tf.placeholder(tf.float32, [None, 196])
Y = tf.placeholder(tf.float32, [None, 10])
image = tf.reshape(X, [-1, 14, 14, 1])

conv1 = tf.layers.conv2d(
    inputs=image, filters=8, kernel_size=[3, 3], padding="SAME", activation=tf.nn.relu
)
pool1 = tf.layers.max_pooling2d(inputs=conv1, pool_size=[2, 2], padding="SAME", strides=2)
drop1 = tf.layers.dropout(inputs=pool1, rate=0.3, training=training)

conv2 = tf.layers.conv2d(
    inputs=drop1, filters=16, kernel_size=[3, 3], padding="SAME", activation=tf.nn.relu
)
pool2 = tf.layers.max_pooling2d(inputs=conv2, pool_size=[2, 2], padding="SAME", strides=2)
drop2 = tf.layers.dropout(inputs=pool2, rate=0.3, training=training)

flat = tf.reshape(drop2, [-1, 4 * 4 * 16])
dense = tf.layers.dense(inputs=flat, units=64, activation=tf.nn.relu)
drop3 = tf.layers.dropout(inputs=dense, rate=0.5, training=training)
logits = tf.layers.dense(inputs=drop3, units=10)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=0.005).minimize(cost)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(Y, 1)), tf.float32))

sess = tf.Session()
sess.run(tf.global_variables_initializer())
total_batch = mnist.train.num_examples // 100
for epoch in range(5):
    avg_cost = 0.0
    for _ in range(total_batch):
        xs, ys = mnist.train.next_batch(100)
        c, _ = sess.run([cost, optimizer], feed_dict={X: small(xs), Y: ys, training: True})
        avg_cost += c / total_batch
    print("Epoch:", epoch + 1, "cost =", avg_cost)

feed = {X: small(mnist.test.images), Y: mnist.test.labels, training: False}
print("Accuracy:", sess.run(accuracy, feed_dict=feed))
