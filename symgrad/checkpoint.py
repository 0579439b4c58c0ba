"""Checkpoints: TF1's ``tf.train.Saver`` API over TensorFlow's own checkpoint format, or a
portable NumPy one.

By default (with the ``tf-files`` extra installed) a checkpoint is TensorFlow's V2 format, as
``tf.train.Saver`` writes it, byte for byte (:mod:`symgrad.tf_files`): a checkpoint with
prefix ``model.ckpt-1000`` is ``model.ckpt-1000.index`` (which variables, their dtypes,
shapes and checksums) and ``model.ckpt-1000.data-00000-of-00001`` (their values).
TensorFlow restores it, and symgrad restores TensorFlow's.

Without the extra, or with ``Saver(checkpoint_format="npz")``, a checkpoint is two files
that any NumPy reads:

* ``model.ckpt-1000.npz``: a NumPy ``.npz`` archive (an uncompressed zip of
  ``.npy`` files), one array per variable, keyed by the variable's name
  (``layer1/weights``). Any NumPy reads it: ``np.load("model.ckpt-1000.npz")``.
* ``model.ckpt-1000.index.json``: which variables, their dtypes and shapes,
  the data file's name and its SHA-256, and the format version. It is written
  after the data file, so a checkpoint whose index exists is complete; the
  checksum catches a data file changed or cut short afterwards.

The folder's ``checkpoint`` file is TF's text format
(``model_checkpoint_path: "model.ckpt-1000"``) with paths relative to the
folder, so a folder of checkpoints can be moved or copied elsewhere.

Every file is written to a temporary file in the target folder (``mkstemp``),
flushed to disk (``fsync``) and renamed over the target (``os.replace``, atomic
on POSIX and Windows). A crash or a kill during ``save`` leaves the previous
checkpoint and the ``checkpoint`` file as they were; the ``checkpoint`` file
names a new checkpoint only once both of its files are in place, and older
checkpoints are deleted only after that. Restoring reads either format, whichever is at the
prefix.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import stat
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from . import dtypes as _dtypes
from .backends.namespaces import to_numpy
from .errors import (
    CheckpointError,
    CheckpointKeyError,
    DTypeError,
    FileAccessError,
    InvalidArgumentError,
    MissingExtraError,
    ModelFileError,
    PathIsADirectoryError,
    ShapeError,
    file_error,
)
from .files import (
    _sync_directory,
    make_directory,
    read_regular_text,
    remove_orphaned_temporaries,
)
from .graph import Tensor, get_default_graph
from .graph_export import export_meta_graph
from .ops.sources import constant
from .ops.state import Variable, global_variables
from .tf_files import bundle as tf_bundle
from .tf_files._libraries import INSTALL_HINT, require_libraries
from .version import __version__

logger = logging.getLogger(__name__)

FORMAT = "symgrad.checkpoint"
FORMAT_VERSION = 1
DATA_SUFFIX = ".npz"
INDEX_SUFFIX = ".index.json"
STATE_FILENAME = "checkpoint"

# The two formats a Saver writes (and restore reads, whichever is at a prefix).
TF_FORMAT = "tf"
NPZ_FORMAT = "npz"
FORMATS = (TF_FORMAT, NPZ_FORMAT)


# --- atomic files ------------------------------------------------------------------------------


def atomic_write(path: str | os.PathLike, write: Callable[[IO[bytes]], object]) -> None:
    """Write ``path`` through ``write(file)`` so that readers see the old file or the whole new one.

    The temporary file sits in the target folder (a rename across file systems is
    not atomic) and is removed on every exit path that Python sees.
    """
    target = Path(path)
    descriptor, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _sync_directory(target.parent)


# --- reading and writing one checkpoint --------------------------------------------------------


def _write_npz(handle: IO[bytes], arrays: Mapping[str, np.ndarray]) -> None:
    # np.savez takes names as keyword arguments, so a variable called 'file' would
    # clash; this writes the same archive (one .npy member per array) directly.
    with zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(array, order="C"), allow_pickle=False)


def _check_name(name: str, what: str) -> None:
    """A name a checkpoint can hold: the archive keeps names as UTF-8 and cuts them at NUL,
    so a name with either problem would be written and never read back."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgumentError(
            f"symgrad: Saver: {what} is saved under the name {name!r}, which is not valid "
            f"Unicode (a lone surrogate); name it otherwise"
        ) from None
    if "\x00" in name:
        raise InvalidArgumentError(
            f"symgrad: Saver: {what} is saved under the name {name!r}, which holds a NUL "
            f"character that a checkpoint cannot keep; name it otherwise"
        )


def default_format() -> str:
    """TensorFlow's format where the ``tf-files`` extra is installed, else the NumPy one."""
    try:
        require_libraries()
    except MissingExtraError:
        return NPZ_FORMAT
    return TF_FORMAT


