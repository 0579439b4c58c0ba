"""symgrad's generated code side by side with hand-written NumPy and other autodiff systems.

Run from the repository root:

    python benchmarks/run.py                      # every workload at full size (several minutes)
    python benchmarks/run.py --smoke              # tiny sizes, few repeats: checks the runner (~30 s)
    python benchmarks/run.py --only W2,W4 --systems symgrad,jax --repeats 50

Workloads (benchmarks/workloads/): W1 the seed's linear regression step, float32 scalars fed per
call (generated module and Session.run); W2 the same model on 100,000 float64 values; W3 a
784-256-256-10 tanh MLP with softmax cross-entropy, batch 128 (plus peak memory of one call);
W4 a 100-layer tanh chain with 200 scalar parameters (plus compile time at 100 and 1,000
layers); W5 the obvious SymPy diff + lambdify approach on W1 and W4, under a time cap; W6 a
small CNN (conv-pool-conv-pool-dense on 28x28x1, batch 64, float32) against TF1 Session.run,
JAX and hand-written NumPy; W6-train, W7 and W8 one Adam training step through Session.run of
the tutorials' MNIST CNN, LSTM and GRU classifiers against TF1 Session.run, JAX and PyTorch,
first run beside the steady step (benchmarks/train_step.py's models; not in --smoke; TF1 from
SYMGRAD_BENCH_TF_PYTHON when this Python does not import TensorFlow).

Every system's loss and gradients are checked against the hand-written NumPy result before it
is timed. Each system is built and timed in a fresh process of its own (systems sharing a process
share the memory allocator's state, which swings the times of code that allocates; see
workloads/isolation.py). Timing samples are taken round-robin across a workload's systems, so
background load on a shared machine moves every row alike and the ratios hold. Everything runs
on one thread.
Peers - TensorFlow 1 sessions, TensorFlow 2 tf.function, JAX, PyTorch, autograd - and matplotlib
for the chart come with `pip install -e '.[bench]'`; whichever is missing is skipped with a note.
Results: a table per workload on stdout, and benchmarks/results/latest.json, latest.md and
latest.png (--json, --markdown, --chart). A run of some workloads writes latest-W2-W4.* instead,
and a smoke run smoke.* (not kept in git), so neither overwrites the full run's files.
"""

from __future__ import annotations

import os
import sys

# One thread everywhere. These must be set before NumPy, BLAS or any peer is imported: their thread
# pools are sized once, at load. TensorFlow and PyTorch are also told in code (workloads/peers.py).
for _variable in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
):
    os.environ[_variable] = "1"
os.environ["XLA_FLAGS"] = " ".join(
    filter(
        None,
        [
            os.environ.get("XLA_FLAGS"),
            "--xla_cpu_multi_thread_eigen=false",
            "intra_op_parallelism_threads=1",
        ],
    )
)
os.environ.setdefault("JAX_PLATFORMS", "cpu")  # no probing for accelerators
os.environ.setdefault(
    "TF_CPP_MIN_LOG_LEVEL", "3"
)  # TensorFlow's start-up chatter would bury the tables

import argparse  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

BENCHMARKS = Path(__file__).resolve().parent
# The working tree's symgrad is the one under test, installed or not.
sys.path[:0] = [str(BENCHMARKS), str(BENCHMARKS.parent)]

from workloads import (  # noqa: E402
    chain,
    cnn,
    isolation,
    linear,
    mlp,
    report,
    sympy_baseline,
    training,
)
from workloads.harness import FULL, SMOKE, SYSTEMS, Settings, WorkloadResult  # noqa: E402

