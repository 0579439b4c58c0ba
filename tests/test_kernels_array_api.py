"""The array_api backend's kernels (``symgrad/backends/array_api/kernels``), called directly.

Each kernel runs on array_api_strict arrays (the standard's strict implementation, at the
2023.12 revision generated modules are written for), on NumPy arrays through NumPy's own
namespace and through array_api_compat's (the one ``_namespace`` picks for NumPy arrays),
and on PyTorch tensors; a library that is not installed is skipped. A kernel with a twin
in the NumPy backend (``symgrad/backends/numpy/kernels``, itself checked against values
TensorFlow recorded) must agree with it on the same values as NumPy arrays: values, dtype
and shape. The others are checked against NumPy's own functions or by construction.

Every kernel the backend declares (``KERNELS``) is called by some test of this file
(``test_every_kernel_is_called_by_a_test`` reads the file's calls).
"""

from __future__ import annotations

import ast
import contextlib
import math
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from symgrad.backends.array_api.kernels import KERNELS
from symgrad.backends.array_api.kernels import namespace as namespace_module
from symgrad.backends.array_api.kernels.checks import (
    _check,
    _ensure_axis,
    _ensure_broadcastable,
    _ensure_in_range,
    _ensure_same_dims,
    _ensure_segment_ids,
    _ensure_shape,
    _matrices,
    _select_condition,
    _squeeze_last_by_rank,
)
from symgrad.backends.array_api.kernels.conv import (
    _add_windows,
    _conv2d,
    _conv2d_backprop_filter,
    _conv2d_backprop_input,
    _depthwise_conv2d,
    _depthwise_conv2d_backprop_filter,
    _depthwise_conv2d_backprop_input,
    _native_conv2d,
    _native_conv2d_backprop_filter,
    _native_conv2d_backprop_input,
    _pads,
    _spread,
    _tf_pads,
    _windows,
)
from symgrad.backends.array_api.kernels.diagonals import (
    _band_part,
    _diag,
    _diag_part,
    _matrix_diag,
    _matrix_diag_part,
    _matrix_set_diag_zeros,
)
from symgrad.backends.array_api.kernels.math import (
    _cumprod,
    _cumsum,
    _depth_window_sum,
    _einsum,
    _erf,
    _erfc,
    _huber_loss,
    _integer_mean,
    _logistic_loss,
    _prod_others,
    _prod_others_vjp,
    _reduce_extremum,
    _sum_leading_axes,
    _sum_to_shape,
    _top_k_grad,
    _top_k_indices,
    _weighted_logistic_grad,
    _weighted_logistic_loss,
)
from symgrad.backends.array_api.kernels.namespace import (
    _device_of,
    _holds,
    _is_numpy,
    _kept_shapes,
    _namespace,
    _native,
    _numpy_dtype,
    _on_host,
    _quiet,
    _special,
    _traced,
)
from symgrad.backends.array_api.kernels.pool import (
    _avg_pool,
    _avg_pool_grad,
    _first_max,
    _max_pool,
    _max_pool_grad,
    _max_pool_grad_grad,
    _pool_counts,
)
from symgrad.backends.array_api.kernels.resize import (
    _bilinear_matrix,
    _bilinear_taps,
    _nearest_taps,
    _resize_adjoint,
    _resize_bilinear,
    _resize_bilinear_grad,
    _resize_nearest,
    _resize_nearest_grad,
    _resize_positions,
)
from symgrad.backends.array_api.kernels.scatter import (
    _array_write,
    _array_write_grad,
    _boolean_mask,
    _boolean_mask_grad,
    _concat_part,
    _equal_part,
    _mirror_pad_grad,
    _one_hot,
    _one_hot_like,
    _pad,
    _placement,
    _scatter,
    _scatter_add,
    _sequence_mask,
    _split_equal,
    _squeeze_ones,
    _take,
    _take_along_axis,
    _unconcat_part,
    _unsplit_equal,
    _untile,
)
from symgrad.backends.array_api.kernels.segments import (
    _segment_gather,
    _segment_max,
    _segment_min,
    _segment_prod,
    _segment_rows,
    _segment_sum,
    _sorted_segment_max,
    _sorted_segment_min,
)
from symgrad.backends.numpy.kernels import checks as np_checks
from symgrad.backends.numpy.kernels import conv as np_conv
from symgrad.backends.numpy.kernels import diagonals as np_diagonals
from symgrad.backends.numpy.kernels import math as np_math
from symgrad.backends.numpy.kernels import pool as np_pool
from symgrad.backends.numpy.kernels import random as np_random
from symgrad.backends.numpy.kernels import resize as np_resize
from symgrad.backends.numpy.kernels import scatter as np_scatter
from symgrad.backends.numpy.kernels import segments as np_segments

# The portable form's random kernels are the NumPy backend's (kernels.FROM_NUMPY).
from symgrad.backends.numpy.kernels.random import (
    _categorical,
    _generators,
    _log_uniform_candidates,
    _truncated_normal,
    _uniform_candidates,
    _unigram_candidates,
)

NAMESPACES = ["array_api_strict", "numpy", "compat-numpy", "torch"]


@pytest.fixture(params=NAMESPACES)
def xp(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The namespace a kernel runs in (array_api_strict at the 2023.12 revision)."""
    if request.param == "array_api_strict":
        strict = pytest.importorskip("array_api_strict")
        with strict.ArrayAPIStrictFlags(api_version="2023.12"):
            yield strict
    elif request.param == "numpy":
        yield np
    elif request.param == "compat-numpy":
        yield pytest.importorskip("array_api_compat.numpy")
    else:
        pytest.importorskip("torch")
        yield pytest.importorskip("array_api_compat.torch")


def put(xp: Any, values: Any, dtype: Any = None) -> Any:
    """``values`` (NumPy's dtype, or ``dtype``) as an array of ``xp``, a copy."""
    return xp.asarray(np.array(values, dtype=dtype))


def same(actual: Any, expected: Any, rtol: float = 1e-12) -> None:
    """``actual`` (an array of any namespace) equals ``expected``: dtype, shape, values."""
    got, want = np.asarray(actual), np.asarray(expected)
    assert got.dtype == want.dtype, f"dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape}, expected {want.shape}"
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


def name_of(xp: Any) -> str:
    return getattr(xp, "__name__", str(xp))


class WithoutEinsum:
    """``xp`` less its ``einsum``: ``_einsum`` then contracts in the standard's functions."""

    def __init__(self, xp: Any) -> None:
        self._xp = xp

    def __getattr__(self, name: str) -> Any:
        if name == "einsum":
            raise AttributeError(name)
        return getattr(self._xp, name)


def test_every_kernel_is_called_by_a_test() -> None:
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    missing = [name for name in KERNELS if name not in called]
    assert not missing, f"kernels no test of this file calls: {missing}"


# --- convolutions ---------------------------------------------------------------------------

# (input shape, filter shape, strides, dilations, padding)
CONV_CASES = [
    ((2, 7, 6, 3), (3, 2, 3, 4), (1, 1), (1, 1), "SAME"),
    ((2, 7, 6, 3), (3, 2, 3, 4), (1, 1), (1, 1), "VALID"),
    ((1, 7, 5, 2), (3, 3, 2, 3), (2, 2), (1, 1), "SAME"),  # odd sizes: the odd pad after
    ((1, 8, 7, 2), (2, 3, 2, 2), (2, 3), (1, 1), "VALID"),
    ((1, 9, 8, 2), (2, 3, 2, 2), (1, 1), (2, 3), "SAME"),
    ((2, 9, 8, 1), (3, 2, 1, 2), (1, 2), (2, 1), "VALID"),
    ((1, 2, 3, 2), (4, 4, 2, 1), (3, 3), (1, 1), "SAME"),  # a kernel larger than the image
]


@pytest.mark.parametrize("shape, filter_shape, strides, dilations, padding", CONV_CASES)
def test_conv2d_and_its_gradients_agree_with_the_numpy_kernels(
    xp: Any, shape: Any, filter_shape: Any, strides: Any, dilations: Any, padding: Any
) -> None:
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=shape), rng.normal(size=filter_shape)
    expected = np_conv._conv2d(x, w, strides, dilations, padding)
    same(_conv2d(xp, put(xp, x), put(xp, w), strides, dilations, padding), expected)
    dy = rng.normal(size=expected.shape)
    same(
        _conv2d_backprop_input(xp, put(xp, dy), put(xp, w), shape, strides, dilations, padding),
        np_conv._conv2d_backprop_input(dy, w, shape, strides, dilations, padding),
    )
    kernel = filter_shape[:2]
    same(
        _conv2d_backprop_filter(xp, put(xp, x), put(xp, dy), kernel, strides, dilations, padding),
        np_conv._conv2d_backprop_filter(x, dy, kernel, strides, dilations, padding),
    )


@pytest.mark.parametrize("shape, filter_shape, strides, dilations, padding", CONV_CASES[2:5])
def test_conv2d_backprops_are_its_adjoints(
    xp: Any, shape: Any, filter_shape: Any, strides: Any, dilations: Any, padding: Any
) -> None:
    # <conv(x, w), dy> = <x, backprop_input(dy, w)> = <w, backprop_filter(x, dy)>
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=shape), rng.normal(size=filter_shape)
    y = np.asarray(_conv2d(xp, put(xp, x), put(xp, w), strides, dilations, padding))
    dy = rng.normal(size=y.shape)
    dx = _conv2d_backprop_input(xp, put(xp, dy), put(xp, w), shape, strides, dilations, padding)
    dw = _conv2d_backprop_filter(
        xp, put(xp, x), put(xp, dy), filter_shape[:2], strides, dilations, padding
    )
    total = float(np.sum(y * dy))
    assert float(np.sum(x * np.asarray(dx))) == pytest.approx(total, rel=1e-12)
    assert float(np.sum(w * np.asarray(dw))) == pytest.approx(total, rel=1e-12)


