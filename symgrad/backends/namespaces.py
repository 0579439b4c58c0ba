"""The array namespaces a :class:`symgrad.Session` can run the portable form on.

``Session(backend=...)`` takes a name (``"torch"``, ``"jax"``, ``"dask"``, ``"cupy"``,
``"array_api_strict"``, ``"array_api"`` for NumPy arrays through the portable form) or a
namespace module (``torch``, ``jax.numpy``, ``dask.array``, ...). This module imports the
library on demand (each is an optional extra), converts fed values into it and values out
of it into NumPy (checkpoints, ``compile(values=sess)``). The array-API wrappers come from
``array_api_compat``, which already papers over each library's departures from the
standard; nothing here re-implements them.

>>> ns = resolve("array_api")
>>> ns.name, type(ns.asarray([1, 2], "float32", "x")).__name__
('array_api', 'ndarray')
>>> resolve("numpy") is None
True
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from ..errors import DTypeError, InvalidArgumentError, MissingExtraError

# name -> (module to import, what to install when it is missing)
_LIBRARIES = {
    "array_api": ("numpy", "pip install 'symgrad[array_api]'"),
    "array_api_strict": ("array_api_strict", "pip install array-api-strict 'symgrad[array_api]'"),
    "torch": ("torch", "pip install 'symgrad[torch]'"),
    "jax": ("jax.numpy", "pip install 'symgrad[jax]'"),
    "dask": ("dask.array", "pip install 'symgrad[dask]'"),
    "cupy": ("cupy", "pip install cupy-cuda12x 'symgrad[array_api]' (needs a CUDA GPU)"),
}
NAMES = ("numpy", *_LIBRARIES)


def _compat() -> ModuleType:
    try:
        return importlib.import_module("array_api_compat")
    except ImportError:
        raise MissingExtraError(
            "symgrad: Session(backend=...): the portable form takes its namespace from its "
            "inputs through array_api_compat, which is not installed; "
            "pip install 'symgrad[array_api]'"
        ) from None


@dataclass(frozen=True)
class Namespace:
    """One array library as generated portable code sees it (``xp``), on one device."""

    name: str
    xp: Any  # the array-API-compatible namespace (array_api_compat's wrapper where needed)
    device: Any = None

    def owns(self, value: Any) -> bool:
        """Whether ``value`` is already an array of this namespace."""
        try:
            return _compat().array_namespace(value) is self.xp
        except TypeError:
            return False

    def dtype(self, dtype: Any, what: str) -> Any:
        """The namespace's dtype of NumPy's ``dtype``."""
        found = getattr(self.xp, np.dtype(dtype).name, None)
        if found is None:
            raise DTypeError(
                f"symgrad: Session(backend={self.name!r}): {what} has dtype "
                f"{np.dtype(dtype).name}, which the {self.name} namespace does not have"
            )
        return found

    def asarray(self, value: Any, dtype: Any, what: str, copy: bool = False) -> Any:
        """``value`` as an array of this namespace with NumPy's ``dtype``.

        An array already in the namespace stays as it is (a Dask array stays lazy; only its
        dtype is converted if needed); anything else goes through NumPy first, with the same
        conversion rules as the NumPy backend. Values that are no real numbers, a Dask array
        of another namespace (it would be computed into memory) or of unknown size, and a
        tensor without data raise symgrad errors naming ``what`` and the backend.
        """
        wanted = self.dtype(dtype, what)
        value = data_of(
            value, what, self.name, self.name == "dask", keeps_meta=self.name == "torch"
        )
        if self.owns(value):
            if not self.xp.isdtype(value.dtype, ("bool", "integral", "real floating")):
                raise DTypeError(
                    f"symgrad: Session(backend={self.name!r}): {what} has dtype "
                    f"{value.dtype}, not convertible to {np.dtype(dtype).name}"
                )
            _refuse_unknown_sizes(value, what, self.name)
            array = value if value.dtype == wanted else self.xp.astype(value, wanted)
            return self.xp.asarray(array, copy=True) if copy and array is value else array
        host = host_array(value, dtype, what, self.name)
        kwargs = {} if self.device is None else {"device": self.device}
        with warnings.catch_warnings():
            # JAX warns before truncating 64-bit values; the error below says more.
            warnings.simplefilter("ignore", UserWarning)
            array = self.xp.asarray(host, dtype=wanted, copy=True, **kwargs)
        if array.dtype != wanted:
            # JAX keeps 64-bit values as 32-bit ones unless x64 is enabled: say so, do not
            # silently lose precision.
            raise DTypeError(
                f"symgrad: Session(backend={self.name!r}): {what} needs dtype "
                f"{np.dtype(dtype).name}, the namespace made {array.dtype}"
                + (
                    ' (enable 64-bit JAX: jax.config.update("jax_enable_x64", True))'
                    if self.name == "jax"
                    else ""
                )
            )
        return array

    def stored(self, value: Any) -> Any:
        """``value`` as a variable keeps it between runs.

        A Dask array is persisted (computed and kept on the workers): stored lazily, each
        training step's variables would carry the whole history of steps in their graph.
        """
        return value.persist() if _compat().is_dask_array(value) else value

    def unshared(self, value: Any, kept: Sequence[Any]) -> Any:
        """``value``, or a copy if it is one of ``kept`` (a fed array or a stored variable)."""
        if any(value is k for k in kept):
            return self.xp.asarray(value, copy=True)
        return value

    def owned(self, values: Sequence[Any], kept: Sequence[Any]) -> list[Any]:
        """``values`` made the caller's own (see :func:`owned_arrays`)."""
        return owned_arrays(values, kept)


