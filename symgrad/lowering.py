"""Graph → Program: each op becomes SymPy, fused into its consumer or bound to a name.

An op's value is *inlined* into its single consumer while the fused expression
stays small (``FUSION_LIMIT`` nodes); it is *materialised* as a statement when
it is an output, has several consumers, is too big, or a consumer needs its
run-time shape. So the program never holds one giant expression, and tensors
stay tensors: a symbol stands for a whole array.

Broadcasts are not materialised: a value knows its shape signature (its
static shape, with the origin of each unknown dim), the signature of what
evaluating its expression gives (``natural``, e.g. ``()`` for the ones of
``grad_ys``), and ``witnesses``: expressions whose run-time shapes broadcast
to its own. Only structural ops and outputs get an explicit ``np.broadcast_to``,
and only when the two signatures differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from . import naming
from .dtypes import DType, variant
from .errors import GraphMismatchError, NotCompilableError
from .graph import Operation, Subgraph, Tensor, ancestors
from .naming import ModuleNames, Namer, preferred_names, provenance_comment, sanitize
from .ops import functions as F
from .ops.registry import Lowered, OpDef, arg_symbols, opdef_of
from .ordering import reads_after_writes
from .program import ConstantArray, Function, Input, Loop, Output, Program, Statement
from .shapes import Shape, Signature, is_fully_defined
from .signatures import natural_signature, signature_of

FUSION_LIMIT = 24
INLINE_CONSTANT_SIZE = 1  # arrays with more elements become module-level constants


@dataclass(frozen=True)
class Value:
    expr: sp.Expr
    shape: Shape
    sig: Signature
    natural: Signature | None
    dtype: DType
    witnesses: tuple[sp.Expr, ...]
    size: int  # nodes in ``expr`` (bounded by FUSION_LIMIT, for fusion decisions)
    exact: bool  # evaluating ``expr`` gives the value's own shape at run time

    def materialized_expr(self, copy: bool = False) -> sp.Expr:
        """``expr`` broadcast to its graph shape (for structural ops and outputs)."""
        if self.exact:
            return self.expr
        value = self.expr
        if value.is_Number and not _native(value, self.dtype.name):
            # ``np.broadcast_to(1, ...)`` is an int64 array, which would promote a float32
            # computation (``grad_ys`` of a float32 y) to float64, and which the array API
            # does not mix with floats at all: give the number its dtype. (A Python int as
            # int64, a float as float64, is already of the array's dtype.)
            value = F.cast(value, self.dtype.name, self.dtype.name)
        if is_fully_defined(self.shape):
            static = sp.Tuple(*(sp.Integer(d) for d in self.shape))
            return F.BroadcastTo(value, static, sp.Integer(int(copy)))
        return F.BroadcastTo(value, sp.Tuple(), sp.Integer(int(copy)), *self.witnesses)


def _native(number: sp.Expr, dtype: str) -> bool:
    """Whether NumPy makes an array of ``dtype`` from ``number`` as it is."""
    return dtype == ("int64" if number.is_Integer else "float64")


def _hashable(value: object) -> object:
    """Attributes as dictionary keys: slices and lists become tuples."""
    if isinstance(value, slice):
        return ("slice", value.start, value.stop, value.step)
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


@dataclass
class _Module:
    """What the functions of one generated module share while they are traced: names,
    module-level constants, and the nested functions (loops, their bodies, branches)."""

    names: ModuleNames
    constants: list[ConstantArray]
    functions: list[Function]
    # The random ops the module's functions draw from, one stream of ``rng`` each, in order.
    random_streams: list[str] = field(default_factory=list)


class Tracer:
    def __init__(
        self,
        outputs: Sequence[tuple[str | None, Tensor]],
        inputs: Sequence[Tensor],
        name: str,
        baked: Mapping[Tensor, np.ndarray] | None = None,
        module: _Module | None = None,
    ) -> None:
        self.outputs = list(outputs)
        self.inputs = list(inputs)
        self.given = set(self.inputs)
        # Variables that are not inputs but whose (trained) values become module constants.
        self.baked = dict(baked or {})
        self.name = name
        self.values: dict[Tensor, Value] = {}
        self.natural_of: dict[sp.Expr, Signature] = {}
        self.statements: list[Statement] = []
        # A function body traced for a nested function shares the module's state.
        self.nested = module is not None
        self.module = module if module is not None else _Module(ModuleNames(), [], [])
        self.constants: list[ConstantArray] = self.module.constants
        self.float_symbols: dict[sp.Symbol, DType] = {}  # symbols of floating-point arrays
        # The random ops this function draws from (its own, and those of the functions it
        # calls): their streams are numbered across the module, in ``module.random_streams``.
        self.random_streams: list[str] = []

    def run(self) -> Program:
        graph = self.outputs[0][1].graph
        for tensor in [t for _, t in self.outputs] + self.inputs:
            if tensor.graph is not graph:
                raise GraphMismatchError(
                    f"symgrad: compile: tensor '{tensor.name}' belongs to "
                    f"another graph than '{self.outputs[0][1].name}'"
                )
        # A fed intermediate tensor is an input: what computes it is not traced. A read of a
        # variable that TF1 orders after an assignment of it reads the assigned value.
        roots = [t.op for _, t in self.outputs]
        self.reads_after = reads_after_writes(roots, self.given)
        ops = ancestors(roots, stop=self.given, inputs_of=self._inputs)
        ops = self._merge_duplicates(ops)
        self._count_uses(ops)
        # The function's own name is taken (a nested function's is a module-level name).
        self.namer = Namer([] if self.nested else [self.name], self.module.names)
        program_inputs = self._bind_inputs(ops)
        output_names = [
            self.namer.claim([sanitize(n)] if n else naming.output_names(t))
            for n, t in self.outputs
        ]
        self.output_name_of: dict[Tensor, str] = {}
        for (given, tensor), out_name in zip(self.outputs, output_names, strict=False):
            self.output_name_of.setdefault(tensor, out_name)
            if given:  # a name the caller chose: the tensor's derivatives are named after it
                self.namer.aliases.setdefault(tensor, out_name)
        for op in ops:
            # An op with an output given (fed, or a function body's input) is not run here.
            if any(t in self.given for t in op.outputs):
                continue
            if op.type == "VariableV2" and op.outputs[0] in self.baked:
                self.values[op.outputs[0]] = self._constant(
                    op.outputs[0], self.baked[op.outputs[0]]
                )
                continue
            if op.type in ("Placeholder", "VariableV2"):
                continue
            if opdef_of(op).control is not None:
                self._lower_control(op)
                continue
            value = self._lower(op)
            self.values[op.outputs[0]] = self._maybe_materialize(op.outputs[0], value)
        program_outputs = []
        for (_, tensor), out_name in zip(self.outputs, output_names, strict=False):
            value = self.values[tensor]
            program_outputs.append(
                Output(out_name, value.expr, tensor.shape, tensor.dtype, tensor.name)
            )
        # Symbols, and kernel calls (whose signature their arguments do not tell): the fast
        # form computes in place in a kernel's new array when it has the statement's shape.
        naturals = {
            e: sig for e, sig in self.natural_of.items() if e.is_Symbol or isinstance(e, F.Helper)
        }
        return Program(
            self.name,
            program_inputs,
            [] if self.nested else self.constants,
            self.statements,
            program_outputs,
            naturals=naturals,
            random_streams=self.random_streams if self.nested else self.module.random_streams,
            functions=[] if self.nested else self.module.functions,
        )

    # -- bookkeeping ------------------------------------------------------------------
    def _merge_duplicates(self, ops: Sequence[Operation]) -> list[Operation]:
        """Value numbering: a pure op equal to an earlier one (type, inputs, attributes) is
        dropped.

        The same gradient built twice (by ``minimize`` and by ``gradients``)
        is then computed once. A random draw or an assignment is never merged: two
        ``random_uniform([4])`` ops without seeds draw two different arrays, as in TF1.
        """
        self.canonical: dict[Tensor, Tensor] = {}
        seen: dict[tuple, Operation] = {}
        kept = []
        for op in ops:
            if (
                op.type in ("Const", "Placeholder", "VariableV2")
                or len(op.outputs) != 1
                or op.outputs[0] in self.given
                or not opdef_of(op).pure
            ):
                kept.append(op)
                continue
            key = (
                op.type,
                tuple(self._operands(op)),
                tuple((name, _hashable(value)) for name, value in sorted(op.attrs.items())),
                # ones_like(x, dtype=...) or an op without inputs: equal rules, other results
                tuple((t.shape, t.dtype) for t in op.outputs),
            )
            original = seen.get(key)
            if original is None:
                seen[key] = op
                kept.append(op)
            else:
                self.canonical[op.outputs[0]] = original.outputs[0]
        self.outputs = [(name, self.canonical.get(t, t)) for name, t in self.outputs]
        return kept

    def _inputs(self, op: Operation) -> Sequence[Tensor]:
        """``op``'s inputs, with a variable it reads after an assignment of it replaced by
        the assignment's output (:func:`symgrad.ordering.reads_after_writes`)."""
        if not self.reads_after:
            return op.inputs
        return [self.reads_after.get((op, i), t) for i, t in enumerate(op.inputs)]

    def _operands(self, op: Operation) -> list[Tensor]:
        return [self.canonical.get(t, t) for t in self._inputs(op)]

    def _count_uses(self, ops: Sequence[Operation]) -> None:
        self.uses: dict[Tensor, int] = {}
        self.forced: set = set()
        # An op that reads only the shape of a value with an input's signature reads the
        # input's shape instead (``max(np.size(x), 1)``), so the value need not be kept.
        self.input_of_signature: dict[Signature, Tensor] = {}
        for tensor in self.inputs:
            self.input_of_signature.setdefault(signature_of(tensor), tensor)
        for op in ops:
            opdef = opdef_of(op)
            for position, tensor in enumerate(self._operands(op)):
                if position not in opdef.shape_only_inputs:
                    self.uses[tensor] = self.uses.get(tensor, 0) + 1
            if opdef.random:
                # A draw is a statement of its own: inlined into two expressions it would
                # be drawn twice, and its line shows where the randomness comes from.
                self.forced.add(op.outputs[0])
            if (
                op.type not in ("Const", "Placeholder", "VariableV2")
                and op.outputs[0] not in self.given
            ):
                for position in opdef.materialized_inputs(op):
                    tensor = self._operands(op)[position]
                    if self._shape_from_input(opdef, position, tensor) is None:
                        self.forced.add(tensor)
        self.forced.update(t for _, t in self.outputs)

    def _shape_from_input(self, opdef: OpDef, position: int, tensor: Tensor) -> Tensor | None:
        """The input whose shape operand ``position`` of an op may be read from, if any."""
        if position not in opdef.shape_only_inputs or tensor in self.given:
            return None
        return self.input_of_signature.get(signature_of(tensor))

    def _bind_inputs(self, ops: Sequence[Operation]) -> list[Input]:
        given = self.given
        for op in ops:
            if op.type == "Placeholder" and op.outputs[0] not in given:
                raise NotCompilableError(
                    f"symgrad: compile: the outputs depend on placeholder '{op.outputs[0].name}', "
                    f"which is not among the inputs; add it to inputs=[...]"
                )
        program_inputs = []
        for tensor in self.inputs:
            name = self.namer.claim_for(tensor)
            symbol = sp.Symbol(name, real=True)
            # An intermediate tensor given as an input is fed like a placeholder.
            kind = "variable" if tensor.op.type == "VariableV2" else "placeholder"
            program_inputs.append(
                Input(name, symbol, tensor.shape, tensor.dtype, kind, tensor.name)
            )
            sig = signature_of(tensor)
            self._remember(symbol, sig)
            if tensor.dtype.is_floating:
                self.float_symbols[symbol] = tensor.dtype
            self.values[tensor] = Value(
                symbol, tensor.shape, sig, sig, tensor.dtype, (symbol,), 0, True
            )
        return program_inputs

    # -- lowering -----------------------------------------------------------------------
    def _lower(self, op: Operation) -> Value:
        out = op.outputs[0]
        if op.type == "Const":
            return self._constant(out)
        opdef = opdef_of(op)
        # Only sources (Const, Placeholder, VariableV2) and NoOp lack a lowering; none gets here.
        assert opdef.lower is not None, op.type
        operands = [
            self.values[t if shape_source is None else shape_source]
            for position, t in enumerate(self._operands(op))
            for shape_source in [self._shape_from_input(opdef, position, t)]
        ]
        sig = signature_of(out)
        if op.type == "SumToShape" and operands[0].sig == operands[1].sig:
            # Equal signatures are equal shapes at run time: nothing to sum. (A gradient built
            # for ``[None]`` operands is traced so under ``signatures.assuming``.)
            return operands[0]
        if opdef.value_lowering:
            lowered: Lowered = opdef.lower(op, operands)
            self._remember(lowered.expr, lowered.natural)
            exact = lowered.natural == sig
            witnesses: tuple[sp.Expr, ...] = (lowered.expr,) if exact else lowered.witnesses
            return Value(
                lowered.expr,
                out.shape,
                sig,
                lowered.natural,
                out.dtype,
                witnesses,
                1 + operands[0].size,
                exact,
            )
        if opdef.elementwise:
            expr = opdef.lower(op, [v.expr for v in operands])
            used = [
                v
                for v, sym in zip(operands, arg_symbols(len(operands)), strict=False)
                if op.attrs["expr"].has(sym)
            ]
            expr = self._keep_cancelled(expr, used, out.dtype)
            natural = self._natural(expr)
            exact = natural == sig
            witnesses = (
                (expr,) if exact else tuple(dict.fromkeys(w for v in operands for w in v.witnesses))
            )
            return Value(
                expr,
                out.shape,
                sig,
                natural,
                out.dtype,
                witnesses,
                1 + sum(v.size for v in used),
                exact,
            )
        expr = opdef.lower(op, [v.materialized_expr() for v in operands])
        if opdef.random:
            # The op's stream: its position in the function's ``rng`` argument.
            expr = expr.func(sp.Integer(len(self.module.random_streams)), *expr.args[1:])
            self.module.random_streams.append(op.name)
            self.random_streams.append(op.name)
        self._remember(expr, sig)
        return Value(
            expr, out.shape, sig, sig, out.dtype, (expr,), 1 + sum(v.size for v in operands), True
        )

    # -- control flow: functions of the module -------------------------------------------
    def _lower_control(self, op: Operation) -> None:
        """A cond or a loop: its bodies become functions of the module (traced by tracers
        that share this one's module), and the op a call of them, whose values ``ItemOf``
        reads."""
        kind = opdef_of(op).control
        assert kind is not None  # only control ops come here
        operands = []
        for tensor in self._operands(op):
            expr = self.values[tensor].materialized_expr()
            # A number passed to a function is an array of its dtype there (a loop's counter
            # starts as int32 0, its total as float32 0).
            if expr.is_Number:
                expr = F.cast(expr, tensor.dtype.name, tensor.dtype.name)
            operands.append(expr)
        # Named after the scope that made it: ``while``, ``rnn_while`` is ``rnn/while``'s.
        parts = op.name.split("/")
        base = sanitize(parts[-2] if len(parts) > 1 else parts[-1], default="loop").rstrip("_")
        formal: list[Tensor] = op.attrs["captured"]
        if kind == "cond":
            names = [self._function_name(f"{base}_true"), self._function_name(f"{base}_false")]
            programs = [
                self._trace_body(branch, formal, name)
                for branch, name in zip(op.attrs["branches"], names, strict=True)
            ]
            # Both branches take the random source when either draws (one call passes it).
            draws = any(p.random_streams for p in programs)
            for program, name, which in zip(programs, names, ("true", "false"), strict=True):
                self.module.functions.append(
                    Function(
                        name,
                        f"The {which} branch of cond '{op.name}'.",
                        program=program,
                        returns_tuple=True,
                        takes_rng=draws,
                    )
                )
            rng = [F.Literal("rng")] if draws else []
            call: sp.Expr = F.Branch(
                operands[0], F.Literal(names[0]), F.Literal(names[1]), *operands[1:], *rng
            )
        else:
            call = self._lower_loop(op, kind, base, formal, operands)
        name = self.namer.claim([f"{base}_results"])
        symbol = sp.Symbol(name, real=True)
        section = "gradient" if op.created_by_gradients else "forward"
        self.statements.append(Statement(name, symbol, call, (), variant, section, op.name))
        for index, out in enumerate(op.outputs):
            item = F.ItemOf(symbol, sp.Integer(index), F.Literal(out.dtype.name))
            sig = signature_of(out)
            self._remember(item, sig)
            value = Value(item, out.shape, sig, sig, out.dtype, (item,), 1, True)
            self.values[out] = self._maybe_materialize(out, value)

    def _function_name(self, wanted: str) -> str:
        return self.namer.claim([wanted], module_level=True)

    def _trace_body(
        self, body: Subgraph, formal: Sequence[Tensor], name: str, extra: Sequence[Tensor] = ()
    ) -> Program:
        """``body`` as a function of its parameters and of ``formal`` (what it reads from
        outside), returning its results and ``extra`` (a loop body's random draws, which
        the loop saves for its gradient)."""
        tracer = Tracer(
            [(None, t) for t in [*body.results, *extra]],
            [*body.parameters, *formal],
            name,
            self.baked,
            module=self.module,
        )
        program = tracer.run()
        # A function that calls one that draws takes the random source too.
        self.random_streams.extend(program.random_streams)
        return program

    def _lower_loop(
        self, op: Operation, kind: str, base: str, formal: list[Tensor], operands: list[sp.Expr]
    ) -> sp.Expr:
        carried_count = op.attrs["carried"]
        sequence_count = op.attrs.get("sequences", 0)
        body: Subgraph = op.attrs["body"]
        condition_name = self._function_name(f"{base}_cond") if kind == "while" else ""
        body_name = self._function_name(f"{base}_body")
        loop_name = self._function_name(base if sanitize(base) == base else f"{base}_loop")
        # What a step saves besides its carried values: its random draws and the values
        # its gradient reads (symgrad.control_flow).
        draws: list[Tensor] = op.attrs.get("draws", []) + op.attrs.get("saved", [])
        condition = (
            self._trace_body(op.attrs["condition"], formal, condition_name)
            if kind == "while"
            else None
        )
        body_program = self._trace_body(body, formal, body_name, draws)
        rng = bool(body_program.random_streams or (condition and condition.random_streams))
        if condition is not None:
            self.module.functions.append(
                Function(
                    condition_name,
                    f"The condition of loop '{op.name}'.",
                    program=condition,
                    takes_rng=rng,
                )
            )
        self.module.functions.append(
            Function(
                body_name, f"One step of loop '{op.name}'.", program=body_program, takes_rng=rng
            )
        )
        # The loop's own parameters, named after what they hold.
        names = Namer([], self.module.names)
        carried = tuple(names.claim([i.name]) for i in body_program.inputs[:carried_count])
        # A sequence is read a row a step (width None) or is a saved trace (width: the
        # values this loop takes of each step's, which a later gradient may have extended).
        sequences = tuple(
            (names.claim_for(t), width if t.dtype == variant else None)
            for t, width in zip(
                op.inputs[carried_count : carried_count + sequence_count],
                op.attrs.get("step_widths", []),
                strict=True,
            )
        )
        cuts = tuple(
            width is not None and width < _trace_width(t)
            for t, (_, width) in zip(
                op.inputs[carried_count : carried_count + sequence_count], sequences, strict=True
            )
        )
        captured = tuple(names.claim_for(t) for t in formal)
        limit = names.claim(["maximum_iterations"]) if op.attrs.get("limited") else ""
        outputs = tuple(names.claim([f"{n}_steps"]) for n in op.attrs.get("output_names", ()))
        drawn = tuple(names.claim_for(t) for t in draws)
        trace = op.outputs[-1]
        saves = self.uses.get(trace, 0) > 0 or trace in self.output_name_of
        loop = Loop(
            kind=kind,
            carried=carried,
            sequences=sequences,
            captured=captured,
            condition=condition_name,
            body=body_name,
            outputs=outputs,
            saves=saves,
            reverse=bool(op.attrs.get("reverse", False)),
            limit=limit,
            trace=names.claim(["trace"]),
            step=names.claim(["step" if kind == "scan" else "iterations"]),
            draws=drawn,
            rng=rng,
            cuts=cuts,
            kept=tuple(
                name
                for name, stand_in, start in zip(carried, body.parameters, op.inputs, strict=False)
                if stand_in.op.attrs.get("like") is start
                and stand_in.shape is not None
                and None in stand_in.shape
            ),
            shapes=names.claim(["shapes"]),
        )
        parameters = (
            carried
            + tuple(n for n, _ in sequences)
            + captured
            + ((limit,) if limit else ())
            + (("rng",) if rng else ())
        )
        description = (
            op.attrs["description"]
            if kind == "while" or op.attrs.get("gradient_of")
            else f"The loop '{op.name}', one step per row of its sequences."
        )
        self.module.functions.append(
            Function(loop_name, description, loop=loop, parameters=parameters)
        )
        rng_argument = [F.Literal("rng")] if rng else []
        return F.CallFunction(F.Literal(loop_name), *operands, *rng_argument)

    def _keep_cancelled(self, expr: sp.Expr, used: Sequence[Value], dtype: DType) -> sp.Expr:
        """``expr``, plus ``0 * s`` for each float symbol ``s`` SymPy cancelled out of it.

        Fusing operands can cancel them (``g + -g`` is 0, ``0 * g`` is 0), but TF computes
        ``inf - inf`` and ``0 * nan`` as NaN: keeping the cancelled symbols in a
        :class:`F.NanUnlessFinite` keeps that NaN (and adds nothing where they are finite).
        """
        before: set = set().union(*(v.expr.free_symbols for v in used)) if used else set()
        lost = sorted(
            # only symbols of the op's own dtype: ``0 * s`` must not promote float32 to float64
            (s for s in before - expr.free_symbols if self.float_symbols.get(s) == dtype),
            key=str,
        )
        if not lost:
            return expr
        # A symbol read inside a reduction (or another structural node) need not have the op's
        # shape (``0 * cross_entropy(logits)``): keep that operand's value instead.
        kept: list[sp.Expr] = []
        for value in used:
            gone = [s for s in lost if s in value.expr.free_symbols]
            if gone and value.expr.atoms(F._Structural) and value.dtype == dtype:
                kept.append(value.expr)
            else:
                kept.extend(gone)
        kept = list(dict.fromkeys(kept))
        return expr + F.NanUnlessFinite(*kept)

    def _remember(self, expr: sp.Expr, natural: Signature | None) -> None:
        if natural is not None:
            self.natural_of[expr] = natural

    def _natural(self, expr: sp.Expr) -> Signature | None:
        return natural_signature(expr, self.natural_of)

    def _constant(self, tensor: Tensor, array: np.ndarray | None = None) -> Value:
        """A Const op's value, or ``array`` (a variable's trained value) in its place."""
        if array is None:
            array = tensor.op.attrs["value"]
        if array.ndim == 0 and not tensor.dtype.is_bool:
            number = array.item()
            if isinstance(number, float) and not np.isfinite(number):
                expr = {np.inf: sp.oo, -np.inf: -sp.oo}.get(number, sp.nan)
            elif isinstance(number, float) and not number.is_integer():
                expr = sp.Float(number, precision=53)
            else:
                expr = sp.Integer(int(number))
            return Value(expr, (), (), (), tensor.dtype, (expr,), 0, True)
        name = self.namer.claim([f"{n}" for n in preferred_names(tensor)], module_level=True)
        symbol = sp.Symbol(name, real=True)
        self.constants.append(ConstantArray(name, symbol, array, tensor.dtype))
        if tensor.dtype.is_floating:
            self.float_symbols[symbol] = tensor.dtype
        sig = signature_of(tensor)
        self._remember(symbol, sig)
        return Value(symbol, tensor.shape, sig, sig, tensor.dtype, (symbol,), 0, True)

    def _maybe_materialize(self, tensor: Tensor, value: Value) -> Value:
        is_output = tensor in self.output_name_of
        inline = (
            not is_output
            and tensor not in self.forced
            and self.uses.get(tensor, 0) <= 1
            and value.size <= FUSION_LIMIT
        )
        if inline or (value.expr.is_Atom and not is_output):
            return value
        natural: Signature | None
        if is_output:
            name = self.output_name_of[tensor]
            expr = value.materialized_expr(copy=True)
            natural, exact = value.sig, True
        else:
            name = self.namer.claim_for(tensor)
            expr, natural, exact = value.expr, value.natural, value.exact
        symbol = sp.Symbol(name, real=True)
        section = (
            "update"
            if tensor.op.type == "Assign"
            else "gradient"
            if tensor.op.created_by_gradients
            else "forward"
        )
        self.statements.append(
            Statement(
                name,
                symbol,
                expr,
                tensor.shape,
                tensor.dtype,
                section,
                tensor.name,
                comment=provenance_comment(tensor, name, self.namer.aliases),
            )
        )
        witnesses = (symbol,) if exact else value.witnesses
        self._remember(symbol, natural)
        if tensor.dtype.is_floating:
            self.float_symbols[symbol] = tensor.dtype
        return Value(symbol, tensor.shape, value.sig, natural, tensor.dtype, witnesses, 0, exact)


def _trace_width(trace: Tensor) -> int:
    """How many values each step of the loop that made ``trace`` saves."""
    producer = trace.op.attrs
    return (
        int(producer["carried"]) + len(producer.get("draws", [])) + len(producer.get("saved", []))
    )


def trace(
    outputs: Sequence[tuple[str | None, Tensor]],
    inputs: Sequence[Tensor],
    name: str,
    baked: Mapping[Tensor, np.ndarray] | None = None,
) -> Program:
    """Turn the part of the graph that computes ``outputs`` into a Program.

    ``inputs`` may include intermediate tensors (fed: their value replaces their
    computation); variables in ``baked`` that are not inputs become constants.
    """
    return Tracer(outputs, inputs, name, baked).run()
