"""TF1's ``tf.image``: the image operations built from symgrad's own ops, so that gradients
flow through them (flips, ``per_image_standardization``, crops, ``convert_image_dtype``, and
the bilinear and nearest-neighbour resizing of TF1's legacy kernels,
:mod:`symgrad.ops.resize_ops`), and the decoders of :mod:`symgrad.image_decoding`.

An image is ``[height, width, channels]`` or a batch of them, ``[batch, height, width,
channels]``. The other ``tf.image`` names (bicubic and area resizing, colour conversions)
raise :class:`symgrad.errors.MissingTF1NameError`: prepare such images with NumPy before
feeding them.

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

import numpy as np

from . import dtypes as _dtypes
from .errors import InvalidArgumentError, ShapeError
from .graph import Tensor, name_scope
from .image_decoding import decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png
from .ops.base import constant_value
from .ops.creation import range as _range
from .ops.elementwise import (
    add,
    cast,
    floordiv,
    floormod,
    greater,
    identity,
    less,
    maximum,
    multiply,
    saturate_cast,
    sqrt,
    square,
    subtract,
    truediv,
)
from .ops.gathering import gather, where
from .ops.padding import pad
from .ops.random_ops import random_uniform
from .ops.reductions import reduce_mean
from .ops.reshaping import expand_dims, squeeze
from .ops.resize_ops import resize as _resize_op
from .ops.shape_queries import shape as shape_of
from .ops.slicing import reverse
from .ops.slicing import slice as _slice
from .ops.sources import convert_to_tensor
from .shapes import format_shape
from .tf1_names import missing_attribute

__all__ = [
    "ResizeMethod",
    "central_crop",
    "convert_image_dtype",
    "decode_bmp",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "flip_left_right",
    "flip_up_down",
    "per_image_standardization",
    "random_crop",
    "random_flip_left_right",
    "random_flip_up_down",
    "resize",
    "resize_bilinear",
    "resize_image_with_crop_or_pad",
    "resize_images",
    "resize_nearest_neighbor",
    "resize_with_crop_or_pad",
]


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


def _random_flip(image: Any, axis: int, seed: int | None, function: str) -> Tensor:
    """TF1's random flips: a 3-D image reversed along ``axis`` where a uniform draw is
    below 0.5; each image of a batch where its own draw rounds to 1 (is above 0.5)."""
    with name_scope(function):
        x = convert_to_tensor(image)
        rank = _image_rank(x, function)
        flipped = reverse(x, [axis + rank - 3])
        if rank == 3:
            draw = random_uniform([], 0, 1.0, seed=seed)
            return where(less(draw, 0.5), flipped, x)
        assert x.shape is not None
        batch = getattr(x.shape[0], "value", x.shape[0])
        # one draw per image: the shape of the first column, where the batch is unknown
        size: Any = [batch] if batch is not None else shape_of(x[:, 0, 0, 0])
        draw = random_uniform(size, 0, 1.0, seed=seed)
        return where(greater(draw, 0.5), flipped, x)


def random_flip_left_right(image: Any, seed: int | None = None) -> Tensor:
    """``tf.image.random_flip_left_right``: ``flip_left_right`` with probability 1/2, drawn
    once for a 3-D image and for each image of a batch; ``seed`` as the random ops' (TF1's
    seeding rules, NumPy's numbers).

    >>> import numpy as np, symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.image.random_flip_left_right(np.arange(3.0).reshape(1, 3, 1), seed=1)
    ...     sorted(sg.compile(y)(rng=np.random.default_rng(0)).ravel().tolist())
    [0.0, 1.0, 2.0]
    """
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image: Any, seed: int | None = None) -> Tensor:
    """``tf.image.random_flip_up_down``: ``flip_up_down`` with probability 1/2, drawn once
    for a 3-D image and for each image of a batch; ``seed`` as the random ops'."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """``tf.image.random_crop``: a slice of ``value`` of the static ``size`` (one entry per
    axis) at an offset drawn uniformly, as TF's (an int32 draw modulo ``shape - size + 1``);
    ``seed`` as the random ops'. The gradient flows to the elements cropped.

    >>> import numpy as np, symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.image.random_crop(np.zeros((5, 6, 3)), [2, 3, 3], seed=4)
    ...     y.shape
    (2, 3, 3)
    """
    with name_scope(name or "random_crop"):
        x = convert_to_tensor(value)
        if isinstance(size, Tensor):
            fixed = constant_value(size)
            if fixed is None:
                raise InvalidArgumentError(
                    f"symgrad: image.random_crop: size {size.name!r} must be a list or a "
                    "constant (the cropped shape is static)"
                )
            size = fixed.tolist()
        sizes = [int(s) for s in (size if isinstance(size, (list, tuple)) else list(size))]
        if x.shape is None or len(x.shape) != len(sizes):
            raise ShapeError(
                f"symgrad: image.random_crop: size {sizes} must have one entry per axis of "
                f"{x.name!r} (shape {format_shape(x.shape)})"
            )
        dims = [getattr(d, "value", d) for d in x.shape]
        if any(s < 0 for s in sizes) or any(
            d is not None and d < s for d, s in zip(dims, sizes, strict=True)
        ):
            raise InvalidArgumentError(
                f"symgrad: image.random_crop: need value.shape >= size, got "
                f"{format_shape(x.shape)} and {sizes}"
            )
        limit = add(subtract(shape_of(x), sizes), 1)
        draw = random_uniform([len(sizes)], 0, 2**31 - 1, dtype=_dtypes.int32, seed=seed)
        offset = floormod(draw, limit)
        for axis, length in enumerate(sizes):
            if dims[axis] is not None and dims[axis] == length:
                continue  # the whole axis: nothing to cut
            x = gather(x, add(_range(length), offset[axis]), axis=axis)
        return x


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


def convert_image_dtype(
    image: Any, dtype: Any, saturate: bool = False, name: str | None = None
) -> Tensor:
    """``tf.image.convert_image_dtype``: ``image`` in ``dtype``, its values rescaled from the
    range of its dtype (``[0, MAX]`` for an integer dtype, ``[0, 1]`` for a float one) to
    the range of ``dtype``, as TF scales them: integers to floats times ``1 / MAX``, floats to
    integers times ``MAX + 0.5`` then cast (clipped first with ``saturate``), integers to
    integers by an integer factor (a floor division going down).

    >>> import numpy as np, symgrad as sg
    >>> with sg.Graph().as_default():
    ...     pixels = sg.constant(np.array([0, 102, 255], np.uint8))
    ...     print(sg.compile(sg.image.convert_image_dtype(pixels, sg.float64))())
    [0.  0.4 1. ]
    """
    x = convert_to_tensor(image)
    target = _dtypes.as_dtype(dtype)
    for what, kind in (("image", x.dtype), ("dtype", target)):
        if not (kind.is_floating or kind.is_integer):
            raise InvalidArgumentError(
                f"symgrad: image.convert_image_dtype: the {what} of '{x.name}' is "
                f"{kind.name}; it must be an integer or float dtype"
            )
    if target == x.dtype:
        return identity(x, name=name)
    with name_scope(name or "convert_image"):
        if x.dtype.is_floating and target.is_floating:
            return cast(x, target)
        if x.dtype.is_integer and target.is_floating:
            return multiply(cast(x, target), 1.0 / _dtype_max(x.dtype))
        if x.dtype.is_floating:  # to an integer dtype
            scaled = multiply(x, _dtype_max(target) + 0.5)
            return saturate_cast(scaled, target) if saturate else cast(scaled, target)
        top_in, top_out = _dtype_max(x.dtype), _dtype_max(target)
        if top_in > top_out:  # fewer levels: divide first, then cast
            scaled = floordiv(x, (top_in + 1) // (top_out + 1))
            return saturate_cast(scaled, target) if saturate else cast(scaled, target)
        widened = saturate_cast(x, target) if saturate else cast(x, target)
        return multiply(widened, (top_out + 1) // (top_in + 1))


def _dtype_max(dtype: _dtypes.DType) -> int:
    return int(np.iinfo(dtype.numpy).max) if dtype.is_integer else 1


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


class ResizeMethod:
    """TF1's ``tf.image.ResizeMethod`` (``ResizeMethodV1``): the ``method`` of
    ``resize_images``. symgrad computes ``BILINEAR`` and ``NEAREST_NEIGHBOR``."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


