"""SymPy primitives that SymPy lacks or models differently from TensorFlow.

Each class carries its derivative (``fdiff``); each backend's printer spells it
(``_print_Sigmoid`` in ``symgrad/backends/numpy/printer.py``), so a new backend
touches only its own folder. The derivatives encode TF1's values at special points: ``relu'(0) = 0``, ties of
``maximum`` go to the first argument, ``pow``'s exponent gradient is 0 where
the base is not positive.

Structural nodes (reductions, broadcasts) are SymPy functions too, so that
they can sit inside fused expressions and take part in CSE; their gradients
live at the graph level (``symgrad/ops/``), never in ``fdiff``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.codegen.cfunctions import log1p
from sympy.printing.precedence import PRECEDENCE

from ..errors import ShapeError
from ..shapes import broadcast_signatures, normalize_axes


class _Elementwise(sp.Function):
    """An elementwise primitive over real arrays."""

    is_real = True


# --- smooth primitives ------------------------------------------------------------


class Sigmoid(_Elementwise):
    """1 / (1 + exp(-x)), printed in a form that never overflows."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return self * (1 - self)


class Softplus(_Elementwise):
    """log(1 + exp(x)) as ``np.logaddexp(0, x)``: finite for x = ±1000."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return Sigmoid(self.args[0])


class TextbookForm(_Elementwise):
    """A loss (or its derivative) a person writes one way and TF evaluates another.

    ``textbook()`` is the math ``explain()`` shows; ``stable()`` is TF's formula from
    primitives (finite at the edges, in TF's order of operations), which a TF graph of it
    holds. The printers call the kernel ``_<kernel>``, which evaluates TF's formula, or,
    with no kernel, print the textbook form where it is TF's value exactly. The derivative
    is TF's, that of ``stable()``, unless a subclass gives a textbook one that equals it.
    """

    kernel = ""

    def textbook(self) -> sp.Expr:
        raise NotImplementedError

    def stable(self) -> sp.Expr:
        raise NotImplementedError

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        stand_ins = [sp.Dummy(f"a{i}", real=True) for i in range(len(self.args))]
        formula = self.func(*stand_ins).stable()
        derivative = sp.diff(formula, stand_ins[argindex - 1])
        return derivative.xreplace(dict(zip(stand_ins, self.args, strict=True)))


class LogisticLoss(TextbookForm):
    """``softplus(x) - x * z``: the cross-entropy of logits ``x`` against labels ``z``.

    Its derivative is the textbook's, ``sigmoid(x) - z``, which is TF's too (TF's selects
    send the kink at 0 to one side, giving ``0.5 - z`` there, and so does the sigmoid). The
    printers evaluate it as TF does, ``max(x, 0) - x * z + log1p(exp(-|x|))``: finite for
    any logits, and without the cancellation of ``softplus(x) - x * z`` near a loss of 0.
    """

    nargs = 2
    kernel = "logistic_loss"

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, z = self.args
        return Sigmoid(x) - z if argindex == 1 else -x

    def textbook(self) -> sp.Expr:
        x, z = self.args
        return Softplus(x) - x * z

    def stable(self) -> sp.Expr:
        x, z = self.args
        nonnegative = GreaterEqual(x, 0)
        # Unevaluated sums keep TF's order of the additions (so its rounding).
        relu_part = sp.Add(Where(nonnegative, x, 0), -x * z, evaluate=False)
        return sp.Add(relu_part, Softplus(Where(nonnegative, -x, x)), evaluate=False)


class HuberLoss(TextbookForm):
    """The Huber loss of an error ``e``: ``e**2 / 2`` where ``|e| <= delta``, else
    ``delta * (|e| - delta / 2)``; its derivative is ``clip(e, -delta, delta)``
    (:class:`HuberGrad`). The printers evaluate TF1's formula, ``q**2 / 2 + delta * (|e| -
    q)`` with ``q = min(|e|, delta)``."""

    nargs = 2
    kernel = "huber_loss"

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        if argindex == 1:
            return HuberGrad(*self.args)
        return super().fdiff(argindex)

    def textbook(self) -> sp.Expr:
        error, delta = self.args
        return Where(LessEqual(Abs(error), delta), error**2 / 2, delta * (Abs(error) - delta / 2))

    def stable(self) -> sp.Expr:
        error, delta = self.args
        quadratic = Minimum(Abs(error), delta)
        half_square = sp.Mul(sp.Float(0.5), quadratic * quadratic, evaluate=False)
        return sp.Add(half_square, delta * (Abs(error) - quadratic), evaluate=False)


class HuberGrad(TextbookForm):
    """``clip(e, -delta, delta)``, the Huber loss's derivative: TF's value exactly (``q *
    sign(e)`` inside, ``delta * sign(e)`` outside), so printed as the clip. Its derivative
    is TF's: 1 inside, 0 outside and at ``e = 0`` (``sign(0)``)."""

    nargs = 2

    def textbook(self) -> sp.Expr:
        error, delta = self.args
        return Minimum(Maximum(error, -delta), delta)

    def stable(self) -> sp.Expr:
        error, delta = self.args
        inside = LessEqual(Abs(error), delta)  # where TF's minimum passes the gradient on
        return (Minimum(Abs(error), delta) * inside + delta * (1 - inside)) * Sign(error)


