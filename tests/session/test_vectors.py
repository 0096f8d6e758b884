"""The whole-game conformance vector (protocol/vectors/game-2p.*) stays valid and reproducible."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from p2puno.session.replay import replay

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


def test_game_vector_replays_to_its_expected_state() -> None:
    expected = json.loads((VECTORS / "game-2p.json").read_text())
    result = replay(VECTORS / "game-2p.log")
    assert result.ok, result.error
    assert result.entries == expected["entries"]
    assert list(result.winners) == expected["winners"]
    assert result.scores == expected["scores"]
    assert result.digest.hex() == expected["digest"]


def test_game_vector_is_what_the_generator_makes_byte_for_byte() -> None:
    # Keys, shuffles, signatures, encoding and bots are all deterministic under their seeds.
    tool = VECTORS.parent / "tools" / "gen_game_vectors.py"
    done = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_flipped_byte_in_the_vector_is_rejected_at_its_line(tmp_path: Path) -> None:
    data = bytearray((VECTORS / "game-2p.log").read_bytes())
    starts = [0, *[i + 1 for i, b in enumerate(data) if b == 0x0A][:-1]]
    for line in (0, 1, len(starts) // 2, len(starts) - 1):
        bad = bytearray(data)
        bad[starts[line] + 25] ^= 0x04
        path = tmp_path / f"bad{line}.log"
        path.write_bytes(bytes(bad))
        result = replay(path)
        assert not result.ok and result.bad_entry == line, (line, result.error)
