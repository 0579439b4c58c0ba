"""The protocol buffer messages of TensorFlow's checkpoints (the "tensor bundle").

The shapes, dtypes and versions are TensorFlow's own messages as the ``tensorboard``
package compiles and ships them (``tensorboard.compat.proto``). The bundle's header and
entry messages (``tensor_bundle.proto``) and the slice message (``tensor_slice.proto``) are
not shipped there, so they are described here with protobuf's own descriptor messages,
with the field numbers and types of TensorFlow's ``.proto`` files, and protobuf builds the
classes: the encoding and decoding are protobuf's, not code of ours.

They live in their own package (``symgrad.tf_files``) in protobuf's default pool, beside
tensorboard's files that they refer to: the wire format knows only field numbers, and a
name of their own cannot clash with TensorFlow's classes if TensorFlow is loaded too.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ._libraries import Libraries, require_libraries

FILE_NAME = "symgrad/tf_files/tensor_bundle.proto"
PACKAGE = "symgrad.tf_files"


@dataclass(frozen=True)
class BundleProtos:
    """The message classes of a bundle's index, and the errors protobuf raises."""

    BundleHeaderProto: type[Any]
    BundleEntryProto: type[Any]
    TensorSliceProto: type[Any]
    TensorShapeProto: type[Any]
    VersionDef: type[Any]
    # The DataType enum (``DataType.Name(1) == "DT_FLOAT"``).
    DataType: Any
    DecodeError: type[Exception]


@functools.cache
def bundle_protos() -> BundleProtos:
    """The message classes, built on first use (needs the ``tf-files`` extra).

    >>> protos = bundle_protos()
    >>> header = protos.BundleHeaderProto(num_shards=1)
    >>> header.version.producer = 1
    >>> header.SerializeToString().hex()
    '08011a020801'
    """
    libraries = require_libraries()
    pool = libraries.descriptor_pool.Default()
    try:
        pool.FindFileByName(FILE_NAME)
    except KeyError:
        pool.AddSerializedFile(_file_descriptor(libraries).SerializeToString())

    def message(name: str) -> type[Any]:
        descriptor = pool.FindMessageTypeByName(f"{PACKAGE}.{name}")
        get_class = getattr(libraries.message_factory, "GetMessageClass", None)
        if get_class is None:  # protobuf before 4.22: only the factory's GetPrototype
            return libraries.message_factory.MessageFactory(pool).GetPrototype(descriptor)
        return get_class(descriptor)

    return BundleProtos(
        BundleHeaderProto=message("BundleHeaderProto"),
        BundleEntryProto=message("BundleEntryProto"),
        TensorSliceProto=message("TensorSliceProto"),
        TensorShapeProto=libraries.tensor_shape_pb2.TensorShapeProto,
        VersionDef=libraries.versions_pb2.VersionDef,
        DataType=libraries.types_pb2.DataType,
        DecodeError=libraries.protobuf_message.DecodeError,
    )


def _file_descriptor(libraries: Libraries) -> Any:
    """The ``FileDescriptorProto`` of TensorFlow's ``tensor_bundle.proto`` and
    ``tensor_slice.proto`` (one file here), with their field numbers and types."""
    descriptor_pb2 = libraries.descriptor_pb2
    field_type = descriptor_pb2.FieldDescriptorProto
    shape = libraries.tensor_shape_pb2
    types = libraries.types_pb2
    versions = libraries.versions_pb2

    def full_name(descriptor: Any) -> str:
        return "." + str(descriptor.full_name)

    file = descriptor_pb2.FileDescriptorProto(
        name=FILE_NAME,
        package=PACKAGE,
        syntax="proto3",
        dependency=[shape.DESCRIPTOR.name, types.DESCRIPTOR.name, versions.DESCRIPTOR.name],
    )

    def add_field(
        message: Any,
        name: str,
        number: int,
        kind: int,
        type_name: str = "",
        repeated: bool = False,
        oneof_index: int | None = None,
    ) -> None:
        field = message.field.add(name=name, number=number, type=kind)
        field.label = field_type.LABEL_REPEATED if repeated else field_type.LABEL_OPTIONAL
        if type_name:
            field.type_name = type_name
        if oneof_index is not None:
            field.oneof_index = oneof_index

    # tensor_slice.proto: which part of a partitioned tensor an entry holds.
    slice_message = file.message_type.add(name="TensorSliceProto")
    extent = slice_message.nested_type.add(name="Extent")
    add_field(extent, "start", 1, field_type.TYPE_INT64)
    # TensorFlow keeps "length absent" (all of the dimension) apart from 0 with a oneof.
    extent.oneof_decl.add(name="has_length")
    add_field(extent, "length", 2, field_type.TYPE_INT64, oneof_index=0)
    add_field(
        slice_message,
        "extent",
        1,
        field_type.TYPE_MESSAGE,
        f".{PACKAGE}.TensorSliceProto.Extent",
        repeated=True,
    )

    # tensor_bundle.proto: the header (key "") and one entry per tensor.
    header = file.message_type.add(name="BundleHeaderProto")
    add_field(header, "num_shards", 1, field_type.TYPE_INT32)
    endianness = header.enum_type.add(name="Endianness")
    endianness.value.add(name="LITTLE", number=0)
    endianness.value.add(name="BIG", number=1)
    add_field(
        header,
        "endianness",
        2,
        field_type.TYPE_ENUM,
        f".{PACKAGE}.BundleHeaderProto.Endianness",
    )
    add_field(
        header, "version", 3, field_type.TYPE_MESSAGE, full_name(versions.VersionDef.DESCRIPTOR)
    )

    entry = file.message_type.add(name="BundleEntryProto")
    add_field(entry, "dtype", 1, field_type.TYPE_ENUM, full_name(types.DataType.DESCRIPTOR))
    add_field(
        entry, "shape", 2, field_type.TYPE_MESSAGE, full_name(shape.TensorShapeProto.DESCRIPTOR)
    )
    add_field(entry, "shard_id", 3, field_type.TYPE_INT32)
    add_field(entry, "offset", 4, field_type.TYPE_INT64)
    add_field(entry, "size", 5, field_type.TYPE_INT64)
    add_field(entry, "crc32c", 6, field_type.TYPE_FIXED32)
    add_field(
        entry,
        "slices",
        7,
        field_type.TYPE_MESSAGE,
        f".{PACKAGE}.TensorSliceProto",
        repeated=True,
    )
    return file
