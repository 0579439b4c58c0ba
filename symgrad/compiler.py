"""``compile()``: graph → program → source file → imported module."""

from __future__ import annotations

import builtins
import hashlib
import linecache
import logging
import re
import sys
import threading
import time
import types
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from . import display, files, naming
from . import dtypes as _dtypes
from .backends import namespaces, registry
from .backends.namespaces import to_numpy
from .backends.numpy.printer import formula_text
from .errors import (
    BackendError,
    CallError,
    DTypeError,
    ExecutionArithmeticError,
    ExecutionError,
    ExecutionIndexError,
    ExecutionValueError,
    InvalidArgumentError,
    NotCompilableError,
    ShapeError,
    StaleValueWarning,
    SymgradError,
)
from .explain import formulas, function_formulas, readable
from .files import cache_directory as cache_directory  # re-exported: compiler.cache_directory
from .graph import Tensor, ancestors, sources_of
from .lowering import trace
from .ops.random_ops import generator_for, random_ops_of
from .ops.state import Variable
from .passes import PASSES, run_passes
from .picture import GraphPicture, graph_picture
from .program import Program
from .shapes import format_shape
from .signatures import assuming, equal_dims
from .whiteboard import Whiteboard, whiteboard

Outputs = Tensor | Sequence[Tensor | None] | dict[str, Tensor | None]

