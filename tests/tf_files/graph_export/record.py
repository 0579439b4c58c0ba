"""A graph of depthwise convolutions and resizes with their gradients, written by symgrad
(``as_graph_def``) and run by TensorFlow: ``tests/test_tf_models.py`` checks that symgrad
still writes ``depthwise_resize.pb`` byte for byte (and names the same fetches,
``fetches.json``) and computes the outputs TensorFlow computed from it (``tf_outputs.json``).

Run by hand from the repository root, in two steps::

    .venv/bin/python tests/tf_files/graph_export/record.py --write   # symgrad writes the .pb
    python tests/tf_files/graph_export/record.py --check             # TF 1.x/2.x compat.v1 runs it

``build`` takes ``tf`` (symgrad), so the test rebuilds the same graph.
"""

import argparse
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GRAPH = os.path.join(HERE, "depthwise_resize.pb")
OUTPUTS = os.path.join(HERE, "tf_outputs.json")
FETCHES = os.path.join(HERE, "fetches.json")


def feeds():
    rng = np.random.RandomState(11)
    return {
        "images:0": rng.uniform(-1.0, 1.0, (2, 6, 6, 3)).astype(np.float32),
        "depthwise_filter:0": rng.uniform(-1.0, 1.0, (3, 3, 3, 2)).astype(np.float32),
    }


def build(tf):
    """The graph; returns the names of the tensors to fetch."""
    images = tf.placeholder(tf.float32, [None, 6, 6, 3], name="images")
    kernel = tf.placeholder(tf.float32, [3, 3, 3, 2], name="depthwise_filter")
    strided = tf.nn.depthwise_conv2d(images, kernel, [1, 2, 2, 1], "SAME", name="strided")
    valid = tf.nn.depthwise_conv2d(images, kernel, [1, 1, 1, 1], "VALID")
    up = tf.image.resize_bilinear(strided, [5, 7], half_pixel_centers=True, name="up")
    corners = tf.image.resize_bilinear(valid, [3, 5], align_corners=True, name="corners")
    near = tf.image.resize_nearest_neighbor(strided, [4, 6], align_corners=True, name="near")
    wide = tf.image.resize_nearest_neighbor(images, [9, 4], name="wide")
    doubled = tf.image.resize_bilinear(tf.cast(images, tf.float64), [4, 4], name="doubled")
    loss = (
        tf.reduce_sum(tf.sin(up))
        + tf.reduce_sum(corners * corners)
        + tf.reduce_sum(tf.tanh(near))
        + tf.reduce_sum(wide * wide * wide)
        + tf.reduce_sum(doubled * doubled)
    )
    d_images, d_kernel = tf.gradients(loss, [images, kernel])
    # second order: the gradient of the depthwise backprops (DepthwiseConv2dNative again)
    (dd_kernel,) = tf.gradients(tf.reduce_sum(d_images * d_images), [kernel])
    fetched = [strided, valid, up, corners, near, wide, doubled, loss]
    fetched += [d_images, d_kernel, dd_kernel]
    return [t.name for t in fetched]


def write():
    import symgrad as sg

    with sg.Graph().as_default() as graph:
        names = build(sg)
        data = graph.as_graph_def().SerializeToString(deterministic=True)
    with open(GRAPH, "wb") as fh:
        fh.write(data)
    with open(FETCHES, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(json.dumps(names, indent=1))
        fh.write("\n")
    print(f"wrote {GRAPH}: {len(names)} outputs")


def check():
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    graph_def = tf.GraphDef()
    with open(GRAPH, "rb") as fh:
        graph_def.ParseFromString(fh.read())
    with open(FETCHES, encoding="utf-8") as fh:
        names = json.load(fh)
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(graph_def, name="")
        with tf.Session(graph=graph) as sess:
            values = sess.run(names, feeds())
        ops = sorted({node.op for node in graph_def.node})
    doc = {
        "tensorflow_version": tf.__version__,
        "ops": ops,
        "outputs": {
            name: {"dtype": str(v.dtype), "value": np.asarray(v).tolist()}
            for name, v in zip(names, values, strict=True)
        },
    }
    with open(OUTPUTS, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(json.dumps(doc, sort_keys=True, indent=1))
        fh.write("\n")
    print(f"wrote {OUTPUTS}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    arguments = parser.parse_args()
    if arguments.write:
        write()
    if arguments.check:
        check()
