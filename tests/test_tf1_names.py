"""A TF1 name symgrad does not provide raises an AttributeError that says so and what to use
instead; every other missing name gets Python's usual message (issue 15, item 8)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pickle
import re
from pathlib import Path
from types import ModuleType

import pytest

import symgrad as sg
from symgrad.errors import MissingTF1NameError, SymgradError
from symgrad.tf1_names import SUBSTITUTES, tf1_names

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# The MkDocs hook that prints SUBSTITUTES into docs/coming-from-tf1.md when the site is built.
TABLE_HOOK = ROOT / "docs" / "hooks" / "tf1_table.py"
# TF1 namespace -> the symgrad module that mirrors it.
MODULES = {
    "": "symgrad",
    "nn": "symgrad.nn",
    "math": "symgrad.math",
    "train": "symgrad.train",
    "losses": "symgrad.losses",
    "linalg": "symgrad.linalg",
    "metrics": "symgrad.metrics",
    "image": "symgrad.image",
    "data": "symgrad.data",
    "contrib": "symgrad.contrib",
    "contrib.layers": "symgrad.contrib.layers",
    "contrib.rnn": "symgrad.contrib.rnn",
    "contrib.seq2seq": "symgrad.contrib.seq2seq",
    "contrib.legacy_seq2seq": "symgrad.contrib.legacy_seq2seq",
    "nn.rnn_cell": "symgrad.rnn_cell",
}


@pytest.mark.parametrize(
    "module, name, substitute",
    [
        (sg.contrib, "crf", "not available"),
        (sg.contrib.rnn, "static_bidirectional_rnn", "`tf.nn.bidirectional_dynamic_rnn`"),
        (sg.nn.rnn_cell, "ResidualWrapper", "`output + inputs`"),
        (sg, "py_func", "compute it with NumPy"),
        (sg.nn, "ctc_loss", "not available"),
        (sg.train, "MonitoredTrainingSession", "`tf.Session` and a training loop"),
        (sg.contrib.layers, "fully_connected", "`tf.layers.dense`"),
        (sg.linalg, "inv", "NumPy outside the graph"),
        (sg.linalg, "svd", "NumPy outside the graph"),
        (sg.train, "ProximalAdagradOptimizer", "`tf.train.AdagradOptimizer`"),
        (sg.metrics, "mean_squared_error", "`tf.metrics.mean(tf.square(labels - predictions))`"),
        (sg.image, "resize_bicubic", "`tf.image.resize_bilinear`"),
    ],
)
def test_a_missing_tf1_name_says_what_to_use(module, name: str, substitute: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AttributeError) as caught:
        getattr(module, name)
    error = caught.value
    assert isinstance(error, MissingTF1NameError) and isinstance(error, SymgradError)
    text = str(error)
    assert "is a TF1 name that symgrad does not provide" in text
    assert substitute in text and "Coming from TF1" in text


def test_a_tf1_name_without_an_entry_still_points_to_the_readme() -> None:
    assert "Variable" not in SUBSTITUTES and "ConditionalAccumulator" in tf1_names("")
    with pytest.raises(
        MissingTF1NameError, match=r"tf\.ConditionalAccumulator is a TF1 name.*Coming from TF1"
    ):
        sg.ConditionalAccumulator  # noqa: B018


@pytest.mark.parametrize("module_name", sorted(set(MODULES.values())))
def test_other_names_get_pythons_message(module_name: str) -> None:
    module = importlib.import_module(module_name)
    with pytest.raises(AttributeError) as caught:
        module.no_such_tf1_name  # noqa: B018
    assert not isinstance(caught.value, SymgradError)
    assert str(caught.value) == f"module {module_name!r} has no attribute 'no_such_tf1_name'"
    # Dunder probes (pickle, copy, doctest, inspect) are ordinary misses too.
    assert not hasattr(module, "__wrapped__")
    assert not hasattr(module, "__test__")


def test_introspection_keeps_working() -> None:
    assert hasattr(sg, "get_variable") and not hasattr(sg, "py_func")
    assert "get_variable" in dir(sg) and "RMSPropOptimizer" in dir(sg.train)
    namespace: dict = {}
    exec("from symgrad import *", namespace)
    assert namespace["variable_scope"] is sg.variable_scope
    assert pickle.loads(pickle.dumps(sg.train.exponential_decay)) is sg.train.exponential_decay
    assert doctest.DocTestFinder().find(sg.contrib.layers)


@pytest.mark.parametrize("qualified", sorted(SUBSTITUTES))
def test_the_table_lists_tf1_names_symgrad_lacks(qualified: str) -> None:
    namespace, _, name = qualified.rpartition(".")
    assert name in tf1_names(namespace), f"tf.{qualified} is not a TF1 name"
    module = importlib.import_module(MODULES[namespace])
    # A name symgrad gained must leave the table (the docs print it when they are built).
    assert not hasattr(module, name), f"symgrad has tf.{qualified} now: drop it from the table"


def _table_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tf1_table", TABLE_HOOK)
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    return hook


def test_the_docs_print_the_table() -> None:
    """docs/coming-from-tf1.md holds a marker that the hook replaces with SUBSTITUTES, so the
    page's "What is not there" section is this table; the README points there."""
    hook = _table_hook()
    page = (ROOT / "docs" / hook.PAGE).read_text(encoding="utf-8")
    assert page.count(hook.MARKER) == 1 and "| `tf.cond` |" not in page
    section = hook.render(page).split("## What is not there", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `tf\.([A-Za-z0-9_.]+)` \| (.+) \|$", section, re.MULTILINE)
    assert dict(rows) == SUBSTITUTES and len(rows) == len(SUBSTITUTES)
    readme = README.read_text(encoding="utf-8")
    assert "## Coming from TF1" in readme
    assert "(docs/coming-from-tf1.md#what-is-not-there)" in readme
