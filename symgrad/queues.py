"""TF1's queue-based input pipelines, run by the :class:`symgrad.Session` in Python.

Older TF1 programs feed their models through queues filled by background threads::

    image, label = tf.train.slice_input_producer([images, labels], num_epochs=5)
    images_batch, labels_batch = tf.train.shuffle_batch(
        [image, label], batch_size=32, capacity=2000, min_after_dequeue=1000)
    ...
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        while not coord.should_stop():
            sess.run(train_op)
    except tf.errors.OutOfRangeError:
        print("done")
    finally:
        coord.request_stop()
    coord.join(threads)

symgrad keeps the queues in Python, on the mechanism of :mod:`symgrad.data`: a dequeue gives
placeholders that the session fills itself (``HOST_INPUT``), an enqueue or a close is an op
that the session runs in Python before the run (``HOST_ACTION``), and each queue holds its
elements per session. There are no threads: a dequeue that finds too few elements runs the
queue's started queue runners (their enqueue ops) on demand until it has enough, or until a
runner's input ends (``OutOfRangeError``), which closes the queue as TF's ``QueueRunner``
does; past the last element the run raises ``tf.errors.OutOfRangeError``.
``start_queue_runners`` returns thread-like objects, and ``Coordinator`` behaves as TF's in the
usual loop.

Differences from TF:

- Shuffled orders (``slice_input_producer(shuffle=True)``, ``RandomShuffleQueue``,
  ``shuffle_batch``) are not TF's: each epoch is a NumPy permutation, and a shuffling queue is
  filled to ``max(capacity, min_after_dequeue + n)`` elements before ``n`` elements are taken
  at random, as if TF's threads had kept it full. A ``seed`` (or the graph's
  ``set_random_seed``) makes them the same at every run of the program.
- ``size()`` counts the elements a queue holds now: runners fill queues only when a dequeue
  needs elements, not in the background.
- A dequeue that would wait forever in TF (too few elements, the queue open, no runner started
  for it) raises :class:`symgrad.errors.FailedPreconditionError` instead; so does an enqueue
  into a closed queue (TF's ``CancelledError``) or past a queue's capacity with nothing to
  take the elements (TF waits).
- ``num_epochs`` counts epochs in Python: TF's ``local_variables_initializer()`` run is
  accepted but not needed.
- File names and file contents are string tensors, computed by the session on the host
  (:mod:`symgrad.string_ops`): ``string_input_producer``, the readers (``TextLineReader``,
  ``WholeFileReader``) and ``decode_csv`` feed the queues as in TF.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from .errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError
from .graph import Graph, Operation, Tensor, get_default_graph, get_default_session
from .ops.sources import convert_to_tensor
from .session import HOST_ACTION, HOST_INPUT, Session
from .tf1.variable_scope import GraphKeys

Element = list[np.ndarray]
Shape = tuple[int | None, ...] | None

# The most enqueue steps in a row that may add nothing to a queue before a dequeue gives up.
_MAX_IDLE_STEPS = 10_000


def _shape_of(value: Any) -> Shape:
    """A static shape as a tuple (``None``: unknown rank)."""
    if value is None:
        return None
    if hasattr(value, "as_list"):
        if getattr(value, "ndims", 0) is None:
            return None
        return tuple(value.as_list())
    return tuple(None if d is None else int(d) for d in value)


def _tensor_shape(tensor: Tensor) -> Shape:
    return _shape_of(tensor.shape)


def _compatible(shape: Shape, actual: tuple[int, ...]) -> bool:
    if shape is None:
        return True
    return len(shape) == len(actual) and all(
        d is None or d == a for d, a in zip(shape, actual, strict=True)
    )


# -- per-session state -------------------------------------------------------------------------


class _QueueState:
    """A queue's elements in one session, whether it is closed, and its started runners."""

    def __init__(self, rng: np.random.Generator | None) -> None:
        self.elements: list[Element] = []
        self.start = 0  # FIFO: the index of the first element not yet taken
        self.closed = False
        self.runners: list[_RunnerState] = []
        self.turn = 0  # round robin over the runners
        self.rng = rng

    def __len__(self) -> int:
        return len(self.elements) - self.start

    def compact(self) -> None:
        if self.start > 64 and self.start * 2 > len(self.elements):
            del self.elements[: self.start]
            self.start = 0


class _RunnerState:
    """A :class:`QueueRunner` started in one session."""

    def __init__(self, runner: QueueRunner, session: Session, coord: Coordinator | None) -> None:
        self.runner = runner
        self.session = session
        self.coord = coord
        self.started = False
        self.done = False
        self.turn = 0

    def active(self) -> bool:
        return (
            self.started
            and not self.done
            and not (self.coord is not None and self.coord.should_stop())
        )

    def step(self) -> None:
        """Run the next enqueue op once; the input's end closes the queue."""
        ops = self.runner.enqueue_ops
        op = ops[self.turn % len(ops)]
        self.turn += 1
        try:
            _run_op(self.session, op)
        except OutOfRangeError:
            self.done = True
            if self.runner.close_op is not None:
                _run_op(self.session, self.runner.close_op)
        except Exception as error:
            self.done = True
            self.runner._exceptions.append(error)
            if self.coord is not None:
                self.coord.request_stop(error)
            raise


