"""A Griffe extension for the API reference: symgrad's objects as mkdocstrings shows them.

The docstrings are written for ``help()`` and doctest, in reST; mkdocstrings reads them as
Markdown, from the source, without running it. Changed here, for the documentation only:

1. A doctest example (``>>>`` lines and the output under them) becomes a ``pycon`` code
   block, so that Markdown leaves its output alone (``[1 2]`` is not a link, ``>>>`` not a
   quote).
2. A Sphinx role (``:func:`symgrad.compile```) becomes a code span.
3. What the source alone does not show is taken from the imported package: a function a
   factory makes (``add = _binary("Add")``, ``sin, cos = _unary("Sin"), _unary("Cos")``)
   gets its signature and docstring, a second name for a class (``NewCheckpointReader =
   CheckpointReader``) points to the class, and names a module gains at import time
   (``symgrad.layers`` gets its layer classes from ``symgrad.layer_classes``) are listed.

Registered in ``mkdocs.yml`` under the python handler's ``extensions``.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import types
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the working tree's symgrad, whatever is installed

PACKAGE = "symgrad"
_ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj):`~?([^`]+)`")
_PROMPT = re.compile(r"^(\s*)>>> ")


def markdown_docstring(text: str) -> str:
    """``text`` with its doctest examples fenced as ``pycon`` and its Sphinx roles as code.

    >>> markdown_docstring("Sums.\\n\\n>>> f([1, 2])\\n[1 2]\\n\\nSee :func:`g`.").split("\\n")
    ['Sums.', '', '```pycon', '>>> f([1, 2])', '[1 2]', '```', '', 'See `g`.']
    """
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        prompt = _PROMPT.match(lines[index])
        if prompt is None:
            out.append(_ROLE.sub(r"`\1`", lines[index]))
            index += 1
            continue
        indent = prompt.group(1)
        out.append(f"{indent}```pycon")
        while index < len(lines) and lines[index].strip():
            out.append(lines[index])
            index += 1
        out.append(f"{indent}```")
    return "\n".join(out)


def _parameter(parameter: inspect.Parameter) -> griffe.Parameter:
    empty = inspect.Parameter.empty
    annotation = parameter.annotation
    return griffe.Parameter(
        parameter.name,
        kind=griffe.ParameterKind(parameter.kind.description),
        annotation=None if annotation is empty else str(annotation),
        default=None if parameter.default is empty else repr(parameter.default),
    )


def _function(
    name: str, value: types.FunctionType, lineno: int | None, parent: griffe.Module
) -> griffe.Function:
    """A Griffe function ``parent.name``, from the function ``value`` of the imported module."""
    signature = inspect.signature(value)
    returns = signature.return_annotation
    function = griffe.Function(
        name,
        lineno=lineno,
        endlineno=lineno,
        parameters=griffe.Parameters(*map(_parameter, signature.parameters.values())),
        returns=None if returns is inspect.Signature.empty else str(returns),
        parent=parent,
    )
    function.docstring = griffe.Docstring(
        markdown_docstring(inspect.cleandoc(value.__doc__ or "")),
        lineno=lineno,
        parent=function,
    )
    return function


def _defined_at(value: Any) -> str | None:
    """Where a class or function is defined (``symgrad.checkpoint.CheckpointReader``)."""
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", "")
    if module is None or "<locals>" in qualname:
        return None
    return f"{module}.{qualname}"


def _runtime(module_path: str) -> types.ModuleType | None:
    """The imported module, if importing ``symgrad`` imported it."""
    return sys.modules.get(module_path)


def _walk(obj: griffe.Object) -> list[griffe.Object]:
    found = [obj]
    for member in list(obj.members.values()):
        if not member.is_alias:
            found += _walk(member)  # type: ignore[arg-type]
    return found


def _resolves(alias: griffe.Alias) -> bool:
    try:
        alias.final_target  # noqa: B018
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return False
    return True


class SymgradDocstrings(griffe.Extension):
    """Applies the three changes above to every object of the ``symgrad`` package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name != PACKAGE:
            return
        importlib.import_module(PACKAGE)
        objects = _walk(pkg)
        for obj in objects:
            if obj.docstring is not None:
                obj.docstring.value = markdown_docstring(obj.docstring.value)
        modules = {obj.path: obj for obj in objects if isinstance(obj, griffe.Module)}
        for module in modules.values():
            runtime = _runtime(module.path)
            if runtime is not None:
                self._from_runtime(module, runtime, modules)

    @staticmethod
    def _from_runtime(
        module: griffe.Module, runtime: types.ModuleType, modules: dict[str, griffe.Module]
    ) -> None:
        for name, member in list(module.members.items()):
            if isinstance(member, griffe.Attribute) and member.docstring is None:
                value = getattr(runtime, name, None)
                if isinstance(value, types.FunctionType) and value.__doc__:
                    module.set_member(name, _function(name, value, member.lineno, module))
                elif isinstance(value, type) and _defined_at(value) not in (None, member.path):
                    alias = griffe.Alias(name, _defined_at(value) or "", parent=module)
                    module.set_member(name, alias)
            elif member.is_alias and not _resolves(member):  # type: ignore[arg-type]
                # ``from .ops.elementwise import cos``, where ``cos`` comes out of a tuple.
                target_module, _, target = member.target_path.rpartition(".")  # type: ignore[union-attr]
                origin, source = modules.get(target_module), _runtime(target_module)
                value = getattr(source, target, None)
                if origin is not None and isinstance(value, types.FunctionType) and value.__doc__:
                    origin.set_member(target, _function(target, value, None, origin))
        exported = getattr(runtime, "__all__", None)
        if module.exports is None or exported is None:
            return
        known = {str(name) for name in module.exports}
        added = [name for name in exported if name not in known]
        for name in added:
            path = _defined_at(getattr(runtime, name, None))
            if name not in module.members and path is not None:
                module.set_member(name, griffe.Alias(name, path, parent=module))
        if added:
            module.exports = [*module.exports, *added]
