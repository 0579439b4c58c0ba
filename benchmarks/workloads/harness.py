"""What every workload shares: sizes, settings, timing, gradient checks, result rows."""

from __future__ import annotations

import gc
import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

# (loss, gradients): gradients is None for a forward-only system, which checks the loss alone.
Outputs = Tuple[Any, Optional[List[Any]]]

# Every system family --systems can name; "numpy" (the reference) always runs.
SYSTEMS = ("numpy", "symgrad", "tf1", "tf2", "jax", "torch", "autograd", "sympy")


@dataclass(frozen=True)
class Sizes:
    """Problem sizes; FULL is what the acceptance ratios are about, SMOKE only proves the runner works."""

    linear_n: int                      # W2: elements of x and y
    mlp_layers: Tuple[int, ...]        # W3: layer widths, input first
    mlp_batch: int
    chain_layers: int                  # W4: depth of z = tanh(z * w_k + b_k)
    chain_n: int                       # W4: elements of z
    compile_layers: Tuple[int, int]    # W4: compile time at these two depths


FULL = Sizes(linear_n=100_000, mlp_layers=(784, 256, 256, 10), mlp_batch=128, chain_layers=100,
             chain_n=10_000, compile_layers=(100, 1000))
SMOKE = Sizes(linear_n=1_000, mlp_layers=(16, 8, 8, 4), mlp_batch=8, chain_layers=5, chain_n=1_000,
              compile_layers=(5, 20))


@dataclass
class Settings:
    sizes: Sizes
    smoke: bool
    repeats: int                  # timing samples per system; the median is reported
    sample_seconds: float         # each sample loops the call at least this long, so µs calls beat timer noise
    warmup_seconds: float
    systems: frozenset            # system families to run (always with "numpy")
    sympy_cap_seconds: float
    work_dir: Path                # where generated modules of this run are written
    script: Path                  # benchmarks/run.py, re-run in subprocesses for the probes

    def wants(self, system: str) -> bool:
        return system == "numpy" or system in self.systems


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

    @classmethod
    def from_samples(cls, samples: Sequence[float], calls_per_sample: int) -> "TimingStats":
        ordered = sorted(samples)
        quartiles = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else [ordered[0]] * 3
        return cls(median=statistics.median(ordered), minimum=ordered[0], q1=quartiles[0],
                   q3=quartiles[2], samples=len(ordered), calls_per_sample=calls_per_sample)


@dataclass
class Prepared:
    """A system ready to run: ``call`` is timed, ``evaluate`` gives outputs for the gradient check."""

    call: Optional[Callable[[], Any]]
    evaluate: Callable[[], Outputs]
    build_seconds: Optional[float] = None
    # Systems that compile lazily on the first call (JAX, tf.function, TF1 sessions): their build time
    # is build_seconds + first call - steady call.
    first_call_seconds: Optional[float] = None
    # Systems timed in their own process (the SymPy baseline) bring their timing along.
    timing: Optional[TimingStats] = None
    note: str = ""


@dataclass
class Candidate:
    key: str                      # unique within a workload, used by the acceptance summary
    system: str                   # family, for --systems
    name: str                     # row label
    prepare: Callable[[], Prepared]
    reference: bool = False


@dataclass
class Row:
    key: str
    system: str
    name: str
    status: str                   # ok | gradients differ | skipped | did not finish | error
    gradient_check: str           # ok | loss only: ok | reference | the mismatch | not run
    seconds: Optional[float] = None
    timing: Optional[Dict[str, Any]] = None
    build_seconds: Optional[float] = None
    ratio: Optional[float] = None
    reference: bool = False
    note: str = ""


@dataclass
class WorkloadResult:
    id: str
    title: str
    description: str
    reference_name: str
    rows: List[Row] = field(default_factory=list)
    extras: Dict[str, Any] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)

    def row(self, key: str) -> Optional[Row]:
        return next((r for r in self.rows if r.key == key and r.status == "ok"), None)

    def to_json(self) -> Dict[str, Any]:
        return asdict(self)


def time_per_call(call: Callable[[], Any], settings: Settings) -> TimingStats:
    """Median seconds per call over ``settings.repeats`` samples, after a warm-up."""
    timing = time_round_robin({"call": call}, settings)["call"]
    if isinstance(timing, Exception):
        raise timing
    return timing


def time_round_robin(calls: Dict[str, Callable[[], Any]],
                     settings: Settings) -> Dict[str, Union[TimingStats, Exception]]:
    """Median seconds per call of each system, its samples taken in turn with the others'.

    One sample of each system, then the next round, rather than all of one system's samples and
    then the next system's: on a shared machine a burst of background load then lands on every
    system alike, and the ratios hold where absolute times drift. A system that raises drops out
    with its exception.
    """
    results: Dict[str, Union[TimingStats, Exception]] = {}
    batches: Dict[str, int] = {}
    for name, call in calls.items():
        try:
            batches[name] = _calls_per_sample(call, settings)
        except Exception as error:  # reported in that system's row, not fatal to the run
            results[name] = error
    samples: Dict[str, List[float]] = {name: [] for name in batches}
    gc.collect()
    gc.disable()  # as timeit does: a collection inside one sample is noise, not the system's cost
    try:
        for _ in range(settings.repeats):
            for name in [n for n in batches if n not in results]:
                try:
                    samples[name].append(_sample(calls[name], batches[name]))
                except Exception as error:  # the same
                    results[name] = error
    finally:
        gc.enable()
    for name, batch in batches.items():
        results.setdefault(name, TimingStats.from_samples(samples[name], batch))
    return results


