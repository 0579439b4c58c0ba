"""Lay out one generated statement exactly as ``ruff format`` would.

The code generator prints every statement as a single line of Python.  Generated
modules must nevertheless pass ``ruff format --check`` (line length 88, default
settings), and symgrad must not depend on ruff at run time.  This module therefore
re-implements the part of ruff's formatter that our statements exercise:
assignments, ``return``, expression statements and ``def`` headers built from names,
literals, attributes, calls, subscripts and slices, operators, comparisons, boolean
operators, conditional expressions, tuples, lists and starred arguments.

How it works:

* The statement is parsed with :mod:`ast`.  Node offsets are used to look at the
  source text where the AST loses information ruff relies on: parentheses the
  printer wrote (ruff keeps most of them), the spelling of literals, and trailing
  ("magic") commas.
* If the whole statement fits on one line, it is rendered directly by a small
  flat printer (the fast path taken by almost every generated line).
* Otherwise the statement is translated into the document IR ruff builds (groups,
  soft line breaks, conditional content, "best fitting" variants, ...) and printed
  by a port of ruff's Prettier-style printer.  Porting ruff's rules (from
  ``ruff_python_formatter`` and ``ruff_formatter``) rather than inventing
  line-splitting heuristics is what makes the output match ruff for nested calls,
  binary chains, subscripts, call chains and assignment right-hand sides.
* A split statement is formatted once more, as ruff would on its next run, and that
  fixed point is returned (see :func:`format_statement`).

Anything outside the supported subset raises :class:`ValueError`; callers keep the
unformatted line in that case.
"""

from __future__ import annotations

import ast
import io
import operator
import re
import tokenize
import unicodedata

__all__ = ["format_statement"]

LINE_WIDTH = 88
_INDENT = "    "

# ---------------------------------------------------------------------------
# Document IR.  Text is a plain ``str``; simple elements are small ints; elements
# carrying data are tuples whose first item is a ``_T_*`` code.

_SOFT, _SOFT_SPACE, _HARD, _EXPAND_PARENT = 1, 2, 3, 4
_START_INDENT, _END_INDENT, _START_ENTRY, _END_ENTRY = 5, 6, 7, 8
_END_GROUP, _END_COND_GROUP, _END_COND_CONTENT = 9, 10, 11
_END_INDENT_IF_BREAKS, _END_FITS_EXPANDED, _END_BEST_FIT_PAREN = 12, 13, 14

_T_GROUP, _T_COND_GROUP, _T_COND_CONTENT, _T_INDENT_IF_BREAKS = 20, 21, 22, 23
_T_FITS_EXPANDED, _T_BEST_FIT_PAREN, _T_BEST_FITTING, _T_INTERNED = 24, 25, 26, 27

_FLAT, _EXPANDED = 0, 1  # print modes
_GROUP_FLAT, _GROUP_EXPAND, _GROUP_PROPAGATED = 0, 1, 2  # group modes
_FIRST_LINE, _ALL_LINES, _ALL_LINES_OVERFLOW = 0, 1, 2  # measure modes


class _Group:
    """A group (or conditional group when ``cond`` is set); ``mode`` is mutable
    because expansion is propagated to enclosing groups after the IR is built."""

    __slots__ = ("cond", "id", "mode")

    def __init__(self, gid, mode, cond=None):
        self.id, self.mode, self.cond = gid, mode, cond


class _FitsExpanded:
    __slots__ = ("cond", "propagate")

    def __init__(self, cond):
        self.cond, self.propagate = cond, False


# ---------------------------------------------------------------------------
# Source helpers


def _width(text: str) -> int:
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


_TRIVIA = b" \t\r\n\f\\"
_TRIVIA_OR_RPAR = _TRIVIA + b")"
_COL_OFFSET = operator.attrgetter("col_offset")
_END_COL_OFFSET = operator.attrgetter("end_col_offset")


class _Source:
    """The statement's source bytes plus the token-level questions ruff asks."""

    def __init__(self, text: str):
        self.str = text
        self.b = b = text.encode()
        self.n = len(b)
        self.ascii = len(b) == len(text)  # byte offsets are str offsets
        # AST offsets are (line, byte column); most statements are one line.
        self.single_line = b"\n" not in b
        if self.single_line:  # the hot path: plain attribute reads
            self.start, self.end = _COL_OFFSET, _END_COL_OFFSET
        else:
            self.line_starts = [0] + [i + 1 for i, byte in enumerate(b) if byte == 10]

    def start(self, node) -> int:
        return self.line_starts[node.lineno - 1] + node.col_offset

    def end(self, node) -> int:
        return self.line_starts[node.end_lineno - 1] + node.end_col_offset

    def text(self, node) -> str:
        if self.ascii:
            return self.str[self.start(node) : self.end(node)]
        return self.b[self.start(node) : self.end(node)].decode()

    def next_token(self, i: int) -> int:
        b, n = self.b, len(self.b)
        while i < n and b[i] in _TRIVIA:
            i += 1
        return i

    def prev_token(self, i: int) -> int:
        b = self.b
        i -= 1
        while i >= 0 and b[i] in _TRIVIA:
            i -= 1
        return i

    def is_paren(self, node) -> bool:
        """ruff's ``is_expression_parenthesized``: a ``(`` before and a ``)`` after."""
        b, n = self.b, self.n
        i = self.end(node)
        if i >= n or b[i] not in _TRIVIA_OR_RPAR:  # the common, fast answer
            return False
        while i < n and b[i] in _TRIVIA:
            i += 1
        if i >= n or b[i] != 41:
            return False
        i = self.start(node) - 1
        while i >= 0 and b[i] in _TRIVIA:
            i -= 1
        return i >= 0 and b[i] == 40

    def has_trailing_comma(self, after: int, end: int) -> bool:
        b = self.b
        i = after
        while i < end and (b[i] in _TRIVIA or b[i] == 41):
            i += 1
        return i < end and b[i] == 44

    def single_arg_parenthesized(self, arg, call_end: int) -> bool:
        b, i, seen = self.b, self.end(arg), False
        while i < call_end:
            c = b[i]
            if c in _TRIVIA or c == 44:
                i += 1
            elif c == 41:
                if seen:
                    return True
                seen = True
                i += 1
            else:
                break
        return False

    def tuple_parenthesized(self, node) -> bool:
        """Whether the tuple's range starts with its own ``(``: ``(a, b)``, not
        ``(a), b``."""
        start, end = self.start(node), self.end(node)
        b = self.b
        if b[start] != 40:
            return False
        depth, i = 0, start
        while i < end:
            c = b[i]
            if c in (34, 39):  # skip a string literal
                quote = b[i : i + 3] if b[i : i + 3] in (b'"""', b"'''") else b[i : i + 1]
                i += len(quote)
                while not b.startswith(quote, i):
                    i += 2 if b[i] == 92 else 1
                i += len(quote)
                continue
            if c in (40, 91, 123):
                depth += 1
            elif c in (41, 93, 125):
                depth -= 1
                if depth == 0:
                    return i == end - 1
            i += 1
        return False

    def has_second_colon(self, node) -> bool:
        b = self.b
        after = self.end(node.upper) if node.upper else None
        if after is None:  # find the first colon after the lower bound
            i = self.end(node.lower) if node.lower else self.start(node)
            while b[i] != 58:
                i += 1
            after = i + 1
        end = self.end(node)
        i = after
        while i < end and (b[i] in _TRIVIA or b[i] == 41):
            i += 1
        return i < end and b[i] == 58


# ---------------------------------------------------------------------------
# Literals, normalised like ruff (``expr_number_literal.rs``, ``string/normalize.rs``)


def _normalize_int(text: str) -> str:
    if len(text) > 1 and text[0] == "0" and text[1] in "xXoObB":
        prefix = "0" + text[1].lower()
        digits = text[2:].upper() if text[1] in "xX" else text[2:]
        return prefix + digits
    return text


def _normalize_float(text: str) -> str:
    text = text.replace("E", "e")
    if text.startswith("."):
        text = "0" + text
    mantissa, e, exponent = text.partition("e")
    if mantissa.endswith("."):
        mantissa += "0"
    exponent = exponent.removeprefix("+")
    return mantissa + e + exponent


