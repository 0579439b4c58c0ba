"""Turning results into a console table, Markdown, JSON and a chart; the machine they came from."""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import peers
from .harness import Row, WorkloadResult

# --- numbers as text ------------------------------------------------------------------------------


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_ratio(ratio: float | None) -> str:
    return "—" if ratio is None else f"{ratio:.3g}×"


def _per_call(row: Row) -> str:
    if row.status == "ok":
        return format_seconds(row.seconds)
    if row.status == "did not finish":
        return row.note.split(" (")[0]
    return row.status.upper() if row.status == "gradients differ" else row.status


def _gradients(row: Row) -> str:
    if row.status == "gradients differ":
        return f"FAILED: {row.gradient_check}"
    return row.gradient_check


def table_cells(result: WorkloadResult) -> list[list[str]]:
    """Header and one line per shown row (skipped systems go in a note instead)."""
    cells = [
        [
            "system",
            "per call",
            f"ratio to {result.reference_name}",
            "CPU per call (ratio)",
            "page faults per call",
            "build",
            "gradients",
        ]
    ]
    for row in result.rows:
        if row.status == "skipped":
            continue
        faults = (row.timing or {}).get("page_faults")
        cells.append(
            [
                row.name,
                _per_call(row),
                format_ratio(row.ratio),
                _cpu_per_call(row, result),
                "—" if faults is None else f"{faults:.0f}",
                format_seconds(row.build_seconds),
                _gradients(row),
            ]
        )
    return cells


def _cpu_seconds(row: Row | None) -> float | None:
    return (row.timing or {}).get("cpu_median") if row is not None and row.status == "ok" else None


def _cpu_per_call(row: Row, result: WorkloadResult) -> str:
    """CPU time per call, and its ratio to the reference row's CPU time."""
    mine = _cpu_seconds(row)
    if mine is None:
        return "—"
    reference = next((r for r in result.rows if r.reference), None)
    theirs = _cpu_seconds(reference)
    ratio = f" ({format_ratio(mine / theirs)})" if theirs else ""
    return format_seconds(mine) + ratio


def table_notes(result: WorkloadResult) -> list[str]:
    notes = list(result.notes)
    skipped = [row for row in result.rows if row.status == "skipped"]
    if skipped:
        notes.append("Skipped, not importable: " + ", ".join(row.name for row in skipped) + ".")
    for row in result.rows:
        unusual = row.status in ("error", "did not finish")
        if unusual or (row.status == "ok" and row.note and not row.note.startswith("build")):
            notes.append(f"{row.name}: {row.note}")
    systems_by_build_note: dict[str, list[str]] = {}
    for row in result.rows:
        if row.status == "ok" and row.note.startswith("build"):
            systems_by_build_note.setdefault(row.note, []).append(row.name)
    notes += [
        f"Build time of {', '.join(names)}: {note.removeprefix('build = ')}."
        for note, names in systems_by_build_note.items()
    ]
    return notes


# --- console --------------------------------------------------------------------------------------


def console_table(result: WorkloadResult) -> str:
    cells = table_cells(result)
    widths = [max(len(line[i]) for line in cells) for i in range(len(cells[0]))]
    lines = [result.title, result.description]
    for index, line in enumerate(cells):
        lines.append(
            "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=False)).rstrip()
        )
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    lines += [
        f"  note: {note}" for note in table_notes(result) if not note.startswith("Build time")
    ]
    return "\n".join(lines)


# --- the acceptance summary -----------------------------------------------------------------------


