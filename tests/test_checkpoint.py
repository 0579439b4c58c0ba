"""train.Saver: round trips, max_to_keep, the state file, clear errors, crash safety, fresh processes."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg

ROOT = Path(__file__).resolve().parents[1]

# The files of one checkpoint in each format (the data files, then the index).
FILES = {"tf": (".data-00000-of-00001", ".index", ".meta"), "npz": (".index.json", ".npz")}


@pytest.fixture(params=["tf", "npz"])
def checkpoint_format(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test that takes it runs with Savers of either format (the default one chosen)."""
    monkeypatch.setattr(sg.checkpoint, "default_format", lambda: request.param)
    return str(request.param)


def _model() -> dict:
    x = sg.placeholder(sg.float64, shape=[None, 4], name="x")
    y = sg.placeholder(sg.float64, shape=[None], name="y")
    with sg.name_scope("layer"):
        w = sg.Variable(np.linspace(-1.0, 1.0, 12).reshape(4, 3), name="weights")
        b = sg.Variable(np.zeros(3, np.float32), name="biases")
    step = sg.train.get_or_create_global_step()
    pred = sg.reduce_sum(sg.tanh(sg.matmul(x, w) + sg.cast(b, sg.float64)), axis=1)
    loss = sg.reduce_mean((pred - y) ** 2)
    train = sg.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return {"x": x, "y": y, "w": w, "b": b, "step": step, "pred": pred, "train": train}


def _batch() -> dict:
    rng = np.random.default_rng(0)
    return {"x": rng.standard_normal((8, 4)), "y": rng.standard_normal(8)}


def test_save_restore_round_trip_is_bit_exact_and_keeps_max_to_keep(
    tmp_path: Path, checkpoint_format: str
) -> None:
    batch = _batch()
    with sg.Graph().as_default():
        m = _model()
        saver = sg.train.Saver(max_to_keep=3)
        feed = {m["x"]: batch["x"], m["y"]: batch["y"]}
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            saved = {}
            for _ in range(5):
                sess.run(m["train"], feed)
                path = saver.save(sess, tmp_path / "model.ckpt", global_step=m["step"])
                saved[path] = sess.run({"w": m["w"], "b": m["b"]})
        assert path == str(tmp_path / "model.ckpt-5")
        assert [Path(p).name for p in saver.last_checkpoints] == [
            "model.ckpt-3",
            "model.ckpt-4",
            "model.ckpt-5",
        ]
        names = sorted(p.name for p in tmp_path.iterdir())
        assert names == ["checkpoint"] + [
            f"model.ckpt-{s}{suffix}" for s in (3, 4, 5) for suffix in FILES[checkpoint_format]
        ]
        # TF's text format, paths relative to the folder (the folder can move).
        assert (tmp_path / "checkpoint").read_text().splitlines() == [
            'model_checkpoint_path: "model.ckpt-5"',
            'all_model_checkpoint_paths: "model.ckpt-3"',
            'all_model_checkpoint_paths: "model.ckpt-4"',
            'all_model_checkpoint_paths: "model.ckpt-5"',
        ]
        state = sg.train.get_checkpoint_state(tmp_path)
        assert state is not None and state.model_checkpoint_path == path
        assert sg.train.latest_checkpoint(tmp_path) == path
        # Any NumPy reads the data file (the index says what it holds); TensorFlow reads its own.
        if checkpoint_format == "npz":
            with np.load(path + ".npz") as archive:
                arrays = {name: archive[name] for name in archive.files}
        else:
            arrays = sg.tf_files.read_bundle(path)
        assert sorted(arrays) == ["global_step", "layer/biases", "layer/weights"]
        assert arrays["layer/biases"].dtype == np.float32
        assert sg.train.list_variables(tmp_path) == [
            ("global_step", []),
            ("layer/biases", [3]),
            ("layer/weights", [4, 3]),
        ]
        for prefix in (str(tmp_path / "model.ckpt-4"), path):
            with sg.Session() as fresh:
                saver.restore(fresh, prefix)
                got = fresh.run({"w": m["w"], "b": m["b"]})
                assert got["w"].tobytes() == saved[prefix]["w"].tobytes()
                assert got["b"].tobytes() == saved[prefix]["b"].tobytes()
                assert fresh.run(m["step"]) == int(prefix.rsplit("-", 1)[1])


def test_var_list_as_dict_and_list(tmp_path: Path, checkpoint_format: str) -> None:
    with sg.Graph().as_default():
        m = _model()
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            m["w"].load(np.full((4, 3), 7.0), sess)
            sg.train.Saver({"renamed": m["w"]}).save(sess, tmp_path / "a")
            sg.train.Saver([m["b"]]).save(sess, tmp_path / "b")
        assert [n for n, _ in sg.train.list_variables(tmp_path / "a")] == ["renamed"]
        assert sg.train.load_variable(tmp_path / "a", "renamed")[0, 0] == 7.0
        assert [n for n, _ in sg.train.list_variables(tmp_path / "b")] == ["layer/biases"]
        with sg.Session() as fresh:
            sg.train.Saver({"renamed": m["w"]}).restore(fresh, str(tmp_path / "a"))
            assert fresh.run(m["w"])[3, 2] == 7.0


