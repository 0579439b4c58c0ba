"""TF1's image decoders (``tf.image.decode_png``, ``decode_jpeg``, ``decode_gif``,
``decode_bmp``, ``decode_image``), host ops decoding with Pillow, an optional dependency
(``pip install 'symgrad[images]'``).

Each takes a scalar string tensor (the file's bytes: ``tf.read_file``, a ``WholeFileReader``'s
value) and gives a ``uint8`` tensor ``[height, width, channels]`` (``decode_gif``:
``[frames, height, width, 3]``), computed by the Session in Python before the compiled module
runs (see :mod:`symgrad.string_ops`). ``channels=0`` keeps the image's own channels; 1, 3 or 4
convert as TF does (grayscale from RGB PNG with libpng's weights, from JPEG with libjpeg's Y).
JPEG is decoded by libjpeg with its accurate integer DCT: TF's ``dct_method="INTEGER_ACCURATE"``,
bit for bit; TF's default (``INTEGER_FAST``) gives pixels that differ by a few units.
Bytes that are not an image of the kind raise ``tf.errors.InvalidArgumentError``.
"""

from __future__ import annotations

import importlib
import io
from types import ModuleType
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from .errors import InvalidArgumentError, MissingDependencyError
from .graph import Tensor
from .session import Session
from .string_ops import host_op, string_tensor

_SIGNATURES = {
    "png": (b"\x89PNG\r\n\x1a\n",),
    "jpeg": (b"\xff\xd8\xff",),
    "gif": (b"GIF87a", b"GIF89a"),
    "bmp": (b"BM",),
}


def pillow() -> ModuleType:
    """``PIL.Image``, or a MissingDependencyError naming the extra."""
    try:
        return importlib.import_module("PIL.Image")
    except ImportError:
        raise MissingDependencyError(
            "symgrad: decoding images (tf.image.decode_png, decode_jpeg, decode_gif, "
            "decode_bmp, decode_image) needs Pillow: pip install 'symgrad[images]'"
        ) from None


def _kind_of(contents: bytes) -> str | None:
    for kind, signatures in _SIGNATURES.items():
        if contents.startswith(signatures):
            return kind
    return None


def _scalar(value: Any, function: str) -> bytes:
    array = _dtypes.string_array(value, function)
    if array.ndim != 0:
        raise InvalidArgumentError(
            f"symgrad: {function}: contents must be a scalar string (one file's bytes), got "
            f"shape {array.shape}"
        )
    return bytes(array[()])


def _open(contents: bytes, function: str, kind: str) -> Any:
    image_module = pillow()
    if _kind_of(contents) != kind and not (kind == "any" and _kind_of(contents)):
        raise InvalidArgumentError(
            f"symgrad: {function}: the contents ({len(contents)} bytes, starting "
            f"{contents[:8]!r}) are not a {kind.upper() if kind != 'any' else 'PNG, JPEG, GIF or BMP'} "
            f"image"
        )
    try:
        image = image_module.open(io.BytesIO(contents))
        image.load()
    except Exception as error:  # Pillow raises OSError, SyntaxError, ValueError...
        raise InvalidArgumentError(
            f"symgrad: {function}: cannot decode the image ({len(contents)} bytes): {error}"
        ) from None
    return image


# TF's grayscale conversion of colour PNGs (libpng's rgb_to_gray, asked for with the weights
# 0.299 and 0.587): in 1/32768ths, the sum truncated; gray pixels stay as they are.
_PNG_GRAY_WEIGHTS = (9797, 19234, 3737)


def _png_gray(rgb: np.ndarray) -> np.ndarray:
    wide = rgb.astype(np.int64)
    red, green, blue = _PNG_GRAY_WEIGHTS
    total = (wide[..., 0] * red + wide[..., 1] * green + wide[..., 2] * blue) >> 15
    gray = (wide[..., 0] == wide[..., 1]) & (wide[..., 1] == wide[..., 2])
    return np.where(gray, wide[..., 0], total).astype(rgb.dtype)[..., None]


def _native(image: Any) -> np.ndarray:
    """The decoded pixels with the image's own channels (a palette expanded, to RGB or, with
    transparency, RGBA), ``[height, width, channels]``."""
    mode = image.mode
    if mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    elif mode in ("1", "I;16", "I;16B", "I"):
        image = image.convert("L")
    elif mode == "PA":
        image = image.convert("RGBA")
    elif mode not in ("L", "LA", "RGB", "RGBA"):
        image = image.convert("RGB")
    pixels = np.asarray(image, dtype=np.uint8)
    return pixels[..., None] if pixels.ndim == 2 else pixels


