"""The fast form's pools are handed from call to call (``_take_rows`` / ``_give_rows``).

A deep chain keeps its activations in one pool block. The block a call gives back is the one
the next call takes, so a steady run allocates none, whatever the C allocator does with freed
memory; calls at the same time (threads, or a call while another holds the block) each get a
block of their own; a block of another shape is dropped, not reused.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symgrad as sg

LAYERS = 20  # enough arrays alive at once for a pool (planner.Arena.MINIMUM_ARRAYS)


@pytest.fixture(scope="module")
def chain() -> Any:
    """The chain, compiled once for the module's tests."""
    return chain_module()


@pytest.fixture
def compiled(chain: Any) -> Any:
    """The chain with no block left over from an earlier test."""
    chain.function.__globals__["_SPARE_ROWS"].clear()
    return chain


def chain_module() -> Any:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        z, params = x, []
        for k in range(LAYERS):
            w = sg.Variable(0.9, dtype=sg.float64, name=f"w{k}")
            b = sg.Variable(0.1, dtype=sg.float64, name=f"b{k}")
            z = sg.tanh(z * w + b)
            params += [w, b]
        loss = sg.reduce_sum(z)
        return sg.compile([loss, *sg.gradients(loss, params)], inputs=[x, *params])


def reference(x: np.ndarray) -> list[float]:
    """The chain's loss and gradients by hand (every w 0.9, every b 0.1)."""
    zs = [x]
    for _ in range(LAYERS):
        zs.append(np.tanh(zs[-1] * 0.9 + 0.1))
    d_ws, d_bs, upstream = [], [], np.ones_like(x)
    for k in reversed(range(LAYERS)):
        d_pre = upstream * (1 - zs[k + 1] ** 2)
        d_ws.insert(0, float(d_pre @ zs[k]))
        d_bs.insert(0, float(d_pre.sum()))
        upstream = d_pre * 0.9
    gradients = [g for pair in zip(d_ws, d_bs, strict=True) for g in pair]
    return [float(zs[-1].sum()), *gradients]


def parameters() -> list[float]:
    return [0.9, 0.1] * LAYERS


def test_the_block_a_call_gives_back_is_the_next_calls(compiled: Any) -> None:
    spare = compiled.function.__globals__["_SPARE_ROWS"]
    x = np.random.default_rng(0).standard_normal(1000)
    compiled.function(x, *parameters())
    (block,) = spare["_float64_rows"]
    assert len(block) == LAYERS and block[0].shape == (1000,)
    for _ in range(3):
        np.testing.assert_allclose(compiled.function(x, *parameters()), reference(x), rtol=1e-12)
        assert spare["_float64_rows"] == [block] and spare["_float64_rows"][0] is block


def test_a_call_while_the_block_is_held_gets_its_own(compiled: Any) -> None:
    take, give = (compiled.function.__globals__[n] for n in ("_take_rows", "_give_rows"))
    x = np.random.default_rng(1).standard_normal(300)
    compiled.function(x, *parameters())
    # as a call inside a call would: hold the pool's block, fill it, run another call
    held = take("_float64_rows", LAYERS, (300,), np.float64)
    for row in held:
        row.fill(7.0)
    np.testing.assert_allclose(compiled.function(x, *parameters()), reference(x), rtol=1e-12)
    assert all((row == 7.0).all() for row in held)
    give("_float64_rows", held)
    assert len(compiled.function.__globals__["_SPARE_ROWS"]["_float64_rows"]) == 2


def test_a_new_batch_size_drops_the_old_block(compiled: Any) -> None:
    spare = compiled.function.__globals__["_SPARE_ROWS"]
    for size in (500, 700, 700, 3):
        x = np.random.default_rng(size).standard_normal(size)
        np.testing.assert_allclose(compiled.function(x, *parameters()), reference(x), rtol=1e-12)
        assert [rows[0].shape for rows in spare["_float64_rows"]] == [(size,)]


@pytest.mark.parametrize("shape", [(1000,), (3,), (1001,), (7, 3), (0,), ()])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8])
def test_every_array_of_a_block_starts_on_a_cache_line(
    compiled: Any, shape: tuple, dtype: type
) -> None:
    """SIMD loops over 64-byte aligned arrays run up to twice as fast as over NumPy's default
    16-byte alignment; the arrays must still be separate and contiguous."""
    take = compiled.function.__globals__["_take_rows"]
    rows = take("aligned_probe", 5, shape, dtype)
    assert len(rows) == 5
    for k, row in enumerate(rows):
        assert row.shape == shape and row.dtype == dtype and row.flags.c_contiguous
        assert row.ctypes.data % 64 == 0 or row.size == 0
        row[...] = k
    assert [int(np.sum(row)) for row in rows] == [k * int(np.prod(shape)) for k in range(5)]


CALLS = 5


def test_calls_in_threads_share_no_block(compiled: Any) -> None:
    feeds = [np.random.default_rng(seed).standard_normal(5_000) for seed in range(4)]
    expected = [reference(x) for x in feeds]
    results: list[list[Any]] = [[] for _ in feeds]

    def work(k: int) -> None:
        for _ in range(CALLS):  # NumPy lets go of the GIL in its loops: the calls interleave
            results[k].append(compiled.function(feeds[k], *parameters()))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(feeds))]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # threads take turns often (and no thread waits 5 ms for the GIL)
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    for got, want in zip(results, expected, strict=True):
        assert len(got) == CALLS
        for values in got:
            np.testing.assert_allclose(values, want, rtol=1e-12)
    assert 1 <= len(compiled.function.__globals__["_SPARE_ROWS"]["_float64_rows"]) <= len(feeds)


PROBE = """
import importlib.util, resource, sys
import numpy as np
spec = importlib.util.spec_from_file_location("chain", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
function = next(v for k, v in vars(module).items() if callable(v) and not k.startswith("_"))
x = np.random.default_rng(0).standard_normal(100_000)
arguments = [x] + [0.9, 0.1] * {layers}
for _ in range(3):
    function(*arguments)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    function(*arguments)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc tunables")
def test_steady_calls_fault_no_pages_whatever_the_allocator_keeps(
    compiled: Any, tmp_path: Path
) -> None:
    """glibc set never to keep a freed block of more than 128 KiB mapped (its thresholds fixed,
    so they cannot grow): the 16 MB block still is not faulted in again on each call."""
    path = tmp_path / "chain.py"
    path.write_text(compiled.source)
    environment = dict(
        os.environ,
        MALLOC_MMAP_THRESHOLD_="131072",
        MALLOC_TRIM_THRESHOLD_="131072",
        OPENBLAS_NUM_THREADS="1",  # a BLAS thread pool on a loaded machine takes seconds
    )
    completed = subprocess.run(
        [sys.executable, "-c", PROBE.format(layers=LAYERS), str(path)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=True,
    )
    # A block faulted in afresh is 3,900 pages of 4 KiB; the call's few small arrays fault none.
    assert float(completed.stdout.strip()) < 50, completed.stdout
