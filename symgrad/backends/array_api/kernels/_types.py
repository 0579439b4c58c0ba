"""The types the kernels' annotations name, for type checkers and readers.

Generated modules get copies of the kernels without annotations (the copier cuts the
annotations of parameters and results), so nothing here reaches them: kernel modules
import these names for their signatures only.

A kernel's signature must be laid out so that the copy, annotations cut, reads as the
formatter lays it out in a generated module. The formatter puts parameters that fit on
one line on one line, else one a line with a comma after the last; that comma would
stay in the copy and keep it one parameter a line. So a kernel whose annotated
parameters do not fit on one line is laid out by hand between ``# fmt: off`` and
``# fmt: on``, its parameters on as few lines as they fit, with no comma after the last
(a blank line between those comments and the kernel keeps them out of the copy).
"""

from __future__ import annotations

from types import EllipsisType
from typing import Any, Literal, TypeAlias

# An array of the namespace a kernel runs in. The array API standard has no static type
# for one (each library has its own class), so anything is accepted.
Array: TypeAlias = Any
# The array namespace (``xp``): NumPy, array_api_strict, or a namespace of
# array_api_compat's (PyTorch, JAX, CuPy, Dask), a module or an object like one.
Namespace: TypeAlias = Any
# A dtype of such a namespace (``xp.float32``).
DType: TypeAlias = Any
# A device of such a namespace ("cpu", a torch.device, a JAX device).
Device: TypeAlias = Any
# The sizes of an array's axes: a tuple, or an array's ``.shape``.
Shape: TypeAlias = tuple[int, ...]
# A size for each spatial axis of NHWC images, (height, width): a kernel's size, its
# strides or dilations.
Pair: TypeAlias = tuple[int, int]
# TF's padding of a convolution or pooling.
Padding: TypeAlias = Literal["SAME", "VALID"]
# Reduction axes as TF's reductions take them: one, several, or None for all.
Axes: TypeAlias = int | tuple[int, ...] | None
# A basic index, as in ``value[key]``: ints, slices, None (a new axis) and ``...``.
Key: TypeAlias = tuple[int | slice | EllipsisType | None, ...]
