"""Wall time of whole TF1 tutorial programs: symgrad against TensorFlow 1, same program.

The programs are those of ``tests/tf1_programs/programs/`` (TF1 tutorial programs written anew
for the tests, shrunk to seconds); each runs through ``tests/tf1_programs/runner.py`` once
with ``--backend symgrad`` (this checkout) and once with ``--backend tensorflow`` (under
``--tf-python``, a Python that imports TensorFlow and tf-keras), each in a fresh process,
alternating round by round. The time is the runner's own: from the program's first line to its
last (graph building, compiling and training included; interpreter start and imports not).
The table gives the median over rounds and the ratio symgrad / TensorFlow.

``--threads 1`` pins BLAS and TensorFlow to one thread (TF through the environment variables
it reads: ``TF_NUM_INTRAOP_THREADS``/``TF_NUM_INTEROP_THREADS``); ``--threads default`` (the
default) runs both as users run them.

Run:  python benchmarks/tf1_programs_time.py --tf-python /work/tfenv/bin/python
      [--programs NAME,NAME] [--rounds 3] [--threads default|1] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUNNER = ROOT / "tests" / "tf1_programs" / "runner.py"

# The convolutional and recurrent programs.
PROGRAMS = (
    "hunkim_lab11_mnist_cnn",
    "hunkim_lab11_mnist_cnn_class",
    "hunkim_lab11_mnist_cnn_layers",
    "tensorflow_deep_mnist_for_experts",
    "pkmital_09_convolutional_autoencoder",
    "aymericdamien_recurrent_network",
    "tensorflow_models_ptb_word_lm",
)


def child_environment(threads: str) -> dict[str, str]:
    """The environment of a child process: this checkout importable, TensorFlow quiet, and
    with ``threads`` "1" BLAS and TensorFlow on one thread (TF through the variables it reads)."""
    environment = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1")
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), environment.get("PYTHONPATH", "")])
    if threads == "1":
        for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            environment[variable] = "1"
        environment["TF_NUM_INTRAOP_THREADS"] = environment["TF_NUM_INTEROP_THREADS"] = "1"
    return environment


def run_program(python: str, backend: str, name: str, threads: str) -> float:
    environment = child_environment(threads)
    done = subprocess.run(
        [python, str(RUNNER), name, "--backend", backend],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("TF1_PROGRAM_RESULT")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{name} under {backend} failed:\n{done.stderr[-3000:]}")
    seconds: float = json.loads(lines[-1].split(" ", 1)[1])["seconds"]
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", required=True, help="a Python that imports tensorflow")
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", choices=("default", "1"), default="default")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from workloads.report import machine_info

    names = args.programs.split(",")
    times: dict[tuple[str, str], list[float]] = {}
    for round_index in range(args.rounds):
        for name in names:
            for backend, python in (("symgrad", sys.executable), ("tensorflow", args.tf_python)):
                seconds = run_program(python, backend, name, args.threads)
                times.setdefault((name, backend), []).append(seconds)
                print(f"round {round_index + 1} {name} {backend}: {seconds:.2f} s", flush=True)
    info = machine_info()
    lines = [
        f"`python benchmarks/tf1_programs_time.py {' '.join(sys.argv[1:])}` on {info['cpu']} "
        f"(SIMD {info['simd']}), threads: {args.threads}; medians over {args.rounds} rounds of "
        "fresh processes.",
        "",
        "| program | symgrad | TensorFlow 1 | symgrad / TF |",
        "|---|---:|---:|---:|",
    ]
    for name in names:
        ours = statistics.median(times[(name, "symgrad")])
        theirs = statistics.median(times[(name, "tensorflow")])
        lines.append(f"| {name} | {ours:.2f} s | {theirs:.2f} s | **{ours / theirs:.2f}×** |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text)


if __name__ == "__main__":
    main()