def write_checkpoint(
    prefix: str | os.PathLike, arrays: Mapping[str, np.ndarray], checkpoint_format: str = NPZ_FORMAT
) -> str:
    """Write the checkpoint ``prefix`` (data file, then index) and return ``prefix``.

    A write that fails (a full disk, a folder in the way) is a :class:`FileAccessError`
    naming the file; the previous checkpoint of that prefix, if any, stays whole.
    """
    prefix = str(prefix)
    for name in arrays:
        _check_name(name, "an array")
    if checkpoint_format == TF_FORMAT:
        tf_bundle.write_bundle(prefix, arrays)
        return prefix
    data_path = Path(prefix + DATA_SUFFIX)
    try:
        _write_files(prefix, data_path, arrays)
    except OSError as error:
        raise file_error(error, f"cannot write checkpoint {prefix!r}") from error
    return prefix


def _write_files(prefix: str, data_path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    atomic_write(data_path, lambda handle: _write_npz(handle, arrays))
    index = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "written_by": f"symgrad {__version__}",
        "data_file": data_path.name,
        "sha256": _sha256_of(data_path),  # read back: what is on disk is what gets checked
        "variables": {
            name: {"dtype": np.asarray(a).dtype.name, "shape": list(np.shape(a))}
            for name, a in arrays.items()
        },
    }
    text = json.dumps(index, indent=1, sort_keys=True) + "\n"
    atomic_write(prefix + INDEX_SUFFIX, lambda handle: handle.write(text.encode()))


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_index(prefix: str | os.PathLike) -> dict[str, Any]:
    """The index of checkpoint ``prefix``; a :class:`CheckpointError` if it is missing or bad."""
    path = Path(str(prefix) + INDEX_SUFFIX)
    try:
        # Only a regular file is opened: a FIFO planted there would block the reader.
        text = read_regular_text(path)
    except FileAccessError as error:
        raise CheckpointError(
            f"symgrad: the checkpoint index {str(path)!r} is unreadable: {error}"
        ) from None
    except UnicodeDecodeError:
        raise CheckpointError(
            f"symgrad: the checkpoint index {str(path)!r} is not UTF-8 text"
        ) from None
    if text is None:
        raise CheckpointError(
            f"symgrad: no checkpoint at {str(prefix)!r} (no file {path.name} in "
            f"{str(path.parent)!r}); train.latest_checkpoint(folder) gives the newest one"
        )
    try:
        index = json.loads(text)
    except ValueError as error:
        raise CheckpointError(
            f"symgrad: the checkpoint index {str(path)!r} is unreadable: {error}"
        ) from None
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        raise CheckpointError(f"symgrad: {str(path)!r} is not a symgrad checkpoint index")
    if index.get("version") != FORMAT_VERSION:
        raise CheckpointError(
            f"symgrad: checkpoint {str(prefix)!r} has format version {index.get('version')}; "
            f"this symgrad reads version {FORMAT_VERSION}"
        )
    problem = _index_problem(index)
    if problem:
        raise CheckpointError(f"symgrad: the checkpoint index {str(path)!r} is damaged: {problem}")
    return index


def _index_problem(index: dict[str, Any]) -> str | None:
    """What is wrong with the fields of a parsed index, or None."""
    data_file = index.get("data_file")
    if not isinstance(data_file, str) or not data_file or Path(data_file).name != data_file:
        return f"'data_file' must name a file next to the index, got {data_file!r:.80}"
    if data_file in (".", ".."):
        return f"'data_file' must name a file next to the index, got {data_file!r}"
    digest = index.get("sha256")
    if not isinstance(digest, str) or len(digest) != 64:
        return f"'sha256' must be a SHA-256 in hex, got {digest!r:.80}"
    variables = index.get("variables")
    if not isinstance(variables, dict):
        return f"'variables' must map names to dtypes and shapes, got {type(variables).__name__}"
    for name, entry in variables.items():
        if not isinstance(entry, dict):
            return f"variable {name!r}: expected its dtype and shape, got {entry!r:.80}"
        dtype, shape = entry.get("dtype"), entry.get("shape")
        try:
            np.dtype(dtype)
        except TypeError:
            return f"variable {name!r}: unknown dtype {dtype!r:.40}"
        if not isinstance(shape, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
        ):
            return f"variable {name!r}: the shape must be a list of sizes, got {shape!r:.80}"
    return None


def format_of(prefix: str | os.PathLike) -> str | None:
    """The format of the checkpoint at ``prefix`` (``"tf"`` or ``"npz"``), None if there is none.

    TensorFlow's is looked for first: a prefix holds one checkpoint, and where both formats
    were written to it, TensorFlow reads only its own.
    """
    if tf_bundle.bundle_exists(prefix):
        return TF_FORMAT
    if Path(str(prefix) + INDEX_SUFFIX).is_file():
        return NPZ_FORMAT
    return None


