"""State and order through ``compile()`` in both forms, and the rules behind them.

``tests/test_tf_parity_state.py`` checks runs of a Session against TensorFlow; here the same
families go through ``sg.compile`` (the NumPy fast form and the portable form), whose module
has no session: a read ordered after an assignment reads the assigned value in the same call,
results never alias constants, inputs or each other, and integer dtypes keep their width.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg
from symgrad.ordering import reads_after_writes

FORMS = ["numpy", "array_api"]


# --- reads after writes ------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", FORMS)
def test_a_read_ordered_after_an_assignment_reads_the_assigned_value(backend: str) -> None:
    with sg.Graph().as_default():
        x = sg.Variable(0.0, name="x")
        with sg.control_dependencies([sg.assign(x, 10.0)]):
            y = sg.identity(x) + 1.0
        unordered = x + 1.0
        module = sg.compile([y, unordered], backend=backend)
        assert [float(v) for v in module(x=0.0)] == [11.0, 1.0]
        assert [float(v) for v in module(x=5.0)] == [11.0, 6.0]


@pytest.mark.parametrize("backend", FORMS)
def test_a_chain_of_assignments_each_after_the_last(backend: str) -> None:
    with sg.Graph().as_default():
        a, b, c = (sg.Variable(0.0, name=n) for n in "abc")
        set_a = sg.assign(a, 2.0)
        with sg.control_dependencies([set_a]):
            set_b = sg.assign(b, sg.identity(a) + 1.0)
        with sg.control_dependencies([set_b]):
            set_c = sg.assign(c, sg.identity(b) + 1.0)
        module = sg.compile([set_a, set_b, set_c], backend=backend)
        # no variable's old value counts: each is read after its assignment
        stale = {name: 99.0 for name in module.input_names}
        assert [float(v) for v in module(**stale)] == [2.0, 3.0, 4.0]


def test_the_generated_code_names_the_written_value_and_keeps_the_fast_form() -> None:
    with sg.Graph().as_default():
        w = sg.Variable([1.0, 2.0], name="w")
        step = sg.train.get_or_create_global_step()
        train = sg.train.GradientDescentOptimizer(0.1).minimize(
            sg.reduce_sum(w * w), global_step=step
        )
        with sg.control_dependencies([train]):
            after = sg.identity(step, name="after")
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            assert [int(sess.run(after)) for _ in range(3)] == [1, 2, 3]
        module = sg.compile([after], inputs=[w, step])
    # the read is the increment's value, computed once; w's update is not needed for it
    assert "after = global_step + 1" in module.source
    assert int(module(w=[1.0, 2.0], global_step=7)[0]) == 8


def test_reads_after_writes_finds_only_ordered_reads() -> None:
    with sg.Graph().as_default():
        x = sg.Variable(1.0, name="x")
        z = sg.Variable(3.0, name="z")
        set_x = sg.assign(x, 5.0, name="set_x")
        before = x * 2.0  # not ordered: the snapshot
        with sg.control_dependencies([set_x]):
            scaled = z * 2.0
        after = scaled + x  # after set_x through ``scaled``
        found = reads_after_writes([before.op, after.op])
    assert {(op.name, i) for op, i in found} == {(after.op.name, 1)}
    assert reads_after_writes([before.op]) == {}


# --- feeds ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", FORMS)
def test_feeding_a_variable_that_the_run_assigns_is_refused_and_stores_nothing(
    backend: str,
) -> None:
    with sg.Graph().as_default():
        v = sg.Variable(1.0, name="v")
        with sg.Session(backend=backend) as sess:
            sess.run(v.initializer)
            with pytest.raises(sg.InvalidArgumentError, match="'v:0' is fed, and this run assigns"):
                sess.run(sg.assign_add(v, 1.0), {v: 10.0})
            assert float(sess.run(v)) == 1.0
            assert float(sess.run(v * 2.0, {v: 10.0})) == 20.0  # a read-only feed is fine
            assert float(sess.run(v)) == 1.0


# --- results are the caller's own -------------------------------------------------------------------


@pytest.mark.parametrize("backend", FORMS)
def test_compiled_results_never_alias_constants_inputs_or_each_other(backend: str) -> None:
    with sg.Graph().as_default():
        c = sg.constant([1.0, 2.0, 3.0], name="c")
        x = sg.placeholder(sg.float32, [3], name="x")
        module = sg.compile(
            [c, sg.reshape(c, [3, 1]), x, sg.reshape(x, [1, 3]), c, x + c], backend=backend
        )
    fed = np.array([5.0, 6.0, 7.0], np.float32)
    first = module(fed)
    for value in first[:5]:
        np.asarray(value)[...] = -1.0  # the caller changes every result
    again = module(fed)
    assert fed.tolist() == [5.0, 6.0, 7.0]
    assert np.asarray(again[0]).tolist() == [1.0, 2.0, 3.0]
    assert np.asarray(again[5]).tolist() == [6.0, 8.0, 10.0]
    assert np.asarray(first[4]).tolist() == [-1.0, -1.0, -1.0]


def test_baked_values_are_not_the_caller_s_to_change() -> None:
    with sg.Graph().as_default():
        w = sg.Variable([1.0, 2.0], name="w")
        x = sg.placeholder(sg.float32, [2], name="x")
        module = sg.compile([w, x * w], values={w: np.array([3.0, 4.0])})
    weights, product = module(np.ones(2))
    weights[...] = 0.0
    assert module(np.ones(2))[1].tolist() == [3.0, 4.0]


# --- every integer dtype ----------------------------------------------------------------------------


@pytest.mark.parametrize("backend", FORMS)
@pytest.mark.parametrize(
    ("dtype", "start", "step", "wrapped"),
    [
        ("int8", 120, 10, -126),
        ("uint8", 250, 10, 4),
        ("int16", 32000, 1000, -32536),
        ("uint16", 65000, 1000, 464),
        ("uint32", 4294967290, 10, 4),
        ("uint64", 18446744073709551610, 10, 4),
    ],
)
def test_narrow_integers_wrap_round_in_compiled_modules(
    dtype: str, start: int, step: int, wrapped: int, backend: str
) -> None:
    numpy_type = np.dtype(dtype).type
    with sg.Graph().as_default():
        x = sg.placeholder(getattr(sg, dtype), [2], name="x")
        total = sg.reduce_sum(x)
        module = sg.compile([x + numpy_type(step), total, x * numpy_type(2)], backend=backend)
    plus, summed, doubled = (np.asarray(v) for v in module(np.array([start, step], numpy_type)))
    assert plus.dtype == summed.dtype == doubled.dtype == np.dtype(dtype)
    assert int(plus[0]) == wrapped
    assert int(summed) == wrapped
    assert int(doubled[1]) == 2 * step


def test_integer_constants_folded_past_their_range_wrap_round() -> None:
    with sg.Graph().as_default():
        x = sg.constant(np.int16(300))
        y = sg.constant(np.array([200, 100], np.uint8))
        module = sg.compile([x * x, y + y, y * 3])
    product, doubled, tripled = module()
    assert int(product) == 24464 and product.dtype == np.int16
    assert doubled.tolist() == [144, 200] and tripled.tolist() == [88, 44]


def test_dtype_properties_as_tf1_has_them() -> None:
    assert sg.uint8.is_integer and sg.uint8.is_unsigned and not sg.int8.is_unsigned
    assert (sg.int8.min, sg.int8.max, sg.uint16.max) == (-128, 127, 65535)
    assert sg.float32.base_dtype is sg.float32
    assert sg.as_dtype(np.uint32) is sg.uint32
    with sg.Graph().as_default():
        assert sg.constant(np.array([1, 2], np.uint8)).dtype is sg.uint8
        assert sg.Variable(np.int8(3), name="v").dtype is sg.int8


def test_tensor_operators_floordiv_mod_and_logical() -> None:
    with sg.Graph().as_default():
        a = sg.constant([7, -7])
        t, f = sg.constant([True, True]), sg.constant([True, False])
        values = sg.compile([a // 2, a % 3, 7 // a, t & f, t | f, t ^ f, ~f])()
    assert [v.tolist() for v in values] == [
        [3, -4],
        [1, 2],
        [1, -1],
        [True, False],
        [True, True],
        [False, True],
        [False, True],
    ]


# --- initialized_value and is_variable_initialized --------------------------------------------------


def test_initialized_value_in_a_compiled_module_is_the_initial_value() -> None:
    """A module has no session: the value of a variable not yet initialized, as in a new
    Session; feeding it gives the variable's value."""
    with sg.Graph().as_default():
        a = sg.Variable(2.0, name="a")
        tripled = a.initialized_value() * 3.0
        module = sg.compile(tripled, inputs=[])
        assert float(module()) == 6.0
        fed = sg.compile(tripled, inputs=[a.initialized_value()])
        assert float(fed(10.0)) == 30.0


