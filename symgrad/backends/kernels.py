"""Runtime kernels: the functions generated modules call, copied into them from real modules.

Each backend keeps its kernels (``_conv2d``, ``_scatter_add``, ``_check``, ...) as ordinary
functions in ``symgrad/backends/<backend>/kernels/*.py``, where they are imported, typed,
linted and unit-tested like the rest of the code, and declares them once, in the order
generated modules define them (``KERNELS`` of that package). A generated module stays
standalone: the emitter finds the kernels its code calls, adds what those call in turn,
and copies their source into the module. Nothing names a kernel twice: what a module
needs is read from its code, and what a kernel needs from the kernel's own source.

The copy is the kernel's text as written, less its type annotations (which would need
imports the generated module does not have), with the comment lines just above it.
"""

from __future__ import annotations

import ast
import builtins
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

# Modules of the standard library a kernel or a generated body may use; the module imports
# each one that its code names.
STANDARD_MODULES = ("base64", "contextlib", "math", "sys")


@dataclass(frozen=True)
class Kernel:
    """One kernel: its name, the text copied into modules, and what that text names."""

    name: str
    source: str  # as copied: comments above it included, annotations removed
    calls: frozenset[str]  # the other kernels it names
    modules: frozenset[str]  # the standard-library modules it names (STANDARD_MODULES)


class KernelLibrary:
    """The kernels of one backend, read from its kernel modules (``files``).

    ``order`` is the backend's declared list (``KERNELS``); every top-level function or
    assignment of the modules must be in it and nothing else, so a kernel cannot be added
    without being declared, nor declared without existing.

    >>> from symgrad.backends.numpy import NUMPY
    >>> library = NUMPY.kernels
    >>> [k.name for k in library.needed("y = _max_pool(x, (2, 2), (2, 2), 'SAME')")]
    ['_pads', '_padded', '_windows', '_blocks', '_block_taps', '_tap_max', '_block_max', '_max_pool']
    """

    def __init__(self, files: Sequence[Path], order: Sequence[str]) -> None:
        self.files, self.order = tuple(files), tuple(order)

    @functools.cached_property
    def kernels(self) -> dict[str, Kernel]:
        """Every kernel by name, in declared order; read when first needed (parsing the
        modules costs about 25 ms, which ``import symgrad`` need not pay)."""
        found: dict[str, Kernel] = {}
        for path in self.files:
            for kernel in _read_kernels(path):
                if kernel.name in found:
                    raise RuntimeError(f"kernel {kernel.name} defined twice")
                found[kernel.name] = kernel
        order = self.order
        if set(found) != set(order) or len(order) != len(set(order)):
            undeclared = sorted(set(found) - set(order))
            missing = sorted(set(order) - set(found))
            raise RuntimeError(
                f"kernels defined but not declared: {undeclared}; declared but not "
                f"defined: {missing}"
            )
        names = frozenset(found)
        return {
            name: Kernel(
                name,
                found[name].source,
                found[name].calls & names - {name},
                found[name].modules,
            )
            for name in order
        }

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.kernels)

    def needed(self, code: str) -> list[Kernel]:
        """The kernels ``code`` (Python source) names, and all they call, in declared order."""
        wanted: set[str] = set()
        pending = [name for name in names_in(code) if name in self.kernels]
        while pending:
            name = pending.pop()
            if name not in wanted:
                wanted.add(name)
                pending.extend(self.kernels[name].calls)
        return [kernel for name, kernel in self.kernels.items() if name in wanted]


@functools.lru_cache(maxsize=8)
def names_in(code: str) -> frozenset[str]:
    """Every name ``code`` reads or binds (``ast.Name``), docstrings and comments aside.
    Remembered for the last few codes: a module's emitter asks twice (the kernels it calls,
    the standard modules it imports), and a CNN's training step took 15 to 25 ms a time.

    >>> sorted(names_in("y = math.sqrt(_erf(x))  # _not_this"))
    ['_erf', 'math', 'x', 'y']
    """
    return frozenset(node.id for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Name))


def standard_imports(code: str, kernels: Iterable[Kernel]) -> list[str]:
    """The standard-library modules a module made of ``code`` and ``kernels`` imports."""
    used = names_in(code).intersection(STANDARD_MODULES)
    for kernel in kernels:
        used |= kernel.modules
    return sorted(used)


def kernel_text(kernels: Sequence[Kernel]) -> str:
    """The kernels' source as a generated module lays it out (the formatter spaces it)."""
    return "".join(f"\n\n{kernel.source}\n" for kernel in kernels)


def _read_kernels(path: Path) -> tuple[Kernel, ...]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    kernels = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            name = node.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if not isinstance(target, ast.Name):
                continue
            name = target.id
            if name.startswith("__"):  # __all__ and the like: the module's, not a kernel
                continue
        else:
            continue  # the docstring, imports, try/except of optional imports
        first = node.lineno - 1
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            raise RuntimeError(f"kernel {name} of {path.name}: decorators are not copied")
        while first > 0 and lines[first - 1].lstrip().startswith("#"):
            first -= 1
        end = node.end_lineno or node.lineno
        text = _without_annotations(lines[first:end], node, first)
        named = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        kernels.append(
            Kernel(
                name,
                text,
                frozenset(named - set(dir(builtins))),
                frozenset(named.intersection(STANDARD_MODULES)),
            )
        )
    return tuple(kernels)


def _without_annotations(lines: list[str], node: ast.stmt, first: int) -> str:
    """The statement's lines with its annotations cut out (``x: int`` → ``x``, ``-> T:``
    → ``:``, ``y: T = v`` → ``y = v``)."""
    cuts: list[tuple[int, int, int, int]] = []  # (line, column) spans, 0-based in ``lines``

    def span(start: ast.expr | ast.arg, end: ast.expr, start_col: int) -> None:
        cuts.append(
            (
                start.lineno - 1 - first,
                start_col,
                (end.end_lineno or end.lineno) - 1 - first,
                end.end_col_offset or 0,
            )
        )

    if isinstance(node, ast.AnnAssign):
        if node.value is None:
            raise RuntimeError("an annotated name without a value is not a kernel")
        target = node.target
        span(target, node.annotation, target.end_col_offset or 0)
    if isinstance(node, ast.FunctionDef):
        arguments = node.args
        for argument in [
            *arguments.posonlyargs,
            *arguments.args,
            *arguments.kwonlyargs,
            *([arguments.vararg] if arguments.vararg else []),
            *([arguments.kwarg] if arguments.kwarg else []),
        ]:
            if argument.annotation is not None:
                span(argument, argument.annotation, argument.col_offset + len(argument.arg))
        if node.returns is not None:
            # From the closing parenthesis of the parameters to the end of the return type.
            row = node.returns.lineno - 1 - first
            text = lines[row][: node.returns.col_offset]
            arrow = text.rindex("->")
            while arrow > 0 and text[arrow - 1] == " ":
                arrow -= 1
            end_row = (node.returns.end_lineno or node.returns.lineno) - 1 - first
            cuts.append((row, arrow, end_row, node.returns.end_col_offset or 0))
        for inner in ast.walk(node):
            if isinstance(inner, ast.AnnAssign):
                raise RuntimeError(
                    f"kernel {node.name}: annotate parameters and results only "
                    "(a local's annotation would be copied)"
                )
    kept = list(lines)
    for row, col, end_row, end_col in sorted(cuts, reverse=True):
        kept[row : end_row + 1] = [kept[row][:col] + kept[end_row][end_col:]]
    return "\n".join(kept)
