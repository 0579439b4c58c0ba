"""TensorFlow's V2 checkpoint format (the "tensor bundle"), read and written without TensorFlow.

A bundle with prefix ``model.ckpt`` is:

* ``model.ckpt.index``: a sorted string table (:mod:`symgrad.tf_files.table`). Its first
  entry, key ``""``, is a ``BundleHeaderProto`` (number of data files, byte order, format
  version); every other entry maps a tensor's name (UTF-8) to a ``BundleEntryProto``: dtype,
  shape, which data file, the offset and size of its bytes there, and their masked CRC-32C.
* ``model.ckpt.data-00000-of-00001`` (``data-%05d-of-%05d`` for several): the tensors'
  bytes back to back, little-endian, each tensor C-ordered. A string tensor is stored as the
  varint lengths of its strings, a 4-byte masked CRC-32C of those lengths, then the strings.

Reading checks everything it reads: the table (see :mod:`~symgrad.tf_files.table`), the
header's version and byte order, every entry's dtype, shape and size (against the dtype and
against the data file's real size, before anything is allocated), that the tensors of each
data file cover it exactly, and each tensor's CRC. Any problem is a
:class:`~symgrad.errors.CheckpointError` that names the file. Only ``prefix.index`` and the
``prefix.data-NNNNN-of-MMMMM`` files are ever opened.

Writing makes what TensorFlow's ``SaveV2`` makes for the same tensors given in name order
(the order ``tf.compat.v1.train.Saver`` gives them too): the same data file and, byte for
byte, the same index. Tensor names must be non-empty
(``""`` is the header's key) and free of NUL characters: TensorFlow keys the slices of a
partitioned variable with names that start with NUL, and its reader cannot tell such a key
from a tensor's name.
"""

from __future__ import annotations

import contextlib
import math
import os
import stat
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from io import BufferedReader
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ..errors import ArgumentTypeError, CheckpointError, DTypeError, InvalidArgumentError
from ..files import write_files_together
from .coding import DecodeError, decode_fixed32, decode_varint, encode_varint
from .crc import crc32c, mask, unmask
from .protos import bundle_protos
from .table import build_table, read_table

INDEX_SUFFIX = ".index"
HEADER_KEY = b""
# kTensorBundleVersion: the format version TensorFlow writes, and the newest this reads.
BUNDLE_VERSION = 1
# kTensorBundleMinProducer: the oldest writer whose bundles TensorFlow (and this) reads.
MIN_PRODUCER = 0
# Data files are numbered with five digits; no TensorFlow saver makes more.
MAX_SHARDS = 99_999
# TensorShape::MaxDimensions.
MAX_RANK = 254
_INT64_MAX = 2**63 - 1
# How many names an error about a missing tensor lists.
_NAMES_SHOWN = 20
_UINT32_MAX = 2**32 - 1

# TensorFlow's DataType numbers (types.proto): written into every entry, so fixed forever.
DT_FLOAT = 1
DT_DOUBLE = 2
DT_INT32 = 3
DT_UINT8 = 4
DT_INT16 = 5
DT_INT8 = 6
DT_STRING = 7
DT_COMPLEX64 = 8
DT_INT64 = 9
DT_BOOL = 10
DT_UINT16 = 17
DT_COMPLEX128 = 18
DT_HALF = 19
DT_UINT32 = 22
DT_UINT64 = 23

