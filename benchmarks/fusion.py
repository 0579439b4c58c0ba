"""What fused elementwise kernels would gain on W4, measured rather than guessed.

W4 is the 100-layer chain ``z = tanh(z * w_k + b_k)`` over 10,000 float64 values
(``benchmarks/workloads/chain.py``). symgrad's fast form runs, per layer, 3 NumPy passes
forward (multiply, add, ``tanh``) and 3 backward plus a dot and a sum. A fused kernel
would do each direction in one pass. This script times, side by side in one process
(interleaved rounds, medians):

- the hand-optimized NumPy backprop (the reference) and symgrad's generated module;
- numba, one fused loop per layer and direction (``tanh`` from numba, i.e. libm's);
- numba, the whole chain in one kernel (no Python between layers);
- numba for the cheap passes only, with NumPy's ``tanh`` in between;
- numexpr, one expression per layer and direction where it can (its own ``tanh``);
- ``tanh`` alone on 10,000 values, NumPy's and numba's;

and reports what each would cost: the packages' installed size, ``import`` time in a
fresh process, and compile time of the kernels (numba compiles at the first call).
numba and numexpr are not symgrad dependencies; the rows of a missing one are left out.

Run:  python benchmarks/fusion.py [--repeats N] [--smoke]
Writes the table to benchmarks/results/fusion.md as well (not with ``--smoke``, which runs
a 5-layer chain of 100 values once, to check the script).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workloads import chain  # noqa: E402  (the benchmarks folder is not a package)
from workloads.report import machine_info, simd_line  # noqa: E402

RESULTS = HERE / "results" / "fusion.md"
LAYERS, SIZE = 100, 10_000  # W4's sizes
Outputs = tuple[float, list[np.ndarray]]


def symgrad_system(x: np.ndarray, ws: np.ndarray, bs: np.ndarray, folder: Path) -> tuple:
    """(call, compile seconds) of symgrad's fast form of W4, compiled into ``folder``."""
    import symgrad as sg

    start = time.perf_counter()
    with sg.Graph().as_default():
        model = chain.chain_builder(ws, bs)(sg)
        compiled = sg.compile(
            [model.loss, *model.gradients],
            inputs=model.feeds + model.params,
            name="w4_fusion",
            path=folder / "w4_fusion.py",
        )
    seconds = time.perf_counter() - start
    values = [np.float64(v) for v in (*ws, *bs)]

    def call() -> Outputs:
        loss, *gradients = compiled.function(x, *values)
        return loss, chain.regroup(gradients)

    return call, seconds


