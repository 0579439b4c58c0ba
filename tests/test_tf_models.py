"""Models TensorFlow trained and wrote, brought into symgrad: checkpoints restored into the same
program (and written back as TensorFlow wrote them), training resumed from them, frozen graphs
and SavedModels imported, and meta graphs.

The fixtures are in ``tests/tf_files/models/`` (an MLP, the MNIST CNN, an LSTM classifier and a
batch-norm network), written by TensorFlow 2.21 ``compat.v1`` with
``tests/tf_files/models/record_models.py``, which also recorded every value checked here.
"""

from __future__ import annotations

import hashlib
import json
import runpy
import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad.tf_files import graph_files
from tests.tf_files.models import record_models

MODELS_DIR = Path(__file__).parent / "tf_files" / "models"
MODELS = ["mlp", "cnn", "lstm", "batch_norm"]
# float32 values computed in another order than TF's kernels: rounding apart, no more.
RTOL, ATOL = 2e-5, 2e-6


def _expected(model: str) -> dict[str, Any]:
    return json.loads((MODELS_DIR / model / "expected.json").read_text())


def _feed_values(expected: dict[str, Any]) -> dict[str, np.ndarray]:
    return {
        item["name"]: np.asarray(item["value"], dtype=item["dtype"]) for item in expected["inputs"]
    }


def _close(got: Any, want: dict[str, Any], what: str) -> None:
    wanted = np.asarray(want["value"], dtype=want["dtype"])
    got = np.asarray(got)
    assert got.dtype == wanted.dtype, f"{what}: dtype {got.dtype}, TF {wanted.dtype}"
    np.testing.assert_allclose(got, wanted, rtol=RTOL, atol=ATOL, err_msg=what)


