"""Initializers: TF1's ``tf.*_initializer`` objects (``tensorflow/python/ops/init_ops.py``)
and ``tf.contrib.layers.xavier_initializer``.

An initializer is called as TF1 calls it, ``init(shape, dtype=None, partition_info=None)``,
and returns a tensor: a constant, or a random op (:mod:`symgrad.ops.random_ops`) whose
numbers a Session draws when the variable is initialized. So both
``tf.Variable(init([784, 10]))`` and ``tf.get_variable(..., initializer=init)`` work.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Tensor
from ..ops.creation import zeros
from ..ops.elementwise import cast, multiply, sign
from ..ops.linalg import qr_q
from ..ops.random_ops import random_normal, random_uniform, truncated_normal
from ..ops.reductions import reduce_sum
from ..ops.reshaping import reshape, transpose
from ..ops.sources import constant

# The standard deviation of a standard normal truncated to [-2, 2]: a truncated normal drawn
# with stddev s / 0.8796... has standard deviation s (TF's VarianceScaling correction).
TRUNCATED_NORMAL_STDDEV = 0.87962566103423978


def _dims(shape: Any) -> tuple[int, ...]:
    """A fully defined shape as a tuple of ints (a list, a tuple or a TensorShape)."""
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    dims = tuple(shape)
    if any(d is None for d in dims):
        raise ShapeError(f"symgrad: initializer: shape {list(dims)} must be fully defined")
    return tuple(int(d) for d in dims)


def compute_fans(shape: Any) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight of ``shape`` as TF computes them: a matrix is
    ``[in, out]``; a convolution kernel ``[h, w, in, out]`` counts its receptive field.

    >>> compute_fans([784, 10]), compute_fans([5, 5, 1, 32]), compute_fans([7])
    ((784, 10), (25, 800), (7, 7))
    """
    dims = _dims(shape)
    if len(dims) < 1:
        return 1, 1
    if len(dims) == 1:
        return dims[0], dims[0]
    if len(dims) == 2:
        return dims[0], dims[1]
    receptive_field = int(np.prod(dims[:-2]))
    return dims[-2] * receptive_field, dims[-1] * receptive_field


class Initializer:
    """The TF1 initializer protocol: ``init(shape, dtype=None, partition_info=None)``."""

    dtype: _dtypes.DType

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        return cls(**config)

    def _dtype(self, dtype: Any) -> _dtypes.DType:
        return _dtypes.as_dtype(dtype) if dtype is not None else self.dtype

    def _floating(self, dtype: Any) -> _dtypes.DType:
        result = self._dtype(dtype)
        if not result.is_floating:
            raise DTypeError(
                f"symgrad: {type(self).__name__}: expected a floating dtype, got {result.name}"
            )
        return result


class Zeros(Initializer):
    """Zeros (``tf.zeros_initializer``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.compile(sg.zeros_initializer()([2]))().tolist()
    [0.0, 0.0]
    """

    def __init__(self, dtype: Any = _dtypes.float32) -> None:
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return zeros(_dims(shape), self._dtype(dtype))

    def get_config(self) -> dict[str, Any]:
        return {"dtype": self.dtype.name}


class Ones(Zeros):
    """Ones (``tf.ones_initializer``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.compile(sg.ones_initializer()([2]))().tolist()
    [1.0, 1.0]
    """

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dims, target = _dims(shape), self._dtype(dtype)
        return constant(np.ones(dims, dtype=target.numpy), dtype=target)


