# Modeled on tensorflow/tensorflow/examples/how_tos/reading_data/fully_connected_preloaded.py (TF1 data preloaded as constants, tf.train.slice_input_producer with num_epochs, start_queue_runners and a Coordinator loop until OutOfRangeError; batched with tf.train.shuffle_batch as the TF1 "Reading data" guide describes); written for symgrad's tests, not copied.
# Data: generated here with NumPy (three Gaussian clusters in 10 dimensions) instead of MNIST.
import numpy as np

import symgrad as tf

NUM_EPOCHS = 8
BATCH_SIZE = 50
HIDDEN_UNITS = 32
LEARNING_RATE = 0.1

data_rng = np.random.RandomState(2024)
centers = data_rng.normal(0.0, 1.0, size=(3, 10))
all_labels = data_rng.randint(0, 3, size=1200).astype(np.int32)
all_points = (centers[all_labels] + data_rng.normal(size=(1200, 10))).astype(np.float32)
train_points, test_points = all_points[:1000], all_points[1000:]
train_labels, test_labels = all_labels[:1000], all_labels[1000:]

tf.set_random_seed(42)

# The input pipeline: one example per dequeue, shuffled into batches by a queue.
input_points = tf.constant(train_points)
input_labels = tf.constant(train_labels)
point, label = tf.train.slice_input_producer(
    [input_points, input_labels], num_epochs=NUM_EPOCHS, seed=1
)
points, labels = tf.train.shuffle_batch(
    [point, label],
    batch_size=BATCH_SIZE,
    capacity=10 * BATCH_SIZE,
    min_after_dequeue=4 * BATCH_SIZE,
    seed=2,
)

weights_1 = tf.Variable(tf.truncated_normal([10, HIDDEN_UNITS], stddev=1.0 / np.sqrt(10.0)))
biases_1 = tf.Variable(tf.zeros([HIDDEN_UNITS]))
weights_2 = tf.Variable(tf.truncated_normal([HIDDEN_UNITS, 3], stddev=1.0 / np.sqrt(HIDDEN_UNITS)))
biases_2 = tf.Variable(tf.zeros([3]))


def inference(x):
    hidden = tf.nn.relu(tf.matmul(x, weights_1) + biases_1)
    return tf.matmul(hidden, weights_2) + biases_2


logits = inference(points)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
global_step = tf.Variable(0, name="global_step", trainable=False)
train_op = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss, global_step=global_step)

test_logits = inference(tf.constant(test_points))
test_loss_op = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant(test_labels), logits=test_logits
    )
)
correct = tf.equal(tf.cast(tf.argmax(test_logits, 1), tf.int32), tf.constant(test_labels))
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

sess = tf.Session()
sess.run(tf.group(tf.global_variables_initializer(), tf.local_variables_initializer()))
coord = tf.train.Coordinator()
threads = tf.train.start_queue_runners(sess=sess, coord=coord)

step = 0
try:
    while not coord.should_stop():
        _, loss_value = sess.run([train_op, loss])
        step += 1
        if step % 40 == 0:
            print(f"Step {step}: loss = {loss_value:.4f}")
except tf.errors.OutOfRangeError:
    print(f"Done training for {NUM_EPOCHS} epochs, {step} steps.")
finally:
    coord.request_stop()
coord.join(threads)

steps_taken = sess.run(global_step)
test_loss, test_accuracy = sess.run([test_loss_op, accuracy])
print(f"Test loss: {test_loss:.4f}")
print(f"Test accuracy: {test_accuracy:.4f}")
sess.close()
