"""Record TensorFlow's results for ``programs_queues.py`` into ``tf_fixtures_queues.json``.

Run by hand from the repository root with TensorFlow installed::

    python tests/tf_parity/record_tf_queues.py

Each program runs under ``tensorflow.compat.v1`` (v2 behavior off) in a fresh default graph;
what it returns is written, keyed by the program's name, with sorted keys, so re-running
gives the same file. TensorFlow is imported only in ``main()``.
"""

from __future__ import annotations

import json
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(_HERE, "tf_fixtures_queues.json")


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as real_tf
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    sys.path.insert(0, os.path.dirname(_HERE))
    from tf_parity.programs_queues import PROGRAMS

    programs = {}
    for program in PROGRAMS:
        with tf.Graph().as_default():
            programs[program.__name__] = program(tf)
    record = {"tensorflow_version": real_tf.__version__, "programs": programs}
    with open(FIXTURE, "w") as handle:
        json.dump(record, handle, indent=1, sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    main()