_METHODS = {
    ResizeMethod.BILINEAR: "ResizeBilinear",
    ResizeMethod.NEAREST_NEIGHBOR: "ResizeNearestNeighbor",
}
_UNSUPPORTED = {ResizeMethod.BICUBIC: "BICUBIC", ResizeMethod.AREA: "AREA"}


def _resize_size(size: Any, function: str) -> tuple[int, int]:
    """``size`` as two ints: a list, or a tensor whose value is known when it is built."""
    if isinstance(size, Tensor):
        fixed = constant_value(size)
        if fixed is None:
            raise InvalidArgumentError(
                f"symgrad: image.{function}: size {size.name!r} must be a list of two ints "
                "or a constant tensor; symgrad does not resize to a size computed at run time"
            )
        size = fixed
    values = np.asarray(size)
    if values.shape != (2,) or not np.issubdtype(values.dtype, np.integer):
        raise InvalidArgumentError(
            f"symgrad: image.{function}: size must be a 1-D int32 tensor of 2 elements: "
            f"new_height, new_width; got {size!r:.60}"
        )
    height, width = (int(v) for v in values)
    if height <= 0 or width <= 0:
        raise InvalidArgumentError(
            f"symgrad: image.{function}: output dimensions must be positive, got {[height, width]}"
        )
    return height, width


