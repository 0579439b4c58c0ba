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
the session for each element (``filter``'s predicate and ``flat_map``/``interleave``'s
functions too: the dataset such a function returns is read anew for each element), Python
generators (``from_generator``). ``shuffle`` keeps TF's buffer algorithm (a seed makes it
reproducible, though not TF's order).

Elements may hold ``tf.string`` components, host-side values as all of symgrad's strings are
(:mod:`symgrad.string_ops`): Python ``bytes``, NumPy object arrays of them once batched. They
come from text given to ``from_tensor_slices``/``from_tensors`` (a list of ``str``, a NumPy
string array, a string constant or placeholder), from ``from_generator`` with ``tf.string`` in
``output_types``, and from :class:`TextLineDataset` (the lines of text files); a ``map``
function takes them as string placeholders, so its body may use the host ops
(``tf.read_file``, the ``tf.image.decode_*`` decoders, ``tf.decode_csv``), the two file
pipelines of TF 1.4 and later::

    files = tf.data.Dataset.from_tensor_slices((filenames, labels))
    images = files.map(lambda f, y: (tf.image.decode_png(tf.read_file(f), channels=1), y))
    rows = tf.data.TextLineDataset("train.csv").skip(1).map(
        lambda line: tf.decode_csv(line, [[0.0], [0.0], [0]]))

A ``Session(backend="array_api")`` runs such pipelines but, as for any string tensor, cannot
fetch a string component. ``TFRecordDataset``, ``FixedLengthRecordDataset`` and string
handles (``Iterator.from_string_handle``) are not provided, and raise ``MissingTF1NameError``
naming a substitute.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Iterator as PyIterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from .errors import (
    DTypeError,
    FailedPreconditionError,
    InvalidArgumentError,
    MissingTF1NameError,
    OutOfRangeError,
    ShapeError,
)
from .graph import Graph, Tensor, get_default_graph
from .ops.sources import convert_to_tensor, placeholder
from .session import HOST_ACTION, HOST_INPUT, Session
from .shapes import TensorShape, as_shape
from .string_ops import read_bytes, split_lines
from .tf1_names import README_SECTION, missing_attribute

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


def _flatten_up_to(structure: Any, value: Any, what: str) -> list[Any]:
    """The parts of ``value`` at the leaves of ``structure``: ``value`` is nested as the
    structure is, with anything at a leaf (a shape as a list, a padding value...)."""
    if isinstance(structure, Mapping):
        if not isinstance(value, Mapping) or sorted(value) != sorted(structure):
            raise InvalidArgumentError(
                f"symgrad: {what} does not match the element's structure: {value!r:.80}"
            )
        return [
            part
            for key in sorted(structure)
            for part in _flatten_up_to(structure[key], value[key], what)
        ]
    if _is_tuple(structure):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            raise InvalidArgumentError(
                f"symgrad: {what} does not match the element's structure: {value!r:.80}"
            )
        return [
            part
            for inner, item in zip(structure, value, strict=True)
            for part in _flatten_up_to(inner, item, what)
        ]
    return [value]


Shape = tuple[int | None, ...] | None


def _shapes_of(structure: Any) -> Any:
    """The ``output_shapes`` of specs: a ``TensorShape`` each (``None``: unknown rank, as
    ``Tensor.get_shape()`` gives it)."""
    return _map_structure(
        lambda spec: None if spec.shape is None else TensorShape(spec.shape), structure
    )


def _compatible(a: Shape, b: Shape) -> bool:
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(
        x is None or y is None or x == y for x, y in zip(a, b, strict=True)
    )


def _most_specific_compatible(a: Shape, b: Shape) -> Shape:
    """The shape both ``a`` and ``b`` have: a dim where they agree, else ``None``."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b, strict=True))


def _structure_key(structure: Any) -> Any:
    """``structure`` with its leaves erased: equal for two elements nested alike."""
    return _map_structure(lambda leaf: None, structure)


# -- running: what an iterator's elements are computed with ------------------------------------


class _Context:
    """What a pipeline computes with from one start of an iterator: the session, the feeds
    of the run that started it, the values of the tensors its datasets hold, and the random
    streams of its shuffles."""

    def __init__(self, session: Session, feeds: Mapping[Tensor, Any]) -> None:
        self.session: Session = session
        self.feeds = dict(feeds)
        self.values: dict[Tensor, np.ndarray] = {}
        self.streams: dict[Any, Any] = {}  # per shuffle: its seed and its random stream

    def evaluate(self, tensors: Sequence[Tensor]) -> list[np.ndarray]:
        """The values of ``tensors`` in the session, with the starting run's feeds."""
        wanted = [t for t in dict.fromkeys(tensors) if t not in self.values]
        if wanted:
            values = self.session.host_run(wanted, feed_dict=self.feeds)
            self.values.update(
                (t, _host_array(v, t.dtype)) for t, v in zip(wanted, values, strict=True)
            )
        return [self.values[t] for t in tensors]

    def nested(self, placeholders: Sequence[Tensor], element: Element) -> _Context:
        """A context for a dataset built by a function of an element (``flat_map``,
        ``interleave``): these feeds with the function's placeholders fed the element."""
        return _Context(
            self.session, {**self.feeds, **dict(zip(placeholders, element, strict=True))}
        )


