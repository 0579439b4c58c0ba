"""Bad input and faults on the portable form and ``Session(backend=...)``.

Each test feeds what a user may hand a session or a portable module by mistake (the wrong
kind of array for the namespace, the wrong dtype, a tensor that needs autograd or lives on
no device, a Dask array of unknown size, a device that does not exist) and checks for the
result NumPy gives, or a symgrad error that is also the matching builtin and names the
tensor, the backend and what was wrong: never a raw library traceback, never a silently
wrong value, never a Dask array silently computed into memory.

CI runs everything here (a few seconds) on ``array_api_strict``, NumPy, PyTorch CPU, JAX
and Dask; each library's tests skip when it is missing. ``SYMGRAD_BACKENDS_PROFILE=full``
(shared with ``tests/test_scaling.py``) adds a slower probe: two threads training one torch
session and running one portable module at once, many steps each::

    SYMGRAD_BACKENDS_PROFILE=full python -m pytest tests/test_backend_faults.py -q
"""

from __future__ import annotations

import os
import threading
import types
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad.backends.namespaces import to_numpy
from symgrad.errors import DTypeError, InvalidArgumentError, SymgradError

FULL = os.environ.get("SYMGRAD_BACKENDS_PROFILE") == "full"


def _torch() -> Any:
    return pytest.importorskip("torch")


def _jax() -> Any:
    return pytest.importorskip("jax")


def _dask_array() -> Any:
    return pytest.importorskip("dask.array")


def _linear() -> dict[str, Any]:
    """x (rows of 3) @ w, its sum, and the sum's gradient in w: the smallest program that
    reads a fed batch, a variable and a shape."""
    x = sg.placeholder(sg.float64, shape=[None, 3], name="x")
    w = sg.Variable(np.ones((3, 1)), name="w")
    loss = sg.reduce_sum(sg.square(sg.matmul(x, w)))
    (grad,) = sg.gradients(loss, [w])
    return {"x": x, "w": w, "loss": loss, "grad": grad}


X = np.arange(6.0).reshape(2, 3)
LOSS = float(np.sum((X @ np.ones((3, 1))) ** 2))


# --- feeds of the wrong dtype or no numbers at all ------------------------------------------


@pytest.mark.parametrize("backend", ["array_api_strict", "torch", "dask", "numpy"])
@pytest.mark.parametrize(
    "feed, error",
    [
        # The NumPy fast form refuses it; TF1 would drop the imaginary part with a warning.
        (np.ones((2, 3), complex), DTypeError),
        ("abc", DTypeError),
        ([[1.0, 2.0], [3.0]], InvalidArgumentError),  # ragged
    ],
    ids=["complex", "string", "ragged"],
)
def test_a_feed_that_is_no_real_numbers_is_refused(backend: str, feed: Any, error: type) -> None:
    if backend in ("torch", "dask"):
        pytest.importorskip({"torch": "torch", "dask": "dask.array"}[backend])
    with sg.Graph().as_default():
        model = _linear()
        with sg.Session(backend=backend) as sess:
            sess.run(model["w"].initializer)
            with pytest.raises((DTypeError, InvalidArgumentError), match="'x:0'") as raised:
                sess.run(model["loss"], {model["x"]: feed})
    assert isinstance(raised.value, SymgradError)
    if backend != "numpy":  # the NumPy fast form's messages are the lead's
        assert isinstance(raised.value, error)
        assert backend in str(raised.value)


def test_a_complex_tensor_fed_to_a_torch_session_is_refused() -> None:
    torch = _torch()
    with sg.Graph().as_default():
        model = _linear()
        with sg.Session(backend="torch") as sess:
            sess.run(model["w"].initializer)
            with pytest.raises(DTypeError, match=r"'x:0'.*complex128.*float64"):
                sess.run(model["loss"], {model["x"]: torch.ones(2, 3, dtype=torch.complex128)})


# --- torch tensors the session must not keep as they are ------------------------------------


@pytest.mark.parametrize("backend", ["numpy", "torch", "array_api_strict"])
def test_a_tensor_that_requires_grad_is_fed_as_data(backend: str) -> None:
    torch = _torch()
    with sg.Graph().as_default():
        model = _linear()
        train = sg.train.GradientDescentOptimizer(0.0625).minimize(model["loss"])
        fed = torch.tensor(X, requires_grad=True)
        with sg.Session(backend=backend) as sess:
            sess.run(model["w"].initializer)
            sess.run(train, {model["x"]: fed})
            loss, w = sess.run([model["loss"], model["w"]], {model["x"]: fed})
            stored = sess._values[model["w"]]
    # No autograd graph reaches what the session stores or returns: it would grow with
    # every training step and hold every fed batch alive.
    for value in (loss, w, stored):
        assert not getattr(value, "requires_grad", False)
    want = np.ones((3, 1)) - 0.0625 * 2 * X.T @ (X @ np.ones((3, 1)))
    np.testing.assert_allclose(np.asarray(to_numpy(w)), want, rtol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "array_api_strict", "dask"])
