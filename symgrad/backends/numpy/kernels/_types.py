"""The types the kernels' annotations name.

Annotations are left out of the kernels' copies in generated modules, and so is this
module (it holds no kernel, and is not in ``MODULES``): nothing here runs there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import EllipsisType
from typing import Any, Literal, TypeAlias, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

# An array of any shape and dtype.
Array: TypeAlias = np.ndarray[tuple[int, ...], np.dtype[Any]]

# A shape, as np.shape gives it.
Shape: TypeAlias = tuple[int, ...]

# Two sizes or steps, (height, width), of NHWC images: a kernel's size, strides, dilations.
HW: TypeAlias = Sequence[int]

# Axes of an array (or sizes along them), as the generated code writes them: (0, 2).
Axes: TypeAlias = Sequence[int]

# A running sum or product along an axis: np.cumsum or np.cumprod.
Scan: TypeAlias = Callable[..., Array]

# How np.pad mirrors a border (TF's MirrorPad modes REFLECT and SYMMETRIC).
MirrorMode: TypeAlias = Literal["reflect", "symmetric"]

# Integer indices into an axis: one, or an array of them.
Indices: TypeAlias = int | NDArray[np.integer]

# A basic-indexing key (np.s_[...]): integers, slices, Ellipsis, None, or a tuple of them.
Index: TypeAlias = (
    int | slice | EllipsisType | None | tuple[int | slice | EllipsisType | None, ...]
)

# A check's argument, given back as it came.
Checked = TypeVar("Checked", bound=ArrayLike)
