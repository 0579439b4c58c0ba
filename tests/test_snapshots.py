"""Golden copies of generated modules: every example, and one module that uses every op.

A change in generated code fails here with a unified diff; review it, then run
``python -m pytest --update-snapshots`` to accept it.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from symgrad.ops.registry import REGISTRY
from symgrad.ops.state import SESSION_STATE_OPS
from tests.test_control_flow import CONTROL_OPS
from tests.test_structural_snapshots import LATER_STRUCTURAL_OPS, STRUCTURAL_OPS
from tests.test_tf1gaps_snapshot import TF1GAPS_OPS

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
EXAMPLES = ["linear_regression", "seed_3_intermediate_xs", "seed_4_stop_gradient"]


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_modules_match_their_snapshots(
    symgrad_snapshot,
    example: str,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    capsys,
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SYMGRAD_EXAMPLES_OUTPUT", str(tmp_path))
    sg.reset_default_graph()
    runpy.run_path(str(ROOT / "examples" / f"{example}.py"), run_name="__main__")
    capsys.readouterr()
    generated = sorted(tmp_path.glob("*.py"))
    assert generated, f"{example} wrote no module"
    for path in generated:
        symgrad_snapshot(path.read_text(), GOLDEN / "examples" / path.name)


def build_all_ops():  # type: ignore[no-untyped-def]
    """One graph that uses every op of the registry (forward, gradients, second order, updates)."""
    rng = np.random.default_rng(0)
    x = sg.placeholder(sg.float64, [None, 3], name="x")
    labels = sg.placeholder(sg.int32, [None], name="labels")
    w = sg.Variable(rng.standard_normal((3, 3)), name="weights")
    b = sg.Variable(np.zeros(3), name="bias")
    h = sg.tanh(x @ w + b)
    positive = sg.sqrt(sg.square(h) + 1.0)
    elementwise = (
        sg.abs(h)
        + sg.sign(h)
        + sg.floor(h)
        + sg.round(h)
        + sg.exp(-positive)
        + sg.math.expm1(h)
        + sg.log(positive)
        + sg.math.log1p(positive)
        + sg.sin(h)
        + sg.cos(h)
        + sg.sigmoid(h)
        + sg.nn.softplus(h)
        + sg.nn.relu(h)
        + sg.rsqrt(positive)
        + sg.reciprocal(positive)
        + sg.pow(positive, h)
        + sg.maximum(h, 0.1)
        + sg.minimum(h, 0.2)
        - h / positive
        + sg.squared_difference(h, 0.5)
        + sg.negative(h)
        + sg.identity(h)
        + sg.stop_gradient(h)
    )
    mask = h > 0.0
    masked = (
        sg.where(mask, elementwise, sg.zeros_like(h))
        + sg.cast(sg.less(h, 0.1), sg.float64)
        + sg.cast(sg.less_equal(h, 0.2), sg.float64)
        + sg.cast(sg.greater_equal(h, 0.3), sg.float64)
        + sg.cast(sg.equal(h, 0.0), sg.float64)
        + sg.cast(sg.not_equal(h, 1.0), sg.float64)
        + sg.cast(sg.is_finite(h), sg.float64)
        + sg.ones_like(h)
    )
    shaped = sg.reshape(masked, [-1, 3, 1])
    shaped = sg.squeeze(sg.transpose(shaped, [0, 2, 1]), [1])
    shaped = sg.concat([shaped, sg.expand_dims(sg.reduce_max(shaped, axis=1), 1)], axis=1)
    stacked = sg.stack(sg.unstack(shaped[:2], num=2, axis=0), axis=0)
    parts = sg.split(stacked, [1, 3], axis=1)
    tiled = sg.tile(parts[0], [1, 3]) * parts[1] + sg.broadcast_to(b, [2, 3])
    gathered = sg.gather(tiled, [0, 2, 2], axis=1)
    reduced = (
        sg.reduce_sum(gathered)
        + sg.reduce_mean(gathered, axis=0)
        + sg.reduce_min(gathered, axis=1, keepdims=True)
        + sg.reduce_prod(gathered, axis=1, keepdims=True)
    )
    created = sg.einsum(
        "ij,jk->ik",
        sg.ones([2, 2], sg.float64)
        + sg.zeros([2, 2], sg.float64)
        + sg.eye(2, dtype=sg.float64)
        + sg.cast(sg.fill([2, 2], 0.5), sg.float64),
        reduced[:, :2],
    )
    logits = x @ w
    losses = (
        sg.reduce_sum(created)
        + sg.reduce_mean(
            sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
        + sg.reduce_sum(sg.nn.softmax(logits) * sg.nn.log_softmax(logits))
        + sg.cast(sg.reduce_sum(sg.shape(x)) + sg.size(x), sg.float64)
    )
    unknown = sg.concat([x, x * 2.0], axis=0)  # along an axis of unknown size
    halves = sg.split(unknown, 2, axis=0)  # into parts whose size is known when run
    image = sg.reshape(w, [1, 3, 3, 1])
    kernel = sg.reshape(w[:2, :2], [2, 2, 1, 1])
    convolved = sg.nn.conv2d(image, kernel, [1, 1, 1, 1], "SAME")
    pooled = sg.nn.avg_pool(sg.nn.max_pool(convolved, 2, 1, "SAME"), 2, 2, "SAME")
    spread = sg.nn.conv2d_transpose(pooled, kernel, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    loss = losses + sg.reduce_sum(unknown) + sg.reduce_sum(spread * spread)
    # a depthwise convolution: its gradients, and theirs (hvp below), are the depthwise backprops
    deep = sg.nn.depthwise_conv2d(spread, sg.concat([kernel, kernel], 3), [1, 1, 1, 1], "VALID")
    loss += sg.reduce_sum(deep * deep)
    # resizing (bilinear's float32 result, nearest's own dtype) and its two gradient ops
    grown = sg.image.resize_bilinear(image, [4, 5], half_pixel_centers=True)
    near = sg.image.resize_nearest_neighbor(image, [2, 4], align_corners=True)
    loss += sg.cast(sg.reduce_sum(grown * grown), sg.float64) + sg.reduce_sum(near * near)
    loss += sg.reduce_sum(halves[0] * halves[1])
    # a gradient through a concat along an axis of unknown size, differentiated again below
    (through_concat,) = sg.gradients(sg.reduce_sum(sg.sin(unknown)), x)
    loss += sg.reduce_sum(through_concat * through_concat)
    # weights of sizes known when run: checked then to broadcast as TF1 allows
    loss += sg.losses.compute_weighted_loss(x * x, weights=x[:, :1], loss_collection=None)
    loss += sg.reduce_sum(sg.nn.sigmoid_cross_entropy_with_logits(labels=h, logits=logits))
    loss += sg.reduce_sum(sg.nn.weighted_cross_entropy_with_logits(h, logits, pos_weight=2.0))
    loss += sg.cast(sg.losses.huber_loss(h, logits, delta=0.5, loss_collection=None), sg.float64)
    grads = sg.gradients(loss, [w, b, x])
    hvp = sg.gradients(sg.reduce_sum(grads[0] * sg.reduce_prod(w, axis=0)), w)[0]
    second = sg.gradients(sg.reduce_sum(sg.gradients(sg.reduce_prod(w * w), w)[0]), w)[0]
    update = w.assign(w - 0.1 * grads[0])
    return [loss, grads[1], grads[2], hvp, second, update], [x, labels, w, b]


def build_elemops():  # type: ignore[no-untyped-def]
    """The elementwise, reduction and activation ops of issue 15, item 5, in a module of their
    own (so that all_ops.py stays as it was): values, gradients and second derivatives."""
    x = sg.placeholder(sg.float64, [None, 3], name="x")
    n = sg.placeholder(sg.int32, [None], name="n")
    unit = sg.tanh(x) * 0.9
    positive = sg.square(x) + 1.0
    smooth = sg.add_n(
        [
            sg.tan(unit),
            sg.sinh(x),
            sg.cosh(unit),
            sg.asin(unit),
            sg.acos(unit),
            sg.atan(x),
            sg.asinh(x),
            sg.acosh(positive),
            sg.atanh(unit),
            sg.atan2(x, positive),
            sg.nn.elu(x),
            sg.nn.selu(x),
            sg.nn.softsign(x),
            sg.nn.leaky_relu(x),
            sg.nn.relu6(x),
            sg.clip_by_value(x, -0.5, 0.5),
            sg.div_no_nan(x, unit),
            sg.math.xlogy(x, positive),
            sg.math.xdivy(x, positive),
            sg.floormod(x, 0.7),
            sg.ceil(x) + sg.floordiv(x, 0.7),
        ]
    )
    loss = sg.reduce_sum(smooth)
    (grad,) = sg.gradients(loss, x)
    (second,) = sg.gradients(sg.reduce_sum(grad), x)
    flags = sg.logical_xor(
        sg.logical_or(sg.logical_and(x > 0.0, x < 1.0), sg.logical_not(x > -1.0)), x > 0.5
    )
    integers = sg.truncatediv(n, 3) + sg.truncatemod(n, 3) + sg.div(n, 2) + sg.mod(n, -3)
    return [
        loss,
        grad,
        second,
        sg.argmax(x, 1),
        sg.argmin(x, 0, output_type=sg.int32),
        sg.reduce_any(flags, 1),
        sg.reduce_all(flags, 0),
        integers,
    ], [x, n]


def test_all_ops_module_matches_its_snapshot(symgrad_snapshot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default() as graph:
        outputs, inputs = build_all_ops()
        used = {op.type for op in graph.get_operations()}
        compiled = sg.compile(outputs, inputs=inputs, name="all_ops", path=tmp_path / "all_ops.py")
    with sg.Graph().as_default() as graph:
        elemops_outputs, elemops_inputs = build_elemops()
        used |= {op.type for op in graph.get_operations()}
        elemops = sg.compile(
            elemops_outputs, inputs=elemops_inputs, name="elemops", path=tmp_path / "elemops.py"
        )
    # Random ops have a golden of their own (test_random_module_matches_its_snapshot), so that
    # this module keeps its signature without an ``rng`` argument.
    random = {name for name, opdef in REGISTRY.items() if opdef.random}
    # The structural ops have their own module: tests/test_structural_snapshots.py.
    # A session's state (initialized_value, is_variable_initialized) lowers to the initial
    # value or False, which a Session replaces by a feed: tests/test_state_order.py.
    state = set(SESSION_STATE_OPS)
    missing = (
        set(REGISTRY)
        - used
        - {"NoOp"}
        - random
        - STRUCTURAL_OPS
        - LATER_STRUCTURAL_OPS
        - TF1GAPS_OPS
        - CONTROL_OPS
        - state
    )
    assert not missing, f"the all-ops module does not use: {sorted(missing)}"
    symgrad_snapshot(compiled, GOLDEN / "all_ops.py")
    symgrad_snapshot(elemops, GOLDEN / "all_ops_elemops.py")
    values = elemops(np.random.default_rng(2).standard_normal((4, 3)), np.array([-7, 7, 0, 5]))
    assert all(np.all(np.isfinite(v)) for v in values)
    rng = np.random.default_rng(1)
    values = compiled(rng.standard_normal((4, 3)), np.array([0, 2, 1, 1]))
    assert all(np.all(np.isfinite(v)) for v in values)


def test_a_changed_template_fails_with_a_diff(tmp_path: Path) -> None:
    from symgrad import testing

    golden = (GOLDEN / "examples" / "seed_3_intermediate_xs.py").read_text()
    changed = golden.replace("# Gradients", "# Gradient code")
    with pytest.raises(testing.SnapshotMismatch) as failure:
        testing.assert_snapshot(
            changed, GOLDEN / "examples" / "seed_3_intermediate_xs.py", update=False
        )
    assert "-    # Gradients\n+    # Gradient code" in str(failure.value)
    assert "--update-snapshots" in str(failure.value)
    copy = tmp_path / "snapshot.py"
    testing.assert_snapshot(changed, copy, update=True)
    assert copy.read_text() == changed
    os.environ.pop("SYMGRAD_UPDATE_SNAPSHOTS", None)


def _ruff() -> str:
    import shutil
    import sys

    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (it is in the test extra)")
    return ruff


@pytest.fixture(scope="module")
def corpus_modules(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """Fast and readable modules of every TF parity program (323 graphs of every op), and the goldens."""
    import shutil

    from tests.test_tf_parity import run_program
    from tests.tf_parity.programs import PROGRAMS
    from tests.tf_parity.programs_conv import PROGRAMS as CONV_PROGRAMS
    from tests.tf_parity.programs_structops import PROGRAMS as STRUCTURAL_PROGRAMS
    from tests.tf_parity.programs_tensor import PROGRAMS as TENSOR_PROGRAMS

    folder = tmp_path_factory.mktemp("generated")
    for optimize, form in ((True, "fast"), (False, "readable")):

        def keep(compiled, form=form) -> None:  # type: ignore[no-untyped-def]
            shutil.copy(compiled.path, folder / f"{form}_{compiled.path.name}")

        sg.compiler._observers.append(keep)
        try:
            for program in PROGRAMS + TENSOR_PROGRAMS + CONV_PROGRAMS + STRUCTURAL_PROGRAMS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    # The corpus's one unsupported program (einsum with '...') raises.
                    with contextlib.suppress(sg.SymgradError):
                        run_program(program, optimize)
        finally:
            sg.compiler._observers.remove(keep)
    for golden in GOLDEN.rglob("*.py"):
        shutil.copy(golden, folder / f"golden_{golden.parent.name}_{golden.name}")
    return folder


def test_generated_modules_pass_ruff_check(corpus_modules: Path) -> None:
    """The default ruff rules (pyflakes and the error-prone pycodestyle ones) find nothing."""
    result = subprocess.run(
        [_ruff(), "check", "--no-cache", "--isolated", str(corpus_modules)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr


def test_generated_modules_are_ruff_formatted(corpus_modules: Path) -> None:
    """``ruff format --check`` with default settings: the generated code is laid out as ruff would."""
    assert len(list(corpus_modules.glob("*.py"))) > 600
    result = subprocess.run(
        [_ruff(), "format", "--check", "--diff", "--no-cache", "--isolated", str(corpus_modules)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr


def test_cnn_example_modules_match_their_snapshots(
    symgrad_snapshot,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    """The modules ``examples/mnist_cnn.py``'s Session writes (initializer, training step,
    accuracy), from one training step; the gradient of its first convolution in the images
    is not computed, since no fetch needs it."""
    pytest.importorskip("sklearn", reason="the CNN example needs scikit-learn (test extra)")
    monkeypatch.setenv("SYMGRAD_CODEGEN_DIR", str(tmp_path))
    sg.reset_default_graph()
    example = runpy.run_path(str(ROOT / "examples" / "mnist_cnn.py"), run_name="mnist_cnn")
    example["main"](epochs=1, batches_per_epoch=1)
    capsys.readouterr()
    generated = sorted(tmp_path.glob("*.py"))
    assert len(generated) == 3, [p.name for p in generated]
    step = generated[1].read_text()
    # The step function and its body for equal batch sizes (images and labels are [None, ...]).
    bodies = [part for part in step.split("\ndef ") if part.startswith(("run_", "_run_"))]
    assert len(bodies) == 2 and "_same_shapes" in bodies[1]
    calls = [body.count("_conv2d_backprop_input(") for body in bodies]
    assert calls == [1, 1], "only the second convolution's input gradient is needed"
    for path in generated:
        symgrad_snapshot(path.read_text(), GOLDEN / "examples" / "mnist_cnn" / path.name)
