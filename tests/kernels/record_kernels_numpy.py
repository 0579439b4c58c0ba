"""Record TensorFlow's values for the NumPy kernels' unit tests (``tests/test_kernels_numpy.py``).

Run by hand from the repository root, by a Python that has TensorFlow 2.x (its
``tf.compat.v1``; the values here are TF 2.21's)::

    TF_CPP_MIN_LOG_LEVEL=3 python tests/kernels/record_kernels_numpy.py

It writes ``tests/kernels/tf_kernels_numpy.json``: for each case, the op it exercises, its
inputs (small arrays, drawn here from one fixed NumPy seed in a fixed order, or written out),
the attributes the kernel takes (strides, padding, axes...) and the values TensorFlow
computed for them: the op itself, or its gradient by ``tf.gradients`` with the given
``grad_ys``. Each case runs in a graph and session of its own, on one CPU thread with oneDNN
off, so that the file is byte-identical on every run; the tests read the inputs back from
the file, never draw them again.

TensorFlow is imported in ``main`` only: the test run imports this module (for doctests)
without it.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path

import numpy as np

OUTPUT = Path(__file__).with_name("tf_kernels_numpy.json")
SEED = 20240611


def encode(value):
    """An array as JSON: dtype, shape and the values in C order (NaN and infinities as text)."""
    array = np.asarray(value)
    values = []
    for item in array.ravel().tolist():
        if isinstance(item, float) and not math.isfinite(item):
            item = "nan" if math.isnan(item) else ("inf" if item > 0 else "-inf")
        values.append(item)
    return {"dtype": array.dtype.name, "shape": list(array.shape), "values": values}


class Recorder:
    """Runs each case's graph and keeps its inputs, attributes and results."""

    def __init__(self, tf):
        self.tf = tf
        self.v1 = tf.compat.v1
        self.rng = np.random.default_rng(SEED)
        self.cases = {}

    def normal(self, *shape, dtype=np.float64):
        return self.rng.standard_normal(shape).astype(dtype)

    def integers(self, low, high, *shape, dtype=np.float64):
        return self.rng.integers(low, high, shape).astype(dtype)

    def record(self, name, op, attrs, build):
        """``build(given)`` makes the graph: ``given(key, array)`` is a placeholder fed with
        ``array`` (an input of the case); it returns the tensors to record, by name."""
        assert name not in self.cases, name
        v1 = self.v1
        inputs, feeds = {}, {}

        def given(key, value):
            value = np.asarray(value)
            inputs[key] = value
            placeholder = v1.placeholder(self.tf.as_dtype(value.dtype), value.shape, name=key)
            feeds[placeholder] = value
            return placeholder

        config = v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
        with v1.Graph().as_default():
            outputs = build(given)
            outputs = {k: self.tf.convert_to_tensor(t) for k, t in outputs.items()}
            with v1.Session(config=config) as session:
                values = session.run(outputs, feeds)
        self.cases[name] = {
            "op": op,
            "attrs": attrs,
            "inputs": {k: encode(v) for k, v in inputs.items()},
            "outputs": {k: encode(v) for k, v in values.items()},
        }

    def gradient(self, y, x, grad_ys):
        return self.v1.gradients(y, x, grad_ys=grad_ys)


def shape_of(tensor):
    return tuple(tensor.shape.as_list())


def record_conv2d(r, tf, v1):
    cases = [
        # name, x shape, filter shape, strides, dilations, padding
        ("conv2d_same", (2, 5, 5, 3), (3, 3, 3, 4), (1, 1), (1, 1), "SAME"),
        ("conv2d_valid_stride2", (1, 7, 6, 2), (3, 2, 2, 3), (2, 2), (1, 1), "VALID"),
        ("conv2d_same_strides_2_3", (1, 6, 7, 2), (2, 3, 2, 2), (2, 3), (1, 1), "SAME"),
        ("conv2d_same_dilated", (1, 7, 7, 2), (3, 3, 2, 2), (1, 1), (2, 2), "SAME"),
        ("conv2d_valid_dilated_2_1", (2, 6, 8, 1), (2, 3, 1, 2), (1, 1), (2, 1), "VALID"),
        ("conv2d_same_filter_larger", (1, 3, 3, 1), (4, 4, 1, 2), (1, 1), (1, 1), "SAME"),
        ("conv2d_valid_unread_rows", (1, 6, 6, 2), (3, 3, 2, 1), (2, 2), (1, 1), "VALID"),
    ]
    for name, x_shape, w_shape, strides, dilations, padding in cases:

        def build(given, x_shape=x_shape, w_shape=w_shape, s=strides, d=dilations, p=padding):
            x, w = given("x", r.normal(*x_shape)), given("filters", r.normal(*w_shape))
            if d == (1, 1):
                y = v1.nn.conv2d(x, w, [1, *s, 1], p)
            else:  # TF's CPU Conv2D takes no dilations: through space_to_batch
                y = v1.nn.convolution(x, w, p, strides=s, dilation_rate=d)
            dy = given("dy", r.normal(*shape_of(y)))
            dx, dw = r.gradient(y, [x, w], dy)
            outputs = {"y": y, "dx": dx, "dw": dw}
            if d == (1, 1):  # the ops themselves, as tf.compat.v1.nn names them
                outputs["dx_op"] = v1.nn.conv2d_backprop_input(x_shape, w, dy, [1, *s, 1], p)
                outputs["dw_op"] = v1.nn.conv2d_backprop_filter(x, w_shape, dy, [1, *s, 1], p)
            return outputs

        attrs = {"strides": list(strides), "dilations": list(dilations), "padding": padding}
        r.record(name, "conv2d", attrs, build)


