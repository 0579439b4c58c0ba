"""Sampled losses for large vocabularies (word2vec): the log-uniform, uniform and fixed
unigram candidate samplers,
``nce_loss`` and ``sampled_softmax_loss`` with TF1's semantics
(``tensorflow/python/ops/nn_impl.py``, ``candidate_sampling_ops.py``).

The sampler is a random op (:mod:`symgrad.ops.random_ops`): it draws from the generated
function's ``rng``. Its draws and their expected counts carry no gradient, as in TF.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError, ShapeError
from ..graph import Tensor, get_default_graph
from ..ops.elementwise import (
    cast,
    equal,
    expm1,
    log,
    log1p,
    ones_like,
    stop_gradient,
    zeros_like,
)
from ..ops.gathering import gather, where
from ..ops.joining import concat
from ..ops.linalg import matmul
from ..ops.nn_ops import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2
from ..ops.random_ops import get_seed
from ..ops.reductions import reduce_max, reduce_sum
from ..ops.reshaping import expand_dims, reshape
from ..ops.sources import constant, convert_to_tensor
from ..shapes import format_shape

# What TF adds to the logit of a sampled class that is also a true class.
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _log_uniform_probability(classes: Tensor, range_max: int) -> Tensor:
    """P(c) = log((c + 2) / (c + 1)) / log(range_max + 1), in float64 as TF's kernel."""
    c = cast(classes, _dtypes.float64)
    return log1p(1.0 / (c + 1.0)) / math.log(range_max + 1)


def _expected_count(probability: Tensor, num_sampled: int, tries: Tensor) -> Tensor:
    """TF's ExpectedCountHelper (``tensorflow/core/kernels/range_sampler.cc``): p * num_sampled
    when the draws took no rejections, else the chance that a class shows up in ``tries``
    draws, 1 - (1 - p)^tries. In float32, as the kernel computes it: its Probability returns
    a float."""
    p = cast(probability, _dtypes.float32)
    repeated = -expm1(cast(tries, _dtypes.float32) * log1p(-p))
    plain = p * float(num_sampled)
    return where(equal(tries, constant(num_sampled, dtype=_dtypes.int64)), plain, repeated)


def _check_sampler(
    what: str, true_classes: Any, num_sampled: int, unique: bool, range_max: int
) -> Tensor:
    labels = convert_to_tensor(true_classes)
    if not labels.dtype.is_integer or labels.shape is None or len(labels.shape) != 2:
        raise ShapeError(
            f"symgrad: {what}: true_classes must be an int "
            f"[batch, num_true] matrix, got '{labels.name}' {labels.dtype.name}"
            f"{format_shape(labels.shape)}"
        )
    if unique and num_sampled > range_max:
        raise InvalidArgumentError(
            f"symgrad: {what}: cannot draw {num_sampled} distinct classes out of {range_max}"
        )
    return labels


def _draw_candidates(
    op_type: str,
    kind: str,
    base: str,
    num_sampled: int,
    unique: bool,
    seed: int | None,
    attrs: dict[str, Any],
    inputs: list[Tensor] | None = None,
) -> tuple[Tensor, Tensor]:
    """The sampler's random op: ``num_sampled`` classes and the number of draws they took."""
    graph = get_default_graph()
    draws = graph.create_op(
        op_type,
        inputs or [],
        {
            "kind": kind,
            "seed": get_seed(seed, graph),
            "like": False,
            "stream": base,
            "samples": num_sampled,
            "unique": bool(unique),
            **attrs,
        },
        [((num_sampled + 1,), _dtypes.int64)],
        name=base,
    ).outputs[0]
    # The op's last element is the number of draws the classes took.
    return draws[:num_sampled], draws[num_sampled]


def log_uniform_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """``num_sampled`` classes of ``[0, range_max)`` drawn from the log-uniform (Zipfian)
    distribution, with the expected counts of the true and the sampled classes (TF1's
    ``tf.nn.log_uniform_candidate_sampler``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     labels = sg.constant([[0], [5]], dtype=sg.int64)
    ...     sampled, true_count, _ = sg.nn.log_uniform_candidate_sampler(
    ...         labels, 1, 4, True, 100, seed=1)
    ...     ids, counts = sg.compile([sampled, true_count])()
    >>> len(set(ids.tolist())), counts.shape
    (4, (2, 1))
    """
    num_sampled, range_max = int(num_sampled), int(range_max)
    labels = _check_sampler(
        "log_uniform_candidate_sampler", true_classes, num_sampled, unique, range_max
    )
    sampled, tries = _draw_candidates(
        "LogUniformCandidateSampler",
        "log_uniform_candidates",
        name or "log_uniform_candidate_sampler",
        num_sampled,
        unique,
        seed,
        {"range_max": range_max},
    )
    true_count = _expected_count(_log_uniform_probability(labels, range_max), num_sampled, tries)
    sampled_count = _expected_count(
        _log_uniform_probability(sampled, range_max), num_sampled, tries
    )
    return sampled, true_count, sampled_count