WORKLOADS: dict[str, Callable[[Settings], list[WorkloadResult]]] = {
    "W1": linear.run_w1,
    "W2": linear.run_w2,
    "W3": mlp.run_w3,
    "W4": chain.run_w4,
    "W5": sympy_baseline.run_w5,
    "W6": cnn.run_w6,
    "W6-train": training.run_w6_train,
    "W7": training.run_w7,
    "W8": training.run_w8,
}
# Left out of a smoke run (see workloads/training.py).
NOT_IN_SMOKE = ("W6-train", "W7", "W8")
RESULTS = BENCHMARKS / "results"


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--smoke", action="store_true", help="tiny sizes and few repeats (checks the runner)"
    )
    parser.add_argument(
        "--only",
        type=_names(list(WORKLOADS)),
        default=list(WORKLOADS),
        help="comma-separated workloads, e.g. W1,W3 (default: all)",
    )
    parser.add_argument(
        "--systems",
        type=_names(SYSTEMS),
        default=list(SYSTEMS),
        help=f"comma-separated systems of {','.join(SYSTEMS)} (numpy always runs)",
    )
    parser.add_argument(
        "--repeats", type=int, help="timing samples per system (default 25; smoke 3)"
    )
    parser.add_argument(
        "--sympy-cap", type=float, help="seconds SymPy may take per model (default 120; smoke 20)"
    )
    parser.add_argument(
        "--allocator",
        choices=["fresh", "warmed", "both"],
        help="the memory allocator's state when each system starts: a fresh process, one "
        "that has allocated and freed large arrays before (warmed), or both, one after the "
        "other (the default, except with --smoke: fresh; the warmed tables are named "
        "W2-warmed, ...)",
    )
    # The defaults depend on --smoke and --only (see output_paths): a quick check must not
    # overwrite the full run's results that are committed.
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--chart", type=Path)
    parser.add_argument(
        "--codegen-dir",
        type=Path,
        help="keep the generated modules here (default: a temporary folder)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="build and time every system in this one process (quicker; allocator "
        "state then carries over from one system to the next)",
    )
    # Entry points of the subprocesses the runner starts itself.
    parser.add_argument(
        "--memory-probe", nargs=2, metavar=("WORKLOAD", "SYSTEM"), help=argparse.SUPPRESS
    )
    parser.add_argument("--module", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--sympy-probe", metavar="MODEL", help=argparse.SUPPRESS)
    parser.add_argument("--worker", nargs=2, metavar=("GROUP", "KEY"), help=argparse.SUPPRESS)
    parser.add_argument("--compile-probe", type=int, metavar="LAYERS", help=argparse.SUPPRESS)
    return output_paths(parser.parse_args(argv))


def output_paths(arguments: argparse.Namespace) -> argparse.Namespace:
    """Fill in where results go: ``results/latest.*`` for a full run of every workload,
    ``results/smoke.*`` for a smoke run, ``results/latest-W2-W4.*`` for ``--only W2,W4``."""
    if arguments.smoke:
        stem = "smoke"
    elif arguments.only != list(WORKLOADS):
        stem = "latest-" + "-".join(arguments.only)
    else:
        stem = "latest"
    for option, suffix in (("json", "json"), ("markdown", "md"), ("chart", "png")):
        if getattr(arguments, option) is None:
            setattr(arguments, option, RESULTS / f"{stem}.{suffix}")
    return arguments


def _names(allowed: Sequence[str]) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        names = [name.strip() for name in text.split(",") if name.strip()]
        unknown = [name for name in names if name not in allowed]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown {', '.join(unknown)}; choose from {', '.join(allowed)}"
            )
        return names

    return parse


def make_settings(arguments: argparse.Namespace, work_dir: Path) -> Settings:
    smoke = arguments.smoke
    if arguments.allocator is None:
        arguments.allocator = "fresh" if smoke else "both"
    return Settings(
        sizes=SMOKE if smoke else FULL,
        smoke=smoke,
        repeats=arguments.repeats or (3 if smoke else 25),
        sample_seconds=0.001 if smoke else 0.02,
        warmup_seconds=0.0 if smoke else 0.2,
        systems=frozenset(arguments.systems),
        sympy_cap_seconds=arguments.sympy_cap or (20.0 if smoke else 120.0),
        work_dir=work_dir,
        script=Path(__file__).resolve(),
        isolated=not arguments.in_process,
        allocator="fresh" if arguments.allocator == "both" else arguments.allocator,
    )


# Workloads whose times depend on the allocator's state (they allocate large arrays); with
# --allocator both they run a second time, warmed. W1 and W5 allocate nothing large.
ALLOCATING = ("W2", "W3", "W4")


def run_workloads(
    settings: Settings, selected: Sequence[str], allocator: str = "fresh"
) -> dict[str, WorkloadResult]:
    results: dict[str, WorkloadResult] = {}
    print(report.simd_line(), flush=True)
    states = ["fresh", "warmed"] if allocator == "both" else [allocator]
    runs = [(name, state) for name in selected for state in states]
    runs = [(n, s) for n, s in runs if s == states[0] or n in ALLOCATING]
    for name, state in runs:
        started = time.perf_counter()
        print(f"[{name}] running ({state} allocator) ...", file=sys.stderr, flush=True)
        for result in WORKLOADS[name](replace(settings, allocator=state)):
            if state == "warmed" and allocator == "both":
                result.id = f"{result.id}-warmed"
            if state == "warmed":
                result.title += " [allocator warmed: large arrays allocated and freed first]"
            results[result.id] = result
            print(report.console_table(result) + "\n", flush=True)
        print(
            f"[{name}] done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True
        )
    return results


def write_outputs(
    arguments: argparse.Namespace, settings: Settings, results: dict[str, WorkloadResult]
) -> None:
    summary = report.acceptance(results)
    print("Acceptance ratios\n" + "\n".join(report.summary_lines(summary)) + "\n")
    machine = report.machine_info()
    described = {
        "command": ["benchmarks/run.py", *sys.argv[1:]],
        "smoke": settings.smoke,
        "repeats": settings.repeats,
        "sample_seconds": settings.sample_seconds,
        "systems": sorted(settings.systems),
        "workloads": list(arguments.only),
        "sympy_cap_seconds": settings.sympy_cap_seconds,
        "sizes": settings.sizes.__dict__,
        "allocator": arguments.allocator,
    }
    report.write_text(arguments.json, report.json_report(results, summary, machine, described))
    report.write_text(arguments.markdown, report.markdown(results, summary, machine, described))
    print(f"wrote {arguments.json} and {arguments.markdown}")
    problem = report.chart(results, arguments.chart)
    print(f"note: {problem}" if problem else f"wrote {arguments.chart}")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    if arguments.memory_probe:
        workload, system = arguments.memory_probe
        if workload != "W3":
            raise SystemExit("--memory-probe: only W3 is measured")
        print(
            json.dumps(
                mlp.memory_probe(system, arguments.module, SMOKE if arguments.smoke else FULL)
            )
        )
        return 0
    if arguments.worker:
        group, key = arguments.worker
        return isolation.serve(group, key, make_settings(arguments, arguments.codegen_dir))
    if arguments.compile_probe:
        settings = make_settings(arguments, arguments.codegen_dir)
        print(json.dumps(chain.measure_compile(arguments.compile_probe, settings)))
        return 0
    if arguments.sympy_probe:
        settings = make_settings(arguments, Path(tempfile.gettempdir()))
        print(json.dumps(sympy_baseline.sympy_probe(arguments.sympy_probe, settings)))
        return 0
    if arguments.smoke:
        arguments.only = [name for name in arguments.only if name not in NOT_IN_SMOKE]
    with tempfile.TemporaryDirectory(prefix="symgrad-bench-") as temporary:
        work_dir = arguments.codegen_dir or Path(temporary)
        work_dir.mkdir(parents=True, exist_ok=True)
        settings = make_settings(arguments, work_dir)
        results = run_workloads(settings, arguments.only, arguments.allocator)
        write_outputs(arguments, settings, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
