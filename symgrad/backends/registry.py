"""The backends ``compile()`` and ``Session`` can write modules for, by name.

A new backend is one folder (``symgrad/backends/<name>/`` with its printer, kernels, emitter
and :class:`~symgrad.backends.Backend` record, and ``templates/<name>/``) and one line in
:data:`BACKENDS`.

>>> names()
('numpy', 'array_api')
>>> get("array_api").portable
True
"""

from __future__ import annotations

from ..errors import BackendError
from . import Backend
from .array_api import ARRAY_API
from .numpy import NUMPY

# The first is the default: NumPy's fast form.
BACKENDS: dict[str, Backend] = {backend.name: backend for backend in (NUMPY, ARRAY_API)}
DEFAULT = "numpy"


def names() -> tuple[str, ...]:
    """The registered backends' names, the default first."""
    return tuple(BACKENDS)


def all_backends() -> list[Backend]:
    return list(BACKENDS.values())


def get(name: str, context: str = "compile") -> Backend:
    """The backend called ``name``; a :class:`~symgrad.errors.BackendError` naming the
    registered ones for any other name."""
    if not isinstance(name, str) or name not in BACKENDS:
        raise BackendError(
            f"symgrad: {context}: unknown backend {name!r}; choose one of "
            f"{', '.join(repr(b) for b in BACKENDS)}"
        )
    return BACKENDS[name]


def portable() -> Backend:
    """The backend whose modules compute with their inputs' array library (the first such)."""
    return next(b for b in BACKENDS.values() if b.portable)
