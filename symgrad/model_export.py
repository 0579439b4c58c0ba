"""A model TensorFlow trained, as a standalone NumPy module: :func:`export_model` (and the
``symgrad export`` command) reads a frozen graph (``.pb``/``.pbtxt``), a ``.meta`` with its
checkpoint, or a SavedModel, imports it (:mod:`symgrad.graph_import`), and compiles the
named outputs with the trained weights inside (``compile(values=...)``). The module needs
NumPy alone; its docstring names the files it was made from and their SHA-256.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from .checkpoint import Saver, checkpoint_exists, checkpoint_files, latest_checkpoint
from .compiler import CompiledModule, compile
from .errors import ModelFileError, NotFoundError
from .graph import Graph, Tensor
from .graph_import import build_graph_def, import_meta_graph_def, load_saved_model
from .session import Session
from .tf_files import graph_files

SERVING_TAGS = ("serve",)
DEFAULT_SIGNATURE = "serving_default"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _provenance(files: Sequence[Path]) -> list[str]:
    return [f"{path.name}  sha256 {_sha256(path)}" for path in files]


def _tensor(graph: Graph, name: str) -> Tensor:
    try:
        return graph.get_tensor_by_name(name if ":" in name else f"{name}:0")
    except (NotFoundError, ValueError) as error:
        raise ModelFileError(
            f"symgrad: export: the model has no tensor {name!r}: {error}"
        ) from None


def _checkpoint_prefix(meta_path: Path, checkpoint: str | os.PathLike[str] | None) -> str:
    """The checkpoint of a ``.meta``: ``checkpoint`` (a prefix, or a folder's newest), else
    the one of the same prefix, else the newest in the ``.meta``'s folder."""
    if checkpoint is not None:
        given = str(checkpoint)
        return (latest_checkpoint(given) or given) if Path(given).is_dir() else given
    same = str(meta_path)[: -len(".meta")]
    if checkpoint_exists(same):
        return same
    return latest_checkpoint(meta_path.parent) or same


def export_model(
    source: str | os.PathLike[str],
    path: str | os.PathLike[str] | None = None,
    *,
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    name: str | None = None,
    tags: Sequence[str] = SERVING_TAGS,
    signature: str = DEFAULT_SIGNATURE,
    backend: str = "numpy",
) -> CompiledModule:
    """Compile a TensorFlow model's ``outputs`` (tensor names, ``"logits:0"``) as functions of
    its ``inputs`` into a standalone module at ``path`` with the trained weights inside.

    ``source`` is a frozen graph (``.pb``, ``.pbtxt``), a ``.meta`` (its weights from
    ``checkpoint``, default: the checkpoint of the same prefix, or the folder's newest), or a
    SavedModel folder (the meta graph tagged ``tags``; ``inputs`` and ``outputs`` default to
    its ``signature``'s, named by their keys). ``inputs`` default to the placeholders the
    outputs read. The function is named ``name``, else after ``path`` (``mnist.py``: ``mnist``).
    """
    source = Path(source)
    graph = Graph()
    with graph.as_default(), Session(graph=graph) as sess:
        named_outputs: dict[str, str] = {}
        signature_inputs: list[str] = []
        has_variables = False
        if source.is_dir():
            meta = load_saved_model(sess, tags, source)
            files = [source / graph_files.SAVED_MODEL_FILE]
            prefix = graph_files.saved_model_variables_prefix(source)
            files += [Path(p) for p in checkpoint_files(prefix)]
            has_variables = bool(files[1:])
            if signature in meta.signature_def:
                chosen = meta.signature_def[signature]
                named_outputs = {key: chosen.outputs[key].name for key in sorted(chosen.outputs)}
                signature_inputs = [chosen.inputs[key].name for key in sorted(chosen.inputs)]
        elif source.suffix == ".meta":
            meta = graph_files.read_meta_graph_def(source)
            imported = import_meta_graph_def(meta)
            prefix = _checkpoint_prefix(source, checkpoint)
            if imported.variables:
                saver = Saver(var_list=dict(imported.variables), checkpoint_format="tf")
                saver.restore(sess, prefix)
                has_variables = True
            files = [source] + [
                Path(p) for p in checkpoint_files(prefix) if not p.endswith(".meta")
            ]
        else:
            build_graph_def(graph_files.read_graph_def(source), prefix="")
            files = [source]
        if outputs is not None:  # the outputs named replace a signature's
            named_outputs = {output: output for output in outputs}
        if not named_outputs:
            raise ModelFileError(
                f"symgrad: export: name the outputs of '{source}' (tensor names such as 'logits:0')"
            )
        output_tensors: dict[str, Tensor | None] = {
            key: _tensor(graph, text) for key, text in named_outputs.items()
        }
        chosen_inputs = list(inputs) if inputs is not None else signature_inputs
        input_tensors = [_tensor(graph, text) for text in chosen_inputs] if chosen_inputs else None
        return compile(
            output_tensors,
            input_tensors,
            name=name or (Path(path).stem if path is not None else source.stem),
            path=None if path is None else Path(path),
            values=sess if has_variables else None,
            backend=backend,
            provenance=_provenance(files),
        )
