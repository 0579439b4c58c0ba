# Modeled on caicloud/tensorflow-tutorial/Deep_Learning_with_TensorFlow/1.0.0/Chapter05/5. MNIST最佳实践/mnist_train.py (with its mnist_inference.py and mnist_eval.py: a 784-500-10 ReLU net whose weights get_variable creates with an l2_regularizer collected as a loss, exponential_decay of the learning rate by epoch, an ExponentialMovingAverage of the trainable variables updated with each step, the averages restored by variables_to_restore for evaluation); written for symgrad's tests, not copied.
# Data: generated 64-pixel "digits" (ten fixed prototypes with noise; no download) in a DataSet with next_batch; the regularizer losses go to tf.GraphKeys.REGULARIZATION_LOSSES and are summed by tf.losses.get_regularization_loss() instead of a collection named "losses" and add_n.
# Sizes: 64-100-10, batch 100, 600 steps and the checkpoint written to a temporary folder instead of 784-500-10 and 30,000 steps.
import os
import tempfile

import numpy as np

import symgrad as tf

INPUT_NODE = 64
OUTPUT_NODE = 10
LAYER1_NODE = 100

BATCH_SIZE = 100
LEARNING_RATE_BASE = 0.8
LEARNING_RATE_DECAY = 0.99
REGULARIZATION_RATE = 0.0001
TRAINING_STEPS = 600
MOVING_AVERAGE_DECAY = 0.99
MODEL_SAVE_PATH = tempfile.mkdtemp()
MODEL_NAME = "model.ckpt"


class DataSet:
    def __init__(self, images, labels):
        self.images, self.labels = images, labels
        self.num_examples = len(images)
        self._index = self.num_examples

    def next_batch(self, batch_size):
        if self._index + batch_size > self.num_examples:
            order = np.random.permutation(self.num_examples)
            self.images, self.labels = self.images[order], self.labels[order]
            self._index = 0
        start, self._index = self._index, self._index + batch_size
        return self.images[start : self._index], self.labels[start : self._index]


def generated_digits(n_train=3000, n_test=500, seed=3):
    """Ten prototype images in [0, 1]; each example is one, noised and clipped."""
    rng = np.random.RandomState(seed)
    prototypes = rng.rand(OUTPUT_NODE, INPUT_NODE)
    classes = rng.randint(0, OUTPUT_NODE, size=n_train + n_test)
    images = np.clip(prototypes[classes] + rng.normal(0, 0.7, (len(classes), INPUT_NODE)), 0, 1)
    labels = np.eye(OUTPUT_NODE, dtype=np.float32)[classes]
    images = images.astype(np.float32)
    return (
        DataSet(images[:n_train], labels[:n_train]),
        DataSet(images[n_train:], labels[n_train:]),
    )


train_set, test_set = generated_digits()


# mnist_inference
def get_weight_variable(shape, regularizer):
    weights = tf.get_variable(
        "weights", shape, initializer=tf.truncated_normal_initializer(stddev=0.1)
    )
    if regularizer is not None:
        tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, regularizer(weights))
    return weights


def inference(input_tensor, regularizer):
    with tf.variable_scope("layer1"):
        weights = get_weight_variable([INPUT_NODE, LAYER1_NODE], regularizer)
        biases = tf.get_variable("biases", [LAYER1_NODE], initializer=tf.constant_initializer(0.0))
        layer1 = tf.nn.relu(tf.matmul(input_tensor, weights) + biases)
    with tf.variable_scope("layer2"):
        weights = get_weight_variable([LAYER1_NODE, OUTPUT_NODE], regularizer)
        biases = tf.get_variable("biases", [OUTPUT_NODE], initializer=tf.constant_initializer(0.0))
        layer2 = tf.matmul(layer1, weights) + biases
    return layer2


# mnist_train
def train():
    x = tf.placeholder(tf.float32, [None, INPUT_NODE], name="x-input")
    y_ = tf.placeholder(tf.float32, [None, OUTPUT_NODE], name="y-input")
    regularizer = tf.contrib.layers.l2_regularizer(REGULARIZATION_RATE)
    y = inference(x, regularizer)
    global_step = tf.Variable(0, trainable=False)

    variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
    variables_averages_op = variable_averages.apply(tf.trainable_variables())
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        logits=y, labels=tf.argmax(y_, 1)
    )
    cross_entropy_mean = tf.reduce_mean(cross_entropy)
    regularization = tf.losses.get_regularization_loss()
    loss = cross_entropy_mean + regularization
    learning_rate = tf.train.exponential_decay(
        LEARNING_RATE_BASE,
        global_step,
        train_set.num_examples / BATCH_SIZE,
        LEARNING_RATE_DECAY,
        staircase=True,
    )
    train_step = tf.train.GradientDescentOptimizer(learning_rate).minimize(
        loss, global_step=global_step
    )
    with tf.control_dependencies([train_step, variables_averages_op]):
        train_op = tf.no_op(name="train")

    saver = tf.train.Saver()
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        for i in range(TRAINING_STEPS):
            xs, ys = train_set.next_batch(BATCH_SIZE)
            _, loss_value, reg_value = sess.run(
                [train_op, loss, regularization], feed_dict={x: xs, y_: ys}
            )
            if i % 100 == 0:
                print(f"After {i + 1} training step(s), loss on training batch is {loss_value:g}.")
        step = sess.run(global_step)
        saver.save(sess, os.path.join(MODEL_SAVE_PATH, MODEL_NAME), global_step=global_step)
        correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
        raw_accuracy = sess.run(
            tf.reduce_mean(tf.cast(correct, tf.float32)),
            feed_dict={x: test_set.images, y_: test_set.labels},
        )
        final_lr = sess.run(learning_rate)
    return float(loss_value), float(reg_value), float(raw_accuracy), float(final_lr), int(step)


# mnist_eval
def evaluate():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, INPUT_NODE], name="x-input")
        y_ = tf.placeholder(tf.float32, [None, OUTPUT_NODE], name="y-input")
        validate_feed = {x: test_set.images, y_: test_set.labels}
        y = inference(x, None)
        correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
        accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

        variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY)
        variables_to_restore = variable_averages.variables_to_restore()
        saver = tf.train.Saver(variables_to_restore)
        with tf.Session() as sess:
            ckpt = tf.train.get_checkpoint_state(MODEL_SAVE_PATH)
            saver.restore(sess, ckpt.model_checkpoint_path)
            global_step = ckpt.model_checkpoint_path.split("/")[-1].split("-")[-1]
            accuracy_score = sess.run(accuracy, feed_dict=validate_feed)
            print(f"After {global_step} training step(s), validation accuracy = {accuracy_score:g}")
    return float(accuracy_score)


final_loss, final_regularization, raw_accuracy, final_lr, steps_taken = train()
averaged_accuracy = evaluate()
print("Accuracy:", averaged_accuracy)
