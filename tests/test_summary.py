"""TensorBoard summaries: event files written through tensorboardX, read back by TensorBoard's
own event reader (what ``tensorboard --logdir`` runs), not by anything symgrad wrote."""

from __future__ import annotations

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