def test_a_meta_tensor_fed_to_a_session_that_needs_data_is_refused(backend: str) -> None:
    torch = _torch()
    if backend == "dask":
        _dask_array()
    with sg.Graph().as_default():
        model = _linear()
        with sg.Session(backend=backend) as sess:
            sess.run(model["w"].initializer)
            meta = torch.ones(2, 3, dtype=torch.float64, device="meta")
            with pytest.raises(InvalidArgumentError, match=r"'x:0'.*meta"):
                sess.run(model["loss"], {model["x"]: meta})


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_a_meta_tensor_loaded_into_a_variable_is_refused(backend: str) -> None:
    torch = _torch()
    with sg.Graph().as_default():
        model = _linear()
        with sg.Session(backend=backend) as sess:
            meta = torch.ones(3, 1, dtype=torch.float64, device="meta")
            with pytest.raises(InvalidArgumentError, match=r"'w:0'.*meta"):
                model["w"].load(meta, sess)


# --- Dask arrays: never computed behind the user's back, unknown sizes named ----------------


@pytest.mark.parametrize("backend", ["numpy", "torch", "array_api_strict"])
def test_a_dask_array_fed_to_another_backend_is_not_computed(backend: str) -> None:
    dask_array = _dask_array()
    if backend == "torch":
        _torch()
    with sg.Graph().as_default():
        model = _linear()
        with sg.Session(backend=backend) as sess:
            sess.run(model["w"].initializer)
            lazy = dask_array.from_array(X, chunks=1)
            with pytest.raises(InvalidArgumentError, match=r"'x:0'.*Dask.*compute\(\)"):
                sess.run(model["loss"], {model["x"]: lazy})


def _unknown_rows(dask_array: Any) -> Any:
    """A Dask array of X's rows whose row count is unknown (nan) until computed."""
    lazy = dask_array.from_array(np.concatenate([X, -X]), chunks=2)
    return lazy[lazy[:, 1] > 0]


def test_a_dask_array_of_unknown_size_is_named_not_a_raw_traceback() -> None:
    dask_array = _dask_array()
    with sg.Graph().as_default():
        model = _linear()
        with sg.Session(backend="dask") as sess:
            sess.run(model["w"].initializer)
            unknown = _unknown_rows(dask_array)
            with pytest.raises(InvalidArgumentError, match=r"'x:0'.*compute_chunk_sizes"):
                sess.run([model["loss"], model["grad"]], {model["x"]: unknown})
            known = unknown.compute_chunk_sizes()
            loss, grad = sess.run([model["loss"], model["grad"]], {model["x"]: known})
    assert float(loss.compute()) == LOSS
    np.testing.assert_allclose(grad.compute(), 2 * X.T @ (X @ np.ones((3, 1))))


def test_the_portable_module_names_unknown_dask_sizes() -> None:
    dask_array = _dask_array()
    with sg.Graph().as_default():
        model = _linear()
        function = sg.compile(
            [model["loss"], model["grad"]], inputs=[model["x"], model["w"]], backend="array_api"
        ).function
    with pytest.raises(ValueError, match=r"input 'x'.*unknown.*compute_chunk_sizes"):
        function(_unknown_rows(dask_array), np.ones((3, 1)))


def test_dask_arrays_of_one_chunk_and_of_many_tiny_chunks_give_numpys_values() -> None:
    dask_array = _dask_array()
    rows = np.arange(120.0).reshape(40, 3) / 40
    with sg.Graph().as_default():
        model = _linear()
        with sg.Session() as sess:
            sess.run(model["w"].initializer)
            want = sess.run([model["loss"], model["grad"]], {model["x"]: rows})
        with sg.Session(backend="dask") as sess:
            sess.run(model["w"].initializer)
            for chunks in (-1, 1):
                fed = dask_array.from_array(rows, chunks=(chunks, -1))
                got = sess.run([model["loss"], model["grad"]], {model["x"]: fed})
                for value, expected in zip(got, want, strict=True):
                    np.testing.assert_allclose(value.compute(), expected, rtol=1e-13)


def test_numpy_arrays_beside_torch_or_dask_arrays_are_data_for_them() -> None:
    torch, dask_array = _torch(), _dask_array()
    with sg.Graph().as_default():
        model = _linear()
        function = sg.compile(
            [model["loss"], model["grad"]], inputs=[model["x"], model["w"]], backend="array_api"
        ).function
    want = function(X, np.ones((3, 1)))
    mixed = [
        (np.ones((3, 1)), torch.tensor(X), torch.Tensor),
        (torch.ones(3, 1, dtype=torch.float64), X, torch.Tensor),
        (np.ones((3, 1)), dask_array.from_array(X, chunks=1), dask_array.Array),
    ]
    for w, x, kind in mixed:
        got = function(x, w)
        assert all(isinstance(value, kind) for value in got)
        for value, expected in zip(got, want, strict=True):
            np.testing.assert_array_equal(np.asarray(to_numpy(value)), expected)