def _run_op(session: Session, op: Any) -> None:
    """Run ``op`` in ``session``: a host action of this module directly, without a run."""
    if isinstance(op, Operation) and op.type == "NoOp" and not op.attrs.get("control"):
        action = op.attrs.get(HOST_ACTION)
        if action is not None:
            action(session, {})
            return
    session.run(op)


# -- queues ------------------------------------------------------------------------------------


class _Dequeue:
    """The placeholders of one dequeue call: which queue, how many elements, and how."""

    def __init__(self, queue: QueueBase, count: int | None, up_to: bool) -> None:
        self.queue = queue
        self.count = count  # None: one element, without a batch dimension
        self.up_to = up_to
        self.tensors: list[Tensor] = []

    def take(self, session: Session) -> list[np.ndarray]:
        """One value per component: an element, or ``count`` of them stacked."""
        queue = self.queue
        if self.count is None:
            return queue._take(session, 1, up_to=False)[0]
        elements = queue._take(session, self.count, up_to=self.up_to)
        return [
            np.stack([e[i] for e in elements])
            if elements
            else np.zeros((0,), queue._dtypes[i].as_numpy_dtype)
            for i in range(len(queue._dtypes))
        ]


class QueueBase:
    """A queue of elements, each a list of arrays of the queue's ``dtypes`` and ``shapes``
    (TF1's ``tf.QueueBase``); :class:`FIFOQueue` and :class:`RandomShuffleQueue` are the
    two kinds. The elements are kept per session, in Python."""

    _kind = "queue"

    def __init__(
        self,
        capacity: int,
        dtypes: Any,
        shapes: Any = None,
        names: Sequence[str] | None = None,
        min_after_dequeue: int = 0,
        seed: int | None = None,
        shuffle: bool = False,
        name: str | None = None,
    ) -> None:
        if isinstance(dtypes, (list, tuple)):
            self._dtypes = [_dtypes.as_dtype(d) for d in dtypes]
        else:
            self._dtypes = [_dtypes.as_dtype(dtypes)]
        if shapes is None:
            self._shapes: list[Shape] = [None] * len(self._dtypes)
        else:
            shape_list = list(shapes)
            if len(self._dtypes) == 1 and (not shape_list or not _is_shape_list(shape_list)):
                shape_list = [shape_list]
            self._shapes = [_shape_of(s) for s in shape_list]
            if len(self._shapes) != len(self._dtypes):
                raise InvalidArgumentError(
                    f"symgrad: {type(self).__name__}: {len(self._shapes)} shapes for "
                    f"{len(self._dtypes)} dtypes"
                )
        self._names = list(names) if names is not None else None
        if self._names is not None and len(self._names) != len(self._dtypes):
            raise InvalidArgumentError(
                f"symgrad: {type(self).__name__}: {len(self._names)} names for "
                f"{len(self._dtypes)} dtypes"
            )
        if isinstance(capacity, Tensor) or int(capacity) < 1:
            raise InvalidArgumentError(
                f"symgrad: {type(self).__name__}: capacity must be a positive Python int, "
                f"got {capacity!r}"
            )
        self._capacity = int(capacity)
        self._min_after_dequeue = int(min_after_dequeue)
        self._shuffle = shuffle
        self._graph: Graph = get_default_graph()
        self._name = self._graph.unique_name(name or self._kind)
        given = [s for s in (self._graph.seed, seed) if s is not None]
        self._seeds = [*given, zlib.crc32(self._name.encode())] if given else None

    # -- what TF1's queues show --------------------------------------------------------------
    dtypes = property(lambda self: list(self._dtypes))
    shapes = property(
        lambda self: [None if s is None else list(s) for s in self._shapes]  # as given
    )
    names = property(lambda self: None if self._names is None else list(self._names))
    name = property(lambda self: self._name)

    @property
    def queue_ref(self) -> Any:
        raise InvalidArgumentError(
            "symgrad: a queue has no queue_ref: its elements are kept in Python; use its "
            "methods (enqueue, dequeue, size, close)"
        )

    # -- state ---------------------------------------------------------------------------------
    def _state(self, session: Session) -> _QueueState:
        key = ("queue", self)
        state = session.host_state.get(key)
        if state is None:
            rng = None
            if self._shuffle:
                seeds: Any = self._seeds or [np.random.SeedSequence().entropy]
                rng = np.random.default_rng(seeds)
            state = session.host_state[key] = _QueueState(rng)
        return state

    def _fill(self, session: Session, state: _QueueState, target: int) -> None:
        """Run this queue's runners until it holds ``target`` elements or is closed."""
        idle = 0
        while len(state) < target and not state.closed:
            runners = [r for r in state.runners if r.active()]
            if not runners:
                if state.runners and all(r.started for r in state.runners):
                    # TF's runners close their queue when the coordinator stops them.
                    state.closed = True
                break
            runner = runners[state.turn % len(runners)]
            state.turn += 1
            before = len(state)
            runner.step()
            idle = 0 if len(state) > before else idle + 1
            if idle > _MAX_IDLE_STEPS:
                raise FailedPreconditionError(
                    f"symgrad: queue '{self._name}': its queue runners ran {idle} times "
                    "without adding an element"
                )

    def _take(self, session: Session, count: int, up_to: bool) -> list[Element]:
        """``count`` elements (fewer, down to one, with ``up_to`` once the queue is closed)."""
        state = self._state(session)
        keep = self._min_after_dequeue if self._shuffle else 0
        target = max(self._capacity, keep + count) if self._shuffle else count
        self._fill(session, state, target)
        available = len(state)
        if state.closed:
            if available == 0 or (available < count and not up_to):
                raise OutOfRangeError(
                    f"symgrad: {type(self).__name__} '{self._name}' is closed and has "
                    f"insufficient elements (requested {count}, current size {available})"
                )
            count = min(count, available)
        elif available - count < keep:
            raise FailedPreconditionError(
                f"symgrad: {type(self).__name__} '{self._name}' holds {available} element(s), "
                f"the dequeue needs {count}{f' and {keep} left after it' if keep else ''}, and "
                "no queue runner fills it in this session: TF would wait forever. Call "
                "tf.train.start_queue_runners(sess) (or enqueue more, or close the queue) first"
            )
        if not self._shuffle:
            taken = state.elements[state.start : state.start + count]
            state.start += count
            state.compact()
            return taken
        elements = state.elements
        assert state.rng is not None
        taken = []
        for _ in range(count):
            index = int(state.rng.integers(len(elements)))
            elements[index], elements[-1] = elements[-1], elements[index]
            taken.append(elements.pop())
        return taken

    def _put(self, session: Session, elements: list[Element], forced: bool) -> None:
        state = self._state(session)
        if state.closed:
            raise FailedPreconditionError(
                f"symgrad: {type(self).__name__} '{self._name}' is closed (TF: CancelledError)"
            )
        if not forced and len(state) + len(elements) > self._capacity and not state.runners:
            raise FailedPreconditionError(
                f"symgrad: {type(self).__name__} '{self._name}' is full (capacity "
                f"{self._capacity}, size {len(state)}) and nothing dequeues from it while the "
                "enqueue runs: TF would wait forever"
            )
        state.elements.extend(elements)

    # -- the values an enqueue op puts in ----------------------------------------------------------
    def _components(self, vals: Any, method: str) -> list[Any]:
        if isinstance(vals, Mapping):
            if self._names is None:
                raise InvalidArgumentError(
                    f"symgrad: {type(self).__name__}.{method}: a dict needs a queue with names"
                )
            if sorted(vals) != sorted(self._names):
                raise InvalidArgumentError(
                    f"symgrad: {type(self).__name__}.{method}: keys {sorted(vals)} are not the "
                    f"queue's names {sorted(self._names)}"
                )
            parts = [vals[n] for n in self._names]
        elif isinstance(vals, (list, tuple)) and not (
            len(self._dtypes) == 1 and not _is_component_list(vals)
        ):
            parts = list(vals)
        else:
            parts = [vals]
        if len(parts) != len(self._dtypes):
            raise InvalidArgumentError(
                f"symgrad: {type(self).__name__}.{method}: {len(parts)} value(s) for a queue of "
                f"{len(self._dtypes)} component(s)"
            )
        components: list[Any] = []
        with self._graph.as_default():
            for part, dtype in zip(parts, self._dtypes, strict=True):
                if isinstance(part, Tensor):
                    if part.dtype != dtype:
                        raise InvalidArgumentError(
                            f"symgrad: {type(self).__name__}.{method}: '{part.name}' is "
                            f"{part.dtype.name}, the queue holds {dtype.name}"
                        )
                    components.append(part)
                elif isinstance(part, Operation) or hasattr(part, "op"):
                    components.append(convert_to_tensor(part))
                else:
                    components.append(np.asarray(part, dtype=dtype.as_numpy_dtype))
        return components

    def _enqueue_op(self, vals: Any, many: bool, name: str | None) -> Operation:
        method = "enqueue_many" if many else "enqueue"
        components = self._components(vals, method)
        evaluate = _evaluator(components)

        def action(session: Session, feeds: Mapping[Tensor, Any]) -> None:
            values = evaluate(session, feeds)
            self._put(session, self._elements(values, many, method), forced=False)

        return self._graph.create_op(
            "NoOp",
            [],
            {"control": [], HOST_ACTION: action},
            [],
            name=name or f"{self._name}_{'EnqueueMany' if many else 'enqueue'}",
        )

    def _elements(self, values: list[Any], many: bool, method: str) -> list[Element]:
        arrays: list[np.ndarray] = [
            np.asarray(v, dtype=dtype.as_numpy_dtype)
            for v, dtype in zip(values, self._dtypes, strict=True)
        ]
        if not many:
            rows = [arrays]
        else:
            lengths = {a.shape[0] if a.ndim else -1 for a in arrays}
            if len(lengths) != 1 or -1 in lengths:
                raise InvalidArgumentError(
                    f"symgrad: {type(self).__name__}.{method}: the components need one first "
                    f"dimension, got shapes {[a.shape for a in arrays]}"
                )
            rows = [list(row) for row in zip(*arrays, strict=True)]
        for row in rows:
            for index, (value, shape) in enumerate(zip(row, self._shapes, strict=True)):
                if not _compatible(shape, value.shape):
                    raise InvalidArgumentError(
                        f"symgrad: {type(self).__name__}.{method}: component {index} has shape "
                        f"{list(value.shape)}, the queue's is {list(shape or [])}"
                    )
        return rows

    # -- TF1's methods ---------------------------------------------------------------------------
    def enqueue(self, vals: Any, name: str | None = None) -> Operation:
        """An op that puts one element in (the values of its tensors in that run)."""
        return self._enqueue_op(vals, False, name)

    def enqueue_many(self, vals: Any, name: str | None = None) -> Operation:
        """An op that puts the slices of ``vals`` along their first dimension in."""
        return self._enqueue_op(vals, True, name)

    def _dequeue(self, count: int | None, up_to: bool, name: str | None) -> list[Tensor]:
        if count is not None and (isinstance(count, Tensor) or int(count) < 0):
            raise InvalidArgumentError(
                f"symgrad: {type(self).__name__}: n must be a non-negative Python int, "
                f"got {count!r}"
            )
        group = _Dequeue(self, None if count is None else int(count), up_to)

        def values(session: Session, feeds: Mapping[Tensor, Any]) -> dict[Tensor, Any]:
            return dict(zip(group.tensors, group.take(session), strict=True))

        kind = "Dequeue" if count is None else ("DequeueUpTo" if up_to else "DequeueMany")
        base = name or f"{self._name}_{kind}"
        for index, (dtype, shape) in enumerate(zip(self._dtypes, self._shapes, strict=True)):
            if count is not None and shape is not None:
                shape = (None if up_to else int(count), *shape)
            op = self._graph.create_op(
                "Placeholder",
                [],
                {HOST_INPUT: values, "queue_dequeue": group},
                [(shape, dtype)],
                name=base if index == 0 else f"{base}_{index}",
            )
            group.tensors.append(op.outputs[0])
        return group.tensors

    def _returned(self, tensors: list[Tensor]) -> Any:
        if self._names is not None:
            return dict(zip(self._names, tensors, strict=True))
        return tensors[0] if len(tensors) == 1 else tensors

    def dequeue(self, name: str | None = None) -> Any:
        """Tensors that each run needing them fill with the next element (one tensor for a
        one-component queue, a dict for a queue with names)."""
        return self._returned(self._dequeue(None, False, name))

    def dequeue_many(self, n: int, name: str | None = None) -> Any:
        """The next ``n`` elements stacked; ``OutOfRangeError`` once the queue is closed with
        fewer left."""
        return self._returned(self._dequeue(n, False, name))

    def dequeue_up_to(self, n: int, name: str | None = None) -> Any:
        """As ``dequeue_many``, but a closed queue gives what it has left (at least one)."""
        return self._returned(self._dequeue(n, True, name))

    def size(self, name: str | None = None) -> Tensor:
        """The number of elements the queue holds (an int32 scalar)."""

        def values(session: Session, feeds: Mapping[Tensor, Any]) -> dict[Tensor, Any]:
            return {op.outputs[0]: np.int32(len(self._state(session)))}

        op = self._graph.create_op(
            "Placeholder",
            [],
            {HOST_INPUT: values},
            [((), _dtypes.int32)],
            name=name or f"{self._name}_Size",
        )
        return op.outputs[0]

    def is_closed(self, name: str | None = None) -> Tensor:
        """Whether the queue is closed (a bool scalar)."""

        def values(session: Session, feeds: Mapping[Tensor, Any]) -> dict[Tensor, Any]:
            return {op.outputs[0]: np.bool_(self._state(session).closed)}

        op = self._graph.create_op(
            "Placeholder",
            [],
            {HOST_INPUT: values},
            [((), _dtypes.bool_)],
            name=name or f"{self._name}_IsClosed",
        )
        return op.outputs[0]

    def close(self, cancel_pending_enqueues: bool = False, name: str | None = None) -> Operation:
        """An op that closes the queue: no more enqueues; dequeues take what is left, then
        raise ``OutOfRangeError``."""

        def action(session: Session, feeds: Mapping[Tensor, Any]) -> None:
            self._state(session).closed = True

        return self._graph.create_op(
            "NoOp",
            [],
            {"control": [], HOST_ACTION: action},
            [],
            name=name or f"{self._name}_Close",
        )


