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
that times every delivery, and each card play's critical path is computed two ways:

- with a core for every node: the slowest responder's time to check the proposal and answer
  it, plus the slowest node's time to take every response and apply the step;
- on this machine's cores: the same work scheduled on ``os.cpu_count()`` cores (longest task
  first), the answers first, then every node's work on the responses. Four or ten node
  processes cannot run in parallel on two cores, whatever the transport: this is the in-process
  path the network run can be held to on the same machine.

The network's own cost is the difference. A third in-process run sleeps 0.5 ms before each
delivery, as a node sleeps in ``epoll`` between messages: on this machine (a virtual machine
with 2 vCPUs) the same session work costs more CPU after a sleep, cold caches and all, and that
run shows how much of the difference is the CPU waking up rather than code of the node.

The CPU per card play, network against in process, shows it apart from the scheduling: what
the node runtime and the transport add to each node's work. Ten processes on two cores are
CPU-bound: the cores-used figure says so.
"""

from __future__ import annotations

import argparse
import bisect
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

PAUSE = 0.0005  # the in-process run's sleep before each message, for what waking costs


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def network_game(
    players: int, target: int, keep: Path | None, shm: bool = False, think: float = 0.0
) -> dict[str, object]:
    where = "/dev/shm" if shm else None
    root = Path(tempfile.mkdtemp(prefix="p2puno-bench-", dir=where)) if keep is None else keep
    trace = root / "trace"
    trace.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable, "-m", "p2puno", "host", "--bind", "127.0.0.1", "--no-discovery",
        "--seats", str(players), "--bots", str(players - 1), "--bot", "heuristic",
        "--house", "progressive,seven-o,jump-in", "--target", str(target),
        "--window-ms", "0", "--think", str(think), "--step-s", "120", "--turn-s", "120", "--quiet",
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
    cpu_at: dict[tuple[int, int], float] = {}  # (node, step) -> its CPU seconds when applied
    rss_at: list[list[tuple[int, int]]] = []  # per node: (step, RSS kB), each second
    cpu, rss, entries = [], [], 0
    durable: list[int] = []  # per node: its fdatasyncs of log lines
    arrived: dict[tuple[int, int], list[float]] = {}  # (node, sender) -> when entries came
    answered: dict[int, dict[int, float]] = {}  # seq -> responder -> when its response left
    applied_by_node: dict[tuple[int, int], float] = {}  # (node, seq) -> when it applied it
    for node, path in enumerate(sorted(trace.glob("seat*.trace"))):
        rss_at.append([])
        for line in path.read_text().splitlines():
            parts = line.split()
            if parts[0] == "r":
                arrived.setdefault((node, int(parts[1])), []).append(float(parts[2]))
            elif parts[0] == "s":
                answered.setdefault(int(parts[1]), {})[node] = float(parts[2])
            elif parts[0] == "m":
                rss_at[node].append((int(parts[3]), int(parts[2])))
            if parts[0] == "p":
                proposals[int(parts[1])] = (float(parts[2]), parts[3])
            elif parts[0] == "d":
                applied.setdefault(int(parts[1]), []).append(float(parts[2]))
                applied_by_node[(node, int(parts[1]))] = float(parts[2])
                cpu_at[(node, int(parts[1]))] = float(parts[3])
            elif parts[0] == "end":
                cpu.append(float(parts[1]))
                rss.append(int(parts[2]) / 1024)
                entries = max(entries, int(parts[3]))
                durable.append(int(parts[4]))
    plays = [
        max(applied[s]) - t
        for s, (t, what) in proposals.items()
        if what == "play" and len(applied.get(s, [])) == players
    ]
    play_cpu = [  # each node's CPU from the step before a card play to the play applied
        cpu_at[(n, s)] - cpu_at[(n, s - 1)]
        for s, (_, what) in proposals.items()
        if what == "play"
        for n in range(players)
        if (n, s) in cpu_at and (n, s - 1) in cpu_at
    ]
    done_at = {(n, s): t for (n, s), t in applied_by_node.items()}
    hops = card_play_hops(proposals, answered, done_at, arrived, players)
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
        "rss_at": rss_at,
        "play_cpu": play_cpu,
        "decks": decks,
        "cpu": cpu,
        "rss": rss,
        "durable": durable,
        "steps": steps,
        "rounds": rounds,
        "entries": entries,
        "verified": result.ok,
        "hops": hops,
    }


def card_play_hops(
    proposals: dict[int, tuple[float, str]],
    answered: dict[int, dict[int, float]],
    done_at: dict[tuple[int, int], float],
    arrived: dict[tuple[int, int], list[float]],
    players: int,
) -> dict[str, list[float]]:
    """A card play hop by hop, from the nodes' traces (seconds): the proposal reaching each
    responder, a responder from its arrival to its response sent (its ``receive``, its log
    line made durable, the send), a response from sent to taken by each peer, and the last
    response taken to the play applied on each node. An entry's arrival is the first one from
    its sender's seat at or after the time it left (each seat sends its entries in order; an
    earlier entry still in flight then counts instead, read in the same pass: close enough)."""
    hops: dict[str, list[float]] = {"reach": [], "respond": [], "deliver": [], "apply": []}

    def first(node: int, sender: int, since: float) -> float | None:
        times = arrived.get((node, sender), [])
        i = bisect.bisect_left(times, since)
        return times[i] if i < len(times) else None

    for seq, (t, what) in proposals.items():
        sent = answered.get(seq, {})
        if what != "play" or len(sent) != players - 1:
            continue
        if any((n, seq) not in done_at for n in range(players)):
            continue
        proposer = next(n for n in range(players) if n not in sent)
        for node, left in sent.items():
            came = first(node, proposer, t)
            if came is not None and came <= left:
                hops["reach"].append(came - t)
                hops["respond"].append(left - came)
        for node in range(players):
            last = None
            for other, left in sent.items():
                if other == node:
                    continue
                came = first(node, other, left)
                if came is not None:
                    hops["deliver"].append(came - left)
                    last = came if last is None else max(last, came)
            if last is not None:
                hops["apply"].append(done_at[(node, seq)] - last)
    return hops


def rss_curve(rss_at: object, steps: int) -> str:
    """The largest node's RSS at each fifth of the game (from the traces' each-second lines):
    flat if memory does not grow with the length of the game."""
    assert isinstance(rss_at, list)
    marks = []
    for k in range(1, 6):
        at = steps * k // 5
        seen = [max((kb for step, kb in node if step <= at), default=0) for node in rss_at]
        marks.append(f"step {at}: {max(seen) / 1024:.1f} MB")
    return ", ".join(marks)


def on_cores(tasks: list[float], cores: int) -> float:
    """The makespan of independent tasks on ``cores`` cores, longest first to the least
    loaded core."""
    load = [0.0] * max(1, cores)
    for t in sorted(tasks, reverse=True):
        i = load.index(min(load))
        load[i] += t
    return max(load)


def in_process(
    players: int, target: int, seed: str, pause: float = 0.0
) -> tuple[list[float], list[float], list[float]]:
    """Critical paths of card plays in one process (see the module docstring): with a core
    for every node, on this machine's cores, and each node's own time on a play. ``pause``:
    seconds slept before each delivery (not timed), as a node sleeps in ``epoll`` between
    messages: what waking from idle costs the same work on this machine's CPUs."""
    opts = Options(players, True, True, True, target=target)
    table = LocalTable(opts, seed=seed)
    sessions = table.sessions
    from p2puno.log import Entry
    from p2puno.wire import decode

    first: dict[int, dict[int, float]] = {}  # seq -> responder -> its time on the proposal
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
            if pause:
                time.sleep(pause)
            t = time.perf_counter()
            s.receive(raw)
            dt = time.perf_counter() - t
            if e.role.value == "proposal":
                first.setdefault(e.seq, {})[i] = dt
            else:
                node = rest.setdefault(e.seq, {})
                node[i] = node.get(i, 0.0) + dt
            queue.extend((i, r) for r in s.outbox)
            s.outbox.clear()
    cores = os.cpu_count() or 1
    plays = [s for s, kind in kinds.items() if kind == "play" and s in first]
    parallel = [max(first[s].values()) + max(rest.get(s, {0: 0.0}).values()) for s in plays]
    shared = [
        on_cores(list(first[s].values()), cores) + on_cores(list(rest.get(s, {}).values()), cores)
        for s in plays
    ]
    per_node = [
        first[s].get(i, 0.0) + rest.get(s, {}).get(i, 0.0) for s in plays for i in range(players)
    ]
    return parallel, shared, per_node


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="4,10")
    ap.add_argument("--target", default="500", help="targets, e.g. 500,1000")
    ap.add_argument("--keep", metavar="DIR", help="keep every node's files and traces here")
    ap.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds each bot may take per decision (uniform from 0): a table that waits "
        "between plays, as people do, instead of one that plays back to back",
    )
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
            net = network_game(players, target, keep, args.shm, args.think)
            local = in_process(players, min(target, 150), f"bench-net/{players}")
            idle = in_process(players, min(target, 150), f"bench-net/{players}", PAUSE)
            plays = [1000 * x for x in net["plays"]]  # type: ignore[attr-defined]
            cp = [1000 * x for x in local[0]]
            cp_cores = [1000 * x for x in local[1]]
            node_local = [1000 * x for x in local[2]]
            node_net = [1000 * x for x in net["play_cpu"]]  # type: ignore[attr-defined]
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
                f"  same plays' critical path in one process, a core per node: median "
                f"{cmed:.1f} ms, p99 {cp99:.1f} ms; the network adds {med / cmed - 1:+.0%} "
                "(median)"
            )
            ncores = os.cpu_count()
            smed = statistics.median(cp_cores)
            print(
                f"  same plays' critical path in one process, on this machine's {ncores} cores: "
                f"median {smed:.1f} ms, p99 {pct(cp_cores, 99):.1f} ms; the network adds "
                f"{med / smed - 1:+.0%} (median)"
            )
            if node_net:
                lmed, nmed = statistics.median(node_local), statistics.median(node_net)
                print(
                    f"  CPU per node per card play: {nmed:.2f} ms over the network, {lmed:.2f} ms "
                    f"in one process (median): the node runtime and transport add "
                    f"{nmed / lmed - 1:+.0%}"
                )
                imed = statistics.median(1000 * x for x in idle[2])
                icores = statistics.median(1000 * x for x in idle[1])
                print(
                    f"  the same in one process sleeping {1000 * PAUSE:.1f} ms before each "
                    f"message (as a node waits in epoll): CPU per node per card play "
                    f"{imed:.2f} ms ({imed / lmed - 1:+.0%} for waking alone), critical path on "
                    f"{ncores} cores {icores:.1f} ms; against it the network adds "
                    f"{med / icores - 1:+.0%} (median)"
                )
            hops = net["hops"]
            assert isinstance(hops, dict)
            if all(hops.values()):
                med_ms = {k: 1000 * statistics.median(v) for k, v in hops.items()}
                print(
                    "  a card play hop by hop (median): the proposal reaches a responder "
                    f"{med_ms['reach']:.2f} ms; a responder, its arrival to its response sent "
                    f"(receive, fdatasync, send) {med_ms['respond']:.2f} ms; a response, sent to "
                    f"taken by a peer {med_ms['deliver']:.2f} ms; the last response taken to the "
                    f"play applied {med_ms['apply']:.2f} ms"
                )
            if decks:
                print(f"  new deck (shuffle + deal): median {statistics.median(decks):.0f} ms")
            print(
                f"  CPU per node: {statistics.mean(cpu) / steps * 1000:.2f} ms per step, "
                f"{statistics.mean(cpu) / rounds:.2f} s per round; cores used "
                f"{sum(cpu) / wall:.2f} of {os.cpu_count()}"
            )
            durable = net["durable"]
            assert isinstance(durable, list)
            print(
                f"  log lines made durable (fdatasync) per node per step: "
                f"{statistics.mean(durable) / steps:.2f} (one per entry it signs)"
            )
            mid = statistics.median(rss)
            print(f"  peak RSS per node: max {max(rss):.1f} MB, median {mid:.1f} MB")
            print(f"  RSS as the game goes on (largest node): {rss_curve(net['rss_at'], steps)}")


if __name__ == "__main__":
    main()