@pytest.mark.parametrize("library", ["torch", "jax"])
@pytest.mark.parametrize("shape, filter_shape, strides, dilations, padding", CONV_CASES)
def test_native_convolutions_agree_with_the_numpy_kernels(
    library: str, shape: Any, filter_shape: Any, strides: Any, dilations: Any, padding: Any
) -> None:
    """On torch and JAX, conv2d and its gradients call the library's own convolution (TF's
    padding, strides, dilations); under jax.jit too. float32, as JAX computes by default."""
    pytest.importorskip(library)
    xp = pytest.importorskip("array_api_compat.torch" if library == "torch" else "jax.numpy")
    rng = np.random.default_rng(3)
    x, w = (rng.normal(size=s).astype(np.float32) for s in (shape, filter_shape))
    expected = np_conv._conv2d(x, w, strides, dilations, padding)
    dy = rng.normal(size=expected.shape).astype(np.float32)
    kernel = filter_shape[:2]
    assert _tf_pads(shape[1:3], kernel, strides, dilations, padding) == tuple(
        np_conv._pads(shape[1 + a], (kernel[a] - 1) * dilations[a] + 1, strides[a], padding)
        for a in (0, 1)
    )
    calls = {
        "y": lambda x, w, dy: _native_conv2d(xp, x, w, strides, dilations, padding),
        "dx": lambda x, w, dy: _native_conv2d_backprop_input(
            xp, dy, w, shape, strides, dilations, padding
        ),
        "dw": lambda x, w, dy: _native_conv2d_backprop_filter(
            xp, x, dy, kernel, strides, dilations, padding
        ),
    }
    wanted = {
        "y": expected,
        "dx": np_conv._conv2d_backprop_input(dy, w, shape, strides, dilations, padding),
        "dw": np_conv._conv2d_backprop_filter(x, dy, kernel, strides, dilations, padding),
    }
    arguments = [put(xp, a) for a in (x, w, dy)]
    for name, call in calls.items():
        same(call(*arguments), wanted[name], rtol=2e-5)
        if library == "jax":
            import jax

            same(jax.jit(call)(*arguments), wanted[name], rtol=2e-5)
    # The kernels the module calls take the native path there.
    same(_conv2d(xp, *arguments[:2], strides, dilations, padding), expected, rtol=2e-5)


def test_native_kernels_are_only_torch_s_and_jax_s_for_floats() -> None:
    assert _native(np, "torch", np.ones(2)) is None
    assert _native(np, "jax", np.ones(2)) is None
    torch = pytest.importorskip("torch")
    xp = pytest.importorskip("array_api_compat.torch")
    floats, integers = xp.asarray([1.0]), xp.asarray([1])
    assert _native(xp, "torch", floats, floats) is torch
    assert _native(xp, "jax", floats) is None
    assert _native(xp, "torch", integers) is None
    assert _native(xp, "torch", floats, xp.asarray([1.0], dtype=xp.float64)) is None


# (input shape, depthwise filter shape, strides, dilations, padding)
DEPTHWISE_CASES = [
    ((2, 7, 6, 3), (3, 2, 3, 2), (1, 1), (1, 1), "SAME"),
    ((1, 7, 5, 2), (3, 3, 2, 1), (2, 2), (1, 1), "SAME"),  # odd sizes: the odd pad after
    ((1, 8, 7, 2), (2, 3, 2, 3), (2, 2), (1, 1), "VALID"),
    ((2, 9, 8, 1), (3, 2, 1, 2), (1, 1), (2, 1), "VALID"),
    ((1, 2, 3, 2), (4, 4, 2, 1), (1, 1), (1, 1), "SAME"),  # a kernel larger than the image
]


@pytest.mark.parametrize("shape, filter_shape, strides, dilations, padding", DEPTHWISE_CASES)
def test_depthwise_conv2d_and_its_gradients_agree_with_the_numpy_kernels(
    xp: Any, shape: Any, filter_shape: Any, strides: Any, dilations: Any, padding: Any
) -> None:
    rng = np.random.default_rng(2)
    x, w = rng.normal(size=shape), rng.normal(size=filter_shape)
    expected = np_conv._depthwise_conv2d(x, w, strides, dilations, padding)
    same(_depthwise_conv2d(xp, put(xp, x), put(xp, w), strides, dilations, padding), expected)
    dy = rng.normal(size=expected.shape)
    same(
        _depthwise_conv2d_backprop_input(
            xp, put(xp, dy), put(xp, w), shape, strides, dilations, padding
        ),
        np_conv._depthwise_conv2d_backprop_input(dy, w, shape, strides, dilations, padding),
    )
    kernel = filter_shape[:2]
    same(
        _depthwise_conv2d_backprop_filter(
            xp, put(xp, x), put(xp, dy), kernel, strides, dilations, padding
        ),
        np_conv._depthwise_conv2d_backprop_filter(x, dy, kernel, strides, dilations, padding),
    )


# (image shape, size, align_corners, half_pixel_centers)
RESIZE_CASES = [
    ((2, 3, 4, 2), (5, 7), False, False),
    ((1, 7, 9, 1), (3, 4), False, False),
    ((1, 3, 4, 2), (5, 7), True, False),
    ((1, 8, 5, 1), (3, 2), True, False),
    ((1, 5, 4, 1), (1, 6), True, False),
    ((2, 3, 4, 2), (5, 7), False, True),
    ((1, 9, 6, 1), (4, 11), False, True),
]


@pytest.mark.parametrize("shape, size, corners, half", RESIZE_CASES)
def test_resize_kernels_agree_with_the_numpy_kernels(
    xp: Any, shape: Any, size: Any, corners: bool, half: bool
) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=shape)
    device = _device_of(put(xp, x))
    for size_in, out in ((shape[1], size[0]), (shape[2], size[1])):
        same(
            _resize_positions(xp, size_in, out, corners, half, device),
            np_resize._resize_positions(size_in, out, corners, half),
        )
        for got, want in zip(
            _bilinear_taps(xp, size_in, out, corners, half, device),
            np_resize._bilinear_taps(size_in, out, corners, half),
            strict=True,
        ):
            same(got, want)
        same(
            _nearest_taps(xp, size_in, out, corners, half, device),
            np_resize._nearest_taps(size_in, out, corners, half),
        )
        same(
            _bilinear_matrix(xp, size_in, out, corners, half, device),
            np_resize._bilinear_matrix(size_in, out, corners, half),
        )
    # float32 results bit for bit, for float64 and integer images
    same(
        _resize_bilinear(xp, put(xp, x), size, corners, half),
        np_resize._resize_bilinear(x, size, corners, half),
        rtol=0,
    )
    integers = rng.integers(0, 256, shape).astype(np.int32)
    same(
        _resize_bilinear(xp, put(xp, integers), size, corners, half),
        np_resize._resize_bilinear(integers, size, corners, half),
        rtol=0,
    )
    same(
        _resize_nearest(xp, put(xp, integers), size, corners, half),
        np_resize._resize_nearest(integers, size, corners, half),
    )
    dy = rng.normal(size=(shape[0], *size, shape[3]))
    same(
        _resize_bilinear_grad(xp, put(xp, dy), shape, corners, half),
        np_resize._resize_bilinear_grad(dy, shape, corners, half),
    )
    dy32 = dy.astype(np.float32)
    same(
        _resize_nearest_grad(xp, put(xp, dy32), shape, corners, half),
        np_resize._resize_nearest_grad(dy32, shape, corners, half),
        rtol=1e-6,
    )
    rows, columns = rng.normal(size=(size[0], shape[1])), rng.normal(size=(size[1], shape[2]))
    same(
        _resize_adjoint(xp, put(xp, dy), put(xp, rows), put(xp, columns)),
        np_resize._resize_adjoint(dy, rows, columns),
    )


def test_pads_agree_with_the_numpy_kernel() -> None:
    for padding in ("SAME", "VALID"):
        for size in range(1, 9):
            for extent in (1, 2, 3, 5):
                for stride in (1, 2, 3):
                    got = _pads(size, extent, stride, padding)
                    assert got == np_conv._pads(size, extent, stride, padding)
    assert _pads(5, 3, 2, "SAME") == (1, 1)
    assert _pads(4, 2, 1, "SAME") == (0, 1)  # the odd element after, as TF


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("fill", [0, -math.inf])
def test_windows_agree_with_the_numpy_kernel(xp: Any, padding: Any, fill: float) -> None:
    x = np.random.default_rng(2).normal(size=(2, 6, 5, 3))
    for kernel, strides, dilations in [((2, 3), (2, 1), (1, 2)), ((3, 3), (1, 1), (1, 1))]:
        same(
            _windows(xp, put(xp, x), kernel, strides, dilations, padding, fill),
            np_conv._windows(x, kernel, strides, dilations, padding, fill),
        )


@pytest.mark.parametrize(
    "shape, axis, start, step, size",
    [
        ((2, 3, 4), 1, 0, 1, 3),
        ((2, 3, 4), 1, 1, 2, 7),
        ((2, 3, 4), 1, 2, 3, 12),
        ((2, 1, 4), 1, 1, 2, 3),  # one row and a step: no gaps to insert
        ((2, 3, 4), 2, 0, 2, 8),
        ((3, 2), 0, 0, 1, 5),
    ],
)
def test_spread_places_rows_at_strided_positions(
    xp: Any, shape: Any, axis: int, start: int, step: int, size: int
) -> None:
    value = np.random.default_rng(3).normal(size=shape)
    expected_shape = list(shape)
    expected_shape[axis] = size
    expected = np.zeros(expected_shape)
    index: list[Any] = [slice(None)] * len(shape)
    index[axis] = slice(start, start + (shape[axis] - 1) * step + 1, step)
    expected[tuple(index)] = value
    same(_spread(xp, put(xp, value), axis, start, step, size), expected)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize(
    "shape, kernel, strides, dilations",
    [
        ((2, 7, 6, 3), (3, 2), (1, 1), (1, 1)),
        ((1, 7, 5, 2), (3, 3), (2, 2), (1, 1)),
        ((1, 9, 8, 2), (2, 3), (1, 2), (2, 1)),
    ],
)
def test_add_windows_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, kernel: Any, strides: Any, dilations: Any, padding: Any
) -> None:
    windows = np_conv._windows(np.zeros(shape), kernel, strides, dilations, padding, 0)
    columns = np.random.default_rng(4).normal(size=windows.shape)
    same(
        _add_windows(xp, put(xp, columns), shape, strides, dilations, padding),
        np_conv._add_windows(columns, shape, strides, dilations, padding),
    )