def _with_channels(pixels: np.ndarray, channels: int, gray: Any = _png_gray) -> np.ndarray:
    """``pixels`` converted to ``channels`` (0: as they are), as TF's decoders convert."""
    have = pixels.shape[-1]
    if channels in (0, have):
        return pixels
    color = pixels[..., :3] if have >= 3 else np.repeat(pixels[..., :1], 3, axis=-1)
    alpha = pixels[..., 3:4] if have == 4 else pixels[..., 1:2] if have == 2 else None
    if channels == 1:
        return gray(color) if have >= 3 else pixels[..., :1]
    if channels == 2:
        base = gray(color) if have >= 3 else pixels[..., :1]
        opaque = np.full_like(base, 255) if alpha is None else alpha
        return np.concatenate([base, opaque], axis=-1)
    if channels == 3:
        return color
    opaque = np.full_like(color[..., :1], 255) if alpha is None else alpha
    return np.concatenate([color, opaque], axis=-1)


def _check_channels(channels: Any, allowed: tuple[int, ...], function: str) -> int:
    value = 0 if channels is None else int(channels)
    if value not in allowed:
        raise InvalidArgumentError(
            f"symgrad: {function}: channels must be one of {allowed}, got {channels!r}"
        )
    return value


def _decode_png(contents: bytes, channels: int, function: str) -> np.ndarray:
    return _with_channels(_native(_open(contents, function, "png")), channels)


def _decode_jpeg(contents: bytes, channels: int, function: str) -> np.ndarray:
    image = _open_jpeg(contents, channels, function)
    pixels = _native(image)
    return _with_channels(pixels, channels)


def _open_jpeg(contents: bytes, channels: int, function: str) -> Any:
    """A JPEG decoded by libjpeg (through Pillow), to grayscale by libjpeg itself when
    ``channels`` is 1 (its Y channel, as TF's decoder asks libjpeg for)."""
    image_module = pillow()
    if _kind_of(contents) != "jpeg":
        raise InvalidArgumentError(
            f"symgrad: {function}: the contents ({len(contents)} bytes, starting "
            f"{contents[:8]!r}) are not a JPEG image"
        )
    try:
        image = image_module.open(io.BytesIO(contents))
        if channels == 1 and image.mode != "L":
            image.draft("L", image.size)
        image.load()
    except Exception as error:  # Pillow raises OSError, SyntaxError, ValueError...
        raise InvalidArgumentError(
            f"symgrad: {function}: cannot decode the JPEG image ({len(contents)} bytes): {error}"
        ) from None
    if image.mode == "CMYK":
        image = image.convert("RGB")
    return image


def _decode_gif(contents: bytes, function: str) -> np.ndarray:
    image = _open(contents, function, "gif")
    frames = []
    for index in range(getattr(image, "n_frames", 1)):
        image.seek(index)
        frames.append(np.asarray(image.convert("RGB"), dtype=np.uint8))
    return np.stack(frames)


def _decode_any(contents: bytes, channels: int, function: str, expand: bool) -> np.ndarray:
    kind = _kind_of(contents)
    if kind == "jpeg":
        return _decode_jpeg(contents, channels, function)
    if kind == "gif":
        frames = _decode_gif(contents, function)
        frames = _with_channels(frames, channels) if channels else frames
        return frames if expand else frames[0]
    if kind in ("png", "bmp"):
        return _with_channels(_native(_open(contents, function, kind)), channels)
    raise InvalidArgumentError(
        f"symgrad: {function}: Unknown image file format. One of JPEG, PNG, GIF, BMP "
        f"required (the contents start {contents[:8]!r})"
    )


def _decoder(
    op_type: str,
    contents: Any,
    shape: Any,
    decode: Any,
    function: str,
    name: str | None,
    dtype: _dtypes.DType = _dtypes.uint8,
) -> Tensor:
    pillow()  # fail when the graph is built, not only when it runs
    source = string_tensor(contents, function)

    def compute(session: Session, values: list[Any]) -> list[Any]:
        pixels = decode(_scalar(values[0], function))
        if dtype == _dtypes.uint16:
            pixels = pixels.astype(np.uint16) * 257
        return [pixels]

    return host_op(op_type, [source], [(shape, dtype)], compute, name)[0]