# The dtypes NumPy holds, as the bytes in the file are laid out (little-endian).
# TensorFlow's DataType numbers (types.proto) -> NumPy's dtypes: the one table of them that
# symgrad's readers and writers of TF's files (graph_import, graph_export) share.
NUMPY_DTYPES: dict[int, np.dtype[Any]] = {
    DT_HALF: np.dtype("<f2"),
    DT_FLOAT: np.dtype("<f4"),
    DT_DOUBLE: np.dtype("<f8"),
    DT_INT8: np.dtype("i1"),
    DT_INT16: np.dtype("<i2"),
    DT_INT32: np.dtype("<i4"),
    DT_INT64: np.dtype("<i8"),
    DT_UINT8: np.dtype("u1"),
    DT_UINT16: np.dtype("<u2"),
    DT_UINT32: np.dtype("<u4"),
    DT_UINT64: np.dtype("<u8"),
    DT_BOOL: np.dtype("?"),
    DT_COMPLEX64: np.dtype("<c8"),
    DT_COMPLEX128: np.dtype("<c16"),
    DT_STRING: np.dtype(object),
}
# NumPy's kind and item size -> TensorFlow's dtype, for writing.
TF_DTYPES = {
    (dtype.kind, dtype.itemsize): number
    for number, dtype in NUMPY_DTYPES.items()
    if number != DT_STRING
}
# TensorFlow's Python names where they differ from the enum's (DT_HALF is tf.float16).
_TF_NAMES = {DT_HALF: "float16", DT_FLOAT: "float32", DT_DOUBLE: "float64"}


@dataclass(frozen=True)
class BundleEntry:
    """What a bundle's index says about one tensor.

    ``dtype`` is the NumPy dtype :func:`read_tensor` returns (``object`` for strings, which
    are read as ``bytes``), or None where NumPy has none (``bfloat16``, quantized types,
    resources, variants); ``tf_dtype`` is TensorFlow's name for it either way. The tensor's
    bytes lie in data file ``shard`` at ``offset`` (``size`` bytes); ``crc32c`` is their
    CRC-32C (the file stores it masked, as TensorFlow does). ``slices`` counts the parts a
    partitioned variable was saved in (0 for a whole tensor; the location fields are then 0).
    """

    dtype: np.dtype[Any] | None
    tf_dtype: str
    shape: tuple[int, ...]
    shard: int
    offset: int
    size: int
    crc32c: int
    slices: int = 0


def index_path(prefix: str | os.PathLike[str]) -> str:
    """The index file of the bundle ``prefix``.

    >>> index_path("train/model.ckpt-100")
    'train/model.ckpt-100.index'
    """
    return _prefix(prefix) + INDEX_SUFFIX


def data_path(prefix: str | os.PathLike[str], shard: int, num_shards: int) -> str:
    """Data file ``shard`` (from 0) of a bundle with ``num_shards`` of them.

    >>> data_path("train/model.ckpt-100", 0, 1)
    'train/model.ckpt-100.data-00000-of-00001'
    """
    return f"{_prefix(prefix)}.data-{shard:05d}-of-{num_shards:05d}"


def bundle_exists(prefix: str | os.PathLike[str]) -> bool:
    """Whether a bundle's index file exists at ``prefix`` (as TensorFlow's
    ``checkpoint_exists`` decides); its contents are checked only when read.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     before = bundle_exists(f"{folder}/model")
    ...     write_bundle(f"{folder}/model", {"w": np.zeros(2)})
    ...     before, bundle_exists(f"{folder}/model")
    (False, True)
    """
    return os.path.isfile(index_path(prefix))