@pytest.fixture
def same_program(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The recorder's model builders, run with symgrad as their ``tf.compat.v1``."""
    monkeypatch.setattr(record_models, "tf1", sg)
    with sg.Graph().as_default():
        yield record_models


# --- checkpoints --------------------------------------------------------------------------------


@pytest.mark.parametrize("model", MODELS)
def test_a_tf_checkpoint_restores_into_the_same_program(model: str, same_program: Any) -> None:
    expected = _expected(model)
    built = getattr(same_program, f"build_{model}")()
    saved_names = sorted(v["name"] for v in expected["checkpoint"]["variables"])
    assert sorted(v.op.name for v in sg.global_variables()) == saved_names  # TF1's names
    folder = MODELS_DIR / model
    with sg.Session() as sess:
        sg.train.Saver().restore(sess, sg.train.latest_checkpoint(folder))
        feeds = _feed_values(expected)
        fetched = sess.run({o["name"]: o["name"] for o in expected["outputs"]}, feeds)
        for output in expected["outputs"]:
            _close(fetched[output["name"]], output, f"{model} {output['name']}")
        labels = expected["labels"]
        loss = sess.run(built["loss"], {**feeds, labels["name"]: labels["value"]})
        assert loss == pytest.approx(expected["loss"]["at_saved_step"], rel=RTOL)
        assert sess.run(built["global_step"]) == expected["checkpoint"]["global_step"]


@pytest.mark.parametrize("model", MODELS)
def test_training_resumed_from_a_tf_checkpoint_takes_tfs_steps(
    model: str, same_program: Any
) -> None:
    expected = _expected(model)
    built = getattr(same_program, f"build_{model}")()
    resume = expected["resume"]
    with sg.Session() as sess:
        sg.train.Saver().restore(sess, str(MODELS_DIR / model / expected["checkpoint"]["prefix"]))
        losses = []
        for batch in resume["batches"]:
            feeds = {**batch, **resume["extra_feeds"]}
            _, loss = sess.run([built["train_op"], built["loss"]], feeds)
            losses.append(float(loss))
        np.testing.assert_allclose(losses, resume["losses"], rtol=1e-4)
        assert sess.run(built["global_step"]) == resume["global_step_after"]


@pytest.mark.parametrize("model", MODELS)
def test_symgrads_checkpoint_of_tfs_values_is_tfs_file(
    model: str, same_program: Any, tmp_path: Path
) -> None:
    """Restored and saved again, a checkpoint is byte for byte the file TensorFlow wrote:
    TensorFlow restores what symgrad writes."""
    expected = _expected(model)
    getattr(same_program, f"build_{model}")()
    prefix = expected["checkpoint"]["prefix"]
    with sg.Session() as sess:
        saver = sg.train.Saver(checkpoint_format="tf")
        saver.restore(sess, str(MODELS_DIR / model / prefix))
        written = saver.save(sess, tmp_path / "model.ckpt", global_step=sg.train.get_global_step())
    assert Path(written).name == prefix
    for suffix in (".index", ".data-00000-of-00001"):
        assert (
            Path(written + suffix).read_bytes()
            == (MODELS_DIR / model / (prefix + suffix)).read_bytes()
        )


def test_a_checkpoint_of_other_variables_is_refused_clearly(same_program: Any) -> None:
    same_program.build_mlp()
    with sg.Session() as sess, pytest.raises(sg.errors.NotFoundError, match="'W_conv1"):
        sg.train.Saver({"W_conv1": sg.global_variables()[0]}).restore(
            sess, sg.train.latest_checkpoint(MODELS_DIR / "mlp")
        )


def test_checkpoint_reader_lists_tfs_names_shapes_and_dtypes() -> None:
    expected = _expected("batch_norm")
    reader = sg.train.NewCheckpointReader(MODELS_DIR / "batch_norm")
    shapes = reader.get_variable_to_shape_map()
    assert shapes == {v["name"]: v["shape"] for v in expected["checkpoint"]["variables"]}
    dtypes = reader.get_variable_to_dtype_map()
    assert (
        dtypes["global_step"] == sg.int64
        and dtypes["batch_normalization/moving_mean"] == sg.float32
    )
    assert reader.has_tensor("hidden/kernel/Adam_1") and not reader.has_tensor(
        "hidden/kernel/Momentum"
    )
    assert sg.train.list_variables(MODELS_DIR / "batch_norm")[0] == (
        "batch_normalization/beta",
        [8],
    )
    assert sg.train.load_variable(MODELS_DIR / "batch_norm", "global_step") == 32


def test_init_from_checkpoint_loads_a_tf_trained_layer_into_a_new_model(same_program: Any) -> None:
    expected = _expected("mlp")
    with sg.variable_scope("pretrained"):
        hidden = sg.layers.dense(sg.placeholder(sg.float32, [None, 8]), 16, name="hidden")
    sg.train.init_from_checkpoint(MODELS_DIR / "mlp", {"hidden/": "pretrained/hidden/"})
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        kernel = sess.run(sg.get_default_graph().get_tensor_by_name("pretrained/hidden/kernel:0"))
    want = sg.train.load_variable(MODELS_DIR / "mlp", "hidden/kernel")
    np.testing.assert_array_equal(kernel, want)
    assert hidden.shape.as_list() == [None, 16] and expected["model"] == "mlp"


# --- frozen graphs, meta graphs, SavedModels ------------------------------------------------------


@pytest.mark.parametrize("form", ["frozen.pb", "frozen.pbtxt"])
@pytest.mark.parametrize("model", MODELS)
def test_a_frozen_graph_computes_tfs_outputs(model: str, form: str) -> None:
    expected = _expected(model)
    graph_def = graph_files.read_graph_def(MODELS_DIR / model / form)
    with sg.Graph().as_default():
        names = [o["name"] for o in expected["outputs"]]
        outputs = sg.import_graph_def(graph_def, name="", return_elements=names)
        assert [t.name for t in outputs] == names  # TF's names, kept
        with sg.Session() as sess:
            fetched = sess.run(outputs, _feed_values(expected))
        for got, want in zip(fetched, expected["outputs"], strict=True):
            _close(got, want, f"{model} {form} {want['name']}")
        # ... and as a standalone module with the weights inside
        graph = sg.get_default_graph()
        inputs = [graph.get_tensor_by_name(item["name"]) for item in expected["inputs"]]
        module = sg.compile(outputs, inputs)
        for got, want in zip(
            module(*_feed_values(expected).values()), expected["outputs"], strict=True
        ):
            _close(got, want, f"{model} compiled {want['name']}")


@pytest.mark.parametrize("model", MODELS)
def test_import_meta_graph_then_restore_gives_tfs_outputs(model: str, tmp_path: Path) -> None:
    expected = _expected(model)
    shutil.copytree(MODELS_DIR / model, tmp_path / model)  # the folder can move
    folder = tmp_path / model
    with sg.Graph().as_default():
        saver = sg.train.import_meta_graph(str(folder / expected["checkpoint"]["meta_graph"]))
        graph = sg.get_default_graph()
        trainable = {v.op.name for v in sg.trainable_variables()}
        assert "global_step" not in trainable and "hidden/kernel/Adam" not in trainable
        with sg.Session() as sess:
            saver.restore(sess, sg.train.latest_checkpoint(folder))
            names = [o["name"] for o in expected["outputs"]]
            fetched = sess.run([graph.get_tensor_by_name(n) for n in names], _feed_values(expected))
        for got, want in zip(fetched, expected["outputs"], strict=True):
            _close(got, want, f"{model} meta graph {want['name']}")


@pytest.mark.parametrize("model", MODELS)
def test_a_saved_model_loads_and_computes_tfs_outputs(model: str) -> None:
    expected = _expected(model)
    with sg.Graph().as_default(), sg.Session() as sess:
        meta = sg.saved_model.loader.load(
            sess, [sg.saved_model.tag_constants.SERVING], str(MODELS_DIR / model / "saved_model")
        )
        signature = meta.signature_def[
            sg.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
        ]
        graph = sg.get_default_graph()
        feeds = {
            graph.get_tensor_by_name(signature.inputs[key].name): value
            for key, value in zip(signature.inputs, _feed_values(expected).values(), strict=True)
        }
        for output in expected["outputs"]:
            tensor = graph.get_tensor_by_name(signature.outputs[output["signature_key"]].name)
            _close(sess.run(tensor, feeds), output, f"{model} SavedModel {output['name']}")


def test_a_graph_with_ops_symgrad_lacks_is_refused_listing_all_of_them() -> None:
    meta = graph_files.read_meta_graph_def(
        MODELS_DIR / "cnn" / _expected("cnn")["checkpoint"]["meta_graph"]
    )
    graph = sg.Graph()
    with graph.as_default(), pytest.raises(sg.errors.ModelFileError) as error:
        sg.import_graph_def(meta.graph_def)
    message = str(error.value)
    for op in ("ApplyGradientDescent", "Conv2DBackpropFilter", "MaxPoolGrad", "ReluGrad"):
        assert op in message
    assert isinstance(error.value, ValueError)
    assert not graph.get_operations()  # refused before any op is built


@pytest.mark.parametrize(
    "damage", ["missing", "truncated", "garbage", "text_garbage"], ids=lambda d: d
)
def test_bad_graph_files_are_clear_errors(damage: str, tmp_path: Path) -> None:
    source = (MODELS_DIR / "mlp" / "frozen.pb").read_bytes()
    path = tmp_path / ("frozen.pbtxt" if damage == "text_garbage" else "frozen.pb")
    if damage == "truncated":
        path.write_bytes(source[: len(source) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\xff" * 64)
    elif damage == "text_garbage":
        path.write_text("node { name: 'x' op: \n")
    with pytest.raises(sg.errors.ModelFileError, match=str(path.name)):
        graph_files.read_graph_def(path)


@pytest.mark.parametrize("model", MODELS)
def test_training_resumed_after_import_meta_graph_takes_tfs_steps(model: str) -> None:
    """The .meta file's own train op (TF's optimizer, its hyperparameters, slots, loss and
    global step), made again with symgrad's optimizer and gradients, takes TF's next steps."""
    expected = _expected(model)
    folder = MODELS_DIR / model
    resume = expected["resume"]
    with sg.Graph().as_default():
        saver = sg.train.import_meta_graph(str(folder / expected["checkpoint"]["meta_graph"]))
        graph = sg.get_default_graph()
        train_op = graph.get_operation_by_name(expected["checkpoint"]["train_op"])
        assert sg.get_collection(sg.GraphKeys.TRAIN_OP) == [train_op]
        loss = graph.get_tensor_by_name(expected["loss"]["name"])
        with sg.Session() as sess:
            saver.restore(sess, sg.train.latest_checkpoint(folder))
            losses = []
            for batch in resume["batches"]:
                _, value = sess.run([train_op, loss], {**batch, **resume["extra_feeds"]})
                losses.append(float(value))
            step = sess.run(graph.get_tensor_by_name("global_step:0"))
            every = {v.op.name: v for v in sg.global_variables()}
            after = dict(zip(every, sess.run(list(every.values())), strict=True))
    np.testing.assert_allclose(losses, resume["losses"], rtol=1e-4)
    assert step == resume["global_step_after"]
    # Every variable (weights, slots, a batch norm's moving statistics, which the train op
    # updates through its control dependencies, as TF's does) as the same program leaves it.
    # The bias before a batch norm is the exception: its gradient is zero but for rounding
    # (the normalization subtracts it again), which Adam scales up to whole steps.
    symgrad_after = folder / "symgrad"
    for name, value in after.items():
        if model == "batch_norm" and name.startswith("hidden/bias"):
            continue
        want = sg.train.load_variable(symgrad_after, name)
        np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-6, err_msg=name)
    if model == "batch_norm":  # the train op ran the moving averages' updates
        saved = sg.train.load_variable(folder, "batch_normalization/moving_mean")
        assert not np.allclose(after["batch_normalization/moving_mean"], saved)


# --- export: a TF model as a standalone module ----------------------------------------------------


@pytest.fixture(scope="module")
def numpy_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python of a fresh virtual environment whose only package is NumPy (links to the
    installed one): no symgrad, no TensorFlow, no SymPy."""
    root = tmp_path_factory.mktemp("numpy_venv")
    venv.create(root, with_pip=False, symlinks=True)
    python = root / "bin" / "python"
    site_packages = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    installed = Path(np.__file__).resolve().parent.parent
    for entry in installed.iterdir():
        if entry.name == "numpy" or entry.name.startswith(("numpy.libs", "numpy-")):
            (site_packages / entry.name).symlink_to(entry)
    return python


def _run_standalone(
    python: Path,
    module: Path,
    function: str,
    arguments: list[Any],
    folder: Path,
    rng: int | None = None,
) -> list[np.ndarray]:
    """Call ``function`` of the generated ``module`` in ``python`` (isolated: ``-I``), with
    ``arguments`` passed through .npy files (and ``rng``, a seed, if given); its outputs, in
    order."""
    names = []
    for position, argument in enumerate(arguments):
        np.save(folder / f"argument_{position}.npy", np.asarray(argument))
        names.append(str(folder / f"argument_{position}.npy"))
    script = (
        "import runpy, sys\n"
        "import numpy as np\n"
        f"module = runpy.run_path({str(module)!r})\n"
        f"arguments = [np.load(n) for n in {names!r}] + ([{rng!r}] if {rng!r} is not None else [])\n"
        f"result = module[{function!r}](*arguments)\n"
        "outputs = result if isinstance(result, tuple) else (result,)\n"
        "loaded = {m.split('.')[0] for m in sys.modules}\n"
        "assert not loaded & {'symgrad', 'tensorflow', 'sympy'}, loaded\n"
        f"np.savez({str(folder / 'outputs.npz')!r}, *outputs)\n"
    )
    done = subprocess.run(
        [str(python), "-I", "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    with np.load(folder / "outputs.npz") as archive:
        return [archive[f"arr_{i}"] for i in range(len(archive.files))]


@pytest.mark.parametrize("form", ["frozen.pb", "meta", "saved_model"])
@pytest.mark.parametrize("model", MODELS)
def test_export_gives_a_module_computing_tfs_outputs_with_numpy_alone(
    model: str, form: str, tmp_path: Path, numpy_venv: Path
) -> None:
    expected = _expected(model)
    source = {
        "frozen.pb": MODELS_DIR / model / "frozen.pb",
        "meta": MODELS_DIR / model / expected["checkpoint"]["meta_graph"],
        "saved_model": MODELS_DIR / model / "saved_model",
    }[form]
    outputs = None if form == "saved_model" else [o["name"] for o in expected["outputs"]]
    inputs = None if form == "saved_model" else [i["name"] for i in expected["inputs"]]
    out = tmp_path / f"{model}.py"
    module = sg.export_model(source, out, inputs=inputs, outputs=outputs)
    text = out.read_text()
    assert "Made from:" in text and source.name in text and "import symgrad" not in text
    made_from = source / "saved_model.pb" if form == "saved_model" else source
    assert f"sha256 {hashlib.sha256(made_from.read_bytes()).hexdigest()}" in text
    # in order: the outputs as given, a SavedModel's by signature key
    wanted = sorted(expected["outputs"], key=lambda o: o["signature_key"])
    wanted = wanted if form == "saved_model" else expected["outputs"]
    arguments = list(_feed_values(expected).values())
    rng = 0 if module.program.random_streams else None  # the CNN's dropout (at 1.0) still draws
    got = _run_standalone(numpy_venv, out, model, arguments, tmp_path, rng)
    for value, output in zip(got, wanted, strict=True):
        _close(value, output, f"{model} exported from {form}, NumPy alone: {output['name']}")


def test_the_exported_cnn_is_a_golden_file_and_runs_with_numpy_alone(
    tmp_path: Path, symgrad_snapshot: Any, numpy_venv: Path
) -> None:
    expected = _expected("cnn")
    out = tmp_path / "mnist_cnn.py"
    sg.export_model(
        MODELS_DIR / "cnn" / "frozen.pb",
        out,
        inputs=["x:0"],
        outputs=["logits:0", "prediction:0"],
        name="mnist_cnn",
    )
    symgrad_snapshot(out.read_text(), "tests/golden/mnist_cnn_from_tf.py")
    # The dropout (kept at keep_prob 1.0) still draws: the frozen graph has its random op.
    images = list(_feed_values(expected).values())
    got = _run_standalone(numpy_venv, out, "mnist_cnn", images, tmp_path, rng=0)
    for value, output in zip(got, expected["outputs"], strict=True):
        _close(value, output, f"NumPy alone: {output['name']}")


def test_symgrad_export_on_the_command_line(tmp_path: Path) -> None:
    expected = _expected("lstm")
    out = tmp_path / "lstm_classifier.py"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "symgrad",
            "export",
            str(MODELS_DIR / "lstm" / "saved_model"),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {out}: lstm_classifier(x) -> logits"
    module = runpy.run_path(str(out))
    (logits,) = [module["lstm_classifier"](*_feed_values(expected).values())]
    _close(logits, expected["outputs"][0], "lstm from the command line")
    missing = subprocess.run(
        [sys.executable, "-m", "symgrad", "export", str(tmp_path / "none.pb"), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert missing.returncode == 2 and "no GraphDef file at" in missing.stderr


@pytest.mark.parametrize("model", MODELS)
def test_tensorflow_restores_symgrads_checkpoints_of_the_same_programs(
    model: str, same_program: Any
) -> None:
    """``symgrad/``: symgrad restored TF's checkpoint, trained on and saved its own (written by
    ``record_models.py --write-symgrad``); TensorFlow restored that into the same program and
    recorded its outputs (``--check-symgrad``). symgrad restoring the same file agrees."""
    expected = _expected(model)
    folder = MODELS_DIR / model / "symgrad"
    written = json.loads((folder / "symgrad_outputs.json").read_text())
    restored_by_tf = json.loads((folder / "tf_restored.json").read_text())
    getattr(same_program, f"build_{model}")()
    with sg.Session() as sess:
        sg.train.Saver().restore(sess, sg.train.latest_checkpoint(folder))
        fetched = sess.run(
            {o["name"]: o["name"] for o in expected["outputs"]}, _feed_values(expected)
        )
    for output in expected["outputs"]:
        name = output["name"]
        for source in (written, restored_by_tf):
            want = {"value": source["outputs"][name], "dtype": output["dtype"]}
            _close(fetched[name], want, f"{model} {name}")
    # ... and they are not TF's own values: symgrad trained three steps past them
    assert not np.allclose(
        np.asarray(restored_by_tf["outputs"][expected["outputs"][0]["name"]]),
        np.asarray(expected["outputs"][0]["value"]),
    )


@pytest.mark.parametrize("model", MODELS)
def test_tensorflow_runs_the_graphs_symgrad_writes(
    model: str, same_program: Any, tmp_path: Path
) -> None:
    """symgrad freezes the inference program (``graph_util.convert_variables_to_constants``,
    ``train.write_graph``) and saves it as a SavedModel (``saved_model.simple_save``) from its
    checkpoint in ``symgrad/``: the files are those committed there, byte for byte, which
    TensorFlow imported and loaded (``record_models.py --check-symgrad``), getting symgrad's
    outputs."""
    expected = _expected(model)
    folder = MODELS_DIR / model / "symgrad"
    written = json.loads((folder / "symgrad_outputs.json").read_text())
    by_tf = json.loads((folder / "tf_restored.json").read_text())
    sg.set_random_seed(record_models.SEEDS[model])
    inference = getattr(same_program, f"build_{model}")(training_graph=False)
    graph = sg.get_default_graph()
    with sg.Session() as sess:
        sg.train.Saver().restore(sess, sg.train.latest_checkpoint(folder))
        names = [t.op.name for t in inference["outputs"].values()]
        frozen = sg.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), names)
        sg.train.write_graph(frozen, tmp_path, "frozen.pb", as_text=False)
        sg.saved_model.simple_save(
            sess, tmp_path / "saved_model", inference["inputs"], inference["outputs"]
        )
    assert (tmp_path / "frozen.pb").read_bytes() == (folder / "frozen.pb").read_bytes()
    for path in (
        "saved_model.pb",
        "variables/variables.index",
        "variables/variables.data-00000-of-00001",
    ):
        assert (tmp_path / "saved_model" / path).read_bytes() == (
            folder / "saved_model" / path
        ).read_bytes(), path
    assert not any(node.op == "VariableV2" for node in frozen.node)
    for output in expected["outputs"]:
        name = output["name"]
        want = {"value": written["outputs"][name], "dtype": output["dtype"]}
        for label in ("frozen_graph_outputs", "saved_model_outputs"):
            _close(np.asarray(by_tf[label][name], dtype=output["dtype"]), want, f"{model} {label}")


def test_as_graph_def_refuses_ops_tf_has_no_counterpart_for_naming_them() -> None:
    with sg.Graph().as_default() as graph:
        x = sg.placeholder(sg.float32, [None, 3], name="x")
        sg.cumsum(sg.reverse(x, [1]), axis=1, name="running")
        with pytest.raises(sg.errors.ModelFileError, match=r"2 op type\(s\).*Cumsum.*ReverseV2"):
            graph.as_graph_def()


@pytest.mark.parametrize("model", MODELS)
def test_tensorflow_trains_the_meta_graph_symgrad_writes(
    model: str, same_program: Any, tmp_path: Path
) -> None:
    """``Saver.save`` writes the whole training graph as TF's ``.meta`` (gradients and the
    optimizer's updates as TF ops, each update after the reads that precede it in symgrad):
    it is the committed ``symgrad/*.meta`` byte for byte, and TensorFlow, importing it and
    restoring symgrad's checkpoint, took three training steps with symgrad's losses
    (``record_models.py --check-symgrad``)."""
    expected = _expected(model)
    folder = MODELS_DIR / model / "symgrad"
    written = json.loads((folder / "symgrad_outputs.json").read_text())
    by_tf = json.loads((folder / "tf_restored.json").read_text())
    sg.set_random_seed(record_models.SEEDS[model])
    built = getattr(same_program, f"build_{model}")()
    saver = sg.train.Saver(checkpoint_format="tf")
    with sg.Session() as sess:
        saver.restore(sess, str(folder / written["prefix"]))
        prefix = saver.save(sess, tmp_path / "model.ckpt", global_step=built["global_step"])
    meta = Path(prefix + ".meta").read_bytes()
    assert meta == (folder / (written["prefix"] + ".meta")).read_bytes()
    np.testing.assert_allclose(
        by_tf["losses_training_symgrads_meta_graph"],
        written["losses_after_the_checkpoint"],
        rtol=1e-5,
    )
    assert expected["model"] == model


def test_export_of_a_saved_model_with_outputs_named_takes_those_alone(tmp_path: Path) -> None:
    expected = _expected("mlp")
    module = sg.export_model(
        MODELS_DIR / "mlp" / "saved_model", tmp_path / "probs.py", outputs=["probabilities:0"]
    )
    assert [o.name for o in module.program.outputs] == ["probabilities_0"]
    (probabilities,) = [o for o in expected["outputs"] if o["name"] == "probabilities:0"]
    _close(module(*_feed_values(expected).values())["probabilities:0"], probabilities, "probs")


def test_tensorflow_runs_symgrads_depthwise_convolutions_and_resizes_with_gradients() -> None:
    """``tf_files/graph_export/``: a graph of depthwise convolutions (strided SAME, VALID)
    and bilinear and nearest resizes (of float32 and float64 images), with their gradients
    and a second derivative, written by ``as_graph_def`` as TF's own ops
    (``DepthwiseConv2dNative`` and its two backprops, ``ResizeBilinear``/``Grad``,
    ``ResizeNearestNeighbor``/``Grad``): symgrad still writes the committed file byte for
    byte, and TensorFlow, running it (``record.py --check``), computed symgrad's values."""
    from tests.tf_files.graph_export import record

    folder = Path(record.HERE)
    by_tf = json.loads((folder / "tf_outputs.json").read_text())
    with sg.Graph().as_default() as graph:
        names = record.build(sg)
        data = graph.as_graph_def().SerializeToString(deterministic=True)
        with sg.Session() as sess:
            values = sess.run(names, record.feeds())
    assert data == (folder / "depthwise_resize.pb").read_bytes()
    assert names == json.loads((folder / "fetches.json").read_text())
    for op in (
        "DepthwiseConv2dNative",
        "DepthwiseConv2dNativeBackpropInput",
        "DepthwiseConv2dNativeBackpropFilter",
        "ResizeBilinear",
        "ResizeBilinearGrad",
        "ResizeNearestNeighbor",
        "ResizeNearestNeighborGrad",
    ):
        assert op in by_tf["ops"], op
    for name, value in zip(names, values, strict=True):
        _close(value, by_tf["outputs"][name], name)


def test_as_graph_def_refuses_dilated_depthwise_convolutions_tf_cannot_run() -> None:
    with sg.Graph().as_default() as graph:
        x = sg.placeholder(sg.float32, [None, 7, 7, 2], name="x")
        sg.nn.depthwise_conv2d(x, np.ones((3, 3, 2, 1), np.float32), [1, 1, 1, 1], "SAME", rate=2)
        with pytest.raises(sg.errors.ModelFileError, match=r"dilations \[2, 2\]"):
            graph.as_graph_def()
