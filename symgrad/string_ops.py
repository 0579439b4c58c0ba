"""TF1's string tensors and the ops that read files: computed by the Session, on the host.

symgrad's ``tf.string`` values are Python ``bytes`` (NumPy object arrays of them for tensors
of rank 1 and more), as TF1's ``Session.run`` returns them. No generated module takes or gives
a string: a string tensor is a constant, a placeholder the caller feeds, or the output of a
*host op*, a placeholder that the session fills itself (``HOST_INPUT``, the mechanism of
:mod:`symgrad.data` and :mod:`symgrad.queues`) by running the op's inputs and then the op's
Python function on their values. The numbers a host op makes (a decoded image, the columns of
``decode_csv``) are placeholders too, so the compiled module takes them as inputs like any
fed array. Any other op given a string tensor raises :class:`symgrad.errors.DTypeError`.

The ops here: ``tf.read_file`` (``tf.io.read_file``), ``tf.decode_csv``,
``tf.train.string_input_producer``, ``tf.WholeFileReader`` and ``tf.TextLineReader``; the
image decoders are in :mod:`symgrad.image_decoding`.

>>> import symgrad as tf
>>> with tf.Graph().as_default():
...     a, b = tf.decode_csv(tf.constant(["1,x", "2,"]), record_defaults=[[0], ["?"]])
...     with tf.Session() as sess:
...         print(sess.run([a, b]))
[array([1, 2], dtype=int32), array([b'x', b'?'], dtype=object)]
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from .errors import DTypeError, InvalidArgumentError, NotFoundError, OutOfRangeError
from .graph import Tensor, get_default_graph
from .ops.sources import convert_to_tensor
from .queues import QueueBase, _producer, _tensor_shape
from .session import HOST_INPUT, Session, string_value
from .shapes import Shape

Compute = Callable[[Session, list[Any]], list[Any]]


def host_op(
    op_type: str,
    inputs: Sequence[Tensor],
    outputs: Sequence[tuple[Shape, _dtypes.DType]],
    compute: Compute,
    name: str | None,
) -> list[Tensor]:
    """The outputs of a host op: placeholders that a run needing them fills with
    ``compute(session, values of inputs)`` (the inputs run with that run's feeds, once per run
    for all the outputs). Each output is its own placeholder op, named like TF's op."""
    graph = get_default_graph()
    tensors: list[Tensor] = []

    def values(session: Session, feeds: Mapping[Tensor, Any]) -> dict[Tensor, Any]:
        given = session.host_run(list(inputs), feed_dict=dict(feeds)) if inputs else []
        return dict(zip(tensors, compute(session, list(given)), strict=True))

    base = name or op_type
    for index, (shape, dtype) in enumerate(outputs):
        op = graph.create_op(
            "Placeholder",
            [],
            {HOST_INPUT: values, "host_op": op_type, "host_inputs": tuple(inputs)},
            [(shape, dtype)],
            name=base if index == 0 else f"{base}_{index}",
        )
        tensors.append(op.outputs[0])
    return tensors


def string_tensor(value: Any, function: str) -> Tensor:
    """``value`` as a string tensor (a Python value becomes a constant); a DTypeError naming
    ``function`` for a tensor of another dtype."""
    if isinstance(value, Tensor) and value.dtype != _dtypes.string:
        raise DTypeError(
            f"symgrad: {function}: '{value.name}' has dtype {value.dtype.name}; it takes a "
            f"string tensor"
        )
    return convert_to_tensor(value, dtype=_dtypes.string)


def as_strings(value: Any, tensor: Tensor) -> np.ndarray:
    """A string value as an object array of ``bytes`` (0-d for a scalar)."""
    return np.asarray(string_value(value, tensor), dtype=object)


def _scalar_bytes(value: Any, function: str, what: str) -> bytes:
    array = _dtypes.string_array(value, function)
    if array.ndim != 0:
        raise InvalidArgumentError(
            f"symgrad: {function}: {what} must be a scalar string, got shape {array.shape}"
        )
    return bytes(array[()])


