"""Graphs, operations and tensors: the TF1 data model.

A :class:`Graph` is an append-only list of :class:`Operation` s. Each operation
has input tensors, attributes and output :class:`Tensor` s with static shapes
and dtypes. Creation order is a topological order, which every later stage
relies on for determinism.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from . import dtypes as _dtypes
from .errors import DTypeError, GraphMismatchError, InvalidArgumentError, NotFoundError
from .shapes import Shape, TensorShape, as_shape, format_shape

# TF1's rules for names: a name at the top of the graph starts with a letter, a digit or a dot;
# inside a scope it may also start with "_", "-" or ">"; ":" is never in one (it introduces the
# output index of "name:0").
_VALID_ROOT_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
_VALID_SCOPED_NAME = re.compile(r"^[A-Za-z0-9_.\-/>]*$")


# The only op types that may give a tf.string tensor: string values are computed by the Session
# in Python (constants, feeds, and the host-side string ops of symgrad.string_ops, which are
# placeholders the session fills); no op of the compiled module takes or gives one.
STRING_OP_TYPES = frozenset({"Const", "Placeholder"})


def _refuse_strings(
    op_type: str,
    name: str | None,
    inputs: Sequence[Tensor],
    outputs: Sequence[tuple[Shape, _dtypes.DType]],
) -> None:
    """A DTypeError if an op that the compiled module would compute takes or gives strings."""
    for tensor in inputs:
        if tensor.dtype == _dtypes.string:
            raise DTypeError(
                f"symgrad: {op_type} '{name or op_type}': input '{tensor.name}' is a string "
                f"tensor; strings are host-side values (file names, file contents, text lines) "
                f"that only tf.read_file, the tf.image.decode_* functions, the readers and "
                f"tf.decode_csv take: they cannot enter arithmetic, shape ops or gradients"
            )
    for _, dtype in outputs:
        if dtype == _dtypes.string:
            raise DTypeError(
                f"symgrad: {op_type} '{name or op_type}': cannot compute a string tensor; "
                f"strings are host-side values made only by tf.constant, tf.placeholder, "
                f"tf.read_file, the readers and tf.decode_csv"
            )


class Operation:
    """A node of the graph: an op type applied to input tensors.

    ``attrs`` hold the op's static parameters (axes, the SymPy rule of an
    elementwise op, ...). ``created_by_gradients`` marks the nodes that
    :func:`symgrad.gradients` added, so that generated code can put them in its
    gradient section.
    """

    def __init__(
        self,
        graph: Graph,
        op_type: str,
        name: str,
        inputs: Sequence[Tensor],
        attrs: dict[str, Any],
        outputs: Sequence[tuple[Shape, _dtypes.DType]],
        created_by_gradients: bool,
    ) -> None:
        self.graph = graph
        self.type = op_type
        self.name = name
        self.inputs: tuple[Tensor, ...] = tuple(inputs)
        self.attrs = attrs
        self.created_by_gradients = created_by_gradients
        # True when the name came from the op type rather than from the user.
        self.auto_named = False
        # The name generated code reads its role from (symgrad.naming): the op type counted
        # among ops of that type, even where TF1 names the op after the function that made
        # it (``truediv``, ``strided_slice``), so that generated code keeps its names.
        self.code_name = name
        # For gradient ops: which derivative this op helps compute (a naming.Provenance),
        # so generated code can name it after that rather than after TF's op counters.
        self.provenance: Any = None
        # The function body (a Subgraph) the op was made in; None at the top of the graph.
        self.subgraph: Subgraph | None = None
        self.index = len(graph._operations)
        self.outputs: tuple[Tensor, ...] = tuple(
            Tensor(self, i, shape, dtype) for i, (shape, dtype) in enumerate(outputs)
        )

    def __repr__(self) -> str:
        return f"<symgrad.Operation '{self.name}' type={self.type}>"

    def run(self, feed_dict: dict | None = None, session: Any = None) -> None:
        """Run this op in the default session (TF1's ``op.run()``)."""
        (session or get_default_session()).run(self, feed_dict=feed_dict)

    def get_attr(self, name: str) -> Any:
        """An attribute of the op as TF1 names it: ``"T"`` or ``"dtype"`` is its output's
        dtype, ``"shape"`` its static shape; others are the op's own attributes.

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     sg.identity(sg.constant([1.0])).op.get_attr("T")
        symgrad.float32
        """
        if name in ("T", "dtype", "DstT", "out_type") and self.outputs:
            return self.outputs[0].dtype
        if name == "shape" and self.outputs:
            return self.outputs[0].shape
        if name in self.attrs and not name.startswith("_"):
            return self.attrs[name]
        raise InvalidArgumentError(f"symgrad: operation {self.name!r} has no attribute {name!r}")


class Tensor:
    """A symbolic value: one output of an :class:`Operation`.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, shape=[None, 3], name="x")
    ...     y = 2 * x + 1
    >>> y.shape, y.dtype
    ((None, 3), symgrad.float32)
    """

    # Make NumPy defer to our reflected operators (np.ones(3) * tensor).
    __array_priority__ = 100

    def __init__(self, op: Operation, value_index: int, shape: Shape, dtype: _dtypes.DType) -> None:
        self.op = op
        self.value_index = value_index
        # TF1's TensorShape (a tuple of ints and None); None for an unknown rank.
        self.shape: TensorShape | None = None if shape is None else TensorShape(shape)
        self.dtype = dtype

    @property
    def graph(self) -> Graph:
        return self.op.graph

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    def set_shape(self, shape: Any) -> None:
        """Give the tensor a more specific static shape (TF1's ``set_shape``): ``shape`` is
        merged with the one known, and must be compatible with it (a ``ShapeError``, which is
        a ``ValueError``, otherwise). Ops made afterwards see the new shape; a placeholder's
        compiled input check asks for it.

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     x = sg.placeholder(sg.float32, name="x")
        ...     x.set_shape([None, 3])
        ...     (x * 2.0).shape
        (None, 3)
        """
        wanted = as_shape(shape)
        if wanted is None:
            return
        self.shape = TensorShape(wanted) if self.shape is None else self.shape.merge_with(wanted)

    def consumers(self) -> list[Operation]:
        """The ops that take this tensor as an input, in the order they were made."""
        return [op for op in self.graph.get_operations() if any(t is self for t in op.inputs)]

    def get_shape(self) -> TensorShape | None:
        """The static shape, a :class:`symgrad.TensorShape` (``None`` for an unknown rank).

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     x = sg.placeholder(sg.float32, [None, 784])
        >>> x.get_shape().as_list(), x.get_shape()[1].value, x.shape.ndims
        ([None, 784], 784, 2)
        """
        return self.shape

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> Any:
        """Evaluate in the default session (TF1's ``tensor.eval()``)."""
        return (session or get_default_session()).run(self, feed_dict=feed_dict)

    if TYPE_CHECKING:
        # Installed at import time by symgrad.operators (which needs the ops, hence not here).
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __rand__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __ror__(self, other: Any) -> Tensor: ...
        def __xor__(self, other: Any) -> Tensor: ...
        def __rxor__(self, other: Any) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        # Installed by symgrad.ops.slicing (__getitem__) and symgrad.ops.base (__index__).
        def __getitem__(self, key: Any) -> Tensor: ...
        def __index__(self) -> int: ...

    def __repr__(self) -> str:
        return (
            f"<symgrad.Tensor '{self.name}' shape={format_shape(self.shape)} "
            f"dtype={self.dtype.name}>"
        )

    # Tensors are graph nodes: hash and compare by identity, like TF1.
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise DTypeError(
            f"symgrad: Tensor '{self.name}' has no truth value while the graph is being built; "
            "use symgrad.where or compare values after compile()"
        )

    def __iter__(self) -> Iterator[Tensor]:
        raise DTypeError(f"symgrad: Tensor '{self.name}' is not iterable")

    # Operators are attached by symgrad.math_ops (one place for the op table).


class Subgraph:
    """The body of a function inside the graph: a branch of ``cond``, a loop's condition or
    body. Its ``parameters`` stand for the values the function is called with, its
    ``results`` are what it returns, and its ``ops`` were made while it was being built
    (:meth:`Graph.building`). It reads tensors of the enclosing bodies and of the top of
    the graph freely: those are its ``captures`` (in the order first read), which the op
    that runs it takes as inputs.
    """

    def __init__(self, description: str, parameters: Sequence[Tensor] = ()) -> None:
        self.description = description
        self.parameters: list[Tensor] = list(parameters)
        self.results: list[Tensor] = []
        self.ops: list[Operation] = []

    @property
    def captures(self) -> list[Tensor]:
        """The tensors made outside the body that its ops read (or that it returns)."""
        inside = set(self.ops)
        own = set(self.parameters)
        found: dict[Tensor, None] = {}
        for op in self.ops:
            for tensor in op.inputs:
                if tensor.op not in inside and tensor not in own:
                    found.setdefault(tensor)
        for tensor in self.results:
            if tensor.op not in inside and tensor not in own:
                found.setdefault(tensor)
        return list(found)

    def __repr__(self) -> str:
        return f"<symgrad.Subgraph of {self.description}: {len(self.ops)} ops>"


class Graph:
    """A TF1 graph: the container of operations.

    >>> import symgrad as sg
    >>> g = sg.Graph()
    >>> with g.as_default():
    ...     c = sg.constant(1.0, name="one")
    >>> c.graph is g, c.name
    (True, 'one:0')
    """

    def __init__(self) -> None:
        self._operations: list[Operation] = []
        self._names_in_use: dict[str, int] = {}
        # The same names with auto-named ops counted under their op type: see Operation.code_name.
        self._code_names_in_use: dict[str, int] = {}
        # TF1's default names of ops made by a function or an operator (``{"RealDiv": "truediv"}``).
        self._default_names: dict[str, str] = {}
        self._name_stack: list[str] = []
        self._gradient_depth = 0
        self._collections: dict[str, list] = {}
        # The graph-level random seed (TF1's ``set_random_seed``); see symgrad.ops.random_ops.
        self.seed: int | None = None
        # The ops of the enclosing ``control_dependencies`` blocks, innermost last.
        self._control_stack: list[list[Operation]] = []
        # The function bodies being built (a branch of ``cond``, a loop's body), innermost
        # last: ops made meanwhile belong to the innermost (see :class:`Subgraph`).
        self._subgraph_stack: list[Subgraph] = []
        self._on_demand: dict[str, Callable[[], Operation]] = {}

    # -- building -------------------------------------------------------------
    def create_op(
        self,
        op_type: str,
        inputs: Sequence[Tensor],
        attrs: dict[str, Any],
        outputs: Sequence[tuple[Shape, _dtypes.DType]],
        name: str | None = None,
    ) -> Operation:
        name = name or None  # "" is no name, as in most TF1 functions
        if op_type not in STRING_OP_TYPES:
            _refuse_strings(op_type, name, inputs, outputs)
        for tensor in inputs:
            if tensor.graph is not self:
                raise GraphMismatchError(
                    f"symgrad: {op_type}: tensor '{tensor.name}' belongs to another graph; "
                    f"all inputs of an op must come from the same graph"
                )
            home = tensor.op.subgraph
            if home is not None and home not in self._subgraph_stack:
                raise InvalidArgumentError(
                    f"symgrad: {op_type} '{name or op_type}': tensor '{tensor.name}' was made "
                    f"inside {home.description}, so it exists only there; use that "
                    f"function's results instead"
                )
        if self._control_stack:
            pending = [c for block in self._control_stack for c in block]
            listed = list(attrs.get("control", ()))
            attrs = {**attrs, "control": listed + [c for c in pending if c not in listed]}
        default = self._default_names.get(op_type, op_type) if name is None else name
        full_name, code_name = self._unique_names(default, op_type if name is None else name)
        op = Operation(
            self,
            op_type,
            full_name,
            inputs,
            attrs,
            outputs,
            created_by_gradients=self._gradient_depth > 0,
        )
        op.auto_named = name is None
        op.code_name = code_name
        if self._subgraph_stack:
            op.subgraph = self._subgraph_stack[-1]
            op.subgraph.ops.append(op)
        self._operations.append(op)
        return op

    @contextlib.contextmanager
    def default_names(self, names: dict[str, str]) -> Iterator[None]:
        """Name the unnamed ops of the given types as TF1's function or operator does
        (``a / b`` is ``truediv``, ``tf.zeros`` is ``zeros``) while the block builds them."""
        saved = self._default_names
        self._default_names = {**saved, **names}
        try:
            yield
        finally:
            self._default_names = saved

    def unique_name(self, name: str) -> str:
        """TF's rule: ``scope/name``, then ``name_1``, ``name_2``... on reuse; a name that ends
        in ``/`` (what ``name_scope`` yields) names an op after its scope, as it is.

        A name TF1 refuses (``"a b"``, ``"w:0"``, ``"-a"`` at the top) raises
        :class:`~symgrad.errors.InvalidArgumentError`, a ``ValueError`` as in TF1.
        """
        return self._unique_names(str(name), str(name))[0]

    def _unique_names(self, name: str, code_name: str) -> tuple[str, str]:
        """The unique graph name for ``name`` and, counted apart, the code name (see
        ``Operation.code_name``) for ``code_name``, both under the current scope."""
        if len(name) > 1 and name.endswith("/"):
            full = name[:-1]
            self._names_in_use.setdefault(full.lower(), 1)
            self._code_names_in_use.setdefault(full.lower(), 1)
            return full, full
        self._check_name(name)
        return (
            self._claim(self._names_in_use, name),
            self._claim(self._code_names_in_use, code_name),
        )

    def _check_name(self, name: str) -> None:
        rule = _VALID_SCOPED_NAME if self._name_stack else _VALID_ROOT_NAME
        if not name or not rule.match(name):
            where = f"inside the scope '{self.get_name_scope()}'" if self._name_stack else ""
            raise InvalidArgumentError(
                f"symgrad: {name!r} is not a valid name for an op or a scope {where}".rstrip()
                + ": TF1 allows ASCII letters, digits and '.', '_', '-', '/', '>', and a name "
                "at the top of the graph starts with a letter, a digit or '.'"
            )

    def _claim(self, in_use: dict[str, int], name: str) -> str:
        full = "/".join(self._name_stack + [name])
        key = full.lower()
        if key in in_use:
            count = in_use[key]
            while f"{key}_{count}" in in_use:
                count += 1
            in_use[key] = count + 1
            full = f"{full}_{count}"
            key = full.lower()
        in_use[key] = 1
        return full

    @contextlib.contextmanager
    def name_scope(self, name: str) -> Iterator[str]:
        """Prefix new op names with ``name/`` (made unique); a name that ends in ``/`` is an
        absolute scope re-entered as it is (TF's rule, how a scope is re-entered)."""
        if name and name.endswith("/"):
            scope = name.rstrip("/")
        else:
            scope = self.unique_name(name) if name else ""
        saved = self._name_stack
        self._name_stack = scope.split("/") if scope else []
        try:
            yield scope + "/" if scope else ""
        finally:
            self._name_stack = saved

    def get_name_scope(self) -> str:
        """The current name scope, without a trailing ``/`` (``""`` at the top)."""
        return "/".join(self._name_stack)

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Sequence[Operation] | None) -> Iterator[None]:
        """Ops created inside run after ``control_inputs`` (``None``: clear the outer blocks).

        ``None`` is also TF1's ``init_scope``: the ops made inside belong to the top of the
        graph even inside a function body (a variable made in a loop's body is made once)."""
        saved, saved_bodies = self._control_stack, self._subgraph_stack
        self._control_stack = [] if control_inputs is None else saved + [list(control_inputs)]
        if control_inputs is None:
            self._subgraph_stack = []
        try:
            yield
        finally:
            self._control_stack, self._subgraph_stack = saved, saved_bodies

    @contextlib.contextmanager
    def building(self, subgraph: Subgraph) -> Iterator[Subgraph]:
        """Ops created inside belong to ``subgraph`` (a function body), which may read what
        the enclosing bodies and the top of the graph made; outer control dependencies do
        not reach inside (the op that runs the body carries them)."""
        saved_control = self._control_stack
        self._subgraph_stack.append(subgraph)
        self._control_stack = []
        try:
            yield subgraph
        finally:
            self._subgraph_stack.pop()
            self._control_stack = saved_control

    @property
    def current_subgraph(self) -> Subgraph | None:
        """The function body being built, if any."""
        return self._subgraph_stack[-1] if self._subgraph_stack else None

    def current_control_inputs(self) -> list[Any]:
        """The control inputs of the enclosing ``control_dependencies`` blocks, outermost first."""
        return [c for block in self._control_stack for c in block]

    @contextlib.contextmanager
    def _building_gradients(self) -> Iterator[None]:
        self._gradient_depth += 1
        try:
            yield
        finally:
            self._gradient_depth -= 1

    # -- queries --------------------------------------------------------------
    if TYPE_CHECKING:
        # Installed at import time by symgrad.graph_export (which needs every op's writer).
        def as_graph_def(self, from_version: Any = None, add_shapes: bool = False) -> Any: ...

    def get_operations(self) -> list[Operation]:
        return list(self._operations)

    def get_operation_by_name(self, name: str) -> Operation:
        for op in self._operations:
            if op.name == name:
                return op
        # An op that TF1 makes with every variable (``v/read``, ``v/Assign``) is made here on
        # first use: made for every variable, it would only add ops (and shift the op counts
        # that seed random ops).
        make = self._on_demand.get(name)
        if make is not None:
            return make()
        raise NotFoundError(f"symgrad: the graph has no operation named {name!r}")

    def make_on_demand(self, name: str, make: Callable[[], Operation]) -> None:
        """Register ``make``, which makes (once) the op named ``name`` that TF1 would have made
        already, for :meth:`get_operation_by_name` and :meth:`get_tensor_by_name`."""
        self._on_demand[name] = make

    def get_tensor_by_name(self, name: str) -> Tensor:
        op_name, _, index = name.rpartition(":")
        if not op_name or not index.isdigit():
            raise NotFoundError(f"symgrad: {name!r} is not a tensor name like 'op:0'")
        op = self.get_operation_by_name(op_name)
        if int(index) >= len(op.outputs):
            raise NotFoundError(f"symgrad: operation {op_name!r} has no output {index}")
        return op.outputs[int(index)]

    def add_to_collection(self, key: Any, value: Any) -> None:
        self._collections.setdefault(key, []).append(value)

    def get_collection(self, key: Any, scope: str | None = None) -> list:
        """A copy of collection ``key``; with ``scope``, the items whose ``name`` matches it
        from the start (TF's rule: ``scope`` is a regular expression)."""
        items = list(self._collections.get(key, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [
            item
            for item in items
            if isinstance(getattr(item, "name", None), str) and pattern.match(item.name)
        ]

    def get_collection_ref(self, key: Any) -> list:
        """Collection ``key`` itself (created empty if needed), to change in place."""
        return self._collections.setdefault(key, [])

    def get_all_collection_keys(self) -> list:
        """The string keys of the collections that exist."""
        return [key for key in self._collections if isinstance(key, str)]

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        _default_graph_stack.append(self)
        try:
            yield self
        finally:
            _default_graph_stack.pop()

    def __repr__(self) -> str:
        return f"<symgrad.Graph with {len(self._operations)} operations>"


_global_default_graph = Graph()
_default_graph_stack: list[Graph] = []
# Sessions entered with ``with`` (innermost last). The stack lives here, below the session
# layer, so that ``Tensor.eval`` and ``Operation.run`` reach it without importing upward
# (TensorFlow keeps its default-session stack in ``ops.py`` for the same reason).
_default_sessions: list[Any] = []


def get_default_session() -> Any:
    """The innermost :class:`symgrad.Session` entered with ``with`` (or ``as_default()``)."""
    if not _default_sessions:
        raise InvalidArgumentError(
            "symgrad: no default session: use `with symgrad.Session() as sess:` or pass session="
        )
    return _default_sessions[-1]


def graph_of(*values: Any) -> Graph:
    """The graph of the first tensor among ``values``, else the default graph (where an op
    over them is made)."""
    for value in values:
        if isinstance(value, Tensor):
            return value.graph
    return get_default_graph()


@contextlib.contextmanager
def default_names(values: Sequence[Any], names: dict[str, str]) -> Iterator[None]:
    """:meth:`Graph.default_names` on the graph of ``values`` (see :func:`graph_of`)."""
    with graph_of(*values).default_names(names):
        yield


def get_default_graph() -> Graph:
    """The graph new ops go into: the innermost ``as_default()``, else the global one."""
    return _default_graph_stack[-1] if _default_graph_stack else _global_default_graph


def reset_default_graph() -> None:
    """Replace the global default graph by an empty one (TF1's ``reset_default_graph``)."""
    global _global_default_graph
    if _default_graph_stack:
        raise AssertionError(
            "symgrad: reset_default_graph() called inside a Graph.as_default() block"
        )
    _global_default_graph = Graph()


@contextlib.contextmanager
def name_scope(
    name: str | None, default_name: str | None = None, values: Any = None
) -> Iterator[str]:
    """``with symgrad.name_scope('layer1'):`` prefixes the names of new ops; TF1's form
    ``name_scope(name, default_name, values)`` takes ``default_name`` when ``name`` is None
    (``values`` only pick the graph in TF1).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     with sg.name_scope(None, "Default", []) as scope:
    ...         print(scope)
    Default/
    """
    del values
    if name is None and default_name is None:
        raise InvalidArgumentError("symgrad: name_scope: give a name or a default_name")
    chosen = default_name if name is None else name
    assert chosen is not None  # checked above
    with get_default_graph().name_scope(chosen) as scope:
        yield scope


def ancestors(
    roots: Sequence[Operation],
    control: bool = False,
    stop: Collection[Tensor] = (),
    inputs_of: Callable[[Operation], Sequence[Tensor]] | None = None,
) -> list[Operation]:
    """``roots`` and every op they depend on (through control inputs too, if asked), in graph order.

    The inputs of an op whose output is in ``stop`` are not followed: a fed tensor's
    value replaces its computation (TF1's feeding), so what computes it is not run.
    ``inputs_of(op)`` gives the inputs to follow in place of ``op.inputs`` (the tracer's
    reads of variables after their assignments).
    """
    stopped = set(stop)
    seen = set()
    stack = list(roots)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if stopped and any(t in stopped for t in op.outputs):
            continue
        stack.extend(t.op for t in (op.inputs if inputs_of is None else inputs_of(op)))
        if control:
            stack.extend(op.attrs.get("control", ()))
            # What a cond assigns in the branch it runs (symgrad.control_flow.cond).
            stack.extend(op.attrs.get("assigns", ()))
    return sorted(seen, key=lambda o: o.index)


def sources_of(tensors: Sequence[Tensor], fed: Collection[Tensor] = ()) -> list[Tensor]:
    """The placeholders and variables that ``tensors`` read, in creation order.

    A tensor in ``fed`` counts as a source and hides what computes it.
    """
    return [
        op.outputs[0]
        for op in ancestors([t.op for t in tensors], stop=fed)
        if op.type in ("Placeholder", "VariableV2") or (fed and op.outputs and op.outputs[0] in fed)
    ]
