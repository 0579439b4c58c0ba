"""TensorFlow's graph files, read and written without TensorFlow: GraphDefs (binary ``.pb`` and
text ``.pbtxt``), MetaGraphDefs (``.meta``) and SavedModels (``saved_model.pb`` and its
``variables/`` checkpoint).

The messages are TensorFlow's own, compiled and shipped by the ``tensorboard`` package
(``graph_pb2``, ``meta_graph_pb2``); the text form is protobuf's ``text_format``; a
``TensorProto`` becomes a NumPy array through tensorboard's ``tensor_util.make_ndarray``.
Only the SavedModel's outer message (``saved_model.proto``: a schema version and the meta
graphs) is not shipped; it is described here with protobuf's descriptor messages, as the
checkpoint's messages are in :mod:`~symgrad.tf_files.protos`.

Every file is read whole after a size check, and every error (a missing or cut file, bytes
that do not parse) is a :class:`~symgrad.errors.ModelFileError` naming the file.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelFileError
from ..files import write_files_together
from ._libraries import require_libraries

# No GraphDef people ship comes near this; a larger file is refused before it is read whole.
MAX_FILE_BYTES = 2**31

SAVED_MODEL_FILE = "saved_model.pb"
SAVED_MODEL_TEXT_FILE = "saved_model.pbtxt"
VARIABLES_FOLDER = "variables"
VARIABLES_PREFIX = "variables"
_FILE_NAME = "symgrad/tf_files/saved_model.proto"
_PACKAGE = "symgrad.tf_files"


def graph_def_class() -> type[Any]:
    """TensorFlow's ``GraphDef`` message class (from ``tensorboard.compat.proto``)."""
    return require_libraries().graph_pb2.GraphDef


def meta_graph_def_class() -> type[Any]:
    """TensorFlow's ``MetaGraphDef`` message class."""
    return require_libraries().meta_graph_pb2.MetaGraphDef


