"""W5: the obvious SymPy approach on the W1 and W4 models, against hand-written NumPy and symgrad.

One SymPy expression for the loss (elementwise in the data, summed afterwards), ``sympy.diff``
for each parameter, ``sympy.lambdify(..., modules="numpy", cse=True)``. It runs in a subprocess
(``run.py --sympy-probe W1|W4``) under a time cap, since on deep models it may not finish at all.
The probe prints one JSON line per finished stage, so a capped run still says how far it got.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np

from . import chain, graphs, linear
from .harness import (
    Candidate,
    DidNotFinish,
    Prepared,
    Settings,
    TimingStats,
    WorkloadResult,
    register_group,
    run_candidates,
    time_per_call,
)

STAGES = ("expression", "diff", "lambdify")


def run_w5(settings: Settings) -> list[WorkloadResult]:
    layers, n = settings.sizes.chain_layers, settings.sizes.chain_n
    w1 = WorkloadResult(
        id="W5-W1",
        title="W5 on W1: SymPy lambdify vs symgrad, the seed's linear regression step",
        description="One SymPy expression for W1's loss, sympy.diff per parameter, "
        "lambdify(modules='numpy', cse=True); float32 inputs.",
        reference_name="NumPy hand-written",
    )
    w1.rows = run_candidates("W5-W1", settings, rtol=linear.FLOAT32_RTOL)
    w4 = WorkloadResult(
        id="W5-W4",
        title=f"W5 on W4: SymPy lambdify vs symgrad, {layers}-layer tanh chain over {n:,} values",
        description="One SymPy expression for z (elementwise in x), sympy.diff for each of the "
        f"{2 * layers} parameters, lambdify(modules='numpy', cse=True), then np.sum of each.",
        reference_name="NumPy naive backprop",
    )
    w4.rows = run_candidates("W5-W4", settings, rtol=chain.RTOL)
    for result in (w1, w4):
        result.notes.append(
            f"SymPy runs in a subprocess capped at {settings.sympy_cap_seconds:g} s."
        )
    return [w1, w4]


@register_group("W5-W1")
def w5_w1_candidates(settings: Settings) -> list[Candidate]:
    return [
        linear.w1_handwritten_candidate(),
        *graphs.symgrad_candidates(
            linear.build_w1, linear.w1_feed(), linear.W1_INITIAL, settings, "w5_w1"
        ),
        sympy_candidate("W1", settings),
    ]


@register_group("W5-W4")
def w5_w4_candidates(settings: Settings) -> list[Candidate]:
    layers, n = settings.sizes.chain_layers, settings.sizes.chain_n
    return [
        chain.naive_candidate(layers, n),
        *chain.symgrad_candidates(layers, n, settings, forward=False),
        sympy_candidate("W4", settings),
    ]


# --- the parent's side: run the probe under the cap ---------------------------------------------


def sympy_candidate(model: str, settings: Settings) -> Candidate:
    def prepare() -> Prepared:
        command = [
            sys.executable,
            str(settings.script),
            "--sympy-probe",
            model,
            "--repeats",
            str(settings.repeats),
        ]
        if settings.smoke:
            command.append("--smoke")
        try:
            completed = subprocess.run(
                command, capture_output=True, text=True, timeout=settings.sympy_cap_seconds
            )
        except subprocess.TimeoutExpired as expired:
            raise DidNotFinish(_unfinished_message(expired, settings.sympy_cap_seconds)) from None
        if completed.returncode != 0:
            raise RuntimeError((completed.stderr.strip().splitlines() or ["no output"])[-1])
        report = json.loads(completed.stdout.strip().splitlines()[-1])
        outputs = (report["loss"], [np.asarray(g) for g in report["gradients"]])
        stages = ", ".join(f"{name} {report['stages'][name]:.2f} s" for name in STAGES)
        notes = "".join(f" ({note})" for note in report["notes"])
        return Prepared(
            call=None,
            evaluate=lambda: outputs,
            build_seconds=report["build_seconds"],
            timing=TimingStats(**report["timing"]),
            note=f"build = {stages}{notes}",
        )

    return Candidate("sympy", "sympy", "SymPy diff + lambdify(cse=True)", prepare)


def _unfinished_message(expired: subprocess.TimeoutExpired, cap: float) -> str:
    output = (
        expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
    )
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    finished = [f"{line['stage']} {line['seconds']:.1f} s" for line in lines if "stage" in line]
    running = STAGES[len(finished)] if len(finished) < len(STAGES) else "timing"
    notes = "".join(f"; {line['note']}" for line in lines if "note" in line)
    return (
        f"did not finish in {cap:g} s (finished: {', '.join(finished) or 'nothing'}; "
        f"still running: {running}{notes})"
    )


# --- the probe's side, in its own process ---------------------------------------------------------

# Deep expressions make SymPy recurse once per level; past Python's default limit (1,000) the
# probe raises it, on a thread whose stack is large enough for that depth.
DEEP_RECURSION_LIMIT = 200_000
DEEP_STACK_BYTES = 1 << 30


def sympy_probe(model: str, settings: Settings) -> dict[str, Any]:
    """Build, check and time the SymPy version of ``model``, printing a JSON line per finished stage."""
    outcome: dict[str, Any] = {}

    def probe() -> None:
        outcome.update(_probe(model, settings))

    threading.stack_size(DEEP_STACK_BYTES)
    worker = threading.Thread(target=probe)
    worker.start()
    worker.join()
    if not outcome:
        raise SystemExit("the SymPy probe failed (see above)")
    return outcome


def _probe(model: str, settings: Settings) -> dict[str, Any]:
    import sympy as sp

    stages: dict[str, float] = {}
    notes: list[str] = []

    def stage(name: str, function: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        value = function()
        stages[name] = time.perf_counter() - start
        print(json.dumps({"stage": name, "seconds": stages[name]}), flush=True)
        return value

    def differentiate() -> list[Any]:
        try:
            return [sp.diff(expression, p) for p in params]
        except RecursionError:  # what the obvious code meets first on a deep model
            note = (
                f"sympy.diff raised RecursionError at Python's default recursion limit "
                f"({sys.getrecursionlimit()}); retried at {DEEP_RECURSION_LIMIT:,}"
            )
            notes.append(note)
            print(json.dumps({"note": note}), flush=True)
            sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
            return [sp.diff(expression, p) for p in params]

    inputs, params, loss, feed, values, reduce, regroup = _model(model, settings)
    expression = stage("expression", loss)
    gradients = stage("diff", differentiate)
    function = stage(
        "lambdify",
        lambda: sp.lambdify(
            [*inputs, *params], [expression, *gradients], modules="numpy", cse=True
        ),
    )

    def call() -> Any:
        return [reduce(value) for value in function(*feed(), *values)]

    loss_value, *gradient_values = call()
    timing = time_per_call(call, settings)
    return {
        "model": model,
        "stages": stages,
        "build_seconds": sum(stages.values()),
        "notes": notes,
        "timing": asdict(timing),
        "loss": float(loss_value),
        "gradients": [np.asarray(g, dtype=np.float64).tolist() for g in regroup(gradient_values)],
    }


def _model(model: str, settings: Settings) -> tuple:
    """(input symbols, parameter symbols, loss builder, feed, parameter values, reduce, regroup)."""
    import sympy as sp

    if model == "W1":
        x, y, w, b = sp.symbols("x_input y_input weight biases")
        feed_values = linear.w1_feed()

        def feed() -> list[np.ndarray]:  # converted each call, like every W1 system
            return [np.asarray(v, dtype=np.float32) for v in feed_values]

        return (
            [x, y],
            [w, b],
            lambda: (y - (x * w + b)) ** 2 / 64,
            feed,
            linear.W1_INITIAL,
            lambda v: v,
            list,
        )
    if model == "W4":
        layers, n = settings.sizes.chain_layers, settings.sizes.chain_n
        data, ws, bs = chain.make_problem(layers, n)
        x = sp.Symbol("x")
        w_symbols, b_symbols = sp.symbols(f"w0:{layers}"), sp.symbols(f"b0:{layers}")

        def loss() -> Any:
            z = x
            for w, b in zip(w_symbols, b_symbols, strict=False):
                z = sp.tanh(z * w + b)
            return z

        return (
            [x],
            [*w_symbols, *b_symbols],
            loss,
            lambda: [data],
            [*ws, *bs],
            np.sum,
            chain.regroup,
        )
    raise SystemExit(f"--sympy-probe: unknown model {model!r} (W1 or W4)")
