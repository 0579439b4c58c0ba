"""``Session``: TF1's runtime, running compiled NumPy code and holding variables' values.

Each distinct (fetches, fed placeholders) signature is compiled once into a
module that computes every fetched tensor and every assignment the run makes;
later runs with the same signature only call that function. All values of a
run are computed from the variables' values at the start of the run
(snapshot semantics); the run's assignments are stored afterwards.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from . import allocator, naming
from . import dtypes as _dtypes
from .backends import namespaces, registry
from .compiler import CompiledModule, Footprint, owned, unshared
from .compiler import compile as compile_graph
from .config import ConfigProto, RunMetadata, RunOptions
from .errors import (
    ArgumentTypeError,
    BackendError,
    DTypeError,
    FailedPreconditionError,
    InvalidArgumentError,
    SessionClosedError,
    ShapeError,
)
from .graph import (
    Graph,
    Operation,
    Tensor,
    _default_sessions,
    ancestors,
    get_default_graph,
    sources_of,
)
from .ops.random_ops import generator_for, random_ops_of
from .ops.state import SESSION_STATE_OPS, Variable

# Inputs and actions run in Python, by the session, around a run (``tf.data``'s iterators):
# a Placeholder op whose attrs hold HOST_INPUT is fed by the session when a run needs it and
# the caller does not feed it: ``attrs[HOST_INPUT](session, feeds)`` gives values for it (and
# for the other placeholders it stands for: one call per distinct object a run needs); an op
# whose attrs hold HOST_ACTION runs ``attrs[HOST_ACTION](session, feeds)`` before the run (an
# iterator's initializer). Both see the run's own feeds and keep their state in
# ``session.host_state``.
HOST_INPUT = "host_input"
HOST_ACTION = "host_action"


def _string_positions(flat: Sequence[Any]) -> tuple[int, ...]:
    return tuple(
        position
        for position, item in enumerate(flat)
        if isinstance(item, Tensor) and item.dtype == _dtypes.string
    )


def string_value(value: Any, tensor: Tensor) -> Any:
    """A value fed to string tensor ``tensor`` as symgrad keeps strings: ``bytes`` for a scalar,
    a NumPy object array of ``bytes`` otherwise (``str`` is encoded as UTF-8)."""
    array = _dtypes.string_array(value, f"the value fed to '{tensor.name}'")
    shape = tensor.shape
    if shape is not None and (
        len(shape) != array.ndim
        or any(d is not None and d != a for d, a in zip(shape, array.shape, strict=True))
    ):
        raise InvalidArgumentError(
            f"symgrad: cannot feed value of shape {array.shape} for tensor '{tensor.name}', "
            f"which has shape {tuple(shape)}"
        )
    return array[()] if array.ndim == 0 else array


def _fetch_key(fetches: Any) -> Any:
    """A hashable image of nested lists and tuples of tensors and ops, or None for anything else."""
    kind = type(fetches)
    if kind is list or kind is tuple:
        # A loop, not tuple(generator) and any(): a training loop computes this every step.
        items = []
        for item in fetches:
            key = _fetch_key(item)
            if key is None:
                return None
            items.append(key)
        return (kind, tuple(items))
    return fetches if isinstance(fetches, (Tensor, Operation)) else None


def _rebuilder(structure: Any) -> Callable[[Iterator[Any]], Any]:
    """A function that rebuilds a flattened fetch structure from its values, made once per
    structure (a training loop fetches the same structure every step)."""
    kind = structure[0]
    if kind == "leaf":
        return next
    if kind == "custom":
        fetch, combine_parts = structure[1], _rebuilder(structure[2])
        return lambda values: fetch._symgrad_combine(combine_parts(values))
    if kind == "dict":
        make_dict = structure[1]
        keyed = [(key, _rebuilder(part)) for key, part in structure[2]]
        return lambda values: make_dict([(key, part(values)) for key, part in keyed])
    make, parts = structure[1], [_rebuilder(part) for part in structure[2]]
    if make is list:
        return lambda values: [part(values) for part in parts]
    if make is tuple:
        return lambda values: tuple([part(values) for part in parts])
    return lambda values: make(*[part(values) for part in parts])  # a namedtuple


def _check_run_options(options: Any, run_metadata: Any) -> None:
    """``Session.run``'s ``options`` and ``run_metadata``: TF1's messages or None."""
    if options is not None and not isinstance(options, RunOptions):
        raise ArgumentTypeError(
            f"symgrad: Session.run: options must be a tf.RunOptions, got "
            f"{type(options).__name__} {options!r:.60}"
        )
    if run_metadata is not None and not isinstance(run_metadata, RunMetadata):
        raise ArgumentTypeError(
            f"symgrad: Session.run: run_metadata must be a tf.RunMetadata, got "
            f"{type(run_metadata).__name__} {run_metadata!r:.60}"
        )


def _flat_feeds(feed_dict: Mapping[Any, Any]) -> dict[Any, Any]:
    """``feed_dict`` with each key that is a (nested) tuple of tensors replaced by its
    tensors, each fed its part of the key's value (TF1's nested feeds)."""
    flat: dict[Any, Any] = {}

    def pair(key: Any, value: Any, whole: Any) -> None:
        if not isinstance(key, tuple):
            flat[key] = value
            return
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            got = (
                f"{type(value).__name__} of {len(value)}"
                if isinstance(value, (list, tuple))
                else f"{type(value).__name__} {value!r:.60}"
            )
            raise InvalidArgumentError(
                f"symgrad: Session.run: feed_dict key {whole!r:.120} is a structure of tensors; "
                f"its value must have the same structure: a list or tuple of {len(key)} where "
                f"the key has {type(key).__name__} {key!r:.80}, got {got}"
            )
        for part_key, part_value in zip(key, value, strict=True):
            pair(part_key, part_value, whole)

    for key, value in feed_dict.items():
        pair(key, value, key)
    return flat


def _op_of(fetch: Any) -> Operation:
    return fetch.op if isinstance(fetch, Tensor) else fetch


def _copy(value: Any) -> Any:
    """A copy of an array of any library (NumPy scalars are values already)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, np.generic) or value is None:
        return value
    return namespaces.copied(value)