class Constant(Initializer):
    """A given value (``tf.constant_initializer``): a scalar fills the shape; a list or
    array with fewer elements than the shape is padded with its last element (TF1's rule).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.compile(sg.constant_initializer([1.0, 2.0])([2, 2]))().tolist()
    [[1.0, 2.0], [2.0, 2.0]]
    """

    def __init__(
        self, value: Any = 0, dtype: Any = _dtypes.float32, verify_shape: bool = False
    ) -> None:
        self.value = value
        self.dtype = _dtypes.as_dtype(dtype)
        self.verify_shape = verify_shape

    def __call__(
        self,
        shape: Any,
        dtype: Any = None,
        partition_info: Any = None,
        verify_shape: bool | None = None,
    ) -> Tensor:
        dims, target = _dims(shape), self._dtype(dtype)
        flat = np.asarray(self.value).ravel()
        size = int(np.prod(dims))
        verify = self.verify_shape if verify_shape is None else verify_shape
        if verify and np.shape(self.value) != dims:
            raise ShapeError(
                f"symgrad: constant_initializer: value of shape {np.shape(self.value)} "
                f"does not have shape {dims} (verify_shape=True)"
            )
        if flat.size > size or flat.size == 0:
            raise ShapeError(
                f"symgrad: constant_initializer: {flat.size} values cannot fill shape {dims}"
            )
        if flat.size < size:
            flat = np.concatenate([flat, np.repeat(flat[-1:], size - flat.size)])
        return constant(flat.reshape(dims), dtype=target)

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value, "dtype": self.dtype.name, "verify_shape": self.verify_shape}


