"""Backends: one folder per target array library, each described by a :class:`Backend`.

A backend owns everything that depends on its library: the printer of IR nodes, the
memory planner (where the library can write into existing arrays), the module template
(``templates/<backend>/``), its runtime kernels (``<backend>/kernels/``), and the function
that turns a Program into a module's text. The passes above it rewrite Programs without
knowing which backend will print them; ``compile()`` and ``Session`` reach a backend only
through :mod:`symgrad.backends.registry`. SymForce's ``codegen/backends/<lang>/`` is the
model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .kernels import KernelLibrary

# The folder of the module templates: ``symgrad/_templates`` in an installed wheel, else
# ``templates/`` of the source tree.
_PACKAGE = Path(__file__).resolve().parents[1]


def template_root() -> Path:
    """``symgrad/_templates`` in an installed wheel, else ``templates/`` of the source tree."""
    installed = _PACKAGE / "_templates"
    return installed if installed.is_dir() else _PACKAGE.parent / "templates"


@dataclass(frozen=True)
class Backend:
    """What ``compile()`` and ``Session`` need to know about one target.

    ``generate(program, fast_form=..., specialized=..., assumption=...)`` returns the
    module's text; ``specialized`` is the program traced under the equal-sizes
    ``assumption`` (``symgrad.signatures``), given only to a backend that
    ``specializes_shapes``.

    >>> from symgrad.backends import registry
    >>> numpy = registry.get("numpy")
    >>> numpy.module_alias, numpy.template, numpy.has_out, numpy.specializes_shapes
    ('np', 'numpy/module.py.jinja', True, True)
    """

    name: str
    module_alias: str  # how generated code names the array library (``np``)
    template: str  # path under ``templates/``
    has_out: bool  # ufuncs can write into an existing array (``out=``): in-place planning pays
    printer: type[Any]  # the printer class; one instance prints one module
    kernels: KernelLibrary  # the functions generated modules call (backends/kernels.py)
    generate: Callable[..., str]  # Program -> the module's text
    # Whether a second body for inputs of equal sizes pays (in-place planning needs them).
    specializes_shapes: bool
    # Whether the module takes its array library from its inputs (the portable form) rather
    # than computing with its own (NumPy): then ``CompiledModule`` and ``Session`` hand it
    # arrays of any library and keep results in it.
    portable: bool

    def template_path(self) -> Path:
        """The file of this backend's module template."""
        return template_root() / self.template
