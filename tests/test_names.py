"""Tensor names are user text: whatever they are, the generated module stays safe and correct.

For arbitrary names of placeholders, variables, constants, intermediate ops,
output keys and the compiled function itself, the generated module must

* compile, and contain only what the graph asked for: the docstring, the
  imports, the template's helpers, constants, one entry function made of
  assignments and a ``return`` (nothing a name could smuggle in);
* shadow nothing it uses (``np``, builtins, helpers, its constants);
* keep user text out of comments and docstrings unless it is plain
  printable ASCII (no name can start a new line of code or of docstring);
* compute the same values as NumPy, with parameters in the order of ``inputs``.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import itertools
import keyword
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import symgrad as sg
from symgrad import naming
from symgrad.backends.numpy import NUMPY
from symgrad.backends.numpy.emit import SECTION_TITLES, TEMPLATE, template_directory

# --- what the template may put in a module ----------------------------------------------------

TEMPLATE_TEXT = (template_directory() / TEMPLATE).read_text()
# Each kernel as the emitter copies it into modules (symgrad/backends/numpy/kernels).
HELPER_DUMPS = {
    node.name: ast.dump(node)
    for kernel in NUMPY.kernels.kernels.values()
    for node in ast.parse(kernel.source).body
    if isinstance(node, ast.FunctionDef)
}
HELPERS = frozenset(HELPER_DUMPS)
TEMPLATE_LINES = frozenset(
    line.strip()
    for text in [TEMPLATE_TEXT] + [k.source for k in NUMPY.kernels.kernels.values()]
    for line in text.splitlines()
)
BUILTINS = frozenset(dir(builtins))
KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
MODULE_NAMES = frozenset({"np", "numpy", "base64"})
DANGEROUS = frozenset(
    {
        "__import__",
        "eval",
        "exec",
        "open",
        "os",
        "sys",
        "subprocess",
        "compile",
        "globals",
        "locals",
        "getattr",
        "setattr",
        "breakpoint",
        "input",
        "__builtins__",
    }
)
ENTRY_DOCSTRING = re.search(
    r"^\{\{ signature \}\}\n    \"\"\"(.*)\"\"\"$", TEMPLATE_TEXT, re.MULTILINE
).group(1)
SECTION_COMMENTS = frozenset(f"# {title}" for title in SECTION_TITLES.values())
# The template's and the kernels' own comments, word for word: no user text in them.
TEMPLATE_COMMENTS = frozenset(
    comment
    for text in [TEMPLATE_TEXT] + [k.source for k in NUMPY.kernels.kernels.values()]
    for comment in re.findall(r"(?m)(?:^ *|  )(# [^\n]*)$", text)
    if "{" not in comment
)
# The one context manager the entry function may use (around lines computing np.where).
ERRSTATE = ast.unparse(
    ast.parse(re.search(r"^ *(with .*:)$", TEMPLATE_TEXT, re.MULTILINE).group(1) + "\n    pass")
    .body[0]
    .items[0]
    .context_expr
)
DTYPES = "float16|float32|float64|int32|int64|bool"

assert {"_check", "_scatter", "_sum_to_shape"} <= HELPERS  # the template is what we think it is


def is_safe_text(text: str) -> bool:
    """Printable ASCII that cannot end a docstring or start an escape: may appear verbatim."""
    return all(32 <= ord(ch) < 127 for ch in text) and "\\" not in text and '"""' not in text


# --- names --------------------------------------------------------------------------------------

