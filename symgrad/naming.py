"""Every rule for names in generated code, in one place.

Tensor names are user text. They become Python identifiers here and nowhere
else: ASCII letters, digits and underscores only, never a keyword, never a
name the generated module itself uses (``np``, builtins, helpers), unique
within a module, and of bounded length.
"""

from __future__ import annotations

import builtins
import keyword
import re
import unicodedata
from collections.abc import Iterable

from .graph import Tensor

MAX_LENGTH = 48

# Names the generated module binds or reads itself.
RESERVED = frozenset({"np", "numpy", "base64", "math", "_sum_to_shape", "_check"})
_FORBIDDEN = (
    RESERVED | frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
)

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]+")


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


def preferred_names(tensor: Tensor) -> list:
    """Candidate identifiers for a tensor, most readable first."""
    if tensor.op.type == "Assign":  # the new value of a variable
        variable = tensor.op.attrs["variable"]
        return [f"new_{n}" for n in preferred_names(variable)]
    parts = tensor.op.name.split("/")
    last = snake_case(parts[-1]) if tensor.op.auto_named else parts[-1]
    suffix = f"_{tensor.value_index}" if tensor.value_index else ""
    candidates = [sanitize(last + suffix)]
    if len(parts) > 1:
        scoped = [snake_case(p) if tensor.op.auto_named else p for p in parts]
        candidates.append(sanitize("_".join(scoped) + suffix))
    return candidates


class Namer:
    """Hands out unique identifiers in the order asked: deterministic by construction."""

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self._taken = set(taken)

    def claim(self, candidates: Iterable[str]) -> str:
        candidates = list(candidates)
        for name in candidates:
            if name not in self._taken:
                self._taken.add(name)
                return name
        base = candidates[0]
        count = 1
        while f"{base}_{count}" in self._taken:
            count += 1
        name = f"{base}_{count}"
        self._taken.add(name)
        return name

    def claim_for(self, tensor: Tensor, override: str | None = None) -> str:
        return self.claim([sanitize(override)] if override else preferred_names(tensor))


def gradient_name(ys: Iterable[Tensor], x: Tensor) -> str:
    """``d_loss_d_weight``: the graph name of the gradient of ``ys`` w.r.t. ``x``."""
    ys = list(ys)
    y_part = _short(ys[0]) if len(ys) == 1 else "ys"
    return f"d_{y_part}_d_{_short(x)}"


def _short(tensor: Tensor) -> str:
    return preferred_names(tensor)[0].strip("_") or "t"


def function_name(text: str | None) -> str:
    return sanitize(text or "compiled", default="compiled")


def comment_text(text: str) -> str:
    """User text made safe for a one-line comment or docstring: printable ASCII only.

    Surrounding blanks are dropped (the formatter would strip them from a docstring line).
    """
    cleaned = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(text))
    return cleaned.replace('"""', "'''").replace("\\", "/")[:80].strip() or "?"
