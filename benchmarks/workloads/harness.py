"""What every workload shares: sizes, settings, timing, gradient checks, result rows."""

from __future__ import annotations

import gc
import math
import resource
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

# (loss, gradients): gradients is None for a forward-only system, which checks the loss alone.
Outputs = tuple[Any, list[Any] | None]

# Every system family --systems can name; "numpy" (the reference) always runs.
SYSTEMS = ("numpy", "symgrad", "tf1", "tf2", "jax", "torch", "autograd", "sympy")


@dataclass(frozen=True)
class Sizes:
    """Problem sizes; FULL is what the acceptance ratios are about, SMOKE only proves the runner works."""

    linear_n: int  # W2: elements of x and y
    mlp_layers: tuple[int, ...]  # W3: layer widths, input first
    mlp_batch: int
    chain_layers: int  # W4: depth of z = tanh(z * w_k + b_k)
    chain_n: int  # W4: elements of z
    compile_layers: tuple[int, int]  # W4: compile time at these two depths
    cnn_batch: int  # W6: images per batch
    cnn_side: int  # W6: image height and width (a multiple of 4)
    cnn_channels: tuple[int, int]  # W6: output channels of the two convolutions


FULL = Sizes(
    linear_n=100_000,
    mlp_layers=(784, 256, 256, 10),
    mlp_batch=128,
    chain_layers=100,
    chain_n=10_000,
    compile_layers=(100, 1000),
    cnn_batch=64,
    cnn_side=28,
    cnn_channels=(32, 64),
)
SMOKE = Sizes(
    linear_n=1_000,
    mlp_layers=(16, 8, 8, 4),
    mlp_batch=8,
    chain_layers=5,
    chain_n=1_000,
    compile_layers=(5, 20),
    cnn_batch=4,
    cnn_side=8,
    cnn_channels=(2, 3),
)


@dataclass
class Settings:
    sizes: Sizes
    smoke: bool
    repeats: int  # timing samples per system; the median is reported
    sample_seconds: (
        float  # each sample loops the call at least this long, so µs calls beat timer noise
    )
    warmup_seconds: float
    systems: frozenset  # system families to run (always with "numpy")
    sympy_cap_seconds: float
    work_dir: Path  # where generated modules of this run are written
    script: Path  # benchmarks/run.py, re-run in subprocesses for the probes
    isolated: bool = True  # each system in a process of its own (workloads/isolation.py)
    # The allocator's state when a system starts: "fresh" (a new process) or "warmed" (the
    # process first allocated and freed large arrays, as a program does before it trains).
    allocator: str = "fresh"

    def wants(self, system: str) -> bool:
        return system == "numpy" or system in self.systems


def warm_allocator() -> None:
    """Allocate and free arrays of the sizes other work would: glibc then raises its mmap and
    trim thresholds (to 32 MiB at most) and keeps freed memory mapped, so arrays of up to that
    size no longer fault their pages in afresh on each call."""
    for megabytes in (1, 4, 16, 30):
        block = np.ones(megabytes << 17)  # 8-byte values
        del block


class PeerUnavailable(Exception):
    """A peer framework is not importable: its rows are skipped with this message."""


class DidNotFinish(Exception):
    """A system ran past its time cap (the SymPy baseline)."""


@dataclass
class TimingStats:
    median: float
    minimum: float
    q1: float
    q3: float
    samples: int
    calls_per_sample: int
    # Minor page faults per call (median over samples): memory the allocator had to map afresh.
    page_faults: float | None = None
    # CPU seconds per call of the system's process (median over samples): on a machine shared
    # with other jobs, wall-clock samples include waiting for a core, CPU time does not.
    cpu_median: float | None = None

    @classmethod
    def from_samples(
        cls,
        samples: Sequence[float],
        calls_per_sample: int,
        page_faults: Sequence[float] = (),
        cpu_seconds: Sequence[float] = (),
    ) -> TimingStats:
        ordered = sorted(samples)
        quartiles = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else [ordered[0]] * 3
        return cls(
            median=statistics.median(ordered),
            minimum=ordered[0],
            q1=quartiles[0],
            q3=quartiles[2],
            samples=len(ordered),
            calls_per_sample=calls_per_sample,
            page_faults=statistics.median(page_faults) if page_faults else None,
            cpu_median=statistics.median(cpu_seconds) if cpu_seconds else None,
        )


@dataclass
class Prepared:
    """A system ready to run: ``call`` is timed, ``evaluate`` gives outputs for the gradient check."""

    call: Callable[[], Any] | None
    evaluate: Callable[[], Outputs]
    build_seconds: float | None = None
    # Systems that compile lazily on the first call (JAX, tf.function, TF1 sessions): their build time
    # is build_seconds + first call - steady call.
    first_call_seconds: float | None = None
    # Systems timed in their own process (the SymPy baseline) bring their timing along.
    timing: TimingStats | None = None
    note: str = ""


@dataclass
class Candidate:
    key: str  # unique within a workload, used by the acceptance summary
    system: str  # family, for --systems
    name: str  # row label
    prepare: Callable[[], Prepared]
    reference: bool = False


