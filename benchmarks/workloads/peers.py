"""The peer autodiff systems: importing each one single-threaded, and running a loss written once.

Each workload writes its loss once as ``loss(ops, params, data)`` against the small ``ArrayOps``
vocabulary below; ``jax_candidate``, ``torch_candidate``, ``tf2_candidate`` and
``autograd_candidate`` turn it into a timed value-and-gradients call of that framework. A framework
that is not importable raises ``PeerUnavailable`` and its row is skipped with the message.

Conventions, the same for every peer: parameters and data that stay the same between calls are
converted to the framework's own arrays once (as a user holding them would); data fed afresh each
call (W1) is converted with ``np.asarray`` inside the call, as the generated code and the
hand-written baseline must. Results are forced to completion inside the call (JAX
``block_until_ready``, TensorFlow ``.numpy()``).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .harness import Candidate, Outputs, PeerUnavailable, Prepared

Loss = Callable[[Any, list[Any], list[Any]], Any]


@dataclass(frozen=True)
class ArrayOps:
    """The few array functions the workloads' losses need, in one framework's spelling."""

    tanh: Callable[[Any], Any]
    sum: Callable[..., Any]  # sum(x) over everything, sum(x, axis)
    mean: Callable[[Any], Any]  # over everything
    log_softmax: Callable[[Any], Any]  # over the last axis


PEER_PACKAGES = {
    # system: (module to import, distributions whose versions are reported, how to install)
    "tf1": ("tensorflow", ("tensorflow", "tensorflow-cpu"), "pip install tensorflow-cpu"),
    "tf2": ("tensorflow", ("tensorflow", "tensorflow-cpu"), "pip install tensorflow-cpu"),
    "jax": ("jax", ("jax", "jaxlib"), "pip install 'jax[cpu]'"),
    "torch": ("torch", ("torch",), "pip install torch"),
    "autograd": ("autograd", ("autograd",), "pip install autograd"),
}


def installed_versions() -> dict:
    """Versions of every measured package that is installed, without importing any of them."""
    names = [
        "numpy",
        "sympy",
        "symgrad",
        "tensorflow",
        "tensorflow-cpu",
        "jax",
        "jaxlib",
        "torch",
        "autograd",
        "matplotlib",
    ]
    versions = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def _import(system: str) -> Any:
    module, _, install = PEER_PACKAGES[system]
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise PeerUnavailable(f"{module} is not importable ({error}); {install}") from None


@functools.cache
def tensorflow() -> Any:
    tf = _import("tf2")
    # Must happen before TensorFlow's runtime starts, i.e. right after import.
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    return tf


def tf1_session_config(tf: Any) -> Any:
    """A TF1 session on one thread (sessions take their own config, not tf.config's)."""
    return tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


@functools.cache
def jax() -> Any:
    jax = _import("jax")  # XLA_FLAGS (one thread) was set by run.py before anything imported jax
    jax.config.update("jax_enable_x64", True)
    return jax


@functools.cache
def torch() -> Any:
    torch = _import("torch")
    torch.set_num_threads(1)
    # Only allowed before the first parallel work; after it, it already is what it is.
    with contextlib.suppress(RuntimeError):
        torch.set_num_interop_threads(1)
    return torch


@functools.cache
def autograd() -> Any:
    return _import("autograd")


# --- ArrayOps of each framework -------------------------------------------------------------------


def jax_numpy() -> Any:
    jax()
    return importlib.import_module("jax.numpy")


def jax_ops() -> ArrayOps:
    jnp = jax_numpy()
    nn = importlib.import_module("jax.nn")
    return ArrayOps(
        tanh=jnp.tanh, sum=jnp.sum, mean=jnp.mean, log_softmax=lambda x: nn.log_softmax(x, axis=-1)
    )


def autograd_ops() -> ArrayOps:
    autograd()
    anp = importlib.import_module("autograd.numpy")
    logsumexp = importlib.import_module("autograd.scipy.special").logsumexp
    return ArrayOps(
        tanh=anp.tanh,
        sum=anp.sum,
        mean=anp.mean,
        log_softmax=lambda x: x - logsumexp(x, axis=-1, keepdims=True),
    )


def torch_ops() -> ArrayOps:
    t = torch()
    return ArrayOps(
        tanh=t.tanh,
        sum=lambda x, axis=None: x.sum() if axis is None else x.sum(dim=axis),
        mean=t.mean,
        log_softmax=lambda x: t.log_softmax(x, dim=-1),
    )


def tf_ops() -> ArrayOps:
    tf = tensorflow()
    return ArrayOps(
        tanh=tf.tanh,
        sum=lambda x, axis=None: tf.reduce_sum(x, axis=axis),
        mean=tf.reduce_mean,
        log_softmax=lambda x: tf.nn.log_softmax(x, axis=-1),
    )


# --- value and gradients of a loss, per framework -------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One workload's loss, its parameters' values, and its data, for the functional peers."""

    loss: Loss
    params: Sequence[Any]  # arrays or NumPy scalars
    data: Sequence[Any]
    dtype: Any  # np.float32 or np.float64
    feed_per_call: bool = False  # data arrives afresh each call (W1's scalars) instead of once

    def host_data(self) -> list[np.ndarray]:
        return [np.asarray(d, dtype=self.dtype) for d in self.data]


def _as_numpy(loss: Any, grads: Sequence[Any]) -> Outputs:
    return np.asarray(loss), [np.asarray(g) for g in grads]


def _timed_first_call(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def jax_candidate(problem: Problem, name: str = "JAX jit(value_and_grad)") -> Candidate:
    def prepare() -> Prepared:
        jx, jnp = jax(), jax_numpy()
        ops = jax_ops()
        step = jx.jit(
            jx.value_and_grad(lambda params, *data: problem.loss(ops, params, list(data)))
        )
        params = [jnp.asarray(p) for p in problem.params]
        fixed = None if problem.feed_per_call else [jnp.asarray(d) for d in problem.host_data()]

        def call() -> Any:
            data = fixed if fixed is not None else problem.host_data()
            return jx.block_until_ready(step(params, *data))

        first = _timed_first_call(call)
        return Prepared(
            call=call,
            evaluate=lambda: _as_numpy(*call()),
            first_call_seconds=first,
            note="build = first call (trace + XLA compile) - steady call",
        )

    return Candidate(key="jax", system="jax", name=name, prepare=prepare)


def torch_candidate(problem: Problem, name: str = "PyTorch autograd") -> Candidate:
    def prepare() -> Prepared:
        t = torch()
        ops = torch_ops()
        leaves = [
            t.tensor(np.asarray(p, dtype=problem.dtype), requires_grad=True) for p in problem.params
        ]
        fixed = None if problem.feed_per_call else [t.from_numpy(d) for d in problem.host_data()]

        def call() -> Any:
            data = fixed if fixed is not None else [t.from_numpy(d) for d in problem.host_data()]
            value = problem.loss(ops, leaves, data)
            return value, t.autograd.grad(value, leaves)

        def evaluate() -> Outputs:
            value, grads = call()
            return _as_numpy(value.detach().numpy(), [g.numpy() for g in grads])

        return Prepared(call=call, evaluate=evaluate)

    return Candidate(key="torch", system="torch", name=name, prepare=prepare)


def tf2_candidate(problem: Problem, name: str = "TF2 tf.function + GradientTape") -> Candidate:
    def prepare() -> Prepared:
        tf = tensorflow()
        ops = tf_ops()
        start = time.perf_counter()
        variables = [tf.Variable(np.asarray(p, dtype=problem.dtype)) for p in problem.params]

        @tf.function
        def step(*data: Any) -> Any:
            with tf.GradientTape() as tape:
                value = problem.loss(ops, variables, list(data))
            return value, [tf.convert_to_tensor(g) for g in tape.gradient(value, variables)]

        fixed = None if problem.feed_per_call else [tf.constant(d) for d in problem.host_data()]
        setup = time.perf_counter() - start

        def call() -> Outputs:
            data = fixed if fixed is not None else [tf.constant(d) for d in problem.host_data()]
            value, grads = step(*data)
            return value.numpy(), [g.numpy() for g in grads]

        first = _timed_first_call(call)
        return Prepared(
            call=call,
            evaluate=call,
            build_seconds=setup,
            first_call_seconds=first,
            note="build = variables + first call (tracing) - steady call",
        )

    return Candidate(key="tf2", system="tf2", name=name, prepare=prepare)


def autograd_candidate(problem: Problem, name: str = "autograd (HIPS)") -> Candidate:
    def prepare() -> Prepared:
        ag = autograd()
        ops = autograd_ops()
        step = ag.value_and_grad(lambda params, data: problem.loss(ops, params, data))
        params = [np.asarray(p, dtype=problem.dtype) for p in problem.params]
        fixed = None if problem.feed_per_call else problem.host_data()

        def call() -> Any:
            return step(params, fixed if fixed is not None else problem.host_data())

        return Prepared(call=call, evaluate=lambda: _as_numpy(*call()))

    return Candidate(key="autograd", system="autograd", name=name, prepare=prepare)


def functional_candidates(problem: Problem) -> list[Candidate]:
    """TF2, JAX, PyTorch and autograd on the same loss, in the tables' order."""
    return [
        tf2_candidate(problem),
        jax_candidate(problem),
        torch_candidate(problem),
        autograd_candidate(problem),
    ]
