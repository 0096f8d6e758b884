"""Soak: the session under thousands of delivery schedules (not run in CI).

Each schedule plays a seeded game over the simulated network (p2puno/session/simnet.py):
deliveries reordered, delayed, duplicated, dropped and made up by relaying and fetching. Every
node must end with the same entries, state digest and outcome as the in-order run of the same
game. With --silence, a random seat also goes silent at a random moment; the others must then
agree on a stop that names it alone (or on the finished game, if it had already ended).
Prints a line per failure (with everything needed to replay it) and the totals; exit 1 if any.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from p2puno.engine import Options
from p2puno.session.harness import LocalTable
from p2puno.session.simnet import NetConfig, SimNet, check_schedule

HOUSE = [(p, s, j) for p in (False, True) for s in (False, True) for j in (False, True)]


def config(r: random.Random) -> NetConfig:
    return NetConfig(
        delay=r.choice([(0, 1), (0, 15), (0, 80), (5, 300)]),
        duplicate=r.choice([0.0, 0.1, 0.5]),
        drop=r.choice([0.0, 0.05, 0.25]),
        relay=r.random() < 0.8,
    )


def silence_case(k: int, options: Options, game: str, r: random.Random) -> str:
    seat = r.randrange(options.players)
    net = config(r)
    net.deadline = 3000
    net.silent_after = {seat: r.randrange(1, 400)}
    table = LocalTable(options, seed=game)
    SimNet(table, k, net).run()
    live = [s for s in table.sessions if s.seat != seat]
    outcomes = {s.outcome for s in live}
    if len(outcomes) != 1:
        return f"live nodes disagree: {sorted(map(str, outcomes))}"
    (o,) = outcomes
    if o.state == "finished" or (o.state == "stopped" and o.silent == (seat,)):
        return ""
    return f"seat {seat} silent after {net.silent_after[seat]} entries: {o}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schedules", type=int, default=2000)
    ap.add_argument("--players", default="2,3,4,6,10", help="player counts to draw from")
    ap.add_argument("--target", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--silence", action="store_true", help="a seat goes silent in each game")
    ap.add_argument("--minutes", type=float, default=120.0, help="stop after this long")
    args = ap.parse_args()
    counts = [int(p) for p in args.players.split(",")]
    start = time.perf_counter()
    failures = done = 0
    for k in range(args.seed, args.seed + args.schedules):
        if time.perf_counter() - start > 60 * args.minutes:
            break
        r = random.Random(f"soak/{k}")
        n = r.choice(counts)
        p, s, j = HOUSE[k % 8]
        target = args.target if n <= 4 else max(1, args.target // 10)
        options = Options(n, target=target, progressive=p, seven_o=s, jump_in=j)
        game = f"soak/{n}/{k % 8}/{r.randrange(4)}"
        if args.silence:
            problem = silence_case(k, options, game, r)
        else:
            problem = check_schedule(options, game, k, config(r))
        done += 1
        if problem:
            failures += 1
            print(f"FAIL schedule {k}: {problem}", flush=True)
        if done % 50 == 0:
            rate = done / (time.perf_counter() - start)
            print(f"{done} schedules, {failures} failures ({rate:.2f}/s)", flush=True)
    secs = time.perf_counter() - start
    print(f"{done} schedules in {secs:.0f} s: {done - failures} agreed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
