"""Record TensorFlow results for the tensor-op corpus in ``programs_tensor.py``.

Run by hand from the repository root with the TensorFlow venv::

    /work/tfenv/bin/python tests/tf_parity/record_tf_tensor.py

Same procedure and JSON format as ``record_tf.py``: for every program in
``programs_tensor.PROGRAMS`` it builds the graph in a fresh ``tf.Graph()``,
runs ``tf.global_variables_initializer()`` and then evaluates the non-None
fetches with the program's feeds.  The results are written to
``tf_fixtures_tensor.json`` next to this script::

    {"tensorflow_version": "...",
     "programs": {name: {"fetches": [null | {"dtype": "float32",
                                             "shape": [...],
                                             "value": nested list}, ...]}}}

``inf``/``nan`` are encoded as the strings "inf", "-inf", "nan".  The output
is deterministic (sorted keys, fixed indent, round-tripping float reprs), so
re-running must produce a byte-identical file.

Importing this module does nothing (pytest collects it with
``--doctest-modules``, where TensorFlow is not installed): TensorFlow and the
corpus are imported inside :func:`main`.
"""

import json
import math
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(_HERE, "tf_fixtures_tensor.json")


def _encode_scalar(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(v, (bool, int)):
        return v
    raise TypeError("unexpected scalar %r (%s)" % (v, type(v)))


def _encode_value(v):
    if isinstance(v, list):
        return [_encode_value(e) for e in v]
    return _encode_scalar(v)


def _encode_array(value):
    import numpy as np

    arr = np.asarray(value)
    return {
        "dtype": arr.dtype.name,
        "shape": list(arr.shape),
        "value": _encode_value(arr.tolist()),
    }


def run_program(tf, flatten_fetches, fn):
    graph = tf.Graph()
    with graph.as_default():
        spec = fn(tf)
        fetches = flatten_fetches(spec["fetches"])
        feeds = spec.get("feeds", {})
        init = tf.global_variables_initializer()
        live = [f for f in fetches if f is not None]
        with tf.Session(graph=graph) as sess:
            sess.run(init)
            values = sess.run(live, feed_dict=feeds) if live else []
    out = []
    it = iter(values)
    for f in fetches:
        out.append(None if f is None else _encode_array(next(it)))
    return {"fetches": out}


def main():
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)

    import tensorflow.compat.v1 as tf

    import programs
    import programs_tensor

    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    names = [fn.__name__ for fn in programs_tensor.PROGRAMS]
    if len(set(names)) != len(names):
        raise SystemExit("duplicate program names")
    results = {}
    for fn in programs_tensor.PROGRAMS:
        results[fn.__name__] = run_program(tf, programs.flatten_fetches, fn)
    doc = {"tensorflow_version": tf.__version__, "programs": results}
    text = json.dumps(doc, sort_keys=True, indent=1, allow_nan=False)
    with open(OUTPUT, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
        fh.write("\n")
    print("wrote %d programs to %s" % (len(results), OUTPUT))


if __name__ == "__main__":
    main()