SPECIAL_NAMES = sorted(
    set(
        keyword.kwlist
        + keyword.softkwlist
        + [
            "sum",
            "abs",
            "len",
            "range",
            "print",
            "object",
            "id",
            "type",
            "input",
            "list",
            "tuple",
            "any",
            "zip",
            "str",
            "ValueError",
            "np",
            "numpy",
            "base64",
            "math",
            "os",
            "sys",
            "subprocess",
            "eval",
            "exec",
            "open",
            "compile",
            "globals",
            "getattr",
            "__import__",
            "__builtins__",
            "__name__",
            "__file__",
            "__doc__",
            "__debug__",
            "__class__",
            "__init__",
            "__all__",
            "__",
            "_",
            "___",
        ]
        + sorted(HELPERS)
        + [h.lstrip("_") for h in HELPERS]
        + [
            "check",
            "array",
            "value",
            "dtype",
            "shape",
            "name",
            "compiled",
            "tensor",
            "t_1",
            "t_2x",
            "class_",
            "np_",
            "sum_",
            "tensor_1",
            "new_v",
            "d_y_d_x",
            "y",
            "x",
            "x_1",
            "Variable",
            "Placeholder",
            "gradients",
            "initial_value",
            "unnamed",
        ]
        + [
            "",
            " ",
            "\t",
            "\n",
            "\r\n",
            "\x00",
            "a\x00b",
            "\x0c",
            "\x7f",
            "\u2028",
            "\u200b",
            "\ufeff",
            "x\nimport os",
            "x\r\nimport os",
            "x\rimport os",
            "x\u2028import os",
            'x"""\nimport os\n"""',
            "'''\nimport os\n'''",
            '"""',
            "'''",
            '"',
            "'",
            "\\",
            "a\\",
            "\\n",
            "\\x00",
            "#",
            "# comment",
            "x # y",
            "x; import os",
            "__import__('os').system('true')",
            "{{ x }}",
            "{% raw %}",
            "{# c #}",
            "%s",
            "{0}",
            "${x}",
            "ŵeight",
            "weight",
            "WEIGHT",
            "ﬁle",
            "Ω",
            "ß",
            "café",
            "cafe\u0301",
            "①",
            "²",
            "٣",
            "😀",
            "🐍🐍",
            "1",
            "2x",
            "123",
            "a/b",
            "a/",
            "/",
            "//",
            "a:0",
            ":",
            "layer 1/weights:0",
            "a-b",
            "a.b",
            "a>b",
            "a b",
            "a__b",
            "_a_",
            "A",
            "a",
        ]
    )
)

LONG_NAMES = st.builds(
    lambda unit: (unit * 1000)[:1000],
    st.sampled_from(["a", "é", "1", "_", "😀", "x\n", "ab_", '"""', "\\", "# ", "class ", "Ab"]),
)

FRESH_NAMES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(SPECIAL_NAMES),
    st.text(alphabet="aA_1 /:\n\"'#\\\x00é😀", max_size=6),
    LONG_NAMES,
)

TRANSFORMS = {
    "same": lambda s: s,
    "swapcase": str.swapcase,
    "upper": str.upper,
    "symbols": lambda s: re.sub(r"[^A-Za-z0-9]", "-", s) + "!",
    "pad": lambda s: f" _{s}_ ",
    "accents": lambda s: "".join(ch + "\u0301" if ch.isalpha() else ch for ch in s),
    "suffix": lambda s: f"{s}_1",
    "keyword": lambda s: "class" if s.lower() == s else "None",
}


@st.composite
def related_names(draw: st.DrawFn, count: int, pool: list[str]) -> list[str]:
    """``count`` names, many equal to (or sanitizing like) an earlier name of ``pool``."""
    result = []
    for _ in range(count):
        if pool and draw(st.booleans()):
            base = draw(st.sampled_from(pool))
            name = TRANSFORMS[draw(st.sampled_from(sorted(TRANSFORMS)))](base)
        else:
            name = draw(FRESH_NAMES)
        result.append(name)
        pool.append(name)
    return result


@dataclass
class Case:
    placeholders: list[str]
    variable: str
    constant: str
    ops: list[str]  # tanh, add, the reduction, the final sum
    function: str | None
    keys: list[str]  # y, dv, dp0, dp1, ... (made distinct as dict keys)
    alias: str | None = None  # a second key for an output already present
    big: str | None = None  # name of a constant large enough to go through base64
    order: list[int] = field(default_factory=list)  # permutation of the inputs; [] = default
    update: str | None = None  # name (and key) of an assign_sub of the variable
    listed: bool = False  # outputs as a list: output names come from op and gradient names
    scope: str | None = None  # a name scope around the tanh and the add


@st.composite
def cases(draw: st.DrawFn) -> Case:
    pool: list[str] = []
    n = draw(st.integers(2, 4))
    placeholders = draw(related_names(n, pool))
    variable, constant = draw(related_names(2, pool))
    ops = draw(related_names(4, pool))
    maybe_name = st.one_of(st.none(), related_names(1, pool).map(lambda v: v[0]))
    function = draw(maybe_name)
    keys = draw(related_names(2 + n, pool))
    alias, big, update = draw(maybe_name), draw(maybe_name), draw(maybe_name)
    order = draw(st.one_of(st.just([]), st.permutations(list(range(n + 1)))))
    listed = draw(st.integers(0, 3)) == 0
    scope = draw(maybe_name)
    return Case(
        placeholders,
        variable,
        constant,
        ops,
        function,
        keys,
        alias,
        big,
        order,
        update,
        listed,
        scope,
    )


# --- the graph and what NumPy says it computes ------------------------------------------------

