"""The portable backend: generated code written against the Python array API standard.

The module's function takes its namespace from its inputs (``array_api_compat`` when it
is installed, else the arrays' ``__array_namespace__``), so one file runs on NumPy,
``array_api_strict``, PyTorch, JAX, CuPy and Dask arrays. ``printer.py`` prints IR nodes
as calls of the standard, ``kernels/`` holds the functions modules call, ``emit.py`` fills
``templates/array_api/module.py.jinja``, and ``backend.py`` ties them into
:data:`ARRAY_API`. There is no memory planner: the standard has no ``out=`` and its arrays
may be immutable.
"""

from __future__ import annotations

from .backend import ARRAY_API
from .printer import Printer

__all__ = ["ARRAY_API", "Printer"]
