"""The Dask client the cluster examples run on (not an example itself).

Both ``dask_linear_regression.py`` and ``dask_digits_mlp.py`` connect to a running
scheduler when given ``--scheduler ADDRESS`` and otherwise start a local cluster of
single-threaded worker processes for the run. Python puts the running script's folder on
``sys.path``, so they import this module as ``_cluster`` from any working directory.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from dask.distributed import Client, LocalCluster


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler``, else of a ``LocalCluster`` of ``workers``
    processes that lives as long as the ``with`` block."""
    if scheduler:
        with Client(scheduler) as client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client