def _resize(
    images: Any,
    size: Any,
    op_type: str,
    align_corners: bool,
    half_pixel_centers: bool,
    function: str,
    name: str | None,
    skip_same: bool = False,
    preserve_aspect_ratio: bool = False,
) -> Tensor:
    """TF's resizing of 3-D images and 4-D batches (``_resize_images_common``)."""
    with name_scope(name or ("resize" if skip_same else function.title().replace("_", ""))):
        x = convert_to_tensor(images)
        rank = _image_rank(x, function)
        if align_corners and half_pixel_centers:
            raise InvalidArgumentError(
                f"symgrad: image.{function}: if half_pixel_centers is True, align_corners "
                "must be False"
            )
        if rank == 3:
            x = expand_dims(x, 0)
        assert x.shape is not None
        height, width = (getattr(d, "value", d) for d in list(x.shape)[1:3])
        if height == 0 or width == 0:
            raise InvalidArgumentError(
                f"symgrad: image.{function}: the image {x.name!r} of shape "
                f"{format_shape(x.shape)} has no pixels to resize"
            )
        new_height, new_width = _resize_size(size, function)
        if preserve_aspect_ratio:
            if height is None or width is None:
                raise ShapeError(
                    f"symgrad: image.{function}: preserve_aspect_ratio needs the image "
                    f"{x.name!r} (shape {format_shape(x.shape)}) to have a static height and "
                    "width"
                )
            # TF's float32 arithmetic: the smaller scale, rounded half to even
            scale = min(
                np.float32(new_height) / np.float32(height),
                np.float32(new_width) / np.float32(width),
            )
            new_height = int(np.round(scale * np.float32(height)))
            new_width = int(np.round(scale * np.float32(width)))
        if skip_same and (height, width) == (new_height, new_width):
            resized = x  # TF returns the images themselves, in their own dtype
        else:
            target = (new_height, new_width)
            resized = _resize_op(op_type, x, target, align_corners, half_pixel_centers)
        return squeeze(resized, [0]) if rank == 3 else resized


def resize_images(
    images: Any,
    size: Any,
    method: int = ResizeMethod.BILINEAR,
    align_corners: bool = False,
    preserve_aspect_ratio: bool = False,
    name: str | None = None,
) -> Tensor:
    """TF1's ``tf.image.resize_images`` (also ``tf.image.resize``): 3-D images or 4-D
    batches resized to ``size`` ([new_height, new_width], a list or a constant int32
    tensor) by ``method``: ``ResizeMethod.BILINEAR`` (float32 results, as TF's) or
    ``NEAREST_NEIGHBOR`` (the image's dtype); images already of that size come back as
    they are. With ``preserve_aspect_ratio`` the images are scaled to fit within ``size``.
    Gradients flow to float images (TF's ``ResizeBilinearGrad``/``ResizeNearestNeighborGrad``).

    >>> import numpy as np, symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.image.resize_images(np.array([[[0.0], [2.0]]]), [1, 4])
    ...     print(sg.compile(y)()[..., 0])
    [[0. 1. 2. 2.]]
    """
    key = getattr(method, "value", method)
    if isinstance(key, str):
        key = {"bilinear": 0, "nearest": 1, "bicubic": 2, "area": 3}.get(key.lower(), key)
    if key not in _METHODS:
        what = f"ResizeMethod.{_UNSUPPORTED[key]}" if key in _UNSUPPORTED else repr(method)
        raise InvalidArgumentError(
            f"symgrad: image.resize_images: method {what} is not supported; symgrad resizes "
            "with ResizeMethod.BILINEAR and ResizeMethod.NEAREST_NEIGHBOR (resize with "
            "NumPy or PIL before feeding the images for the others)"
        )
    return _resize(
        images,
        size,
        _METHODS[key],
        align_corners,
        False,
        "resize_images",
        name,
        skip_same=True,
        preserve_aspect_ratio=preserve_aspect_ratio,
    )