def _host_array(value: Any, dtype: _dtypes.DType) -> np.ndarray:
    """A component's value as an element holds it: a NumPy array, of ``bytes`` objects for
    a ``tf.string`` component (0-d for a scalar)."""
    if dtype == _dtypes.string:
        return _dtypes.string_array(value, "a tf.data element")
    return np.asarray(value)


def _component(value: Any, what: str) -> np.ndarray | Tensor:
    """A dataset's component: a tensor as it is; a Python or NumPy value as an array of the
    dtype TF gives it (Python floats float32, ints int32; NumPy arrays keep theirs; text,
    ``str`` or ``bytes``, is a ``tf.string`` component, an object array of ``bytes``)."""
    if isinstance(value, Tensor):
        return value
    if _dtypes.holds_text(value):
        return _dtypes.string_array(value, what)
    dtype = _dtypes.infer_dtype(value, what)
    return np.asarray(value, dtype=dtype.numpy)


def _spec_of(value: np.ndarray | Tensor, drop: int = 0) -> _Spec:
    if isinstance(value, Tensor):
        shape = None if value.shape is None else tuple(value.shape)[drop:]
        return _Spec(value.dtype, shape)
    dtype = _dtypes.string if value.dtype == object else _dtypes.as_dtype(value.dtype)
    return _Spec(dtype, tuple(value.shape)[drop:])


# -- datasets ----------------------------------------------------------------------------------