# --- pooling --------------------------------------------------------------------------------

# (input shape, ksize, strides, padding): strides equal to ksize take the NumPy kernels' path
# for windows that do not overlap.
POOL_CASES = [
    ((2, 6, 6, 3), (2, 2), (2, 2), "VALID"),
    ((2, 5, 7, 2), (2, 2), (2, 2), "SAME"),
    ((1, 7, 5, 2), (3, 2), (3, 2), "VALID"),  # rows and columns no window reads
    ((1, 5, 5, 2), (3, 3), (1, 1), "SAME"),
    ((2, 4, 5, 1), (2, 3), (2, 1), "SAME"),
    ((1, 6, 7, 2), (3, 3), (2, 2), "VALID"),
]


def _tied(shape: Any, seed: int, dtype: Any = np.float64) -> Any:
    """Values of few distinct levels, below 0 too: windows with ties, and padding that must
    not win."""
    return np.random.default_rng(seed).integers(-3, 2, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape, ksize, strides, padding", POOL_CASES)
def test_max_pool_and_its_first_maxima_agree_with_the_numpy_kernels(
    xp: Any, shape: Any, ksize: Any, strides: Any, padding: Any, dtype: Any
) -> None:
    x = _tied(shape, 5, dtype)
    same(
        _max_pool(xp, put(xp, x), ksize, strides, padding),
        np_pool._max_pool(x, ksize, strides, padding),
    )
    # The NumPy kernel gives the position of each window's first maximum; this one, one
    # True among the window's taps there.
    positions = np_pool._first_max(x, ksize, strides, padding)
    same(
        _first_max(xp, put(xp, x), ksize, strides, padding),
        positions[..., None] == np.arange(ksize[0] * ksize[1]),
    )


@pytest.mark.parametrize("shape, ksize, strides, padding", POOL_CASES)
def test_max_pool_gradients_agree_with_the_numpy_kernels(
    xp: Any, shape: Any, ksize: Any, strides: Any, padding: Any
) -> None:
    x = _tied(shape, 6)
    out = np_pool._max_pool(x, ksize, strides, padding)
    dy = np.random.default_rng(7).normal(size=out.shape)
    same(
        _max_pool_grad(xp, put(xp, x), put(xp, out), put(xp, dy), ksize, strides, padding),
        np_pool._max_pool_grad(x, out, dy, ksize, strides, padding),
    )
    g = np.random.default_rng(8).normal(size=shape)
    same(
        _max_pool_grad_grad(xp, put(xp, x), put(xp, out), put(xp, g), ksize, strides, padding),
        np_pool._max_pool_grad_grad(x, out, g, ksize, strides, padding),
    )


@pytest.mark.parametrize("library", ["torch", "jax"])
@pytest.mark.parametrize("shape, ksize, strides, padding", POOL_CASES)
def test_native_max_pools_agree_with_the_numpy_kernels(
    library: str, shape: Any, ksize: Any, strides: Any, padding: Any
) -> None:
    """Max-pool by the library's own pooling (ties and padding as TF's); its gradient too on
    torch, which keeps the first of tied maxima and lets a NaN win its window."""
    pytest.importorskip(library)
    xp = pytest.importorskip("array_api_compat.torch" if library == "torch" else "jax.numpy")
    x = _tied(shape, 9, np.float32)
    if library == "torch":
        x.reshape(-1)[1] = np.nan
    out = np_pool._max_pool(x, ksize, strides, padding)
    same(_max_pool(xp, put(xp, x), ksize, strides, padding), out)
    dy = np.random.default_rng(10).normal(size=out.shape).astype(np.float32)
    same(
        _max_pool_grad(xp, put(xp, x), put(xp, out), put(xp, dy), ksize, strides, padding),
        np_pool._max_pool_grad(x, out, dy, ksize, strides, padding),
        rtol=1e-6,  # overlapping windows add in another order
    )


@pytest.mark.parametrize("shape, ksize, strides, padding", POOL_CASES)
def test_avg_pool_and_its_gradient_agree_with_the_numpy_kernels(
    xp: Any, shape: Any, ksize: Any, strides: Any, padding: Any
) -> None:
    rng = np.random.default_rng(9)
    x = rng.normal(size=shape)
    expected = np_pool._avg_pool(x, ksize, strides, padding)
    same(_avg_pool(xp, put(xp, x), ksize, strides, padding), expected)
    dy = rng.normal(size=expected.shape)
    same(
        _avg_pool_grad(xp, put(xp, dy), shape, ksize, strides, padding),
        np_pool._avg_pool_grad(dy, shape, ksize, strides, padding),
    )
    device = _device_of(put(xp, x))
    for dtype in ("float64", "float32"):
        same(
            _pool_counts(xp, shape, ksize, strides, padding, getattr(xp, dtype), device),
            np_pool._pool_counts(shape, ksize, strides, padding, np.dtype(dtype)),
        )


# --- segments -------------------------------------------------------------------------------

# (data shape, ids, count): sorted ids, unsorted ones with ids left out (negative), ids of
# rank 2, no rows.
SEGMENT_CASES = [
    ((5, 3), [0, 0, 1, 3, 3], None),
    ((5, 3), [0, 0, 1, 3, 3], 5),
    ((6, 2), [2, -1, 0, 2, 4, -1], 5),
    ((2, 3, 4), [[0, 1, 1], [3, -1, 0]], 4),
    ((0, 3), [], 3),
]


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("shape, ids, count", SEGMENT_CASES)
def test_segment_sum_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, ids: Any, count: Any, dtype: str
) -> None:
    data = np.random.default_rng(10).integers(-5, 6, size=shape).astype(dtype)
    ids = np.array(ids, dtype=np.int64)
    same(
        _segment_sum(xp, put(xp, data), put(xp, ids), count, getattr(xp, dtype)),
        np_segments._segment_sum(data, ids, count, np.dtype(dtype)),
    )


SEGMENT_MAX_CASES = [
    *[pytest.param(*case, id=f"case{i}") for i, case in enumerate(SEGMENT_CASES[1:4])],
    # No rows: every segment empty, `count` rows of the dtype's lowest value, as TF gives.
    pytest.param(*SEGMENT_CASES[4], id="no-rows"),
]


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("shape, ids, count", SEGMENT_MAX_CASES)
def test_segment_max_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, ids: Any, count: Any, dtype: str
) -> None:
    data = np.random.default_rng(11).integers(-5, 6, size=shape).astype(dtype)
    ids = np.array(ids, dtype=np.int64)
    same(
        _segment_max(xp, put(xp, data), put(xp, ids), count, getattr(xp, dtype)),
        np_segments._segment_max(data, ids, count, np.dtype(dtype)),
    )


def test_segment_max_counts_sorted_segments_itself(xp: Any) -> None:
    data = np.arange(10.0).reshape(5, 2)
    ids = put(xp, [0, 0, 2, 2, 3], np.int64)
    same(
        _segment_max(xp, put(xp, data), ids, None, xp.float64),
        np_segments._segment_max(data, np.array([0, 0, 2, 2, 3]), 4, np.float64),
    )


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize(
    "shape, ids",
    [
        ((5, 3), [0, 0, 2, 2, 5]),
        ((4,), [1, 1, 1, 3]),
        ((3, 2, 2), [0, 1, 2]),
        pytest.param((0, 2), [], id="no-rows"),
    ],
)
def test_sorted_segment_max_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, ids: Any, dtype: str
) -> None:
    # Segments no row is in (2 and 4 of the first ids, 0 and 2 of the second) hold 0.
    data = np.random.default_rng(11).integers(-5, 6, size=shape).astype(dtype)
    ids = np.array(ids, dtype=np.int64)
    same(
        _sorted_segment_max(xp, put(xp, data), put(xp, ids), getattr(xp, dtype)),
        np_segments._sorted_segment_max(data, ids, np.dtype(dtype)),
    )


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("shape, ids, count", SEGMENT_MAX_CASES)
def test_segment_min_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, ids: Any, count: Any, dtype: str
) -> None:
    # An empty segment holds the dtype's largest value (with no rows, every segment is empty).
    data = np.random.default_rng(12).integers(-5, 6, size=shape).astype(dtype)
    ids = np.array(ids, dtype=np.int64)
    same(
        _segment_min(xp, put(xp, data), put(xp, ids), count, getattr(xp, dtype)),
        np_segments._segment_min(data, ids, count, np.dtype(dtype)),
    )


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("shape, ids", [((5, 3), [0, 0, 2, 2, 5]), ((4,), [1, 1, 1, 3])])
def test_sorted_segment_min_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, ids: Any, dtype: str
) -> None:
    # Segments no row is in hold 0.
    data = np.random.default_rng(13).integers(-5, 6, size=shape).astype(dtype)
    ids = np.array(ids, dtype=np.int64)
    same(
        _sorted_segment_min(xp, put(xp, data), put(xp, ids), getattr(xp, dtype)),
        np_segments._sorted_segment_min(data, ids, np.dtype(dtype)),
    )


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("shape, ids, count", SEGMENT_CASES)
def test_segment_prod_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, ids: Any, count: Any, dtype: str
) -> None:
    # Zeros among the rows; an empty segment is 1; count None: sorted ids' last + 1.
    data = np.random.default_rng(14).integers(-3, 4, size=shape).astype(dtype)
    ids = np.array(ids, dtype=np.int64)
    same(
        _segment_prod(xp, put(xp, data), put(xp, ids), count, getattr(xp, dtype)),
        np_segments._segment_prod(data, ids, count, np.dtype(dtype)),
    )