def read_bytes(filename: bytes, function: str) -> bytes:
    """The whole file, as TF's ``ReadFile``: ``NotFoundError`` for a missing file."""
    path = os.fsdecode(filename)
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise NotFoundError(f"symgrad: {function}: {path}; No such file or directory") from None
    except IsADirectoryError:
        raise InvalidArgumentError(f"symgrad: {function}: {path} is a directory") from None


# -- tf.read_file, tf.decode_csv --------------------------------------------------------------


def read_file(filename: Any, name: str | None = None) -> Tensor:
    """The whole contents of the file ``filename`` (a scalar string), as TF1's
    ``tf.read_file``/``tf.io.read_file``; a missing file raises ``tf.errors.NotFoundError``
    when the run reads it."""
    source = string_tensor(filename, "read_file")

    def compute(session: Session, values: list[Any]) -> list[Any]:
        return [read_bytes(_scalar_bytes(values[0], "read_file", "filename"), "read_file")]

    return host_op("ReadFile", [source], [((), _dtypes.string)], compute, name)[0]


_CSV_DTYPES = (
    _dtypes.float32,
    _dtypes.float64,
    _dtypes.int32,
    _dtypes.int64,
    _dtypes.string,
)


def _csv_default(default: Any, index: int) -> tuple[_dtypes.DType, Any]:
    """(dtype, default value or None when the field is required) of one record default."""
    if isinstance(default, Tensor):
        raise InvalidArgumentError(
            f"symgrad: decode_csv: record_defaults[{index}] must be a Python value such as "
            f"[0.0], [0], [''] or a dtype for a required field, got tensor '{default.name}'"
        )
    if isinstance(default, (_dtypes.DType, type)) or (
        isinstance(default, str) and default in ("float32", "float64", "int32", "int64", "string")
    ):
        return _dtypes.as_dtype(default), None
    items = list(default) if isinstance(default, (list, tuple, np.ndarray)) else [default]
    if len(items) > 1:
        raise InvalidArgumentError(
            f"symgrad: decode_csv: record_defaults[{index}] holds {len(items)} values; give "
            f"one default (a list of one value) or an empty list for a required field"
        )
    if not items:
        return _dtypes.float32, None  # TF: an empty default is a required float32 field
    value = items[0]
    if isinstance(value, (bytes, str)):
        return _dtypes.string, value.encode() if isinstance(value, str) else value
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError("symgrad: decode_csv: record defaults cannot be bool")
    if isinstance(value, np.generic):
        return _dtypes.as_dtype(value.dtype), value
    if isinstance(value, int):
        return _dtypes.int32, value
    return _dtypes.float32, value


def _parse_field(text: bytes, dtype: _dtypes.DType, column: int, record: bytes) -> Any:
    if dtype == _dtypes.string:
        return text
    try:
        if dtype.is_integer:
            return int(text)
        return float(text)
    except ValueError:
        kind = "int" if dtype.is_integer else "float"
        raise InvalidArgumentError(
            f"symgrad: decode_csv: Field {column} in record {record!r} is not a valid {kind}: "
            f"{text!r}"
        ) from None


def _split_record(record: bytes, delim: str, quoted: bool) -> list[bytes]:
    text = record.decode("utf-8", errors="surrogateescape")
    if quoted:
        reader = csv.reader([text], delimiter=delim, quotechar='"', strict=True)
        try:
            fields = next(reader, [""])
        except csv.Error as error:
            raise InvalidArgumentError(
                f"symgrad: decode_csv: malformed record {record!r}: {error}"
            ) from None
        if text == "":
            fields = [""]
    else:
        fields = text.split(delim)
    return [field.encode("utf-8", errors="surrogateescape") for field in fields]