class WeightedLogisticLoss(TextbookForm):
    """The cross-entropy of logits ``x`` against labels ``z``, positives weighted by ``q``:
    ``q * z * softplus(-x) + (1 - z) * softplus(x)``. The printers evaluate TF's formula,
    ``(1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + max(-x, 0))``; the derivative
    in ``x`` is :class:`WeightedLogisticGrad`."""

    nargs = 3
    kernel = "weighted_logistic_loss"

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        if argindex == 1:
            return WeightedLogisticGrad(*self.args)
        return super().fdiff(argindex)

    def textbook(self) -> sp.Expr:
        x, z, q = self.args
        return q * z * Softplus(-x) + (1 - z) * Softplus(x)

    def stable(self) -> sp.Expr:
        x, z, q = self.args
        log_weight = 1 + (q - 1) * z
        softplus = sp.Add(log1p(sp.exp(-Abs(x))), Relu(-x), evaluate=False)
        return sp.Add((1 - z) * x, log_weight * softplus, evaluate=False)


class WeightedLogisticGrad(TextbookForm):
    """``(1 + (q - 1) * z) * sigmoid(x) - q * z``, the weighted cross-entropy's derivative
    in its logits. TF's differs at ``x = 0`` alone, where its ``abs`` and ``relu`` pass no
    gradient (it gives ``1 - z``): the kernel evaluates TF's."""

    nargs = 3
    kernel = "weighted_logistic_grad"

    def textbook(self) -> sp.Expr:
        x, z, q = self.args
        return (1 + (q - 1) * z) * Sigmoid(x) - q * z

    def stable(self) -> sp.Expr:
        x, z, q = self.args
        log_weight = 1 + (q - 1) * z
        return (1 - z) - log_weight * (Sign(x) * Sigmoid(-Abs(x)) + Less(x, 0))


class Power(_Elementwise):
    """x ** y for a tensor exponent: d/dy is TF's ``z * log(x)`` where x > 0, else 0."""

    nargs = 2
    precedence = PRECEDENCE["Pow"]  # printed with ``**``, so it groups like a power

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, y = self.args
        if argindex == 1:
            if y.is_zero:
                # TF's y * x**(y - 1) is 0 * x**-1: NaN at x = 0, which SymPy would fold to 0.
                return ZeroOver(x)
            return y * Power(x, y - 1)
        return self * LogWherePositive(x)


class ZeroOver(_Elementwise):
    """``0 / x``: 0 where x is non-zero and finite, NaN at x = 0 and where x is NaN.

    TF's derivative of ``pow(x, 0)``, computed as ``0 * x**-1``.
    """

    precedence = PRECEDENCE["Mul"]  # printed as a division

    @classmethod
    def eval(cls, x: sp.Expr) -> Any:
        if x.is_Number:  # a constant: no ``0 / 0`` in the code
            return sp.nan if x.is_zero or x is sp.nan else sp.S.Zero
        return None

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return ZeroOver(self.args[0] ** 2)


