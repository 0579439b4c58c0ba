"""``symgrad.summary``: TF1's TensorBoard summaries.

``summary.scalar``/``histogram``/``image`` give summaries that ``Session.run``
evaluates to a serialized ``Summary`` protocol buffer (bytes, as in TF1);
``merge``/``merge_all`` combine them; a :class:`FileWriter` appends them to a
TensorBoard event file of its own. The protocol buffers and the records' checksum are
tensorboardX's (an optional extra: ``pip install 'symgrad[tensorboard]'``); the event
file is written here, because tensorboardX's names a file by the second and the host
only and opens it for writing from the start, truncating another writer's file of that
name. ``tensorboard --logdir LOGDIR`` shows the curves as for a TensorFlow program.

>>> import tempfile, symgrad as sg
>>> with sg.Graph().as_default(), tempfile.TemporaryDirectory() as logdir:
...     w = sg.Variable(1.0, name="w")
...     _ = sg.summary.scalar("w", w)
...     merged = sg.summary.merge_all()
...     with sg.Session() as sess, sg.summary.FileWriter(logdir, sess.graph) as writer:
...         _ = sess.run(w.initializer)
...         writer.add_summary(sess.run(merged), global_step=0)
...         print(type(sess.run(merged)).__name__)
bytes
"""

from __future__ import annotations

import atexit
import functools
import itertools
import logging
import os
import re
import socket
import struct
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, BinaryIO

import numpy as np

from .errors import InvalidArgumentError, MissingExtraError, file_error
from .files import make_directory
from .graph import Graph, Tensor, get_default_graph

SUMMARIES = "summaries"  # TF1's GraphKeys.SUMMARIES

logger = logging.getLogger(__name__)


@functools.cache
def _library() -> ModuleType:
    """tensorboardX, imported on first use: it is optional (the base install is sympy, numpy
    and jinja2), and importing it imports PyTorch when that is installed, which would make
    every ``import symgrad`` pay for a library no summary needs."""
    try:
        import tensorboardX
        import tensorboardX.proto.event_pb2
        import tensorboardX.proto.graph_pb2
        import tensorboardX.proto.node_def_pb2
        import tensorboardX.proto.summary_pb2
        import tensorboardX.proto.versions_pb2
        import tensorboardX.record_writer
        import tensorboardX.summary
    except ImportError:
        raise MissingExtraError(
            "symgrad: TensorBoard summaries need tensorboardX: pip install 'symgrad[tensorboard]'"
        ) from None
    return tensorboardX


def _protos() -> Any:
    """tensorboardX's protocol buffer modules (``event_pb2``, ``summary_pb2``, ...)."""
    return _library().proto


class Summary:
    """A summary in the graph: the tensors it reads and how their values become a ``Summary``.

    ``Session.run`` fetches it like a tensor and returns the serialized protocol buffer.
    """

    def __init__(self, name: str, tensors: Sequence[Tensor], make: Any) -> None:
        self.name = name
        self._tensors = list(tensors)
        self._make = make  # values -> list of summary_pb2.Summary.Value

    def _symgrad_fetches(self) -> list[Tensor]:
        return self._tensors

    def _symgrad_combine(self, values: list[Any]) -> bytes:
        proto = _protos().summary_pb2.Summary(value=self._make(values))
        return proto.SerializeToString()

    def __repr__(self) -> str:
        return f"<symgrad.summary.Summary '{self.name}'>"


