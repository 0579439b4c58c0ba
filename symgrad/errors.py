"""The exceptions symgrad raises.

Every error is a :class:`SymgradError` and also the builtin exception a Python
user would expect (``ValueError`` for bad values and shapes, ``TypeError`` for
bad types), so ``except ValueError`` keeps working.
"""

from __future__ import annotations


class SymgradError(Exception):
    """Base class of every error raised by symgrad."""


class ShapeError(SymgradError, ValueError):
    """Operands whose static shapes are incompatible for an op."""


class DTypeError(SymgradError, TypeError):
    """Operands whose dtypes are incompatible for an op, or a bad dtype."""


class InvalidArgumentError(SymgradError, ValueError):
    """A bad argument value (an unknown option, a wrong length, ...)."""


class GraphMismatchError(SymgradError, ValueError):
    """Tensors from different graphs were combined."""


class NotCompilableError(SymgradError, ValueError):
    """The graph cannot be turned into code (e.g. a missing feed)."""


class BackendError(NotCompilableError):
    """The chosen backend cannot express an op of the graph (or is not a known backend);
    the message names the op and the backend."""


class NotFoundError(SymgradError, KeyError):
    """No tensor or operation of that name in the graph."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class CallError(SymgradError, TypeError):
    """A compiled function called with missing, unknown or too many inputs."""


class FailedPreconditionError(SymgradError, RuntimeError):
    """A variable was read before it was initialized (TF's name for it)."""


class OutOfRangeError(SymgradError, IndexError):
    """An input pipeline's iterator has no element left (``tf.errors.OutOfRangeError``: TF1's
    end of an epoch of a ``tf.data`` iterator); also an ``IndexError``."""


class SessionClosedError(SymgradError, RuntimeError):
    """A closed :class:`symgrad.Session` was used."""


class FormatterError(SymgradError, RuntimeError):
    """The formatter of generated code is missing or rejected a module."""


class CheckpointError(SymgradError, ValueError):
    """A checkpoint that is missing, truncated, or does not match the variables restored."""


class CheckpointKeyError(NotFoundError, CheckpointError):
    """A checkpoint lacks a variable that is restored or read from it (TF1 raises
    ``tf.errors.NotFoundError`` there); also a :class:`CheckpointError`."""


class ModelFileError(SymgradError, ValueError):
    """A TensorFlow graph file (GraphDef, MetaGraphDef, SavedModel) that is missing, cut
    short, does not parse, or holds what symgrad cannot import; the message names the file
    (or the node) and what is wrong."""


class MissingExtraError(SymgradError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


class SymgradWarning(UserWarning):
    """Base class of the warnings symgrad gives."""


class StaleValueWarning(SymgradWarning):
    """A compiled module used a variable's initial value after a Session had changed it."""


class MissingTF1NameError(SymgradError, AttributeError):
    """A TF1 name that symgrad does not provide; the message says what to use instead."""


class ArgumentTypeError(SymgradError, TypeError):
    """An argument of the wrong kind (a ``feed_dict`` that is not a dict, ...)."""


class MessageFieldError(ArgumentTypeError, ValueError, AttributeError):
    """A field a configuration message (``ConfigProto``, ``GPUOptions``...) does not have, or a
    value it cannot hold: a ``TypeError``, and the ``ValueError`` (unknown keyword) and
    ``AttributeError`` (unknown attribute, a message field assigned) protobuf raises."""


# --- files ------------------------------------------------------------------------------------


class FileAccessError(SymgradError, OSError):
    """A generated file or its folder cannot be written or read; names the path."""


class FilePermissionError(FileAccessError, PermissionError):
    """No permission to write (or read) a generated file or its folder."""


class PathIsADirectoryError(FileAccessError, IsADirectoryError):
    """A path that should name a file names a folder."""


class PathNotADirectoryError(FileAccessError, NotADirectoryError):
    """A path that should name a folder (or lie inside one) runs through a file."""


class PathExistsError(FileAccessError, FileExistsError):
    """A folder cannot be created because a file of that name exists."""


def file_error(error: OSError, message: str) -> FileAccessError:
    """The symgrad error for an ``OSError`` met at a path (``message`` names the path).

    >>> error = file_error(PermissionError(13, "Permission denied"), "cannot write 'out/f.py'")
    >>> isinstance(error, PermissionError), str(error)
    (True, "symgrad: cannot write 'out/f.py': Permission denied")
    """
    kinds: list[tuple[type[OSError], type[FileAccessError]]] = [
        (PermissionError, FilePermissionError),
        (IsADirectoryError, PathIsADirectoryError),
        (NotADirectoryError, PathNotADirectoryError),
        (FileExistsError, PathExistsError),
    ]
    kind = next((ours for builtin, ours in kinds if isinstance(error, builtin)), FileAccessError)
    return kind(f"symgrad: {message}: {error.strerror or error}")


# --- running generated code ---------------------------------------------------------------------


class ExecutionError(SymgradError):
    """A generated function failed while running; the message names the op and the tensor
    whose statement failed, and the original NumPy error is chained."""


class ExecutionValueError(ExecutionError, ValueError):
    """A run-time shape error (reshape, matmul, broadcasting, concat of fed values)."""


class ExecutionIndexError(ExecutionError, IndexError):
    """A run-time index out of range (gather, slicing of fed values)."""


class ExecutionArithmeticError(ExecutionError, ArithmeticError):
    """A run-time arithmetic error (integer division by zero, ...)."""


class MissingDependencyError(MissingExtraError):
    """An optional dependency that a feature needs, a package or a program, is not installed."""
