"""A simulated network for sessions: TEST ONLY (tests, soak scripts), never for play.

Every node of a :class:`~p2puno.session.harness.LocalTable` sends what it writes to every other
node over its own link; a seeded random generator gives each delivery a delay, so entries
arrive reordered and interleaved across steps and peers; it may also duplicate or drop a
delivery. Nodes do what the real node layer does about it: every entry a node takes is relayed
to every peer (once), a node asks its peers for the entries it :meth:`Session.missing`, and one
that fell behind asks for everything from a step. A clock (simulated milliseconds, no wall
time) drives the deadlines: a node whose :meth:`Session.waiting` has not changed for
``deadline`` calls :meth:`Session.stop`. A seat can be made to go silent (crash) after it has
written a given number of entries, or to have slow links.

Deterministic: the same seed gives the same schedule, so a failing schedule can be replayed.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from p2puno.log import Role
from p2puno.session.harness import LocalTable
from p2puno.session.session import Session, SessionError


@dataclass
class NetConfig:
    delay: tuple[int, int] = (0, 20)  # ms per delivery, uniform
    duplicate: float = 0.0  # chance a delivery is made twice
    drop: float = 0.0  # chance a delivery is lost (relay and fetch must make up for it)
    relay: bool = True  # every node forwards what it takes
    fetch_every: int = 50  # ms between a node's requests for what it misses
    deadline: int | None = None  # ms a node waits for a seat before it votes to stop
    silent_after: dict[int, int] = field(default_factory=dict)  # seat -> entries it writes
    slow: dict[int, int] = field(default_factory=dict)  # seat -> extra ms on its sends
    # hostile seats: what each writes instead of an entry (None: nothing; a list: versions
    # for given peers, the first one kept), applied inside its node (see SimNet)
    tamper: Callable[[int, bytes], bytes | list[tuple[bytes, list[int]]] | None] | None = None
    # seats whose nodes run ``tamper`` on what they write, and never send the evidence
    # against themselves that the honest code would relay
    hostile: set[int] = field(default_factory=set)
    # a seat goes silent from the first entry it writes for which this is true
    silence: Callable[[int, bytes], bool] | None = None
    # nodes that join the votes they take at their next tick (Session.defer_join, as the
    # node layer does once its input is quiet), not inside the vote's processing
    defer_join: bool = False
    max_events: int = 3_000_000
    max_time: int = 10**9  # ms of simulated time


@dataclass
class NetStats:
    delivered: int = 0
    duplicates: int = 0
    dropped: int = 0
    fetches: int = 0
    stops: int = 0
    time: int = 0
    errors: dict[int, list[SessionError]] = field(default_factory=dict)


class SimNet:
    """Run ``table``'s sessions over a simulated network until nothing is left to do."""

    def __init__(self, table: LocalTable, seed: int | str, config: NetConfig | None = None):
        self.table = table
        self.sessions: list[Session] = table.sessions
        self.n = len(self.sessions)
        self.rng = random.Random(f"simnet/{seed}")
        self.cfg = config or NetConfig()
        self.stats = NetStats(errors={i: [] for i in range(self.n)})
        self._events: list[tuple[int, int, str, int, int, bytes]] = []
        self._tick = 0
        self._now = 0
        self._sent = [0] * self.n  # entries each node has written (for silent_after)
        self._seen = [0] * self.n  # log entries each node has relayed so far
        self._relayed: list[set[bytes]] = [set() for _ in range(self.n)]
        self._wait_since: list[tuple[object, int]] = [(None, 0)] * self.n
        self._asked: list[int] = [0] * self.n  # no sync request before this time
        # seat -> entries it wrote before it went silent (the config's, then what silence found)
        self.silenced: dict[int, int] = dict(self.cfg.silent_after)
        self._slots_sent: set[tuple[int, int, object]] = set()  # hostile seats' slots
        self._split: dict[bytes, list[tuple[bytes, list[int]]]] = {}  # entry -> per-peer versions

    # ------------------------------------------------------------------ plumbing
    def _push(self, at: int, kind: str, dst: int, src: int, data: bytes = b"") -> None:
        self._tick += 1
        heapq.heappush(self._events, (at, self._tick, kind, dst, src, data))

    def _dead(self, seat: int) -> bool:
        limit = self.silenced.get(seat)
        return limit is not None and self._sent[seat] >= limit

    def _send(self, src: int, dst: int, data: bytes) -> None:
        cfg = self.cfg
        if self.rng.random() < cfg.drop:
            self.stats.dropped += 1
            return
        copies = 2 if self.rng.random() < cfg.duplicate else 1
        self.stats.duplicates += copies - 1
        for _ in range(copies):
            lag = self.rng.randint(*cfg.delay) + cfg.slow.get(src, 0)
            self._push(self._now + lag, "entry", dst, src, data)

    def _flush(self, i: int) -> None:
        """Send what node ``i`` wrote, and relay what it took from others."""
        s = self.sessions[i]
        own = s.outbox[:]
        s.outbox.clear()
        cfg = self.cfg
        for raw in own:
            if self._dead(i):
                return
            if cfg.silence is not None and cfg.silence(i, raw):
                self.silenced[i] = self._sent[i]
                return
            if i in cfg.hostile:
                # a cheater sends each of its slots once (its tampered version) and never
                # the evidence its own honest code would relay against it
                e = self.sessions[i].log.entry_of(raw)
                if e is None or e.author != i or e.slot in self._slots_sent:
                    continue
                self._slots_sent.add(e.slot)
            self._sent[i] += 1
            split = self._split.pop(raw, None)
            if split is None:
                split = [(raw, [j for j in range(self.n) if j != i])]
            for data, targets in split:
                for j in targets:
                    if j != i:
                        self._send(i, j, data)
        if not self.cfg.relay or self._dead(i):
            self._seen[i] = len(s.log)
            return
        for h in s.log.hashes(self._seen[i]):
            if h in self._relayed[i]:
                continue
            self._relayed[i].add(h)
            raw = s.log.raw(h)
            if raw in own:
                continue
            for j in range(self.n):
                if j != i:
                    self._send(i, j, raw)
        self._seen[i] = len(s.log)

    # ------------------------------------------------------------------ running
    def _install_tamper(self, i: int) -> None:
        """A hostile seat's node stores and sends what the hook makes of each entry it writes
        (its own log holds the altered version, as a cheater's modified node would)."""
        s = self.sessions[i]
        emit = s._emit
        hook = self.cfg.tamper
        assert hook is not None

        def tampered(raw: bytes) -> None:
            out = hook(i, raw)
            if out is None:
                return  # withheld
            if isinstance(out, list):
                first = out[0][0]
                self._split[first] = out
                out = first
            emit(out)

        s._emit = tampered  # type: ignore[method-assign]

    def run(self) -> NetStats:
        if self.cfg.tamper is not None:
            for i in sorted(self.cfg.hostile):
                self._install_tamper(i)
        for i, s in enumerate(self.sessions):
            s.defer_join = self.cfg.defer_join
            s.start()
            self._flush(i)
            self._push(self.cfg.fetch_every, "tick", i, i)
        done = 0
        while self._events and done < self.cfg.max_events:
            at, _, kind, dst, src, data = heapq.heappop(self._events)
            if at > self.cfg.max_time:
                break
            self._now = at
            done += 1
            if self._dead(dst):
                continue
            s = self.sessions[dst]
            if kind == "entry":
                self.stats.delivered += 1
                try:
                    s.receive(data)
                except SessionError as e:
                    self.stats.errors[dst].append(e)
            elif kind == "fetch":  # src asks dst for these hashes (data: joined hashes)
                for k in range(0, len(data), 32):
                    h = data[k : k + 32]
                    if s.log.knows(h):
                        self._send(dst, src, s.log.raw(h))
            elif kind == "sync":  # src asks dst for every entry from step int(data)
                start = int(data)
                for h in s.log.hashes():  # every entry from that step, and every vote
                    got = s.log.entry(h)
                    if got.seq >= start or got.role is Role.VOTE:
                        self._send(dst, src, s.log.raw(h))
            elif kind == "tick":
                self._on_tick(dst)
            self._flush(dst)
        self.stats.time = self._now
        return self.stats

    def _busy(self) -> bool:
        """Anything in flight but ticks?"""
        return any(e[2] != "tick" for e in self._events)

    def _on_tick(self, i: int) -> None:
        s = self.sessions[i]
        cfg = self.cfg
        s.join_votes()  # (a vote taken since the last tick: joined now, if defer_join)
        missing = s.missing()
        if missing:
            self.stats.fetches += 1
            peer = self.rng.choice([j for j in range(self.n) if j != i])
            self._push(self._now + 1, "fetch", peer, i, b"".join(missing[:64]))
        w = s.waiting()
        key = (w.step, w.kind, w.seats)
        if key != self._wait_since[i][0]:
            self._wait_since[i] = (key, self._now)
        stuck = self._now - self._wait_since[i][1] >= 2 * cfg.fetch_every and w.seats
        if (s.behind > s._done_seq or stuck) and self._now >= self._asked[i]:
            # what a node does when it waits too long or sees it is behind: ask a peer for
            # every entry from the step in progress (a lost delivery is made up this way)
            self._asked[i] = self._now + 4 * cfg.fetch_every
            peer = self.rng.choice([j for j in range(self.n) if j != i])
            self._push(self._now + 1, "sync", peer, i, str(s._done_seq + 1).encode())
        if (
            cfg.deadline is not None
            and w.seats
            and self._now - self._wait_since[i][1] >= cfg.deadline
            and s.stop([j for j in range(self.n) if self._dead(j)])  # (a node's dropped links)
        ):
            self.stats.stops += 1
        others_live = any(not self._dead(j) and not self.sessions[j].over for j in range(self.n))
        if self._busy() or others_live or missing:
            self._push(self._now + cfg.fetch_every, "tick", i, i)


