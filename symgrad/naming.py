"""Every rule for names in generated code, in one place.

Tensor names are user text. They become Python identifiers here and nowhere
else: ASCII letters, digits and underscores only, never a keyword, never a
name the generated module itself uses (``np``, builtins, helpers), unique
within a module, and of bounded length.

Names survive edits. TF numbers the ops it names itself with graph-wide
counters (``add``, ``add_1``, ``add_2``...), so one op inserted near the start
of a model would rename every later op. Generated names therefore never use
those counters; each value is named from its *role* and from the *nearest
user-named value*, both of which only change where the graph changes:

* a tensor the user named (a placeholder, a variable, ``name="logits"``) keeps
  its name: ``logits``; so does an unnamed placeholder or variable (TF's
  ``variable_1``), which is a parameter of the generated function; a variable
  keeps its scopes too (``layer1/W`` is ``layer1_W``, its slot ``layer1/W/Adam``
  is ``layer1_W_Adam``);
* a forward value the user did not name is ``<role>_<anchor>``: the role is the
  op's kind (``tanh``, ``add``, ``matmul``, ``xent`` for a softmax cross-entropy;
  ``z`` for a layer's pre-activation ``x @ W + b`` or ``w * x + b``, as a textbook
  names it), the anchor is the user-named tensor found first in a breadth-first
  walk over the op's inputs (at most ``ANCHOR_DEPTH`` ops back), so
  ``tanh(z * w3)`` is ``tanh_w3`` and ``x @ W1 + b1`` is ``z_b1``;
* a gradient is named after the derivative it is: the cotangent of ``x`` is
  ``d_<y>_d_<x>`` (``d_loss_d_logits``, ``d_loss_d_tanh_w3``); one of several
  terms summed into it is ``d_<x>_via_<consumer>``; a value a gradient
  rule computes on the way is ``<role>_d_<x>`` (for the cotangent of ``x``);
* ``new_<variable>`` is a variable's updated value;
* a returned value the caller did not name keeps TF's name for it (``mean``),
  the one ``gradients`` puts in the names of its derivatives (``d_mean_d_W1``).

Where two values earn the same name the later one gets ``_1``, ``_2``: claims
happen in program order, so names are deterministic, and the suffixes count
only equal names, not every op of a kind. Gradient statements whose name does
not say everything get a provenance comment (:func:`provenance_comment`), e.g.
``# d loss / d logits, through xent_labels``.
"""

from __future__ import annotations

import builtins
import keyword
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .graph import Tensor

MAX_LENGTH = 48

# Names the generated module binds or reads itself.
RESERVED = frozenset(
    {"np", "numpy", "base64", "math", "sys", "_sum_to_shape", "_check", "rng", "_generators"}
    # the portable form (symgrad.backends.array_api) binds these too
    | {"xp", "device", "array_api_compat", "contextlib", "_namespace", "_quiet", "_CONSTANTS"}
    | {"_take_rows", "_give_rows", "_SPARE_ROWS"}
)
_FORBIDDEN = (
    RESERVED | frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
)

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]+")
_TF_COUNTER = re.compile(r"_[0-9]+$")

# How many ops back the search for a user-named anchor goes, and how many tensors it looks
# at: enough to step over the few unnamed ops of a layer, bounded so naming stays linear.
ANCHOR_DEPTH = 6
ANCHOR_VISITS = 64
# Roles whose op names are too long to read well as a prefix.
_SHORT_ROLES = {
    "softmax_cross_entropy_with_logits": "xent",
    "sparse_softmax_cross_entropy_with_logits": "xent",
    "sigmoid_cross_entropy_with_logits": "xent",
    "mat_mul": "matmul",
    "batch_mat_mul": "matmul",
    "batch_mat_mul_v2": "matmul",
    "real_div": "div",
    "gather_v2": "gather",
    "strided_slice": "slice",
    "expand_dims": "expand",
    "broadcast_to": "broadcast",
    "conv2_d": "conv",
    "conv2_dbackprop_input": "conv_transpose",
    "conv2_dbackprop_filter": "conv_filter_grad",
}


