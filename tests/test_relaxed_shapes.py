"""The parity corpora with ``[None]`` and shape-less placeholders, against TensorFlow's results.

TF1 programs rarely give placeholders static sizes. Here every placeholder of every corpus
program is declared again with each dim ``None`` (``[None]`` variant: rank kept) or with no
shape at all (shape-less variant); the values TensorFlow recorded for the static program are
still the answer. The fast form then runs the body that assumes equal sizes (the feeds are
the recorded ones); ``tf_parity/programs_shapes.py`` adds TF-recorded feeds where the sizes
differ and one operand broadcasts, which take the general body.

The ``scalars`` variant is the shape-less one compiled as a ``Session`` compiles it: the
placeholders fed 0-d values are ``scalar_inputs``, so the body for equal sizes expects them 0-d
(a ``keep_prob``, a learning rate) and runs where the other feeds are vectors of one length.

Profiles (``SYMGRAD_SHAPES_PROFILE``): ``ci`` (default) runs the ``[None]`` variant of every
corpus and the shape-less and ``scalars`` ones of the seed corpus, in the fast form; ``full``
runs every variant of every corpus in both forms (about 1,900 programs)::

    SYMGRAD_SHAPES_PROFILE=full python -m pytest tests/test_relaxed_shapes.py -q

The random-program property runs ``SYMGRAD_SHAPES_EXAMPLES`` examples (default 40).

A program whose graph cannot be built without static shapes is skipped with the error it
raised: Hessians, which need fully defined shapes in TF too, and ops symgrad still builds
only on known ranks or sizes (``einsum`` with ``...`` or repeated indices, ``trace``,
``gather`` with ``batch_dims``, a bool-mask index), which TF builds.
"""

from __future__ import annotations

import os
import threading
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import symgrad as sg
from symgrad.errors import SymgradError
from symgrad.shapes import as_shape
from symgrad.signatures import signature_of
from tests.test_properties import _COMMON, inputs_of, interpret
from tests.test_properties import programs as random_programs
from tests.test_tf_parity import FORMS, assert_matches_tensorflow, load_fixtures, run_program
from tests.test_tf_parity_feeding import run_fed
from tests.test_tf_parity_fidelity import _run_in_session
from tests.tf_parity import (
    programs,
    programs_feeding,
    programs_fidelity,
    programs_hessians,
    programs_losses,
    programs_ported,
    programs_shapes,
    programs_tensor,
)

PROFILE = os.environ.get("SYMGRAD_SHAPES_PROFILE", "ci")
VARIANTS = ("none", "shapeless", "scalars")

CORPORA = {
    "programs": (programs.PROGRAMS, "tf_fixtures.json", run_program),
    "tensor": (programs_tensor.PROGRAMS, "tf_fixtures_tensor.json", run_program),
    "fidelity": (programs_fidelity.PROGRAMS, "tf_fixtures_fidelity.json", run_program),
    "ported": (programs_ported.PROGRAMS, "tf_fixtures_ported.json", run_program),
    "feeding": (programs_feeding.PROGRAMS, "tf_fixtures_feeding.json", run_fed),
    "hessians": (programs_hessians.PROGRAMS, "tf_fixtures_hessians.json", run_program),
    "losses": (programs_losses.PROGRAMS, "tf_fixtures_losses.json", run_program),
}
FIXTURES = {corpus: load_fixtures(file) for corpus, (_, file, _) in CORPORA.items()}
SHAPES_FIXTURES = load_fixtures("tf_fixtures_shapes.json")

# (corpus, program, variant) -> what goes wrong; strict xfails in both forms, so a fix makes
# the test fail until its entry is removed.
KNOWN_BUGS = {
    ("fidelity", "einsum_ellipsis_broadcast", "none"): (
        "the gradient of an einsum whose '...' broadcasts a dim of unknown size is not summed "
        "back to the operand's shape (general code, both forms)"
    ),
}


