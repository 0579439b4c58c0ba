"""The seed's linear regression on a dataset no single process holds, with Dask.

The model and the loop are the tutorial's (``examples/linear_regression.py``): ``y = x *
weight + biases``, the loss ``reduce_sum((y_input - y)**2) / (2 * rows)`` and plain gradient
descent. What changes is the data: ``--rows`` samples (default 100 million) generated
chunk by chunk with ``dask.array.random`` on the workers of a ``dask.distributed`` cluster,
never gathered in one process. symgrad compiles the loss and its gradients once, in the
portable form (``backend="array_api"``); each step calls that module on the Dask arrays,
which builds a task graph (elementwise work per chunk, sums as tree reductions), and
``dask.compute`` runs it on the cluster. Only three numbers per step come back.

Run:
    python examples/dask_linear_regression.py                      # 2-worker LocalCluster
    python examples/dask_linear_regression.py --rows 2_000_000 --check
    python examples/dask_linear_regression.py --scheduler tcp://host:8786   # a real cluster

``--check`` also computes the first step's gradient with the NumPy fast form on the gathered
data (only for sizes that fit in memory) and prints their largest relative difference.
``--compare-numpy`` times a gradient step of the NumPy fast form on the same rows in memory.
Needs: pip install 'symgrad[dask]'
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import dask
import dask.array as da
import numpy as np
from _cluster import dask_client
from dask.distributed import Client

import symgrad as sg

OUTPUT = Path(os.environ.get("SYMGRAD_EXAMPLES_OUTPUT", Path(__file__).resolve().parent / "output"))


def make_data(rows: int, chunk: int, seed: int = 0) -> tuple[da.Array, da.Array]:
    """The tutorial's data, ``rows`` long: x near an integer in [-10, 100), y = 3x + 2 + noise.

    Every chunk is drawn on the worker that computes it.
    """
    rng = da.random.default_rng(seed)
    x_pure = rng.integers(-10, 100, rows, chunks=chunk).astype(np.float64)
    x = x_pure + rng.standard_normal(rows, chunks=chunk) / 32
    y = 3 * x_pure + 2 + rng.standard_normal(rows, chunks=chunk) / 32
    return x, y


def graph(rows: int = 32) -> dict[str, sg.Tensor]:
    """The tutorial's graph for ``rows`` samples: its loss and gradients.

    float64 (the tutorial feeds float32): a sum over 100 million float32 squares keeps only a
    few correct digits. ``symgrad compile examples/dask_linear_regression.py:graph`` compiles
    it without starting a cluster.
    """
    x_input = sg.placeholder(sg.float64, shape=[rows], name="x_input")
    y_input = sg.placeholder(sg.float64, shape=[rows], name="y_input")
    w = sg.Variable(2.0, dtype=sg.float64, name="weight")
    b = sg.Variable(1.0, dtype=sg.float64, name="biases")
    y = sg.add(sg.multiply(x_input, w), b)
    loss = sg.reduce_sum(sg.pow(y_input - y, 2)) / (2 * rows)
    grad_w, grad_b = sg.gradients(loss, [w, b])
    return {"loss": loss, "grad_w": grad_w, "grad_b": grad_b}


def compile_step(rows: int, backend: str, name: str) -> sg.CompiledModule:
    """``graph(rows)`` compiled in ``backend``'s form; called as (x, y, weight, biases)."""
    with sg.Graph().as_default():
        outputs = graph(rows)
        return sg.compile(
            [outputs["loss"], outputs["grad_w"], outputs["grad_b"]],
            name=name,
            path=OUTPUT / f"{name}.py",
            backend=backend,
        )


def worker_peak_memory(client: Client) -> dict[str, int]:
    """Each worker process's peak resident memory so far, in bytes (Linux: ru_maxrss in KiB)."""
    return client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=100_000_000)
    parser.add_argument("--chunk", type=lambda s: int(s.replace("_", "")), default=2_000_000)
    parser.add_argument("--steps", type=int, default=10)
    # The tutorial's 0.01 diverges on 100 million rows at once: mean(x^2) is about 3,000.
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    parser.add_argument("--scheduler", help="address of a running scheduler (no LocalCluster)")
    parser.add_argument("--check", action="store_true", help="compare with the NumPy fast form")
    parser.add_argument(
        "--compare-numpy", action="store_true", help="time the NumPy fast form in memory"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    with dask_client(arguments.scheduler, arguments.workers) as client:
        return fit(arguments, client)


def fit(arguments: argparse.Namespace, client: Client) -> int:
    """Generate the data on the cluster, train on it, print figures; 1 if --check fails."""
    rows = arguments.rows
    print(f"cluster: {client}")
    started = time.perf_counter()
    step = compile_step(rows, "array_api", "dask_linear_regression")
    print(f"generated code: {step.path} ({time.perf_counter() - started:.1f} s)")

    x, y = make_data(rows, min(arguments.chunk, rows))
    # Generated once on the workers and kept there, spread over them chunk by chunk.
    started = time.perf_counter()
    x, y = dask.persist(x, y)
    dask.compute(x.sum(), y.sum())  # wait for the data, so that the steps below time gradients
    print(f"data: {rows:,} rows in {x.numblocks[0]} chunks, {time.perf_counter() - started:.1f} s")

    weight, biases = np.float64(2.0), np.float64(1.0)
    first = None
    started = time.perf_counter()
    for i in range(arguments.steps):
        # The module builds the task graph; compute runs it on the cluster.
        loss, grad_w, grad_b = dask.compute(*step(x, y, weight, biases))
        if first is None:
            first = (float(grad_w), float(grad_b))
        print(f"step: {i} \t loss: {float(loss):.6f} \t gradients: [{float(grad_w):.6f}]")
        weight = weight - arguments.learning_rate * grad_w
        biases = biases - arguments.learning_rate * grad_b
    seconds = (time.perf_counter() - started) / max(arguments.steps, 1)
    print(f"weight = {weight:.4f}, biases = {biases:.4f}")
    print(f"dask: {seconds:.3f} s per gradient step, {rows / seconds / 1e6:.1f} million rows/s")
    peaks = worker_peak_memory(client)
    print(
        "peak memory per worker: "
        + ", ".join(f"{peak / 2**20:.0f} MiB" for peak in sorted(peaks.values()))
    )

    if arguments.check or arguments.compare_numpy:
        x_host, y_host = dask.compute(x, y)
        fast = compile_step(rows, "numpy", "dask_linear_regression_numpy")
        if arguments.check:
            _, want_w, want_b = fast(x_host, y_host, np.float64(2.0), np.float64(1.0))
            difference = max(
                abs(first[0] - want_w) / abs(want_w), abs(first[1] - want_b) / abs(want_b)
            )
            print(f"check: largest relative difference from the NumPy fast form {difference:.2e}")
            if difference > 1e-12:
                print("check failed: more than 1e-12", file=sys.stderr)
                return 1
        if arguments.compare_numpy:
            fast(x_host, y_host, weight, biases)  # warm up
            started = time.perf_counter()
            for _ in range(arguments.steps):
                fast(x_host, y_host, weight, biases)
            local = (time.perf_counter() - started) / max(arguments.steps, 1)
            print(
                f"numpy fast form in memory: {local:.3f} s per gradient step, "
                f"{rows / local / 1e6:.1f} million rows/s"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