def record_conv2d_rows(r, tf, v1):
    """Stride-1 convolutions with enough channels that the fast form goes kernel row by kernel
    row (``_conv2d_by_rows`` and its gradients); recorded after the other cases, so that their
    draws are unchanged."""
    cases = [
        # name, x shape, filter shape, padding
        ("conv2d_rows_same_5x5", (2, 7, 6, 16), (5, 5, 16, 4), "SAME"),
        ("conv2d_rows_valid_3x4", (1, 7, 6, 12), (3, 4, 12, 5), "VALID"),
        ("conv2d_rows_same_even_4x2", (2, 5, 6, 24), (4, 2, 24, 3), "SAME"),
        ("conv2d_rows_same_filter_larger", (1, 3, 3, 16), (4, 4, 16, 2), "SAME"),
    ]
    for name, x_shape, w_shape, padding in cases:

        def build(given, x_shape=x_shape, w_shape=w_shape, p=padding):
            x, w = given("x", r.normal(*x_shape)), given("filters", r.normal(*w_shape))
            y = v1.nn.conv2d(x, w, [1, 1, 1, 1], p)
            dy = given("dy", r.normal(*shape_of(y)))
            dx, dw = r.gradient(y, [x, w], dy)
            return {
                "y": y,
                "dx": dx,
                "dw": dw,
                "dx_op": v1.nn.conv2d_backprop_input(x_shape, w, dy, [1, 1, 1, 1], p),
                "dw_op": v1.nn.conv2d_backprop_filter(x, w_shape, dy, [1, 1, 1, 1], p),
            }

        attrs = {"strides": [1, 1], "dilations": [1, 1], "padding": padding}
        r.record(name, "conv2d", attrs, build)


def record_pools(r, tf, v1):
    positive = dict(sign=1.0)
    cases = [
        # name, x shape, ksize, strides, padding, how x is drawn
        ("max_pool_blocks_valid_unread", (2, 5, 7, 3), (2, 2), (2, 2), "VALID", positive),
        ("max_pool_blocks_same", (1, 5, 5, 2), (2, 2), (2, 2), "SAME", positive),
        ("max_pool_blocks_3x2_same", (1, 7, 5, 2), (3, 2), (3, 2), "SAME", positive),
        ("max_pool_overlap_same", (1, 6, 7, 2), (3, 3), (2, 2), "SAME", positive),
        ("max_pool_overlap_valid", (2, 5, 6, 1), (2, 3), (1, 2), "VALID", positive),
        ("max_pool_ties_blocks", (1, 4, 5, 2), (2, 2), (2, 2), "SAME", dict(ties=3)),
        ("max_pool_ties_overlap", (1, 5, 5, 1), (3, 3), (1, 1), "SAME", dict(ties=2)),
        ("max_pool_negative_same", (1, 5, 6, 2), (3, 3), (2, 2), "SAME", dict(sign=-1.0)),
        ("max_pool_negative_blocks", (1, 5, 5, 1), (2, 2), (2, 2), "SAME", dict(sign=-1.0)),
    ]
    for name, x_shape, ksize, strides, padding, draw in cases:

        def build(given, x_shape=x_shape, k=ksize, s=strides, p=padding, draw=draw):
            if "ties" in draw:
                value = r.integers(0, draw["ties"], *x_shape)
            else:
                value = draw["sign"] * np.abs(r.normal(*x_shape))
            x = given("x", value)
            y = v1.nn.max_pool(x, [1, *k, 1], [1, *s, 1], p)
            dy = given("dy", r.normal(*shape_of(y)))
            (dx,) = r.gradient(y, [x], dy)
            g = given("g", r.normal(*x_shape))
            (ggrad,) = r.gradient(dx, [dy], g)
            return {"y": y, "dx": dx, "ggrad": ggrad}

        attrs = {"ksize": list(ksize), "strides": list(strides), "padding": padding}
        r.record(name, "max_pool", attrs, build)

    cases = [
        ("avg_pool_same_k3_s2", (1, 6, 7, 2), (3, 3), (2, 2), "SAME"),
        ("avg_pool_valid_k2_s2", (2, 5, 5, 1), (2, 2), (2, 2), "VALID"),
        ("avg_pool_same_k2_s1", (1, 4, 4, 3), (2, 2), (1, 1), "SAME"),
        ("avg_pool_same_k3x1", (1, 5, 3, 1), (3, 1), (1, 1), "SAME"),
        ("avg_pool_same_k3_s3", (1, 7, 8, 2), (3, 3), (3, 3), "SAME"),
    ]
    for name, x_shape, ksize, strides, padding in cases:

        def build(given, x_shape=x_shape, k=ksize, s=strides, p=padding):
            x = given("x", r.normal(*x_shape))
            y = v1.nn.avg_pool(x, [1, *k, 1], [1, *s, 1], p)
            dy = given("dy", r.normal(*shape_of(y)))
            (dx,) = r.gradient(y, [x], dy)
            return {"y": y, "dx": dx}

        attrs = {"ksize": list(ksize), "strides": list(strides), "padding": padding}
        r.record(name, "avg_pool", attrs, build)