def acceptance(results: dict[str, WorkloadResult]) -> list[dict[str, Any]]:
    """The ratios the project is judged by, each with its value or why there is none."""
    items = [
        _ratio(results, "W1", "symgrad", "numpy", "W1 generated module / hand-written NumPy"),
        _ratio(
            results,
            "W1",
            "tf1-session",
            "symgrad-session",
            "W1 TF1 Session.run / symgrad Session.run",
        ),
        _ratio(results, "W2", "symgrad", "numpy", "W2 symgrad / naive NumPy"),
        _ratio(results, "W2", "symgrad", "jax", "W2 symgrad / JAX"),
        _ratio(results, "W3", "symgrad", "numpy", "W3 symgrad / hand-written backprop"),
        _ratio(
            results,
            "W3",
            "symgrad",
            "symgrad-forward",
            "W3 cheap gradient: symgrad value+grad / forward",
        ),
        _memory_ratio(results),
        _ratio(results, "W4", "symgrad", "numpy", "W4 symgrad / naive NumPy"),
        _ratio(results, "W4", "symgrad", "jax", "W4 symgrad / JAX"),
        # Issue 18: the portable form under jax.jit against JAX's own jit(value_and_grad).
        _ratio(results, "W4", "symgrad-jax-jit", "jax", "W4 jax.jit(portable symgrad) / JAX"),
        _ratio(
            results,
            "W4",
            "symgrad-jax-jit-packed",
            "jax",
            "W4 jax.jit(portable symgrad), scalars packed / JAX",
        ),
        _ratio(
            results,
            "W4",
            "symgrad",
            "symgrad-forward",
            "W4 cheap gradient: symgrad value+grad / forward",
        ),
        *_compile_items(results),
        # The shapes users write (issue 17): [None] and shape-less placeholders, Session feeds.
        _ratio(results, "W2", "symgrad-none", "symgrad", "W2 [None] / static shapes"),
        _ratio(results, "W2", "symgrad-none", "numpy", "W2 [None] / naive NumPy"),
        _ratio(results, "W2", "symgrad-shapeless", "numpy", "W2 shape-less / naive NumPy"),
        _ratio(
            results,
            "W2",
            "symgrad-session",
            "numpy-step",
            "W2 Session.run step, shape-less feeds / naive NumPy step",
        ),
        _ratio(results, "W3", "symgrad", "symgrad-static", "W3 [None, ...] / static batch"),
        _ratio(results, "W6", "symgrad", "numpy", "W6 CNN symgrad / hand-written NumPy"),
        _ratio(results, "W6", "tf1", "symgrad", "W6 CNN TF1 Session.run / symgrad"),
        _ratio(results, "W6", "symgrad", "jax", "W6 CNN symgrad / JAX"),
        # Issue 33: training steps through Session.run against TF1's (targets 1.5x, 1.2x, 1.2x).
        _ratio(results, "W6-train", "symgrad", "tf1", "W6-train CNN Adam step symgrad / TF1"),
        _ratio(results, "W7", "symgrad", "tf1", "W7 LSTM Adam step symgrad / TF1"),
        _ratio(results, "W8", "symgrad", "tf1", "W8 GRU Adam step symgrad / TF1"),
    ]
    for suffix in ("", "-warmed"):
        items.append(
            _ratio(
                results,
                f"W4{suffix}",
                "symgrad",
                "numpy-optimized",
                f"W4{suffix} symgrad / hand-optimized NumPy",
            )
        )
    for workload in ("W1", "W2", "W3", "W4", "W6"):
        if results.get(workload) and results[workload].row("symgrad-readable"):
            items.append(
                _ratio(
                    results,
                    workload,
                    "symgrad-readable",
                    "numpy",
                    f"{workload} symgrad (readable) / {results[workload].reference_name}",
                )
            )
    return items


def _item(name: str, value: float | None, text: str, why: str = "") -> dict[str, Any]:
    return {"name": name, "value": value, "text": text if value is not None else f"n/a ({why})"}


def _ratio(
    results: dict[str, WorkloadResult], workload: str, top: str, bottom: str, name: str
) -> dict[str, Any]:
    result = results.get(workload)
    if result is None:
        return _item(name, None, "", f"{workload} not run")
    rows = {row.key: row for row in result.rows}
    for key in (top, bottom):
        row = rows.get(key)
        if row is None or row.status != "ok":
            return _item(name, None, "", f"{key}: {row.status if row else 'not run'}")
    value = rows[top].seconds / rows[bottom].seconds  # type: ignore[operator]
    cpu_top, cpu_bottom = _cpu_seconds(rows[top]), _cpu_seconds(rows[bottom])
    cpu = f" (CPU time {cpu_top / cpu_bottom:.3g}×)" if cpu_top and cpu_bottom else ""
    return _item(name, value, f"{value:.3g}×{cpu}")


def _memory_ratio(results: dict[str, WorkloadResult]) -> dict[str, Any]:
    name = "W3 peak memory of one call: symgrad / hand-written"
    memory = results["W3"].extras.get("memory", {}) if "W3" in results else {}
    value = memory.get("ratio_symgrad_to_handwritten")
    systems = memory.get("systems", {})
    detail = ", ".join(
        f"{s} +{m['increase_kb'] / 1024:.1f} MiB" for s, m in systems.items() if "increase_kb" in m
    )
    why = "W3 not run" if not memory else "no measurable increase" if systems else "probe failed"
    return _item(name, value, f"{value:.3g}× ({detail})" if value is not None else "", why)


