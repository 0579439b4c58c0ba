# Modeled on tensorflow/models/samples/core/get_started/custom_estimator.py (iris: two dense layers of 10 units, tf.losses.sparse_softmax_cross_entropy, tf.metrics.accuracy, Adagrad; a Session loop in place of the Estimator); written for symgrad's tests, not copied.
# Data: scikit-learn's iris (the tutorial downloads the same 150 flowers as CSV files), split 120/30.
import numpy as np
from tf1_data import iris_csv

import symgrad as tf

tf.set_random_seed(1)

rows = iris_csv()
order = np.random.permutation(len(rows))
train_rows, test_rows = rows[order[:120]], rows[order[120:]]

features = tf.placeholder(tf.float32, [None, 4], name="features")
labels = tf.placeholder(tf.int32, name="labels")  # no shape, as input pipelines hand them over

net = features
for units in [10, 10]:
    net = tf.layers.dense(net, units=units, activation=tf.nn.relu)
logits = tf.layers.dense(net, 3, activation=None)
predicted_classes = tf.argmax(logits, 1)

loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
accuracy, accuracy_update = tf.metrics.accuracy(
    labels=labels, predictions=predicted_classes, name="acc_op"
)
train_op = tf.train.AdagradOptimizer(learning_rate=0.1).minimize(
    loss, global_step=tf.train.get_or_create_global_step()
)


def evaluate(sess, table, batch_size=10):
    """The streaming accuracy over ``table`` in batches, from freshly reset counters."""
    sess.run(tf.local_variables_initializer())
    for start in range(0, len(table), batch_size):
        batch = table[start : start + batch_size]
        sess.run(accuracy_update, {features: batch[:, :4], labels: batch[:, 4].astype(np.int32)})
    return sess.run(accuracy)


with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1000):
        batch = train_rows[np.random.choice(len(train_rows), 32)]
        _, loss_value = sess.run(
            [train_op, loss], {features: batch[:, :4], labels: batch[:, 4].astype(np.int32)}
        )
        if step % 250 == 0:
            print(
                f"step {step:4} loss {loss_value:.3f} train accuracy {evaluate(sess, train_rows):.3f}"
            )
    final_loss = sess.run(
        loss, {features: train_rows[:, :4], labels: train_rows[:, 4].astype(np.int32)}
    )
    test_accuracy = evaluate(sess, test_rows)
    print(f"Test set accuracy: {test_accuracy:.3f}")
