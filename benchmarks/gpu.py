"""symgrad's portable form on a GPU: CuPy and PyTorch-on-CUDA against NumPy on the CPU.

Run from the repository root on a machine with a CUDA GPU:

    pip install -e '.[torch]' cupy-cuda12x       # whichever of the two you have
    python benchmarks/gpu.py                      # W2 and W3 sizes, 25 repeats
    python benchmarks/gpu.py --repeats 100 --scale 10

Workloads: W2, the tutorial's linear regression on 100,000 float64 values (``--scale``
multiplies the rows), and W3, the 784-256-256-10 tanh MLP with softmax cross-entropy on a
batch of 128 (``--scale`` multiplies the batch). The same graph is compiled once in the NumPy
fast form (timed on the CPU) and once in the portable form (``backend="array_api"``), which
runs on CuPy arrays and on PyTorch CUDA tensors. Each GPU result is checked against the
NumPy one before it is timed; times synchronize the device after each call. Without a GPU
(or without CuPy and PyTorch) the script says so and exits with status 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import symgrad as sg
from symgrad.backends.namespaces import to_numpy


def devices() -> dict[str, tuple[Callable[[np.ndarray], Any], Callable[[], None]]]:
    """name -> (move a NumPy array to the GPU, wait for the GPU), for each GPU library here."""
    found: dict[str, tuple[Callable[[np.ndarray], Any], Callable[[], None]]] = {}
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            found["cupy"] = (cupy.asarray, cupy.cuda.Device().synchronize)
    except Exception:  # no CuPy, no driver, no device: all mean "not here"
        pass
    try:
        import torch

        if torch.cuda.is_available():
            found["torch-cuda"] = (
                lambda a: torch.asarray(a, device="cuda"),
                torch.cuda.synchronize,
            )
    except ImportError:
        pass
    return found


def linear_regression(rows: int) -> tuple[list[Any], list[Any], list[np.ndarray]]:
    rng = np.random.default_rng(0)
    x = sg.placeholder(sg.float64, shape=[rows], name="x_input")
    y = sg.placeholder(sg.float64, shape=[rows], name="y_input")
    w = sg.Variable(2.0, dtype=sg.float64, name="weight")
    b = sg.Variable(1.0, dtype=sg.float64, name="biases")
    loss = sg.reduce_sum((y - (x * w + b)) ** 2) / (2 * rows)
    values = [rng.uniform(-10, 100, rows), rng.uniform(-30, 300, rows), np.float64(2.0)]
    return [loss, *sg.gradients(loss, [w, b])], [x, y, w, b], [*values, np.float64(1.0)]


def mlp(batch: int) -> tuple[list[Any], list[Any], list[np.ndarray]]:
    rng = np.random.default_rng(0)
    images = sg.placeholder(sg.float32, shape=[batch, 784], name="images")
    labels = sg.placeholder(sg.int32, shape=[batch], name="labels")
    activations, width, params, values = images, 784, [], []
    for layer, size in enumerate((256, 256, 10), start=1):
        weights = (rng.standard_normal((width, size)) / np.sqrt(width)).astype(np.float32)
        params += [sg.Variable(weights, name=f"W{layer}"), sg.Variable(np.zeros(size, np.float32))]
        values += [weights, np.zeros(size, np.float32)]
        activations = sg.matmul(activations, params[-2]) + params[-1]
        activations = sg.tanh(activations) if size != 10 else activations
        width = size
    loss = sg.reduce_mean(
        sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=activations)
    )
    data = [rng.standard_normal((batch, 784)).astype(np.float32), rng.integers(0, 10, batch)]
    return [loss, *sg.gradients(loss, params)], [images, labels, *params], [*data, *values]


def timed(call: Callable[[], Any], wait: Callable[[], None], repeats: int) -> float:
    call()
    wait()  # the first call compiles kernels; it is not timed
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        wait()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def measure(
    title: str,
    make: Callable[[], tuple[list[Any], list[Any], list[np.ndarray]]],
    found: dict[str, tuple[Callable[[np.ndarray], Any], Callable[[], None]]],
    repeats: int,
) -> None:
    """Time one workload: the NumPy fast form on the CPU, the portable form on each device."""
    with sg.Graph().as_default():
        outputs, inputs, values = make()
        fast = sg.compile(outputs, inputs=inputs, name="gpu_fast")
        portable = sg.compile(outputs, inputs=inputs, name="gpu_portable", backend="array_api")
    want = fast(*values)
    cpu = timed(lambda: fast(*values), lambda: None, repeats)
    print(f"{title}: NumPy fast form on the CPU {cpu * 1e3:.3f} ms")
    for name, (move, wait) in found.items():
        moved = [move(np.asarray(v)) for v in values]
        got = portable(*moved)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(to_numpy(g), w, rtol=1e-4, atol=1e-6)
        seconds = timed(lambda moved=moved: portable(*moved), wait, repeats)
        print(f"{title}: portable form on {name} {seconds * 1e3:.3f} ms ({cpu / seconds:.2f}x)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=25)
    parser.add_argument("--scale", type=int, default=1, help="multiply W2's rows, W3's batch")
    parser.add_argument(
        "--cpu-stand-in",
        action="store_true",
        help="also time PyTorch CPU tensors (checks this script on a machine without a GPU)",
    )
    arguments = parser.parse_args(argv)
    found = devices()
    if arguments.cpu_stand_in:
        import torch

        found["torch-cpu"] = (torch.asarray, lambda: None)
    if not found:
        print(
            "benchmarks/gpu.py: no CUDA GPU is present (or neither CuPy nor PyTorch with CUDA "
            "is installed); nothing to measure."
        )
        return 0
    workloads = {
        "W2 linear regression": lambda: linear_regression(100_000 * arguments.scale),
        "W3 MLP": lambda: mlp(128 * arguments.scale),
    }
    for title, make in workloads.items():
        measure(title, make, found, arguments.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