def record_segments(r, tf, v1):
    cases = [
        # name, data shape, ids, count (None: sorted ids, tf.math.segment_sum)
        ("unsorted_segment_sum", (6, 3), [2, 0, -1, 2, 4, 0], 5),
        ("unsorted_segment_sum_ids_2d", (2, 3, 2), [[1, -1, 3], [1, 0, 1]], 4),
        ("segment_sum_sorted", (5, 2), [0, 0, 2, 2, 3], None),
    ]
    for name, data_shape, ids, count in cases:

        def build(given, data_shape=data_shape, ids=ids, count=count):
            data = given("data", r.normal(*data_shape))
            segment_ids = given("ids", np.array(ids, dtype=np.int32))
            if count is None:
                total = tf.math.segment_sum(data, segment_ids)
            else:
                total = tf.math.unsorted_segment_sum(data, segment_ids, count)
            rows = int(np.max(ids)) + 1 if count is None else count
            g = given("g", r.normal(rows, *data_shape[np.ndim(ids) :]))
            (grad,) = r.gradient(total, [data], g)
            return {"sum": total, "grad": grad}

        r.record(name, "segment_sum", {"count": count}, build)

    cases = [
        ("unsorted_segment_max", np.float64, (6, 2), [3, 0, 3, -1, 0, 3], 5),
        ("unsorted_segment_max_int32", np.int32, (5, 3), [1, 1, -2, 0, 1], 3),
        ("unsorted_segment_max_float32", np.float32, (4,), [0, 2, 2, 0], 4),
    ]
    for name, dtype, data_shape, ids, count in cases:

        def build(given, dtype=dtype, data_shape=data_shape, ids=ids, count=count):
            if np.dtype(dtype).kind == "i":
                values = r.integers(-50, 50, *data_shape, dtype=dtype)
            else:
                values = r.normal(*data_shape, dtype=dtype)
            data = given("data", values)
            segment_ids = given("ids", np.array(ids, dtype=np.int32))
            return {"max": tf.math.unsorted_segment_max(data, segment_ids, count)}

        r.record(name, "segment_max", {"count": count}, build)

    for name, dtype, data_shape, ids in (
        ("segment_max_sorted", np.float64, (6, 2), [0, 0, 2, 2, 2, 4]),  # 1 and 3: no row
        ("segment_max_sorted_int32", np.int32, (4,), [1, 1, 3, 3]),
    ):

        def build(given, dtype=dtype, data_shape=data_shape, ids=ids):
            if np.dtype(dtype).kind == "i":
                values = r.integers(-50, 50, *data_shape, dtype=dtype)
            else:
                values = r.normal(*data_shape, dtype=dtype)
            data = given("data", values)
            segment_ids = given("ids", np.array(ids, dtype=np.int32))
            return {"max": tf.math.segment_max(data, segment_ids)}

        r.record(name, "sorted_segment_max", {}, build)


def record_cumulative(r, tf, v1):
    for function in ("cumsum", "cumprod"):
        for exclusive in (False, True):
            for reverse in (False, True):
                for axis, shape in ((1, (3, 4)), (-1, (2, 2, 3)), (0, (3, 2))):

                    def build(given, f=function, e=exclusive, rv=reverse, a=axis, shape=shape):
                        x = given("x", r.normal(*shape))
                        op = tf.math.cumsum if f == "cumsum" else tf.math.cumprod
                        return {"y": op(x, axis=a, exclusive=e, reverse=rv)}

                    name = f"{function}_axis{axis}_exclusive{int(exclusive)}_reverse{int(reverse)}"
                    attrs = {"function": function, "axis": axis}
                    attrs |= {"exclusive": exclusive, "reverse": reverse}
                    r.record(name, "cumulative", attrs, build)

    def build_int(given):
        x = given("x", r.integers(-9, 10, 3, 4, dtype=np.int32))
        return {"y": tf.math.cumsum(x, axis=1, exclusive=True, reverse=True)}

    attrs = {"function": "cumsum", "axis": 1, "exclusive": True, "reverse": True}
    r.record("cumsum_int32_exclusive_reverse", "cumulative", attrs, build_int)


def record_erf(r, tf, v1):
    special = [0.0, -0.0, 1e-300, -1e-10, 0.5, -0.5, 1.0, 2.5, 3.9, 5.9, -5.9, 8.0, 26.0, -26.0]
    for dtype in (np.float64, np.float32):

        def build(given, dtype=dtype):
            grid = np.linspace(-6.0, 6.0, 49)
            x = given("x", np.concatenate([grid, special, r.normal(20) * 2]).astype(dtype))
            return {"erf": tf.math.erf(x), "erfc": tf.math.erfc(x)}

        r.record(f"erf_{np.dtype(dtype).name}", "erf", {}, build)


