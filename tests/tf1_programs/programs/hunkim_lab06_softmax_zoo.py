# Modeled on hunkim/DeepLearningZeroToAll/lab-06-2-softmax_zoo_classifier.py (softmax with one_hot labels and argmax); written for symgrad's tests, not copied.
# Data: 16 features and a class 0..6 from scikit-learn's digits (tf1_data.zoo_like_csv) replace the zoo CSV.
from tf1_data import zoo_like_csv

import symgrad as tf

tf.set_random_seed(777)

table = zoo_like_csv()
features, classes = table[:, :-1], table[:, -1:].astype("int32")
n_classes = 7

X = tf.placeholder(tf.float32, [None, 16])
Y = tf.placeholder(tf.int32, [None, 1])
Y_onehot = tf.reshape(tf.one_hot(Y, n_classes), [-1, n_classes])

W = tf.Variable(tf.random_normal([16, n_classes]), name="weight")
b = tf.Variable(tf.random_normal([n_classes]), name="bias")
logits = tf.matmul(X, W) + b
hypothesis = tf.nn.softmax(logits)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=Y_onehot))
optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.5).minimize(cost)

predicted = tf.argmax(hypothesis, 1)
hits = tf.equal(predicted, tf.argmax(Y_onehot, 1))
accuracy = tf.reduce_mean(tf.cast(hits, tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1001):
        _, cost_val, acc_val = sess.run(
            [optimizer, cost, accuracy], feed_dict={X: features, Y: classes}
        )
        if step % 250 == 0:
            print(f"step {step:4} loss {cost_val:.3f} acc {acc_val:.2%}")
