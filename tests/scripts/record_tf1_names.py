"""Write ``symgrad/_tf1_api.py``: the public names of TF1's namespaces, as TensorFlow lists them.

Run by hand with TensorFlow installed (``tf.compat.v1`` of TF 2.x)::

    python tests/scripts/record_tf1_names.py

``tf.layers`` cannot be listed without Keras 2 and ``tf.contrib``/``tf.estimator`` are gone
from TF 2; their names are written here from TF 1.15's API documentation. The output is sorted and
deterministic; symgrad reads it to tell a TF1 name it lacks from a typo.
"""

import os
import sys
import textwrap
from pathlib import Path

# Top-level TF 1.15 names that TF 2's tf.compat.v1 no longer has.
REMOVED_SINCE_TF1 = ["contrib", "estimator"]


def _words(text):
    return text.split()


# TF 1.15: tf.layers (functions and classes) and the tf.contrib modules programs used most.
LAYERS = _words(
    """AveragePooling1D AveragePooling2D AveragePooling3D BatchNormalization Conv1D Conv2D
Conv2DTranspose Conv3D Conv3DTranspose Dense Dropout Flatten InputSpec Layer MaxPooling1D
MaxPooling2D MaxPooling3D SeparableConv1D SeparableConv2D average_pooling1d average_pooling2d
average_pooling3d batch_normalization conv1d conv2d conv2d_transpose conv3d conv3d_transpose
dense dropout flatten max_pooling1d max_pooling2d max_pooling3d separable_conv1d
separable_conv2d"""
)
CONTRIB = _words(
    """bayesflow cloud cluster_resolver compiler copy_graph crf cudnn_rnn data deprecated
distribute distributions eager estimator factorization feature_column framework gan graph_editor
grid_rnn image input_pipeline integrate keras kernel_methods labeled_tensor layers learn
legacy_seq2seq linalg lookup losses memory_stats metrics mixed_precision model_pruning nccl nn
opt optimizer_v2 predictor quantization quantize rate receptive_field recurrent remote_fused_graph
resampler rnn rpc saved_model seq2seq signal slim solvers sparsemax specs staging stat_summarizer
stateless summary tensor_forest tensorboard testing text tfprof timeseries tpu training util"""
)
CONTRIB_LAYERS = _words(
    """apply_regularization avg_pool2d batch_norm bias_add bucketized_column
conv2d conv2d_in_plane conv2d_transpose conv3d convolution convolution2d
convolution2d_transpose crossed_column dropout embed_sequence embedding_column flatten
fully_connected group_norm l1_l2_regularizer l1_regularizer l2_regularizer layer_norm linear
max_pool2d max_pool3d one_hot_column one_hot_encoding optimize_loss real_valued_column relu
relu6 repeat separable_conv2d softmax sparse_column_with_hash_bucket stack sum_regularizer
summarize_activations summarize_tensors unit_norm variance_scaling_initializer
xavier_initializer xavier_initializer_conv2d"""
)


def _block(names):
    text = " ".join(sorted(set(names)))
    return "\n".join(textwrap.wrap(text, 92, break_on_hyphens=False))


def main():
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf

    spaces = {"": tf}
    for name in ("nn", "math", "train", "losses", "linalg", "metrics", "image"):
        spaces[name] = getattr(tf, name)
    names = {
        key: [n for n in dir(module) if not n.startswith("_")] for key, module in spaces.items()
    }
    names[""] += REMOVED_SINCE_TF1
    names["layers"] = LAYERS
    names["contrib"] = CONTRIB
    names["contrib.layers"] = CONTRIB_LAYERS
    lines = [
        f'"""The public names of TF1\'s namespaces (tf.compat.v1 of TensorFlow {tf.__version__};',
        "tf.layers, tf.contrib and tf.estimator from TF 1.15's API documentation).",
        "",
        "Written by tests/scripts/record_tf1_names.py. Do not edit.",
        '"""',
        "",
        "NAMES = {",
    ]
    for key in sorted(names):
        lines.append(f'    "{key}": """')
        lines.append(_block(names[key]))
        lines.append('""",')
    lines.append("}")
    target = Path(__file__).resolve().parents[2] / "symgrad" / "_tf1_api.py"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {sum(len(v) for v in names.values())} names to {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
