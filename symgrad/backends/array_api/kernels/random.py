# mypy: disable-error-code="var-annotated"
# (_log_uniform_candidates starts lists empty: a kernel's body takes no annotation of a
# local, which would be copied.)
"""Random streams and the draws TF1's random ops make that NumPy has no one call for."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.random import Generator

from ._types import Array


def _generators(
    rng: int | np.integer[Any] | Generator | Iterable[Generator], count: int
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


def _truncated_normal(
    generator: Generator, shape: tuple[int, ...], dtype: npt.DTypeLike
) -> npt.NDArray[Any]:
    """Standard normal values, each drawn again while it is more than 2 from 0 (TF's rule)."""
    values = generator.standard_normal(shape)
    outside = np.abs(values) > 2
    while np.any(outside):
        values[outside] = generator.standard_normal(np.count_nonzero(outside))
        outside = np.abs(values) > 2
    return values.astype(dtype)


def _categorical(
    generator: Generator, logits: Array, num_samples: int, dtype: npt.DTypeLike
) -> npt.NDArray[Any]:
    """``num_samples`` class indices per row of ``logits`` (log-probabilities up to a
    constant), drawn by the Gumbel-max trick: the argmax of logits plus Gumbel noise.
    The logits are read into NumPy: the draw is NumPy's."""
    logits = np.asarray(logits, dtype=np.float64)
    uniform = generator.random((logits.shape[0], num_samples, logits.shape[1]))
    with np.errstate(divide="ignore"):
        gumbel = -np.log(-np.log(uniform))
    return np.argmax(logits[:, None, :] + gumbel, axis=-1).astype(dtype)


def _log_uniform_candidates(
    generator: Generator, num_sampled: int, range_max: int, unique: bool
) -> npt.NDArray[np.int64]:
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
