"""import_graph_def on graphs built here: every supported op type against symgrad's own op, and
bad or hostile GraphDefs (cycles, missing inputs, duplicate names, huge constants, unknown
dtypes, op types symgrad has not) refused with a ModelFileError naming what is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad import graph_import
from symgrad.tf_files import graph_files

DT_FLOAT, DT_INT32, DT_STRING = 1, 3, 7


def _graph_def() -> Any:
    return graph_files.graph_def_class()()


def _placeholder(graph_def: Any, name: str, shape: list[int] | None = None) -> None:
    node = graph_def.node.add(name=name, op="Placeholder")
    node.attr["dtype"].type = DT_FLOAT
    if shape is not None:
        for size in shape:
            node.attr["shape"].shape.dim.add(size=size)


def _const(
    graph_def: Any, name: str, values: list[float], shape: list[int], dtype: int = DT_FLOAT
) -> Any:
    node = graph_def.node.add(name=name, op="Const")
    node.attr["dtype"].type = dtype
    tensor = node.attr["value"].tensor
    tensor.dtype = dtype
    for size in shape:
        tensor.tensor_shape.dim.add(size=size)
    if dtype == DT_FLOAT:
        tensor.float_val.extend(values)
    elif dtype == DT_INT32:
        tensor.int_val.extend(int(v) for v in values)
    return node


def _refused(graph_def: Any, *words: str) -> sg.errors.ModelFileError:
    graph = sg.Graph()
    with graph.as_default(), pytest.raises(sg.errors.ModelFileError) as error:
        sg.import_graph_def(graph_def)
    for word in words:
        assert word in str(error.value), str(error.value)
    assert isinstance(error.value, ValueError)
    return error.value


def test_a_small_graph_imports_under_a_scope_with_input_map_and_return_elements() -> None:
    graph_def = _graph_def()
    _placeholder(graph_def, "x", [-1, 2])
    _const(graph_def, "w", [1.0, 2.0, 3.0, 4.0], [2, 2])
    matmul = graph_def.node.add(name="dense/MatMul", op="MatMul", input=["x", "w"])
    matmul.attr["transpose_b"].b = True
    graph_def.node.add(name="out", op="Relu", input=["dense/MatMul"])
    with sg.Graph().as_default():
        fed = sg.constant([[1.0, -1.0]], name="fed")
        (out, op) = sg.import_graph_def(
            graph_def, input_map={"x:0": fed}, return_elements=["out:0", "dense/MatMul"], name="net"
        )
        assert out.name == "net/out:0" and op.name == "net/dense/MatMul"
        with sg.Session() as sess:
            assert sess.run(out).tolist() == [[0.0, 0.0]]  # relu([[1-2, 3-4]])
        # twice: the second import's scope is made unique, as TF1 makes it
        (again,) = sg.import_graph_def(
            graph_def, input_map={"x": fed}, return_elements=["out:0"], name="net"
        )
        assert again.name == "net_1/out:0"


def test_gradients_of_an_imported_graph() -> None:
    graph_def = _graph_def()
    _placeholder(graph_def, "x", [3])
    graph_def.node.add(name="y", op="Tanh", input=["x"])
    with sg.Graph().as_default():
        x, y = sg.import_graph_def(graph_def, return_elements=["x:0", "y:0"], name="")
        (grad,) = sg.gradients(sg.reduce_sum(y), [x])
        value = np.array([0.5, -1.0, 2.0], np.float32)
        np.testing.assert_allclose(sg.compile(grad, [x])(value), 1 - np.tanh(value) ** 2, rtol=1e-6)


def test_a_cycle_is_refused() -> None:
    graph_def = _graph_def()
    graph_def.node.add(name="a", op="Identity", input=["b"])
    graph_def.node.add(name="b", op="Identity", input=["a"])
    _refused(graph_def, "cycle", "while loops")


def test_a_missing_input_is_refused() -> None:
    graph_def = _graph_def()
    graph_def.node.add(name="a", op="Identity", input=["nowhere:0"])
    _refused(graph_def, "'a'", "'nowhere'")


def test_two_nodes_of_one_name_are_refused() -> None:
    graph_def = _graph_def()
    _placeholder(graph_def, "x")
    _placeholder(graph_def, "x")
    _refused(graph_def, "one name")


def test_a_huge_declared_constant_is_refused_before_anything_is_made() -> None:
    graph_def = _graph_def()
    _const(graph_def, "big", [1.0], [10**9, 10**9])  # one value "repeated" over 10**18
    _refused(graph_def, "'big'", "larger than symgrad reads")


def test_a_negative_size_and_a_wrong_value_count_are_refused() -> None:
    graph_def = _graph_def()
    _const(graph_def, "bad", [1.0, 2.0, 3.0], [2, 2])
    _refused(graph_def, "'bad'", "cannot be read")
    graph_def = _graph_def()
    node = _const(graph_def, "negative", [1.0], [2])
    node.attr["value"].tensor.tensor_shape.dim[0].size = -3
    _refused(graph_def, "negative size")


def test_a_string_constant_is_refused_naming_the_node() -> None:
    graph_def = _graph_def()
    _const(graph_def, "name", [], [], dtype=DT_STRING)
    _refused(graph_def, "'name'", "DT_STRING")


def test_every_unsupported_op_type_is_named_once() -> None:
    graph_def = _graph_def()
    _placeholder(graph_def, "x")
    graph_def.node.add(name="loop/Enter", op="Enter", input=["x"])
    graph_def.node.add(name="q", op="FIFOQueueV2")
    graph_def.node.add(name="q2", op="FIFOQueueV2")
    error = _refused(
        graph_def, "2 op type(s)", "Enter (e.g. 'loop/Enter')", "FIFOQueueV2 (e.g. 'q')"
    )
    assert "q2" not in str(error)


def test_a_bad_attribute_is_an_error_naming_the_node() -> None:
    graph_def = _graph_def()
    _placeholder(graph_def, "x", [2, 2])
    node = graph_def.node.add(name="pool", op="MaxPool", input=["x"])
    node.attr["ksize"].list.i.extend([1, 2, 2, 1])
    node.attr["strides"].list.i.extend([1, 1, 1, 1])
    node.attr["padding"].s = b"SAME"
    _refused(graph_def, "'pool'", "MaxPool")


def test_the_builders_cover_the_frozen_graphs_of_the_fixtures() -> None:
    """Every op type of the TF-written frozen graphs has a builder (the fixtures' lists)."""
    root = Path(__file__).parent / "tf_files" / "models"
    for model in ("mlp", "cnn", "lstm", "batch_norm"):
        ops = json.loads((root / model / "expected.json").read_text())["frozen_graph"]["ops"]
        assert set(ops) <= set(graph_import.BUILDERS), model


def test_a_saved_model_folder_without_the_tags_lists_those_it_has(tmp_path: Path) -> None:
    source = Path(__file__).parent / "tf_files" / "models" / "mlp" / "saved_model"
    with sg.Graph().as_default(), sg.Session() as sess:
        with pytest.raises(
            sg.errors.ModelFileError, match=r"no meta graph tagged \['train'\].*\['serve'\]"
        ):
            sg.saved_model.loader.load(sess, ["train"], str(source))
        with pytest.raises(sg.errors.ModelFileError, match="no SavedModel folder"):
            sg.saved_model.loader.load(sess, ["serve"], str(tmp_path / "none"))
    assert sg.saved_model.loader.maybe_saved_model_directory(source)
    assert not sg.saved_model.loader.maybe_saved_model_directory(tmp_path)
