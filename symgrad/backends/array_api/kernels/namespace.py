"""The array namespace and device a call runs on, and what moves values between namespaces."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ._types import Array, Device, DType, Namespace

try:
    import array_api_compat
except ImportError:  # the arrays' own __array_namespace__ serves
    array_api_compat = None  # type: ignore[assignment]


def _namespace(*values: Any) -> tuple[Namespace, Device]:
    """The array namespace and device of the values that are arrays (NumPy's if none is)."""
    found = [v for v in values if hasattr(v, "shape") and hasattr(v, "dtype")]
    # NumPy arrays beside arrays of another library are data for it (like Python numbers),
    # e.g. the initial values of variables left out of the call.
    arrays = [v for v in found if not isinstance(v, (np.ndarray, np.generic))] or found
    if not arrays:
        return np, "cpu"
    if array_api_compat is not None:
        return array_api_compat.array_namespace(*arrays), array_api_compat.device(
            arrays[0]
        )
    namespaces = {id(ns): ns for ns in (a.__array_namespace__() for a in arrays)}
    if len(namespaces) > 1:
        raise TypeError("inputs are arrays of different array libraries")
    return arrays[0].__array_namespace__(), getattr(arrays[0], "device", "cpu")


def _is_numpy(xp: Namespace) -> bool:
    """Whether ``xp`` is NumPy (itself, or as array_api_compat wraps it)."""
    return xp is np or (
        array_api_compat is not None and array_api_compat.is_numpy_namespace(xp)
    )


def _native(xp: Namespace, library: str, *arrays: Array) -> Any:
    """The ``library`` module ("torch" or "jax") when ``xp`` is its namespace and ``arrays``
    are arrays of one floating dtype, else None: the kernels of convolutions and pooling
    then call the library's own, several times faster than composing them from the
    standard's functions (the MNIST CNN's training step, one thread: on torch 147 ms
    composed, about 60 ms native; on JAX, eager, 219 and 133 ms)."""
    if array_api_compat is None:
        return None
    if library == "torch" and not array_api_compat.is_torch_namespace(xp):
        return None
    if library == "jax" and not array_api_compat.is_jax_namespace(xp):
        return None
    names = {
        str(a.dtype).rsplit(".", 1)[-1] for a in arrays
    }  # "torch.float32", "float32"
    if len(names) != 1 or not names.pop().startswith(("float", "bfloat")):
        return None
    return sys.modules[library]  # imported: its arrays are the arguments


def _numpy_dtype(dtype: DType) -> np.dtype[Any]:
    """NumPy's dtype of a namespace's ``dtype`` (``torch.int32``: by its name)."""
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype(str(dtype).rsplit(".", 1)[-1].strip("'>"))


def _quiet(xp: Namespace) -> contextlib.AbstractContextManager[None]:
    """NumPy's floating-point warnings off (for a ``where`` whose discarded branch may
    overflow or divide by zero); other libraries do not warn, so nothing to switch off."""
    if _is_numpy(xp) or (
        array_api_compat is not None
        and array_api_compat.is_array_api_strict_namespace(xp)
    ):
        return np.errstate(divide="ignore", invalid="ignore", over="ignore")
    return contextlib.nullcontext()


def _device_of(x: Array) -> Device:
    """The device of array ``x`` (for the arrays a helper makes beside it)."""
    if array_api_compat is not None:
        return array_api_compat.device(x)
    return x.device


def _special(
    xp: Namespace, x: Array, name: str, function: Callable[[float], float]
) -> Array:
    """The special function ``name`` elementwise. The standard has none: a namespace's own
    is used where there is one (PyTorch's ``erf``, JAX's and CuPy's scipy.special); Dask
    maps the C library's ``function`` (``math.erf``: within 1 ulp) over each NumPy chunk,
    lazily; NumPy-backed arrays (NumPy, array_api_strict) are read on the host. Any other
    library raises rather than copy its data to NumPy."""
    if hasattr(xp, name):
        return getattr(xp, name)(x)
    known = array_api_compat is not None
    if known and array_api_compat.is_jax_namespace(xp):
        import jax.scipy.special

        return getattr(jax.scipy.special, name)(x)
    if known and array_api_compat.is_cupy_namespace(xp):
        import cupyx.scipy.special

        return getattr(cupyx.scipy.special, name)(x)
    if known and array_api_compat.is_dask_namespace(xp):
        return x.map_blocks(_on_host, function, dtype=x.dtype)
    if _is_numpy(xp) or getattr(xp, "__name__", "") == "array_api_strict":
        return xp.asarray(_on_host(np.asarray(x), function), device=_device_of(x))
    raise TypeError(
        f"{name}: the array API standard has no {name} and {getattr(xp, '__name__', xp)} "
        "has none either"
    )


def _on_host(
    values: npt.NDArray[Any], function: Callable[[float], float]
) -> npt.NDArray[Any]:
    """``function`` of each element of the NumPy array ``values``, in its dtype."""
    result = np.fromiter(
        map(function, values.ravel().tolist()), values.dtype, values.size
    )
    return np.reshape(result, values.shape)


def _traced(value: object) -> bool:
    """Whether ``value`` is a value JAX traces (under ``jax.jit``, ``jax.vmap``, ``jax.grad``
    even a computation of known inputs is one): its entries are not known yet, so checks of
    them are skipped and sizes cannot come from them."""
    if array_api_compat is None or not array_api_compat.is_jax_array(value):
        return False
    import jax

    return isinstance(value, jax.core.Tracer)


def _holds(value: object, where: str) -> bool:
    """The truth of a loop's condition or a ``cond``'s predicate (a 0-d array). Under
    ``jax.jit`` it is a traced value with no truth yet: a TypeError names the loop or cond
    (a Python ``while`` or ``if`` of a generated module cannot run on it)."""
    if _traced(value):
        raise TypeError(
            f"{where}: its condition is a value jax.jit traces, which has no truth value "
            f"yet; a generated module's loops and branches are Python 'while' and 'if' "
            f"statements: call this function without jax.jit"
        )
    return bool(value)


def _kept_shapes(loop: str, names: tuple, values: tuple, shapes: tuple) -> None:
    """A ValueError if a loop's carried value left a step with another shape than it had
    when the loop began: its static shape's unknown sizes are kept from step to step (the
    generated code relies on it), unless ``shape_invariants`` says they may change."""
    for name, value, shape in zip(names, values, shapes):
        if tuple(value.shape) != tuple(shape):
            raise ValueError(
                f"{loop}: loop variable {name!r} began with shape {tuple(shape)} and left a "
                f"step with shape {tuple(value.shape)}; to let its size change from step to "
                f"step, give shape_invariants with None there"
            )