@pytest.mark.parametrize("backend", FORMS)
def test_is_variable_initialized_follows_the_session(backend: str) -> None:
    with sg.Graph().as_default():
        v = sg.Variable([1.0, 2.0], name="v")
        flag = sg.is_variable_initialized(v)
        assert flag.shape == () and flag.dtype is sg.bool
        with sg.Session(backend=backend) as sess:
            assert not bool(sess.run(flag))
            sess.run(v.initializer)
            assert bool(sess.run(flag))
        with sg.Session(backend=backend) as sess:
            assert not bool(sess.run(flag))


@pytest.mark.parametrize("backend", FORMS)
def test_report_and_assert_uninitialized_variables_as_tf1(backend: str) -> None:
    """The results TF 2.21 compat.v1 gives for the same program: [b'a' b'b'], then [b'b']
    next to a's value, then an empty array; the assertion gives the ranks, then raises."""
    with sg.Graph().as_default():
        a, b = sg.Variable(1.0, name="a"), sg.Variable([2.0], name="b")
        report = sg.report_uninitialized_variables()
        with sg.Session(backend=backend) as sess:
            assert sess.run(report).tolist() == [b"a", b"b"]
            sess.run(a.initializer)
            names, value = sess.run([report, a])
            assert names.tolist() == [b"b"] and float(value) == 1.0
            sess.run(b.initializer)
            empty = sess.run(report)
            assert empty.shape == (0,) and empty.dtype == object
            assert sess.run(sg.assert_variables_initialized()).tolist() == [0, 1]
        with (
            sg.Session(backend=backend) as sess,
            pytest.raises(sg.errors.FailedPreconditionError, match="uninitialized variables a"),
        ):
            sess.run(sg.assert_variables_initialized([a]))


def test_portable_results_on_torch_never_alias_the_module_s_constants() -> None:
    """torch.asarray of a NumPy constant shares its memory: a returned constant changed by
    the caller changed the module's table for every later call."""
    torch = pytest.importorskip("torch")
    with sg.Graph().as_default():
        c = sg.constant([1.0, 2.0, 3.0], name="c")
        x = sg.placeholder(sg.float32, [3], name="x")
        module = sg.compile([c, x, c], backend="array_api")
    fed = torch.tensor([5.0, 6.0, 7.0])
    first, echoed, again = module(fed)
    first[0], echoed[0] = -1.0, -1.0
    assert module(fed)[0].tolist() == [1.0, 2.0, 3.0]
    assert fed.tolist() == [5.0, 6.0, 7.0] and again.tolist() == [1.0, 2.0, 3.0]
