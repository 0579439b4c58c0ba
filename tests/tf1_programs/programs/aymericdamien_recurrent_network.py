# Modeled on aymericdamien/TensorFlow-Examples/examples/3_NeuralNetworks/recurrent_network.py (each image row a time step of a BasicLSTMCell unrolled by contrib.rnn.static_rnn, the last output through a random_normal linear layer); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST; 32 hidden units and Adam at 0.01 for 300 steps instead of 128 units and 10,000 steps of gradient descent at 0.001.
from tf1_data import input_data

import symgrad as tf
from symgrad.contrib import rnn

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)

learning_rate = 0.01
training_steps = 300
batch_size = 128
display_step = 100

num_input = 28  # one image row per time step
timesteps = 28
num_hidden = 32
num_classes = 10

X = tf.placeholder("float", [None, timesteps, num_input])
Y = tf.placeholder("float", [None, num_classes])

weights = {"out": tf.Variable(tf.random_normal([num_hidden, num_classes]))}
biases = {"out": tf.Variable(tf.random_normal([num_classes]))}


def recurrent(x, weights, biases):
    rows = tf.unstack(x, timesteps, 1)  # a list of [batch, num_input] tensors
    cell = rnn.BasicLSTMCell(num_hidden, forget_bias=1.0)
    outputs, _ = rnn.static_rnn(cell, rows, dtype=tf.float32)
    return tf.matmul(outputs[-1], weights["out"]) + biases["out"]


logits = recurrent(X, weights, biases)
prediction = tf.nn.softmax(logits, name="prediction")
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
train_op = tf.train.AdamOptimizer(learning_rate=learning_rate).minimize(loss_op)

correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, training_steps + 1):
        batch_x, batch_y = mnist.train.next_batch(batch_size)
        batch_x = batch_x.reshape((batch_size, timesteps, num_input))
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y})
        if step % display_step == 0 or step == 1:
            loss, acc = sess.run([loss_op, accuracy], feed_dict={X: batch_x, Y: batch_y})
            print(f"Step {step}, Minibatch Loss= {loss:.4f}, Training Accuracy= {acc:.3f}")
    final_loss = loss
    test_data = mnist.test.images.reshape((-1, timesteps, num_input))
    print("Testing Accuracy:", sess.run(accuracy, feed_dict={X: test_data, Y: mnist.test.labels}))
