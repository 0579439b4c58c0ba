# Modeled on aymericdamien/TensorFlow-Examples/examples/3_NeuralNetworks/multilayer_perceptron.py (two linear hidden layers from dicts of random_normal weights, Adam); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; 64-unit layers, a few epochs.
from tf1_data import input_data

import symgrad as tf

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)

n_hidden = 64
X = tf.placeholder("float", [None, 784])
Y = tf.placeholder("float", [None, 10])

weights = {
    "h1": tf.Variable(tf.random_normal([784, n_hidden])),
    "h2": tf.Variable(tf.random_normal([n_hidden, n_hidden])),
    "out": tf.Variable(tf.random_normal([n_hidden, 10])),
}
biases = {
    "b1": tf.Variable(tf.random_normal([n_hidden])),
    "b2": tf.Variable(tf.random_normal([n_hidden])),
    "out": tf.Variable(tf.random_normal([10])),
}


def perceptron(inputs):
    first = tf.add(tf.matmul(inputs, weights["h1"]), biases["b1"])
    second = tf.add(tf.matmul(first, weights["h2"]), biases["b2"])
    return tf.matmul(second, weights["out"]) + biases["out"]


logits = perceptron(X)
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss_op)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    total_batch = mnist.train.num_examples // 100
    for epoch in range(8):
        avg_cost = 0.0
        for _ in range(total_batch):
            xs, ys = mnist.train.next_batch(100)
            _, c = sess.run([train_op, loss_op], feed_dict={X: xs, Y: ys})
            avg_cost += c / total_batch
        print("Epoch:", epoch + 1, f"cost={avg_cost:.9f}")
    pred = tf.nn.softmax(logits)
    correct_prediction = tf.equal(tf.argmax(pred, 1), tf.argmax(Y, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
    print("Accuracy:", accuracy.eval({X: mnist.test.images, Y: mnist.test.labels}))
