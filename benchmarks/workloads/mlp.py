"""W3: a tanh MLP with softmax cross-entropy (the model of tests/test_models.py), value and all gradients.

Besides time, the peak resident memory of one value-and-gradients call, generated against
hand-written, each measured in a fresh process (``memory_probe``, run as
``run.py --memory-probe W3 SYSTEM``).
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
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

RTOL = 1e-6


def make_problem(sizes: Sizes) -> tuple:
    """(data [images, one-hot labels], params [W1, b1, W2, b2, ...]), initialised as the tests do."""
    rng = np.random.default_rng(0)
    params = []
    for n_in, n_out in zip(sizes.mlp_layers, sizes.mlp_layers[1:], strict=False):
        params += [rng.standard_normal((n_in, n_out)) * 0.05, rng.standard_normal(n_out) * 0.1]
    classes = sizes.mlp_layers[-1]
    images = rng.standard_normal((sizes.mlp_batch, sizes.mlp_layers[0]))
    labels = np.eye(classes)[rng.integers(0, classes, sizes.mlp_batch)]
    return [images, labels], params


def mlp_builder(
    sizes: Sizes, param_values: Sequence[np.ndarray], batch: int | None = None
) -> graphs.Builder:
    """The MLP's graph; images and labels are ``[None, ...]`` as TF1 programs write them, or
    ``[batch, ...]``."""

    def build(api: Any) -> graphs.GraphModel:
        x = api.placeholder(api.float64, [batch, sizes.mlp_layers[0]], name="images")
        y = api.placeholder(api.float64, [batch, sizes.mlp_layers[-1]], name="labels")
        params, h = [], x
        layers = len(param_values) // 2
        for layer in range(1, layers + 1):
            w = api.Variable(param_values[2 * layer - 2], name=f"W{layer}")
            b = api.Variable(param_values[2 * layer - 1], name=f"b{layer}")
            params += [w, b]
            h = h @ w + b
            if layer < layers:
                h = api.tanh(h)
        loss = api.reduce_mean(api.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
        return graphs.GraphModel([x, y], params, loss, api.gradients(loss, params))

    return build


def mlp_loss(ops: peers.ArrayOps, params: list[Any], data: list[Any]) -> Any:
    h, labels = data
    layers = len(params) // 2
    for layer in range(layers):
        h = h @ params[2 * layer] + params[2 * layer + 1]
        if layer < layers - 1:
            h = ops.tanh(h)
    return -ops.mean(ops.sum(labels * ops.log_softmax(h), axis=1))


def backprop(x: np.ndarray, labels: np.ndarray, params: Sequence[np.ndarray]) -> Outputs:
    """Hand-written forward and backward pass, as one would write it from the textbook."""
    weights, biases = params[0::2], params[1::2]
    activations = [x]
    for w, b in zip(weights[:-1], biases[:-1], strict=False):
        activations.append(np.tanh(activations[-1] @ w + b))
    logits = activations[-1] @ weights[-1] + biases[-1]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -np.mean(np.sum(labels * log_p, axis=1))
    delta = (np.exp(log_p) - labels) / len(x)
    gradients: list[np.ndarray] = []
    for layer in reversed(range(len(weights))):
        gradients[:0] = [activations[layer].T @ delta, delta.sum(0)]
        if layer:
            delta = (delta @ weights[layer].T) * (1 - activations[layer] ** 2)
    return loss, gradients


def _backprop_candidate(data: list[np.ndarray], params: list[np.ndarray]) -> Candidate:
    def prepare() -> Prepared:
        images, labels = data
        call = lambda: backprop(images, labels, params)  # noqa: E731
        return Prepared(call=call, evaluate=call)

    return Candidate("numpy", "numpy", "NumPy hand-written backprop", prepare, reference=True)


@register_group("W3")
def w3_candidates(settings: Settings) -> list[Candidate]:
    data, params = make_problem(settings.sizes)
    builder = mlp_builder(settings.sizes, params)
    return [
        _backprop_candidate(data, params),
        *graphs.symgrad_candidates(builder, data, params, settings, "w3_mlp"),
        graphs.symgrad_forward_candidate(builder, data, params, settings, "w3_mlp"),
        graphs.symgrad_shape_candidate(
            "symgrad-static",
            "symgrad, static batch size",
            mlp_builder(settings.sizes, params, settings.sizes.mlp_batch),
            data,
            params,
            settings,
            "w3_mlp_static",
        ),
        graphs.tf1_candidate(builder, data),
        *peers.functional_candidates(peers.Problem(mlp_loss, params, data, np.float64)),
    ]


def run_w3(settings: Settings) -> list[WorkloadResult]:
    sizes = settings.sizes
    shape = "-".join(map(str, sizes.mlp_layers))
    result = WorkloadResult(
        id="W3",
        title=f"W3: {shape} tanh MLP, softmax cross-entropy, batch {sizes.mlp_batch}, float64",
        description="Mean softmax cross-entropy with the values of all 6 gradients (weights and biases).",
        reference_name="NumPy hand-written backprop",
    )
    result.rows = run_candidates("W3", settings, rtol=RTOL)
    full, forward = result.row("symgrad"), result.row("symgrad-forward")
    if full and forward:
        result.extras["cheap_gradient_ratio"] = full.seconds / forward.seconds  # type: ignore[operator]
    modules = {
        row.key: graphs.module_path(settings, "w3_mlp", row.key)
        for row in result.rows
        if row.system == "symgrad" and row.key != "symgrad-forward" and row.seconds
    }
    result.extras["memory"] = measure_memory(settings, modules)
    return [result]


# --- peak memory, each system in a fresh process -------------------------------------------------

# A fixed mmap threshold: every array past 64 KiB is its own mapping, returned to the system when
# freed. Without it glibc raises the threshold as arrays are freed, so later arrays come from a heap
# that setup already grew, and a call's peak hides behind memory freed before it started.
PROBE_ENVIRONMENT = {"MALLOC_MMAP_THRESHOLD_": "65536"}


def measure_memory(settings: Settings, modules: dict[str, Path]) -> dict[str, Any]:
    """Peak RSS increase of one call, hand-written and generated (``modules``), and their ratio."""
    systems: dict[str, Path | None] = {"numpy": None}
    systems.update(modules)
    measured = {system: _run_probe(settings, system, path) for system, path in systems.items()}
    memory: dict[str, Any] = {
        "method": "peak RSS (VmHWM) after one call minus before it, the peak reset "
        "to the current RSS just before the call; a fresh process per "
        "system, the same setup and BLAS warm-up in each",
        "systems": measured,
    }
    handwritten = measured["numpy"].get("increase_kb")
    generated = measured.get("symgrad", {}).get("increase_kb")
    if handwritten and generated is not None:
        memory["ratio_symgrad_to_handwritten"] = generated / handwritten
    return memory


def _run_probe(settings: Settings, system: str, module: Path | None) -> dict[str, Any]:
    command = [sys.executable, str(settings.script), "--memory-probe", "W3", system]
    if module is not None:
        command += ["--module", str(module)]
    if settings.smoke:
        command.append("--smoke")
    completed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **PROBE_ENVIRONMENT},
    )
    if completed.returncode != 0:
        return {
            "error": completed.stderr.strip().splitlines()[-1:]
            or ["exit code " + str(completed.returncode)]
        }
    return json.loads(completed.stdout.strip().splitlines()[-1])


def memory_probe(system: str, module: Path | None, sizes: Sizes) -> dict[str, Any]:
    """In this (fresh) process: the peak RSS increase of one value-and-gradients call of ``system``."""
    data, params = make_problem(sizes)
    call = _probe_call(system, module, data, params)
    # The same warm-up for every system: BLAS's buffers get touched with the model's own shapes,
    # so that their first use is not counted against whichever system runs first.
    backprop(data[0], data[1], params)
    increases, baselines, maxrss_increases = [], [], []
    peak_reset = False
    for _ in range(3):  # the first call is the one reported; two more show it is not a fluke
        gc.collect()
        peak_reset = _reset_peak_rss()
        before, maxrss_before = _peak_rss_kb(), _ru_maxrss_kb()
        call()
        increases.append(_peak_rss_kb() - before)
        maxrss_increases.append(_ru_maxrss_kb() - maxrss_before)
        baselines.append(before)
    tracemalloc.start()  # NumPy reports its array allocations to tracemalloc: a second, exact view
    call()
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "system": system,
        "baseline_kb": baselines[0],
        "increase_kb": increases[0],
        "increase_kb_repeats": increases,
        "peak_reset": peak_reset,
        "ru_maxrss_before_kb": maxrss_before,
        "ru_maxrss_increase_kb_repeats": maxrss_increases,
        "tracemalloc_peak_bytes": traced_peak,
    }


def _probe_call(
    system: str, module: Path | None, data: list[np.ndarray], params: list[np.ndarray]
) -> Callable[[], Any]:
    if system == "numpy":
        return lambda: backprop(data[0], data[1], params)
    if module is None:
        raise SystemExit(f"--memory-probe W3 {system} needs --module PATH (a generated module)")
    # Import the generated file directly: it needs only NumPy, so symgrad and SymPy stay unloaded.
    spec = importlib.util.spec_from_file_location(module.stem, module)
    assert spec is not None and spec.loader is not None
    generated = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generated)
    function = getattr(generated, module.stem)
    return lambda: function(*data, *params)


def _peak_rss_kb() -> int:
    """This process's peak resident memory so far, KiB.

    VmHWM (Linux) rather than ru_maxrss: across fork + exec a child's ru_maxrss starts at its
    parent's peak (the kernel folds the pre-exec memory into it), so in a probe started from a
    runner holding TensorFlow and JAX it reads a gigabyte before the probe has done anything.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return _ru_maxrss_kb()  # KiB on Linux; elsewhere the best there is


def _ru_maxrss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _reset_peak_rss() -> bool:
    """Lower the peak mark to the current RSS (Linux), so setup's transients do not mask the call."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False