def decode_png(
    contents: Any, channels: int = 0, dtype: Any = _dtypes.uint8, name: str | None = None
) -> Tensor:
    """A PNG image as ``uint8`` ``[height, width, channels]`` (TF1's ``tf.image.decode_png``):
    ``channels`` 0 (the image's own), 1 (grayscale), 2 (grayscale and alpha), 3 (RGB) or 4
    (RGBA). ``dtype=tf.uint16`` scales the 8-bit values to 16 bits (16-bit PNGs are read at 8
    bits)."""
    count = _check_channels(channels, (0, 1, 2, 3, 4), "decode_png")
    wanted = _dtypes.as_dtype(dtype)
    if wanted not in (_dtypes.uint8, _dtypes.uint16):
        raise InvalidArgumentError(
            f"symgrad: decode_png: dtype must be uint8 or uint16, got {dtype}"
        )
    return _decoder(
        "DecodePng",
        contents,
        (None, None, count or None),
        lambda data: _decode_png(data, count, "decode_png"),
        "decode_png",
        name,
        wanted,
    )


def decode_jpeg(
    contents: Any,
    channels: int = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: str | None = None,
) -> Tensor:
    """A JPEG image as ``uint8`` ``[height, width, channels]`` (TF1's
    ``tf.image.decode_jpeg``): ``channels`` 0 (the image's own), 1 (grayscale) or 3 (RGB),
    decoded by libjpeg through Pillow. ``ratio`` other than 1, ``fancy_upscaling=False`` and
    ``try_recover_truncated`` are not supported. The DCT is libjpeg's accurate integer one
    whatever ``dct_method`` says: TF's ``"INTEGER_ACCURATE"`` exactly; TF's default
    (``"INTEGER_FAST"``) differs by a few units on some pixels."""
    count = _check_channels(channels, (0, 1, 3), "decode_jpeg")
    if ratio != 1 or not fancy_upscaling or try_recover_truncated:
        raise InvalidArgumentError(
            "symgrad: decode_jpeg: ratio other than 1, fancy_upscaling=False and "
            "try_recover_truncated are not supported"
        )
    return _decoder(
        "DecodeJpeg",
        contents,
        (None, None, count or None),
        lambda data: _decode_jpeg(data, count, "decode_jpeg"),
        "decode_jpeg",
        name,
    )


def decode_gif(contents: Any, name: str | None = None) -> Tensor:
    """A GIF's frames as ``uint8`` ``[frames, height, width, 3]`` (TF1's
    ``tf.image.decode_gif``)."""
    return _decoder(
        "DecodeGif",
        contents,
        (None, None, None, 3),
        lambda data: _decode_gif(data, "decode_gif"),
        "decode_gif",
        name,
    )


def decode_bmp(contents: Any, channels: int = 0, name: str | None = None) -> Tensor:
    """A BMP image as ``uint8`` ``[height, width, channels]`` (TF1's ``tf.image.decode_bmp``):
    ``channels`` 0, 3 or 4."""
    count = _check_channels(channels, (0, 3, 4), "decode_bmp")
    return _decoder(
        "DecodeBmp",
        contents,
        (None, None, count or None),
        lambda data: _with_channels(_native(_open(data, "decode_bmp", "bmp")), count),
        "decode_bmp",
        name,
    )


def decode_image(
    contents: Any,
    channels: int | None = None,
    dtype: Any = _dtypes.uint8,
    name: str | None = None,
    expand_animations: bool = True,
) -> Tensor:
    """Any of PNG, JPEG, GIF or BMP, by its first bytes (TF1's ``tf.image.decode_image``):
    ``[height, width, channels]``, or ``[frames, height, width, 3]`` for a GIF with
    ``expand_animations``. The static shape is unknown, as in TF. Only ``dtype=tf.uint8``."""
    count = _check_channels(channels, (0, 1, 3, 4), "decode_image")
    if _dtypes.as_dtype(dtype) != _dtypes.uint8:
        raise InvalidArgumentError("symgrad: decode_image: only dtype=tf.uint8 is supported")
    return _decoder(
        "DecodeImage",
        contents,
        None,
        lambda data: _decode_any(data, count, "decode_image", expand_animations),
        "decode_image",
        name,
    )


__all__ = ["decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png", "pillow"]
