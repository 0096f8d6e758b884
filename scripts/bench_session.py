"""Benchmark of the trustless session (not run in CI).

For each player count: one whole game to the target through N in-process sessions (crypto,
signing, encoding, engine, all of it), profiled, with the time per round split by layer:
crypto (p2puno.crypto and pyca's EC/X25519/AEAD), engine (p2puno.engine), signing (Ed25519
sign + verify), encoding (p2puno.wire canonical JSON), the rest (session bookkeeping).
Then the replay: verification of the finished log in entries per second, against the cost of
one Ed25519 verify measured in the same run.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import tempfile
import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2puno.engine import Options
from p2puno.log import append_entry
from p2puno.session.harness import LocalTable
from p2puno.session.replay import replay


def split(stats: pstats.Stats) -> dict[str, float]:
    out = {"crypto": 0.0, "engine": 0.0, "signing": 0.0, "encoding": 0.0, "other": 0.0}
    for (filename, _line, name), row in stats.stats.items():  # type: ignore[attr-defined]
        tottime = row[2]
        if "Ed25519" in name or "ed25519" in name:
            key = "signing"  # pyca's Ed25519 sign and verify (C methods: filename "~")
        elif "/p2puno/crypto/" in filename or (
            filename == "~" and any(w in name for w in ("ec.", "ECPrivate", "X25519", "ChaCha"))
        ):
            key = "crypto"
        elif "/p2puno/engine/" in filename:
            key = "engine"
        elif "/p2puno/wire/" in filename or "/json/" in filename:
            key = "encoding"
        else:
            key = "other"
        out[key] += tottime
    return out


def game(players: int, target: int, seed: str) -> tuple[LocalTable, float, dict[str, float]]:
    opts = Options(players, progressive=True, seven_o=True, jump_in=True, target=target)
    table = LocalTable(opts, seed=seed)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    table.run()
    prof.disable()
    wall = time.perf_counter() - t0
    return table, wall, split(pstats.Stats(prof))


def verify_cost(n: int = 2000) -> float:
    key = Ed25519PrivateKey.generate()
    pub = key.public_key()
    msg = b"x" * 300
    sig = key.sign(msg)
    t0 = time.perf_counter()
    for _ in range(n):
        pub.verify(sig, msg)
    return (time.perf_counter() - t0) / n


def replay_figures(path: str, repeat: int) -> tuple[int, float, float]:
    """Entries, best wall time of ``repeat`` replays, and that run's CPU time (all processes)."""
    best = (0, float("inf"), 0.0)
    for _ in range(repeat):
        r0, c0 = (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
        t0 = time.perf_counter()
        result = replay(path)
        dt = time.perf_counter() - t0
        r1, c1 = (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
        assert result.ok, result.error
        cpu = sum(
            b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime for a, b in ((r0, r1), (c0, c1))
        )
        if dt < best[1]:
            best = (result.entries, dt, cpu)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", default="4,10")
    ap.add_argument("--target", type=int, default=500)
    ap.add_argument("--seed", default="bench")
    ap.add_argument("--save", metavar="DIR", help="keep each game's log in DIR")
    ap.add_argument("--replay", nargs="*", metavar="LOG", help="only replay these log files")
    ap.add_argument("--repeat", type=int, default=3, help="replays per log; the best counts (3)")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; cores {os.cpu_count()}; all house rules on")
    paths: list[tuple[str, str]] = [(os.path.basename(p), p) for p in args.replay or []]
    tmp = tempfile.TemporaryDirectory()
    if args.replay is None:
        head = (
            f"{'players':>7} {'rounds':>6} {'entries':>7} {'s/round':>8} {'crypto':>7} "
            f"{'engine':>7} {'signing':>8} {'encoding':>8} {'other':>7}  (profiled s per round)"
        )
        print(head)
        for players in [int(p) for p in args.players.split(",")]:
            table, wall, parts = game(players, args.target, f"{args.seed}/{players}")
            s0 = table.sessions[0]
            assert s0.blame is None, s0.blame
            rounds = s0.engine.round_no
            total = sum(parts.values())
            scale = wall / total if total else 1.0  # profiled time, scaled back to wall time
            per = {k: v * scale / rounds for k, v in parts.items()}
            print(
                f"{players:>7} {rounds:>6} {len(s0.log):>7} {wall / rounds:>8.3f} "
                f"{per['crypto']:>7.3f} {per['engine']:>7.3f} {per['signing']:>8.3f} "
                f"{per['encoding']:>8.3f} {per['other']:>7.3f}"
            )
            path = os.path.join(args.save or tmp.name, f"game-{players}p.log")
            if os.path.exists(path):
                os.unlink(path)
            for h, _ in s0.log:
                append_entry(path, s0.log.raw(h), fsync=False)
            paths.append((f"{players} players", path))
    cost = verify_cost()
    print(
        f"\nEd25519 verify, measured now: {cost * 1e6:.0f} us -> {1 / cost:,.0f} signatures/s on "
        f"one core, {(os.cpu_count() or 1) / cost:,.0f} on all {os.cpu_count()}"
    )
    print(
        f"replay (p2puno.session.replay: signatures in worker processes, session in this one), "
        f"best of {args.repeat}; cpu% = CPU of all processes / wall"
    )
    head = f"{'log':>12} {'entries':>7} {'replay s':>9} {'entries/s':>10} {'cpu%':>5}"
    print(f"{head}  target >= 5,000/s")
    for name, path in paths:
        entries, dt, cpu = replay_figures(path, args.repeat)
        rate = entries / dt
        print(
            f"{name:>12} {entries:>7} {dt:>9.2f} {rate:>10,.0f} {100 * cpu / dt:>5.0f}  "
            f"{'met' if rate >= 5000 else 'NOT met'}; {rate * cost:.2f}x one core's bare "
            "signature checks"
        )
    tmp.cleanup()


if __name__ == "__main__":
    main()
