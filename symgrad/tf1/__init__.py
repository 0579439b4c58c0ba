"""TF1's library code built from ops: scopes, initializers, losses, metrics, moving averages,
candidate sampling.

These modules define no op of their own: they build graphs of the ops in :mod:`symgrad.ops`
(which never imports them), as TF1's Python library does. Each keeps the name of TF1's module
it follows (``variable_scope.py``, ``init_ops.py``, ``loss_ops.py``, ``metrics_ops.py``,
``moving_averages.py``, ``candidate_sampling.py``); the TF1 surface (``symgrad/__init__.py``,
``losses.py``, ``metrics.py``, ``initializers.py``, ``layers.py``, ``train.py``, ...)
re-exports what they build.
"""
