"""Wall time of the examples written as TF1 programs: symgrad against TensorFlow 1.

An example such as ``examples/mnist_cnn.py`` is a TF1 program whose only symgrad line is
``import symgrad as tf``; its docstring says how to run it under TensorFlow instead, and this
script does just that: it runs the example's ``main()`` once as it is and once with that line
replaced by ``import tensorflow.compat.v1 as tf`` and ``tf.disable_v2_behavior()`` (under
``--tf-python``, a Python that imports TensorFlow), each in a fresh process, alternating round
by round. The time is ``main()``'s: building the graph, training and testing (interpreter start
and imports not counted). The table gives the median over rounds, the ratio symgrad /
TensorFlow, and what ``main()`` returned (the test accuracy) in the last round.

Run:  python benchmarks/examples_time.py --tf-python /work/tfenv/bin/python
      [--examples mnist_cnn] [--rounds 3] [--threads default|1] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from tf1_programs_time import child_environment  # noqa: E402

EXAMPLES = ("mnist_cnn",)
SYMGRAD_IMPORT = "import symgrad as tf\n"
TENSORFLOW_IMPORT = "import tensorflow.compat.v1 as tf\n\ntf.disable_v2_behavior()\n"

# Run in the child: the example's source (its import line swapped for TensorFlow's), then
# main() timed.
CHILD = """
import contextlib, io, json, sys, time, types
source, path = sys.argv[1], sys.argv[2]
module = types.ModuleType("example")
module.__file__ = path
exec(compile(source, path, "exec"), module.__dict__)
start = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    result = module.main()
print("EXAMPLE_RESULT " + json.dumps({"seconds": time.perf_counter() - start, "result": result}))
"""


def run_example(python: str, backend: str, name: str, threads: str) -> dict:
    path = ROOT / "examples" / f"{name}.py"
    source = path.read_text(encoding="utf-8")
    if SYMGRAD_IMPORT not in source:
        raise SystemExit(f"{path} has no line {SYMGRAD_IMPORT.strip()!r}")
    if backend == "tensorflow":
        source = source.replace(SYMGRAD_IMPORT, TENSORFLOW_IMPORT, 1)
    environment = child_environment(threads)
    done = subprocess.run(
        [python, "-c", CHILD, source, str(path)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("EXAMPLE_RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(
            f"{name} under {backend} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
    return json.loads(lines[-1].split(" ", 1)[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", required=True)
    parser.add_argument("--examples", default=",".join(EXAMPLES))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", choices=("default", "1"), default="default")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    names = [n for n in args.examples.split(",") if n]
    sys.path.insert(0, str(HERE))
    from workloads.report import machine_info

    runs: dict[tuple[str, str], list[dict]] = {}
    for _ in range(args.rounds):
        for name in names:
            for backend, python in (("symgrad", sys.executable), ("tensorflow", args.tf_python)):
                runs.setdefault((name, backend), []).append(
                    run_example(python, backend, name, args.threads)
                )
    info = machine_info()
    lines = [
        f"`python benchmarks/examples_time.py {' '.join(sys.argv[1:])}` on {info['cpu']} "
        f"(SIMD {info['simd']}), threads: {args.threads}; median wall time of `main()` over "
        f"{args.rounds} rounds of fresh processes.",
        "",
        "| example | symgrad | TensorFlow 1 | symgrad / TF | result (symgrad / TF) |",
        "|---|---:|---:|---:|---|",
    ]
    for name in names:
        ours, theirs = runs[(name, "symgrad")], runs[(name, "tensorflow")]
        mine = statistics.median(r["seconds"] for r in ours)
        tf_time = statistics.median(r["seconds"] for r in theirs)
        lines.append(
            f"| {name} | {mine:.2f} s | {tf_time:.2f} s | **{mine / tf_time:.2f}×** | "
            f"{ours[-1]['result']:.4g} / {theirs[-1]['result']:.4g} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
