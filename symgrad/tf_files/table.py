"""TensorFlow's sorted string table: the file format of a checkpoint's ``.index``.

TensorFlow took the format from LevelDB (``tensorflow/core/lib/io``, now
``xla/tsl/lib/io``). A table is a sorted list of (key, value) byte strings:

* data blocks, each about ``BLOCK_SIZE`` bytes of entries. An entry is three varints
  (bytes of the key shared with the previous key, bytes not shared, value length), the
  unshared key bytes and the value. Every ``RESTART_INTERVAL`` entries the key is stored
  whole (a "restart point"); the block ends with the restart points' offsets (4 bytes
  each, little-endian) and their count;
* a metaindex block (empty: TensorFlow writes no filters or statistics);
* an index block (a restart at every entry): for each data block, a key at least as large
  as the block's last key and smaller than the next block's first, whose value is the
  block's handle (offset and size, two varints);
* every block followed by a 5-byte trailer: the compression type (0, none) and the
  masked CRC-32C of the block and that type byte;
* a 48-byte footer: the metaindex and index handles, zero padding to 40 bytes, and the
  64-bit magic number.

The writer makes the bytes TensorFlow's ``TableBuilder`` makes with the options that
bundles use (no compression, default block size and restart interval). The reader checks
everything: every block's CRC, that the blocks tile the file exactly from byte 0 to the
footer, the footer's padding and encoding, the blocks' restart arrays, that keys strictly
increase, and that the index keys separate the blocks, so that no byte of a table can
change without the reader noticing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

from ..errors import CheckpointError, InvalidArgumentError
from .coding import DecodeError, decode_fixed32, decode_varint, encode_fixed32, encode_varint
from .crc import crc32c, mask, unmask

# TensorFlow's table options (table_options.h), which its bundle writer does not change.
BLOCK_SIZE = 256 * 1024
RESTART_INTERVAL = 16
# The index block stores every key whole, so that a lookup can bisect it directly.
INDEX_RESTART_INTERVAL = 1
# An entry this many times the block size starts a block of its own (TableBuilder::Add).
OVERLY_LARGE_BLOCK_RATIO = 2

BLOCK_TRAILER_SIZE = 5
MAX_HANDLE_SIZE = 20  # two varint64s
FOOTER_SIZE = 2 * MAX_HANDLE_SIZE + 8
# LevelDB's magic number (the first 64 bits of the SHA-1 of its project URL).
TABLE_MAGIC = 0xDB4775248B80FB57

NO_COMPRESSION = 0
# The only other block type TensorFlow knows; its bundles never use it.
COMPRESSION_NAMES = {1: "snappy"}


@dataclass(frozen=True)
class BlockHandle:
    """Where a block lies in the file: its first byte and its size without the trailer."""

    offset: int
    size: int

    def encode(self) -> bytes:
        return encode_varint(self.offset) + encode_varint(self.size)

    @property
    def end(self) -> int:
        """The byte just after the block's trailer."""
        return self.offset + self.size + BLOCK_TRAILER_SIZE