def _number(node, text: str) -> str:
    value = node.value
    if isinstance(value, int):
        return _normalize_int(text)
    if isinstance(value, float):
        return _normalize_float(text)
    return _normalize_float(text[:-1]) + "j"


def _normalize_escape(kind: str, rest: str):
    """Length and normalised text of the escape after ``\\x``, ``\\u``, ``\\U``
    or ``\\N`` (lower-case hex digits, upper-case names)."""
    if kind == "N":
        close = rest.find("}")
        if not rest.startswith("{") or close < 3:
            return None
        name = rest[1:close]
        if any(not (c.isascii() and (c.isalnum() or c in " -")) for c in name):
            return None
        return close + 1, "{" + name.upper() + "}"
    length = {"x": 2, "u": 4, "U": 8}[kind]
    body = rest[:length]
    if len(body) < length or any(c not in "0123456789abcdefABCDEF" for c in body):
        return None
    return length, body.lower()


def _string(text: str) -> str:
    i = 0
    while text[i] not in "'\"":
        i += 1
    prefix, quote = text[:i], text[i]
    triple = text.startswith(quote * 3, i)
    qlen = 3 if triple else 1
    j = i + qlen
    while True:  # find the end of the first string token
        if text[j] == "\\":
            j += 2
        elif text.startswith(quote * qlen, j):
            break
        else:
            j += 1
    if j + qlen != len(text):
        raise ValueError("implicitly concatenated strings are not supported")
    content = text[i + qlen : j]
    if "\n" in content or "\r" in content:
        raise ValueError("multi-line strings are not supported")
    lower = prefix.lower()
    if "f" in lower or "t" in lower:
        raise ValueError("f-strings are not supported")
    is_raw, is_bytes = "r" in lower, "b" in lower
    # ruff prints a canonical prefix: no ``u``; ``r`` (an upper-case ``R`` stays)
    # before ``b``.
    prefix = ("R" if "R" in prefix else "r" if is_raw else "") + ("b" if is_bytes else "")
    first = next((k for k, c in enumerate(content) if c in "\\\"'\r{"), None)
    # Prefer double quotes unless they need more escapes (choose_quotes in ruff).
    if first is None:
        new = '"'
    elif is_raw:
        new = quote if _raw_has_unescaped_double(content[first:], triple) else '"'
    elif triple:
        new = quote if _has_triple_double(content[first:]) else '"'
    else:
        singles, doubles = content.count("'"), content.count('"')
        new = "'" if singles < doubles else '"'
    if first is not None and not is_raw:
        content = _normalize_string_body(content, first, new, triple, is_bytes)
    q = new * qlen
    return prefix + q + content + q


def _raw_has_unescaped_double(s: str, triple: bool) -> bool:
    k, n = 0, len(s)
    while k < n:
        c = s[k]
        if c == "\\":
            k += 2
            continue
        if c == '"':
            if not triple or k + 1 >= n:
                return True
            if s[k + 1] == '"':
                k += 2
                if k >= n or s[k] == '"':
                    return True
                continue
        k += 1
    return False


def _has_triple_double(s: str) -> bool:
    k, n = 0, len(s)
    while k < n:
        c = s[k]
        if c == "\\":
            k += 2 if k + 1 < n and s[k + 1] in '"\\' else 1
            continue
        if c == '"':
            if k + 1 >= n:
                return True
            if s[k + 1] == '"':
                if k + 2 >= n or s[k + 2] == '"':
                    return True
                k += 2
                continue
        k += 1
    return False


def _normalize_string_body(content, start, quote, triple, is_bytes):
    opposite = "'" if quote == '"' else '"'
    out = [content[:start]]
    k, n = start, len(content)
    while k < n:
        c = content[k]
        if c == "\\" and k + 1 < n:
            nxt = content[k + 1]
            if nxt == "\\":
                out.append("\\\\")
                k += 2
                continue
            if nxt in ("xuUN" if not is_bytes else "x"):
                norm = _normalize_escape(nxt, content[k + 2 :])
                if norm is not None:
                    out.append("\\" + nxt + norm[1])
                    k += 2 + norm[0]
                    continue
            if not triple and nxt == opposite:
                out.append(nxt)  # drop the now unnecessary escape
                k += 2
                continue
            if not triple and nxt == quote:
                out.append("\\" + nxt)
                k += 2
                continue
            out.append(c)
            k += 1
        elif c == quote and not triple:
            out.append("\\" + c)
            k += 1
        else:
            out.append(c)
            k += 1
    return "".join(out)


def _literal(src: _Source, node) -> str:
    value = node.value
    if value is None or value is True or value is False:
        return repr(value)
    if value is Ellipsis:
        return "..."
    text = src.text(node)
    kind = type(value)
    if kind is int and text.isdigit():
        return text
    if kind is str or kind is bytes:
        if text[0] == '"' and text[-1] == '"' and _PLAIN_STRING.fullmatch(text):
            return text
        return _string(text)
    return _number(node, text)


# A double-quoted string ruff leaves alone: no prefix, escapes or quotes inside.
_PLAIN_STRING = re.compile(r'"[^"\\\'\r\n{]*"')


# ---------------------------------------------------------------------------
# Shared classification helpers (mirroring ruff's expression/mod.rs)

_BIN_OPS = {
    ast.Add: ("+", 5), ast.Sub: ("-", 5),
    ast.Mult: ("*", 4), ast.MatMult: ("@", 4), ast.Div: ("/", 4),
    ast.FloorDiv: ("//", 4), ast.Mod: ("%", 4), ast.Pow: ("**", 2),
    ast.LShift: ("<<", 6), ast.RShift: (">>", 6), ast.BitAnd: ("&", 7),
    ast.BitXor: ("^", 8), ast.BitOr: ("|", 9),
}  # fmt: skip
_CMP_OPS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
    ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}  # fmt: skip
_UNARY_OPS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}
# OperatorPrecedence, from tightest to loosest.
_P_NONE, _P_ATTRIBUTE, _P_EXPONENT, _P_INVERT = 0, 1, 2, 3
_P_COMPARATOR, _P_BOOL, _P_CONDITIONAL = 10, 11, 12


def _flatten_binary(src: _Source, node) -> list:
    """Operands (nodes) and operators ``(text, precedence, is_pow)``, alternating,
    as ruff's ``BinaryLike::flatten`` (parenthesized operands stay whole)."""
    parts = []
    stack = [node]  # expressions still to flatten, rightmost first
    while stack:
        e = stack.pop()
        kind = type(e)
        if kind not in _BINARY_LIKE or (e is not node and src.is_paren(e)):
            parts.append(e)  # an operand, or an operator tuple
        elif kind is ast.BinOp:
            text, precedence = _BIN_OPS[type(e.op)]
            stack += (e.right, (text, precedence, text == "**"), e.left)
        elif kind is ast.Compare:
            for op, right in zip(reversed(e.ops), reversed(e.comparators), strict=False):
                stack += (right, (_CMP_OPS[type(op)], _P_COMPARATOR, False))
            stack.append(e.left)
        else:
            symbol = ("and" if type(e.op) is ast.And else "or", _P_BOOL, False)
            for k, value in enumerate(reversed(e.values)):
                stack += (value, symbol) if k < len(e.values) - 1 else (value,)
    return parts


_BINARY_LIKE = (ast.BinOp, ast.Compare, ast.BoolOp)


def _simple_power_operand(e) -> bool:
    if isinstance(e, ast.UnaryOp):
        return not isinstance(e.op, ast.Not) and _simple_power_operand(e.operand)
    if isinstance(e, ast.Constant):
        v = e.value
        return v is None or isinstance(v, (bool, int, float, complex))
    if isinstance(e, ast.Attribute):
        return _simple_power_operand(e.value)
    return isinstance(e, ast.Name)


def _hug_power(src: _Source, left, right) -> bool:
    return (
        _simple_power_operand(left)
        and _simple_power_operand(right)
        and not src.is_paren(left)
        and not src.is_paren(right)
    )


def _simple_slice_part(e) -> bool:
    if isinstance(e, ast.UnaryOp) and not isinstance(e.op, ast.Not):
        return _simple_slice_part(e.operand)
    return isinstance(e, (ast.Constant, ast.Name))