def write_bundle(prefix: str | os.PathLike[str], arrays: Mapping[str, np.ndarray]) -> None:
    """Save ``arrays`` as a TensorFlow checkpoint at ``prefix`` (one data file), readable by
    ``tf.train.load_checkpoint``, ``tf.compat.v1.train.Saver.restore`` and :func:`read_bundle`.

    The data are written in name order, as ``tf.raw_ops.SaveV2`` writes tensors given in
    that order, and the index is byte for byte TensorFlow's. Supported: float16/32/64,
    int8/16/32/64, uint8/16/32/64, bool, complex64/128, and strings (arrays of ``bytes`` or
    ``str``, or NumPy's ``S``/``U`` dtypes; ``str`` is saved as UTF-8).

    The data file is written first, then the index, each to a temporary file in the folder,
    flushed to disk; then both are renamed into place, the index last. An error while
    writing leaves a previous bundle at ``prefix`` as it was.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_bundle(f"{folder}/model", {"dense/kernel": np.eye(2), "step": np.int64(7)})
    ...     sorted(os.listdir(folder))
    ['model.data-00000-of-00001', 'model.index']
    """
    prefix = _prefix(prefix)
    if not isinstance(arrays, Mapping):
        raise ArgumentTypeError(
            f"symgrad: write_bundle takes a mapping of names to arrays, not {type(arrays).__name__}"
        )
    tensors = sorted((_prepare(name, value) for name, value in arrays.items()), key=lambda t: t.key)
    protos = bundle_protos()
    records: list[tuple[bytes, bytes]] = []

    def write_data(file: BinaryIO) -> None:
        offset = 0
        for tensor in tensors:
            if tensor.strings is not None:
                size, crc = _write_strings(file, tensor.strings)
            else:
                assert tensor.array is not None
                file.write(tensor.array.data)
                size, crc = tensor.array.nbytes, crc32c(tensor.array)
            entry = protos.BundleEntryProto(
                dtype=tensor.dtype, offset=offset, size=size, crc32c=mask(crc)
            )
            # TensorFlow always sets the shape, so even a scalar's empty shape is in the entry.
            entry.shape.SetInParent()
            for dimension in tensor.shape:
                entry.shape.dim.add(size=dimension)
            records.append((tensor.key, entry.SerializeToString()))
            offset += size

    def write_index(file: BinaryIO) -> None:
        file.write(_index_table(records))

    write_files_together(
        [(Path(data_path(prefix, 0, 1)), write_data), (Path(index_path(prefix)), write_index)]
    )


def read_bundle_index(prefix: str | os.PathLike[str]) -> dict[str, BundleEntry]:
    """What the bundle at ``prefix`` holds: each tensor's name and :class:`BundleEntry`, in
    name order. Reads and checks only the index file (the data files may be absent).

    The slices of a partitioned variable are not listed: the variable is, with its full
    shape and ``slices`` set.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_bundle(f"{folder}/model", {"w": np.ones((2, 3), np.float32), "b": np.zeros(3)})
    ...     index = read_bundle_index(f"{folder}/model")
    >>> list(index), index["w"].dtype, index["w"].shape, index["w"].offset, index["w"].size
    (['b', 'w'], dtype('float32'), (2, 3), 24, 24)
    """
    return dict(_load_index(_prefix(prefix)).tensors)


def read_tensor(prefix: str | os.PathLike[str], name: str) -> np.ndarray:
    """The value of tensor ``name`` in the bundle at ``prefix``, as a NumPy array (strings
    as an object array of ``bytes``). Checks the index, the data file's layout and the
    tensor's CRC.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_bundle(f"{folder}/model", {"w": np.arange(3.0), "words": np.array([b"hi", b""])})
    ...     read_tensor(f"{folder}/model", "w"), read_tensor(f"{folder}/model", "words")
    (array([0., 1., 2.]), array([b'hi', b''], dtype=object))
    """
    index = _load_index(_prefix(prefix))
    entry = index.tensors.get(name)
    if entry is None:
        names = [repr(known) for known in index.tensors]
        if len(names) > _NAMES_SHOWN:
            names[_NAMES_SHOWN:] = [f"... ({len(index.tensors)} in all)"]
        raise CheckpointError(
            f"symgrad: the checkpoint index {index.path!r} has no tensor {name!r}; it has "
            f"{', '.join(names) or 'none'}"
        )
    with _DataFiles(index) as files:
        return files.read(name, entry)