class NanUnlessFinite(_Elementwise):
    """0 where all arguments are finite, else NaN: what ``a - a`` or ``0 * a`` computes.

    Added where SymPy cancelled operands away, so that a run-time inf or NaN in
    them still propagates as it does in TF.
    """

    precedence = PRECEDENCE["Mul"]  # printed as a product

    @classmethod
    def eval(cls, *args: sp.Expr) -> Any:
        if all(a.is_Number for a in args):
            return sp.S.Zero if all(a.is_finite for a in args) else sp.nan
        return None

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.S.Zero


class LogWherePositive(_Elementwise):
    """log(x) where x > 0, else 0: TF's factor in d pow(x, y) / dy."""

    @classmethod
    def eval(cls, x: sp.Expr) -> Any:
        if x.is_Number:  # a constant base: no comparison of two constants in the code
            return sp.log(x) if x > 0 else sp.S.Zero
        return None

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return Where(Greater(self.args[0], 0), 1 / self.args[0], 0)


# --- piecewise primitives (kinks and ties follow TF) -------------------------------


class Relu(_Elementwise):
    def fdiff(self, argindex: int = 1) -> sp.Expr:
        # relu(x) > 0 exactly where x > 0; written on the output, as TF's ReluGrad reads
        # it, so that a fed relu output decides the mask as it does in TF.
        return ReluMask(self, 0)


class Maximum(_Elementwise):
    """max(x, y); on a tie the gradient goes to x."""

    nargs = 2

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, y = self.args
        return GreaterEqual(x, y) if argindex == 1 else Less(x, y)


class Minimum(_Elementwise):
    """min(x, y); on a tie the gradient goes to x."""

    nargs = 2

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, y = self.args
        return LessEqual(x, y) if argindex == 1 else Greater(x, y)


class Where(_Elementwise):
    """``np.where(cond, x, y)``; ``cond`` gets no gradient."""

    nargs = 3

    @classmethod
    def eval(cls, cond: sp.Expr, x: sp.Expr, y: sp.Expr) -> Any:
        if cond is sp.true:
            return x
        if cond is sp.false:
            return y
        return None

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        # Masks stay bool: bool * float32 is float32 in NumPy, np.where(c, 1, 0) is int64.
        cond = self.args[0]
        if argindex == 2:
            return cond
        if argindex == 3:
            return LogicalNot(cond)
        return sp.S.Zero


class OneWhere(_Elementwise):
    """``np.where(cond, 1, x)``: a value made harmless where ``cond`` holds.

    Unlike :class:`Where`, neither branch can overflow or divide by zero, so
    ``x`` need not be computed under ``np.errstate``.
    """

    nargs = 2

    @classmethod
    def eval(cls, cond: sp.Expr, x: sp.Expr) -> Any:
        # A constant condition (``g == 0`` for the ones of ``grad_ys``) needs no np.where.
        if isinstance(cond, Equal) and all(a.is_Number for a in cond.args):
            return sp.S.One if cond.args[0] == cond.args[1] else x
        return None

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return LogicalNot(self.args[0]) if argindex == 2 else sp.S.Zero


class LogicalNot(_Elementwise):
    boolean = True


class Round(_Elementwise):
    """Round half to even, like TF and NumPy."""


class Floor(_Elementwise):
    """Round towards minus infinity."""


class Abs(_Elementwise):
    """|x|; its derivative is :class:`Sign` (0 at 0), whose own derivative is 0, as in TF."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return Sign(self.args[0])


class Sign(_Elementwise):
    """sign(x); TF defines its gradient as 0 everywhere."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.S.Zero


# --- boolean-valued primitives ------------------------------------------------------


class _Comparison(_Elementwise):
    nargs = 2
    operation = ""
    boolean = True

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.S.Zero


class IsFinite(_Elementwise):
    boolean = True

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.S.Zero


class Greater(_Comparison):
    operation = "greater"


class GreaterEqual(_Comparison):
    operation = "greater_equal"


class Less(_Comparison):
    operation = "less"


class LessEqual(_Comparison):
    operation = "less_equal"


class Equal(_Comparison):
    operation = "equal"


class ReluMask(Greater):
    """``x > 0`` as relu's derivative. Unlike a comparison in the graph, TF gives it a
    zero gradient (ReluGradGrad), not None, so it is told apart from :class:`Greater`."""


