"""The seed's linear regression, compiled: loss and exact gradients as plain NumPy.

The model is the tutorial's ``y = x * weight + biases`` with the loss
``reduce_sum((y_input - y)**2) / (2 * 32)``. symgrad turns the graph and its
gradients into a NumPy module (written to ``examples/output/``), and the loop
below trains with it by hand, one sample per step as the tutorial does.

Run:  python examples/linear_regression.py
"""

import os
from pathlib import Path

import numpy as np

import symgrad as sg

OUTPUT = Path(os.environ.get("SYMGRAD_EXAMPLES_OUTPUT", Path(__file__).resolve().parent / "output"))

rng = np.random.default_rng(0)
x_pure = rng.integers(-10, 100, 32)
x_train = x_pure + rng.standard_normal(32) / 32
y_train = 3 * x_pure + 2 + rng.standard_normal(32) / 32

x_input = sg.placeholder(sg.float32, name="x_input")
y_input = sg.placeholder(sg.float32, name="y_input")
w = sg.Variable(2.0, name="weight")
b = sg.Variable(1.0, name="biases")
y = sg.add(sg.multiply(x_input, w), b)
loss = sg.reduce_sum(sg.pow(y_input - y, 2)) / (2 * 32)
grad_w, grad_b = sg.gradients(loss, [w, b])

step = sg.compile(
    {"loss": loss, "grad_w": grad_w, "grad_b": grad_b},
    name="linear_regression",
    path=OUTPUT / "linear_regression.py",
)
print(f"generated code: {step.path}")
print(f"inputs: {step.input_names}, outputs: {step.output_names}")

weight, biases = np.float32(2.0), np.float32(1.0)
for i in range(20):
    result = step(x_input=x_train[i], y_input=y_train[i], weight=weight, biases=biases)
    print(f"epoch: {i} \t loss: {result['loss']:.6f} \t gradients: [{result['grad_w']:.6f}]")
    weight = weight - np.float32(0.01) * result["grad_w"]
    biases = biases - np.float32(0.01) * result["grad_b"]
print(f"weight = {weight:.4f}, biases = {biases:.4f}")