def numba_systems(x: np.ndarray, ws: np.ndarray, bs: np.ndarray) -> dict[str, tuple]:
    """name -> (call, compile seconds) of the numba variants; {} without numba."""
    if importlib.util.find_spec("numba") is None:
        return {}
    import numba

    @numba.njit
    def layer_forward(z_in: Any, w: float, b: float, z_out: Any) -> None:
        for i in range(z_in.shape[0]):
            z_out[i] = np.tanh(z_in[i] * w + b)

    @numba.njit
    def layer_affine(z_in: Any, w: float, b: float, z_out: Any) -> None:
        for i in range(z_in.shape[0]):
            z_out[i] = z_in[i] * w + b

    @numba.njit
    def layer_backward(t: Any, z_in: Any, upstream: Any, w: float) -> tuple[float, float]:
        # d = upstream * (1 - t**2); d w = d . z_in; d b = sum(d); upstream <- d * w
        d_w = d_b = 0.0
        for i in range(t.shape[0]):
            d = upstream[i] * (1.0 - t[i] * t[i])
            d_w += d * z_in[i]
            d_b += d
            upstream[i] = d * w
        return d_w, d_b

    @numba.njit
    def whole_chain(x: Any, ws: Any, bs: Any, zs: Any, upstream: Any, d_ws: Any, d_bs: Any) -> Any:
        for k in range(ws.shape[0]):
            z_in = x if k == 0 else zs[k - 1]
            for i in range(x.shape[0]):
                zs[k, i] = np.tanh(z_in[i] * ws[k] + bs[k])
        upstream[:] = 1.0
        for k in range(ws.shape[0] - 1, -1, -1):
            z_in = x if k == 0 else zs[k - 1]
            d_w = d_b = 0.0
            for i in range(x.shape[0]):
                d = upstream[i] * (1.0 - zs[k, i] * zs[k, i])
                d_w += d * z_in[i]
                d_b += d
                upstream[i] = d * ws[k]
            d_ws[k], d_bs[k] = d_w, d_b
        return zs[-1].sum()

    zs, upstream = np.empty((len(ws), x.size)), np.empty(x.size)

    def backward() -> list[np.ndarray]:
        d_ws, d_bs = np.empty(len(ws)), np.empty(len(bs))
        upstream.fill(1.0)
        for k in reversed(range(len(ws))):
            z_in = x if k == 0 else zs[k - 1]
            d_ws[k], d_bs[k] = layer_backward(zs[k], z_in, upstream, ws[k])
        return [d_ws, d_bs]

    def fused_layers() -> Outputs:
        for k in range(len(ws)):
            layer_forward(x if k == 0 else zs[k - 1], ws[k], bs[k], zs[k])
        return zs[-1].sum(), backward()

    def numpy_tanh() -> Outputs:
        for k in range(len(ws)):
            layer_affine(x if k == 0 else zs[k - 1], ws[k], bs[k], zs[k])
            np.tanh(zs[k], out=zs[k])
        return zs[-1].sum(), backward()

    def one_kernel() -> Outputs:
        d_ws, d_bs = np.empty(len(ws)), np.empty(len(bs))
        loss = whole_chain(x, ws, bs, zs, upstream, d_ws, d_bs)
        return loss, [d_ws, d_bs]

    systems = {}
    for name, call in (
        ("numba, one fused loop per layer and direction", fused_layers),
        ("numba, the whole chain in one kernel", one_kernel),
        ("numba for the cheap passes, NumPy's tanh", numpy_tanh),
    ):
        start = time.perf_counter()
        call()  # compiles the kernels it uses for the first time
        systems[name] = (call, time.perf_counter() - start)
    single, out = np.random.default_rng(2).standard_normal(x.size), np.empty(x.size)
    systems[f"tanh of {x.size:,} values: numba (libm)"] = (
        lambda: layer_forward(single, 1.0, 0.0, out),
        0.0,
    )
    return systems


def numexpr_system(x: np.ndarray, ws: np.ndarray, bs: np.ndarray) -> dict[str, tuple]:
    if importlib.util.find_spec("numexpr") is None:
        return {}
    import numexpr

    numexpr.set_num_threads(1)
    zs, upstream, d = np.empty((len(ws), x.size)), np.empty(x.size), np.empty(x.size)

    def call() -> Outputs:
        for k in range(len(ws)):
            z_in, w, b = x if k == 0 else zs[k - 1], ws[k], bs[k]  # noqa: F841 (read by name)
            numexpr.evaluate("tanh(z_in * w + b)", out=zs[k])
        d_ws, d_bs = np.empty(len(ws)), np.empty(len(bs))
        upstream.fill(1.0)
        for k in reversed(range(len(ws))):
            t, u = zs[k], upstream  # noqa: F841 (read by name)
            numexpr.evaluate("u * (1 - t * t)", out=d)
            d_ws[k] = d @ (x if k == 0 else zs[k - 1])
            d_bs[k] = d.sum()
            np.multiply(d, ws[k], out=upstream)
        return zs[-1].sum(), [d_ws, d_bs]

    start = time.perf_counter()
    call()
    return {"numexpr, one expression per layer and direction": (call, time.perf_counter() - start)}