# ---------------------------------------------------------------------- delivery independence
Fingerprint = tuple[frozenset[bytes], bytes, object]
_REFERENCE: dict[tuple[object, str], Fingerprint] = {}


def fingerprint(s: Session) -> Fingerprint:
    """What every honest node must agree on: its entries (as a set), its state digest, its
    outcome."""
    return (frozenset(s.log.raw(h) for h in s.log.hashes()), s.engine.digest(), s.outcome)


def reference(options: object, seed: str) -> Fingerprint:
    """The in-order run of a seeded game (entries delivered one by one, in the order sent)."""
    from p2puno.engine import Options

    assert isinstance(options, Options)
    key = (options, seed)
    if key not in _REFERENCE:
        table = LocalTable(options, seed=seed)
        table.run()
        prints = {fingerprint(s) for s in table.sessions}
        assert len(prints) == 1, "the in-order run itself disagrees"
        _REFERENCE[key] = prints.pop()
    return _REFERENCE[key]


def check_schedule(options: object, seed: str, net_seed: int | str, config: NetConfig) -> str:
    """Play the seeded game over the simulated network; '' if every node ends with the same
    entries, digest and outcome as the in-order run, else what differs."""
    from p2puno.engine import Options

    assert isinstance(options, Options)
    want = reference(options, seed)
    table = LocalTable(options, seed=seed)
    written: list[list[bytes]] = []
    for s in table.sessions:  # what each node would append to its log file, in order
        assert s.log.genesis_raw is not None
        order = [s.log.genesis_raw]
        written.append(order)
        s.on_entry = order.append
    stats = SimNet(table, net_seed, config).run()
    problems = []
    for i, order in enumerate(written):
        bad = _parents_last(order)
        if bad is not None:
            problems.append(f"seat {i} wrote entry {bad} of its log before one of its parents")
    for s in table.sessions:
        # parking keeps no trace of a parent that came (a leak, one key per parked entry)
        came = [m for m in s._waiting_on if s.log.knows(m)]
        if came:
            problems.append(f"seat {s.seat}: {len(came)} parents that came are still waited on")
        got = fingerprint(s)
        if got != want:
            entries = f"{len(got[0])} entries, {len(got[0] ^ want[0])} differ"
            problems.append(f"seat {s.seat}: {entries}; digest same: {got[1] == want[1]}; {got[2]}")
    errors = [f"seat {i}: {e}" for i, es in stats.errors.items() for e in es]
    if errors:
        problems.append(f"refusals: {errors[:3]}")
    if problems:
        return f"{options}, game {seed!r}, net {net_seed!r}, {config}: " + "; ".join(problems)
    return ""


def _parents_last(order: list[bytes]) -> int | None:
    """The index of the first entry written before one of its parents (a log file must hold
    parents first: protocol/spec.md 9), else None. Evidence entries are exempt."""
    from p2puno.log import Entry, entry_hash
    from p2puno.wire import decode

    seen: set[bytes] = set()
    slots: set[tuple[int, int, object]] = set()
    for i, raw in enumerate(order):
        e = Entry.from_obj(decode(raw))
        if e.slot not in slots and i > 0 and any(p not in seen for p in e.prev):
            return i
        slots.add(e.slot)
        seen.add(entry_hash(raw))
    return None
