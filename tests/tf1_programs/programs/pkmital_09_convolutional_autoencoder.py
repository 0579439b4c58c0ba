# Modeled on pkmital/tensorflow_tutorials/python/09_convolutional_autoencoder.py (three stride-2 nn.conv2d layers with a leaky ReLU encode the mean-subtracted images; the decoder reuses the encoder's filters in reverse through nn.conv2d_transpose with an output_shape built by tf.stack from tf.shape; a summed squared error minimized by Adam); written for symgrad's tests, not copied.
# Data: 16x16 generated images (a bright rectangle of random size and place on a dark background, with noise) stand in for MNIST's download; 16x16 instead of 28x28, 1,000 training images for 10 epochs.
import math

import numpy as np

import symgrad as tf


def generated_images(n, seed):
    rng = np.random.RandomState(seed)
    images = np.zeros((n, 16, 16), dtype=np.float32)
    for image in images:
        top, left = rng.randint(0, 10, size=2)
        height, width = rng.randint(3, 7, size=2)
        image[top : top + height, left : left + width] = rng.uniform(0.6, 1.0)
    images += rng.normal(0, 0.05, images.shape).astype(np.float32)
    return images.reshape(n, 256)


def lrelu(x, leak=0.2, name="lrelu"):
    with tf.variable_scope(name):
        f1 = 0.5 * (1 + leak)
        f2 = 0.5 * (1 - leak)
        return f1 * x + f2 * abs(x)


def autoencoder(input_shape=(None, 256), n_filters=(1, 10, 10, 10), filter_sizes=(3, 3, 3, 3)):
    x = tf.placeholder(tf.float32, input_shape, name="x")
    x_dim = np.sqrt(x.get_shape().as_list()[1])
    x_dim = int(x_dim)
    x_tensor = tf.reshape(x, [-1, x_dim, x_dim, n_filters[0]])
    current_input = x_tensor

    encoder = []
    shapes = []
    for layer_i, n_output in enumerate(n_filters[1:]):
        n_input = current_input.get_shape().as_list()[3]
        shapes.append(current_input.get_shape().as_list())
        W = tf.Variable(
            tf.random_uniform(
                [filter_sizes[layer_i], filter_sizes[layer_i], n_input, n_output],
                -1.0 / math.sqrt(n_input),
                1.0 / math.sqrt(n_input),
            )
        )
        b = tf.Variable(tf.zeros([n_output]))
        encoder.append(W)
        output = lrelu(
            tf.add(tf.nn.conv2d(current_input, W, strides=[1, 2, 2, 1], padding="SAME"), b)
        )
        current_input = output

    z = current_input
    encoder.reverse()
    shapes.reverse()

    for layer_i, shape in enumerate(shapes):
        W = encoder[layer_i]
        b = tf.Variable(tf.zeros([W.get_shape().as_list()[2]]))
        output = lrelu(
            tf.add(
                tf.nn.conv2d_transpose(
                    current_input,
                    W,
                    tf.stack([tf.shape(x)[0], shape[1], shape[2], shape[3]]),
                    strides=[1, 2, 2, 1],
                    padding="SAME",
                ),
                b,
            )
        )
        current_input = output

    y = current_input
    cost = tf.reduce_sum(tf.square(y - x_tensor))
    return {"x": x, "z": z, "y": y, "cost": cost}


train_images = generated_images(1000, 11)
test_images = generated_images(200, 12)
mean_img = np.mean(train_images, axis=0)

ae = autoencoder()
learning_rate = 0.01
optimizer = tf.train.AdamOptimizer(learning_rate).minimize(ae["cost"])

sess = tf.Session()
sess.run(tf.global_variables_initializer())

batch_size = 100
n_epochs = 10
for epoch_i in range(n_epochs):
    order = np.random.permutation(len(train_images))
    for batch_i in range(len(train_images) // batch_size):
        batch_xs = train_images[order[batch_i * batch_size : (batch_i + 1) * batch_size]]
        train = np.array([img - mean_img for img in batch_xs])
        sess.run(optimizer, feed_dict={ae["x"]: train})
    print(epoch_i, sess.run(ae["cost"], feed_dict={ae["x"]: train}))

test_xs_norm = np.array([img - mean_img for img in test_images])
test_cost = float(sess.run(ae["cost"], feed_dict={ae["x"]: test_xs_norm}))
# The summed squared error per image, against predicting the mean image (zero after centring).
per_image_error = test_cost / len(test_images)
baseline_error = float(np.sum(test_xs_norm**2)) / len(test_images)
recon, codes = sess.run([ae["y"], ae["z"]], feed_dict={ae["x"]: test_xs_norm[:10]})
code_shape = codes.shape
print(f"Reconstruction error per image: {per_image_error:.4f} (mean image: {baseline_error:.4f})")
sess.close()
