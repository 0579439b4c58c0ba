"""TF1's ``tf.data``: input pipelines fed from Python into a :class:`symgrad.Session`.

A :class:`Dataset` describes a sequence of elements (a tensor, or a tuple or dict of them);
an iterator's ``get_next()`` gives placeholders of the element's structure that the session
fills itself: each ``run`` that needs them takes the next element, and a run past the end
raises ``tf.errors.OutOfRangeError``, as in TF1::

    dataset = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(100).batch(32)
    x, y = dataset.make_one_shot_iterator().get_next()
    ...
    while True:
        try:
            sess.run(train_op)
        except tf.errors.OutOfRangeError:
            break

The elements are computed with NumPy, in Python, when a run asks for them: slices of arrays
(or of tensors, evaluated in the session when the iterator starts, with the feeds of that
run), ``map`` functions built once into the graph on placeholders for an element and run by
the session for each element. ``shuffle`` keeps TF's buffer algorithm (a seed makes it
reproducible, though not TF's order).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Iterator as PyIterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from .errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    OutOfRangeError,
    ShapeError,
)
from .graph import Graph, Tensor, get_default_graph
from .ops.sources import convert_to_tensor, placeholder
from .session import HOST_ACTION, HOST_INPUT, Session
from .shapes import TensorShape
from .tf1_names import missing_attribute

Element = list[np.ndarray]  # an element's components, flattened


@dataclass(frozen=True)
class _Spec:
    """One component of an element: its dtype and static shape (``None``: unknown rank)."""

    dtype: _dtypes.DType
    shape: tuple[int | None, ...] | None


# -- structures: a tensor, or (named) tuples and dicts of them, nested ------------------------


def _is_tuple(value: Any) -> bool:
    return isinstance(value, tuple)


def _flatten(structure: Any) -> list[Any]:
    """The leaves of ``structure`` in TF's order (dicts by sorted key)."""
    if isinstance(structure, Mapping):
        return [leaf for key in sorted(structure) for leaf in _flatten(structure[key])]
    if _is_tuple(structure):
        return [leaf for part in structure for leaf in _flatten(part)]
    return [structure]


def _pack(structure: Any, leaves: PyIterator[Any]) -> Any:
    """``structure`` with its leaves replaced, in order, by the next of ``leaves``."""
    if isinstance(structure, Mapping):
        packed = {key: _pack(structure[key], leaves) for key in sorted(structure)}
        return {key: packed[key] for key in structure}
    if _is_tuple(structure):
        parts = [_pack(part, leaves) for part in structure]
        return type(structure)(*parts) if hasattr(structure, "_fields") else tuple(parts)
    return next(leaves)


def _map_structure(function: Callable[[Any], Any], structure: Any) -> Any:
    return _pack(structure, iter([function(leaf) for leaf in _flatten(structure)]))


