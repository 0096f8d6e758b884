"""Soak: rebuild a seat from its files at every step of seeded games, at every crash point
(not run in CI; tests/session/test_resume.py does every 36th step of one game).

Each crash kills one seat (after its secrets are written, mid-append of an entry, after an
entry is durable but before it is sent, after it is sent, or by a power cut that loses every
line written since its last durable one), rebuilds it from its log and
secrets file and plays on: every game must end cleanly, no seat blamed, no second entry for
any slot, and (crash at a step boundary) the same final state as the game never crashed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from p2puno.engine import Options
from p2puno.session.crashsim import play_with_crash, reference


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2, help="seeded games (2 and 3 players)")
    ap.add_argument("--target", type=int, default=25)
    ap.add_argument("--every", type=int, default=1, help="rebuild at every k-th step")
    ap.add_argument(
        "--prune-keep", type=int, default=None, help="rebuild pruning as a node does (keep K)"
    )
    ap.add_argument(
        "--points",
        default="sent,secrets,torn,durable,power",
        help="the crash points, comma-separated (default: all)",
    )
    args = ap.parse_args()
    points = args.points.split(",")
    failures = done = 0
    start = time.perf_counter()
    for g in range(args.games):
        options = Options(2 + g % 2, target=args.target)
        seed = f"soak-resume/{g}"
        digest, last = reference(options, seed)
        for point in points:
            for at in range(0, last + 1, args.every):
                with tempfile.TemporaryDirectory() as tmp:
                    crash: dict[str, object] = {"point": point, "at": at}
                    table = play_with_crash(
                        options,
                        seed,
                        Path(tmp),
                        at % options.players,
                        crash,
                        prune_keep=args.prune_keep,
                    )
                done += 1
                problems = [str(s.blame) for s in table.sessions if s.blame is not None]
                problems += [f"evidence at {s.seat}" for s in table.sessions if s.log.evidence]
                problems += [f"{s.seat}: {s.outcome}" for s in table.sessions if not s.over]
                if point == "sent" and table.sessions[0].engine.digest() != digest:
                    problems.append("another final state")
                if problems:
                    failures += 1
                    print(f"FAIL game {g} point {point} step {at}: {problems}", flush=True)
        print(f"game {g} ({options}): {done} rebuilds so far, {failures} failed", flush=True)
    print(f"{done} rebuilds in {time.perf_counter() - start:.0f} s: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
