"""Graph plumbing of TF1: ``control_dependencies``, ``device``, ``no_op``, ``tuple``,
``placeholder_with_default``, ``Print`` and ``custom_gradient``.

Control dependencies matter to ``Session.run`` only: a fetched op runs the assignments
its control inputs reach (``with control_dependencies(update_ops): train_op = ...``).
Generated functions are pure, so ordering inside one function is the data flow alone.

``custom_gradient`` is an opaque-derivative node: its output has the forward value, and
its gradient rule is the user's function instead of the derivative of the forward ops.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..errors import InvalidArgumentError
from ..graph import Operation, Tensor, get_default_graph
from ..shapes import format_shape, shapes_compatible
from .base import _op
from .elementwise import identity
from .registry import OpDef, register
from .sources import convert_to_tensor
from .state import group


def _as_ops(items: Any, what: str) -> list[Operation]:
    listed = items if isinstance(items, (list, builtins.tuple)) else [items]
    ops = []
    for item in listed:
        op = item.op if isinstance(item, Tensor) else item
        if not isinstance(op, Operation):
            raise InvalidArgumentError(
                f"symgrad: {what}: expected ops or tensors, got {type(item).__name__}"
            )
        ops.append(op)
    return ops


@contextlib.contextmanager
def control_dependencies(control_inputs: Any) -> Iterator[None]:
    """Ops created inside run after ``control_inputs`` (ops or tensors); ``None`` clears
    the enclosing blocks. A ``Session.run`` of such an op runs the assignments those
    inputs reach, in the same run (with its snapshot semantics).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     count = sg.Variable(0, name="count")
    ...     bump = sg.assign_add(count, 1)
    ...     with sg.control_dependencies([bump]):
    ...         step = sg.no_op()
    ...     with sg.Session() as sess:
    ...         _ = sess.run(sg.global_variables_initializer())
    ...         _ = sess.run(step)
    ...         print(sess.run(count))
    1
    """
    graph = get_default_graph()
    ops = None if control_inputs is None else _as_ops(control_inputs, "control_dependencies")
    with graph.control_dependencies(ops):
        yield


@contextlib.contextmanager
def device(device_name_or_function: Any) -> Iterator[None]:
    """Accepted and ignored: generated code runs where it is called.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default(), sg.device("/cpu:0"):
    ...     sg.constant(1.0).shape
    ()
    """
    yield


def no_op(name: str | None = None) -> Operation:
    """An op that does nothing (fetching it gives ``None``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.no_op().type
    'NoOp'
    """
    return group(name=name or "NoOp")


def tuple(tensors: Sequence[Any], name: str | None = None, control_inputs: Any = None) -> list[Any]:
    """The ``tensors``, each passed through an identity that runs after all of them (and
    after ``control_inputs``); ``None`` entries stay ``None``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     a, b = sg.tuple([sg.constant(1.0), sg.constant(2.0)])
    ...     print([float(v) for v in sg.compile([a, b])()])
    [1.0, 2.0]
    """
    present = [t for t in tensors if t is not None]
    extra = [] if control_inputs is None else _as_ops(control_inputs, "tuple")
    gate = group(*present, *extra, name=name)
    with control_dependencies([gate]):
        return [None if t is None else identity(t) for t in tensors]


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """``input``'s value unless a value is fed for it; ``shape`` (may hold ``None``) is the
    shape a fed value may have. The gradient passes through, as TF's.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     rate = sg.placeholder_with_default(0.5, shape=[])
    ...     with sg.Session() as sess:
    ...         print(sess.run(rate), sess.run(rate, {rate: 0.1}))
    0.5 0.1
    """
    x = convert_to_tensor(input)
    declared = (
        None if shape is None else builtins.tuple(None if d is None else int(d) for d in shape)
    )
    if declared is not None and (x.shape is None or not shapes_compatible(x.shape, declared)):
        raise InvalidArgumentError(
            f"symgrad: PlaceholderWithDefault: the default '{x.name}' of shape "
            f"{format_shape(x.shape)} does not fit shape {format_shape(declared)}"
        )
    return _op("PlaceholderWithDefault", [x], {}, declared, x.dtype, name)


register(
    OpDef(
        "PlaceholderWithDefault",
        lower=lambda op, xs: xs[0],
        gradient=lambda op, g: [g],
    )
)


def Print(
    input_: Any,
    data: Any = None,
    message: str | None = None,
    first_n: int | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> Tensor:
    """TF1's ``Print``: the value of ``input_``. Generated functions are pure, so nothing is
    printed; fetch ``data`` to see it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.Print(sg.constant(2.0), [], "x:"))())
    2.0
    """
    return identity(input_, name=name)


def print_(*inputs: Any, **kwargs: Any) -> Operation:
    """``tf.print`` in a graph (``symgrad.print``): an op that does nothing here (generated functions are pure).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.print("loss", 1.0).type
    'NoOp'
    """
    return no_op(name=kwargs.get("name"))


# --- custom_gradient ------------------------------------------------------------------------------


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: ``f(*xs)`` returns ``(y, grad_fn)`` and ``grad_fn(dy)`` the gradients for
    ``xs`` (one tensor or a list); they replace the derivative of the ops ``f`` built.

    The output is a ``CustomGradient`` node over ``[y, *xs]``: its value is ``y``; its
    gradient sends nothing into the ops that computed ``y`` and ``grad_fn(dy)`` to the
    ``xs``, so ``grad_fn`` is the only derivative anyone sees. ``grad_fn`` builds graph ops
    as any TF1 code does, so the gradient can be differentiated again. A ``grad_fn`` that
    also takes ``variables`` (for variables ``f`` reads) is not supported.

    >>> import symgrad as sg
    >>> @sg.custom_gradient
    ... def clipped_identity(x):
    ...     return sg.identity(x), lambda dy: sg.minimum(dy, 1.0)
    >>> with sg.Graph().as_default():
    ...     x = sg.constant(3.0)
    ...     (grad,) = sg.compile(sg.gradients(clipped_identity(x) * 5.0, x))()
    >>> print(grad)
    1.0
    """

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        xs = [convert_to_tensor(a) for a in args]
        y, grad_fn = f(*xs, **kwargs)
        outputs = list(y) if isinstance(y, (list, builtins.tuple)) else [y]
        if len(outputs) != 1:
            raise InvalidArgumentError(
                f"symgrad: custom_gradient: '{f.__name__}' returns {len(outputs)} outputs; "
                f"one output tensor is supported"
            )
        value = convert_to_tensor(outputs[0])
        out = _op(
            "CustomGradient",
            [value, *xs],
            {"grad_fn": grad_fn, "function": f.__name__},
            value.shape,
            value.dtype,
            None,
        )
        return out

    return wrapped


def _custom_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    grads = op.attrs["grad_fn"](grad)
    listed = list(grads) if isinstance(grads, (list, builtins.tuple)) else [grads]
    xs = op.inputs[1:]
    if len(listed) != len(xs):
        raise InvalidArgumentError(
            f"symgrad: custom_gradient: the gradient function of '{op.attrs['function']}' "
            f"returns {len(listed)} gradients for {len(xs)} inputs"
        )
    results: list[Tensor | None] = [None]
    for x, g in zip(xs, listed, strict=True):
        results.append(None if g is None else convert_to_tensor(g, dtype=x.dtype))
    return results


register(
    OpDef(
        "CustomGradient",
        lower=lambda op, xs: xs[0],
        gradient=_custom_gradient,
        signature=lambda op, sigs: sigs[0],
    )
)

__all__ = [
    "Print",
    "control_dependencies",
    "custom_gradient",
    "device",
    "no_op",
    "placeholder_with_default",
    "print_",
    "tuple",
]