P_VALUES = [
    np.array([0.5, -1.25, 2.0]),
    np.array([0.3, -0.7, 1.1]),
    np.array([1.5, 0.25, -2.0]),
    np.array([-0.5, 3.0, 0.125]),
]
V_VALUE = np.array([0.75, -1.5, 0.5])
C_VALUE = np.array([1.0, -2.0, 3.0])
BIG_VALUE = np.linspace(-1.0, 2.0, 70)  # > ARRAY_LITERAL_LIMIT elements: stored as base64


def distinct_keys(keys: Sequence[str]) -> list[str]:
    """Equal keys cannot both be in a dict: pad the later ones with spaces (same identifier)."""
    result: list[str] = []
    for key in keys:
        while key in result:
            key += " "
        result.append(key)
    return result


@dataclass
class Built:
    compiled: sg.CompiledModule
    inputs: list  # as passed to compile (or the default order: creation order)
    arguments: list  # a value for each of ``inputs``
    expected: dict | list  # NumPy's values, in the structure of the outputs
    outputs: dict | list
    explicit_inputs: list | None


# TF1's rule for op and scope names (symgrad.graph refuses the others, as TF1 does).
_TF_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9_.\-/>]")
_TF_NAME_STAND_INS = "._->"


def graph_name(text: str) -> str:
    """``text`` made a name TF1 accepts, keeping what makes it hard for generated code: each
    character TF1 refuses becomes one of '.', '_', '-', '>' (chosen by the character, so
    lookalike texts stay lookalikes), a leading '_', '-', '/' or '>' gets a '.' in front.
    Dictionary keys and function names take any text; they are not graph names."""
    name = _TF_NAME_CHARACTERS.sub(
        lambda match: _TF_NAME_STAND_INS[ord(match.group()) % len(_TF_NAME_STAND_INS)], text
    )
    if name and not re.match(r"[A-Za-z0-9.]", name):
        name = f".{name}"
    return name


def test_graph_name_keeps_valid_names_and_refused_ones_are_refused() -> None:
    for text in ["x", "class", "np", "a.b", "a-b", "a>b", "1x", "layer1/W", ".a", ""]:
        assert graph_name(text) == text
    for text in ["a b", "w:0", "-a", "_a", "x\nimport os", "é", '"""']:
        with sg.Graph().as_default():
            with pytest.raises(sg.errors.InvalidArgumentError, match="not a valid name"):
                sg.placeholder(sg.float64, name=text)
            sg.placeholder(sg.float64, name=graph_name(text))


def build(case: Case, path: Path) -> Built:
    """Compile the case's graph; return it with its inputs and the NumPy values of its outputs.

    The graph's names are the case's, made names TF1 accepts (:func:`graph_name`)."""
    n = len(case.placeholders)
    ps = [
        sg.placeholder(sg.float64, shape=[None] if i == 1 else [3], name=graph_name(name))
        for i, name in enumerate(case.placeholders)
    ]
    v = sg.Variable(V_VALUE, dtype=sg.float64, name=graph_name(case.variable))
    c = sg.constant(C_VALUE, dtype=sg.float64, name=graph_name(case.constant))
    scope = sg.name_scope(graph_name(case.scope)) if case.scope is not None else None
    with scope if scope is not None else contextlib.nullcontext():
        u = sg.tanh(ps[1], name=graph_name(case.ops[0]))
        # used twice: a statement named after the op
        h = sg.add(ps[0] * v, u, name=graph_name(case.ops[1]))
    z = h * c + h * h
    if n > 2:
        z = z + ps[2] * u
    if n > 3:
        z = z + sg.square(ps[3])
    y = sg.reduce_sum(z, name=graph_name(case.ops[2]))
    if case.big is not None:
        big = sg.constant(BIG_VALUE, dtype=sg.float64, name=graph_name(case.big))
        # its gradient uses _scatter
        y = sg.add(y, sg.reduce_sum(big * ps[0][0]), name=graph_name(case.ops[3]))
    grads = sg.gradients(y, ps + [v])
    tensors = [y, grads[-1]] + grads[:-1] + ([y] if case.alias is not None else [])
    if case.update is not None:
        tensors.append(sg.assign_sub(v, 0.125 * grads[-1], name=graph_name(case.update)))

    p = P_VALUES[:n]
    hv = p[0] * V_VALUE + np.tanh(p[1])
    uv = np.tanh(p[1])
    dz_dh = C_VALUE + 2 * hv
    y_value = (
        np.sum(hv * C_VALUE + hv * hv)
        + (np.sum(p[2] * uv) if n > 2 else 0.0)
        + (np.sum(p[3] ** 2) if n > 3 else 0.0)
        + (np.sum(BIG_VALUE) * p[0][0] if case.big is not None else 0.0)
    )
    dv = dz_dh * p[0]
    grad_p = [
        dz_dh * V_VALUE + (np.array([np.sum(BIG_VALUE), 0, 0]) if case.big is not None else 0.0),
        (1 - uv**2) * (dz_dh + (p[2] if n > 2 else 0.0)),
        uv,
        2 * p[3] if n > 3 else None,
    ][:n]
    values = (
        [y_value, dv]
        + grad_p
        + ([y_value] if case.alias is not None else [])
        + ([V_VALUE - 0.125 * dv] if case.update is not None else [])
    )

    outputs: dict | list
    if case.listed:
        outputs, expected = tensors, values
    else:
        keys = distinct_keys(case.keys + [k for k in (case.alias, case.update) if k is not None])
        assert len(keys) == len(tensors), (
            "a case needs a key for y, dv and each placeholder's gradient"
        )
        outputs, expected = (
            dict(zip(keys, tensors, strict=False)),
            dict(zip(keys, values, strict=False)),
        )
    inputs = ps + [v]
    if case.order:
        inputs = [inputs[i] for i in case.order]
    explicit = inputs if case.order else None
    compiled = sg.compile(outputs, inputs=explicit, name=case.function, path=path)
    value_of = dict(zip(ps + [v], P_VALUES[:n] + [V_VALUE], strict=False))
    return Built(compiled, inputs, [value_of[t] for t in inputs], expected, outputs, explicit)