class Dataset:
    """A sequence of elements, each a tensor or a (nested) tuple or dict of them, as TF1's
    ``tf.data.Dataset``. Build one with a constructor (``from_tensor_slices``,
    ``from_tensors``, ``range``, ``zip``, ``from_generator``), change it with the methods
    (``map``, ``filter``, ``batch``, ``padded_batch``, ``shuffle``, ``repeat``, ``take``,
    ``skip``, ``flat_map``, ``interleave``, ``cache``, ``concatenate``, ``apply``,
    ``prefetch``), and read it in a session through an iterator (or one made by
    ``Iterator.from_structure`` and started over any dataset by its ``make_initializer``).

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
        return _shapes_of(self._structure)

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
        tensors: Sequence[Tensor] = (),
    ) -> Dataset:
        held = [t for dataset in (self, *inputs) for t in dataset._tensors]
        return Dataset(structure, elements, [*held, *tensors], self._graph)

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
        given = [_count(a) for a in args]  # ints, or int tensors computed at the start

        def elements(context: _Context) -> PyIterator[Element]:
            for value in range(*(_count_in(a, context) for a in given)):
                yield [np.asarray(value, dtype=np.int64)]

        return Dataset(
            _Spec(_dtypes.int64, ()), elements, [a for a in given if isinstance(a, Tensor)]
        )

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

    @staticmethod
    def from_generator(
        generator: Callable[..., Any],
        output_types: Any,
        output_shapes: Any = None,
        args: Sequence[Any] | None = None,
    ) -> Dataset:
        """The elements a Python generator yields: ``generator(*args)`` is called anew at
        each start of an iterator (and each epoch of a ``repeat``), ``args`` given as NumPy
        values (tensors among them evaluated when the iterator starts). Each element is
        converted to ``output_types`` as TF converts it (ints to floats yes, floats to ints
        no) and checked against ``output_shapes`` (``None``: any shape): a mismatch fails
        the run with ``tf.errors.InvalidArgumentError``, and the iterator is then at its
        end, as in TF.

        >>> import symgrad as tf
        >>> def pairs(n):
        ...     for i in range(n):
        ...         yield [i, i + 1], i * 0.5
        >>> with tf.Graph().as_default():
        ...     d = tf.data.Dataset.from_generator(
        ...         pairs, (tf.int64, tf.float32), ([2], []), args=(3,)
        ...     ).batch(2)
        ...     x, y = d.make_one_shot_iterator().get_next()
        ...     with tf.Session() as sess:
        ...         print(sess.run(x).tolist(), sess.run(y).tolist())
        [[0, 1], [1, 2]] [1.0]
        """
        if not callable(generator):
            raise InvalidArgumentError(
                f"symgrad: Dataset.from_generator: `generator` must be callable, got "
                f"{type(generator).__name__}"
            )
        types = _map_structure(_dtypes.as_dtype, _as_structure(output_types))
        dtypes = _flatten(types)
        if output_shapes is None:
            shapes: list[Shape] = [None] * len(dtypes)
        else:
            shapes = [
                as_shape(shape)
                for shape in _flatten_up_to(
                    types, output_shapes, "Dataset.from_generator: output_shapes"
                )
            ]
        specs = [_Spec(dtype, shape) for dtype, shape in zip(dtypes, shapes, strict=True)]
        structure = _pack(types, iter(specs))
        components = [_component(a, "Dataset.from_generator") for a in (args or ())]

        def elements(context: _Context) -> PyIterator[Element]:
            values = [v[()] if np.ndim(v) == 0 else v for v in _values(components, context)]
            # Not a generator function: an element rejected by _generated fails its run and
            # the next run goes on with the next element, as TF's does (when the iterator
            # reads this dataset directly; a transformation after it ends with the error).
            return map(lambda value: _generated(value, types, specs), generator(*values))

        return Dataset(structure, elements, [c for c in components if isinstance(c, Tensor)])

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
                values = context.session.host_run(fetched, feed_dict=feeds)
                yield [_host_array(v, t.dtype) for t, v in zip(fetched, values, strict=True)]

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
        """The elements ``count`` times over (``None`` or ``-1``: for ever). ``count`` (as
        ``take``'s and ``skip``'s) may be an int tensor, computed when the iterator starts (or,
        in a ``flat_map`` function, for each element).

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     b = tf.data.Dataset.range(3).repeat(2).batch(4).make_one_shot_iterator()
        ...     nxt = b.get_next()
        ...     with tf.Session() as sess:
        ...         print(sess.run(nxt).tolist(), sess.run(nxt).tolist())
        [0, 1, 2, 0] [1, 2]
        """
        given = -1 if count is None else _count(count)
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            times = _count_in(given, context)
            epoch = 0
            while times < 0 or epoch < times:
                empty = True
                for element in source(context):
                    empty = False
                    yield element
                if empty:
                    return
                epoch += 1

        return self._derived(self._structure, elements, tensors=_count_tensors(given))

    def take(self, count: int) -> Dataset:
        """The first ``count`` elements (``-1``: all)."""
        given = _count(count)
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            limit = _count_in(given, context)
            if limit < 0:
                yield from source(context)
                return
            for _, element in zip(range(limit), source(context), strict=False):
                yield element

        return self._derived(self._structure, elements, tensors=_count_tensors(given))

    def skip(self, count: int) -> Dataset:
        """All but the first ``count`` elements (``-1``: none)."""
        given = _count(count)
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            limit = _count_in(given, context)
            for index, element in enumerate(source(context)):
                if 0 <= limit <= index:
                    yield element

        return self._derived(self._structure, elements, tensors=_count_tensors(given))

    def prefetch(self, buffer_size: Any) -> Dataset:
        """The same dataset: symgrad computes each element when a run asks for it."""
        return self

    def _trace(
        self, function: Callable[..., Any], scope: str, finish: Callable[[Any], Any]
    ) -> tuple[list[Tensor], Any]:
        """Call ``function`` once on placeholders of an element (a tuple's components as
        separate arguments), as ``map`` does: the placeholders, and ``finish`` of what it
        returns (applied in the graph)."""
        with self._graph.as_default(), self._graph.name_scope(scope):
            inputs = _map_structure(
                lambda spec: placeholder(spec.dtype, spec.shape, name="element"),
                self._structure,
            )
            if _is_tuple(inputs) and not hasattr(inputs, "_fields"):
                result = function(*inputs)
            else:
                result = function(inputs)
            return _flatten(inputs), finish(result)

    def filter(self, predicate: Callable[..., Any]) -> Dataset:
        """The elements for which ``predicate`` is true: it is called once, on placeholders
        of the element's structure (as ``map``'s function), and must return a scalar
        ``tf.bool`` tensor, which the session computes for each element.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     d = tf.data.Dataset.range(10).filter(lambda n: tf.equal(n % 3, 0)).batch(5)
        ...     with tf.Session() as sess:
        ...         print(sess.run(d.make_one_shot_iterator().get_next()).tolist())
        [0, 3, 6, 9]
        """

        def scalar_bool(result: Any) -> Tensor:
            tensor = convert_to_tensor(result)
            if tensor.dtype != _dtypes.bool_ or (tensor.shape is not None and len(tensor.shape)):
                shape = "unknown" if tensor.shape is None else tuple(tensor.shape)
                raise InvalidArgumentError(
                    f"symgrad: Dataset.filter: `predicate` must return a tf.bool scalar "
                    f"tensor, but it returns {tensor.dtype.name} of shape {shape}"
                )
            return tensor

        fed, keep = self._trace(predicate, "filter", scalar_bool)
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            for element in source(context):
                feeds = {**context.feeds, **dict(zip(fed, element, strict=True))}
                if bool(context.session.host_run(keep, feed_dict=feeds)):
                    yield element

        return self._derived(self._structure, elements)

    def _trace_dataset(
        self, map_func: Callable[..., Any], method: str
    ) -> tuple[list[Tensor], Dataset]:
        def dataset(result: Any) -> Dataset:
            if not isinstance(result, Dataset):
                raise InvalidArgumentError(
                    f"symgrad: Dataset.{method}: `map_func` must return a tf.data.Dataset, "
                    f"got {type(result).__name__}"
                )
            return result

        return self._trace(map_func, method, dataset)

    def flat_map(self, map_func: Callable[..., Any]) -> Dataset:
        """The elements of the datasets ``map_func`` makes of each element, one dataset
        after the other. ``map_func`` is called once, on placeholders of the element (as
        ``map``'s function); the dataset it returns is read anew for each element.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     d = tf.data.Dataset.range(1, 4).flat_map(
        ...         lambda n: tf.data.Dataset.from_tensors(n).repeat(n)
        ...     )
        ...     with tf.Session() as sess:
        ...         print(sess.run(d.batch(6).make_one_shot_iterator().get_next()).tolist())
        [1, 2, 2, 3, 3, 3]
        """
        fed, inner = self._trace_dataset(map_func, "flat_map")
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            for element in source(context):
                yield from inner._elements(context.nested(fed, element))

        return self._derived(inner._structure, elements)

    def interleave(
        self,
        map_func: Callable[..., Any],
        cycle_length: int | None = None,
        block_length: int | None = None,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
    ) -> Dataset:
        """``flat_map`` with the datasets of ``cycle_length`` consecutive elements read in
        turn, ``block_length`` elements from each, in TF's deterministic order: a dataset
        that ends is replaced, in its place of the cycle, by the next element's.
        ``cycle_length`` ``None`` (TF's AUTOTUNE) is the number of CPUs, as in TF;
        ``block_length`` defaults to 1; ``num_parallel_calls`` changes nothing.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     d = tf.data.Dataset.range(1, 4).interleave(
        ...         lambda n: tf.data.Dataset.from_tensors(n).repeat(3), cycle_length=2
        ...     )
        ...     with tf.Session() as sess:
        ...         print(sess.run(d.batch(9).make_one_shot_iterator().get_next()).tolist())
        [1, 2, 1, 2, 1, 2, 3, 3, 3]
        """
        fed, inner = self._trace_dataset(map_func, "interleave")
        if cycle_length is None or (not isinstance(cycle_length, Tensor) and cycle_length == -1):
            cycle = os.cpu_count() or 1
        else:
            cycle = _positive(cycle_length, "interleave", "cycle_length")
        block = 1 if block_length is None else _positive(block_length, "interleave", "block_length")
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            inputs = source(context)
            slots: list[PyIterator[Element] | None] = [None] * cycle
            index = taken = opened = 0
            ended = False
            while opened or not ended:
                current = slots[index]
                if current is not None:
                    element = next(current, None)
                    if element is not None:
                        taken += 1
                        if taken == block:
                            index, taken = (index + 1) % cycle, 0
                        yield element
                        continue
                    slots[index] = None  # this one is done: the next in the cycle
                    opened -= 1
                    index, taken = (index + 1) % cycle, 0
                elif not ended:
                    item = next(inputs, None)
                    if item is None:
                        ended = True
                    else:
                        slots[index] = inner._elements(context.nested(fed, item))
                        opened += 1
                else:
                    index, taken = (index + 1) % cycle, 0

        return self._derived(inner._structure, elements)

    def padded_batch(
        self,
        batch_size: int,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
    ) -> Dataset:
        """``batch`` for components of different shapes: each is padded, at the end of each
        axis, to ``padded_shapes`` (nested as the element; a ``None`` or ``-1`` dim, or no
        ``padded_shapes`` at all, pads to the longest in the batch) with ``padding_values``
        (a scalar per component; by default 0, or False). An element larger than its padded
        shape fails the run with ``tf.errors.InvalidArgumentError``.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     d = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n], n))
        ...     b = d.padded_batch(2, padded_shapes=[None], padding_values=tf.constant(-1, tf.int64))
        ...     nxt = b.make_one_shot_iterator().get_next()
        ...     with tf.Session() as sess:
        ...         print(sess.run(nxt).tolist(), sess.run(nxt).tolist(), b.output_shapes)
        [[1, -1], [2, 2]] [[3, 3, 3]] (None, None)
        """
        size = _positive(batch_size, "padded_batch", "batch_size")
        specs = self._specs()
        if padded_shapes is None:
            shapes: list[Shape] = [
                None if spec.shape is None else (None,) * len(spec.shape) for spec in specs
            ]
        else:
            given = _flatten_up_to(
                self._structure, padded_shapes, "Dataset.padded_batch: padded_shapes"
            )
            shapes = [as_shape(shape) for shape in given]
        for spec, shape in zip(specs, shapes, strict=True):
            if shape is None:
                raise InvalidArgumentError(
                    "symgrad: Dataset.padded_batch: a component has an unknown rank; give its "
                    "padded shape in padded_shapes"
                )
            if spec.shape is not None and (
                len(shape) != len(spec.shape)
                or any(
                    p is not None and d is not None and p < d
                    for p, d in zip(shape, spec.shape, strict=True)
                )
            ):  # as TF: a padded dim may be larger than the component's, not smaller
                raise ShapeError(
                    f"symgrad: Dataset.padded_batch: the padded shape {shape} is not "
                    f"compatible with the shape {spec.shape} of the corresponding input "
                    f"component"
                )
        if padding_values is None:
            pads: list[np.ndarray | Tensor] = [_zero(spec.dtype) for spec in specs]
        else:
            given = _flatten_up_to(
                self._structure, padding_values, "Dataset.padded_batch: padding_values"
            )
            pads = [_padding_value(v, spec) for v, spec in zip(given, specs, strict=True)]
        outer = size if drop_remainder else None
        structure = _pack(
            self._structure,
            iter(
                [
                    _Spec(spec.dtype, (outer, *(shape or ())))
                    for spec, shape in zip(specs, shapes, strict=True)
                ]
            ),
        )
        source = self._elements

        def elements(context: _Context) -> PyIterator[Element]:
            values = _values(pads, context)
            stream = source(context)
            while True:
                rows = [row for _, row in zip(range(size), stream, strict=False)]
                if not rows or (drop_remainder and len(rows) < size):
                    return
                yield [
                    _pad([row[i] for row in rows], shapes[i], values[i]) for i in range(len(specs))
                ]

        return self._derived(structure, elements, [], [p for p in pads if isinstance(p, Tensor)])

    def cache(self, filename: str = "") -> Dataset:
        """The same elements, computed once per start of an iterator: the first pass keeps
        them (in memory; a ``filename`` is not written) and later passes (each epoch of a
        ``repeat``) read them back, as TF's cache does. A pass left unfinished keeps none.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     noise = tf.data.Dataset.range(2).map(lambda n: tf.random_uniform([]))
        ...     nxt = noise.cache().repeat(2).make_one_shot_iterator().get_next()
        ...     with tf.Session() as sess:
        ...         values = [float(sess.run(nxt)) for _ in range(4)]
        ...     print(values[:2] == values[2:])
        True
        """
        source = self._elements
        key = object()  # this cache's entry in a context

        def elements(context: _Context) -> PyIterator[Element]:
            kept = context.streams.get(key)
            if kept is not None:
                yield from kept
                return
            computed: list[Element] = []
            for element in source(context):
                computed.append(element)
                yield element
            context.streams[key] = computed

        return self._derived(self._structure, elements)

    def concatenate(self, dataset: Dataset) -> Dataset:
        """This dataset's elements, then ``dataset``'s: their elements must have the same
        structure and dtypes; a dim where their shapes differ is ``None``.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     d = tf.data.Dataset.range(2).concatenate(tf.data.Dataset.range(5, 7))
        ...     with tf.Session() as sess:
        ...         print(sess.run(d.batch(4).make_one_shot_iterator().get_next()).tolist())
        [0, 1, 5, 6]
        """
        if not isinstance(dataset, Dataset):
            raise InvalidArgumentError(
                f"symgrad: Dataset.concatenate takes a dataset, got {type(dataset).__name__}"
            )
        mine, theirs = self._specs(), dataset._specs()
        if _structure_key(self._structure) != _structure_key(dataset._structure) or any(
            a.dtype != b.dtype for a, b in zip(mine, theirs, strict=True)
        ):
            raise DTypeError(
                f"symgrad: Dataset.concatenate: incompatible dataset elements: "
                f"{self.output_types} vs. {dataset.output_types}"
            )
        specs = [
            _Spec(a.dtype, _most_specific_compatible(a.shape, b.shape))
            for a, b in zip(mine, theirs, strict=True)
        ]
        first, second = self._elements, dataset._elements

        def elements(context: _Context) -> PyIterator[Element]:
            yield from first(context)
            yield from second(context)

        return self._derived(_pack(self._structure, iter(specs)), elements, [dataset])

    def apply(self, transformation_func: Callable[[Dataset], Dataset]) -> Dataset:
        """``transformation_func(self)``: a function of a whole dataset, applied."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise InvalidArgumentError(
                f"symgrad: Dataset.apply: `transformation_func` must return a tf.data.Dataset, "
                f"got {type(result).__name__}"
            )
        return result

    # -- iterators ----------------------------------------------------------------------------
    def make_one_shot_iterator(self) -> Iterator:
        """An iterator that starts by itself at its first ``get_next`` run, once."""
        return Iterator(self, initializable=False)

    def make_initializable_iterator(self, shared_name: str | None = None) -> Iterator:
        """An iterator started (and restarted) by running its ``initializer``."""
        return Iterator(self, initializable=True)


