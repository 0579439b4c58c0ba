"""The TF1 names symgrad does not provide, and what to use instead: one table.

Each TF1 namespace symgrad mirrors (``symgrad``, ``symgrad.nn``, ``symgrad.train``...) has a
module ``__getattr__`` that calls :func:`missing_attribute`: a TF1 name the module lacks
raises :class:`symgrad.errors.MissingTF1NameError` (an ``AttributeError``) that says so, with
the nearest substitute from :data:`SUBSTITUTES` where there is one and a pointer to the
docs' list; any other name gets Python's usual ``AttributeError`` text. The docs' "Coming
from TF1" page prints this table (``docs/hooks/tf1_table.py`` writes it at build time).
"""

from __future__ import annotations

from functools import cache

from ._tf1_api import NAMES
from .errors import MissingTF1NameError

README_SECTION = "the 'Coming from TF1' page of the docs (docs/coming-from-tf1.md)"

# ``tf.<name>`` -> the nearest thing symgrad offers (the docs print this table).
SUBSTITUTES: dict[str, str] = {
    # Control flow and Python-side computation.
    "py_func": "compute it with NumPy before feeding it",
    "numpy_function": "compute it with NumPy before feeding it",
    "Assert": "fetch the values and check them in Python",
    "check_numerics": "fetch the values and check them with `np.isfinite`",
    # Input pipelines, data, strings, images.
    "image.resize_bicubic": "`tf.image.resize_bilinear`, or resize with NumPy (or PIL) before feeding",
    "image.resize_area": "`tf.image.resize_bilinear`, or resize with NumPy (or PIL) before feeding",
    "data.TFRecordDataset": "`tf.data.Dataset.from_generator` over records parsed in Python into NumPy arrays",
    "data.FixedLengthRecordDataset": "`tf.data.Dataset.from_generator` over records read with `np.fromfile`",
    "gfile": "Python's `open` and `os`/`pathlib`",
    "strings": "`tf.decode_csv` and `tf.read_file` (symgrad's string tensors hold file names and file contents; no string ops): encode text as integer ids with NumPy",
    "string_to_number": "convert with NumPy before feeding",
    "sparse": "dense tensors (`tf.one_hot`, `tf.gather`)",
    "SparseTensor": "dense tensors (`tf.one_hot`, `tf.gather`)",
    "sparse_placeholder": "a dense `tf.placeholder`",
    # Models, layers and losses.
    "nn.ctc_loss": "not available",
    "nn.learned_unigram_candidate_sampler": "`tf.nn.fixed_unigram_candidate_sampler` with `unigrams=` the class counts of the training data (TF's learned sampler updates its counts from each batch as it runs)",
    "nn.static_bidirectional_rnn": "`tf.nn.bidirectional_dynamic_rnn` of the steps stacked (`tf.stack(inputs, 1)`), then `tf.unstack` of its outputs",
    "contrib.rnn.static_bidirectional_rnn": "`tf.nn.bidirectional_dynamic_rnn` of the steps stacked (`tf.stack(inputs, 1)`), then `tf.unstack` of its outputs",
    "contrib.rnn.LSTMBlockCell": "`tf.nn.rnn_cell.LSTMCell` (the same cell)",
    "contrib.rnn.LayerNormBasicLSTMCell": "not available: a `BasicLSTMCell` without the normalization",
    "nn.rnn_cell.ResidualWrapper": "a cell whose output adds its input: `output + inputs` after calling the wrapped cell",
    "sort": "sort the fetched values with NumPy",
    "argsort": "sort the fetched values with NumPy",
    "unique": "`np.unique` on the fetched or fed values",
    "keras": "`tf.layers` and `tf.nn` with a `Session` loop",
    "estimator": "a `Session` training loop",
    "contrib.learn": "a `Session` training loop; data from scikit-learn's loaders",
    "contrib.slim": "`tf.layers`, `tf.contrib.layers` and `tf.nn` names symgrad has",
    "contrib.crf": "not available",
    "contrib.distributions": "not available",
    "distributions": "not available",
    "contrib.metrics": "`tf.reduce_mean(tf.cast(tf.equal(...), tf.float32))`",
    "contrib.framework": "`tf.get_collection` and `tf.global_variables`",
    "contrib.layers.fully_connected": "`tf.layers.dense`",
    "contrib.layers.batch_norm": "`tf.layers.batch_normalization`",
    "contrib.layers.optimize_loss": "`tf.train.<Optimizer>(...).minimize(loss)`",
    "contrib.layers.embed_sequence": "`tf.get_variable` and `tf.nn.embedding_lookup`",
    "contrib.layers.layer_norm": "`tf.nn.moments` over the last axis and the formula",
    "make_template": "`tf.variable_scope(name, reuse=tf.AUTO_REUSE)`",
    "metrics.mean_squared_error": "`tf.metrics.mean(tf.square(labels - predictions))`",
    "metrics.mean_absolute_error": "`tf.metrics.mean(tf.abs(labels - predictions))`",
    # Linear algebra and signals.
    "linalg.inv": "not available: compute it with NumPy outside the graph",
    "matrix_inverse": "not available: compute it with NumPy outside the graph",
    "linalg.det": "not available: compute it with NumPy outside the graph",
    "matrix_determinant": "not available: compute it with NumPy outside the graph",
    "linalg.solve": "not available: compute it with NumPy outside the graph",
    "linalg.svd": "not available: compute it with NumPy outside the graph",
    "linalg.cholesky": "not available: compute it with NumPy outside the graph",
    "signal": "not available",
    "spectral": "not available",
    # Training machinery.
    "train.ProximalAdagradOptimizer": "`tf.train.AdagradOptimizer`",
    "train.ProximalGradientDescentOptimizer": "`tf.train.GradientDescentOptimizer`",
    "train.AdagradDAOptimizer": "`tf.train.AdagradOptimizer`",
    "train.cosine_decay": "`tf.train.polynomial_decay`, or the formula with `tf.cos` of the step",
    "train.MonitoredTrainingSession": "`tf.Session` and a training loop",
    "train.Supervisor": "`tf.Session` and a training loop",
    "app": "`argparse` and a `main()` function",
    "flags": "`argparse`",
    "logging": "Python's `logging`",
}


@cache
def tf1_names(namespace: str) -> frozenset[str]:
    """The public names of TF1's namespace (``""`` is ``tf``, ``"nn"`` is ``tf.nn``)."""
    return frozenset(NAMES.get(namespace, "").split())


def missing_attribute(module: str, namespace: str, name: str) -> AttributeError:
    """The error for ``<module>.<name>`` missing; ``namespace`` is its TF1 namespace.

    >>> str(missing_attribute("symgrad.contrib", "contrib", "rnn"))[:62]
    'symgrad: tf.contrib.rnn is a TF1 name that symgrad does not pr'
    >>> str(missing_attribute("symgrad", "", "no_such_name"))
    "module 'symgrad' has no attribute 'no_such_name'"
    """
    qualified = f"{namespace}.{name}" if namespace else name
    if name.startswith("__") or name not in tf1_names(namespace):
        # Dunder probes (pickle, doctest, copy) and non-TF1 names: Python's own message.
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    substitute = SUBSTITUTES.get(qualified)
    instead = f" Instead: {substitute}." if substitute else ""
    return MissingTF1NameError(
        f"symgrad: tf.{qualified} is a TF1 name that symgrad does not provide.{instead} "
        f"See {README_SECTION} for what is missing and what to use instead."
    )


__all__ = ["README_SECTION", "SUBSTITUTES", "missing_attribute", "tf1_names"]