# --- the checks --------------------------------------------------------------------------------


def names_loaded(node: ast.AST) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def assert_safe_identifier(name: str, what: str) -> None:
    assert name.isidentifier() and name.isascii(), f"{what} {name!r} is not an ASCII identifier"
    assert name not in KEYWORDS, f"{what} {name!r} is a keyword"
    assert name not in BUILTINS, f"{what} {name!r} shadows a builtin"
    assert name not in MODULE_NAMES, f"{what} {name!r} shadows a module"
    assert name not in HELPERS, f"{what} {name!r} shadows a helper"


def _arrays_written_in_place(node: ast.stmt) -> set:
    """Names a fast-form statement overwrites: ``t += b``, ``np.f(..., out=t)``; else a clear failure."""
    if isinstance(node, ast.Delete):  # a name read for the last time
        assert all(isinstance(t, ast.Name) for t in node.targets), ast.unparse(node)
        return {t.id for t in node.targets}
    if isinstance(node, ast.AugAssign):
        assert isinstance(node.target, ast.Name), ast.unparse(node)
        assert names_loaded(node.value) - {"np"}, ast.unparse(node)
        return {node.target.id}
    if isinstance(node, ast.Expr):
        call = node.value
        assert isinstance(call, ast.Call) and ast.unparse(call.func).startswith("np."), (
            f"unexpected statement {ast.unparse(node)!r}"
        )
    else:
        assert isinstance(node, ast.Assign), f"unexpected statement {ast.unparse(node)!r}"
        call = node.value
    outs = [k.value for k in getattr(call, "keywords", []) if k.arg == "out"]
    for out in outs:
        assert isinstance(out, ast.Name), ast.unparse(node)
    return {out.id for out in outs}