def test_restore_errors_name_the_variable_and_change_nothing(
    tmp_path: Path, checkpoint_format: str
) -> None:
    with sg.Graph().as_default():
        w = sg.Variable(np.ones(3), name="w")
        sg.Variable(np.ones(2, np.float32), name="v")
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            good = sg.train.Saver().save(sess, tmp_path / "good")
            sg.train.Saver([w]).save(sess, tmp_path / "only_w")
    with sg.Graph().as_default():
        w = sg.Variable(np.zeros(3), name="w")
        sg.Variable(np.zeros(2, np.float32), name="v")
        saver = sg.train.Saver()
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            with pytest.raises(sg.errors.CheckpointError, match=r"'v:0'.*only_w"):
                saver.restore(sess, str(tmp_path / "only_w"))
            assert sess.run(w).tolist() == [0.0, 0.0, 0.0]  # nothing half-restored
            with pytest.raises(sg.errors.CheckpointError, match="no checkpoint at"):
                saver.restore(sess, str(tmp_path / "missing"))
            data = Path(good + FILES[checkpoint_format][checkpoint_format == "npz"])
            data.write_bytes(data.read_bytes()[:-4])  # cut short
            with pytest.raises(sg.errors.CheckpointError, match=r"truncated|shorter|size"):
                saver.restore(sess, good)
            assert sess.run(w).tolist() == [0.0, 0.0, 0.0]
    with sg.Graph().as_default():
        sg.Variable(np.zeros(4), name="w")
        sg.Variable(np.zeros(2, np.float32), name="v")
        with sg.Session() as sess, pytest.raises(sg.ShapeError, match=r"'w:0'.*\(4,\).*\(3,\)"):
            sg.train.Saver().restore(sess, str(tmp_path / "only_w"))
    with sg.Graph().as_default():
        sg.Variable(np.zeros(3, np.float32), name="w")
        with sg.Session() as sess, pytest.raises(sg.DTypeError, match="'w:0'.*float32.*float64"):
            sg.train.Saver().restore(sess, str(tmp_path / "only_w"))


def test_a_missing_key_is_tf1s_not_found_error(tmp_path: Path, checkpoint_format: str) -> None:
    with sg.Graph().as_default():
        w = sg.Variable(np.ones(3), name="w")
        with sg.Session() as sess:
            sess.run(w.initializer)
            only_w = sg.train.Saver().save(sess, tmp_path / "only_w")
    with sg.Graph().as_default():
        sg.Variable(np.zeros(3), name="w")
        sg.Variable(np.zeros(2), name="v")
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            try:  # how TF1 programs catch it (to start from scratch)
                sg.train.Saver().restore(sess, only_w)
            except sg.errors.NotFoundError as error:
                assert isinstance(error, sg.errors.CheckpointError), type(error)
                assert "'v:0'" in str(error)
            else:
                raise AssertionError("restored a checkpoint that lacks 'v'")
    with pytest.raises(sg.errors.NotFoundError, match="no variable 'v'"):
        sg.train.load_variable(only_w, "v")


def test_save_creates_missing_folders_and_refuses_a_file_in_the_way(tmp_path: Path) -> None:
    with sg.Graph().as_default():
        w = sg.Variable(np.ones(3), name="w")
        saver = sg.train.Saver()
        with sg.Session() as sess:
            sess.run(w.initializer)
            path = saver.save(sess, tmp_path / "a" / "b" / "model.ckpt", global_step=3)
            assert sg.train.latest_checkpoint(tmp_path / "a" / "b") == path
            (tmp_path / "file").write_text("in the way")
            with pytest.raises(sg.errors.FileAccessError, match="a file is in the way"):
                saver.save(sess, tmp_path / "file" / "model.ckpt")


def test_no_checkpoint_yet() -> None:
    assert sg.train.latest_checkpoint("/nonexistent/folder") is None
    assert sg.train.get_checkpoint_state("/nonexistent/folder") is None


def test_failed_save_leaves_no_temporary_file(
    tmp_path: Path, checkpoint_format: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with sg.Graph().as_default():
        w = sg.Variable(np.ones(3), name="w")
        saver = sg.train.Saver()
        with sg.Session() as sess:
            sess.run(w.initializer)
            first = saver.save(sess, tmp_path / "m", global_step=1)
            before = sorted(p.name for p in tmp_path.iterdir())

            def broken(*args: object, **kwargs: object) -> None:
                raise KeyboardInterrupt  # Ctrl-C in the middle of writing the files

            with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):
                if checkpoint_format == "npz":  # the data file
                    patch.setattr(np.lib.format, "write_array", broken)
                else:  # the index, once the data file is written
                    patch.setattr(sg.tf_files.bundle, "_index_table", broken)
                saver.save(sess, tmp_path / "m", global_step=2)
            assert sorted(p.name for p in tmp_path.iterdir()) == before
            assert sg.train.latest_checkpoint(tmp_path) == first


