"""The NumPy backend's kernels (``symgrad/backends/numpy/kernels``), called directly.

Kernels that compute a TF op or its gradient are compared with the values TensorFlow computed
for the same inputs, recorded in ``tests/kernels/tf_kernels_numpy.json`` by
``tests/kernels/record_kernels_numpy.py`` (run by hand under TensorFlow; the inputs are read
back from the file). The kernels they are built from, the pools of arrays, the random draws
and the run-time checks are tested against NumPy references or by their properties. A last
test fails if a kernel declared in ``KERNELS`` is called by no test here.
"""

from __future__ import annotations

import ast
import importlib
import json
import math
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from symgrad.backends.numpy.kernels import KERNELS, MODULES
from symgrad.backends.numpy.kernels import conv as conv_kernels
from symgrad.backends.numpy.kernels.checks import (
    _check,
    _ensure_axis,
    _ensure_broadcastable,
    _ensure_in_range,
    _ensure_same_dims,
    _ensure_segment_ids,
    _ensure_shape,
    _kept_shapes,
    _matrices,
    _select_condition,
    _squeeze_last_by_rank,
)
from symgrad.backends.numpy.kernels.conv import (
    _ROW_PRODUCTS_MIN_CHANNELS,
    _ROWS_CHUNK,
    _ROWS_MIN_BACKWARD,
    _ROWS_MIN_FORWARD,
    _add_channels,
    _add_row_products,
    _add_shifted_rows,
    _add_windows,
    _conv2d,
    _conv2d_backprop_filter,
    _conv2d_backprop_filter_by_rows,
    _conv2d_backprop_input,
    _conv2d_backprop_input_by_rows,
    _conv2d_bias,
    _conv2d_by_rows,
    _correlate_by_rows,
    _depthwise_conv2d,
    _depthwise_conv2d_backprop_filter,
    _depthwise_conv2d_backprop_input,
    _image_chunks,
    _kernel_row_spans,
    _line_windows,
    _padded,
    _pads,
    _patches,
    _rows,
    _rows_by_input_row,
    _windows,
    _zeros_around,
)
from symgrad.backends.numpy.kernels.diagonals import (
    _band_part,
    _diag,
    _diag_part,
    _matrix_diag,
    _matrix_diag_part,
    _matrix_set_diag_zeros,
)
from symgrad.backends.numpy.kernels.math import (
    _RELU_ROW,
    _cumprod,
    _cumsum,
    _cumulative,
    _depth_window_sum,
    _erf,
    _erfc,
    _huber_loss,
    _integer_mean,
    _logistic_loss,
    _prod_others,
    _prod_others_vjp,
    _relu,
    _sigmoid,
    _softplus,
    _sum_leading_axes,
    _sum_to_shape,
    _top_k_grad,
    _top_k_indices,
    _weighted_logistic_grad,
    _weighted_logistic_loss,
)
from symgrad.backends.numpy.kernels.memory import _SPARE_ROWS, _give_rows, _take_rows
from symgrad.backends.numpy.kernels.pool import (
    _avg_pool,
    _avg_pool_grad,
    _bits_at_tap,
    _block_max,
    _block_taps,
    _blocks,
    _conv2d_backprop_filter_at_taps,
    _conv2d_relu_max_pool,
    _conv2d_relu_max_pool_values,
    _first_max,
    _first_max_taps,
    _max_pool,
    _max_pool_first_taps,
    _max_pool_grad,
    _max_pool_grad_at_taps,
    _max_pool_grad_grad,
    _pool_counts,
    _pool_tap_planes,
    _pool_tap_rows,
    _pooled_conv2d_relu,
    _pooled_im2col_sizes,
    _tap_max,
)
from symgrad.backends.numpy.kernels.random import (
    _categorical,
    _generators,
    _log_uniform_candidates,
    _truncated_normal,
    _uniform_candidates,
    _unigram_candidates,
)
from symgrad.backends.numpy.kernels.resize import (
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
from symgrad.backends.numpy.kernels.scatter import (
    _array_write,
    _array_write_grad,
    _boolean_mask,
    _boolean_mask_grad,
    _concat_part,
    _equal_part,
    _mirror_pad_grad,
    _one_hot,
    _one_hot_like,
    _scatter,
    _scatter_add,
    _sequence_mask,
    _split_equal,
    _unconcat_part,
    _unsplit_equal,
    _untile,
)
from symgrad.backends.numpy.kernels.segments import (
    _segment_gather,
    _segment_max,
    _segment_min,
    _segment_prod,
    _segment_sum,
    _sorted_segment_max,
    _sorted_segment_min,
)

RECORDED = json.loads(
    (Path(__file__).parent / "kernels" / "tf_kernels_numpy.json").read_text(encoding="utf-8")
)["cases"]


def _array(encoded: dict) -> np.ndarray:
    values = [float(v) if isinstance(v, str) else v for v in encoded["values"]]
    return np.array(values, dtype=encoded["dtype"]).reshape(encoded["shape"])


class Case:
    """One recorded case: its inputs and TensorFlow's outputs as arrays, its attributes."""

    def __init__(self, name: str) -> None:
        recorded = RECORDED[name]
        self.attrs = recorded["attrs"]
        self.inputs = {k: _array(v) for k, v in recorded["inputs"].items()}
        self.outputs = {k: _array(v) for k, v in recorded["outputs"].items()}


def recorded(op: str) -> list:
    """The recorded cases of ``op``, as parameters named after them."""
    names = sorted(name for name, case in RECORDED.items() if case["op"] == op)
    assert names, op
    return [pytest.param(Case(name), id=name) for name in names]


def assert_same(
    actual, expected, *, close: bool = False, rtol: float = 1e-12, atol: float | None = None
) -> None:
    """Same dtype and shape, and the same values (``close``: up to rounding)."""
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if close:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol if atol is None else atol)
    else:
        np.testing.assert_array_equal(actual, expected)


# --- convolutions, against TensorFlow --------------------------------------------------------


def _window_attrs(case: Case) -> tuple:
    a = case.attrs
    return tuple(a["strides"]), tuple(a["dilations"]), a["padding"]


@pytest.mark.parametrize("case", recorded("conv2d"))
def test_conv2d_matches_tf(case: Case) -> None:
    x, filters = case.inputs["x"], case.inputs["filters"]
    assert_same(_conv2d(x, filters, *_window_attrs(case)), case.outputs["y"], close=True)


@pytest.mark.parametrize("case", recorded("conv2d"))
def test_conv2d_backprop_input_matches_tf(case: Case) -> None:
    dy, filters, x = case.inputs["dy"], case.inputs["filters"], case.inputs["x"]
    dx = _conv2d_backprop_input(dy, filters, x.shape, *_window_attrs(case))
    assert_same(dx, case.outputs["dx"], close=True)
    if "dx_op" in case.outputs:  # tf.compat.v1.nn.conv2d_backprop_input itself
        assert_same(dx, case.outputs["dx_op"], close=True)


@pytest.mark.parametrize("case", recorded("conv2d"))
def test_conv2d_backprop_filter_matches_tf(case: Case) -> None:
    x, dy, filters = case.inputs["x"], case.inputs["dy"], case.inputs["filters"]
    dw = _conv2d_backprop_filter(x, dy, filters.shape[:2], *_window_attrs(case))
    assert_same(dw, case.outputs["dw"], close=True)
    if "dw_op" in case.outputs:  # tf.compat.v1.nn.conv2d_backprop_filter itself
        assert_same(dw, case.outputs["dw_op"], close=True)


# --- convolutions kernel row by kernel row, against im2col -----------------------------------


def _im2col_conv(x, filters, padding):
    """Stride-1 conv2d and its two gradients by im2col (``_patches``, ``_add_windows``)."""
    kh, kw, c, c_out = filters.shape
    patches = _patches(x, (kh, kw), (1, 1), (1, 1), padding)
    y = (patches.reshape(-1, kh * kw * c) @ filters.reshape(-1, c_out)).reshape(
        patches.shape[:3] + (c_out,)
    )

    def gradients(dy):
        dw = (patches.reshape(-1, kh * kw * c).T @ dy.reshape(-1, c_out)).reshape(filters.shape)
        taps = (dy.reshape(-1, c_out) @ filters.reshape(-1, c_out).T).reshape(
            patches.shape[:3] + (kh, kw, c)
        )
        dx = _add_windows(np.moveaxis(taps, 5, 3), x.shape, (1, 1), (1, 1), padding)
        return dx, dw

    return y, gradients


ROWS_CASES = [
    # batch, height, width, channels, kernel height, kernel width, out channels, padding
    (2, 6, 5, 16, 5, 5, 4, "SAME"),
    (1, 7, 6, 12, 3, 4, 5, "VALID"),
    (2, 5, 6, 24, 4, 2, 3, "SAME"),  # even kernel: SAME pads one more after
    (1, 3, 3, 16, 4, 4, 2, "SAME"),  # the kernel larger than the image
    (3, 9, 4, 20, 2, 3, 7, "VALID"),
    (2, 8, 8, 16, 1, 1, 8, "SAME"),
    (30, 16, 16, 16, 5, 5, 8, "SAME"),  # several chunks of images
    (0, 6, 6, 16, 3, 3, 4, "SAME"),  # an empty batch
]


@pytest.mark.parametrize("n, h, w, c, kh, kw, c_out, padding", ROWS_CASES)
def test_convolutions_by_rows_equal_im2col(n, h, w, c, kh, kw, c_out, padding) -> None:
    """The kernel-row forms of conv2d and its gradients compute what im2col does: same
    shapes and dtypes, values up to the order of the sums (float64 and float32)."""
    rng = np.random.default_rng(31)
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 2e-5)):
        x = rng.standard_normal((n, h, w, c)).astype(dtype)
        filters = rng.standard_normal((kh, kw, c, c_out)).astype(dtype)
        y, gradients = _im2col_conv(x, filters, padding)
        dy = rng.standard_normal(y.shape).astype(dtype)
        dx, dw = gradients(dy)
        scale = max(1.0, float(np.abs(y).max(initial=0)))
        assert_same(
            _conv2d_by_rows(x, filters, padding), y, close=True, rtol=rtol, atol=rtol * scale
        )
        got_dx = _conv2d_backprop_input_by_rows(dy, filters, x.shape, padding)
        assert_same(got_dx, dx, close=True, rtol=rtol, atol=rtol * scale)
        got_dw = _conv2d_backprop_filter_by_rows(x, dy, (kh, kw), padding)
        assert_same(got_dw, dw, close=True, rtol=rtol, atol=rtol * max(scale, n * h * w))
        assert got_dw.flags.c_contiguous


@pytest.mark.parametrize(
    "shape, kernel, strides, padding",
    [
        ((2, 6, 5, 16), (5, 5), (1, 1), "SAME"),  # kernel row by kernel row
        ((30, 16, 16, 16), (5, 5), (1, 1), "SAME"),  # ... in several chunks of images
        ((2, 7, 6, 1), (5, 5), (1, 1), "SAME"),  # im2col: one channel
        ((2, 7, 6, 16), (3, 3), (2, 2), "VALID"),  # im2col: strides
        ((0, 6, 6, 16), (3, 3), (1, 1), "SAME"),  # an empty batch
    ],
)
def test_conv2d_bias_is_the_convolution_plus_its_bias_bit_for_bit(
    shape, kernel, strides, padding
) -> None:
    # The bias added chunk by chunk, or along rows of the output's width times its
    # channels, gives each element the very sum _conv2d(...) + bias does.
    rng = np.random.default_rng(33)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal(shape).astype(dtype)
        filters = rng.standard_normal((*kernel, shape[3], 8)).astype(dtype)
        bias = rng.standard_normal(8).astype(dtype)
        expected = _conv2d(x, filters, strides, (1, 1), padding) + bias
        got = _conv2d_bias(x, filters, bias, strides, (1, 1), padding)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_add_channels_adds_along_the_last_axis_contiguous_or_not() -> None:
    rng = np.random.default_rng(34)
    y = rng.standard_normal((3, 4, 5, 6)).astype(np.float32)
    bias = rng.standard_normal(6).astype(np.float32)
    expected = y + bias
    contiguous = y.copy()
    _add_channels(contiguous, bias)
    np.testing.assert_array_equal(contiguous, expected)
    strided = np.repeat(y, 2, axis=2)[:, :, ::2]
    _add_channels(strided, bias)
    np.testing.assert_array_equal(strided, expected)