def test_segment_rows_lays_out_rows_and_their_segments(xp: Any) -> None:
    data = np.arange(12.0).reshape(3, 2, 2)
    rows, hits, count = _segment_rows(xp, put(xp, data), put(xp, [0, 0, 2], np.int64), None)
    assert count == 3  # the last sorted id, plus one
    same(rows, data)
    same(hits, np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1]], dtype=bool))
    ids = put(xp, [[1, -1], [0, 1], [-1, 0]], np.int64)
    rows, hits, count = _segment_rows(xp, put(xp, data), ids, 2)
    assert count == 2
    same(rows, data.reshape(6, 2))  # ids of rank 2: one row for each of their entries
    same(hits, np.array([[0, 0, 1, 0, 0, 1], [1, 0, 0, 1, 0, 0]], dtype=bool))
    rows, hits, count = _segment_rows(xp, put(xp, np.zeros((0, 2))), put(xp, [], np.int64), None)
    assert count == 0
    assert tuple(hits.shape) == (0, 0)


@pytest.mark.parametrize("ids", [[0, 3, -1, 3, 1], [[2, -1], [0, 0]]])
def test_segment_gather_agrees_with_the_numpy_kernel(xp: Any, ids: Any) -> None:
    value = np.random.default_rng(12).normal(size=(4, 3))
    ids = np.array(ids, dtype=np.int64)
    same(
        _segment_gather(xp, put(xp, value), put(xp, ids)),
        np_segments._segment_gather(value, ids),
    )


# --- elementwise functions, reductions, cumulative ones -------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("exclusive, reverse", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_cumsum_and_cumprod_agree_with_the_numpy_kernels(
    xp: Any, exclusive: int, reverse: int, dtype: str
) -> None:
    # The flags arrive as 0 and 1, as generated modules pass them.
    value = np.random.default_rng(13).integers(-3, 4, size=(3, 4, 2)).astype(dtype)
    for axis in (0, 1, 2, -1, -3):
        same(
            _cumsum(xp, put(xp, value), axis, exclusive, reverse),
            np_math._cumsum(value, axis, exclusive, reverse),
        )
        same(
            _cumprod(xp, put(xp, value), axis, exclusive, reverse),
            np_math._cumprod(value, axis, exclusive, reverse),
        )


def test_cumsum_and_cumprod_refuse_an_axis_the_value_lacks(xp: Any) -> None:
    value = put(xp, np.ones((2, 3)))
    for kernel, twin in [(_cumsum, np_math._cumsum), (_cumprod, np_math._cumprod)]:
        with pytest.raises(ValueError, match=r"axis 2 is out of range .* shape \[2, 3\]"):
            kernel(xp, value, 2, False, False)
        with pytest.raises(ValueError, match="axis -3 is out of range"):
            kernel(xp, value, -3, True, True)
        with pytest.raises(ValueError):
            twin(np.ones((2, 3)), 2, False, False)


def test_cumprod_of_an_empty_axis_is_empty(xp: Any) -> None:
    value = np.ones((2, 0))
    same(_cumprod(xp, put(xp, value), 1, True, False), value)


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-12), ("float32", 1e-6)])
def test_erf_and_erfc_agree_with_the_numpy_kernels(xp: Any, dtype: str, rtol: float) -> None:
    x = np.array([[-6.0, -1.5, -0.5, -0.0], [0.0, 1e-3, 0.7, 5.5]], dtype=dtype)
    same(_erf(xp, put(xp, x)), np_math._erf(x), rtol=rtol)
    same(_erfc(xp, put(xp, x)), np_math._erfc(x), rtol=rtol)


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-12), ("float32", 1e-6)])
def test_sum_leading_axes_agrees_with_the_numpy_kernel(xp: Any, dtype: str, rtol: float) -> None:
    x = np.random.default_rng(3).standard_normal((4, 3, 5, 2)).astype(dtype)
    same(_sum_leading_axes(xp, put(xp, x)), np_math._sum_leading_axes(x), rtol=rtol)


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-12), ("float32", 1e-6)])
def test_logistic_loss_agrees_with_the_numpy_kernel(xp: Any, dtype: str, rtol: float) -> None:
    x = np.array([[-1000.0, -20.0, -0.0], [0.0, 20.0, 1000.0]], dtype=dtype)
    z = np.array([[1.0, 0.0, 0.25], [1.0, 1.0, 0.0]], dtype=dtype)
    same(_logistic_loss(xp, put(xp, x), put(xp, z)), np_math._logistic_loss(x, z), rtol=rtol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_huber_loss_agrees_with_the_numpy_kernel(xp: Any, dtype: str) -> None:
    error = np.array([[-3.0, -1.0, -0.25], [0.0, 1.0, 1000.0]], dtype=dtype)
    for delta in (1.0, np.array([0.5, 1.0, 2.0], dtype=dtype)):
        twin = np_math._huber_loss(error, delta)
        same(
            _huber_loss(xp, put(xp, error), delta if np.ndim(delta) == 0 else put(xp, delta)), twin
        )


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-12), ("float32", 1e-6)])
def test_weighted_logistic_kernels_agree_with_the_numpy_kernels(
    xp: Any, dtype: str, rtol: float
) -> None:
    x = np.array([[-1000.0, -20.0, -0.0], [0.0, 0.5, 1000.0]], dtype=dtype)
    z = np.array([[1.0, 0.0, 0.25], [1.0, 1.0, 0.0]], dtype=dtype)
    loss = _weighted_logistic_loss(xp, put(xp, x), put(xp, z), 3.0)
    same(loss, np_math._weighted_logistic_loss(x, z, 3.0), rtol=rtol)
    grad = _weighted_logistic_grad(xp, put(xp, x), put(xp, z), 3.0)
    same(grad, np_math._weighted_logistic_grad(x, z, 3.0), rtol=rtol)


def test_special_uses_a_namespace_function_or_the_hosts_or_refuses(xp: Any) -> None:
    x = np.array([0.25, -1.0, 2.0])
    same(_special(xp, put(xp, x), "erf", math.erf), [math.erf(v) for v in x])
    # A namespace of its own erf: that one.
    own = types.SimpleNamespace(erf=lambda value: ("own erf of", value))
    assert _special(own, "x", "erf", math.erf) == ("own erf of", "x")
    unknown = types.ModuleType("unknown_arrays")
    with pytest.raises(TypeError, match="erf: the array API standard has no erf and unknown"):
        _special(unknown, put(xp, x), "erf", math.erf)


def test_on_host_maps_a_function_over_a_numpy_array_in_its_dtype() -> None:
    values = np.array([[0.5, -2.0, 0.0]], dtype=np.float32)
    result = _on_host(values, math.erfc)
    assert result.dtype == np.float32 and result.shape == (1, 3)
    np.testing.assert_array_equal(result, np.float32([[math.erfc(v) for v in values[0]]]))
    same(_on_host(np.zeros((2, 0)), math.erf), np.zeros((2, 0)))


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_top_k_indices_and_gradient_agree_with_the_numpy_kernels(xp: Any, dtype: str) -> None:
    x = np.array(
        [[3, 1, 3, 0, 2, 3], [0, 0, 0, 0, 0, 0], [5, -1, 4, 5, -2, 1]], dtype=dtype
    )  # ties: the lower index first
    rng = np.random.default_rng(14)
    for k in (1, 3, 6):
        indices = np_math._top_k_indices(x, k)
        same(_top_k_indices(xp, put(xp, x), k), indices)
        value = rng.normal(size=indices.shape)
        same(
            _top_k_grad(xp, put(xp, value), put(xp, indices), x.shape),
            np_math._top_k_grad(value, indices, x.shape),
        )
    batch = rng.normal(size=(2, 2, 4))
    indices = np_math._top_k_indices(batch, 2)
    same(_top_k_indices(xp, put(xp, batch), 2), indices)
    same(
        _top_k_grad(xp, put(xp, batch[..., :2]), put(xp, indices), batch.shape),
        np_math._top_k_grad(batch[..., :2], indices, batch.shape),
    )


def test_top_k_indices_refuses_a_scalar_and_too_few_entries(xp: Any) -> None:
    with pytest.raises(ValueError, match=r"top_k needs rank 1 or more, got shape \[\]"):
        _top_k_indices(xp, put(xp, 1.0), 1)
    with pytest.raises(ValueError, match="at least k=4 entries along the last axis, got 3"):
        _top_k_indices(xp, put(xp, np.ones((2, 3))), 4)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_take_along_axis_agrees_with_numpy(xp: Any, axis: int) -> None:
    rng = np.random.default_rng(15)
    value = rng.normal(size=(3, 4, 5))
    shape = list(value.shape)
    shape[axis] = 2
    indices = rng.integers(0, value.shape[axis], size=shape).astype(np.int32)
    same(
        _take_along_axis(xp, put(xp, value), put(xp, indices), axis),
        np.take_along_axis(value, indices, axis),
    )


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_agrees_with_numpy(xp: Any, axis: int) -> None:
    value = np.random.default_rng(16).normal(size=(4, 3, 2))
    indices = np.array([[0, 1], [1, 1], [0, 0]], dtype=np.int64)
    same(_take(xp, put(xp, value), put(xp, indices), axis), np.take(value, indices, axis))


def _with_zeros(count: int) -> Any:
    value = np.random.default_rng(17).normal(size=(3, 4, 2))
    value[1, :count, 0] = 0.0  # none, one or two zeros in a slice
    return value


@pytest.mark.parametrize("zeros", [0, 1, 2])
@pytest.mark.parametrize("axes", [None, (1,), (0, 2), (-1,), (2, 0)])
def test_prod_others_and_its_vjp_agree_with_the_numpy_kernels(
    xp: Any, axes: Any, zeros: int
) -> None:
    value = _with_zeros(zeros)
    same(_prod_others(xp, put(xp, value), axes), np_math._prod_others(value, axes))
    cotangent = np.random.default_rng(18).normal(size=value.shape)
    same(
        _prod_others_vjp(xp, put(xp, cotangent), put(xp, value), axes),
        np_math._prod_others_vjp(cotangent, value, axes),
    )


