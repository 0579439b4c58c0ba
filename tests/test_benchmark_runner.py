"""benchmarks/run.py works end to end: its smoke mode, with whatever peers are installed (none in CI)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ["W1", "W2", "W3", "W4", "W5-W1", "W5-W4", "W6"]


def test_smoke_run_checks_and_times_every_workload(tmp_path: Path) -> None:
    paths = {kind: tmp_path / f"latest.{kind}" for kind in ("json", "md", "png")}
    completed = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--smoke",
            # CI installs JAX and PyTorch for the portable form's tests (tests/test_scaling.py);
            # their benchmark rows (a process and a JIT compile each) stay out of CI's budget.
            "--systems",
            "numpy,symgrad,tf1,tf2,autograd,sympy",
            "--json",
            str(paths["json"]),
            "--markdown",
            str(paths["md"]),
            "--chart",
            str(paths["png"]),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # the smoke run starts a process per system (about 40 of them)
    )
    assert completed.returncode == 0, completed.stderr[-4000:]

    report = json.loads(paths["json"].read_text())
    assert list(report["workloads"]) == WORKLOADS
    for name, workload in report["workloads"].items():
        rows = workload["rows"]
        reference = [r for r in rows if r["reference"]]
        assert [r["system"] for r in reference] == ["numpy"], name
        assert reference[0]["status"] == "ok" and reference[0]["seconds"] > 0, name
        symgrad = [r for r in rows if r["key"] == "symgrad"]
        assert symgrad and symgrad[0]["status"] == "ok", (name, symgrad)
        assert symgrad[0]["gradient_check"] == "ok", name
        assert symgrad[0]["ratio"] > 0 and symgrad[0]["build_seconds"] > 0, name
        for row in rows:  # no system of any workload computed something else
            assert row["status"] != "gradients differ", (name, row)
    assert "cpu" in report["machine"] and "numpy" in report["machine"]["versions"]
    assert report["machine"]["simd"] in ("AVX-512", "AVX2", "no AVX2", "unknown")
    assert "SIMD: " in completed.stdout
    w2 = {row["key"]: row for row in report["workloads"]["W2"]["rows"]}
    for key in ("symgrad-none", "symgrad-shapeless", "symgrad-session", "numpy-step"):
        assert w2[key]["status"] == "ok" and w2[key]["gradient_check"] == "ok", w2[key]
    summary = {item["name"]: item for item in report["acceptance"]}
    assert summary["W2 symgrad / naive NumPy"]["value"] > 0
    assert summary["W4 compile time 20 / 5 layers"]["value"] > 0

    markdown = paths["md"].read_text()
    assert "## Acceptance ratios" in markdown
    for workload in report["workloads"].values():
        assert f"## {workload['title']}" in markdown
    assert markdown.count("| system | per call |") == len(WORKLOADS)
    # The chart needs matplotlib (the bench extra); without it the run says so instead.
    assert paths["png"].exists() or "matplotlib is not importable" in completed.stdout


def test_quick_runs_do_not_overwrite_the_full_results() -> None:
    """Without --json/--markdown/--chart, only a full run writes results/latest.*."""
    probe = (
        "import sys; sys.path.insert(0, 'benchmarks'); import run\n"
        "for argv in ([], ['--smoke'], ['--only', 'W2,W4'], ['--only', 'W4', '--json', 'x.json']):\n"
        "    a = run.parse_arguments(argv)\n"
        "    print(' '.join(p.name for p in (a.json, a.markdown, a.chart)))\n"
    )
    printed = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert printed == [
        "latest.json latest.md latest.png",
        "smoke.json smoke.md smoke.png",
        "latest-W2-W4.json latest-W2-W4.md latest-W2-W4.png",
        "x.json latest-W4.md latest-W4.png",
    ]


def test_fusion_smoke_run_checks_every_system_against_the_hand_written_backprop() -> None:
    """benchmarks/fusion.py (the measured fusion estimate): numba and numexpr rows appear only
    where they are installed; the smoke run leaves results/fusion.md alone."""
    results = ROOT / "benchmarks" / "results" / "fusion.md"
    before = results.read_text()
    completed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fusion.py"), "--smoke"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert "| symgrad fast form |" in completed.stdout
    assert "| tanh of 100 values: NumPy |" in completed.stdout
    assert results.read_text() == before


def test_alignment_run_compares_the_chain_module_with_and_without_aligned_pools() -> None:
    """benchmarks/alignment.py checks that both W4 modules give the same values before timing."""
    completed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "alignment.py"), "--repeats", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert "pool arrays as NumPy allocates them" in completed.stdout
    assert "multiply" in completed.stdout and "ratio:" in completed.stdout
