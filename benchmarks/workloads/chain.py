"""W4: a deep chain z = tanh(z * w_k + b_k) with scalar parameters, value and all 2*depth gradients.

Also how compile time grows with depth (graph + gradients + compile, a fresh process per depth).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from . import graphs, peers, portable
from .harness import (
    Candidate,
    Outputs,
    Prepared,
    Settings,
    WorkloadResult,
    register_group,
    run_candidates,
)

RTOL = 1e-6


def make_problem(layers: int, n: int) -> tuple:
    """(x, ws, bs): weights near 1 and small biases, so that gradients neither vanish nor explode."""
    rng = np.random.default_rng(2)
    ws = rng.uniform(0.8, 1.2, layers)
    bs = rng.normal(0.0, 0.1, layers)
    x = rng.uniform(-2.0, 2.0, n)
    return x, ws, bs


def build_chain_graph(api: Any, ws: np.ndarray, bs: np.ndarray) -> tuple:
    """(x, [w_0..w_L-1, b_0..b_L-1], loss): one scalar variable per weight and per bias."""
    x = api.placeholder(api.float64, shape=[None], name="x")
    weights, biases, z = [], [], x
    for k, (w_value, b_value) in enumerate(zip(ws, bs, strict=False)):
        w = api.Variable(float(w_value), dtype=api.float64, name=f"w{k}")
        b = api.Variable(float(b_value), dtype=api.float64, name=f"b{k}")
        weights.append(w)
        biases.append(b)
        z = api.tanh(z * w + b)
    return x, weights + biases, api.reduce_sum(z)


def chain_builder(ws: np.ndarray, bs: np.ndarray) -> graphs.Builder:
    def build(api: Any) -> graphs.GraphModel:
        x, params, loss = build_chain_graph(api, ws, bs)
        return graphs.GraphModel([x], params, loss, api.gradients(loss, params))

    return build


def regroup(gradients: list[Any]) -> list[np.ndarray]:
    """2*L scalar gradients (weights, then biases) -> [d ws, d bs], the hand-written layout."""
    half = len(gradients) // 2
    return [
        np.array(gradients[:half], dtype=np.float64),
        np.array(gradients[half:], dtype=np.float64),
    ]


def chain_loss(layers: int) -> peers.Loss:
    def loss(ops: peers.ArrayOps, params: list[Any], data: list[Any]) -> Any:
        (ws, bs), (z,) = params, data
        for k in range(layers):
            z = ops.tanh(z * ws[k] + bs[k])
        return ops.sum(z)

    return loss


def chain_naive(x: np.ndarray, ws: np.ndarray, bs: np.ndarray) -> Outputs:
    """The obvious backprop: keep every layer's output, walk back multiplying local derivatives."""
    zs = [x]
    for w, b in zip(ws, bs, strict=False):
        zs.append(np.tanh(zs[-1] * w + b))
    upstream = np.ones_like(x)
    d_ws, d_bs = np.empty(len(ws)), np.empty(len(bs))
    for k in reversed(range(len(ws))):
        d_pre = upstream * (1 - zs[k + 1] ** 2)
        d_ws[k] = np.sum(d_pre * zs[k])
        d_bs[k] = np.sum(d_pre)
        upstream = d_pre * ws[k]
    return np.sum(zs[-1]), [d_ws, d_bs]


class ChainWorkspace:
    """Buffers allocated once: the optimized backprop then allocates nothing per call."""

    def __init__(self, layers: int, n: int) -> None:
        self.outputs = np.empty((layers, n))  # outputs[k] = z after layer k
        self.d_pre = np.empty(n)
        self.upstream = np.empty(n)

    def run(self, x: np.ndarray, ws: np.ndarray, bs: np.ndarray) -> Outputs:
        outputs, d_pre, upstream = self.outputs, self.d_pre, self.upstream
        for k in range(len(ws)):
            z = outputs[k]
            np.multiply(x if k == 0 else outputs[k - 1], ws[k], out=z)
            z += bs[k]
            np.tanh(z, out=z)
        d_ws, d_bs = np.empty(len(ws)), np.empty(len(bs))
        upstream.fill(1.0)
        for k in reversed(range(len(ws))):
            np.multiply(outputs[k], outputs[k], out=d_pre)
            np.subtract(1.0, d_pre, out=d_pre)
            d_pre *= upstream
            d_ws[k] = d_pre @ (x if k == 0 else outputs[k - 1])
            d_bs[k] = d_pre.sum()
            np.multiply(d_pre, ws[k], out=upstream)
        return outputs[-1].sum(), [d_ws, d_bs]


def _numpy_candidate(
    key: str, name: str, function: Callable[..., Outputs], problem: tuple, reference: bool = False
) -> Candidate:
    def prepare() -> Prepared:
        call = lambda: function(*problem)  # noqa: E731
        return Prepared(call=call, evaluate=call)

    return Candidate(key, "numpy", name, prepare, reference=reference)