class RandomUniform(Initializer):
    """Uniform values in ``[minval, maxval)`` (``tf.random_uniform_initializer``)."""

    def __init__(
        self,
        minval: Any = 0,
        maxval: Any = None,
        seed: int | None = None,
        dtype: Any = _dtypes.float32,
    ) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return random_uniform(
            _dims(shape), self.minval, self.maxval, self._dtype(dtype), seed=self.seed
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "minval": self.minval,
            "maxval": self.maxval,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class RandomNormal(Initializer):
    """Normal values (``tf.random_normal_initializer``)."""

    def __init__(
        self,
        mean: float = 0.0,
        stddev: float = 1.0,
        seed: int | None = None,
        dtype: Any = _dtypes.float32,
    ) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return random_normal(
            _dims(shape), self.mean, self.stddev, self._floating(dtype), seed=self.seed
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "stddev": self.stddev,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class TruncatedNormal(RandomNormal):
    """Normal values redrawn beyond two ``stddev`` (``tf.truncated_normal_initializer``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.truncated_normal_initializer(stddev=0.1, seed=1)([500])
    ...     bool(abs(sg.compile(w)()).max() <= 0.2)
    True
    """

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return truncated_normal(
            _dims(shape), self.mean, self.stddev, self._floating(dtype), seed=self.seed
        )


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("normal", "uniform", "truncated_normal", "untruncated_normal")


class VarianceScaling(Initializer):
    """Values whose variance is ``scale / n``, ``n`` the fan-in, fan-out or their mean
    (``tf.variance_scaling_initializer``, TF1's defaults; ``"normal"`` means truncated
    normal, corrected so that the standard deviation is ``sqrt(scale / n)``).

    >>> import symgrad as sg
    >>> init = sg.variance_scaling_initializer(2.0, mode="fan_in", distribution="uniform")
    >>> with sg.Graph().as_default():
    ...     w = sg.compile(init([100, 50]))()
    >>> bool(abs(w).max() <= (3 * 2.0 / 100) ** 0.5)
    True
    """

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: int | None = None,
        dtype: Any = _dtypes.float32,
    ) -> None:
        if scale <= 0.0:
            raise InvalidArgumentError(
                f"symgrad: variance_scaling_initializer: scale must be positive, got {scale}"
            )
        mode, distribution = str(mode).lower(), str(distribution).lower()
        if mode not in _MODES:
            raise InvalidArgumentError(
                f"symgrad: variance_scaling_initializer: invalid mode {mode!r}; "
                f"expected one of {', '.join(_MODES)}"
            )
        if distribution not in _DISTRIBUTIONS:
            raise InvalidArgumentError(
                f"symgrad: variance_scaling_initializer: invalid distribution {distribution!r}; "
                f"expected one of {', '.join(_DISTRIBUTIONS)}"
            )
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dims, target = _dims(shape), self._floating(dtype)
        full = _dims(partition_info.full_shape) if partition_info is not None else dims
        fan_in, fan_out = compute_fans(full)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / TRUNCATED_NORMAL_STDDEV
            return truncated_normal(dims, 0.0, stddev, target, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_normal(dims, 0.0, math.sqrt(scale), target, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_uniform(dims, -limit, limit, target, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class GlorotUniform(VarianceScaling):
    """Uniform in ``±sqrt(6 / (fan_in + fan_out))`` (``tf.glorot_uniform_initializer``,
    the default initializer of ``tf.get_variable``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.compile(sg.glorot_uniform_initializer(seed=1)([30, 20]))()
    >>> bool(abs(w).max() <= (6 / 50) ** 0.5)
    True
    """

    def __init__(self, seed: int | None = None, dtype: Any = _dtypes.float32) -> None:
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with standard deviation ``sqrt(2 / (fan_in + fan_out))``
    (``tf.glorot_normal_initializer``)."""

    def __init__(self, seed: int | None = None, dtype: Any = _dtypes.float32) -> None:
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


class UniformUnitScaling(Initializer):
    """Uniform in ``±factor * sqrt(3 / input_size)``, where ``input_size`` multiplies every
    dim but the last (``tf.uniform_unit_scaling_initializer``, deprecated in TF1 in favour
    of ``variance_scaling_initializer(distribution="uniform")``, which it equals for
    ``scale=factor**2``): a linear layer keeps its input's scale.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.compile(sg.uniform_unit_scaling_initializer(1.5, seed=1)([12, 4]))()
    >>> bool(abs(w).max() <= 1.5 * (3 / 12) ** 0.5)
    True
    """

    def __init__(
        self, factor: float = 1.0, seed: int | None = None, dtype: Any = _dtypes.float32
    ) -> None:
        self.factor, self.seed = float(factor), seed
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dims, target = _dims(shape), self._floating(dtype)
        full = _dims(partition_info.full_shape) if partition_info is not None else dims
        input_size = max(float(np.prod(full[:-1])) if full else 1.0, 1.0)
        limit = math.sqrt(3.0 / input_size) * self.factor
        return random_uniform(dims, -limit, limit, target, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """An orthogonal matrix times ``gain`` (``tf.orthogonal_initializer``, TF1's algorithm).

    A shape ``[d0, ..., dn]`` is taken as the matrix ``[d0 * ... * d(n-1), dn]`` (a
    convolution kernel ``[h, w, in, out]`` as ``[h * w * in, out]``). TF1 draws a normal
    matrix of that shape (its transpose when it has fewer rows than columns), takes the Q
    of its QR decomposition with each column's sign made that of R's diagonal (so Q is
    uniformly distributed over the orthogonal matrices), transposes it back, reshapes it
    and multiplies it by ``gain``: the columns are orthonormal (``WᵀW = gain² I``) when
    there are at least as many rows as columns, else the rows (``WWᵀ = gain² I``). The
    numbers are drawn when the variable is initialized; with a seed they are the same in
    every run, though not TensorFlow's.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.get_variable("w", [6, 4], initializer=sg.orthogonal_initializer(2.0, seed=1))
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         value = sess.run(w)
    >>> np.allclose(value.T @ value, 4.0 * np.eye(4), atol=1e-5)
    True
    """

    def __init__(
        self, gain: float = 1.0, seed: int | None = None, dtype: Any = _dtypes.float32
    ) -> None:
        self.gain, self.seed = gain, seed
        self.dtype = _dtypes.as_dtype(dtype)
        if not self.dtype.is_floating:
            raise DTypeError(
                f"symgrad: orthogonal_initializer: expected a floating dtype, got {self.dtype.name}"
            )

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dims, target = _dims(shape), self._floating(dtype)
        if len(dims) < 2:
            raise ShapeError(
                "symgrad: orthogonal_initializer: the shape to initialize must have at least "
                f"two dimensions, got {list(dims)}"
            )
        rows, columns = int(np.prod(dims[:-1])), dims[-1]
        wide = rows < columns
        # NumPy's QR has no float16: draw and factor in float32, then round, as TF's float16
        # Qr computes in float32 too.
        work = _dtypes.float32 if target == _dtypes.float16 else target
        drawn = random_normal(
            (columns, rows) if wide else (rows, columns), dtype=work, seed=self.seed
        )
        q = qr_q(drawn)
        # R = Qᵀ·drawn, so R's diagonal is the sum over rows of Q * drawn, column by column.
        q = multiply(q, sign(reduce_sum(multiply(q, drawn), axis=0)))
        if wide:
            q = transpose(q)
        matrix = reshape(q, list(dims))
        if work != target:
            matrix = cast(matrix, target)
        return multiply(constant(self.gain, dtype=target), matrix)

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


# TF1's lower-case names are the classes themselves (``tf.zeros_initializer()``).
zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
uniform_unit_scaling_initializer = UniformUnitScaling
orthogonal_initializer = Orthogonal


def he_normal(seed: int | None = None) -> VarianceScaling:
    """``tf.initializers.he_normal``: truncated normal, variance ``2 / fan_in``."""
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed: int | None = None) -> VarianceScaling:
    """``tf.initializers.he_uniform``: uniform, variance ``2 / fan_in``."""
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed: int | None = None) -> VarianceScaling:
    """``tf.initializers.lecun_normal``: truncated normal, variance ``1 / fan_in``."""
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed: int | None = None) -> VarianceScaling:
    """``tf.initializers.lecun_uniform``: uniform, variance ``1 / fan_in``."""
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


# --- tf.contrib.layers ------------------------------------------------------------------------------

_CONTRIB_MODES = ("FAN_IN", "FAN_OUT", "FAN_AVG")


def contrib_variance_scaling_initializer(
    factor: float = 2.0,
    mode: str = "FAN_IN",
    uniform: bool = False,
    seed: int | None = None,
    dtype: Any = _dtypes.float32,
) -> Any:
    """``tf.contrib.layers.variance_scaling_initializer``: variance ``factor / n``; its
    normal form is a truncated normal of standard deviation ``sqrt(1.3 * factor / n)``
    (contrib's rule, not the core initializer's)."""
    if mode not in _CONTRIB_MODES:
        raise InvalidArgumentError(
            f"symgrad: variance_scaling_initializer: unknown mode {mode!r}; "
            f"expected one of {', '.join(_CONTRIB_MODES)}"
        )
    default = _dtypes.as_dtype(dtype)
    if not default.is_floating:
        raise DTypeError("symgrad: variance_scaling_initializer: dtype must be floating")

    def initializer(shape: Any, dtype: Any = default, partition_info: Any = None) -> Tensor:
        dims = _dims(shape)
        target = _dtypes.as_dtype(dtype if dtype is not None else default)
        full = _dims(partition_info.full_shape) if partition_info is not None else dims
        # contrib's own estimate: the last two dims are (in, out), the others multiply both
        if full:
            fan_in = float(full[-2]) if len(full) > 1 else float(full[-1])
            fan_out = float(full[-1])
        else:
            fan_in = fan_out = 1.0
        for dim in full[:-2]:
            fan_in *= dim
            fan_out *= dim
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return random_uniform(dims, -limit, limit, target, seed=seed)
        return truncated_normal(dims, 0.0, math.sqrt(1.3 * factor / n), target, seed=seed)

    return initializer


def xavier_initializer(
    uniform: bool = True, seed: int | None = None, dtype: Any = _dtypes.float32
) -> Any:
    """``tf.contrib.layers.xavier_initializer``: Glorot's initializer (contrib's variant).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.compile(xavier_initializer(seed=1)([5, 5, 1, 32]))()
    >>> w.shape, bool(abs(w).max() <= (6 / (25 + 800)) ** 0.5)
    ((5, 5, 1, 32), True)
    """
    return contrib_variance_scaling_initializer(1.0, "FAN_AVG", uniform, seed, dtype)


xavier_initializer_conv2d = xavier_initializer


__all__ = [
    "compute_fans",
    "constant_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "he_normal",
    "he_uniform",
    "lecun_normal",
    "lecun_uniform",
    "ones_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "truncated_normal_initializer",
    "uniform_unit_scaling_initializer",
    "variance_scaling_initializer",
    "xavier_initializer",
    "xavier_initializer_conv2d",
    "zeros_initializer",
]
