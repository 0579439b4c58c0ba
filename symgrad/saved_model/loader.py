"""``tf.saved_model.loader``: :func:`load` a SavedModel into a session."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..graph_import import load_saved_model
from ..tf_files.graph_files import SAVED_MODEL_FILE, SAVED_MODEL_TEXT_FILE

__all__ = ["load", "maybe_saved_model_directory"]


def load(
    sess: Any,
    tags: Sequence[str],
    export_dir: str | os.PathLike[str],
    import_scope: str | None = None,
    **saver_kwargs: Any,
) -> Any:
    """Import the meta graph tagged ``tags`` of the SavedModel in ``export_dir`` into the
    default graph, restore its variables into ``sess``, and return its ``MetaGraphDef``."""
    del saver_kwargs
    return load_saved_model(sess, tags, export_dir, import_scope)


def maybe_saved_model_directory(export_dir: str | os.PathLike[str]) -> bool:
    """Whether ``export_dir`` holds a ``saved_model.pb`` (or ``.pbtxt``)."""
    folder = Path(export_dir)
    return (folder / SAVED_MODEL_FILE).is_file() or (folder / SAVED_MODEL_TEXT_FILE).is_file()
