"""TensorBoard summaries: event files written through tensorboardX, read back by TensorBoard's
own event reader (what ``tensorboard --logdir`` runs), not by anything symgrad wrote."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg

pytest.importorskip("tensorboardX")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


def test_scalars_histograms_images_and_graph_read_back_by_tensorboard(tmp_path: Path) -> None:
    with sg.Graph().as_default() as graph:
        x = sg.placeholder(sg.float32, shape=[None], name="x")
        w = sg.Variable(0.0, name="w")
        loss = sg.reduce_mean((x * w - 2.0 * x) ** 2)
        train = sg.train.GradientDescentOptimizer(0.05).minimize(loss)
        sg.summary.scalar("loss", loss)
        sg.summary.histogram("residual", x * w - 2.0 * x)
        sg.summary.image("picture", sg.reshape(sg.sigmoid(x), [1, 2, 2, 1]) * sg.ones([1, 2, 2, 3]))
        merged = sg.summary.merge_all()
        weight = sg.summary.merge([sg.summary.scalar("weight", w, collections=[])])
        writer = sg.summary.FileWriter(tmp_path, graph)
        data = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
        losses = {}
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            for step in range(0, 30, 3):
                summary, value = sess.run([merged, loss], {x: data})
                assert isinstance(summary, bytes)
                writer.add_summary(summary, global_step=step)
                writer.add_summary(sess.run(weight), global_step=step)
                losses[step] = float(value)
                for _ in range(3):
                    sess.run(train, {x: data})
        writer.close()

    reader = event_accumulator.EventAccumulator(
        str(tmp_path), size_guidance={event_accumulator.SCALARS: 0, event_accumulator.IMAGES: 0}
    )
    reader.Reload()
    tags = reader.Tags()
    assert set(tags["scalars"]) == {"loss", "weight"}
    events = reader.Scalars("loss")
    assert [e.step for e in events] == sorted(losses)
    np.testing.assert_allclose(
        [e.value for e in events], [losses[s] for s in sorted(losses)], rtol=1e-6
    )
    assert events[-1].value < events[0].value  # the loss curve goes down
    assert [e.value for e in reader.Scalars("weight")][0] == 0.0
    assert tags["histograms"] == ["residual"]
    assert reader.Histograms("residual")[0].histogram_value.num == 4
    assert tags["images"] == ["picture/image"]
    assert reader.Images("picture/image")[0].width == 2
    assert tags["graph"] is True
    names = {node.name: node for node in reader.Graph().node}
    assert names["w"].op == "VariableV2" and "x" in names


def test_add_summary_of_a_graph_summary_says_to_run_it(tmp_path: Path) -> None:
    with sg.Graph().as_default():
        s = sg.summary.scalar("c", sg.constant(1.0))
        with (
            sg.summary.FileWriter(tmp_path) as writer,
            pytest.raises(sg.InvalidArgumentError, match="sess.run"),
        ):
            writer.add_summary(s, 0)


# --- no writer truncates another's file ------------------------------------------------------------

event_file_loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")


def _records(logdir: Path) -> dict[str, int]:
    """Records per event file, as TensorBoard's own loader reads them."""
    return {
        path.name: sum(1 for _ in event_file_loader.RawEventFileLoader(str(path)).Load())
        for path in sorted(logdir.iterdir())
    }


def _scalar_steps(logdir: Path, tag: str) -> list[int]:
    """The steps of every ``tag`` value TensorBoard reads from the folder (all its files)."""
    reader = event_accumulator.EventAccumulator(
        str(logdir), size_guidance={event_accumulator.SCALARS: 0}, purge_orphaned_data=False
    )
    reader.Reload()
    return sorted(e.step for e in reader.Scalars(tag))