def _as_structure(value: Any) -> Any:
    """A map function's result as an element structure: lists become tuples, as in TF."""
    if isinstance(value, Mapping):
        return {key: _as_structure(part) for key, part in value.items()}
    if isinstance(value, list):
        return tuple(_as_structure(part) for part in value)
    if _is_tuple(value):
        parts = [_as_structure(part) for part in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    return value


# -- running: what an iterator's elements are computed with ------------------------------------


class _Context:
    """What a pipeline computes with from one start of an iterator: the session, the feeds
    of the run that started it, the values of the tensors its datasets hold, and the random
    streams of its shuffles."""

    def __init__(self, session: Session, feeds: Mapping[Tensor, Any]) -> None:
        self.session = session
        self.feeds = dict(feeds)
        self.values: dict[Tensor, np.ndarray] = {}
        self.streams: dict[Any, Any] = {}  # per shuffle: its seed and its random stream

    def evaluate(self, tensors: Sequence[Tensor]) -> list[np.ndarray]:
        """The values of ``tensors`` in the session, with the starting run's feeds."""
        wanted = [t for t in dict.fromkeys(tensors) if t not in self.values]
        if wanted:
            values = self.session.run(wanted, feed_dict=self.feeds)
            self.values.update(zip(wanted, (np.asarray(v) for v in values), strict=True))
        return [self.values[t] for t in tensors]


def _component(value: Any, what: str) -> np.ndarray | Tensor:
    """A dataset's component: a tensor as it is; a Python or NumPy value as an array of the
    dtype TF gives it (Python floats float32, ints int32; NumPy arrays keep theirs)."""
    if isinstance(value, Tensor):
        return value
    dtype = _dtypes.infer_dtype(value, what)
    return np.asarray(value, dtype=dtype.numpy)


def _spec_of(value: np.ndarray | Tensor, drop: int = 0) -> _Spec:
    if isinstance(value, Tensor):
        shape = None if value.shape is None else tuple(value.shape)[drop:]
        return _Spec(value.dtype, shape)
    return _Spec(_dtypes.as_dtype(value.dtype), tuple(value.shape)[drop:])


# -- datasets ----------------------------------------------------------------------------------


class Dataset:
    """A sequence of elements, each a tensor or a (nested) tuple or dict of them, as TF1's
    ``tf.data.Dataset``. Build one with a constructor (``from_tensor_slices``,
    ``from_tensors``, ``range``, ``zip``), change it with the methods (``map``, ``batch``,
    ``shuffle``, ``repeat``, ``take``, ``skip``, ``prefetch``), and read it in a session
    through an iterator.

    >>> import symgrad as tf
    >>> with tf.Graph().as_default():
    ...     dataset = tf.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0], [1, 0, 1])).batch(2)
    ...     x, y = dataset.make_one_shot_iterator().get_next()
    ...     with tf.Session() as sess:
    ...         print(sess.run([x, y]), sess.run(x * 10.0))
    [array([1., 2.], dtype=float32), array([1, 0], dtype=int32)] [30.]
    >>> dataset.output_types, dataset.output_shapes
    ((symgrad.float32, symgrad.int32), ((None,), (None,)))
    """

    def __init__(
        self,
        structure: Any,
        elements: Callable[[_Context], PyIterator[Element]],
        tensors: Sequence[Tensor] = (),
        graph: Graph | None = None,
    ) -> None:
        self._structure = structure  # leaves: _Spec
        self._elements = elements
        self._tensors = tuple(tensors)  # evaluated when an iterator starts
        self._graph = graph or get_default_graph()

    # -- what the elements are --------------------------------------------------------------
    @property
    def output_types(self) -> Any:
        """The dtypes of an element's components, in its structure."""
        return _map_structure(lambda spec: spec.dtype, self._structure)

    @property
    def output_shapes(self) -> Any:
        """The static shapes of an element's components (a ``TensorShape`` each)."""
        return _map_structure(lambda spec: TensorShape(spec.shape), self._structure)

    @property
    def output_classes(self) -> Any:
        """The class of each component: ``Tensor``."""
        return _map_structure(lambda spec: Tensor, self._structure)

    def _specs(self) -> list[_Spec]:
        return _flatten(self._structure)

    def _derived(
        self,
        structure: Any,
        elements: Callable[[_Context], PyIterator[Element]],
        inputs: Sequence[Dataset] = (),
    ) -> Dataset:
        tensors = [t for dataset in (self, *inputs) for t in dataset._tensors]
        return Dataset(structure, elements, tensors, self._graph)

    # -- constructors -------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any) -> Dataset:
        """One element per row of ``tensors`` (arrays, lists, tensors, or a tuple or dict of
        them, all with the same first size).

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     d = tf.data.Dataset.from_tensor_slices({"a": [[1, 2], [3, 4]], "b": [0.5, 1.5]})
        ...     print(d.output_shapes)
        {'a': (2,), 'b': ()}
        """
        structure = _map_structure(
            lambda v: _component(v, "Dataset.from_tensor_slices"), _as_input(tensors)
        )
        components = _flatten(structure)
        for component in components:
            shape = component.shape
            if shape is not None and len(shape) == 0:
                raise InvalidArgumentError(
                    "symgrad: Dataset.from_tensor_slices: a component is a scalar; slicing "
                    "needs at least one axis"
                )
        sizes = {c.shape[0] for c in components if c.shape is not None and c.shape[0] is not None}
        if len(sizes) > 1:
            raise InvalidArgumentError(
                f"symgrad: Dataset.from_tensor_slices: the components' first dimensions "
                f"differ: {sorted(sizes)}"
            )
        specs = _map_structure(lambda c: _spec_of(c, drop=1), structure)
        tensors_held = [c for c in components if isinstance(c, Tensor)]

        def elements(context: _Context) -> PyIterator[Element]:
            values = _values(components, context)
            lengths = {len(v) for v in values}
            if len(lengths) != 1:
                raise InvalidArgumentError(
                    f"symgrad: Dataset.from_tensor_slices: the components' first dimensions "
                    f"differ: {sorted(lengths)}"
                )
            for index in range(lengths.pop()):
                yield [v[index] for v in values]

        return Dataset(specs, elements, tensors_held)

    @staticmethod
    def from_tensors(tensors: Any) -> Dataset:
        """A dataset of one element: ``tensors`` (a value, a tensor, or a tuple or dict).

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     d = tf.data.Dataset.from_tensors(([1, 2, 3], 4.0)).repeat(2)
        ...     print(d.output_types, d.output_shapes)
        (symgrad.int32, symgrad.float32) ((3,), ())
        """
        structure = _map_structure(
            lambda v: _component(v, "Dataset.from_tensors"), _as_input(tensors)
        )
        components = _flatten(structure)

        def elements(context: _Context) -> PyIterator[Element]:
            yield _values(components, context)

        specs = _map_structure(_spec_of, structure)
        return Dataset(specs, elements, [c for c in components if isinstance(c, Tensor)])

    @staticmethod
    def range(*args: int) -> Dataset:
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)``: int64
        scalars, as Python's ``range`` counts.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     n = tf.data.Dataset.range(2, 8, 3).make_one_shot_iterator().get_next()
        ...     with tf.Session() as sess:
        ...         print(sess.run(n), sess.run(n))
        2 5
        """
        if not 1 <= len(args) <= 3:
            raise InvalidArgumentError(
                f"symgrad: Dataset.range takes 1 to 3 arguments, got {len(args)}"
            )
        bounds = range(*(int(a) for a in args))

        def elements(context: _Context) -> PyIterator[Element]:
            for value in bounds:
                yield [np.asarray(value, dtype=np.int64)]

        return Dataset(_Spec(_dtypes.int64, ()), elements)

    @staticmethod
    def zip(datasets: Any) -> Dataset:
        """Elements of several datasets side by side (a tuple or dict of datasets, nested):
        as long as the shortest.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     a = tf.data.Dataset.range(3)
        ...     b = tf.data.Dataset.from_tensor_slices([10.0, 20.0])
        ...     x, y = tf.data.Dataset.zip((a, b)).make_one_shot_iterator().get_next()
        ...     with tf.Session() as sess:
        ...         print(sess.run([x, y]), sess.run([x, y]))
        [np.int64(0), np.float32(10.0)] [np.int64(1), np.float32(20.0)]
        """
        parts: list[Dataset] = _flatten(datasets)
        if not parts or not all(isinstance(part, Dataset) for part in parts):
            raise InvalidArgumentError(
                f"symgrad: Dataset.zip takes a tuple or dict of datasets, got {datasets!r:.80}"
            )
        structure = _pack(datasets, iter([part._structure for part in parts]))

        def elements(context: _Context) -> PyIterator[Element]:
            streams = [part._elements(context) for part in parts]
            while True:
                element: Element = []
                for stream in streams:
                    item = next(stream, None)
                    if item is None:
                        return
                    element.extend(item)
                yield element

        return parts[0]._derived(structure, elements, parts[1:])

    # -- transformations ----------------------------------------------------------------------
    def map(self, map_func: Callable[..., Any], num_parallel_calls: Any = None) -> Dataset:
        """Apply ``map_func`` to each element: it is called once, on placeholders of the
        element's structure (a tuple's components as separate arguments), and the ops it
        builds are run by the session for each element. ``num_parallel_calls`` changes
        nothing.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     d = tf.data.Dataset.from_tensor_slices(([1.0, 2.0], [3.0, 4.0]))
        ...     total = d.map(lambda a, b: a + b).make_one_shot_iterator().get_next()
        ...     with tf.Session() as sess:
        ...         print(sess.run(total), sess.run(total))
        4.0 6.0
        """
        with self._graph.as_default(), self._graph.name_scope("map"):
            inputs = _map_structure(
                lambda spec: placeholder(spec.dtype, spec.shape, name="element"),
                self._structure,
            )
            if _is_tuple(inputs) and not hasattr(inputs, "_fields"):
                result = map_func(*inputs)
            else:
                result = map_func(inputs)
            outputs = _map_structure(convert_to_tensor, _as_structure(result))
        fed = _flatten(inputs)
        fetched = _flatten(outputs)
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            for element in source(context):
                feeds = {**context.feeds, **dict(zip(fed, element, strict=True))}
                values = context.session.run(fetched, feed_dict=feeds)
                yield [np.asarray(v) for v in values]

        return self._derived(_map_structure(_spec_of, outputs), elements)

    def batch(self, batch_size: int, drop_remainder: bool = False) -> Dataset:
        """Stack ``batch_size`` consecutive elements into one; the last batch may be smaller
        unless ``drop_remainder``. The batch axis is ``None`` in ``output_shapes`` (the size
        with ``drop_remainder=True``).

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     b = tf.data.Dataset.range(5).batch(2).make_one_shot_iterator().get_next()
        ...     with tf.Session() as sess:
        ...         print([sess.run(b).tolist() for _ in range(3)])
        [[0, 1], [2, 3], [4]]
        """
        size = _positive(batch_size, "batch", "batch_size")
        outer = size if drop_remainder else None
        structure = _map_structure(
            lambda spec: _Spec(spec.dtype, None if spec.shape is None else (outer, *spec.shape)),
            self._structure,
        )
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            stream = source(context)
            while True:
                rows = [row for _, row in zip(range(size), stream, strict=False)]
                if not rows or (drop_remainder and len(rows) < size):
                    return
                yield [_stack([row[i] for row in rows]) for i in range(len(rows[0]))]

        return self._derived(structure, elements)

    def shuffle(
        self, buffer_size: int, seed: int | None = None, reshuffle_each_iteration: bool = True
    ) -> Dataset:
        """Shuffle with TF's buffer: keep ``buffer_size`` elements, give a uniformly chosen
        one and put the next element in its place. ``seed`` (or the graph's
        ``set_random_seed``) makes the order the same at each start of an iterator; each
        epoch of a ``repeat`` after it gets a new order unless ``reshuffle_each_iteration``
        is False. The order is not TensorFlow's.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     n = tf.data.Dataset.range(5).shuffle(5, seed=1).batch(5)
        ...     with tf.Session() as sess:
        ...         print(sorted(sess.run(n.make_one_shot_iterator().get_next()).tolist()))
        [0, 1, 2, 3, 4]
        """
        size = _positive(buffer_size, "shuffle", "buffer_size")
        given = [s for s in (self._graph.seed, seed) if s is not None]
        source = self._elements
        seed_key, stream_key = object(), object()  # this shuffle's entries in a context

        def elements(context: _Context) -> PyIterator[Element]:
            seeds = context.streams.get(seed_key)
            if seeds is None:  # without a seed: a new one at each start of the iterator
                seeds = context.streams[seed_key] = given or [np.random.SeedSequence().entropy]
            stream = context.streams.get(stream_key)
            if stream is None or not reshuffle_each_iteration:
                stream = context.streams[stream_key] = np.random.default_rng(seeds)
            buffer: list[Element] = []
            for element in source(context):
                if len(buffer) < size:
                    buffer.append(element)
                    continue
                index = int(stream.integers(len(buffer)))
                yield buffer[index]
                buffer[index] = element
            while buffer:
                index = int(stream.integers(len(buffer)))
                buffer[index], buffer[-1] = buffer[-1], buffer[index]
                yield buffer.pop()

        return self._derived(self._structure, elements)

    def repeat(self, count: int | None = None) -> Dataset:
        """The elements ``count`` times over (``None`` or ``-1``: for ever).

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     b = tf.data.Dataset.range(3).repeat(2).batch(4).make_one_shot_iterator()
        ...     nxt = b.get_next()
        ...     with tf.Session() as sess:
        ...         print(sess.run(nxt).tolist(), sess.run(nxt).tolist())
        [0, 1, 2, 0] [1, 2]
        """
        times = -1 if count is None else int(count)
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            epoch = 0
            while times < 0 or epoch < times:
                empty = True
                for element in source(context):
                    empty = False
                    yield element
                if empty:
                    return
                epoch += 1

        return self._derived(self._structure, elements)

    def take(self, count: int) -> Dataset:
        """The first ``count`` elements (``-1``: all)."""
        limit = int(count)
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            if limit < 0:
                yield from source(context)
                return
            for _, element in zip(range(limit), source(context), strict=False):
                yield element

        return self._derived(self._structure, elements)

    def skip(self, count: int) -> Dataset:
        """All but the first ``count`` elements (``-1``: none)."""
        limit = int(count)
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            for index, element in enumerate(source(context)):
                if 0 <= limit <= index:
                    yield element

        return self._derived(self._structure, elements)

    def prefetch(self, buffer_size: Any) -> Dataset:
        """The same dataset: symgrad computes each element when a run asks for it."""
        return self

    # -- iterators ----------------------------------------------------------------------------
    def make_one_shot_iterator(self) -> Iterator:
        """An iterator that starts by itself at its first ``get_next`` run, once."""
        return Iterator(self, initializable=False)

    def make_initializable_iterator(self, shared_name: str | None = None) -> Iterator:
        """An iterator started (and restarted) by running its ``initializer``."""
        return Iterator(self, initializable=True)


def _as_input(value: Any) -> Any:
    """A dataset constructor's argument as a structure: tuples and dicts are structures,
    lists are values (as TF reads them)."""
    if isinstance(value, Mapping):
        return {key: value[key] for key in value}
    return value


def _values(components: Sequence[np.ndarray | Tensor], context: _Context) -> list[np.ndarray]:
    tensors = [c for c in components if isinstance(c, Tensor)]
    computed = iter(context.evaluate(tensors))
    return [next(computed) if isinstance(c, Tensor) else c for c in components]


def _positive(value: Any, method: str, argument: str) -> int:
    if isinstance(value, Tensor) or int(value) < 1:
        raise InvalidArgumentError(
            f"symgrad: Dataset.{method}: {argument} must be a positive Python int, got {value!r}"
        )
    return int(value)


def _stack(rows: list[np.ndarray]) -> np.ndarray:
    shapes = {np.shape(row) for row in rows}
    if len(shapes) > 1:
        raise ShapeError(
            f"symgrad: Dataset.batch: cannot batch components of different shapes {sorted(shapes)}"
        )
    return np.stack(rows)


# -- iterators ---------------------------------------------------------------------------------


class Iterator:
    """An iterator over a :class:`Dataset` (TF1's ``tf.data.Iterator``): ``get_next()`` gives
    tensors of the element's structure that a session fills with the next element in each run
    that needs them. All tensors of one ``get_next()`` share an element; each ``get_next()``
    call in a run takes an element of its own, as in TF1. Its position is kept per session.

    >>> import symgrad as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None])
    ...     iterator = tf.data.Dataset.from_tensor_slices(x).make_initializable_iterator()
    ...     value = iterator.get_next()
    ...     with tf.Session() as sess:
    ...         _ = sess.run(iterator.initializer, feed_dict={x: [1.0, 2.0]})
    ...         print(sess.run(value), sess.run(value))
    ...         try:
    ...             sess.run(value)
    ...         except tf.errors.OutOfRangeError:
    ...             print("end of the epoch")
    1.0 2.0
    end of the epoch
    """

    def __init__(self, dataset: Dataset, initializable: bool) -> None:
        if not isinstance(dataset, Dataset):
            raise InvalidArgumentError(
                f"symgrad: an iterator needs a tf.data.Dataset, got {type(dataset).__name__}"
            )
        self._dataset = dataset
        self._initializable = initializable
        self._graph = dataset._graph
        self._initializer: Any = None
        if initializable:
            self._initializer = self._graph.create_op(
                "NoOp", [], {"control": [], HOST_ACTION: self._start}, [], name="MakeIterator"
            )

    output_types = property(lambda self: self._dataset.output_types)
    output_shapes = property(lambda self: self._dataset.output_shapes)
    output_classes = property(lambda self: self._dataset.output_classes)

    @property
    def initializer(self) -> Any:
        """The op that (re)starts the iterator at its dataset's first element."""
        if self._initializer is None:
            raise InvalidArgumentError("symgrad: a one-shot iterator has no initializer")
        return self._initializer

    def _start(self, session: Session, feeds: Mapping[Tensor, Any]) -> None:
        context = _Context(session, feeds)
        context.evaluate(self._dataset._tensors)
        session.host_state[self] = self._dataset._elements(context)

    def _next(self, session: Session, feeds: Mapping[Tensor, Any]) -> Element:
        if self not in session.host_state:
            if self._initializable:
                raise FailedPreconditionError(
                    "symgrad: GetNext() failed because the iterator has not been initialized; "
                    "run its initializer first (sess.run(iterator.initializer))"
                )
            self._start(session, feeds)
        stream = session.host_state[self]
        element = None if stream is None else next(stream, None)
        if element is None:
            session.host_state[self] = None  # finished: every later run says so too
            raise OutOfRangeError("symgrad: End of sequence (the iterator has no element left)")
        return element

    def get_next(self, name: str | None = None) -> Any:
        """Tensors of the element's structure: each run that needs them takes the next
        element; past the last one the run raises ``tf.errors.OutOfRangeError``."""
        specs = self._dataset._specs()
        with self._graph.as_default():
            tensors: list[Tensor] = []

            def values(session: Session, feeds: Mapping[Tensor, Any]) -> dict[Tensor, Any]:
                element = self._next(session, feeds)
                return dict(zip(tensors, element, strict=True))

            base = name or "IteratorGetNext"
            for index, spec in enumerate(specs):
                op = self._graph.create_op(
                    "Placeholder",
                    [],
                    {HOST_INPUT: values},
                    [(spec.shape, spec.dtype)],
                    name=base if index == 0 else f"{base}_{index}",
                )
                tensors.append(op.outputs[0])
        return _pack(self._dataset._structure, iter(tensors))