def optimized_candidate(layers: int, n: int) -> Candidate:
    # The workspace is allocated when the system is built, not with the candidate list: a worker
    # process builds that whole list, and freeing memory it never uses would change how its
    # allocator treats the arrays of the system it does time.
    def prepare() -> Prepared:
        problem, workspace = make_problem(layers, n), ChainWorkspace(layers, n)
        call = lambda: workspace.run(*problem)  # noqa: E731
        return Prepared(call=call, evaluate=call)

    return Candidate(
        "numpy-optimized", "numpy", "NumPy hand-optimized backprop (in place)", prepare
    )


def naive_candidate(layers: int, n: int) -> Candidate:
    return _numpy_candidate(
        "numpy", "NumPy naive backprop", chain_naive, make_problem(layers, n), reference=True
    )


def symgrad_candidates(
    layers: int, n: int, settings: Settings, forward: bool = True
) -> list[Candidate]:
    x, ws, bs = make_problem(layers, n)
    builder, values = chain_builder(ws, bs), [*ws, *bs]
    candidates = graphs.symgrad_candidates(
        builder, [x], values, settings, f"w4_chain{layers}", regroup
    )
    if forward:
        candidates.append(
            graphs.symgrad_forward_candidate(builder, [x], values, settings, f"w4_chain{layers}")
        )
    return candidates


@register_group("W4")
def w4_candidates(settings: Settings) -> list[Candidate]:
    layers, n = settings.sizes.chain_layers, settings.sizes.chain_n
    x, ws, bs = make_problem(layers, n)
    problem = peers.Problem(chain_loss(layers), [ws, bs], [x], np.float64)
    return [
        naive_candidate(layers, n),
        optimized_candidate(layers, n),
        *symgrad_candidates(layers, n, settings),
        graphs.tf1_candidate(chain_builder(ws, bs), [x], regroup),
        *peers.functional_candidates(problem),
        portable.jax_jit_candidate(
            chain_builder(ws, bs), [x], [*ws, *bs], settings, f"w4_chain{layers}", regroup
        ),
        portable.jax_jit_candidate(
            chain_builder(ws, bs),
            [x],
            [*ws, *bs],
            settings,
            f"w4_chain{layers}",
            regroup,
            packed=[layers, layers],
        ),
    ]


def run_w4(settings: Settings) -> list[WorkloadResult]:
    layers, n = settings.sizes.chain_layers, settings.sizes.chain_n
    result = WorkloadResult(
        id="W4",
        title=f"W4: {layers}-layer chain z = tanh(z*w_k + b_k) over {n:,} float64 values",
        description=f"loss = reduce_sum(z) with the {2 * layers} gradients of the scalar parameters "
        "(JAX, TF2, PyTorch and autograd hold them as two vectors).",
        reference_name="NumPy naive backprop",
    )
    result.rows = run_candidates("W4", settings, rtol=RTOL)
    full, forward = result.row("symgrad"), result.row("symgrad-forward")
    if full and forward:
        result.extras["cheap_gradient_ratio"] = full.seconds / forward.seconds  # type: ignore[operator]
    result.extras["compile"] = compile_times(settings)
    return [result]


# Compiles per depth; the fastest counts (the others only add a scheduler's or a disk's hiccups).
COMPILE_RUNS = 3


def compile_times(settings: Settings) -> dict[str, Any]:
    """Seconds to build, differentiate and compile the chain at two depths, and their ratio.

    Every compile runs in a fresh process: in one process, the second depth would find the
    first one's layers in SymPy's cache, and the ratio would flatter.
    """
    small, large = settings.sizes.compile_layers
    runs = 1 if settings.smoke else COMPILE_RUNS
    depths = {
        str(layers): min(
            (_compile_probe(layers, settings) for _ in range(runs)), key=lambda d: d["total_s"]
        )
        for layers in (small, large)
    }
    return {
        "depths": depths,
        "ratio_large_to_small": depths[str(large)]["total_s"] / depths[str(small)]["total_s"],
        "large": large,
        "small": small,
        "method": f"fastest of {runs} compiles, each in a fresh process",
    }


def _compile_probe(layers: int, settings: Settings) -> dict[str, Any]:
    command = [
        sys.executable,
        str(settings.script),
        "--compile-probe",
        str(layers),
        "--codegen-dir",
        str(settings.work_dir),
    ]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if completed.returncode != 0:
        raise RuntimeError(f"compiling {layers} layers failed: {completed.stderr.strip()[-500:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def measure_compile(layers: int, settings: Settings) -> dict[str, Any]:
    import symgrad as sg

    _, ws, bs = make_problem(layers, 1)
    with sg.Graph().as_default():
        start = time.perf_counter()
        x, params, loss = build_chain_graph(sg, ws, bs)
        built = time.perf_counter()
        gradients = sg.gradients(loss, params)
        differentiated = time.perf_counter()
        compiled = sg.compile(
            [loss, *gradients],
            inputs=[x, *params],
            name=f"w4_compile{layers}",
            path=settings.work_dir / f"w4_compile{layers}.py",
        )
        done = time.perf_counter()
    return {
        "layers": layers,
        "graph_s": built - start,
        "gradients_s": differentiated - built,
        "compile_s": done - differentiated,
        "total_s": done - start,
        "lines": compiled.source.count("\n"),
    }
