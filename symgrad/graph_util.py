"""TF1's ``tf.graph_util``: freezing a trained graph into a ``GraphDef`` of constants that
TensorFlow (or :func:`symgrad.import_graph_def`, or ``symgrad export``) loads.

>>> import numpy as np, symgrad as sg
>>> with sg.Graph().as_default() as graph:
...     x = sg.placeholder(sg.float32, [None, 2], name="x")
...     w = sg.Variable(np.float32([[1.0], [2.0]]), name="w")
...     y = sg.matmul(x, w, name="y")
...     with sg.Session() as sess:
...         _ = sess.run(w.initializer)
...         frozen = sg.graph_util.convert_variables_to_constants(
...             sess, graph.as_graph_def(), ["y"]
...         )
>>> sorted((node.name, node.op) for node in frozen.node)
[('w', 'Const'), ('x', 'Placeholder'), ('y', 'MatMul')]
"""

from __future__ import annotations

from typing import Any

from .graph_export import convert_variables_to_constants, extract_sub_graph, remove_training_nodes
from .tf1_names import missing_attribute

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "remove_training_nodes"]


def __getattr__(name: str) -> Any:
    raise missing_attribute(__name__, "graph_util", name)