def make_one_shot_iterator(dataset: Dataset) -> Iterator:
    """``dataset.make_one_shot_iterator()`` (TF1's ``tf.data.make_one_shot_iterator``).

    >>> import symgrad as tf
    >>> with tf.Graph().as_default():
    ...     n = tf.data.make_one_shot_iterator(tf.data.Dataset.range(3)).get_next()
    ...     with tf.Session() as sess:
    ...         print([int(sess.run(n)) for _ in range(3)])
    [0, 1, 2]
    """
    return Iterator(dataset, initializable=False)


def make_initializable_iterator(dataset: Dataset, shared_name: str | None = None) -> Iterator:
    """``dataset.make_initializable_iterator()`` (``tf.data.make_initializable_iterator``)."""
    return Iterator(dataset, initializable=True)


def get_output_types(dataset_or_iterator: Dataset | Iterator) -> Any:
    """The ``output_types`` of a dataset or iterator."""
    return dataset_or_iterator.output_types


def get_output_classes(dataset_or_iterator: Dataset | Iterator) -> Any:
    """The ``output_classes`` of a dataset or iterator (``Tensor`` for each component)."""
    return dataset_or_iterator.output_classes


def get_output_shapes(dataset_or_iterator: Dataset | Iterator) -> Any:
    """The ``output_shapes`` of a dataset or iterator."""
    return dataset_or_iterator.output_shapes


def __getattr__(name: str) -> Any:
    raise missing_attribute(__name__, "data", name)


__all__ = [
    "Dataset",
    "Iterator",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]
