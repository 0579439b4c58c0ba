"""The portable backend's record: its printer, kernels, template and module generator."""

from __future__ import annotations

from typing import Any

from ...program import Program
from .. import Backend
from . import emit
from .printer import Printer


def generate_source(program: Program, **options: Any) -> str:
    """The portable module of ``program``: one form, the readable one (the fast form's
    options, ``fast_form`` and a shape-specialized body, do not apply)."""
    return emit.generate_source(program)


ARRAY_API = Backend(
    name="array_api",
    module_alias="xp",
    template=f"array_api/{emit.TEMPLATE}",
    has_out=False,
    printer=Printer,
    kernels=emit.KERNELS,
    generate=generate_source,
    specializes_shapes=False,
    portable=True,
)
