"""TensorFlow's V2 checkpoint format without TensorFlow (symgrad.tf_files).

The fixtures in ``tests/tf_files/bundles/`` were written by TensorFlow 2.21
(``tests/tf_files/record_bundles.py``, which also records in ``expected.json`` the values
TensorFlow reads back from them and from symgrad's own bundles). Here: symgrad reads every
one of them, writes the same bytes TensorFlow writes, round-trips every dtype, and turns
every damaged or hostile file into a CheckpointError that names the file.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from symgrad.errors import (
    ArgumentTypeError,
    CheckpointError,
    DTypeError,
    InvalidArgumentError,
    MissingExtraError,
)
from symgrad.tf_files import (
    BundleEntry,
    _libraries,
    bundle,
    bundle_exists,
    data_path,
    index_path,
    read_bundle,
    read_bundle_index,
    read_tensor,
    table,
    write_bundle,
)
from symgrad.tf_files.coding import DecodeError, decode_varint, encode_varint
from symgrad.tf_files.crc import crc32c, mask, unmask
from symgrad.tf_files.protos import bundle_protos
from tests.tf_files import cases

ROOT = Path(__file__).resolve().parents[1]
BUNDLES = ROOT / "tests" / "tf_files" / "bundles"
EXPECTED = json.loads((ROOT / "tests" / "tf_files" / "expected.json").read_text("utf-8"))


def _fixture(name: str, folder: Path) -> str:
    """A copy of the TensorFlow-written bundle ``name`` in ``folder``; its prefix."""
    for file in EXPECTED["bundles"][name]["files"]:
        source = BUNDLES / file
        if file.endswith(".gz"):
            (folder / file.removesuffix(".gz")).write_bytes(gzip.decompress(source.read_bytes()))
        else:
            shutil.copyfile(source, folder / file)
    return str(folder / name)


def _bytes_of(value: np.ndarray) -> dict[str, Any]:
    """What the fixture records of an array: shape and exact bytes (or strings)."""
    record: dict[str, Any] = {"shape": list(value.shape)}
    if value.dtype == object:
        record["strings_hex"] = [bytes(s).hex() for s in value.reshape(-1).tolist()]
    else:
        record["hex"] = np.ascontiguousarray(value, value.dtype.newbyteorder("<")).tobytes().hex()
    return record


NUMPY_NAMES = {"string": "object"}


# --- TensorFlow's files, read ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["dtypes", "saver", "sharded"])
def test_every_tensor_tensorflow_wrote_reads_back_with_its_dtype_shape_and_bits(
    name: str, tmp_path: Path
) -> None:
    prefix = _fixture(name, tmp_path)
    expected = EXPECTED["bundles"][name]["tensors"]
    values = read_bundle(prefix)
    index = read_bundle_index(prefix)
    assert list(values) == list(index) == sorted(expected, key=str.encode)
    for tensor, want in expected.items():
        value = values[tensor]
        assert value.dtype.name == NUMPY_NAMES.get(want["dtype"], want["dtype"]), tensor
        assert index[tensor].tf_dtype == want["dtype"]
        assert index[tensor].shape == tuple(want["shape"])
        assert _bytes_of(value) == {k: v for k, v in want.items() if k != "dtype"}, tensor
        assert _bytes_of(read_tensor(prefix, tensor)) == _bytes_of(value)
        if value.dtype == object:
            assert all(type(s) is bytes for s in value.reshape(-1).tolist())


def test_the_dtypes_fixture_covers_every_dtype_scalars_empty_arrays_and_strings() -> None:
    recorded = EXPECTED["bundles"]["dtypes"]["tensors"]
    assert {t["dtype"] for t in recorded.values()} == {
        "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
        "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "string",
    }  # fmt: skip
    shapes = {(t["dtype"], tuple(t["shape"])) for t in recorded.values()}
    assert {("float32", ()), ("string", ()), ("float32", (0,)), ("int64", (2, 0))} <= shapes


def test_a_sharded_bundle_reads_from_both_data_files(tmp_path: Path) -> None:
    prefix = _fixture("sharded", tmp_path)
    index = read_bundle_index(prefix)
    shards = {name: entry.shard for name, entry in index.items()}
    assert shards == {name: device for name, (device, _) in cases.sharded_values().items()}
    for name, (_, value) in cases.sharded_values().items():
        assert _bytes_of(read_tensor(prefix, name)) == _bytes_of(np.asarray(value))
    os.remove(data_path(prefix, 1, 2))
    assert read_tensor(prefix, "step") == 7  # its data file is there
    with pytest.raises(CheckpointError, match=r"sharded\.data-00001-of-00002' is missing"):
        read_bundle(prefix)


def test_a_bfloat16_tensor_is_listed_but_reading_it_names_it_and_its_dtype(
    tmp_path: Path,
) -> None:
    prefix = _fixture("bfloat16", tmp_path)
    index = read_bundle_index(prefix)
    assert index["bf16/vector"].dtype is None
    assert index["bf16/vector"].tf_dtype == "bfloat16"
    assert index["bf16/vector"].shape == (3,)
    assert read_tensor(prefix, "float32/scalar") == np.float32(1.0)
    for read in (lambda: read_tensor(prefix, "bf16/vector"), lambda: read_bundle(prefix)):
        with pytest.raises(CheckpointError, match=r"'bf16/vector'.*dtype bfloat16") as error:
            read()
        assert "bfloat16.index" in str(error.value)


def test_a_partitioned_variable_is_listed_with_its_slices_and_refused_by_name(
    tmp_path: Path,
) -> None:
    prefix = _fixture("partitioned", tmp_path)
    index = read_bundle_index(prefix)
    assert list(index) == ["part", "u"]  # the slices' own entries have no name
    assert index["part"].slices == 2 and index["part"].shape == (4, 3)
    assert index["part"].dtype == np.float32
    assert (read_tensor(prefix, "u") == np.arange(5)).all()
    with pytest.raises(CheckpointError, match=r"'part'.*partitioned variable saved in 2 slices"):
        read_tensor(prefix, "part")
    assert EXPECTED["bundles"]["partitioned"]["tensors"]["part"]["shape"] == [4, 3]


def test_an_index_of_several_blocks_reads_back(tmp_path: Path) -> None:
    prefix = _fixture("multiblock", tmp_path)
    data = Path(index_path(prefix)).read_bytes()
    reader = table._Reader(data, "multiblock.index")
    _, handle = reader.footer()
    blocks = reader.entries(reader.block(handle, "index block"), handle, "index block")
    assert len(blocks) == 2 and len(data) > table.BLOCK_SIZE
    values = read_bundle(prefix)
    recorded = EXPECTED["bundles"]["multiblock"]
    assert hashlib.sha256("\n".join(values).encode()).hexdigest() == recorded["names_sha256"]
    assert [int(v) for v in values.values()] == recorded["values"]


# --- symgrad's files are TensorFlow's ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arrays"),
    [
        ("dtypes", cases.dtype_arrays),
        ("multiblock", cases.multiblock_arrays),
        ("saver", cases.saver_values),
    ],
)
def test_symgrad_writes_byte_for_byte_the_bundle_tensorflow_wrote(
    name: str, arrays: Any, tmp_path: Path
) -> None:
    theirs = _fixture(name, tmp_path)
    ours = str(tmp_path / "ours" / name)
    write_bundle(ours, arrays())
    assert Path(index_path(ours)).read_bytes() == Path(index_path(theirs)).read_bytes()
    assert Path(data_path(ours, 0, 1)).read_bytes() == Path(data_path(theirs, 0, 1)).read_bytes()
    # And TensorFlow read symgrad's bundle back equal (recorded with TensorFlow).
    recorded = EXPECTED["symgrad_written"][name]
    assert recorded["tf_reads_symgrad_equal"] and recorded["index_identical"]
    assert recorded["data_identical"]
    assert EXPECTED["symgrad_written"]["saver"]["saver_restore_equal"]


def test_every_dtype_round_trips_bit_exactly(tmp_path: Path) -> None:
    arrays = cases.dtype_arrays()
    write_bundle(tmp_path / "model", arrays)
    values = read_bundle(tmp_path / "model")
    assert list(values) == sorted(arrays, key=str.encode)
    for name, array in arrays.items():
        array = np.asarray(array)
        assert values[name].dtype == array.dtype, name
        assert _bytes_of(values[name]) == _bytes_of(array), name
        assert values[name].flags.writeable


def test_string_forms_big_endian_and_strided_arrays_are_written_as_tensorflow_holds_them(
    tmp_path: Path,
) -> None:
    matrix = np.arange(12, dtype=np.float64).reshape(3, 4)
    flags = np.frombuffer(bytes([0, 1, 2]), np.bool_)  # a view can hold a byte of 2
    write_bundle(
        tmp_path / "model",
        {
            "bytes": np.array([b"ab", b"c"]),
            "unicode": np.array(["\u00e9", "x"]),
            "mixed": np.array([b"\x00", "\u2713"], dtype=object),
            "big": np.arange(3, dtype=">i4"),
            "strided": matrix[:, ::2].T,
            "flags": flags,
        },
    )
    values = read_bundle(tmp_path / "model")
    assert values["bytes"].tolist() == [b"ab", b"c"]
    assert values["unicode"].tolist() == ["\u00e9".encode(), b"x"]
    assert values["mixed"].tolist() == [b"\x00", "\u2713".encode()]
    assert values["big"].dtype == np.dtype("int32") and values["big"].tolist() == [0, 1, 2]
    assert (values["strided"] == matrix[:, ::2].T).all()
    assert values["flags"].view(np.uint8).tolist() == [0, 1, 1]


def test_bad_names_and_dtypes_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    prefix = tmp_path / "model"
    bad: list[tuple[Any, type[Exception], str]] = [
        ({"": np.zeros(1)}, InvalidArgumentError, "header"),
        ({"a\0b": np.zeros(1)}, InvalidArgumentError, "NUL"),
        ({"\ud800": np.zeros(1)}, InvalidArgumentError, "UTF-8"),
        ({1: np.zeros(1)}, ArgumentTypeError, "strings"),
        ({"t": np.zeros(1, np.longdouble)}, DTypeError, "'t'.*no TensorFlow checkpoint dtype"),
        ({"t": np.array(["2020-01-01"], "datetime64[D]")}, DTypeError, "'t'"),
        ({"t": np.array([1, b"x"], dtype=object)}, DTypeError, "'t'.*not int"),
        ([("t", np.zeros(1))], ArgumentTypeError, "mapping"),
    ]
    for arrays, kind, message in bad:
        with pytest.raises(kind, match=message):
            write_bundle(prefix, arrays)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ArgumentTypeError):
        write_bundle(b"model", {"t": np.zeros(1)})  # type: ignore[arg-type]


def test_bundle_exists_looks_for_the_index_and_paths_follow_tensorflow(tmp_path: Path) -> None:
    assert not bundle_exists(tmp_path / "m")
    write_bundle(tmp_path / "m", {})
    assert bundle_exists(tmp_path / "m") and read_bundle(tmp_path / "m") == {}
    assert data_path("a/m", 3, 12) == "a/m.data-00003-of-00012"
    assert index_path(Path("a") / "m") == os.path.join("a", "m") + ".index"


# --- damaged and hostile files -----------------------------------------------------------------


SMALL = {
    "a": np.array([1.5, -2.0], np.float32),
    "s": np.array([b"x", b"yz"], dtype=object),
    "z": np.int64(9),
    "e": np.zeros((2, 0)),
}


def _small(folder: Path) -> tuple[str, bytes, bytes]:
    prefix = str(folder / "small")
    write_bundle(prefix, SMALL)
    return (
        prefix,
        Path(index_path(prefix)).read_bytes(),
        Path(data_path(prefix, 0, 1)).read_bytes(),
    )


def _assert_refused(prefix: str, file: str, damage: str) -> None:
    with pytest.raises(CheckpointError) as error:
        read_bundle(prefix)
    assert file in str(error.value), (damage, str(error.value))


def test_every_truncation_and_every_bit_flip_of_the_index_is_caught(tmp_path: Path) -> None:
    prefix, index, _ = _small(tmp_path)
    path = index_path(prefix)
    assert all(
        _bytes_of(v) == _bytes_of(np.asarray(SMALL[k])) for k, v in read_bundle(prefix).items()
    )
    for length in range(len(index)):
        Path(path).write_bytes(index[:length])
        _assert_refused(prefix, path, f"index cut to {length} bytes")
    for position in range(len(index)):
        for bit in range(8):
            damaged = bytearray(index)
            damaged[position] ^= 1 << bit
            Path(path).write_bytes(bytes(damaged))
            _assert_refused(prefix, path, f"index byte {position} bit {bit}")
    Path(path).write_bytes(index + b"\0")
    _assert_refused(prefix, path, "a byte appended")


def test_every_truncation_and_every_bit_flip_of_the_data_file_is_caught(tmp_path: Path) -> None:
    prefix, _, data = _small(tmp_path)
    path = data_path(prefix, 0, 1)
    for length in range(len(data)):
        Path(path).write_bytes(data[:length])
        _assert_refused(prefix, path, f"data cut to {length} bytes")
    for position in range(len(data)):
        for bit in range(8):
            damaged = bytearray(data)
            damaged[position] ^= 1 << bit
            Path(path).write_bytes(bytes(damaged))
            _assert_refused(prefix, path, f"data byte {position} bit {bit}")
    Path(path).write_bytes(data + b"\0")
    _assert_refused(prefix, path, "a byte appended")
    os.remove(path)
    _assert_refused(prefix, path, "data file removed")
    if hasattr(os, "mkfifo"):
        os.mkfifo(path)  # never read as if it were a file (that would block)
        _assert_refused(prefix, path, "a FIFO")


def _assemble(entries: list[tuple[bytes, bytes]]) -> bytes:
    """A one-block table of ``entries`` as given (duplicates and disorder included), with
    valid CRCs: what a hostile writer could make."""
    block = table._BlockBuilder(table.RESTART_INTERVAL)
    for key, value in entries:
        block.add(key, value)

    def framed(contents: bytes) -> bytes:
        return contents + b"\0" + mask(crc32c(b"\0", crc32c(contents))).to_bytes(4, "little")

    data = framed(block.finish())
    metaindex_at = len(data)
    data += framed(table._BlockBuilder(1).finish())
    index = table._BlockBuilder(1)
    index.add(b"\xff" * 4, table.BlockHandle(0, metaindex_at - 5).encode())
    index_at = len(data)
    data += framed(index.finish())
    handles = (
        table.BlockHandle(metaindex_at, 8).encode()
        + table.BlockHandle(index_at, len(data) - index_at - 5).encode()
    )
    return data + handles.ljust(40, b"\0") + table.TABLE_MAGIC.to_bytes(8, "little")


def _entry(**fields: Any) -> bytes:
    protos = bundle_protos()
    shape = fields.pop("shape", None)
    slices = fields.pop("slices", 0)
    entry = protos.BundleEntryProto(**fields)
    entry.shape.SetInParent()
    for size in shape or ():
        entry.shape.dim.add(size=size)
    for _ in range(slices):
        entry.slices.add().extent.add(start=0)
    return bytes(entry.SerializeToString())


def _header(num_shards: int = 1, **version: Any) -> bytes:
    header = bundle_protos().BundleHeaderProto(num_shards=num_shards)
    header.version.producer = version.pop("producer", 1)
    for field, value in version.items():
        if field == "bad_consumers":
            header.version.bad_consumers.extend(value)
        elif field == "endianness":
            header.endianness = value
        else:
            setattr(header.version, field, value)
    return bytes(header.SerializeToString())


FLOAT = {"dtype": 1, "shape": [2], "offset": 0, "size": 8, "crc32c": 0}


@pytest.mark.parametrize(
    ("entries", "file", "message"),
    [
        ([(b"", _header(10**9)), (b"a", _entry(**FLOAT))], "index", "declares 1000000000 data"),
        ([(b"", _header(0)), (b"a", _entry(**FLOAT))], "index", "declares 0 data files"),
        ([(b"", _header(-1)), (b"a", _entry(**FLOAT))], "index", "declares -1 data files"),
        ([(b"", _header(endianness=1))], "index", "big-endian"),
        ([(b"", _header(endianness=7))], "index", "unknown byte order 7"),
        ([(b"", _header(min_consumer=2))], "index", "reader of format version 2"),
        ([(b"", _header(bad_consumers=[1]))], "index", "must not read it"),
        ([(b"", _header(producer=-1))], "index", "format version -1"),
        ([(b"a", _entry(**FLOAT))], "index", "no header entry"),
        ([(b"", b"\xff\xff")], "index", "unreadable entry for its header"),
        ([(b"", _header()), (b"a", b"\x0a\x05ab")], "index", "unreadable entry for tensor 'a'"),
        ([(b"", _header()), (b"a", _entry(**FLOAT)), (b"a", _entry(**FLOAT))], "index", "dupl"),
        ([(b"", _header()), (b"b", _entry(**FLOAT)), (b"a", _entry(**FLOAT))], "index", "unsorted"),
        ([(b"", _header()), (b"\xe9", _entry(**FLOAT))], "index", "not UTF-8"),
        ([(b"", _header()), (b"a", _entry(**{**FLOAT, "dtype": 0}))], "index", "no dtype"),
        ([(b"", _header()), (b"a", _entry(**{**FLOAT, "size": 2**62}))], "index", "takes 8"),
        ([(b"", _header()), (b"a", _entry(**{**FLOAT, "shard_id": 1}))], "index", "data file 1"),
        ([(b"", _header()), (b"a", _entry(**{**FLOAT, "offset": -4}))], "index", "offset -4"),
        ([(b"", _header()), (b"a", _entry(**{**FLOAT, "shape": [-1]}))], "index", "below 0"),
        (
            [(b"", _header()), (b"a", _entry(**{**FLOAT, "shape": [2**40] * 2}))],
            "index",
            "overflows",
        ),
        (
            [(b"", _header()), (b"a", _entry(**{**FLOAT, "shape": [0, 2**62]}))],
            "index",
            "overflows",
        ),
        ([(b"", _header()), (b"a", _entry(**{**FLOAT, "shape": [1] * 255}))], "index", "255 dim"),
        (
            [(b"", _header()), (b"a", _entry(dtype=7, shape=[3], size=6, crc32c=0))],
            "index",
            "fewer than the 7",
        ),
        # Sizes that the index alone cannot rule out: the data file's real size does.
        (
            [(b"", _header()), (b"a", _entry(dtype=7, shape=[2], size=2**50, crc32c=0))],
            "data",
            r"has 0 bytes, but tensor 'a' lies at bytes 0..1125899906842624",
        ),
        ([(b"", _header()), (b"a", _entry(**{**FLOAT, "offset": 2**40}))], "data", "truncated"),
        ([(b"", _header()), (b"a", _entry(**{**FLOAT, "dtype": 14}))], "index", "bfloat16"),
        (
            [(b"", _header()), (b"a", _entry(**{**FLOAT, "dtype": 999}))],
            "index",
            "unknown dtype 999",
        ),
    ],
)
def test_hostile_indexes_with_valid_checksums_are_refused_naming_the_file(
    entries: list[tuple[bytes, bytes]], file: str, message: str, tmp_path: Path
) -> None:
    prefix = str(tmp_path / "hostile")
    Path(index_path(prefix)).write_bytes(_assemble(entries))
    Path(data_path(prefix, 0, 1)).write_bytes(b"")
    path = index_path(prefix) if file == "index" else data_path(prefix, 0, 1)
    with pytest.raises(CheckpointError, match=message) as error:
        read_bundle(prefix)
    assert path in str(error.value)


def test_bytes_no_tensor_accounts_for_and_non_boolean_bytes_are_refused(tmp_path: Path) -> None:
    prefix = str(tmp_path / "m")
    payload = b"\x02"
    entry = _entry(dtype=10, shape=[1], size=1, crc32c=mask(crc32c(payload)))
    Path(index_path(prefix)).write_bytes(_assemble([(b"", _header()), (b"flag", entry)]))
    Path(data_path(prefix, 0, 1)).write_bytes(payload)
    with pytest.raises(CheckpointError, match="boolean byte other than 0 or 1"):
        read_bundle(prefix)
    gap = _entry(dtype=4, shape=[1], offset=1, size=1, crc32c=mask(crc32c(b"\x07")))
    Path(index_path(prefix)).write_bytes(_assemble([(b"", _header()), (b"u", gap)]))
    Path(data_path(prefix, 0, 1)).write_bytes(b"\x00\x07")
    with pytest.raises(CheckpointError, match="leaves a gap"):
        read_bundle(prefix)


def _string_data(lengths: list[int], checksum: int | None, strings: bytes) -> tuple[bytes, int]:
    """A string tensor's bytes (varint lengths, their masked CRC, the strings) and the entry
    CRC that makes them pass it, as TensorFlow computes both."""
    # 4 bytes per length, 8 for one of 4 GiB or more.
    as_numbers = b"".join(
        length.to_bytes(4 if length < 2**32 else 8, "little") for length in lengths
    )
    stored = (mask(crc32c(as_numbers)) if checksum is None else checksum).to_bytes(4, "little")
    data = b"".join(encode_varint(length) for length in lengths) + stored + strings
    return data, crc32c(stored + strings, crc32c(as_numbers))


@pytest.mark.parametrize(
    ("lengths", "checksum", "strings", "message"),
    [
        ([1, 2], None, b"xyz", None),
        ([1, 2], 12345, b"xyz", "CRC-32C check of its string lengths"),
        ([1, 1], None, b"xyz", "strings of 2 bytes in all, but its entry holds 3"),
        ([1, 3], None, b"xyz", "strings of 4 bytes in all, but its entry holds 3"),
        ([1, 2**40], None, b"xyz", "strings of 1099511627777 bytes"),
    ],
)
def test_string_tensors_check_their_lengths_against_their_own_checksum_and_size(
    lengths: list[int], checksum: int | None, strings: bytes, message: str | None, tmp_path: Path
) -> None:
    prefix = str(tmp_path / "m")
    data, crc = _string_data(lengths, checksum, strings)
    entry = _entry(dtype=7, shape=[2], size=len(data), crc32c=mask(crc))
    Path(index_path(prefix)).write_bytes(_assemble([(b"", _header()), (b"s", entry)]))
    Path(data_path(prefix, 0, 1)).write_bytes(data)
    if message is None:
        assert read_tensor(prefix, "s").tolist() == [b"x", b"yz"]
        return
    with pytest.raises(CheckpointError, match=message) as error:
        read_tensor(prefix, "s")
    assert data_path(prefix, 0, 1) in str(error.value)


def test_a_compressed_block_is_refused_naming_its_compression(tmp_path: Path) -> None:
    prefix, index, _ = _small(tmp_path)
    # The first data block with type 1 (snappy) and a CRC that matches it.
    reader = table._Reader(index, "x")
    _, handle = reader.footer()
    first = reader.handle(reader.entries(reader.block(handle, "i"), handle, "i")[0][1], "x")
    size = first.size
    damaged = bytearray(index)
    damaged[size] = 1
    damaged[size + 1 : size + 5] = mask(crc32c(b"\x01", crc32c(index[:size]))).to_bytes(4, "little")
    Path(index_path(prefix)).write_bytes(bytes(damaged))
    with pytest.raises(CheckpointError, match="compressed with snappy") as error:
        read_bundle(prefix)
    assert index_path(prefix) in str(error.value)


def test_missing_and_non_regular_index_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match=r"no TensorFlow checkpoint .*no file"):
        read_bundle_index(tmp_path / "none")
    os.mkdir(index_path(tmp_path / "folder"))
    with pytest.raises(CheckpointError, match="not a regular file"):
        read_bundle_index(tmp_path / "folder")
    write_bundle(tmp_path / "m", {"a": np.zeros(1)})
    with pytest.raises(CheckpointError, match=r"has no tensor 'b'; it has 'a'$"):
        read_tensor(tmp_path / "m", "b")
    write_bundle(tmp_path / "m", {f"v{i:02d}": np.zeros(1) for i in range(25)})
    with pytest.raises(CheckpointError, match=r"'v18', 'v19', \.\.\. \(25 in all\)$"):
        read_tensor(tmp_path / "m", "b")


# --- crash safety ------------------------------------------------------------------------------


def test_a_write_that_fails_after_the_data_file_leaves_the_previous_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = tmp_path / "model"
    write_bundle(prefix, {"w": np.arange(4.0)})
    calls = []

    def failing_index(records: list[tuple[bytes, bytes]]) -> bytes:
        # The data file is complete by now: it was written first.
        calls.append(sorted(p.name for p in tmp_path.iterdir()))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bundle, "_index_table", failing_index)
    with pytest.raises(OSError, match="No space left"):
        write_bundle(prefix, {"w": np.arange(100.0), "b": np.ones(3)})
    assert any(name.startswith(".model.data-00000-of-00001.") for name in calls[0])
    assert list(read_bundle(prefix)) == ["w"] and (read_tensor(prefix, "w") == np.arange(4.0)).all()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "model.data-00000-of-00001",
        "model.index",
    ]


def test_a_process_killed_while_writing_the_index_leaves_the_previous_bundle(
    tmp_path: Path,
) -> None:
    prefix = tmp_path / "model"
    write_bundle(prefix, {"w": np.arange(4.0)})
    script = textwrap.dedent(
        f"""
        import os, sys
        import numpy as np
        from symgrad.tf_files import bundle
        bundle._index_table = lambda records: os._exit(9)
        bundle.write_bundle({str(prefix)!r}, {{"w": np.arange(50.0)}})
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=False)
    assert done.returncode == 9
    assert (read_tensor(prefix, "w") == np.arange(4.0)).all()
    # The killed writer left its temporary files; the next write into the folder removes them.
    assert len(list(tmp_path.iterdir())) > 2
    write_bundle(prefix, {"w": np.arange(2.0)})
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "model.data-00000-of-00001",
        "model.index",
    ]