def decode_csv(
    records: Any,
    record_defaults: Sequence[Any],
    field_delim: str = ",",
    use_quote_delim: bool = True,
    name: str | None = None,
    na_value: str = "",
    select_cols: Sequence[int] | None = None,
) -> list[Tensor]:
    """One tensor per column of CSV ``records`` (a string tensor of any shape), as TF1's
    ``tf.decode_csv``: each has the shape of ``records`` and the dtype of its entry of
    ``record_defaults`` (``[1.0]`` float32, ``[1]`` int32, ``[""]`` string, ``np.float64(0)``
    float64...), which is also its value for an empty field (or one equal to ``na_value``); an
    empty list makes the field required. A record with another number of fields raises
    ``InvalidArgumentError`` when the run parses it."""
    if len(field_delim) != 1:
        raise InvalidArgumentError(
            f"symgrad: decode_csv: field_delim must be one character, got {field_delim!r}"
        )
    source = string_tensor(records, "decode_csv")
    columns = [_csv_default(d, i) for i, d in enumerate(record_defaults)]
    if not columns:
        raise InvalidArgumentError("symgrad: decode_csv: record_defaults is empty")
    wanted = None if select_cols is None else [int(c) for c in select_cols]
    if wanted is not None and (
        len(wanted) != len(columns) or sorted(set(wanted)) != wanted or wanted[0] < 0
    ):
        raise InvalidArgumentError(
            "symgrad: decode_csv: select_cols must be increasing column indices, one per "
            "record default"
        )
    missing = na_value.encode()
    shape = _tensor_shape(source)

    def compute(session: Session, values: list[Any]) -> list[Any]:
        records_array = as_strings(values[0], source)
        outputs = [np.empty(records_array.shape, dtype=dtype.numpy) for dtype, _ in columns]
        for index, record in np.ndenumerate(records_array):
            fields = _split_record(record, field_delim, use_quote_delim)
            if wanted is not None:
                if len(fields) <= wanted[-1]:
                    raise InvalidArgumentError(
                        f"symgrad: decode_csv: record {record!r} has {len(fields)} fields, "
                        f"select_cols needs column {wanted[-1]}"
                    )
                fields = [fields[c] for c in wanted]
            elif len(fields) != len(columns):
                raise InvalidArgumentError(
                    f"symgrad: decode_csv: Expect {len(columns)} fields but have "
                    f"{len(fields)} in record {record!r}"
                )
            for column, (text, (dtype, default)) in enumerate(zip(fields, columns, strict=True)):
                if text == b"" or (missing and text == missing):
                    if default is None:
                        raise InvalidArgumentError(
                            f"symgrad: decode_csv: Field {column} is required but missing in "
                            f"record {record!r}"
                        )
                    outputs[column][index] = default
                else:
                    outputs[column][index] = _parse_field(text, dtype, column, record)
        return [out[()] if out.ndim == 0 else out for out in outputs]

    return host_op("DecodeCSV", [source], [(shape, dtype) for dtype, _ in columns], compute, name)


# -- the file queue and the readers ----------------------------------------------------------


def string_input_producer(
    string_tensor: Any,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
    cancel_op: Any = None,
) -> QueueBase:
    """A queue of the strings of ``string_tensor`` (a 1-D string tensor, usually file names),
    each once per epoch, in a random order with ``shuffle`` (NumPy's: a seed makes it
    reproducible), ``num_epochs`` epochs (None: no end), as TF1's
    ``tf.train.string_input_producer``: give it to a reader's ``read``. Needs
    ``tf.train.start_queue_runners``."""
    graph = get_default_graph()
    with graph.as_default():
        strings = string_tensor_of(string_tensor)
    shape = _tensor_shape(strings)
    if shape is not None and len(shape) != 1:
        raise InvalidArgumentError(
            f"symgrad: string_input_producer: string_tensor must be 1-D, got shape {shape}"
        )
    if isinstance(shape, tuple) and shape[0] == 0:
        raise InvalidArgumentError("symgrad: string_input_producer: string_tensor is empty")
    return _producer(
        [strings],
        [()],
        num_epochs,
        shuffle,
        seed,
        capacity,
        name or "input_producer",
    )


