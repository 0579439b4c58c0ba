"""The arrays of the recorded bundles, built from NumPy alone (no random draws: the same
bits under any NumPy version), shared by the recorder and the tests."""

from __future__ import annotations

import numpy as np

# The bundles TensorFlow wrote, in tests/tf_files/bundles/.
BUNDLE_NAMES = ("dtypes", "multiblock", "bfloat16", "saver", "sharded", "partitioned")
# Names of the multi-block bundle: long, and different from their second character on, so
# that prefix compression cannot shrink the index below TensorFlow's 256 KiB block size.
MULTIBLOCK_COUNT = 300
MULTIBLOCK_NAME_LENGTH = 1000


def dtype_arrays() -> dict[str, np.ndarray]:
    """One or more tensors of every dtype symgrad reads and writes, scalars, empty arrays and
    strings (empty, non-ASCII, with NUL and 0xff bytes, long enough for a 2-byte length)."""
    float_specials = [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, 1e-7, 65504.0]
    return {
        "bool/vector": np.array([True, False, True, True]),
        "complex128/vector": np.array([1 + 2j, -3.5 - 0.25j, 1e300j]),
        "complex64/matrix": np.array([[1 + 1j, 2 - 1j], [0j, -1.5j]], np.complex64),
        "empty/float32_0": np.zeros(0, np.float32),
        "empty/int64_2x0": np.zeros((2, 0), np.int64),
        "empty/strings_0": np.array([], dtype=object),
        "float16/vector": np.array(float_specials, np.float16),
        "float32/matrix": (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) / 3,
        "float32/scalar": np.float32(3.25),
        "float64/cube": np.arange(24, dtype=np.float64).reshape(2, 3, 4) ** 1.5 / 7,
        "float64/nan": np.array([np.nan, 1.0]),
        "int16/vector": np.array([-(2**15), -1, 0, 2**15 - 1], np.int16),
        "int32/matrix": np.arange(-6, 6, dtype=np.int32).reshape(2, 6) * 1000003,
        "int64/scalar": np.int64(-(2**63)),
        "int64/vector": np.array([2**63 - 1, -5, 0], np.int64),
        "int8/vector": np.array([-128, -1, 0, 127], np.int8),
        "string/matrix": np.array([[b"a", b"bc"], [b"", b"def"]], dtype=object),
        "string/scalar": np.array(b"hello, bundle", dtype=object),
        "string/vector": np.array(
            [b"", b"x", "na\u00efve \u2713".encode(), b"\x00\xff\x80", b"y" * 200], dtype=object
        ),
        "uint16/vector": np.array([0, 1, 2**16 - 1], np.uint16),
        "uint32/vector": np.array([0, 7, 2**32 - 1], np.uint32),
        "uint64/vector": np.array([0, 2**63, 2**64 - 1], np.uint64),
        "uint8/matrix": np.arange(6, dtype=np.uint8).reshape(2, 3) * 50,
        "unicode/na\u00efve": np.float64(-1.0),
    }


def multiblock_arrays() -> dict[str, np.ndarray]:
    """Enough long names that the index needs two data blocks."""
    arrays = {}
    for number in range(MULTIBLOCK_COUNT):
        head = f"{chr(ord('A') + number % 26)}{number:04d}/"
        name = head + "abcdefghij" * ((MULTIBLOCK_NAME_LENGTH - len(head)) // 10)
        arrays[name] = np.int32(number * 7 - 100)
    return arrays


def saver_values() -> dict[str, np.ndarray]:
    """The variables the graph-mode Saver bundle holds."""
    return {
        "dense/bias": np.array([0.5, -0.5, 0.0], np.float32),
        "dense/kernel": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
        "global_step": np.int64(1000),
        "vocabulary": np.array([b"the", b"quick", b"fox"], dtype=object),
    }


def sharded_values() -> dict[str, tuple[int, np.ndarray]]:
    """Variables on two CPU devices (the device number, the value), saved with
    ``Saver(sharded=True)``: one data file each."""
    return {
        "layer/w": (0, np.arange(6, dtype=np.float32).reshape(2, 3)),
        "step": (0, np.int64(7)),
        "layer/b": (1, np.array([1.5, 2.5])),
        "words": (1, np.array([b"p", b"qq"], dtype=object)),
    }


def partitioned_value() -> np.ndarray:
    """The value of the partitioned variable ``part`` (two slices of two rows)."""
    return np.arange(12, dtype=np.float32).reshape(4, 3)
