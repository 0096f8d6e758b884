"""scripts/bench_session.py: a short run prints its rows, and the profile split books the
compiled engine, crypto, signing and encoding where they belong (not under "other")."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from types import ModuleType

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "bench_session.py")


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_session_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def test_layers_of_compiled_and_c_functions() -> None:
    layer_of = _bench().layer_of
    engine = frozenset({"Game", "Action"})
    cases = {
        "<method 'apply' of 'Game' objects>": "engine",
        "<built-in method p2puno.engine.actions.parse_action>": "engine",
        "<method 'verify' of 'cryptography.hazmat.bindings._rust.openssl.ed25519."
        "Ed25519PublicKey' objects>": "signing",
        "<built-in method ec.from_public_bytes>": "crypto",
        "<method 'exchange' of 'cryptography.hazmat.bindings._rust.openssl.x25519."
        "X25519PrivateKey' objects>": "crypto",
        "<built-in method _json.encode_basestring>": "encoding",
        "<built-in method builtins.len>": None,  # booked to its callers
        "<method 'apply' of 'Other' objects>": None,
    }
    for name, want in cases.items():
        assert layer_of(("~", 0, name), engine) == want, name
    assert layer_of(("/x/p2puno/engine/game.py", 1, "apply"), engine) == "engine"
    assert layer_of(("/x/p2puno/session/session.py", 1, "_learn"), engine) == "other"
    assert layer_of(("/usr/lib/python3.11/dataclasses.py", 1, "replace"), engine) is None
    # a checkout named p2puno: its .venv's packages are still theirs (helper-50)
    venv = "/home/u/p2puno/.venv/lib/python3.11/site-packages/cryptography/hazmat/x/ec.py"
    assert layer_of((venv, 180, "from_encoded_point"), engine) == "crypto"


def test_short_run_prints_its_rows() -> None:
    args = ["--players", "2", "--target", "30", "--repeat", "1", "--other", "15"]
    r = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    lines = out.splitlines()
    game = [ln for ln in lines if ln.split()[:2] == ["2", "current"] and "%" not in ln]
    assert game, out
    rounds, entries, steps, s_round = game[0].split()[2:6]
    assert int(rounds) >= 1 and int(entries) > 0 and int(steps) > 0 and float(s_round) > 0
    split = [ln for ln in lines if ln.split()[:2] == ["2", "current"] and "%" in ln]
    assert split, out
    shares = [float(c.rstrip("%")) for c in split[0].split()[3:]]
    assert len(shares) == 7 and abs(sum(shares) - 100) < 0.5, split[0]
    other = out[out.index("'other' of current") :].split("\n\n")[0]
    for wrong in ("p2puno/engine", "p2puno/crypto", "p2puno/wire", "Game' objects", "ryptograph"):
        assert wrong not in other, other
    assert any(ln.strip().startswith("2 players current") for ln in lines), out
    assert "Ed25519 verify" in out