def _is_base_ten_number(src: _Source, e) -> bool:
    if not isinstance(e, ast.Constant) or isinstance(e.value, (bool, str, bytes)):
        return False
    if isinstance(e.value, float):
        return True
    if isinstance(e.value, int):
        return src.text(e)[:2].lower() not in ("0x", "0o", "0b")
    return False


def _call_arguments(call) -> list:
    """Positional and keyword arguments in source order (``f(a=1, *b)`` is valid)."""
    if not call.keywords or not any(type(a) is ast.Starred for a in call.args):
        return [*call.args, *call.keywords]
    return sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))


def _is_fluent(src: _Source, e) -> bool:
    """Whether ruff lays out this call chain in "fluent" style (``a().b().c``)."""
    if not isinstance(e, (ast.Attribute, ast.Call, ast.Subscript)):
        return False
    count, root_paren = 0, False
    while True:
        if isinstance(e, ast.Attribute):
            if src.is_paren(e.value):
                root_paren = True
                break
            if isinstance(e.value, (ast.Call, ast.Subscript)):
                count += 1
            e = e.value
        elif isinstance(e, (ast.Call, ast.Subscript)):
            inner = e.func if isinstance(e, ast.Call) else e.value
            if src.is_paren(inner):
                break
            e = inner
        else:
            break
    return count + root_paren >= 2


# ---------------------------------------------------------------------------
# Fast path: the statement rendered on one line (ruff's IR printed flat).


class _Flat:
    """Renders the statement on one line: ruff's IR printed with every group flat.

    Kept separate from :class:`_Builder` because it is several times faster and
    almost every generated statement fits on one line."""

    def __init__(self, src: _Source):
        self.src = src
        self.forced_break = False  # a magic trailing comma forces a line break

    def expr(self, e, parens=None) -> str:
        """``parens``: None preserves source parentheses, True/False force them."""
        try:
            render = _FLAT_FIELDS[type(e)]
        except KeyError:
            raise ValueError(f"unsupported expression: {type(e).__name__}") from None
        text = render(self, e)
        if self.src.is_paren(e) if parens is None else parens:
            return "(" + text + ")"
        return text

    def operand(self, e) -> str:
        return self.expr(e, self.src.is_paren(e))

    def join(self, nodes, end) -> str:
        if nodes and self.src.has_trailing_comma(self.src.end(nodes[-1]), end):
            self.forced_break = True
        return ", ".join([self.element(n) for n in nodes])

    def element(self, n) -> str:
        if type(n) is ast.keyword:
            value = self.expr(n.value)
            return "**" + value if n.arg is None else n.arg + "=" + value
        return self.expr(n)

    def name(self, e) -> str:
        return e.id if self.src.ascii else self.src.text(e)

    def constant(self, e) -> str:
        return _literal(self.src, e)

    def attribute(self, e) -> str:
        value = e.value
        paren = self.src.is_paren(value) or _is_base_ten_number(self.src, value)
        return self.expr(value, paren) + "." + e.attr

    def call(self, e) -> str:
        src = self.src
        func = self.operand(e.func)
        if len(e.args) == 1 and not e.keywords:
            arg, end = e.args[0], src.end(e)
            if src.has_trailing_comma(src.end(arg), end):
                self.forced_break = True
            return func + "(" + self.expr(arg, src.single_arg_parenthesized(arg, end)) + ")"
        return func + "(" + self.join(_call_arguments(e), src.end(e)) + ")"

    def subscript(self, e) -> str:
        if type(e.slice) is ast.Tuple:
            inner = self.tuple(e.slice, preserve=True)
        else:
            inner = self.expr(e.slice)
        return self.operand(e.value) + "[" + inner + "]"

    def binary(self, e) -> str:
        src = self.src
        parts = _flatten_binary(src, e)
        out = [self.operand(parts[0])]
        for k in range(1, len(parts), 2):
            text, _, is_pow = parts[k]
            if is_pow and _hug_power(src, parts[k - 1], parts[k + 1]):
                out.append(text)
            else:
                out.append(" " + text + " ")
            out.append(self.operand(parts[k + 1]))
        return "".join(out)

    def unary(self, e) -> str:
        op = _UNARY_OPS[type(e.op)]
        operand = e.operand
        is_pow = type(operand) is ast.BinOp and type(operand.op) is ast.Pow
        text = self.expr(operand, True if is_pow else None)
        return op + " " + text if op == "not" else op + text

    def slice(self, e) -> str:
        parts = (e.lower, e.upper, e.step)
        simple = all(p is None or _simple_slice_part(p) for p in parts)
        out = self.expr(e.lower) if e.lower else ""
        out += ":" if simple or not e.lower else " :"
        if e.upper:
            out += ("" if simple else " ") + self.expr(e.upper)
        if self.src.has_second_colon(e):
            if not simple and (e.upper or not e.step):
                out += " "
            out += ":"
            if e.step:
                out += ("" if simple else " ") + self.expr(e.step)
        return out

    def tuple(self, e, preserve=False) -> str:
        src, elts = self.src, e.elts
        if not elts:
            return "()"
        paren = src.tuple_parenthesized(e)
        if len(elts) == 1:
            if preserve and not paren:
                comma = src.has_trailing_comma(src.end(elts[0]), src.end(e))
                return self.expr(elts[0]) + ("," if comma else "")
            return "(" + self.expr(elts[0]) + ",)"
        inner = self.join(elts, src.end(e))
        return "(" + inner + ")" if paren else inner

    def list(self, e) -> str:
        return "[" + self.join(e.elts, self.src.end(e)) + "]"

    def if_exp(self, e) -> str:
        return self.expr(e.body) + " if " + self.expr(e.test) + " else " + self.expr(e.orelse)

    def starred(self, e) -> str:
        return "*" + self.expr(e.value)

    def statement(self, s) -> str:
        kind = type(s)
        if kind is ast.Assign:
            target, value = s.targets[0], s.value
            own = type(target) is ast.Tuple or _has_own_parentheses(self.src, target)
            if own and not self.src.is_paren(target):
                left = self.expr(target, False)
            else:
                left = self.expr(target)
            return left + " = " + self.expr(value, False)
        if kind is ast.AugAssign:
            operator = _BIN_OPS[type(s.op)][0]
            return self.expr(s.target) + " " + operator + "= " + self.expr(s.value, False)
        if kind is ast.Return:
            if s.value is None:
                return "return"
            if type(s.value) is ast.Tuple:
                return "return " + self.tuple(s.value)
            return "return " + self.expr(s.value, False)
        if kind is ast.Expr:
            return self.expr(s.value)
        if self.src.parameters_magic_comma:
            self.forced_break = True
        params = ", ".join([self.parameter(p) for p in _parameter_entries(s.args)])
        return "def " + s.name + "(" + params + "):"

    def parameter(self, entry) -> str:
        text, _, default = entry
        return text if default is None else text + "=" + self.expr(default)


_FLAT_FIELDS = {
    ast.Name: _Flat.name,
    ast.Constant: _Flat.constant,
    ast.Attribute: _Flat.attribute,
    ast.Call: _Flat.call,
    ast.Subscript: _Flat.subscript,
    ast.BinOp: _Flat.binary,
    ast.Compare: _Flat.binary,
    ast.BoolOp: _Flat.binary,
    ast.UnaryOp: _Flat.unary,
    ast.Slice: _Flat.slice,
    ast.Tuple: _Flat.tuple,
    ast.List: _Flat.list,
    ast.IfExp: _Flat.if_exp,
    ast.Starred: _Flat.starred,
}


