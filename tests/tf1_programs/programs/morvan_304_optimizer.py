# Modeled on MorvanZhou/Tensorflow-Tutorial/tutorial-contents/304_optimizer.py (the same small net trained by SGD, Momentum, RMSProp and Adam side by side); written for symgrad's tests, not copied.
import numpy as np

import symgrad as tf

tf.set_random_seed(1)
np.random.seed(1)

LR = 0.01
BATCH = 32

x = np.linspace(-1, 1, 100)[:, np.newaxis]
y = np.power(x, 2) + np.random.normal(0, 0.1, size=x.shape)


class Net:
    def __init__(self, opt, **kwargs):
        self.x = tf.placeholder(tf.float32, [None, 1])
        self.y = tf.placeholder(tf.float32, [None, 1])
        hidden = tf.layers.dense(self.x, 20, tf.nn.relu)
        out = tf.layers.dense(hidden, 1)
        self.loss = tf.losses.mean_squared_error(self.y, out)
        self.train = opt(LR, **kwargs).minimize(self.loss)


nets = [
    Net(tf.train.GradientDescentOptimizer),
    Net(tf.train.MomentumOptimizer, momentum=0.9),
    Net(tf.train.RMSPropOptimizer),
    Net(tf.train.AdamOptimizer),
]

sess = tf.Session()
sess.run(tf.global_variables_initializer())

losses_his = [[], [], [], []]
for _step in range(300):
    pick = np.random.randint(0, x.shape[0], BATCH)
    bx, by = x[pick], y[pick]
    for net, history in zip(nets, losses_his, strict=False):
        _, batch_loss = sess.run([net.train, net.loss], {net.x: bx, net.y: by})
        history.append(batch_loss)
print([float(np.mean(h[-50:])) for h in losses_his])
