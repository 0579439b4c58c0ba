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
        conversion rules as the NumPy backend.
        """
        wanted = self.dtype(dtype, what)
        if self.owns(value):
            array = value if value.dtype == wanted else self.xp.astype(value, wanted)
            return self.xp.asarray(array, copy=True) if copy and array is value else array
        host = np.asarray(to_numpy(value), dtype=dtype)
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

    def unshared(self, value: Any, kept: list[Any]) -> Any:
        """``value``, or a copy if it is one of ``kept`` (a fed array or a stored variable)."""
        if any(value is k for k in kept):
            return self.xp.asarray(value, copy=True)
        return value


def resolve(backend: Any, device: Any = None) -> Namespace | None:
    """The namespace ``backend`` names, or ``None`` for the NumPy fast form (the default).

    Raises ``InvalidArgumentError`` for an unknown name and ``MissingExtraError`` naming the
    extra to install when the library is absent.
    """
    if isinstance(backend, ModuleType):
        if backend is np:
            return None
        sample = getattr(backend, "asarray", None)
        if sample is None:
            raise InvalidArgumentError(
                f"symgrad: Session(backend=...): module {backend.__name__!r} is no array "
                f"namespace (it has no asarray)"
            )
        xp = _compat().array_namespace(sample(0))
        name = backend.__name__.split(".")[0]
        return Namespace(name if name in _LIBRARIES else backend.__name__, xp, device)
    if backend == "numpy" or backend is None:
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
    if backend == "array_api":
        return Namespace(backend, compat.array_namespace(np.asarray(0)), device)
    return Namespace(backend, compat.array_namespace(library.asarray(0)), device)


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
