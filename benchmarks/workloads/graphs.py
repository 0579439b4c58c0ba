"""symgrad and TensorFlow 1 on one graph, written once against the TF1 API.

A workload's ``Builder`` takes the API module (``symgrad`` or ``tf.compat.v1``: symgrad speaks
TF1) and builds its placeholders, variables, loss and gradients. symgrad compiles that graph and
the generated function is called directly; TF1 runs it with ``Session.run``.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import peers
from .harness import Candidate, Outputs, Prepared, Settings


@dataclass
class GraphModel:
    feeds: list[Any]  # placeholders, in the order of the workload's data
    params: list[Any]  # variables, in the order of the workload's parameter values
    loss: Any
    gradients: list[Any]  # d loss / d param, one per param


Builder = Callable[[Any], GraphModel]
# Graph gradients (one per variable) -> the workload's canonical gradient list.
Regroup = Callable[[list[Any]], list[Any]]


def _unchanged(gradients: list[Any]) -> list[Any]:
    return gradients


def symgrad_variants() -> list[tuple[str, str, dict[str, Any]]]:
    """(key, row name, compile options): the default, plus the readable form when compile has it."""
    import symgrad as sg

    variants: list[tuple[str, str, dict[str, Any]]] = [("symgrad", "symgrad", {})]
    # The optimization stage is newer than this runner: time its readable form where it exists.
    if "optimize" in inspect.signature(sg.compile).parameters:
        variants.append(("symgrad-readable", "symgrad (readable)", {"optimize": False}))
    return variants


def compile_graph(
    builder: Builder, name: str, work_dir: Path, forward_only: bool = False, **options: Any
) -> tuple:
    """(CompiledModule, seconds for graph + gradients + compile) in a fresh graph."""
    import symgrad as sg

    start = time.perf_counter()
    with sg.Graph().as_default():
        model = builder(sg)
        outputs = [model.loss] if forward_only else [model.loss, *model.gradients]
        compiled = sg.compile(
            outputs,
            inputs=model.feeds + model.params,
            name=name,
            path=work_dir / f"{name}.py",
            **options,
        )
    return compiled, time.perf_counter() - start


def _split_outputs(result: Any, forward_only: bool) -> tuple:
    if forward_only:  # a one-output module returns the value itself, not a 1-tuple
        return result, None
    return result[0], list(result[1:])


def module_path(settings: Settings, module_name: str, key: str) -> Path:
    """Where candidate ``key`` of ``symgrad_candidates(..., module_name)`` writes its module."""
    return settings.work_dir / f"{module_name}_{key.replace('-', '_')}.py"


def symgrad_candidates(
    builder: Builder,
    data: Sequence[Any],
    param_values: Sequence[Any],
    settings: Settings,
    module_name: str,
    regroup: Regroup = _unchanged,
) -> list[Candidate]:
    """The generated value-and-gradients function, called directly, per compile variant."""
    return [
        _symgrad_candidate(
            key,
            name,
            builder,
            data,
            param_values,
            settings,
            module_path(settings, module_name, key).stem,
            regroup,
            options,
        )
        for key, name, options in symgrad_variants()
    ]


def symgrad_shape_candidate(
    key: str,
    name: str,
    builder: Builder,
    data: Sequence[Any],
    param_values: Sequence[Any],
    settings: Settings,
    module_name: str,
) -> Candidate:
    """The fast form of a variant of the workload's graph (its placeholders declared otherwise)."""
    return _symgrad_candidate(
        key, name, builder, data, param_values, settings, module_name, _unchanged, {}
    )


def symgrad_forward_candidate(
    builder: Builder,
    data: Sequence[Any],
    param_values: Sequence[Any],
    settings: Settings,
    module_name: str,
) -> Candidate:
    """The generated loss alone: the denominator of the cheap-gradient ratio."""
    return _symgrad_candidate(
        "symgrad-forward",
        "symgrad forward only (loss)",
        builder,
        data,
        param_values,
        settings,
        f"{module_name}_forward",
        _unchanged,
        {},
        forward_only=True,
    )


def _symgrad_candidate(
    key: str,
    name: str,
    builder: Builder,
    data: Sequence[Any],
    param_values: Sequence[Any],
    settings: Settings,
    module_name: str,
    regroup: Regroup,
    options: dict[str, Any],
    forward_only: bool = False,
) -> Candidate:
    def prepare() -> Prepared:
        compiled, seconds = compile_graph(
            builder, module_name, settings.work_dir, forward_only, **options
        )
        function, arguments = compiled.function, [*data, *param_values]

        def call() -> Any:
            return function(*arguments)

        def evaluate() -> Outputs:
            loss, gradients = _split_outputs(call(), forward_only)
            return loss, None if gradients is None else regroup(gradients)

        return Prepared(
            call=call,
            evaluate=evaluate,
            build_seconds=seconds,
            note="build = graph + gradients + compile",
        )

    return Candidate(key=key, system="symgrad", name=name, prepare=prepare)


def tf1_candidate(
    builder: Builder,
    data: Sequence[Any],
    regroup: Regroup = _unchanged,
    name: str = "TF1 Session.run",
) -> Candidate:
    """The same graph in a TensorFlow 1 (compat.v1) session, fetching loss and gradients."""

    def prepare() -> Prepared:
        tf = peers.tensorflow()
        v1 = tf.compat.v1
        start = time.perf_counter()
        graph = v1.Graph()
        with graph.as_default():  # graph mode here only: TF2 rows in the same process stay eager
            model = builder(v1)
            session = v1.Session(graph=graph, config=peers.tf1_session_config(tf))
            session.run(v1.global_variables_initializer())
        fetches = [model.loss, *model.gradients]
        feed_dict = dict(zip(model.feeds, data, strict=False))
        setup = time.perf_counter() - start

        def call() -> Any:
            return session.run(fetches, feed_dict=feed_dict)

        first_start = time.perf_counter()
        call()
        first = time.perf_counter() - first_start

        def evaluate() -> Outputs:
            loss, *gradients = call()
            return loss, regroup(gradients)

        return Prepared(
            call=call,
            evaluate=evaluate,
            build_seconds=setup,
            first_call_seconds=first,
            note="build = graph + session + first run - steady run",
        )

    return Candidate(key="tf1", system="tf1", name=name, prepare=prepare)
