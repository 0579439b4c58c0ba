# Modeled on hunkim/DeepLearningZeroToAll/lab-05-2-logistic_regression_diabetes.py (logistic regression, cast accuracy); written for symgrad's tests, not copied.
# Data: scikit-learn's breast-cancer data (8 scaled features, 0/1 label) replaces the CSV.
from tf1_data import breast_cancer_csv

import symgrad as tf

tf.set_random_seed(777)

rows = breast_cancer_csv()
x_rows, y_rows = rows[:, :-1], rows[:, -1:]

X = tf.placeholder(tf.float32, shape=[None, 8])
Y = tf.placeholder(tf.float32, shape=[None, 1])
W = tf.Variable(tf.random_normal([8, 1]), name="weight")
b = tf.Variable(tf.random_normal([1]), name="bias")

probability = tf.sigmoid(tf.matmul(X, W) + b)
cost = -tf.reduce_mean(Y * tf.log(probability) + (1 - Y) * tf.log(1 - probability))
step_op = tf.train.GradientDescentOptimizer(learning_rate=0.5).minimize(cost)

decision = tf.cast(probability > 0.5, dtype=tf.float32)
accuracy = tf.reduce_mean(tf.cast(tf.equal(decision, Y), dtype=tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(2001):
        cost_val, _ = sess.run([cost, step_op], feed_dict={X: x_rows, Y: y_rows})
        if step % 500 == 0:
            print(step, cost_val)
    a = sess.run(accuracy, feed_dict={X: x_rows, Y: y_rows})
    print("Accuracy:", a)