def record_top_k(r, tf, v1):
    cases = [
        ("top_k_ties", (4, 6), 3, 3),  # integers in [0, 3): many ties
        ("top_k_all", (2, 5), 5, 2),
        ("top_k_vector", (7,), 4, None),
        ("top_k_3d", (2, 2, 5), 1, 4),
    ]
    for name, shape, k, ties in cases:

        def build(given, shape=shape, k=k, ties=ties):
            value = r.normal(*shape) if ties is None else r.integers(0, ties, *shape)
            x = given("x", value)
            values, indices = tf.math.top_k(x, k)
            g = given("g", r.normal(*shape_of(values)))
            (grad,) = r.gradient(values, [x], g)
            return {"values": values, "indices": indices, "grad": grad}

        r.record(name, "top_k", {"k": k}, build)


def record_one_hot(r, tf, v1):
    indices = np.array([[0, 2, -1], [3, 1, 5]], dtype=np.int32)
    cases = [
        ("one_hot_last", 4, 5.0, -1.0, -1, "float32"),
        ("one_hot_axis0", 4, 1.0, 0.0, 0, "float64"),
        ("one_hot_axis1_int32", 5, 7, 2, 1, "int32"),
        ("one_hot_axis2", 3, 2.5, 0.5, 2, "float64"),
    ]
    for name, depth, on, off, axis, dtype in cases:

        def build(given, depth=depth, on=on, off=off, axis=axis, dtype=dtype):
            i = given("indices", indices)
            return {"y": tf.one_hot(i, depth, on, off, axis=axis, dtype=dtype)}

        attrs = {"depth": depth, "on": on, "off": off, "axis": axis, "dtype": dtype}
        r.record(name, "one_hot", attrs, build)


def record_diagonals(r, tf, v1):
    for op, function, shapes in (
        ("diag", tf.linalg.tensor_diag, {"diag_vector": (4,), "diag_matrix": (2, 3)}),
        (
            "diag_part",
            tf.linalg.tensor_diag_part,
            {"diag_part_2x2": (3, 3), "diag_part_4d": (2, 3, 2, 3)},
        ),
        ("matrix_diag", tf.linalg.diag, {"matrix_diag_vector": (3,), "matrix_diag_batch": (2, 3)}),
        (
            "matrix_diag_part",
            tf.linalg.diag_part,
            {"matrix_diag_part_wide": (2, 3, 4), "matrix_diag_part_tall": (5, 3)},
        ),
    ):
        for name, shape in shapes.items():

            def build(given, function=function, shape=shape):
                return {"y": function(given("x", r.normal(*shape)))}

            r.record(name, op, {}, build)
    for name, shape in (("matrix_set_diag_wide", (2, 3, 4)), ("matrix_set_diag_tall", (4, 3))):

        def build(given, shape=shape):
            diagonal = given("diagonal", r.normal(*shape[:-2], min(shape[-2:])))
            return {"y": tf.linalg.set_diag(tf.zeros(shape, tf.float64), diagonal)}

        r.record(name, "matrix_set_diag_zeros", {"shape": list(shape)}, build)
    for lower, upper in ((1, 0), (-1, 0), (0, -1), (2, 1), (-1, -1), (0, 0)):

        def build(given, lower=lower, upper=upper):
            return {"y": tf.linalg.band_part(given("x", r.normal(2, 4, 5)), lower, upper)}

        attrs = {"lower": lower, "upper": upper}
        r.record(f"band_part_{lower}_{upper}", "band_part", attrs, build)


def record_boolean_mask(r, tf, v1):
    cases = [
        ("boolean_mask_rows", (4, 3), [True, False, True, True], 0),
        ("boolean_mask_2d_mask", (2, 3, 2), [[True, False, True], [False, False, True]], 0),
        ("boolean_mask_axis1", (3, 4, 2), [False, True, True, False], 1),
        ("boolean_mask_none_kept", (3, 2), [False, False, False], 0),
    ]
    for name, shape, mask, axis in cases:

        def build(given, shape=shape, mask=mask, axis=axis):
            x = given("x", r.normal(*shape))
            m = given("mask", np.array(mask))
            y = tf.boolean_mask(x, m, axis=axis)
            kept = int(np.sum(mask))
            g = given("g", r.normal(*shape[:axis], kept, *shape[axis + np.ndim(mask) :]))
            (grad,) = r.gradient(y, [x], g)
            return {"y": y, "grad": grad}

        r.record(name, "boolean_mask", {"axis": axis}, build)


def record_mirror_pad(r, tf, v1):
    cases = [
        ("mirror_pad_reflect", (3, 4), [[1, 2], [2, 0]], "REFLECT"),
        ("mirror_pad_symmetric", (3, 4), [[2, 1], [0, 3]], "SYMMETRIC"),
        ("mirror_pad_reflect_3d", (3, 4, 2), [[2, 2], [0, 0], [1, 1]], "REFLECT"),
        ("mirror_pad_symmetric_3d", (2, 3, 2), [[2, 0], [1, 3], [0, 2]], "SYMMETRIC"),
    ]
    for name, shape, paddings, mode in cases:

        def build(given, shape=shape, paddings=paddings, mode=mode):
            x = given("x", r.normal(*shape))
            y = tf.pad(x, paddings, mode=mode)
            g = given("g", r.normal(*shape_of(y)))
            (grad,) = r.gradient(y, [x], g)
            return {"grad": grad}

        attrs = {"paddings": paddings, "mode": mode.lower()}
        r.record(name, "mirror_pad_grad", attrs, build)


