"""Random ops: normal, uniform and truncated normal draws, shuffles, categorical samples,
and TF1's seeding rules (``set_random_seed``, op-level ``seed=``).

A random op draws from the generated function's random source: the function takes an
argument ``rng`` (one NumPy ``Generator`` per random op, its *stream*), which
:class:`symgrad.Session` feeds, so the generated module stays a pure function of its
arguments. The numbers come from NumPy and cannot equal TensorFlow's; the distributions
and the seeding rules are TF1's (``tensorflow/python/framework/random_seed.py``):

- graph seed and op seed set: the op's stream is seeded by both;
- only the graph seed: the op seed is the number of ops the graph had when the op was
  made, so two ops draw different numbers and a program draws the same numbers run after run;
- only the op seed: the graph seed is TF's default, 87654321;
- neither: the stream is seeded from the operating system (other numbers in every process).

Each op keeps its stream for the life of a Session: every ``run`` draws new numbers, a new
Session starts over (so ``global_variables_initializer()`` gives the same initial values).
Random ops have no gradient: what they draw is an opaque input of differentiation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Graph, Operation, Tensor, get_default_graph
from ..shapes import Shape, format_shape, signature
from .array_nodes import ShapeOf
from .base import constant_value
from .creation import _static_dims
from .elementwise import add, cast, greater_equal, multiply, subtract, truediv
from .functions import Literal, _Structural, literal
from .registry import OpDef, register
from .reshaping import reshape
from .shape_queries import shape as shape_of
from .sources import convert_to_tensor

# --- seeds (TF1's random_seed.get_seed) -------------------------------------------------------

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def set_random_seed(seed: int | None) -> None:
    """Set the graph-level seed of the default graph (TF1's ``tf.set_random_seed``).

    Random ops made afterwards in this graph draw the same numbers in every run of the
    program; two ops still draw different numbers.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default() as g:
    ...     sg.set_random_seed(42)
    ...     g.seed
    42
    """
    get_default_graph().seed = None if seed is None else int(seed)


def get_seed(op_seed: int | None, graph: Graph | None = None) -> tuple[int | None, int | None]:
    """The (graph seed, op seed) pair a random op made now uses, by TF1's rules.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     get_seed(None), get_seed(7)
    ((None, None), (87654321, 7))
    """
    graph = graph or get_default_graph()
    global_seed = graph.seed
    seeds: tuple[int | None, int | None]
    if global_seed is not None:
        # TF takes the graph's last op id: every op made so far counts.
        local = len(graph.get_operations()) if op_seed is None else int(op_seed)
        seeds = (int(global_seed) % _MAXINT32, local % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    # (0, 0) means "nondeterministic" to TF's kernels, so TF moves it away from there.
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def generator_for(op: Operation) -> np.random.Generator:
    """A fresh NumPy generator for the stream of random op ``op``, seeded by its seeds.

    Equal seeds give equal streams in every process; an op without seeds gets one seeded
    from the operating system.
    """
    graph_seed, op_seed = op.attrs["seed"]
    if graph_seed is None:
        return np.random.default_rng()
    return np.random.default_rng([graph_seed, op_seed])


def random_ops_of(program_streams: Sequence[str], graph: Graph) -> list[Operation]:
    """The random ops named by a program's ``random_streams``, in stream order."""
    return [graph.get_operation_by_name(name) for name in program_streams]


# --- the IR node -----------------------------------------------------------------------------------


class RandomDraw(_Structural):
    """A draw from stream ``rng[k]`` of the generated function's random source.

    Args: the stream (the op's name until the tracer numbers it), the kind (``normal``,
    ``uniform``, ``integers``, ``truncated_normal``, ``permutation``, ``categorical``), the
    result's dtype name, the size (a literal shape, or ``np.shape(x)``), then the kind's
    operands (bounds, the value to shuffle, the logits and the sample count).
    """

    # Each draw is its own: two draws of one kind and size are two different arrays.
    pure = False

    def result_dtype(self, dtype_of: Any) -> str:
        return str(self.args[2])


def _size_argument(op: Operation, operands: Sequence[sp.Expr]) -> sp.Basic:
    if op.attrs["like"]:
        return ShapeOf(operands[0])
    shape = op.outputs[0].shape
    assert shape is not None  # a draw without a ``like`` tensor has a static shape
    return literal(tuple(shape))


def _lower(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    kind = op.attrs["kind"]
    dtype = Literal(op.outputs[0].dtype.name)
    stream = Literal(op.name)
    if kind == "permutation":
        return RandomDraw(stream, Literal(kind), dtype, literal(None), operands[0])
    if kind == "categorical":
        return RandomDraw(
            stream, Literal(kind), dtype, literal(None), operands[0], literal(op.attrs["samples"])
        )
    if kind in ("log_uniform_candidates", "uniform_candidates"):
        return RandomDraw(
            stream,
            Literal(kind),
            dtype,
            literal(None),
            literal(op.attrs["samples"]),
            literal(op.attrs["range_max"]),
            literal(op.attrs["unique"]),
        )
    if kind == "unigram_candidates":
        # the weights are the op's input (a constant): the table stays out of the code's text
        return RandomDraw(
            stream,
            Literal(kind),
            dtype,
            literal(None),
            literal(op.attrs["samples"]),
            operands[0],
            literal(op.attrs["unique"]),
        )
    extra = [literal(op.attrs["low"]), literal(op.attrs["high"])] if kind == "integers" else []
    return RandomDraw(stream, Literal(kind), dtype, _size_argument(op, operands), *extra)


def _signature(op: Operation, operands: Sequence[Any]) -> Any:
    # A draw shaped like x (``random_uniform(tf.shape(x))``) has x's run-time shape, so
    # combining it with x needs no run-time broadcast.
    if op.attrs["kind"] == "permutation" or op.attrs["like"]:
        return operands[0]
    return signature(op.outputs[0].shape, op.name)


for _type in (
    "RandomStandardNormal",
    "RandomUniform",
    "RandomUniformInt",
    "TruncatedNormal",
    "RandomShuffle",
    "Multinomial",
    "LogUniformCandidateSampler",
    "UniformCandidateSampler",
    "FixedUnigramCandidateSampler",
):
    register(
        OpDef(
            _type,
            lower=_lower,
            gradient=None,  # TF registers these as not differentiable
            materialized_inputs=lambda op: (0,) if op.attrs["like"] else (),
            shape_only_inputs=(),
            signature=_signature,
            random=True,
        )
    )


# --- builders --------------------------------------------------------------------------------------


def _draw_shape(shape: Any, op: str) -> tuple[Shape, Tensor | None]:
    """(static shape, tensor whose run-time shape it is): ``tf.shape(x)`` keeps x's shape."""
    if hasattr(shape, "as_list"):  # a TensorShape (``x.get_shape()``)
        shape = shape.as_list()
    if isinstance(shape, Tensor) and shape.op.type == "Shape":
        like = shape.op.inputs[0]
        return like.shape, like
    if isinstance(shape, Tensor) and constant_value(shape) is None:
        raise InvalidArgumentError(
            f"symgrad: {op}: the shape must be a list of ints, a constant, or tf.shape(x); "
            f"tensor '{shape.name}' is computed at run time"
        )
    if isinstance(shape, (list, tuple)) and any(d is None for d in shape):
        raise ShapeError(
            f"symgrad: {op}: shape {list(shape)} has an unknown dim; give every dim, or "
            f"tf.shape(x) to draw as many values as x has"
        )
    return _static_dims(shape, op), None


def _floating(dtype: Any, op: str) -> _dtypes.DType:
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise DTypeError(f"symgrad: {op}: dtype must be a floating type, got {dtype.name}")
    return dtype


def _draw(
    op_type: str,
    kind: str,
    shape: Any,
    dtype: _dtypes.DType,
    seed: int | None,
    name: str,
    inputs: Sequence[Tensor] = (),
    attrs: dict | None = None,
) -> Tensor:
    static, like = _draw_shape(shape, op_type) if shape is not None else (None, None)
    graph = get_default_graph()
    out_shape = attrs.pop("shape") if attrs and "shape" in attrs else static
    full = {
        "kind": kind,
        "seed": get_seed(seed, graph),
        "like": like is not None,
        # The op's own name keeps two draws alike in every other way apart (they are two
        # streams, not one value computed twice).
        "stream": name,
        **(attrs or {}),
    }
    operands = [like] if like is not None else list(inputs)
    return graph.create_op(op_type, operands, full, [(out_shape, dtype)], name=name).outputs[0]


def _scaled(
    draw: Tensor, scale: Any, offset: Any, dtype: _dtypes.DType, name: str, base: str
) -> Tensor:
    """``draw * scale + offset`` as TF builds it (the ops skipped where they change nothing);
    the last op gets the name the user gave."""
    shift = not (isinstance(offset, (int, float)) and offset == 0)
    if not (isinstance(scale, (int, float)) and scale == 1):
        scale = convert_to_tensor(scale, dtype=dtype)
        draw = multiply(draw, scale, name=f"{base}/mul" if shift else name)
    if shift:
        return add(draw, convert_to_tensor(offset, dtype=dtype), name=name)
    return draw


def _normal(
    op_type: str,
    kind: str,
    draw_name: str,
    shape: Any,
    mean: Any,
    stddev: Any,
    dtype: Any,
    seed: int | None,
    base: str,
) -> Tensor:
    """A standard draw of ``kind`` named ``base`` (``base/draw_name`` when scaled or
    shifted), times ``stddev`` plus ``mean``: TF1's random_normal and truncated_normal."""
    dtype = _floating(dtype, op_type)
    plain = isinstance(mean, (int, float)) and mean == 0
    plain = plain and isinstance(stddev, (int, float)) and stddev == 1
    draw = _draw(op_type, kind, shape, dtype, seed, base if plain else f"{base}/{draw_name}")
    return _scaled(draw, stddev, mean, dtype, base, base)


def random_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = _dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Values drawn from a normal distribution (TF1's ``tf.random_normal``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.set_random_seed(1)
    ...     w = sg.Variable(sg.random_normal([784, 10], stddev=0.1), name="w")
    ...     with sg.Session() as sess:
    ...         _ = sess.run(sg.global_variables_initializer())
    ...         value = sess.run(w)
    >>> value.shape, value.dtype, bool(abs(value.std() - 0.1) < 0.01)
    ((784, 10), dtype('float32'), True)
    """
    base = name or "random_normal"
    return _normal(
        "RandomStandardNormal", "normal", "standard_normal", shape, mean, stddev, dtype, seed, base
    )


def truncated_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = _dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Normal values redrawn while more than two standard deviations from the mean
    (TF1's ``tf.truncated_normal``): their standard deviation is about 0.88 ``stddev``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     t = sg.truncated_normal([1000], stddev=0.5, seed=3)
    ...     value = sg.compile(t)()
    >>> bool(abs(value).max() <= 1.0)
    True
    """
    base = name or "truncated_normal"
    return _normal(
        "TruncatedNormal",
        "truncated_normal",
        "truncated_normal",
        shape,
        mean,
        stddev,
        dtype,
        seed,
        base,
    )


def random_uniform(
    shape: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = _dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Values drawn uniformly from ``[minval, maxval)`` (TF1's ``tf.random_uniform``).

    Floating types default to ``[0, 1)``; integer types need ``maxval`` (Python numbers).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     dice = sg.random_uniform([5], 1, 7, dtype=sg.int32, seed=2)
    ...     value = sg.compile(dice)()
    >>> value.dtype, bool(value.min() >= 1 and value.max() <= 6)
    (dtype('int32'), True)
    """
    dtype = _dtypes.as_dtype(dtype)
    base = name or "random_uniform"
    if dtype.is_integer:
        if maxval is None:
            raise InvalidArgumentError(
                f"symgrad: random_uniform: an integer dtype ({dtype.name}) needs maxval"
            )
        low, high = _python_int(minval, "minval"), _python_int(maxval, "maxval")
        if low >= high:
            raise InvalidArgumentError(
                f"symgrad: random_uniform: need minval < maxval, got {low} >= {high}"
            )
        return _draw(
            "RandomUniformInt",
            "integers",
            shape,
            dtype,
            seed,
            base,
            attrs={"low": low, "high": high},
        )
    dtype = _floating(dtype, "RandomUniform")
    maxval = 1 if maxval is None else maxval
    plain = isinstance(minval, (int, float)) and minval == 0
    plain = plain and isinstance(maxval, (int, float)) and maxval == 1
    draw = _draw(
        "RandomUniform", "uniform", shape, dtype, seed, base if plain else f"{base}/uniform"
    )
    if plain:
        return draw
    if isinstance(minval, (int, float)) and isinstance(maxval, (int, float)):
        width: Any = maxval - minval
    else:
        width = convert_to_tensor(maxval, dtype=dtype) - convert_to_tensor(minval, dtype=dtype)
    return _scaled(draw, width, minval, dtype, base, base)


def _python_int(value: Any, what: str) -> int:
    known = constant_value(value) if isinstance(value, Tensor) else np.asarray(value)
    if known is None or known.ndim or known.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"symgrad: random_uniform: {what} of an integer draw must be a Python int, got "
            f"{value!r:.60}"
        )
    return int(known)


def random_shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """``value`` with its first axis in a random order (TF1's ``tf.random_shuffle``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     order = sg.random_shuffle(sg.range(5), seed=4)
    ...     sorted(sg.compile(order)().tolist())
    [0, 1, 2, 3, 4]
    """
    x = convert_to_tensor(value)
    if x.shape is not None and len(x.shape) == 0:
        raise ShapeError(f"symgrad: RandomShuffle: '{x.name}' is a scalar; it needs rank >= 1")
    return _draw(
        "RandomShuffle",
        "permutation",
        None,
        x.dtype,
        seed,
        name or "RandomShuffle",
        inputs=[x],
        attrs={"shape": x.shape},
    )


def multinomial(
    logits: Any,
    num_samples: int,
    seed: int | None = None,
    name: str | None = None,
    output_dtype: Any = None,
) -> Tensor:
    """``num_samples`` class indices per row of ``logits`` ([batch, classes], unnormalized
    log-probabilities), as TF1's ``tf.multinomial``; int64 unless ``output_dtype`` says.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     draws = sg.multinomial([[0.0, -1e9]], 3, seed=5)
    ...     sg.compile(draws)().tolist()
    [[0, 0, 0]]
    """
    x = convert_to_tensor(logits)
    if not x.dtype.is_floating or x.shape is None or len(x.shape) != 2:
        raise ShapeError(
            f"symgrad: Multinomial: logits must be a floating [batch, classes] matrix, got "
            f"'{x.name}' {x.dtype.name}{format_shape(x.shape)}"
        )
    dtype = _dtypes.as_dtype(output_dtype or _dtypes.int64)
    if not dtype.is_integer:
        raise DTypeError(
            f"symgrad: Multinomial: output_dtype must be int32 or int64, not {dtype.name}"
        )
    samples = int(num_samples)
    return _draw(
        "Multinomial",
        "categorical",
        None,
        dtype,
        seed,
        name or "multinomial",
        inputs=[x],
        attrs={"shape": (x.shape[0], samples), "samples": samples},
    )


def categorical(
    logits: Any,
    num_samples: int,
    dtype: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """``tf.random.categorical``: :func:`multinomial` with the argument order of ``tf.random``."""
    return multinomial(logits, num_samples, seed=seed, name=name, output_dtype=dtype)


# --- random ops inside a computed graph ------------------------------------------------------------


def _noise_shape(x: Tensor, noise_shape: Any) -> Any:
    """TF's ``_get_noise_shape``: x's run-time shape, or ``noise_shape`` with its unknown
    dims taken from x's static shape."""
    if noise_shape is None:
        return shape_of(x)
    if isinstance(noise_shape, Tensor):
        return noise_shape
    dims = list(noise_shape.as_list() if hasattr(noise_shape, "as_list") else noise_shape)
    if x.shape is not None and len(x.shape) == len(dims):
        dims = [x.shape[i] if d is None else d for i, d in enumerate(dims)]
    if any(d is None for d in dims):
        raise ShapeError(
            f"symgrad: dropout: noise_shape {list(noise_shape)} has a dim that '{x.name}' "
            f"{format_shape(x.shape)} does not fix; give every dim of noise_shape"
        )
    return dims


def dropout(
    x: Any,
    keep_prob: Any = None,
    noise_shape: Any = None,
    seed: int | None = None,
    name: str | None = None,
    rate: Any = None,
) -> Tensor:
    """Each element of ``x`` zeroed with probability ``rate`` (= 1 - ``keep_prob``), the
    others scaled by ``1 / keep_prob`` (TF1's ``tf.nn.dropout``).

    ``keep_prob`` or ``rate`` may be a placeholder, fed per run (``keep_prob: 1.0`` to
    evaluate: then the result is ``x``). ``noise_shape`` draws one decision per element
    of a shape that broadcasts to x's (``[batch, 1]``: whole rows). The mask is drawn once
    per run: a value and its gradient fetched together use the same one; the gradient is
    the mask times the scale.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 4], name="x")
    ...     keep = sg.placeholder(sg.float32, [], name="keep_prob")
    ...     h = sg.nn.dropout(x, keep_prob=keep, seed=1)
    ...     with sg.Session() as sess:
    ...         print(sess.run(h, {x: np.ones((2, 4)), keep: 1.0}))
    ...         print(sorted(set(sess.run(h, {x: np.ones((2, 4)), keep: 0.5}).ravel())))
    [[1. 1. 1. 1.]
     [1. 1. 1. 1.]]
    [np.float32(0.0), np.float32(2.0)]
    """
    if keep_prob is not None and rate is not None:
        raise InvalidArgumentError("symgrad: dropout: give keep_prob or rate, not both")
    if keep_prob is None and rate is None:
        raise InvalidArgumentError("symgrad: dropout: give keep_prob or rate")
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise DTypeError(
            f"symgrad: dropout: x must be a floating tensor, got '{x.name}' of {x.dtype.name}"
        )
    base = name or "dropout"
    if keep_prob is not None:
        if isinstance(keep_prob, (int, float)) and not 0 < keep_prob <= 1:
            raise InvalidArgumentError(
                f"symgrad: dropout: keep_prob must be in (0, 1], got {keep_prob}"
            )
        rate = (
            1.0 - keep_prob
            if isinstance(keep_prob, (int, float))
            else subtract(1.0, convert_to_tensor(keep_prob, dtype=x.dtype), name=f"{base}/sub")
        )
    if isinstance(rate, (int, float)):
        if not 0 <= rate < 1:
            raise InvalidArgumentError(
                f"symgrad: dropout: rate must be a scalar tensor or a float in [0, 1), got {rate}"
            )
        if rate == 0:  # nothing is dropped (TF returns x itself)
            return x
    rate_tensor = convert_to_tensor(rate, dtype=x.dtype)
    if rate_tensor.shape is None:
        # ``tf.placeholder(tf.float32)`` for keep_prob, as TF1 programs write it: a scalar at
        # run time; TF gives the result x's shape (``set_shape``), so does this reshape.
        rate_tensor = reshape(rate_tensor, [], name=f"{base}/rate")
    if rate_tensor.shape != ():
        raise ShapeError(
            f"symgrad: dropout: rate must be a scalar, got '{rate_tensor.name}' "
            f"{format_shape(rate_tensor.shape)}"
        )
    uniform = random_uniform(
        _noise_shape(x, noise_shape), dtype=x.dtype, seed=seed, name=f"{base}/random_uniform"
    )
    # TF keeps an element where the draw is >= rate, and scales the kept ones by 1/keep_prob.
    keep = cast(greater_equal(uniform, rate_tensor), x.dtype, name=f"{base}/mask")
    scale = truediv(1.0, subtract(1.0, rate_tensor), name=f"{base}/scale")
    return multiply(multiply(x, scale), keep, name=base)


__all__ = [
    "categorical",
    "dropout",
    "get_seed",
    "multinomial",
    "random_normal",
    "random_shuffle",
    "random_uniform",
    "set_random_seed",
    "truncated_normal",
]