# Silent unless the application configures logging (``logging.basicConfig(level=logging.INFO)``).
logger = logging.getLogger("symgrad")
logger.addHandler(logging.NullHandler())
# A compile that takes longer than this prints one line on stderr, so a long first
# Session.run shows a sign of life.
PROGRESS_AFTER_SECONDS = 2.0


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
        # The module's own arrays (its constants): a result that shares memory with one is
        # copied before it is handed out, so that changing it cannot change later results.
        self.constant_arrays: tuple[np.ndarray, ...] = _constant_arrays(module, program)
        self.input_names: list[str] = [i.name for i in program.inputs]
        self._structure = structure
        self._defaults = defaults
        self._default_values: dict[str, Any] = {}
        self.output_names: list[str] = list(_output_names(structure, program))
        self.input_tensors: list[Tensor] = []
        self.traced: Program | None = None  # the Program before the passes (program_after)
        self.simplified = True
        self._whiteboard: Whiteboard | None = None
        self._whiteboard_done = False
        self.output_tensors: list[Tensor] = []
        self.backend = "numpy"  # which backend wrote the module (compile's ``backend=``)
        # Whether the module computes with the library of its inputs (the portable form).
        self.portable = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # A module with random ops draws from ``rng`` (see its docstring); left out, each call
        # draws from fresh streams seeded by the ops' seeds (unseeded ops: by the system).
        rng = kwargs.pop("rng", None)
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
        defaulted = [n for n in self.input_names if n not in values]
        self._warn_if_stale(defaulted)
        for name in defaulted:
            values[name] = self._initial_value(name)
        arguments = [values[n] for n in self.input_names]
        if not self.portable:
            # Arrays of other libraries are read as data, as a Session reads its feeds: torch
            # tensors detached from autograd, clear errors for tensors without values.
            arguments = [
                a
                if type(a) is np.ndarray
                else namespaces.data_of(
                    a, f"input '{n}'", "numpy", context=f"{self.program.name}()"
                )
                for n, a in zip(self.input_names, arguments, strict=True)
            ]
        streams = self.program.random_streams
        if streams and rng is None:
            graph = self.output_tensors[0].graph
            rng = [generator_for(op) for op in random_ops_of(streams, graph)]
        elif streams:
            _check_random_source(self.program.name, rng, len(streams))
        try:
            flat = self.function(*arguments, *([rng] if streams else []))
        except (ValueError, IndexError, ArithmeticError) as error:
            explained = self.execution_error(error) or self.input_error(error)
            if explained is None:
                raise
            raise explained from error
        if len(self.program.outputs) == 1:
            flat = (flat,)
        # Scalars come back as NumPy scalars (np.float32(...)), as from TF's Session.run.
        flat = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in flat]
        # An output that is an input, a module constant or another output (or a view of one)
        # is copied, so that changing the result cannot change the caller's array, a
        # variable's initial value kept here, the module, or another result.
        kept = [*arguments, *self.constant_arrays]
        flat = namespaces.owned_arrays(flat, kept) if self.portable else owned(flat, kept)
        return _restructure(self._structure, flat)

    def _warn_if_stale(self, names: list[str]) -> None:
        """A variable a Session changed: the user most likely wants the trained value, which
        only the session holds, not the initial value the module would silently use."""
        stale = [n for n in names if getattr(self._defaults[n], "changed_in_session", False)]
        if stale:
            listed = ", ".join(f"'{self._defaults[n].name}'" for n in stale)
            warnings.warn(
                f"symgrad: {self.program.name}(): "
                f"{'variables' if len(stale) > 1 else 'variable'} {listed} changed in a Session, "
                f"but the compiled module uses initial values; compile(..., values=sess) "
                f"bakes the trained values in, or pass them: "
                f"{', '.join(f'{n}=sess.run(...)' for n in stale)}",
                StaleValueWarning,
                stacklevel=3,
            )

    def execution_error(self, error: BaseException) -> ExecutionError | None:
        """The symgrad error for a NumPy error raised while this module's function ran: it names
        the statement that failed, its op and tensor (None if the error came from elsewhere,
        e.g. the module's own check of an input)."""
        # The innermost frame of this module's function: where it was when NumPy raised.
        frame, lineno = None, None
        trace_entry = error.__traceback__
        # The function, or its body for inputs of equal sizes (emit.Specialized), which it calls.
        names = (self.program.name, f"_{self.program.name}_same_shapes")
        while trace_entry is not None:
            code = trace_entry.tb_frame.f_code
            if code.co_filename == str(self.path) and code.co_name in names:
                frame, lineno = trace_entry.tb_frame, trace_entry.tb_lineno
            trace_entry = trace_entry.tb_next
        if frame is None or lineno is None:
            return None
        source_lines = self.source.splitlines()
        statement = self._statement_at(source_lines, lineno)
        if statement is None:
            return None
        text = source_lines[lineno - 1].strip()
        tensor = statement.tensor_name or statement.name
        op = tensor.rsplit(":", 1)[0]
        op_type = self._op_type(op)
        # The run-time shapes of the arrays the failing line reads, by their names in the code.
        operands = []
        for name in dict.fromkeys(re.findall(r"(?<![\w.])[A-Za-z_]\w*", text)):
            value = frame.f_locals.get(name)
            if isinstance(value, np.ndarray) and name != statement.name:
                operands.append(f"{name}: {value.dtype}{list(value.shape)}")
        kind = (
            ExecutionIndexError
            if isinstance(error, IndexError)
            else ExecutionArithmeticError
            if isinstance(error, ArithmeticError)
            else ExecutionValueError
        )
        return kind(
            f"symgrad: {self.program.name}: op '{op}' ({op_type}; tensor '{tensor}', static shape "
            f"{_shape_text(statement.shape)}) failed at run time: {error}"
            + (f" (with {', '.join(operands)})" if operands else "")
            + f"\n  in {self.path}, line {lineno}: {text}"
        )

    def input_error(self, error: BaseException) -> SymgradError | None:
        """The symgrad error for an input the module's own check (``_check``) refused: a
        ShapeError for a wrong shape, else an InvalidArgumentError (both ValueErrors, as the
        module's error is). None if the error came from elsewhere."""
        trace_entry = error.__traceback__
        while trace_entry is not None:
            code = trace_entry.tb_frame.f_code
            if code.co_filename == str(self.path) and code.co_name == "_check":
                kind = ShapeError if "expected shape" in str(error) else InvalidArgumentError
                return kind(f"symgrad: {self.program.name}: {error}")
            trace_entry = trace_entry.tb_next
        return None

    def _op_type(self, op_name: str) -> str:
        """The type of the graph op named ``op_name`` ("?" where the graph does not have it)."""
        known = self.output_tensors + self.input_tensors
        if not known:
            return "?"
        try:
            return known[0].graph.get_operation_by_name(op_name).type
        except (KeyError, ValueError):
            return "?"

    def _statement_at(self, source_lines: list[str], lineno: int) -> Any:
        """The statement whose code is at (or, for multi-line code, just before) ``lineno``."""
        by_name = {s.name: s for s in self.program.statements}
        for number in range(lineno, 0, -1):
            line = source_lines[number - 1]
            if line.lstrip().startswith("def "):
                break
            for match in _ASSIGNED.finditer(line):
                name = match.group(1) or match.group(2)
                if name in by_name:
                    return by_name[name]
        return None

    def _initial_value(self, name: str) -> Any:
        if name not in self._default_values:
            variable = self._defaults[name]
            assert isinstance(variable, Variable)
            self._default_values[name] = evaluate_constant(variable.initial_value)
        return self._default_values[name]

    def program_after(self, pass_name: str) -> Program:
        """The Program as it was right after the pass ``pass_name`` (see :mod:`symgrad.passes`).

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     x = sg.placeholder(sg.float64, shape=[3], name="x")
        ...     f = sg.compile(sg.reduce_sum(x * x), name="norm")
        >>> print(f.program_after("blas-reductions").statements[-1].expr)
        Dot(x, x, 1)
        """
        if self.traced is None:
            raise InvalidArgumentError("symgrad: this module keeps no traced Program")
        return run_passes(self.traced, simplify=self.simplified, until=pass_name)

    @property
    def formulas(self) -> dict[str, sp.Expr]:
        """Each output as a SymPy expression of the inputs and the named intermediates."""
        return formulas(self.program)

    def whiteboard(self) -> Whiteboard | None:
        """The outputs as a person writes them (see :mod:`symgrad.whiteboard`), or None where
        no display could be derived and checked against this module's values.

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     x = sg.placeholder(sg.float64, shape=[None], name="x")
        ...     w = sg.Variable(2.0, dtype=sg.float64, name="weight")
        ...     loss = sg.reduce_mean(sg.square(x * w - 1.0))
        ...     f = sg.compile({"d_weight": sg.gradients(loss, w)[0]})
        >>> print(f.whiteboard().text())
        d_weight = 2 * sum(x * (weight * x - 1)) / N  # ()
        """
        if not self._whiteboard_done:
            self._whiteboard = whiteboard(self.program, vars(self.module))
            self._whiteboard_done = True
        return self._whiteboard

    def explain(self, expand: bool = True, latex: bool = False, verbose: bool = False) -> str:
        """The formula of every output, as text (or LaTeX), as a person writes it.

        Broadcasting plumbing is hidden (each shape is shown once, beside its formula), the
        batch size is ``N``, stable forms read as the function they compute and layers are
        named (:mod:`symgrad.whiteboard`). ``verbose`` (or a program the display does not
        cover) gives the formulas as they run, ``expand`` writing them in the inputs.

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     x = sg.placeholder(sg.float64, shape=[], name="x")
        ...     w = sg.Variable(2.0, dtype=sg.float64, name="weight")
        ...     loss = sg.square(x * w - 1.0)
        ...     f = sg.compile({"loss": loss, "d_weight": sg.gradients(loss, w)[0]})
        >>> print(f.explain())
        loss = (weight * x - 1) ** 2      # ()
        d_weight = 2 * x * (weight * x - 1)  # ()
        >>> print(f.explain(verbose=True))
        loss = (weight*x - 1)**2
        d_weight = 2*x*(weight*x - 1)
        """
        # A program with loops or branches reads as its outputs, then its recurrences.
        board = None if verbose or self.program.functions else self.whiteboard()
        if board is not None:
            return board.latex() if latex else board.text()
        text = sp.latex if latex else formula_text
        lines = []
        for name, expr in formulas(self.program, expand=expand).items():
            lines.append(f"{name} = {text(readable(expr))}")
        return "\n".join(lines + function_formulas(self.program, text))

    def _repr_latex_(self) -> str:
        """The formulas of the outputs, for notebooks (see :mod:`symgrad.display`)."""
        return display.module_latex(self.program, self.whiteboard())

    def _repr_html_(self) -> str:
        """Inputs, outputs and formulas as HTML, for notebooks (see :mod:`symgrad.display`)."""
        return display.module_html(self.program, self.path, self.whiteboard())

    def graph(self) -> GraphPicture:
        """A picture of the graph behind this module: DOT text, and SVG where Graphviz is installed.

        The user's ops, the gradient path from each loss to each variable,
        ``stop_gradient`` cuts and variables that get no gradient (see
        :mod:`symgrad.picture`). ``.save("out.svg")`` or ``.save("out.dot")``.

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     x = sg.placeholder(sg.float64, shape=[3], name="x")
        ...     f = sg.compile(sg.reduce_sum(sg.tanh(x)), name="tanh_sum")
        >>> "Tanh" in f.graph().dot
        True
        """
        return graph_picture(self.output_tensors, self.input_tensors, name=self.program.name)

    def __repr__(self) -> str:
        return f"<symgrad.CompiledModule {self.program.name}({', '.join(self.input_names)}) at {self.path}>"


