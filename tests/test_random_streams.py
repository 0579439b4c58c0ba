"""Every random op is its own stream: two draws built alike without a seed are two arrays.

TF1 gives each op a seed of its own, so two ``random_uniform([4, 4])`` ops of one graph draw
different numbers whether or not the program sets a seed (``random_seed.get_seed``). Merging
them into one value (value numbering keyed by op type, inputs and attributes; SymPy's
structural equality) would start stacked layers with equal weights and make dropout layers
drop the same units. Each kind of drawing op, initializer, layer and cell is built twice,
alike, in one graph without a seed, and both are fetched in one run, in both generated forms,
through ``Session`` and through ``compile()``. With seeds, the numbers stay TF1's rules:
equal seeds, equal numbers, in every process.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad import optimize
from symgrad.lowering import trace
from symgrad.ops.registry import REGISTRY

pytest.importorskip("array_api_strict")

SHAPE = [6, 5]


def _variable(make: Callable[[], Any]) -> Callable[[str], sg.Tensor]:
    """A builder of a variable whose initial value ``make`` (an initializer) draws."""

    def build(name: str) -> sg.Tensor:
        return sg.get_variable(name, SHAPE, initializer=make())

    return build


def _layer(apply: Callable[[sg.Tensor], Any], field: str = "kernel") -> Callable[[str], sg.Tensor]:
    """A builder of a layer's variable: the layer is applied to one shared input."""

    def build(name: str) -> sg.Tensor:
        with sg.variable_scope(name):
            apply(_shared()["x"])
        found = [v for v in sg.global_variables() if v.op.name.startswith(name + "/")]
        return next(v for v in found if v.op.name.endswith(field))

    return build


def _cell(make: Callable[[], Any]) -> Callable[[str], sg.Tensor]:
    def apply(x: sg.Tensor) -> None:
        sg.nn.static_rnn(make(), [x], dtype=sg.float32)

    return _layer(apply)


# One graph's shared inputs: the same tensors feed both ops, as in a model where two layers
# read one value, so that equal inputs and attributes cannot tell the two draws apart.
_SHARED: dict[str, sg.Tensor] = {}


def _shared() -> dict[str, sg.Tensor]:
    graph = sg.get_default_graph()
    if _SHARED.get("graph") is not graph:  # type: ignore[comparison-overlap]
        _SHARED.clear()
        _SHARED["graph"] = graph  # type: ignore[assignment]
        _SHARED["x"] = sg.placeholder(sg.float32, [3, 5], name="x")
        _SHARED["image"] = sg.placeholder(sg.float32, [2, 6, 6, 3], name="image")
        _SHARED["rows"] = sg.constant(np.arange(40.0).reshape(8, 5), name="rows")
        _SHARED["logits"] = sg.constant(np.zeros((4, 10), np.float32), name="logits")
        _SHARED["classes"] = sg.constant(np.zeros((4, 1), np.int64), name="classes")
        _SHARED["ones"] = sg.ones([40, 30], name="ones")
    return _SHARED


