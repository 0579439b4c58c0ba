# Seed program 2: the same model with hand-written assign updates.
# The tutorial's code exactly, with only the import line changed.
import numpy as np

import symgrad as tf

# 构造数据集
x_pure = np.random.randint(-10, 100, 32)
x_train = x_pure + np.random.randn(32) / 32
y_train = 3 * x_pure + 2 + np.random.randn(32) / 32

x_input = tf.placeholder(tf.float32, name="x_input")
y_input = tf.placeholder(tf.float32, name="y_input")
w = tf.Variable(2.0, name="weight")
b = tf.Variable(1.0, name="biases")
y = tf.add(tf.multiply(x_input, w), b)

loss_op = tf.reduce_sum(tf.pow(y_input - y, 2)) / (2 * 32)
# train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss_op)

# 自定义权重更新
grad_w, grad_b = tf.gradients(loss_op, [w, b])
new_w = w.assign(w - 0.01 * grad_w)
new_b = b.assign(b - 0.01 * grad_b)

init = tf.global_variables_initializer()
sess = tf.Session()
sess.run(init)

for i in range(20):
    _, gradients, loss = sess.run(
        [new_w, new_b, loss_op], feed_dict={x_input: x_train[i], y_input: y_train[i]}
    )
    print(f"epoch: {i} \t loss: {loss} \t gradients: {gradients}")
sess.close()
