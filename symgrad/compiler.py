"""``compile()``: graph → program → source file → imported module."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from . import codegen, fast, naming
from .errors import CallError, InvalidArgumentError, NotCompilableError
from .graph import Tensor, sources_of
from .optimize import optimize as optimize_statements
from .program import Program
from .trace import trace

Outputs = Tensor | Sequence[Tensor | None] | dict[str, Tensor | None]


def cache_directory() -> Path:
    """Where generated modules go by default: ``$SYMGRAD_CACHE_DIR`` or ``~/.cache/symgrad``."""
    configured = os.environ.get("SYMGRAD_CACHE_DIR")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "symgrad"


class CompiledModule:
    """A generated module and its entry function, callable like the function.

    Arguments are the inputs, by position or by name (``input_names``).
    Variables left out take their initial values. The result has the
    structure of ``outputs``: one value, a list, or a dict.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, shape=[None], name="x")
    ...     y = sg.reduce_sum(x**2)
    ...     f = sg.compile({"y": y, "dy_dx": sg.gradients(y, x)[0]}, name="square")
    >>> f([1.0, 2.0])["dy_dx"].tolist()
    [2.0, 4.0]
    """

    def __init__(
        self,
        program: Program,
        source: str,
        path: Path,
        module: Any,
        structure: Any,
        defaults: dict[str, Tensor],
    ) -> None:
        self.program = program
        self.source = source
        self.path = path
        self.module = module
        self.function = getattr(module, program.name)
        self.input_names: list[str] = [i.name for i in program.inputs]
        self._structure = structure
        self._defaults = defaults
        self._default_values: dict[str, Any] = {}
        self.output_names: list[str] = list(_output_names(structure, program))
        self.input_tensors: list[Tensor] = []
        self.output_tensors: list[Tensor] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) > len(self.input_names):
            raise CallError(
                f"symgrad: {self.program.name}() takes {len(self.input_names)} inputs "
                f"({', '.join(self.input_names)}), got {len(args)}"
            )
        values = dict(zip(self.input_names, args, strict=False))
        for key, value in kwargs.items():
            if key not in self.input_names:
                raise CallError(
                    f"symgrad: {self.program.name}() has no input {key!r}; inputs are "
                    f"{', '.join(self.input_names) or '(none)'}"
                )
            if key in values:
                raise CallError(f"symgrad: {self.program.name}() got input {key!r} twice")
            values[key] = value
        missing = [n for n in self.input_names if n not in values and n not in self._defaults]
        if missing:
            raise CallError(
                f"symgrad: {self.program.name}() is missing inputs: {', '.join(missing)}"
            )
        for name in self.input_names:
            if name not in values:
                values[name] = self._initial_value(name)
        flat = self.function(*(values[n] for n in self.input_names))
        if len(self.program.outputs) == 1:
            flat = (flat,)
        # Scalars come back as NumPy scalars (np.float32(...)), as from TF's Session.run.
        flat = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in flat]
        return _restructure(self._structure, flat)

    def _initial_value(self, name: str) -> Any:
        if name not in self._default_values:
            from .ops.sources import Variable

            variable = self._defaults[name]
            assert isinstance(variable, Variable)
            self._default_values[name] = evaluate_constant(variable.initial_value)
        return self._default_values[name]

    @property
    def formulas(self) -> dict[str, sp.Expr]:
        """Each output as a SymPy expression of the inputs and the named intermediates."""
        from .explain import formulas

        return formulas(self.program)

    def explain(self, expand: bool = True, latex: bool = False) -> str:
        """The formula of every output, as text (or LaTeX); ``expand`` writes them in the inputs.

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     x = sg.placeholder(sg.float64, shape=[], name="x")
        ...     w = sg.Variable(2.0, dtype=sg.float64, name="weight")
        ...     loss = sg.square(x * w - 1.0)
        ...     print(sg.compile({"loss": loss, "d_weight": sg.gradients(loss, w)[0]}).explain())
        loss = (weight*x - 1)**2
        d_weight = 2*x*(weight*x - 1)
        """
        from .explain import formulas, readable

        lines = []
        for name, expr in formulas(self.program, expand=expand).items():
            expr = readable(expr)
            lines.append(f"{name} = {sp.latex(expr) if latex else sp.sstr(expr)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<symgrad.CompiledModule {self.program.name}({', '.join(self.input_names)}) at {self.path}>"


def evaluate_constant(tensor: Tensor) -> np.ndarray:
    """The value of a tensor that depends on no placeholder or variable."""
    if tensor.op.type == "Const":
        return tensor.op.attrs["value"]
    return compile(tensor, inputs=[], name="initial_value")()


# --- outputs in and out ----------------------------------------------------------------------


def _flatten(outputs: Outputs) -> tuple[Any, list[tuple[str | None, Tensor]]]:
    """(structure, [(name override, tensor)]) with None entries kept in the structure only."""
    flat: list[tuple[str | None, Tensor]] = []

    def slot(key: str | None, tensor: Any) -> int | None:
        if tensor is None:
            return None
        if not isinstance(tensor, Tensor):
            raise InvalidArgumentError(
                f"symgrad: compile: outputs must be tensors, got "
                f"{type(tensor).__name__} {tensor!r:.60}"
            )
        flat.append((key, tensor))
        return len(flat) - 1

    if isinstance(outputs, Tensor):
        return ("single", slot(None, outputs)), flat
    if isinstance(outputs, dict):
        return ("dict", {k: slot(str(k), v) for k, v in outputs.items()}), flat
    if isinstance(outputs, (list, tuple)):
        return (type(outputs).__name__, [slot(None, v) for v in outputs]), flat
    raise InvalidArgumentError(
        f"symgrad: compile: outputs must be a tensor, a list/tuple or a dict "
        f"of tensors, got {type(outputs).__name__}"
    )


def _restructure(structure: Any, flat: list[Any]) -> Any:
    """Put flat values back into the caller's structure (None entries stay None)."""
    kind, layout = structure

    def pick(index: int | None) -> Any:
        return None if index is None else flat[index]

    if kind == "single":
        return pick(layout)
    if kind == "dict":
        return {k: pick(i) for k, i in layout.items()}
    values = [pick(i) for i in layout]
    return tuple(values) if kind == "tuple" else values


