"""Seed program 4: ``stop_gradient``, two experiments.

1. ``b = stop_gradient(w1 * 3) * w2``: no gradient reaches w1 (None); d b / d w2
   is ``w1 * 3 = 6.0``.
2. ``e = stop_gradient(a + b) + (a + b)``: the gradient flows through the
   second path, so ``[1.0, 1.0]``.

Run:  python examples/seed_4_stop_gradient.py
"""

import os
from pathlib import Path

import symgrad as sg

OUTPUT = Path(os.environ.get("SYMGRAD_EXAMPLES_OUTPUT", Path(__file__).resolve().parent / "output"))

# Experiment 1
w1 = sg.Variable(2.0)
w2 = sg.Variable(2.0)
a = sg.multiply(w1, 3.0)
a_stopped = sg.stop_gradient(a)
b = sg.multiply(a_stopped, w2)  # b = w1 * 3.0 * w2
gradients = sg.gradients(b, xs=[w1, w2])
print(gradients)  # [None, <symgrad.Tensor ...>]
first = sg.compile(gradients, name="stop_gradient_1", path=OUTPUT / "seed_4_stop_gradient_1.py")
print([None if v is None else float(v) for v in first()])  # [None, 6.0]

# Experiment 2
a = sg.Variable(1.0)
b = sg.Variable(1.0)
c = sg.add(a, b)
c_stopped = sg.stop_gradient(c)
d = sg.add(a, b)
e = sg.add(c_stopped, d)
gradients = sg.gradients(e, xs=[a, b])
second = sg.compile(gradients, name="stop_gradient_2", path=OUTPUT / "seed_4_stop_gradient_2.py")
print([float(v) for v in second()])  # [1.0, 1.0]: the gradient comes back through d
print(f"generated code: {first.path}, {second.path}")
