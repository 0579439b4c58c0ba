# Modeled on hunkim/DeepLearningZeroToAll/lab-04-2-multi_variable_matmul_linear_regression.py (linear regression with matmul); written for symgrad's tests, not copied.
# Data: scikit-learn's diabetes features (min-max scaled) predict the progression / 100.
from tf1_data import diabetes_csv

import symgrad as tf

tf.set_random_seed(777)

table = diabetes_csv()
features, target = table[:, :-1], table[:, -1:]

inputs = tf.placeholder(tf.float32, shape=[None, 10])
truth = tf.placeholder(tf.float32, shape=[None, 1])
weights = tf.Variable(tf.random_normal([10, 1]), name="weight")
bias = tf.Variable(tf.random_normal([1]), name="bias")

prediction = tf.matmul(inputs, weights) + bias
cost = tf.reduce_mean(tf.square(prediction - truth))
train = tf.train.GradientDescentOptimizer(learning_rate=0.1).minimize(cost)

sess = tf.Session()
sess.run(tf.global_variables_initializer())
for step in range(1001):
    cost_val, _ = sess.run([cost, train], feed_dict={inputs: features, truth: target})
    if step % 200 == 0:
        print(step, "cost:", cost_val)