def _as_tensor(value: Any, op: str, name: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise InvalidArgumentError(
            f"symgrad: summary.{op} '{name}': expected a Tensor, got {type(value).__name__}"
        )
    return value


def _register(summary: Summary, graph: Graph, collections: Sequence[str] | None) -> Summary:
    for key in [SUMMARIES] if collections is None else collections:
        graph.add_to_collection(key, summary)
    return summary


_TAG_REFUSED = re.compile(r"[^-/\w.]", re.ASCII)


def _tag(name: str, family: str | None) -> str:
    """TF1's tag: the unique, scoped name of the summary (``family/`` in front if given).

    As in TF1, a name that is no valid op name (``"loss value"``) is made one (``loss_value``),
    with a warning in the log.
    """
    graph = get_default_graph()
    text = f"{family}/{name}" if family else str(name)
    cleaned = _TAG_REFUSED.sub("_", text).lstrip("/") or "summary"
    if cleaned[0] in "_-":
        cleaned = f".{cleaned}"
    if cleaned != text:
        logger.warning("summary name %r is not a valid op name; using %r instead", text, cleaned)
    return graph.unique_name(cleaned)


def scalar(
    name: str, tensor: Any, collections: Sequence[str] | None = None, family: str | None = None
) -> Summary:
    """A scalar summary (a loss curve): ``tensor`` must have one element."""
    _library()
    tensor = _as_tensor(tensor, "scalar", name)
    if tensor.shape is not None and int(np.prod([d or 1 for d in tensor.shape])) != 1:
        raise InvalidArgumentError(
            f"symgrad: summary.scalar '{name}': tensor '{tensor.name}' has shape "
            f"{tensor.shape}; a scalar summary needs one value"
        )
    tag = _tag(name, family)

    def make(values: list[Any]) -> list[Any]:
        return list(_library().summary.scalar(tag, float(np.asarray(values[0]).reshape(()))).value)

    return _register(Summary(tag, [tensor], make), tensor.graph, collections)


def histogram(
    name: str, values: Any, collections: Sequence[str] | None = None, family: str | None = None
) -> Summary:
    """A histogram of all elements of ``values`` (TensorBoard's distributions and histograms)."""
    _library()
    tensor = _as_tensor(values, "histogram", name)
    tag = _tag(name, family)

    def make(arrays: list[Any]) -> list[Any]:
        data = np.asarray(arrays[0], dtype=np.float64).reshape(-1)
        return list(_library().summary.histogram(tag, data, bins="auto").value)

    return _register(Summary(tag, [tensor], make), tensor.graph, collections)


def image(
    name: str,
    tensor: Any,
    max_outputs: int = 3,
    collections: Sequence[str] | None = None,
    family: str | None = None,
) -> Summary:
    """Images from a ``[batch, height, width, channels]`` tensor (channels 1, 3 or 4).

    Floats are taken to lie in [0, 1], integers in [0, 255], as in TF1; tags are
    ``name/image/0``, ``name/image/1``, ... (``name/image`` for a single one).
    """
    _library()
    tensor = _as_tensor(tensor, "image", name)
    if tensor.shape is not None and (len(tensor.shape) != 4 or tensor.shape[3] not in (1, 3, 4)):
        raise InvalidArgumentError(
            f"symgrad: summary.image '{name}': tensor '{tensor.name}' has shape {tensor.shape}; "
            f"expected [batch, height, width, channels] with 1, 3 or 4 channels"
        )
    tag = _tag(name, family)

    def make(arrays: list[Any]) -> list[Any]:
        batch = np.asarray(arrays[0])
        count = min(max_outputs, batch.shape[0])
        result = []
        for index in range(count):
            picture = batch[index]
            if picture.dtype.kind == "f":
                picture = np.clip(picture, 0.0, 1.0).astype(np.float32)
            else:
                picture = picture.astype(np.float32) / 255.0
            sub = f"{tag}/image" if count == 1 else f"{tag}/image/{index}"
            result += list(_library().summary.image(sub, picture, dataformats="HWC").value)
        return result

    return _register(Summary(tag, [tensor], make), tensor.graph, collections)


def merge(inputs: Sequence[Summary], collections: Sequence[str] | None = None) -> Summary:
    """One summary holding all of ``inputs`` (TF1's ``tf.summary.merge``)."""
    _library()
    items = list(inputs)
    for item in items:
        if not isinstance(item, Summary):
            raise InvalidArgumentError(
                f"symgrad: summary.merge: inputs must be summaries, got {type(item).__name__}"
            )
    tensors = [t for item in items for t in item._symgrad_fetches()]
    spans = []
    start = 0
    for item in items:
        spans.append((item, start, start + len(item._symgrad_fetches())))
        start = spans[-1][2]

    def make(values: list[Any]) -> list[Any]:
        return [v for item, a, b in spans for v in item._make(values[a:b])]

    merged = Summary("merged", tensors, make)
    if collections:
        graph = tensors[0].graph if tensors else get_default_graph()
        _register(merged, graph, collections)
    return merged


def merge_all(key: str = SUMMARIES, scope: str | None = None, name: str | None = None) -> Any:
    """Every summary of the default graph's ``key`` collection merged into one, or None."""
    found = [
        s
        for s in get_default_graph().get_collection(key)
        if scope is None or s.name.startswith(scope)
    ]
    return merge(found) if found else None


# --- the event file -----------------------------------------------------------------------------


def graph_def(graph: Graph) -> Any:
    """The graph as a ``GraphDef`` protocol buffer, for TensorBoard's graph view."""
    _library()
    nodes = []
    for op in graph.get_operations():
        inputs = [t.op.name if t.value_index == 0 else t.name for t in op.inputs]
        inputs += [f"^{c.name}" for c in op.attrs.get("control", ())]
        nodes.append(_protos().node_def_pb2.NodeDef(name=op.name, op=op.type, input=inputs))
    return _protos().graph_pb2.GraphDef(
        node=nodes, versions=_protos().versions_pb2.VersionDef(producer=22)
    )


def _masked_crc32c(data: bytes) -> int:
    """The checksum of a TFRecord field: CRC-32C, rotated and offset as TF masks it."""
    from_library = _library().record_writer.masked_crc32c
    return int(from_library(data))


# Numbers the event files this process opens, so that two writers opened within one second (in
# threads, or one after another) never build the same name.
_file_numbers = itertools.count(1)
_open_writers: weakref.WeakSet[FileWriter] = weakref.WeakSet()


def _new_event_file(logdir: Path, suffix: str) -> tuple[BinaryIO, Path]:
    """A new event file in ``logdir``, created exclusively: no other writer's file (another
    FileWriter, thread or process, or a file planted there) is ever opened or truncated."""
    host = socket.gethostname()
    while True:
        name = (
            f"events.out.tfevents.{int(time.time()):010d}.{host}."
            f"{os.getpid()}.{next(_file_numbers)}{suffix}"
        )
        path = logdir / name
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            descriptor = os.open(path, flags, 0o666)
        except FileExistsError:
            continue  # a process of the same pid on a host of the same name: take the next
        except OSError as error:
            raise file_error(error, f"cannot create an event file in '{logdir}'") from error
        return os.fdopen(descriptor, "wb"), path


class FileWriter:
    """Writes summaries and the graph to an event file in ``logdir`` (TF1's ``tf.summary.FileWriter``).

    Run ``tensorboard --logdir LOGDIR`` (``pip install tensorboard``) to see them.

    Every writer writes a file of its own, named
    ``events.out.tfevents.<seconds>.<host>.<pid>.<n><filename_suffix>`` and created
    exclusively, so writers opened on one folder at once (a training and an evaluation job,
    two runs in one process within a second, threads) never truncate each other's records;
    TensorBoard reads every event file of the folder. ``reopen()`` after ``close()`` starts
    a new file, as TF1 does. Records are buffered and reach the file when ``max_queue`` of
    them are pending, every ``flush_secs`` seconds, at ``flush()`` and ``close()``, and when
    the interpreter exits.

    >>> import os, tempfile, symgrad as sg
    >>> with sg.Graph().as_default(), tempfile.TemporaryDirectory() as logdir:
    ...     loss = sg.summary.scalar("loss", sg.constant(1.0))
    ...     with sg.Session() as sess:
    ...         for run in range(2):  # two runs within one second: two files
    ...             with sg.summary.FileWriter(logdir) as writer:
    ...                 writer.add_summary(sess.run(loss), global_step=run)
    ...     len(os.listdir(logdir))
    2
    """

    def __init__(
        self,
        logdir: str | os.PathLike,
        graph: Graph | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        graph_def: Any = None,
        filename_suffix: str | None = None,
        session: Any = None,
    ) -> None:
        _library()  # the protocol buffers and the checksum
        self.logdir = str(logdir)
        self._suffix = filename_suffix or ""
        if os.sep in self._suffix or (os.altsep and os.altsep in self._suffix):
            raise InvalidArgumentError(
                f"symgrad: FileWriter: filename_suffix {self._suffix!r} must not name a folder"
            )
        self._max_queue = max(1, int(max_queue))
        self._flush_secs = float(flush_secs)
        self._lock = threading.Lock()
        self._file: BinaryIO | None = None
        self._pending = 0
        self._last_flush = time.monotonic()
        self._stop = threading.Event()
        self._flusher: threading.Thread | None = None
        self.path: Path | None = None  # the event file now written
        self._open()
        if graph is not None:
            self.add_graph(graph)
        elif graph_def is not None:
            self._add_graph_def(graph_def)

    def _open(self) -> None:
        folder = Path(self.logdir)
        make_directory(folder)
        self._file, self.path = _new_event_file(folder, self._suffix)
        self._pending = 0
        self._stop = threading.Event()
        # TensorBoard takes a file's first record for its version.
        self._write(_protos().event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2"))
        self._flush_locked(sync=False)
        _open_writers.add(self)
        if self._flush_secs > 0:
            self._flusher = threading.Thread(
                target=self._flush_every, args=(self._stop,), daemon=True, name="FileWriter"
            )
            self._flusher.start()

    def _flush_every(self, stop: threading.Event) -> None:
        while not stop.wait(self._flush_secs):
            with self._lock:
                if self._file is not None and self._pending:
                    self._flush_locked(sync=False)

    def _write(self, event: Any) -> None:
        assert self._file is not None
        data = event.SerializeToString()
        header = struct.pack("<Q", len(data))
        record = (
            header
            + struct.pack("<I", _masked_crc32c(header))
            + data
            + struct.pack("<I", _masked_crc32c(data))
        )
        self._file.write(record)
        self._pending += 1

    def _flush_locked(self, sync: bool) -> None:
        assert self._file is not None
        self._file.flush()
        if sync:
            os.fsync(self._file.fileno())
        self._pending = 0
        self._last_flush = time.monotonic()

    def get_logdir(self) -> str:
        return self.logdir

    def add_event(self, event: Any) -> None:
        """Append an ``Event`` protocol buffer (ignored after ``close()``, as in TF1)."""
        with self._lock:
            if self._file is None:
                return
            self._write(event)
            due = time.monotonic() - self._last_flush >= self._flush_secs
            if self._pending >= self._max_queue or due:
                self._flush_locked(sync=False)

    def add_summary(self, summary: Any, global_step: int | None = None) -> None:
        """Append a summary (the bytes ``Session.run`` gave, or a ``Summary`` protocol buffer)."""
        if isinstance(summary, (bytes, bytearray)):
            summary = _protos().summary_pb2.Summary.FromString(bytes(summary))
        elif isinstance(summary, Summary):
            raise InvalidArgumentError(
                f"symgrad: FileWriter.add_summary: '{summary.name}' is a summary in the graph; "
                f"pass its value: writer.add_summary(sess.run(summary), step)"
            )
        elif not isinstance(summary, _protos().summary_pb2.Summary):
            raise InvalidArgumentError(
                f"symgrad: FileWriter.add_summary: expected the bytes of a Summary, got "
                f"{type(summary).__name__}"
            )
        event = _protos().event_pb2.Event(wall_time=time.time(), summary=summary)
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_graph(self, graph: Graph, global_step: int | None = None) -> None:
        """Write the graph for TensorBoard's graph view."""
        if not isinstance(graph, Graph):
            raise InvalidArgumentError(
                f"symgrad: FileWriter.add_graph: expected a symgrad Graph, got "
                f"{type(graph).__name__}"
            )
        self._add_graph_def(graph_def(graph), global_step)

    def _add_graph_def(self, definition: Any, global_step: int | None = None) -> None:
        event = _protos().event_pb2.Event(
            wall_time=time.time(), graph_def=definition.SerializeToString()
        )
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def flush(self) -> None:
        """Write every pending record to the file and the file to disk."""
        with self._lock:
            if self._file is not None:
                self._flush_locked(sync=True)

    def close(self) -> None:
        """Flush and close the file; later records are dropped until ``reopen()``."""
        with self._lock:
            if self._file is None:
                return
            self._stop.set()
            self._flush_locked(sync=True)
            self._file.close()
            self._file = None
        _open_writers.discard(self)

    def reopen(self) -> None:
        """After ``close()``: go on writing, into a new event file (TF1's ``reopen``)."""
        with self._lock:
            if self._file is not None:
                return
            self._open()

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


@atexit.register
def _close_open_writers() -> None:
    """Records still buffered when the interpreter exits reach their files."""
    for writer in list(_open_writers):
        writer.close()
