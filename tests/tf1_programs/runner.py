"""Run one program of ``programs/`` and print its final metrics as one JSON line.

    python tests/tf1_programs/runner.py NAME [--backend symgrad|tensorflow] [--seed N]

The programs say ``import symgrad as tf`` (their only changed import line). With
``--backend symgrad`` that is what they get: the installed symgrad, nothing added. With
``--backend tensorflow`` (used by ``record_tf.py`` from a Python that has TensorFlow, never by
the tests) the name ``symgrad`` is bound to a thin view of ``tensorflow.compat.v1`` after
``disable_v2_behavior()``, plus the three TF1 ``contrib.layers`` names TF2 dropped
(``xavier_initializer`` is ``glorot_uniform_initializer``, ``flatten`` is ``layers.flatten``,
``l2_regularizer(scale)`` is ``scale * nn.l2_loss``).
TF 2.16+ serves ``compat.v1.layers`` only from the Keras 2 package: ``record_tf.py`` sets
``TF_USE_LEGACY_KERAS=1`` and needs ``tf-keras`` installed next to TensorFlow.

``--seed N`` seeds NumPy's and Python's global generators (data shuffling, ``np.random`` in
the programs) and, for N > 0, adds N to the graph-level seed a program passes to
``set_random_seed``, so that several seeds measure how much a program's result varies. Under
symgrad the default graph starts with the graph-level seed N, so that a program that sets
none gives the same result at every run.

Plotting is not part of what is tested: ``matplotlib`` is replaced by a stub that accepts
every call, so the programs that plot run unchanged without a display.

The last line of stdout is ``TF1_PROGRAM_RESULT {"metrics": {...}, "seconds": ...}``;
the program's own output comes before it. Errors propagate (traceback on stderr, exit code 1).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import random
import runpy
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS_DIR = os.path.join(HERE, "programs")
RESULT_PREFIX = "TF1_PROGRAM_RESULT "

sys.path.insert(0, HERE)

from catalog import PROGRAMS, read_metrics  # noqa: E402  (needs HERE on sys.path)


class _Anything:
    """Accepts any attribute, call, index or iteration; stands in for matplotlib."""

    def __getattr__(self, name: str) -> _Anything:
        return self

    def __call__(self, *args, **kwargs) -> _Anything:
        return self

    def __getitem__(self, key) -> _Anything:
        return self

    def __iter__(self):
        return iter((self, self))


def _stub_attribute(name: str) -> _Anything:
    if name.startswith("__"):
        # What the import machinery and inspect ask a module (__file__, __path__, ...): a
        # stub that answered would be taken for a file by the libraries a program imports
        # (PyTorch's import walks sys.modules with inspect).
        raise AttributeError(name)
    return _Anything()


def _stub_matplotlib() -> None:
    for name in ("matplotlib", "matplotlib.pyplot", "matplotlib.cm", "matplotlib.font_manager"):
        module = types.ModuleType(name)
        module.__getattr__ = _stub_attribute  # type: ignore[method-assign]
        sys.modules[name] = module


_RNN_CELLS = (
    "BasicLSTMCell",
    "BasicRNNCell",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
)


def _tensorflow_as_symgrad(seed: int) -> types.ModuleType:
    import tensorflow as real_tf

    v1 = real_tf.compat.v1
    v1.disable_v2_behavior()
    view = types.ModuleType("symgrad")
    view.__getattr__ = lambda name: getattr(v1, name)  # type: ignore[method-assign]
    contrib = types.ModuleType("symgrad.contrib")
    contrib.layers = types.SimpleNamespace(  # type: ignore[attr-defined]
        xavier_initializer=v1.glorot_uniform_initializer,
        flatten=lambda inputs, *args, **kwargs: v1.layers.flatten(inputs, *args, **kwargs),
        # TF1's contrib regularizer: scale * sum(w**2) / 2.
        l2_regularizer=lambda scale: lambda weights: scale * v1.nn.l2_loss(weights),
    )
    # TF1's contrib.rnn: the cells of nn.rnn_cell and static_rnn (``from tensorflow.contrib
    # import rnn`` is ``from symgrad.contrib import rnn`` in the programs).
    contrib.rnn = types.SimpleNamespace(  # type: ignore[attr-defined]
        static_rnn=v1.nn.static_rnn,
        **{name: getattr(v1.nn.rnn_cell, name) for name in _RNN_CELLS},
    )
    # TF1's contrib.seq2seq decoding, written on TF's own ops (tf_seq2seq.py).
    contrib.seq2seq = importlib.import_module("tf_seq2seq").make(v1)  # type: ignore[attr-defined]
    view.contrib = contrib  # type: ignore[attr-defined]
    sys.modules["symgrad.contrib"] = contrib
    view.set_random_seed = lambda s: v1.set_random_seed(s + seed)
    return view


def run(name: str, backend: str, seed: int) -> dict:
    """Run program ``name`` in this process and return its metrics and wall time."""
    random.seed(seed)
    import numpy as np

    np.random.seed(seed)
    _stub_matplotlib()
    if backend == "tensorflow":
        sys.modules["symgrad"] = _tensorflow_as_symgrad(seed)
    else:
        import symgrad

        original = symgrad.set_random_seed
        # A program that sets no graph-level seed draws other numbers at every run, in TF1
        # and in symgrad; the tests fix one, so that a result can be reproduced (and a test
        # cannot fail on an unlucky draw one run in ten). A program's own seed replaces it.
        # An ``unseeded`` program runs as its users run it, with none.
        if not PROGRAMS[name].unseeded:
            original(seed)
        if seed:
            symgrad.set_random_seed = lambda s: original(s + seed)
    path = os.path.join(PROGRAMS_DIR, name + ".py")
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        namespace = runpy.run_path(path, run_name="__main__")
    seconds = time.perf_counter() - start
    sys.stdout.write(out.getvalue()[-4000:])
    metrics = read_metrics(PROGRAMS[name], out.getvalue(), namespace)
    return {"metrics": metrics, "seconds": round(seconds, 3)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("--backend", choices=["symgrad", "tensorflow"], default="symgrad")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = run(args.name, args.backend, args.seed)
    print("\n" + RESULT_PREFIX + json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
