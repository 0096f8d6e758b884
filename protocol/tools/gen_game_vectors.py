"""Generate (or --check) the whole-game conformance vector: protocol/vectors/game-2p.log.

A complete 2-player game, every house rule on, played by in-process bot sessions from
test-only seeded keys and a test-only seeded RNG (never use these keys or this RNG for a real
game). Another implementation replaying this file must accept every entry and reach the final
state in game-2p.json (winners, scores, engine digest). Regenerating must give the same bytes:
the whole stack (keys, shuffles, signatures, encoding, bots) is deterministic under its seeds.

    python protocol/tools/gen_game_vectors.py          # write the files
    python protocol/tools/gen_game_vectors.py --check  # exit 1 if they would change
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from p2puno.engine import Options
from p2puno.session.harness import LocalTable

HERE = Path(__file__).resolve().parent.parent / "vectors"
SEED = "p2puno test vector game-2p (test keys only)"


def build() -> tuple[bytes, dict[str, object]]:
    table = LocalTable(Options(2, True, True, True, target=40), seed=SEED)
    table.run()
    node = table.sessions[0]
    if node.blame is not None:
        raise SystemExit(f"the vector game ended in a blame: {node.blame}")
    log = b"".join(node.log.raw(h) + b"\n" for h, _ in node.log)
    expected = {
        "description": "a whole 2-player game, all house rules, target 40; replay must accept "
        "every line and end in this state",
        "options": {"players": 2, "house": ["progressive", "seven-o", "jump-in"], "target": 40},
        "entries": len(node.log),
        "rounds": node.engine.round_no,
        "winners": list(node.engine.winners),
        "scores": list(node.engine.scores),
        "digest": node.engine.digest().hex(),
        "tamper": "flipping any byte of line i must make the replay reject the file at line i",
    }
    return log, expected


def main() -> int:
    log, expected = build()
    text = json.dumps(expected, indent=2, sort_keys=True) + "\n"
    log_path, json_path = HERE / "game-2p.log", HERE / "game-2p.json"
    if "--check" in sys.argv:
        same = log_path.read_bytes() == log and json_path.read_text() == text
        print("game vectors up to date" if same else "game vectors differ from the generator")
        return 0 if same else 1
    log_path.write_bytes(log)
    json_path.write_text(text)
    print(f"wrote {log_path} ({len(log)} bytes) and {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