def _parameter_entries(args) -> list:
    """``(text, node, default)`` for each parameter (and ``/``, ``*``) of a ``def``."""
    entries = []
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for k, (arg, default) in enumerate(zip(positional, defaults, strict=False)):
        entries.append((arg.arg, arg, default))
        if args.posonlyargs and k == len(args.posonlyargs) - 1:
            entries.append(("/", None, None))
    if args.vararg:
        entries.append(("*" + args.vararg.arg, args.vararg, None))
    elif args.kwonlyargs:
        entries.append(("*", None, None))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=False):
        entries.append((arg.arg, arg, default))
    if args.kwarg:
        entries.append(("**" + args.kwarg.arg, args.kwarg, None))
    for arg in [*positional, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None and arg.annotation is not None:
            raise ValueError("annotated parameters are not supported")
    return entries


def _has_own_parentheses(src: _Source, e):
    """ruff's ``has_own_parentheses``: None, "empty" or "non-empty"."""
    if isinstance(e, ast.Subscript):
        return "non-empty"
    if isinstance(e, ast.List):
        return "non-empty" if e.elts else "empty"
    if isinstance(e, ast.Tuple) and src.tuple_parenthesized(e):
        return "non-empty" if e.elts else "empty"
    if isinstance(e, ast.Call):
        return "non-empty" if (e.args or e.keywords) else "empty"
    return None


def _has_parentheses(src: _Source, e):
    own = _has_own_parentheses(src, e)
    if own == "non-empty":
        return own
    if src.is_paren(e):
        return "non-empty"
    return own


# ---------------------------------------------------------------------------
# IR builder: a port of the relevant ruff_python_formatter rules.

_PRESERVE, _ALWAYS, _NEVER = 0, 1, 2  # Parentheses
_OPTIONAL, _IF_BREAKS = 0, 1  # Parenthesize
_MULTILINE, _BEST_FIT, _NEVER_PARENS = 0, 1, 2  # OptionalParentheses
# Node levels: a statement, an expression ((_EXPR, group id) inside optional
# parentheses), or inside brackets.
_STMT, _EXPR, _PAREN = 0, 1, 2
_DEFAULT, _FLUENT, _NON_FLUENT = 0, 1, 2  # call chain layouts
_CHAIN = (ast.Attribute, ast.Call, ast.Subscript)
_CALL_LIKE = (ast.Call, ast.Subscript)


class _Builder:
    def __init__(self, src: _Source):
        self.src = src
        self.out = []
        self.level = (_STMT, None)
        self.ids = 0

    # -- generic builders (ruff_formatter/src/builders.rs) --

    def new_id(self) -> int:
        self.ids += 1
        return self.ids

    def capture(self, content) -> list:
        saved, self.out = self.out, []
        content()
        captured, self.out = self.out, saved
        return captured

    def with_level(self, level, content) -> None:
        saved, self.level = self.level, level
        content()
        self.level = saved

    def group(self, content, gid=None, expand=False) -> None:
        self.out.append((_T_GROUP, _Group(gid, _GROUP_EXPAND if expand else _GROUP_FLAT)))
        content()
        self.out.append(_END_GROUP)

    def cond_content(self, mode, gid, content) -> None:
        self.out.append((_T_COND_CONTENT, mode, gid))
        content()
        self.out.append(_END_COND_CONTENT)

    def soft_block_indent(self, content) -> None:
        self.out += (_START_INDENT, _SOFT)
        content()
        self.out += (_END_INDENT, _SOFT)

    def token(self, *texts) -> None:
        self.out += texts

    # -- parentheses.rs --

    def parenthesized(self, left, content, right) -> None:
        level = self.level
        out = self.out

        def indented():
            self.group(lambda: self.soft_block_indent(content))

        self.level = (_PAREN, None)
        out.append(left)
        if level[0] == _EXPR and level[1] is not None:
            # An enclosing optional-parentheses group should not break just because
            # this bracketed content expands: measure it expanded instead.
            out.append((_T_FITS_EXPANDED, _FitsExpanded((_FLAT, level[1]))))
            indented()
            out.append(_END_FITS_EXPANDED)
        else:
            indented()
        out.append(right)
        self.level = level

    def optional_parentheses(self, content) -> None:
        gid = self.new_id()

        def inner():
            self.cond_content(_EXPANDED, None, lambda: self.token("("))
            self.out.append((_T_INDENT_IF_BREAKS, gid))
            self.out.append(_SOFT)
            content()
            self.out += (_END_INDENT_IF_BREAKS, _SOFT)
            self.cond_content(_EXPANDED, None, lambda: self.token(")"))

        self.with_level((_EXPR, gid), lambda: self.group(inner, gid))

    def parenthesize_if_expands(self, content) -> None:
        def inner():
            self.cond_content(_EXPANDED, None, lambda: self.token("("))
            self.soft_block_indent(content)
            self.cond_content(_EXPANDED, None, lambda: self.token(")"))

        self.with_level((_PAREN, None), lambda: self.group(inner))

    def in_parens_group(self, content) -> None:
        kind, gid = self.level
        if kind == _EXPR and gid is not None:
            self.out.append((_T_COND_GROUP, _Group(None, _GROUP_FLAT, (_EXPANDED, gid))))
            content()
            self.out.append(_END_COND_GROUP)
        elif kind == _PAREN:
            self.group(content)
        else:
            content()

    def in_parens_line(self, space: bool) -> None:
        kind, gid = self.level
        if kind == _PAREN:
            self.out.append(_SOFT_SPACE if space else _SOFT)
        elif kind == _EXPR and gid is not None:
            self.out += (
                (_T_COND_CONTENT, _EXPANDED, gid),
                _SOFT_SPACE if space else _SOFT,
            )
            self.out.append(_END_COND_CONTENT)
            if space:
                self.out += ((_T_COND_CONTENT, _FLAT, gid), " ", _END_COND_CONTENT)
        elif space:
            self.out.append(" ")

    def in_parens_if_breaks_space(self) -> None:
        kind, gid = self.level
        if kind == _PAREN:
            self.out += ((_T_COND_CONTENT, _EXPANDED, None), " ", _END_COND_CONTENT)
        elif kind == _EXPR and gid is not None:
            self.out += ((_T_COND_CONTENT, _EXPANDED, gid), " ", _END_COND_CONTENT)

    def join_comma_separated(self, entries, sequence_end, one_or_more=False) -> None:
        for k, (_node, content) in enumerate(entries):
            if k:
                self.out += (",", _SOFT_SPACE)
            content()
        if entries:
            last_end = self.src.end(entries[-1][0])
            magic = self.src.has_trailing_comma(last_end, sequence_end)
            if magic or one_or_more or len(entries) > 1:
                self.cond_content(_EXPANDED, None, lambda: self.token(","))
            if magic:
                self.out.append(_EXPAND_PARENT)

    # -- expression/mod.rs --

    def expr(self, e, parens=_PRESERVE) -> None:
        paren = self.src.is_paren(e) if parens == _PRESERVE else parens == _ALWAYS
        if paren:
            self.parenthesized("(", lambda: self.fields(e), ")")
        elif self.level[0] == _STMT:
            self.with_level((_EXPR, None), lambda: self.fields(e))
        else:
            self.fields(e)

    def operand(self, e) -> None:
        self.expr(e, _ALWAYS if self.src.is_paren(e) else _NEVER)

    def maybe_parenthesize(self, e, parenthesize) -> None:
        src = self.src
        if parenthesize == _OPTIONAL and src.is_paren(e):
            return self.expr(e, _ALWAYS)
        if self.level[0] == _PAREN or (self.level[0] == _EXPR and self.level[1] is not None):
            return self.expr(e, _NEVER)
        needs = self.needs_parentheses(e)

        def unparenthesized():
            return self.expr(e, _NEVER)

        if needs == _MULTILINE:
            if self.can_omit_optional_parentheses(e):
                self.optional_parentheses(unparenthesized)
            else:
                self.parenthesize_if_expands(unparenthesized)
        elif needs == _BEST_FIT and parenthesize == _IF_BREAKS:
            gid = self.new_id()
            self.with_level((_EXPR, gid), lambda: self.best_fit_parenthesize(gid, unparenthesized))
        else:
            unparenthesized()

    def best_fit_parenthesize(self, gid, content) -> None:
        self.out.append((_T_BEST_FIT_PAREN, gid))
        content()
        self.out.append(_END_BEST_FIT_PAREN)

    def needs_parentheses(self, e):
        src = self.src
        if isinstance(e, (ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Starred, ast.Slice)):
            return _MULTILINE
        if isinstance(e, (ast.Name, ast.Constant)):
            return _BEST_FIT
        if isinstance(e, (ast.List, ast.Tuple)):
            return _NEVER_PARENS
        if isinstance(e, ast.UnaryOp):
            return _NEVER_PARENS if src.is_paren(e.operand) else self.needs_parentheses(e.operand)
        if _is_fluent(src, e):  # call, attribute or subscript
            return _MULTILINE
        inner = e.func if isinstance(e, ast.Call) else e.value
        return _NEVER_PARENS if src.is_paren(inner) else self.needs_parentheses(inner)

    def can_omit_optional_parentheses(self, e) -> bool:
        """ruff's ``can_omit_optional_parentheses`` (a port of its visitor)."""
        src = self.src
        state = {
            "max": _P_NONE,
            "count": 0,
            "any_paren": False,
            "last": None,
            "first": None,
        }

        def update(precedence, count=1):
            if state["max"] < precedence:
                state["max"], state["count"] = precedence, count
            elif state["max"] == precedence:
                state["count"] += count

        def visit_expr(x):
            state["last"] = x
            if src.is_paren(x):
                state["any_paren"] = True
            else:
                visit_sub(x)
            if state["first"] is None:
                state["first"] = x

        def visit_sub(x):
            if isinstance(x, ast.List) or (isinstance(x, ast.Tuple) and src.tuple_parenthesized(x)):
                state["any_paren"] = True
                return
            if isinstance(x, ast.BoolOp):
                update(_P_BOOL, len(x.values) - 1)
            elif isinstance(x, ast.BinOp):
                update(_BIN_OPS[type(x.op)][1])
            elif isinstance(x, ast.IfExp):
                update(_P_CONDITIONAL, 2)
            elif isinstance(x, ast.Compare):
                update(_P_COMPARATOR, len(x.ops))
            elif isinstance(x, (ast.Call, ast.Subscript)):
                state["any_paren"] = True
                visit_expr(x.func if isinstance(x, ast.Call) else x.value)
                state["last"] = x
                return
            elif isinstance(x, ast.Attribute):
                visit_expr(x.value)
                if _has_parentheses(src, x.value) is not None:
                    update(_P_ATTRIBUTE)
                state["last"] = x
                return
            elif isinstance(x, (ast.UnaryOp, ast.Starred)):
                if isinstance(x, ast.UnaryOp) and isinstance(x.op, ast.Invert):
                    update(_P_INVERT)
                if state["first"] is None:
                    state["first"] = "token"
            elif isinstance(x, (ast.Constant, ast.Name, ast.Slice)):
                return
            for child in _children(x):
                visit_expr(child)

        visit_sub(e)
        if not state["any_paren"] or state["count"] > 1:
            return False
        if state["max"] in (_P_NONE, _P_ATTRIBUTE):
            return True

        def is_parenthesized(x):
            return (
                x is not None
                and x != "token"
                and not isinstance(x, ast.Subscript)
                and _has_parentheses(src, x) == "non-empty"
            )

        return is_parenthesized(state["last"]) or is_parenthesized(state["first"])

    # -- expression formatting (expr_*.rs) --

    def fields(self, e) -> None:
        src = self.src
        out = self.out
        kind = type(e)
        if kind is ast.Name:
            out.append(src.text(e))
        elif kind is ast.Constant:
            out.append(_literal(src, e))
        elif kind is ast.Attribute or kind is ast.Call or kind is ast.Subscript:
            self.chain(e, _DEFAULT)
        elif kind is ast.BinOp or kind is ast.Compare or kind is ast.BoolOp:
            parts = _flatten_binary(src, e)
            self.in_parens_group(lambda: self.binary_slice(parts))
        elif kind is ast.UnaryOp:
            op = _UNARY_OPS[type(e.op)]
            out.append(op)
            if op == "not":
                out.append(" ")
            is_pow = isinstance(e.operand, ast.BinOp) and isinstance(e.operand.op, ast.Pow)
            self.expr(e.operand, _ALWAYS if is_pow else _PRESERVE)
        elif kind is ast.Slice:
            self.slice(e)
        elif kind is ast.Tuple:
            self.tuple(e, "default")
        elif kind is ast.List:
            if not e.elts:
                out.append("[]")
            else:
                entries = [(x, lambda x=x: self.expr(x)) for x in e.elts]
                self.parenthesized("[", lambda: self.join_comma_separated(entries, src.end(e)), "]")
        elif kind is ast.IfExp:
            self.in_parens_group(lambda: self.if_exp(e))
        elif kind is ast.Starred:
            out.append("*")
            self.expr(e.value)
        else:
            raise ValueError(f"unsupported expression: {kind.__name__}")

    def chain(self, e, layout) -> None:
        """Attribute, call and subscript (expr_attribute.rs, expr_call.rs,
        expr_subscript.rs), including the "fluent" layout of call chains::

            x = (
                np.frombuffer(data, dtype=dtype)
                .reshape((3, 4))
                .astype(np.float32)
            )
        """
        src = self.src
        kind = type(e)
        if layout == _DEFAULT:  # ``CallChainLayout::apply_in_node``
            parenthesized = self.level[0] == _PAREN or (
                self.level[0] == _EXPR and self.level[1] is not None
            )
            here = _FLUENT if parenthesized and _is_fluent(src, e) else _NON_FLUENT
        else:
            here = layout
        value = e.func if kind is ast.Call else e.value

        def inner():
            value_paren = src.is_paren(value)
            if kind is ast.Attribute:
                value_paren = value_paren or _is_base_ten_number(src, value)
            if value_paren:
                self.expr(value, _ALWAYS)
            elif type(value) in _CHAIN and (here == _FLUENT or kind is not ast.Attribute):
                self.chain(value, here)
            else:
                self.expr(value, _NEVER)
            if kind is ast.Call:
                self.arguments(e)
            elif kind is ast.Subscript:
                if type(e.slice) is ast.Tuple:
                    self.parenthesized("[", lambda: self.tuple(e.slice, "preserve"), "]")
                else:
                    self.parenthesized("[", lambda: self.expr(e.slice), "]")
            else:
                if here == _FLUENT and (value_paren or type(value) in _CALL_LIKE):
                    self.out.append(_SOFT)  # the ``.`` may start a line
                self.token(".", e.attr)

        if layout == _DEFAULT and here == _FLUENT:
            self.group(inner)  # the root of the chain
        else:
            inner()

    def if_exp(self, e) -> None:
        self.expr(e.body)
        self.in_parens_line(True)
        self.token("if", " ")
        self.expr(e.test)
        self.in_parens_line(True)
        self.token("else", " ")
        if isinstance(e.orelse, ast.IfExp) and not self.src.is_paren(e.orelse):
            self.if_exp(e.orelse)
        else:
            self.in_parens_group(lambda: self.expr(e.orelse))

    def binary_slice(self, parts) -> None:
        """Split before the loosest-binding operators of the chain (binary_like.rs)."""
        if len(parts) == 1:
            return self.operand(parts[0])
        lowest = max(parts[k][1] for k in range(1, len(parts), 2))
        last = None
        for k in range(1, len(parts), 2):
            text, precedence, is_pow = parts[k]
            if precedence != lowest:
                continue
            left = parts[0 if last is None else last + 1 : k]
            hug = is_pow and _hug_power(self.src, left[-1], parts[k + 1])
            if len(left) == 1:
                self.operand(left[0])
            else:
                self.in_parens_group(lambda left=left: self.binary_slice(left))
            self.in_parens_line(not hug)
            self.out.append(text)
            if hug:
                self.in_parens_if_breaks_space()
            else:
                self.out.append(" ")
            last = k
        right = parts[last + 1 :]
        if len(right) == 1:
            self.operand(right[0])
        else:
            self.in_parens_group(lambda: self.binary_slice(right))

    def arguments(self, call) -> None:
        src = self.src
        args = _call_arguments(call)
        if not args:
            self.out.append("()")
            return
        end = src.end(call)
        if len(call.args) == 1 and not call.keywords:
            arg = call.args[0]
            parens = _ALWAYS if src.single_arg_parenthesized(arg, end) else _NEVER
            entries = [(arg, lambda: self.expr(arg, parens))]
        else:
            entries = [(a, lambda a=a: self.argument(a)) for a in args]
        self.parenthesized(
            "(",
            lambda: self.group(lambda: self.join_comma_separated(entries, end)),
            ")",
        )

    def argument(self, a) -> None:
        if isinstance(a, ast.keyword):
            self.out.append("**" if a.arg is None else a.arg + "=")
            self.expr(a.value)
        else:
            self.expr(a)

    def slice(self, e) -> None:
        out = self.out
        simple = all(p is None or _simple_slice_part(p) for p in (e.lower, e.upper, e.step))
        if e.lower:
            self.expr(e.lower)
            if not simple:
                out.append(" ")
        out.append(":")
        if e.upper:
            if not simple:
                out.append(" ")
            self.expr(e.upper)
        if self.src.has_second_colon(e):
            if not simple and (e.upper or not e.step):
                out.append(" ")
            out.append(":")
            if e.step:
                if not simple:
                    out.append(" ")
                self.expr(e.step)

    def tuple(self, e, option) -> None:
        """``option``: "default", "preserve" (subscripts) or "optional" (return)."""
        src, elts = self.src, e.elts
        if not elts:
            self.out.append("()")
            return
        paren = src.tuple_parenthesized(e)
        if len(elts) == 1:
            single = elts[0]
            if option == "preserve" and not paren:
                self.expr(single)
                if src.has_trailing_comma(src.end(single), src.end(e)):
                    self.out.append(",")
            else:
                self.parenthesized("(", lambda: (self.expr(single), self.token(",")), ")")
            return
        entries = [(x, lambda x=x: self.expr(x)) for x in elts]

        def sequence():
            return self.join_comma_separated(entries, src.end(e))

        if paren:
            self.parenthesized("(", sequence, ")")
        elif option == "preserve":
            self.group(sequence)
        elif option == "optional" and len(elts) == 2:
            self.optional_parentheses(sequence)
        else:
            self.parenthesize_if_expands(sequence)

    # -- statements --

    def statement(self, s) -> list:
        kind = type(s)
        if kind is ast.Assign:
            target = s.targets[0]
            own = isinstance(target, ast.Tuple) or _has_own_parentheses(self.src, target)
            if own and not self.src.is_paren(target):
                self.right_to_left(target, s.value)
            else:
                self.expr(target)
                self.token(" ", "=", " ")
                self.left_to_right(s.value)
        elif kind is ast.AugAssign:  # ``t += value``: laid out like an assignment
            self.expr(s.target)
            self.token(" ", _BIN_OPS[type(s.op)][0] + "=", " ")
            self.left_to_right(s.value)
        elif kind is ast.Return:
            self.token("return")
            if isinstance(s.value, ast.Tuple):
                self.token(" ")
                self.tuple(s.value, "optional")
            elif s.value is not None:
                self.token(" ")
                self.left_to_right(s.value)
        elif kind is ast.Expr:
            value = s.value
            arithmetic = (
                ast.BitOr,
                ast.BitXor,
                ast.LShift,
                ast.RShift,
                ast.Add,
                ast.Sub,
            )
            if isinstance(value, ast.BinOp) and isinstance(value.op, arithmetic):
                self.maybe_parenthesize(value, _OPTIONAL)
            else:
                self.expr(value)
        else:
            self.function_header(s)
        _propagate_expand(self.out, [], {})
        return self.out

    def left_to_right(self, value) -> None:
        """``FormatStatementsLastExpression::LeftToRight`` (stmt_assign.rs)."""
        if _inline_comments_kind(value):
            gid = self.new_id()
            self.best_fit_parenthesize(gid, lambda: self.expr(value, _NEVER))
        else:
            self.maybe_parenthesize(value, _IF_BREAKS)

    def right_to_left(self, target, value) -> None:
        """``FormatStatementsLastExpression::RightToLeft``: prefer parenthesizing or
        splitting the value over splitting the target."""
        call_like = isinstance(value, (ast.Call, ast.Subscript, ast.Attribute))
        use_best_fit = call_like and self.needs_parentheses(value) == _BEST_FIT
        if not _inline_comments_kind(value) and not use_best_fit:
            self.before_operator(target)
            self.token(" ", "=", " ")
            self.maybe_parenthesize(value, _IF_BREAKS)
            return
        last_target = (_T_INTERNED, self.capture(lambda: self.before_operator(target)))
        if _will_break(last_target[1]):
            self.out += (last_target, " ", "=", " ")
            self.expr(value, _NEVER)
            return
        value_ir = (_T_INTERNED, self.capture(lambda: self.expr(value, _NEVER)))
        single_line = [last_target, " ", "=", " ", value_ir]
        parenthesized_value = self.capture(
            lambda: (
                self.token(last_target, " ", "=", " ", "("),
                self.group(
                    lambda: self.soft_block_indent(lambda: self.token(value_ir)),
                    None,
                    True,
                ),
                self.token(")"),
            )
        )
        split_target = self.capture(
            lambda: (
                self.group(lambda: self.token(last_target), None, True),
                self.token(" ", "=", " ", value_ir),
            )
        )
        variants = [single_line, parenthesized_value, split_target]
        if call_like:
            expanded_value = self.capture(
                lambda: (
                    self.token(last_target, " ", "=", " "),
                    self.group(lambda: self.token(value_ir), None, True),
                )
            )
            variants.insert(1, expanded_value)
        variants = [[_START_ENTRY, *v, _END_ENTRY] for v in variants]
        self.out.append((_T_BEST_FITTING, variants, _FIRST_LINE))

    def before_operator(self, target) -> None:
        src = self.src
        own = isinstance(target, ast.Tuple) or _has_own_parentheses(src, target)
        if own or _attribute_with_parenthesized_value(src, target):
            self.expr(target, _NEVER)
        elif self.can_omit_optional_parentheses(target):
            self.optional_parentheses(lambda: self.expr(target, _NEVER))
        else:
            self.parenthesize_if_expands(lambda: self.expr(target, _NEVER))

    def function_header(self, s) -> None:
        """``def name(params):`` (stmt_function_def.rs, parameters.rs)."""
        entries = _parameter_entries(s.args)
        self.token("def", " ", s.name)

        def inner():
            for k, entry in enumerate(entries):
                if k:
                    self.out += (",", _SOFT_SPACE)
                text, _, default = entry
                self.out.append(text if default is None else text + "=")
                if default is not None:
                    self.expr(default)
            self.cond_content(_EXPANDED, None, lambda: self.token(","))
            if self.src.parameters_magic_comma:
                self.out.append(_HARD)

        def parameters():
            if not entries:
                self.out.append("()")
            elif len(entries) == 1 and entries[0][0] not in ("/", "*"):
                self.token("(")
                self.soft_block_indent(inner)
                self.token(")")
            else:
                self.token("(")
                self.soft_block_indent(lambda: self.group(inner))
                self.token(")")

        self.group(lambda: self.with_level((_PAREN, None), parameters))
        self.token(":")


def _children(x) -> list:
    if isinstance(x, ast.BinOp):
        return [x.left, x.right]
    if isinstance(x, ast.Compare):
        return [x.left, *x.comparators]
    if isinstance(x, ast.BoolOp):
        return x.values
    if isinstance(x, ast.UnaryOp):
        return [x.operand]
    if isinstance(x, ast.IfExp):
        return [x.body, x.test, x.orelse]
    if isinstance(x, ast.Starred):
        return [x.value]
    if isinstance(x, ast.Tuple):
        return x.elts
    return []


def _inline_comments_kind(value) -> bool:
    """ruff's ``should_inline_comments``: names and single-line literals."""
    if isinstance(value, ast.Name):
        return True
    return isinstance(value, ast.Constant) and value.value is not Ellipsis


def _attribute_with_parenthesized_value(src: _Source, target) -> bool:
    if isinstance(target, ast.Attribute):
        return _has_parentheses(src, target.value) is not None or (
            _attribute_with_parenthesized_value(src, target.value)
        )
    if isinstance(target, ast.Subscript):
        return True
    return isinstance(target, ast.Call) and bool(target.args or target.keywords)


def _will_break(elements) -> bool:
    for el in elements:
        if el in (_HARD, _EXPAND_PARENT):
            return True
        if type(el) is tuple:
            if el[0] == _T_GROUP and el[1].mode != _GROUP_FLAT:
                return True
            if el[0] == _T_INTERNED and _will_break(el[1]):
                return True
            if el[0] == _T_BEST_FITTING and _will_break(el[1][0]):
                return True
    return False


def _propagate_expand(elements, enclosing, checked) -> bool:
    """Mark groups containing forced line breaks as expanded
    (``Document::propagate_expand``)."""
    expands = False
    for el in elements:
        kind = type(el)
        if kind is str:
            continue
        if kind is int:
            if el in (_END_GROUP, _END_COND_GROUP):
                element_expands = enclosing.pop()[1].mode != _GROUP_FLAT
            elif el in (_END_BEST_FIT_PAREN, _END_FITS_EXPANDED):
                expands = enclosing.pop()[-1]
                continue
            else:
                element_expands = el in (_HARD, _EXPAND_PARENT)
        else:
            code = el[0]
            if code in (_T_GROUP, _T_COND_GROUP):
                enclosing.append(("group", el[1]))
                continue
            if code == _T_BEST_FIT_PAREN:
                enclosing.append(("best_fit_paren", expands))
                expands = False
                continue
            if code == _T_FITS_EXPANDED:
                enclosing.append(("fits_expanded", el[1], expands))
                continue
            if code == _T_BEST_FITTING:
                enclosing.append(("best_fitting",))
                for variant in el[1]:
                    _propagate_expand(variant, enclosing, checked)
                enclosing.pop()
                continue
            if code != _T_INTERNED:
                continue
            key = id(el[1])
            if key not in checked:
                checked[key] = _propagate_expand(el[1], enclosing, checked)
            element_expands = checked[key]
        if element_expands:
            expands = True
            if enclosing:
                top = enclosing[-1]
                if top[0] == "group":
                    if top[1].mode == _GROUP_FLAT:
                        top[1].mode = _GROUP_PROPAGATED
                elif top[0] == "fits_expanded":
                    top[1].propagate = True
    return expands


# ---------------------------------------------------------------------------
# Printer: a port of ruff_formatter's printer (printer/mod.rs) for the IR above.


class _Queue:
    """A stack of (sequence, position) frames, like ruff's ``PrintQueue``."""

    __slots__ = ("frames",)

    def __init__(self, frames):
        self.frames = frames

    def pop(self):
        frames = self.frames
        while frames:
            frame = frames[-1]
            seq, i = frame
            if i < len(seq):
                frame[1] = i + 1
                return seq[i]
            frames.pop()
        return None

    def push(self, seq, start=0) -> None:
        self.frames.append([seq, start])

    def copy(self) -> _Queue:
        return _Queue([[seq, i] for seq, i in self.frames])

    def skip_conditional_content(self) -> None:
        depth = 1
        while True:
            el = self.pop()
            if type(el) is tuple and el[0] == _T_COND_CONTENT:
                depth += 1
            elif el == _END_COND_CONTENT:
                depth -= 1
                if depth == 0:
                    return


# Call-stack frames are ``(kind, (indent level, print mode, measure mode))``; only
# indentation frames need to be told apart (for ``_END_BEST_FIT_PAREN``).
_K_INDENT, _K_OTHER = 0, 1


class _Printer:
    """Prints the IR, choosing flat or expanded mode per group by measuring whether
    the content fits up to the next line break, exactly like ruff's printer."""

    def __init__(self, indent: str):
        self.base = indent
        self.base_width = _width(indent)
        self.buf = []
        self.line_has_text = False
        self.line_width = 0
        self.pending_indent = 0  # indent level still to print, or None
        self.measured_group_fits = False
        self.group_modes = {}

    def print(self, document) -> str:
        stack = [(_K_OTHER, (0, _EXPANDED, _FIRST_LINE))]
        queue = _Queue([[document, 0]])
        while True:
            el = queue.pop()
            if el is None:
                return "".join(self.buf)
            self.element(stack, queue, el)

    def text(self, text: str) -> None:
        if self.pending_indent is not None:
            self.buf.append(self.base + _INDENT * self.pending_indent)
            self.line_width += self.base_width + 4 * self.pending_indent
            self.pending_indent = None
        self.buf.append(text)
        self.line_width += _width(text)
        self.line_has_text = True

    def element(self, stack, queue, el) -> None:
        args = stack[-1][1]
        kind = type(el)
        if kind is str:
            self.text(el)
        elif kind is int:
            if el <= _HARD:  # a line break
                if args[1] == _FLAT and el != _HARD:
                    if el == _SOFT_SPACE:
                        self.text(" ")
                else:
                    if self.line_has_text:
                        self.buf.append("\n")
                        self.line_width = 0
                        self.line_has_text = False
                        self.measured_group_fits = False
                    self.pending_indent = args[0]
            elif el == _START_INDENT:
                stack.append((_K_INDENT, (args[0] + 1, args[1], args[2])))
            elif el == _START_ENTRY:
                stack.append((_K_OTHER, args))
            elif el == _END_BEST_FIT_PAREN:
                if args[1] == _EXPANDED:
                    stack.pop()  # the indent added for the parentheses
                    queue.push([_HARD, ")"])
                stack.pop()
            elif el != _EXPAND_PARENT:
                stack.pop()
        else:
            code = el[0]
            if code == _T_GROUP:
                group = el[1]
                if group.mode != _GROUP_FLAT:
                    mode = _EXPANDED
                else:
                    mode = self.flat_group_mode(group.id, args, queue, stack)
                if group.id is not None:
                    self.group_modes[group.id] = mode
                stack.append((_K_OTHER, (args[0], mode, args[2])))
            elif code == _T_COND_CONTENT:
                mode = args[1] if el[2] is None else self.group_modes[el[2]]
                if mode == el[1]:
                    stack.append((_K_OTHER, args))
                else:
                    queue.skip_conditional_content()
            elif code == _T_COND_GROUP:
                group = el[1]
                cond_mode, cond_id = group.cond
                if self.group_modes[cond_id] == cond_mode:
                    if group.mode != _GROUP_FLAT:
                        mode = _EXPANDED
                    else:
                        mode = self.flat_group_mode(None, args, queue, stack)
                    stack.append((_K_OTHER, (args[0], mode, args[2])))
                else:
                    stack.append((_K_OTHER, args))
            elif code == _T_INDENT_IF_BREAKS:
                extra = 1 if self.group_modes[el[1]] == _EXPANDED else 0
                stack.append((_K_OTHER, (args[0] + extra, args[1], args[2])))
            elif code == _T_FITS_EXPANDED:
                cond = el[1].cond
                if cond is None or cond[0] == self.group_modes.get(cond[1], args[1]):
                    # Inner groups were measured expanded; measure them again for real.
                    self.measured_group_fits = False
                stack.append((_K_OTHER, args))
            elif code == _T_BEST_FIT_PAREN:
                self.best_fit_paren(el[1], args, queue, stack)
            elif code == _T_BEST_FITTING:
                self.best_fitting(el[1], el[2], args, queue, stack)
            else:  # interned
                queue.push(el[1])

    def flat_group_mode(self, gid, args, queue, stack) -> int:
        if args[1] == _FLAT and self.measured_group_fits:
            return _FLAT
        self.measured_group_fits = True
        if gid is not None:
            self.group_modes[gid] = _FLAT
        stack.append((_K_OTHER, (args[0], _FLAT, args[2])))
        fits = self.fits(queue, stack)
        stack.pop()
        return _FLAT if fits else _EXPANDED

    def best_fit_paren(self, gid, args, queue, stack) -> None:
        """Parenthesize the content only if that makes it fit
        (``StartBestFitParenthesize``)."""
        opening = ["(", _START_INDENT, _HARD]
        if self.flat_group_mode(gid, args, queue, stack) == _FLAT:
            mode = _FLAT
        else:
            self.group_modes[gid] = _EXPANDED
            stack.append((_K_OTHER, (args[0], args[1], _ALL_LINES)))
            queue.push(opening)
            fits_expanded = self.fits(queue, stack)
            queue.frames.pop()
            stack.pop()
            mode = _EXPANDED if fits_expanded else _FLAT
        self.group_modes[gid] = mode
        if mode == _EXPANDED:
            queue.push(opening)
        stack.append((_K_OTHER, (args[0], mode, args[2])))

    def best_fitting(self, variants, measure, args, queue, stack) -> None:
        if args[1] == _FLAT and self.measured_group_fits:
            queue.push(variants[0])
            return self.entry(queue, stack, args)
        self.measured_group_fits = True
        for variant in variants[:-1]:
            queue.push(variant, 1)  # measure without the entry start tag
            stack.append((_K_OTHER, (args[0], _FLAT, measure)))
            fits = self.fits(queue, stack)
            stack.pop()
            queue.frames.pop()
            if fits:
                queue.push(variant)
                return self.entry(queue, stack, (args[0], _FLAT, args[2]))
        queue.push(variants[-1])
        self.entry(queue, stack, (args[0], _EXPANDED, args[2]))

    def entry(self, queue, stack, args) -> None:
        queue.pop()  # the entry start tag
        stack.append((_K_OTHER, args))
        depth = 1
        while True:
            el = queue.pop()
            if el == _START_ENTRY:
                depth += 1
            elif el == _END_ENTRY:
                depth -= 1
                if depth == 0:
                    stack.pop()
                    return
            self.element(stack, queue, el)

    def fits(self, print_queue, print_stack) -> bool:
        """Whether the queued content fits up to the next line break
        (``FitsMeasurer``); it works on copies of the queue and call stack."""
        queue = print_queue.copy()
        frames = queue.frames
        stack = list(print_stack)
        pending = self.pending_indent
        width = self.line_width
        group_modes = self.group_modes
        while True:
            while frames:  # inlined ``queue.pop()``: this loop is the hot spot
                frame = frames[-1]
                seq, i = frame
                if i < len(seq):
                    frame[1] = i + 1
                    el = seq[i]
                    break
                frames.pop()
            else:
                return True
            args = stack[-1][1]
            kind = type(el)
            if kind is str:
                if pending is not None:
                    width += self.base_width + 4 * pending
                    pending = None
                width += len(el) if el.isascii() else _width(el)
                if width > LINE_WIDTH and args[2] != _ALL_LINES_OVERFLOW:
                    return False
            elif kind is int:
                if el <= _HARD:
                    if args[1] == _FLAT:
                        if el == _SOFT_SPACE:
                            if pending is not None:
                                width += self.base_width + 4 * pending
                                pending = None
                            width += 1
                            if width > LINE_WIDTH and args[2] != _ALL_LINES_OVERFLOW:
                                return False
                        elif el == _HARD:
                            return True
                    elif args[2] == _FIRST_LINE:
                        return True
                    else:
                        width = 0
                        pending = args[0]
                elif el == _START_INDENT:
                    stack.append((_K_INDENT, (args[0] + 1, args[1], args[2])))
                elif el == _START_ENTRY:
                    stack.append((_K_OTHER, args))
                elif el == _END_BEST_FIT_PAREN:
                    if args[1] == _EXPANDED and stack[-1][0] == _K_INDENT:
                        stack.pop()
                        unindented = stack.pop()[1]
                        width = self.base_width + 4 * unindented[0] + 1
                        pending = None
                        if width > LINE_WIDTH and unindented[2] != _ALL_LINES_OVERFLOW:
                            return False
                    else:
                        stack.pop()
                elif el != _EXPAND_PARENT:
                    stack.pop()
            else:
                code = el[0]
                if code == _T_GROUP:
                    group = el[1]
                    mode = args[1] if group.mode == _GROUP_FLAT else _EXPANDED
                    stack.append((_K_OTHER, (args[0], mode, args[2])))
                    if group.id is not None:
                        group_modes[group.id] = mode
                elif code == _T_COND_CONTENT:
                    mode = args[1] if el[2] is None else group_modes.get(el[2], args[1])
                    if mode == el[1]:
                        stack.append((_K_OTHER, args))
                    else:
                        queue.skip_conditional_content()
                elif code == _T_COND_GROUP:
                    group = el[1]
                    cond_mode, cond_id = group.cond
                    if group_modes.get(cond_id, args[1]) == cond_mode:
                        mode = args[1] if group.mode == _GROUP_FLAT else _EXPANDED
                        stack.append((_K_OTHER, (args[0], mode, args[2])))
                    else:
                        stack.append((_K_OTHER, args))
                elif code == _T_INDENT_IF_BREAKS:
                    extra = 1 if group_modes.get(el[1], args[1]) == _EXPANDED else 0
                    stack.append((_K_OTHER, (args[0] + extra, args[1], args[2])))
                elif code == _T_FITS_EXPANDED:
                    tag = el[1]
                    if args[1] == _EXPANDED:
                        stack.append((_K_OTHER, args))
                    else:
                        cond = tag.cond
                        if cond is None or cond[0] == group_modes.get(cond[1], args[1]):
                            stack.append((_K_OTHER, (args[0], _EXPANDED, _ALL_LINES_OVERFLOW)))
                        elif tag.propagate:
                            return False
                        else:
                            stack.append((_K_OTHER, args))
                elif code == _T_BEST_FIT_PAREN:
                    if el[1] is not None:
                        group_modes[el[1]] = args[1]
                    stack.append((_K_OTHER, args))
                elif code == _T_BEST_FITTING:
                    if args[1] == _FLAT:
                        variant, args = el[1][0], (args[0], args[1], el[2])
                    else:
                        variant = el[1][-1]
                    stack.append((_K_OTHER, args))
                    queue.push(variant, 1)
                else:  # interned
                    queue.push(el[1])


# ---------------------------------------------------------------------------


def _parse(source: str):
    text = source.strip()
    is_def = text.startswith("def ")
    try:
        module = ast.parse(text + "\n    pass" if is_def else text)
    except SyntaxError as error:
        raise ValueError(f"not a valid statement: {error.msg}") from None
    if len(module.body) != 1:
        raise ValueError("expected exactly one statement")
    if "#" in text and any(
        token.type == tokenize.COMMENT
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
    ):
        raise ValueError("comments are not supported")  # the AST would drop them
    stmt = module.body[0]
    src = _Source(text)
    kind = type(stmt)
    if kind is ast.Assign:
        if len(stmt.targets) != 1 or stmt.type_comment:
            raise ValueError("only single-target assignments are supported")
    elif kind is ast.FunctionDef:
        if not is_def or stmt.decorator_list or stmt.returns or stmt.type_comment:
            raise ValueError("only plain 'def name(args):' headers are supported")
        if getattr(stmt, "type_params", None):
            raise ValueError("type parameters are not supported")
        # A comma right before the ``)`` that closes the parameters is "magic".
        close = text.rstrip().rfind(")")
        src.parameters_magic_comma = src.b[src.prev_token(close)] == 44
    elif kind is ast.AugAssign:
        if not isinstance(stmt.target, ast.Name):
            raise ValueError("only augmented assignments to a name are supported")
    elif kind is not ast.Return and kind is not ast.Expr:
        raise ValueError(f"unsupported statement: {type(stmt).__name__}")
    return src, stmt


def format_statement(source: str, indent: str = "    ") -> str:
    """Return ``source`` (one simple statement or a ``def`` header) formatted as
    ``ruff format`` would at the indentation ``indent``.

    Every output line starts with ``indent``; there is no trailing newline.
    Raises ``ValueError`` for input outside the supported subset.
    """
    text = _format_once(source, indent)
    if "\n" in text:
        # Splitting adds things ruff reacts to on its next run: trailing commas
        # (which then keep their brackets expanded) and parentheses (``-(a**b)``,
        # ``(1).real``).  Rarely that changes the layout; return ruff's fixed point so
        # the generated file passes ``ruff format --check``.
        for _ in range(3):
            again = _format_once(text, indent)
            if again == text:
                break
            text = again
    return text


def _format_once(source: str, indent: str) -> str:
    src, stmt = _parse(source)
    flat = _Flat(src)
    line = flat.statement(stmt)  # also rejects unsupported expressions
    if not flat.forced_break and _width(indent) + _width(line) <= LINE_WIDTH:
        return indent + line
    return _Printer(indent).print(_Builder(src).statement(stmt))