KINDS: dict[str, Callable[[str], sg.Tensor]] = {
    # ops that draw
    "random_uniform": lambda name: sg.random_uniform(SHAPE, -1.0, 1.0, name=name),
    "random_uniform_int": lambda name: sg.random_uniform(
        SHAPE, 0, 1_000_000, dtype=sg.int32, name=name
    ),
    "random_normal": lambda name: sg.random_normal(SHAPE, name=name),
    "truncated_normal": lambda name: sg.truncated_normal(SHAPE, name=name),
    "random_uniform_like": lambda name: sg.random_uniform(sg.shape(_shared()["rows"]), name=name),
    "random_shuffle": lambda name: sg.random_shuffle(_shared()["rows"], name=name),
    "multinomial": lambda name: sg.multinomial(_shared()["logits"], 50, name=name),
    "log_uniform_candidate_sampler": lambda name: sg.nn.log_uniform_candidate_sampler(
        _shared()["classes"], 1, 20, False, 1_000_000, name=name
    )[0],
    "uniform_candidate_sampler": lambda name: sg.nn.uniform_candidate_sampler(
        _shared()["classes"], 1, 20, False, 1_000_000, name=name
    )[0],
    "fixed_unigram_candidate_sampler": lambda name: sg.nn.fixed_unigram_candidate_sampler(
        _shared()["classes"], 1, 20, False, 1000, unigrams=np.arange(1000.0) + 1, name=name
    )[0],
    "dropout": lambda name: sg.nn.dropout(_shared()["ones"], 0.5, name=name),
    "layers_dropout": lambda name: sg.layers.dropout(
        _shared()["ones"], 0.5, training=True, name=name
    ),
    # initializers
    "random_uniform_initializer": _variable(lambda: sg.random_uniform_initializer(-1.0, 1.0)),
    "random_normal_initializer": _variable(sg.random_normal_initializer),
    "truncated_normal_initializer": _variable(sg.truncated_normal_initializer),
    "glorot_uniform_initializer": _variable(sg.glorot_uniform_initializer),
    "glorot_normal_initializer": _variable(sg.glorot_normal_initializer),
    "variance_scaling_initializer": _variable(sg.variance_scaling_initializer),
    "uniform_unit_scaling_initializer": _variable(sg.uniform_unit_scaling_initializer),
    "he_normal": _variable(sg.initializers.he_normal),
    "he_uniform": _variable(sg.initializers.he_uniform),
    "lecun_normal": _variable(sg.initializers.lecun_normal),
    "lecun_uniform": _variable(sg.initializers.lecun_uniform),
    "xavier_initializer": _variable(sg.contrib.layers.xavier_initializer),
    "xavier_initializer_conv2d": _variable(sg.contrib.layers.xavier_initializer_conv2d),
    "contrib_variance_scaling": _variable(sg.contrib.layers.variance_scaling_initializer),
    "get_variable_default": lambda name: sg.get_variable(name, SHAPE),
    # layers and recurrent cells
    "layers_dense": _layer(lambda x: sg.layers.dense(x, 4)),
    "layers_conv2d": _layer(lambda x: sg.layers.conv2d(_shared()["image"], 4, 3)),
    "basic_rnn_cell": _cell(lambda: sg.nn.rnn_cell.BasicRNNCell(4)),
    "basic_lstm_cell": _cell(lambda: sg.nn.rnn_cell.BasicLSTMCell(4)),
    "lstm_cell": _cell(lambda: sg.nn.rnn_cell.LSTMCell(4)),
    "gru_cell_gates": _layer(
        lambda x: sg.nn.static_rnn(sg.nn.rnn_cell.GRUCell(4), [x], dtype=sg.float32),
        "gates/kernel",
    ),
}

FORMS = ["numpy", "array_api"]


def _pair(kind: str) -> tuple[sg.Tensor, sg.Tensor]:
    return KINDS[kind]("first"), KINDS[kind]("second")


def _feed() -> dict[sg.Tensor, np.ndarray]:
    shared = _shared()
    return {shared["x"]: np.ones((3, 5)), shared["image"]: np.ones((2, 6, 6, 3))}


def _draws(tensor: sg.Tensor) -> sg.Tensor:
    """What a draw is: a variable's initial value, or the op's own result."""
    return tensor.initial_value if isinstance(tensor, sg.Variable) else tensor


def _assert_two_draws(first: np.ndarray, second: np.ndarray) -> None:
    first, second = np.asarray(first), np.asarray(second)
    assert first.shape == second.shape
    assert not np.array_equal(first, second), "two random ops built alike drew the same numbers"


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_two_ops_built_alike_without_a_seed_draw_differently_in_a_session(
    kind: str, form: str
) -> None:
    with sg.Graph().as_default():
        first, second = _pair(kind)
        backend = "numpy" if form == "numpy" else "array_api"
        with sg.Session(backend=backend) as sess:
            sess.run(sg.global_variables_initializer(), _feed())
            values = sess.run([first, second], _feed())
    _assert_two_draws(*values)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_two_ops_built_alike_without_a_seed_draw_differently_in_a_compiled_module(
    kind: str, form: str
) -> None:
    with sg.Graph().as_default():
        first, second = _pair(kind)
        draws = [_draws(first), _draws(second)]
        feed = {t: v for t, v in _feed().items() if t.graph is draws[0].graph}
        module = sg.compile(draws, inputs=list(feed), backend=form)
        random_ops = [op for op in sg.get_default_graph().get_operations() if _is_random(op)]
        # one stream per random op the module computes: nothing was merged
        needed = {op.name for op in random_ops} & set(module.program.random_streams)
        assert len(module.program.random_streams) == len(needed) >= 2
        values = module(*feed.values())
    _assert_two_draws(*values)


def _is_random(op: sg.Operation) -> bool:
    return op.type in REGISTRY and REGISTRY[op.type].random


# --- with seeds, TF1's rules are unchanged ---------------------------------------------------------