@dataclass
class Row:
    key: str
    system: str
    name: str
    status: str  # ok | gradients differ | skipped | did not finish | error
    gradient_check: str  # ok | loss only: ok | reference | the mismatch | not run
    seconds: float | None = None
    timing: dict[str, Any] | None = None
    build_seconds: float | None = None
    ratio: float | None = None
    reference: bool = False
    note: str = ""
    first_call_seconds: float | None = None  # systems that compile on their first call


@dataclass
class WorkloadResult:
    id: str
    title: str
    description: str
    reference_name: str
    rows: list[Row] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def row(self, key: str) -> Row | None:
        return next((r for r in self.rows if r.key == key and r.status == "ok"), None)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Sampler(Protocol):
    """A system to time: ``calibrate`` warms it up and sizes a sample; ``sample`` times one."""

    def calibrate(self) -> int: ...

    def sample(self, calls: int) -> tuple[float, float, float]: ...


@dataclass
class InProcess:
    """A call timed in this process."""

    call: Callable[[], Any]
    settings: Settings

    def calibrate(self) -> int:
        return calls_per_sample(self.call, self.settings)

    def sample(self, calls: int) -> tuple[float, float, float]:
        return sample(self.call, calls)


def time_per_call(call: Callable[[], Any], settings: Settings) -> TimingStats:
    """Median seconds per call over ``settings.repeats`` samples, after a warm-up."""
    timing = time_round_robin({"call": InProcess(call, settings)}, settings)["call"]
    if isinstance(timing, Exception):
        raise timing
    return timing


def time_round_robin(
    samplers: dict[str, Sampler], settings: Settings
) -> dict[str, TimingStats | Exception]:
    """Median seconds per call of each system, its samples taken in turn with the others'.

    One sample of each system, then the next round, rather than all of one system's samples and
    then the next system's: on a shared machine a burst of background load then lands on every
    system alike, and the ratios hold where absolute times drift. A system that raises drops out
    with its exception.
    """
    results: dict[str, TimingStats | Exception] = {}
    batches: dict[str, int] = {}
    for name, sampler in samplers.items():
        try:
            batches[name] = sampler.calibrate()
        except Exception as error:  # reported in that system's row, not fatal to the run
            results[name] = error
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in batches}
    gc.collect()
    gc.disable()  # as timeit does: a collection inside one sample is noise, not the system's cost
    try:
        for _ in range(settings.repeats):
            for name in [n for n in batches if n not in results]:
                try:
                    samples[name].append(samplers[name].sample(batches[name]))
                except Exception as error:  # the same
                    results[name] = error
    finally:
        gc.enable()
    for name, batch in batches.items():
        results.setdefault(name, stats_of(samples[name], batch))
    return results


def stats_of(samples: Sequence[tuple[float, float, float]], calls_per_sample: int) -> TimingStats:
    return TimingStats.from_samples(
        [s for s, _, _ in samples],
        calls_per_sample,
        page_faults=[f for _, _, f in samples],
        cpu_seconds=[c for _, c, _ in samples],
    )


def calls_per_sample(call: Callable[[], Any], settings: Settings) -> int:
    """Warm the call up (caches, allocator, lazy set-up) and size a sample to ``sample_seconds``."""
    calls, start = 0, time.perf_counter()
    while calls < 3 or time.perf_counter() - start < settings.warmup_seconds:
        call()
        calls += 1
    estimate = (time.perf_counter() - start) / calls
    return max(1, math.ceil(settings.sample_seconds / max(estimate, 1e-9)))


def sample(call: Callable[[], Any], calls: int) -> tuple[float, float, float]:
    """(mean seconds, mean CPU seconds of this process, mean minor page faults) per call over
    ``calls`` calls in a row."""
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    cpu, begin = time.process_time(), time.perf_counter()
    for _ in range(calls):
        call()
    seconds = (time.perf_counter() - begin) / calls
    cpu_seconds = (time.process_time() - cpu) / calls
    faults_per_call = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / calls
    return seconds, cpu_seconds, faults_per_call


def mismatch(got: Outputs, want: Outputs, rtol: float) -> str | None:
    """None when ``got`` matches ``want``, else what differs first."""
    got_loss, got_grads = got
    want_loss, want_grads = want
    pairs = [("loss", got_loss, want_loss)]
    if got_grads is not None and want_grads is not None:
        if len(got_grads) != len(want_grads):
            return f"{len(got_grads)} gradients, expected {len(want_grads)}"
        pairs += [
            (f"gradient {i}", g, w)
            for i, (g, w) in enumerate(zip(got_grads, want_grads, strict=False))
        ]
    for label, g, w in pairs:
        g, w = np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64)
        if g.shape != w.shape:
            return f"{label}: shape {g.shape}, expected {w.shape}"
        # atol scales with the array so that entries that nearly cancel do not fail a correct result.
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        if not np.allclose(g, w, rtol=rtol, atol=rtol * scale):
            error = float(np.max(np.abs(g - w))) / (scale or 1.0)
            return f"{label}: max error {error:.2e} of its largest entry (rtol {rtol:g})"
    return None