def test_prod_others_vjp_broadcasts_its_cotangent_and_takes_an_empty_axis(xp: Any) -> None:
    value = _with_zeros(1)
    cotangent = np.random.default_rng(19).normal(size=(3, 1, 2))
    same(
        _prod_others_vjp(xp, put(xp, cotangent), put(xp, value), (1,)),
        np_math._prod_others_vjp(cotangent, value, (1,)),
    )
    empty = np.ones((2, 0, 3))
    same(_prod_others(xp, put(xp, empty), (1,)), np_math._prod_others(empty, (1,)))


EINSUM_CASES = [  # (subscripts, operand shapes)
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),  # a letter twice: the diagonal
    ("ii", [(3, 3)]),  # no output given: the letters that occur once (none: a trace)
    ("iij->j", [(3, 3, 2)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("i,j", [(2,), (3,)]),
    ("ba", [(2, 3)]),
    ("ijk,lji->lki", [(2, 3, 4), (5, 3, 2)]),
    (",ab->ab", [(), (2, 3)]),
    ("a b , b c -> a c", [(2, 3), (3, 2)]),
]


@pytest.mark.parametrize("own", [True, False], ids=["namespace-einsum", "standard-only"])
@pytest.mark.parametrize("subscripts, shapes", EINSUM_CASES)
def test_einsum_agrees_with_numpys(xp: Any, subscripts: str, shapes: Any, own: bool) -> None:
    rng = np.random.default_rng(20)
    operands = [rng.normal(size=shape) for shape in shapes]
    namespace = xp if own else WithoutEinsum(xp)
    result = _einsum(namespace, subscripts, *[put(xp, o) for o in operands])
    same(result, np.einsum(subscripts, *operands))


def test_einsum_without_a_namespace_einsum_multiplies_integers_by_floats(xp: Any) -> None:
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    v = np.array([0.5, -1.0, 2.0])
    result = _einsum(WithoutEinsum(xp), "ij,j->i", put(xp, a), put(xp, v))
    same(result, np.einsum("ij,j->i", a, v))


def test_einsum_without_a_namespace_einsum_refuses_ellipses(xp: Any) -> None:
    with pytest.raises(ValueError, match="ellipses need a namespace with einsum"):
        _einsum(WithoutEinsum(xp), "...i->...", put(xp, np.ones((2, 3))))


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_integer_mean_agrees_with_the_numpy_kernel(
    xp: Any, dtype: str, request: pytest.FixtureRequest
) -> None:
    if dtype == "uint8" and name_of(xp) == "array_api_compat.torch":
        request.applymarker(
            pytest.mark.xfail(
                strict=True,
                raises=NotImplementedError,
                reason="_integer_mean sums unsigned integers in uint64, which PyTorch's sum "
                "does not implement on the CPU",
            )
        )
    low = 0 if dtype.startswith("u") else -7
    value = np.random.default_rng(21).integers(low, 8, size=(3, 4)).astype(dtype)
    for axis in (None, 0, 1, -1, (0, 1)):
        for keepdims in (False, True):
            same(
                _integer_mean(xp, put(xp, value), axis, keepdims),
                np_math._integer_mean(value, axis, keepdims),
            )
    empty = np.zeros((0, 4), dtype=dtype)
    same(_integer_mean(xp, put(xp, empty), 0, False), np_math._integer_mean(empty, 0, False))


def test_integer_mean_rounds_toward_zero(xp: Any) -> None:
    value = np.array([[-7, 0], [4, 1]], dtype=np.int32)
    same(_integer_mean(xp, put(xp, value), 1, False), np.array([-3, 2], dtype=np.int32))


@pytest.mark.parametrize("name", ["max", "min"])
def test_reduce_extremum_over_elements_is_the_namespaces(xp: Any, name: str) -> None:
    value = np.random.default_rng(22).normal(size=(2, 3, 4))
    for axis in (None, 0, -1, (0, 2)):
        for keepdims in (False, True):
            same(
                _reduce_extremum(xp, name, put(xp, value), axis, keepdims),
                getattr(np, name)(value, axis=axis, keepdims=keepdims),
            )


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_reduce_extremum_over_no_elements_is_the_identity(xp: Any, name: str, dtype: str) -> None:
    if dtype == "float32":
        fill = -np.inf if name == "max" else np.inf
    else:
        fill = np.iinfo(dtype).min if name == "max" else np.iinfo(dtype).max
    value = put(xp, np.zeros((0, 3), dtype=dtype))
    for axis, keepdims, shape in [
        (0, False, (3,)),
        (0, True, (1, 3)),
        (None, False, ()),
        ((0, 1), True, (1, 1)),
        (-2, False, (3,)),
    ]:
        same(
            _reduce_extremum(xp, name, value, axis, keepdims),
            np.full(shape, fill, dtype=dtype),
        )
    # Over the axis of nonzero size only: the rows, of which there are none.
    same(_reduce_extremum(xp, name, value, 1, False), np.zeros((0,), dtype=dtype))


@pytest.mark.parametrize(
    "shape, target",
    [((2, 3, 4), (3, 1)), ((2, 3), (2, 3)), ((4, 3), (1, 3)), ((4, 3), (3,)), ((5,), ())],
)
def test_sum_to_shape_agrees_with_the_numpy_kernel(xp: Any, shape: Any, target: Any) -> None:
    value = np.random.default_rng(23).normal(size=shape)
    same(_sum_to_shape(xp, put(xp, value), target), np_math._sum_to_shape(value, target))


def test_sum_to_shape_passes_a_python_number(xp: Any) -> None:
    assert _sum_to_shape(xp, 2.5, (3,)) == 2.5


@pytest.mark.parametrize("radius", [0, 1, 2, 9])
def test_depth_window_sum_agrees_with_the_numpy_kernel(xp: Any, radius: int) -> None:
    value = np.random.default_rng(24).normal(size=(2, 3, 7))
    same(
        _depth_window_sum(xp, put(xp, value), radius),
        np_math._depth_window_sum(value, radius),
    )


# --- gathers, scatters, padding -------------------------------------------------------------

SCATTER_CASES = [  # (shape, key, value shape, or None for a Python number)
    ((5, 6, 4), (3, 0, 1), None),
    ((4,), (slice(1, 3, None),), (2,)),
    ((4, 5), (slice(1, None, None), -2), (3,)),
    ((3, 4, 5), (Ellipsis, 1), (3, 4)),
    ((2, 3, 4), (1, Ellipsis, slice(1, 3, None)), (3, 2)),
    ((3, 4), (None, slice(None, None, None), 2), (1, 3)),
    ((6, 5), (slice(None, None, 2), slice(4, 0, -2)), (3, 2)),
    ((4, 3), (slice(None, None, -1),), (4, 3)),
    ((4,), (), (4,)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, key, value_shape", SCATTER_CASES)
def test_scatter_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, key: Any, value_shape: Any, dtype: str
) -> None:
    if value_shape is None:
        value: Any = -0.25
        given: Any = value
    else:
        value = np.random.default_rng(25).normal(size=value_shape)
        given = put(xp, value)
    same(
        _scatter(xp, given, shape, key, getattr(xp, dtype)),
        np_scatter._scatter(value, shape, key, np.dtype(dtype)),
    )


def test_scatter_of_an_integer_number(xp: Any) -> None:
    same(_scatter(xp, 1, (4,), (2,), xp.float64), np.array([0.0, 0.0, 1.0, 0.0]))


@pytest.mark.parametrize(
    "shape, axis, indices",
    [
        ((4, 3), 0, [0, 2, 0, 3, 2]),
        ((4, 3), 0, [[1, 1], [0, 3]]),
        ((2, 4), 1, [1, 1, 3, 0, 3]),
        ((3, 4, 5), 1, [[0, 3, 3], [2, 0, 1]]),
    ],
)
def test_scatter_add_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, axis: int, indices: Any
) -> None:
    indices = np.array(indices, dtype=np.int64)
    value_shape = shape[:axis] + indices.shape + shape[axis + 1 :]
    value = np.random.default_rng(26).normal(size=value_shape)
    same(
        _scatter_add(xp, put(xp, value), put(xp, indices), shape, axis, xp.float64),
        np_scatter._scatter_add(value, indices, shape, axis, np.float64),
    )


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_placement_puts_row_j_at_position_j(xp: Any, dtype: str) -> None:
    device = _device_of(put(xp, [0]))
    place = _placement(xp, put(xp, [2, 0, 2], np.int64), 4, getattr(xp, dtype), device)
    expected = np.zeros((4, 3), dtype=dtype)
    expected[[2, 0, 2], [0, 1, 2]] = 1
    same(place, expected)


@pytest.mark.parametrize(
    "shape, multiples", [((1, 2), (3, 2)), ((4, 1), (1, 3)), ((1, 2, 2), (3, 1, 2))]
)
def test_untile_agrees_with_the_numpy_kernel(xp: Any, shape: Any, multiples: Any) -> None:
    value = np.random.default_rng(27).normal(
        size=[s * m for s, m in zip(shape, multiples, strict=True)]
    )
    same(_untile(xp, put(xp, value), shape, multiples), np_scatter._untile(value, shape, multiples))


def test_equal_part_agrees_with_the_numpy_kernel() -> None:
    for shape, axis, parts in [((6, 4), 0, 3), ((6, 4), 1, 2), ((6, 4), -1, 4), ((2, 6, 3), -2, 3)]:
        for index in range(parts):
            for count in range(1, parts - index + 1):
                assert _equal_part(shape, axis, parts, index, count) == np_scatter._equal_part(
                    shape, axis, parts, index, count
                )
    assert _equal_part((6, 4), 0, 3, 1) == (slice(2, 4), Ellipsis)
    assert _equal_part((6, 4), -2, 3, 1) == (Ellipsis, slice(2, 4), slice(None))


def test_equal_part_refuses_a_missing_axis_and_an_uneven_split() -> None:
    with pytest.raises(ValueError, match=r"Split: a value of shape \(6, 4\) has no axis 2"):
        _equal_part((6, 4), 2, 2, 0)
    with pytest.raises(ValueError, match=r"axis 0 .* \(5, 4\) does not split into 2 equal"):
        _equal_part((5, 4), 0, 2, 0)


@pytest.mark.parametrize("axis, parts", [(0, 3), (1, 2), (-1, 4), (-2, 1)])
def test_split_equal_and_unsplit_equal_agree_with_the_numpy_kernels(
    xp: Any, axis: int, parts: int
) -> None:
    value = np.random.default_rng(28).normal(size=(6, 4))
    for index in range(parts):
        part = np_scatter._split_equal(value, axis, parts, index)
        same(_split_equal(xp, put(xp, value), axis, parts, index), part)
        same(
            _unsplit_equal(xp, put(xp, part), put(xp, value), axis, parts, index),
            np_scatter._unsplit_equal(part, value, axis, parts, index),
        )


@pytest.mark.parametrize("sizes_as_arrays", [False, True], ids=["int-sizes", "array-sizes"])
@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_concat_part_and_unconcat_part_agree_with_the_numpy_kernels(
    xp: Any, axis: int, sizes_as_arrays: bool
) -> None:
    # Generated modules pass sizes known only at run time as 0-d integer arrays.
    sizes = [2, 3, 1]
    shape = [6, 6]
    shape[axis] = sum(sizes)
    value = np.random.default_rng(29).normal(size=shape)
    given = [put(xp, s, np.int64) for s in sizes] if sizes_as_arrays else sizes
    for index in range(len(sizes)):
        part = np_scatter._concat_part(value, axis, sizes, index)
        same(_concat_part(xp, put(xp, value), axis, given, index), part)
        same(
            _unconcat_part(xp, put(xp, part), put(xp, value), axis, given, index),
            np_scatter._unconcat_part(part, value, axis, sizes, index),
        )


@pytest.mark.parametrize(
    "on, off, axis, dtype",
    [
        (1, 0, -1, "float64"),
        (2.0, -0.5, 0, "float32"),
        (True, False, 1, "bool"),
        (2, 0, 2, "int32"),
    ],
)
def test_one_hot_agrees_with_the_numpy_kernel(
    xp: Any, on: Any, off: Any, axis: int, dtype: str
) -> None:
    indices = np.array([[0, 2, -1], [3, 1, 4]], dtype=np.int64)  # -1 and 4: rows of `off`
    same(
        _one_hot(xp, put(xp, indices), 4, on, off, axis, getattr(xp, dtype)),
        np_scatter._one_hot(indices, 4, on, off, axis, np.dtype(dtype)),
    )


def test_one_hot_like_agrees_with_the_numpy_kernel_and_refuses_other_shapes(xp: Any) -> None:
    labels = np.array([[0, 3], [2, 2]], dtype=np.int64)
    logits = np.zeros((2, 2, 4), dtype=np.float32)
    same(
        _one_hot_like(xp, put(xp, labels), put(xp, logits), xp.float32),
        np_scatter._one_hot_like(labels, logits, np.float32),
    )
    with pytest.raises(ValueError, match=r"labels of shape \[2\] must have the shape of the"):
        _one_hot_like(xp, put(xp, labels[0]), put(xp, logits), xp.float32)
    with pytest.raises(ValueError):
        np_scatter._one_hot_like(labels[0], logits, np.float32)


def test_one_hot_like_leaves_the_range_of_labels_to_ensure_in_range(xp: Any) -> None:
    # The NumPy kernel refuses a label outside the classes itself; generated portable
    # modules check it with _ensure_in_range first (as TF's op refuses it).
    labels, logits = np.array([0, 4], dtype=np.int64), np.zeros((2, 4))
    with pytest.raises(IndexError, match=r"label value 4 is outside the valid range"):
        np_scatter._one_hot_like(labels, logits, np.float64)
    with pytest.raises(IndexError, match=r"index 4 is not in \[0, 4\)"):
        _ensure_in_range(xp, put(xp, labels), put(xp, logits), -1, "SparseSoftmaxCrossEntropy")


@pytest.mark.parametrize("shape", [(1, 3, 1, 2), (1, 1), (2, 3), ()])
def test_squeeze_ones_agrees_with_numpy(xp: Any, shape: Any) -> None:
    value = np.random.default_rng(30).normal(size=shape)
    same(_squeeze_ones(xp, put(xp, value)), np.squeeze(value))


PAD_CASES = [  # (shape, paddings, mode, constant value)
    ((2, 3), ((1, 2), (0, 3)), "constant", None),
    ((2, 3), ((0, 0), (2, 1)), "constant", 1.5),
    ((4, 5), ((2, 2), (3, 1)), "reflect", None),
    ((2, 4, 5), ((0, 0), (1, 2), (0, 4)), "reflect", None),
    ((4, 5), ((3, 1), (4, 4)), "symmetric", None),
    ((3,), ((0, 3),), "symmetric", None),
]


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("shape, paddings, mode, constant", PAD_CASES)
def test_pad_agrees_with_numpy(
    xp: Any, shape: Any, paddings: Any, mode: Any, constant: Any, dtype: str
) -> None:
    value = np.random.default_rng(31).integers(-9, 9, size=shape).astype(dtype)
    if constant is None:
        result = _pad(xp, put(xp, value), paddings, mode=mode)
        expected = np.pad(value, paddings, mode=mode)
    else:
        result = _pad(xp, put(xp, value), paddings, constant)
        expected = np.pad(value, paddings, constant_values=constant)
    same(result, expected)


@pytest.mark.parametrize("shape, paddings, mode, constant", PAD_CASES[2:])
def test_mirror_pad_grad_agrees_with_the_numpy_kernel(
    xp: Any, shape: Any, paddings: Any, mode: Any, constant: Any
) -> None:
    padded = np.pad(np.zeros(shape), paddings, mode=mode).shape
    grad = np.random.default_rng(32).normal(size=padded)
    same(
        _mirror_pad_grad(xp, put(xp, grad), paddings, mode),
        np_scatter._mirror_pad_grad(grad, paddings, mode),
    )


@pytest.mark.parametrize(
    "shape, mask, axis",
    [
        ((4, 3, 2), [True, False, True, True], 0),
        ((2, 3, 4, 5), [[True, False, True, False]] * 2 + [[False] * 4], 1),
        ((2, 3), [[False] * 3] * 2, 0),
        ((2, 4), [True, True, False, True], 1),
    ],
)
def test_boolean_mask_and_its_gradient_agree_with_the_numpy_kernels(
    xp: Any, shape: Any, mask: Any, axis: int
) -> None:
    rng = np.random.default_rng(33)
    value = rng.normal(size=shape)
    mask = np.array(mask, dtype=bool)
    masked = np_scatter._boolean_mask(value, mask, axis)
    same(_boolean_mask(xp, put(xp, value), put(xp, mask), axis), masked)
    grad = rng.normal(size=masked.shape)
    same(
        _boolean_mask_grad(xp, put(xp, grad), put(xp, mask), shape, axis, xp.float64),
        np_scatter._boolean_mask_grad(grad, mask, shape, axis, np.float64),
    )


# --- diagonals ------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_diag_and_diag_part_agree_with_the_numpy_kernels(xp: Any, shape: Any) -> None:
    value = np.random.default_rng(34).normal(size=shape)
    same(_diag(xp, put(xp, value)), np_diagonals._diag(value))
    square = np.random.default_rng(35).normal(size=shape + shape)
    same(_diag_part(xp, put(xp, square)), np_diagonals._diag_part(square))


@pytest.mark.parametrize("shape", [(2, 3, 3), (2, 3, 5), (2, 5, 3), (4, 4)])
def test_matrix_diagonals_agree_with_the_numpy_kernels(xp: Any, shape: Any) -> None:
    rng = np.random.default_rng(36)
    matrices = rng.normal(size=shape)
    same(_matrix_diag_part(xp, put(xp, matrices)), np_diagonals._matrix_diag_part(matrices))
    diagonals = rng.normal(size=shape[:-2] + (min(shape[-2:]),))
    same(
        _matrix_set_diag_zeros(xp, put(xp, diagonals), shape),
        np_diagonals._matrix_set_diag_zeros(diagonals, shape),
    )
    same(_matrix_diag(xp, put(xp, diagonals)), np_diagonals._matrix_diag(diagonals))


@pytest.mark.parametrize("lower, upper", [(-1, 0), (0, -1), (1, 2), (0, 0), (-1, -1), (3, 1)])
def test_band_part_agrees_with_the_numpy_kernel(xp: Any, lower: int, upper: int) -> None:
    value = np.random.default_rng(37).normal(size=(2, 4, 5))
    same(_band_part(xp, put(xp, value), lower, upper), np_diagonals._band_part(value, lower, upper))


# --- checks ---------------------------------------------------------------------------------


def test_check_converts_good_inputs_as_the_numpy_kernel(xp: Any) -> None:
    device = _device_of(put(xp, [0.0]))
    for value, dtype, shape in [
        ([[1, 2, 3], [4, 5, 6]], "float64", (None, 3)),
        (np.arange(6, dtype=np.int32).reshape(2, 3), "float32", (2, 3)),
        (np.array([True, False]), "int64", (2,)),
        (2.5, "float64", ()),
        (7, "int32", None),
        (np.float32(1.5), "float32", ()),
    ]:
        result = _check(xp, device, "x", value, getattr(xp, dtype), shape)
        assert name_of(_namespace(result)[0]) == name_of(_namespace(put(xp, [0]))[0])
        same(result, np_checks._check("x", value, np.dtype(dtype), shape))
    # An array of the namespace itself: checked where it is.
    array = put(xp, np.ones((2, 3)))
    same(_check(xp, device, "x", array, xp.float64, (2, None)), np.ones((2, 3)))


def test_check_refuses_bad_inputs_with_a_clear_message(xp: Any) -> None:
    device = _device_of(put(xp, [0.0]))
    with pytest.raises(ValueError, match=r"input 'x': expected shape \(None, 3\), got \(2, 4\)"):
        _check(xp, device, "x", np.ones((2, 4)), xp.float64, (None, 3))
    with pytest.raises(ValueError, match=r"input 'x': expected shape \(3,\), got \(3, 1\)"):
        _check(xp, device, "x", np.ones((3, 1)), xp.float64, (3,))
    with pytest.raises(ValueError, match="input 'x': not a rectangular array of numbers that"):
        _check(xp, device, "x", [[1, 2], [3]], xp.float64, None)
    with pytest.raises(ValueError, match="input 'n': not a rectangular array of numbers that"):
        _check(xp, device, "n", 2**31, xp.int32, ())
    with pytest.raises(ValueError, match="input 'n': not a rectangular array of numbers that"):
        _check(xp, device, "n", float("nan"), xp.int64, ())
    with pytest.raises(ValueError, match="input 's': not a rectangular array of numbers that"):
        _check(xp, device, "s", ["a", "b"], xp.float64, (2,))
    unknown = types.SimpleNamespace(shape=(None, 3), dtype=xp.float64)  # a lazy array's
    with pytest.raises(ValueError, match=r"input 'x': shape \(None, 3\) has unknown sizes"):
        _check(xp, device, "x", unknown, xp.float64, (None, 3))


def test_check_refuses_complex_numbers(xp: Any) -> None:
    device = _device_of(put(xp, [0.0]))
    for value in (np.array([1 + 2j]), put(xp, [1 + 2j])):
        with pytest.raises(
            ValueError,
            match=r"input 'z': expected numbers convertible to .*float64.*, got .*complex128",
        ):
            _check(xp, device, "z", value, xp.float64, None)


def test_matrices_and_ensure_shape(xp: Any) -> None:
    matrix = put(xp, np.ones((2, 3)))
    assert _matrices(xp, matrix) is matrix
    with pytest.raises(ValueError, match=r"matmul needs rank 2 or more, got shape \(3,\)"):
        _matrices(xp, put(xp, np.ones(3)))
    assert _ensure_shape(xp, matrix, (None, 3)) is matrix
    assert _ensure_shape(xp, matrix, (2, 3)) is matrix
    with pytest.raises(ValueError, match=r"expected shape \[\?, 4\], got \[2, 3\]"):
        _ensure_shape(xp, matrix, (None, 4))
    with pytest.raises(ValueError, match=r"expected shape \[2\], got \[2, 3\]"):
        _ensure_shape(xp, matrix, (2,))
    with pytest.raises(ValueError):
        np_checks._ensure_shape(np.ones((2, 3)), (None, 4))


@pytest.mark.parametrize(
    "ids, count, ordered, error, message",
    [
        ([0, 0, 2], 3, True, None, None),
        ([], 0, True, None, None),
        ([2, 0, 1], 3, False, None, None),
        ([0, 0, 2], None, True, None, None),
        ([-1, 0, 1], 3, True, IndexError, "Op: segment id -1 is negative"),
        ([0, 2, 1], 3, True, ValueError, "Op: segment ids are not sorted"),
        ([0, 1, 3], 3, True, IndexError, r"Op: segment id 3 is not in \[0, 3\)"),
        ([4, 0], 3, False, IndexError, r"Op: segment id 4 is not in \[0, 3\)"),
    ],
)
def test_ensure_segment_ids(
    xp: Any, ids: Any, count: Any, ordered: bool, error: Any, message: Any
) -> None:
    values = np.array(ids, dtype=np.int64)
    given = put(xp, values)
    if error is None:
        assert _ensure_segment_ids(xp, given, count, ordered, "Op") is given
        np_checks._ensure_segment_ids(values, count, ordered, "Op")
    else:
        with pytest.raises(error, match=message):
            _ensure_segment_ids(xp, given, count, ordered, "Op")
        with pytest.raises(error):
            np_checks._ensure_segment_ids(values, count, ordered, "Op")


def test_ensure_in_range(xp: Any) -> None:
    like = put(xp, np.zeros((4, 2)))
    indices = put(xp, [[0, 3], [2, 1]], np.int64)
    assert _ensure_in_range(xp, indices, like, 0, "GatherV2") is indices
    empty = put(xp, np.zeros((0,), dtype=np.int64))
    assert _ensure_in_range(xp, empty, like, 1, "GatherV2") is empty
    for bad, shown in [([0, 4], 4), ([-1, 1], -1)]:
        with pytest.raises(
            IndexError,
            match=rf"GatherV2: index {shown} is not in \[0, 4\) \(axis 0 of shape \[4, 2\]\)",
        ):
            _ensure_in_range(xp, put(xp, bad, np.int64), like, 0, "GatherV2")
        with pytest.raises(IndexError):
            np_checks._ensure_in_range(np.array(bad), np.zeros((4, 2)), 0, "GatherV2")
    with pytest.raises(IndexError, match=r"index 2 is not in \[0, 2\) \(axis -1"):
        _ensure_in_range(xp, put(xp, [2], np.int64), like, -1, "Op")


def test_ensure_broadcastable(xp: Any) -> None:
    values = put(xp, np.zeros((2, 3)))
    for shape in [(), (2, 3), (1, 3), (2, 1), (1, 1)]:
        weights = put(xp, np.ones(shape))
        assert _ensure_broadcastable(xp, weights, values, "Loss") is weights
    for shape in [(3,), (2, 2), (2, 3, 1)]:
        with pytest.raises(
            ValueError,
            match=r"Loss: weights of shape \[.*\] can not be broadcast to values of shape \[2, 3\]",
        ):
            _ensure_broadcastable(xp, put(xp, np.ones(shape)), values, "Loss")
        with pytest.raises(ValueError):
            np_checks._ensure_broadcastable(np.ones(shape), np.zeros((2, 3)), "Loss")


def test_ensure_axis(xp: Any) -> None:
    value = put(xp, np.zeros((2, 3)))
    assert _ensure_axis(xp, value, -1, 3, False, "Op") is value
    assert _ensure_axis(xp, value, 0, 1, True, "Op") is value
    assert _ensure_axis(xp, value, -1, 0, 1, "Op") is value  # the flag as generated code gives it
    with pytest.raises(ValueError, match=r"Op: a value of shape \[2, 3\] has no axis 2"):
        _ensure_axis(xp, value, 2, 1, True, "Op")
    with pytest.raises(ValueError, match=r"Op: a value of shape \[2, 3\] has no axis -3"):
        _ensure_axis(xp, value, -3, 1, True, "Op")
    with pytest.raises(ValueError, match=r"Op: axis 0 of shape \[2, 3\] must have 3 entries"):
        _ensure_axis(xp, value, 0, 3, False, "Op")
    with pytest.raises(ValueError, match=r"axis 1 of shape \[2, 3\] must have at least 4 entries"):
        _ensure_axis(xp, value, 1, 4, True, "Op")
    with pytest.raises(ValueError):
        np_checks._ensure_axis(np.zeros((2, 3)), 1, 4, True, "Op")


def test_squeeze_last_by_rank(xp: Any) -> None:
    column, vector = put(xp, np.arange(3.0).reshape(3, 1)), put(xp, np.zeros(3))
    same(_squeeze_last_by_rank(xp, column, vector, 1), np.arange(3.0))
    assert _squeeze_last_by_rank(xp, column, column, 1) is column
    same(
        _squeeze_last_by_rank(xp, column, vector, 1),
        np_checks._squeeze_last_by_rank(np.arange(3.0).reshape(3, 1), np.zeros(3), 1),
    )
    with pytest.raises(ValueError, match=r"cannot squeeze the last axis of shape \[3, 2\]"):
        _squeeze_last_by_rank(xp, put(xp, np.zeros((3, 2))), vector, 1)


def test_ensure_same_dims(xp: Any) -> None:
    value, like = put(xp, np.zeros((3, 2))), put(xp, np.zeros((4, 3)))
    assert _ensure_same_dims(xp, value, like, (0,), (1,), "Select") is value
    other = put(xp, np.zeros((2, 3)))
    assert _ensure_same_dims(xp, value, other, (0, 1), (-1, 0), "Op") is value
    with pytest.raises(
        ValueError,
        match=r"Select: 3 entries along axis 0 \(shape \[3, 2\]\), but 4 along axis 0 of the "
        r"tensor they go with \(shape \[4, 3\]\)",
    ):
        _ensure_same_dims(xp, value, like, (0,), (0,), "Select")
    with pytest.raises(
        ValueError, match=r"Select: the tensor that shape \[3, 2\] goes with has no"
    ):
        _ensure_same_dims(xp, value, like, (0,), (2,), "Select")
    with pytest.raises(ValueError):
        np_checks._ensure_same_dims(np.zeros((3, 2)), np.zeros((4, 3)), (0,), (0,), "Select")


@pytest.mark.parametrize(
    "condition, x_shape",
    [
        (True, (2, 3)),
        ([True, False], (2, 3)),  # a vector picks rows
        ([[True, False, True], [False, False, True]], (2, 3)),
        ([False, True, True], (3,)),
        (True, None),  # branches that are Python numbers
    ],
)
def test_select_condition_agrees_with_the_numpy_kernel(
    xp: Any, condition: Any, x_shape: Any
) -> None:
    condition = np.array(condition)
    if x_shape is None:
        x: Any = 1.0
        y: Any = 2.0
        given_x, given_y = x, y
    else:
        x, y = np.ones(x_shape), np.zeros(x_shape[1:])
        given_x, given_y = put(xp, x), put(xp, y)
    same(
        _select_condition(xp, put(xp, condition), given_x, given_y),
        np_checks._select_condition(condition, x, y),
    )


# --- namespaces -----------------------------------------------------------------------------


def test_namespace_of_no_arrays_is_numpy() -> None:
    assert _namespace() == (np, "cpu")
    assert _namespace(1.5, [1, 2], "text") == (np, "cpu")


def test_namespace_takes_the_non_numpy_arrays(xp: Any) -> None:
    array = put(xp, [1.0, 2.0])
    namespace, device = _namespace(np.zeros(2), array, 3.0)
    assert name_of(namespace) == name_of(_namespace(array)[0])
    assert device == _device_of(array)
    if name_of(xp) in ("numpy", "array_api_compat.numpy"):
        assert _is_numpy(namespace)
    else:
        assert not _is_numpy(namespace)
        assert name_of(namespace) == name_of(xp)


def test_namespace_refuses_arrays_of_different_libraries() -> None:
    strict = pytest.importorskip("array_api_strict")
    torch = pytest.importorskip("torch")
    # array_api_compat, where it is installed, raises its own TypeError.
    with pytest.raises(TypeError):
        _namespace(strict.asarray([1.0]), torch.zeros(2))


def test_namespace_without_array_api_compat(monkeypatch: pytest.MonkeyPatch) -> None:
    strict = pytest.importorskip("array_api_strict")
    monkeypatch.setattr(namespace_module, "array_api_compat", None)
    array = strict.asarray([1.0, 2.0])
    assert _namespace(np.zeros(2), array) == (strict, array.device)
    assert _namespace(np.zeros(2))[0] is np  # NumPy's own namespace
    assert _device_of(array) == array.device

    class Foreign:
        shape, dtype = (2,), "float64"

        def __array_namespace__(self) -> Any:
            return types.SimpleNamespace(__name__="foreign")

    with pytest.raises(TypeError, match="inputs are arrays of different array libraries"):
        _namespace(array, Foreign())
    assert _is_numpy(np)
    assert not _is_numpy(strict)
    assert isinstance(_quiet(strict), contextlib.nullcontext)
    assert _traced(array) is False
    # Without array_api_compat, array_api_strict's erf is still read on the host.
    same(_erf(strict, strict.asarray([0.5])), [math.erf(0.5)])


def test_is_numpy(xp: Any) -> None:
    assert _is_numpy(np)
    assert _is_numpy(xp) == (name_of(xp) in ("numpy", "array_api_compat.numpy"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "uint8"])
def test_numpy_dtype_of_a_namespace_dtype(xp: Any, dtype: str) -> None:
    assert _numpy_dtype(getattr(xp, dtype)) == np.dtype(dtype)


def test_device_of(xp: Any) -> None:
    array = put(xp, [1.0])
    assert _device_of(array) == _namespace(array)[1]
    assert _device_of(np.zeros(1)) == "cpu"


def test_quiet_silences_numpys_warnings_only_where_numpy_computes(xp: Any) -> None:
    context = _quiet(xp)
    assert isinstance(context, contextlib.AbstractContextManager)
    if name_of(xp) == "array_api_compat.torch":  # PyTorch computes, and does not warn
        assert isinstance(context, contextlib.nullcontext)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with context:
            np.divide(np.ones(1), np.zeros(1))
            np.log(np.zeros(1))
    with pytest.warns(RuntimeWarning):
        np.divide(np.ones(1), np.zeros(1))


def test_traced_is_true_only_for_values_jax_traces(xp: Any) -> None:
    for value in (put(xp, [1.0]), np.ones(1), 1.0, None):
        assert _traced(value) is False


def test_holds_is_the_truth_of_a_concrete_condition_and_refuses_a_traced_one(xp: Any) -> None:
    assert _holds(put(xp, True), "while_loop") is True
    assert _holds(put(xp, 0.0), "cond_true") is False
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    with pytest.raises(TypeError, match="while_loop: its condition is a value jax.jit traces"):
        jax.jit(lambda value: _holds(value, "while_loop"))(jnp.asarray(True))


def test_checks_skip_values_jax_traces() -> None:
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    seen = []

    def function(ids: Any) -> Any:
        xp = _namespace(ids)[0]
        seen.append(_traced(ids))
        # Unsorted, negative and out of range: not known while JAX traces, so not checked.
        _ensure_segment_ids(xp, ids, 2, True, "SegmentSum")
        _ensure_in_range(xp, ids, jnp.zeros(2), 0, "GatherV2")
        with pytest.raises(TypeError, match="the number of segments is the largest segment id"):
            _segment_rows(xp, jnp.ones((3, 2)), ids, None)
        return ids

    jax.jit(function)(jnp.asarray([3, -1, 0]))
    assert seen == [True]
    assert _traced(jnp.asarray([1, 2])) is False
    with pytest.raises(IndexError, match="segment id -1 is negative"):
        _ensure_segment_ids(jnp, jnp.asarray([3, -1, 0]), 2, True, "SegmentSum")


# --- random draws ---------------------------------------------------------------------------


def test_generators_from_a_seed_a_generator_or_a_sequence() -> None:
    streams = _generators(7, 3)
    assert len(streams) == 3 and all(s is streams[0] for s in streams)
    assert streams[0].random() == np.random.default_rng(7).random()
    generator = np.random.default_rng(1)
    assert _generators(generator, 2) == [generator, generator]
    assert _generators(np.int64(5), 1)[0].random() == np.random.default_rng(5).random()
    sequence = [np.random.default_rng(i) for i in range(3)]
    assert _generators(sequence, 3) == sequence
    assert _generators(tuple(sequence), 3) == np_random._generators(tuple(sequence), 3)
    for bad in ([np.random.default_rng(0)], [1, 2, 3], "seed"):
        with pytest.raises(
            ValueError, match="input 'rng': expected a numpy.random.Generator, an int seed"
        ):
            _generators(bad, 3)


def test_truncated_normal_is_reproducible_and_within_two() -> None:
    values = _truncated_normal(np.random.default_rng(3), (1000,), np.float32)
    assert values.dtype == np.float32 and values.shape == (1000,)
    assert np.all(np.abs(values) <= 2) and np.any(np.abs(values) > 1.9)
    again = _truncated_normal(np.random.default_rng(3), (1000,), np.float32)
    np.testing.assert_array_equal(values, again)
    same(values, np_random._truncated_normal(np.random.default_rng(3), (1000,), np.float32))
    same(
        _truncated_normal(np.random.default_rng(4), (2, 3), np.float64),
        np_random._truncated_normal(np.random.default_rng(4), (2, 3), np.float64),
    )


def test_categorical_is_reproducible_and_never_draws_an_impossible_class(xp: Any) -> None:
    with np.errstate(divide="ignore"):
        logits = np.log(np.array([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]]))  # class 2: -inf
    draws = _categorical(np.random.default_rng(5), put(xp, logits), 2000, np.int64)
    assert draws.dtype == np.int64 and draws.shape == (2, 2000)
    assert set(np.unique(draws[0])) == {0, 1}
    assert set(np.unique(draws[1])) == {0, 1, 2}
    assert np.mean(draws[1] == 2) == pytest.approx(0.7, abs=0.05)
    twin = np_random._categorical(np.random.default_rng(5), logits, 2000, np.int64)
    same(draws, twin)
    again = _categorical(np.random.default_rng(5), logits, 2000, np.int32)
    same(again, twin.astype(np.int32))


