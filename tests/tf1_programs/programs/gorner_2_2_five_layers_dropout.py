# Modeled on martin-gorner/tensorflow-mnist-tutorial/mnist_2.2_five_layers_relu_lrdecay_dropout.py (five ReLU layers with dropout at each, a learning rate placeholder fed a decayed value each step, pkeep, accuracy from argmax of the labels; here the labels placeholder has no shape and the flattened images are fed directly, as a public derivative of it does); written for symgrad's tests, not copied.
# Data: tf1_data's digits; 1,500 steps of 100 images instead of 10,000; the decay over 500 steps instead of 2,000; the visualisation left out.
import math

from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(0)
mnist = input_data.read_data_sets("data", one_hot=True)

# Images as 28x28x1 like the original; the program feeds the flattened tensor below instead.
X = tf.placeholder(tf.float32, [None, 28, 28, 1])
Y_ = tf.placeholder(tf.float32)  # no shape: one-hot rows arrive at run time
lr = tf.placeholder(tf.float32)
pkeep = tf.placeholder(tf.float32)

sizes = [784, 200, 100, 60, 30, 10]
weights, biases = [], []
for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
    weights.append(tf.Variable(tf.truncated_normal([fan_in, fan_out], stddev=0.1)))
    start = 0.0 if fan_out == 10 else 0.1  # small positive biases for the ReLUs
    biases.append(tf.Variable(tf.ones([fan_out]) * start))

XX = tf.reshape(X, [-1, 784])
hidden = XX
for W, B in zip(weights[:-1], biases[:-1], strict=True):
    hidden = tf.nn.dropout(tf.nn.relu(tf.matmul(hidden, W) + B), pkeep)
Ylogits = tf.matmul(hidden, weights[-1]) + biases[-1]
Y = tf.nn.softmax(Ylogits)

# Mean cross-entropy scaled to a batch of 100, as the tutorial prints it.
cross_entropy = (
    tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=Ylogits, labels=Y_)) * 100
)
correct_prediction = tf.equal(tf.argmax(Y, 1), tf.argmax(Y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
batch_size = tf.shape(Y_)[0]  # read from the labels, whose shape is known only when fed

train_step = tf.train.AdamOptimizer(lr).minimize(cross_entropy)

sess = tf.Session()
sess.run(tf.global_variables_initializer())

max_rate, min_rate, decay_speed = 0.003, 0.0001, 500.0
test_feed = {XX: mnist.test.images, Y_: mnist.test.labels, pkeep: 1.0}
for i in range(1501):
    batch_X, batch_Y = mnist.train.next_batch(100)
    learning_rate = min_rate + (max_rate - min_rate) * math.exp(-i / decay_speed)
    if i % 500 == 0:
        a, c, n = sess.run(
            [accuracy, cross_entropy, batch_size], {XX: batch_X, Y_: batch_Y, pkeep: 1.0}
        )
        print(f"{i}: accuracy: {a:.4f} loss: {c:.4f} batch: {n} (lr: {learning_rate:.6f})")
    sess.run(train_step, {XX: batch_X, Y_: batch_Y, pkeep: 0.75, lr: learning_rate})

test_accuracy, test_loss = sess.run([accuracy, cross_entropy], test_feed)
print(f"test accuracy: {test_accuracy:.4f} test loss: {test_loss:.4f}")