def _output_names(structure: Any, program: Program) -> list[str | None]:
    named = _restructure(structure, [o.name for o in program.outputs])
    if isinstance(named, dict):
        return list(named.values())
    return list(named) if isinstance(named, (list, tuple)) else [named]


# --- the pipeline ---------------------------------------------------------------------------------


def build_program(
    outputs: Sequence[tuple[str | None, Tensor]],
    inputs: Sequence[Tensor],
    name: str,
    optimize_program: bool = True,
) -> Program:
    program = trace(outputs, inputs, name)
    return optimize_statements(program, simplify=optimize_program)


def generate_source(program: Program, fast_form: bool = True) -> str:
    """The module's text: the fast form (``symgrad.fast``) or one readable expression per statement."""
    printer = codegen.Printer()
    if fast_form:
        lines, helpers = fast.fast_lines(program, printer), sorted(printer.helpers_used)
    else:
        lines, helpers = codegen.statement_lines(program, printer)
    return codegen.render(program, codegen.statement_summary(lines), lines, helpers)


def _target_path(path: str | Path | None, name: str, source: str) -> Path:
    if path is None:
        digest = hashlib.sha256(source.encode()).hexdigest()[:16]
        return cache_directory() / f"{name}_{digest}.py"
    target = Path(path)
    if target.suffix != ".py":
        return target / f"{name}.py"
    return target


def load_module(path: Path, source: str) -> Any:
    """Import the generated file as a fresh module (``inspect`` and ``pdb`` see the file)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    module_name = f"symgrad_generated_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def compile(
    outputs: Outputs,
    inputs: Sequence[Tensor] | None = None,
    *,
    name: str | None = None,
    path: str | Path | None = None,
    simplify: bool = True,
    optimize: bool = True,
) -> CompiledModule:
    """Generate, write and import a NumPy module computing ``outputs``.

    ``inputs`` are the placeholders and variables that become the function's
    parameters, in order (default: all those the outputs need, in creation
    order). ``path`` is a ``.py`` file or a folder (default: a cache folder).
    ``optimize=False`` writes the readable form, one NumPy expression per
    statement, instead of the fast one (dot products, in-place arithmetic,
    reused arrays; see ``symgrad.fast``). ``simplify=False`` skips SymPy's
    tidying of the formulas.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, name="x")
    ...     w = sg.Variable(3.0, name="weight")
    ...     f = sg.compile([x * w, sg.gradients(x * w, w)[0]], name="scale")
    >>> f.input_names, [float(v) for v in f(2.0, 3.0)]
    (['x', 'weight'], [6.0, 2.0])
    """
    if callable(outputs) and not isinstance(outputs, Tensor):
        raise InvalidArgumentError(
            "symgrad: compile: to compile a Python function, trace it first: "
            "sg.function(fn, sg.TensorSpec(shape, dtype), ...).compile() "
            "or sg.value_and_grad(fn, specs...)"
        )
    structure, flat = _flatten(outputs)
    if not flat:
        raise InvalidArgumentError("symgrad: compile: there is no tensor among the outputs")
    if inputs is None:
        inputs = sources_of([t for _, t in flat])
    else:
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]  # type: ignore[list-item]
        for tensor in inputs:
            if not isinstance(tensor, Tensor):
                raise InvalidArgumentError(
                    f"symgrad: compile: inputs must be placeholders or variables, "
                    f"got {type(tensor).__name__}"
                )
        listed = Counter(id(t) for t in inputs)
        repeated = [t.name for t in inputs if listed[id(t)] > 1]
        if repeated:
            raise InvalidArgumentError(f"symgrad: compile: input '{repeated[0]}' is listed twice")
        needed_variables = [
            t for t in sources_of([t for _, t in flat]) if t.op.type == "VariableV2"
        ]
        given = {id(t) for t in inputs}
        missing = [v.name for v in needed_variables if id(v) not in given]
        if missing:
            raise NotCompilableError(
                f"symgrad: compile: the outputs read variables {', '.join(missing)}, "
                f"which are not among the inputs"
            )
    function_name = naming.function_name(name)
    program = build_program(flat, inputs, function_name, optimize_program=simplify)
    program.graph_name = name or function_name
    source = generate_source(program, fast_form=optimize)
    target = _target_path(path, function_name, source)
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.read_text() != source:
        temporary = target.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(source)
        os.replace(temporary, target)
    module = load_module(target, source)
    defaults = {
        i.name: t for i, t in zip(program.inputs, inputs, strict=False) if i.kind == "variable"
    }
    compiled = CompiledModule(program, source, target, module, structure, defaults)
    compiled.input_tensors, compiled.output_tensors = list(inputs), [t for _, t in flat]
    for observer in list(_observers):
        observer(compiled)
    return compiled


# Callbacks told of every module compile() makes (the command line collects them).
_observers: list[Any] = []