@pytest.mark.parametrize("unique", [False, True])
def test_log_uniform_candidates_are_reproducible(unique: bool) -> None:
    drawn = _log_uniform_candidates(np.random.default_rng(6), 40, 50, unique)
    assert drawn.dtype == np.int64 and drawn.shape == (41,)
    classes, tries = drawn[:-1], int(drawn[-1])
    assert np.all((classes >= 0) & (classes < 50))
    assert tries >= 40
    if unique:
        assert len(set(classes.tolist())) == 40
    else:
        assert tries == 40
    same(drawn, _log_uniform_candidates(np.random.default_rng(6), 40, 50, unique))
    same(drawn, np_random._log_uniform_candidates(np.random.default_rng(6), 40, 50, unique))


@pytest.mark.parametrize("unique", [False, True])
def test_uniform_and_unigram_candidates_are_reproducible(unique: bool) -> None:
    weights = np.arange(50, dtype=np.float64) + 1.0
    for draw in (
        lambda rng: _uniform_candidates(rng, 40, 50, unique),
        lambda rng: _unigram_candidates(rng, 40, weights, unique),
    ):
        drawn = draw(np.random.default_rng(6))
        assert drawn.dtype == np.int64 and drawn.shape == (41,)
        classes, tries = drawn[:-1], int(drawn[-1])
        assert np.all((classes >= 0) & (classes < 50)) and tries >= 40
        assert len(set(classes.tolist())) == 40 if unique else tries == 40
        same(drawn, draw(np.random.default_rng(6)))


