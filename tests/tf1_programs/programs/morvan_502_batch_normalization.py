# Modeled on MorvanZhou/Tensorflow-Tutorial/tutorial-contents/502_batch_normalization.py (a deep tanh net with and without layers.batch_normalization, UPDATE_OPS run through control_dependencies); written for symgrad's tests, not copied.
# Smaller: 3 hidden layers, 160 steps.
import numpy as np

import symgrad as tf

tf.set_random_seed(1)
np.random.seed(1)

N_SAMPLES = 500
BATCH_SIZE = 64
LR = 0.03
N_HIDDEN = 3
ACTIVATION = tf.nn.tanh

x = np.linspace(-7, 10, N_SAMPLES)[:, np.newaxis]
np.random.shuffle(x)
y = np.square(x) - 5 + np.random.normal(0, 2, x.shape)
test_x = np.linspace(-7, 10, 100)[:, np.newaxis]
test_y = np.square(test_x) - 5 + np.random.normal(0, 2, test_x.shape)

tf_x = tf.placeholder(tf.float32, [None, 1])
tf_y = tf.placeholder(tf.float32, [None, 1])
tf_is_train = tf.placeholder(tf.bool, [])


class Net:
    def __init__(self, batch_norm):
        self.is_bn = batch_norm
        self.w_init = tf.random_normal_initializer(0.0, 0.1)
        self.pre_activation = [tf_x]
        if self.is_bn:
            self.layer_input = [tf.layers.batch_normalization(tf_x, training=tf_is_train)]
        else:
            self.layer_input = [tf_x]
        for _ in range(N_HIDDEN):
            self.layer_input.append(self.add_layer(self.layer_input[-1], 10, ACTIVATION))
        self.out = tf.layers.dense(self.layer_input[-1], 1, kernel_initializer=self.w_init)
        self.loss = tf.losses.mean_squared_error(tf_y, self.out)
        # The moving mean and variance of each batch-norm layer are updated by these ops.
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            self.train = tf.train.AdamOptimizer(LR).minimize(self.loss)

    def add_layer(self, inputs, size, activation):
        z = tf.layers.dense(inputs, size, kernel_initializer=self.w_init)
        self.pre_activation.append(z)
        if self.is_bn:
            z = tf.layers.batch_normalization(z, momentum=0.4, training=tf_is_train)
        return activation(z)


nets = [Net(batch_norm=False), Net(batch_norm=True)]
sess = tf.Session()
sess.run(tf.global_variables_initializer())

losses = [[], []]
steps_per_epoch = N_SAMPLES // BATCH_SIZE
for step in range(160):
    b = step % steps_per_epoch
    bx, by = x[b * BATCH_SIZE : (b + 1) * BATCH_SIZE], y[b * BATCH_SIZE : (b + 1) * BATCH_SIZE]
    sess.run([net.train for net in nets], {tf_x: bx, tf_y: by, tf_is_train: True})
    if step % 40 == 39:
        values = sess.run(
            [net.loss for net in nets], {tf_x: test_x, tf_y: test_y, tf_is_train: False}
        )
        for history, value in zip(losses, values, strict=False):
            history.append(value)
        print("step", step + 1, "test losses", values)
