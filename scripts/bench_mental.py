"""Benchmark of the mental-poker card layer: one process, no network.

For 2..10 players: a full shuffle of the 108-card deck plus the deal of 7 cards to each player
(secrets generation, commitments, both phases, key releases checked against commitments, each
recipient opening its cards), and the end-of-round verification of the whole shuffle
(audit: every step replayed, every key checked), on one core and on a pool of two.

The floor is the least work the scheme allows: each player touches each card once per phase
(2 x 108 x N layers) and each dealt card costs one layer more, at the measured cost of one
encryption layer (point decompression + ECDH with a reused key).

Single-process figures are CPU time of this process (``time.process_time``), which on an idle
machine equals wall time and on a shared one is not inflated by other processes; the two-core
verification is wall time (pool workers already started).
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor

from p2puno.crypto import ShuffleSecrets, ShuffleSpec, ShuffleView, SystemRng, audit
from p2puno.crypto._group import card_point, encrypt_all, random_scalar, scalar_key

DECK = 108
HAND = 7


def layer_cost(reps: int = 20) -> tuple[float, float]:
    rng = SystemRng()
    xs = [card_point(c) for c in range(DECK)]
    best = float("inf")
    for _ in range(reps):
        k = random_scalar(rng)
        t = time.process_time()
        encrypt_all(k, xs)
        best = min(best, (time.process_time() - t) / DECK)
    t = time.process_time()
    for _ in range(500):
        scalar_key(random_scalar(rng))
    derive = (time.process_time() - t) / 500
    return best, derive


def shuffle_and_deal(n: int) -> tuple[float, ShuffleView, list[ShuffleSecrets]]:
    rng = SystemRng()
    spec = ShuffleSpec(os.urandom(32), n, tuple(range(DECK)))
    t = time.process_time()
    secrets = [ShuffleSecrets.generate(spec, p, rng) for p in range(n)]
    view = ShuffleView(spec)  # one observer stands for every node's (cheap) checks
    for s in secrets:
        view.add_commitment(s.commitment())
    for s in secrets:
        view.add_step(s.phase1(view))
    for s in secrets:
        view.add_step(s.phase2(view))
    for j in range(HAND * n):
        to = j % n
        for q in range(n):
            if q != to:
                view.add_release(secrets[q].release(j))
        view.open(j, secrets[to])
    return time.process_time() - t, view, secrets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5, help="repetitions per row (best is shown)")
    ap.add_argument("--players", type=int, nargs="*", default=list(range(2, 11)))
    args = ap.parse_args()

    layer, derive = layer_cost()
    print(f"one layer (decompress + ECDH, reused key): {layer * 1e6:.1f} us")
    print(f"deriving one key object (per-position keys): {derive * 1e6:.1f} us")
    print(f"cores: {os.cpu_count()}; best of {args.reps}\n")
    head = (
        f"{'players':>7} {'layer us':>8} {'floor ms':>9} {'shuffle+deal ms':>16} {'x floor':>8}"
        f" {'verify 1 core ms':>17} {'verify 2 cores ms (wall)':>25}"
    )
    print(head)
    print("-" * len(head))
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(abs, range(4)))  # start the workers before timing
        for n in args.players:
            layer = min(layer, layer_cost(5)[0])  # re-measured beside each row (shared CPUs)
            floor = (2 * DECK * n + HAND * n) * layer
            best_sd = best_v1 = best_v2 = float("inf")
            for _ in range(args.reps):
                sd, view, secrets = shuffle_and_deal(n)
                record = view.record()
                reveals = [s.reveal() for s in secrets]
                t = time.process_time()
                r1 = audit(record, reveals)
                v1 = time.process_time() - t
                t = time.perf_counter()
                r2 = audit(record, reveals, executor=pool)
                v2 = time.perf_counter() - t
                assert r1.ok and r2 == r1
                best_sd, best_v1, best_v2 = min(best_sd, sd), min(best_v1, v1), min(best_v2, v2)
            print(
                f"{n:>7} {layer * 1e6:>8.1f} {floor * 1e3:>9.1f}"
                f" {best_sd * 1e3:>16.1f} {best_sd / floor:>8.2f}"
                f" {best_v1 * 1e3:>17.1f} {best_v2 * 1e3:>25.1f}"
            )


if __name__ == "__main__":
    main()
