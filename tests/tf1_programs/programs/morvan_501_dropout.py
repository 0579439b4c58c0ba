# Modeled on MorvanZhou/Tensorflow-Tutorial/tutorial-contents/501_dropout.py (an overfitting net against the same net with layers.dropout(training=...)); written for symgrad's tests, not copied.
import numpy as np

import symgrad as tf

tf.set_random_seed(1)
np.random.seed(1)

N = 20
HIDDEN = 300
LR = 0.01

x = np.linspace(-1, 1, N)[:, np.newaxis]
y = x + 0.3 * np.random.randn(N)[:, np.newaxis]
test_x = x.copy()
test_y = test_x + 0.3 * np.random.randn(N)[:, np.newaxis]

tf_x = tf.placeholder(tf.float32, [None, 1])
tf_y = tf.placeholder(tf.float32, [None, 1])
is_training = tf.placeholder(tf.bool, None)

# No regularisation: this one memorises the noise.
o1 = tf.layers.dense(tf_x, HIDDEN, tf.nn.relu)
o2 = tf.layers.dense(o1, HIDDEN, tf.nn.relu)
o_out = tf.layers.dense(o2, 1)
o_loss = tf.losses.mean_squared_error(tf_y, o_out)
o_train = tf.train.AdamOptimizer(LR).minimize(o_loss)

# Half of the hidden units dropped while training.
d1 = tf.layers.dropout(tf.layers.dense(tf_x, HIDDEN, tf.nn.relu), rate=0.5, training=is_training)
d2 = tf.layers.dropout(tf.layers.dense(d1, HIDDEN, tf.nn.relu), rate=0.5, training=is_training)
d_out = tf.layers.dense(d2, 1)
d_loss = tf.losses.mean_squared_error(tf_y, d_out)
d_train = tf.train.AdamOptimizer(LR).minimize(d_loss)

sess = tf.Session()
sess.run(tf.global_variables_initializer())
for step in range(300):
    sess.run([o_train, d_train], {tf_x: x, tf_y: y, is_training: True})
    if step % 100 == 99:
        o_loss_, d_loss_ = sess.run(
            [o_loss, d_loss], {tf_x: test_x, tf_y: test_y, is_training: False}
        )
        print("step", step + 1, "overfit test loss", o_loss_, "dropout test loss", d_loss_)