def sanitize(text: str, default: str = "tensor") -> str:
    """Turn any text into a safe identifier (not yet made unique).

    >>> sanitize("layer 1/weights:0"), sanitize("class"), sanitize("2x"), sanitize("np")
    ('layer_1_weights_0', 'class_', 't_2x', 'np_')
    """
    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    name = _NOT_IDENTIFIER.sub("_", ascii_text).strip("_")
    name = re.sub(r"_+", "_", name) or default
    if name[0].isdigit():
        name = f"t_{name}"
    name = name[:MAX_LENGTH].rstrip("_") or default
    if name in _FORBIDDEN or name.startswith("__"):
        name = f"{name}_"
    return name


def snake_case(op_type_name: str) -> str:
    """``SquaredDifference_1`` → ``squared_difference_1`` (for names TF made up)."""
    return _CAMEL_BOUNDARY.sub("_", op_type_name).lower()


@dataclass(frozen=True)
class Provenance:
    """Which derivative a gradient op helps compute (recorded by ``symgrad.gradients``).

    ``kind`` is ``"total"`` (the whole cotangent of ``of``), ``"part"`` (one term of it,
    flowing back through ``via``) or ``"step"`` (a value computed on the way to the
    cotangents that the gradient rule of ``of``'s op returns).
    """

    kind: str
    ys: tuple[Tensor, ...]
    of: Tensor
    via: Tensor | None = None


def preferred_names(tensor: Tensor, aliases: Mapping[Tensor, str] | None = None) -> list[str]:
    """Candidate identifiers for a tensor, most readable first (see the module docstring).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     z = sg.placeholder(sg.float64, [None], name="z")
    ...     w3 = sg.Variable(2.0, dtype=sg.float64, name="w3")
    ...     h = sg.tanh(z * w3)
    ...     loss = sg.reduce_sum(h, name="loss")
    ...     (grad,) = sg.gradients(loss, [w3])
    >>> preferred_names(h)[0], gradient_name([loss], h)
    ('tanh_w3', 'd_loss_d_tanh_w3')
    """
    op = tensor.op
    if op.type == "Parameter":  # a function body's parameter: named by whoever made it
        return [sanitize(op.attrs["name"])]
    named = op.attrs.get("value_names")  # a loop's or a cond's values, named by their roles
    if named is not None and tensor.value_index < len(named):
        return [sanitize(named[tensor.value_index])]
    if op.type == "Assign":  # the new value of a variable
        variable = op.attrs["variable"]
        return [f"new_{n}" for n in preferred_names(variable)]
    suffix = f"_{tensor.value_index}" if tensor.value_index else ""
    if op.provenance is not None:
        return [sanitize(_gradient_base(op.provenance, tensor, aliases) + suffix)]
    if op.auto_named and op.type not in ("Placeholder", "VariableV2"):
        anchor = _anchor(tensor)
        role = _role(tensor)
        return [sanitize(f"{role}_{anchor}{suffix}" if anchor else role + suffix)]
    # A user's name, or an unnamed input's TF name (``variable_1``): parameters of the
    # generated function and gradients named after them must agree.
    parts = [snake_case(p) if op.auto_named else p for p in op.code_name.split("/")]
    if op.type == "VariableV2" and len(parts) > 1:
        # A variable's scopes are part of its name (``layer1/W`` is ``layer1_W``), so that
        # every layer's ``W`` and every optimizer slot (``layer1/W/Adam``) is named alike.
        return [sanitize("_".join(parts) + suffix)]
    candidates = [sanitize(parts[-1] + suffix)]
    if len(parts) > 1:
        candidates.append(sanitize("_".join(parts) + suffix))
    return candidates


def output_names(tensor: Tensor) -> list[str]:
    """Candidates for a returned value the caller did not name: TF's name of its op, the
    name that ``gradients`` gives its derivatives too (``mean``, ``d_mean_d_W1``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.Variable([1.0, 2.0], dtype=sg.float64, name="w")
    ...     mean = sg.reduce_mean(sg.square(w))
    >>> output_names(mean), preferred_names(mean)
    (['mean'], ['mean_w'])
    """
    op = tensor.op
    if op.auto_named and op.provenance is None and op.type != "Assign":
        suffix = f"_{tensor.value_index}" if tensor.value_index else ""
        return [sanitize(_y_part([tensor]) + suffix)]
    return preferred_names(tensor)


# Products that make a layer's pre-activation when a bias is added to them.
_LAYER_PRODUCTS = frozenset(
    {"MatMul", "BatchMatMul", "Conv2D", "Conv2DBackpropInput", "DepthwiseConv2dNative"}
)