class _BlockBuilder:
    """The entries of one block, prefix-compressed, as TensorFlow's BlockBuilder lays them out."""

    def __init__(self, restart_interval: int) -> None:
        self._restart_interval = restart_interval
        self.reset()

    def reset(self) -> None:
        self._buffer = bytearray()
        self._restarts = [0]
        self._since_restart = 0
        self._last_key = b""

    @property
    def empty(self) -> bool:
        return not self._buffer

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self._since_restart < self._restart_interval:
            limit = min(len(key), len(self._last_key))
            while shared < limit and key[shared] == self._last_key[shared]:
                shared += 1
        else:
            self._restarts.append(len(self._buffer))
            self._since_restart = 0
        self._buffer += encode_varint(shared)
        self._buffer += encode_varint(len(key) - shared)
        self._buffer += encode_varint(len(value))
        self._buffer += key[shared:]
        self._buffer += value
        self._last_key = key
        self._since_restart += 1

    def size_estimate(self) -> int:
        """The finished block's size, as TensorFlow estimates it to decide when to cut."""
        return len(self._buffer) + 4 * len(self._restarts) + 4

    def finish(self) -> bytes:
        restarts = b"".join(encode_fixed32(offset) for offset in self._restarts)
        return bytes(self._buffer) + restarts + encode_fixed32(len(self._restarts))


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key >= ``start`` and < ``limit`` (TensorFlow's FindShortestSeparator): the
    common prefix and one incremented byte, when that byte can be incremented and stay
    below ``limit``'s; otherwise ``start`` itself."""
    common = 0
    shortest = min(len(start), len(limit))
    while common < shortest and start[common] == limit[common]:
        common += 1
    if common < shortest:
        byte = start[common]
        if byte < 0xFF and byte + 1 < limit[common]:
            return start[:common] + bytes([byte + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """A short key >= ``key`` (TensorFlow's FindShortSuccessor): the first byte that is not
    0xff, incremented, and what precedes it."""
    for position, byte in enumerate(key):
        if byte != 0xFF:
            return key[:position] + bytes([byte + 1])
    return key


def build_table(entries: Iterable[tuple[bytes, bytes]]) -> bytes:
    """The table holding ``entries`` (keys strictly increasing, as bytes compare), byte for
    byte as TensorFlow's TableBuilder writes it for a bundle.

    >>> table = build_table([(b"a", b"1"), (b"b", b"22")])
    >>> len(table), read_table(table, "example.index")
    (104, [(b'a', b'1'), (b'b', b'22')])
    """
    out = bytearray()
    data_block = _BlockBuilder(RESTART_INTERVAL)
    index_block = _BlockBuilder(INDEX_RESTART_INTERVAL)
    last_key: bytes | None = None
    # The index entry of a finished block waits for the next block's first key, so that it
    # can be a short separator rather than the block's whole last key.
    pending_handle: BlockHandle | None = None

    def write_block(block: _BlockBuilder) -> BlockHandle:
        contents = block.finish()
        block.reset()
        handle = BlockHandle(len(out), len(contents))
        kind = bytes([NO_COMPRESSION])
        out.extend(contents)
        out.extend(kind)
        out.extend(encode_fixed32(mask(crc32c(kind, crc32c(contents)))))
        return handle

    for key, value in entries:
        if last_key is not None:
            if key <= last_key:
                raise InvalidArgumentError(
                    f"symgrad: table keys must strictly increase: {key!r} comes after {last_key!r}"
                )
            if len(key) + len(value) >= OVERLY_LARGE_BLOCK_RATIO * BLOCK_SIZE and (
                not data_block.empty
            ):
                pending_handle = write_block(data_block)
        if pending_handle is not None:
            assert last_key is not None
            index_block.add(_shortest_separator(last_key, key), pending_handle.encode())
            pending_handle = None
        last_key = key
        data_block.add(key, value)
        if data_block.size_estimate() >= BLOCK_SIZE:
            pending_handle = write_block(data_block)
    if not data_block.empty:
        pending_handle = write_block(data_block)
    metaindex_handle = write_block(_BlockBuilder(RESTART_INTERVAL))
    if pending_handle is not None:
        assert last_key is not None
        index_block.add(_short_successor(last_key), pending_handle.encode())
    index_handle = write_block(index_block)
    footer = metaindex_handle.encode() + index_handle.encode()
    out.extend(footer.ljust(2 * MAX_HANDLE_SIZE, b"\0"))
    out.extend(TABLE_MAGIC.to_bytes(8, "little"))
    return bytes(out)


class _Reader:
    """Reads and checks one table held in memory; errors name ``path``."""

    def __init__(self, data: bytes, path: str) -> None:
        self.data = data
        self.path = path

    def error(self, detail: str) -> CheckpointError:
        return CheckpointError(f"symgrad: {self.path!r} is not a valid TensorFlow table: {detail}")

    def footer(self) -> tuple[BlockHandle, BlockHandle]:
        size = len(self.data)
        if size < FOOTER_SIZE:
            raise self.error(
                f"it has {size} bytes, fewer than the {FOOTER_SIZE}-byte footer every table ends "
                f"with (the file is truncated)"
            )
        footer = self.data[size - FOOTER_SIZE :]
        magic = int.from_bytes(footer[-8:], "little")
        if magic != TABLE_MAGIC:
            raise self.error(
                f"its last 8 bytes are {magic:#018x}, not the table magic number "
                f"{TABLE_MAGIC:#018x} (not a table, or truncated)"
            )
        try:
            metaindex_offset, position = decode_varint(footer, 0, 2 * MAX_HANDLE_SIZE)
            metaindex_size, position = decode_varint(footer, position, 2 * MAX_HANDLE_SIZE)
            index_offset, position = decode_varint(footer, position, 2 * MAX_HANDLE_SIZE)
            index_size, position = decode_varint(footer, position, 2 * MAX_HANDLE_SIZE)
        except DecodeError as error:
            raise self.error(f"its footer's block handles are damaged ({error})") from None
        if any(footer[position : 2 * MAX_HANDLE_SIZE]):
            raise self.error("the padding in its footer is not zero (the footer is damaged)")
        metaindex = BlockHandle(metaindex_offset, metaindex_size)
        index = BlockHandle(index_offset, index_size)
        # The index block comes last, right before the footer, and the metaindex right
        # before it: any other layout is a damaged footer.
        if index.end != size - FOOTER_SIZE:
            raise self.error(
                f"its footer places the index block at bytes {index.offset}..{index.end}, "
                f"but the footer starts at byte {size - FOOTER_SIZE} (the footer is damaged)"
            )
        if metaindex.end != index.offset:
            raise self.error(
                f"its footer places the metaindex block at bytes {metaindex.offset}.."
                f"{metaindex.end}, not right before the index block at byte {index.offset}"
            )
        return metaindex, index

    def block(self, handle: BlockHandle, what: str) -> bytes:
        """The contents of a block, its trailer checked."""
        end = handle.end
        if end > len(self.data) - FOOTER_SIZE:
            raise self.error(
                f"its {what} at bytes {handle.offset}..{end} runs past the end of the blocks "
                f"(byte {len(self.data) - FOOTER_SIZE})"
            )
        contents = self.data[handle.offset : handle.offset + handle.size]
        kind = self.data[handle.offset + handle.size]
        stored = decode_fixed32(self.data, handle.offset + handle.size + 1)
        if unmask(stored) != crc32c(bytes([kind]), crc32c(contents)):
            raise self.error(
                f"its {what} at bytes {handle.offset}..{end} fails its CRC-32C check "
                f"(the file is damaged)"
            )
        if kind != NO_COMPRESSION:
            if kind in COMPRESSION_NAMES:
                raise self.error(
                    f"its {what} at bytes {handle.offset}..{end} is compressed with "
                    f"{COMPRESSION_NAMES[kind]}; symgrad reads only uncompressed tables, which is "
                    f"what TensorFlow writes for checkpoints"
                )
            raise self.error(
                f"its {what} at bytes {handle.offset}..{end} has the unknown compression "
                f"type {kind}"
            )
        return contents

    def entries(self, contents: bytes, handle: BlockHandle, what: str) -> list[tuple[bytes, bytes]]:
        """The (key, value) entries of a block, its restart array checked against them."""
        where = f"its {what} at bytes {handle.offset}..{handle.end}"
        size = len(contents)
        if size < 4:
            raise self.error(f"{where} has {size} bytes, too few for its restart count")
        restart_count = decode_fixed32(contents, size - 4)
        if restart_count == 0 or 4 * (restart_count + 1) > size:
            raise self.error(
                f"{where} declares {restart_count} restart points, which a block of {size} "
                f"bytes cannot hold"
            )
        limit = size - 4 * (restart_count + 1)
        restarts = [decode_fixed32(contents, limit + 4 * number) for number in range(restart_count)]
        entries: list[tuple[bytes, bytes]] = []
        # Where each entry starts whose key is stored whole: the only places a restart may point.
        whole_keys: set[int] = set()
        key = b""
        position = 0
        try:
            while position < limit:
                start = position
                shared, position = decode_varint(contents, position, limit, bits=32)
                unshared, position = decode_varint(contents, position, limit, bits=32)
                value_size, position = decode_varint(contents, position, limit, bits=32)
                if shared > len(key):
                    raise DecodeError(
                        f"the entry at byte {start} shares {shared} bytes with a key of {len(key)}"
                    )
                if position + unshared + value_size > limit:
                    raise DecodeError(f"the entry at byte {start} runs past the restart array")
                key = key[:shared] + contents[position : position + unshared]
                position += unshared
                entries.append((key, contents[position : position + value_size]))
                position += value_size
                if shared == 0:
                    whole_keys.add(start)
        except DecodeError as error:
            raise self.error(f"{where} is damaged: {error}") from None
        if not entries and restarts != [0]:
            raise self.error(f"{where} has no entries but restart points {restarts}")
        if entries:
            if restarts[0] != 0 or any(later <= earlier for earlier, later in pairwise(restarts)):
                raise self.error(f"{where} has restart points out of order: {restarts}")
            strays = [offset for offset in restarts if offset not in whole_keys]
            if strays:
                raise self.error(
                    f"{where} has restart points at bytes {strays} where no whole key starts"
                )
        return entries

    def handle(self, value: bytes, where: str) -> BlockHandle:
        try:
            offset, position = decode_varint(value, 0, len(value))
            size, position = decode_varint(value, position, len(value))
        except DecodeError as error:
            raise self.error(f"{where} holds a damaged block handle ({error})") from None
        if position != len(value):
            raise self.error(f"{where} holds {len(value) - position} bytes after its block handle")
        return BlockHandle(offset, size)


def read_table(data: bytes, path: str) -> list[tuple[bytes, bytes]]:
    """The (key, value) entries of the table ``data`` (the file ``path``, named in errors),
    in key order. Any damage, truncation or inconsistency is a
    :class:`~symgrad.errors.CheckpointError` naming ``path``.

    >>> read_table(build_table([(b"", b"header"), (b"w", b"\\x01")]), "model.index")
    [(b'', b'header'), (b'w', b'\\x01')]
    >>> read_table(b"\\0" * 47, "model.index")
    Traceback (most recent call last):
    ...
    symgrad.errors.CheckpointError: symgrad: 'model.index' is not a valid TensorFlow table: it has 47 bytes, fewer than the 48-byte footer every table ends with (the file is truncated)
    """
    reader = _Reader(data, path)
    metaindex_handle, index_handle = reader.footer()
    index_contents = reader.block(index_handle, "index block")
    index = reader.entries(index_contents, index_handle, "index block")
    metaindex_contents = reader.block(metaindex_handle, "metaindex block")
    if reader.entries(metaindex_contents, metaindex_handle, "metaindex block"):
        raise reader.error("its metaindex block has entries; TensorFlow writes it empty")
    entries: list[tuple[bytes, bytes]] = []
    expected_offset = 0
    previous_separator: bytes | None = None
    for number, (separator, value) in enumerate(index):
        where = f"index entry {number}"
        handle = reader.handle(value, where)
        if handle.offset != expected_offset:
            raise reader.error(
                f"{where} places a data block at byte {handle.offset}, but the previous block "
                f"ends at byte {expected_offset} (blocks must follow each other)"
            )
        expected_offset = handle.end
        if expected_offset > metaindex_handle.offset:
            raise reader.error(
                f"{where} places a data block at bytes {handle.offset}..{handle.end}, over the "
                f"metaindex block at byte {metaindex_handle.offset}"
            )
        what = f"data block {number}"
        block = reader.entries(reader.block(handle, what), handle, what)
        if not block:
            raise reader.error(f"its {what} is empty; TensorFlow never writes an empty block")
        if entries and block[0][0] <= entries[-1][0]:
            raise reader.error(
                f"its {what} starts with key {block[0][0]!r}, not after the previous block's "
                f"last key {entries[-1][0]!r}"
            )
        # The index key of a block must lie between its last key and the next block's first:
        # a lookup bisects the index keys.
        if not block[-1][0] <= separator:
            raise reader.error(
                f"{where} has key {separator!r}, smaller than its block's last key {block[-1][0]!r}"
            )
        if previous_separator is not None and not previous_separator < block[0][0]:
            raise reader.error(
                f"index entry {number - 1} has key {previous_separator!r}, not smaller than the "
                f"first key {block[0][0]!r} of the block after it"
            )
        previous_separator = separator
        for (earlier, _), (later, _) in pairwise(block):
            if later <= earlier:
                raise reader.error(
                    f"its {what} has key {later!r} after {earlier!r}: keys must strictly increase "
                    f"(a duplicate or unsorted key)"
                )
        entries.extend(block)
    if expected_offset != metaindex_handle.offset:
        raise reader.error(
            f"its data blocks end at byte {expected_offset}, but the metaindex block starts at "
            f"byte {metaindex_handle.offset} (bytes that belong to no block)"
        )
    return entries
