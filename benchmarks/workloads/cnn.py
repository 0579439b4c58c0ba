"""W6: a small CNN (conv 5x5x32 - max-pool 2 - conv 5x5x64 - max-pool 2 - dense 10) on 28x28x1
images, batch 64, float32: the mean softmax cross-entropy and its gradients in all 6 parameters.

The same TF1 graph runs under symgrad (generated module, fast and readable forms) and TF1
``Session.run``; JAX runs ``jit(value_and_grad)`` of the loss written with ``lax.conv`` and
``lax.reduce_window``; the reference is NumPy written by hand (windows as a strided view, the
input gradient as a correlation with the flipped filter, pooling by reshaping into 2x2 blocks).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from . import graphs, peers
from .harness import (
    Candidate,
    Outputs,
    Prepared,
    Settings,
    Sizes,
    WorkloadResult,
    register_group,
    run_candidates,
)

# float32 sums of up to 3,136 products, accumulated in a different order by every system.
RTOL = 1e-3
KERNEL = 5


def make_problem(sizes: Sizes) -> tuple:
    """(data [images, one-hot labels], params [w1, b1, w2, b2, w3, b3]), float32."""
    rng = np.random.default_rng(0)
    side, (c1, c2), classes = sizes.cnn_side, sizes.cnn_channels, 10
    flat = (side // 4) ** 2 * c2
    shapes = [(KERNEL, KERNEL, 1, c1), (c1,), (KERNEL, KERNEL, c1, c2), (c2,), (flat, classes)]
    params = [rng.standard_normal(s).astype(np.float32) * 0.1 for s in shapes]
    params.append(np.zeros(classes, np.float32))
    images = rng.uniform(0.0, 1.0, (sizes.cnn_batch, side, side, 1)).astype(np.float32)
    labels = np.eye(classes, dtype=np.float32)[rng.integers(0, classes, sizes.cnn_batch)]
    return [images, labels], params


def cnn_builder(sizes: Sizes, param_values: list[np.ndarray]) -> graphs.Builder:
    def build(api: Any) -> graphs.GraphModel:
        side = sizes.cnn_side
        x = api.placeholder(api.float32, [None, side, side, 1], name="images")
        y = api.placeholder(api.float32, [None, 10], name="labels")
        names = ["w1", "b1", "w2", "b2", "w3", "b3"]
        w1, b1, w2, b2, w3, b3 = params = [
            api.Variable(v, name=n) for v, n in zip(param_values, names, strict=True)
        ]
        h = api.nn.relu(api.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1)
        h = api.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        h = api.nn.relu(api.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME") + b2)
        h = api.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        logits = api.matmul(api.reshape(h, [-1, int(param_values[4].shape[0])]), w3) + b3
        loss = api.reduce_mean(api.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        return graphs.GraphModel([x, y], params, loss, api.gradients(loss, params))

    return build


# --- NumPy by hand -----------------------------------------------------------------------------


def _columns(x: np.ndarray) -> np.ndarray:
    """SAME, stride 1 windows of x: (n, h, w, c, k, k), a view of the zero-padded input."""
    pad = KERNEL // 2
    padded = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    return np.lib.stride_tricks.sliding_window_view(padded, (KERNEL, KERNEL), axis=(1, 2))


def _conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.tensordot(_columns(x), w, axes=((4, 5, 3), (0, 1, 2)))


def _conv_filter_grad(x: np.ndarray, dy: np.ndarray) -> np.ndarray:
    return np.tensordot(_columns(x), dy, axes=((0, 1, 2), (0, 1, 2))).transpose(1, 2, 0, 3)


def _conv_input_grad(dy: np.ndarray, w: np.ndarray) -> np.ndarray:
    # a SAME correlation's adjoint is the SAME correlation with the filter flipped, in and out swapped
    return _conv(dy, w[::-1, ::-1].transpose(0, 1, 3, 2))


def _pool(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n, height, width, c = h.shape
    blocks = h.reshape(n, height // 2, 2, width // 2, 2, c)
    top = blocks.max(axis=(2, 4))
    return top, blocks == top[:, :, None, :, None]


def _unpool(d: np.ndarray, mask: np.ndarray) -> np.ndarray:
    # ties (blocks of relu zeros) meet a zero relu gradient, so sending to all of them is harmless
    n, h2, _, w2, _, c = mask.shape
    return (mask * d[:, :, None, :, None]).reshape(n, 2 * h2, 2 * w2, c)


def backprop(images: np.ndarray, labels: np.ndarray, params: list[np.ndarray]) -> Outputs:
    w1, b1, w2, b2, w3, b3 = params
    a1 = np.maximum(_conv(images, w1) + b1, 0)
    p1, mask1 = _pool(a1)
    a2 = np.maximum(_conv(p1, w2) + b2, 0)
    p2, mask2 = _pool(a2)
    flat = p2.reshape(len(images), -1)
    logits = flat @ w3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -np.mean(np.sum(labels * log_p, axis=1))
    d_logits = (np.exp(log_p) - labels) / len(images)
    d_w3, d_b3 = flat.T @ d_logits, d_logits.sum(0)
    d_a2 = _unpool((d_logits @ w3.T).reshape(p2.shape), mask2) * (a2 > 0)
    d_w2, d_b2 = _conv_filter_grad(p1, d_a2), d_a2.sum((0, 1, 2))
    d_a1 = _unpool(_conv_input_grad(d_a2, w2), mask1) * (a1 > 0)
    d_w1, d_b1 = _conv_filter_grad(images, d_a1), d_a1.sum((0, 1, 2))
    return loss, [d_w1, d_b1, d_w2, d_b2, d_w3, d_b3]


def _backprop_candidate(data: list[np.ndarray], params: list[np.ndarray]) -> Candidate:
    def prepare() -> Prepared:
        call = lambda: backprop(data[0], data[1], params)  # noqa: E731
        return Prepared(call=call, evaluate=call)

    return Candidate("numpy", "numpy", "NumPy hand-written backprop", prepare, reference=True)


# --- JAX ---------------------------------------------------------------------------------------


def _jax_candidate(data: list[np.ndarray], params: list[np.ndarray]) -> Candidate:
    def prepare() -> Prepared:
        jx = peers.jax()
        jnp, lax = peers.jax_numpy(), jx.lax
        dimensions = ("NHWC", "HWIO", "NHWC")

        def loss(p: list[Any], images: Any, labels: Any) -> Any:
            w1, b1, w2, b2, w3, b3 = p
            h = images
            for w, b in ((w1, b1), (w2, b2)):
                h = jx.nn.relu(
                    lax.conv_general_dilated(h, w, (1, 1), "SAME", None, None, dimensions) + b
                )
                h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")
            logits = h.reshape(h.shape[0], -1) @ w3 + b3
            return -jnp.mean(jnp.sum(labels * jx.nn.log_softmax(logits, axis=-1), axis=1))

        step = jx.jit(jx.value_and_grad(loss))
        arguments = [jnp.asarray(p) for p in params], *(jnp.asarray(d) for d in data)

        def call() -> Any:
            return jx.block_until_ready(step(*arguments))

        start = time.perf_counter()
        call()
        first = time.perf_counter() - start

        def evaluate() -> Outputs:
            value, grads = call()
            return np.asarray(value), [np.asarray(g) for g in grads]

        return Prepared(
            call=call,
            evaluate=evaluate,
            first_call_seconds=first,
            note="build = first call (trace + XLA compile) - steady call",
        )

    return Candidate(key="jax", system="jax", name="JAX jit(value_and_grad)", prepare=prepare)


@register_group("W6")
def w6_candidates(settings: Settings) -> list[Candidate]:
    data, params = make_problem(settings.sizes)
    builder = cnn_builder(settings.sizes, params)
    return [
        _backprop_candidate(data, params),
        *graphs.symgrad_candidates(builder, data, params, settings, "w6_cnn"),
        graphs.symgrad_forward_candidate(builder, data, params, settings, "w6_cnn"),
        graphs.tf1_candidate(builder, data),
        _jax_candidate(data, params),
    ]


def run_w6(settings: Settings) -> list[WorkloadResult]:
    sizes = settings.sizes
    c1, c2 = sizes.cnn_channels
    side = sizes.cnn_side
    result = WorkloadResult(
        id="W6",
        title=(
            f"W6: CNN conv {KERNEL}x{KERNEL}x{c1} - maxpool 2 - conv {KERNEL}x{KERNEL}x{c2} - "
            f"maxpool 2 - dense 10 on {side}x{side}x1, batch {sizes.cnn_batch}, float32"
        ),
        description="Mean softmax cross-entropy with the values of all 6 gradients "
        "(2 filters, 3 biases, the dense weights).",
        reference_name="NumPy hand-written backprop",
    )
    result.rows = run_candidates("W6", settings, rtol=RTOL)
    full, forward = result.row("symgrad"), result.row("symgrad-forward")
    if full and forward and full.seconds and forward.seconds:
        result.extras["cheap_gradient_ratio"] = full.seconds / forward.seconds
    return [result]