# Names a line of generated code assigns: `name = ...`, `name += ...`, `..., out=name)`.
_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:[-+*/@]|//|\*\*)?=(?!=)|\bout=([A-Za-z_]\w*)")


def _shape_text(shape: Any) -> str:
    if shape is None:
        return "unknown"
    return (
        "("
        + ", ".join("?" if d is None else str(d) for d in shape)
        + ("," if len(shape) == 1 else "")
        + ")"
    )


def _owner(array: np.ndarray) -> np.ndarray:
    """The array whose memory ``array`` views (``array`` itself when it owns its memory)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class Footprint:
    """The memory of some arrays, to ask whether another array may share it.

    Arrays that own their memory, or view an array that does, share memory only with views
    of the same owner: one identity test each, where ``np.may_share_memory`` against every
    argument cost a training step of 26 assignments and 32 inputs about 1 ms. Arrays over
    memory NumPy did not allocate (a buffer, a memory map) keep the exact bounds test.

    >>> a = np.ones(4)
    >>> footprint = Footprint([a])
    >>> footprint.may_hold(a[1:]), footprint.may_hold(np.ones(4))
    (True, False)
    """

    def __init__(self, arrays: Sequence[Any]) -> None:
        self._arrays = [array for array in arrays if isinstance(array, np.ndarray)]
        self._owners: set[int] = set()
        self._foreign: list[np.ndarray] = []
        for array in self._arrays:
            owner = _owner(array)
            if owner.base is None:
                self._owners.add(id(owner))
            else:
                self._foreign.append(array)

    def may_hold(self, value: np.ndarray) -> bool:
        """Whether ``value`` may share memory with one of the arrays (when in doubt, yes)."""
        owner = _owner(value)
        if owner.base is None:  # allocated by NumPy: only its owner's views, or foreign memory
            arrays: Sequence[np.ndarray] = self._foreign
            if id(owner) in self._owners:
                return True
        else:
            arrays = self._arrays
        return any(np.may_share_memory(value, other) for other in arrays)


def unshared(value: Any, arguments: Sequence[Any] | Footprint) -> Any:
    """``value``, or a copy of it if it may share memory with one of ``arguments`` (arrays, or
    their :class:`Footprint`)."""
    if not isinstance(value, np.ndarray):
        return value
    footprint = arguments if isinstance(arguments, Footprint) else Footprint(arguments)
    return value.copy() if footprint.may_hold(value) else value


def owned(values: Sequence[Any], kept: Sequence[Any]) -> list[Any]:
    """``values`` made the caller's own: each that may share memory with one of ``kept`` (the
    inputs, the module's constants, the session's storage) is copied, and so is each that is
    the same array as an earlier one (a tensor fetched twice, an output that is another).

    >>> a = np.ones(2)
    >>> first, second = owned([a, a], [])
    >>> first is a, second is a
    (True, False)
    """
    result: list[Any] = []
    seen: set[int] = set()
    footprint = Footprint(kept)
    for value in values:
        value = unshared(value, footprint)
        if isinstance(value, np.ndarray):
            if id(value) in seen:
                value = value.copy()
            seen.add(id(value))
        result.append(value)
    return result


def _check_random_source(function: str, rng: Any, count: int) -> None:
    """``rng`` as a module with ``count`` random streams takes it, or an InvalidArgumentError."""
    if isinstance(rng, (int, np.integer, np.random.Generator)) and not isinstance(rng, bool):
        return
    sequence = isinstance(rng, (list, tuple)) and len(rng) == count
    if sequence and all(isinstance(g, np.random.Generator) for g in rng):
        return
    raise InvalidArgumentError(
        f"symgrad: {function}(): rng must be a numpy.random.Generator, an int seed, or a "
        f"sequence of {count} Generators (one per random op), got {type(rng).__name__} "
        f"{rng!r:.60}"
    )


def _constant_arrays(module: Any, program: Program) -> tuple[np.ndarray, ...]:
    """The arrays a generated module keeps for its constants (module globals in the NumPy
    form, its ``_CONSTANTS`` table in the portable form)."""
    table = getattr(module, "_CONSTANTS", None)
    found = []
    for constant in program.constants:
        value = table.get(constant.name) if isinstance(table, dict) else None
        if value is None:
            value = getattr(module, constant.name, None)
        if isinstance(value, np.ndarray):
            found.append(value)
    return tuple(found)


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


def _output_names(structure: Any, program: Program) -> list[str]:
    named = _restructure(structure, [o.name for o in program.outputs])
    if isinstance(named, dict):
        return list(named.values())
    return list(named) if isinstance(named, (list, tuple)) else [named]


# --- the pipeline ---------------------------------------------------------------------------------


def _target_path(path: str | Path | None, name: str, source: str) -> Path:
    if path is None:
        digest = hashlib.sha256(source.encode()).hexdigest()[:16]
        return cache_directory() / f"{name}_{digest}.py"
    target = Path(path)
    if target.suffix != ".py":
        return target / f"{name}.py"
    return target


def _free_path(target: Path, source: str) -> Path:
    """``target``, or the first of ``stem_2.py``, ``stem_3.py``, ... that holds ``source`` or
    is free, written there exclusively: no other file is ever replaced."""
    candidate, number = target, 1
    while files.read_regular_text(candidate) != source and not files.write_new(candidate, source):
        number += 1
        candidate = target.with_name(f"{target.stem}_{number}{target.suffix}")
    return candidate


def load_module(path: Path, source: str) -> Any:
    """Run ``source``, the text just written to ``path``, as a fresh module.

    The module is executed from the text in hand, not imported from the file, so
    no cached bytecode and no other writer of the same path can substitute
    different code. Its code objects carry ``path`` as their file name, and the
    text is registered with ``linecache``, so ``inspect``, ``pdb`` and tracebacks
    show the generated lines. The module name holds a hash of the text.

    >>> import inspect, tempfile
    >>> text = "def twice(x):\\n    return 2 * x\\n"
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "twice.py"
    ...     _ = path.write_text(text)
    ...     module = load_module(path, text)
    ...     module.twice(21), inspect.getsource(module.twice) == text
    (42, True)
    """
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    module_name = f"symgrad_generated_{path.stem}_{digest}"
    code = builtins.compile(source, str(path), "exec", dont_inherit=True)
    module = types.ModuleType(module_name)
    module.__file__ = str(path)
    # mtime None: linecache keeps these lines even if the file is rewritten later, so a traceback
    # shows the code that ran.
    linecache.cache[str(path)] = (len(source), None, source.splitlines(True), str(path))
    sys.modules[module_name] = module  # pickling and `inspect.getmodule` look modules up here
    exec(code, module.__dict__)
    return module


def _refuse_strings(outputs: Sequence[Tensor], inputs: Sequence[Tensor], backend: str) -> None:
    """String tensors are host-side values (symgrad.string_ops): no generated module takes or
    gives one; the portable form has no string arrays at all (a BackendError)."""
    for role, tensors in (("output", outputs), ("input", inputs)):
        for tensor in tensors:
            if tensor.dtype != _dtypes.string:
                continue
            error = BackendError if backend == registry.portable().name else NotCompilableError
            where = (
                "the portable form (backend='array_api') has no string arrays"
                if error is BackendError
                else "generated modules compute numbers only"
            )
            raise error(
                f"symgrad: compile: {role} '{tensor.name}' is a string tensor: {where}. "
                f"Strings are host-side values that Session.run computes in Python (file names, "
                f"tf.read_file, readers, tf.decode_csv); compile the numbers made from them "
                f"(decoded images, parsed columns), fed as inputs"
            )


def compile(
    outputs: Outputs,
    inputs: Sequence[Tensor] | None = None,
    *,
    name: str | None = None,
    path: str | Path | None = None,
    simplify: bool = True,
    optimize: bool = True,
    values: Any = None,
    backend: str = "numpy",
    scalar_inputs: Sequence[Tensor] = (),
    replace: bool = True,
    provenance: Sequence[str] = (),
) -> CompiledModule:
    """Generate, write and import a NumPy module computing ``outputs``.

    ``inputs`` are the placeholders and variables that become the function's
    parameters, in order (default: all those the outputs need, in creation
    order). ``path`` is a ``.py`` file or a folder (default: a cache folder).
    A file at ``path`` is replaced atomically; with ``replace=False`` a file of other text
    there is left as it is and the module takes the first free name after it
    (``loss_2.py``, ``loss_3.py``, ...): what ``Session(codegen_dir=...)`` does, so that
    two sessions or processes writing into one folder keep each other's files.
    ``optimize=False`` writes the readable form, one NumPy expression per
    statement, instead of the fast one (dot products, in-place arithmetic,
    reused arrays; see ``symgrad.backends.numpy.planner``). ``simplify=False`` skips SymPy's
    tidying of the formulas.

    ``backend="array_api"`` writes the portable form instead (``symgrad.backends.array_api``):
    the same function written against the Python array API standard, which takes its array
    namespace from its inputs and so runs on NumPy, ``array_api_strict``, PyTorch, JAX, CuPy
    and Dask arrays. Its results are arrays of the inputs' library.

    ``inputs`` may also name intermediate tensors: they become parameters whose
    value replaces their computation, as a TF1 feed does. ``values`` (a
    :class:`symgrad.Session`, or a dict from variables or their names to
    arrays, such as a checkpoint's) bakes the variables' current values into
    the module as constants: variables that are not listed in ``inputs`` are
    then no parameters, and the module predicts with the trained values.

    The fast form checks the shapes of inputs with unknown sizes at each call and, when the
    batch sizes agree (as TF1 programs feed them), runs a body that knows them equal.
    Inputs declared without any shape are expected there as vectors of the batch size;
    ``scalar_inputs`` lists those that are fed 0-d values instead (a ``keep_prob``, a
    learning rate). It is an expectation, not a declaration: a value of another shape
    still runs, through the general body. ``Session`` lists the placeholders it is first
    fed 0-d values for.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, name="x")
    ...     w = sg.Variable(3.0, name="weight")
    ...     f = sg.compile([x * w, sg.gradients(x * w, w)[0]], name="scale")
    >>> f.input_names, [float(v) for v in f(2.0, 3.0)]
    (['x', 'weight'], [6.0, 2.0])
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, name="x")
    ...     w = sg.Variable(3.0, name="weight")
    ...     g = sg.compile(x * w, name="trained", values={w: 5.0})
    >>> g.input_names, float(g(2.0))
    (['x'], 10.0)
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, name="x")
    ...     y = sg.placeholder(sg.float64, name="y")
    ...     keep = sg.placeholder(sg.float64, name="keep")
    ...     loss = sg.reduce_sum(sg.square(y - x * keep))
    ...     h = sg.compile([loss, sg.gradients(loss, x)[0]], scalar_inputs=[keep])
    >>> "keep.ndim == 0 and x.shape[0] == y.shape[0]:" in h.source
    True
    >>> h([1.0, 2.0], [0.0, 0.0], 0.5)[1].tolist()
    [0.5, 1.0]
    """
    target_backend = registry.get(backend, context="compile")
    if callable(outputs) and not isinstance(outputs, Tensor):
        raise InvalidArgumentError(
            "symgrad: compile: to compile a Python function, trace it first: "
            "sg.function(fn, sg.TensorSpec(shape, dtype), ...).compile() "
            "or sg.value_and_grad(fn, specs...)"
        )
    structure, flat = _flatten(outputs)
    if not flat:
        raise InvalidArgumentError("symgrad: compile: there is no tensor among the outputs")
    baked: dict[Tensor, np.ndarray] = {}
    if values is not None:
        explicit = set(inputs) if isinstance(inputs, (list, tuple)) else set()
        baked = _baked_values(
            [
                t
                for t in sources_of([t for _, t in flat], fed=explicit)
                if t.op.type == "VariableV2" and t not in explicit
            ],
            values,
        )
    if inputs is None:
        inputs = [t for t in sources_of([t for _, t in flat]) if t not in baked]
    else:
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]  # type: ignore[list-item]  # a single tensor is accepted too
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
            t
            for t in sources_of([t for _, t in flat], fed=inputs)
            if t.op.type == "VariableV2" and t not in baked
        ]
        given = {id(t) for t in inputs}
        missing = [v.name for v in needed_variables if id(v) not in given]
        if missing:
            raise NotCompilableError(
                f"symgrad: compile: the outputs read variables {', '.join(missing)}, "
                f"which are not among the inputs"
            )
    _refuse_strings([t for _, t in flat], inputs, backend)
    function_name = naming.function_name(name)
    started = time.perf_counter()
    op_count = len(ancestors([t.op for _, t in flat], stop=inputs))
    progress = threading.Timer(
        PROGRESS_AFTER_SECONDS,
        _progress_note,
        (f"symgrad: compiling {function_name!r} ({op_count} graph ops)...",),
    )
    progress.daemon = True
    progress.start()
    try:
        traced = trace(flat, inputs, function_name, baked)
        traced.graph_name = name or function_name
        traced.provenance = tuple(provenance)
        program = run_passes(traced, simplify=simplify, passes=PASSES)
        specialized = None
        scalars = _scalar_inputs(scalar_inputs, inputs)
        wants_specialized = optimize and target_backend.specializes_shapes
        # A program with loops or branches keeps one body: its functions are traced once.
        wants_specialized = wants_specialized and not traced.functions
        assumption = equal_dims(inputs, scalars) if wants_specialized else None
        if assumption is not None:
            # The same function for inputs of equal sizes: the shapes TF1 programs are fed.
            with assuming(assumption.signatures):
                same = trace(flat, inputs, function_name, baked)
            same.graph_name = traced.graph_name
            same.provenance = traced.provenance
            same.naturals = assumption.ranks_known(same.naturals)
            specialized = run_passes(same, simplify=simplify, passes=PASSES)
        source = target_backend.generate(
            program, fast_form=optimize, specialized=specialized, assumption=assumption
        )
    finally:
        progress.cancel()
    target = _target_path(path, function_name, source)
    in_cache = path is None
    files.make_directory(target.parent, private=in_cache)
    # A regular file with this very text is kept as it is; anything else at the target (another
    # text, a symlink, a FIFO) is replaced atomically, never read through or written through.
    # (Cached modules are named by a hash of their text: one is only ever replaced by itself.)
    if not replace and not in_cache:
        target = _free_path(target, source)
    elif files.read_regular_text(target) != source:
        files.write_atomic(target, source, private=in_cache)
        if in_cache:
            files.evict(target.parent)
    elif in_cache:
        files.mark_used(target)
    module = load_module(target, source)
    defaults = {
        i.name: t for i, t in zip(program.inputs, inputs, strict=False) if i.kind == "variable"
    }
    compiled = CompiledModule(program, source, target, module, structure, defaults)
    compiled.input_tensors, compiled.output_tensors = list(inputs), [t for _, t in flat]
    compiled.backend = target_backend.name
    compiled.portable = target_backend.portable
    seconds = time.perf_counter() - started
    logger.info(
        "compiled %s: %d graph ops, %d statements, %d inputs (%d trained values baked in) "
        "in %.2f s -> %s",
        function_name,
        op_count,
        len(program.statements),
        len(program.inputs),
        len(baked),
        seconds,
        target,
    )
    if seconds >= PROGRESS_AFTER_SECONDS:
        _progress_note(f"symgrad: compiled {function_name!r} in {seconds:.1f} s")
    compiled.traced, compiled.simplified = traced, simplify
    for observer in list(_observers):
        observer(compiled)
    return compiled


def _scalar_inputs(scalar_inputs: Sequence[Tensor], inputs: Sequence[Tensor]) -> set[Tensor]:
    """``compile``'s ``scalar_inputs``, checked: inputs declared without a shape."""
    listed = [scalar_inputs] if isinstance(scalar_inputs, Tensor) else list(scalar_inputs)
    given = {id(t) for t in inputs}
    for tensor in listed:
        if not isinstance(tensor, Tensor) or id(tensor) not in given:
            raise InvalidArgumentError(
                f"symgrad: compile: scalar_inputs must be among the inputs, got "
                f"{getattr(tensor, 'name', type(tensor).__name__)!r:.60}"
            )
        if tensor.shape is not None:
            raise InvalidArgumentError(
                f"symgrad: compile: scalar_inputs lists '{tensor.name}' of shape "
                f"{format_shape(tensor.shape)}: only inputs declared without a shape are "
                f"expected to be 0-d"
            )
    return set(listed)


