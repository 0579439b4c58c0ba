"""A picture of a compiled graph: the user's ops, and the gradient paths through them.

:func:`graph_picture` draws the ops that the outputs of a module are computed
from — without the ops that ``gradients`` added — as Graphviz DOT text:

- the gradient path from each loss to each variable it is differentiated for,
  as thick red edges (the picture of what ``explain_gradients`` says in words);
- ``stop_gradient`` ops, where a path is cut, as pink boxes with dashed edges;
- inputs that a gradient was asked for but that no path reaches, greyed and
  dashed, marked "no gradient";
- each gradient output as a note, linked from its loss.

DOT text needs nothing. SVG goes through the ``graphviz`` package and its
``dot`` program (``pip install 'symgrad[graph]'`` plus Graphviz itself).

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     w = sg.Variable(2.0, name="w")
...     loss = sg.square(w * 3.0, name="loss")
...     picture = sg.compile([loss, sg.gradients(loss, w)[0]]).graph()
>>> print(picture.dot.splitlines()[0])
digraph symgrad {
>>> "color=red" in picture.dot
True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .errors import InvalidArgumentError, MissingDependencyError
from .files import write_atomic
from .graph import Operation, Tensor, ancestors
from .shapes import format_shape

try:  # optional: only SVG needs it
    import graphviz
except ImportError:  # pragma: no cover - depends on the environment
    graphviz = None

_CUTS = ("StopGradient", "ZeroGradient")
_SOURCES = {"Placeholder": "placeholder", "VariableV2": "variable", "Const": "constant"}
_STYLE = {
    "placeholder": 'shape=ellipse, style=filled, fillcolor="#dbeafe"',
    "variable": 'shape=box, style="rounded,filled", fillcolor="#fde68a"',
    "constant": 'shape=plaintext, fontcolor="#6b7280"',
    "op": "shape=box",
    "cut": 'shape=box, style="filled,dashed", fillcolor="#fbcfe8"',
    "unconnected": 'shape=box, style="rounded,dashed", color="#9ca3af", fontcolor="#6b7280"',
    "gradient": 'shape=note, style=filled, fillcolor="#fee2e2"',
}


class GraphPicture:
    """DOT text of a graph (``.dot``), with SVG rendering when Graphviz is installed.

    In a notebook it shows as SVG (``_repr_svg_``) if it can, else as its DOT text.
    """

    def __init__(self, dot: str) -> None:
        self.dot = dot

    def svg(self) -> str:
        """The picture as SVG text, drawn by Graphviz's ``dot``."""
        if graphviz is None:
            raise MissingDependencyError(
                "symgrad: graph picture: SVG needs the 'graphviz' package "
                "(pip install 'symgrad[graph]') and the Graphviz 'dot' program; "
                "save to a .dot file to get the DOT text without them"
            )
        try:
            return graphviz.Source(self.dot).pipe(format="svg").decode()
        except graphviz.ExecutableNotFound:
            raise MissingDependencyError(
                "symgrad: graph picture: SVG needs the Graphviz 'dot' program on PATH "
                "(e.g. apt-get install graphviz); save to a .dot file to get the DOT text "
                "without it"
            ) from None

    def save(self, path: str | Path) -> Path:
        """Write ``path``: DOT text for ``.dot``/``.gv``, SVG for ``.svg``."""
        target = Path(path)
        suffix = target.suffix.lower()
        if suffix in (".dot", ".gv"):
            write_atomic(target, self.dot)
        elif suffix == ".svg":
            write_atomic(target, self.svg())
        else:
            raise InvalidArgumentError(
                f"symgrad: graph picture: cannot write {target.name!r}; use a .dot, .gv or .svg file"
            )
        return target

    def _repr_svg_(self) -> str | None:
        try:
            return self.svg()
        except MissingDependencyError:
            return None  # the notebook falls back to the text repr

    def __repr__(self) -> str:
        return self.dot


def _quote(text: str) -> str:
    """A DOT string literal whose lines are those of ``text``: user names cannot break out of it."""
    lines = []
    for line in text.split("\n"):
        cleaned = "".join(ch if ch.isprintable() else "?" for ch in line)
        lines.append(cleaned.replace("\\", "\\\\").replace('"', '\\"'))
    return '"' + "\\n".join(lines) + '"'