def record_lrn(r, tf, v1):
    cases = [
        ("lrn_radius1", (1, 2, 3, 7), 1, 1.0, 0.5, 0.75),
        ("lrn_radius2", (2, 1, 2, 6), 2, 2.0, 1e-2, 0.5),
        ("lrn_radius_beyond_depth", (1, 1, 2, 3), 4, 1.0, 1.0, 1.0),
        ("lrn_radius0", (1, 2, 2, 4), 0, 0.5, 1.0, 1.0),
    ]
    for name, shape, radius, bias, alpha, beta in cases:

        def build(given, shape=shape, radius=radius, bias=bias, alpha=alpha, beta=beta):
            x = given("x", r.normal(*shape, dtype=np.float32))
            return {"y": tf.nn.local_response_normalization(x, radius, bias, alpha, beta)}

        attrs = {"radius": radius, "bias": bias, "alpha": alpha, "beta": beta}
        r.record(name, "lrn", attrs, build)


def _key(key):
    """A basic-indexing key as JSON (a slice as {"slice": [start, stop, step]})."""
    key = key if isinstance(key, tuple) else (key,)
    return [
        "..."
        if part is Ellipsis
        else {"slice": [part.start, part.stop, part.step]}
        if isinstance(part, slice)
        else part
        for part in key
    ]


def record_gathers(r, tf, v1):
    s = np.s_
    for name, key in (
        ("slice_grad_steps", s[1:3, ::2]),
        ("slice_grad_index", s[2]),
        ("slice_grad_ellipsis", s[..., 1]),
        ("slice_grad_reversed", s[::-1, 2:]),
        ("slice_grad_index_middle", s[1, :, ::2]),
    ):

        def build(given, key=key):
            x = given("x", r.normal(4, 5, 3))
            y = x[key]
            g = given("g", r.normal(*shape_of(y)))
            (grad,) = r.gradient(y, [x], g)
            return {"grad": grad}

        r.record(name, "slice_grad", {"key": _key(key)}, build)

    for name, shape, indices, axis in (
        ("gather_grad_repeated", (5, 3), [4, 0, 4, 2], 0),
        ("gather_grad_2d_axis1", (2, 5, 3), [[1, 1], [0, 4]], 1),
        ("gather_grad_scalar", (4, 3), 3, 0),
        ("gather_grad_last_axis", (2, 3, 4), [3, 3, 1], 2),
    ):

        def build(given, shape=shape, indices=indices, axis=axis):
            x = given("x", r.normal(*shape))
            i = given("indices", np.array(indices, dtype=np.int32))
            y = tf.gather(x, i, axis=axis)
            g = given("g", r.normal(*shape_of(y)))
            (grad,) = r.gradient(y, [x], g)
            return {"grad": grad}

        r.record(name, "gather_grad", {"axis": axis}, build)

    for name, shape, multiples in (
        ("tile_grad_2d", (2, 3), [2, 3]),
        ("tile_grad_3d", (1, 2, 2), [3, 1, 2]),
        ("tile_grad_ones", (3,), [1]),
    ):

        def build(given, shape=shape, multiples=multiples):
            x = given("x", r.normal(*shape))
            y = tf.tile(x, multiples)
            g = given("g", r.normal(*shape_of(y)))
            (grad,) = r.gradient(y, [x], g)
            return {"grad": grad}

        r.record(name, "tile_grad", {"multiples": multiples}, build)

    for name, shapes, axis in (
        ("concat_grad_axis1", [(2, 3), (2, 1), (2, 2)], 1),
        ("concat_grad_axis_last", [(2, 2, 1), (2, 2, 3)], -1),
        ("concat_grad_axis0", [(1, 3), (3, 3)], 0),
        ("concat_grad_axis_minus2", [(2, 1, 2), (2, 3, 2)], -2),
    ):

        def build(given, shapes=shapes, axis=axis):
            parts = [given(f"x{i}", r.normal(*shape)) for i, shape in enumerate(shapes)]
            y = tf.concat(parts, axis)
            g = given("g", r.normal(*shape_of(y)))
            grads = r.gradient(y, parts, g)
            outputs = {f"grad{i}": grad for i, grad in enumerate(grads)}
            for i, grad in enumerate(grads):  # the gradient of each part of the gradient
                h = given(f"h{i}", r.normal(*shape_of(grad)))
                (outputs[f"ungrad{i}"],) = r.gradient(grad, [g], h)
            return outputs

        sizes = [shape[axis] for shape in shapes]
        r.record(name, "concat_grad", {"axis": axis, "sizes": sizes}, build)

    for name, shape, parts, axis in (
        ("split_axis1", (4, 6), 3, 1),
        ("split_axis_minus2", (2, 4, 3), 2, -2),
        ("split_axis0", (4, 2), 4, 0),
    ):

        def build(given, shape=shape, parts=parts, axis=axis):
            x = given("x", r.normal(*shape))
            pieces = tf.split(x, parts, axis)
            outputs = {}
            for i, piece in enumerate(pieces):
                outputs[f"part{i}"] = piece
                g = given(f"g{i}", r.normal(*shape_of(piece)))
                (outputs[f"grad{i}"],) = r.gradient(piece, [x], g)
            return outputs

        r.record(name, "split", {"axis": axis, "parts": parts}, build)