def uniform_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """``num_sampled`` classes of ``[0, range_max)`` drawn uniformly, with the expected
    counts of the true and the sampled classes (TF1's ``tf.nn.uniform_candidate_sampler``;
    each class's probability is ``1 / range_max`` in float32, as TF's kernel).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     labels = sg.constant([[0], [5]], dtype=sg.int64)
    ...     sampled, true_count, _ = sg.nn.uniform_candidate_sampler(
    ...         labels, 1, 4, False, 8, seed=1)
    ...     print(sg.compile(true_count)().ravel())
    [0.5 0.5]
    """
    num_sampled, range_max = int(num_sampled), int(range_max)
    labels = _check_sampler(
        "uniform_candidate_sampler", true_classes, num_sampled, unique, range_max
    )
    sampled, tries = _draw_candidates(
        "UniformCandidateSampler",
        "uniform_candidates",
        name or "uniform_candidate_sampler",
        num_sampled,
        unique,
        seed,
        {"range_max": range_max},
    )
    # 1 / range_max in float32, as TF's kernel, read from a one-entry table: a float32 tensor
    # (a folded scalar constant would be a float64 one in the generated code)
    table = constant(np.array([1.0 / range_max], np.float32))
    true_count = _expected_count(gather(table, zeros_like(labels)), num_sampled, tries)
    sampled_count = _expected_count(gather(table, zeros_like(sampled)), num_sampled, tries)
    return sampled, true_count, sampled_count


def fixed_unigram_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    vocab_file: str = "",
    distortion: float = 1.0,
    num_reserved_ids: int = 0,
    num_shards: int = 1,
    shard: int = 0,
    unigrams: Any = (),
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """``num_sampled`` classes drawn with probabilities proportional to
    ``unigrams[c] ** distortion`` (the first ``num_reserved_ids`` classes have probability
    0), with the expected counts of the true and the sampled classes (TF1's
    ``tf.nn.fixed_unigram_candidate_sampler``; the weights, their total and the probabilities
    in float32, as TF's kernel). ``unigrams`` is a list of counts; reading them from a
    ``vocab_file`` and sharding are not supported.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     labels = sg.constant([[1], [3]], dtype=sg.int64)
    ...     _, true_count, _ = sg.nn.fixed_unigram_candidate_sampler(
    ...         labels, 1, 2, False, 4, unigrams=[1, 1, 0, 2], seed=1)
    ...     print(sg.compile(true_count)().ravel())
    [0.5 1. ]
    """
    what = "fixed_unigram_candidate_sampler"
    if vocab_file:
        raise InvalidArgumentError(
            f"symgrad: {what}: vocab_file is not supported (symgrad reads no files in the "
            f"graph); read the counts with Python and pass them as unigrams=[...]"
        )
    if int(num_shards) != 1 or int(shard) != 0:
        raise InvalidArgumentError(
            f"symgrad: {what}: num_shards={num_shards}, shard={shard}: sharding is not "
            f"supported; pass the counts of this shard's classes as unigrams"
        )
    counts = np.asarray(unigrams, dtype=np.float32).ravel()
    num_sampled, range_max = int(num_sampled), int(range_max)
    reserved = int(num_reserved_ids)
    if counts.size == 0 or counts.size + reserved != range_max:
        raise InvalidArgumentError(
            f"symgrad: {what}: range_max ({range_max}) must equal num_reserved_ids "
            f"({reserved}) plus the number of unigrams ({counts.size})"
        )
    if np.any(counts < 0) or not np.all(np.isfinite(counts)):
        raise InvalidArgumentError(f"symgrad: {what}: unigrams must be finite and not negative")
    labels = _check_sampler(what, true_classes, num_sampled, unique, range_max)
    # TF's FixedUnigramSampler: each weight pow(count, distortion) in double, kept as a
    # float; their float total summed in order
    powered = np.power(counts.astype(np.float64), float(np.float32(distortion)))
    weights = np.concatenate([np.zeros(reserved, np.float32), powered.astype(np.float32)])
    total = np.float32(0.0)
    for w in weights:
        total = np.float32(total + w)
    if not total > 0:
        raise InvalidArgumentError(f"symgrad: {what}: the unigrams' weights sum to 0")
    table = constant((weights / total).astype(np.float32))
    sampled, tries = _draw_candidates(
        "FixedUnigramCandidateSampler",
        "unigram_candidates",
        name or what,
        num_sampled,
        unique,
        seed,
        {"range_max": range_max},
        inputs=[constant(weights.astype(np.float64))],
    )
    true_count = _expected_count(gather(table, labels), num_sampled, tries)
    sampled_count = _expected_count(gather(table, sampled), num_sampled, tries)
    return sampled, true_count, sampled_count


def _one_weight(weights: Any, what: str) -> Tensor:
    if isinstance(weights, (list, tuple)):
        if len(weights) != 1:
            raise InvalidArgumentError(
                f"symgrad: {what}: partitioned weights (a list of {len(weights)}) are not "
                f"supported; pass one [num_classes, dim] tensor"
            )
        weights = weights[0]
    return convert_to_tensor(weights)


