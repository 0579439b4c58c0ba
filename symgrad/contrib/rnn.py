"""``symgrad.contrib.rnn``: the recurrent cells and ``static_rnn`` of TF1's ``tf.contrib.rnn``
(see :mod:`symgrad.rnn`)."""

from typing import TYPE_CHECKING, Any

from ..rnn import (
    BasicLSTMCell,
    BasicRNNCell,
    DropoutWrapper,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
    static_rnn,
)
from ..tf1_names import missing_attribute

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
    "RNNCell",
    "static_rnn",
]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "contrib.rnn", name)
