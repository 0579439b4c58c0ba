"""Seed program 3: gradients with respect to an intermediate tensor.

``b = 2*a; c = a + b``: d c / d a counts both paths (1 directly, 2 through b),
so ``gradients(c, [a, b])`` is ``[3.0, 1.0]``.

Run:  python examples/seed_3_intermediate_xs.py
"""

import os
from pathlib import Path

import symgrad as sg

OUTPUT = Path(os.environ.get("SYMGRAD_EXAMPLES_OUTPUT", Path(__file__).resolve().parent / "output"))

a = sg.constant(0.0)
b = 2 * a
c = a + b
g = sg.gradients(c, [a, b])

compiled = sg.compile(g, name="intermediate_xs", path=OUTPUT / "seed_3_intermediate_xs.py")
print([float(value) for value in compiled()])  # [3.0, 1.0]
print(f"generated code: {compiled.path}")
