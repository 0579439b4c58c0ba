# Modeled on hunkim/DeepLearningZeroToAll/lab-13-1-mnist_using_scope.py (layers written in variable_scope with get_variable); written for symgrad's tests, not copied.
# Adds what scoped code is for: the same network is built twice, the second time with reuse=True.
# Data: tf1_data's digits at 28x28 stand in for MNIST.
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(777)
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)


def network(inputs, reuse=False):
    with tf.variable_scope("layer1", reuse=reuse):
        w = tf.get_variable(
            "W", shape=[784, 128], initializer=tf.contrib.layers.xavier_initializer()
        )
        b = tf.get_variable("b", shape=[128], initializer=tf.zeros_initializer())
        hidden = tf.nn.relu(tf.matmul(inputs, w) + b)
    with tf.variable_scope("layer2", reuse=reuse):
        w = tf.get_variable(
            "W", shape=[128, 10], initializer=tf.contrib.layers.xavier_initializer()
        )
        b = tf.get_variable("b", shape=[10], initializer=tf.zeros_initializer())
        return tf.matmul(hidden, w) + b


X = tf.placeholder(tf.float32, [None, 784])
Y = tf.placeholder(tf.float32, [None, 10])
X_eval = tf.placeholder(tf.float32, [None, 784])

train_logits = network(X)
eval_logits = network(X_eval, reuse=True)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=train_logits, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=0.001).minimize(cost)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(eval_logits, 1), tf.argmax(Y, 1)), tf.float32))

n_vars = len(tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES))
print("trainable variables:", n_vars)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    total_batch = mnist.train.num_examples // 100
    for epoch in range(4):
        avg_cost = 0.0
        for _ in range(total_batch):
            xs, ys = mnist.train.next_batch(100)
            c, _ = sess.run([cost, optimizer], feed_dict={X: xs, Y: ys})
            avg_cost += c / total_batch
        print("Epoch:", epoch + 1, "cost =", avg_cost)
    print(
        "Accuracy:", sess.run(accuracy, feed_dict={X_eval: mnist.test.images, Y: mnist.test.labels})
    )
