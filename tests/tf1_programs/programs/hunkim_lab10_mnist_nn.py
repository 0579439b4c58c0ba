# Modeled on hunkim/DeepLearningZeroToAll/lab-10-2-mnist_nn.py (three-layer ReLU MLP, random_normal weights, argmax accuracy); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; two epochs instead of fifteen.
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(777)
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)

rate = 0.001
n_epochs = 6
batch = 100

X = tf.placeholder(tf.float32, [None, 784])
Y = tf.placeholder(tf.float32, [None, 10])

W1 = tf.Variable(tf.random_normal([784, 256]))
b1 = tf.Variable(tf.random_normal([256]))
h1 = tf.nn.relu(tf.matmul(X, W1) + b1)
W2 = tf.Variable(tf.random_normal([256, 256]))
b2 = tf.Variable(tf.random_normal([256]))
h2 = tf.nn.relu(tf.matmul(h1, W2) + b2)
W3 = tf.Variable(tf.random_normal([256, 10]))
b3 = tf.Variable(tf.random_normal([10]))
logits = tf.matmul(h2, W3) + b3

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=rate).minimize(cost)

sess = tf.Session()
sess.run(tf.global_variables_initializer())
steps = mnist.train.num_examples // batch
for epoch in range(n_epochs):
    avg_cost = 0.0
    for _ in range(steps):
        xs, ys = mnist.train.next_batch(batch)
        c, _ = sess.run([cost, optimizer], feed_dict={X: xs, Y: ys})
        avg_cost += c / steps
    print("Epoch:", f"{epoch + 1:04d}", "cost =", f"{avg_cost:.9f}")

right = tf.equal(tf.argmax(logits, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(right, tf.float32))
print("Accuracy:", sess.run(accuracy, feed_dict={X: mnist.test.images, Y: mnist.test.labels}))
