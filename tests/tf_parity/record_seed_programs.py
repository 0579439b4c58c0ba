"""Record what TensorFlow 1 prints for the four seed programs in ``examples/seed``.

Run by hand from the repository root with the TensorFlow venv::

    /work/tfenv/bin/python tests/tf_parity/record_seed_programs.py

Each ``examples/seed/program_*.py`` is the tutorial's code with only the line
``import tensorflow as tf`` changed to ``import symgrad as tf``.  This script
undoes that one change (``import tensorflow.compat.v1 as tf`` followed by
``tf.disable_v2_behavior()``), seeds NumPy with ``np.random.seed(0)``, resets
TensorFlow's default graph, executes the program in a fresh namespace and
captures its stdout.  The texts are written to ``seed_program_outputs.json``
next to this script::

    {"programs": {"program_1_optimizer": "<stdout text>", ...},
     "seed": 0,
     "tensorflow_version": "..."}

The output is deterministic (sorted keys, fixed indent), so re-running must
produce a byte-identical file.  ``tests/test_seed_programs.py`` compares
symgrad's output with it.

Everything happens in ``main()``: pytest's ``--doctest-modules`` imports this
file, and that import must not need TensorFlow.
"""

import contextlib
import io
import json
import os

SEED = 0
PROGRAMS = (
    "program_1_optimizer",
    "program_2_manual_update",
    "program_3_intermediate_xs",
    "program_4_stop_gradient",
)
SYMGRAD_IMPORT = "import symgrad as tf"
TENSORFLOW_IMPORT = "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()"

_HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(_HERE))
SEED_DIR = os.path.join(ROOT, "examples", "seed")
OUTPUT = os.path.join(_HERE, "seed_program_outputs.json")


def tensorflow_source(path):
    """The program at ``path`` with its symgrad import turned back into TensorFlow's."""
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    lines = source.split("\n")
    hits = [i for i, line in enumerate(lines) if line.rstrip() == SYMGRAD_IMPORT]
    if len(hits) != 1 or source.count(SYMGRAD_IMPORT) != 1:
        raise SystemExit(f"{path}: expected exactly one line {SYMGRAD_IMPORT!r}")
    return source.replace(SYMGRAD_IMPORT, TENSORFLOW_IMPORT)


def run_program(name, np, tf):
    """Execute one seed program under TensorFlow; return what it printed."""
    path = os.path.join(SEED_DIR, name + ".py")
    code = compile(tensorflow_source(path), path, "exec")
    tf.reset_default_graph()
    np.random.seed(SEED)
    namespace = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, namespace)
    return out.getvalue()


def main():
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    outputs = {name: run_program(name, np, tf) for name in PROGRAMS}
    doc = {"tensorflow_version": tf.__version__, "seed": SEED, "programs": outputs}
    with open(OUTPUT, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(doc, fh, sort_keys=True, indent=1)
        fh.write("\n")
    for name in PROGRAMS:
        print(f"== {name}")
        print(outputs[name], end="")
    print(f"wrote {len(outputs)} programs to {OUTPUT}")


if __name__ == "__main__":
    main()