_SEEDED = textwrap.dedent(
    """
    import numpy as np
    import symgrad as sg
    {seed_line}
    x = sg.placeholder(sg.float32, [None, 4])
    h1 = sg.layers.dense(x, 4, activation=sg.nn.relu)
    h2 = sg.layers.dense(h1, 4, activation=sg.nn.relu)
    a = sg.random_uniform([4], -1, 1, seed={op_seed})
    b = sg.random_uniform([4], -1, 1, seed={op_seed})
    drop = sg.nn.dropout(x, 0.5, seed={op_seed})
    with sg.Session(backend={backend!r}) as sess:
        sess.run(sg.global_variables_initializer())
        values = sess.run(["dense/kernel:0", "dense_1/kernel:0", a, b, drop], {{x: np.ones((3, 4))}})
    print(repr([np.asarray(v).tolist() for v in values]))
    """
)


def _seeded_run(seed_line: str, op_seed: int | None, backend: str, hash_seed: str) -> list:
    script = _SEEDED.format(seed_line=seed_line, op_seed=op_seed, backend=backend)
    environment = dict(os.environ, PYTHONHASHSEED=hash_seed)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=environment
    ).stdout
    return eval(out)  # a list of lists of numbers printed by the script above


@pytest.mark.parametrize("backend", ["numpy", "array_api"])
@pytest.mark.parametrize(
    ("seed_line", "op_seed"),
    [("sg.set_random_seed(3)", None), ("sg.set_random_seed(3)", 11), ("", 11)],
    ids=["graph-seed", "both-seeds", "op-seed"],
)
def test_seeded_draws_are_the_same_in_every_process(
    seed_line: str, op_seed: int | None, backend: str
) -> None:
    first = _seeded_run(seed_line, op_seed, backend, "1")
    second = _seeded_run(seed_line, op_seed, backend, "2")
    # without a graph seed, the layers' kernels (no op seed) draw from the system
    compared = slice(None) if seed_line else slice(2, None)
    assert first[compared] == second[compared]
    kernel_1, kernel_2, a, b, _ = first
    assert kernel_1 != kernel_2  # two layers: two op seeds from the graph's op count
    if op_seed is None:
        assert a != b
    else:
        assert a == b  # equal graph seed and equal op seed: equal numbers, as in TF1


def test_unseeded_draws_differ_between_processes() -> None:
    assert _seeded_run("", None, "numpy", "1") != _seeded_run("", None, "numpy", "1")


# --- the passes never merge what is not a pure value -----------------------------------------------


def _two_draws_program() -> Any:
    with sg.Graph().as_default():
        a = sg.random_normal([3], name="a")
        b = sg.random_normal([3], name="b")
        return trace([("a", a), ("b", b)], [], "draws")


def test_value_numbering_of_the_graph_keeps_two_random_ops_alike() -> None:
    program = _two_draws_program()
    assert len(program.random_streams) == 2
    assert program.outputs[0].symbol != program.outputs[1].symbol


def test_value_numbering_of_the_program_keeps_two_equal_draws() -> None:
    """Even two statements with the same draw expression stay two statements: a draw is not
    a value that can be computed once and read twice."""
    program = _two_draws_program()
    draws = [s for s in program.statements if not optimize.is_pure(s.expr)]
    assert len(draws) == 2
    # the same expression twice, as if both read stream 0
    same = [draws[0], draws[1].with_expr(draws[0].expr)]
    others = [s for s in program.statements if s not in draws]
    deduplicated = optimize.deduplicate(replace_statements(program, same + others))
    assert sum(not optimize.is_pure(s.expr) for s in deduplicated.statements) == 2


def test_value_numbering_still_merges_pure_values() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [3], name="x")
        first, second = sg.exp(x), sg.exp(x)
        program = trace([("first", first), ("second", second)], [x], "pure")
    # one op computed once, read by both outputs
    assert len(program.statements) == 1
    assert program.outputs[0].symbol == program.outputs[1].symbol


def test_two_equal_assignments_are_two_ops() -> None:
    """An assignment is an effect: two built alike are not merged into one."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [], name="x")
        v = sg.Variable(0.0, name="v")
        first, second = sg.assign(v, x, name="first"), sg.assign(v, x, name="second")
        program = trace([("first", first), ("second", second)], [x], "assigns")
    assert len([s for s in program.statements if s.section == "update"]) == 2


def replace_statements(program: Any, statements: list) -> Any:
    return dataclasses.replace(program, statements=statements)