def check_structure(tree: ast.Module, function_name: str) -> ast.FunctionDef:
    """(a) and (b): only the statements the template and the graph ask for; nothing shadowed."""
    body = list(tree.body)
    assert (
        isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ), "the module starts with its docstring"
    imports, constants, helpers, entries = [], [], [], []
    for node in body[1:]:
        if isinstance(node, ast.Import):
            imports.append([(a.name, a.asname) for a in node.names])
        elif isinstance(node, ast.Assign):
            assert len(node.targets) == 1 and isinstance(node.targets[0], ast.Name), ast.dump(node)
            assert names_loaded(node.value) <= {"np", "base64"}, ast.unparse(node)
            constants.append(node.targets[0].id)
        elif isinstance(node, ast.FunctionDef) and node.name in HELPERS:
            assert ast.dump(node) == HELPER_DUMPS[node.name], (
                f"helper {node.name} is not the template's"
            )
            helpers.append(node.name)
        elif isinstance(node, ast.FunctionDef):
            entries.append(node)
        else:
            raise AssertionError(f"unexpected top-level statement: {ast.unparse(node)!r}")
    assert all(i in ([("numpy", "np")], [("base64", None)]) for i in imports), imports
    assert [("numpy", "np")] in imports
    assert len(entries) == 1 and entries[0] is body[-1], "exactly one entry function, last"
    entry = entries[0]
    assert entry.name == function_name
    assert not entry.decorator_list and entry.returns is None
    assert len(helpers) == len(set(helpers)), "a helper is defined twice"
    for name in constants:
        assert_safe_identifier(name, "module constant")
    top_level = constants + helpers + [entry.name]
    assert len(top_level) == len(set(top_level)), f"module-level names collide: {top_level}"
    assert_safe_identifier(entry.name, "function name")

    # (b) the parameters
    args = entry.args
    assert not (args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg or args.defaults)
    params = [a.arg for a in args.args]
    assert len(params) == len(set(params)), f"duplicate parameters {params}"
    for name in params:
        assert_safe_identifier(name, "parameter")
        assert name not in constants, f"parameter {name!r} shadows a module constant"

    # the entry function: docstring, one _check per parameter, assignments, return
    statements = list(entry.body)
    assert isinstance(statements[0], ast.Expr) and statements[0].value.value == ENTRY_DOCSTRING
    checks = statements[1 : 1 + len(params)]
    for param, node in zip(params, checks, strict=False):
        assert isinstance(node, ast.Assign) and [t.id for t in node.targets] == [param]
        call = node.value
        assert (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "_check"
        )
        assert isinstance(call.args[0], ast.Constant) and call.args[0].value == param
        assert isinstance(call.args[1], ast.Name) and call.args[1].id == param
        assert names_loaded(call) == {"_check", "np", param}
    if params:
        assert "_check" in helpers
    defined = set(params)
    visible = defined | set(constants) | set(helpers) | {"np"}
    for node in statements[1 + len(params) : -1]:
        if isinstance(node, ast.With):
            assert len(node.items) == 1 and node.items[0].optional_vars is None
            context = node.items[0].context_expr
            assert ast.unparse(context) == ERRSTATE, ast.unparse(context)
            assert len(node.body) == 1
            node = node.body[0]
        written = _arrays_written_in_place(node)
        assert written <= defined - set(params), (
            f"{ast.unparse(node)!r} writes into an input, a constant or an unknown array"
        )
        if not isinstance(node, ast.Assign):
            continue  # ``t += b`` or ``np.tanh(t, out=t)`` on a local array
        assert len(node.targets) == 1 and isinstance(node.targets[0], ast.Name), ast.unparse(node)
        target = node.targets[0].id
        assert names_loaded(node.value) <= visible, f"{ast.unparse(node)!r} reads an unknown name"
        assert_safe_identifier(target, "local")
        assert target not in visible, f"{target!r} is assigned twice or shadows a global"
        defined.add(target)
        visible.add(target)
    final = statements[-1]
    assert isinstance(final, ast.Return) and final.value is not None
    assert names_loaded(final) <= visible

    # Nothing anywhere reaches for the interpreter, the OS or the file system. Builtins such
    # as eval are never named at all; a user's tensor may be called ``os`` (a parameter or a
    # local of the module's own), but no name refers to a module that was not imported.
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert not used & DANGEROUS & BUILTINS, used & DANGEROUS & BUILTINS
    own = set(params) | defined | set(constants)
    assert used & DANGEROUS <= own, (used & DANGEROUS) - own
    generated = [n for n in body if not (isinstance(n, ast.FunctionDef) and n.name in HELPERS)]
    attributes = {
        n.attr for node in generated for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }
    assert not {a for a in attributes if a.startswith("_")}, attributes
    return entry


