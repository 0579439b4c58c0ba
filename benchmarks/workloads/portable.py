"""symgrad's portable form (``compile(..., backend="array_api")``) under ``jax.jit``.

The generated module is written against the array API standard; called on JAX arrays and
wrapped in ``jax.jit``, XLA traces and fuses it like any JAX function. The row sits next to
JAX's own ``jit(value_and_grad)`` of the same loss, so their ratio is one run's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    packed: Sequence[int] | None = None,
) -> Candidate:
    """``jax.jit`` of the portable module, on JAX arrays (64-bit enabled, as the JAX row).

    The module takes one argument per variable and returns one gradient per variable; JAX
    handles each argument and result of a jitted call as a buffer of its own, about 10 µs
    apiece. With ``packed`` (the sizes of consecutive runs of scalar parameters, e.g.
    ``[100, 100]`` for W4's weights and biases) the jitted wrapper takes those runs as vectors
    and returns their gradients stacked, as JAX's own row does; inside the wrapper the module is
    called unchanged, so XLA compiles the same arithmetic.
    """

    def prepare() -> Prepared:
        jax, jnp = peers.jax(), peers.jax_numpy()
        compiled, seconds = graphs.compile_graph(
            builder, f"{module_name}_portable", settings.work_dir, backend="array_api"
        )
        if packed is None:
            step = jax.jit(compiled.function)
            arguments = [jnp.asarray(np.asarray(a)) for a in [*data, *param_values]]
        else:
            step = jax.jit(_packing_wrapper(compiled.function, len(data), packed, jnp))
            runs = np.split(np.asarray(param_values), np.cumsum(packed)[:-1])
            arguments = [jnp.asarray(np.asarray(a)) for a in [*data, *runs]]

        def call() -> Any:
            return jax.block_until_ready(step(*arguments))

        def evaluate() -> Any:
            loss, *gradients = call()
            if packed is None:
                return np.asarray(loss), regroup([np.asarray(g) for g in gradients])
            return np.asarray(loss), [np.asarray(g) for g in gradients]

        first = peers._timed_first_call(call)
        return Prepared(
            call=call,
            evaluate=evaluate,
            build_seconds=seconds,
            first_call_seconds=first,
            note="build = graph + gradients + compile, then trace + XLA compile",
        )

    if packed is None:
        return Candidate(
            key="symgrad-jax-jit",
            system="jax",
            name="symgrad portable form, jax.jit",
            prepare=prepare,
        )
    return Candidate(
        key="symgrad-jax-jit-packed",
        system="jax",
        name="symgrad portable form, jax.jit, scalars packed as JAX's",
        prepare=prepare,
    )


def _packing_wrapper(
    function: Callable[..., Any], data_count: int, packed: Sequence[int], jnp: Any
) -> Callable[..., Any]:
    """``function(*data, *scalars)`` as ``wrapper(*data, *vectors)``: each vector holds one run
    of ``packed`` scalars, and the gradients come back stacked the same way."""

    def wrapper(*arguments: Any) -> tuple:
        data, vectors = arguments[:data_count], arguments[data_count:]
        scalars = [
            vector[k] for vector, size in zip(vectors, packed, strict=True) for k in range(size)
        ]
        loss, *gradients = function(*data, *scalars)
        bounds = np.cumsum([0, *packed])
        return (
            loss,
            *(jnp.stack(gradients[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)),
        )

    return wrapper