def _label(op: Operation) -> str:
    tensor = op.outputs[0] if op.outputs else None
    name = op.name.rsplit("/", 1)[-1] if op.type in _SOURCES else op.name
    kind = op.type
    if tensor is None:
        return f"{name}\n{kind}"
    return f"{name}\n{kind} {tensor.dtype.name}{format_shape(tensor.shape)}"


def _gradient_path(x: Operation, losses: set[Operation], ops: set[Operation]) -> set[Operation]:
    """Ops on some path from ``x`` to a loss that no stop_gradient cuts (x and losses included)."""
    consumers: dict[Operation, list[Operation]] = {}
    for op in ops:
        for tensor in op.inputs:
            consumers.setdefault(tensor.op, []).append(op)
    forward, stack = set(), [x]
    while stack:
        op = stack.pop()
        if op in forward:
            continue
        forward.add(op)
        if op.type not in _CUTS:
            stack.extend(consumers.get(op, []))
    path, stack = set(), [op for op in losses if op in forward]
    while stack:
        op = stack.pop()
        if op in path or op not in forward or (op.type in _CUTS and op not in losses):
            continue
        path.add(op)
        stack.extend(t.op for t in op.inputs)
    return path if x in path else set()


def graph_picture(
    outputs: Sequence[Tensor], inputs: Sequence[Tensor] = (), name: str = "graph"
) -> GraphPicture:
    """The picture of the user's ops behind ``outputs`` and of their gradient paths.

    ``outputs`` may contain gradients (from :func:`symgrad.gradients`): each is
    drawn as a note linked from its loss, and the path from its variable to the
    loss is highlighted.
    """
    gradients_of = [(t, t.op.attrs["gradient_of"]) for t in outputs if "gradient_of" in t.op.attrs]
    roots = [t.op for t in outputs if "gradient_of" not in t.op.attrs]
    for _, (ys, x, _) in gradients_of:
        roots.extend(y.op for y in ys)
        roots.append(x.op)
    roots.extend(t.op for t in inputs)
    drawn = [op for op in ancestors(roots) if not op.created_by_gradients]
    drawn_set = set(drawn)
    on_path: set[Operation] = set()
    unconnected: set[Operation] = set()
    for _, (ys, x, _) in gradients_of:
        path = _gradient_path(x.op, {y.op for y in ys}, drawn_set)
        if path:
            on_path |= path
        else:
            unconnected.add(x.op)
    outputs_drawn = {t.op for t in outputs}

    lines = [
        "digraph symgrad {",
        f"  label={_quote(name)}; labelloc=t; rankdir=LR;",
        '  node [fontname="Helvetica", fontsize=10]; edge [color="#6b7280"];',
    ]
    for op in drawn:
        if op.type in _CUTS:
            kind = "cut"
        elif op in unconnected:
            kind = "unconnected"
        else:
            kind = _SOURCES.get(op.type, "op")
        label = _label(op)
        if op.type in _CUTS:
            label = f"stop_gradient (cut)\n{label}"
        if op in unconnected:
            label = f"{label}\nno gradient"
        extra = ", peripheries=2" if op in outputs_drawn else ""
        lines.append(f"  n{op.index} [label={_quote(label)}, {_STYLE[kind]}{extra}];")
    for op in drawn:
        for tensor in op.inputs:
            if tensor.op not in drawn_set:
                continue
            if tensor.op in on_path and op in on_path:
                style = " [color=red, penwidth=2]"
            elif op.type in _CUTS:
                style = ' [style=dashed, color="#db2777"]'
            else:
                style = ""
            lines.append(f"  n{tensor.op.index} -> n{op.index}{style};")
    for number, (tensor, (ys, x, _)) in enumerate(gradients_of):
        node = f"g{number}"
        label = f"{tensor.name}\nd sum({', '.join(y.name for y in ys)}) / d {x.name}"
        lines.append(f"  {node} [label={_quote(label)}, {_STYLE['gradient']}];")
        for y in ys:
            lines.append(f'  n{y.op.index} -> {node} [style=dotted, color=red, label="grad"];')
    lines.append("}")
    return GraphPicture("\n".join(lines) + "\n")
