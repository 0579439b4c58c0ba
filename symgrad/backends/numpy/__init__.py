"""The NumPy backend: printer, memory planner, kernels and template of the generated modules.

``printer.py`` prints IR nodes, ``planner.py`` lowers statements into in-place NumPy
calls and pools, ``kernels/`` holds the functions modules call, ``emit.py`` fills
``templates/numpy/module.py.jinja``, and ``backend.py`` ties them into :data:`NUMPY`.
"""

from __future__ import annotations

from .backend import NUMPY
from .printer import Printer

__all__ = ["NUMPY", "Printer"]