class NotEqual(_Comparison):
    operation = "not_equal"


class Cast(_Elementwise):
    """Convert to a dtype given by name (a SymPy Symbol holding e.g. 'float64')."""

    nargs = 3  # value, target dtype name, source dtype name

    @property
    def target(self) -> str:
        return str(self.args[1])

    @property
    def source(self) -> str:
        return str(self.args[2])

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.S.One


def cast(value: sp.Expr, target: str, source: str) -> sp.Expr:
    return Cast(value, sp.Symbol(target), sp.Symbol(source))


# --- structural nodes ----------------------------------------------------------------


def axes_tuple(axes: tuple[int, ...]) -> sp.Tuple:
    return sp.Tuple(*(sp.Integer(a) for a in axes))


class Literal(sp.Symbol):
    """Python text standing for a static attribute (a shape, an axis): printed as is."""


class DTypeLiteral(Literal):
    """A dtype given as an argument, by its name (``float32``); each backend spells it
    (``np.float32``, ``xp.float32``)."""


class IndexKey(Literal):
    """A basic-indexing key as Python writes it between brackets (``1:3, ::2, None``),
    passed as a value; each backend spells it (``np.s_[1:3, ::2, None]``, a tuple of slices)."""


def literal(value: Any) -> Literal:
    """``value`` (a number, a tuple of them, None) as Python text; NumPy's scalars are written
    as the Python numbers they hold, so that no library's spelling gets into the IR."""
    return Literal(value if isinstance(value, str) else repr(_plain(value)))


