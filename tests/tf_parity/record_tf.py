"""Record TensorFlow results for the parity corpora (``programs*.py``, listed in ``CORPORA``).

Run by hand from the repository root with TensorFlow installed (``pip install tensorflow-cpu``)::

    python tests/tf_parity/record_tf.py                  # every corpus
    python tests/tf_parity/record_tf.py programs_tensor  # one of them

For every program of a corpus it builds the graph in a fresh ``tf.Graph()``,
runs ``tf.global_variables_initializer()``, runs the program's optional
``"before"`` ops one after another (optimizer steps), and then evaluates the
non-None fetches with the program's feeds. The results go to the corpus' fixture next
to this script::

    {"tensorflow_version": "...",
     "programs": {name: {"fetches": [null | {"dtype": "float32",
                                             "shape": [...],
                                             "value": nested list}, ...]}}}

``inf``/``nan`` are encoded as the strings "inf", "-inf", "nan". The output
is deterministic (sorted keys, fixed indent, round-tripping float reprs), so
re-running must produce a byte-identical file. TensorFlow is imported only in
``main()``: pytest collects this file without it.
"""

import importlib
import json
import math
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
CORPORA = {
    "programs": "tf_fixtures.json",
    "programs_tensor": "tf_fixtures_tensor.json",
    "programs_fidelity": "tf_fixtures_fidelity.json",
    "programs_ported": "tf_fixtures_ported.json",
    "programs_feeding": "tf_fixtures_feeding.json",
    "programs_hessians": "tf_fixtures_hessians.json",
    "programs_random": "tf_fixtures_random.json",
    "programs_train": "tf_fixtures_train.json",
    "programs_layers": "tf_fixtures_layers.json",
    "programs_conv": "tf_fixtures_conv.json",
    "programs_pool_blocks": "tf_fixtures_pool_blocks.json",
    "programs_shapes": "tf_fixtures_shapes.json",
    "programs_elemops": "tf_fixtures_elemops.json",
    "programs_structops": "tf_fixtures_structops.json",
    "programs_shapeless": "tf_fixtures_shapeless.json",
    "programs_tf1gaps": "tf_fixtures_tf1gaps.json",
    "programs_losses": "tf_fixtures_losses.json",
    "programs_layer_classes": "tf_fixtures_layer_classes.json",
    "programs_image": "tf_fixtures_image.json",
    "programs_opgaps": "tf_fixtures_opgaps.json",
    "programs_control": "tf_fixtures_control.json",
}
# Corpora whose programs are several runs each (``run_steps``), recorded run by run; kept out
# of CORPORA, whose programs the portable-form tests run as one set of fetches.
STEP_CORPORA = {"programs_state": "tf_fixtures_state.json"}
# Corpora whose programs describe the graph they build (names, collections, shapes):
# ``describe`` records what each returns.
NAME_CORPORA = {"programs_names": "tf_fixtures_names.json"}


def _encode_scalar(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(v, (bool, int)):
        return v
    raise TypeError(f"unexpected scalar {v!r} ({type(v)})")


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


def plain_names(value):
    """A program's ``"names"`` (labelled names of variables, ops and tensors, shapes, numbers)
    as JSON: a name for anything that has one, a list for a shape."""
    if isinstance(value, (list, tuple)):
        return [plain_names(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if hasattr(value, "as_list"):  # a TensorShape
        return value.as_list()
    return value.name


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
            for op in spec.get("before", []):  # e.g. optimizer steps, in order
                sess.run(op, feed_dict=feeds)
            values = sess.run(live, feed_dict=feeds) if live else []
    out = []
    it = iter(values)
    for f in fetches:
        out.append(None if f is None else _encode_array(next(it)))
    result = {"fetches": out}
    if "names" in spec:  # what the graph is named (programs_layer_classes)
        result["names"] = [[label, plain_names(v)] for label, v in spec["names"]]
    return result


def record(tf, corpus):
    """Run every program of ``corpus`` (a module name) under TF and write its fixture."""
    programs = importlib.import_module(corpus)
    names = [fn.__name__ for fn in programs.PROGRAMS]
    if len(set(names)) != len(names):
        raise SystemExit(f"duplicate program names in {corpus}")
    flatten = importlib.import_module("programs").flatten_fetches
    if corpus in NAME_CORPORA:
        results = {fn.__name__: programs.describe(tf, fn) for fn in programs.PROGRAMS}
    elif corpus in STEP_CORPORA:
        results = {
            fn.__name__: {"steps": programs.run_steps(tf, fn, _encode_array)}
            for fn in programs.PROGRAMS
        }
    else:
        results = {fn.__name__: run_program(tf, flatten, fn) for fn in programs.PROGRAMS}
    doc = {"tensorflow_version": tf.__version__, "programs": results}
    text = json.dumps(doc, sort_keys=True, indent=1, allow_nan=False)
    output = os.path.join(_HERE, {**CORPORA, **STEP_CORPORA, **NAME_CORPORA}[corpus])
    with open(output, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
        fh.write("\n")
    print(f"wrote {len(results)} programs to {output}")


def main(corpora):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    # tf.layers needs the legacy Keras in TensorFlow 2.16+ (pip install tf-keras).
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)

    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    known = {**CORPORA, **STEP_CORPORA, **NAME_CORPORA}
    for corpus in corpora or list(known):
        if corpus not in known:
            raise SystemExit("unknown corpus {!r}; choose from {}".format(corpus, ", ".join(known)))
        record(tf, corpus)


if __name__ == "__main__":
    main(sys.argv[1:])
