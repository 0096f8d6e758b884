"""Benchmark of the networked game (not run in CI): node processes over TCP on 127.0.0.1.

For each player count, one whole game (every house rule, bots on every seat, no claim window)
between that many node processes, each its own process on this machine, traced
(P2PUNO_TRACE: every node writes when it sent each proposal and processed each step, in
monotonic seconds, which one machine shares across processes). From the traces:

- card play: from the proposal of a played card leaving its author to the moment the last
  node has applied it (processed its step): median and p99;
- new deck: from the first commitment of a fresh shuffle to the first action proposed after
  it (the deck shuffled, every hand dealt, the start card turned up): median;
- per-node CPU (all of the process: crypto, session, transport) per step and per round, the
  cores used (all CPU / wall), and every node's peak RSS.

In the same run, the same kind of game is played in one process (LocalTable) with a router
that times every delivery, and each card play's critical path is computed as if the nodes ran
in parallel: the slowest responder's time to check the proposal and answer it, plus the
slowest node's time to take every response and apply the step. The network's own cost is the
difference. Ten processes on two cores are CPU-bound: the cores-used figure says so.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from p2puno.engine import Options
from p2puno.session.harness import LocalTable
from p2puno.session.replay import replay


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def network_game(
    players: int, target: int, keep: Path | None, shm: bool = False
) -> dict[str, object]:
    where = "/dev/shm" if shm else None
    root = Path(tempfile.mkdtemp(prefix="p2puno-bench-", dir=where)) if keep is None else keep
    trace = root / "trace"
    trace.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable, "-m", "p2puno", "host", "--bind", "127.0.0.1", "--no-discovery",
        "--seats", str(players), "--bots", str(players - 1), "--bot", "heuristic",
        "--house", "progressive,seven-o,jump-in", "--target", str(target),
        "--window-ms", "0", "--step-s", "120", "--turn-s", "120", "--quiet",
        "--data-dir", str(root / "data"),
    ]  # fmt: skip
    env = {**os.environ, "P2PUNO_TRACE": str(trace)}
    t0 = time.monotonic()
    done = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if done.returncode != 0:
        raise SystemExit(f"the game failed:\n{done.stdout}\n{done.stderr}")
    proposals: dict[int, tuple[float, str]] = {}
    applied: dict[int, list[float]] = {}
    cpu, rss, entries = [], [], 0
    for path in sorted(trace.glob("seat*.trace")):
        for line in path.read_text().splitlines():
            parts = line.split()
            if parts[0] == "p":
                proposals[int(parts[1])] = (float(parts[2]), parts[3])
            elif parts[0] == "d":
                applied.setdefault(int(parts[1]), []).append(float(parts[2]))
            elif parts[0] == "end":
                cpu.append(float(parts[1]))
                rss.append(int(parts[2]) / 1024)
                entries = max(entries, int(parts[3]))
    plays = [
        max(applied[s]) - t
        for s, (t, what) in proposals.items()
        if what == "play" and len(applied.get(s, [])) == players
    ]
    decks = []
    seqs = sorted(proposals)
    for i, s in enumerate(seqs):
        if proposals[s][1] == "commit":
            nxt = next((q for q in seqs[i + 1 :] if proposals[q][1] in ("play", "action")), None)
            if nxt is not None:
                decks.append(proposals[nxt][0] - proposals[s][0])
    logs = sorted((root / "data").rglob("games/*/log"))
    result = replay(logs[0])
    if keep is None:
        shutil.rmtree(root, ignore_errors=True)  # every node's files: gone with the figures
    rounds = max(1, len([e for e in result.lines if "verified" in e]) - 1)
    steps = max(applied) + 1 if applied else 1
    return {
        "wall": wall,
        "plays": plays,
        "decks": decks,
        "cpu": cpu,
        "rss": rss,
        "steps": steps,
        "rounds": rounds,
        "entries": entries,
        "verified": result.ok,
    }


def in_process(players: int, target: int, seed: str) -> list[float]:
    """Critical paths of card plays in one process (see the module docstring)."""
    opts = Options(players, True, True, True, target=target)
    table = LocalTable(opts, seed=seed)
    sessions = table.sessions
    from p2puno.log import Entry
    from p2puno.wire import decode

    first: dict[int, float] = {}  # seq -> slowest responder's time on the proposal
    rest: dict[int, dict[int, float]] = {}  # seq -> node -> its time on the responses
    kinds: dict[int, str] = {}
    queue: list[tuple[int, bytes]] = []
    for i, s in enumerate(sessions):
        s.start()
        queue.extend((i, raw) for raw in s.outbox)
        s.outbox.clear()
    while queue:
        sender, raw = queue.pop(0)
        e = Entry.from_obj(decode(raw))
        if e.role.value == "proposal" and e.kind == "action" and isinstance(e.body, dict):
            kinds[e.seq] = "play" if "#" in str(e.body.get("action")) else "action"
        for i, s in enumerate(sessions):
            if i == sender:
                continue
            t = time.perf_counter()
            s.receive(raw)
            dt = time.perf_counter() - t
            if e.role.value == "proposal":
                first[e.seq] = max(first.get(e.seq, 0.0), dt)
            else:
                node = rest.setdefault(e.seq, {})
                node[i] = node.get(i, 0.0) + dt
            queue.extend((i, r) for r in s.outbox)
            s.outbox.clear()
    return [
        first[s] + max(rest.get(s, {0: 0.0}).values())
        for s, kind in kinds.items()
        if kind == "play" and s in first
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="4,10")
    ap.add_argument("--target", default="500", help="targets, e.g. 500,1000")
    ap.add_argument("--keep", metavar="DIR", help="keep every node's files and traces here")
    ap.add_argument(
        "--shm",
        action="store_true",
        help="the nodes' data directories in /dev/shm (memory: fdatasync costs nothing), to "
        "tell the network's own cost from the disk's",
    )
    args = ap.parse_args()
    if args.shm:
        print("data directories in /dev/shm: the disk's cost (fdatasync) is left out")
    print(f"load average {os.getloadavg()[0]:.2f}; cores {os.cpu_count()}; all house rules on")
    for players in (int(p) for p in args.players.split(",")):
        for target in (int(t) for t in args.target.split(",")):
            keep = Path(args.keep) / f"{players}p-{target}" if args.keep else None
            net = network_game(players, target, keep, args.shm)
            local = in_process(players, min(target, 150), f"bench-net/{players}")
            plays = [1000 * x for x in net["plays"]]  # type: ignore[attr-defined]
            cp = [1000 * x for x in local]
            cpu = net["cpu"]
            wall = net["wall"]
            assert isinstance(cpu, list) and isinstance(wall, float)
            rss = net["rss"]
            assert isinstance(rss, list)
            steps, rounds = net["steps"], net["rounds"]
            assert isinstance(steps, int) and isinstance(rounds, int)
            med, p99 = statistics.median(plays), pct(plays, 99)
            cmed, cp99 = statistics.median(cp), pct(cp, 99)
            decks = [1000 * x for x in net["decks"]]  # type: ignore[attr-defined]
            print(
                f"\n{players} nodes, game to {target}: {rounds} rounds, {net['entries']} entries, "
                f"{wall:.1f} s wall; every log verifies: {net['verified']}"
            )
            print(
                f"  card play, sent to applied on every node: median {med:.1f} ms, p99 "
                f"{p99:.1f} ms ({len(plays)} plays)"
            )
            print(
                f"  same plays' critical path in one process: median {cmed:.1f} ms, p99 "
                f"{cp99:.1f} ms; the network adds {med / cmed - 1:+.0%} (median)"
            )
            if decks:
                print(f"  new deck (shuffle + deal): median {statistics.median(decks):.0f} ms")
            print(
                f"  CPU per node: {statistics.mean(cpu) / steps * 1000:.2f} ms per step, "
                f"{statistics.mean(cpu) / rounds:.2f} s per round; cores used "
                f"{sum(cpu) / wall:.2f} of {os.cpu_count()}"
            )
            mid = statistics.median(rss)
            print(f"  peak RSS per node: max {max(rss):.1f} MB, median {mid:.1f} MB")


if __name__ == "__main__":
    main()