def record_reductions(r, tf, v1):
    with_zeros = np.array([[1.5, -2.0, 0.5, 3.0], [0.0, 2.0, -1.5, 0.5], [2.0, 0.0, 0.0, -3.0]])
    cases = [
        ("prod_grad_rows_with_zeros", with_zeros, [1]),
        ("prod_grad_columns_with_zeros", with_zeros, [0]),
        ("prod_grad_all_one_zero", np.array([[2.0, -0.5], [0.0, 3.0], [1.5, 1.25]]), None),
        ("prod_grad_axes_0_2", None, [0, 2]),
    ]
    for name, value, axes in cases:

        def build(given, value=value, axes=axes):
            x = given("x", r.normal(2, 3, 2) if value is None else value)
            (grad,) = r.gradient(tf.reduce_prod(x, axis=axes), [x], None)
            return {"grad": grad}

        r.record(name, "prod_grad", {"axes": axes}, build)

    for name, shape, axes in (
        ("prod_grad_grad_rows", (3, 4), [1]),
        ("prod_grad_grad_all", (2, 3), None),
        ("prod_grad_grad_axes_0_2", (2, 3, 2), [0, 2]),
    ):

        def build(given, shape=shape, axes=axes):
            x = given("x", r.normal(*shape) + 0.5)  # no zeros: TF's second derivative divides
            (grad,) = r.gradient(tf.reduce_prod(x, axis=axes), [x], None)
            c = given("cotangent", r.normal(*shape))
            (vjp,) = r.gradient(grad, [x], c)
            return {"grad": grad, "vjp": vjp}

        r.record(name, "prod_grad_grad", {"axes": axes}, build)

    ints = np.array([[-7, 3, 2, -1], [5, 5, 6, -9], [-1, -1, 0, 4]], dtype=np.int32)
    for name, value, axis, keepdims in (
        ("integer_mean_all", ints, None, False),
        ("integer_mean_rows", ints, 1, False),
        ("integer_mean_columns_keepdims", ints, 0, True),
        ("integer_mean_both_keepdims", ints, [0, 1], True),
        ("integer_mean_int8_wide_sum", np.array([100, 100, 100, -7], dtype=np.int8), None, False),
        ("integer_mean_uint8_wide_sum", np.array([250, 251, 3], dtype=np.uint8), 0, False),
        ("integer_mean_int64", ints.astype(np.int64) * 3, 1, True),
    ):

        def build(given, value=value, axis=axis, keepdims=keepdims):
            x = given("x", value)
            return {"y": tf.reduce_mean(x, axis=axis, keepdims=keepdims)}

        r.record(name, "integer_mean", {"axis": axis, "keepdims": keepdims}, build)

    for name, x_shape, y_shape in (
        ("broadcast_grad_columns_rows", (3, 1), (1, 4)),
        ("broadcast_grad_scalar", (), (2, 3)),
        ("broadcast_grad_leading", (4,), (2, 3, 4)),
        ("broadcast_grad_middle", (2, 1, 4), (3, 1)),
        ("broadcast_grad_same", (2, 3), (2, 3)),
    ):

        def build(given, x_shape=x_shape, y_shape=y_shape):
            x, y = given("x", r.normal(*x_shape)), given("y", r.normal(*y_shape))
            total = x + y
            g = given("g", r.normal(*shape_of(total)))
            (grad,) = r.gradient(total, [x], g)
            return {"grad": grad}

        r.record(name, "broadcast_grad", {"shape": list(x_shape)}, build)


def record_select(r, tf, v1):
    for name, condition in (
        ("select_rows", np.array([True, False, True])),
        ("select_scalar", np.array(False)),
        ("select_same_shape", None),
    ):

        def build(given, condition=condition):
            x, y = given("x", r.normal(3, 2, 2)), given("y", r.normal(3, 2, 2))
            if condition is None:
                condition = r.normal(3, 2, 2) > 0
            c = given("condition", condition)
            return {"y": v1.where(c, x, y)}

        r.record(name, "select", {}, build)


def record_segment_min_prod(r, tf, v1):
    # Recorded last: the cases before draw from the seed in their own order.
    with_zeros = np.array([[1.5, 0.0], [0.0, 2.0], [-2.0, 0.0], [3.0, -0.5], [0.0, 4.0]])
    for name, dtype, values, ids, count in (
        ("unsorted_segment_min", np.float64, r.normal(6, 2), [3, 0, 3, -1, 0, 3], 5),
        ("unsorted_segment_min_int32", np.int32, r.integers(-50, 50, 5, 3), [1, 1, -2, 0, 1], 3),
        ("unsorted_segment_min_float32", np.float32, r.normal(4), [0, 2, 2, 0], 4),
        ("unsorted_segment_prod_zeros", np.float64, with_zeros, [2, 2, 0, -1, 2], 4),
        ("unsorted_segment_prod_int32", np.int32, r.integers(-5, 5, 5, 2), [1, 0, 1, 1, -1], 3),
        ("segment_min_sorted", np.float64, r.normal(6, 2), [0, 0, 2, 2, 2, 4], None),
        ("segment_min_sorted_int32", np.int32, r.integers(-50, 50, 4), [1, 1, 3, 3], None),
        ("segment_prod_sorted_zeros", np.float64, with_zeros, [0, 0, 0, 2, 2], None),
        ("segment_prod_sorted_float32", np.float32, r.normal(4, 3), [1, 1, 3, 3], None),
    ):

        def build(given, name=name, dtype=dtype, values=values, ids=ids, count=count):
            data = given("data", np.asarray(values, dtype=dtype))
            segment_ids = given("ids", np.array(ids, dtype=np.int32))
            if count is None:
                sorted_op = v1.math.segment_min if "min" in name else v1.math.segment_prod
                return {"y": sorted_op(data, segment_ids)}
            op = v1.math.unsorted_segment_min if "min" in name else v1.math.unsorted_segment_prod
            return {"y": op(data, segment_ids, count)}

        op = ("sorted_" if count is None else "") + (
            "segment_min" if "min" in name else "segment_prod"
        )
        r.record(name, op, {"count": count}, build)