def owned_arrays(values: Sequence[Any], kept: Sequence[Any]) -> list[Any]:
    """``values`` (arrays of any library) made the caller's own: a copy of each that is, or
    shares memory with, one of ``kept`` (fed arrays, stored variables, a module's constants)
    or an earlier value. Memory is compared where the library's arrays live in host memory
    NumPy can view (NumPy, ``array_api_strict``, PyTorch on the CPU); JAX and Dask arrays are
    immutable, and other devices' arrays are compared by identity."""
    views = [v for v in (_host_view(k) for k in kept) if v is not None]
    result: list[Any] = []
    for value in values:
        view = _host_view(value)
        shared = any(value is k for k in kept) or any(value is r for r in result)
        if not shared and view is not None:
            shared = any(np.may_share_memory(view, other) for other in views)
        if shared and hasattr(value, "shape"):
            value = copied(value)
            view = _host_view(value)
        if view is not None:
            views.append(view)
        result.append(value)
    return result


def copied(value: Any) -> Any:
    """A copy of an array of any array-API library."""
    return _compat().array_namespace(value).asarray(value, copy=True)


def _host_view(value: Any) -> np.ndarray | None:
    """A NumPy array sharing ``value``'s memory, where its library keeps it in host memory
    that NumPy can view without a copy; None otherwise."""
    if isinstance(value, np.ndarray):
        return value
    inner = getattr(value, "_array", None)  # array_api_strict wraps a NumPy array
    if isinstance(inner, np.ndarray):
        return inner
    device = getattr(value, "device", None)
    if (
        type(value).__module__.startswith("torch")
        and getattr(device, "type", None) == "cpu"
        and not value.is_sparse
    ):
        return np.asarray(value.detach())
    return None


def resolve(backend: Any, device: Any = None) -> Namespace | None:
    """The namespace ``backend`` names, or ``None`` for the NumPy fast form (the default).

    Raises ``InvalidArgumentError`` for an unknown name and ``MissingExtraError`` naming the
    extra to install when the library is absent.
    """
    if isinstance(backend, ModuleType):
        if backend is np:
            return resolve("numpy", device)
        sample = getattr(backend, "asarray", None)
        if sample is None:
            raise InvalidArgumentError(
                f"symgrad: Session(backend=...): module {backend.__name__!r} is no array "
                f"namespace (it has no asarray)"
            )
        try:
            xp = _compat().array_namespace(sample(0))
        except TypeError:
            raise InvalidArgumentError(
                f"symgrad: Session(backend=...): module {backend.__name__!r} is no array "
                f"namespace (its asarray makes no array of the array API standard)"
            ) from None
        name = backend.__name__.split(".")[0]
        return _on_device(Namespace(name if name in _LIBRARIES else backend.__name__, xp, device))
    if backend == "numpy" or backend is None:
        if device is not None and str(device) != "cpu":
            # The NumPy fast form runs on the host only: a GPU asked for must not be ignored.
            raise InvalidArgumentError(
                f"symgrad: Session(backend='numpy', device={device!r}): NumPy arrays live on "
                f"the 'cpu' only; for a GPU use Session(backend='torch', device=...)"
            )
        return None
    if not isinstance(backend, str) or backend not in _LIBRARIES:
        raise InvalidArgumentError(
            f"symgrad: Session(backend={backend!r}): unknown backend; choose one of "
            f"{', '.join(repr(n) for n in NAMES)} or pass an array namespace module"
        )
    module, install = _LIBRARIES[backend]
    try:
        library = importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(
            f"symgrad: Session(backend={backend!r}) needs {module.split('.')[0]}, which is "
            f"not installed: {install}"
        ) from None
    compat = _compat()
    sample = np.asarray(0) if backend == "array_api" else library.asarray(0)
    return _on_device(Namespace(backend, compat.array_namespace(sample), device))


def _on_device(namespace: Namespace) -> Namespace:
    """``namespace``, once an array could be made on its device: a device that does not
    exist fails here, named, rather than in the first run with the library's own error."""
    if namespace.device is not None:
        try:
            namespace.xp.asarray(0.0, device=namespace.device)
        # Libraries disagree on the error (torch without CUDA raises AssertionError).
        except Exception as error:
            raise InvalidArgumentError(
                f"symgrad: Session(backend={namespace.name!r}, device={namespace.device!r}): "
                f"the {namespace.name} namespace has no such device ({error})"
            ) from None
    return namespace