def _compile_items(results: dict[str, WorkloadResult]) -> list[dict[str, Any]]:
    compile_info = results["W4"].extras.get("compile") if "W4" in results else None
    if not compile_info:
        return [_item("W4 compile time", None, "", "W4 not run")]
    small, large = compile_info["small"], compile_info["large"]
    depths = compile_info["depths"]
    items = [
        _item(
            f"W4 compile, {layers} layers (graph + gradients + compile)",
            depths[str(layers)]["total_s"],
            f"{depths[str(layers)]['total_s']:.2f} s, {depths[str(layers)]['lines']} lines",
        )
        for layers in (small, large)
    ]
    ratio = compile_info["ratio_large_to_small"]
    items.append(_item(f"W4 compile time {large} / {small} layers", ratio, f"{ratio:.3g}×"))
    return items


# --- Markdown -------------------------------------------------------------------------------------


def markdown(
    results: dict[str, WorkloadResult],
    summary: list[dict[str, Any]],
    machine: dict[str, Any],
    settings: dict[str, Any],
) -> str:
    lines = [
        "# symgrad benchmarks",
        "",
        f"`python {' '.join(settings['command'])}` on {machine['cpu']} "
        f"({machine['cpus_available']} of {machine['cores']} cores usable), {machine['date']}. "
        "Per-call times are medians of "
        f"{settings['repeats']} samples after warm-up, one thread everywhere.",
        "",
    ]
    if settings["smoke"]:
        lines += ["**Smoke run: tiny sizes, few repeats; the numbers mean nothing.**", ""]
    lines += ["## Acceptance ratios", "", "| what | result |", "|---|---:|"]
    lines += [f"| {item['name']} | {item['text']} |" for item in summary]
    for result in results.values():
        lines += ["", f"## {result.title}", "", result.description, ""]
        cells = table_cells(result)
        lines.append("| " + " | ".join(cells[0]) + " |")
        lines.append("|---|---:|---:|---:|---:|---|")
        lines += [
            "| " + " | ".join(cell.replace("|", "\\|") for cell in line) + " |"
            for line in cells[1:]
        ]
        notes = table_notes(result)
        if notes:
            lines += [""] + [f"- {note}" for note in notes]
    lines += ["", "## Machine", ""] + [
        f"- {key}: {_markdown_value(value)}" for key, value in machine.items()
    ]
    return "\n".join(lines) + "\n"