def string_tensor_of(value: Any) -> Tensor:
    return string_tensor(value, "string_input_producer")


def _queue_of(queue: Any, method: str) -> QueueBase:
    queue = getattr(queue, "_symgrad_queue", queue)
    if not isinstance(queue, QueueBase):
        raise InvalidArgumentError(
            f"symgrad: {method}: queue must be a queue of file names "
            f"(tf.train.string_input_producer), got {type(queue).__name__} {queue!r:.60}"
        )
    return queue


def _next_file(session: Session, queue: QueueBase) -> bytes:
    """The next file name of ``queue``; OutOfRangeError once it is closed and empty."""
    element = queue._take(session, 1, up_to=False)[0]
    return _scalar_bytes(element[0], "ReaderRead", "a work item of the queue")


class ReaderBase:
    """A TF1 reader: ``read(queue)`` gives ``(key, value)``, the next record of the files the
    queue names, each a scalar string; a reader's position is kept per session."""

    _op_type = "ReaderRead"

    def __init__(self, name: str | None = None) -> None:
        self._name = name or type(self).__name__
        self._graph = get_default_graph()

    def _records(self, contents: bytes, filename: bytes) -> list[tuple[bytes, bytes]]:
        raise NotImplementedError

    def read(self, queue: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
        """(key, value) of the next record, opening the next file of ``queue`` as needed."""
        files = _queue_of(queue, f"{type(self).__name__}.read")
        state_key = ("reader", self)

        def compute(session: Session, values: list[Any]) -> list[Any]:
            state = session.host_state.get(state_key)
            if state is None:
                state = session.host_state[state_key] = SimpleNamespace(records=[], at=0)
            while state.at >= len(state.records):
                try:
                    filename = _next_file(session, files)
                except OutOfRangeError:
                    raise OutOfRangeError(
                        f"symgrad: {type(self).__name__} '{self._name}': the queue of file "
                        f"names '{files.name}' is closed and empty (no more records)"
                    ) from None
                state.records = self._records(read_bytes(filename, "ReaderRead"), filename)
                state.at = 0
            record = state.records[state.at]
            state.at += 1
            return list(record)

        with self._graph.as_default():
            key, value = host_op(
                self._op_type,
                [],
                [((), _dtypes.string), ((), _dtypes.string)],
                compute,
                name or f"{self._name}Read",
            )
        return key, value

    def reset(self, name: str | None = None) -> None:
        """Not provided: a new Session starts every reader over."""
        raise InvalidArgumentError(
            "symgrad: Reader.reset is not provided; a new Session starts every reader over"
        )


class WholeFileReader(ReaderBase):
    """TF1's ``tf.WholeFileReader``: each record is a whole file, its key the file name."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(name)

    def _records(self, contents: bytes, filename: bytes) -> list[tuple[bytes, bytes]]:
        return [(filename, contents)]


class TextLineReader(ReaderBase):
    """TF1's ``tf.TextLineReader``: each record is a line (without its ``\\n`` or ``\\r\\n``),
    its key ``b"<file name>:<line number>"`` (from 1, header lines counted);
    ``skip_header_lines`` lines of each file are skipped."""

    def __init__(self, skip_header_lines: int | None = None, name: str | None = None) -> None:
        super().__init__(name)
        self._skip = int(skip_header_lines or 0)

    def _records(self, contents: bytes, filename: bytes) -> list[tuple[bytes, bytes]]:
        lines = split_lines(contents)
        return [
            (b"%s:%d" % (filename, number + 1), line)
            for number, line in enumerate(lines)
            if number >= self._skip
        ]


def split_lines(contents: bytes) -> list[bytes]:
    """A text file's lines, as TF's line readers give them: without their ``\\n`` (and a
    ``\\r`` before it), no last empty line after a final newline."""
    lines = contents.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


__all__ = [
    "ReaderBase",
    "TextLineReader",
    "WholeFileReader",
    "decode_csv",
    "host_op",
    "read_file",
    "split_lines",
    "string_input_producer",
]
