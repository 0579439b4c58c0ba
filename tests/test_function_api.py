"""``@sg.function`` traced per signature, and ``sg.grad``/``sg.value_and_grad`` as in JAX."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from symgrad import cli
from tests.jax_parity import functions

FIXTURES = json.loads((Path(__file__).parent / "jax_parity" / "jax_fixtures.json").read_text())

SYMGRAD_OPS = functions.unary_table(
    {
        "matmul": sg.matmul,
        "tanh": sg.tanh,
        "sin": sg.sin,
        "cos": sg.cos,
        "sigmoid": sg.sigmoid,
        "softplus": sg.softplus,
        "exp": sg.exp,
        "log1p": sg.log1p,
        "sum": sg.reduce_sum,
        "mean": sg.reduce_mean,
    }
)


def test_decorator_specializes_per_shape_and_reuses_each_specialization():
    @sg.function
    def scaled_norm(x):
        return sg.reduce_sum(sg.square(x)) * 0.5

    inputs = [np.arange(3.0), np.arange(5.0), np.ones((2, 3)), np.ones((4, 2))]
    for value in inputs:
        assert float(scaled_norm(value)) == pytest.approx(0.5 * float(np.sum(value**2)))
    first_2d_source = None
    for value in inputs:  # the same shapes again: each one a cache hit
        assert float(scaled_norm(value)) == pytest.approx(0.5 * float(np.sum(value**2)))
        if value.shape == (4, 2):
            first_2d_source = scaled_norm.source
    assert len(scaled_norm.specializations) == 4
    assert scaled_norm.cache_hits == 4
    # .source/.path/.explain() describe the last specialization, a (4, 2) float64 input.
    assert "(4, 2))" in first_2d_source
    assert scaled_norm.path.read_text() == scaled_norm.source
    assert "x" in scaled_norm.explain()


def test_dtype_is_part_of_the_signature():
    double = sg.function(lambda x: x * 2)
    assert double(np.ones(2, np.float32)).dtype == np.float32
    assert double(np.ones(2, np.float64)).dtype == np.float64
    assert len(double.specializations) == 2 and double.cache_hits == 0


def test_function_without_a_call_has_no_source():
    with pytest.raises(sg.InvalidArgumentError, match="not been called"):
        _ = sg.function(lambda x: x).source


def test_specs_fix_shapes_ahead_of_time_and_the_result_is_callable():
    traced = sg.function(lambda x: sg.reduce_sum(x * x), sg.TensorSpec([None], sg.float64, "x"))
    assert float(traced([1.0, 2.0])) == 5.0
    assert float(traced([3.0])) == 9.0


@pytest.mark.parametrize("record", FIXTURES["functions"], ids=lambda r: f"seed{r['seed']}")
def test_value_and_grad_with_aux_matches_jax(record):
    fn, args, argnums = functions.make(record["seed"], SYMGRAD_OPS)
    result = sg.value_and_grad(fn, argnums=argnums, has_aux=True)(*args)
    assert functions.describe(result) == record["structure"]
    leaves, _ = sg.python_functions.tree_flatten(result)
    assert len(leaves) == len(record["leaves"])
    for got, expected in zip(leaves, record["leaves"], strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-10, atol=1e-12)


def test_grad_with_argnums_sequence_and_aux():
    def loss(w, x):
        return sg.reduce_sum(w * x) ** 2, {"dot": sg.reduce_sum(w * x)}

    (d_w, d_x), aux = sg.grad(loss, argnums=(0, 1), has_aux=True)(
        np.array([1.0, 2.0]), np.array([3.0, 4.0])
    )
    assert d_w.tolist() == [66.0, 88.0] and d_x.tolist() == [22.0, 44.0]
    assert float(aux["dot"]) == 11.0


def test_unused_argument_gets_zeros_like_jax():
    d = sg.grad(lambda w, unused: sg.reduce_sum(w * w), argnums=1)
    assert d(np.ones(2), np.ones(3)).tolist() == [0.0, 0.0, 0.0]


def test_grad_needs_a_scalar_output():
    with pytest.raises(sg.ShapeError, match="scalar outputs only") as error:
        sg.grad(lambda w: w * w)(np.ones(3))
    assert isinstance(error.value, ValueError)


def test_has_aux_needs_a_pair():
    with pytest.raises(sg.InvalidArgumentError, match=r"must return a pair \(value, aux\)"):
        sg.value_and_grad(lambda w: sg.reduce_sum(w), has_aux=True)(np.ones(3))


def test_integer_arguments_have_no_gradient():
    with pytest.raises(sg.DTypeError, match="only floating-point inputs"):
        sg.grad(lambda w: sg.reduce_sum(sg.cast(w, sg.float64)))(np.arange(3))


def test_argnums_out_of_range():
    with pytest.raises(sg.InvalidArgumentError, match="argnums 2 is out of range"):
        sg.grad(lambda w: sg.reduce_sum(w), argnums=2)(np.ones(3))


def test_command_line_takes_the_last_specialization(tmp_path, capsys):
    script = tmp_path / "functions.py"
    script.write_text(
        "import numpy as np\nimport symgrad as sg\n\n"
        "model = sg.function(lambda x: sg.reduce_sum(sg.tanh(x)))\n"
        "uncalled = sg.function(lambda x: x * 2)\n"
        "model(np.ones((2, 3)))\n"
    )
    assert cli.main(["show", f"{script}:model"]) == 0
    assert "input  x: float64 (2, 3)" in capsys.readouterr().out
    assert cli.main(["show", f"{script}:uncalled"]) == 2
    assert "has not been called yet" in capsys.readouterr().err
