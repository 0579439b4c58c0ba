"""The dtype of an expression of the Program, as array libraries evaluate it.

NumPy 2 (NEP 50) and the Python array API standard promote alike: Python numbers are
"weak" and take the dtype of the array they meet. Passes use these rules to keep a
rewrite from changing a statement's dtype; printers use them to add a conversion where
an expression would not evaluate in its statement's dtype.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .dtypes import DType
from .ops import functions as F

WEAK_INT, WEAK_FLOAT = "weak_int", "weak_float"
_PRESERVING = (F.Relu, F.Maximum, F.Minimum, F.Sign, F.Abs)


def _promote(a: str, b: str) -> str:
    """NumPy 2 (NEP 50) promotion, where Python numbers are 'weak'."""
    weak = (WEAK_INT, WEAK_FLOAT)
    if a in weak and b in weak:
        return WEAK_FLOAT if WEAK_FLOAT in (a, b) else WEAK_INT
    if a in weak or b in weak:
        concrete, python = (b, a) if a in weak else (a, b)
        kind = np.dtype(concrete).kind
        if python == WEAK_INT:
            return "int64" if kind == "b" else concrete
        return concrete if kind == "f" else "float64"
    return np.result_type(a, b).name


def dtype_name(dtype: object) -> str:
    """The name of a dtype given as a name, a ``symgrad`` DType or a NumPy dtype."""
    return dtype if isinstance(dtype, str) else getattr(dtype, "name", str(dtype))


def expression_dtype(
    expr: sp.Expr, table: dict[sp.Symbol, DType], memo: dict[sp.Expr, str] | None = None
) -> str:
    """The dtype NumPy gives ``expr`` (``weak_*`` for plain Python numbers).

    ``memo`` keeps the answers for subexpressions (valid while ``table`` is unchanged).
    """
    if memo is None:
        memo = {}
    known = memo.get(expr)
    if known is None:
        known = memo[expr] = _expression_dtype(expr, table, memo)
    return known


def _expression_dtype(
    expr: sp.Expr, table: dict[sp.Symbol, DType], memo: dict[sp.Expr, str]
) -> str:
    if isinstance(expr, F.Literal):
        return WEAK_INT
    if expr.is_Symbol:
        dtype = table.get(expr)
        if dtype is None:
            return WEAK_FLOAT
        return dtype if isinstance(dtype, str) else dtype.name
    if expr.is_Integer:
        return WEAK_INT
    if expr.is_Number or expr in (sp.pi, sp.E):
        return WEAK_FLOAT
    if isinstance(expr, F.BOOLEAN_FUNCTIONS):
        return "bool"
    if isinstance(expr, F.Cast):
        return expr.target
    if isinstance(expr, F.Literal):
        return WEAK_INT
    if isinstance(expr, F.Where):
        return _promote(
            expression_dtype(expr.args[1], table, memo), expression_dtype(expr.args[2], table, memo)
        )
    if isinstance(expr, F._Structural):
        return expr.result_dtype(lambda e: expression_dtype(e, table, memo))
    argument_types = [
        expression_dtype(a, table, memo) for a in expr.args if not isinstance(a, sp.Tuple)
    ]
    result = argument_types[0]
    for other in argument_types[1:]:
        result = _promote(result, other)
    if isinstance(expr, sp.Add) and "bool" in argument_types:
        return WEAK_FLOAT  # the printer turns masks into numbers of the statement's dtype
    if isinstance(expr, sp.Mul):
        coefficient, rest = expr.as_coeff_Mul()  # a Float coefficient too (0.2 * mask)
        factors = sp.Mul.make_args(rest)
        if coefficient != 1 and all(expression_dtype(f, table, memo) == "bool" for f in factors):
            return WEAK_FLOAT  # printed as numbers, see Printer._print_Mul
    if isinstance(expr, (sp.Add, sp.Mul, _PRESERVING)):
        return result
    if isinstance(expr, sp.Pow):
        base, exponent = expr.args
        if exponent.is_Integer and exponent > 0:
            return result
        return _promote(result, WEAK_FLOAT) if result not in ("bool",) else "float64"
    # transcendental functions: floats stay, everything else becomes float64
    if result in (WEAK_INT, WEAK_FLOAT):
        return WEAK_FLOAT
    return result if np.dtype(result).kind == "f" else "float64"