class Relaxed:
    """The ``symgrad`` module, except that ``placeholder`` forgets static sizes (``[None]``
    variant) or the whole shape (``shapeless``)."""

    def __init__(self, variant: str) -> None:
        self.variant = variant

    def __getattr__(self, name: str) -> Any:
        return getattr(sg, name)

    def placeholder(self, dtype: Any, shape: Any = None, name: str | None = None) -> sg.Tensor:
        static = as_shape(shape)
        if self.variant in ("shapeless", "scalars") or static is None:
            return sg.placeholder(dtype, shape=None, name=name)
        return sg.placeholder(dtype, shape=[None] * len(static), name=name)


class BuildError(Exception):
    """The relaxed graph could not be built (it needs static shapes)."""


def relaxed(program: Any, variant: str) -> Any:
    """``program`` building its graph with relaxed placeholders."""

    def build(tf: Any) -> Any:
        try:
            return program(Relaxed(variant))
        except (SymgradError, ValueError, TypeError) as error:
            raise BuildError(f"{type(error).__name__}: {error}") from error

    build.__name__ = program.__name__
    return build


def _params() -> list[Any]:
    params = []
    for corpus, (corpus_programs, _, runner) in CORPORA.items():
        for variant in VARIANTS:
            if variant == "scalars" and runner is not run_program:
                continue  # feeds of their own: the shape-less variant covers them
            for optimize in (True, False):
                ci = optimize and (variant == "none" or corpus == "programs")
                marks: tuple[Any, ...] = ()
                if not ci and PROFILE != "full":
                    marks = (pytest.mark.skip(reason="profile full"),)
                form = "fast" if optimize else "readable"
                for program in corpus_programs:
                    bug = KNOWN_BUGS.get((corpus, program.__name__, variant))
                    known = (pytest.mark.xfail(strict=True, reason=bug),) if bug else ()
                    params.append(
                        pytest.param(
                            corpus,
                            program,
                            variant,
                            optimize,
                            id=f"{corpus}-{program.__name__}-{variant}-{form}",
                            marks=marks + known,
                        )
                    )
    return params


@pytest.mark.parametrize(("corpus", "program", "variant", "optimize"), _params())
def test_relaxed_program_matches_tensorflow(
    corpus: str, program: Any, variant: str, optimize: bool
) -> None:
    _, _, runner = CORPORA[corpus]
    expected = FIXTURES[corpus][program.__name__]["fetches"]

    def run(built: Any, optimize: bool) -> Any:
        with sg.Graph().as_default():
            stateful = "before" in built(sg)
        if not stateful:
            if variant == "scalars":
                return run_program(built, optimize, scalars=True)
            return runner(built, optimize)
        if not optimize:
            pytest.skip("a Session runs the fast form only")
        return _run_in_session(built)

    try:
        assert_matches_tensorflow(relaxed(program, variant), expected, optimize, run)
    except BuildError as error:
        pytest.skip(f"needs static shapes to build: {error}")


def test_shapes_fixtures_cover_corpus() -> None:
    assert set(SHAPES_FIXTURES) == {p.__name__ for p in programs_shapes.PROGRAMS}


@FORMS
@pytest.mark.parametrize(
    "program", programs_shapes.PROGRAMS, ids=[p.__name__ for p in programs_shapes.PROGRAMS]
)
def test_broadcasting_feeds_match_tensorflow(program: Any, optimize: bool) -> None:
    assert_matches_tensorflow(program, SHAPES_FIXTURES[program.__name__]["fetches"], optimize)


# --- property: random programs with relaxed placeholders -----------------------------------------


def _build_relaxed(program: Any, variant: str) -> list[Any]:
    """The tensors of a property-test program, its placeholders declared as ``variant`` says."""
    namespace: dict[str, Any] = {"sg": sg}
    tensors = []
    for i, v in enumerate(program.values):
        if v.kind == "placeholder":
            shape = v.static if variant == "static" else None
            if variant == "none":
                shape = (None,) * len(v.static)
            tensor = sg.placeholder(sg.float64, shape=shape, name=v.name)
        else:
            tensor = eval(program.expr(i), namespace)  # the printed program text is what runs
        namespace[v.name] = tensor
        tensors.append(tensor)
    return tensors


