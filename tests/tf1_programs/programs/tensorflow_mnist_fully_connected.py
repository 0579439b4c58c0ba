# Modeled on tensorflow/tensorflow/tensorflow/examples/tutorials/mnist/mnist.py (hidden layers under name scopes with truncated_normal weights, a global_step counted by minimize); written for symgrad's tests, not copied.
# Adds the training-loop idioms of TF1's larger tutorials: an exponential_decay learning rate driven by
# global_step, gradients clipped by clip_by_global_norm, applied by Adagrad.
# Data: tf1_data's digits at 28x28 stand in for MNIST.
import math

from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(777)
mnist = input_data.read_data_sets("MNIST_data/", one_hot=False)

IMAGE_PIXELS = 784
HIDDEN1, HIDDEN2 = 64, 32
BATCH = 100


def inference(images):
    with tf.name_scope("hidden1"):
        w = tf.Variable(
            tf.truncated_normal(
                [IMAGE_PIXELS, HIDDEN1], stddev=1.0 / math.sqrt(float(IMAGE_PIXELS))
            ),
            name="weights",
        )
        b = tf.Variable(tf.zeros([HIDDEN1]), name="biases")
        h1 = tf.nn.relu(tf.matmul(images, w) + b)
    with tf.name_scope("hidden2"):
        w = tf.Variable(
            tf.truncated_normal([HIDDEN1, HIDDEN2], stddev=1.0 / math.sqrt(float(HIDDEN1))),
            name="weights",
        )
        b = tf.Variable(tf.zeros([HIDDEN2]), name="biases")
        h2 = tf.nn.relu(tf.matmul(h1, w) + b)
    with tf.name_scope("softmax_linear"):
        w = tf.Variable(
            tf.truncated_normal([HIDDEN2, 10], stddev=1.0 / math.sqrt(float(HIDDEN2))),
            name="weights",
        )
        b = tf.Variable(tf.zeros([10]), name="biases")
        return tf.matmul(h2, w) + b


images = tf.placeholder(tf.float32, shape=[None, IMAGE_PIXELS])
labels = tf.placeholder(tf.int64, shape=[None])
logits = inference(images)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))

global_step = tf.Variable(0, name="global_step", trainable=False)
learning_rate = tf.train.exponential_decay(
    0.05, global_step, decay_steps=15, decay_rate=0.9, staircase=True
)
optimizer = tf.train.AdagradOptimizer(learning_rate)
grads, variables = zip(*optimizer.compute_gradients(loss), strict=False)
clipped, global_norm = tf.clip_by_global_norm(grads, 5.0)
train_op = optimizer.apply_gradients(zip(clipped, variables, strict=False), global_step=global_step)

correct = tf.nn.in_top_k(logits, labels, 1)
eval_correct = tf.reduce_sum(tf.cast(correct, tf.int32))

sess = tf.Session()
sess.run(tf.global_variables_initializer())
for step in range(150):
    xs, ys = mnist.train.next_batch(BATCH)
    _, loss_value = sess.run([train_op, loss], feed_dict={images: xs, labels: ys})
    if step % 50 == 0:
        print(f"Step {step}: loss = {loss_value:.2f}")
final_loss = float(loss_value)
true_count = sess.run(
    eval_correct, feed_dict={images: mnist.test.images, labels: mnist.test.labels}
)
print("Accuracy: %0.04f" % (true_count / mnist.test.num_examples))
print("global step:", sess.run(global_step), "learning rate:", sess.run(learning_rate))
