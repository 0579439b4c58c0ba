# Modeled on golbin/TensorFlow-Tutorials/04 - Neural Network Basic/02 - Deep NN.py (a two-layer classifier of a tiny tabular data set, Adam, argmax accuracy); written for symgrad's tests, not copied.
# Data: scikit-learn's iris (standardized measurements, three species) replaces the fur-and-wings table.
import numpy as np
from tf1_data import iris_csv

import symgrad as tf

table = iris_csv()
x_data = (table[:, :4] - table[:, :4].mean(axis=0)) / table[:, :4].std(axis=0)
y_data = np.eye(3, dtype=np.float32)[table[:, 4].astype(int)]

X = tf.placeholder(tf.float32, [None, 4])
Y = tf.placeholder(tf.float32, [None, 3])

W1 = tf.Variable(tf.random_uniform([4, 10], -1.0, 1.0))
b1 = tf.Variable(tf.zeros([10]))
L1 = tf.nn.relu(tf.add(tf.matmul(X, W1), b1))
W2 = tf.Variable(tf.random_uniform([10, 3], -1.0, 1.0))
b2 = tf.Variable(tf.zeros([3]))
model = tf.add(tf.matmul(L1, W2), b2)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=Y, logits=model))
train_op = tf.train.AdamOptimizer(learning_rate=0.01).minimize(cost)

sess = tf.Session()
sess.run(tf.global_variables_initializer())
for step in range(300):
    sess.run(train_op, feed_dict={X: x_data, Y: y_data})
    if (step + 1) % 100 == 0:
        print(step + 1, sess.run(cost, feed_dict={X: x_data, Y: y_data}))

prediction = tf.argmax(model, 1)
target = tf.argmax(Y, 1)
is_correct = tf.equal(prediction, target)
accuracy = tf.reduce_mean(tf.cast(is_correct, tf.float32))
final_cost = float(sess.run(cost, feed_dict={X: x_data, Y: y_data}))
print(f"Accuracy: {sess.run(accuracy * 100, feed_dict={X: x_data, Y: y_data}):.2f}")
