"""Display formulas (``symgrad.whiteboard``): the textbook forms of five models, and a check
that every display, read back as Python text, gives the compiled module's values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad.ops import functions as F
from symgrad.whiteboard import _Plumbing, whiteboard
from tests.tf_parity.programs import PROGRAMS, flatten_fetches

# --- the textbook models ----------------------------------------------------------------------


def _regression(inputs: int, outputs: int, labels: Any = None) -> tuple[Any, ...]:
    x = sg.placeholder(sg.float32, [None, inputs], name="x")
    y = labels if labels is not None else sg.placeholder(sg.float32, [None, outputs], name="y")
    w = sg.Variable(np.zeros((inputs, outputs), np.float32), name="W")
    b = sg.Variable(np.zeros(outputs, np.float32), name="b")
    return x, y, w, b, sg.matmul(x, w) + b


def linear_regression() -> tuple[sg.Tensor, list[sg.Tensor]]:
    _, y, w, b, z = _regression(3, 1)
    return sg.reduce_mean(sg.square(z - y)), [w, b]


def logistic_regression() -> tuple[sg.Tensor, list[sg.Tensor]]:
    _, y, w, b, z = _regression(3, 1)
    return sg.reduce_mean(sg.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z)), [w, b]


def softmax_regression() -> tuple[sg.Tensor, list[sg.Tensor]]:
    _, y, w, b, z = _regression(4, 3)
    return sg.reduce_mean(sg.nn.softmax_cross_entropy_with_logits(labels=y, logits=z)), [w, b]


def sparse_softmax_regression() -> tuple[sg.Tensor, list[sg.Tensor]]:
    labels = sg.placeholder(sg.int32, [None], name="y")
    _, y, w, b, z = _regression(4, 3, labels)
    loss = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=z)
    return sg.reduce_mean(loss), [w, b]


def tanh_mlp() -> tuple[sg.Tensor, list[sg.Tensor]]:
    x = sg.placeholder(sg.float32, [None, 4], name="x")
    y = sg.placeholder(sg.float32, [None, 3], name="y")
    w1 = sg.Variable(np.zeros((4, 5), np.float32), name="W1")
    b1 = sg.Variable(np.zeros(5, np.float32), name="b1")
    w2 = sg.Variable(np.zeros((5, 3), np.float32), name="W2")
    b2 = sg.Variable(np.zeros(3, np.float32), name="b2")
    h = sg.tanh(sg.matmul(x, w1) + b1)
    logits = sg.matmul(h, w2) + b2
    loss = sg.reduce_mean(sg.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return loss, [w1, b1, w2, b2]


def l2_regularised() -> tuple[sg.Tensor, list[sg.Tensor]]:
    _, y, w, b, z = _regression(3, 1)
    return sg.reduce_mean(sg.square(z - y)) + 0.01 * sg.nn.l2_loss(w), [w, b]


def ridge() -> tuple[sg.Tensor, list[sg.Tensor]]:
    _, y, w, b, z = _regression(3, 1)
    return sg.reduce_mean(sg.square(z - y)) + 0.1 * sg.reduce_sum(sg.square(w)), [w, b]


TEXTBOOK: dict[str, Callable[[], tuple[sg.Tensor, list[sg.Tensor]]]] = {
    "linear_regression": linear_regression,
    "logistic_regression": logistic_regression,
    "softmax_regression": softmax_regression,
    "sparse_softmax_regression": sparse_softmax_regression,
    "tanh_mlp": tanh_mlp,
    "l2_regularised": l2_regularised,
    "ridge": ridge,
}

# The lines a person writes for each model (whole lines of the display, shapes aside).
EXPECTED = {
    "linear_regression": ["z = x @ W + b", "dW = 2 * (x.T @ (z - y)) / N"],
    "logistic_regression": [
        "z = x @ W + b",
        "loss = mean(softplus(z) - y * z)",
        "dW = x.T @ (sigmoid(z) - y) / N",
        "db = sum(sigmoid(z) - y, axis=0) / N",
    ],
    "softmax_regression": [
        "loss = -mean(sum(y * log_softmax(z), axis=1))",
        "dW = x.T @ (softmax(z) - y) / N",
    ],
    "sparse_softmax_regression": ["dW = x.T @ (softmax(z) - onehot(y)) / N"],
    "tanh_mlp": [
        "z1 = x @ W1 + b1",
        "h = tanh(z1)",
        "z2 = h @ W2 + b2",
        "d_z2 = (softmax(z2) - y) / N",
        "d_z1 = (1 - h ** 2) * (d_z2 @ W2.T)",
        "dW1 = x.T @ d_z1",
        "dW2 = h.T @ d_z2",
    ],
    "l2_regularised": ["dW = 2 * (x.T @ (z - y)) / N + 0.01 * W"],
    "ridge": ["dW = 2 * (x.T @ (z - y)) / N + 0.2 * W"],
}


def _compile(model: Callable[[], tuple[sg.Tensor, list[sg.Tensor]]], name: str) -> Any:
    loss, params = model()
    outputs = {"loss": loss}
    for param, grad in zip(params, sg.gradients(loss, params), strict=True):
        outputs["d" + param.op.name] = grad
    return sg.compile(outputs, name=name)


@pytest.mark.parametrize("name", sorted(TEXTBOOK))
def test_textbook_forms(name: str, symgrad_snapshot: Any) -> None:
    with sg.Graph().as_default():
        module = _compile(TEXTBOOK[name], name)
    board = module.whiteboard()
    assert board is not None
    text = module.explain()
    assert text == board.text() == module.explain(expand=False)
    lines = [line.split("  #")[0].rstrip() for line in text.splitlines()]
    for line in EXPECTED[name]:
        assert line in lines
    for formula, (_, formula_text, _) in zip(board.formulas, board.lines(), strict=True):
        if formula.name.startswith("d"):
            assert len(f"{formula.name} = {formula_text}") < 120
    latex = module.explain(latex=True)
    assert latex == board.latex() and "_sum_to_shape" not in latex
    symgrad_snapshot(f"{text}\n\n{latex}\n", f"tests/golden/whiteboard/{name}.txt")


def test_the_verbose_form_stays_reachable() -> None:
    with sg.Graph().as_default():
        module = _compile(logistic_regression, "logistic")
    verbose = module.explain(verbose=True)
    # the stable forms that run
    assert "_logistic_loss" in verbose and "_sigmoid(" in verbose and "= sigmoid(" not in verbose
    assert "dW = x.T @ (sigmoid(z) - y) / N" in module.explain()


def test_notebook_reprs_show_the_display() -> None:
    with sg.Graph().as_default():
        module = _compile(logistic_regression, "logistic")
    latex = module._repr_latex_()
    assert "\\sigma\\left(z\\right)" in latex and "\\texttt{dW}" in latex
    assert "\\sigma\\left(z\\right)" in module._repr_html_()


# --- every display reads back to the compiled values ------------------------------------------


def _softmax(z: np.ndarray) -> np.ndarray:
    shifted = np.exp(z - z.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def _as(dtype: str) -> Callable[[Any], np.ndarray]:
    return lambda value: np.asarray(value).astype(dtype)


# The display's function names as NumPy computes them, written here independently of symgrad.
READING = {
    "np": np,
    "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
    "softplus": lambda z: np.log1p(np.exp(z)),
    "relu": lambda z: np.maximum(z, 0),
    "softmax": _softmax,
    "log_softmax": lambda z: np.log(_softmax(z)),
    "onehot": lambda y: np.eye(3)[y],
    "sum": np.sum,
    "mean": np.mean,
    "max": np.max,
    "tanh": np.tanh,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "sign": np.sign,
    "where": np.where,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "not_": lambda mask: np.logical_not(mask).astype(float),  # a mask in arithmetic is 0/1
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "floor": np.floor,
    "round": np.round,
    "broadcast_to": np.broadcast_to,
    **{name: _as(name) for name in ("int32", "int64", "float32", "float64", "bool_")},
    # Forms the display shows as they run (no textbook spelling), read as they are defined.
    "OneWhere": lambda mask, x: np.where(mask, 1, x),
    "NanUnlessFinite": lambda *values: 0 * sum(values),
    "LogWherePositive": lambda x: np.where(x > 0, np.log(np.where(x > 0, x, 1)), 0),
}


def _scalar_weights() -> tuple[sg.Tensor, list[sg.Tensor]]:
    """Scalar parameters broadcast over a batch: the unbroadcasting a display must not drop."""
    x = sg.placeholder(sg.float64, [None], name="x")
    w = sg.Variable(0.5, dtype=sg.float64, name="w")
    b = sg.Variable(0.1, dtype=sg.float64, name="b")
    return sg.reduce_mean(x * w + b) + sg.square(sg.reduce_sum(x * w)), [w, b]


def _relu_mlp() -> tuple[sg.Tensor, list[sg.Tensor]]:
    x = sg.placeholder(sg.float64, [None, 4], name="x")
    y = sg.placeholder(sg.float64, [None, 2], name="y")
    w1 = sg.Variable(np.linspace(-1, 1, 12).reshape(4, 3), name="W1")
    w2 = sg.Variable(np.linspace(-1, 1, 6).reshape(3, 2), name="W2")
    h = sg.nn.relu(sg.matmul(x, w1))
    return sg.reduce_sum(sg.square(sg.matmul(h, w2) - y)) / 2.0, [w1, w2]


def _sigmoid_mse() -> tuple[sg.Tensor, list[sg.Tensor]]:
    x = sg.placeholder(sg.float32, [None, 3], name="x")
    y = sg.placeholder(sg.float32, [None, 1], name="y")
    w = sg.Variable(np.full((3, 1), 0.3, np.float32), name="W")
    b = sg.Variable(np.zeros((1, 1), np.float32), name="b")
    return sg.reduce_mean(sg.square(sg.sigmoid(sg.matmul(x, w) + b) - y)), [w, b]


def _softplus_abs() -> tuple[sg.Tensor, list[sg.Tensor]]:
    x = sg.placeholder(sg.float64, [None, 2], name="x")
    w = sg.Variable(np.array([0.5, -1.5]), name="w")
    v = sg.Variable(np.array([[1.0, 2.0]]), name="v")
    loss = sg.reduce_sum(sg.nn.softplus(x * w) + sg.abs(x - v)) + sg.reduce_max(x * v)
    return loss, [w, v]


def _mnist_mlp() -> tuple[sg.Tensor, list[sg.Tensor]]:
    from tests.test_models import _mlp  # the MNIST-sized MLP of the model tests

    model = _mlp(np.random.default_rng(0))
    return model["loss"], model["params"]


SEEN_ELSEWHERE = {
    "scalar_weights": _scalar_weights,
    "relu_mlp": _relu_mlp,
    "sigmoid_mse": _sigmoid_mse,
    "softplus_abs": _softplus_abs,
    "mnist_mlp": _mnist_mlp,
}


def _inputs(module: Any, batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    values = {}
    for item in module.program.inputs:
        shape = tuple(batch if d is None else d for d in item.shape)
        if item.dtype.is_floating:
            values[item.name] = rng.standard_normal(shape).astype(item.dtype.name)
        else:
            values[item.name] = rng.integers(0, 3, shape).astype(item.dtype.name)
    return values


@pytest.mark.parametrize("name", sorted(TEXTBOOK) + sorted(SEEN_ELSEWHERE))
def test_the_display_read_back_gives_the_compiled_values(name: str) -> None:
    model = TEXTBOOK.get(name) or SEEN_ELSEWHERE[name]
    with sg.Graph().as_default():
        module = _compile(model, name)
    board = module.whiteboard()
    assert board is not None, f"{name}: no display"
    rng = np.random.default_rng(7)
    for batch in (2, 9):
        inputs = _inputs(module, batch, rng)
        results = module(**inputs)
        scope: dict[str, Any] = {**inputs, "N": batch}
        for formula, (_, text, _) in zip(board.formulas, board.lines(), strict=True):
            scope[formula.name] = eval(text, dict(READING), scope)
            if formula.output:
                expected = np.asarray(results[formula.name])
                got = np.broadcast_to(scope[formula.name], expected.shape)
                np.testing.assert_allclose(got, expected, rtol=2e-4, atol=1e-5, err_msg=text)


def test_a_display_that_would_be_wrong_is_not_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without its check, dropping ``sum`` over a broadcast scalar would show ``db = 1/N``."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        b = sg.Variable(0.1, dtype=sg.float64, name="b")
        module = sg.compile({"db": sg.gradients(sg.reduce_mean(x + b), b)[0]}, name="bias")
    assert module.whiteboard() is not None
    assert module.explain().startswith("db = 1  ")
    original = _Plumbing._rewrite

    def naive(self: _Plumbing, expr: Any) -> Any:
        if isinstance(expr, F.ReduceSum) and isinstance(expr.args[0], F.BroadcastTo):
            return self(expr.args[0].args[0])  # the sum dropped with the broadcast: 1/N
        return original(self, expr)

    monkeypatch.setattr(_Plumbing, "_rewrite", naive)
    assert whiteboard(module.program, vars(module.module)) is None
    assert module.explain().startswith("db = 1  ")  # computed before, and cached


def test_parity_programs_read_back_to_their_values() -> None:
    """The TF parity corpus (its feeds, not random inputs): every display shown reads back."""
    shown = 0
    for program in PROGRAMS:
        with sg.Graph().as_default():
            built = program(sg)
            tensors = [t for t in flatten_fetches(built["fetches"]) if t is not None]
            if not tensors:
                continue
            module = sg.compile(tensors, name=program.__name__)
            fed = {t.name: v for t, v in built["feeds"].items()}
        board = module.whiteboard()
        if board is None:
            continue
        scope: dict[str, Any] = {c.symbol.name: c.value for c in module.program.constants}
        sizes = set()
        for item in module.program.inputs:
            value = np.asarray(
                fed[item.tensor_name]
                if item.tensor_name in fed
                else module._initial_value(item.name)
            )
            scope[item.name] = value
            sizes |= {value.shape[k] for k, d in enumerate(item.shape or ()) if d is None}
        if len(sizes) > 1:
            continue  # N stands for one batch size; this program feeds several
        scope["N"] = sizes.pop() if sizes else 1
        with np.errstate(all="ignore"):
            results = module(**{i.name: scope[i.name] for i in module.program.inputs})
        results = dict(zip(module.output_names, results, strict=True))
        shown += 1
        for formula, (_, text, _) in zip(board.formulas, board.lines(), strict=True):
            with np.errstate(all="ignore"):
                scope[formula.name] = eval(text, dict(READING), scope)
            if formula.output:
                expected = np.asarray(results[formula.name])
                got = np.broadcast_to(scope[formula.name], expected.shape)
                np.testing.assert_allclose(
                    got, expected, rtol=1e-4, atol=1e-6, err_msg=f"{program.__name__}: {text}"
                )
    assert shown > 100