def _is_shape_list(shapes: list[Any]) -> bool:
    """Whether ``shapes`` is a list of shapes (not one shape given as a list of ints)."""
    return all(s is None or hasattr(s, "as_list") or isinstance(s, (list, tuple)) for s in shapes)


def _is_component_list(vals: Sequence[Any]) -> bool:
    """For a one-component queue: whether ``vals`` lists that component (``[x]``) rather
    than being the value itself (``[1.0, 2.0]``)."""
    return len(vals) == 1 and (
        isinstance(vals[0], (Tensor, np.ndarray, list, tuple)) or hasattr(vals[0], "op")
    )


def _evaluator(
    components: list[Any],
) -> Callable[[Session, Mapping[Tensor, Any]], list[Any]]:
    """How an enqueue op computes its values in a session: tensors that are all the outputs of
    one dequeue are taken from that queue directly; other tensors are run (with the feeds of
    the run that enqueues); NumPy values stand."""
    tensors = [c for c in components if isinstance(c, Tensor)]
    groups = {id(t.op.attrs.get("queue_dequeue")) for t in tensors}
    group = tensors[0].op.attrs.get("queue_dequeue") if tensors else None
    direct = group is not None and len(groups) == 1

    def evaluate(session: Session, feeds: Mapping[Tensor, Any]) -> list[Any]:
        if not tensors:
            return list(components)
        if group is not None and direct and not any(t in feeds for t in tensors):
            taken = dict(zip(group.tensors, group.take(session), strict=True))
        else:
            taken = dict(zip(tensors, session.run(tensors, feed_dict=dict(feeds)), strict=True))
        return [taken[c] if isinstance(c, Tensor) else c for c in components]

    return evaluate