def _progress_note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _baked_values(variables: Sequence[Tensor], values: Any) -> dict[Tensor, np.ndarray]:
    """The value of each variable from a Session or a mapping (keys: variables or their names)."""
    if not variables:
        return {}
    if isinstance(values, Mapping):
        found: list[Any] = []
        for variable in variables:
            for key in (variable, variable.name, variable.op.name):
                if key in values:
                    found.append(values[key])
                    break
            else:
                raise InvalidArgumentError(
                    f"symgrad: compile: values= has no value for variable '{variable.name}' "
                    f"(keys are variables or names like '{variable.op.name}')"
                )
    elif callable(getattr(values, "run", None)):
        found = list(values.run(list(variables)))
    else:
        raise InvalidArgumentError(
            f"symgrad: compile: values= must be a Session or a dict of variable values, "
            f"got {type(values).__name__}"
        )
    baked = {}
    for variable, value in zip(variables, found, strict=True):
        array = np.asarray(to_numpy(value))
        if array.shape != variable.shape:
            raise ShapeError(
                f"symgrad: compile: values= gives variable '{variable.name}' a value of shape "
                f"{array.shape}, the variable has shape {variable.shape}"
            )
        if not np.can_cast(array.dtype, variable.dtype.numpy, casting="same_kind"):
            raise DTypeError(
                f"symgrad: compile: values= gives variable '{variable.name}' a value of dtype "
                f"{array.dtype}, the variable has dtype {variable.dtype.name}"
            )
        baked[variable] = array.astype(variable.dtype.numpy)
    return baked


# Callbacks told of every module compile() makes (the command line collects them).
_observers: list[Any] = []
