"""Record what TensorFlow reaches on the programs of ``programs/`` into ``tf_results.json``.

Run by hand from the repository root, with a Python that has TensorFlow 2.x and the Keras 2
package it serves ``compat.v1.layers`` from (``pip install tensorflow-cpu tf-keras``)::

    python tests/tf1_programs/record_tf.py                    # every program, seeds 0 1 2
    python tests/tf1_programs/record_tf.py NAME [NAME ...]    # re-record some of them

Each program runs in its own process through ``runner.py --backend tensorflow --seed S``
(``tf`` is ``tensorflow.compat.v1`` after ``disable_v2_behavior()``). The seeds change the
data order, NumPy's draws and the graph-level seed, so the spread of the recorded metrics shows
how much each result varies (an ``unseeded`` program, which sets no graph seed, runs six
times). The fixture::

    {"tensorflow_version": "2.21.0",
     "programs": {name: {"runs": [{"seed": 0, "metrics": {...}, "seconds": 3.2}, ...]}}}

Wall times are the program's own run (graph building, training, evaluation), not the
interpreter's start. TensorFlow is imported only in the child processes: pytest collects
nothing here (``tests/conftest.py`` ignores this file).
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "tf_results.json")
SEEDS = (0, 1, 2)
sys.path.insert(0, HERE)

from catalog import PROGRAMS  # noqa: E402
from runner import RESULT_PREFIX  # noqa: E402


def record(name: str, seed: int) -> dict:
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(HERE, "runner.py"),
            name,
            "--backend",
            "tensorflow",
            "--seed",
            str(seed),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(RESULT_PREFIX)]
    if proc.returncode or not lines:
        raise RuntimeError(
            f"{name} (seed {seed}) failed, exit {proc.returncode}:\n{proc.stderr[-3000:]}"
        )
    result = json.loads(lines[-1][len(RESULT_PREFIX) :])
    return {"seed": seed, "metrics": result["metrics"], "seconds": result["seconds"]}


def main() -> None:
    import importlib.metadata

    names = sys.argv[1:] or sorted(PROGRAMS)
    data = {"programs": {}}
    if os.path.exists(FIXTURE):
        with open(FIXTURE, encoding="utf-8") as f:
            data = json.load(f)
    data["tensorflow_version"] = importlib.metadata.version("tensorflow-cpu")
    failed = []
    for name in names:
        try:
            # An unseeded program's spread comes from the operating system's entropy too:
            # more runs measure it.
            seeds = range(6) if PROGRAMS[name].unseeded else SEEDS
            runs = [record(name, seed) for seed in seeds]
        except RuntimeError as error:  # record the others; say which failed at the end
            print(error, flush=True)
            failed.append(name)
            continue
        data["programs"][name] = {"runs": runs}
        print(name, [r["metrics"] for r in runs], [r["seconds"] for r in runs], flush=True)
    data["programs"] = {k: data["programs"][k] for k in sorted(data["programs"]) if k in PROGRAMS}
    with open(FIXTURE, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    if failed:
        sys.exit(f"not recorded: {', '.join(failed)}")


if __name__ == "__main__":
    main()
