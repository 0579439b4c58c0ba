# Modeled on tensorflow/docs/site/en/r1/guide/datasets.md (the TensorFlow 1.x "Importing Data" guide, reinitializable iterator section: one tf.data.Iterator.from_structure switched between a training and a validation dataset with make_initializer); written for symgrad's tests, not copied.
# Data: two noisy concentric rings generated here with NumPy (no download); a small tf.layers network trained per epoch until OutOfRangeError, validated after each epoch.
import numpy as np

import symgrad as tf


def make_rings(n):
    radius = np.where(np.arange(n) % 2 == 0, 1.0, 2.0)
    angle = np.random.uniform(0.0, 2.0 * np.pi, n)
    points = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    points += np.random.normal(0.0, 0.2, points.shape)
    labels = (np.arange(n) % 2).astype(np.int64)
    return points.astype(np.float32), labels


train_x, train_y = make_rings(2000)
valid_x, valid_y = make_rings(500)

batch_size = 50
training_epochs = 8

training_dataset = (
    tf.data.Dataset.from_tensor_slices((train_x, train_y))
    .shuffle(buffer_size=2000)
    .filter(lambda x, y: tf.reduce_all(tf.abs(x) < 3.5))  # drop the rare far outliers
    .batch(batch_size)
)
validation_dataset = tf.data.Dataset.from_tensor_slices((valid_x, valid_y)).batch(100)

iterator = tf.data.Iterator.from_structure(
    training_dataset.output_types, training_dataset.output_shapes
)
features, labels = iterator.get_next()
training_init_op = iterator.make_initializer(training_dataset)
validation_init_op = iterator.make_initializer(validation_dataset)

hidden = tf.layers.dense(features, 16, activation=tf.nn.relu)
hidden = tf.layers.dense(hidden, 16, activation=tf.nn.relu)
logits = tf.layers.dense(hidden, 2)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(training_epochs):
        sess.run(training_init_op)
        steps, train_loss = 0, 0.0
        while True:
            try:
                _, batch_loss = sess.run([train_op, loss])
            except tf.errors.OutOfRangeError:
                break
            steps += 1
            train_loss += batch_loss
        sess.run(validation_init_op)
        right, seen, valid_loss = 0.0, 0, 0.0
        while True:
            try:
                batch_right, batch_loss, batch_labels = sess.run([correct, loss, labels])
            except tf.errors.OutOfRangeError:
                break
            right += batch_right
            seen += len(batch_labels)
            valid_loss += batch_loss * len(batch_labels)
        valid_accuracy = right / seen
        valid_loss /= seen
        print(
            f"Epoch {epoch + 1}: {steps} steps, train loss {train_loss / steps:.4f}, "
            f"validation loss {valid_loss:.4f}, accuracy {valid_accuracy:.4f}"
        )
    print("Validation accuracy:", valid_accuracy)