def resize_bilinear(
    images: Any,
    size: Any,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    """TF1's ``tf.image.resize_bilinear`` (the ``ResizeBilinear`` op): float32 results
    whatever the images' dtype; ``align_corners`` and ``half_pixel_centers`` as TF's legacy
    kernel. Its gradient is TF's ``ResizeBilinearGrad``.

    >>> import numpy as np, symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = np.arange(2).reshape(1, 1, 2, 1)
    ...     y = sg.image.resize_bilinear(x, [1, 3], align_corners=True)
    ...     print(sg.compile(y)()[0, ..., 0])
    [[0.  0.5 1. ]]
    """
    return _resize(
        images, size, "ResizeBilinear", align_corners, half_pixel_centers, "resize_bilinear", name
    )


def resize_nearest_neighbor(
    images: Any,
    size: Any,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    """TF1's ``tf.image.resize_nearest_neighbor`` (the ``ResizeNearestNeighbor`` op): each
    output the nearest element, in the images' dtype (TF's floor, or rounding with
    ``align_corners``). Its gradient adds each output's gradient to its source element.

    >>> import numpy as np, symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.image.resize_nearest_neighbor(np.arange(2).reshape(1, 1, 2, 1), [1, 4])
    ...     print(sg.compile(y)()[0, ..., 0])
    [[0 0 1 1]]
    """
    return _resize(
        images,
        size,
        "ResizeNearestNeighbor",
        align_corners,
        half_pixel_centers,
        "resize_nearest_neighbor",
        name,
    )


def resize_image_with_crop_or_pad(image: Any, target_height: int, target_width: int) -> Tensor:
    """TF1's ``tf.image.resize_image_with_crop_or_pad`` (``resize_with_crop_or_pad``): each
    image cropped about its centre, or padded with zeros about it, to the static
    ``target_height`` and ``target_width`` (TF's offsets: half the difference, rounded down).

    >>> import numpy as np, symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.image.resize_image_with_crop_or_pad(np.ones((1, 3, 1)), 2, 4)
    ...     print(sg.compile(y)()[..., 0])
    [[1. 1. 1. 0.]
     [0. 0. 0. 0.]]
    """
    function = "resize_image_with_crop_or_pad"
    with name_scope("resize_image_with_crop_or_pad"):
        x = convert_to_tensor(image)
        rank = _image_rank(x, function)
        assert x.shape is not None
        height, width = (getattr(d, "value", d) for d in list(x.shape)[rank - 3 : rank - 1])
        targets = []
        for what, value in (("target_height", target_height), ("target_width", target_width)):
            if isinstance(value, Tensor):
                value = constant_value(value)
            if value is None or np.ndim(value) != 0 or int(value) <= 0:
                raise InvalidArgumentError(
                    f"symgrad: image.{function}: {what} must be a positive int known when the "
                    f"graph is built, got {value!r:.40}"
                )
            targets.append(int(value))
        if height is None or width is None:
            raise ShapeError(
                f"symgrad: image.{function}: the image {x.name!r} of shape "
                f"{format_shape(x.shape)} must have a static height and width"
            )
        begin, extent, pads = [0] * rank, [-1] * rank, [[0, 0] for _ in range(rank)]
        for axis, size, target in ((rank - 3, height, targets[0]), (rank - 2, width, targets[1])):
            begin[axis] = max((size - target) // 2, 0)
            extent[axis] = min(target, size)
            before = max((target - size) // 2, 0)
            pads[axis] = [before, target - extent[axis] - before]
        return pad(_slice(x, begin, extent), pads)


resize = resize_images
resize_with_crop_or_pad = resize_image_with_crop_or_pad


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "image", name)
