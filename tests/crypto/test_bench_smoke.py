"""scripts/bench_mental.py keeps running (smallest table, one run)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_mental_runs() -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench_mental.py"),
            "--players",
            "2",
            "--reps",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "x floor" in out
    row = next(line for line in out.splitlines() if line.split()[:1] == ["2"])
    assert len(row.split()) == 7