def check_text(
    source: str,
    tree: ast.Module,
    compiled: sg.CompiledModule,
    raw_name: str | None,
    user_names: Sequence[str],
) -> None:
    """(c): comments and docstrings are the template's, with user text only as safe ASCII."""
    assert source.isascii(), "generated source is not ASCII"
    comments = [
        t.string
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type == tokenize.COMMENT
    ]
    for comment in comments:
        assert (
            comment in SECTION_COMMENTS
            or comment in TEMPLATE_COMMENTS
            or re.fullmatch(r"# Statements: \d+, BLAS calls: \d+", comment)
            # provenance: built from sanitized identifiers only
            or re.fullmatch(r"# (for )?d \w+ / d \w+(, through \w+)?", comment)
        ), comment

    docstring = ast.get_docstring(tree, clean=False)
    assert docstring is not None
    lines = docstring.split("\n")
    program = compiled.program
    expected_graph = naming.comment_text(raw_name or program.name)
    assert all(32 <= ord(ch) < 127 for ch in expected_graph) and '"""' not in expected_graph
    head = [re.escape(line) for line in ("", f"Graph: {expected_graph}", "Inputs:")]
    inputs = [
        rf"    {re.escape(i.name)} +({DTYPES}) (\([0-9None, ]*\)|any shape) +{i.kind}"
        for i in program.inputs
    ] or [r"    \(none\)"]
    outputs = [
        rf"    {re.escape(o.name)} +({DTYPES}) (\([0-9None, ]*\)|any shape)"
        for o in program.outputs
    ]
    patterns = (
        [r"Generated by symgrad \S+ from template module\.py\.jinja\. Do not edit\."]
        + head
        + inputs
        + ["Outputs:"]
        + outputs
        + [""]
    )
    assert len(lines) == len(patterns), (
        f"docstring has {len(lines)} lines, expected {len(patterns)}:\n{docstring}"
    )
    for line, pattern in zip(lines, patterns, strict=False):
        assert re.fullmatch(pattern, line), f"docstring line {line!r} !~ {pattern!r}"

    # User text shows up verbatim only when it is harmless; a newline in a name never
    # starts a line of code or of the docstring.
    graph_text = expected_graph
    if raw_name is not None and graph_text and graph_text == raw_name[:80]:
        assert is_safe_text(raw_name[:80])
    source_lines = {line.strip() for line in source.splitlines()} - TEMPLATE_LINES
    for name in user_names:
        if not is_safe_text(
            name
        ):  # the lines are checked above; user text is only in the Graph line
            assert name not in expected_graph and all(name not in c for c in comments), name
        for piece in re.split(r"[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]", name)[1:]:
            if piece.strip() and not piece.strip().isidentifier():
                assert piece.strip() not in source_lines, f"{name!r} split into a line of code"
    assert "import os" not in source_lines


def entries(structure: dict | list) -> list:
    return list(structure.items()) if isinstance(structure, dict) else list(enumerate(structure))


def check_values(built: Built, entry: ast.FunctionDef) -> None:
    """(d) and (e): it runs, gives NumPy's values, and takes the inputs in order."""
    compiled, program, args = built.compiled, built.compiled.program, built.arguments
    assert compiled.input_names == [a.arg for a in entry.args.args]
    assert [i.tensor_name for i in program.inputs] == [t.name for t in built.inputs]
    expected = entries(built.expected)
    for result in (
        compiled(*args),
        compiled(**dict(zip(compiled.input_names, args, strict=False))),
    ):
        assert type(result) is type(built.expected)
        assert [key for key, _ in entries(result)] == [key for key, _ in expected]
        for (key, value), (_, wanted) in zip(entries(result), expected, strict=False):
            np.testing.assert_allclose(value, wanted, rtol=1e-12, atol=1e-12, err_msg=repr(key))
    # the variable may be left out: it takes its initial value
    without_variable = {
        name: value
        for name, value, t in zip(compiled.input_names, args, built.inputs, strict=False)
        if t.op.type != "VariableV2"
    }
    np.testing.assert_allclose(
        entries(compiled(**without_variable))[0][1], expected[0][1], rtol=1e-12
    )
    # the module's own function, called directly, agrees
    direct = getattr(compiled.module, program.name)(*args)
    direct = direct if len(program.outputs) > 1 else (direct,)
    assert len(direct) == len(program.outputs)
    np.testing.assert_allclose(direct[0], expected[0][1], rtol=1e-12)


_counter = itertools.count()


def build_case(case: Case, root: Path) -> Built:
    with sg.Graph().as_default():
        return build(case, root / f"case_{next(_counter)}")


def check_case(case: Case, root: Path, built: Built | None = None) -> sg.CompiledModule:
    built = built or build_case(case, root)
    compiled = built.compiled
    source = compiled.path.read_text()
    assert source == compiled.source
    tree = ast.parse(source)
    entry = check_structure(tree, compiled.program.name)
    user_names = (
        case.placeholders
        + [case.variable, case.constant]
        + case.ops
        + case.keys
        + [
            n
            for n in (case.function, case.alias, case.big, case.update, case.scope)
            if n is not None
        ]
    )
    user_names += [graph_name(n) for n in user_names]  # what the graph holds
    check_text(source, tree, compiled, case.function, user_names)
    check_values(built, entry)
    return compiled


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("names")


