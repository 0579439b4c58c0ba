"""W1 and W2: the seed's linear regression, per fed scalar (W1, float32) and on long arrays (W2)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from . import graphs, peers
from .harness import (
    Candidate,
    Outputs,
    Prepared,
    Settings,
    WorkloadResult,
    register_group,
    run_candidates,
)

FLOAT32_RTOL, FLOAT64_RTOL = 1e-4, 1e-6
LEARNING_RATE = 0.01

# --- W1: one (x, y) pair fed per call, float32, as in the seed's program 1 -------------------------

W1_INITIAL = [np.float32(2.0), np.float32(1.0)]  # weight, biases


def w1_feed() -> list[np.float64]:
    """One (x, y) pair of the seed's data (a noisy line), float64 scalars as the seed feeds them.

    The first pair with |x| < 10: steps that train on one point stay stable there (for
    |x| > 80 each gradient step with rate 0.01 overshoots, and timing would run into overflow).
    """
    rng = np.random.default_rng(0)
    x = (rng.integers(-10, 100, 32) + rng.standard_normal(32) / 32).astype(np.float64)
    y = 3 * x + 2 + rng.standard_normal(32) / 32
    index = int(np.flatnonzero(np.abs(x) < 10)[0])
    return [x[index], y[index]]


def build_w1(api: Any) -> graphs.GraphModel:
    """The seed's graph, in TF1 spelling (api is symgrad or tf.compat.v1)."""
    x_input = api.placeholder(api.float32, name="x_input")
    y_input = api.placeholder(api.float32, name="y_input")
    w = api.Variable(2.0, name="weight")
    b = api.Variable(1.0, name="biases")
    y = api.add(api.multiply(x_input, w), b)
    loss = api.reduce_sum(api.pow(y_input - y, 2)) / (2 * 32)
    return graphs.GraphModel([x_input, y_input], [w, b], loss, api.gradients(loss, [w, b]))


def w1_loss(ops: peers.ArrayOps, params: list[Any], data: list[Any]) -> Any:
    (w, b), (x, y) = params, data
    return ops.sum((y - (x * w + b)) ** 2) / (2 * 32)


def w1_handwritten(x: Any, y: Any, w: np.float32, b: np.float32) -> tuple[Any, list[Any]]:
    # np.asarray, as the generated code's input check must: fed values arrive as float64 scalars.
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y, dtype=np.float32)
    residual = y - (x * w + b)
    return np.sum(residual**2) / 64, [np.sum(-x * residual) / 32, np.sum(-residual) / 32]


def w1_handwritten_candidate() -> Candidate:
    def prepare() -> Prepared:
        x, y = w1_feed()
        w, b = W1_INITIAL
        call = lambda: w1_handwritten(x, y, w, b)  # noqa: E731
        return Prepared(call=call, evaluate=call)

    return Candidate("numpy", "numpy", "NumPy hand-written", prepare, reference=True)


def w1_handwritten_step_candidate() -> Candidate:
    """Value, gradients and the gradient-descent update: what a Session.run training step does."""

    def prepare() -> Prepared:
        x, y = w1_feed()
        state = list(W1_INITIAL)
        rate = np.float32(LEARNING_RATE)

        def call() -> Outputs:
            loss, (grad_w, grad_b) = w1_handwritten(x, y, *state)
            state[:] = [state[0] - rate * grad_w, state[1] - rate * grad_b]
            return loss, [grad_w, grad_b]

        return Prepared(call=call, evaluate=call)

    return Candidate("numpy-step", "numpy", "NumPy hand-written step (+ GD update)", prepare)


def build_w1_training_step(api: Any) -> tuple:
    """(feeds, fetches) of the seed's training step: sess.run([train_op, gradients, loss])."""
    model = build_w1(api)
    train_op = api.train.GradientDescentOptimizer(LEARNING_RATE).minimize(model.loss)
    return model.feeds, [train_op, model.gradients, model.loss]


def _session_prepared(
    session: Any, feeds: list[Any], fetches: list[Any], setup_seconds: float
) -> Prepared:
    feed_dict = dict(zip(feeds, w1_feed(), strict=False))

    def call() -> Any:
        return session.run(fetches, feed_dict=feed_dict)

    start = time.perf_counter()
    _, gradients, loss = call()  # the first run compiles; its outputs are the initial state's
    first = time.perf_counter() - start
    return Prepared(
        call=call,
        evaluate=lambda: (loss, list(gradients)),
        build_seconds=setup_seconds,
        first_call_seconds=first,
        note="build = graph + session + first run - steady run",
    )