def package_cost(names: list[str]) -> str:
    """Installed size of ``names`` (from their file lists) and ``import`` time in a fresh process."""
    size = 0
    for name in names:
        try:
            files = importlib.metadata.files(name) or []
        except importlib.metadata.PackageNotFoundError:
            return f"{' + '.join(names)}: not installed"
        size += sum(f.size or 0 for f in files if f.hash is not None)
    probe = (
        f"import time; t = time.perf_counter(); import {names[0]}; print(time.perf_counter() - t)"
    )
    seconds = float(
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True
        ).stdout
    )
    return f"{' + '.join(names)}: {size / 2**20:.0f} MiB installed, import {seconds:.2f} s"


def check(name: str, outputs: Outputs, reference: Outputs) -> None:
    loss, gradients = outputs
    if not np.isclose(loss, reference[0], rtol=1e-9) or not all(
        np.allclose(g, r, rtol=1e-9, atol=1e-12)
        for g, r in zip(gradients, reference[1], strict=True)
    ):
        raise AssertionError(
            f"{name}: the value or gradients differ from the hand-written backprop"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument("--smoke", action="store_true", help="a tiny chain, once, no results file")
    args = parser.parse_args()
    layers, size = (5, 100) if args.smoke else (LAYERS, SIZE)
    repeats = 1 if args.smoke else args.repeats
    x, ws, bs = chain.make_problem(layers, size)
    workspace = chain.ChainWorkspace(layers, size)
    reference = "NumPy hand-optimized backprop (in place)"
    systems: dict[str, tuple[Callable[[], Any], float]] = {
        reference: (lambda: workspace.run(x, ws, bs), 0.0)
    }
    with tempfile.TemporaryDirectory() as folder:
        systems["symgrad fast form"] = symgrad_system(x, ws, bs, Path(folder))
        systems.update(numba_systems(x, ws, bs))
        systems.update(numexpr_system(x, ws, bs))
        single, out = np.random.default_rng(2).standard_normal(size), np.empty(size)
        systems[f"tanh of {size:,} values: NumPy"] = (lambda: np.tanh(single, out=out), 0.0)
        expected = systems[reference][0]()
        for name, (call, _) in systems.items():
            if not name.startswith("tanh"):
                check(name, call(), expected)
        samples: dict[str, list[float]] = {name: [] for name in systems}
        for _ in range(repeats):
            for name, (call, _) in systems.items():
                number = 200 if name.startswith("tanh") else 5
                samples[name].append(min(timeit.repeat(call, number=number, repeat=3)) / number)
    medians = {name: statistics.median(times) for name, times in samples.items()}
    lines = [
        "# Fused elementwise kernels on W4: measured",
        "",
        f"`python benchmarks/fusion.py --repeats {repeats}`; {simd_line()}",
        f"{layers} layers over {size:,} float64 values, value and {2 * layers} gradients; medians "
        f"of {repeats} interleaved rounds in one process, each the best of 3 timings. "
        "Every row's value and gradients match the hand-written backprop (rtol 1e-9).",
        "",
        "| system | per call | ratio to hand-optimized NumPy | build |",
        "|---|---:|---:|---:|",
    ]
    # The whole-program rows first, then the two tanh rows side by side.
    for name, (_, compile_seconds) in sorted(
        systems.items(), key=lambda item: item[0].startswith("tanh")
    ):
        ratio = "" if name.startswith("tanh") else f"{medians[name] / medians[reference]:.2f}×"
        per_call = medians[name] * (1e6 if name.startswith("tanh") else 1e3)
        unit = "µs" if name.startswith("tanh") else "ms"
        first = f"{compile_seconds:.2f} s" if compile_seconds else "—"
        lines.append(f"| {name} | {per_call:.2f} {unit} | {ratio} | {first} |")
    lines += [
        "",
        "Build: symgrad's graph + gradients + compile; numba's and numexpr's first call, which "
        "compiles the kernels that no row above has compiled already.",
        "",
        "Dependency cost:",
        "",
        f"- {package_cost(['numba', 'llvmlite'])}",
        f"- {package_cost(['numexpr'])}",
        "",
        f"Machine: {machine_info()['cpu']}, NumPy {np.__version__}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.smoke:
        RESULTS.write_text(text)


if __name__ == "__main__":
    main()
