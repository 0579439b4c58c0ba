"""``symgrad.metrics``: TF1's streaming metrics (``tf.metrics``), backed by local variables."""

from typing import TYPE_CHECKING, Any

from .tf1.metrics_ops import (
    accuracy,
    auc,
    false_negatives,
    false_positives,
    mean,
    precision,
    recall,
    true_negatives,
    true_positives,
)
from .tf1_names import missing_attribute

__all__ = [
    "accuracy",
    "auc",
    "false_negatives",
    "false_positives",
    "mean",
    "precision",
    "recall",
    "true_negatives",
    "true_positives",
]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "metrics", name)
