"""Little-endian integers and varints, the way TensorFlow's ``core/coding`` lays them out.

Decoding is strict: a varint must end inside its limit, fit its width, and be written in
its shortest form (TensorFlow only ever writes that form), so that no two byte strings
decode to the same number and a flipped bit can never go unnoticed.
"""

from __future__ import annotations


class DecodeError(ValueError):
    """Bytes that are not a well-formed number; callers turn it into a message naming the file."""


def encode_varint(value: int) -> bytes:
    """``value`` (at least 0) as a varint: 7 bits a byte, low bits first, high bit = "more".

    >>> encode_varint(1).hex(), encode_varint(300).hex()
    ('01', 'ac02')
    """
    if value < 0:
        raise ValueError(f"a varint cannot hold the negative number {value}")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_varint(data: bytes, position: int, limit: int, bits: int = 64) -> tuple[int, int]:
    """The varint at ``data[position:limit]`` of at most ``bits`` bits, and the position after it.

    >>> decode_varint(bytes.fromhex("ac02ff"), 0, 3)
    (300, 2)
    """
    value = 0
    shift = 0
    start = position
    while True:
        if position >= limit:
            raise DecodeError(f"a varint at byte {start} runs past its end")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
        if shift >= bits:
            raise DecodeError(f"the varint at byte {start} is longer than {bits} bits allow")
    if value >> bits:
        raise DecodeError(f"the varint at byte {start} does not fit in {bits} bits")
    if position - start > 1 and byte == 0:
        raise DecodeError(f"the varint at byte {start} is not in its shortest form")
    return value, position


def decode_fixed32(data: bytes, position: int) -> int:
    """The little-endian unsigned 32-bit number at ``data[position:position + 4]``."""
    return int.from_bytes(data[position : position + 4], "little")


def encode_fixed32(value: int) -> bytes:
    """``value`` as 4 little-endian bytes."""
    return value.to_bytes(4, "little")