def test_array_write_and_its_gradient_match_numpys(xp: Any) -> None:
    row = put(xp, [1.0, 2.0], np.float32)
    first = _array_write(xp, put(xp, 0.0, np.float32), put(xp, 1), row, 3)
    assert np.asarray(first).tolist() == [[0, 0], [1, 2], [0, 0]]
    grown = _array_write(xp, first, put(xp, 4), row, -1)
    assert np.asarray(grown).tolist() == [[0, 0], [1, 2], [0, 0], [0, 0], [1, 2]]
    with pytest.raises(IndexError, match="of an array of size 3"):
        _array_write(xp, first, put(xp, 3), row, 3)
    grad = put(xp, np.arange(6.0).reshape(3, 2))
    assert np.asarray(
        _array_write_grad(xp, grad, put(xp, np.ones((2, 2))), put(xp, 1))
    ).tolist() == [
        [0, 1],
        [0, 0],
    ]
    assert np.asarray(_array_write_grad(xp, grad, put(xp, 0.0), put(xp, 0))).shape == ()


def test_sequence_mask_of_any_namespace(xp: Any) -> None:
    mask = _sequence_mask(xp, put(xp, [0, 2], np.int32), put(xp, 3))
    assert np.asarray(mask).tolist() == [[False, False, False], [True, True, False]]


def test_kept_shapes_of_any_namespace(xp: Any) -> None:
    _kept_shapes("scan", ("h",), (put(xp, np.zeros((2, 3))),), ((2, 3),))
    with pytest.raises(ValueError, match="scan: loop variable 'h' began with shape"):
        _kept_shapes("scan", ("h",), (put(xp, np.zeros((1, 3))),), ((2, 3),))
