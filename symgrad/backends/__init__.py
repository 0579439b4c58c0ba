"""Backends: one folder per target array library, each described by a :class:`Backend`.

A backend owns everything that depends on its library: the printer of IR nodes, the
memory planner (where the library can write into existing arrays), the module template
(``templates/<backend>/``) and its helpers, and the names the template reserves. The
passes above it rewrite Programs without knowing which backend will print them.
SymForce's ``codegen/backends/<lang>/`` is the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Backend:
    """What the compiler needs to know about one target.

    >>> from symgrad.backends.numpy import NUMPY
    >>> NUMPY.module_alias, NUMPY.template, NUMPY.has_out
    ('np', 'numpy/module.py.jinja', True)
    """

    name: str
    module_alias: str  # how generated code names the array library (``np``)
    template: str  # path under ``templates/``
    has_out: bool  # ufuncs can write into an existing array (``out=``): in-place planning pays
    in_place_dtypes: tuple[str, ...]  # dtypes the memory planner may compute in place
    reserved: frozenset[str]  # names the template imports or defines
    printer: type[Any]  # the printer class; one instance prints one module