def test_convolutions_use_rows_from_their_thresholds(monkeypatch) -> None:
    """conv2d goes kernel row by kernel row with strides and dilations 1 and at least
    ``_ROWS_MIN_FORWARD`` elements per row (kernel width times channels), its gradients from
    ``_ROWS_MIN_BACKWARD``; otherwise, and for strides or dilations, by im2col."""
    rng = np.random.default_rng(32)
    taken: list[str] = []
    for name in (
        "_conv2d_by_rows",
        "_conv2d_backprop_input_by_rows",
        "_conv2d_backprop_filter_by_rows",
    ):
        real = getattr(conv_kernels, name)
        monkeypatch.setattr(
            conv_kernels, name, lambda *a, real=real, name=name: taken.append(name) or real(*a)
        )
    assert _ROWS_MIN_FORWARD % 3 == 0 and _ROWS_MIN_BACKWARD % 2 == 0
    wide = rng.standard_normal((2, 5, 5, _ROWS_MIN_FORWARD // 3))
    narrow = rng.standard_normal((2, 5, 5, _ROWS_MIN_FORWARD // 3 - 1))
    for x, expected in ((wide, ["_conv2d_by_rows"]), (narrow, [])):
        taken.clear()
        _conv2d(x, rng.standard_normal((3, 3, x.shape[3], 2)), (1, 1), (1, 1), "SAME")
        assert taken == expected
    taken.clear()
    _conv2d(wide, rng.standard_normal((3, 3, wide.shape[3], 2)), (2, 2), (1, 1), "SAME")
    _conv2d(wide, rng.standard_normal((3, 3, wide.shape[3], 2)), (1, 1), (2, 1), "SAME")
    assert taken == []
    half = _ROWS_MIN_BACKWARD // 2
    for c, expected in ((half, True), (half - 1, False)):
        taken.clear()
        x, filters = rng.standard_normal((2, 5, 5, c)), rng.standard_normal((2, 2, c, 3))
        dy = rng.standard_normal((2, 5, 5, 3))
        _conv2d_backprop_input(dy, filters, x.shape, (1, 1), (1, 1), "SAME")
        _conv2d_backprop_filter(x, dy, (2, 2), (1, 1), (1, 1), "SAME")
        assert taken == (
            ["_conv2d_backprop_input_by_rows", "_conv2d_backprop_filter_by_rows"]
            if expected
            else []
        )


def test_line_windows_rows_and_shifted_rows() -> None:
    """``_rows`` of ``_line_windows`` copies each window along one axis (of an array
    ``_zeros_around`` pads) into a row, offsets before channels; ``_add_shifted_rows`` adds
    part ``i`` of row ``y + i - offset``."""
    rng = np.random.default_rng(33)
    x = np.arange(2 * 3 * 4 * 2, dtype=np.float64).reshape(2, 3, 4, 2)
    along_width = _line_windows(_zeros_around(x, 2, 1, 1), 3, 2)
    assert along_width.shape == (2, 3, 4, 3, 2)
    rows = _rows(along_width).reshape(2, 3, 4, 6)
    np.testing.assert_array_equal(rows[1, 2, 0], [0, 0, *x[1, 2, 0], *x[1, 2, 1]])
    np.testing.assert_array_equal(rows[0, 1, 3], [*x[0, 1, 2], *x[0, 1, 3], 0, 0])
    along_height = _rows(_line_windows(_zeros_around(x, 1, 0, 1), 2, 1)).reshape(2, 3, 4, 4)
    np.testing.assert_array_equal(along_height[0, 2, 1], [*x[0, 2, 1], 0, 0])
    assert _zeros_around(x, 1, 0, 0) is x
    np.testing.assert_array_equal(
        _zeros_around(x, 2, 2, 1), np.pad(x, [(0, 0), (0, 0), (2, 1), (0, 0)])
    )
    parts = rng.standard_normal((1, 4, 2, 3, 5))  # 4 input rows, a kernel of 3 rows
    total = np.zeros((1, 4, 2, 5))
    _add_shifted_rows(parts, total, 1)
    expected = np.zeros_like(total)
    for y in range(4):
        for i in range(3):
            if 0 <= y + i - 1 < 4:
                expected[0, y] += parts[0, y + i - 1, :, i]
    np.testing.assert_allclose(total, expected, rtol=1e-14)


def test_kernel_row_spans_say_which_output_rows_each_kernel_row_reaches() -> None:
    # SAME, 5 kernel rows over 4 input rows: output row y reads input row y + i - 2.
    spans, covering = _kernel_row_spans(5, 4, 4, 2)
    assert spans == [(0, 2, 4), (1, 1, 4), (2, 0, 4), (3, 0, 3), (4, 0, 2)] and covering == 2
    assert _kernel_row_spans(3, 4, 2, 0) == ([(0, 0, 2), (1, 0, 2), (2, 0, 2)], 0)  # VALID
    assert _kernel_row_spans(2, 1, 2, 1) == ([(0, 1, 2), (1, 0, 1)], None)  # none reaches all


@pytest.mark.parametrize("channels", [_ROW_PRODUCTS_MIN_CHANNELS, 5])
@pytest.mark.parametrize(
    "input_rows, height, offset",
    [(4, 4, 1), (4, 2, 0), (2, 2, 2), (6, 6, 1), (1, 3, 2)],  # SAME, VALID, none covers ...
)
def test_correlate_by_rows_adds_each_kernel_rows_product_at_its_offset(
    channels, input_rows, height, offset
) -> None:
    """Per kernel row (``_add_row_products``, many channels) or side by side
    (``_add_shifted_rows``, few): row ``y`` of the result is the sum over ``i`` of input row
    ``y + i - offset``'s windows times kernel row ``i``, then the bias; what ``total`` held
    before does not matter; empty batches too."""
    rng = np.random.default_rng(34)
    for batch in (3, 0):
        x = rng.standard_normal((batch, input_rows, 5, 2))
        windows = _line_windows(_zeros_around(x, 2, 1, 1), 3, 2)  # 5 columns of 3 x 2
        per_kernel_row = rng.standard_normal((3, 6, channels))
        bias = rng.standard_normal(channels)
        total = np.full((batch, height, 5, channels), np.nan)
        _correlate_by_rows(windows, per_kernel_row, total, offset, bias)
        rows = _rows(windows).reshape(batch, input_rows, 5, 6)
        expected = np.zeros_like(total)
        for y in range(height):
            for i in range(3):
                if 0 <= y + i - offset < input_rows:
                    expected[:, y] += rows[:, y + i - offset] @ per_kernel_row[i]
        np.testing.assert_allclose(total, expected + bias, rtol=1e-12, atol=1e-12)
        by_input_row = _rows_by_input_row(windows).reshape(input_rows, batch, 5, 6)
        np.testing.assert_array_equal(by_input_row, np.moveaxis(rows, 1, 0))
        alone = np.full_like(total, np.nan)
        _add_row_products(windows, per_kernel_row, alone, offset)
        np.testing.assert_allclose(alone, expected, rtol=1e-12, atol=1e-12)


def test_rows_chunks_stay_under_their_budget() -> None:
    """A product of the kernel-row forms covers at most ``_ROWS_CHUNK`` elements (one image
    at least)."""
    x = np.zeros((50, 14, 14, 32))
    chunks = _image_chunks(x, 320, _ROWS_CHUNK)
    assert all((s.stop - s.start) * 14 * 14 * 320 <= _ROWS_CHUNK for s in chunks[:-1])
    assert chunks[0].start == 0 and chunks[-1].stop >= 50
    assert _image_chunks(np.zeros((3, 100, 100, 1)), 10**6, _ROWS_CHUNK) == [
        slice(0, 1),
        slice(1, 2),
        slice(2, 3),
    ]


@pytest.mark.parametrize("case", recorded("depthwise_conv2d"))
def test_depthwise_conv2d_matches_tf(case: Case) -> None:
    x, filters = case.inputs["x"], case.inputs["filters"]
    y = _depthwise_conv2d(x, filters, *_window_attrs(case))
    assert_same(y, case.outputs["y"], close=True)


@pytest.mark.parametrize("case", recorded("depthwise_conv2d"))
def test_depthwise_conv2d_backprop_input_matches_tf(case: Case) -> None:
    dy, filters, x = case.inputs["dy"], case.inputs["filters"], case.inputs["x"]
    dx = _depthwise_conv2d_backprop_input(dy, filters, x.shape, *_window_attrs(case))
    assert_same(dx, case.outputs["dx"], close=True)
    if "dx_op" in case.outputs:  # tf.compat.v1.nn.depthwise_conv2d_native_backprop_input
        assert_same(dx, case.outputs["dx_op"], close=True)


@pytest.mark.parametrize("case", recorded("depthwise_conv2d"))
def test_depthwise_conv2d_backprop_filter_matches_tf(case: Case) -> None:
    x, dy, filters = case.inputs["x"], case.inputs["dy"], case.inputs["filters"]
    dw = _depthwise_conv2d_backprop_filter(x, dy, filters.shape[:2], *_window_attrs(case))
    assert_same(dw, case.outputs["dw"], close=True)
    if "dw_op" in case.outputs:  # tf.compat.v1.nn.depthwise_conv2d_native_backprop_filter
        assert_same(dw, case.outputs["dw_op"], close=True)


# --- image resizing, against TensorFlow ------------------------------------------------------


def _resize_attrs(case: Case) -> tuple:
    a = case.attrs
    return a["align_corners"], a["half_pixel_centers"]


@pytest.mark.parametrize("case", recorded("resize"))
def test_resize_bilinear_matches_tf(case: Case) -> None:
    x = case.inputs["x"]
    y = _resize_bilinear(x, tuple(case.attrs["size"]), *_resize_attrs(case))
    assert_same(y, case.outputs["y"])  # float32 in TF's order of operations: bit for bit


@pytest.mark.parametrize("case", recorded("resize"))
def test_resize_nearest_matches_tf(case: Case) -> None:
    x = case.inputs["x"]
    assert_same(
        _resize_nearest(x, tuple(case.attrs["size"]), *_resize_attrs(case)), case.outputs["nearest"]
    )


@pytest.mark.parametrize("case", [c for c in recorded("resize") if "dy" in c.values[0].inputs])
def test_resize_gradients_match_tf(case: Case) -> None:
    x, dy, flags = case.inputs["x"], case.inputs["dy"], _resize_attrs(case)
    dx = _resize_bilinear_grad(dy, x.shape, *flags)
    assert_same(dx, case.outputs["dx"], close=True, rtol=1e-6)
    # a float64 image: TF's float32 products added up in float64
    dx64 = _resize_bilinear_grad(dy.astype(np.float64), x.shape, *flags)
    assert_same(dx64, case.outputs["dx64"], close=True, rtol=1e-6)
    dx_nearest = _resize_nearest_grad(dy, x.shape, *flags)
    assert_same(dx_nearest, case.outputs["dx_nearest"], close=True, rtol=1e-6)


def test_resize_taps_and_matrices() -> None:
    # align_corners maps the corners onto each other: 0, 1.5, 3 for 4 rows onto 3
    np.testing.assert_array_equal(_resize_positions(4, 3, True, False), [0.0, 1.5, 3.0])
    assert _resize_positions(4, 3, True, False).dtype == np.float32
    np.testing.assert_array_equal(_resize_positions(2, 4, False, True), [0.25, 0.75, 1.25, 1.75])
    lower, upper, weight = _bilinear_taps(2, 4, False, True)  # sources -0.25, 0.25, 0.75, 1.25
    np.testing.assert_array_equal(lower, [0, 0, 0, 1])
    np.testing.assert_array_equal(upper, [0, 1, 1, 1])
    np.testing.assert_array_equal(weight, [0.75, 0.25, 0.75, 0.25])
    # TF's roundf: 1.5 rounds up with align_corners, else the floor
    np.testing.assert_array_equal(_nearest_taps(4, 3, True, False), [0, 2, 3])
    np.testing.assert_array_equal(_nearest_taps(4, 3, False, False), [0, 1, 2])
    matrix = _bilinear_matrix(2, 4, False, True)
    np.testing.assert_array_equal(matrix.sum(axis=1), np.ones(4, np.float32))
    np.testing.assert_array_equal(matrix[0], [1.0, 0.0])  # both taps on the first row
    rng = np.random.default_rng(5)
    dy, rows, columns = (
        rng.normal(size=(2, 4, 3, 2)),
        rng.normal(size=(4, 5)),
        rng.normal(size=(3, 6)),
    )
    expected = np.einsum("bhwc,hi,wj->bijc", dy, rows, columns)
    np.testing.assert_allclose(_resize_adjoint(dy, rows, columns), expected, rtol=1e-12)


# --- pooling, against TensorFlow -------------------------------------------------------------


def _pool_attrs(case: Case) -> tuple:
    a = case.attrs
    return tuple(a["ksize"]), tuple(a["strides"]), a["padding"]


@pytest.mark.parametrize("case", recorded("max_pool"))
def test_max_pool_matches_tf(case: Case) -> None:
    assert_same(_max_pool(case.inputs["x"], *_pool_attrs(case)), case.outputs["y"])


@pytest.mark.parametrize("case", recorded("max_pool"))
def test_max_pool_grad_matches_tf(case: Case) -> None:
    # Ties (the *_ties cases) send each window's gradient to its first maximum, as TF does.
    x = case.inputs["x"]
    y = _max_pool(x, *_pool_attrs(case))
    dx = _max_pool_grad(x, y, case.inputs["dy"], *_pool_attrs(case))
    assert_same(dx, case.outputs["dx"], close=True)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_max_pool_grad_routes_inf_nan_and_negative_gradients_only_to_the_maximum(
    padding: str,
) -> None:
    # Relu-like input (ties at 0), a gradient with inf, NaN and negative values: every
    # position that is not its window's first maximum is +0.0, as TF's zero-filled output.
    rng = np.random.default_rng(11)
    x = np.maximum(rng.standard_normal((2, 5, 7, 3)), 0).astype(np.float32)
    dy = -np.abs(rng.standard_normal((2, 3, 4, 3) if padding == "SAME" else (2, 2, 3, 3)))
    dy = dy.astype(np.float32)
    for special in (None, np.inf, np.nan):
        given = dy.copy()
        if special is not None:
            given[0, 1, 1, 2] = special
        y = _max_pool(x, (2, 2), (2, 2), padding)
        got = _max_pool_grad(x, y, given, (2, 2), (2, 2), padding)
        windows = _windows(x, (2, 2), (2, 2), (1, 1), padding, -np.inf)
        first = np.argmax(np.reshape(windows, windows.shape[:4] + (4,)), axis=-1)
        routed = np.where(first[..., None] == np.arange(4), given[..., None], 0)
        expected = _add_windows(
            np.reshape(routed, routed.shape[:4] + (2, 2)), x.shape, (2, 2), (1, 1), padding
        )
        np.testing.assert_array_equal(got, expected)
        assert not np.signbit(got[got == 0]).any()


@pytest.mark.parametrize("case", recorded("max_pool"))
def test_max_pool_grad_grad_matches_tf(case: Case) -> None:
    x = case.inputs["x"]
    y = _max_pool(x, *_pool_attrs(case))
    ggrad = _max_pool_grad_grad(x, y, case.inputs["g"], *_pool_attrs(case))
    assert_same(ggrad, case.outputs["ggrad"])


@pytest.mark.parametrize("case", recorded("avg_pool"))
def test_avg_pool_matches_tf(case: Case) -> None:
    assert_same(_avg_pool(case.inputs["x"], *_pool_attrs(case)), case.outputs["y"], close=True)


@pytest.mark.parametrize("case", recorded("avg_pool"))
def test_avg_pool_grad_matches_tf(case: Case) -> None:
    dx = _avg_pool_grad(case.inputs["dy"], case.inputs["x"].shape, *_pool_attrs(case))
    assert_same(dx, case.outputs["dx"], close=True)


# --- segments, cumulative sums, erf, top_k, one_hot, against TensorFlow -----------------------


@pytest.mark.parametrize("case", recorded("segment_sum"))
def test_segment_sum_matches_tf(case: Case) -> None:
    data, ids = case.inputs["data"], case.inputs["ids"]
    total = _segment_sum(data, ids, case.attrs["count"], data.dtype)
    assert_same(total, case.outputs["sum"], close=True)


@pytest.mark.parametrize("case", recorded("segment_sum"))
def test_segment_gather_is_the_gradient_of_segment_sum_in_tf(case: Case) -> None:
    grad = _segment_gather(case.inputs["g"], case.inputs["ids"])
    assert_same(grad, case.outputs["grad"])


@pytest.mark.parametrize("case", recorded("segment_max"))
def test_segment_max_matches_tf(case: Case) -> None:
    data, ids = case.inputs["data"], case.inputs["ids"]
    assert_same(_segment_max(data, ids, case.attrs["count"], data.dtype), case.outputs["max"])


@pytest.mark.parametrize("case", recorded("sorted_segment_max"))
def test_sorted_segment_max_matches_tf(case: Case) -> None:
    # A segment no row is in holds 0 (unsorted_segment_max gives the lowest value).
    data, ids = case.inputs["data"], case.inputs["ids"]
    assert_same(_sorted_segment_max(data, ids, data.dtype), case.outputs["max"])


def test_sorted_segment_max_of_no_rows() -> None:
    assert_same(
        _sorted_segment_max(np.zeros((0, 2)), np.zeros(0, np.int32), np.float64), np.zeros((0, 2))
    )


@pytest.mark.parametrize("case", recorded("segment_min"))
def test_segment_min_matches_tf(case: Case) -> None:
    # An empty segment holds the dtype's largest value.
    data, ids = case.inputs["data"], case.inputs["ids"]
    assert_same(_segment_min(data, ids, case.attrs["count"], data.dtype), case.outputs["y"])


@pytest.mark.parametrize("case", recorded("sorted_segment_min"))
def test_sorted_segment_min_matches_tf(case: Case) -> None:
    # A segment no row is in holds 0 (unsorted_segment_min gives the largest value).
    data, ids = case.inputs["data"], case.inputs["ids"]
    assert_same(_sorted_segment_min(data, ids, data.dtype), case.outputs["y"])


def test_sorted_segment_min_of_no_rows() -> None:
    assert_same(
        _sorted_segment_min(np.zeros((0, 2)), np.zeros(0, np.int32), np.float64), np.zeros((0, 2))
    )


@pytest.mark.parametrize("case", recorded("segment_prod") + recorded("sorted_segment_prod"))
def test_segment_prod_matches_tf(case: Case) -> None:
    # An empty segment is 1; count None: the sorted ids' last one + 1.
    data, ids = case.inputs["data"], case.inputs["ids"]
    product = _segment_prod(data, ids, case.attrs["count"], data.dtype)
    assert_same(product, case.outputs["y"], close=True)


def test_segment_prod_of_no_rows() -> None:
    assert_same(
        _segment_prod(np.zeros((0, 2)), np.zeros(0, np.int32), None, np.float64), np.ones((0, 2))
    )
    assert_same(
        _segment_prod(np.zeros((0, 2)), np.zeros(0, np.int32), 2, np.float64), np.ones((2, 2))
    )


@pytest.mark.parametrize("case", recorded("cumulative"))
def test_cumsum_and_cumprod_match_tf(case: Case) -> None:
    a, x = case.attrs, case.inputs["x"]
    if a["function"] == "cumsum":
        y = _cumsum(x, a["axis"], a["exclusive"], a["reverse"])
    else:
        y = _cumprod(x, a["axis"], a["exclusive"], a["reverse"])
    assert_same(y, case.outputs["y"], close=x.dtype.kind == "f")


@pytest.mark.parametrize("case", recorded("erf"))
def test_erf_and_erfc_match_tf(case: Case) -> None:
    # The C library's erf and TF's (Eigen's) differ by a few ulps (4 at most here), not more.
    x = case.inputs["x"]
    rtol = 4 * float(np.finfo(x.dtype).eps)
    assert_same(_erf(x), case.outputs["erf"], close=True, rtol=rtol, atol=0)
    assert_same(_erfc(x), case.outputs["erfc"], close=True, rtol=rtol, atol=0)


@pytest.mark.parametrize("case", recorded("logistic_loss"))
def test_logistic_loss_matches_tf_at_the_edges(case: Case) -> None:
    # TF's own formula in TF's order of operations: the same values, the tiny loss of a
    # confident right prediction (logits 20, label 1) included, where softplus(x) - x*z is 0.
    x, z = case.inputs["logits"], case.inputs["labels"]
    expected = case.outputs["loss"]
    assert_same(_logistic_loss(x, z), expected, close=True, rtol=2 * float(np.finfo(x.dtype).eps))
    confident = (x == 20) & (z == 1)
    assert (expected[confident] > 0).all() and (_logistic_loss(x, z)[confident] > 0).all()


@pytest.mark.parametrize("case", recorded("sigmoid_softplus"))
def test_sigmoid_and_softplus_match_tf_at_the_edges(case: Case) -> None:
    # TF's float32 sigmoid and softplus are 0 below about -88 where the kernels give the
    # subnormal value (6e-39 at -88): equal to the smallest normal number, relative elsewhere.
    x = case.inputs["x"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the overflow of exp(-x) is expected, not reported
        sigmoid, softplus = _sigmoid(x), _softplus(x)
    for got, name in ((sigmoid, "sigmoid"), (softplus, "softplus")):
        assert got.dtype == x.dtype
        np.testing.assert_allclose(
            got,
            case.outputs[name],
            rtol=4 * float(np.finfo(x.dtype).eps),
            atol=np.finfo(x.dtype).tiny,
        )


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
@pytest.mark.parametrize(
    "shape", [(3, 5), (_RELU_ROW,), (2, _RELU_ROW + 7), (50, 28, 28, 32), (0, 4)]
)
def test_relu_is_the_maximum_with_zero_bit_for_bit(dtype: type, shape: tuple) -> None:
    # Below one row of zeros, on whole rows, and with a partial row left over; NaN, -0.0, inf;
    # in place (out is x), into another array, and on a view that is not contiguous.
    rng = np.random.default_rng(31)
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    if x.size and np.issubdtype(dtype, np.floating):
        flat = x.reshape(-1)
        flat[: min(6, flat.size)] = [np.nan, -0.0, np.inf, -np.inf, 0.0, -np.nan][: flat.size]
    expected = np.maximum(x, 0)
    into = np.empty_like(x)
    assert _relu(x, into) is into
    np.testing.assert_array_equal(into, expected)
    assert (np.signbit(into) == np.signbit(expected)).all()
    in_place = x.copy()
    assert _relu(in_place, in_place) is in_place
    np.testing.assert_array_equal(in_place, expected)
    strided = np.repeat(x, 2, axis=-1)[..., ::2]
    np.testing.assert_array_equal(_relu(strided, np.empty_like(x)), expected)
    new = _relu(x)  # a new array, as np.maximum(x, 0)
    assert new.dtype == expected.dtype and not np.shares_memory(new, x)
    np.testing.assert_array_equal(new, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_leading_axes_is_the_sum_over_every_axis_but_the_last(dtype: type) -> None:
    # a convolution's bias gradient, a view that is not contiguous, no rows, inf and NaN
    rng = np.random.default_rng(12)
    gradient = rng.standard_normal((50, 14, 14, 8)).astype(dtype)
    strided = rng.standard_normal((6, 5, 4, 6)).astype(dtype)[:, ::2, :, 1:4]
    special = np.ones((2, 3, 4), dtype)
    special[0, 0, 1], special[1, 2, 2] = np.inf, np.nan
    for x in (gradient, strided, np.zeros((0, 3, 2), dtype), special):
        got = _sum_leading_axes(x)
        leading = tuple(range(x.ndim - 1))
        expected = np.sum(x.astype(np.float64), axis=leading)
        assert got.dtype == dtype and got.shape == x.shape[-1:]
        # A sum's rounding error is bounded by the sum of magnitudes (the sums here cancel).
        with np.errstate(invalid="ignore"):
            bound = (
                8 * float(np.finfo(dtype).eps) * np.sum(np.abs(x.astype(np.float64)), axis=leading)
            )
        finite = np.isfinite(expected)
        assert np.all(np.abs(got[finite] - expected[finite]) <= bound[finite])
        np.testing.assert_array_equal(got[~finite], expected[~finite])


@pytest.mark.parametrize("case", recorded("huber_loss"))
def test_huber_loss_matches_tf(case: Case) -> None:
    # TF1's losses compute in float32 (its float64 case too): the kernel runs on what the
    # module gives it, the cast error.
    expected = case.outputs["loss"]
    error = case.inputs["error"].astype(expected.dtype)
    assert_same(_huber_loss(error, case.attrs["delta"]), expected)


@pytest.mark.parametrize("case", recorded("weighted_logistic_loss"))
def test_weighted_logistic_loss_and_gradient_match_tf(case: Case) -> None:
    # TF's gradient at logits 0 is 1 - z (its abs and relu pass none there): kept.
    x, z = case.inputs["logits"], case.inputs["labels"]
    q = case.attrs["pos_weight"]
    rtol = 4 * float(np.finfo(x.dtype).eps)
    assert_same(_weighted_logistic_loss(x, z, q), case.outputs["loss"], close=True, rtol=rtol)
    grad = _weighted_logistic_grad(x, z, q)
    assert_same(grad, case.outputs["grad"], close=True, rtol=rtol)
    np.testing.assert_array_equal(grad[x == 0], (1 - z)[x == 0])


@pytest.mark.parametrize("case", recorded("top_k"))
def test_top_k_indices_match_tf(case: Case) -> None:
    # Of equal entries (the *_ties case), the lower index first.
    assert_same(_top_k_indices(case.inputs["x"], case.attrs["k"]), case.outputs["indices"])


@pytest.mark.parametrize("case", recorded("top_k"))
def test_top_k_grad_matches_tf(case: Case) -> None:
    x, indices = case.inputs["x"], case.outputs["indices"]
    assert_same(_top_k_grad(case.inputs["g"], indices, x.shape), case.outputs["grad"])


@pytest.mark.parametrize("case", recorded("one_hot"))
def test_one_hot_matches_tf(case: Case) -> None:
    # -1 and 5 are outside the 4 (or 3, 5) classes: a row of ``off``, as in TF.
    a = case.attrs
    y = _one_hot(
        case.inputs["indices"], a["depth"], a["on"], a["off"], a["axis"], np.dtype(a["dtype"]).type
    )
    assert_same(y, case.outputs["y"])


# --- diagonals and bands, against TensorFlow -------------------------------------------------


@pytest.mark.parametrize("case", recorded("diag"))
def test_diag_matches_tf(case: Case) -> None:
    assert_same(_diag(case.inputs["x"]), case.outputs["y"])


@pytest.mark.parametrize("case", recorded("diag_part"))
def test_diag_part_matches_tf(case: Case) -> None:
    assert_same(_diag_part(case.inputs["x"]), case.outputs["y"])


@pytest.mark.parametrize("case", recorded("matrix_diag"))
def test_matrix_diag_matches_tf(case: Case) -> None:
    assert_same(_matrix_diag(case.inputs["x"]), case.outputs["y"])


@pytest.mark.parametrize("case", recorded("matrix_diag_part"))
def test_matrix_diag_part_matches_tf(case: Case) -> None:
    part = _matrix_diag_part(case.inputs["x"])
    assert_same(part, case.outputs["y"])
    assert part.flags.writeable  # a copy, not NumPy's read-only view


@pytest.mark.parametrize("case", recorded("matrix_set_diag_zeros"))
def test_matrix_set_diag_zeros_matches_tf(case: Case) -> None:
    y = _matrix_set_diag_zeros(case.inputs["diagonal"], tuple(case.attrs["shape"]))
    assert_same(y, case.outputs["y"])


@pytest.mark.parametrize("case", recorded("band_part"))
def test_band_part_matches_tf(case: Case) -> None:
    y = _band_part(case.inputs["x"], case.attrs["lower"], case.attrs["upper"])
    assert_same(y, case.outputs["y"])


# --- masks, mirror padding, local response normalization, against TensorFlow ------------------


@pytest.mark.parametrize("case", recorded("boolean_mask"))
def test_boolean_mask_matches_tf(case: Case) -> None:
    y = _boolean_mask(case.inputs["x"], case.inputs["mask"], case.attrs["axis"])
    assert_same(y, case.outputs["y"])


@pytest.mark.parametrize("case", recorded("boolean_mask"))
def test_boolean_mask_grad_matches_tf(case: Case) -> None:
    x, mask = case.inputs["x"], case.inputs["mask"]
    grad = _boolean_mask_grad(case.inputs["g"], mask, x.shape, case.attrs["axis"], x.dtype)
    assert_same(grad, case.outputs["grad"])


@pytest.mark.parametrize("case", recorded("mirror_pad_grad"))
def test_mirror_pad_grad_matches_tf(case: Case) -> None:
    paddings = tuple(tuple(pair) for pair in case.attrs["paddings"])
    grad = _mirror_pad_grad(case.inputs["g"], paddings, case.attrs["mode"])
    assert_same(grad, case.outputs["grad"], close=True)


@pytest.mark.parametrize("case", recorded("lrn"))
def test_depth_window_sum_is_what_local_response_normalization_needs(case: Case) -> None:
    # TF's LRN: x / (bias + alpha * sum of x**2 over the depth window) ** beta (float32 only).
    a, x = case.attrs, case.inputs["x"]
    squares = _depth_window_sum(x**2, a["radius"])
    assert squares.dtype == np.float32 and squares.shape == x.shape
    y = x / (a["bias"] + a["alpha"] * squares.astype(np.float64)) ** a["beta"]
    np.testing.assert_allclose(y, case.outputs["y"], rtol=2e-6, atol=1e-7)


# --- gradients of slicing, gather, tile, concat, split, against TensorFlow --------------------


def _key(parts: list) -> tuple:
    return tuple(
        Ellipsis if part == "..." else slice(*part["slice"]) if isinstance(part, dict) else part
        for part in parts
    )


@pytest.mark.parametrize("case", recorded("slice_grad"))
def test_scatter_is_the_gradient_of_slicing_in_tf(case: Case) -> None:
    x = case.inputs["x"]
    grad = _scatter(case.inputs["g"], x.shape, _key(case.attrs["key"]), x.dtype)
    assert_same(grad, case.outputs["grad"])


@pytest.mark.parametrize("case", recorded("gather_grad"))
def test_scatter_add_is_the_gradient_of_gather_in_tf(case: Case) -> None:
    # Repeated indices add up; a scalar index drops the axis.
    x, indices = case.inputs["x"], case.inputs["indices"]
    grad = _scatter_add(case.inputs["g"], indices, x.shape, case.attrs["axis"], x.dtype)
    assert_same(grad, case.outputs["grad"], close=True)


@pytest.mark.parametrize("case", recorded("tile_grad"))
def test_untile_is_the_gradient_of_tile_in_tf(case: Case) -> None:
    x = case.inputs["x"]
    grad = _untile(case.inputs["g"], x.shape, case.attrs["multiples"])
    assert_same(grad, case.outputs["grad"], close=True)


@pytest.mark.parametrize("case", recorded("concat_grad"))
def test_concat_part_is_the_gradient_of_concat_in_tf(case: Case) -> None:
    axis, sizes = case.attrs["axis"], case.attrs["sizes"]
    for index in range(len(sizes)):
        part = _concat_part(case.inputs["g"], axis, sizes, index)
        assert_same(part, case.outputs[f"grad{index}"])


@pytest.mark.parametrize("case", recorded("concat_grad"))
def test_unconcat_part_is_the_gradient_of_concat_part_in_tf(case: Case) -> None:
    axis, sizes, g = case.attrs["axis"], case.attrs["sizes"], case.inputs["g"]
    for index in range(len(sizes)):
        whole = _unconcat_part(case.inputs[f"h{index}"], g, axis, sizes, index)
        assert_same(whole, case.outputs[f"ungrad{index}"])


@pytest.mark.parametrize("case", recorded("split"))
def test_split_equal_matches_tf_split(case: Case) -> None:
    axis, parts, x = case.attrs["axis"], case.attrs["parts"], case.inputs["x"]
    for index in range(parts):
        assert_same(_split_equal(x, axis, parts, index), case.outputs[f"part{index}"])


@pytest.mark.parametrize("case", recorded("split"))
def test_unsplit_equal_is_the_gradient_of_split_in_tf(case: Case) -> None:
    axis, parts, x = case.attrs["axis"], case.attrs["parts"], case.inputs["x"]
    for index in range(parts):
        grad = _unsplit_equal(case.inputs[f"g{index}"], x, axis, parts, index)
        assert_same(grad, case.outputs[f"grad{index}"])


# --- reductions, against TensorFlow ----------------------------------------------------------


def _axes(axes: int | list | None) -> int | tuple | None:
    return tuple(axes) if isinstance(axes, list) else axes


@pytest.mark.parametrize("case", recorded("prod_grad"))
def test_prod_others_is_the_gradient_of_reduce_prod_in_tf(case: Case) -> None:
    # With one zero in a product, only the zero's gradient is not 0; with two, none is.
    others = _prod_others(case.inputs["x"], _axes(case.attrs["axes"]))
    assert_same(others, case.outputs["grad"], close=True)


@pytest.mark.parametrize("case", recorded("prod_grad_grad"))
def test_prod_others_vjp_is_the_second_derivative_of_reduce_prod_in_tf(case: Case) -> None:
    x, axes = case.inputs["x"], _axes(case.attrs["axes"])
    assert_same(_prod_others(x, axes), case.outputs["grad"], close=True)
    vjp = _prod_others_vjp(case.inputs["cotangent"], x, axes)
    assert_same(vjp, case.outputs["vjp"], close=True)


@pytest.mark.parametrize("case", recorded("integer_mean"))
def test_integer_mean_matches_tf_reduce_mean_of_integers(case: Case) -> None:
    # Rounded toward 0 (-7 // 4 would be -2, TF gives -1), summed without overflow.
    a = case.attrs
    mean = _integer_mean(case.inputs["x"], _axes(a["axis"]), a["keepdims"])
    assert_same(mean, case.outputs["y"])


@pytest.mark.parametrize("case", recorded("broadcast_grad"))
def test_sum_to_shape_is_the_gradient_of_broadcasting_in_tf(case: Case) -> None:
    grad = _sum_to_shape(case.inputs["g"], tuple(case.attrs["shape"]))
    assert_same(grad, case.outputs["grad"], close=True)


@pytest.mark.parametrize("case", recorded("select"))
def test_select_condition_spreads_a_condition_as_tf1_where(case: Case) -> None:
    x, y, condition = case.inputs["x"], case.inputs["y"], case.inputs["condition"]
    spread = _select_condition(condition, x, y)
    assert spread.shape == x.shape
    assert_same(np.where(spread, x, y), case.outputs["y"])


# --- the pieces of convolution and pooling, against NumPy loops ------------------------------

WINDOW_CONFIGS = [
    # x shape, kernel, strides, dilations, padding
    ((2, 5, 6, 3), (3, 2), (1, 1), (1, 1), "SAME"),
    ((1, 7, 5, 2), (3, 3), (2, 2), (1, 1), "VALID"),
    ((1, 6, 7, 1), (2, 3), (2, 3), (1, 1), "SAME"),
    ((1, 7, 7, 2), (3, 2), (1, 1), (2, 3), "SAME"),
    ((2, 8, 6, 1), (2, 2), (3, 1), (2, 2), "VALID"),
    ((1, 2, 3, 1), (4, 4), (1, 1), (1, 1), "SAME"),
]


def _reference_windows(x, kernel, strides, dilations, padding, fill):
    """The windows of ``x``, one element at a time."""
    n, h, w, c = x.shape
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    if padding == "SAME":
        out = [-(-size // s) for size, s in zip((h, w), strides, strict=True)]
        totals = [
            max((o - 1) * s + e - size, 0)
            for o, s, e, size in zip(out, strides, extent, (h, w), strict=True)
        ]
        before = [t // 2 for t in totals]
    else:
        out = [(size - e) // s + 1 for size, e, s in zip((h, w), extent, strides, strict=True)]
        before = [0, 0]
    result = np.full((n, out[0], out[1], c, kernel[0], kernel[1]), fill, dtype=x.dtype)
    for oi in range(out[0]):
        for oj in range(out[1]):
            for i in range(kernel[0]):
                for j in range(kernel[1]):
                    row = oi * strides[0] + i * dilations[0] - before[0]
                    col = oj * strides[1] + j * dilations[1] - before[1]
                    if 0 <= row < h and 0 <= col < w:
                        result[:, oi, oj, :, i, j] = x[:, row, col, :]
    return result


def test_pads_follow_tf_same_and_valid() -> None:
    # (size, extent, stride, padding) -> (before, after): SAME puts the odd element after.
    table = {
        (5, 3, 1, "SAME"): (1, 1),
        (5, 3, 2, "SAME"): (1, 1),
        (6, 3, 2, "SAME"): (0, 1),
        (4, 4, 1, "SAME"): (1, 2),
        (7, 2, 3, "SAME"): (0, 1),
        (3, 5, 1, "SAME"): (2, 2),
        (5, 1, 2, "SAME"): (0, 0),
        (5, 3, 2, "VALID"): (0, 0),
        (2, 3, 1, "VALID"): (0, 0),
    }
    for (size, extent, stride, padding), pads in table.items():
        assert _pads(size, extent, stride, padding) == pads
    for size in range(1, 9):
        for extent in range(1, 6):
            for stride in range(1, 4):
                before, after = _pads(size, extent, stride, "SAME")
                out = -(-size // stride)  # SAME: ceil(size / stride) windows
                assert (size + before + after - extent) // stride + 1 == out
                assert 0 <= after - before <= 1


@pytest.mark.parametrize("config", WINDOW_CONFIGS)
def test_windows_match_a_loop_and_pad_with_fill(config) -> None:
    shape, kernel, strides, dilations, padding = config
    x = np.random.default_rng(1).standard_normal(shape)
    windows = _windows(x, kernel, strides, dilations, padding, -7.5)
    expected = _reference_windows(x, kernel, strides, dilations, padding, -7.5)
    assert_same(windows, expected)


@pytest.mark.parametrize("config", WINDOW_CONFIGS)
def test_add_windows_is_the_adjoint_of_windows(config) -> None:
    # <windows(x), y> == <x, add_windows(y)> for every x and y (up to rounding): a transpose.
    shape, kernel, strides, dilations, padding = config
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    windows = _windows(x, kernel, strides, dilations, padding, 0)
    y = rng.standard_normal(windows.shape)
    back = _add_windows(y, shape, strides, dilations, padding)
    assert back.shape == shape and back.dtype == y.dtype
    assert np.vdot(windows, y) == pytest.approx(np.vdot(x, back), rel=1e-12)


def test_image_chunks_cover_the_batch_in_order() -> None:
    x = np.zeros((5, 4, 4, 1))
    assert _image_chunks(x, 9) == [slice(0, 2**24 // (16 * 9))]  # one slice, the whole batch
    chunks = _image_chunks(np.zeros((5, 1, 1, 1)), 2**23)  # 2 images of rows per slice
    assert chunks == [slice(0, 2), slice(2, 4), slice(4, 6)]
    assert np.concatenate([np.arange(5)[s] for s in chunks]).tolist() == [0, 1, 2, 3, 4]
    assert _image_chunks(np.zeros((3, 1, 1, 1)), 2**25) == [slice(0, 1), slice(1, 2), slice(2, 3)]
    assert _image_chunks(np.zeros((0, 2, 2, 1)), 4) == [slice(0, 2**24 // 16)]  # no images


@pytest.mark.parametrize("config", WINDOW_CONFIGS)
def test_patches_are_the_windows_in_hwio_row_order(config) -> None:
    shape, kernel, strides, dilations, padding = config
    x = np.random.default_rng(3).standard_normal(shape)
    patches = _patches(x, kernel, strides, dilations, padding)
    windows = _reference_windows(x, kernel, strides, dilations, padding, 0)
    kh, kw, c = kernel[0], kernel[1], shape[3]
    assert patches.shape == windows.shape[:3] + (kh * kw * c,)
    for i in range(kh):
        for j in range(kw):
            for channel in range(c):
                column = (i * kw + j) * c + channel  # the row of reshape(filters, (-1, c_out))
                assert_same(patches[..., column], windows[..., channel, i, j])


BLOCK_CONFIGS = [
    ((2, 6, 4, 3), (2, 2), "VALID"),
    ((1, 5, 7, 2), (2, 2), "VALID"),
    ((1, 5, 7, 2), (2, 3), "SAME"),
    ((2, 7, 5, 1), (3, 2), "SAME"),
]


@pytest.mark.parametrize("config", BLOCK_CONFIGS)
def test_blocks_are_the_windows_of_a_pooling_without_overlap(config) -> None:
    shape, ksize, padding = config
    x = np.random.default_rng(4).standard_normal(shape)
    blocks = _blocks(x, ksize, padding, -np.inf)
    windows = _reference_windows(x, ksize, ksize, (1, 1), padding, -np.inf)
    assert_same(np.transpose(blocks, (0, 1, 3, 5, 2, 4)), windows)
    if padding == "VALID":
        assert np.shares_memory(blocks, x)  # a view: nothing copied


@pytest.mark.parametrize("config", BLOCK_CONFIGS)
def test_block_max_is_the_maximum_of_each_block(config) -> None:
    shape, ksize, padding = config
    x = np.random.default_rng(5).standard_normal(shape)
    blocks = _blocks(x, ksize, padding, -np.inf)
    assert_same(_block_max(blocks), np.max(blocks, axis=(2, 4)))


def _ties(shape, seed):
    return np.random.default_rng(seed).integers(0, 3, shape).astype(np.float64)


@pytest.mark.parametrize(
    "config", WINDOW_CONFIGS[:3] + [((1, 5, 5, 2), (3, 3), (2, 2), (1, 1), "SAME")]
)
def test_first_max_is_the_first_maximum_of_each_window(config) -> None:
    shape, kernel, strides, _, padding = config
    x = _ties(shape, 6)  # many equal maxima
    first = _first_max(x, kernel, strides, padding)
    windows = _reference_windows(x, kernel, strides, (1, 1), padding, -np.inf)
    flat = windows.reshape(windows.shape[:4] + (-1,))
    expected = np.array(
        [row.tolist().index(row.max()) for row in flat.reshape(-1, flat.shape[-1])]
    ).reshape(flat.shape[:4])
    assert_same(first, expected.astype(first.dtype))


@pytest.mark.parametrize("with_nan", [False, True])
@pytest.mark.parametrize("config", BLOCK_CONFIGS)
def test_max_pool_first_taps_are_each_windows_first_maximum(config, with_nan) -> None:
    # Many ties; without a NaN the taps before the first maximum are counted, with one each
    # tap is compared (a NaN counts as a maximum, as in np.argmax).
    shape, ksize, padding = config
    x = _ties(shape, 7)
    if with_nan:
        x[0, 0, 0, 0] = np.nan
        x[-1, -1, -1, -1] = np.nan
    blocks = _blocks(x, ksize, padding, -np.inf)
    taps = _max_pool_first_taps(x, _block_max(blocks), ksize, padding)
    assert taps.dtype == np.uint8
    flat = np.transpose(blocks, (0, 1, 3, 5, 2, 4)).reshape(taps.shape + (-1,))
    assert_same(taps, np.argmax(flat, axis=-1).astype(np.uint8))


@pytest.mark.parametrize("config", BLOCK_CONFIGS)
def test_max_pool_grad_at_taps_puts_each_gradient_at_its_tap(config) -> None:
    # The tap each window's gradient goes to, read back from the gradient; +0.0 elsewhere
    # (the VALID rows and columns past the last window included).
    shape, ksize, padding = config
    x = _ties(shape, 8)
    y = _max_pool(x, ksize, ksize, padding)
    taps = _max_pool_first_taps(x, y, ksize, padding)
    dy = np.random.default_rng(9).uniform(1, 2, y.shape)
    grad = _max_pool_grad_at_taps(dy, taps, ksize, padding, shape[1:3])
    assert grad.shape == x.shape
    routed = _blocks(grad, ksize, padding, 0)
    flat = np.transpose(routed, (0, 1, 3, 5, 2, 4)).reshape(taps.shape + (-1,))
    assert_same(np.argmax(flat, axis=-1).astype(np.uint8), taps)
    assert_same(flat.sum(axis=-1), dy)
    assert not np.signbit(grad).any() and np.count_nonzero(grad) == dy.size


def test_block_taps_tap_max_and_first_max_taps_read_each_windows_taps() -> None:
    x = _ties((2, 4, 6, 3), 10)
    blocks = _blocks(x, (2, 3), "VALID", -np.inf)
    taps = _block_taps(blocks)
    assert len(taps) == 6 and all(np.shares_memory(t, x) for t in taps)
    assert_same(taps[4], x[:, 1::2, 1::3])  # row 1, column 1 of each window
    y = _tap_max(taps)
    assert_same(y, np.max(blocks, axis=(2, 4)))
    flat = np.transpose(blocks, (0, 1, 3, 5, 2, 4)).reshape(y.shape + (-1,))
    assert_same(_first_max_taps(taps, y), np.argmax(flat, axis=-1).astype(np.uint8))


def test_bits_at_tap_keeps_the_values_at_the_tap_and_plus_zero_elsewhere() -> None:
    dy = np.array([1.5, -0.0, np.inf, np.nan, -2.0], dtype=np.float32)
    taps = np.array([0, 0, 1, 1, 0], dtype=np.uint8)
    out = np.full(5, 7.0, dtype=np.float32)
    at_tap = np.empty(5, dtype=bool)
    _bits_at_tap(dy.view(np.int32), taps, 1, out.view(np.int32), at_tap)
    assert_same(out, np.array([0.0, 0.0, np.inf, np.nan, 0.0], dtype=np.float32))
    assert not np.signbit(out[[0, 1, 4]]).any()
    _bits_at_tap(dy.view(np.int32), taps, 0, out.view(np.int32), at_tap)
    assert np.signbit(out[1]) and out[0] == 1.5 and out[4] == -2.0  # -0.0 passes as it is


# (x shape, kernel, strides, dilations, padding, pool ksize): pools that tile the output
POOLED_CONFIGS = [
    ((3, 8, 8, 1), (5, 5), (1, 1), (1, 1), "SAME", (2, 2)),
    ((2, 9, 12, 3), (3, 3), (1, 1), (1, 1), "VALID", (1, 2)),  # 7x10 tiled by 1x2
    ((2, 11, 11, 2), (3, 3), (2, 2), (1, 1), "SAME", (3, 2)),  # 6x6 by 3x2
    ((2, 10, 10, 1), (3, 3), (1, 1), (2, 2), "VALID", (2, 3)),  # 6x6 by 2x3
]


@pytest.mark.parametrize("config", POOLED_CONFIGS)
def test_pool_tap_rows_are_the_patches_grouped_by_the_pools_taps(config) -> None:
    shape, kernel, strides, dilations, padding, ksize = config
    x = np.random.default_rng(11).standard_normal(shape)
    patches = _patches(x, kernel, strides, dilations, padding)
    rows = _pool_tap_rows(x, kernel, strides, dilations, padding, ksize)
    (ph, pw), (n, out_h, out_w, size) = ksize, patches.shape
    assert rows.shape == (n * out_h * out_w, size)
    by_tap = rows.reshape(ph, pw, n, out_h // ph, out_w // pw, size)
    for i in range(ph):
        for j in range(pw):
            assert_same(by_tap[i, j], patches[:, i::ph, j::pw])


def test_padded_is_x_inside_the_fill_a_convolution_reads_around_it() -> None:
    x = np.arange(2 * 3 * 4 * 1, dtype=np.float32).reshape(2, 3, 4, 1)
    assert _padded(x, (3, 3), (1, 1), "VALID", 0) is x  # nothing read outside: no copy
    padded = _padded(x, (3, 2), (1, 1), "SAME", -np.inf)
    assert padded.shape == (2, 5, 5, 1)  # SAME puts the odd element after: (1, 1), (0, 1)
    assert_same(padded[:, 1:4, 0:4], x)
    assert np.isneginf(padded[:, 0]).all() and np.isneginf(padded[:, 4]).all()
    assert np.isneginf(padded[:, :, 4]).all()


def test_pool_tap_rows_of_one_channel_over_strides_dilations_and_paddings() -> None:
    """The one-channel rows (``_pool_tap_planes``: the image at each offset a pool tap and a
    kernel tap add up to, then each kernel tap's row from those planes) against the patches,
    over every tiling configuration a seeded draw gives, empty batches included."""
    rng = np.random.default_rng(12)
    checked = 0
    for _ in range(600):
        kernel = tuple(int(k) for k in rng.integers(1, 6, 2))
        strides = tuple(int(s) for s in rng.integers(1, 4, 2))
        dilations = tuple(int(d) for d in rng.integers(1, 3, 2))
        ksize = tuple(int(k) for k in rng.integers(1, 4, 2))
        padding = ("SAME", "VALID")[int(rng.integers(2))]
        shape = (int(rng.integers(0, 3)), int(rng.integers(1, 16)), int(rng.integers(1, 16)), 1)
        if (
            _pooled_im2col_sizes(shape, kernel + (1,), strides, dilations, padding, ksize, 48)
            is None
        ):
            continue
        x = rng.standard_normal(shape).astype(np.float32)
        patches = _patches(x, kernel, strides, dilations, padding)
        rows = _pool_tap_rows(x, kernel, strides, dilations, padding, ksize)
        assert_same(rows, _pool_tap_planes(x, kernel, strides, dilations, padding, ksize).T)
        (ph, pw), (n, out_h, out_w, size) = ksize, patches.shape
        by_tap = rows.reshape(ph, pw, n, out_h // ph, out_w // pw, size)
        for i in range(ph):
            for j in range(pw):
                assert_same(by_tap[i, j], patches[:, i::ph, j::pw])
        checked += 1
    assert checked > 120  # the draw reaches many tilings, not a handful


def test_pooled_im2col_sizes_say_where_the_pool_tiles_an_im2col_convolution() -> None:
    def sizes(shape, filters, ksize, strides=(1, 1), padding="SAME", rows_min=48):
        return _pooled_im2col_sizes(shape, filters, strides, (1, 1), padding, ksize, rows_min)

    assert sizes((50, 28, 28, 1), (5, 5, 1, 32), (2, 2)) == (14, 14)
    assert sizes((50, 28, 28, 1), (5, 5, 1, 32), (3, 3)) is None  # 28 is no multiple of 3
    assert sizes((50, 14, 14, 32), (5, 5, 32, 64), (2, 2)) is None  # kernel row by row
    assert sizes((50, 14, 14, 32), (5, 5, 32, 64), (2, 2), (2, 2)) is None  # 7x7 by 2x2
    assert sizes((50, 28, 28, 32), (5, 5, 32, 64), (2, 2), (2, 2)) == (7, 7)  # im2col
    assert sizes((50, 28, 28, 8), (5, 5, 8, 8), (2, 2), rows_min=16) is None  # backward's
    assert sizes((2, 4, 4, 1), (5, 5, 1, 2), (1, 1), padding="VALID") is None  # no output


def _relu_pool_reference(x, filters, bias, strides, dilations, padding, ksize):
    z = _conv2d(x, filters, strides, dilations, padding)
    if bias is not None:
        z = z + bias
    r = np.maximum(z, 0)
    y = _max_pool(r, ksize, ksize, "SAME")
    return y, _max_pool_first_taps(r, y, ksize, "SAME")


@pytest.mark.parametrize(
    "config",
    POOLED_CONFIGS
    + [
        ((2, 8, 7, 1), (3, 3), (1, 1), (1, 1), "SAME", (2, 2)),  # not tiled: one after another
        ((2, 6, 6, 16), (3, 3), (1, 1), (1, 1), "SAME", (2, 2)),  # kernel row by row
    ],
)
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf times 0 in x's windows
def test_conv2d_relu_max_pool_is_the_pool_and_taps_of_the_relu_bit_for_bit(
    config, with_bias
) -> None:
    shape, kernel, strides, dilations, padding, ksize = config
    rng = np.random.default_rng(12)
    x = np.round(rng.standard_normal(shape), 1).astype(np.float32)  # ties, zeros
    x[0, 0, :2] = np.nan  # NaN windows (a NaN counts as a maximum)
    x[-1, -1, -1] = np.inf
    filters = np.round(rng.standard_normal(kernel + (shape[3], 4)), 1).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32) if with_bias else None
    expected = _relu_pool_reference(x, filters, bias, strides, dilations, padding, ksize)
    y, taps, rows = _conv2d_relu_max_pool(
        x, filters, bias, strides, dilations, padding, ksize, "SAME", True
    )
    assert_same(y, expected[0])
    assert_same(taps, expected[1])
    tiled = _pooled_im2col_sizes(
        shape, filters.shape, strides, dilations, padding, ksize, _ROWS_MIN_FORWARD
    )
    if tiled is None:
        assert rows is None
    else:
        assert_same(rows, _pool_tap_rows(x, kernel, strides, dilations, padding, ksize))
    assert (
        _conv2d_relu_max_pool(x, filters, bias, strides, dilations, padding, ksize, "SAME", False)[
            2
        ]
        is None
    )
    values = _conv2d_relu_max_pool_values(
        x, filters, bias, strides, dilations, padding, ksize, "SAME"
    )
    assert_same(values, expected[0])


def test_conv2d_relu_max_pool_goes_a_few_images_at_a_time_and_keeps_no_rows_then() -> None:
    rng = np.random.default_rng(13)
    x = rng.standard_normal((170, 64, 64, 1)).astype(np.float32)  # two chunks of rows
    filters = rng.standard_normal((5, 5, 1, 2)).astype(np.float32)
    bias = rng.standard_normal(2).astype(np.float32)
    assert len(_image_chunks(x, 25)) == 2
    y, taps, rows = _conv2d_relu_max_pool(
        x, filters, bias, (1, 1), (1, 1), "SAME", (2, 2), "SAME", True
    )
    expected = _relu_pool_reference(x, filters, bias, (1, 1), (1, 1), "SAME", (2, 2))
    assert_same(y, expected[0])
    assert_same(taps, expected[1])
    assert rows is None
    values = _conv2d_relu_max_pool_values(x, filters, bias, (1, 1), (1, 1), "SAME", (2, 2), "SAME")
    assert_same(values, expected[0])
    chunks = list(_pooled_conv2d_relu(x, filters, bias, (1, 1), (1, 1), "SAME", (2, 2), "SAME"))
    assert len(chunks) == 2  # one per chunk of images, each with its rows
    for images, (chunk_y, window_taps, chunk_rows) in zip(
        _image_chunks(x, 25), chunks, strict=True
    ):
        assert_same(chunk_y, expected[0][images])
        assert len(window_taps) == 4 and all(
            np.shape(tap) == np.shape(chunk_y) for tap in window_taps
        )
        assert_same(_first_max_taps(window_taps, chunk_y), expected[1][images])
        assert_same(chunk_rows, _pool_tap_rows(x[images], (5, 5), (1, 1), (1, 1), "SAME", (2, 2)))
    dy = rng.standard_normal(y.shape).astype(np.float32)
    full = _max_pool_grad_at_taps(dy, taps, (2, 2), "SAME", (64, 64))
    np.testing.assert_allclose(
        _conv2d_backprop_filter_at_taps(
            x, dy, taps, (5, 5), (1, 1), (1, 1), "SAME", (2, 2), "SAME", (64, 64), None
        ),
        _conv2d_backprop_filter(x, full, (5, 5), (1, 1), (1, 1), "SAME"),
        rtol=1e-4,
        atol=1e-2,
    )


@pytest.mark.parametrize(
    "config",
    POOLED_CONFIGS + [((2, 8, 7, 1), (3, 3), (1, 1), (1, 1), "SAME", (2, 2))],  # not tiled
)
def test_conv2d_backprop_filter_at_taps_is_the_filter_gradient_through_the_pool(
    config,
) -> None:
    shape, kernel, strides, dilations, padding, ksize = config
    rng = np.random.default_rng(14)
    x = _ties(shape, 15)
    filters = rng.standard_normal(kernel + (shape[3], 3))
    y, taps, rows = _conv2d_relu_max_pool(
        x, filters, None, strides, dilations, padding, ksize, "SAME", True
    )
    dy = rng.standard_normal(y.shape)
    dy.reshape(-1)[:3] = [1e30, -0.0, -1e30]  # routed as they are, +0.0 elsewhere
    size = _conv2d(x, filters, strides, dilations, padding).shape[1:3]
    full = _max_pool_grad_at_taps(dy, taps, ksize, "SAME", size)
    expected = _conv2d_backprop_filter(x, full, kernel, strides, dilations, padding)
    arguments = (x, dy, taps, kernel, strides, dilations, padding, ksize, "SAME", size)
    made = _conv2d_backprop_filter_at_taps(*arguments, None)
    np.testing.assert_allclose(made, expected, rtol=1e-12)
    assert_same(_conv2d_backprop_filter_at_taps(*arguments, rows), made)  # the forward's rows


@pytest.mark.parametrize("config", WINDOW_CONFIGS)
def test_pool_counts_count_the_elements_inside_each_window(config) -> None:
    shape, kernel, strides, _, padding = config
    counts = _pool_counts(shape, kernel, strides, padding, np.float32)
    inside = _reference_windows(
        np.ones((1,) + shape[1:3] + (1,)), kernel, strides, (1, 1), padding, 0
    )
    assert_same(counts, inside.sum(axis=(4, 5)).astype(np.float32))


# --- more reductions, cumulative sums and top_k, against NumPy --------------------------------


def test_prod_others_vjp_with_zeros_matches_the_products_of_all_but_two() -> None:
    # TF's second derivative of reduce_prod divides by the elements: NaN with zeros. Here the
    # reference is the definition: d others[i] / d x[j] = product of all but x[i] and x[j].
    x = np.array([[0.0, 2.0, 0.0, 3.0], [1.5, 0.0, -2.0, 0.5], [1.0, 2.0, 3.0, 4.0]])
    c = np.random.default_rng(8).standard_normal(x.shape)
    expected = np.zeros_like(x)
    for row in range(x.shape[0]):
        for j in range(x.shape[1]):
            for i in range(x.shape[1]):
                if i != j:
                    rest = [x[row, k] for k in range(x.shape[1]) if k not in (i, j)]
                    expected[row, j] += c[row, i] * math.prod(rest)
    np.testing.assert_allclose(_prod_others_vjp(c, x, (1,)), expected, rtol=1e-13)
    np.testing.assert_allclose(
        _prod_others_vjp(c[:, :1], x, (1,)),
        _prod_others_vjp(np.broadcast_to(c[:, :1], x.shape), x, (1,)),
    )


def test_prod_others_of_an_empty_batch() -> None:
    assert _prod_others(np.zeros((0, 3)), (1,)).shape == (0, 3)
    assert _prod_others_vjp(np.zeros((0, 3)), np.zeros((0, 3)), (1,)).shape == (0, 3)


def test_integer_mean_of_no_elements_is_zero() -> None:
    assert_same(_integer_mean(np.zeros((0, 3), np.int32), 0, False), np.zeros(3, np.int32))
    assert_same(_integer_mean(np.zeros((2, 0), np.int64), 1, True), np.zeros((2, 1), np.int64))


def test_sum_to_shape_returns_a_value_already_of_the_shape_itself() -> None:
    g = np.ones((2, 3))
    assert _sum_to_shape(g, (2, 3)) is g
    assert_same(_sum_to_shape(g, ()), np.float64(6.0))


def test_cumulative_runs_function_as_tf_and_refuses_an_axis_out_of_range() -> None:
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert_same(_cumulative(np.cumsum, 0, x, 1, True, False), np.array([[0, 1, 3], [0, 4, 9.0]]))
    assert_same(_cumulative(np.cumprod, 1, x, 0, True, True), np.array([[4, 5, 6], [1, 1, 1.0]]))
    with pytest.raises(ValueError, match=r"axis 2 is out of range for a value of shape \[2, 3\]"):
        _cumulative(np.cumsum, 0, x, 2, False, False)
    with pytest.raises(ValueError, match="axis -3 is out of range"):
        _cumsum(x, -3, False, False)


def test_top_k_indices_refuse_a_scalar_and_too_few_entries() -> None:
    with pytest.raises(ValueError, match=r"top_k needs rank 1 or more, got shape \[\]"):
        _top_k_indices(np.float64(1.0), 1)
    with pytest.raises(
        ValueError, match="top_k needs at least k=4 entries along the last axis, got 3"
    ):
        _top_k_indices(np.zeros((2, 3)), 4)


def test_erf_keeps_shape_and_dtype() -> None:
    x = np.array([[0.5, -1.0]], dtype=np.float32)
    assert _erf(x).dtype == np.float32 and _erf(x).shape == (1, 2)
    assert _erfc(np.float64(0.0)).shape == ()
    np.testing.assert_allclose(_erf(x) + _erfc(x), 1.0, rtol=1e-6)


# --- the pools of the fast form's memory planner --------------------------------------------


@pytest.fixture
def pool(request):
    name = f"test-{request.node.name}"
    yield name
    _SPARE_ROWS.pop(name, None)


def test_take_rows_gives_aligned_distinct_arrays_of_one_block(pool) -> None:
    rows = _take_rows(pool, 3, (2, 5), np.float32)
    assert len(rows) == 3
    for row in rows:
        assert row.shape == (2, 5) and row.dtype == np.float32
        assert row.ctypes.data % 64 == 0  # each on a cache line of its own
    assert rows[0].base is rows[1].base is rows[2].base
    for a in range(3):
        for b in range(a + 1, 3):
            assert not np.shares_memory(rows[a], rows[b])
    assert _SPARE_ROWS[pool] == []


def test_rows_given_back_are_taken_again(pool) -> None:
    rows = _take_rows(pool, 2, (3,), np.float64)
    _give_rows(pool, rows)
    assert len(_SPARE_ROWS[pool]) == 1 and _SPARE_ROWS[pool][0] is rows
    assert _take_rows(pool, 2, (3,), np.float64) is rows  # a steady run allocates nothing
    assert _SPARE_ROWS[pool] == []
    other = _take_rows(pool, 2, (3,), np.float64)  # the block is held: a new one
    assert not np.shares_memory(other[0], rows[0])


def test_rows_of_another_shape_count_or_dtype_are_not_reused(pool) -> None:
    for count, shape, dtype in ((2, (4,), np.float64), (3, (3,), np.float64), (2, (3,), np.int32)):
        rows = _take_rows(pool, 2, (3,), np.float64)
        _give_rows(pool, rows)
        taken = _take_rows(pool, count, shape, dtype)
        assert len(taken) == count and taken[0].shape == shape and taken[0].dtype == dtype
        assert not np.shares_memory(taken[0], rows[0])
        assert _SPARE_ROWS[pool] == []  # the block that did not fit is dropped


def test_calls_in_threads_never_share_rows(pool) -> None:
    # Each thread writes its number into the rows it holds and reads it back after the others
    # ran: a block given to two threads at once would show another number.
    threads, rounds = 8, 30
    barrier = threading.Barrier(threads, timeout=30)
    errors: list[str] = []
    blocks: set[int] = set()

    def work(number: int) -> None:
        try:
            for _ in range(rounds):
                barrier.wait()  # all take at once, some from the blocks given back
                rows = _take_rows(pool, 2, (16,), np.int64)
                blocks.add(rows[0].ctypes.data)
                for row in rows:
                    row[:] = number
                barrier.wait()  # all hold their rows
                if any((row != number).any() for row in rows):
                    errors.append(f"thread {number} saw another thread's values")
                _give_rows(pool, rows)
        except Exception as error:  # a failing thread must not leave the others waiting
            errors.append(repr(error))
            barrier.abort()

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    assert len(blocks) < threads * rounds  # blocks given back were taken again
    assert 1 <= len(_SPARE_ROWS[pool]) <= threads


# --- random streams and draws ---------------------------------------------------------------


def test_generators_from_a_seed_a_generator_or_a_sequence() -> None:
    streams = _generators(7, 3)
    assert len(streams) == 3 and streams[0] is streams[1] is streams[2]
    assert streams[0].random() == np.random.default_rng(7).random()
    assert _generators(np.int64(7), 1)[0].random() == np.random.default_rng(7).random()
    generator = np.random.default_rng(1)
    assert _generators(generator, 2) == [generator, generator]
    pair = [np.random.default_rng(1), np.random.default_rng(2)]
    assert _generators(pair, 2) == pair and _generators(tuple(pair), 2) == pair


@pytest.mark.parametrize(
    "rng", [[np.random.default_rng(1)], [1, 2], ["a", "b"], (np.random.default_rng(1),) * 3]
)
def test_generators_refuse_anything_else(rng) -> None:
    with pytest.raises(
        ValueError,
        match=r"input 'rng': expected a numpy.random.Generator, an int seed, or a sequence of 2 Generators",
    ):
        _generators(rng, 2)


def test_truncated_normal_stays_within_two_and_is_reproducible() -> None:
    values = _truncated_normal(np.random.default_rng(3), (4000,), np.float32)
    assert values.dtype == np.float32 and values.shape == (4000,)
    assert np.abs(values).max() <= 2
    assert np.abs(values).max() > 1.9  # drawn up to the bound, not squeezed
    assert 0.84 < values.std() < 0.92  # a normal truncated at 2: 0.8796
    assert_same(_truncated_normal(np.random.default_rng(3), (4000,), np.float32), values)
    assert _truncated_normal(np.random.default_rng(3), (2, 3), np.float64).shape == (2, 3)


def test_categorical_draws_classes_by_their_probabilities() -> None:
    logits = np.array([np.log([0.2, 0.5, 0.3]), [0.0, -np.inf, -np.inf]])  # -inf: never drawn
    draws = _categorical(np.random.default_rng(4), logits, 6000, np.int64)
    assert draws.dtype == np.int64 and draws.shape == (2, 6000)
    frequencies = np.bincount(draws[0], minlength=3) / 6000
    np.testing.assert_allclose(frequencies, [0.2, 0.5, 0.3], atol=0.02)
    assert (draws[1] == 0).all()
    assert_same(_categorical(np.random.default_rng(4), logits, 6000, np.int64), draws)
    assert _categorical(np.random.default_rng(4), [[0.0, 1.0]], 3, np.int32).dtype == np.int32


def test_log_uniform_candidates_draw_by_the_log_uniform_law() -> None:
    draws = _log_uniform_candidates(np.random.default_rng(5), 20000, 4, False)
    assert draws.dtype == np.int64 and draws.shape == (20001,)
    assert draws[-1] == 20000  # every draw took
    classes = np.arange(4)
    expected = np.log((classes + 2) / (classes + 1)) / np.log(5)
    np.testing.assert_allclose(np.bincount(draws[:-1], minlength=4) / 20000, expected, atol=0.015)


def test_log_uniform_candidates_unique_draws_again_a_class_drawn() -> None:
    draws = _log_uniform_candidates(np.random.default_rng(6), 6, 8, True)
    sampled, tries = draws[:-1], draws[-1]
    assert len(set(sampled.tolist())) == 6
    assert ((sampled >= 0) & (sampled < 8)).all()
    assert tries >= 6
    assert_same(_log_uniform_candidates(np.random.default_rng(6), 6, 8, True), draws)


def test_uniform_candidates_draw_every_class_alike() -> None:
    draws = _uniform_candidates(np.random.default_rng(5), 20000, 4, False)
    assert draws.dtype == np.int64 and draws.shape == (20001,) and draws[-1] == 20000
    np.testing.assert_allclose(np.bincount(draws[:-1], minlength=4) / 20000, 0.25, atol=0.015)
    unique = _uniform_candidates(np.random.default_rng(6), 6, 8, True)
    assert len(set(unique[:-1].tolist())) == 6 and unique[-1] >= 6
    assert ((unique[:-1] >= 0) & (unique[:-1] < 8)).all()
    assert_same(_uniform_candidates(np.random.default_rng(6), 6, 8, True), unique)


def test_unigram_candidates_draw_by_the_weights() -> None:
    weights = np.array([0.0, 1.0, 0.0, 3.0])
    draws = _unigram_candidates(np.random.default_rng(5), 20000, weights, False)
    assert draws.dtype == np.int64 and draws.shape == (20001,) and draws[-1] == 20000
    frequencies = np.bincount(draws[:-1], minlength=4) / 20000
    np.testing.assert_allclose(frequencies, [0.0, 0.25, 0.0, 0.75], atol=0.015)
    # the two classes of non-zero weight, distinct: each is drawn, never one of weight 0
    unique = _unigram_candidates(np.random.default_rng(6), 2, weights, True)
    assert sorted(unique[:-1].tolist()) == [1, 3] and unique[-1] >= 2
    assert_same(_unigram_candidates(np.random.default_rng(6), 2, weights, True), unique)


# --- run-time checks: good input passes, bad input is refused with a clear message -----------


def test_check_converts_to_the_dtype_and_accepts_the_shape() -> None:
    array = _check("x", [[1, 2, 3]], np.float32, (None, 3))
    assert_same(array, np.array([[1, 2, 3]], dtype=np.float32))
    scalar = np.float64(2.5)
    assert _check("s", scalar, np.float64, ()) is scalar  # a NumPy scalar of the type: as is
    assert _check("any", np.zeros((2, 2)), np.float64, None).shape == (2, 2)
    assert_same(
        _check("wrapped", np.array([1.7, -1.7]), np.int32, (2,)), np.array([1, -1], np.int32)
    )
    assert_same(_check("flag", [True, False], np.bool_, (2,)), np.array([True, False]))


@pytest.mark.parametrize(
    "value, dtype, shape, message",
    [
        (
            [[1, 2], [3]],
            np.float32,
            None,
            r"input 'x': not a rectangular array \(ragged nested lists\)",
        ),
        (
            "text",
            np.float32,
            (),
            r"input 'x': expected numbers convertible to float32, got str of dtype <U4",
        ),
        (2**31, np.int32, (), r"input 'x': int32 cannot hold the value: "),
        ([1.0, float("nan")], np.int64, (2,), r"input 'x': int64 cannot hold the value: "),
        (
            np.zeros((2, 2)),
            np.float64,
            (None, 3),
            r"input 'x': expected shape \(None, 3\), got \(2, 2\)",
        ),
        (np.zeros(4), np.float64, (3,), r"input 'x': expected shape \(3,\), got \(4,\)"),
        (np.zeros((3, 1)), np.float64, (3,), r"input 'x': expected shape \(3,\), got \(3, 1\)"),
    ],
)
def test_check_refuses_what_does_not_fit(value, dtype, shape, message) -> None:
    with pytest.raises(ValueError, match=message):
        _check("x", value, dtype, shape)


def test_matrices_needs_rank_two() -> None:
    value = np.zeros((2, 3, 4))
    assert _matrices(value) is value
    with pytest.raises(ValueError, match=r"matmul needs rank 2 or more, got shape \(3,\)"):
        _matrices(np.zeros(3))


def test_ensure_shape() -> None:
    value = np.zeros((2, 3))
    assert _ensure_shape(value, (None, 3)) is value
    with pytest.raises(ValueError, match=r"expected shape \[\?, 4\], got \[2, 3\]"):
        _ensure_shape(value, (None, 4))
    with pytest.raises(ValueError, match=r"expected shape \[2\], got \[2, 3\]"):
        _ensure_shape(value, (2,))


def test_ensure_segment_ids() -> None:
    ids = np.array([0, 0, 2, 3])
    assert _ensure_segment_ids(ids, 4, True, "SegmentSum") is ids
    assert _ensure_segment_ids(np.array([3, -1, 0]), 4, False, "UnsortedSegmentSum") is not None
    assert _ensure_segment_ids(np.array([], np.int32), 0, True, "SegmentSum").size == 0
    with pytest.raises(IndexError, match=r"SegmentSum: segment id -1 is negative"):
        _ensure_segment_ids(np.array([-1, 0]), None, True, "SegmentSum")
    with pytest.raises(ValueError, match=r"SegmentSum: segment ids are not sorted: \[0, 2, 1\]"):
        _ensure_segment_ids(np.array([0, 2, 1]), None, True, "SegmentSum")
    with pytest.raises(IndexError, match=r"UnsortedSegmentMax: segment id 4 is not in \[0, 4\)"):
        _ensure_segment_ids(np.array([[4, 0]]), 4, False, "UnsortedSegmentMax")


def test_ensure_in_range() -> None:
    indices = np.array([[0, 2], [1, 1]])
    like = np.zeros((2, 3))
    assert _ensure_in_range(indices, like, 1, "GatherV2") is indices
    assert _ensure_in_range(np.array([], np.int64), like, 0, "GatherV2").size == 0
    with pytest.raises(
        IndexError, match=r"GatherV2: index -1 is not in \[0, 3\) \(axis -1 of shape \[2, 3\]\)"
    ):
        _ensure_in_range(np.array([0, -1]), like, -1, "GatherV2")
    with pytest.raises(
        IndexError, match=r"GatherV2: index 2 is not in \[0, 2\) \(axis 0 of shape \[2, 3\]\)"
    ):
        _ensure_in_range(np.array([2, 1]), like, 0, "GatherV2")


def test_ensure_broadcastable() -> None:
    values = np.zeros((2, 3))
    for weights in (np.float64(2.0), np.ones((2, 1)), np.ones((1, 3)), np.ones((2, 3))):
        assert _ensure_broadcastable(weights, values, "compute_weighted_loss") is weights
    for weights in (np.ones(3), np.ones((2, 2)), np.ones((1, 2, 3))):
        with pytest.raises(
            ValueError,
            match=r"compute_weighted_loss: weights of shape \[.*\] can not be broadcast to values of shape \[2, 3\]",
        ):
            _ensure_broadcastable(weights, values, "compute_weighted_loss")


def test_ensure_axis() -> None:
    value = np.zeros((2, 5))
    assert _ensure_axis(value, -1, 5, False, "Unpack") is value
    assert _ensure_axis(value, 1, 3, True, "MirrorPad") is value
    with pytest.raises(ValueError, match=r"Unpack: a value of shape \[2, 5\] has no axis 2"):
        _ensure_axis(value, 2, 5, False, "Unpack")
    with pytest.raises(ValueError, match=r"Unpack: axis 0 of shape \[2, 5\] must have 3 entries"):
        _ensure_axis(value, 0, 3, False, "Unpack")
    with pytest.raises(
        ValueError, match=r"MirrorPad: axis 1 of shape \[2, 5\] must have at least 6 entries"
    ):
        _ensure_axis(value, 1, 6, True, "MirrorPad")


def test_squeeze_last_by_rank() -> None:
    labels = np.arange(3).reshape(3, 1)
    assert_same(_squeeze_last_by_rank(labels, np.zeros(3), 1), np.arange(3))
    assert _squeeze_last_by_rank(labels, np.zeros((3, 1)), 1) is labels  # ranks differ by 0
    with pytest.raises(
        ValueError, match=r"cannot squeeze the last axis of shape \[3, 2\]: its size is not 1"
    ):
        _squeeze_last_by_rank(np.zeros((3, 2)), np.zeros(3), 1)


def test_ensure_same_dims() -> None:
    value, like = np.zeros((4, 2)), np.zeros((3, 4))
    assert (
        _ensure_same_dims(value, like, (0,), (1,), "SparseSoftmaxCrossEntropyWithLogits") is value
    )
    with pytest.raises(
        ValueError,
        match=r"Op: the tensor that shape \[4, 2\] goes with has no axis 2 \(shape \[3, 4\]\)",
    ):
        _ensure_same_dims(value, like, (0,), (2,), "Op")
    with pytest.raises(
        ValueError,
        match=r"Op: 2 entries along axis 1 \(shape \[4, 2\]\), but 3 along axis 0 of the tensor they go with \(shape \[3, 4\]\)",
    ):
        _ensure_same_dims(value, like, (1,), (0,), "Op")


def test_select_condition_shapes() -> None:
    x = np.zeros((3, 2))
    assert_same(
        _select_condition(np.array([True, False, True]), x, x),
        np.array([[True] * 2, [False] * 2, [True] * 2]),
    )
    assert _select_condition(np.True_, x, np.zeros(2)).shape == (3, 2)
    assert _select_condition(np.array([True, False]), np.zeros(2), np.zeros(2)).shape == (2,)


def test_one_hot_like() -> None:
    labels, logits = np.array([[2, 0], [1, 1]]), np.zeros((2, 2, 3))
    assert_same(_one_hot_like(labels, logits, np.float32), np.eye(3, dtype=np.float32)[labels])
    assert _one_hot_like(np.zeros((0,), np.int64), np.zeros((0, 4)), np.float64).shape == (0, 4)
    with pytest.raises(
        ValueError,
        match=r"labels of shape \[2\] must have the shape of the logits \[2, 2, 3\] without its last axis",
    ):
        _one_hot_like(np.array([0, 1]), logits, np.float32)
    with pytest.raises(IndexError, match=r"label value 3 is outside the valid range of \[0, 3\)"):
        _one_hot_like(np.array([[0, 3], [1, 1]]), logits, np.float32)
    with pytest.raises(IndexError, match=r"label value -1 is outside the valid range of \[0, 3\)"):
        _one_hot_like(np.array([[0, 1], [-1, 1]]), logits, np.float32)


def test_equal_part() -> None:
    assert _equal_part((4, 6), 1, 3, 1) == (slice(None), slice(2, 4), Ellipsis)
    assert _equal_part((4, 6), -2, 2, 0, count=2) == (Ellipsis, slice(0, 4), slice(None))
    with pytest.raises(ValueError, match=r"Split: a value of shape \(4, 6\) has no axis 2"):
        _equal_part((4, 6), 2, 2, 0)
    with pytest.raises(
        ValueError,
        match=r"Split: axis 1 of a value of shape \(4, 6\) does not split into 4 equal parts",
    ):
        _equal_part((4, 6), 1, 4, 0)
    with pytest.raises(ValueError, match="does not split into 3 equal parts"):
        _split_equal(np.zeros((4, 2)), 0, 3, 0)


def test_scatter_add_moves_the_axis_of_indices() -> None:
    # Indices of rank 2 along axis 1 replace that axis by two: they are moved back together.
    value = np.arange(2 * 2 * 3 * 4, dtype=np.float64).reshape(2, 2, 3, 4)
    indices = np.array([[0, 1, 1], [4, 4, 0]])
    expected = np.zeros((2, 5, 4))
    for a in range(2):
        for b in range(3):
            expected[:, indices[a, b]] += value[:, a, b]
    assert_same(_scatter_add(value, indices, (2, 5, 4), 1, np.float64), expected)


# --- every kernel is tested ---------------------------------------------------------------


def test_every_kernel_is_called_by_a_test_here() -> None:
    """Every function of ``KERNELS`` is called by name in this file, and every other kernel (the
    pools' ``_SPARE_ROWS``) is read by name."""
    kernels = {}
    for module in MODULES:
        loaded = importlib.import_module(f"symgrad.backends.numpy.kernels.{module}")
        kernels.update({name: getattr(loaded, name) for name in KERNELS if hasattr(loaded, name)})
    assert sorted(kernels) == sorted(
        KERNELS
    )  # each declared kernel found, imported from its module
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    read = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    untested = [
        name
        for name, kernel in kernels.items()
        if name not in (called if callable(kernel) else read)
    ]
    assert untested == []


def test_array_write_allocates_grows_and_copies() -> None:
    """TensorArray.write: the first write gives the rows their shape (a fixed size, or as many
    rows as written when dynamic), a write past the end grows a dynamic array and is an
    IndexError for a fixed one, and the array written to is never changed."""
    first = _array_write(np.float32(0), 1, np.array([1.0, 2.0], np.float32), 3)
    assert first.tolist() == [[0, 0], [1, 2], [0, 0]] and first.dtype == np.float32
    grown = _array_write(_array_write(np.float64(0), 0, np.ones(2), -1), 2, np.full(2, 5.0), -1)
    assert grown.tolist() == [[1, 1], [0, 0], [5, 5]]
    again = _array_write(first, 0, np.array([7.0, 8.0], np.float32), 3)
    assert again[0].tolist() == [7, 8] and first[0].tolist() == [0, 0]
    with pytest.raises(IndexError, match="index 3 of an array of size 3"):
        _array_write(first, 3, np.zeros(2, np.float32), 3)
    with pytest.raises(IndexError, match="index -1 < 0"):
        _array_write(first, -1, np.zeros(2, np.float32), 3)
    scalars = _array_write(np.float64(0), 1, np.float64(4.0), -1)
    assert scalars.tolist() == [0.0, 4.0]


def test_array_write_grad_drops_the_row_written_over() -> None:
    grad = np.arange(6.0).reshape(3, 2)
    before = np.ones((2, 2))
    assert _array_write_grad(grad, before, 1).tolist() == [[0, 1], [0, 0]]
    assert _array_write_grad(grad, np.float64(0), 1).shape == ()  # the stand-in's cotangent
    assert _array_write_grad(grad, np.ones((3, 2)), 0).tolist() == [[0, 0], [2, 3], [4, 5]]


def test_sequence_mask_marks_the_positions_within_each_length() -> None:
    assert _sequence_mask(np.array([0, 2, 3]), 3).tolist() == [
        [False, False, False],
        [True, True, False],
        [True, True, True],
    ]
    assert _sequence_mask(np.array([[1], [2]]), np.int32(2)).shape == (2, 1, 2)


def test_kept_shapes_names_the_loop_and_the_value_that_changed() -> None:
    _kept_shapes("while_loop", ("h",), (np.zeros((2, 3)),), ((2, 3),))
    with pytest.raises(
        ValueError, match="while_loop: loop variable 'h' began with shape \\(2, 3\\)"
    ):
        _kept_shapes("while_loop", ("i", "h"), (np.int32(0), np.zeros((4, 3))), ((), (2, 3)))
