# Modeled on ageron/handson-ml/10_introduction_to_artificial_neural_networks.ipynb, the exercise's deep MNIST network (tf.layers.dense, labels declared shape=(None), in_top_k, summaries to a FileWriter, a Saver checkpoint every 5 epochs with the epoch number in a file, resuming from it after an interruption, early stopping, the best model restored for the test); written for symgrad's tests, not copied.
# Data: tf1_data's digits at 28x28 stand in for MNIST (the last 200 training images for validation); files go to a temporary folder; at most 40 epochs, patience 10; training is interrupted once after epoch 7 and started again, as the tutorial's resume path expects.
import os
import tempfile

import numpy as np
from tf1_data import input_data

import symgrad as tf

tf.set_random_seed(42)
mnist = input_data.read_data_sets("MNIST_data/")
X_train, y_train = mnist.train.images[:-200], mnist.train.labels[:-200].astype(np.int32)
X_valid, y_valid = mnist.train.images[-200:], mnist.train.labels[-200:].astype(np.int32)
X_test, y_test = mnist.test.images, mnist.test.labels.astype(np.int32)

n_inputs = 28 * 28
n_hidden1 = 300
n_hidden2 = 100
n_outputs = 10

X = tf.placeholder(tf.float32, shape=(None, n_inputs), name="X")
y = tf.placeholder(tf.int32, shape=(None), name="y")

with tf.name_scope("dnn"):
    hidden1 = tf.layers.dense(X, n_hidden1, name="hidden1", activation=tf.nn.relu)
    hidden2 = tf.layers.dense(hidden1, n_hidden2, name="hidden2", activation=tf.nn.relu)
    logits = tf.layers.dense(hidden2, n_outputs, name="outputs")

with tf.name_scope("loss"):
    xentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(xentropy, name="loss")
    loss_summary = tf.summary.scalar("log_loss", loss)

learning_rate = 0.01
with tf.name_scope("train"):
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    training_op = optimizer.minimize(loss)

with tf.name_scope("eval"):
    correct = tf.nn.in_top_k(logits, y, 1)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    accuracy_summary = tf.summary.scalar("accuracy", accuracy)

init = tf.global_variables_initializer()
saver = tf.train.Saver()

workdir = tempfile.mkdtemp(prefix="mnist_dnn-")
file_writer = tf.summary.FileWriter(os.path.join(workdir, "logs"), tf.get_default_graph())


def shuffled_batches(X, y, batch_size):
    order = np.random.permutation(len(X))
    for rows in np.array_split(order, len(X) // batch_size):
        yield X[rows], y[rows]


n_epochs = 40
batch_size = 50
checkpoint_path = os.path.join(workdir, "my_deep_mnist_model.ckpt")
checkpoint_epoch_path = checkpoint_path + ".epoch"
final_model_path = os.path.join(workdir, "my_deep_mnist_model")
best_loss = np.inf
epochs_without_progress = 0
max_epochs_without_progress = 10
resumed_at = None


def train(interrupt_after=None):
    global best_loss, epochs_without_progress, resumed_at
    with tf.Session() as sess:
        if os.path.isfile(checkpoint_epoch_path):
            with open(checkpoint_epoch_path, "rb") as f:
                start_epoch = int(f.read())
            print("Training was interrupted. Continuing at epoch", start_epoch)
            saver.restore(sess, checkpoint_path)
            resumed_at = start_epoch
        else:
            start_epoch = 0
            sess.run(init)
        for epoch in range(start_epoch, n_epochs):
            for X_batch, y_batch in shuffled_batches(X_train, y_train, batch_size):
                sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
            accuracy_val, loss_val, accuracy_summary_str, loss_summary_str = sess.run(
                [accuracy, loss, accuracy_summary, loss_summary], feed_dict={X: X_valid, y: y_valid}
            )
            file_writer.add_summary(accuracy_summary_str, epoch)
            file_writer.add_summary(loss_summary_str, epoch)
            if epoch % 5 == 0:
                print(
                    "Epoch:",
                    epoch,
                    f"\tValidation accuracy: {accuracy_val * 100:.3f}%",
                    f"\tLoss: {loss_val:.5f}",
                )
                saver.save(sess, checkpoint_path)
                with open(checkpoint_epoch_path, "wb") as f:
                    f.write(b"%d" % (epoch + 1))
                if loss_val < best_loss:
                    saver.save(sess, final_model_path)
                    best_loss = loss_val
                else:
                    epochs_without_progress += 5
                    if epochs_without_progress > max_epochs_without_progress:
                        print("Early stopping")
                        break
            if epoch == interrupt_after:
                return


train(interrupt_after=7)
train()
os.remove(checkpoint_epoch_path)
file_writer.close()

with tf.Session() as sess:
    saver.restore(sess, final_model_path)
    accuracy_val = accuracy.eval(feed_dict={X: X_test, y: y_test})
    test_loss = loss.eval(feed_dict={X: X_test, y: y_test})
print("Test accuracy:", accuracy_val)
events = [name for name in os.listdir(os.path.join(workdir, "logs")) if "tfevents" in name]
summaries_written = len(events)