def _value_and_gradients(program: Any, variant: str, optimize: bool, feeds: dict) -> list[Any]:
    """``out`` and the gradients of ``sum(out * R)`` (R fixed random weights) to the placeholders."""
    with sg.Graph().as_default():
        try:
            tensors = _build_relaxed(program, variant)
            out = tensors[program.out]
            shape = np.shape(feeds["out"])
            weights = np.random.default_rng(program.seed + 1).uniform(0.5, 1.5, shape)
            loss = sg.reduce_sum(out * sg.constant(weights))
            placeholders = [tensors[i] for i in program.placeholders]
            grads = sg.gradients(loss, placeholders)
        except SymgradError as error:  # an op that needs a static rank or size, as in TF
            raise BuildError(str(error)) from error
        fetches = [out] + [g for g in grads if g is not None]
        compiled = sg.compile(fetches, inputs=placeholders, name="relaxed", optimize=optimize)
    return [np.asarray(v) for v in compiled(*(feeds[i] for i in program.placeholders))]


@settings(max_examples=int(os.environ.get("SYMGRAD_SHAPES_EXAMPLES", "40")), **_COMMON)
@given(
    program=random_programs(max_ops=5),
    variant=st.sampled_from(["none", "shapeless"]),
    optimize=st.booleans(),
)
def test_relaxed_random_programs_equal_the_static_ones(
    program: Any, variant: str, optimize: bool
) -> None:
    """Random programs of the property tests (placeholders with some sizes 1 that broadcast):
    relaxed placeholders, in either form, give what the static program's readable form gives."""
    feeds: dict[Any, Any] = dict(inputs_of(program))
    expected, _ = interpret(program, feeds)
    assume(all(np.all(np.isfinite(v)) for v in expected))
    feeds["out"] = expected[program.out]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # where-branches, as the static code
        want = _value_and_gradients(program, "static", False, feeds)
        try:
            got = _value_and_gradients(program, variant, optimize, feeds)
        except BuildError:
            assume(False)
            raise
    assert len(got) == len(want)
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.shape == w.shape, f"fetch {index}: shape {g.shape} != {w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12, err_msg=f"fetch {index}")


# --- threads ---------------------------------------------------------------------------------------