def _markdown_value(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    if isinstance(value, list):
        return "; ".join(_markdown_value(v) for v in value)
    return str(value)


# --- JSON -----------------------------------------------------------------------------------------


def json_report(
    results: dict[str, WorkloadResult],
    summary: list[dict[str, Any]],
    machine: dict[str, Any],
    settings: dict[str, Any],
) -> str:
    document = {
        "settings": settings,
        "machine": machine,
        "acceptance": summary,
        "workloads": {key: result.to_json() for key, result in results.items()},
    }
    return json.dumps(document, indent=2, default=str) + "\n"


# --- chart ----------------------------------------------------------------------------------------


def chart(results: dict[str, WorkloadResult], path: Path) -> str | None:
    """Ratio-to-reference bars per workload, log scale; None, or why no chart was drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker
    except ImportError:
        return "matplotlib is not importable: no chart (pip install matplotlib)"
    shown = {
        key: [r for r in result.rows if r.status == "ok" and r.ratio]
        for key, result in results.items()
    }
    shown = {key: rows for key, rows in shown.items() if rows}
    if not shown:
        return "no timed rows: no chart"
    heights = [max(1.2, 0.32 * len(rows) + 0.8) for rows in shown.values()]
    figure, axes = plt.subplots(
        len(shown),
        1,
        figsize=(9, sum(heights)),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    for axis, (key, rows) in zip(axes[:, 0], shown.items(), strict=False):
        _ratio_bars(axis, rows, ticker)
        axis.set_title(
            f"{results[key].title}\n(ratio to {results[key].reference_name}: "
            "left of 1× is faster, right is slower)",
            fontsize=9,
        )
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return None


NICE_TICKS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0]


def _ratio_bars(axis: Any, rows: list[Row], ticker: Any) -> None:
    """Bars from 1× to each ratio on a log axis symmetric about 1×, so lengths compare honestly."""
    ratios = [row.ratio or 1.0 for row in rows]
    colors = [
        "#4c72b0" if row.system == "symgrad" else "#999999" if row.system == "numpy" else "#dd8452"
        for row in rows
    ]
    axis.barh(range(len(rows)), [ratio - 1.0 for ratio in ratios], left=1.0, color=colors)
    axis.set_yticks(range(len(rows)), [row.name for row in rows], fontsize=8)
    axis.invert_yaxis()
    axis.set_xscale("log")
    span = max(max(abs(math.log10(ratio)) for ratio in ratios) * 1.3, math.log10(2.5))
    axis.set_xlim(10**-span, 10**span)
    axis.set_xticks([tick for tick in NICE_TICKS if 10**-span <= tick <= 10**span])
    axis.xaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}×"))
    axis.xaxis.set_minor_formatter(ticker.NullFormatter())
    axis.axvline(1.0, color="black", linewidth=0.8)
    for index, (row, ratio) in enumerate(zip(rows, ratios, strict=False)):
        label = "reference" if row.reference else f"{ratio:.2g}×"
        axis.annotate(
            label,
            (ratio, index),
            xytext=(3 if ratio >= 1 else -3, 0),
            textcoords="offset points",
            ha="left" if ratio >= 1 else "right",
            va="center",
            fontsize=7,
        )


# --- the machine ----------------------------------------------------------------------------------


def simd_level() -> str:
    """The widest x86 vector extension of this CPU, as NumPy's dispatch sees it.

    NumPy's float64 ``tanh``/``exp`` are vectorized only with AVX-512 (AVX512F/AVX512_SKX),
    so W4 and every ``tanh`` or ``exp`` heavy row depend on it.
    """
    import numpy as np

    features = getattr(np._core._multiarray_umath, "__cpu_features__", {})
    if features.get("AVX512_SKX") or features.get("AVX512F"):
        return "AVX-512"
    if features.get("AVX2"):
        return "AVX2"
    return "no AVX2" if features else "unknown"


def simd_line() -> str:
    level = simd_level()
    vectorized = "vectorized" if level == "AVX-512" else "not vectorized (scalar loops)"
    return f"SIMD: {level} on {_cpu_model()}; NumPy's float64 tanh/exp are {vectorized} here."


def machine_info() -> dict[str, Any]:
    """What the numbers depend on; taken after the run, so every loaded BLAS and OpenMP shows."""
    import numpy as np

    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "simd": simd_level(),
        "cores": os.cpu_count(),
        "cpus_available": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()]
        if hasattr(os, "getloadavg")
        else None,
        "memory": _meminfo_total(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "numpy_blas": _numpy_blas(np),
        "threadpools": _threadpools(),
        "versions": peers.installed_versions(),
        "thread_environment": {
            name: os.environ.get(name)
            for name in (
                "OMP_NUM_THREADS",
                "OPENBLAS_NUM_THREADS",
                "MKL_NUM_THREADS",
                "XLA_FLAGS",
                "OPENBLAS_CORETYPE",
            )
            if os.environ.get(name) is not None
        },
        "symgrad_commit": _git_commit(),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _meminfo_total() -> str | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return f"{int(line.split()[1]) / 1024**2:.1f} GiB"
    except OSError:
        pass
    return None


def _numpy_blas(np: Any) -> Any:
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return {
            key: blas.get(key)
            for key in ("name", "version", "openblas configuration")
            if blas.get(key)
        }
    except Exception:  # older NumPy: no dict form
        return "unknown"


def _threadpools() -> Any:
    try:
        import threadpoolctl
    except ImportError:
        return "threadpoolctl not installed"
    return [
        {key: pool.get(key) for key in ("internal_api", "version", "num_threads", "architecture")}
        for pool in threadpoolctl.threadpool_info()
    ]


def _git_commit() -> str | None:
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{commit}{' (with uncommitted changes)' if dirty else ''}" if commit else None


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def summary_lines(summary: Sequence[dict[str, Any]]) -> list[str]:
    width = max(len(item["name"]) for item in summary)
    return [f"{item['name'].ljust(width)}  {item['text']}" for item in summary]