class TextLineDataset(Dataset):
    """The lines of text files, as TF1's ``tf.data.TextLineDataset(filenames,
    compression_type=None, buffer_size=None)``: scalar ``tf.string`` elements, each line
    without its ``\\n`` (and a ``\\r`` before it), the files one after the other.
    ``filenames`` is a file name or a list or 1-D array of them, or a string tensor (a
    placeholder fed when the iterator starts); ``compression_type`` ``None``/``""``,
    ``"GZIP"`` or ``"ZLIB"``; ``buffer_size`` changes nothing. A file is read when the
    iterator reaches it; a missing one fails that run with ``tf.errors.NotFoundError``.

    >>> import os, tempfile
    >>> import symgrad as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> with open(path, "w") as handle:
    ...     _ = handle.write("x,y\\n1.5,2\\n3.0,4\\n")
    >>> with tf.Graph().as_default():
    ...     lines = tf.data.TextLineDataset(path).skip(1)
    ...     columns = lines.map(lambda line: tf.decode_csv(line, [[0.0], [0]])).batch(2)
    ...     x, y = columns.make_one_shot_iterator().get_next()
    ...     with tf.Session() as sess:
    ...         print(sess.run([x, y]))
    [array([1.5, 3. ], dtype=float32), array([2, 4], dtype=int32)]
    """

    def __init__(
        self, filenames: Any, compression_type: Any = None, buffer_size: Any = None
    ) -> None:
        if isinstance(filenames, Tensor):
            if filenames.dtype != _dtypes.string:
                raise DTypeError(
                    f"symgrad: TextLineDataset: filenames '{filenames.name}' has dtype "
                    f"{filenames.dtype.name}; it takes file names, a tf.string tensor"
                )
            names: np.ndarray | Tensor = filenames
        else:
            names = _dtypes.string_array(filenames, "TextLineDataset: filenames")
        shape = names.shape
        if shape is not None and len(shape) > 1:
            raise InvalidArgumentError(
                f"symgrad: TextLineDataset: filenames must be a scalar or a vector, got "
                f"shape {tuple(shape)}"
            )
        compression = str(compression_type or "").upper()
        if compression not in _DECOMPRESS:
            raise InvalidArgumentError(
                f"symgrad: TextLineDataset: compression_type must be None, '', 'GZIP' or "
                f"'ZLIB', got {compression_type!r}"
            )

        decompress = _DECOMPRESS[compression]

        def elements(context: _Context) -> PyIterator[Element]:
            (files,) = _values([names], context)
            for filename in np.atleast_1d(files).tolist():
                contents = read_bytes(filename, "TextLineDataset")
                if decompress is not None:
                    try:
                        contents = decompress(contents)
                    except (OSError, EOFError, zlib.error) as error:
                        raise InvalidArgumentError(
                            f"symgrad: TextLineDataset: cannot decompress "
                            f"{os.fsdecode(filename)} as {compression}: {error}"
                        ) from None
                for line in split_lines(contents):
                    yield [np.array(line, dtype=object)]

        tensors = [names] if isinstance(names, Tensor) else []
        super().__init__(_Spec(_dtypes.string, ()), elements, tensors)