def _read_bytes(path: str | os.PathLike[str], what: str) -> bytes:
    """The whole of a regular file (never a FIFO, which would block), size-checked first."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ModelFileError(f"symgrad: no {what} at '{path}'") from None
    except OSError as error:
        raise ModelFileError(f"symgrad: cannot read the {what} '{path}': {error}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ModelFileError(f"symgrad: the {what} '{path}' is not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise ModelFileError(
            f"symgrad: the {what} '{path}' is {info.st_size} bytes, more than the "
            f"{MAX_FILE_BYTES} a protocol buffer can hold"
        )
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise ModelFileError(f"symgrad: cannot read the {what} '{path}': {error}") from None


def _parse(message: Any, data: bytes, path: str | os.PathLike[str], what: str, text: bool) -> Any:
    libraries = require_libraries()
    try:
        if text:
            libraries.text_format.Parse(data.decode("utf-8"), message)
        else:
            message.ParseFromString(data)
    except (
        libraries.protobuf_message.DecodeError,
        libraries.text_format.ParseError,
        UnicodeDecodeError,
        RuntimeWarning,
        ValueError,
    ) as error:
        form = "text" if text else "binary"
        raise ModelFileError(
            f"symgrad: '{path}' is not a {what} in protobuf {form} form: {error}"
        ) from None
    return message


def _is_text(path: str | os.PathLike[str], data: bytes) -> bool:
    """Text form for ``.pbtxt``/``.txt`` files, binary for ``.pb``/``.meta``; other names are
    text when they are printable ASCII (a binary GraphDef starts with a field tag byte)."""
    suffix = Path(path).suffix.lower()
    if suffix in (".pbtxt", ".txt", ".prototxt"):
        return True
    if suffix in (".pb", ".meta", ".graphdef"):
        return False
    head = data[:256]
    return bool(head) and all(32 <= byte < 127 or byte in b"\t\r\n" for byte in head)


def read_graph_def(path: str | os.PathLike[str]) -> Any:
    """The ``GraphDef`` in a ``.pb`` (binary) or ``.pbtxt`` (text) file.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     graph_def = graph_def_class()()
    ...     node = graph_def.node.add(name="x", op="Placeholder")
    ...     _ = write_graph_def(graph_def, f"{folder}/g.pbtxt", as_text=True)
    ...     [n.name for n in read_graph_def(f"{folder}/g.pbtxt").node]
    ['x']
    """
    data = _read_bytes(path, "GraphDef file")
    return _parse(graph_def_class()(), data, path, "GraphDef", _is_text(path, data))


def parse_graph_def(data: bytes) -> Any:
    """A ``GraphDef`` from its binary serialization (TF1's ``GraphDef.FromString``)."""
    return _parse(graph_def_class()(), bytes(data), "<bytes>", "GraphDef", text=False)


def read_meta_graph_def(path: str | os.PathLike[str]) -> Any:
    """The ``MetaGraphDef`` in a ``.meta`` file (binary) or a text one."""
    data = _read_bytes(path, "MetaGraph file")
    return _parse(meta_graph_def_class()(), data, path, "MetaGraphDef", _is_text(path, data))


def write_graph_def(message: Any, path: str | os.PathLike[str], as_text: bool = False) -> str:
    """Write a ``GraphDef`` or ``MetaGraphDef`` atomically, in text or binary form; the path."""
    libraries = require_libraries()
    if as_text:
        data = libraries.text_format.MessageToString(message).encode()
    else:
        data = message.SerializeToString(deterministic=True)
    write_files_together([(Path(path), _writer(data))])
    return str(path)


def _writer(data: bytes) -> Callable[[Any], object]:
    return lambda file: file.write(data)


# The largest tensor value read from a graph file: a Const that declares more (a hostile or
# broken file: one value "repeated" over [10**9, 10**9]) is refused before anything is made.
MAX_TENSOR_BYTES = 2**31


def tensor_to_array(tensor: Any, where: str) -> np.ndarray:
    """A ``TensorProto`` (a Const's value) as a NumPy array, through tensorboard's
    ``make_ndarray``; strings are object arrays of ``bytes``. Its declared size is checked
    first (Python ints, no overflow): more than ``MAX_TENSOR_BYTES`` is an error."""
    libraries = require_libraries()
    sizes = [int(dim.size) for dim in tensor.tensor_shape.dim]
    if any(size < 0 for size in sizes):
        raise ModelFileError(f"symgrad: {where}: a tensor value of negative size {sizes}")
    elements = 1
    for size in sizes:
        elements *= size
    if elements * 16 > MAX_TENSOR_BYTES:  # 16: the widest element (complex128)
        raise ModelFileError(
            f"symgrad: {where}: a tensor value of shape {sizes} ({elements} elements) is "
            f"larger than symgrad reads from a graph file"
        )
    try:
        return np.asarray(libraries.tensor_util.make_ndarray(tensor))
    except (TypeError, ValueError) as error:
        raise ModelFileError(
            f"symgrad: {where}: a tensor value that cannot be read: {error}"
        ) from None


# --- SavedModel --------------------------------------------------------------------------------


@functools.cache
def saved_model_class() -> type[Any]:
    """The ``SavedModel`` message (``saved_model.proto``), described here with protobuf's
    descriptors over tensorboard's ``MetaGraphDef``."""
    libraries = require_libraries()
    pool = libraries.descriptor_pool.Default()
    try:
        pool.FindFileByName(_FILE_NAME)
    except KeyError:
        descriptor_pb2 = libraries.descriptor_pb2
        field_type = descriptor_pb2.FieldDescriptorProto
        meta_graph = libraries.meta_graph_pb2
        file = descriptor_pb2.FileDescriptorProto(
            name=_FILE_NAME,
            package=_PACKAGE,
            syntax="proto3",
            dependency=[meta_graph.DESCRIPTOR.name],
        )
        message = file.message_type.add(name="SavedModel")
        message.field.add(
            name="saved_model_schema_version",
            number=1,
            type=field_type.TYPE_INT64,
            label=field_type.LABEL_OPTIONAL,
        )
        message.field.add(
            name="meta_graphs",
            number=2,
            type=field_type.TYPE_MESSAGE,
            type_name="." + meta_graph.MetaGraphDef.DESCRIPTOR.full_name,
            label=field_type.LABEL_REPEATED,
        )
        pool.AddSerializedFile(file.SerializeToString())
    descriptor = pool.FindMessageTypeByName(f"{_PACKAGE}.SavedModel")
    get_class = getattr(libraries.message_factory, "GetMessageClass", None)
    if get_class is None:  # protobuf before 4.22
        return libraries.message_factory.MessageFactory(pool).GetPrototype(descriptor)
    return get_class(descriptor)


def read_saved_model(export_dir: str | os.PathLike[str]) -> Any:
    """The ``SavedModel`` message of a SavedModel folder (``saved_model.pb`` or ``.pbtxt``)."""
    folder = Path(export_dir)
    binary, text = folder / SAVED_MODEL_FILE, folder / SAVED_MODEL_TEXT_FILE
    if not folder.is_dir():
        raise ModelFileError(f"symgrad: no SavedModel folder at '{folder}'")
    path = binary if binary.exists() or not text.exists() else text
    data = _read_bytes(path, "SavedModel file")
    return _parse(saved_model_class()(), data, path, "SavedModel", path == text)


def saved_model_variables_prefix(export_dir: str | os.PathLike[str]) -> str:
    """The checkpoint prefix of a SavedModel's variables (``variables/variables``)."""
    return str(Path(export_dir) / VARIABLES_FOLDER / VARIABLES_PREFIX)
