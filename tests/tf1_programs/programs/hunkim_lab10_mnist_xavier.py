# Modeled on hunkim/DeepLearningZeroToAll/lab-10-3-mnist_nn_xavier.py (get_variable with contrib xavier_initializer); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; a few epochs.
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(777)
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)

X = tf.placeholder(tf.float32, [None, 784])
Y = tf.placeholder(tf.float32, [None, 10])


def fully_connected(name, inputs, n_in, n_out, relu=True):
    w = tf.get_variable(
        name, shape=[n_in, n_out], initializer=tf.contrib.layers.xavier_initializer()
    )
    b = tf.Variable(tf.random_normal([n_out]))
    z = tf.matmul(inputs, w) + b
    return tf.nn.relu(z) if relu else z


layer1 = fully_connected("W1", X, 784, 256)
layer2 = fully_connected("W2", layer1, 256, 256)
logits = fully_connected("W3", layer2, 256, 10, relu=False)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=0.001).minimize(cost)

sess = tf.Session()
sess.run(tf.global_variables_initializer())
per_epoch = mnist.train.num_examples // 100
for epoch in range(3):
    avg_cost = 0.0
    for _ in range(per_epoch):
        xs, ys = mnist.train.next_batch(100)
        c, _ = sess.run([cost, optimizer], feed_dict={X: xs, Y: ys})
        avg_cost += c / per_epoch
    print("Epoch:", epoch + 1, "cost =", avg_cost)

accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(Y, 1)), tf.float32))
print("Accuracy:", sess.run(accuracy, feed_dict={X: mnist.test.images, Y: mnist.test.labels}))