def record_logistic_loss(r, tf, v1):
    # Edge logits (a confident right or wrong prediction, the kink at 0) against hard and soft
    # labels; the loss near 0 (logits 20, label 1) is where a naive softplus(x) - x*z loses it.
    logits = [-1000.0, -88.0, -20.0, -1.0, -0.0, 0.0, 1e-8, 1.0, 20.0, 88.0, 1000.0]
    labels = [0.0, 1.0, 0.25]
    for dtype in (np.float64, np.float32):

        def build(given, dtype=dtype):
            x = given("logits", np.array([[v] * len(labels) for v in logits], dtype=dtype))
            z = given("labels", np.array([labels] * len(logits), dtype=dtype))
            return {"loss": tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)}

        r.record(f"logistic_loss_{np.dtype(dtype).name}", "logistic_loss", {}, build)


def record_sigmoid_softplus(r, tf, v1):
    # Where exp(-x) overflows (below -88.7 in float32, -709.8 in float64), where the values are
    # subnormal or round to 0 or 1, and ordinary values.
    x = [-1000.0, -745.0, -709.0, -104.0, -100.0, -88.0, -20.0, -1.0, -1e-8, -0.0, 0.0, 1e-8]
    x += [0.5, 1.0, 17.0, 20.0, 40.0, 88.0, 89.0, 710.0, 1000.0]
    for dtype in (np.float32, np.float64):

        def build(given, dtype=dtype):
            value = given("x", np.array(x, dtype=dtype))
            return {"sigmoid": tf.sigmoid(value), "softplus": tf.nn.softplus(value)}

        r.record(f"sigmoid_softplus_{np.dtype(dtype).name}", "sigmoid_softplus", {}, build)


def record_huber_loss(r, tf, v1):
    # Errors inside, at and beyond delta (both signs, 0), for two deltas.
    errors = [-1000.0, -2.5, -1.0, -0.75, -0.0, 0.0, 0.5, 1.0, 1.5, 1000.0]
    for dtype in (np.float32, np.float64):
        for delta in (1.0, 0.75):

            def build(given, dtype=dtype, delta=delta):
                e = given("error", np.array(errors, dtype=dtype))
                return {
                    "loss": v1.losses.huber_loss(
                        tf.zeros_like(e), e, delta=delta, reduction=v1.losses.Reduction.NONE
                    )
                }

            name = f"huber_loss_{np.dtype(dtype).name}_delta_{delta}"
            r.record(name, "huber_loss", {"delta": delta}, build)


def record_weighted_logistic_loss(r, tf, v1):
    # The edges of the sigmoid cross-entropy's, and its gradient at the kink x = 0, where TF's
    # abs and relu pass no gradient.
    logits = [-1000.0, -20.0, -1.0, -0.0, 0.0, 0.5, 20.0, 1000.0]
    labels = [0.0, 1.0, 0.25]
    for dtype in (np.float64, np.float32):
        for pos_weight in (3.0, 0.5):

            def build(given, dtype=dtype, pos_weight=pos_weight):
                x = given("logits", np.array([[v] * len(labels) for v in logits], dtype=dtype))
                z = given("labels", np.array([labels] * len(logits), dtype=dtype))
                loss = tf.nn.weighted_cross_entropy_with_logits(
                    labels=z, logits=x, pos_weight=pos_weight
                )
                return {"loss": loss, "grad": tf.gradients(loss, x)[0]}

            name = f"weighted_logistic_loss_{np.dtype(dtype).name}_q_{pos_weight}"
            r.record(name, "weighted_logistic_loss", {"pos_weight": pos_weight}, build)


