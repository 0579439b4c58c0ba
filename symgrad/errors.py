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


class NotFoundError(SymgradError, KeyError):
    """No tensor or operation of that name in the graph."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class CallError(SymgradError, TypeError):
    """A compiled function called with missing, unknown or too many inputs."""


class FailedPreconditionError(SymgradError, RuntimeError):
    """A variable was read before it was initialized (TF's name for it)."""


class SessionClosedError(SymgradError, RuntimeError):
    """A closed :class:`symgrad.Session` was used."""


class FormatterError(SymgradError, RuntimeError):
    """The formatter of generated code is missing or rejected a module."""
