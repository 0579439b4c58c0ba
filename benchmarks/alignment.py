"""What aligning arrays to 64 bytes buys: NumPy's loops at each alignment, and W4's fast form
with its pool arrays aligned (as generated) and as NumPy allocates them.

NumPy's allocator aligns arrays to 16 bytes; a pool block of the fast form (``_take_rows``)
starts every array on a 64-byte boundary, a cache line and an AVX-512 register. Part 1
times float64 ufuncs and reductions on arrays starting 0, 16, 32 and 48 bytes past a
64-byte boundary, as ratios to the aligned time. Part 2 runs W4's fast module twice in one
process, once as generated and once with ``_take_rows`` cutting its block as NumPy does
(``list(np.empty((count, *shape)))``, the generated code before), in interleaved rounds.

Run:  python benchmarks/alignment.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT)]

from workloads.chain import build_chain_graph, make_problem  # noqa: E402
from workloads.report import simd_line  # noqa: E402

import symgrad as sg  # noqa: E402

OFFSETS = (0, 16, 32, 48)  # bytes past a 64-byte boundary


def _at_offset(values: np.ndarray, offset: int) -> np.ndarray:
    """A copy of ``values`` whose data starts ``offset`` bytes past a 64-byte boundary."""
    raw = np.empty(values.nbytes + 128, dtype=np.uint8)
    start = -raw.ctypes.data % 64 + offset
    copy = raw[start : start + values.nbytes].view(values.dtype)
    copy[...] = values
    return copy


def _operations(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> dict[str, Callable[[], Any]]:
    return {
        "tanh": lambda: np.tanh(a, out=out),
        "multiply": lambda: np.multiply(a, b, out=out),
        "subtract": lambda: np.subtract(1.0, a, out=out),
        "dot": lambda: a @ b,
        "sum": lambda: a.sum(),
    }


def ufuncs(size: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    a_values, b_values = rng.uniform(-2, 2, size), rng.uniform(-2, 2, size)
    arrays = {
        offset: (
            _at_offset(a_values, offset),
            _at_offset(b_values, offset),
            _at_offset(a_values, offset),
        )
        for offset in OFFSETS
    }
    names = list(_operations(*arrays[0]))
    number = max(10, 2_000_000 // size)
    times: dict[tuple[str, int], list[float]] = {}
    for _ in range(repeats):  # interleaved: a burst of load lands on every offset alike
        for offset in OFFSETS:
            for name, run in _operations(*arrays[offset]).items():
                best = min(timeit.repeat(run, number=number, repeat=3)) / number
                times.setdefault((name, offset), []).append(best)
    print(f"\n{size:,} float64 values: median µs per call (ratio to 64-byte aligned)")
    print(f"{'':10s}" + "".join(f"{f'+{offset} B':>18s}" for offset in OFFSETS))
    for name in names:
        aligned = statistics.median(times[(name, 0)])
        cells = [
            f"{statistics.median(times[(name, o)]) * 1e6:8.2f} ({statistics.median(times[(name, o)]) / aligned:.2f}×)"
            for o in OFFSETS
        ]
        print(f"{name:10s}" + "".join(f"{c:>18s}" for c in cells))


def _numpy_blocks(spare_rows: dict[str, list]) -> Callable[..., list[np.ndarray]]:
    """The module's ``_take_rows`` as generated before: a block given back is taken again, a
    new one is cut from ``np.empty`` (16-byte aligned) with no padding between its rows."""

    def take_rows(pool: str, count: int, shape: tuple, dtype: Any) -> list[np.ndarray]:
        spare = spare_rows.setdefault(pool, [])
        while spare:
            rows = spare.pop()
            if len(rows) == count and rows[0].shape == shape and rows[0].dtype == dtype:
                return rows
        return list(np.empty((count, *shape), dtype=dtype))

    return take_rows


def chain(repeats: int, layers: int = 100, size: int = 10_000) -> None:
    x, ws, bs = make_problem(layers, size)
    with tempfile.TemporaryDirectory() as directory:
        modules = []
        for variant in ("aligned", "numpy"):
            with sg.Graph().as_default():
                placeholder, params, loss = build_chain_graph(sg, ws, bs)
                compiled = sg.compile(
                    [loss, *sg.gradients(loss, params)],
                    [placeholder, *params],
                    name=f"chain_{variant}",
                    path=Path(directory) / f"chain_{variant}.py",
                )
            if variant == "numpy":
                namespace = compiled.function.__globals__
                namespace["_take_rows"] = _numpy_blocks(namespace["_SPARE_ROWS"])
            modules.append(compiled.function)
        arguments = [x, *ws, *bs]
        expected = modules[0](*arguments)
        np.testing.assert_allclose(modules[1](*arguments), expected, rtol=1e-12)
        samples: list[list[float]] = [[], []]
        for _ in range(repeats):
            for function, sample in zip(modules, samples, strict=True):
                start = time.perf_counter()
                for _ in range(10):
                    function(*arguments)
                sample.append((time.perf_counter() - start) / 10)
    aligned, numpy_blocks = (statistics.median(s) for s in samples)
    print(f"\nW4 fast form, {layers} layers over {size:,} values, medians of {repeats} rounds:")
    print(f"  pool arrays aligned to 64 bytes (as generated): {aligned * 1e3:.3f} ms")
    print(f"  pool arrays as NumPy allocates them:            {numpy_blocks * 1e3:.3f} ms")
    print(f"  ratio: {aligned / numpy_blocks:.3f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="interleaved rounds")
    args = parser.parse_args()
    print(simd_line())
    for size in (10_000, 100_000):
        ufuncs(size, max(3, args.repeats // 3))
    chain(args.repeats)


if __name__ == "__main__":
    main()