def record_depthwise_conv2d(r, tf, v1):
    cases = [
        # name, x shape, filter shape, strides, dilations, padding
        ("depthwise_same", (2, 5, 5, 3), (3, 3, 3, 2), (1, 1), (1, 1), "SAME"),
        ("depthwise_valid_stride2", (1, 7, 6, 2), (3, 2, 2, 3), (2, 2), (1, 1), "VALID"),
        ("depthwise_same_stride2_odd", (1, 7, 7, 2), (4, 4, 2, 1), (2, 2), (1, 1), "SAME"),
        ("depthwise_same_dilated", (1, 7, 7, 2), (3, 3, 2, 2), (1, 1), (2, 2), "SAME"),
        ("depthwise_valid_dilated_2_1", (2, 6, 8, 1), (2, 3, 1, 2), (1, 1), (2, 1), "VALID"),
        ("depthwise_same_filter_larger", (1, 3, 3, 1), (4, 4, 1, 2), (1, 1), (1, 1), "SAME"),
    ]
    for name, x_shape, w_shape, strides, dilations, padding in cases:

        def build(given, x_shape=x_shape, w_shape=w_shape, s=strides, d=dilations, p=padding):
            x, w = given("x", r.normal(*x_shape)), given("filters", r.normal(*w_shape))
            # a rate above 1 goes through space_to_batch, which TF's CPU differentiates
            y = v1.nn.depthwise_conv2d(x, w, [1, *s, 1], p, rate=None if d == (1, 1) else d)
            dy = given("dy", r.normal(*shape_of(y)))
            dx, dw = r.gradient(y, [x, w], dy)
            outputs = {"y": y, "dx": dx, "dw": dw}
            if d == (1, 1):  # the ops themselves, as tf.compat.v1.nn names them
                outputs["dx_op"] = v1.nn.depthwise_conv2d_native_backprop_input(
                    x_shape, w, dy, [1, *s, 1], p
                )
                outputs["dw_op"] = v1.nn.depthwise_conv2d_native_backprop_filter(
                    x, w_shape, dy, [1, *s, 1], p
                )
            return outputs

        attrs = {"strides": list(strides), "dilations": list(dilations), "padding": padding}
        r.record(name, "depthwise_conv2d", attrs, build)


def record_resize(r, tf, v1):
    cases = [
        # name, image shape, size, align_corners, half_pixel_centers, integer image
        ("resize_up", (2, 3, 4, 2), (5, 7), False, False, False),
        ("resize_down", (1, 7, 9, 1), (3, 4), False, False, False),
        ("resize_up_corners", (1, 3, 4, 2), (5, 7), True, False, False),
        ("resize_down_corners", (1, 8, 5, 1), (3, 2), True, False, False),
        ("resize_up_half", (1, 3, 4, 2), (5, 7), False, True, False),
        ("resize_down_half", (2, 7, 9, 1), (3, 4), False, True, False),
        ("resize_mixed_half", (1, 4, 9, 1), (7, 4), False, True, False),
        ("resize_to_one_corners", (1, 5, 4, 1), (1, 6), True, False, False),
        ("resize_int_up", (1, 3, 3, 2), (4, 7), False, False, True),
        ("resize_int_down_half", (1, 9, 6, 1), (4, 4), False, True, True),
        ("resize_int_odd_corners", (1, 6, 5, 1), (9, 3), True, False, True),
    ]
    for name, x_shape, size, corners, half, integer in cases:

        def build(given, x_shape=x_shape, size=size, corners=corners, half=half, i=integer):
            if i:
                x = given("x", r.integers(0, 256, *x_shape, dtype=np.int32))
            else:
                x = given("x", r.normal(*x_shape, dtype=np.float32))
            flags = {"align_corners": corners, "half_pixel_centers": half}
            y = v1.image.resize_bilinear(x, size, **flags)
            nearest = v1.image.resize_nearest_neighbor(x, size, **flags)
            outputs = {"y": y, "nearest": nearest}
            if not i:
                dy = given("dy", r.normal(*shape_of(y), dtype=np.float32))
                outputs["dx"] = r.gradient(y, x, dy)[0]
                outputs["dx_nearest"] = r.gradient(nearest, x, dy)[0]
                x64 = given("x64", r.normal(*x_shape))
                outputs["dx64"] = r.gradient(v1.image.resize_bilinear(x64, size, **flags), x64, dy)[
                    0
                ]
            return outputs

        attrs = {"size": list(size), "align_corners": corners, "half_pixel_centers": half}
        r.record(name, "resize", attrs, build)


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    import tensorflow as tf

    v1 = tf.compat.v1
    v1.disable_eager_execution()
    recorder = Recorder(tf)
    for record in (
        record_conv2d,
        record_pools,
        record_segments,
        record_cumulative,
        record_erf,
        record_top_k,
        record_one_hot,
        record_diagonals,
        record_boolean_mask,
        record_mirror_pad,
        record_lrn,
        record_gathers,
        record_reductions,
        record_select,
        record_segment_min_prod,
        record_logistic_loss,
        record_huber_loss,
        record_weighted_logistic_loss,
        record_depthwise_conv2d,
        record_resize,
        record_sigmoid_softplus,
        record_conv2d_rows,
    ):
        record(recorder, tf, v1)
    doc = {
        "about": "Recorded by tests/kernels/record_kernels_numpy.py; do not edit by hand.",
        "numpy_seed": SEED,
        "tensorflow": tf.__version__,
        "cases": recorder.cases,
    }
    text = json.dumps(doc, sort_keys=True, indent=1, allow_nan=False) + "\n"
    # Each list of numbers on one line.
    text = re.sub(r"\[([^\[\]{}]*)\]", lambda m: "[" + " ".join(m[1].split()) + "]", text)
    OUTPUT.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {len(recorder.cases)} cases to {OUTPUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