INJECTION = Case(
    placeholders=["x\nimport os", 'x"""\nimport os\n"""', "__import__", "np"],
    variable="sum",
    constant="_check",
    ops=["#", "\\", "_sum_to_shape", "_scatter"],
    function='f"""\nimport os\n#',
    keys=["base64", "__builtins__", "abs", "exec", "open", "x"],
    alias="numpy",
    big="\x00",
    order=[4, 3, 2, 1, 0],
    update="new_sum\n#",
    scope="os/\nimport sys",
)
LOOKALIKES = Case(
    placeholders=["ŵeight", "weight", "WEIGHT"],
    variable="Weight",
    constant="WEIGHT!",
    ops=["weight_1", "weight ", "weight\u0301", "t_1"],
    function="weight",
    keys=["weight", "Weight", "weight_2", "weight\n", "WEIGHT "],
    alias="weight_1",
)
EMPTY = Case(
    placeholders=["", ""],
    variable="",
    constant="",
    ops=["", "", "", ""],
    function="",
    keys=["", " ", "  ", "   "],
    alias=None,
    big="",
    update="",
)
EMPTY_LISTED = Case(
    placeholders=["", "", ""],
    variable="",
    constant="",
    ops=["", "", "", ""],
    function="",
    keys=[],
    alias="",
    big="",
    update="",
    listed=True,
    scope="",
)
LONG = Case(
    placeholders=["a" * 1000, "a" * 999 + "b", "1" * 1000],
    variable="😀" * 1000,
    constant="\n" * 1000,
    ops=["é" * 1000, "_" * 1000, "class " * 200, "\\" * 1000],
    function="x" * 1000,
    keys=["a" * 1000, "a" * 1000 + " ", "A" * 1000, "b" * 1000, "\x00" * 1000],
    big='"' * 1000,
    order=[3, 0, 2, 1],
    update="b" * 1000,
    listed=True,
)
KEYWORDS_CASE = Case(
    placeholders=["class", "match", "_", "type"],
    variable="None",
    constant="case",
    ops=["lambda", "async", "await", "yield"],
    function="def",
    keys=["return", "True", "False", "import", "from", "global"],
    update="print",
    listed=True,
)


@settings(
    max_examples=500,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
@given(case=cases())
@example(case=INJECTION)
@example(case=LOOKALIKES)
@example(case=EMPTY)
@example(case=EMPTY_LISTED)
@example(case=LONG)
@example(case=KEYWORDS_CASE)
def test_any_names_give_a_safe_correct_module(case: Case, root: Path) -> None:
    built = build_case(case, root)
    check_case(case, root, built)


def test_function_named_like_a_constant(root: Path) -> None:
    case = Case(
        placeholders=["x", "p"],
        variable="v",
        constant="scale",
        ops=["u", "h", "y", "total"],
        function="scale",
        keys=["y", "dv", "dx", "dp"],
    )
    with sg.Graph().as_default():
        built = build(case, root / "function_named_like_a_constant")
    # module-level `scale = np.array(...)` is rebound by `def scale(...)`, whose body reads `scale`
    check_values(built, ast.parse(built.compiled.source).body[-1])


def test_function_named_like_a_constant_structure(root: Path) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[2], name="x")
        c = sg.constant([1.0, 2.0], dtype=sg.float64, name="compiled")  # the default function name
        compiled = sg.compile(sg.reduce_sum(x * c), path=root / "default_name")
    check_structure(ast.parse(compiled.source), compiled.program.name)


def test_injection_names_never_become_code(root: Path) -> None:
    compiled = check_case(INJECTION, root)
    source_lines = [line.strip() for line in compiled.source.splitlines()]
    assert not any(line.startswith(("import os", "from os", "os.", '#"')) for line in source_lines)
    # triple quotes only open and close the docstrings: the module's, each function's
    functions = sum(isinstance(n, ast.FunctionDef) for n in ast.parse(compiled.source).body)
    assert compiled.source.count('"""') == 2 * (1 + functions)


# --- sanitize -------------------------------------------------------------------------------------

FORBIDDEN = KEYWORDS | BUILTINS | MODULE_NAMES | HELPERS


def assert_sanitized(name: str) -> None:
    assert (
        name.isidentifier() and name.isascii() and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name)
    ), name
    assert name not in FORBIDDEN and not name.startswith("_"), name
    assert len(name) <= naming.MAX_LENGTH, name


@pytest.mark.parametrize("word", sorted(KEYWORDS))
def test_sanitize_keywords(word: str) -> None:
    name = naming.sanitize(word)
    assert_sanitized(name)
    if word != "_":
        assert name == f"{word}_"
    else:
        assert name == "tensor"


