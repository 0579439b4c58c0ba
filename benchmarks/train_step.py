"""One training step of the models TF1 tutorials train: symgrad, TensorFlow 1, JAX and PyTorch.

Models (float32, mean softmax cross-entropy, Adam):

- ``cnn``: the classic MNIST CNN (conv 5x5x32 SAME - max-pool 2x2/2 SAME - conv 5x5x64 - max-pool
  - dense 256 with dropout 0.5 - dense 10), batch 50, Adam 1e-4;
- ``lstm``: ``BasicLSTMCell(128)``, ``static_rnn`` over 28 steps of 28 inputs, dense 10 on the
  last output, batch 64, Adam 1e-3;
- ``gru``: the same with ``GRUCell(128)``.
- ``lstm_dynamic``: the ``lstm`` model through ``dynamic_rnn`` over a ``[None, None, 28]``
  placeholder (the number of steps known only when fed): a ``for`` loop in symgrad's generated
  module (its gradient a loop backwards over the saved steps), TF1's ``while_loop``; symgrad and
  TF1 only. Set beside ``lstm`` (``static_rnn``, unrolled), it gives the loop's cost.

Systems:

- ``symgrad`` and ``tf1``: each model is one function of the TF1 API, run once with ``symgrad``
  and once with ``tensorflow.compat.v1`` (the latter under ``--tf-python``, a Python that imports
  TensorFlow); a step is ``sess.run([train_op, loss], feed)``.
- ``jax``: the same models written as JAX users write them: NHWC ``lax.conv_general_dilated``
  (HWIO kernels) and ``lax.reduce_window`` max-pooling, the recurrent cells (TF's gate layout:
  LSTM ``i, j, f, o`` with forget bias 1, GRU with the reset gate before the candidate's matmul)
  under ``lax.scan``, Adam written by hand (TF's update, optax is not installed), the dropout key
  carried in the optimiser state; a step is one ``jax.jit`` function of
  ``(params, opt_state, batch)`` returning the new parameters, state and loss, timed to
  ``block_until_ready()``.
- ``torch``: the same models with PyTorch's native modules, as its users write them: NCHW
  ``nn.Conv2d`` (``padding="same"``) and ``F.max_pool2d`` (on 28 and 14 pixels a 2x2/2 pool needs
  no padding, so it equals SAME), the fused ``nn.LSTM`` / ``nn.GRU`` with ``batch_first=True``
  (two bias vectors per gate, and PyTorch's GRU applies the reset gate after the candidate's
  matmul: the same shapes and cost, not TF's exact cells), ``F.cross_entropy`` on the class
  indices; a step is ``zero_grad``, forward, ``loss.backward()``, ``optimizer.step()`` with
  ``torch.optim.Adam``.

Weights are initialised alike (truncated normal, std 0.1, and biases 0.1 in the CNN; Glorot
uniform kernels and a unit-normal output layer in the RNNs), not equally; every system trains on
the same random batch (``numpy.random.default_rng(0)``).

Every (system, model) pair runs in a fresh process; rounds alternate between the systems so that
background load moves them alike. Reported per pair: the first step (graph, gradients and compile
for symgrad, tracing and XLA compilation for JAX; for every system the wall time from building
the model to the end of the first step, nothing subtracted) and the median steady step; the
table's ratios are symgrad / other on the medians over rounds.

``--threads 1`` (the default) pins every system to one thread: BLAS through ``OMP_NUM_THREADS``
and friends, TF's ``ConfigProto`` with one intra- and one inter-op thread,
``torch.set_num_threads(1)``, and for JAX ``XLA_FLAGS=--xla_cpu_multi_thread_eigen=false
intra_op_parallelism_threads=1``; jax 0.10 accepts that flag but its CPU runtime still runs a
matmul on every core, so the JAX child also pins itself to one CPU (``os.sched_setaffinity``)
before importing JAX. ``--threads default`` leaves all of them as users run them.

Run:  python benchmarks/train_step.py --tf-python /work/tfenv/bin/python [--models cnn,lstm]
      [--systems symgrad,tf1,jax,torch] [--rounds 3] [--steps 30] [--threads 1|default]
      [--markdown FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

MODELS = ("cnn", "lstm", "gru", "lstm_dynamic")
# Models written only with the TF1 API (JAX and PyTorch have no counterpart to compare).
GRAPH_ONLY_MODELS = ("lstm_dynamic",)
SYSTEMS = ("symgrad", "tf1", "jax", "torch")
TITLES = {"symgrad": "symgrad", "tf1": "TF1", "jax": "JAX", "torch": "PyTorch"}
RNN_STEPS, RNN_INPUTS, RNN_UNITS, RNN_BATCH = 28, 28, 128, 64
CNN_BATCH = 50


def build_cnn(tf: Any, rng: Any) -> tuple[Any, Any, Any]:
    """Deep-MNIST-style CNN; returns (train_op, loss, feed)."""
    images = tf.placeholder(tf.float32, [None, 784], name="images")
    labels = tf.placeholder(tf.float32, [None, 10], name="labels")
    keep_prob = tf.placeholder(tf.float32, name="keep_prob")

    def weight(shape: list[int], name: str) -> Any:
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1), name=name)

    def bias(size: int, name: str) -> Any:
        return tf.Variable(tf.constant(0.1, shape=[size]), name=name)

    def pool(h: Any) -> Any:
        return tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")

    x = tf.reshape(images, [-1, 28, 28, 1])
    h = tf.nn.relu(
        tf.nn.conv2d(x, weight([5, 5, 1, 32], "w1"), [1, 1, 1, 1], "SAME") + bias(32, "b1")
    )
    h = pool(h)
    h = tf.nn.relu(
        tf.nn.conv2d(h, weight([5, 5, 32, 64], "w2"), [1, 1, 1, 1], "SAME") + bias(64, "b2")
    )
    h = tf.reshape(pool(h), [-1, 7 * 7 * 64])
    h = tf.nn.relu(tf.matmul(h, weight([7 * 7 * 64, 256], "w3")) + bias(256, "b3"))
    h = tf.nn.dropout(h, keep_prob)
    logits = tf.matmul(h, weight([256, 10], "w4")) + bias(10, "b4")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    train = tf.train.AdamOptimizer(1e-4).minimize(loss)
    images_value, labels_value = _cnn_batch(rng)
    feed = {images: images_value, labels: labels_value, keep_prob: 0.5}
    return train, loss, feed


def build_rnn(tf: Any, rng: Any, cell_name: str) -> tuple[Any, Any, Any]:
    """A sequence classifier over 28 steps of 28 inputs (MNIST rows); returns (train_op, loss, feed)."""
    dynamic = cell_name.endswith("_dynamic")
    x = tf.placeholder(tf.float32, [None, None if dynamic else RNN_STEPS, RNN_INPUTS], name="x")
    labels = tf.placeholder(tf.float32, [None, 10], name="labels")
    cell = (
        tf.nn.rnn_cell.BasicLSTMCell(RNN_UNITS)
        if cell_name.startswith("lstm")
        else tf.nn.rnn_cell.GRUCell(RNN_UNITS)
    )
    if dynamic:
        # The last step's output, read from the [batch, time, units] outputs.
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        last = outputs[:, -1]
    else:
        outputs, _ = tf.nn.static_rnn(cell, tf.unstack(x, RNN_STEPS, 1), dtype=tf.float32)
        last = outputs[-1]
    w = tf.Variable(tf.random_normal([RNN_UNITS, 10]), name="out_w")
    b = tf.Variable(tf.random_normal([10]), name="out_b")
    logits = tf.matmul(last, w) + b
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    train = tf.train.AdamOptimizer(1e-3).minimize(loss)
    x_value, labels_value = _rnn_batch(rng)
    feed = {x: x_value, labels: labels_value}
    return train, loss, feed


def _one_hot(rng: Any, batch: int) -> Any:
    import numpy as np

    return np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]


def _cnn_batch(rng: Any) -> tuple[Any, Any]:
    """(images [50, 784], one-hot labels [50, 10]), float32."""
    return rng.uniform(0, 1, (CNN_BATCH, 784)).astype("float32"), _one_hot(rng, CNN_BATCH)


def _rnn_batch(rng: Any) -> tuple[Any, Any]:
    """(sequences [64, 28, 28], one-hot labels [64, 10]), float32."""
    x = rng.uniform(0, 1, (RNN_BATCH, RNN_STEPS, RNN_INPUTS)).astype("float32")
    return x, _one_hot(rng, RNN_BATCH)


def _time_steps(step: Callable[[], None], start: float, steps: int) -> dict[str, float]:
    """Runs ``step`` once (the end of the first run, timed from ``start``), three warm-up times,
    then ``steps`` timed times; returns the first run's and the median steady step's seconds."""
    step()
    first = time.perf_counter() - start
    for _ in range(3):
        step()
    samples = []
    for _ in range(steps):
        tick = time.perf_counter()
        step()
        samples.append(time.perf_counter() - tick)
    return {"first": first, "step": statistics.median(samples)}


def _child_graph(system: str, model: str, steps: int, threads: str) -> dict[str, float]:
    """symgrad or TF1: the TF1 graph, ``sess.run([train_op, loss], feed)`` per step."""
    import numpy as np

    if system == "tf1":
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
        tf.logging.set_verbosity(tf.logging.ERROR)
        config = (
            tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
            if threads == "1"
            else None
        )
    else:
        import symgrad as tf  # type: ignore[no-redef]

        config = None
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        if model == "cnn":
            train, loss, feed = build_cnn(tf, rng)
        else:
            train, loss, feed = build_rnn(tf, rng, model)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            return _time_steps(lambda: sess.run([train, loss], feed), start, steps)


def _child_jax(model: str, steps: int, threads: str) -> dict[str, float]:
    """JAX: one jitted step of (params, opt_state, batch), hand-written Adam (TF's update)."""
    if threads == "1":
        # The XLA flag (set in the environment) no longer limits the CPU runtime's threads.
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    rng = np.random.default_rng(0)
    batch = _cnn_batch(rng) if model == "cnn" else _rnn_batch(rng)
    learning_rate = 1e-4 if model == "cnn" else 1e-3
    start = time.perf_counter()
    key = jax.random.PRNGKey(0)
    keys = iter(jax.random.split(key, 9))

    def truncated(shape: tuple[int, ...]) -> jax.Array:
        return 0.1 * jax.random.truncated_normal(next(keys), -2.0, 2.0, shape, jnp.float32)

    def glorot(shape: tuple[int, int]) -> jax.Array:
        limit = float(np.sqrt(6.0 / sum(shape)))
        return jax.random.uniform(next(keys), shape, jnp.float32, -limit, limit)

    def normal(shape: tuple[int, ...]) -> jax.Array:
        return jax.random.normal(next(keys), shape, jnp.float32)

    def cross_entropy(logits: jax.Array, labels: jax.Array) -> jax.Array:
        return -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(logits), axis=-1))

    params: dict[str, jax.Array]
    if model == "cnn":
        params = {
            "w1": truncated((5, 5, 1, 32)),
            "b1": jnp.full((32,), 0.1, jnp.float32),
            "w2": truncated((5, 5, 32, 64)),
            "b2": jnp.full((64,), 0.1, jnp.float32),
            "w3": truncated((7 * 7 * 64, 256)),
            "b3": jnp.full((256,), 0.1, jnp.float32),
            "w4": truncated((256, 10)),
            "b4": jnp.full((10,), 0.1, jnp.float32),
        }

        def conv(x: jax.Array, w: jax.Array) -> jax.Array:
            return lax.conv_general_dilated(
                x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            )

        def pool(x: jax.Array) -> jax.Array:
            return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")

        def loss_fn(p: dict[str, jax.Array], data: tuple[jax.Array, ...], key: jax.Array) -> Any:
            images, labels = data
            h = jnp.reshape(images, (-1, 28, 28, 1))
            h = pool(jax.nn.relu(conv(h, p["w1"]) + p["b1"]))
            h = pool(jax.nn.relu(conv(h, p["w2"]) + p["b2"]))
            h = jax.nn.relu(jnp.reshape(h, (-1, 7 * 7 * 64)) @ p["w3"] + p["b3"])
            keep = jax.random.bernoulli(key, 0.5, h.shape)
            h = jnp.where(keep, h / 0.5, 0.0)
            return cross_entropy(h @ p["w4"] + p["b4"], labels)

    else:
        gates = 4 if model == "lstm" else 2
        params = {
            "kernel": glorot((RNN_INPUTS + RNN_UNITS, gates * RNN_UNITS)),
            "bias": jnp.zeros((gates * RNN_UNITS,), jnp.float32)
            if model == "lstm"
            else jnp.ones((gates * RNN_UNITS,), jnp.float32),
            "out_w": normal((RNN_UNITS, 10)),
            "out_b": normal((10,)),
        }
        if model == "gru":
            params["candidate_kernel"] = glorot((RNN_INPUTS + RNN_UNITS, RNN_UNITS))
            params["candidate_bias"] = jnp.zeros((RNN_UNITS,), jnp.float32)

        def lstm_cell(p: dict[str, jax.Array], carry: Any, x: jax.Array) -> Any:
            c, h = carry
            z = jnp.concatenate([x, h], axis=1) @ p["kernel"] + p["bias"]
            i, j, f, o = jnp.split(z, 4, axis=1)
            c = c * jax.nn.sigmoid(f + 1.0) + jax.nn.sigmoid(i) * jnp.tanh(j)
            h = jnp.tanh(c) * jax.nn.sigmoid(o)
            return (c, h), None

        def gru_cell(p: dict[str, jax.Array], carry: Any, x: jax.Array) -> Any:
            (h,) = carry
            z = jax.nn.sigmoid(jnp.concatenate([x, h], axis=1) @ p["kernel"] + p["bias"])
            r, u = jnp.split(z, 2, axis=1)
            candidate = jnp.tanh(
                jnp.concatenate([x, r * h], axis=1) @ p["candidate_kernel"] + p["candidate_bias"]
            )
            return (u * h + (1.0 - u) * candidate,), None

        def loss_fn(p: dict[str, jax.Array], data: tuple[jax.Array, ...], key: jax.Array) -> Any:
            del key  # no dropout
            x, labels = data
            zeros = jnp.zeros((x.shape[0], RNN_UNITS), jnp.float32)
            cell = lstm_cell if model == "lstm" else gru_cell
            carry = (zeros, zeros) if model == "lstm" else (zeros,)
            carry, _ = lax.scan(lambda c, x_t: cell(p, c, x_t), carry, jnp.swapaxes(x, 0, 1))
            return cross_entropy(carry[-1] @ p["out_w"] + p["out_b"], labels)

    beta1, beta2, epsilon = 0.9, 0.999, 1e-8
    zeros_like = jax.tree_util.tree_map(jnp.zeros_like, params)
    opt_state: dict[str, Any] = {
        "m": zeros_like,
        "v": zeros_like,
        "t": jnp.zeros((), jnp.int32),
        "key": next(keys),
    }

    @jax.jit
    def train_step(p: Any, state: Any, data: tuple[jax.Array, ...]) -> tuple[Any, Any, Any]:
        key, dropout_key = jax.random.split(state["key"])
        loss, grads = jax.value_and_grad(loss_fn)(p, data, dropout_key)
        t = state["t"] + 1
        rate = learning_rate * jnp.sqrt(1.0 - beta2**t) / (1.0 - beta1**t)
        m = jax.tree_util.tree_map(lambda m, g: beta1 * m + (1.0 - beta1) * g, state["m"], grads)
        v = jax.tree_util.tree_map(
            lambda v, g: beta2 * v + (1.0 - beta2) * g * g, state["v"], grads
        )
        p = jax.tree_util.tree_map(lambda w, m, v: w - rate * m / (jnp.sqrt(v) + epsilon), p, m, v)
        return p, {"m": m, "v": v, "t": t, "key": key}, loss

    data = tuple(jnp.asarray(value) for value in batch)
    current: list[Any] = [params, opt_state]

    def step() -> None:
        params, state, loss = train_step(current[0], current[1], data)
        jax.block_until_ready((params, state, loss))
        current[:] = [params, state]

    return _time_steps(step, start, steps)