class FIFOQueue(QueueBase):
    """A queue that gives its elements in the order they came (TF1's ``tf.FIFOQueue``).

    >>> import symgrad as tf
    >>> with tf.Graph().as_default():
    ...     q = tf.FIFOQueue(3, tf.float32)
    ...     init = q.enqueue_many(([0.0, 0.0, 0.0],))
    ...     x = q.dequeue()
    ...     increment = q.enqueue([x + 1])
    ...     with tf.Session() as sess:
    ...         sess.run(init)
    ...         for _ in range(4):
    ...             sess.run(increment)
    ...         print([float(sess.run(x)) for _ in range(3)])
    [1.0, 1.0, 2.0]
    """

    _kind = "fifo_queue"

    def __init__(
        self,
        capacity: int,
        dtypes: Any,
        shapes: Any = None,
        names: Sequence[str] | None = None,
        shared_name: str | None = None,
        name: str = "fifo_queue",
    ) -> None:
        super().__init__(capacity, dtypes, shapes, names, name=name)


class RandomShuffleQueue(QueueBase):
    """A queue that gives its elements in a random order, keeping ``min_after_dequeue`` of
    them until it is closed (TF1's ``tf.RandomShuffleQueue``). The order is NumPy's, not
    TF's; a ``seed`` (or the graph's seed) makes it the same at every run."""

    _kind = "random_shuffle_queue"

    def __init__(
        self,
        capacity: int,
        min_after_dequeue: int,
        dtypes: Any,
        shapes: Any = None,
        names: Sequence[str] | None = None,
        seed: int | None = None,
        shared_name: str | None = None,
        name: str = "random_shuffle_queue",
    ) -> None:
        super().__init__(
            capacity,
            dtypes,
            shapes,
            names,
            min_after_dequeue=min_after_dequeue,
            seed=seed,
            shuffle=True,
            name=name,
        )


