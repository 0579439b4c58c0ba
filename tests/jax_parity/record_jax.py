"""Record JAX's ``value_and_grad(f, argnums, has_aux=True)`` of the random functions.

Run once where JAX is installed (float64):

    python tests/jax_parity/record_jax.py

It writes ``jax_fixtures.json`` next to this file, which the tests compare with
symgrad's results, so CI needs no JAX.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import functions  # noqa: E402


def main() -> None:
    ops = functions.unary_table(
        {
            "matmul": jnp.matmul,
            "tanh": jnp.tanh,
            "sin": jnp.sin,
            "cos": jnp.cos,
            "sigmoid": jax.nn.sigmoid,
            "softplus": jax.nn.softplus,
            "exp": jnp.exp,
            "log1p": jnp.log1p,
            "sum": jnp.sum,
            "mean": jnp.mean,
        }
    )
    records = []
    for seed in range(functions.COUNT):
        fn, args, argnums = functions.make(seed, ops)
        result = jax.value_and_grad(fn, argnums=argnums, has_aux=True)(*args)
        records.append(
            {
                "seed": seed,
                "structure": functions.describe(result),
                "leaves": [np.asarray(v).tolist() for v in jax.tree_util.tree_leaves(result)],
            }
        )
    document = {"jax": jax.__version__, "functions": records}
    target = Path(__file__).with_name("jax_fixtures.json")
    target.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {len(records)} functions to {target}")


if __name__ == "__main__":
    main()