def symgrad_session_candidate(settings: Settings) -> Candidate:
    def prepare() -> Prepared:
        import symgrad as sg

        start = time.perf_counter()
        graph = sg.Graph()
        with graph.as_default():
            feeds, fetches = build_w1_training_step(sg)
            session = sg.Session(graph=graph, codegen_dir=settings.work_dir / "w1_session")
            session.run(sg.global_variables_initializer())
        return _session_prepared(session, feeds, fetches, time.perf_counter() - start)

    return Candidate("symgrad-session", "symgrad", "symgrad Session.run (+ GD update)", prepare)


def tf1_session_candidate() -> Candidate:
    def prepare() -> Prepared:
        tf = peers.tensorflow()
        v1 = tf.compat.v1
        start = time.perf_counter()
        graph = v1.Graph()
        with graph.as_default():
            feeds, fetches = build_w1_training_step(v1)
            session = v1.Session(graph=graph, config=peers.tf1_session_config(tf))
            session.run(v1.global_variables_initializer())
        return _session_prepared(session, feeds, fetches, time.perf_counter() - start)

    return Candidate("tf1-session", "tf1", "TF1 Session.run (+ GD update)", prepare)


@register_group("W1")
def w1_candidates(settings: Settings) -> list[Candidate]:
    feed = w1_feed()
    problem = peers.Problem(w1_loss, W1_INITIAL, feed, np.float32, feed_per_call=True)
    return [
        w1_handwritten_candidate(),
        w1_handwritten_step_candidate(),
        *graphs.symgrad_candidates(build_w1, feed, W1_INITIAL, settings, "w1"),
        symgrad_session_candidate(settings),
        tf1_session_candidate(),
        *peers.functional_candidates(problem),
    ]


def run_w1(settings: Settings) -> list[WorkloadResult]:
    result = WorkloadResult(
        id="W1",
        title="W1: the seed's linear regression step (float32 scalars fed per call)",
        description="loss = reduce_sum((y - (x*w + b))**2) / 64 with d/dw, d/db; x and y arrive as "
        "float64 scalars each call and are converted to float32. Session rows also apply "
        "the gradient-descent update, as the seed's training step does.",
        reference_name="NumPy hand-written",
    )
    result.rows = run_candidates("W1", settings, rtol=FLOAT32_RTOL)
    return [result]


# --- W2: the same model on long float64 arrays -----------------------------------------------------

W2_INITIAL = [np.float64(2.0), np.float64(1.0)]


def w2_data(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n)
    return [x, 3 * x + 2 + 0.1 * rng.standard_normal(n)]


# How the W2 rows declare x and y: a static length, [None] (the shape TF1 programs write), or no
# shape at all (the tutorial's way). symgrad's generated function checks that x and y have one
# length and then runs the code that computes in place.
W2_SHAPES = {"static": "shape=[n]", "none": "shape=[None]", "shapeless": "no shape"}


def build_w2(api: Any, n: int | None, declared: str = "static") -> graphs.GraphModel:
    shape = {"static": [n], "none": [None], "shapeless": None}[declared]
    x = api.placeholder(api.float64, shape=shape, name="x")
    y = api.placeholder(api.float64, shape=shape, name="y")
    w = api.Variable(2.0, dtype=api.float64, name="weight")
    b = api.Variable(1.0, dtype=api.float64, name="biases")
    loss = api.reduce_mean(api.pow(y - (x * w + b), 2))
    return graphs.GraphModel([x, y], [w, b], loss, api.gradients(loss, [w, b]))


def w2_loss(ops: peers.ArrayOps, params: list[Any], data: list[Any]) -> Any:
    (w, b), (x, y) = params, data
    return ops.mean((y - (x * w + b)) ** 2)


def w2_naive(x: np.ndarray, y: np.ndarray, w: float, b: float) -> Outputs:
    """The obvious NumPy: what the generated code has to beat."""
    r = x * w + b - y
    return np.mean(r**2), [np.mean(2 * r * x), np.mean(2 * r)]


def w2_naive_step_candidate(data: list[np.ndarray]) -> Candidate:
    """The naive NumPy value and gradients plus the gradient-descent update: a training step."""

    def prepare() -> Prepared:
        state = list(W2_INITIAL)

        def call() -> Outputs:
            loss, (grad_w, grad_b) = w2_naive(*data, *state)
            state[:] = [state[0] - LEARNING_RATE * grad_w, state[1] - LEARNING_RATE * grad_b]
            return loss, [grad_w, grad_b]

        def evaluate() -> Outputs:
            return w2_naive(*data, *W2_INITIAL)

        return Prepared(call=call, evaluate=evaluate)

    return Candidate("numpy-step", "numpy", "NumPy naive step (+ GD update)", prepare)