def _no_checkpoint(prefix: str) -> CheckpointError:
    path = Path(prefix)
    return CheckpointError(
        f"symgrad: no checkpoint at {prefix!r} (no file {path.name}.index or "
        f"{path.name}{INDEX_SUFFIX} in {str(path.parent)!r}); train.latest_checkpoint(folder) "
        f"gives the newest one"
    )


def read_checkpoint(prefix: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every array of checkpoint ``prefix`` (a prefix or a folder: its latest checkpoint), by
    name, in either format.

    Every byte read is checked (TensorFlow's CRC-32C checksums, or the SHA-256 of the NumPy
    format's index), so a truncated or altered file is an error, never a silently wrong value.
    """
    prefix = _resolve(prefix)
    kind = format_of(prefix)
    if kind == TF_FORMAT:
        return tf_bundle.read_bundle(prefix)
    if kind is None:
        raise _no_checkpoint(prefix)
    return _read_npz_checkpoint(prefix)


def saved_variables(
    prefix: str | os.PathLike,
) -> dict[str, tuple[np.dtype | None, tuple[int, ...]]]:
    """``{name: (dtype, shape)}`` of the checkpoint at ``prefix`` (either format), from its
    index alone; the dtype is None for one NumPy has not (TensorFlow's bfloat16)."""
    prefix = str(prefix)
    kind = format_of(prefix)
    if kind == TF_FORMAT:
        return {
            name: (entry.dtype, tuple(entry.shape))
            for name, entry in tf_bundle.read_bundle_index(prefix).items()
        }
    if kind is None:
        raise _no_checkpoint(prefix)
    index = read_index(prefix)
    return {
        name: (np.dtype(entry["dtype"]), tuple(entry["shape"]))
        for name, entry in index["variables"].items()
    }


def _read_arrays(prefix: str, names: Sequence[str]) -> dict[str, np.ndarray]:
    """The arrays ``names`` of the checkpoint at ``prefix`` (TensorFlow's format reads only
    those; the NumPy one checks its whole data file first)."""
    if format_of(prefix) == TF_FORMAT:
        return {name: tf_bundle.read_tensor(prefix, name) for name in names}
    arrays = _read_npz_checkpoint(prefix)
    return {name: arrays[name] for name in names}


def _read_npz_checkpoint(prefix: str) -> dict[str, np.ndarray]:
    """The arrays of the NumPy-format checkpoint ``prefix``, its data file checked against the
    index's checksum first."""
    index = read_index(prefix)
    data_path = Path(str(prefix) + INDEX_SUFFIX).parent / index["data_file"]
    try:
        kind = os.lstat(data_path).st_mode
    except FileNotFoundError:
        kind = None
    if kind is None or not stat.S_ISREG(kind):
        # missing, or a folder, a link, a FIFO (which would block the reader)
        raise CheckpointError(
            f"symgrad: checkpoint {str(prefix)!r}: its data file {data_path.name} is "
            f"{'missing' if kind is None else 'not a regular file'}"
        )
    try:
        actual = _sha256_of(data_path)
    except OSError as error:
        raise file_error(error, f"cannot read checkpoint {str(prefix)!r}") from error
    if actual != index["sha256"]:
        raise CheckpointError(
            f"symgrad: checkpoint {str(prefix)!r}: the data file {data_path.name} does not match "
            f"its index (truncated or changed after it was written)"
        )
    try:
        with np.load(data_path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile) as error:
        # The checksum matched, so another tool wrote this file: it is not a valid archive
        # of plain arrays (a pickle, object arrays, a damaged zip).
        raise CheckpointError(
            f"symgrad: checkpoint {str(prefix)!r}: the data file {data_path.name} is not an "
            f"archive of numeric arrays: {error}"
        ) from None
    if set(arrays) != set(index["variables"]):
        raise CheckpointError(
            f"symgrad: checkpoint {str(prefix)!r}: the data file and the index list "
            f"different variables"
        )
    for name, array in arrays.items():
        entry = index["variables"][name]
        if array.dtype != np.dtype(entry["dtype"]) or list(array.shape) != entry["shape"]:
            raise CheckpointError(
                f"symgrad: checkpoint {str(prefix)!r}: variable {name!r} is stored as "
                f"{array.dtype.name}{list(array.shape)}, its index says "
                f"{entry['dtype']}{entry['shape']}"
            )
        if array.dtype.kind not in "biuf":
            raise CheckpointError(
                f"symgrad: checkpoint {str(prefix)!r}: variable {name!r} has dtype "
                f"{array.dtype.name}, not a number"
            )
    return arrays


def _resolve(path: str | os.PathLike) -> str:
    """A checkpoint prefix, or a folder standing for its latest checkpoint."""
    if Path(path).is_dir():
        latest = latest_checkpoint(path)
        if latest is None:
            raise CheckpointError(f"symgrad: no checkpoint in folder {str(path)!r}")
        return latest
    return str(path)


def checkpoint_exists(checkpoint_prefix: str | os.PathLike) -> bool:
    """True if a complete checkpoint (its index, in either format) exists at the prefix."""
    return format_of(checkpoint_prefix) is not None


class CheckpointReader:
    """What a checkpoint holds, read by name (TF1's ``tf.train.NewCheckpointReader`` and
    ``tf.train.load_checkpoint``), in either format; a folder stands for its newest checkpoint.

    >>> import tempfile, numpy as np, symgrad as sg
    >>> with sg.Graph().as_default(), tempfile.TemporaryDirectory() as folder:
    ...     w = sg.Variable(np.eye(2, dtype=np.float32), name="layer/w")
    ...     with sg.Session() as sess:
    ...         _ = sess.run(w.initializer)
    ...         path = sg.train.Saver().save(sess, f"{folder}/model.ckpt")
    ...     reader = sg.train.NewCheckpointReader(path)
    ...     print(reader.get_variable_to_shape_map(), reader.has_tensor("layer/w"))
    ...     print(reader.get_tensor("layer/w").tolist())
    {'layer/w': [2, 2]} True
    [[1.0, 0.0], [0.0, 1.0]]
    """

    def __init__(self, filepattern: str | os.PathLike) -> None:
        self._prefix = _resolve(filepattern)
        self._variables = saved_variables(self._prefix)

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """``{name: shape}`` of every tensor in the checkpoint."""
        return {name: list(shape) for name, (_, shape) in sorted(self._variables.items())}

    def get_variable_to_dtype_map(self) -> dict[str, _dtypes.DType]:
        """``{name: dtype}`` of every tensor whose dtype symgrad has."""
        return {
            name: _dtypes.as_dtype(dtype)
            for name, (dtype, _) in sorted(self._variables.items())
            if dtype is not None and dtype.kind in "biufc"
        }

    def has_tensor(self, tensor_str: str) -> bool:
        """Whether the checkpoint holds a tensor of that name."""
        return tensor_str in self._variables

    def get_tensor(self, tensor_str: str) -> np.ndarray:
        """The saved value of one tensor; a :class:`~symgrad.errors.CheckpointKeyError` (TF1's
        ``NotFoundError``) if the checkpoint has none of that name."""
        if tensor_str not in self._variables:
            raise CheckpointKeyError(
                f"symgrad: checkpoint {self._prefix!r} has no variable {tensor_str!r}; it has "
                f"{', '.join(sorted(self._variables)) or 'none'}"
            )
        return _read_arrays(self._prefix, [tensor_str])[tensor_str]

    def debug_string(self) -> bytes:
        """One line per tensor, ``name (dtype) [shape]``, as TF's reader prints them."""
        lines = [
            f"{name} ({'?' if dtype is None else dtype.name}) {list(shape)}"
            for name, (dtype, shape) in sorted(self._variables.items())
        ]
        return ("\n".join(lines) + "\n").encode()


NewCheckpointReader = CheckpointReader


def load_checkpoint(ckpt_dir_or_file: str | os.PathLike) -> CheckpointReader:
    """A :class:`CheckpointReader` of a checkpoint or of a folder's newest (TF1's
    ``tf.train.load_checkpoint``)."""
    return CheckpointReader(ckpt_dir_or_file)


def list_variables(ckpt_dir_or_file: str | os.PathLike) -> list[tuple[str, list[int]]]:
    """``[(name, shape), ...]`` of a checkpoint, sorted by name (TF1's ``tf.train.list_variables``)."""
    return list(load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file: str | os.PathLike, name: str) -> np.ndarray:
    """One variable's value from a checkpoint (TF1's ``tf.train.load_variable``)."""
    key = name[:-2] if name.endswith(":0") else name
    return load_checkpoint(ckpt_dir_or_file).get_tensor(key)


def init_from_checkpoint(ckpt_dir_or_file: str | os.PathLike, assignment_map: Mapping) -> None:
    """Initialize variables from a checkpoint instead of their initializers (TF1's
    ``tf.train.init_from_checkpoint``): call it before ``global_variables_initializer()``.

    ``assignment_map`` maps checkpoint names to the current graph's, as TF1 reads it:
    ``{"old/w": "new/w"}`` or ``{"old/w": variable}`` for one variable,
    ``{"old_scope/": "new_scope/"}`` for every variable under ``new_scope/`` (each from the
    checkpoint's ``old_scope/`` + the same rest), ``{"/": "new_scope/"}`` for names without
    a scope in the checkpoint. A name or a shape that does not match is an error before any
    variable changes.

    >>> import tempfile, numpy as np, symgrad as sg
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     with sg.Graph().as_default():
    ...         with sg.variable_scope("pretrained"):
    ...             w = sg.get_variable("w", initializer=np.float32([1.0, 2.0]))
    ...         with sg.Session() as sess:
    ...             _ = sess.run(w.initializer)
    ...             path = sg.train.Saver().save(sess, f"{folder}/model.ckpt")
    ...     with sg.Graph().as_default():
    ...         with sg.variable_scope("finetuned"):
    ...             v = sg.get_variable("w", [2], initializer=sg.zeros_initializer())
    ...         sg.train.init_from_checkpoint(folder, {"pretrained/": "finetuned/"})
    ...         with sg.Session() as sess:
    ...             _ = sess.run(sg.global_variables_initializer())
    ...             print(sess.run(v))
    [1. 2.]
    """
    reader = load_checkpoint(ckpt_dir_or_file)
    saved = reader.get_variable_to_shape_map()
    current = {v.op.name: v for v in global_variables()}
    if not isinstance(assignment_map, Mapping):
        raise InvalidArgumentError(
            f"symgrad: init_from_checkpoint: assignment_map must be a dict, got "
            f"{type(assignment_map).__name__}"
        )
    plan: dict[Variable, str] = {}
    for saved_name, target in assignment_map.items():
        if isinstance(target, Variable):
            plan[target] = str(saved_name)
        elif isinstance(target, str) and target in current and not str(saved_name).endswith("/"):
            plan[current[target]] = str(saved_name)
        elif isinstance(target, str):
            scope = "" if target in ("", "/") else target.rstrip("/") + "/"
            saved_scope = "" if saved_name in ("", "/") else str(saved_name).rstrip("/") + "/"
            matched = [name for name in current if name.startswith(scope)]
            if not matched:
                raise InvalidArgumentError(
                    f"symgrad: init_from_checkpoint: no variable of the graph is named "
                    f"{target!r} or is under the scope {scope!r}"
                )
            for name in matched:
                plan[current[name]] = saved_scope + name[len(scope) :]
        else:
            raise InvalidArgumentError(
                f"symgrad: init_from_checkpoint: assignment_map[{saved_name!r}] must be a "
                f"variable, a variable's name or a scope, got {type(target).__name__}"
            )
    for variable, saved_name in plan.items():
        if saved_name not in saved:
            raise CheckpointKeyError(
                f"symgrad: init_from_checkpoint: '{variable.name}' is to come from "
                f"{saved_name!r}, which checkpoint {str(ckpt_dir_or_file)!r} does not hold"
            )
        if variable.shape is not None and tuple(saved[saved_name]) != variable.shape:
            raise ShapeError(
                f"symgrad: init_from_checkpoint: '{variable.name}' has shape "
                f"{variable.shape}, {saved_name!r} in the checkpoint {tuple(saved[saved_name])}"
            )
    dtypes = reader.get_variable_to_dtype_map()
    for variable, saved_name in plan.items():
        if dtypes.get(saved_name) != variable.dtype:
            held = dtypes[saved_name].name if saved_name in dtypes else "a dtype NumPy has not"
            raise DTypeError(
                f"symgrad: init_from_checkpoint: '{variable.name}' has dtype "
                f"{variable.dtype.name}, {saved_name!r} in the checkpoint {held}"
            )
    for variable, saved_name in plan.items():
        value = reader.get_tensor(saved_name)
        graph = variable.graph
        with graph.control_dependencies(None), graph.name_scope(variable.op.name + "/"):
            variable.replace_initial_value(constant(value, dtype=variable.dtype, name="checkpoint"))


# --- the checkpoint state file -----------------------------------------------------------------


@dataclass
class CheckpointState:
    """The ``checkpoint`` file of a folder: the newest checkpoint and all that are kept."""

    model_checkpoint_path: str
    all_model_checkpoint_paths: list[str] = field(default_factory=list)


def _state_path(checkpoint_dir: str | os.PathLike, latest_filename: str | None) -> Path:
    return Path(checkpoint_dir) / (latest_filename or STATE_FILENAME)


def _quote(path: str) -> str:
    return json.dumps(path)  # a quoted string with escapes, as TF's text protobuf format


def update_checkpoint_state(
    save_dir: str | os.PathLike,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: Sequence[str] | None = None,
    latest_filename: str | None = None,
) -> None:
    """Write the folder's ``checkpoint`` file (atomically), paths relative to ``save_dir``."""
    directory = Path(save_dir)
    paths = list(all_model_checkpoint_paths or [])
    if model_checkpoint_path not in paths:
        paths.append(model_checkpoint_path)

    def relative(path: str) -> str:
        candidate = Path(path)
        return candidate.name if candidate.parent.resolve() == directory.resolve() else path

    lines = [f"model_checkpoint_path: {_quote(relative(model_checkpoint_path))}"]
    lines += [f"all_model_checkpoint_paths: {_quote(relative(p))}" for p in paths]
    text = "\n".join(lines) + "\n"
    target = _state_path(directory, latest_filename)
    try:
        atomic_write(target, lambda h: h.write(text.encode()))
    except OSError as error:
        raise file_error(error, f"cannot write the checkpoint state file '{target}'") from error


def get_checkpoint_state(
    checkpoint_dir: str | os.PathLike, latest_filename: str | None = None
) -> CheckpointState | None:
    """The folder's ``checkpoint`` file, with paths joined to the folder; None if there is none."""
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        text = read_regular_text(path)  # a FIFO there is not opened (it would block)
    except UnicodeDecodeError:
        raise CheckpointError(f"symgrad: {str(path)!r} is not a checkpoint state file") from None
    except PathIsADirectoryError:
        raise CheckpointError(
            f"symgrad: {str(path)!r} is a folder, not a checkpoint state file"
        ) from None
    if text is None:
        return None
    newest: str | None = None
    kept: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, _, text_value = line.partition(":")
        try:
            value = json.loads(text_value.strip())
        except ValueError:
            value = None
        if not isinstance(value, str) or key.strip() not in (
            "model_checkpoint_path",
            "all_model_checkpoint_paths",
        ):
            raise CheckpointError(
                f"symgrad: {str(path)!r} line {number} is not a checkpoint state entry: {line!r:.80}"
            )
        full = value if os.path.isabs(value) else os.path.join(checkpoint_dir, value)
        if key.strip() == "model_checkpoint_path":
            newest = full
        else:
            kept.append(full)
    if newest is None:
        raise CheckpointError(f"symgrad: {str(path)!r} names no model_checkpoint_path")
    return CheckpointState(newest, kept)


def latest_checkpoint(
    checkpoint_dir: str | os.PathLike, latest_filename: str | None = None
) -> str | None:
    """The prefix of the newest complete checkpoint in ``checkpoint_dir``, or None.

    >>> import tempfile, symgrad as sg
    >>> with sg.Graph().as_default(), tempfile.TemporaryDirectory() as folder:
    ...     w = sg.Variable([1.0, 2.0], name="w")
    ...     saver = sg.train.Saver()
    ...     with sg.Session() as sess:
    ...         _ = sess.run(w.initializer)
    ...         path = saver.save(sess, f"{folder}/model.ckpt", global_step=10)
    ...         print(sg.train.latest_checkpoint(folder) == path, path.endswith("model.ckpt-10"))
    True True
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not checkpoint_exists(state.model_checkpoint_path):
        return None
    return state.model_checkpoint_path


# --- Saver -------------------------------------------------------------------------------------


def _variables_by_name(var_list: Any) -> dict[str, Variable]:
    if var_list is None:
        var_list = global_variables()
    if isinstance(var_list, Mapping):
        pairs = list(var_list.items())
    elif isinstance(var_list, (list, tuple)):
        pairs = [(getattr(v, "op", None) and v.op.name, v) for v in var_list]
    else:
        raise InvalidArgumentError(
            f"symgrad: Saver: var_list must be a list or a dict of variables, "
            f"got {type(var_list).__name__}"
        )
    named: dict[str, Variable] = {}
    for name, variable in pairs:
        if not isinstance(variable, Variable):
            raise InvalidArgumentError(
                f"symgrad: Saver: var_list entries must be Variables, got "
                f"{type(variable).__name__} {getattr(variable, 'name', variable)!r:.60}"
            )
        if isinstance(name, str) and name:
            _check_name(name, f"variable '{variable.name}'")
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError(
                f"symgrad: Saver: the name of variable '{variable.name}' must be a non-empty string"
            )
        if name in named:
            raise InvalidArgumentError(
                f"symgrad: Saver: two variables are saved under the name {name!r}"
            )
        named[name] = variable
    return named


# TF1's SaverDef.V2, the only write_version written (V1 is TF's long-deprecated format).
SAVER_V2 = 2
_NUMPY_FORMAT_WARNED: list[bool] = []


def _warn_numpy_format_once() -> None:
    if not _NUMPY_FORMAT_WARNED:
        _NUMPY_FORMAT_WARNED.append(True)
        logger.warning(
            "symgrad: Saver writes symgrad's NumPy checkpoint format, which TensorFlow cannot "
            "read: TensorFlow's format needs the tf-files extra (%s); "
            "Saver(checkpoint_format='npz') says this choice and silences this warning",
            INSTALL_HINT,
        )


def checkpoint_files(prefix: str | os.PathLike) -> list[str]:
    """The files of the checkpoint at ``prefix`` (either format) that exist, index first: the
    order in which deleting them never leaves an index without its data."""
    prefix = str(prefix)
    folder, base = os.path.split(prefix)
    shard = re.compile(re.escape(base) + r"\.data-\d{5}-of-\d{5}")
    try:
        names = os.listdir(folder or ".")
    except OSError:
        names = []
    candidates = [tf_bundle.index_path(prefix), prefix + INDEX_SUFFIX]
    candidates += sorted(os.path.join(folder, n) for n in names if shard.fullmatch(n))
    candidates += [prefix + DATA_SUFFIX, prefix + ".meta"]
    return [path for path in candidates if os.path.lexists(path)]


class Saver:
    """Saves and restores variables (TF1's ``tf.train.Saver``).

    ``var_list`` is None (every global variable at construction), a list of
    variables (saved under their op names) or a dict from names to variables.
    ``save`` keeps the ``max_to_keep`` newest checkpoints (None or 0: all) and,
    beyond those, one every ``keep_checkpoint_every_n_hours``. ``checkpoint_format`` is
    ``"tf"`` (TensorFlow's V2 checkpoints, which TensorFlow restores; the default where the
    ``tf-files`` extra is installed) or ``"npz"`` (symgrad's NumPy format; the default
    otherwise, with a warning). ``restore`` reads either. See the module docstring for the
    file formats and why writes are atomic.

    >>> import tempfile, symgrad as sg
    >>> with sg.Graph().as_default(), tempfile.TemporaryDirectory() as folder:
    ...     w = sg.Variable([1.0, 2.0], name="w")
    ...     saver = sg.train.Saver(max_to_keep=2)
    ...     with sg.Session() as sess:
    ...         _ = sess.run(w.assign([3.0, 4.0]))
    ...         paths = [saver.save(sess, f"{folder}/model.ckpt", global_step=s) for s in (1, 2, 3)]
    ...     with sg.Session() as fresh:
    ...         saver.restore(fresh, sg.train.latest_checkpoint(folder))
    ...         print(fresh.run(w), [p[-1] for p in saver.last_checkpoints])
    [3. 4.] ['2', '3']
    """

    def __init__(
        self,
        var_list: Any = None,
        reshape: bool = False,
        sharded: bool = False,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours: float = 10000.0,
        name: str | None = None,
        restore_sequentially: bool = False,
        saver_def: Any = None,
        builder: Any = None,
        defer_build: bool = False,
        allow_empty: bool = False,
        write_version: Any = None,
        pad_step_number: bool = False,
        save_relative_paths: bool = True,
        filename: str | None = None,
        checkpoint_format: str | None = None,
    ) -> None:
        if write_version is not None and write_version != SAVER_V2:
            raise InvalidArgumentError(
                f"symgrad: Saver: write_version={write_version!r}: only TF1's default "
                f"(SaverDef.V2, {SAVER_V2}) is written; V1 checkpoints are not"
            )
        if checkpoint_format is None:
            checkpoint_format = default_format()
            if checkpoint_format != TF_FORMAT:
                _warn_numpy_format_once()
        if checkpoint_format not in FORMATS:
            raise InvalidArgumentError(
                f"symgrad: Saver: checkpoint_format must be one of {FORMATS}, not "
                f"{checkpoint_format!r}"
            )
        self.checkpoint_format = checkpoint_format
        self._meta_graph_warned = False
        if var_list is None:
            with get_default_graph().as_default():
                var_list = global_variables()
        self._variables = _variables_by_name(var_list)
        if not self._variables and not allow_empty:
            raise InvalidArgumentError("symgrad: Saver: no variables to save")
        self._max_to_keep = max_to_keep
        self._keep_every_seconds = keep_checkpoint_every_n_hours * 3600.0
        self._next_keep_time = time.time() + self._keep_every_seconds
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints: list[tuple[str, float]] = []

    @property
    def last_checkpoints(self) -> list[str]:
        """The kept checkpoints this saver wrote, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: Sequence[tuple]) -> None:
        self._last_checkpoints = [(str(p), float(t)) for p, t in last_checkpoints_with_time]

    def recover_last_checkpoints(self, checkpoint_paths: Sequence[str]) -> None:
        """Take over existing checkpoints (e.g. ``get_checkpoint_state(d).all_model_checkpoint_paths``)
        so that ``max_to_keep`` also deletes them."""
        now = time.time()
        self._last_checkpoints = [(str(p), now) for p in checkpoint_paths if checkpoint_exists(p)]

    def save(
        self,
        sess: Any,
        save_path: str | os.PathLike,
        global_step: Any = None,
        latest_filename: str | None = None,
        meta_graph_suffix: str = "meta",
        write_meta_graph: bool = True,
        write_state: bool = True,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
    ) -> str:
        """Write the variables' values in ``sess`` to ``save_path`` (``-<global_step>`` appended)
        and return the checkpoint's prefix. With TF's checkpoint format, the graph is written
        beside it as TF writes it (``<prefix>.meta``, which TF's ``import_meta_graph`` reads),
        unless ``write_meta_graph=False`` or the graph holds ops TF has no counterpart for
        (then a warning says which, once per Saver)."""
        prefix = str(save_path)
        if global_step is not None:
            step = sess.run(global_step) if isinstance(global_step, Tensor) else global_step
            try:
                step = int(step)
            except (TypeError, ValueError):
                raise InvalidArgumentError(
                    f"symgrad: Saver.save: global_step must be an integer or an integer "
                    f"tensor, got {step!r:.60}"
                ) from None
            step_text = f"{step:08d}" if self._pad_step_number else str(step)
            prefix = f"{prefix}-{step_text}"
        directory = Path(prefix).parent
        make_directory(directory)  # as TF1 does: a FileAccessError if a file is in the way
        names = list(self._variables)
        values = sess.run([self._variables[n] for n in names]) if names else []
        arrays = {
            name: np.asarray(to_numpy(value)) for name, value in zip(names, values, strict=True)
        }
        # Temporary files of writers that were killed (SIGKILL cannot be caught).
        remove_orphaned_temporaries(directory)
        write_checkpoint(prefix, arrays, self.checkpoint_format)
        if write_meta_graph and self.checkpoint_format == TF_FORMAT:
            self._write_meta_graph(sess.graph, f"{prefix}.{meta_graph_suffix}")
        if write_state:
            kept = list(self._last_checkpoints)
            stale = self._record(prefix)
            try:
                update_checkpoint_state(
                    directory, prefix, self.last_checkpoints, latest_filename=latest_filename
                )
            except BaseException:
                # The state file still names the checkpoints kept before: so does the Saver,
                # which therefore deletes none of them.
                self._last_checkpoints = kept
                raise
            # Only now that the state file no longer names them.
            for old in stale:
                for path in checkpoint_files(old):  # index first: never a half checkpoint
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
        return prefix

    def _write_meta_graph(self, graph: Any, path: str) -> None:
        try:
            export_meta_graph(path, graph=graph)
        except ModelFileError as error:
            if not self._meta_graph_warned:
                self._meta_graph_warned = True
                logger.warning("symgrad: Saver.save wrote no .meta: %s", error)

    def export_meta_graph(
        self, filename: str | os.PathLike | None = None, as_text: bool = False, **kwargs: Any
    ) -> Any:
        """The graph's ``MetaGraphDef``, written to ``filename`` if given (TF1's
        ``Saver.export_meta_graph``)."""
        return export_meta_graph(filename, as_text=as_text, **kwargs)

    def _record(self, prefix: str) -> list[str]:
        """Add ``prefix`` to the kept checkpoints; return those to delete."""
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != prefix]
        self._last_checkpoints.append((prefix, time.time()))
        stale = []
        while self._max_to_keep and len(self._last_checkpoints) > self._max_to_keep:
            path, written = self._last_checkpoints.pop(0)
            if written > self._next_keep_time:
                self._next_keep_time += self._keep_every_seconds  # kept for good, untracked
            else:
                stale.append(path)
        return stale

    def restore(self, sess: Any, save_path: str | os.PathLike | None) -> None:
        """Load the saved values of this saver's variables into ``sess``.

        Every variable is checked (present, same shape, same dtype) before any is
        loaded, so a mismatched checkpoint changes nothing.
        """
        if save_path is None:
            raise CheckpointError(
                "symgrad: Saver.restore: save_path is None (train.latest_checkpoint found "
                "no checkpoint?)"
            )
        prefix = str(save_path)
        saved = saved_variables(prefix)
        for name, variable in self._variables.items():
            if name not in saved:
                raise CheckpointKeyError(
                    f"symgrad: Saver.restore: variable '{variable.name}' (saved as {name!r}) "
                    f"is not in checkpoint {prefix!r}; it has "
                    f"{', '.join(sorted(saved)) or 'no variables'}"
                )
            dtype, shape = saved[name]
            if variable.shape is not None and shape != variable.shape:
                raise ShapeError(
                    f"symgrad: Saver.restore: variable '{variable.name}' has shape "
                    f"{variable.shape}, checkpoint {prefix!r} holds shape {shape}"
                )
            if dtype != np.dtype(variable.dtype.numpy):
                held = "a dtype NumPy has not" if dtype is None else dtype.name
                raise DTypeError(
                    f"symgrad: Saver.restore: variable '{variable.name}' has dtype "
                    f"{variable.dtype.name}, checkpoint {prefix!r} holds {held}"
                )
        arrays = _read_arrays(prefix, list(self._variables))
        for name, variable in self._variables.items():
            sess.load_variable(variable, arrays[name])
