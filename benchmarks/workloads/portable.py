"""symgrad's portable form (``compile(..., backend="array_api")``) under ``jax.jit``.

The generated module is written against the array API standard; called on JAX arrays and
wrapped in ``jax.jit``, XLA traces and fuses it like any JAX function. The row sits next to
JAX's own ``jit(value_and_grad)`` of the same loss, so their ratio is one run's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import graphs, peers
from .harness import Candidate, Prepared, Settings


def jax_jit_candidate(
    builder: graphs.Builder,
    data: Sequence[Any],
    param_values: Sequence[Any],
    settings: Settings,
    module_name: str,
    regroup: graphs.Regroup,
) -> Candidate:
    """``jax.jit`` of the portable module, on JAX arrays (64-bit enabled, as the JAX row)."""

    def prepare() -> Prepared:
        jax, jnp = peers.jax(), peers.jax_numpy()
        compiled, seconds = graphs.compile_graph(
            builder, f"{module_name}_portable", settings.work_dir, backend="array_api"
        )
        step = jax.jit(compiled.function)
        arguments = [jnp.asarray(np.asarray(a)) for a in [*data, *param_values]]

        def call() -> Any:
            return jax.block_until_ready(step(*arguments))

        def evaluate() -> Any:
            loss, *gradients = call()
            return np.asarray(loss), regroup([np.asarray(g) for g in gradients])

        first = peers._timed_first_call(call)
        return Prepared(
            call=call,
            evaluate=evaluate,
            build_seconds=seconds,
            first_call_seconds=first,
            note="build = graph + gradients + compile, then trace + XLA compile",
        )

    return Candidate(
        key="symgrad-jax-jit", system="jax", name="symgrad portable form, jax.jit", prepare=prepare
    )
