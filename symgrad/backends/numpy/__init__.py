"""The NumPy backend: printer, memory planner and template of the generated modules.

``printer.py`` prints IR nodes, ``planner.py`` lowers statements into in-place NumPy
calls and pools, ``emit.py`` fills ``templates/numpy/module.py.jinja``.
"""

from __future__ import annotations

from .. import Backend
from .printer import Printer

NUMPY = Backend(
    name="numpy",
    module_alias="np",
    template="numpy/module.py.jinja",
    has_out=True,
    in_place_dtypes=("float32", "float64"),
    # The template's imports and helpers; symgrad.naming keeps user names off them.
    reserved=frozenset(
        {"np", "numpy", "base64", "math", "_sum_to_shape", "_check", "rng", "_generators"}
        | {"_take_rows", "_give_rows", "_SPARE_ROWS"}  # the pools' workspace
    ),
    printer=Printer,
)

__all__ = ["NUMPY", "Backend", "Printer"]