@pytest.mark.parametrize(
    "word",
    [
        "sum",
        "abs",
        "print",
        "len",
        "range",
        "object",
        "type",
        "id",
        "input",
        "ValueError",
        "np",
        "numpy",
        "base64",
        "math",
    ],
)
def test_sanitize_builtins_and_module_names(word: str) -> None:
    assert naming.sanitize(word) == f"{word}_"


@pytest.mark.parametrize(
    "word, expected",
    [
        ("__import__", "import_"),
        ("__builtins__", "builtins"),
        ("__name__", "name"),
        ("_check", "check"),
        ("_sum_to_shape", "sum_to_shape"),
        ("_scatter", "scatter"),
        ("__debug__", "debug"),
        ("__", "tensor"),
    ],
)
def test_sanitize_dunders_and_helpers(word: str, expected: str) -> None:
    assert naming.sanitize(word) == expected
    assert_sanitized(naming.sanitize(word))


def test_sanitize_every_builtin() -> None:
    for word in sorted(BUILTINS):
        assert_sanitized(naming.sanitize(word))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2x", "t_2x"),
        ("123", "t_123"),
        ("0", "t_0"),
        ("1a/b", "t_1a_b"),
        ("①", "t_1"),
        ("²x", "t_2x"),
        (" 9 lives", "t_9_lives"),
    ],
)
def test_sanitize_leading_digits(text: str, expected: str) -> None:
    assert naming.sanitize(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "_",
        "___",
        "!!!",
        "/:/",
        "\n\t\r",
        "\x00",
        "😀🐍",
        "Ω",
        "٣",
        '"""',
        "\\",
        "#",
        "-",
        "\u200b",
    ],
)
def test_sanitize_empty_and_symbols_give_the_default(text: str) -> None:
    assert naming.sanitize(text) == "tensor"
    assert naming.sanitize(text, default="compiled") == "compiled"
    assert naming.function_name(text or None) == "compiled"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ŵeight", "weight"),
        ("café", "cafe"),
        ("cafe\u0301", "cafe"),
        ("ﬁle", "file"),
        ("Ωmega", "mega"),
        ("naïve bayes", "naive_bayes"),
        ("layer 1/weights:0", "layer_1_weights_0"),
        ("ＡＢＣ", "ABC"),
        ("straße", "strae"),
        ("a😀b", "ab"),
        ("a 😀 b", "a_b"),
    ],
)
def test_sanitize_unicode_letters(text: str, expected: str) -> None:
    assert naming.sanitize(text) == expected


def test_sanitize_max_length() -> None:
    assert naming.sanitize("a" * 1000) == "a" * naming.MAX_LENGTH
    assert naming.sanitize("a" * (naming.MAX_LENGTH - 1) + "__b") == "a" * (naming.MAX_LENGTH - 1)
    assert naming.sanitize("é" * 1000) == "e" * naming.MAX_LENGTH
    assert naming.sanitize("😀" * 999 + "x") == "x"
    # the prefix for a leading digit comes after the cut: at most two characters more
    assert naming.sanitize("1" * 1000) == ("t_" + "1" * naming.MAX_LENGTH)[: naming.MAX_LENGTH]
    for text in ["a" * 1000, "1" * 1000, "_".join(["class"] * 300), "a b " * 300]:
        assert_sanitized(naming.sanitize(text))


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(text=st.one_of(st.text(), st.sampled_from(SPECIAL_NAMES), LONG_NAMES))
def test_sanitize_always_gives_a_safe_identifier(text: str) -> None:
    name = naming.sanitize(text)
    assert_sanitized(name)
    # idempotent, but for a long name with a leading digit, which the ``t_`` prefix makes longer
    assert naming.sanitize(name) == name or (
        name.startswith("t_") and len(name) >= naming.MAX_LENGTH
    )


# --- determinism ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [INJECTION, LOOKALIKES, EMPTY, EMPTY_LISTED, LONG, KEYWORDS_CASE],
    ids=["injection", "lookalikes", "empty", "empty-listed", "long", "keywords"],
)
def test_same_graph_same_names_same_bytes(case: Case, root: Path) -> None:
    sources = []
    for _ in range(2):  # two graphs built alike
        with sg.Graph().as_default():
            built = build(case, root / f"determinism_{next(_counter)}")
        sources.append(built.compiled.path.read_bytes())
    assert sources[0] == sources[1]
    with sg.Graph().as_default():  # and one graph compiled twice
        built = build(case, root / f"determinism_{next(_counter)}")
        again = sg.compile(
            built.outputs,
            inputs=built.explicit_inputs,
            name=case.function,
            path=root / f"determinism_{next(_counter)}",
        )
    assert built.compiled.source.encode() == again.path.read_bytes() == sources[0]