def _weighted(tensor: Tensor) -> bool:
    """A layer's weighted inputs: a matrix product or convolution, or a product with a
    variable (``weight * x`` of a scalar model)."""
    op = tensor.op
    if op.type in _LAYER_PRODUCTS:
        return True
    return op.type == "Mul" and any(t.op.type == "VariableV2" for t in op.inputs)


def _role(tensor: Tensor) -> str:
    """``add`` for TF's ``add_2``: the kind of op, without TF's counter (the op type's name
    where TF1 names the op after its function: ``div`` for ``truediv``); ``z`` for a layer's
    pre-activation (a bias added to weighted inputs), as a textbook and ``explain()`` name
    it."""
    op = tensor.op
    if op.type == "Add" and any(_weighted(t) for t in op.inputs):
        return "z"
    last = tensor.op.code_name.split("/")[-1]
    if tensor.op.auto_named:
        last = _TF_COUNTER.sub("", last)
    role = sanitize(snake_case(last), default="t")
    return _SHORT_ROLES.get(role, role)


def _user_named(tensor: Tensor) -> bool:
    return not tensor.op.auto_named and tensor.op.provenance is None


# Ops that pass their first input through, checked against the shape of the others (read for
# their shape alone): a name looks through them to the value checked.
_CHECKS = frozenset(
    {
        "EnsureShape",
        "EnsureSameDims",
        "EnsureInRange",
        "EnsureAxis",
        "EnsureBroadcastable",
        "EnsureSegmentIds",
    }
)


def _anchor(tensor: Tensor) -> str:
    """The name of the user-named tensor nearest to ``tensor`` among its inputs, or ``""``.

    Breadth first, inputs in order, a variable before other named tensors of the same
    distance (a layer's weights say which layer it is; its input does not): deterministic,
    and it depends only on the few ops just before ``tensor``, so edits elsewhere in the
    graph do not change it.
    """
    level = _named_inputs(tensor)
    seen: set = set()
    for _ in range(ANCHOR_DEPTH):
        named: list[Tensor] = []
        following: list[Tensor] = []
        for candidate in level:
            if candidate in seen or len(seen) >= ANCHOR_VISITS:
                continue
            seen.add(candidate)
            if _user_named(candidate):
                named.append(candidate)
            else:
                following.extend(_named_inputs(candidate))
        if named:
            variables = [t for t in named if t.op.type == "VariableV2"]
            return _short((variables or named)[0])
        level = following
    return ""


def _named_inputs(tensor: Tensor) -> list[Tensor]:
    """The inputs a name may come from, each check seen through to the value it checks."""
    inputs = []
    for value in tensor.op.inputs:
        while value.op.type in _CHECKS and value.op.auto_named:
            value = value.op.inputs[0]
        inputs.append(value)
    return inputs


def _gradient_base(
    provenance: Provenance, tensor: Tensor, aliases: Mapping[Tensor, str] | None
) -> str:
    cotangent = gradient_name(provenance.ys, provenance.of, aliases)
    if provenance.kind == "total":
        return cotangent
    if provenance.kind == "part" and provenance.via is not None:
        # Without the y: the statement's comment has it, and the name stays short.
        return f"d_{_short(provenance.of)}_via_{_short(provenance.via)}"
    # A gradient rule's own op names repeat its forward op's (``add_2_grad``): use the kind.
    kind = snake_case(tensor.op.type)
    return f"{'term' if kind == 'elementwise' else kind}_d_{_short(provenance.of)}"


def provenance_comment(
    tensor: Tensor, name: str, aliases: Mapping[Tensor, str] | None = None
) -> str:
    """``d loss / d logits``: the derivative a gradient statement named ``name`` computes.

    Empty where the name says it all already (``d_loss_d_logits`` for that cotangent).

    >>> import symgrad as sg
    >>> from symgrad.naming import preferred_names, provenance_comment
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [None], name="x")
    ...     h = sg.tanh(x, name="h")
    ...     loss = sg.reduce_sum(h * h + sg.sin(h), name="loss")
    ...     _ = sg.gradients(loss, [x])
    ...     terms = [op.outputs[0] for op in loss.graph.get_operations()
    ...              if op.provenance is not None and op.provenance.kind == "part"
    ...              and op.provenance.of is h]
    >>> [provenance_comment(t, preferred_names(t)[0]) for t in terms]
    ['d loss / d h, through sin_h', 'd loss / d h, through mul_h', 'd loss / d h, through mul_h']
    """
    provenance = tensor.op.provenance
    if provenance is None:
        return ""
    y_part = _y_part(provenance.ys, aliases)
    derivative = f"d {y_part} / d {_short(provenance.of)}"
    if provenance.kind == "total":
        text = "" if name == gradient_name(provenance.ys, provenance.of, aliases) else derivative
    elif provenance.kind == "part" and provenance.via is not None:
        text = f"{derivative}, through {_short(provenance.via)}"
    else:
        text = f"for {derivative}"
    return comment_text(text) if text else ""