def w2_session_candidate(settings: Settings, data: list[np.ndarray]) -> Candidate:
    """The tutorial's loop: shape-less placeholders, ``sess.run([train, loss, grads], feed_dict)``."""

    def prepare() -> Prepared:
        import symgrad as sg

        start = time.perf_counter()
        graph = sg.Graph()
        with graph.as_default():
            model = build_w2(sg, None, "shapeless")
            train = sg.train.GradientDescentOptimizer(LEARNING_RATE).minimize(model.loss)
            fetches = [train, model.gradients, model.loss]
            session = sg.Session(graph=graph, codegen_dir=settings.work_dir / "w2_session")
            session.run(sg.global_variables_initializer())
        feed_dict = dict(zip(model.feeds, data, strict=False))

        def call() -> Any:
            return session.run(fetches, feed_dict=feed_dict)

        first = time.perf_counter()
        _, gradients, loss = call()  # the first run compiles; its outputs are the initial state's
        first_seconds = time.perf_counter() - first
        return Prepared(
            call=call,
            evaluate=lambda: (loss, list(gradients)),
            build_seconds=first - start,
            first_call_seconds=first_seconds,
            note="build = graph + session + first run - steady run",
        )

    return Candidate(
        "symgrad-session", "symgrad", "symgrad Session.run, shape-less feeds (+ GD update)", prepare
    )


def w2_optimized(x: np.ndarray, y: np.ndarray, w: float, b: float, scratch: np.ndarray) -> Outputs:
    """One pass to build the residual in place, then dot products: no temporaries at all."""
    r = np.multiply(x, w, out=scratch)
    r += b
    r -= y
    n = r.size
    return (r @ r) / n, [2.0 * (r @ x) / n, 2.0 * r.sum() / n]


def _w2_optimized_function(n: int) -> Callable[[], Callable[..., Outputs]]:
    def make() -> Callable[..., Outputs]:
        scratch = np.empty(n)
        return lambda x, y, w, b: w2_optimized(x, y, w, b, scratch)

    return make


def _numpy_candidate(
    key: str,
    name: str,
    make: Callable[[], Callable[..., Outputs]],
    data: list[np.ndarray],
    reference: bool,
) -> Candidate:
    """``make`` gives the function when the system is built: a worker process builds every
    candidate of the list, and memory allocated for the others would change its allocator."""

    def prepare() -> Prepared:
        function = make()
        call = lambda: function(*data, *W2_INITIAL)  # noqa: E731
        return Prepared(call=call, evaluate=call)

    return Candidate(key, "numpy", name, prepare, reference=reference)


@register_group("W2")
def w2_candidates(settings: Settings) -> list[Candidate]:
    n = settings.sizes.linear_n
    data = w2_data(n)
    return [
        _numpy_candidate("numpy", "NumPy naive", lambda: w2_naive, data, reference=True),
        _numpy_candidate(
            "numpy-optimized",
            "NumPy hand-optimized (in place, dot)",
            _w2_optimized_function(n),
            data,
            False,
        ),
        *graphs.symgrad_candidates(
            functools.partial(build_w2, n=n), data, W2_INITIAL, settings, "w2"
        ),
        *(
            graphs.symgrad_shape_candidate(
                f"symgrad-{declared}",
                f"symgrad, x and y with {W2_SHAPES[declared]}",
                functools.partial(build_w2, n=n, declared=declared),
                data,
                W2_INITIAL,
                settings,
                f"w2_{declared}",
            )
            for declared in ("none", "shapeless")
        ),
        w2_naive_step_candidate(data),
        w2_session_candidate(settings, data),
        graphs.tf1_candidate(functools.partial(build_w2, n=n), data),
        *peers.functional_candidates(peers.Problem(w2_loss, W2_INITIAL, data, np.float64)),
    ]


def run_w2(settings: Settings) -> list[WorkloadResult]:
    n = settings.sizes.linear_n
    result = WorkloadResult(
        id="W2",
        title=f"W2: linear regression on {n:,} float64 values",
        description="loss = reduce_mean((y - (x*w + b))**2) with d/dw, d/db; x and y are "
        f"placeholders of shape [{n}], of shape [None], or of no shape (the rows say which). "
        "Step rows also apply the gradient-descent update; the Session row feeds x and y "
        "through feed_dict each call, as the tutorial's loop does.",
        reference_name="NumPy naive",
    )
    result.rows = run_candidates("W2", settings, rtol=FLOAT64_RTOL)
    return [result]