def test_one_compiled_function_called_from_threads_at_once() -> None:
    """The fast form's arrays are per call (pools included), so threads may share a function."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        y = sg.placeholder(sg.float64, [None], name="y")
        w = sg.Variable(np.ones(40), name="w")
        h = x
        for layer in range(40):  # enough arrays of one shape for a pool
            h = sg.tanh(h * w[layer] + y)
        loss = sg.reduce_mean(h)
        compiled = sg.compile([loss, *sg.gradients(loss, [x, y, w])], name="chain")
    assert "_float64_rows" in compiled.source and "x.shape[0] == y.shape[0]" in compiled.source
    rng = np.random.default_rng(0)
    cases = [(rng.standard_normal(n), rng.standard_normal(n)) for n in (1000, 1000, 3000, 1)]
    cases.append((rng.standard_normal(1), rng.standard_normal(500)))  # the general body
    expected = [compiled(a, b, np.ones(40)) for a, b in cases]
    failures: list[str] = []
    start = threading.Barrier(8)

    def work(worker: int) -> None:
        start.wait()
        for round_ in range(30):
            index = (worker + round_) % len(cases)
            got = compiled(*cases[index], np.ones(40))
            if not all(np.array_equal(g, h) for g, h in zip(got, expected[index], strict=True)):
                failures.append(f"worker {worker}, round {round_}, case {index}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures


def test_an_error_in_the_equal_sizes_body_names_its_op() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        i = sg.placeholder(sg.int32, [None], name="i")
        w = sg.Variable(np.ones(3), name="w")
        y = sg.reduce_sum(sg.gather(w, i) * x)
        compiled = sg.compile([y, sg.gradients(y, w)[0]], name="gathered")
    assert "_gathered_same_shapes" in compiled.source
    with pytest.raises(
        sg.errors.ExecutionIndexError, match=r"GatherV2: index 7 is not in \[0, 3\)"
    ):
        compiled(np.ones(2), np.array([0, 7], np.int32))


# --- the assumption: reshapes that keep the batch size, inputs fed 0-d values ----------------------


@pytest.mark.parametrize(
    ("shape", "target", "keeps"),
    [
        ([None, 784], [-1, 28, 28, 1], True),  # images of a CNN
        ([None, 7, 7, 16], [-1, 7 * 7 * 16], True),  # its flattened feature maps
        ([None, 4], [4, -1], True),  # N * 4 values as (4, N)
        ([None, 6], [-1, 4], False),  # 6N / 4 values a row: not N
        ([None, None], [-1, 4], False),  # two unknown sizes
        ([None, 0], [-1, 0], False),  # no values: -1 says nothing
    ],
)
def test_a_reshape_keeps_an_unknown_size_only_where_it_must_be_the_same(
    shape: list, target: list, keeps: bool
) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, shape, name="x")
        reshaped = sg.reshape(x, target)
        unknown = signature_of(x)[0]
        assert (unknown in signature_of(reshaped)) == keeps


def _cnn(images: sg.Tensor, labels: sg.Tensor) -> tuple[list[sg.Tensor], list[sg.Tensor]]:
    """A small CNN with its cross-entropy written out, as the TF1 tutorials did: the labels
    meet the logits of reshaped images."""
    kernel = sg.Variable(np.linspace(-0.5, 0.5, 3 * 3 * 1 * 2).reshape(3, 3, 1, 2), name="kernel")
    dense = sg.Variable(np.linspace(-1.0, 1.0, 32 * 3).reshape(32, 3), name="dense")
    pictures = sg.reshape(images, [-1, 8, 8, 1])
    features = sg.nn.max_pool(
        sg.nn.relu(sg.nn.conv2d(pictures, kernel, [1, 1, 1, 1], "SAME")),
        [1, 2, 2, 1],
        [1, 2, 2, 1],
        "SAME",
    )
    probabilities = sg.nn.softmax(sg.matmul(sg.reshape(features, [-1, 32]), dense))
    loss = -sg.reduce_sum(labels * sg.log(probabilities))
    return [loss, *sg.gradients(loss, [kernel, dense])], [kernel, dense]


def test_a_cnn_whose_images_are_reshaped_runs_the_body_for_equal_batch_sizes() -> None:
    rng = np.random.default_rng(3)
    images = rng.uniform(0, 1, (5, 64))
    labels = np.eye(3)[rng.integers(0, 3, 5)]
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 64], name="images")
        y = sg.placeholder(sg.float64, [None, 3], name="labels")
        outputs, variables = _cnn(x, y)
        fast = sg.compile(outputs, inputs=[x, y, *variables], name="cnn")
        readable = sg.compile(outputs, inputs=[x, y, *variables], name="cnn", optimize=False)
    assert "if images.shape[0] == labels.shape[0]:" in fast.source
    weights = [np.linspace(-0.5, 0.5, 18).reshape(3, 3, 1, 2), rng.uniform(-1, 1, (32, 3))]
    # equal batches; one row of labels that broadcasts over the batch, as in TF1
    for feeds in ([images, labels, *weights], [images, labels[:1], *weights]):
        for got, want in zip(fast(*feeds), readable(*feeds), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def _scaled_regression(scalar_inputs: bool) -> tuple[sg.CompiledModule, sg.CompiledModule]:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, name="x")
        y = sg.placeholder(sg.float64, name="y")
        rate = sg.placeholder(sg.float64, name="rate")
        w = sg.Variable(0.5, dtype=sg.float64, name="w")
        loss = sg.reduce_mean(sg.square(y - x * w * rate))
        outputs = [loss, sg.gradients(loss, w)[0]]
        scalars = [rate] if scalar_inputs else []
        fast = sg.compile(outputs, [x, y, rate, w], name="scaled", scalar_inputs=scalars)
        readable = sg.compile(outputs, [x, y, rate, w], name="scaled", optimize=False)
    return fast, readable


def test_a_shapeless_input_listed_as_scalar_is_expected_0d_by_the_guard() -> None:
    fast, readable = _scaled_regression(scalar_inputs=True)
    assert "y.ndim == 1 and rate.ndim == 0 and x.shape[0] == y.shape[0]:" in fast.source
    without, _ = _scaled_regression(scalar_inputs=False)
    assert "rate.ndim == 1" in without.source
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(50), rng.standard_normal(50)
    # the guard's case; a rate of one value per element and a 1-element rate (general body)
    for rate in (np.float64(0.7), 0.7, rng.uniform(0.5, 1.0, 50), np.array([0.7])):
        for got, want in zip(fast(x, y, rate, 0.5), readable(x, y, rate, 0.5), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12)


def test_scalar_inputs_must_be_inputs_declared_without_a_shape() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        rate = sg.placeholder(sg.float64, name="rate")
        other = sg.placeholder(sg.float64, name="other")
        with pytest.raises(sg.errors.InvalidArgumentError, match="among the inputs, got 'other:0'"):
            sg.compile(x * rate, [x, rate], scalar_inputs=[other])
        with pytest.raises(sg.errors.InvalidArgumentError, match=r"'x:0' of shape \(None,\)"):
            sg.compile(x * rate, [x, rate], scalar_inputs=[x])


def _dropout_steps(keep_prob_value: Any, codegen_dir: Any) -> tuple[list, np.ndarray, list[str]]:
    """Three training steps of the TF1 dropout idiom: ``keep_prob = tf.placeholder(tf.float32)``
    fed ``keep_prob_value``, images and labels ``[None, ...]``; the losses, the trained weights
    and the generated modules."""
    rng = np.random.default_rng(1)
    images, labels = rng.standard_normal((8, 4)), rng.standard_normal((8, 2))
    with sg.Graph().as_default():
        sg.set_random_seed(3)
        x = sg.placeholder(sg.float64, [None, 4], name="x")
        y = sg.placeholder(sg.float64, [None, 2], name="y")
        keep_prob = sg.placeholder(sg.float64, name="keep_prob")
        w = sg.Variable(np.ones((4, 2)) / 4, name="w")
        loss = sg.reduce_mean(sg.square(sg.matmul(sg.nn.dropout(x, keep_prob), w) - y))
        train = sg.train.GradientDescentOptimizer(0.1).minimize(loss)
        with sg.Session(codegen_dir=codegen_dir) as sess:
            sess.run(w.initializer)
            feeds = {x: images, y: labels, keep_prob: keep_prob_value}
            losses = [sess.run([train, loss], feeds)[1] for _ in range(3)]
            return losses, sess.run(w), [p.read_text() for p in sess.generated_files]


def test_a_session_expects_0d_the_shapeless_placeholders_it_is_first_fed_numbers(
    tmp_path: Any,
) -> None:
    """Fed a number, ``keep_prob`` is expected 0-d: the step runs the body for equal batch
    sizes, which draws the dropout mask. Fed a 1-element array, it runs the general body;
    both draw the same masks from the same seeds and train the same weights."""
    losses, trained, sources = _dropout_steps(0.5, tmp_path / "number")
    (step,) = [s for s in sources if "def run_2(x, y, keep_prob, w, rng):" in s]
    assert "if keep_prob.ndim == 0 and x.shape[0] == y.shape[0]:" in step
    general_losses, general_trained, sources = _dropout_steps(np.array([0.5]), tmp_path / "array")
    (step,) = [s for s in sources if "def run_2(x, y, keep_prob, w, rng):" in s]
    assert "keep_prob.ndim == 1 and x.shape[0] == y.shape[0] == keep_prob.shape[0]" in step
    np.testing.assert_allclose(losses, general_losses, rtol=1e-12)
    np.testing.assert_allclose(trained, general_trained, rtol=1e-12)


@pytest.mark.parametrize(
    "optimizer",
    [
        lambda rate: sg.train.GradientDescentOptimizer(rate),
        lambda rate: sg.train.MomentumOptimizer(rate, 0.9),
        lambda rate: sg.train.AdamOptimizer(rate),
    ],
    ids=["sgd", "momentum", "adam"],
)
def test_a_learning_rate_placeholder_without_a_shape_trains_as_the_number_does(
    optimizer: Any, tmp_path: Any
) -> None:
    """``lr = tf.placeholder(tf.float32)`` as an optimizer's learning rate: TF1 takes it (its
    kernels check for a scalar when run); the step then expects it 0-d and runs the body for
    equal sizes. Fed anything but one number, the step raises an error naming the op."""
    rng = np.random.default_rng(2)
    xs = rng.standard_normal(30)
    ys = 3 * xs + 1

    def train(rate_placeholder: bool) -> tuple[np.ndarray, list[str]]:
        with sg.Graph().as_default():
            x = sg.placeholder(sg.float64, name="x")
            y = sg.placeholder(sg.float64, name="y")
            lr = sg.placeholder(sg.float64, name="lr")
            w = sg.Variable(0.0, dtype=sg.float64, name="w")
            loss = sg.reduce_mean(sg.square(y - x * w))
            step = optimizer(lr if rate_placeholder else np.float64(0.05)).minimize(loss)
            with sg.Session(codegen_dir=tmp_path / str(rate_placeholder)) as sess:
                sess.run(sg.global_variables_initializer())
                for _ in range(5):
                    sess.run(step, {x: xs, y: ys, lr: 0.05})
                sources = [p.read_text() for p in sess.generated_files]
                if rate_placeholder:
                    for wrong in ([0.05, 0.1], [0.05], [[0.05]]):  # not scalars: TF1 refuses them
                        with pytest.raises(sg.errors.ExecutionValueError, match="expected shape"):
                            sess.run(step, {x: xs, y: ys, lr: wrong})
                return sess.run(w), sources

    fed, sources = train(rate_placeholder=True)
    assert any("lr.ndim == 0 and x.shape[0] == y.shape[0]:" in source for source in sources)
    np.testing.assert_allclose(fed, train(rate_placeholder=False)[0], rtol=1e-12)


# A value of known rank meets an input expected 0-d: ``x * k`` has an unknown static rank,
# which the reductions after it take axes of (``axis=-1``), while the run-time value has
# ``x``'s shape. Each graph once crashed the compiler, crashed at run time or gave other
# gradients in the body for equal sizes.
SCALAR_MEETS_ARRAY = {
    "full_sum": lambda x, k, y: sg.reduce_sum(x * k) * x,
    "l2_loss": lambda x, k, y: sg.nn.l2_loss(x * k) * x,
    "softmax": lambda x, k, y: sg.nn.softmax(x * k),
    "log_softmax": lambda x, k, y: sg.nn.log_softmax(x * k) * x,
    "mean_last_axis": lambda x, k, y: sg.reduce_mean(x * k, axis=-1) - y[:, 0],
    "mean_last_axis_kept": lambda x, k, y: sg.reduce_mean(x * k, axis=-1, keepdims=True) * x,
    "moments": lambda x, k, y: sg.nn.moments(x * k, axes=[-1], keep_dims=True)[1] * (x - y),
    "l2_normalize": lambda x, k, y: sg.nn.l2_normalize(x * k, axis=-1) * x,
    "clip_by_norm": lambda x, k, y: sg.clip_by_norm(x * k, 1.0) * x,
}
# Ops that read their axes, perms and keys when the value arrives (tests/test_unknown_rank.py);
# some of these steps need no body for equal sizes, so no guard is asked of them.
SCALAR_MEETS_ARRAY_AT_RUN_TIME_RANK = {
    "sum_axis_1": lambda x, k, y: sg.reduce_sum(x * k, 1) - y[:, 0],
    "max_axis_0_kept": lambda x, k, y: sg.reduce_max(x * k, 0, keepdims=True) * y,
    "argmax_axis_1": lambda x, k, y: sg.cast(sg.argmax(x * k, 1), sg.float64) * y[:, 1],
    "expand_dims_1": lambda x, k, y: sg.expand_dims(x * k, 1) * sg.expand_dims(y, 2),
    "transpose": lambda x, k, y: sg.matmul(sg.transpose(x * k), y),
    "slice_column": lambda x, k, y: (x * k)[:, 1] * y[:, 2],
    "stack_axis_1": lambda x, k, y: sg.reduce_sum(sg.stack([x * k, y], 1), 1),
    "shape_entry": lambda x, k, y: sg.cast(sg.shape(x * k)[0], sg.float64) * x,
    "bias_add": lambda x, k, y: sg.nn.bias_add(x * k, sg.constant([1.0, 2.0, 3.0], sg.float64)),
}


@pytest.mark.parametrize("build", SCALAR_MEETS_ARRAY.values(), ids=SCALAR_MEETS_ARRAY.keys())
def test_a_0d_input_that_meets_an_array_gives_the_readable_forms_values_and_gradients(
    build: Any,
) -> None:
    _compare_the_forms_where_a_0d_input_meets_an_array(build, guarded=True)


@pytest.mark.parametrize(
    "build",
    SCALAR_MEETS_ARRAY_AT_RUN_TIME_RANK.values(),
    ids=SCALAR_MEETS_ARRAY_AT_RUN_TIME_RANK.keys(),
)
def test_a_0d_input_that_meets_an_array_before_ops_of_a_run_time_rank(build: Any) -> None:
    _compare_the_forms_where_a_0d_input_meets_an_array(build, guarded=False)


def _compare_the_forms_where_a_0d_input_meets_an_array(build: Any, guarded: bool) -> None:
    rng = np.random.default_rng(4)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 3], name="x")
        k = sg.placeholder(sg.float64, name="k")
        y = sg.placeholder(sg.float64, [None, 3], name="y")
        out = build(x, k, y)
        outputs = [out, *sg.gradients(sg.reduce_sum(out * out), [x, k, y])]
        outputs = [t for t in outputs if t is not None]
        fast = sg.compile(outputs, [x, k, y], name="meets", scalar_inputs=[k])
        readable = sg.compile(outputs, [x, k, y], name="meets", optimize=False)
    assert not guarded or "k.ndim == 0" in fast.source
    x_value, y_value = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    for k_value in (0.7, np.full(3, 0.7), np.full((4, 1), 0.7)):  # the guard's case, and not
        got, want = fast(x_value, k_value, y_value), readable(x_value, k_value, y_value)
        for g, w in zip(got, want, strict=True):
            assert np.shape(g) == np.shape(w)
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_reductions_over_axes_from_the_end_of_shapeless_vectors() -> None:
    """``axis=-1`` of ``x * y``, both shape-less and fed vectors: the reduced value keeps a
    size-1 axis, which the body for equal sizes once took for the vector's length."""
    rng = np.random.default_rng(5)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, name="x")
        y = sg.placeholder(sg.float64, name="y")
        out = sg.nn.softmax(x * y) + sg.reduce_mean(x * y, axis=-1, keepdims=True) * x
        outputs = [out, *sg.gradients(sg.reduce_sum(out * out), [x, y])]
        fast = sg.compile(outputs, [x, y], name="vectors")
        readable = sg.compile(outputs, [x, y], name="vectors", optimize=False)
    feeds = rng.standard_normal(5), rng.standard_normal(5)
    for got, want in zip(fast(*feeds), readable(*feeds), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_an_op_may_be_named_like_the_assumption() -> None:
    """The 0-d assumption's mark is no op name: an op called "assumed_scalar" of unknown rank
    is an array like any other."""
    values = np.arange(8.0).reshape(4, 2)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, name="x")
        y = sg.placeholder(sg.float64, name="y")
        total = sg.reduce_sum(x, axis=-1, name="assumed_scalar")
        gradient = sg.gradients(sg.reduce_sum(total * y), x)[0]
        for optimize in (True, False):
            compiled = sg.compile(gradient, [x, y], name="named", optimize=optimize)
            np.testing.assert_array_equal(
                compiled(values, np.arange(4.0)), np.repeat(np.arange(4.0)[:, None], 2, axis=1)
            )