# --- candidate groups: the systems one table compares ----------------------------------------------

MakeCandidates = Callable[[Settings], list[Candidate]]
_GROUPS: dict[str, MakeCandidates] = {}


def register_group(name: str) -> Callable[[MakeCandidates], MakeCandidates]:
    """Register a function making a table's candidates, so that a worker process can make them too."""

    def register(make: MakeCandidates) -> MakeCandidates:
        _GROUPS[name] = make
        return make

    return register


def candidate_group(name: str) -> MakeCandidates:
    return _GROUPS[name]


def build_report(prepare: Callable[[], Prepared]) -> tuple[dict[str, Any], Prepared | None]:
    """Build and evaluate one system: (what its row needs, the system to time or None)."""
    try:
        prepared = prepare()
        loss, gradients = prepared.evaluate()
    except PeerUnavailable as error:
        return {"status": "skipped", "note": str(error)}, None
    except DidNotFinish as error:
        return {"status": "did not finish", "note": str(error)}, None
    except Exception as error:  # a peer's failure is a result to report, not a reason to stop
        return {"status": "error", "note": f"{type(error).__name__}: {error}"[:300]}, None
    outputs = (np.asarray(loss), None if gradients is None else [np.asarray(g) for g in gradients])
    return {
        "status": "ok",
        "note": prepared.note,
        "outputs": outputs,
        "build_seconds": prepared.build_seconds,
        "first_call_seconds": prepared.first_call_seconds,
        "timing": prepared.timing,
    }, prepared


def run_candidates(group: str, settings: Settings, rtol: float) -> list[Row]:
    """Build, check and time the systems of candidate group ``group``; rows keep the group's order.

    The reference is built first: every other system's outputs are checked against its own, and
    only systems whose outputs match are timed. Each system is built and timed in a process of
    its own (``settings.isolated``, see ``isolation``), or all in this one.
    """
    from . import isolation

    candidates = [c for c in candidate_group(group)(settings) if settings.wants(c.system)]
    reference: Outputs | None = None
    rows: dict[str, Row] = {}
    timed: dict[str, Sampler] = {}
    try:
        for candidate in sorted(candidates, key=lambda c: not c.reference):
            if settings.isolated:
                worker = isolation.Worker(group, candidate.key, settings)
                built, system = worker.built(), worker
            else:
                built, prepared = build_report(candidate.prepare)
                system = InProcess(prepared.call, settings) if prepared and prepared.call else None
            row = _checked_row(candidate, built, reference, rtol)
            if candidate.reference and reference is None and built["status"] == "ok":
                reference = built["outputs"]
            rows[candidate.key] = row
            if row.status == "ok" and built.get("timing") is None and system is not None:
                timed[candidate.key] = system
            elif settings.isolated:
                system.close()
            if row.status == "ok" and built.get("timing") is not None:
                row.seconds, row.timing = built["timing"].median, asdict(built["timing"])
        timings = time_round_robin(timed, settings)
    finally:
        for worker in timed.values():
            if isinstance(worker, isolation.Worker):
                worker.close()
    for key, timing in timings.items():
        _record_timing(rows[key], timing)
    ordered = [rows[c.key] for c in candidates if c.key in rows]
    _fill_ratios(ordered)
    return ordered


def _checked_row(
    candidate: Candidate, built: dict[str, Any], reference: Outputs | None, rtol: float
) -> Row:
    row = Row(
        key=candidate.key,
        system=candidate.system,
        name=candidate.name,
        status=built["status"],
        gradient_check="not run",
        reference=candidate.reference,
        note=built.get("note", ""),
        build_seconds=built.get("build_seconds"),
    )
    if row.status != "ok":
        return row
    row.first_call_seconds = built.get("first_call_seconds")
    if candidate.reference:
        row.gradient_check = "reference"
    elif reference is not None:
        problem = mismatch(built["outputs"], reference, rtol)
        if problem:
            row.status, row.gradient_check = "gradients differ", problem
        else:
            row.gradient_check = "ok" if built["outputs"][1] is not None else "loss only: ok"
    return row


def _record_timing(row: Row, timing: TimingStats | Exception) -> None:
    if isinstance(timing, Exception):
        row.status, row.note = "error", f"while timing: {type(timing).__name__}: {timing}"[:300]
        return
    row.seconds, row.timing = timing.median, asdict(timing)
    if row.first_call_seconds is not None:  # compiled lazily on the first call: add that compile
        row.build_seconds = (row.build_seconds or 0.0) + max(
            0.0, row.first_call_seconds - timing.median
        )


def _fill_ratios(rows: list[Row]) -> None:
    reference = next((r for r in rows if r.reference and r.seconds), None)
    for row in rows:
        if reference is not None and row.seconds is not None:
            row.ratio = row.seconds / reference.seconds  # type: ignore[operator]
