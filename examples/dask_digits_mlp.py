"""The digits MLP's gradient, data-parallel on a Dask cluster.

The model is ``examples/digits_models.py``'s 64-64-64-10 tanh MLP with softmax
cross-entropy. Its loss and gradients are compiled once in the portable form
(``backend="array_api"``). The training images are shuffled once and kept on the cluster's
workers in chunks of ``--batch / --workers`` rows; each step's batch is ``--workers`` such
chunks, so every worker computes its chunk's part of the forward and backward pass, and the
gradient's sums over the batch become tree reductions across workers. The driver holds only
the parameters (about 9,000 numbers) and applies gradient descent to them.

Run:  python examples/dask_digits_mlp.py [--workers 2] [--epochs 20] [--scheduler ADDRESS]
Needs: pip install 'symgrad[dask]' scikit-learn
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import dask
import dask.array as da
import numpy as np
from _cluster import dask_client
from digits_models import build, load_digits

import symgrad as sg

OUTPUT = Path(os.environ.get("SYMGRAD_EXAMPLES_OUTPUT", Path(__file__).resolve().parent / "output"))


def graph() -> list[sg.Tensor]:
    """The MLP's loss and its gradients (``symgrad compile examples/dask_digits_mlp.py:graph``
    compiles them without starting a cluster)."""
    model = build(hidden=(64, 64))
    return [model["loss"], *sg.gradients(model["loss"], model["params"])]


def compile_modules(
    backend: str = "array_api",
) -> tuple[sg.CompiledModule, sg.CompiledModule, list[np.ndarray]]:
    """(loss-and-gradients module in ``backend``'s form, NumPy logits module, initial
    parameter values)."""
    with sg.Graph().as_default():
        model = build(hidden=(64, 64))
        params = model["params"]
        gradients = sg.gradients(model["loss"], params)
        step = sg.compile(
            [model["loss"], *gradients],
            inputs=[model["images"], model["labels"], *params],
            name=f"dask_digits_mlp_{backend}",
            path=OUTPUT / f"dask_digits_mlp_{backend}.py",
            backend=backend,
        )
        logits = sg.compile(
            model["logits"],
            inputs=[model["images"], *params],
            name="dask_digits_mlp_logits",
            path=OUTPUT / "dask_digits_mlp_logits.py",
        )
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            values = sess.run(params)
    return step, logits, values


def fit(arguments: argparse.Namespace) -> int:
    x_train, y_train, x_test, y_test = load_digits()
    step, logits, params = compile_modules()
    print(f"generated code: {step.path}")
    chunk = arguments.batch // arguments.workers
    order = np.random.default_rng(1).permutation(len(x_train))
    # Shuffled once, scattered to the workers once: a batch is `workers` consecutive chunks.
    images = da.from_array(x_train[order], chunks=(chunk, 64)).persist()
    labels = da.from_array(y_train[order].astype(np.int32), chunks=chunk).persist()
    batches = range(0, len(order) - arguments.batch + 1, arguments.batch)

    if arguments.check:
        got = dask.compute(
            *step(images[: arguments.batch], labels[: arguments.batch], *map(da.asarray, params))
        )
        fast = compile_modules(backend="numpy")[0]
        want = fast(
            x_train[order][: arguments.batch],
            y_train[order][: arguments.batch].astype(np.int32),
            *params,
        )
        difference = max(
            float(np.max(np.abs(g - w)) / max(np.max(np.abs(w)), 1e-300))
            for g, w in zip(got, want, strict=True)
        )
        print(f"check: largest relative difference from the NumPy fast form {difference:.2e}")
        if difference > 1e-12:
            print("check failed: more than 1e-12", file=sys.stderr)
            return 1

    started = time.perf_counter()
    for epoch in range(arguments.epochs):
        for start in batches:
            end = start + arguments.batch
            # The parameters travel with the task graph (one small chunk each), the data does not.
            loss, *gradients = dask.compute(
                *step(images[start:end], labels[start:end], *map(da.asarray, params))
            )
            params = [
                p - arguments.learning_rate * g for p, g in zip(params, gradients, strict=True)
            ]
        accuracy = float(np.mean(np.argmax(logits(x_test, *params), axis=1) == y_test))
        print(f"epoch: {epoch} \t batch loss: {float(loss):.4f} \t test accuracy: {accuracy:.1%}")
    seconds = time.perf_counter() - started
    steps = arguments.epochs * len(batches)
    print(
        f"{steps} data-parallel gradient steps in {seconds:.1f} s ({seconds / steps * 1e3:.0f} ms each)"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--learning-rate", type=float, default=0.5)
    parser.add_argument("--scheduler", help="address of a running scheduler (no LocalCluster)")
    parser.add_argument("--check", action="store_true", help="compare with the NumPy fast form")
    arguments = parser.parse_args(argv)
    with dask_client(arguments.scheduler, arguments.workers):
        return fit(arguments)


if __name__ == "__main__":
    sys.exit(main())
