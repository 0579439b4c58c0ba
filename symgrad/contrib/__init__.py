"""``symgrad.contrib``: the few ``tf.contrib`` names TF1 programs use most (``contrib.layers``,
``contrib.rnn``, the sequence losses of ``contrib.seq2seq`` and ``contrib.legacy_seq2seq``)."""

from typing import TYPE_CHECKING, Any

from ..tf1_names import missing_attribute
from . import layers, legacy_seq2seq, rnn, seq2seq

__all__ = ["layers", "legacy_seq2seq", "rnn", "seq2seq"]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "contrib", name)
