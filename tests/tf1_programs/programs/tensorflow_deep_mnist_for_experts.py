# Modeled on tensorflow/g3doc/tutorials/mnist/pros/index.md ("Deep MNIST for Experts", TF 0.x: InteractiveSession, conv2d/max_pool, dropout through a keep_prob placeholder, cross-entropy written as -reduce_sum(y_ * log(y_conv)), .eval/.run); written for symgrad's tests, not copied.
# Data: tf1_data's digits, every second pixel kept (14x14); 8 and 16 filters and 64 hidden units instead of 32, 64 and 1024; Adam at 1e-3 for 600 steps instead of 1e-4 for 20,000; a graph-level seed added.
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(0)
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
sess = tf.InteractiveSession()


def small(images):
    return images.reshape(-1, 28, 28)[:, ::2, ::2].reshape(-1, 196)


x = tf.placeholder("float", shape=[None, 196])
y_ = tf.placeholder("float", shape=[None, 10])


def weight_variable(shape):
    initial = tf.truncated_normal(shape, stddev=0.1)
    return tf.Variable(initial)


def bias_variable(shape):
    initial = tf.constant(0.1, shape=shape)
    return tf.Variable(initial)


def conv2d(x, W):
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


x_image = tf.reshape(x, [-1, 14, 14, 1])

W_conv1 = weight_variable([5, 5, 1, 8])
b_conv1 = bias_variable([8])
h_pool1 = max_pool_2x2(tf.nn.relu(conv2d(x_image, W_conv1) + b_conv1))

W_conv2 = weight_variable([5, 5, 8, 16])
b_conv2 = bias_variable([16])
h_pool2 = max_pool_2x2(tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2))

W_fc1 = weight_variable([4 * 4 * 16, 64])
b_fc1 = bias_variable([64])
h_pool2_flat = tf.reshape(h_pool2, [-1, 4 * 4 * 16])
h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, W_fc1) + b_fc1)

keep_prob = tf.placeholder("float")
h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)

W_fc2 = weight_variable([64, 10])
b_fc2 = bias_variable([10])
y_conv = tf.nn.softmax(tf.matmul(h_fc1_drop, W_fc2) + b_fc2)

cross_entropy = -tf.reduce_sum(y_ * tf.log(y_conv))
train_step = tf.train.AdamOptimizer(1e-3).minimize(cross_entropy)
correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
sess.run(tf.initialize_all_variables())

for i in range(600):
    batch = mnist.train.next_batch(50)
    images = small(batch[0])
    if i % 100 == 0:
        train_accuracy = accuracy.eval(feed_dict={x: images, y_: batch[1], keep_prob: 1.0})
        print(f"step {i}, training accuracy {train_accuracy:g}")
    train_step.run(feed_dict={x: images, y_: batch[1], keep_prob: 0.5})

test_feed = {x: small(mnist.test.images), y_: mnist.test.labels, keep_prob: 1.0}
test_accuracy = accuracy.eval(feed_dict=test_feed)
test_cross_entropy = cross_entropy.eval(feed_dict=test_feed) / len(mnist.test.labels)
print(f"test accuracy {test_accuracy:g}")