def _is_0d(value: Any) -> bool:
    """Whether a fed value is a scalar (a number, or a 0-d array of any library)."""
    if value is None:
        return False
    ndim = getattr(value, "ndim", None)
    if ndim is None:
        try:
            ndim = np.ndim(value)
        except ValueError:  # a ragged nested list: the module's own check reports it
            return False
    return ndim == 0


class _Assignment(NamedTuple):
    """A variable a run assigns: the output slot of its new value, and what that value must be."""

    variable: Variable
    slot: int
    dtype: np.dtype
    shape: tuple[int, ...] | None  # None: a variable made with validate_shape=False


@dataclass
class _Plan:
    """How to run one signature: the compiled function and where its values go."""

    function: Any
    inputs: list[tuple[str, Any]]  # ("feed", placeholder) | ("variable", variable)
    fetch_slots: list[int | None]  # per flattened fetch: index into outputs, None for ops
    assignments: list[_Assignment]
    input_names: dict[str, Tensor]
    path: Path | None
    trains: tuple[Variable, ...] = ()  # variables the run changes other than by initializers
    compiled: CompiledModule | None = None
    random_ops: tuple[Operation, ...] = ()  # one stream of the function's ``rng`` each
    # The locks of the variables the run assigns, in the graph's order (so that two runs never
    # wait on each other's): held from reading their values to storing the new ones.
    locks: tuple[threading.Lock, ...] = ()
    # Positions of fetches of a tensor fetched earlier in the same run.
    repeated_fetches: tuple[int, ...] = ()