def _plain(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    item = getattr(value, "item", None)  # a NumPy scalar or 0-d array
    return item() if callable(item) and getattr(value, "ndim", None) == 0 else value


def dtype_literal(dtype: Any) -> DTypeLiteral:
    """The dtype (a symgrad DType or a name) as an argument of an IR node."""
    return DTypeLiteral(getattr(dtype, "name", dtype))


class _Structural(sp.Function):
    """An operation on whole arrays. ``result_dtype`` says what dtype it gives.

    A node that is not ``pure`` (a random draw) gives another value each time it is
    evaluated: passes never merge, reuse or duplicate it (:func:`is_pure`).
    """

    is_real = True
    pure = True

    def result_dtype(self, dtype_of: Any) -> str:
        return dtype_of(self.args[0])

    def natural(self, signature_of: Any) -> Any:
        """The shape signature this node gives, from its arguments' (None: not known)."""
        return None

    def shape_only_arguments(self) -> tuple[int, ...]:
        """Positions of arguments read only for their shape (their shape, their size)."""
        return ()

    def _latex(self, printer: Any) -> str:
        name = getattr(self, "operation", "") or type(self).__name__
        return rf"\operatorname{{{name}}}\left({printer._print(self.args[0])}\right)"


def is_pure(expr: sp.Basic) -> bool:
    """Whether ``expr`` is a value: equal expressions evaluate to equal arrays.

    >>> import sympy as sp
    >>> is_pure(sp.Symbol("x") + 1)
    True
    """
    return all(node.pure for node in expr.atoms(_Structural))


class ReduceSum(_Structural):
    """``np.sum(x, axis, keepdims)``; ``axes`` empty means all axes."""

    nargs = 3  # value, axes tuple (empty: all), keepdims (0/1)
    operation = "sum"

    def result_dtype(self, dtype_of: Any) -> str:
        inner = dtype_of(self.args[0])
        return "int64" if inner in ("bool", "int32", "weak_int") else inner

    def natural(self, signature_of: Any) -> Any:
        value, axes, keepdims = self.args
        operand = signature_of(value)
        if not isinstance(operand, tuple):
            return None
        try:  # axes counted from the end: ``axis=-1`` of a value of unknown rank when traced
            reduced = set(normalize_axes(tuple(axes) or None, len(operand), "", ""))
        except ShapeError:
            return None
        if keepdims:
            return tuple(1 if i in reduced else d for i, d in enumerate(operand))
        return tuple(d for i, d in enumerate(operand) if i not in reduced)


class ReduceMean(ReduceSum):
    operation = "mean"

    def result_dtype(self, dtype_of: Any) -> str:
        # TF's mean of int32/int64 is an integer (the printers call an integer helper).
        inner = dtype_of(self.args[0])
        return inner if inner in ("float16", "float32", "float64", *INTEGER_MEANS) else "float64"


# Integer dtypes whose mean is TF's: the sum divided by the count, rounded toward 0.
INTEGER_MEANS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
# Integer dtypes that NumPy and the array API sum (and multiply) in a wider dtype unless told
# otherwise: TF's sum and product stay in the dtype and wrap round, so printers pass it.
NARROW_INTEGERS = ("int8", "int16", "uint8", "uint16", "uint32")


class ReduceMax(ReduceSum):
    operation = "max"

    def result_dtype(self, dtype_of: Any) -> str:
        return dtype_of(self.args[0])


class ReduceMin(ReduceMax):
    operation = "min"


class MaybeEmptyReduceMax(ReduceMax):
    """``ReduceMax`` over axes that may hold no elements when run.

    TF's maximum of no elements is the dtype's least value (-inf for floats). NumPy gives it
    when told (``initial=``, which the NumPy printer always writes); the array API leaves it
    undefined, so the portable printer calls a helper for these nodes only.
    """


class MaybeEmptyReduceMin(ReduceMin):
    """``ReduceMin`` over axes that may hold no elements when run (see MaybeEmptyReduceMax)."""


class ReduceProd(ReduceSum):
    operation = "prod"


class SumToShape(_Structural):
    """Undo broadcasting: sum ``g`` to the runtime shape of ``like``.

    Emitted only when the axes cannot be known statically; it calls a helper
    that the module template defines.
    """

    nargs = 2

    def shape_only_arguments(self) -> tuple[int, ...]:
        return (1,)


class ExpandDims(_Structural):
    """Insert size-1 axes at the given (sorted, final-rank) positions."""

    nargs = 2


class BroadcastTo(_Structural):
    """Materialise a broadcast to a static shape, or to the shapes of witnesses.

    Arguments: value, static shape (empty if dynamic), copy flag (1 for values
    handed to the user, which must be writable), witnesses...
    """

    def shape_only_arguments(self) -> tuple[int, ...]:
        return tuple(range(3, len(self.args)))

    def result_dtype(self, dtype_of: Any) -> str:
        # A Python number broadcast is an array of NumPy's default dtype, no longer weak.
        inner = dtype_of(self.args[0])
        return {"weak_int": "int64", "weak_float": "float64"}.get(inner, inner)


class SizeOf(_Structural):
    """Number of elements of ``x`` over ``axes`` (all axes if empty) at run time, at least 1.

    The divisor of ``reduce_mean``'s gradient; at least 1 as in TF's ``_MeanGrad``
    (``_safe_shape_div``), so an empty batch gets an empty gradient, not a division by 0.
    """

    nargs = 2

    def result_dtype(self, dtype_of: Any) -> str:
        return "weak_int"

    def natural(self, signature_of: Any) -> Any:
        return ()

    def shape_only_arguments(self) -> tuple[int, ...]:
        return (0,)


class Count(_Structural):
    """Number of elements of the array ``x`` at run time (0 if it is empty).

    The divisor of a mean that the fast form computes as a dot product
    (``(r @ r) / np.size(r)``) when the size is known only at run time.
    """

    nargs = 1

    def result_dtype(self, dtype_of: Any) -> str:
        return "weak_int"

    def natural(self, signature_of: Any) -> Any:
        return ()

    def shape_only_arguments(self) -> tuple[int, ...]:
        return (0,)


class MatMulNode(_Structural):
    """``a @ b`` with optional transposes of the last two axes; args: a, b, ta, tb, rank_a, rank_b."""

    # ``@`` binds like ``*`` in Python: inside a product it needs parentheses.
    precedence = PRECEDENCE["Mul"] - 1

    nargs = 6

    def natural(self, signature_of: Any) -> Any:
        a, b, transpose_a, transpose_b, _, _ = self.args
        left, right = signature_of(a), signature_of(b)
        if not (
            isinstance(left, tuple)
            and isinstance(right, tuple)
            and len(left) >= 2
            and len(right) >= 2
        ):
            return None
        rows = left[-1] if transpose_a else left[-2]
        columns = right[-2] if transpose_b else right[-1]
        batch = broadcast_signatures(left[:-2], right[:-2])
        assert isinstance(batch, tuple)  # the broadcast of tuples is a tuple
        return batch + (rows, columns)


class Dot(_Structural):
    """``np.sum(a*b)`` as a BLAS dot product: ``a @ b`` for vectors, ``np.vdot(a, b)`` otherwise.

    Only the fast form of a program uses it (``symgrad.backends.numpy.planner``), for two arrays
    of one shape; args: a, b, rank.
    """

    precedence = PRECEDENCE["Mul"] - 1  # ``@`` binds like ``*``
    nargs = 3

    def natural(self, signature_of: Any) -> Any:
        return ()


BOOLEAN_FUNCTIONS: tuple[type[sp.Function], ...] = (
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    Equal,
    NotEqual,
    LogicalNot,
    IsFinite,
)


class Helper(_Structural):
    """A call of one of the backend's kernels, by name (``_scatter``, ``_untile``, ...;
    ``symgrad/backends/<backend>/kernels``), which each backend defines alike.

    Args: the helper's name, the dtype of its result (empty: that of its first
    argument), then its arguments.
    """

    def result_dtype(self, dtype_of: Any) -> str:
        return str(self.args[1]) or dtype_of(self.args[2])


def helper(name: str, *arguments: Any, dtype: str = "") -> Helper:
    return Helper(
        Literal(name),
        Literal(dtype),
        *(a if isinstance(a, sp.Basic) else literal(a) for a in arguments),
    )


class CallFunction(_Structural):
    """A call of one of the generated module's own functions (a loop,
    :class:`symgrad.program.Function`): args are its name, then its arguments. It gives a
    tuple of values (:class:`ItemOf` reads one); it is never merged nor repeated."""

    pure = False

    def result_dtype(self, dtype_of: Any) -> str:
        return "variant"


class Branch(_Structural):
    """``true(arguments) if pred else false(arguments)``: a ``cond`` whose branches are
    functions of the generated module. Args: pred, the two functions' names, the arguments.
    It gives a tuple of values, like :class:`CallFunction`."""

    pure = False

    def result_dtype(self, dtype_of: Any) -> str:
        return "variant"


class ItemOf(_Structural):
    """Value ``index`` of the tuple a :class:`CallFunction` or :class:`Branch` gave. Args:
    the tuple, the index, the value's dtype name."""

    def result_dtype(self, dtype_of: Any) -> str:
        return str(self.args[2])


class Check(Helper):
    """A kernel that returns its first argument after checking it when the module runs (a
    shape, a range of ids): the value itself, to whoever reads the math."""


def check(name: str, value: sp.Expr, *arguments: Any) -> Check:
    return Check(
        Literal(name),
        Literal(""),
        value,
        *(a if isinstance(a, sp.Basic) else literal(a) for a in arguments),
    )


# --- elementwise math and activations of TF1 ------------------------------


class Ceil(_Elementwise):
    """Round towards plus infinity; TF registers no gradient for it (None)."""


class FloorDiv(_Elementwise):
    """``x // y``: floor division as Python does it (TF's FloorDiv); no gradient, as in TF."""

    nargs = 2
    precedence = PRECEDENCE["Mul"]  # printed with ``//``


class FloorMod(_Elementwise):
    """``x % y`` with the sign of the divisor, as Python and TF's FloorMod.

    TF's gradient: ``g`` for x and ``-g * floor_div(x, y)`` for y.
    """

    nargs = 2
    precedence = PRECEDENCE["Mul"]  # printed with ``%``

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, y = self.args
        return sp.S.One if argindex == 1 else -FloorDiv(x, y)


class TruncateDiv(_Elementwise):
    """Integer division rounding towards zero (C's ``/``); no gradient, as in TF."""

    nargs = 2


class TruncateMod(_Elementwise):
    """The remainder with the sign of the dividend (C's ``fmod``); TF's gradient as FloorMod's
    with truncating division."""

    nargs = 2

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, y = self.args
        return sp.S.One if argindex == 1 else -TruncateDiv(x, y)


class Xlogy(_Elementwise):
    """``x * log(y)``, 0 where x is 0 (even where y is 0): TF's Xlogy and its gradient."""

    nargs = 2

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, y = self.args
        if argindex == 1:
            return Xlogy(NotEqual(x, 0), y)
        return Xdivy(x, y)


class Xdivy(_Elementwise):
    """``x / y``, 0 where x is 0 (even where y is 0): TF's Xdivy and its gradient."""

    nargs = 2

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, y = self.args
        if argindex == 1:
            return Xdivy(NotEqual(x, 0), y)
        return Xdivy(-x, y**2)


class DivNoNan(_Elementwise):
    """``x / y``, 0 where y is 0: TF's DivNoNan, and its gradient (``_DivNoNanGrad``)."""

    nargs = 2

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, y = self.args
        if argindex == 1:
            return DivNoNan(1, y)
        return DivNoNan(DivNoNan(-x, y), y)


class MulNoNan(_Elementwise):
    """``x * y``, 0 where y is 0 (even where x is inf or NaN): TF's MulNoNan; its derivatives
    are y and x, as TF's ``_MulNoNanGrad`` (``mul_no_nan(grad, y)``, ``mul_no_nan(x, grad)``)."""

    nargs = 2
    precedence = PRECEDENCE["Mul"]  # printed as a product

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x, y = self.args
        return y if argindex == 1 else x


class Relu6(_Elementwise):
    """min(max(x, 0), 6); the gradient passes where 0 < x < 6, as TF's Relu6Grad."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        # ReluMask, not Greater: TF differentiates Relu6Grad to zeros, not None.
        x = self.args[0]
        return ReluMask(x, 0) * ReluMask(6, x)


class Elu(_Elementwise):
    """x where x > 0, else exp(x) - 1; TF's EluGrad reads the output: y + 1 where y < 0, else 1
    (so its own derivative is 0 at x = 0, as TF's EluGradGrad)."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return Where(Less(self, 0), self + 1, 1)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


class Selu(_Elementwise):
    """scale * (x where x > 0, else alpha * (exp(x) - 1)); TF's SeluGrad reads the output:
    y + scale * alpha where y < 0, else scale (also at x = 0)."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        scale = sp.Float(SELU_SCALE, 17)
        return Where(Less(self, 0), self + scale * sp.Float(SELU_ALPHA, 17), scale)


# 2/sqrt(pi) as a float literal: SymPy's own erf derivative writes ``np.sqrt(np.pi)``, a
# float64 scalar that would make a float32 gradient float64.
TWO_OVER_SQRT_PI = sp.Float("1.1283791670955125738961589031215452", 17)


class Erf(_Elementwise):
    """The error function; d/dx = 2/sqrt(pi) * exp(-x**2) (TF's ErfGrad)."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return TWO_OVER_SQRT_PI * sp.exp(-(self.args[0] ** 2))


class Erfc(_Elementwise):
    """``1 - erf(x)``, computed without cancellation; d/dx = -2/sqrt(pi) * exp(-x**2)."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return -TWO_OVER_SQRT_PI * sp.exp(-(self.args[0] ** 2))


class _Logical(_Elementwise):
    """A logical operation on bool arrays (no gradient: its operands are bool)."""

    nargs = 2
    operation = ""
    boolean = True


class LogicalAnd(_Logical):
    operation = "logical_and"


class LogicalOr(_Logical):
    operation = "logical_or"


class LogicalXor(_Logical):
    operation = "logical_xor"


class ReduceAny(ReduceSum):
    operation = "any"

    def result_dtype(self, dtype_of: Any) -> str:
        return "bool"


class ReduceAll(ReduceAny):
    operation = "all"


class ArgMax(_Structural):
    """``np.argmax(x, axis=a)`` (int64; ties give the first index, as in TF)."""

    nargs = 2  # value, axis
    operation = "argmax"

    def result_dtype(self, dtype_of: Any) -> str:
        return "int64"


class ArgMin(ArgMax):
    operation = "argmin"


BOOLEAN_FUNCTIONS = (*BOOLEAN_FUNCTIONS, LogicalAnd, LogicalOr, LogicalXor)
