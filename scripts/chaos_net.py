"""scripts/chaos_net: whole games among node processes over links whose bytes are split, delayed
and cut mid-frame (tests/node/netshim.py). Not part of the tests.

Each game: a host and three joining bots, each its own process under the shim, with its own
seed (``{game}/{process}``): every write split into up to ``--pieces`` pieces, each up to
``--delay`` s late (in order), and up to ``--cuts`` connections per process aborted mid-write,
each after a random ``--cut-writes`` LO-HI writes, counted from round 1's start (``--arm-at
game``: from the game's start, its first shuffle; ``lobby``: at once, the lobby's links too,
where a cut link makes its joiner leave the table: protocol/lobby.md, "the host went away").
A game ends well when every process exits 0 with no traceback, every node's log holds the
same entries, each replays verified as finished, nobody blamed and no seat named silent.
Prints how many games ended well, the cuts and splits made, and every failure with its seeds
and files (kept with ``--keep``).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # (tests.node.netshim)

from tests.node.netshim import game

ARM = {"round": "— round 1:", "game": r"^game [0-9a-f]+: table code", "lobby": ""}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10, help="games (1-200)")
    ap.add_argument("--seed", type=int, default=0, help="the first game's number")
    ap.add_argument("--joiners", type=int, default=3, help="bots joining the host (1-9)")
    ap.add_argument("--target", type=int, default=50, help="points: about 1-3 rounds")
    ap.add_argument("--pieces", type=int, default=32, help="a write in up to this many pieces")
    ap.add_argument("--delay", type=float, default=0.03, help="seconds a piece is late, at most")
    ap.add_argument("--cuts", type=int, default=3, help="connections each process cuts")
    ap.add_argument(
        "--arm-at",
        default="round",
        choices=["round", "game", "lobby"],
        help="cuts from round 1's start, from the game's (its first shuffle), or at once",
    )
    ap.add_argument(
        "--cut-writes", default="20,300", help="LO,HI: writes before each cut (random in)"
    )
    ap.add_argument("--step-s", type=float, default=10.0, help="the table's step_s and turn_s")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a game may take")
    ap.add_argument("--keep", metavar="DIR", help="keep a failed game's files here")
    args = ap.parse_args()
    # a SIGTERM (timeout, kill) ends the game in hand as Ctrl-C does: its processes killed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if not 1 <= args.games <= 200 or not 1 <= args.joiners <= 9:
        ap.error("--games 1-200, --joiners 1-9")
    if not 0 <= args.delay <= 1 or not 1 <= args.pieces <= 4096 or not 0 <= args.cuts <= 50:
        ap.error("--delay 0-1 s, --pieces 1-4096, --cuts 0-50")
    lo, _, hi = args.cut_writes.partition(",")
    if not (lo.isdigit() and hi.isdigit() and 1 <= int(lo) <= int(hi) <= 10**6):
        ap.error("--cut-writes LO,HI with 1 <= LO <= HI")
    step = f"{args.step_s:g}"
    timing = ("--window-ms", "0", "--step-s", step, "--turn-s", step)
    good = cuts = splits = pieces = writes = merged = 0
    failed: list[int] = []
    start = time.monotonic()
    for g in range(args.seed, args.seed + args.games):
        with tempfile.TemporaryDirectory(prefix="p2puno-chaosnet-") as tmp:
            run = game(
                g,
                Path(tmp),
                joiners=args.joiners,
                target=args.target,
                timing=timing,
                max_pieces=args.pieces,
                max_delay=args.delay,
                cuts=args.cuts,
                cut_writes=(int(lo), int(hi)),
                arm_at=ARM[args.arm_at],
                timeout=args.timeout,
            )
            if not run.ok and args.keep:
                kept = Path(args.keep) / f"game-{g}"
                shutil.copytree(tmp, kept, dirs_exist_ok=True)
                run.why += f"\n(files kept in {kept})"
        good += run.ok
        cuts += run.total("cuts")
        splits += run.total("split")
        pieces += run.total("pieces")
        writes += run.total("writes")
        merged += run.total("merged")
        verdict = "ok" if run.ok else "FAILED"
        print(
            f"game {g}: {verdict} in {run.seconds:.0f} s; {run.total('cuts')} cuts, "
            f"{run.total('split')} of {run.total('writes')} writes split "
            f"({run.total('merged')} sends held pieces of several)",
            flush=True,
        )
        if not run.ok:
            failed.append(g)
            print(f"  seeds {run.seeds}; cut at {[s.cut_at for s in run.stats]}")
            print("  " + run.why.replace("\n", "\n  "), flush=True)
    print(f"\n{good}/{args.games} games ended well")
    print(
        f"{cuts} connections cut mid-write; {splits} of {writes} writes split into {pieces} "
        f"pieces; {merged} sends held pieces of two writes or more"
    )
    if failed:
        print(f"failed: games {failed} (again: --seed N --games 1 and the same options)")
    print(f"{time.monotonic() - start:.0f} s")
    return 0 if good == args.games else 1


if __name__ == "__main__":
    sys.exit(main())
