"""Print a digest of the generated source of the examples' graphs and a deep chain.

Used by the determinism test, in subprocesses with different PYTHONHASHSEEDs.
Usage: python tests/scripts/generate_sources.py OUTDIR
"""

import hashlib
import runpy
import sys
from pathlib import Path

import symgrad as sg

ROOT = Path(__file__).resolve().parents[2]
out = Path(sys.argv[1])


def chain(layers: int) -> str:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[None], name="x")
        z, params = x, []
        for k in range(layers):
            w = sg.Variable(1.0, dtype=sg.float64, name=f"w{k}")
            b = sg.Variable(0.0, dtype=sg.float64, name=f"b{k}")
            params += [w, b]
            z = sg.tanh(z * w + b)
        loss = sg.reduce_sum(z)
        return sg.compile(
            [loss] + sg.gradients(loss, params), name="chain", path=out / "chain.py"
        ).source


# Examples import their neighbours (examples/dask_digits_mlp.py reads digits_models.py).
sys.path.insert(0, str(ROOT / "examples"))
for example in sorted((ROOT / "examples").glob("*.py")):
    sg.reset_default_graph()
    namespace = runpy.run_path(str(example), run_name="__example__")
for path in sorted((ROOT / "examples" / "output").glob("*.py")):
    print(path.name, hashlib.sha256(path.read_bytes()).hexdigest())
print("chain", hashlib.sha256(chain(200).encode()).hexdigest())