# --- pieces ------------------------------------------------------------------------------------


def test_the_subpackage_imports_without_its_optional_libraries_and_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = (
        "import sys\n"
        "for name in ('google_crc32c', 'google.protobuf', 'tensorboard'):\n"
        "    sys.modules[name] = None\n"
        "import symgrad.tf_files as t\n"
        "try:\n"
        f"    t.write_bundle({str(tmp_path / 'm')!r}, {{}})\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("MissingExtraError")
    assert "pip install 'symgrad[tf-files]'" in done.stdout
    _libraries.require_libraries.cache_clear()
    monkeypatch.setitem(sys.modules, "google_crc32c", None)
    try:
        with pytest.raises(MissingExtraError, match="google_crc32c"):
            _libraries.require_libraries()
    finally:
        monkeypatch.undo()
        _libraries.require_libraries.cache_clear()


def test_the_messages_have_tensorflows_field_numbers_and_types() -> None:
    protos = bundle_protos()
    fields = {
        "BundleHeaderProto": [("num_shards", 1, 5), ("endianness", 2, 14), ("version", 3, 11)],
        "BundleEntryProto": [
            ("dtype", 1, 14),
            ("shape", 2, 11),
            ("shard_id", 3, 5),
            ("offset", 4, 3),
            ("size", 5, 3),
            ("crc32c", 6, 7),
            ("slices", 7, 11),
        ],
        "TensorSliceProto": [("extent", 1, 11)],
    }
    for message, want in fields.items():
        descriptor = getattr(protos, message).DESCRIPTOR
        assert [(f.name, f.number, f.type) for f in descriptor.fields] == want
    extent = protos.TensorSliceProto.DESCRIPTOR.nested_types_by_name["Extent"]
    assert [(f.name, f.number, f.type) for f in extent.fields] == [
        ("start", 1, 3),
        ("length", 2, 3),
    ]
    assert extent.oneofs_by_name["has_length"].fields[0].name == "length"
    for number, dtype in bundle.NUMPY_DTYPES.items():
        name = protos.DataType.Name(number)
        assert name.removeprefix("DT_").lower() in {dtype.name, "half", "float", "double", "string"}


def test_crc_masking_and_varints_match_tensorflows_definitions() -> None:
    assert crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    assert unmask(mask(0xDEADBEEF)) == 0xDEADBEEF and mask(0) == 0xA282EAD8
    for value in (0, 1, 127, 128, 300, 2**32, 2**64 - 1):
        encoded = encode_varint(value)
        assert decode_varint(encoded, 0, len(encoded)) == (value, len(encoded))
    for bad in (b"\x80", b"\x80\x00", b"\xff" * 10 + b"\x01", b"\xff" * 9 + b"\x02"):
        with pytest.raises(DecodeError):
            decode_varint(bad, 0, len(bad))
    with pytest.raises(DecodeError):
        decode_varint(b"\x80\x80\x80\x80\x10", 0, 5, bits=32)


def test_blocks_restart_every_16_keys_and_index_keys_are_short_separators() -> None:
    entries = [(f"key{i:03d}".encode(), b"v") for i in range(40)]
    data = table.build_table(entries)
    assert table.read_table(data, "t") == entries
    reader = table._Reader(data, "t")
    _, index_handle = reader.footer()
    ((separator, value),) = reader.entries(reader.block(index_handle, "i"), index_handle, "i")
    assert separator == b"l"  # the successor of "key039" that TensorFlow picks
    block = reader.block(reader.handle(value, "x"), "d")
    assert int.from_bytes(block[-4:], "little") == 3  # restarts at entries 0, 16 and 32
    assert table._shortest_separator(b"abcx", b"abez") == b"abd"
    assert table._shortest_separator(b"abc", b"abd") == b"abc"
    assert table.read_table(table.build_table([]), "t") == []
    with pytest.raises(InvalidArgumentError, match="strictly increase"):
        table.build_table([(b"b", b""), (b"a", b"")])


def test_bundle_entries_describe_the_data() -> None:
    entry = BundleEntry(np.dtype("float32"), "float32", (2,), 0, 0, 8, 0)
    assert entry.slices == 0
    with pytest.raises(AttributeError):
        entry.size = 3  # type: ignore[misc]
