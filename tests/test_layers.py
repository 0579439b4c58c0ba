"""The package's modules import only downward: no import cycle, no import hidden in a function;
IR nodes print only through a backend's printer.

Both read the source with ``ast`` (no import runs), so a cycle dodged by a function-local
import is still a cycle here.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
import sympy as sp

from symgrad import naming
from symgrad.backends import Backend, registry
from symgrad.backends.kernels import STANDARD_MODULES
from symgrad.ops import array_nodes as A
from symgrad.ops import functions as F
from symgrad.ops import linalg as L

PACKAGE = Path(__file__).resolve().parent.parent / "symgrad"
# Optional dependencies, imported where they are used so that the base install needs none.
# tensorboardX also imports PyTorch when that is installed: import symgrad must not pay for it.
# Kernels of the portable form use a namespace's own special functions where it has them.
OPTIONAL = {"pytest", "tensorboardX", "jax", "cupyx", "torch"}


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def _imported(module: str, path: Path, node: ast.ImportFrom, modules: dict) -> list[str]:
    """The package's modules ``node`` imports: ``from .ops import functions`` names ``ops.functions``."""
    if node.level:
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - node.level + 1])
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module or ""
    found = []
    for alias in node.names:
        if f"{source}.{alias.name}" in modules:
            found.append(f"{source}.{alias.name}")
        elif source in modules:
            found.append(source)
    return found


def import_graph(modules: dict[str, Path], everywhere: bool = True) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in it, with ``everywhere``)."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = ast.walk(tree) if everywhere else iter(tree.body)
        targets: set[str] = set()
        for node in nodes:
            if isinstance(node, ast.ImportFrom):
                targets.update(_imported(module, path, node, modules))
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name in modules)
        graph[module] = targets - {module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def test_the_package_has_no_import_cycle() -> None:
    cycle = find_cycle(import_graph(_modules()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def _local_imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Import):
                names = [a.name for a in inner.names]
            elif isinstance(inner, ast.ImportFrom):
                names = ["." * inner.level + (inner.module or "")]
            else:
                continue
            if not all(n.split(".")[0] in OPTIONAL for n in names):
                found.append((inner.lineno, ", ".join(names)))
    return found


@pytest.mark.parametrize("module", sorted(_modules()))
def test_no_function_imports_except_optional_dependencies(module: str) -> None:
    path = _modules()[module]
    assert _local_imports(path) == [], f"{path.name} imports inside a function"


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ("symgrad.graph", "symgrad.session"),
        ("symgrad.ops.functions", "symgrad.backends.numpy.printer"),
        ("symgrad.optimize", "symgrad.backends.numpy.emit"),
        ("symgrad.optimize", "symgrad.backends"),
        ("symgrad.lowering", "symgrad.backends"),
        ("symgrad.gradients", "symgrad.backends"),
        ("symgrad.ops", "symgrad.lowering"),
        ("symgrad.ops", "symgrad.tf1"),
        ("symgrad.ops", "symgrad.gradients"),
        ("symgrad.tf1", "symgrad.gradients"),
        ("symgrad.tf1", "symgrad.lowering"),
    ],
)
def test_lower_layers_do_not_reach_up(lower: str, upper: str) -> None:
    """Nothing in ``lower`` (a module, or a package and every module in it) imports ``upper``
    (a module or a package), directly or through others."""
    graph = import_graph(_modules())
    reached: set[str] = set()
    stack = [m for m in graph if m == lower or m.startswith(lower + ".")]
    while stack:
        for target in graph[stack.pop()] - reached:
            reached.add(target)
            stack.append(target)
    assert not [m for m in reached if m == upper or m.startswith(upper + ".")]


def _ir_nodes() -> list[type]:
    nodes = []
    for module in (F, A, L):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, (F._Elementwise, F._Structural, F.Literal))
                and not value.__name__.startswith("_")
            ):
                nodes.append(value)
    return nodes


def test_ir_nodes_do_not_print_themselves() -> None:
    printing = [n.__name__ for n in _ir_nodes() if "_numpycode" in vars(n)]
    assert printing == []


@pytest.mark.parametrize("backend", registry.all_backends(), ids=lambda b: b.name)
def test_the_backend_printer_prints_every_ir_node(backend: Backend) -> None:
    missing = [n.__name__ for n in _ir_nodes() if _rule_owner(backend.printer, n) is None]
    assert missing == []


def _rule_owner(printer: type, node: type) -> type | None:
    """The class of ``printer``'s MRO that defines the rule SymPy's printer uses for ``node``:
    for a SymPy function, the rule named after the node itself (SymPy skips the classes
    between it and ``Function``); for a symbol, the first of its classes with a rule."""
    kinds = [node] if issubclass(node, sp.Function) else list(node.__mro__)
    for kind in kinds:
        for cls in printer.__mro__:
            if f"_print_{kind.__name__}" in vars(cls):
                return cls
    return None


@pytest.mark.parametrize("backend", registry.all_backends(), ids=lambda b: b.name)
def test_each_backend_decides_how_it_prints_every_ir_node(backend: Backend) -> None:
    """A printer that builds on another backend's printer (the portable one on NumPy's) has
    its own rule for each node, or declares that the inherited one suits it."""
    shared = getattr(backend.printer, "SHARED_RULES", frozenset())
    undecided = [
        n.__name__
        for n in _ir_nodes()
        if getattr(_rule_owner(backend.printer, n), "__module__", None)
        != backend.printer.__module__
        and n.__name__ not in shared
    ]
    assert undecided == []
    assert shared <= {n.__name__ for n in _ir_nodes()}  # no stale entry


@pytest.mark.parametrize("backend", registry.all_backends(), ids=lambda b: b.name)
def test_each_backend_prints_every_array_function_of_the_ir(backend: Backend) -> None:
    module = sys.modules[backend.printer.__module__]
    rules = getattr(module, "NUMPY_FUNCTIONS", None) or module.PORTABLE_FUNCTIONS
    assert set(rules) == A.ARRAY_FUNCTIONS


@pytest.mark.parametrize("backend", registry.all_backends(), ids=lambda b: b.name)
def test_user_names_never_take_a_name_the_backend_binds(backend: Backend) -> None:
    # The library's alias and the standard modules a module may import are reserved (a
    # tensor named "sys" once made a module import sys, then bind the name to its value);
    # kernels (and the module's own helpers) begin with "_", which user names never do.
    assert backend.module_alias in naming.RESERVED
    assert set(STANDARD_MODULES) <= naming.RESERVED
    assert all(name.startswith("_") for name in backend.kernels.names)
    for text in ["_conv2d", "__x", "_", "_check", "x_"]:
        assert not naming.sanitize(text).startswith("_")