# --- SIGKILL in the middle of save ---------------------------------------------------------------

KILLS = 50


def _digest(values: list) -> str:
    return hashlib.sha256(b"".join(np.ascontiguousarray(v).tobytes() for v in values)).hexdigest()


def _train_and_save_until_killed(folder: Path, log: Path) -> None:
    """The child: resume from the newest checkpoint, then train and save every 2 steps."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[None, 256], name="x")
        w = sg.Variable(np.full((256, 256), 0.01), name="w")
        v = sg.Variable(np.ones(256), name="v")
        step = sg.train.get_or_create_global_step()
        loss = sg.reduce_mean(sg.tanh(sg.matmul(x, w) + v) ** 2)
        train = sg.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
        saver = sg.train.Saver(max_to_keep=3)
        batch = np.random.default_rng(0).standard_normal((16, 256))
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            latest = sg.train.latest_checkpoint(folder)
            if latest is not None:
                saver.restore(sess, latest)
                state = sg.train.get_checkpoint_state(folder)
                assert state is not None
                saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
            with open(log, "a") as out:
                while True:
                    sess.run(train, {x: batch})
                    if sess.run(step) % 2 == 0:
                        values = sess.run([step, w, v])
                        out.write(f"start {int(values[0])} {_digest(values)}\n")
                        out.flush()
                        saver.save(sess, folder / "model.ckpt", global_step=step)
                        out.write(f"done {int(values[0])}\n")
                        out.flush()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork (POSIX)")
def test_sigkill_during_save_always_leaves_the_last_complete_checkpoint(tmp_path: Path) -> None:
    """50 times: a child trains and saves; it is SIGKILLed at a random moment; the newest
    checkpoint must restore to exactly the values logged for its step, and be no older than
    the last save that finished. The next child resumes from it (a restarted job)."""
    folder, log = tmp_path / "ckpt", tmp_path / "log.txt"
    folder.mkdir()
    rng = random.Random(16)
    killed_mid_write = 0
    for _ in range(KILLS):
        ready = log.stat().st_size if log.exists() else 0
        pid = os.fork()
        if pid == 0:  # the child never returns into pytest
            try:
                _train_and_save_until_killed(folder, log)
            finally:
                os._exit(1)
        try:
            deadline = time.monotonic() + 60
            while (log.stat().st_size if log.exists() else 0) == ready:  # its first save started
                assert time.monotonic() < deadline, "the child never saved"
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.25))
        finally:  # never leave a child behind, even when an assertion fails
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        if any(p.name.endswith(".tmp") for p in folder.iterdir()):
            killed_mid_write += 1
        lines = log.read_text().splitlines()
        logged = {int(p[1]): p[2] for p in (ln.split() for ln in lines) if p[0] == "start"}
        finished = [int(ln.split()[1]) for ln in lines if ln.startswith("done")]
        latest = sg.train.latest_checkpoint(folder)
        if latest is None:  # killed inside the very first save (a loaded machine is slow)
            assert not finished
            continue
        arrays = sg.checkpoint.read_checkpoint(latest)
        saved_step = int(arrays["global_step"])
        assert saved_step <= max(logged)
        if finished:
            assert saved_step >= max(finished)
        assert _digest([arrays["global_step"], arrays["w"], arrays["v"]]) == logged[saved_step]
        state = sg.train.get_checkpoint_state(folder)
        assert state is not None and len(state.all_model_checkpoint_paths) <= 3
        assert all(sg.train.checkpoint_exists(p) for p in state.all_model_checkpoint_paths)
    # The kills did land inside writes (else this test would prove nothing).
    print(f"{killed_mid_write} of {KILLS} kills landed inside a file write")
    assert killed_mid_write >= 5, killed_mid_write


# --- a fresh process and a fresh graph ---------------------------------------------------------

_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import symgrad as sg
    sys.path.insert(0, {tests!r})
    from test_checkpoint import _batch, _model

    mode, folder = sys.argv[1], sys.argv[2]
    batch = _batch()
    m = _model()
    saver = sg.train.Saver()
    with sg.Session() as sess:
        if mode == "train":
            sess.run(sg.global_variables_initializer())
            for _ in range(20):
                sess.run(m["train"], {{m["x"]: batch["x"], m["y"]: batch["y"]}})
            saver.save(sess, folder + "/model.ckpt", global_step=m["step"])
        else:
            saver.restore(sess, sg.train.latest_checkpoint(folder))
        print(sess.run(m["pred"], {{m["x"]: batch["x"]}}).tobytes().hex())
    """
)


def test_restore_in_a_fresh_process_gives_bit_identical_predictions(tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(_SCRIPT.format(tests=str(Path(__file__).parent)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(mode: str) -> str:
        done = subprocess.run(
            [sys.executable, str(script), mode, str(tmp_path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    trained = run("train")
    assert trained and run("restore") == trained
    # The default format (TensorFlow's, the tf-files extra being installed here).
    index = sg.tf_files.read_bundle_index(tmp_path / "model.ckpt-20")
    assert index["global_step"].dtype == np.int64 and index["global_step"].shape == ()