def _child_torch(model: str, steps: int, threads: str) -> dict[str, float]:
    """PyTorch: native modules, ``loss.backward()`` and ``torch.optim.Adam``."""
    import numpy as np
    import torch
    import torch.nn.functional as F
    from torch import nn

    if threads == "1":
        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    inputs, one_hot = _cnn_batch(rng) if model == "cnn" else _rnn_batch(rng)
    x = torch.from_numpy(inputs)
    labels = torch.from_numpy(one_hot.argmax(axis=1))
    start = time.perf_counter()
    net: nn.Module
    if model == "cnn":

        class Cnn(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.conv1 = nn.Conv2d(1, 32, 5, padding="same")
                self.conv2 = nn.Conv2d(32, 64, 5, padding="same")
                self.dense = nn.Linear(7 * 7 * 64, 256)
                self.out = nn.Linear(256, 10)
                for name, parameter in self.named_parameters():
                    if name.endswith("weight"):
                        nn.init.trunc_normal_(parameter, std=0.1, a=-0.2, b=0.2)
                    else:
                        nn.init.constant_(parameter, 0.1)

            def forward(self, images: torch.Tensor) -> torch.Tensor:
                h = images.reshape(-1, 1, 28, 28)
                h = F.max_pool2d(F.relu(self.conv1(h)), 2, 2)
                h = F.max_pool2d(F.relu(self.conv2(h)), 2, 2)
                h = F.relu(self.dense(h.flatten(1)))
                return self.out(F.dropout(h, 0.5, training=self.training))  # type: ignore[no-any-return]

        net = Cnn()
        learning_rate = 1e-4
    else:

        class Rnn(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                kind = nn.LSTM if model == "lstm" else nn.GRU
                self.rnn = kind(RNN_INPUTS, RNN_UNITS, batch_first=True)
                self.out = nn.Linear(RNN_UNITS, 10)
                for name, parameter in self.rnn.named_parameters():
                    if name.startswith("weight"):
                        nn.init.xavier_uniform_(parameter)
                    else:
                        nn.init.zeros_(parameter)
                nn.init.normal_(self.out.weight)
                nn.init.normal_(self.out.bias)

            def forward(self, sequences: torch.Tensor) -> torch.Tensor:
                outputs, _ = self.rnn(sequences)
                return self.out(outputs[:, -1])  # type: ignore[no-any-return]

        net = Rnn()
        learning_rate = 1e-3
    net.train()
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)

    def step() -> None:
        optimizer.zero_grad()
        loss = F.cross_entropy(net(x), labels)
        loss.backward()
        optimizer.step()
        loss.item()

    return _time_steps(step, start, steps)


def child(system: str, model: str, steps: int, threads: str) -> dict[str, float]:
    """Runs in the fresh process: builds the model, times the first and the steady steps."""
    if system == "jax":
        return _child_jax(model, steps, threads)
    if system == "torch":
        return _child_torch(model, steps, threads)
    return _child_graph(system, model, steps, threads)


def _environment(system: str, threads: str) -> dict[str, str]:
    environment = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1")
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(HERE), environment.get("PYTHONPATH", "")]
    )
    if system == "jax":
        environment["JAX_PLATFORMS"] = "cpu"
    if threads == "1":
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            environment[name] = "1"
        if system == "jax":
            environment["XLA_FLAGS"] = (
                "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
            )
    return environment