def to_numpy(value: Any) -> Any:
    """``value`` as NumPy data: device arrays are copied to the host, Dask arrays computed.

    Anything that is no array of an optional library (a list, a NumPy array, a number) is
    returned as it is.
    """
    if isinstance(value, (np.ndarray, np.generic, int, float, bool, list, tuple)):
        return value
    try:
        compat = importlib.import_module("array_api_compat")
    except ImportError:
        return np.asarray(value)
    if compat.is_dask_array(value):
        return to_numpy(value.compute())
    if compat.is_torch_array(value):
        return value.detach().cpu().numpy()
    if compat.is_cupy_array(value):
        return value.get()
    if compat.is_array_api_obj(value) and not hasattr(value, "__array__"):
        return np.from_dlpack(value)
    return np.asarray(value)


def data_of(
    value: Any,
    what: str,
    backend: str,
    keeps_dask: bool = False,
    keeps_meta: bool = False,
    context: str | None = None,
) -> Any:
    """``value`` as data a run may read: a torch tensor detached from autograd (a fed
    tensor that requires grad would otherwise tie every result and stored variable into its
    graph, growing with each step); errors for a tensor without data (torch's ``meta``
    device; unless ``keeps_meta``: a torch session may run on it to learn shapes) and,
    unless ``keeps_dask``, for a Dask array, which only a Dask session keeps lazy: any other
    would compute it into one process's memory. ``context`` is who reads it, for the
    messages (default: the Session of ``backend``).
    """
    where = context or f"Session(backend={backend!r})"
    if isinstance(value, (np.ndarray, np.generic, int, float, bool, list, tuple)):
        return value
    try:
        compat = importlib.import_module("array_api_compat")
    except ImportError:
        return value
    if compat.is_torch_array(value):
        if value.is_meta and not keeps_meta:
            raise InvalidArgumentError(
                f"symgrad: {where}: {what} is a torch tensor on the "
                f"'meta' device, which holds no values to compute with"
            )
        if value.layout != _torch_strided(value):  # sparse COO/CSR and other layouts
            raise InvalidArgumentError(
                f"symgrad: {where}: {what} is a torch tensor of layout "
                f"{value.layout}; feed value.to_dense()"
            )
        value = value.detach()
        if backend == "numpy" and str(value.dtype) == "torch.bfloat16":
            # NumPy has no bfloat16: every bfloat16 is a float32 exactly.
            value = value.float()
        return value
    if compat.is_dask_array(value) and not keeps_dask:
        raise InvalidArgumentError(
            f"symgrad: {where}: {what} is a Dask array of shape "
            f"{value.shape}, which this backend would compute into memory; feed "
            f"value.compute() if it fits, or run Session(backend='dask')"
        )
    return value


def _torch_strided(value: Any) -> Any:
    """torch's dense layout (``torch.strided``), from the module the tensor came from."""
    return importlib.import_module(type(value).__module__.split(".")[0]).strided


def _refuse_unknown_sizes(value: Any, what: str, backend: str) -> None:
    """A Dask array after boolean indexing has sizes ``nan`` until computed; shapes of the
    program's gradients are made from them, so name the fix instead of failing inside."""
    if any(n is None or isinstance(n, float) for n in value.shape):
        raise InvalidArgumentError(
            f"symgrad: Session(backend={backend!r}): {what} has shape {tuple(value.shape)} "
            f"with sizes not known yet; compute them first (value.compute_chunk_sizes() for "
            f"a Dask array)"
        )


def host_array(value: Any, dtype: Any, what: str, backend: str) -> np.ndarray:
    """``value`` as a NumPy array of ``dtype``, refusing ragged nested lists and what is no
    real numbers, as the NumPy fast form's input check does: a complex feed would lose its
    imaginary part (TF1 drops it with only a ComplexWarning), text has no number at all."""
    try:
        host = np.asarray(to_numpy(value))
    except ValueError:
        raise InvalidArgumentError(
            f"symgrad: Session(backend={backend!r}): {what} is not a rectangular array "
            f"(ragged nested lists)"
        ) from None
    if host.dtype.kind not in "biuf":
        raise DTypeError(
            f"symgrad: Session(backend={backend!r}): {what} has dtype {host.dtype}, not "
            f"convertible to {np.dtype(dtype).name}"
        )
    if np.dtype(dtype).kind in "iu" and not isinstance(value, (np.ndarray, np.generic)):
        # Python numbers, as TF1 converts feeds (np.asarray(value, dtype)): one the dtype
        # cannot hold (2**31 for int32, NaN) is an error, not a number wrapped round.
        try:
            return np.asarray(value, dtype=dtype)
        except (OverflowError, ValueError) as error:
            raise InvalidArgumentError(
                f"symgrad: Session(backend={backend!r}): {what}: {np.dtype(dtype).name} "
                f"cannot hold the value: {error}"
            ) from None
    return host.astype(dtype, copy=False)