def test_two_runs_within_one_second_keep_both_runs_records(tmp_path: Path) -> None:
    """The loop of a program that trains twice in one process, each run opening a FileWriter
    on one folder: 100 repetitions, each leaving both runs' records in two files."""
    with sg.Graph().as_default() as graph:
        x = sg.placeholder(sg.float32, [])
        summary = sg.summary.scalar("x", x)
        with sg.Session() as sess:
            values = [sess.run(summary, {x: float(i)}) for i in range(5)]
        for repetition in range(100):
            logdir = tmp_path / str(repetition)
            for _ in range(2):
                writer = sg.summary.FileWriter(logdir, graph)
                for i, value in enumerate(values):
                    writer.add_summary(value, i)
                writer.close()
            records = _records(logdir)
            # each file: its version record, the graph and the five summaries
            assert list(records.values()) == [7, 7], records
    assert _scalar_steps(tmp_path / "0", "x") == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_writers_in_ten_threads_lose_no_record(tmp_path: Path) -> None:
    with sg.Graph().as_default():
        summary = sg.summary.scalar("loss", sg.constant(1.0))
        with sg.Session() as sess:
            value = sess.run(summary)
    barrier = threading.Barrier(10)

    def write(thread: int) -> None:
        barrier.wait()
        with sg.summary.FileWriter(tmp_path, max_queue=3) as writer:
            for step in range(50):
                writer.add_summary(value, thread * 1000 + step)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = _records(tmp_path)
    assert len(records) == 10 and set(records.values()) == {51}
    assert _scalar_steps(tmp_path, "loss") == sorted(
        t * 1000 + s for t in range(10) for s in range(50)
    )


_WRITER_PROCESS = """
import sys
import symgrad as sg
with sg.Graph().as_default():
    summary = sg.summary.scalar("loss", sg.constant(2.0))
    with sg.Session() as sess:
        value = sess.run(summary)
    for writer_number in range(5):
        with sg.summary.FileWriter(sys.argv[1]) as writer:
            for step in range(20):
                writer.add_summary(value, int(sys.argv[2]) * 1000 + writer_number * 100 + step)
"""


def test_two_processes_writing_into_one_folder_lose_no_record(tmp_path: Path) -> None:
    processes = [
        subprocess.Popen([sys.executable, "-c", _WRITER_PROCESS, str(tmp_path), str(number)])
        for number in range(2)
    ]
    assert [p.wait(timeout=120) for p in processes] == [0, 0]
    records = _records(tmp_path)
    assert len(records) == 10 and set(records.values()) == {21}
    expected = sorted(p * 1000 + w * 100 + s for p in range(2) for w in range(5) for s in range(20))
    assert _scalar_steps(tmp_path, "loss") == expected


def test_reopen_after_close_starts_a_new_file(tmp_path: Path) -> None:
    with sg.Graph().as_default():
        summary = sg.summary.scalar("loss", sg.constant(1.0))
        with sg.Session() as sess:
            value = sess.run(summary)
    writer = sg.summary.FileWriter(tmp_path, filename_suffix=".train")
    writer.add_summary(value, 0)
    first = writer.path
    writer.close()
    writer.add_summary(value, 1)  # dropped after close, as in TF1
    writer.reopen()
    writer.add_summary(value, 2)
    writer.close()
    assert first is not None and writer.path is not None and writer.path != first
    assert all(name.endswith(".train") for name in _records(tmp_path))
    assert sorted(_records(tmp_path).values()) == [2, 2]
    assert _scalar_steps(tmp_path, "loss") == [0, 2]


def test_buffered_records_reach_the_file_at_exit_and_on_the_flush_timer(tmp_path: Path) -> None:
    script = (
        "import sys, symgrad as sg\n"
        "s = sg.summary.scalar('loss', sg.constant(1.0))\n"
        "value = sg.Session().run(s)\n"
        "writer = sg.summary.FileWriter(sys.argv[1])\n"
        "for step in range(3):\n"
        "    writer.add_summary(value, step)\n"
    )  # never closed, never flushed
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "exit")], check=True)
    assert list(_records(tmp_path / "exit").values()) == [4]
    with sg.Graph().as_default():
        summary = sg.summary.scalar("loss", sg.constant(1.0))
        with sg.Session() as sess:
            value = sess.run(summary)
    writer = sg.summary.FileWriter(tmp_path / "timer", flush_secs=0.2)
    writer.add_summary(value, 0)
    time.sleep(1.0)
    assert list(_records(tmp_path / "timer").values()) == [2]
    writer.close()


def test_a_filename_suffix_naming_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(sg.InvalidArgumentError, match="filename_suffix"):
        sg.summary.FileWriter(tmp_path, filename_suffix="/../escape")
