"""``symgrad.contrib``: the few ``tf.contrib`` names TF1 programs use most (``contrib.layers``,
``contrib.rnn``)."""

from typing import TYPE_CHECKING, Any

from ..tf1_names import missing_attribute
from . import layers, rnn

__all__ = ["layers", "rnn"]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "contrib", name)
