"""Benchmark of the mental-poker card layer: one process, no network.

For 2..10 players: a full shuffle of the 108-card deck plus the deal of 7 cards to each player
(secrets generation, commitments, both phases, key releases checked against commitments, each
recipient opening its cards), and the end-of-round verification of the whole shuffle
(audit: every step replayed, every key checked), on one core and on a pool of two.

The floor is the one the issue defines: each player touches each card once per phase
(2 x 108 x N layers) and each dealt card costs one layer more, at the measured cost of one
encryption layer (point decompression + ECDH with a reused key). The scheme does one pass less
than that (the last seat merges its two passes) but pays for a key object per position in
phase 2 and per dealt card.

Single-process figures are CPU time of this process (``time.process_time``), which on an idle
machine equals wall time and on a shared one is not inflated by other processes; the two-core
verification is wall time (pool workers already started). The layer cost is re-measured
around every run; each row shows the run with the median ratio to its own floor, and the best
verification times.
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


def layer_cost(batches: int = 4) -> tuple[float, float]:
    """Mean cost of one layer over ``batches`` x 108 layers (fresh key per batch), and of
    deriving one key object. A mean over a sustained batch, like the work it is compared to."""
    rng = SystemRng()
    # Start from ciphertexts, not the card points: those are loaded once per process
    # (p2puno.crypto._group), so timing them would leave the decompression out of the layer.
    xs = encrypt_all(random_scalar(rng), [card_point(c) for c in range(DECK)])
    t = time.process_time()
    for _ in range(batches):
        xs = encrypt_all(random_scalar(rng), xs)
    layer = (time.process_time() - t) / (batches * DECK)
    t = time.process_time()
    for _ in range(batches * DECK):
        scalar_key(random_scalar(rng))
    derive = (time.process_time() - t) / (batches * DECK)
    return layer, derive


def shuffle_and_deal(n: int) -> tuple[float, ShuffleView, list[ShuffleSecrets]]:
    rng = SystemRng()
    spec = ShuffleSpec(os.urandom(32), n, tuple(range(DECK)))
    t = time.process_time()
    secrets = [ShuffleSecrets.generate(spec, p, rng) for p in range(n)]
    view = ShuffleView(spec)  # one observer stands for every node's (cheap) checks
    for s in secrets:
        view.add_commitment(s.commitment())
    while (nxt := view.next_step) is not None:
        view.add_step(secrets[nxt[1]].step(view))
    for j in range(HAND * n):
        to = j % n
        for q in range(n):
            if q != to:
                view.add_release(secrets[q].release(j))
        view.open(j, secrets[to])
    return time.process_time() - t, view, secrets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7, help="repetitions per row (best is shown)")
    ap.add_argument("--players", type=int, nargs="*", default=list(range(2, 11)))
    args = ap.parse_args()

    layer, derive = layer_cost()
    print(f"one layer (decompress + ECDH, reused key): {layer * 1e6:.1f} us")
    print(f"deriving one key object (per-position keys): {derive * 1e6:.1f} us")
    print(f"cores: {os.cpu_count()}; load average at start: {os.getloadavg()[0]:.2f}")
    print(f"{args.reps} runs per row; work per row: (2n-1) x 108 + 7n layers, n x 108 + 7n key")
    print("objects; floor: (2n x 108 + 7n) x layer\n")
    head = (
        f"{'players':>7} {'layer us':>8} {'floor ms':>9} {'shuffle+deal ms':>16} {'x floor':>8}"
        f" {'verify 1 core ms':>17} {'verify 2 cores ms (wall)':>25}"
    )
    print(head)
    print("-" * len(head))
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(abs, range(4)))  # start the workers before timing
        for n in args.players:
            layers = 2 * DECK * n + HAND * n
            rows = []
            for _ in range(args.reps):
                before = layer_cost(2)[0]  # layer cost bracketing each run: the machine
                sd, view, secrets = shuffle_and_deal(n)  # may be shared, so compare like
                rep_layer = (before + layer_cost(2)[0]) / 2  # with like
                record = view.record()
                reveals = [s.reveal() for s in secrets]
                t = time.process_time()
                r1 = audit(record, reveals)
                v1 = time.process_time() - t
                t = time.perf_counter()
                r2 = audit(record, reveals, executor=pool)
                v2 = time.perf_counter() - t
                assert r1.ok and r2 == r1
                rows.append((sd / (layers * rep_layer), rep_layer, sd, v1, v2))
            rows.sort()
            ratio, rep_layer, sd, _, _ = rows[len(rows) // 2]  # the median run
            v1 = min(r[3] for r in rows)
            v2 = min(r[4] for r in rows)
            print(
                f"{n:>7} {rep_layer * 1e6:>8.1f} {layers * rep_layer * 1e3:>9.1f}"
                f" {sd * 1e3:>16.1f} {ratio:>8.2f}"
                f" {v1 * 1e3:>17.1f} {v2 * 1e3:>25.1f}"
            )

    print(f"\nload average at end: {os.getloadavg()[0]:.2f} (other processes share the cores)")


if __name__ == "__main__":
    main()
