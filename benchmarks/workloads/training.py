"""W6-train, W7 and W8: one Adam training step through ``Session.run``, against TF1, JAX and
PyTorch, the first run (building, gradients, compiling) beside the steady step.

W6-train is the MNIST CNN of TF1's tutorials (conv 5x5x32 - pool - conv 5x5x64 - pool - dense
256 with dropout - dense 10, batch 50), W7 an LSTM classifier (``BasicLSTMCell(128)``,
``static_rnn`` over 28 steps of 28 inputs, batch 64), W8 the same with ``GRUCell(128)``. The
models and the timing are ``benchmarks/train_step.py``'s: each system runs in a fresh process
of its own, rounds interleaved, one thread, and gives the median of its steady steps. Each
system trains from its own random initial weights, so their losses are not compared; the
reference is TF1's ``Session.run`` (TensorFlow from ``SYMGRAD_BENCH_TF_PYTHON``, a Python that
imports it, or this one). A smoke run leaves them out: a process per system and model, with
TensorFlow's and JAX's start-up, is more than a check of the runner needs.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys

import train_step

from .harness import Row, Settings, WorkloadResult

# The reference first; systems and the module that must import for each.
SYSTEMS = {"tf1": "tensorflow", "symgrad": "symgrad", "jax": "jax", "torch": "torch"}
NAMES = {
    "tf1": "TF1 Session.run",
    "symgrad": "symgrad Session.run",
    "jax": "JAX, one jitted step (Adam by hand, TF's update)",
    "torch": "PyTorch, its own modules and torch.optim.Adam",
}
ROUNDS, STEPS = 3, 30


def _python_for(system: str) -> str | None:
    """The Python that runs ``system``, or None when none here imports it."""
    if system == "tf1":
        given = os.environ.get("SYMGRAD_BENCH_TF_PYTHON")
        if given:
            return given
    return sys.executable if importlib.util.find_spec(SYSTEMS[system]) is not None else None


def _run(settings: Settings, workload: str, model: str, title: str) -> list[WorkloadResult]:
    result = WorkloadResult(
        id=workload,
        title=title,
        description="One Adam step, sess.run([train_op, loss], feed) (or each library's own "
        "training step), float32; per call: the median over fresh processes of each one's "
        f"median of {STEPS} steady steps; build: the first run, from building the graph to the "
        "end of the first step.",
        reference_name=NAMES["tf1"],
    )
    systems = [s for s in SYSTEMS if settings.wants(s)]
    pythons = {s: _python_for(s) for s in systems}
    runs: dict[str, list[dict[str, float]]] = {}
    for _ in range(ROUNDS):
        for system in systems:
            python = pythons[system]
            if python is not None:
                runs.setdefault(system, []).append(
                    train_step.measure(python, system, model, STEPS, "1")
                )
    steps = {s: statistics.median(r["step"] for r in found) for s, found in runs.items()}
    for system in systems:
        if system not in runs:
            what = SYSTEMS[system]
            result.rows.append(
                Row(
                    system,
                    system,
                    NAMES[system],
                    "skipped",
                    "not run",
                    note=f"{what} is not importable here (pip install -e '.[bench]'"
                    + ("; or SYMGRAD_BENCH_TF_PYTHON" if system == "tf1" else "")
                    + ")",
                )
            )
            continue
        reference = steps.get("tf1")
        result.rows.append(
            Row(
                system,
                system,
                NAMES[system],
                "ok",
                "not compared (each system's own initial weights)",
                seconds=steps[system],
                ratio=steps[system] / reference if reference else None,
                reference=system == "tf1",
                build_seconds=statistics.median(r["first"] for r in runs[system]),
                first_call_seconds=statistics.median(r["first"] for r in runs[system]),
            )
        )
    return [result]


def run_w6_train(settings: Settings) -> list[WorkloadResult]:
    return _run(
        settings,
        "W6-train",
        "cnn",
        "W6-train: the MNIST CNN's Adam training step, batch 50, float32",
    )


def run_w7(settings: Settings) -> list[WorkloadResult]:
    return _run(
        settings,
        "W7",
        "lstm",
        "W7: LSTM classifier (BasicLSTMCell(128), static_rnn over 28 steps, batch 64), Adam step",
    )


def run_w8(settings: Settings) -> list[WorkloadResult]:
    return _run(
        settings,
        "W8",
        "gru",
        "W8: GRU classifier (GRUCell(128), static_rnn over 28 steps, batch 64), Adam step",
    )