class ModuleNames:
    """The names one generated module uses: every name any of its functions claimed, and
    those of module level (constants, nested functions), which no function may take for a
    local name. Local names may repeat across functions (a loop body's ``W`` and the
    outer function's ``W``)."""

    def __init__(self) -> None:
        self.every: set[str] = set()
        self.module_level: set[str] = set()


class Namer:
    """Hands out unique identifiers in the order asked: deterministic by construction.

    ``aliases`` are the names the caller gave tensors (``compile({"loss": mean})``): the
    derivatives of such a tensor are named after them (``d_loss_d_W``). Namers that share
    ``module`` (one per function of a generated module) never give a local name that is a
    module-level one, nor a module-level name already in use anywhere.
    """

    def __init__(self, taken: Iterable[str] = (), module: ModuleNames | None = None) -> None:
        self._taken = set(taken)
        self.aliases: dict[Tensor, str] = {}
        self.module = module if module is not None else ModuleNames()
        self.module.every |= self._taken

    def _free(self, name: str, module_level: bool) -> bool:
        if module_level:
            return name not in self.module.every
        return name not in self._taken and name not in self.module.module_level

    def claim(self, candidates: Iterable[str], module_level: bool = False) -> str:
        candidates = list(candidates)
        chosen = next((name for name in candidates if self._free(name, module_level)), None)
        if chosen is None:
            base = candidates[0]
            count = 1
            while not self._free(f"{base}_{count}", module_level):
                count += 1
            chosen = f"{base}_{count}"
        self._taken.add(chosen)
        self.module.every.add(chosen)
        if module_level:
            self.module.module_level.add(chosen)
        return chosen

    def claim_for(self, tensor: Tensor, override: str | None = None) -> str:
        if override:
            return self.claim([sanitize(override)])
        return self.claim(preferred_names(tensor, self.aliases))


def gradient_name(
    ys: Iterable[Tensor], x: Tensor, aliases: Mapping[Tensor, str] | None = None
) -> str:
    """``d_loss_d_weight``: the name of the gradient of ``ys`` w.r.t. ``x``."""
    return f"d_{_y_part(ys, aliases)}_d_{_short(x)}"


def _y_part(ys: Iterable[Tensor], aliases: Mapping[Tensor, str] | None = None) -> str:
    ys = list(ys)
    if len(ys) != 1:
        return "ys"
    if aliases and ys[0] in aliases:  # the name the caller gave it
        return aliases[ys[0]]
    named = ys[0].op.attrs.get("value_names")  # a loop's or a cond's value
    if named is not None and ys[0].value_index < len(named):
        return sanitize(named[ys[0].value_index]).strip("_") or "t"
    # The op's own name, as the outputs of ``gradients`` have always been named.
    last = ys[0].op.code_name.split("/")[-1]
    last = snake_case(last) if ys[0].op.auto_named else last
    return sanitize(last).strip("_") or "t"


def _short(tensor: Tensor) -> str:
    return preferred_names(tensor)[0].strip("_") or "t"


def function_name(text: str | None) -> str:
    return sanitize(text or "compiled", default="compiled")


def docstring_text(text: str) -> str:
    """User text (a file's path) made safe for a docstring line, whole: printable ASCII only,
    no triple quote that would close the docstring, no backslash.

    >>> docstring_text("models\\\\frozen.pb  sha256 0a1b")
    'models/frozen.pb  sha256 0a1b'
    """
    cleaned = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(text))
    return cleaned.replace('"""', "'''").replace("\\", "/").strip() or "?"


def comment_text(text: str) -> str:
    """User text made safe for a one-line comment or docstring: printable ASCII only.

    Surrounding blanks are dropped (the formatter would strip them from a docstring line).
    """
    cleaned = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(text))
    return cleaned.replace('"""', "'''").replace("\\", "/")[:80].strip() or "?"
