"""TF1's session configuration messages: ``ConfigProto``, ``GPUOptions``, ``RunOptions``,
``RunMetadata``.

TF1 programs build them and hand them to ``tf.Session(config=...)`` and
``sess.run(..., options=..., run_metadata=...)``. They configure nothing symgrad has: symgrad
runs NumPy on the CPU, with no devices to place ops on, no GPU memory to reserve and no
thread pools of its own (thread counts are NumPy's and its BLAS library's, set by their own
environment variables such as ``OMP_NUM_THREADS``), and it records no traces. They are real
objects all the same, with TF's fields and defaults, so programs that set or read them run
unchanged: keyword arguments only, an unknown field or a value of the wrong type is an error
(:class:`symgrad.errors.MessageFieldError`, a ``TypeError``, ``ValueError`` and
``AttributeError`` as protobuf raises them), and a message or map field is changed in place
(``config.gpu_options.allow_growth = True``), never replaced.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from .errors import MessageFieldError


def _bool(value: Any) -> bool:
    if isinstance(value, int):  # bool is an int; protobuf takes 0 and 1 too
        return bool(value)
    raise TypeError(f"expected a bool, got {type(value).__name__} {value!r:.40}")


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an int, got {type(value).__name__} {value!r:.40}")
    return int(value)


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a float, got {type(value).__name__} {value!r:.40}")
    return float(value)


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a str, got {type(value).__name__} {value!r:.40}")
    return value


class _StrIntMap(dict[str, int]):
    """A protobuf ``map<string, int32>`` field: a dict whose keys are str and values int."""

    def __setitem__(self, key: str, value: int) -> None:
        try:
            super().__setitem__(_str(key), _int(value))
        except TypeError as error:
            raise MessageFieldError(f"symgrad: map entry {key!r:.40}: {error}") from None

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value


class _Message:
    """A protobuf-like message: named fields with defaults, set by keyword or attribute.

    Subclasses list their fields in ``_FIELDS``: name -> (kind, default), where kind is a
    converter for a scalar field (bool, int, float, str), a ``_Message`` subclass for a
    message field, ``"map"`` for a ``map<string, int32>`` and ``"list"`` for a repeated field.
    """

    _FIELDS: ClassVar[dict[str, tuple[Any, Any]]] = {}

    def __init__(self, **fields: Any) -> None:
        for name, (kind, default) in self._FIELDS.items():
            object.__setattr__(self, name, self._empty(kind, default))
        for name, value in fields.items():
            if name not in self._FIELDS:
                raise MessageFieldError(
                    f"symgrad: {type(self).__name__} has no field {name!r} (its fields: "
                    f"{', '.join(self._FIELDS)})"
                )
            kind, _ = self._FIELDS[name]
            if isinstance(kind, type) and issubclass(kind, _Message):
                if isinstance(value, Mapping):
                    value = kind(**value)
                if not isinstance(value, kind):
                    raise MessageFieldError(
                        f"symgrad: {type(self).__name__}.{name} takes a {kind.__name__}, got "
                        f"{type(value).__name__} {value!r:.40}"
                    )
                object.__setattr__(self, name, copy.deepcopy(value))
            elif kind == "map":
                if not isinstance(value, Mapping):
                    raise MessageFieldError(
                        f"symgrad: {type(self).__name__}.{name} takes a dict of str to int, "
                        f"got {type(value).__name__} {value!r:.40}"
                    )
                getattr(self, name).update(value)
            elif kind == "list":
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    raise MessageFieldError(
                        f"symgrad: {type(self).__name__}.{name} takes a list, got "
                        f"{type(value).__name__} {value!r:.40}"
                    )
                getattr(self, name).extend(value)
            else:
                setattr(self, name, value)

    @staticmethod
    def _empty(kind: Any, default: Any) -> Any:
        if isinstance(kind, type) and issubclass(kind, _Message):
            return kind()
        if kind == "map":
            return _StrIntMap()
        if kind == "list":
            return []
        return default

    def __setattr__(self, name: str, value: Any) -> None:
        field = self._FIELDS.get(name)
        if field is None:
            raise MessageFieldError(f"symgrad: {type(self).__name__} has no field {name!r}")
        kind, _ = field
        converter: Callable[[Any], Any] | None = kind if callable(kind) else None
        if isinstance(kind, type) or converter is None:
            # As protobuf: a message, map or repeated field is changed in place.
            raise MessageFieldError(
                f"symgrad: {type(self).__name__}.{name} cannot be assigned; change its "
                f"fields in place (e.g. config.gpu_options.allow_growth = True)"
            )
        try:
            object.__setattr__(self, name, converter(value))
        except TypeError as error:
            raise MessageFieldError(f"symgrad: {type(self).__name__}.{name}: {error}") from None

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, as protobuf messages

    def _changed(self) -> list[str]:
        """``name=value`` for each field that differs from its default."""
        parts = []
        for name, (kind, default) in self._FIELDS.items():
            value = getattr(self, name)
            if value != self._empty(kind, default):
                parts.append(f"{name}={value!r}")
        return parts

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._changed())})"


class GPUOptions(_Message):
    """TF1's GPU options (``tf.GPUOptions``), with TF's fields and defaults.

    symgrad runs NumPy on the CPU: no GPU memory is reserved, so ``allow_growth`` and
    ``per_process_gpu_memory_fraction`` change nothing.

    >>> import symgrad as tf
    >>> options = tf.GPUOptions(per_process_gpu_memory_fraction=0.5)
    >>> options.allow_growth = True
    >>> options
    GPUOptions(per_process_gpu_memory_fraction=0.5, allow_growth=True)
    """

    _FIELDS: ClassVar[dict[str, tuple[Any, Any]]] = {
        "per_process_gpu_memory_fraction": (_float, 0.0),
        "allow_growth": (_bool, False),
        "allocator_type": (_str, ""),
        "deferred_deletion_bytes": (_int, 0),
        "visible_device_list": (_str, ""),
        "polling_active_delay_usecs": (_int, 0),
        "polling_inactive_delay_msecs": (_int, 0),
        "force_gpu_compatible": (_bool, False),
    }


class ConfigProto(_Message):
    """TF1's session configuration (``tf.ConfigProto``), with TF's fields and defaults.

    ``Session(config=...)`` and ``InteractiveSession(config=...)`` take it and use none of
    it: symgrad runs NumPy on the CPU (no device placement to log or soften, no GPUs to
    count), and thread counts are NumPy's and its BLAS library's own (set them with
    ``OMP_NUM_THREADS`` and the like before NumPy is imported).

    >>> import symgrad as tf
    >>> config = tf.ConfigProto(allow_soft_placement=True, device_count={"GPU": 0})
    >>> config.gpu_options.allow_growth = True
    >>> config.intra_op_parallelism_threads, dict(config.device_count)
    (0, {'GPU': 0})
    >>> with tf.Graph().as_default(), tf.Session(config=config) as sess:
    ...     print(sess.run(tf.constant(2.0) * 3.0))
    6.0
    """

    _FIELDS: ClassVar[dict[str, tuple[Any, Any]]] = {
        "device_count": ("map", None),
        "intra_op_parallelism_threads": (_int, 0),
        "inter_op_parallelism_threads": (_int, 0),
        "use_per_session_threads": (_bool, False),
        "placement_period": (_int, 0),
        "device_filters": ("list", None),
        "gpu_options": (GPUOptions, None),
        "allow_soft_placement": (_bool, False),
        "log_device_placement": (_bool, False),
        "operation_timeout_in_ms": (_int, 0),
        "isolate_session_state": (_bool, False),
        "share_cluster_devices_in_session": (_bool, False),
    }


class RunOptions(_Message):
    """TF1's options for one run (``tf.RunOptions``), with TF's fields and defaults.

    ``Session.run(..., options=...)`` takes it and records no trace, whatever
    ``trace_level`` asks (the trace levels are class attributes, as in TF).

    >>> import symgrad as tf
    >>> options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    >>> options.trace_level, options.timeout_in_ms
    (3, 0)
    """

    NO_TRACE: ClassVar[int] = 0
    SOFTWARE_TRACE: ClassVar[int] = 1
    HARDWARE_TRACE: ClassVar[int] = 2
    FULL_TRACE: ClassVar[int] = 3

    _FIELDS: ClassVar[dict[str, tuple[Any, Any]]] = {
        "trace_level": (_int, 0),
        "timeout_in_ms": (_int, 0),
        "inter_op_thread_pool": (_int, 0),
        "output_partition_graphs": (_bool, False),
        "report_tensor_allocations_upon_oom": (_bool, False),
    }


class StepStats(_Message):
    """The per-device statistics of a run (``RunMetadata.step_stats``): symgrad records none,
    so ``dev_stats`` stays empty."""

    _FIELDS: ClassVar[dict[str, tuple[Any, Any]]] = {"dev_stats": ("list", None)}


class RunMetadata(_Message):
    """What TF1 records of a run (``tf.RunMetadata``): symgrad records nothing, so it stays
    empty (``step_stats.dev_stats``, ``partition_graphs`` and ``function_graphs`` are empty).

    >>> import symgrad as tf
    >>> metadata = tf.RunMetadata()
    >>> with tf.Graph().as_default(), tf.Session() as sess:
    ...     print(sess.run(tf.constant(1.5), run_metadata=metadata))
    1.5
    >>> list(metadata.step_stats.dev_stats), list(metadata.partition_graphs)
    ([], [])
    """

    _FIELDS: ClassVar[dict[str, tuple[Any, Any]]] = {
        "step_stats": (StepStats, None),
        "partition_graphs": ("list", None),
        "function_graphs": ("list", None),
    }


__all__ = ["ConfigProto", "GPUOptions", "RunMetadata", "RunOptions", "StepStats"]