# TextLineDataset's compression types: how to decompress a whole file.
_DECOMPRESS: dict[str, Callable[[bytes], bytes] | None] = {
    "": None,
    "GZIP": gzip.decompress,
    "ZLIB": zlib.decompress,
}


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


def _count(value: Any) -> int | Tensor:
    """A ``repeat``/``take``/``skip`` count: a Python int, or an int tensor."""
    return value if isinstance(value, Tensor) else int(value)


def _count_in(count: int | Tensor, context: _Context) -> int:
    return int(context.evaluate([count])[0]) if isinstance(count, Tensor) else count


def _count_tensors(count: int | Tensor) -> list[Tensor]:
    """A count tensor, to evaluate when an iterator starts (a dataset made by a
    ``flat_map``/``interleave`` function has its tensors computed per element instead)."""
    return [count] if isinstance(count, Tensor) else []


def _positive(value: Any, method: str, argument: str) -> int:
    if isinstance(value, Tensor) or int(value) < 1:
        raise InvalidArgumentError(
            f"symgrad: Dataset.{method}: {argument} must be a positive Python int, got {value!r}"
        )
    return int(value)


def _generated(value: Any, types: Any, specs: list[_Spec]) -> Element:
    """An element a ``from_generator`` generator yielded, as arrays of its specs."""
    try:
        leaves = _flatten_up_to(types, value, "the element")
    except InvalidArgumentError:
        raise InvalidArgumentError(
            f"symgrad: Dataset.from_generator: `generator` yielded an element that did not "
            f"match the expected structure. The expected structure was {types}, but the "
            f"yielded element was {value!r:.80}"
        ) from None
    element: Element = []
    for leaf, spec in zip(leaves, specs, strict=True):
        if spec.dtype == _dtypes.string:
            array = _generated_strings(leaf, spec)
            element.append(array)
            continue
        try:
            array = np.asarray(leaf)
        except ValueError:
            array = np.asarray(None, dtype=object)  # ragged lists: not convertible below
        kind, wanted = array.dtype.kind, np.dtype(spec.dtype.numpy).kind
        if (
            kind not in "biuf"
            or (kind == "f" and wanted in "biu")
            or (kind in "iu" and wanted == "b")
        ):
            raise InvalidArgumentError(
                f"symgrad: Dataset.from_generator: `generator` yielded an element that could "
                f"not be converted to the expected type. The expected type was "
                f"{spec.dtype.name}, but the yielded element was {leaf!r:.80}"
            )
        array = array.astype(spec.dtype.numpy, copy=False)
        if not _compatible(spec.shape, array.shape):
            raise InvalidArgumentError(
                f"symgrad: Dataset.from_generator: `generator` yielded an element of shape "
                f"{array.shape} where an element of shape {spec.shape} was expected"
            )
        element.append(array)
    return element