def _accidental_hits(labels: Tensor, sampled: Tensor, num_sampled: int, dtype: Any) -> Tensor:
    """-FLT_MAX where a sampled class is one of the example's true classes, else 0,
    ``[batch, num_sampled]``: what TF adds to the sampled logits (``compute_accidental_hits``
    and ``sparse_to_dense`` in ``nn_impl.py``).

    TF's kernel (``ComputeAccidentalHitsOp``, ``candidate_sampler_ops.cc``) maps each sampled
    class to the last position that holds it, so a class sampled more than once (by a sampler
    with ``unique=False``, or in given ``sampled_values``) is removed at its last position
    only; its earlier copies stay noise. A true class listed twice is removed once."""
    hits = equal(expand_dims(labels, 2), reshape(sampled, [1, 1, -1]))
    hit = reduce_max(cast(hits, dtype), axis=1)
    # position k is the last one holding its class when no later position k' > k repeats it
    later = constant(np.triu(np.ones((num_sampled, num_sampled)), 1).astype(dtype.name))
    repeats = cast(equal(expand_dims(sampled, 1), expand_dims(sampled, 0)), dtype)
    last = 1.0 - reduce_max(repeats * later, axis=1)
    return hit * last * (-_FLOAT32_MAX)


def _compute_sampled_logits(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int,
    sampled_values: Any,
    subtract_log_q: bool,
    remove_accidental_hits: bool,
    what: str,
    seed: int | None = None,
) -> tuple[Tensor, Tensor]:
    """TF's ``_compute_sampled_logits``: the logits of the true and the sampled classes,
    ``[batch, num_true + num_sampled]``, and their labels (1/num_true, then 0)."""
    w = _one_weight(weights, what)
    b = _one_weight(biases, what)
    x = convert_to_tensor(inputs)
    labels = cast(convert_to_tensor(labels), _dtypes.int64)
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            labels, num_true, num_sampled, True, num_classes, seed=seed
        )
    sampled, true_count, sampled_count = (stop_gradient(v) for v in sampled_values)
    sampled = cast(sampled, _dtypes.int64)
    dim = w.shape[1] if w.shape is not None and len(w.shape) == 2 else None
    if dim is None:
        raise ShapeError(f"symgrad: {what}: weights must be a [num_classes, dim] matrix")
    labels_flat = reshape(labels, [-1])
    true_w = reshape(gather(w, labels_flat), [-1, num_true, dim])
    # each example's dot product with the weights of each of its true classes
    true_logits = reduce_sum(expand_dims(x, 1) * true_w, axis=2)
    true_logits = true_logits + reshape(gather(b, labels_flat), [-1, num_true])
    sampled_logits = matmul(x, gather(w, sampled), transpose_b=True) + gather(b, sampled)
    if remove_accidental_hits:
        sampled_logits = sampled_logits + _accidental_hits(labels, sampled, num_sampled, x.dtype)
    if subtract_log_q:
        true_logits = true_logits - log(cast(true_count, x.dtype))
        sampled_logits = sampled_logits - log(cast(sampled_count, x.dtype))
    logits = concat([true_logits, sampled_logits], 1)
    targets = concat([ones_like(true_logits) / float(num_true), zeros_like(sampled_logits)], 1)
    return logits, targets


def nce_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = False,
    partition_strategy: str = "mod",
    name: str = "nce_loss",
) -> Tensor:
    """Noise-contrastive estimation loss per example, ``[batch]`` (TF1's ``tf.nn.nce_loss``):
    a logistic regression telling the true classes from ``num_sampled`` classes drawn
    log-uniformly (or given by ``sampled_values``).

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.Variable(np.zeros((50, 4), np.float32))
    ...     b = sg.Variable(np.zeros(50, np.float32))
    ...     x = sg.constant(np.ones((3, 4), np.float32))
    ...     loss = sg.nn.nce_loss(w, b, [[1], [2], [3]], x, num_sampled=5, num_classes=50)
    >>> loss.shape
    (3,)
    """
    logits, targets = _compute_sampled_logits(
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true,
        sampled_values,
        True,
        remove_accidental_hits,
        "nce_loss",
    )
    losses = sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return reduce_sum(losses, axis=1, name=name)


def sampled_softmax_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = True,
    partition_strategy: str = "mod",
    name: str = "sampled_softmax_loss",
    seed: int | None = None,
) -> Tensor:
    """Softmax cross entropy per example, ``[batch]``, over the true classes and
    ``num_sampled`` sampled ones (TF1's ``tf.nn.sampled_softmax_loss``)."""
    logits, targets = _compute_sampled_logits(
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true,
        sampled_values,
        True,
        remove_accidental_hits,
        "sampled_softmax_loss",
        seed=seed,
    )
    return softmax_cross_entropy_with_logits_v2(
        labels=stop_gradient(targets), logits=logits, name=name
    )


__all__ = [
    "fixed_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "nce_loss",
    "sampled_softmax_loss",
    "uniform_candidate_sampler",
]
