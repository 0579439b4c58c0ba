"""Trained values leaving the Session: feeding, Variable.load, compile(values=...), the CLI's
--checkpoint, the export example (run without symgrad), the logger and the progress note."""

from __future__ import annotations

import importlib.util
import logging
import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from symgrad import compiler

ROOT = Path(__file__).resolve().parents[1]


def _regression() -> dict:
    x = sg.placeholder(sg.float32, shape=[None], name="x")
    w = sg.Variable(0.0, name="w")
    b = sg.Variable(0.0, name="b")
    hidden = sg.multiply(x, w, name="hidden")
    pred = sg.add(hidden, b, name="pred")
    loss = sg.reduce_mean((pred - (2.0 * x + 1.0)) ** 2)
    train = sg.train.GradientDescentOptimizer(0.1).minimize(loss)
    return {"x": x, "w": w, "b": b, "hidden": hidden, "pred": pred, "train": train}


def test_feeds_run_dict_and_load_follow_tf1() -> None:
    with sg.Graph().as_default():
        m = _regression()
        data = np.array([1.0, 2.0, 3.0], np.float32)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            for _ in range(100):
                sess.run(m["train"], {m["x"]: data})
            snapshot = sess.run({"w": m["w"], "b": m["b"]})
            assert abs(snapshot["w"] - 2.0) < 0.05 and abs(snapshot["b"] - 1.0) < 0.1
            # A fed variable replaces its value for that run only.
            fed = sess.run(m["pred"], {m["x"]: data, m["w"]: 10.0})
            np.testing.assert_allclose(fed, 10.0 * data + snapshot["b"], rtol=1e-6)
            assert sess.run(m["w"]) == snapshot["w"]
            # A fed intermediate tensor replaces its computation: x is not needed.
            np.testing.assert_allclose(
                sess.run(m["pred"], {m["hidden"]: [5.0, 6.0]}), np.array([5.0, 6.0]) + snapshot["b"]
            )
            # A training step that would store an update of the fed w is refused, as in TF1,
            # and stores nothing.
            with pytest.raises(sg.InvalidArgumentError, match="'w:0' is fed, and this run"):
                sess.run(m["train"], {m["x"]: data, m["w"]: 0.0})
            assert sess.run(m["w"]) == snapshot["w"]
            # A fed Assign tensor is not run: the variable keeps its value.
            before = sess.run(m["b"])
            bump = m["b"].assign_add(1.0)
            assert sess.run(bump, {bump: 7.0}) == 7.0 and sess.run(m["b"]) == before
            m["w"].load(3.0, sess)
            assert sess.run(m["w"]) == np.float32(3.0)


def test_compile_values_bakes_trained_weights_and_stale_defaults_warn(tmp_path: Path) -> None:
    with sg.Graph().as_default():
        m = _regression()
        stale = sg.compile(m["pred"], name="stale")
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                stale(x=[1.0])  # not trained yet: the initial value is the value
            for _ in range(50):
                sess.run(m["train"], {m["x"]: [1.0, 2.0]})
            expected = sess.run(m["pred"], {m["x"]: [1.0, 2.0]})
            trained_b = sess.run(m["b"])
            with pytest.warns(sg.errors.StaleValueWarning, match=r"'w:0', 'b:0'.*values=sess"):
                stale(x=[1.0, 2.0])
            exported = sg.compile(m["pred"], name="exported", path=tmp_path, values=sess)
            by_name = sg.compile(
                m["pred"], name="by_name", values={"w": sess.run(m["w"]), "b:0": sess.run(m["b"])}
            )
            # Variables listed as inputs stay parameters; the others are baked in.
            partial = sg.compile(m["pred"], inputs=[m["x"], m["w"]], name="partial", values=sess)
    assert exported.input_names == ["x"] and by_name.input_names == ["x"]
    assert partial.input_names == ["x", "w"]
    assert np.array_equal(exported([1.0, 2.0]), expected)
    assert np.array_equal(by_name([1.0, 2.0]), expected)
    np.testing.assert_allclose(
        partial([1.0, 2.0], np.float32(1.5)), 1.5 * np.array([1.0, 2.0]) + trained_b, rtol=1e-6
    )


def test_logger_reports_each_compile_and_long_compiles_print_a_note(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiler, "PROGRESS_AFTER_SECONDS", 0.0)
    with sg.Graph().as_default(), caplog.at_level(logging.INFO, logger="symgrad"):
        x = sg.placeholder(sg.float64, name="x")
        sg.compile(sg.tanh(x) * 2.0, name="noted")
    assert any(
        "compiled noted:" in r.getMessage() and "graph ops" in r.getMessage()
        for r in caplog.records
    )
    assert "symgrad: compiled 'noted' in" in capsys.readouterr().err


def test_logger_is_silent_by_default() -> None:
    script = (
        "import symgrad as sg\n"
        "x = sg.placeholder(sg.float64, name='x')\n"
        "sg.compile(x * 2.0, name='quiet')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_export_example_predicts_the_same_without_symgrad_and_from_the_cli(
    tmp_path: Path,
) -> None:
    pytest.importorskip("sklearn", reason="the digits examples need scikit-learn (test extra)")
    example = runpy.run_path(str(ROOT / "examples" / "export_trained.py"), run_name="export")
    module_path, session_logits, accuracy = example["train_and_export"](epochs=10, output=tmp_path)
    assert accuracy >= 0.95
    assert "import symgrad" not in module_path.read_text()
    _, _, x_test, _ = example["load_digits"]()
    standalone = example["run_without_symgrad"](module_path, x_test)
    assert np.array_equal(np.argmax(standalone, 1), np.argmax(session_logits, 1))
    assert np.array_equal(standalone, session_logits)  # bit for bit
    # The same module from the checkpoints alone, on the command line.
    out = tmp_path / "from_checkpoint.py"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "symgrad",
            "compile",
            "examples/export_trained.py:predictions",
            "--checkpoint",
            str(tmp_path / "digits_checkpoints"),
            "-o",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    spec = importlib.util.spec_from_file_location("from_checkpoint", out)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert np.array_equal(module.predictions(x_test), session_logits)
