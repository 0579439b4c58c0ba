# mypy: disable-error-code="var-annotated"
# (_log_uniform_candidates starts its lists empty, in one assignment mypy cannot
# annotate from; a "type: ignore" in a kernel's body would be copied into the
# generated modules.)
"""Random streams and the draws TF1's random ops make that NumPy has no one call for."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.random import Generator
from numpy.typing import ArrayLike, DTypeLike, NDArray

from ._types import Array, Shape


def _generators(
    rng: int | np.integer | Generator | Sequence[Generator], count: int
) -> list[Generator]:
    """``count`` random streams from ``rng``: a sequence of Generators, or one Generator or
    int seed that every stream shares."""
    if isinstance(rng, (int, np.integer)):
        rng = np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return [rng] * count
    streams = list(rng)
    if len(streams) != count or not all(
        isinstance(g, np.random.Generator) for g in streams
    ):
        raise ValueError(
            f"input 'rng': expected a numpy.random.Generator, an int seed, or a sequence "
            f"of {count} Generators"
        )
    return streams


def _truncated_normal(generator: Generator, shape: Shape, dtype: DTypeLike) -> Array:
    """Standard normal values, each drawn again while it is more than 2 from 0 (TF's rule)."""
    values = generator.standard_normal(shape)
    outside = np.abs(values) > 2
    while np.any(outside):
        values[outside] = generator.standard_normal(np.count_nonzero(outside))
        outside = np.abs(values) > 2
    return values.astype(dtype)


def _categorical(
    generator: Generator, logits: ArrayLike, num_samples: int, dtype: DTypeLike
) -> Array:
    """``num_samples`` class indices per row of ``logits`` (log-probabilities up to a
    constant), drawn by the Gumbel-max trick: the argmax of logits plus Gumbel noise."""
    logits = np.asarray(logits, dtype=np.float64)
    uniform = generator.random((logits.shape[0], num_samples, logits.shape[1]))
    with np.errstate(divide="ignore"):
        gumbel = -np.log(-np.log(uniform))
    return np.argmax(logits[:, None, :] + gumbel, axis=-1).astype(dtype)


def _log_uniform_candidates(
    generator: Generator, num_sampled: int, range_max: int, unique: bool
) -> NDArray[np.int64]:
    """``num_sampled`` classes drawn with P(c) = log((c + 2) / (c + 1)) / log(range_max + 1),
    distinct ones if ``unique`` (a class drawn again is drawn anew), followed by the number
    of draws that took (TF's log-uniform candidate sampler)."""
    log_range = np.log(range_max + 1)
    drawn, seen, tries = [], set(), 0
    while len(drawn) < num_sampled:
        value = int(np.exp(generator.random() * log_range)) - 1
        tries += 1
        if unique and value in seen:
            continue
        seen.add(value)
        drawn.append(value)
    return np.array(drawn + [tries], dtype=np.int64)


def _uniform_candidates(
    generator: Generator, num_sampled: int, range_max: int, unique: bool
) -> NDArray[np.int64]:
    """``num_sampled`` classes drawn uniformly from ``[0, range_max)``, distinct ones if
    ``unique`` (a class drawn again is drawn anew), followed by the number of draws that
    took (TF's uniform candidate sampler)."""
    drawn, seen, tries = [], set(), 0
    while len(drawn) < num_sampled:
        value = int(generator.integers(range_max))
        tries += 1
        if unique and value in seen:
            continue
        seen.add(value)
        drawn.append(value)
    return np.array(drawn + [tries], dtype=np.int64)


def _unigram_candidates(
    generator: Generator, num_sampled: int, weights: ArrayLike, unique: bool
) -> NDArray[np.int64]:
    """``num_sampled`` classes drawn with probabilities proportional to ``weights``, distinct
    ones if ``unique`` (a class drawn again is drawn anew), followed by the number of draws
    that took (TF's fixed unigram candidate sampler)."""
    cumulative = np.cumsum(np.asarray(weights, dtype=np.float64))
    drawn, seen, tries = [], set(), 0
    while len(drawn) < num_sampled:
        point = generator.random() * cumulative[-1]
        value = int(np.searchsorted(cumulative, point, side="right"))
        value = min(value, cumulative.size - 1)
        tries += 1
        if unique and value in seen:
            continue
        seen.add(value)
        drawn.append(value)
    return np.array(drawn + [tries], dtype=np.int64)