class Session:
    """Runs parts of a graph and holds the values of its variables.

    ``codegen_dir`` (or the environment variable ``SYMGRAD_CODEGEN_DIR``) names a
    folder where every generated module is written under a readable name;
    ``generated_files`` lists them.

    A session may be shared by threads: a ``run`` that assigns variables (a training step,
    an ``assign_add``) holds their locks from reading their values to storing the new ones,
    so concurrent runs that update one variable apply every update, one after the other
    (TF1's ``use_locking=True``, whatever the argument says); runs that only read, or that
    update other variables, run side by side. Each signature is compiled once, and
    ``close()`` makes every later (and every unfinished) run raise ``SessionClosedError``
    without storing anything. Values a run returns are the caller's own: never the
    session's storage or a fed array.

    ``backend`` runs every step through the portable form (``compile(...,
    backend="array_api")``) on another array library: ``"torch"``, ``"jax"``, ``"dask"``,
    ``"cupy"``, ``"array_api_strict"``, ``"array_api"`` (NumPy arrays), or a namespace
    module such as ``torch`` or ``dask.array``. Fed values are converted into it (arrays
    already in it are kept: a Dask array stays lazy), variables are stored in it (on
    ``device``, e.g. ``"cuda"``) and ``run`` returns its arrays. Checkpoints and
    ``compile(values=sess)`` read the values through NumPy. The default ``"numpy"`` runs the
    NumPy fast form. Each library is an optional extra (``pip install 'symgrad[torch]'``).

    Like TF1's allocator, a session keeps memory its steps freed for the next step:
    it fixes glibc's malloc thresholds once per process (:mod:`symgrad.allocator`;
    ``SYMGRAD_KEEP_FREED_MEMORY=0`` leaves them).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, name="x")
    ...     w = sg.Variable(2.0, name="weight")
    ...     loss = (x * w - 1.0) ** 2
    ...     train = sg.train.GradientDescentOptimizer(0.1).minimize(loss)
    ...     with sg.Session() as sess:
    ...         _ = sess.run(sg.global_variables_initializer())
    ...         print(sess.run([train, loss], feed_dict={x: 1.0}), sess.run(w))
    [None, np.float32(1.0)] 1.8
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, shape=[3], name="x")
    ...     with sg.Session(backend="array_api") as sess:
    ...         print(sess.backend, float(sess.run(sg.reduce_sum(x * x), {x: [1.0, 2.0, 3.0]})))
    array_api 14.0
    """

    def __init__(
        self,
        target: str = "",
        graph: Graph | None = None,
        config: Any = None,
        codegen_dir: os.PathLike | None = None,
        backend: Any = "numpy",
        device: Any = None,
    ) -> None:
        if config is not None and not isinstance(config, ConfigProto):
            raise ArgumentTypeError(
                f"symgrad: Session: config must be a tf.ConfigProto, got "
                f"{type(config).__name__} {config!r:.60}"
            )
        # Kept, used for nothing: symgrad runs NumPy on the CPU (see symgrad.config).
        self._config = config
        # A steady step then takes memory that is already mapped (see symgrad.allocator).
        allocator.keep_freed_memory()
        self.graph = graph or get_default_graph()
        # None: the NumPy fast form; else the array namespace the portable form runs on.
        self._namespace = namespaces.resolve(backend, device)
        self.backend = "numpy" if self._namespace is None else self._namespace.name
        self._values: dict[Variable, Any] = {}
        self._plans: dict[Any, _Plan] = {}
        self._fetch_structures: dict[
            Any, tuple[Callable[[Iterator[Any]], Any] | None, tuple[Any, ...]]
        ] = {}
        self._feed_orders: dict[tuple[Any, ...], list[tuple[Any, Tensor]]] = {}
        # Per fetch structure: the ops whose value is this session's state (SESSION_STATE_OPS).
        self._state_ops: dict[tuple[Any, ...], tuple[Operation, ...]] = {}
        self._closed = False
        # Guards the variables' values and `_closed`: a run reads its snapshot and stores its
        # assignments under it; the generated function itself runs outside it.
        self._lock = threading.RLock()
        # Serializes compiling new signatures, so that each is compiled (and numbered) once.
        self._plan_lock = threading.Lock()
        # One lock per variable that runs assign (made when a plan that assigns it is made,
        # under _plan_lock); never waited for while holding _lock.
        self._variable_locks: dict[Variable, threading.Lock] = {}
        directory = codegen_dir or os.environ.get("SYMGRAD_CODEGEN_DIR")
        self.codegen_dir = Path(directory) if directory else None
        self.generated_files: list[Path] = []
        # Each random op's stream, made at its first run: later runs draw on from it (new
        # numbers every run, as TF1's stateful random kernels); a new Session starts over.
        self._generators: dict[Operation, np.random.Generator] = {}
        # Python-side state of this session's host inputs (HOST_INPUT: tf.data iterators),
        # by whatever key they choose; ``_host_work`` caches, per (fetches, fed tensors), the
        # host actions and inputs a run needs.
        self.host_state: dict[Any, Any] = {}
        self._host_lock = threading.RLock()
        self._host_work: dict[Any, tuple[tuple[Any, ...], tuple[Any, ...]]] = {}
        # Per thread: how deep in ``host_run`` (the runs of host inputs, which may fetch
        # strings whatever the backend: they stay on the host).
        self._host_runs = threading.local()
        # Per fetch structure: the positions of its string tensors (computed on the host).
        self._string_fetches: dict[tuple[Any, ...], tuple[int, ...]] = {}

    # -- context --------------------------------------------------------------------------
    def __enter__(self) -> Session:
        _default_sessions.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _default_sessions.remove(self)
        self.close()

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Session]:
        _default_sessions.append(self)
        try:
            yield self
        finally:
            _default_sessions.remove(self)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._values.clear()
            self._generators.clear()
            self.host_state.clear()

    # -- running --------------------------------------------------------------------------
    def run(
        self,
        fetches: Any,
        feed_dict: dict | None = None,
        options: Any = None,
        run_metadata: Any = None,
    ) -> Any:
        """Evaluate ``fetches`` (a tensor, an op, or nested lists/tuples/dicts of them).

        Returns values in the same structure (lists, tuples, namedtuples such as
        ``LSTMStateTuple``, dicts); a fetched op gives ``None``. A ``feed_dict`` key may be a
        tuple or namedtuple of tensors, nested (an RNN's state), with a value of the same
        structure: each tensor takes its part. ``options`` (a ``tf.RunOptions``) and
        ``run_metadata`` (a ``tf.RunMetadata``) are accepted and change nothing: symgrad
        records no traces (see :mod:`symgrad.config`).

        >>> import numpy as np
        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     c = tf.placeholder(tf.float32, [1, 2], name="c")
        ...     h = tf.placeholder(tf.float32, [1, 2], name="h")
        ...     state = tf.nn.rnn_cell.LSTMStateTuple(c, h)
        ...     new_state = tf.nn.rnn_cell.LSTMStateTuple(c + 1.0, h * 2.0)
        ...     with tf.Session() as sess:
        ...         value = sess.run(new_state, {state: (np.zeros((1, 2)), np.ones((1, 2)))})
        ...         value = sess.run(new_state, {state: value})
        >>> value.c, value.h
        (array([[2., 2.]], dtype=float32), array([[4., 4.]], dtype=float32))
        """
        if self._closed:
            raise SessionClosedError("symgrad: Attempted to use a closed Session.")
        _check_run_options(options, run_metadata)
        rebuild, flat = self._fetches_of(fetches)
        if feed_dict is not None and not isinstance(feed_dict, Mapping):
            raise ArgumentTypeError(
                f"symgrad: Session.run: feed_dict must be a dict from placeholders to values, "
                f"got {type(feed_dict).__name__} {feed_dict!r:.60}"
            )
        return self._run_resolved(rebuild, flat, self._resolve_feeds(feed_dict or {}))

    def host_run(self, fetches: Any, feed_dict: dict[Any, Any] | None = None) -> Any:
        """``run(fetches, feed_dict)`` for a host input (a host op's inputs, a dataset's
        tensors, a ``map`` function per element): string tensors may be fetched with any
        backend, since they never leave the host."""
        depth = getattr(self._host_runs, "depth", 0)
        self._host_runs.depth = depth + 1
        try:
            return self.run(fetches, feed_dict=feed_dict)
        finally:
            self._host_runs.depth = depth

    def make_callable(
        self, fetches: Any, feed_list: Sequence[Any] | None = None, accept_options: bool = False
    ) -> Callable[..., Any]:
        """A function that runs one step: ``fetches`` with the values of ``feed_list``, given
        in that order, as TF1's ``Session.make_callable``.

        ``step = sess.make_callable([train, loss], [x, y])`` then ``step(xs, ys)`` does what
        ``sess.run([train, loss], feed_dict={x: xs, y: ys})`` does, with the fetches and
        feeds looked up once instead of at every call. ``feed_list`` holds tensors or their
        names. With ``accept_options=True`` the function also takes the keywords ``options``
        and ``run_metadata``, which symgrad ignores, as ``run`` does.

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     x = sg.placeholder(sg.float64, name="x")
        ...     w = sg.Variable(2.0, dtype=sg.float64, name="w")
        ...     loss = sg.square(x * w - 1.0)
        ...     train = sg.train.GradientDescentOptimizer(0.25).minimize(loss)
        ...     with sg.Session() as sess:
        ...         _ = sess.run(w.initializer)
        ...         step = sess.make_callable([train, loss], feed_list=[x])
        ...         print(step(1.0), step(1.0), sess.run(w))
        [None, np.float64(1.0)] [None, np.float64(0.25)] 1.25
        """
        if self._closed:
            raise SessionClosedError("symgrad: Attempted to use a closed Session.")
        rebuild, flat = self._fetches_of(fetches)
        keys = list(feed_list or [])
        try:
            # As TF1 builds its feed_dict from feed_list, a key given twice takes the last value.
            position = {key: index for index, key in enumerate(keys)}
        except TypeError:
            raise ArgumentTypeError(
                f"symgrad: Session.make_callable: feed_list holds tensors or their names, got "
                f"{feed_list!r:.80}"
            ) from None
        slots = [(tensor, position[key]) for tensor, key in self._check_feeds(position)]
        names = ", ".join(repr(tensor.name) for tensor, _ in slots)

        def step(*values: Any) -> Any:
            if len(values) != len(keys):
                raise ArgumentTypeError(
                    f"symgrad: Session.make_callable: the step takes {len(keys)} value(s), one "
                    f"for each of feed_list ({names or 'empty'}), got {len(values)}"
                )
            return self._run_resolved(
                rebuild, flat, {tensor: values[index] for tensor, index in slots}
            )

        if not accept_options:
            return step

        def step_with_options(*values: Any, options: Any = None, run_metadata: Any = None) -> Any:
            _check_run_options(options, run_metadata)
            return step(*values)

        return step_with_options

    def _run_resolved(
        self,
        rebuild: Callable[[Iterator[Any]], Any] | None,
        flat: tuple[Any, ...],
        feeds: dict[Tensor, Any],
        host: bool = True,
    ) -> Any:
        """One run of flattened fetches with feeds already checked, in graph order (the host
        actions and inputs first, unless ``host`` is False: they have run)."""
        strings = self._string_fetches.get(flat)
        if strings is None:
            strings = self._string_fetches[flat] = _string_positions(flat)
        if strings and self._namespace is not None and not getattr(self._host_runs, "depth", 0):
            # Refused before the host inputs run: no iterator moves on, no reader reads.
            tensor = flat[strings[0]]
            raise BackendError(
                f"symgrad: Session(backend={self.backend!r}) cannot fetch string tensor "
                f"'{tensor.name}': the portable form has no string arrays; fetch it from a "
                f"Session with the default backend (its numeric results, such as decoded "
                f"images, can be fetched here)"
            )
        if host:
            work_key = (flat, tuple(feeds))
            work = self._host_work.get(work_key)
            if work is None:
                work = self._host_work[work_key] = self._host_work_of(flat, feeds)
            if work[0] or work[1]:
                feeds = self._run_host(work, feeds)
        if strings or any(tensor.dtype == _dtypes.string for tensor in feeds):
            return self._run_with_strings(rebuild, flat, feeds, strings)
        state_ops = self._state_ops.get(flat)
        if state_ops is None:
            state_ops = self._state_ops[flat] = tuple(
                op
                for op in ancestors([_op_of(item) for item in flat], control=True)
                if op.type in SESSION_STATE_OPS
            )
        if state_ops:
            feeds = self._with_state(state_ops, feeds)
        key = (flat, tuple(feeds))
        plan = self._plans.get(key)
        if plan is None:
            with self._plan_lock:
                plan = self._plans.get(key)
                if plan is None:
                    plan = self._plans[key] = self._make_plan(flat, feeds)
        results = self._execute(plan, feeds)
        for variable in plan.trains:
            variable.changed_in_session = True
        values = [None if slot is None else results[slot] for slot in plan.fetch_slots]
        for position in plan.repeated_fetches:  # a tensor fetched twice: two arrays
            values[position] = _copy(values[position])
        return values if rebuild is None else rebuild(iter(values))

    def _run_with_strings(
        self,
        rebuild: Callable[[Iterator[Any]], Any] | None,
        flat: tuple[Any, ...],
        feeds: dict[Tensor, Any],
        strings: tuple[int, ...],
    ) -> Any:
        """A run with string fetches or feeds: strings live on the host, so the string tensors
        fetched are taken from the feeds (the caller's, or those the host inputs filled) or
        from their constants, and the rest runs as usual without the string feeds (no compiled
        op takes a string)."""
        values: dict[int, Any] = {}
        for position in strings:
            tensor = flat[position]
            if tensor in feeds:
                values[position] = string_value(feeds[tensor], tensor)
            elif tensor.op.type == "Const":
                value = tensor.op.attrs["value"]
                values[position] = value[()] if value.ndim == 0 else value.copy()
            else:
                raise InvalidArgumentError(
                    f"symgrad: You must feed a value for placeholder '{tensor.name}' "
                    f"(a string tensor)"
                )
        rest = tuple(item for position, item in enumerate(flat) if position not in values)
        numeric = {t: v for t, v in feeds.items() if t.dtype != _dtypes.string}
        computed = iter(self._run_resolved(None, rest, numeric, host=False) if rest else [])
        merged = [values[p] if p in values else next(computed) for p in range(len(flat))]
        return merged if rebuild is None else rebuild(iter(merged))

    @staticmethod
    def _host_work_of(
        flat: Sequence[Any], feeds: Mapping[Tensor, Any]
    ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """(the host actions, the distinct host inputs) that running ``flat`` needs, in graph
        order; a fed tensor's host input is not run (its feed stands)."""
        actions: list[Any] = []
        inputs: dict[int, Any] = {}
        for op in ancestors([_op_of(item) for item in flat], control=True, stop=feeds):
            action = op.attrs.get(HOST_ACTION)
            if action is not None:
                actions.append(action)
            source = op.attrs.get(HOST_INPUT)
            if source is not None and op.outputs[0] not in feeds:
                inputs.setdefault(id(source), source)
        return tuple(actions), tuple(inputs.values())

    def _run_host(
        self, work: tuple[tuple[Any, ...], tuple[Any, ...]], feeds: dict[Tensor, Any]
    ) -> dict[Tensor, Any]:
        """Run the host actions, then ``feeds`` with the values of the host inputs added (a
        tensor the caller feeds keeps its feed)."""
        actions, inputs = work
        with self._host_lock:
            for action in actions:
                action(self, feeds)
            filled = dict(feeds)
            for source in inputs:
                # Each source sees the values filled before it: one run computes a host value
                # once (a reader's line, and decode_csv of that same line).
                for tensor, value in source(self, filled).items():
                    filled.setdefault(tensor, value)
        return filled

    def _with_state(self, ops: Sequence[Operation], feeds: dict[Tensor, Any]) -> dict[Tensor, Any]:
        """``feeds`` and the values of this session's state that ``ops`` stand for: whether a
        variable is initialized (``is_variable_initialized``), and an initialized variable's
        value (``initialized_value``; an uninitialized one's is computed from its initial
        value). A value the caller fed stays."""
        feeds = dict(feeds)
        with self._lock:
            for op in ops:
                tensor = op.outputs[0]
                if tensor in feeds:
                    continue
                value = self._values.get(op.attrs["variable"])
                if op.type == "IsVariableInitialized":
                    feeds[tensor] = np.bool_(value is not None)
                elif value is not None:
                    feeds[tensor] = value
        return feeds

    def _fetches_of(
        self, fetches: Any
    ) -> tuple[Callable[[Iterator[Any]], Any] | None, tuple[Any, ...]]:
        """(how to rebuild the fetched structure from the flat values, or None for a flat list;
        the flat fetches). A training loop fetches the same tensors every step, so lists and
        tuples of tensors and ops are checked once and then looked up."""
        key = _fetch_key(fetches)
        known = self._fetch_structures.get(key) if key is not None else None
        if known is not None:
            return known
        flat: list[Any] = []
        structure = self._flatten(fetches, flat)
        flat_list = type(fetches) is list and all(part == ("leaf",) for part in structure[2])
        known = (None if flat_list else _rebuilder(structure), tuple(flat))
        if key is not None:
            self._fetch_structures[key] = known
        return known

    def _execute(self, plan: _Plan, feeds: dict[Tensor, Any]) -> list[Any]:
        if plan.function is None:
            return []
        locks = plan.locks
        if not locks:
            return self._execute_unlocked(plan, feeds)
        if len(locks) == 1:
            with locks[0]:
                return self._execute_unlocked(plan, feeds)
        for lock in locks:
            lock.acquire()
        try:
            return self._execute_unlocked(plan, feeds)
        finally:
            for lock in reversed(locks):
                lock.release()

    def _execute_unlocked(self, plan: _Plan, feeds: dict[Tensor, Any]) -> list[Any]:
        """One run of ``plan``: its snapshot of the variables, the function, its stores."""
        namespace = self._namespace
        arguments = []
        with self._lock:
            if self._closed:
                raise SessionClosedError("symgrad: Attempted to use a closed Session.")
            for kind, tensor in plan.inputs:
                if kind == "feed":
                    fed = feeds[tensor]
                    if namespace is not None:
                        fed = namespace.asarray(
                            fed, tensor.dtype.numpy, f"the value fed to '{tensor.name}'"
                        )
                    elif type(fed) is not np.ndarray:
                        # Arrays of other libraries as data (no autograd, no lazy Dask
                        # array computed unasked); the module's own check does the rest.
                        fed = namespaces.data_of(fed, f"the value fed to '{tensor.name}'", "numpy")
                    arguments.append(fed)
                    continue
                value = self._values.get(tensor)
                if value is None:
                    raise FailedPreconditionError(
                        f"symgrad: Attempting to use uninitialized value {tensor.op.name} "
                        f"(variable '{tensor.name}'); run symgrad.global_variables_initializer() "
                        f"or {tensor.op.name}.initializer first"
                    )
                arguments.append(value)
            streams = [self._generator(op) for op in plan.random_ops]
        try:
            outputs = plan.function(*arguments, *([streams] if streams else []))
        except ValueError as error:
            explained = self._explain_input_error(plan, error)
            if explained is not None:
                raise explained from None
            raise self._execution_error(plan, error) from error
        except (IndexError, ArithmeticError) as error:
            raise self._execution_error(plan, error) from error
        if len(plan.fetch_slots) + len(plan.assignments) == 0:
            return []
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        if namespace is None:
            outputs = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in outputs]
        stored = []
        fed = Footprint(arguments)
        for variable, slot, dtype, shape in plan.assignments:
            output = outputs[slot]
            if namespace is None:
                value = np.asarray(output, dtype=dtype)
                if value is output:
                    # A variable keeps an array of its own: not a fed array, not another
                    # variable's. (A new array, made from a scalar or by a cast, is its own.)
                    value = unshared(value, fed)
            else:
                value = namespace.asarray(output, dtype, f"variable '{variable.name}'")
                value = unshared(namespace.stored(value), fed)
            if shape is not None and tuple(value.shape) != shape:
                raise InvalidArgumentError(
                    f"symgrad: assigning a value of shape {tuple(value.shape)} to variable "
                    f"'{variable.name}' of shape {shape}"
                )
            stored.append((variable, value))
        with self._lock:
            if self._closed:  # closed while this run computed: TF1 fails the run, stores nothing
                raise SessionClosedError("symgrad: the Session was closed during this run.")
            self._values.update(stored)
        # What the caller gets back is theirs: a copy wherever it could alias the session's
        # storage (a fetched variable, an assignment's new value), a fed array, the module's
        # constants or another output. Only the fetched outputs go back: a new value that is
        # only stored is not copied (an optimizer's step would copy every weight).
        kept = arguments + [value for _, value in stored]
        if plan.compiled is not None:
            kept += plan.compiled.constant_arrays
        slots = sorted({slot for slot in plan.fetch_slots if slot is not None})
        fetched = [outputs[slot] for slot in slots]
        fetched = namespace.owned(fetched, kept) if namespace is not None else owned(fetched, kept)
        results: list[Any] = [None] * len(outputs)
        for slot, value in zip(slots, fetched, strict=True):
            results[slot] = value
        return results

    def _generator(self, op: Operation) -> np.random.Generator:
        generator = self._generators.get(op)
        if generator is None:
            generator = self._generators[op] = generator_for(op)
        return generator

    def _execution_error(self, plan: _Plan, error: BaseException) -> BaseException:
        """The run-time NumPy error, as a symgrad error naming the op and tensor that failed."""
        explained = plan.compiled.execution_error(error) if plan.compiled else None
        return error if explained is None else explained

    def _explain_input_error(self, plan: _Plan, error: ValueError) -> Exception | None:
        message = str(error)
        for name, tensor in plan.input_names.items():
            if message.startswith(f"input {name!r}"):
                what = {"Placeholder": "placeholder", "VariableV2": "variable"}.get(
                    tensor.op.type, "tensor"
                )
                detail = message[len(f"input {name!r}: ") :]
                on = "" if self._namespace is None else f" (Session backend {self.backend!r})"
                return InvalidArgumentError(
                    f"symgrad: cannot feed {what} '{tensor.name}'{on}: {detail}"
                )
        return None

    # -- fetches and feeds --------------------------------------------------------------------
    def _as_fetch(self, item: Any) -> Any:
        if isinstance(item, str):
            item = (
                self.graph.get_tensor_by_name(item)
                if ":" in item
                else self.graph.get_operation_by_name(item)
            )
        if not isinstance(item, (Tensor, Operation)):
            raise InvalidArgumentError(
                f"symgrad: Session.run: cannot fetch {type(item).__name__} "
                f"{item!r:.60}; fetch tensors or ops"
            )
        if item.graph is not self.graph:
            raise InvalidArgumentError(
                f"symgrad: Session.run: '{item.name}' is not an element of this session's graph"
            )
        return item

    def _flatten(self, fetches: Any, flat: list[Any]) -> Any:
        if isinstance(fetches, dict):
            return (
                "dict",
                type(fetches),
                [(k, self._flatten(v, flat)) for k, v in fetches.items()],
            )
        if isinstance(fetches, (list, tuple)):
            return ("seq", type(fetches), [self._flatten(v, flat) for v in fetches])
        if hasattr(fetches, "_symgrad_fetches"):
            # A fetch that stands for several tensors and makes one value of theirs
            # (a summary: symgrad.summary), like TF1's registered fetch conversions.
            return ("custom", fetches, self._flatten(list(fetches._symgrad_fetches()), flat))
        flat.append(self._as_fetch(fetches))
        return ("leaf",)

    def _resolve_feeds(self, feed_dict: Mapping[Any, Any]) -> dict[Tensor, Any]:
        keys = tuple(feed_dict)
        order = self._feed_orders.get(keys)  # the same keys, step after step: checked once
        if order is None:
            if any(isinstance(key, tuple) for key in keys):
                # A structure of tensors (an LSTMStateTuple, a MultiRNNCell's state) fed a
                # structure of values: each tensor its part, then as if fed one by one.
                return self._resolve_feeds(_flat_feeds(feed_dict))
            order = self._feed_orders[keys] = [
                (key, tensor) for tensor, key in self._check_feeds(feed_dict)
            ]
        return {tensor: feed_dict[key] for key, tensor in order}

    def _check_feeds(self, feed_dict: Mapping[Any, Any]) -> list[tuple[Tensor, Any]]:
        """(tensor, key) for each key of ``feed_dict``, in graph order; errors for bad keys.

        Any tensor can be fed, as in TF1: a placeholder, a variable (its stored value
        is not used in that run) or an intermediate tensor (what computes it is not run).
        """
        feeds: dict[Tensor, Any] = {}
        for key in feed_dict:
            tensor = key
            if isinstance(key, str):
                tensor = self.graph.get_tensor_by_name(key if ":" in key else f"{key}:0")
            if not isinstance(tensor, Tensor) or tensor.graph is not self.graph:
                raise InvalidArgumentError(
                    f"symgrad: feed_dict key {key!r:.60} is not a tensor of this session's graph"
                )
            feeds[tensor] = key
        return sorted(feeds.items(), key=lambda item: item[0].op.index)

    # -- planning ---------------------------------------------------------------------------------
    def _make_plan(self, flat: Sequence[Any], feeds: dict[Tensor, Any]) -> _Plan:
        """Compile the function of one (fetches, fed tensors) signature. The values of this
        first run tell which fed tensors of unknown shape are scalars (a ``keep_prob``, a
        learning rate): the fast form expects them 0-d, the other ones as vectors."""
        fed = list(feeds)
        assigns = self._assign_ops(flat, fed)
        seen: dict[Tensor, int] = {}
        outputs: list[Tensor] = []

        def slot(tensor: Tensor) -> int:
            if tensor not in seen:
                seen[tensor] = len(outputs)
                outputs.append(tensor)
            return seen[tensor]

        fetch_slots = [slot(item) if isinstance(item, Tensor) else None for item in flat]
        assignments: list[_Assignment] = []
        for op in assigns:
            variable = op.attrs["variable"]
            if variable in feeds:
                # TF1 refuses too: a fed value overrides reads for one run and is never stored.
                raise InvalidArgumentError(
                    f"symgrad: Session.run: variable '{variable.name}' is fed, and this run "
                    f"assigns it ({op.type} '{op.name}'); a feed is a value for one run, not "
                    f"a new value to store: assign it (variable.load(value, sess)) instead"
                )
            if any(assignment.variable is variable for assignment in assignments):
                raise InvalidArgumentError(
                    f"symgrad: Session.run assigns variable '{variable.name}' twice "
                    f"in one run; split the assignments into separate runs"
                )
            assignments.append(
                _Assignment(
                    variable,
                    slot(op.outputs[0]),
                    np.dtype(variable.dtype.numpy),
                    None if variable.shape is None else tuple(int(dim) for dim in variable.shape),
                )
            )
        if not outputs:
            return _Plan(None, [], fetch_slots, [], {}, None)
        needed = sources_of(outputs, fed=fed)
        missing = [t.name for t in needed if t.op.type == "Placeholder" and t not in fed]
        if missing:
            raise InvalidArgumentError(
                f"symgrad: You must feed a value for placeholder "
                f"{', '.join(repr(m) for m in missing)}"
            )
        inputs = [t for t in needed if t.op.type == "VariableV2" or t in fed]
        name = f"run_{len(self._plans) + 1}"
        path = None
        if self.codegen_dir is not None:
            slug = "_".join(naming.sanitize(t.op.name.split("/")[-1]) for t in outputs[:3])
            path = self.codegen_dir / f"{name}_{slug[:60]}.py"
        compiled = compile_graph(
            outputs,
            inputs=inputs,
            name=name,
            path=path,
            backend=registry.DEFAULT if self._namespace is None else registry.portable().name,
            scalar_inputs=[t for t in inputs if t.shape is None and _is_0d(feeds.get(t))],
            # Another session's file of that name (in this process or another) stays.
            replace=False,
        )
        if path is not None:
            self.generated_files.append(compiled.path)
        kinds = [("feed" if t in fed else "variable", t) for t in inputs]
        initializers = {op for op in assigns if op.attrs["variable"]._initializer is op}
        assigned = sorted((a.variable for a in assignments), key=lambda v: v.op.index)
        locks = tuple(self._variable_locks.setdefault(v, threading.Lock()) for v in assigned)
        return _Plan(
            compiled.function,
            kinds,
            fetch_slots,
            assignments,
            dict(zip(compiled.input_names, inputs, strict=False)),
            compiled.path,
            tuple(op.attrs["variable"] for op in assigns if op not in initializers),
            compiled,
            tuple(random_ops_of(compiled.program.random_streams, self.graph)),
            locks,
            tuple(
                position
                for position, slot in enumerate(fetch_slots)
                if slot is not None and slot in fetch_slots[:position]
            ),
        )

    @staticmethod
    def _assign_ops(flat: Sequence[Any], fed: Sequence[Tensor] = ()) -> list[Operation]:
        """Every Assign op the fetches run (through data and control inputs), in graph order;
        a fed tensor's op does not run."""
        roots = [item.op if isinstance(item, Tensor) else item for item in flat]
        return [
            op
            for op in ancestors(roots, control=True, stop=fed)
            if op.type == "Assign" and op.outputs[0] not in fed
        ]

    # -- values in and out ------------------------------------------------------------------
    def load_variable(self, variable: Variable, value: Any) -> None:
        """Store ``value`` in ``variable`` (``Variable.load`` and ``Saver.restore`` use this)."""
        if self._closed:
            raise SessionClosedError("symgrad: Attempted to use a closed Session.")
        if not isinstance(variable, Variable) or variable.graph is not self.graph:
            raise InvalidArgumentError(
                f"symgrad: load: {getattr(variable, 'name', variable)!r:.60} is not a "
                f"variable of this session's graph"
            )
        # Loaded values go through NumPy (checkpoints, other sessions' arrays): a Dask
        # value is computed, as asked; a tensor without data cannot be.
        value = namespaces.data_of(
            value, f"the value for variable '{variable.name}'", self.backend, keeps_dask=True
        )
        try:
            array = np.asarray(namespaces.to_numpy(value))
        except ValueError:
            raise ShapeError(
                f"symgrad: load: the value for variable '{variable.name}' is not a "
                f"rectangular array"
            ) from None
        if variable.shape is not None and array.shape != variable.shape:
            raise ShapeError(
                f"symgrad: load: the value for variable '{variable.name}' has shape "
                f"{array.shape}, the variable has shape {variable.shape}"
            )
        if array.dtype.kind not in "biuf" or not np.can_cast(
            array.dtype, variable.dtype.numpy, casting="same_kind"
        ):
            raise DTypeError(
                f"symgrad: load: the value for variable '{variable.name}' has dtype "
                f"{array.dtype}, the variable has dtype {variable.dtype.name}"
            )
        # A copy: later changes to the caller's array must not reach the session.
        stored = (
            np.array(array, dtype=variable.dtype.numpy)
            if self._namespace is None
            else self._namespace.asarray(
                array, variable.dtype.numpy, f"variable '{variable.name}'", copy=True
            )
        )
        # Under the variable's lock: a training step running now stores after the load, from
        # the loaded value, instead of overwriting it with a step from the old one.
        with self._variable_locks.setdefault(variable, threading.Lock()), self._lock:
            self._values[variable] = stored
        variable.changed_in_session = True


class InteractiveSession(Session):
    """A session that makes itself the default session until it is closed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _default_sessions.append(self)

    def close(self) -> None:
        if self in _default_sessions:
            _default_sessions.remove(self)
        super().close()
