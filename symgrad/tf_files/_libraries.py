"""The optional libraries that TensorFlow's file formats need, loaded on first use.

``symgrad.tf_files`` imports without them: only reading or writing a file needs them, and
then a missing one is a :class:`~symgrad.errors.MissingExtraError` that names the extra to
install. They are loaded with ``importlib`` in this one place, so that no function hides
an ``import`` statement and ``import symgrad`` never pays for protobuf.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from types import ModuleType

from ..errors import MissingExtraError

INSTALL_HINT = "pip install 'symgrad[tf-files]'"


@dataclass(frozen=True)
class Libraries:
    """The loaded modules: CRC-32C, protobuf's descriptor machinery, and the compiled
    TensorFlow messages that the ``tensorboard`` package ships."""

    crc32c: ModuleType
    descriptor_pb2: ModuleType
    descriptor_pool: ModuleType
    message_factory: ModuleType
    protobuf_message: ModuleType
    tensor_shape_pb2: ModuleType
    types_pb2: ModuleType
    versions_pb2: ModuleType
    # Graphs and meta graphs (``graph_pb2``, ``meta_graph_pb2``), their text form, and
    # tensorboard's maintained TensorProto-to-NumPy conversion.
    graph_pb2: ModuleType
    meta_graph_pb2: ModuleType
    text_format: ModuleType
    tensor_util: ModuleType
    variable_pb2: ModuleType


@functools.cache
def require_libraries() -> Libraries:
    """The optional libraries, or a :class:`MissingExtraError` naming the extra.

    >>> require_libraries().crc32c.value(b"123456789") == 0xE3069283
    True
    """
    modules: dict[str, ModuleType] = {}
    names = {
        # The maintained CRC-32C (Castagnoli) binding: TensorFlow checksums every block and tensor.
        "crc32c": "google_crc32c",
        "descriptor_pb2": "google.protobuf.descriptor_pb2",
        "descriptor_pool": "google.protobuf.descriptor_pool",
        "message_factory": "google.protobuf.message_factory",
        "protobuf_message": "google.protobuf.message",
        "tensor_shape_pb2": "tensorboard.compat.proto.tensor_shape_pb2",
        "types_pb2": "tensorboard.compat.proto.types_pb2",
        "versions_pb2": "tensorboard.compat.proto.versions_pb2",
        "graph_pb2": "tensorboard.compat.proto.graph_pb2",
        "meta_graph_pb2": "tensorboard.compat.proto.meta_graph_pb2",
        "text_format": "google.protobuf.text_format",
        "tensor_util": "tensorboard.util.tensor_util",
        "variable_pb2": "tensorboard.compat.proto.variable_pb2",
    }
    for field, module in names.items():
        try:
            modules[field] = importlib.import_module(module)
        except ImportError as error:
            raise MissingExtraError(
                f"symgrad: reading and writing TensorFlow's files needs protobuf, tensorboard "
                f"and google-crc32c ({module} is missing: {error}); {INSTALL_HINT}"
            ) from None
    return Libraries(**modules)