def _calls_per_sample(call: Callable[[], Any], settings: Settings) -> int:
    """Warm the call up (caches, allocator, lazy set-up) and size a sample to ``sample_seconds``."""
    calls, start = 0, time.perf_counter()
    while calls < 3 or time.perf_counter() - start < settings.warmup_seconds:
        call()
        calls += 1
    estimate = (time.perf_counter() - start) / calls
    return max(1, math.ceil(settings.sample_seconds / max(estimate, 1e-9)))


def _sample(call: Callable[[], Any], calls: int) -> float:
    begin = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - begin) / calls


def mismatch(got: Outputs, want: Outputs, rtol: float) -> Optional[str]:
    """None when ``got`` matches ``want``, else what differs first."""
    got_loss, got_grads = got
    want_loss, want_grads = want
    pairs = [("loss", got_loss, want_loss)]
    if got_grads is not None and want_grads is not None:
        if len(got_grads) != len(want_grads):
            return f"{len(got_grads)} gradients, expected {len(want_grads)}"
        pairs += [(f"gradient {i}", g, w) for i, (g, w) in enumerate(zip(got_grads, want_grads))]
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


def run_candidates(candidates: Sequence[Candidate], settings: Settings, rtol: float) -> List[Row]:
    """Prepare and check every wanted candidate, then time them together; rows keep the candidates' order.

    The reference is prepared first: every other system's outputs are checked against its own,
    and only systems whose outputs match are timed.
    """
    reference_outputs: Optional[Outputs] = None
    rows: Dict[str, Row] = {}
    ready: Dict[str, Prepared] = {}
    for candidate in sorted(candidates, key=lambda c: not c.reference):
        if not settings.wants(candidate.system):
            continue
        row, prepared, outputs = _prepare_and_check(candidate, reference_outputs, rtol)
        if candidate.reference and reference_outputs is None:
            reference_outputs = outputs
        rows[candidate.key] = row
        if prepared is not None:
            ready[candidate.key] = prepared
    _time(rows, ready, settings)
    ordered = [rows[c.key] for c in candidates if c.key in rows]
    _fill_ratios(ordered)
    return ordered


def _prepare_and_check(candidate: Candidate, reference: Optional[Outputs],
                       rtol: float) -> Tuple[Row, Optional[Prepared], Optional[Outputs]]:
    """(row, the prepared system if it is to be timed, its outputs)."""
    row = Row(key=candidate.key, system=candidate.system, name=candidate.name, status="ok",
              gradient_check="not run", reference=candidate.reference)
    try:
        prepared = candidate.prepare()
        outputs = prepared.evaluate()
    except PeerUnavailable as error:
        row.status, row.note = "skipped", str(error)
        return row, None, None
    except DidNotFinish as error:
        row.status, row.note = "did not finish", str(error)
        return row, None, None
    except Exception as error:  # a peer's failure is a result to report, not a reason to stop
        row.status, row.note = "error", f"{type(error).__name__}: {error}"[:300]
        return row, None, None
    row.note = prepared.note
    if candidate.reference:
        row.gradient_check = "reference"
    elif reference is not None:
        problem = mismatch(outputs, reference, rtol)
        if problem:
            row.status, row.gradient_check = "gradients differ", problem
            return row, None, outputs
        row.gradient_check = "ok" if outputs[1] is not None else "loss only: ok"
    return row, prepared, outputs


def _time(rows: Dict[str, Row], ready: Dict[str, Prepared], settings: Settings) -> None:
    """Time the prepared systems round robin (those timed in their own process bring their timing)."""
    measured = time_round_robin({key: p.call for key, p in ready.items()
                                 if p.timing is None and p.call is not None}, settings)
    for key, prepared in ready.items():
        timing = prepared.timing or measured[key]
        row = rows[key]
        if isinstance(timing, Exception):
            row.status, row.note = "error", f"while timing: {type(timing).__name__}: {timing}"[:300]
            continue
        row.seconds, row.timing = timing.median, asdict(timing)
        row.build_seconds = prepared.build_seconds
        if prepared.first_call_seconds is not None:
            lazy_compile = max(0.0, prepared.first_call_seconds - timing.median)
            row.build_seconds = (prepared.build_seconds or 0.0) + lazy_compile


def _fill_ratios(rows: List[Row]) -> None:
    reference = next((r for r in rows if r.reference and r.seconds), None)
    for row in rows:
        if reference is not None and row.seconds is not None:
            row.ratio = row.seconds / reference.seconds  # type: ignore[operator]
