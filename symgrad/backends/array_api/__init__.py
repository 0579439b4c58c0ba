"""The portable backend: generated code written against the Python array API standard.

The module's function takes its namespace from its inputs (``array_api_compat`` when it
is installed, else the arrays' ``__array_namespace__``), so one file runs on NumPy,
``array_api_strict``, PyTorch, JAX, CuPy and Dask arrays. ``printer.py`` prints IR nodes
as calls of the standard, ``emit.py`` fills ``templates/array_api/module.py.jinja``.
There is no memory planner: the standard has no ``out=`` and its arrays may be immutable.
"""

from __future__ import annotations

from .. import Backend
from .printer import Printer

ARRAY_API = Backend(
    name="array_api",
    module_alias="xp",
    template="array_api/module.py.jinja",
    has_out=False,
    in_place_dtypes=(),
    # The template's imports, helpers and the function's own locals.
    reserved=frozenset(
        {
            "np",
            "numpy",
            "math",
            "xp",
            "device",
            "array_api_compat",
            "contextlib",
            "_namespace",
            "_quiet",
            "_sum_to_shape",
            "_check",
            "_CONSTANTS",
            "rng",
            "_generators",
        }
    ),
    printer=Printer,
)

__all__ = ["ARRAY_API", "Printer"]
