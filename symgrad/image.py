"""TF1's ``tf.image``: the image operations built from symgrad's own ops, so that gradients
flow through them (flips, ``per_image_standardization``, ``central_crop``).

An image is ``[height, width, channels]`` or a batch of them, ``[batch, height, width,
channels]``. The other ``tf.image`` names (resizing, decoding, colour conversions) raise
:class:`symgrad.errors.MissingTF1NameError`: prepare such images with NumPy before feeding them.

>>> import numpy as np, symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(sg.float32, [None, 2, 2, 1])
...     y = sg.image.flip_left_right(x)
...     print(sg.Session().run(y, {x: np.arange(4.0).reshape(1, 2, 2, 1)})[0, :, :, 0])
[[1. 0.]
 [3. 2.]]
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

from . import dtypes as _dtypes
from .errors import InvalidArgumentError, ShapeError
from .graph import Tensor, name_scope
from .ops.elementwise import cast, maximum, sqrt, square, subtract, truediv
from .ops.reductions import reduce_mean
from .ops.slicing import reverse
from .ops.slicing import slice as _slice
from .ops.sources import convert_to_tensor
from .shapes import format_shape
from .tf1_names import missing_attribute

__all__ = ["central_crop", "flip_left_right", "flip_up_down", "per_image_standardization"]


def _image_rank(image: Tensor, function: str, ranks: tuple[int, ...] | None = (3, 4)) -> int:
    """The static rank of ``image``: 3 or 4 (at least 3 where ``ranks`` is None)."""
    shape: Any = image.shape
    if shape is None:
        raise ShapeError(
            f"symgrad: image.{function}: the image {image.name!r} has no known rank; give its "
            "placeholder a shape such as [None, height, width, channels]"
        )
    rank = len(shape)
    if rank < 3:
        raise ShapeError(
            f"symgrad: image.{function}: the image {image.name!r} (shape "
            f"{format_shape(shape)}) must be at least three-dimensional"
        )
    if ranks is not None and rank not in ranks:
        raise ShapeError(
            f"symgrad: image.{function}: the image {image.name!r} (shape "
            f"{format_shape(shape)}) must have either 3 or 4 dimensions"
        )
    return rank


def _flip(image: Any, axis: int, function: str, name: str | None) -> Tensor:
    """``image`` reversed along its ``axis``-th image axis (0 height, 1 width)."""
    with name_scope(name or function):
        x = convert_to_tensor(image)
        rank = _image_rank(x, function)
        return reverse(x, [axis + rank - 3])


def flip_left_right(image: Any, name: str | None = None) -> Tensor:
    """``tf.image.flip_left_right``: each image's columns in reverse order (its width axis).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.image.flip_left_right(sg.constant([[[1], [2], [3]]])))()[..., 0])
    [[3 2 1]]
    """
    return _flip(image, 1, "flip_left_right", name)


def flip_up_down(image: Any, name: str | None = None) -> Tensor:
    """``tf.image.flip_up_down``: each image's rows in reverse order (its height axis).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.image.flip_up_down(sg.constant([[[1]], [[2]]])))()[..., 0])
    [[2]
     [1]]
    """
    return _flip(image, 0, "flip_up_down", name)


def per_image_standardization(image: Any, name: str | None = None) -> Tensor:
    """``tf.image.per_image_standardization``: each image (the last three axes) less its mean,
    divided by ``max(stddev, 1 / sqrt(num_elements))``; the result is float32, as TF's.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.image.per_image_standardization(sg.constant([[[1.0], [3.0]]]))
    ...     print(sg.compile(y)()[..., 0])
    [[-1.  1.]]
    """
    with name_scope(name or "per_image_standardization"):
        x = convert_to_tensor(image)
        _image_rank(x, "per_image_standardization", ranks=None)
        assert x.shape is not None
        inner = [getattr(d, "value", d) for d in list(x.shape)[-3:]]
        if None in inner:
            raise ShapeError(
                f"symgrad: image.per_image_standardization: the image {x.name!r} of shape "
                f"{format_shape(x.shape)} must have a static height, width and channels"
            )
        x = cast(x, _dtypes.float32)
        axes = [-1, -2, -3]
        mean = reduce_mean(x, axis=axes, keepdims=True)
        centered = subtract(x, mean)
        stddev = sqrt(reduce_mean(square(centered), axis=axes, keepdims=True))
        count = int(inner[0]) * int(inner[1]) * int(inner[2])
        return truediv(centered, maximum(stddev, float(count) ** -0.5))


def central_crop(image: Any, central_fraction: float) -> Tensor:
    """``tf.image.central_crop``: the central ``central_fraction`` of each image's height and
    width, cut where TF cuts (``int((size - size * central_fraction) / 2)`` off each side).

    ``central_fraction`` is a Python number in (0, 1], the height and width static.

    >>> import numpy as np, symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.image.central_crop(np.arange(16.0).reshape(4, 4, 1), 0.5)
    ...     print(sg.compile(y)()[..., 0])
    [[ 5.  6.]
     [ 9. 10.]]
    """
    if not isinstance(central_fraction, numbers.Real) or isinstance(central_fraction, bool):
        raise InvalidArgumentError(
            f"symgrad: image.central_crop: central_fraction must be a Python number, not "
            f"{central_fraction!r}"
        )
    fraction = float(central_fraction)
    if not 0.0 < fraction <= 1.0:
        raise InvalidArgumentError(
            "symgrad: image.central_crop: central_fraction must be within (0, 1]"
        )
    with name_scope("central_crop"):
        x = convert_to_tensor(image)
        if fraction == 1.0:
            return x
        rank = _image_rank(x, "central_crop")
        assert x.shape is not None
        height, width = (getattr(d, "value", d) for d in list(x.shape)[rank - 3 : rank - 1])
        if height is None or width is None:
            raise ShapeError(
                f"symgrad: image.central_crop: the image {x.name!r} of shape "
                f"{format_shape(x.shape)} must have a static height and width"
            )
        top = int((float(height) - float(height) * fraction) / 2)
        left = int((float(width) - float(width) * fraction) / 2)
        begin = [top, left, 0]
        size = [int(height) - 2 * top, int(width) - 2 * left, -1]
        if rank == 4:
            begin, size = [0, *begin], [-1, *size]
        return _slice(x, begin, size)


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "image", name)
