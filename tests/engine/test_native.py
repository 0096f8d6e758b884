"""The choice between the pure-Python engine and its optional compiled build (p2puno/engine/
native.py). The engine tests themselves run against either: P2PUNO_ENGINE=native runs them on
the compiled modules (and fails if there are none), P2PUNO_ENGINE=pure on the pure ones."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import p2puno.engine as engine
from p2puno.engine import game, native


def test_the_engine_loaded_is_the_one_asked_for() -> None:
    mode = os.environ.get("P2PUNO_ENGINE", "auto")
    compiled = not game.__file__.endswith(".py")
    assert engine.NATIVE is compiled
    if mode == "native":
        assert compiled, "P2PUNO_ENGINE=native must test the compiled modules"
    elif mode == "pure":
        assert not compiled
    else:  # auto: the build when it matches these sources
        assert compiled is (native.problem() is None)


def _copy_sources(tmp_path: Path) -> Path:
    src = tmp_path / "engine"
    src.mkdir()
    for m in native.MODULES:
        shutil.copy(Path(native.HERE) / f"{m}.py", src / f"{m}.py")
    return src


def test_a_build_is_used_only_if_it_matches_the_sources(tmp_path: Path) -> None:
    src = _copy_sources(tmp_path)
    built = tmp_path / "_native"
    assert native.problem(str(src), str(built)) is not None  # no build at all
    built.mkdir()
    (built / "STAMP").write_text(native.stamp(str(src)) + "\n")
    assert "lacks" in (native.problem(str(src), str(built)) or "")  # stamp, no modules
    suffix = native._suffix()
    for m in (*native.MODULES, "native__mypyc"):
        (built / f"{m}{suffix}").write_bytes(b"")
    assert native.problem(str(src), str(built)) is None
    with open(src / "game.py", "a") as f:  # an edited engine: the build is stale
        f.write("\n# edited\n")
    assert "rebuild" in (native.problem(str(src), str(built)) or "")


def test_select_honours_p2puno_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    path = ["somewhere"]
    monkeypatch.setenv("P2PUNO_ENGINE", "pure")
    assert native.select(path) is False and path == ["somewhere"]
    monkeypatch.setenv("P2PUNO_ENGINE", "fast")
    with pytest.raises(ImportError):
        native.select(path)
    monkeypatch.setattr(native, "problem", lambda: "no compiled build")
    monkeypatch.setenv("P2PUNO_ENGINE", "native")
    with pytest.raises(ImportError, match="no compiled build"):
        native.select(path)
    monkeypatch.setenv("P2PUNO_ENGINE", "auto")
    assert native.select(path) is False and path == ["somewhere"]
    monkeypatch.setattr(native, "problem", lambda: None)
    assert native.select(path) is True and path == [native.NATIVE_DIR, "somewhere"]


TRACE = Path(__file__).with_name("engine_trace.py")


def test_both_builds_play_the_same_games() -> None:
    """200 seeded bot games (2, 3, 4 and 10 players, every house-rule combination, both
    scorings): every action, event and public digest is the same with either build."""
    why = native.problem()
    if why is not None:
        pytest.skip(f"no compiled build to compare with the pure engine: {why}")
    out = {}
    for mode in ("pure", "native"):
        done = subprocess.run(
            [sys.executable, str(TRACE), "200"],
            env={**os.environ, "P2PUNO_ENGINE": mode},
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        loaded, digest = done.stdout.split()
        assert loaded == mode
        out[mode] = digest
    assert out["pure"] == out["native"]
