"""CRC-32C as TensorFlow uses it: the Castagnoli polynomial, and stored "masked".

TensorFlow (like LevelDB, whose table format it adopted) never stores a CRC as computed:
the CRC of data that itself contains CRCs is weak, so a stored CRC is rotated right by 15
bits and offset by a constant first. Both the table blocks and the tensors in a bundle
keep their checksums masked this way.
"""

from __future__ import annotations

import numpy as np

from ._libraries import require_libraries

MASK_DELTA = 0xA282EAD8
_UINT32 = 0xFFFFFFFF


def crc32c(data: bytes | np.ndarray, initial: int = 0) -> int:
    """The CRC-32C of ``data`` (bytes, or a NumPy array's bytes), extending ``initial``.

    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    >>> crc32c(b"6789", crc32c(b"12345")) == crc32c(b"123456789")
    True
    """
    if isinstance(data, np.ndarray):
        # The extension takes bytes or an array, not a memoryview; a uint8 view copies nothing.
        data = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    return int(require_libraries().crc32c.extend(initial, data))


def mask(crc: int) -> int:
    """The CRC as TensorFlow stores it: rotated right by 15 bits, plus ``MASK_DELTA``.

    >>> hex(mask(0))
    '0xa282ead8'
    >>> unmask(mask(0x12345678)) == 0x12345678
    True
    """
    rotated = ((crc >> 15) | (crc << 17)) & _UINT32
    return (rotated + MASK_DELTA) & _UINT32


def unmask(masked: int) -> int:
    """The CRC a stored (masked) value stands for; the inverse of :func:`mask`."""
    rotated = (masked - MASK_DELTA) & _UINT32
    return ((rotated >> 17) | (rotated << 15)) & _UINT32