# -- queue runners and the coordinator ---------------------------------------------------------


class QueueRunner:
    """What fills a queue: its enqueue ops, run on demand (TF1's ``tf.train.QueueRunner``).

    TF runs each enqueue op in a thread of its own; symgrad runs them in turn, from the
    session, when a dequeue needs elements. When an enqueue op's input ends
    (``OutOfRangeError``) the runner runs ``close_op`` (by default the queue's ``close()``).
    """

    def __init__(
        self,
        queue: QueueBase | None = None,
        enqueue_ops: Sequence[Operation] | None = None,
        close_op: Operation | None = None,
        cancel_op: Operation | None = None,
        queue_closed_exception_types: Any = None,
        queue_runner_def: Any = None,
        import_scope: str | None = None,
    ) -> None:
        if queue_runner_def is not None:
            raise InvalidArgumentError("symgrad: QueueRunner: queue_runner_def is not supported")
        if not isinstance(queue, QueueBase):
            raise InvalidArgumentError(
                f"symgrad: QueueRunner needs a queue (tf.FIFOQueue...), got {type(queue).__name__}"
            )
        if not enqueue_ops:
            raise InvalidArgumentError("symgrad: QueueRunner needs at least one enqueue op")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else self._close_op
        self._exceptions: list[BaseException] = []

    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: list(self._enqueue_ops))
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    exceptions_raised = property(lambda self: list(self._exceptions))
    name = property(lambda self: self._queue.name)

    def create_threads(
        self,
        sess: Session,
        coord: Coordinator | None = None,
        daemon: bool = False,
        start: bool = False,
    ) -> list[_RunnerThread]:
        """Thread-like objects for this runner in ``sess`` (one per enqueue op); started,
        the runner fills its queue when a dequeue needs elements."""
        state = self._queue._state(sess)
        if any(r.runner is self and r.active() for r in state.runners):
            return []  # already running in this session, as TF answers
        runner_state = _RunnerState(self, sess, coord)
        state.runners.append(runner_state)
        threads = [
            _RunnerThread(runner_state, f"QueueRunnerThread-{self.name}-{index}", daemon)
            for index, _ in enumerate(self._enqueue_ops)
        ]
        for thread in threads:
            if coord is not None:
                coord.register_thread(thread)
            if start:
                thread.start()
        return threads