def read_bundle(prefix: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Every tensor of the bundle at ``prefix``, by name (in name order), as
    :func:`read_tensor` reads them. A tensor NumPy cannot hold (``bfloat16``, ...) or a
    partitioned variable is an error that names it; :func:`read_bundle_index` and
    :func:`read_tensor` read the others.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_bundle(f"{folder}/model", {"b": np.zeros(2, np.float32), "a": np.int32(5)})
    ...     read_bundle(f"{folder}/model")
    {'a': array(5, dtype=int32), 'b': array([0., 0.], dtype=float32)}
    """
    index = _load_index(_prefix(prefix))
    with _DataFiles(index) as files:
        return {name: files.read(name, entry) for name, entry in index.tensors.items()}


# --- writing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tensor:
    """A tensor ready to write: its key, TensorFlow dtype, shape, and either its bytes (a
    C-contiguous little-endian array) or its strings in C order."""

    key: bytes
    dtype: int
    shape: tuple[int, ...]
    array: np.ndarray | None
    strings: list[bytes] | None


def _prepare(name: object, value: object) -> _Tensor:
    if not isinstance(name, str):
        raise ArgumentTypeError(
            f"symgrad: tensor names are strings, not {type(name).__name__} ({name!r})"
        )
    if not name:
        raise InvalidArgumentError(
            "symgrad: a tensor cannot be named '': that key holds the checkpoint's header"
        )
    if "\0" in name:
        raise InvalidArgumentError(
            f"symgrad: the tensor name {name!r} contains a NUL character; TensorFlow keys the "
            f"slices of partitioned variables with names that start with NUL"
        )
    try:
        key = name.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgumentError(
            f"symgrad: the tensor name {name!r} cannot be written as UTF-8"
        ) from None
    array = np.asarray(value)
    shape = tuple(int(dimension) for dimension in array.shape)
    if array.dtype.kind in "OSU":
        return _Tensor(key, DT_STRING, shape, None, _strings(name, array))
    number = TF_DTYPES.get((array.dtype.kind, array.dtype.itemsize))
    if number is None:
        supported = ", ".join(
            sorted({dtype.name for dtype in NUMPY_DTYPES.values() if dtype.kind != "O"})
        )
        raise DTypeError(
            f"symgrad: cannot save {name!r}: its dtype {array.dtype} has no TensorFlow "
            f"checkpoint dtype; supported: {supported}, and strings"
        )
    if number == DT_BOOL:
        # One byte each, 0 or 1 (a NumPy bool made by a view may hold other bytes).
        array = np.not_equal(array, False)
    return _Tensor(key, number, shape, np.ascontiguousarray(array, NUMPY_DTYPES[number]), None)


def _strings(name: str, array: np.ndarray) -> list[bytes]:
    strings: list[bytes] = []
    for element in array.reshape(-1).tolist():
        if isinstance(element, str):
            strings.append(element.encode("utf-8", "surrogatepass"))
        elif isinstance(element, bytes):
            strings.append(bytes(element))
        else:
            raise DTypeError(
                f"symgrad: cannot save {name!r}: a string tensor's elements are bytes or str, "
                f"not {type(element).__name__}"
            )
    return strings


def _write_strings(file: BinaryIO, strings: list[bytes]) -> tuple[int, int]:
    """Write a string tensor as TensorFlow does; its size and the CRC its entry stores: the
    lengths (as 4-byte numbers, 8 for a string of 4 GiB or more), the lengths' masked CRC as
    written, and the strings."""
    lengths = b"".join(encode_varint(len(string)) for string in strings)
    length_crc = crc32c(_checksummed_lengths([len(string) for string in strings]))
    length_checksum = mask(length_crc).to_bytes(4, "little")
    crc = crc32c(length_checksum, length_crc)
    file.write(lengths)
    file.write(length_checksum)
    for string in strings:
        file.write(string)
        crc = crc32c(string, crc)
    return len(lengths) + 4 + sum(len(string) for string in strings), crc


def _checksummed_lengths(lengths: list[int]) -> bytes:
    """String lengths as TensorFlow feeds them to the CRC: 4 little-endian bytes each, or 8
    for a length that does not fit in 4 (the format's first version had only 4)."""
    if all(length <= _UINT32_MAX for length in lengths):
        return np.asarray(lengths, dtype="<u4").tobytes()
    return b"".join(
        length.to_bytes(4 if length <= _UINT32_MAX else 8, "little") for length in lengths
    )


def _index_table(records: list[tuple[bytes, bytes]]) -> bytes:
    """The index: the header (one data file, little-endian, this format version), then the
    entries in key order."""
    header = bundle_protos().BundleHeaderProto(num_shards=1)
    header.version.producer = BUNDLE_VERSION
    return build_table([(HEADER_KEY, header.SerializeToString()), *records])


# --- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Index:
    """A bundle's index, read and checked: every entry (the slices of partitioned variables
    too, which have no name of their own) and the named tensors."""

    prefix: str
    path: str
    num_shards: int
    entries: list[tuple[str, BundleEntry]]
    tensors: dict[str, BundleEntry]


def _load_index(prefix: str) -> _Index:
    path = index_path(prefix)
    file = _open_regular(path, "index")
    if file is None:
        raise CheckpointError(
            f"symgrad: no TensorFlow checkpoint at {prefix!r}: there is no file {path!r}"
        )
    with file:
        data = _read_all(file, path)
    records = read_table(data, path)

    def damaged(detail: str) -> CheckpointError:
        return CheckpointError(f"symgrad: the checkpoint index {path!r} {detail}")

    if not records or records[0][0] != HEADER_KEY:
        raise damaged("has no header entry (the entry with key '')")
    protos = bundle_protos()
    header = _parse(protos.BundleHeaderProto, records[0][1], damaged, "its header")
    num_shards = int(header.num_shards)
    if not 1 <= num_shards <= MAX_SHARDS:
        raise damaged(f"declares {num_shards} data files (it must be 1 to {MAX_SHARDS})")
    if header.endianness == 1:
        raise damaged(
            "holds a big-endian checkpoint; symgrad reads little-endian ones (what TensorFlow "
            "writes on every common platform)"
        )
    if header.endianness != 0:
        raise damaged(f"declares the unknown byte order {header.endianness}")
    version = header.version
    if version.producer < MIN_PRODUCER:
        raise damaged(f"was written by format version {version.producer}, older than any reader")
    if version.min_consumer > BUNDLE_VERSION:
        raise damaged(
            f"needs a reader of format version {version.min_consumer} or newer; symgrad reads "
            f"version {BUNDLE_VERSION}"
        )
    if BUNDLE_VERSION in version.bad_consumers:
        raise damaged(f"says that readers of format version {BUNDLE_VERSION} must not read it")

    entries: list[tuple[str, BundleEntry]] = []
    tensors: dict[str, BundleEntry] = {}
    for key, value in records[1:]:
        # TensorFlow keys a partitioned variable's slices with an encoding that starts with NUL.
        is_slice = key[:1] == b"\0"
        if is_slice:
            label = f"the slice entry {key!r}"
        else:
            try:
                name = key.decode("utf-8")
            except UnicodeDecodeError:
                raise damaged(f"has a tensor name that is not UTF-8: {key!r}") from None
            label = f"tensor {name!r}"
        proto = _parse(protos.BundleEntryProto, value, damaged, label)
        entry = _entry(proto, label, num_shards, damaged)
        entries.append((label, entry))
        if not is_slice:
            tensors[name] = entry
    return _Index(prefix, path, num_shards, entries, tensors)


def _parse(
    message_class: type[Any], data: bytes, damaged: Callable[[str], CheckpointError], what: str
) -> Any:
    message = message_class()
    try:
        message.ParseFromString(data)
    except bundle_protos().DecodeError as error:
        raise damaged(f"has an unreadable entry for {what} ({error})") from None
    return message


def _entry(
    proto: Any, label: str, num_shards: int, damaged: Callable[[str], CheckpointError]
) -> BundleEntry:
    """A BundleEntry from its message, every field checked on its own and against the others."""
    number = int(proto.dtype)
    tf_dtype = _tf_dtype_name(number)
    if number == 0:
        raise damaged(f"gives {label} no dtype")
    if proto.shape.unknown_rank:
        raise damaged(f"gives {label} a shape of unknown rank")
    shape = tuple(int(dimension.size) for dimension in proto.shape.dim)
    if len(shape) > MAX_RANK:
        raise damaged(f"gives {label} {len(shape)} dimensions; TensorFlow allows {MAX_RANK}")
    if any(size < 0 for size in shape):
        raise damaged(f"gives {label} the shape {list(shape)}, with a dimension below 0")
    dtype = NUMPY_DTYPES.get(number)
    # NumPy must be able to hold the shape even with no elements: the sizes of the non-zero
    # dimensions multiply to a byte count that must fit a signed 64-bit (and machine) integer.
    spanned = math.prod(size for size in shape if size) * (dtype.itemsize if dtype else 1)
    if spanned > min(_INT64_MAX, sys.maxsize):
        raise damaged(f"gives {label} the shape {list(shape)}, whose element count overflows")
    if proto.slices:
        # TensorFlow ignores the location fields of a partitioned variable's entry.
        return BundleEntry(dtype, tf_dtype, shape, 0, 0, 0, 0, len(proto.slices))
    shard, offset, size = int(proto.shard_id), int(proto.offset), int(proto.size)
    if not 0 <= shard < num_shards:
        raise damaged(f"places {label} in data file {shard}, but the checkpoint has {num_shards}")
    if offset < 0 or size < 0:
        raise damaged(f"places {label} at offset {offset} with size {size}")
    count = math.prod(shape)
    if number == DT_STRING:
        # At least one byte of length per string, and the 4-byte checksum of the lengths.
        if size < count + 4:
            raise damaged(
                f"gives {label} (string{list(shape)}) {size} bytes, fewer than the {count + 4} "
                f"its {count} strings take at least"
            )
    elif dtype is not None and size != count * dtype.itemsize:
        raise damaged(
            f"gives {label} ({tf_dtype}{list(shape)}) {size} bytes; that shape takes "
            f"{count * dtype.itemsize}"
        )
    return BundleEntry(dtype, tf_dtype, shape, shard, offset, size, unmask(int(proto.crc32c)))


def _tf_dtype_name(number: int) -> str:
    if number in _TF_NAMES:
        return _TF_NAMES[number]
    try:
        name = str(bundle_protos().DataType.Name(number))
    except ValueError:
        return f"unknown dtype {number}"
    return name.removeprefix("DT_").lower()


class _DataFiles:
    """The data files of one bundle, each opened once, and its layout checked against the
    index before any tensor is read from it."""

    def __init__(self, index: _Index) -> None:
        self.index = index
        self._files: dict[int, tuple[BufferedReader, str]] = {}
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> _DataFiles:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()

    def open(self, shard: int) -> tuple[BufferedReader, str]:
        if shard in self._files:
            return self._files[shard]
        path = data_path(self.index.prefix, shard, self.index.num_shards)
        file = _open_regular(path, "data file")
        if file is None:
            raise CheckpointError(
                f"symgrad: the checkpoint data file {path!r} is missing (the index "
                f"{self.index.path!r} needs it)"
            )
        self._stack.enter_context(file)
        self._check_layout(shard, path, os.fstat(file.fileno()).st_size)
        self._files[shard] = (file, path)
        return file, path

    def _check_layout(self, shard: int, path: str, file_size: int) -> None:
        """The tensors of a data file lie within it, back to back from its first byte to its
        last, as TensorFlow writes them: a truncated, extended or mismatched file is found
        before anything is allocated or read."""
        placed = sorted(
            (entry.offset, entry.size, label)
            for label, entry in self.index.entries
            if not entry.slices and entry.shard == shard
        )
        for offset, size, label in placed:
            if offset + size > file_size:
                raise CheckpointError(
                    f"symgrad: the checkpoint data file {path!r} has {file_size} bytes, but "
                    f"{label} lies at bytes {offset}..{offset + size} (the file is truncated, or "
                    f"belongs to another index)"
                )
        position = 0
        for offset, size, label in placed:
            if offset != position:
                relation = "overlaps the tensor before it" if offset < position else "leaves a gap"
                raise CheckpointError(
                    f"symgrad: the checkpoint data file {path!r}: {label} at byte {offset} "
                    f"{relation} (the previous one ends at byte {position})"
                )
            position += size
        if position != file_size:
            raise CheckpointError(
                f"symgrad: the checkpoint data file {path!r} has {file_size} bytes, but its "
                f"tensors end at byte {position} (it holds bytes no tensor accounts for)"
            )

    def read(self, name: str, entry: BundleEntry) -> np.ndarray:
        where = f"tensor {name!r} of the checkpoint {self.index.path!r}"
        if entry.slices:
            raise CheckpointError(
                f"symgrad: {where} is a partitioned variable saved in {entry.slices} slices; "
                f"symgrad reads whole tensors only"
            )
        if entry.dtype is None:
            raise CheckpointError(
                f"symgrad: {where} has dtype {entry.tf_dtype}, which NumPy has no dtype for"
            )
        file, path = self.open(entry.shard)
        buffer = _read_at(file, entry.offset, entry.size, path)
        if entry.tf_dtype == "string":
            return _decode_strings(buffer, entry, name, path)
        if crc32c(np.frombuffer(buffer, np.uint8)) != entry.crc32c:
            raise CheckpointError(
                f"symgrad: the checkpoint data file {path!r}: tensor {name!r} fails its CRC-32C "
                f"check (the file is damaged)"
            )
        array = np.frombuffer(buffer, entry.dtype)
        if entry.dtype.kind == "b" and np.frombuffer(buffer, np.uint8).max(initial=0) > 1:
            raise CheckpointError(
                f"symgrad: the checkpoint data file {path!r}: tensor {name!r} holds a boolean "
                f"byte other than 0 or 1"
            )
        return array.reshape(entry.shape).astype(entry.dtype.newbyteorder("="), copy=False)


def _decode_strings(buffer: bytearray, entry: BundleEntry, name: str, path: str) -> np.ndarray:
    data = bytes(buffer)
    count = math.prod(entry.shape)

    def damaged(detail: str) -> CheckpointError:
        return CheckpointError(
            f"symgrad: the checkpoint data file {path!r}: string tensor {name!r} {detail}"
        )

    lengths: list[int] = []
    position = 0
    try:
        for _ in range(count):
            length, position = decode_varint(data, position, len(data) - 4)
            lengths.append(length)
    except DecodeError as error:
        raise damaged(f"has damaged string lengths ({error})") from None
    length_crc = crc32c(_checksummed_lengths(lengths))
    if crc32c(data[position:], length_crc) != entry.crc32c:
        raise damaged("fails its CRC-32C check (the file is damaged)")
    if unmask(decode_fixed32(data, position)) != length_crc:
        raise damaged("fails the CRC-32C check of its string lengths (the file is damaged)")
    start = position + 4
    if start + sum(lengths) != len(data):
        raise damaged(
            f"has strings of {sum(lengths)} bytes in all, but its entry holds "
            f"{len(data) - start} bytes of strings"
        )
    strings = np.empty(count, dtype=object)
    for number, length in enumerate(lengths):
        strings[number] = data[start : start + length]
        start += length
    return strings.reshape(entry.shape)


# --- files -------------------------------------------------------------------------------------


def _prefix(prefix: str | os.PathLike[str]) -> str:
    path = os.fspath(prefix)
    if not isinstance(path, str):
        raise ArgumentTypeError(
            f"symgrad: a checkpoint prefix is a str or path, not {type(prefix).__name__}"
        )
    return path


def _open_regular(path: str, what: str) -> BufferedReader | None:
    """``path`` opened for reading if it is a regular file (never blocking on a FIFO); None
    if there is no such file."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise CheckpointError(
            f"symgrad: cannot read the checkpoint {what} {path!r}: {error.strerror or error}"
        ) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise CheckpointError(f"symgrad: the checkpoint {what} {path!r} is not a regular file")
    return os.fdopen(descriptor, "rb")


def _read_all(file: BufferedReader, path: str) -> bytes:
    try:
        return file.read()
    except OSError as error:
        raise CheckpointError(f"symgrad: cannot read {path!r}: {error.strerror or error}") from None


def _read_at(file: BufferedReader, offset: int, size: int, path: str) -> bytearray:
    """``size`` bytes at ``offset``; the layout check has already put them inside the file."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    try:
        file.seek(offset)
        filled = 0
        while filled < size:
            read = file.readinto(view[filled:])
            if not read:
                raise CheckpointError(
                    f"symgrad: the checkpoint data file {path!r} ended at byte {offset + filled} "
                    f"while reading bytes {offset}..{offset + size} (it changed while read)"
                )
            filled += read
    except OSError as error:
        raise CheckpointError(f"symgrad: cannot read {path!r}: {error.strerror or error}") from None
    return buffer