# --- JAX without 64-bit values --------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype float64")
def test_the_portable_module_refuses_to_truncate_float64_on_jax() -> None:
    jax = _jax()
    with sg.Graph().as_default():
        model = _linear()
        function = sg.compile(
            [model["loss"], model["grad"]], inputs=[model["x"], model["w"]], backend="array_api"
        ).function
    with jax.enable_x64(False), pytest.raises(ValueError, match=r"input 'x'.*float64.*x64"):
        function(jax.numpy.asarray(X), jax.numpy.ones((3, 1)))


# --- what Session(backend=..., device=...) accepts ------------------------------------------


@pytest.mark.parametrize(
    "backend, device",
    [
        ("torch", "nonsense"),
        ("torch", "cuda:99"),
        ("dask", "nonsense"),
        ("array_api_strict", "nonsense"),
        ("array_api", "cuda"),
        ("numpy", "cuda"),
    ],
)
def test_a_device_that_does_not_exist_is_refused_up_front(backend: str, device: str) -> None:
    if backend in ("torch", "dask"):
        pytest.importorskip({"torch": "torch", "dask": "dask.array"}[backend])
    with pytest.raises(InvalidArgumentError, match=rf"{backend}.*{device}") as raised:
        sg.Session(backend=backend, device=device)
    assert isinstance(raised.value, ValueError)


def test_cpu_devices_are_accepted() -> None:
    torch = _torch()
    assert sg.Session(backend="numpy", device="cpu").backend == "numpy"
    assert sg.Session(backend="array_api", device="cpu").backend == "array_api"
    assert sg.Session(backend="torch", device=torch.device("cpu")).backend == "torch"


def test_a_module_whose_asarray_makes_no_standard_array_is_refused() -> None:
    fake = types.ModuleType("fake")
    fake.asarray = lambda value: value  # type: ignore[attr-defined]
    with pytest.raises(InvalidArgumentError, match="'fake'.*no array namespace"):
        sg.Session(backend=fake)


def test_input_errors_of_a_portable_session_name_the_backend() -> None:
    with sg.Graph().as_default():
        model = _linear()
        with sg.Session(backend="array_api_strict") as sess:
            sess.run(model["w"].initializer)
            with pytest.raises(
                InvalidArgumentError, match=r"'x:0'.*array_api_strict.*\(None, 3\).*\(2, 4\)"
            ):
                sess.run(model["loss"], {model["x"]: np.ones((2, 4))})


# --- threads (full profile) -----------------------------------------------------------------


@pytest.mark.skipif(not FULL, reason="SYMGRAD_BACKENDS_PROFILE=full")
def test_threads_share_a_portable_module_and_a_torch_session() -> None:
    torch = _torch()
    with sg.Graph().as_default():
        model = _linear()
        function = sg.compile(
            [model["loss"], model["grad"]], inputs=[model["x"], model["w"]], backend="array_api"
        ).function
        batches = [torch.randn(100, 3, dtype=torch.float64) for _ in range(8)]
        w = torch.ones(3, 1, dtype=torch.float64)
        want = [function(b.numpy(), w.numpy()) for b in batches]
        wrong: list[int] = []

        def module_worker(start: int) -> None:
            for step in range(300):
                k = (start + step) % len(batches)
                loss, grad = function(batches[k], w)
                if not (
                    np.isclose(float(loss), want[k][0], rtol=1e-12)
                    and np.allclose(grad.numpy(), want[k][1], rtol=1e-12)
                ):
                    wrong.append(k)

        threads = [threading.Thread(target=module_worker, args=(s,)) for s in (0, 3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not wrong

        # Two threads train one session: every run completes and the variable stays a
        # float64 tensor of its shape (updates may interleave, as in TF1's runtime).
        train = sg.train.GradientDescentOptimizer(1e-4).minimize(model["loss"])
        errors: list[BaseException] = []
        with sg.Session(backend="torch") as sess:
            sess.run(model["w"].initializer)

            def session_worker(start: int) -> None:
                try:
                    for step in range(150):
                        sess.run(train, {model["x"]: batches[(start + step) % len(batches)]})
                except BaseException as error:  # reported below
                    errors.append(error)

            threads = [threading.Thread(target=session_worker, args=(s,)) for s in (0, 5)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            value = sess.run(model["w"])
        assert not errors
        assert isinstance(value, torch.Tensor) and value.shape == (3, 1)
        assert value.dtype == torch.float64 and bool(torch.isfinite(value).all())