def measure(python: str, system: str, model: str, steps: int, threads: str) -> dict[str, float]:
    command = [python, __file__, "--child", system, model, str(steps), threads]
    done = subprocess.run(
        command, capture_output=True, text=True, env=_environment(system, threads), check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{system} {model} failed:\n{done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _available(tf_python: str | None) -> list[str]:
    """symgrad; tf1 with ``--tf-python``; jax and torch when this Python imports them."""
    found = ["symgrad"]
    if tf_python:
        found.append("tf1")
    found.extend(name for name in ("jax", "torch") if importlib.util.find_spec(name) is not None)
    return found


def _tables(runs: dict[tuple[str, str], list[dict[str, float]]], models: list[str]) -> list[str]:
    """The steady-step table (with the symgrad / other ratios) and the first-run table."""

    def median(system: str, model: str, key: str) -> float | None:
        results = runs.get((system, model))
        return statistics.median(r[key] for r in results) if results else None

    def milliseconds(value: float | None) -> str:
        return "—" if value is None else f"{value * 1e3:.1f} ms"

    def seconds(value: float | None) -> str:
        return "—" if value is None else f"{value:.2f} s"

    others = SYSTEMS[1:]
    step_header = [f"{TITLES[s]} step" for s in SYSTEMS] + [
        f"symgrad / {TITLES[s]}" for s in others
    ]
    lines = [
        "| model | " + " | ".join(step_header) + " |",
        "|---|" + "---:|" * len(step_header),
    ]
    for model in models:
        steps = {system: median(system, model, "step") for system in SYSTEMS}
        ours = steps["symgrad"]
        ratios = []
        for system in others:
            theirs = steps[system]
            if ours is None or theirs is None:
                ratios.append("—")
            else:
                ratio = f"{ours / theirs:.2f}×"
                ratios.append(f"**{ratio}**" if system == "tf1" else ratio)
        cells = [milliseconds(steps[system]) for system in SYSTEMS] + ratios
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    first_header = [f"{TITLES[s]} first run" for s in SYSTEMS]
    lines += ["", "| model | " + " | ".join(first_header) + " |", "|---|" + "---:|" * len(SYSTEMS)]
    for model in models:
        cells = [seconds(median(system, model, "first")) for system in SYSTEMS]
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--tf-python", help="a Python that imports tensorflow")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument(
        "--systems",
        help=f"comma-separated, of {','.join(SYSTEMS)} (default: all available: symgrad, tf1 "
        "with --tf-python, jax and torch when this Python imports them)",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--threads", choices=("1", "default"), default="1")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    if args.child:
        system, model, steps, threads = args.child
        print(json.dumps(child(system, model, int(steps), threads)))
        return
    from workloads.report import machine_info

    chosen = args.systems.split(",") if args.systems else _available(args.tf_python)
    unknown = sorted(set(chosen) - set(SYSTEMS))
    if unknown:
        parser.error(f"unknown systems: {', '.join(unknown)}")
    if "tf1" in chosen and not args.tf_python:
        parser.error("--systems tf1 needs --tf-python")
    pythons = {"tf1": args.tf_python or ""}
    systems = {
        system: pythons.get(system, sys.executable) for system in SYSTEMS if system in chosen
    }
    models = args.models.split(",")
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    for round_index in range(args.rounds):
        for model in models:
            for system, python in systems.items():
                if model in GRAPH_ONLY_MODELS and system not in ("symgrad", "tf1"):
                    continue
                result = measure(python, system, model, args.steps, args.threads)
                runs.setdefault((system, model), []).append(result)
                print(
                    f"round {round_index + 1} {model:5s} {system:8s} "
                    f"first {result['first']:.2f} s  step {result['step'] * 1e3:.1f} ms",
                    flush=True,
                )
    info = machine_info()
    lines = [
        f"`python benchmarks/train_step.py {' '.join(sys.argv[1:])}` on {info['cpu']} "
        f"(SIMD {info['simd']}), threads: {args.threads}; medians over {args.rounds} rounds "
        f"of fresh processes, each the median of {args.steps} steady steps.",
        "",
        *_tables(runs, models),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text)


if __name__ == "__main__":
    main()