class _RunnerThread:
    """What ``start_queue_runners`` gives for each enqueue op: a thread in name only (the
    session runs the enqueue ops when dequeues need them); ``join`` returns at once."""

    def __init__(self, runner: _RunnerState, name: str, daemon: bool) -> None:
        self._runner = runner
        self.name = name
        self.daemon = daemon
        self.ident: int | None = None

    def start(self) -> None:
        self._runner.started = True

    def is_alive(self) -> bool:
        return self._runner.active()

    def join(self, timeout: float | None = None) -> None:
        return None

    def __repr__(self) -> str:
        return f"<_RunnerThread({self.name}, {'alive' if self.is_alive() else 'stopped'})>"


class Coordinator:
    """TF1's ``tf.train.Coordinator``: a stop flag that threads (here the queue runners) and
    the training loop share, and the first error reported to it.

    >>> coord = Coordinator()
    >>> coord.should_stop()
    False
    >>> with coord.stop_on_exception():
    ...     raise OutOfRangeError("end of the input")
    >>> coord.should_stop(), coord.join([])
    (True, None)
    """

    def __init__(self, clean_stop_exception_types: Sequence[type] | None = None) -> None:
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._stop = False
        self._exc_info: Any = None
        self._registered: list[Any] = []
        self._joined = False

    def should_stop(self) -> bool:
        """Whether a stop was requested."""
        return self._stop

    def request_stop(self, ex: Any = None) -> None:
        """Ask everything to stop; ``ex`` (an exception or an ``exc_info`` triple) is raised
        again by ``join``, unless it is a clean stop (``OutOfRangeError``)."""
        if ex is not None and self._exc_info is None:
            if isinstance(ex, tuple):
                error = ex[1]
                info = ex
            else:
                error = ex
                info = (type(ex), ex, ex.__traceback__)
            if not isinstance(error, self._clean_stop_exception_types):
                self._exc_info = info
        self._stop = True

    def clear_stop(self) -> None:
        """Forget a stop request (and the reported error), to use the coordinator again."""
        self._stop = False
        self._exc_info = None
        self._joined = False

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Whether a stop was requested (nothing else runs that could request it while this
        waits, so it answers at once)."""
        return self._stop

    @contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        """A block whose exception requests a stop instead of propagating."""
        try:
            yield
        except BaseException:
            self.request_stop(ex=sys.exc_info())

    def register_thread(self, thread: Any) -> None:
        self._registered.append(thread)

    def join(
        self,
        threads: Sequence[Any] | None = None,
        stop_grace_period_secs: float = 120,
        ignore_live_threads: bool = False,
    ) -> None:
        """Wait for the threads (the queue runners' stop at once), then raise the error that
        was reported with ``request_stop``, if any."""
        for thread in [*(threads or []), *self._registered]:
            join = getattr(thread, "join", None)
            if join is not None and not isinstance(thread, _RunnerThread):
                join(stop_grace_period_secs)
        self._registered = []
        self._joined = True
        if self._exc_info is not None:
            error = self._exc_info[1]
            raise error.with_traceback(self._exc_info[2])

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        """Raise the error reported with ``request_stop``, if any."""
        if self._exc_info is not None:
            raise self._exc_info[1]


def add_queue_runner(qr: QueueRunner, collection: str = GraphKeys.QUEUE_RUNNERS) -> None:
    """Add ``qr`` to the graph's queue runners (what ``start_queue_runners`` starts)."""
    qr.queue._graph.add_to_collection(collection, qr)


def start_queue_runners(
    sess: Session | None = None,
    coord: Coordinator | None = None,
    daemon: bool = True,
    start: bool = True,
    collection: str = GraphKeys.QUEUE_RUNNERS,
) -> list[_RunnerThread]:
    """Start the graph's queue runners in ``sess`` (the default session): their thread-like
    objects, to give ``coord.join``."""
    if sess is None:
        sess = get_default_session()
        if sess is None:
            raise InvalidArgumentError(
                "symgrad: start_queue_runners: no session given and no default session"
            )
    if not isinstance(sess, Session):
        raise InvalidArgumentError(
            f"symgrad: start_queue_runners: sess must be a tf.Session, got {type(sess).__name__}"
        )
    threads: list[_RunnerThread] = []
    for runner in sess.graph.get_collection(collection):
        threads.extend(runner.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


# -- producers and batching --------------------------------------------------------------------


def _producer(
    components: list[Tensor],
    element_shapes: list[Shape],
    num_epochs: int | None,
    shuffle: bool,
    seed: int | None,
    capacity: int,
    name: str,
    rows_of: Callable[[list[np.ndarray]], list[np.ndarray]] | None = None,
) -> FIFOQueue:
    """A FIFO queue that its runner fills with the slices of ``components`` (along their first
    dimension), an epoch at a time: ``num_epochs`` of them (None: no end), each in a random
    order with ``shuffle``."""
    if num_epochs is not None and (isinstance(num_epochs, Tensor) or int(num_epochs) < 1):
        raise InvalidArgumentError(
            f"symgrad: {name}: num_epochs must be a positive Python int or None, got {num_epochs!r}"
        )
    graph = get_default_graph()
    queue = FIFOQueue(capacity, [c.dtype for c in components], element_shapes, name=name)
    given = [s for s in (graph.seed, seed) if s is not None]
    seeds = [*given, zlib.crc32(queue.name.encode())] if given else None
    key = ("producer", queue)

    def produce(session: Session, feeds: Mapping[Tensor, Any]) -> None:
        state = session.host_state.get(key)
        if state is None:
            entropy: Any = seeds or [np.random.SeedSequence().entropy]
            rng = np.random.default_rng(entropy)
            state = session.host_state[key] = SimpleNamespace(epochs=0, rng=rng)
        if num_epochs is not None and state.epochs >= int(num_epochs):
            raise OutOfRangeError(f"symgrad: {name}: reached the limit of {num_epochs} epoch(s)")
        values = [np.asarray(v) for v in session.run(components, feed_dict=dict(feeds))]
        if rows_of is not None:
            values = rows_of(values)
        lengths = {v.shape[0] if v.ndim else -1 for v in values}
        if len(lengths) != 1 or -1 in lengths:
            raise InvalidArgumentError(
                f"symgrad: {name}: the tensors need one first dimension, got shapes "
                f"{[list(v.shape) for v in values]}"
            )
        (length,) = lengths
        order = state.rng.permutation(length) if shuffle else range(length)
        state.epochs += 1
        queue._put(session, [[v[i] for v in values] for i in order], forced=True)

    enqueue = graph.create_op(
        "NoOp", [], {"control": [], HOST_ACTION: produce}, [], name=f"{queue.name}_EnqueueMany"
    )
    add_queue_runner(QueueRunner(queue, [enqueue]))
    return queue


def slice_input_producer(
    tensor_list: Sequence[Any],
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
) -> list[Tensor]:
    """One slice of each tensor (along the first dimension) per run, as TF1's
    ``tf.train.slice_input_producer``: every slice once per epoch, in a random order with
    ``shuffle`` (NumPy's, not TF's: a seed makes it reproducible), ``num_epochs`` epochs (None:
    no end), then ``OutOfRangeError``. Needs ``tf.train.start_queue_runners``.

    >>> import numpy as np, symgrad as tf
    >>> with tf.Graph().as_default():
    ...     x, y = tf.train.slice_input_producer(
    ...         [np.arange(3.0), np.array([7, 8, 9])], num_epochs=1, shuffle=False)
    ...     with tf.Session() as sess:
    ...         threads = tf.train.start_queue_runners(sess)
    ...         print([sess.run([x, y]) for _ in range(3)])
    [[np.float64(0.0), np.int64(7)], [np.float64(1.0), np.int64(8)], [np.float64(2.0), np.int64(9)]]
    """
    graph = get_default_graph()
    with graph.as_default():
        tensors = [convert_to_tensor(t) for t in tensor_list]
    if not tensors:
        raise InvalidArgumentError("symgrad: slice_input_producer: tensor_list is empty")
    shapes = [_tensor_shape(t) for t in tensors]
    element_shapes: list[Shape] = [None if s is None else s[1:] for s in shapes]
    queue = _producer(
        tensors,
        element_shapes,
        num_epochs,
        shuffle,
        seed,
        capacity,
        name or "input_producer",
    )
    return queue._dequeue(None, False, None)


def range_input_producer(
    limit: int,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
) -> FIFOQueue:
    """A queue of the integers ``0 .. limit-1`` (int32), an epoch at a time, as TF1's
    ``tf.train.range_input_producer``; ``dequeue()`` it."""
    if isinstance(limit, Tensor) or int(limit) < 0:
        raise InvalidArgumentError(
            f"symgrad: range_input_producer: limit must be a Python int, got {limit!r}"
        )
    with get_default_graph().as_default():
        values = convert_to_tensor(np.arange(int(limit), dtype=np.int32))
    return _producer([values], [()], num_epochs, shuffle, seed, capacity, name or "input_producer")


def input_producer(
    input_tensor: Any,
    element_shape: Any = None,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    summary_name: str | None = None,
    name: str | None = None,
    cancel_op: Any = None,
) -> FIFOQueue:
    """A queue of the rows of ``input_tensor``, an epoch at a time, as TF1's
    ``tf.train.input_producer``; ``dequeue()`` it."""
    with get_default_graph().as_default():
        tensor = convert_to_tensor(input_tensor)
    shape = _tensor_shape(tensor)
    row: Shape = (
        _shape_of(element_shape)
        if element_shape is not None
        else (None if shape is None else shape[1:])
    )
    return _producer([tensor], [row], num_epochs, shuffle, seed, capacity, name or "input_producer")


def _as_list(tensors: Any, function: str) -> tuple[list[Tensor], Callable[[list[Tensor]], Any]]:
    """The tensors of ``tensors`` (a tensor, a list or a dict, by sorted key) and how to give
    dequeued tensors back in that structure, as TF1's batching functions do."""
    if isinstance(tensors, Mapping):
        keys = sorted(tensors)
        return [tensors[k] for k in keys], lambda out: dict(zip(keys, out, strict=True))
    if isinstance(tensors, (list, tuple)):
        if not tensors:
            raise InvalidArgumentError(f"symgrad: {function}: no tensors to batch")
        return list(tensors), lambda out: out[0] if len(out) == 1 else list(out)
    return [tensors], lambda out: out[0]


def _batching(
    function: str,
    tensors_list: list[Any],
    batch_size: int,
    capacity: int,
    enqueue_many: bool,
    shapes: Any,
    allow_smaller_final_batch: bool,
    name: str | None,
    dynamic_pad: bool = False,
    min_after_dequeue: int | None = None,
    seed: int | None = None,
    num_threads: int = 1,
) -> Any:
    if dynamic_pad:
        raise InvalidArgumentError(
            f"symgrad: {function}: dynamic_pad is not supported; pad the elements to one shape "
            "(with NumPy, or tf.pad) before batching"
        )
    if isinstance(batch_size, Tensor) or int(batch_size) < 1:
        raise InvalidArgumentError(
            f"symgrad: {function}: batch_size must be a positive Python int, got {batch_size!r}"
        )
    graph = get_default_graph()
    lists = []
    rebuild: Callable[[list[Tensor]], Any] = lambda out: out  # noqa: E731
    with graph.as_default():
        for tensors in tensors_list:
            flat, rebuild = _as_list(tensors, function)
            lists.append([convert_to_tensor(t) for t in flat])
    first = lists[0]
    if any(len(other) != len(first) for other in lists):
        raise InvalidArgumentError(f"symgrad: {function}: the tensor lists differ in length")
    if shapes is None:
        shapes = []
        for tensor in first:
            shape = _tensor_shape(tensor)
            shapes.append(None if shape is None else (shape[1:] if enqueue_many else shape))
    dtypes = [t.dtype for t in first]
    if min_after_dequeue is None:
        queue: QueueBase = FIFOQueue(capacity, dtypes, shapes, name=name or "batch/fifo_queue")
    else:
        queue = RandomShuffleQueue(
            capacity,
            min_after_dequeue,
            dtypes,
            shapes,
            seed=seed,
            name=name or "shuffle_batch/random_shuffle_queue",
        )
    ops = [(queue.enqueue_many if enqueue_many else queue.enqueue)(tensors) for tensors in lists]
    if len(lists) == 1:
        ops = ops * max(1, int(num_threads))
    add_queue_runner(QueueRunner(queue, ops))
    out = queue._dequeue(int(batch_size), allow_smaller_final_batch, None)
    return rebuild(out)


def batch(
    tensors: Any,
    batch_size: int,
    num_threads: int = 1,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """``batch_size`` elements of ``tensors`` stacked, in order (TF1's ``tf.train.batch``):
    a tensor, list or dict of them, as ``tensors`` is (a list of one gives a tensor). With
    ``enqueue_many`` each run of ``tensors`` gives several elements; with
    ``allow_smaller_final_batch`` the last batch holds what is left."""
    return _batching(
        "tf.train.batch",
        [tensors],
        batch_size,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        name,
        dynamic_pad,
        num_threads=num_threads,
    )


def shuffle_batch(
    tensors: Any,
    batch_size: int,
    capacity: int,
    min_after_dequeue: int,
    num_threads: int = 1,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """``batch_size`` elements of ``tensors`` taken at random from a buffer (TF1's
    ``tf.train.shuffle_batch``): a :class:`RandomShuffleQueue` filled to ``capacity``
    (at least ``min_after_dequeue + batch_size``) before each batch, as TF's threads keep it
    full. The order is NumPy's, not TF's; a seed makes it the same at every run."""
    return _batching(
        "tf.train.shuffle_batch",
        [tensors],
        batch_size,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        name,
        min_after_dequeue=min_after_dequeue,
        seed=seed,
        num_threads=num_threads,
    )


def batch_join(
    tensors_list: Sequence[Any],
    batch_size: int,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """``tf.train.batch`` of several lists of tensors, each filled by an enqueue op of its
    own (run in turn; TF runs them in threads)."""
    return _batching(
        "tf.train.batch_join",
        list(tensors_list),
        batch_size,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        name,
        dynamic_pad,
    )


def shuffle_batch_join(
    tensors_list: Sequence[Any],
    batch_size: int,
    capacity: int,
    min_after_dequeue: int,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """``tf.train.shuffle_batch`` of several lists of tensors (see ``batch_join``)."""
    return _batching(
        "tf.train.shuffle_batch_join",
        list(tensors_list),
        batch_size,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        name,
        min_after_dequeue=min_after_dequeue,
        seed=seed,
    )


# ``tf.train.queue_runner``: TF1's module of the same names.
queue_runner = SimpleNamespace(
    QueueRunner=QueueRunner,
    add_queue_runner=add_queue_runner,
    start_queue_runners=start_queue_runners,
)

__all__ = [
    "Coordinator",
    "FIFOQueue",
    "QueueBase",
    "QueueRunner",
    "RandomShuffleQueue",
    "add_queue_runner",
    "batch",
    "batch_join",
    "input_producer",
    "queue_runner",
    "range_input_producer",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "start_queue_runners",
]
