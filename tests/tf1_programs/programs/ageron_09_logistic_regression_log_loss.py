# Modeled on ageron/handson-ml/09_up_and_running_with_tensorflow.ipynb, exercise 12 (logistic regression on the moons data with mini-batch gradient descent and tf.losses.log_loss, judged by precision and recall); written for symgrad's tests, not copied.
# Data: tf1_data.make_moons replaces scikit-learn's; precision and recall are counted with NumPy instead of sklearn.metrics; reset_graph() is written out without its np.random.seed(42), which the runner sets per seed.
import numpy as np
from tf1_data import make_moons

import symgrad as tf

m = 1000
X_moons, y_moons = make_moons(m, noise=0.1, random_state=42)
X_moons_with_bias = np.c_[np.ones((m, 1)), X_moons]
y_moons_column_vector = y_moons.reshape(-1, 1)

test_ratio = 0.2
test_size = int(m * test_ratio)
X_train = X_moons_with_bias[:-test_size]
X_test = X_moons_with_bias[-test_size:]
y_train = y_moons_column_vector[:-test_size]
y_test = y_moons_column_vector[-test_size:]


def random_batch(X_train, y_train, batch_size):
    rnd_indices = np.random.randint(0, len(X_train), batch_size)
    return X_train[rnd_indices], y_train[rnd_indices]


tf.reset_default_graph()
tf.set_random_seed(42)

n_inputs = 2
X = tf.placeholder(tf.float32, shape=(None, n_inputs + 1), name="X")
y = tf.placeholder(tf.float32, shape=(None, 1), name="y")
theta = tf.Variable(tf.random_uniform([n_inputs + 1, 1], -1.0, 1.0, seed=42), name="theta")
logits = tf.matmul(X, theta, name="logits")
y_proba = tf.sigmoid(logits)
loss = tf.losses.log_loss(y, y_proba)  # epsilon = 1e-7 by default

learning_rate = 0.01
optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate)
training_op = optimizer.minimize(loss)

init = tf.global_variables_initializer()

n_epochs = 1000
batch_size = 50
n_batches = int(np.ceil(m / batch_size))

with tf.Session() as sess:
    sess.run(init)
    for epoch in range(n_epochs):
        for _batch_index in range(n_batches):
            X_batch, y_batch = random_batch(X_train, y_train, batch_size)
            sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
        loss_val = loss.eval({X: X_test, y: y_test})
        if epoch % 100 == 0:
            print("Epoch:", epoch, "\tLoss:", loss_val)
    y_proba_val = y_proba.eval(feed_dict={X: X_test, y: y_test})

y_pred = y_proba_val >= 0.5
true_positives = np.sum(y_pred & (y_test == 1))
precision = true_positives / np.sum(y_pred)
recall = true_positives / np.sum(y_test == 1)
print("Precision:", precision, "Recall:", recall)