def _zero(dtype: _dtypes.DType) -> np.ndarray:
    """``padded_batch``'s default padding: 0, False, or ``b""`` for strings."""
    if dtype == _dtypes.string:
        return _dtypes.string_array(b"", "padded_batch")
    return np.zeros((), dtype.numpy)


def _generated_strings(leaf: Any, spec: _Spec) -> np.ndarray:
    """A ``tf.string`` component a generator yielded: ``str``/``bytes`` (nested lists or
    NumPy arrays of them), as an object array of ``bytes``."""
    if not _dtypes.holds_text(leaf) and not (isinstance(leaf, list) and not leaf):
        raise InvalidArgumentError(
            f"symgrad: Dataset.from_generator: `generator` yielded an element that could "
            f"not be converted to the expected type. The expected type was string, but the "
            f"yielded element was {leaf!r:.80}"
        )
    try:
        array = _dtypes.string_array(leaf, "Dataset.from_generator")
    except DTypeError as error:
        raise InvalidArgumentError(str(error)) from None
    if not _compatible(spec.shape, array.shape):
        raise InvalidArgumentError(
            f"symgrad: Dataset.from_generator: `generator` yielded an element of shape "
            f"{array.shape} where an element of shape {spec.shape} was expected"
        )
    return array


def _padding_value(value: Any, spec: _Spec) -> np.ndarray | Tensor:
    """A ``padded_batch`` padding value: a scalar of the component's dtype."""
    shape: Any
    if isinstance(value, Tensor):
        dtype, shape = value.dtype, value.shape
    elif spec.dtype == _dtypes.string or _dtypes.holds_text(value):
        value = _component(value, "Dataset.padded_batch")
        dtype, shape = _spec_of(value).dtype, value.shape
    else:
        given = np.asarray(value)
        python = not isinstance(value, (np.ndarray, np.generic))
        dtype = spec.dtype if python else _dtypes.as_dtype(given.dtype)
        shape = given.shape
        value = given.astype(spec.dtype.numpy) if python else given
    if dtype != spec.dtype:
        raise DTypeError(
            f"symgrad: Dataset.padded_batch: padding value of dtype {dtype.name} does not "
            f"match the dtype {spec.dtype.name} of the corresponding input component"
        )
    if shape is not None and len(shape):
        raise InvalidArgumentError(
            f"symgrad: Dataset.padded_batch: a padding value must be a scalar, got shape "
            f"{tuple(shape)}"
        )
    return value


