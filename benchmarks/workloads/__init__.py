"""The workloads of benchmarks/run.py and what they share (see run.py's docstring for how to run).

W1, W2: linear.py; W3: mlp.py; W4: chain.py; W5: sympy_baseline.py. harness.py times and checks,
peers.py imports and drives the other autodiff systems, graphs.py runs one TF1-style graph under
symgrad and TensorFlow 1, report.py writes the results.
"""