def _pad(rows: list[np.ndarray], shape: Shape, value: np.ndarray) -> np.ndarray:
    """``rows`` padded at the end of each axis to ``shape`` (``None``: the longest) and
    stacked."""
    assert shape is not None
    arrays = [np.asarray(row) for row in rows]
    if any(array.ndim != len(shape) for array in arrays):
        raise InvalidArgumentError(
            f"symgrad: Dataset.padded_batch: an element of rank "
            f"{next(a.ndim for a in arrays if a.ndim != len(shape))} for the padded shape {shape}"
        )
    target = [
        dim if dim is not None else max(array.shape[axis] for array in arrays)
        for axis, dim in enumerate(shape)
    ]
    out = np.full((len(arrays), *target), value, dtype=arrays[0].dtype)
    for index, array in enumerate(arrays):
        if any(have > want for have, want in zip(array.shape, target, strict=True)):
            raise InvalidArgumentError(
                f"symgrad: Dataset.padded_batch: attempted to pad to a smaller size than the "
                f"input element: an element of shape {array.shape} for the padded shape {shape}"
            )
        # A slice, not an index, for the batch axis: NumPy then copies a 0-d object array's
        # item (a string) instead of storing the array itself.
        region: tuple[Any, ...] = (slice(index, index + 1), *[slice(0, n) for n in array.shape])
        out[region] = array[np.newaxis]
    return out


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

    def __init__(
        self,
        dataset: Dataset | None,
        initializable: bool,
        structure: Any = None,
        graph: Graph | None = None,
    ) -> None:
        if dataset is not None:
            if not isinstance(dataset, Dataset):
                raise InvalidArgumentError(
                    f"symgrad: an iterator needs a tf.data.Dataset, got {type(dataset).__name__}"
                )
            structure, graph = dataset._structure, dataset._graph
        self._dataset = dataset
        self._structure = structure  # leaves: _Spec
        self._initializable = initializable
        self._graph: Graph = graph or get_default_graph()
        self._initializer: Any = None
        if initializable and dataset is not None:
            self._initializer = self.make_initializer(dataset, name="MakeIterator")

    output_types = property(lambda self: _map_structure(lambda s: s.dtype, self._structure))
    output_shapes = property(lambda self: _shapes_of(self._structure))
    output_classes = property(lambda self: _map_structure(lambda s: Tensor, self._structure))

    @staticmethod
    def from_structure(
        output_types: Any,
        output_shapes: Any = None,
        shared_name: str | None = None,
        output_classes: Any = None,
    ) -> Iterator:
        """An iterator of no dataset yet, for elements of ``output_types`` and
        ``output_shapes`` (TF1's reinitializable iterator): ``make_initializer(dataset)``
        gives the op that starts it over ``dataset``, any dataset of that structure, so one
        ``get_next()`` reads the training and the validation data in turn.

        >>> import symgrad as tf
        >>> with tf.Graph().as_default():
        ...     train, valid = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)
        ...     iterator = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
        ...     nxt = iterator.get_next()
        ...     to_train, to_valid = iterator.make_initializer(train), iterator.make_initializer(valid)
        ...     with tf.Session() as sess:
        ...         _ = sess.run(to_valid)
        ...         first = int(sess.run(nxt))
        ...         _ = sess.run(to_train)
        ...         print(first, int(sess.run(nxt)))
        10 0
        """
        types = _map_structure(_dtypes.as_dtype, _as_structure(output_types))
        dtypes = _flatten(types)
        if output_shapes is None:
            shapes: list[Shape] = [None] * len(dtypes)
        else:
            given = _flatten_up_to(types, output_shapes, "Iterator.from_structure: output_shapes")
            shapes = [as_shape(shape) for shape in given]
        specs = [_Spec(dtype, shape) for dtype, shape in zip(dtypes, shapes, strict=True)]
        return Iterator(None, initializable=True, structure=_pack(types, iter(specs)))

    @staticmethod
    def from_string_handle(
        string_handle: Any, output_types: Any, output_shapes: Any = None, output_classes: Any = None
    ) -> Iterator:
        """Not provided (a feedable iterator's handle is a string tensor computed by the
        graph, and symgrad's strings live on the host): raises
        :class:`symgrad.errors.MissingTF1NameError` naming the substitute."""
        raise MissingTF1NameError(_NO_HANDLES.format(name="tf.data.Iterator.from_string_handle"))

    def string_handle(self, name: str | None = None) -> Any:
        """Not provided: see :meth:`from_string_handle`."""
        raise MissingTF1NameError(_NO_HANDLES.format(name="Iterator.string_handle()"))

    @property
    def initializer(self) -> Any:
        """The op that (re)starts the iterator at its dataset's first element."""
        if self._initializer is None:
            if self._dataset is None:
                raise InvalidArgumentError(
                    "symgrad: an iterator from Iterator.from_structure has no initializer; "
                    "run iterator.make_initializer(dataset) instead"
                )
            raise InvalidArgumentError("symgrad: a one-shot iterator has no initializer")
        return self._initializer

    def make_initializer(self, dataset: Dataset, name: str | None = None) -> Any:
        """The op that (re)starts this iterator at the first element of ``dataset``, whose
        elements must have this iterator's structure and dtypes, and shapes compatible."""
        if not isinstance(dataset, Dataset):
            raise InvalidArgumentError(
                f"symgrad: Iterator.make_initializer needs a tf.data.Dataset, got "
                f"{type(dataset).__name__}"
            )
        mine, theirs = _flatten(self._structure), dataset._specs()
        if _structure_key(self._structure) != _structure_key(dataset._structure) or any(
            a.dtype != b.dtype for a, b in zip(mine, theirs, strict=True)
        ):
            raise DTypeError(
                f"symgrad: Iterator.make_initializer: expected output types "
                f"{self.output_types} but got dataset with output types {dataset.output_types}"
            )
        if not all(_compatible(a.shape, b.shape) for a, b in zip(mine, theirs, strict=True)):
            raise ShapeError(
                f"symgrad: Iterator.make_initializer: expected output shapes compatible with "
                f"{self.output_shapes} but got dataset with output shapes {dataset.output_shapes}"
            )

        def start(session: Session, feeds: Mapping[Tensor, Any]) -> None:
            self._start(session, feeds, dataset)

        return self._graph.create_op(
            "NoOp", [], {"control": [], HOST_ACTION: start}, [], name=name or "make_initializer"
        )

    def _start(
        self, session: Session, feeds: Mapping[Tensor, Any], dataset: Dataset | None = None
    ) -> None:
        dataset = dataset or self._dataset
        assert dataset is not None
        context = _Context(session, feeds)
        context.evaluate(dataset._tensors)
        session.host_state[self] = dataset._elements(context)

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
        specs: list[_Spec] = _flatten(self._structure)
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
        return _pack(self._structure, iter(tensors))


_NO_HANDLES = (
    "symgrad: {name} (a feedable iterator) is not provided: its handle would be a string "
    "tensor computed in the graph, and symgrad's strings are host-side values. Instead: one tf.data.Iterator.from_structure(output_types, "
    "output_shapes) and sess.run(iterator.make_initializer(dataset)) to switch datasets. "
    f"See {README_SECTION}."
)


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
    "TextLineDataset",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]
