"""Hostile peer input against a node's runtime, found by an attack on it (2026-11-26).

A seat below this node's that answers its dial with a message and then a BYE at once (or
garbage, then a BYE): the node names the dropped link and dials again; it never stops. Before
the fix the node's dialler task raised (the SYNC it sends on a new link went to a closed link,
or a handler error came back through ``Link.set_handler``), and a node task that raises stops
the node: a lower seat could stop every seat that dials it, and each resume again.

A seat that announces hashes that do not exist: bounded (below)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import pytest

from p2puno.engine import Options
from p2puno.log import Identity, entry_hash
from p2puno.net import Limits, Link, MsgType
from p2puno.net.link import serve_links
from p2puno.node.game import NODE_LIMITS, Address, GameNode, Watcher
from p2puno.node.players import BotPlayer
from p2puno.node.store import GameFiles
from p2puno.session.harness import LocalTable
from p2puno.wire import decode, encode


@pytest.mark.parametrize("first", [b"lobby", b"garbage"])
async def test_a_peer_that_says_one_thing_then_bye_does_not_stop_the_dialler(
    tmp_path: object, first: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    import p2puno.node.game as game_module

    # (a peer dropped for refused entries is kept out HOLD_OFF_S first: made short here)
    monkeypatch.setattr(game_module, "HOLD_OFF_S", 0.1)
    seed = "dial"
    table = LocalTable(Options(2, target=25), seed=seed, bots=["heuristic"])
    session = table.sessions[1]
    game = session.game_id
    hostile = Identity.from_test_seed(f"{seed}/id/0".encode())
    me = session.identity
    assert me is not None
    links = 0

    async def on_link(link: Link) -> None:
        nonlocal links
        links += 1
        if first == b"lobby":
            link.send(MsgType.LOBBY, b"{}")
        else:
            for _ in range(30):  # entries that are not entries: refused, counted, dropped
                link.send(MsgType.ENTRY, b"{}")
        link.close("bye now")

    server = await serve_links("127.0.0.1", 0, hostile, game, lambda k: True, on_link, NODE_LIMITS)
    port = server.sockets[0].getsockname()[1]
    said: list[str] = []
    node = GameNode(
        session,
        me,
        [Address("127.0.0.1", port), None],
        GameFiles(tmp_path / "node"),  # type: ignore[operator]
        BotPlayer("heuristic", "t"),
        say=said.append,
    )
    run = asyncio.ensure_future(node.run())
    try:
        for _ in range(100):
            await asyncio.sleep(0.05)
            if links >= 3:
                break
        assert node.failed is None, said
        assert links >= 3  # it dialled again, and again
        if first == b"garbage":  # (kept out a while each time: 0.1, 0.2, 0.4 s here)
            assert any("refused entries" in line and "kept out for" in line for line in said)
        assert not any("internal error in this node" in line for line in said)
    finally:
        await stop_dialer(node, run, server)


async def stop_dialer(node: GameNode, run: asyncio.Future[Any], server: asyncio.Server) -> None:
    """A dialling node's test over: the node closed, its run ended, the peer's server shut."""
    await node.close("test over")
    node.done.set()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(run, 5)
    server.close()


class _StubLink:
    """What the node's message handler needs of a link: what it sends, and a close."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.sent: list[tuple[int, bytes]] = []
        self.closed_why: str | None = None
        self.limits = limits or Limits()
        self.queued_messages = 0
        self.queued_bytes = 0

    def send(self, mtype: int, payload: bytes) -> None:
        self.sent.append((mtype, payload))

    def close(self, reason: str = "closed") -> None:
        self.closed_why = reason


class _QuietLink(_StubLink):
    """A stub link a node can adopt: it takes a handler and never closes by itself."""

    def set_handler(self, handler: object) -> None:
        pass

    async def wait_closed(self) -> None:
        await asyncio.sleep(3600)


def _lone_node(seed: str, tmp_path: object, seat: int = 1) -> tuple[GameNode, LocalTable]:
    """Seat 1 (or ``seat``) of a two-seat table as a node with no link yet (messages are
    handed to it)."""
    table = LocalTable(Options(2, target=25), seed=seed)
    session = table.sessions[seat]
    assert session.identity is not None
    addresses: list[Address | None] = [Address("127.0.0.1", 9), Address("127.0.0.1", 9)]
    addresses[seat] = None
    node = GameNode(
        session,
        session.identity,
        addresses,
        GameFiles(tmp_path / "node"),  # type: ignore[operator]
        BotPlayer("heuristic", "t"),
    )
    return node, table


def middle_of_three(seed: str, tmp_path: object) -> tuple[GameNode, LocalTable]:
    """Seat 1 of a three-seat table as a node with no link yet; every seat's game started
    (messages are handed to it)."""
    table = LocalTable(Options(3, target=25), seed=seed)
    session = table.sessions[1]
    assert session.identity is not None
    node = GameNode(
        session,
        session.identity,
        [Address("127.0.0.1", 9), None, Address("127.0.0.1", 10)],
        GameFiles(tmp_path / "node"),  # type: ignore[operator]
        BotPlayer("heuristic", "t"),
    )
    for s in table.sessions:
        s.start()
    return node, table


async def test_a_flood_of_announced_hashes_that_do_not_exist_is_bounded(tmp_path: object) -> None:
    """A seat announces (HAVE) hashes no one holds, as fast as its link allows: the node keeps
    at most MAX_WANTED of them waiting to be fetched, and gives each up after WANTED_FOR
    seconds (before, every one stayed for ever: 774k of them, 252 MiB, and a timer walking
    them all every 50 ms, seen in an attack over a real link)."""
    import os
    import time

    from p2puno.net.frames import MAX_FETCH, encode_fetch
    from p2puno.node.game import MAX_WANTED, WANTED_FOR

    node, _ = _lone_node("have", tmp_path)
    link = _StubLink()
    for _ in range(4 * MAX_WANTED // MAX_FETCH):
        payload = encode_fetch([os.urandom(32) for _ in range(MAX_FETCH)])
        node._on_message(0, link, MsgType.HAVE, payload)  # type: ignore[arg-type]
    assert len(node._wanted) == MAX_WANTED
    node._fetch_wanted(time.monotonic() + WANTED_FOR + 1)
    assert not node._wanted


def _field(raw: bytes, name: str) -> Any:
    obj = decode(raw)
    assert isinstance(obj, dict)
    return obj[name]


def _pruned_node(tmp_path: object) -> tuple[GameNode, Path]:
    """Seat 1 of a finished two-seat game, rebuilt with all but its last steps pruned from
    memory, as a node whose log file holds the whole game."""
    from p2puno.session.crashsim import files_of, play_with_crash
    from p2puno.session.harness import rebuild

    root = tmp_path / "game"  # type: ignore[operator]
    root.mkdir()
    play_with_crash(Options(2, target=25), "resume", root, 1, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(root, 1)
    session = rebuild(log_path, secrets_path, prune_keep=4)
    assert session.identity is not None and session.log.memory_start > 0
    files = GameFiles(tmp_path / "node")  # type: ignore[operator]
    files.log_path = log_path  # the node's file holds the whole game
    node = GameNode(
        session,
        session.identity,
        [Address("127.0.0.1", 9), None],
        files,
        BotPlayer("heuristic", "t"),
    )
    node._pruned_to = session.log.pruned_before
    return node, log_path


async def test_a_spectator_is_served_from_memory_only(tmp_path: object) -> None:
    """A spectator needs no key, only the address: its SYNC of a step long gone and its FETCH
    of an entry pruned from memory are not read back from the log file (each read scans the
    whole game; 8 spectators asking in a loop lagged a node's event loop about 3 s a second).
    It was sent the whole file when it came (the backlog), so nothing older is owed to it."""
    from p2puno.net.frames import encode_fetch, encode_sync
    from p2puno.node.game import Watcher

    node, log_path = _pruned_node(tmp_path)
    link = _StubLink()
    w = Watcher(link, "eve", "00", -1, pos=None)  # type: ignore[arg-type]
    first = next(iter(log_path.read_bytes().splitlines()))
    node._on_watcher(w, MsgType.FETCH, encode_fetch([entry_hash(first)]))
    assert link.sent == []  # the genesis is on disk only: not read back for a spectator
    node._on_watcher(w, MsgType.SYNC, encode_sync(0))
    seqs = {_field(p, "seq") for _, p in link.sent}
    assert seqs and min(seqs) >= node._pruned_to


async def test_a_backlog_window_made_small_by_what_is_queued_waits_for_the_drain(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """helper-38: the backlog reads what the link has room for (WATCH_BACKLOG_BYTES less what
    is queued); a second pump before the link drained read less than a line, and the spectator
    was dropped for "an entry longer than the backlog window" with no entry that long. Now it
    waits for the drain; only a whole window with no line end in it is that fault."""
    import p2puno.node.game as game_module
    from p2puno.node.game import Watcher

    monkeypatch.setattr(game_module, "WATCH_BACKLOG_BYTES", 50_000)
    node, _ = _lone_node("backlog", tmp_path)
    path = node.files.log_path
    path.write_bytes(b"".join(bytes([65 + i]) * 20_000 + b"\n" for i in range(6)))

    class _Queueing(_StubLink):
        def send(self, mtype: int, payload: bytes) -> None:
            super().send(mtype, payload)
            self.queued_bytes += len(payload) + 1

    link = _Queueing()
    w = Watcher(link, "eve", "00", -1)  # type: ignore[arg-type]
    node._stream_backlog(w)
    assert len(link.sent) == 2 and link.closed_why is None  # (40,002 of 50,000 bytes)
    node._stream_backlog(w)  # room for 9,998 bytes: less than a line
    assert len(link.sent) == 2 and link.closed_why is None
    link.queued_bytes = 0  # drained
    node._stream_backlog(w)
    assert len(link.sent) == 4 and link.closed_why is None
    path.write_bytes(b"x" * 60_000)  # a whole window and no line end: that is the fault
    other = _Queueing()
    node._stream_backlog(Watcher(other, "mal", "01", -2))  # type: ignore[arg-type]
    assert other.closed_why == "an entry longer than the backlog window"


async def test_a_seat_asking_for_pruned_entries_gets_them_by_a_seek_not_a_scan(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat FETCHes entries pruned from memory and SYNCs from a pruned step: it gets the
    very bytes, read back from the log file at their step (LogFileIndex). Before, each such
    read went through the whole file, hashing or decoding every line: 50 ms for one FETCH in a
    15,000-line game, and a seat may ask 17 times a second, most of a core. Now one read hashes
    the lines of at most two steps, and a SYNC sends from the step asked for on."""
    from p2puno.net.frames import encode_fetch, encode_sync

    node, log_path = _pruned_node(tmp_path)
    lines = log_path.read_bytes().splitlines()
    log_ = node.session.log
    gone = [raw for raw in lines if entry_hash(raw) in log_._gone]
    assert len(gone) > 20
    hashed = 0

    def counting(raw: bytes) -> bytes:
        nonlocal hashed
        hashed += 1
        return entry_hash(raw)

    monkeypatch.setattr("p2puno.log.store.entry_hash", counting)
    link = _StubLink()
    for raw in (gone[0], gone[len(gone) // 2], gone[-1]):
        hashed = 0
        node._on_message(0, link, MsgType.FETCH, encode_fetch([entry_hash(raw)]))  # type: ignore[arg-type]
        assert link.sent[-1] == (MsgType.ENTRY, raw)
        assert 1 <= hashed <= 2 * 2 + 1  # two steps of a two-seat game (a proposal, an answer)
    assert len(lines) > 20 * 5  # ... out of a file far longer

    start = node._pruned_to - 10
    link = _StubLink()
    node._on_message(0, link, MsgType.SYNC, encode_sync(start))  # type: ignore[arg-type]
    want = [raw for raw in lines if _field(raw, "seq") >= start or _field(raw, "role") == "vote"]
    assert sorted(p for _, p in link.sent) == sorted(want)  # every one, once


async def test_a_sync_sends_no_more_than_the_link_has_room_for(tmp_path: object) -> None:
    """A peer far behind SYNCs: the node sends what the link's send queue has room for, not
    the whole backlog (over the queue's cap the link closes as too slow, and the peer could
    never catch up); the peer takes it and asks again."""
    from p2puno.net.frames import encode_sync
    from p2puno.node.game import SYNC_RESERVE_MESSAGES

    node, log_path = _pruned_node(tmp_path)
    limits = Limits()
    link = _StubLink(limits)
    link.queued_messages = limits.send_queue_frames - SYNC_RESERVE_MESSAGES - 7
    node._on_message(0, link, MsgType.SYNC, encode_sync(1))  # type: ignore[arg-type]
    assert len(link.sent) == 7
    lines = log_path.read_bytes().splitlines()
    first = lines.index(link.sent[0][1])
    assert [p for _, p in link.sent] == lines[first : first + 7]  # in the file's order
    assert _field(lines[first], "seq") <= 1 <= _field(lines[first + 6], "seq")


async def test_a_signed_entry_for_a_step_that_will_never_exist_is_given_up(
    tmp_path: object,
) -> None:
    """A seat signs an entry a million steps ahead, on a parent that does not exist. The node
    takes it for a sign that it was away and asks a peer to SYNC it; once BEHIND_TRIES such
    SYNCs brought no step, it forgets the entry (before, it asked every 0.5 s to the end of
    the game, each SYNC served by a peer)."""
    import os

    from p2puno.log import Role, sign_entry
    from p2puno.node.game import BEHIND_TRIES

    node, table = _lone_node("ahead", tmp_path)
    session = node.session
    liar = table.sessions[0].identity
    assert liar is not None
    link = _StubLink()
    node.links[0] = link  # type: ignore[assignment]
    far = sign_entry(
        liar, game=session.game_id, seq=10**6, author=0, role=Role.PROPOSAL, kind="action",
        prev=[os.urandom(32), os.urandom(32)], body={},
    )  # fmt: skip
    node._on_message(0, link, MsgType.ENTRY, far)  # type: ignore[arg-type]
    assert session.behind == 10**6
    for _ in range(3 * BEHIND_TRIES):
        node._last_sync = 0.0  # as if 0.5 s went by each time
        node._pump()
    syncs = [m for m in link.sent if m[0] == MsgType.SYNC]
    assert len(syncs) == BEHIND_TRIES
    assert session.behind <= session.processed + 1
    assert link.closed_why is None  # a signed entry of a real seat: no garbage to drop it for


@pytest.mark.parametrize(
    "what", ["entries far ahead", "made-up HAVEs", "made-up FETCHes", "notices"]
)
async def test_a_seat_whose_messages_take_no_place_but_cost_cpu_is_dropped_and_named(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    """Issue 11: per-peer limits on CPU; a peer that floods is dropped and named. A seat signs
    entries far ahead: each is decoded and its signature checked, then dropped unrefused (the
    node takes it as a sign it is behind), so no count of refused entries ever dropped the
    seat: at the link's frame rate it held the node at 100% CPU (0.28 ms each, 2.8 ms for 60
    KB), naming no one; so did notices of 16 KiB (1 ms each), HAVEs and FETCHes of 256
    made-up hashes (0.15 and 0.17 ms). Now what such messages cost is charged to their seat,
    and over its budget the seat is dropped and kept out as for refused entries (the budget
    made small here)."""
    import json
    import os

    import p2puno.node.game as game_module
    from p2puno.log import Role, sign_entry
    from p2puno.net.frames import encode_fetch

    monkeypatch.setattr(game_module, "CPU_BURST", 0.05)
    monkeypatch.setattr(game_module, "CPU_PER_S", 0.01)
    node, table = _lone_node("cpu", tmp_path)
    said: list[str] = []
    node.say = said.append  # type: ignore[method-assign]
    session = node.session
    liar = table.sessions[0].identity
    assert liar is not None
    link = _StubLink()
    node.links[0] = link  # type: ignore[assignment]
    parents = [os.urandom(32), os.urandom(32)]
    notice = json.dumps({"t": "chat", "text": "hi", "pad": [7] * 5000}).encode()

    def message(k: int) -> tuple[int, bytes]:
        if what.startswith("made-up"):  # (helper-103: the FETCHes were not charged)
            kind = MsgType.HAVE if what == "made-up HAVEs" else MsgType.FETCH
            return kind, encode_fetch([os.urandom(32) for _ in range(256)])
        if what == "notices":
            return MsgType.LOBBY, notice
        return MsgType.ENTRY, sign_entry(
            liar, game=session.game_id, seq=10**6 + k, author=0, role=Role.PROPOSAL,
            kind="action", prev=parents, body={"x": [7] * 200},
        )  # fmt: skip

    cpu = time.thread_time()
    sent = 0
    while link.closed_why is None and sent < 5000:  # (about 50 ms of CPU should do)
        node._on_message(0, link, *message(sent))  # type: ignore[arg-type]
        sent += 1
    assert link.closed_why is not None and "of CPU: kept out for" in link.closed_why, sent
    assert any(
        line.startswith("dropping seat 0's link: what it sent that took no place in the game")
        for line in said
    ), said
    assert not node.stats.refused  # (none was refused)
    assert time.thread_time() - cpu < 5.0  # (making them cost the test more than the node)
    again = _QuietLink()
    node._adopt(0, again)  # type: ignore[arg-type]  # (it dialed back at once: kept out)
    assert again.closed_why is not None and again.closed_why.startswith("kept out for")
    for t in list(node._tasks):
        t.cancel()


async def test_a_held_window_entry_reaches_no_one_before_it_leaves(tmp_path: object) -> None:
    """Spec 10.9: a node's entry of a claimable window leaves W after the window became due,
    whatever its seat decided. Until then it is in the node's log but must reach no one: not
    announced (HAVE), not given to a FETCH, a SYNC or a spectator. Before, it was announced at
    the next tick and fetched: with W = 2 s, 3 bot nodes over 127.0.0.1 got each other's held
    entries 0.23-0.50 s after the window became due (a seat reading the others' claims and
    decision times before its own W had passed); now the first copy arrives at +2.0 s."""
    import time

    from p2puno.net.frames import decode_fetch, encode_fetch, encode_sync
    from p2puno.node.game import Watcher

    node, _ = _pruned_node(tmp_path)
    log_ = node.session.log
    hashes = log_.hashes(log_.memory_start)
    k, h = next((k, h) for k, h in enumerate(hashes) if log_.entry(h).author == node.me)
    raw, seq = log_.raw(h), log_.entry(h).seq
    node._held.append((time.monotonic() + 60, raw))  # as _pump holds a window entry
    node._held_hashes.add(h)
    peer = _StubLink()
    node.links[0] = peer  # type: ignore[assignment]
    watcher = _StubLink()
    w = Watcher(watcher, "eve", "00", -1, pos=None)  # type: ignore[arg-type]
    w.sent = log_.memory_start
    node.watchers.append(w)

    def reached(link: _StubLink) -> bool:
        entries = [p for t, p in link.sent if t == MsgType.ENTRY]
        haves = [x for t, p in link.sent if t == MsgType.HAVE for x in decode_fetch(p)]
        return raw in entries or h in haves

    node._have = list(hashes)
    node._announce()
    node._on_message(0, peer, MsgType.FETCH, encode_fetch([h]))  # type: ignore[arg-type]
    node._on_message(0, peer, MsgType.SYNC, encode_sync(seq - 1))  # type: ignore[arg-type]
    node._feed_watchers()
    assert not reached(peer) and not reached(watcher)
    assert any(t == MsgType.HAVE for t, _ in peer.sent)  # the rest was announced ...
    fed = [p for t, p in watcher.sent if t == MsgType.ENTRY]
    assert fed == [log_.raw(x) for x in hashes[:k]]  # ... and fed
    node._held = [(0.0, raw)]  # its time has come
    node._flush_held(time.monotonic())
    node._announce()
    node._feed_watchers()
    assert reached(peer) and reached(watcher)
    assert not node._held_hashes


async def test_the_players_are_told_when_a_seat_leaves_and_when_it_is_back(
    tmp_path: object,
) -> None:
    """Found driving the CLI: a person who left on purpose (q, y: its node says BYE) vanished
    without a word at the others' tables, and nothing was said when it came back with
    `p2puno resume`. A dropped link was said already; both now name the player."""
    from p2puno.net.link import LinkError
    from p2puno.node.game import GAME_OVER_BYE, LEAVING_BYES

    node, _ = _lone_node("bye", tmp_path)
    said: list[str] = []
    node.say = said.append  # type: ignore[method-assign]

    class _Closing(_StubLink):
        def __init__(self, code: str, detail: str = f"said bye: {LEAVING_BYES[0]}") -> None:
            super().__init__()
            self.error = LinkError(code, detail)

        async def wait_closed(self) -> None:
            return None

        def set_handler(self, handler: object) -> None:
            pass

        @property
        def closed(self) -> bool:
            return False

    name = node.session.log.players[0].name
    first = _Closing("bye")
    node.links[0] = first  # type: ignore[assignment]
    await node._watch(0, first)  # type: ignore[arg-type]
    assert said[-1].startswith(f"{name} (seat 0) left the table")
    # (how long it has, in numbers: protocol/lobby.md section 5, a leaver's step_s)
    assert f"unless it is back within {node.timing.step_s} s of when the game" in said[-1]
    twin = _Closing("bye")  # (a second link of the same node, its BYE too: said once,
    node.links[0] = twin  # type: ignore[assignment]  # helper-36 read it twice)
    await node._watch(0, twin)  # type: ignore[arg-type]
    assert len(said) == 1
    back = _Closing("bye")
    node._adopt(0, back)  # type: ignore[arg-type]
    # back once it says something on the new link (helper-30: a link to its node, lingering
    # on its way out, read "is back" then "left the table" again)
    assert len(said) == 1 and 0 in node.left
    node._on_message(0, back, MsgType.LOBBY, encode({"t": "hi"}))  # type: ignore[arg-type]
    assert said[-1] == f"{name} (seat 0) is back" and 0 not in node.left
    again = _Closing("bye")
    node._adopt(0, again)  # type: ignore[arg-type]  # (a new link: nothing to say)
    node._on_message(0, again, MsgType.LOBBY, encode({"t": "hi"}))  # type: ignore[arg-type]
    assert said[-1] == f"{name} (seat 0) is back" and len(said) == 2
    # a peer whose game ended there first closes its links: it did not leave the table
    over = _Closing("bye", f"said bye: {GAME_OVER_BYE}")
    node.links[0] = over  # type: ignore[assignment]
    await node._watch(0, over)  # type: ignore[arg-type]
    assert len(said) == 2, said
    for t in list(node._tasks):  # (the links' watchers it started)
        t.cancel()


async def test_a_seat_reached_is_one_the_node_did_not_come_back_with(tmp_path: object) -> None:
    """protocol/lobby.md section 5 (helper-36, helper-41): a resumed node does not count as
    reached a seat its own machine brought back with it (a host's bot); that is known on the
    machine, not taken on a peer's word: a "back" notice from a seat that stalled kept a
    resumed node from voting, so none is taken any more."""

    node, _ = _lone_node("back", tmp_path)
    node.resumed_at = (node.session.processed, time.monotonic())
    node._adopt(0, _QuietLink())  # type: ignore[arg-type]
    node._on_notice(0, encode({"t": "back"}))  # (a peer's word: nothing)
    assert node._reached()
    node.came_back_with = {0}  # (its host brought it back with seat 0)
    assert not node._reached()
    for t in list(node._tasks):
        t.cancel()


async def test_a_wait_on_a_seat_with_no_link_is_said_once(tmp_path: object) -> None:
    """Found driving the CLI: a resumed node whose table was gone waited without a word (a
    line prompt shows no countdown). Past 5 s of waiting on a seat it has no link to, the node
    says so once, with the time left to the deadline."""
    import time

    node, table = _lone_node("wait", tmp_path)
    for s in table.sessions:
        s.start()
    said: list[str] = []
    node.say = said.append  # type: ignore[method-assign]
    w = node.session.waiting()
    assert w.seats == (0,), w
    now = time.monotonic()
    node._deadlines(now)
    node._deadlines(now + 1)
    assert said == []
    node._deadlines(now + 6)
    node._deadlines(now + 7)
    name = node.session.log.players[0].name
    assert len(said) == 1 and said[0].startswith(f'waiting for "{name}" to '), said
    assert "they are not connected (they left, or their computer or network is down)" in said[0]
    assert f'unless "{name}" is back within ' in said[0]
    # (what the end will give, said before it: helper-51); no round is verified yet, so the
    # scores stay at 0, not "as at the last verified round" (spec 10.15, "What it gives":
    # zeros if no deck was audited; helper-63)
    # (here the draw for dealer: no round has been dealt to void)
    assert (
        "the table ends the game: no round has been dealt yet, and the scores stay at 0"
        in (said[0])
    ), said[0]
    from p2puno.node.game import STOP_GIVES, STOP_GIVES_FIRST, stop_gives

    assert stop_gives(False, True) == STOP_GIVES and "last verified round" in STOP_GIVES
    assert stop_gives(False, False) == STOP_GIVES_FIRST and "stay at 0" in STOP_GIVES_FIRST
    assert stop_gives(True, False).endswith("the scores stay at 0)")


async def test_a_seat_that_just_lost_its_link_is_not_named_at_once(tmp_path: object) -> None:
    """Spec 10.15: a vote names the seats its node has no link to, but not one that lost its
    link less than LINK_GRACE_S ago (it may be redialing, and would join the stop), and, when
    this node has no link at all (its own network may be down), none before step_s (found by
    a review: an isolated node decided the stop alone at its first deadline)."""
    import time

    from p2puno.node.game import LINK_GRACE_S

    node, table = _lone_node("grace", tmp_path)
    for s in table.sessions:
        s.start()
    node.say = lambda text: None  # type: ignore[method-assign]
    now = time.monotonic()
    node._deadlines(now)  # (the wait for seat 0's shuffle starts)
    w = node.session.waiting()
    late = now + node._wait_deadline(w.kind, w.step, w.seats) + 1  # past the deadline ...
    node._lost_at[0] = late - 1  # ... but seat 0's link dropped a second ago; no other link
    node._deadlines(late)
    assert not node.session.log.votes()  # waits out the grace, a whole step_s here
    grace = max(LINK_GRACE_S, float(node.timing.step_s))
    node.left[0] = (
        node.session.processed
    )  # (seat 0 said it was leaving: else, no link left, it would not vote at
    # all: test_failures.py, "does not vote alone")
    node._deadlines(late - 1 + grace + 0.1)
    votes = node.session.log.votes()
    assert list(votes) == [1] and votes[1][1].body == {"waiting": [0]}


async def test_a_seat_linked_but_never_voting_is_named_in_an_amendment(tmp_path: object) -> None:
    """Spec 10.15, "Amending": seat 1 waits for a seat to which it has had no link for long,
    and votes naming it; the third seat stays linked (so it is left to join) but never votes.
    One deadline later the node amends its vote to name that seat too, and the stop is
    decided; it says so. Before, it waited for the third seat's vote for ever."""
    import time

    node, table = middle_of_three("amend-node", tmp_path)
    said: list[str] = []
    node.say = said.append  # type: ignore[method-assign]
    (gone,) = node.session.waiting().seats
    refuser = 2 - gone  # (seats 0 and 2 besides this node's 1)
    link = _StubLink()
    link.closed = False  # type: ignore[attr-defined]
    node.links[refuser] = link  # type: ignore[assignment]
    now = time.monotonic()
    node._lost_at[gone] = now - 1000  # its link went long ago
    node._deadlines(now)  # (the wait for its proposal starts)
    late = now + node._deadline(node.session.waiting().kind, True) + 1
    node._deadlines(late)
    votes = node.session.log.votes()
    assert list(votes) == [1] and votes[1][1].body == {"waiting": [gone]}  # the other may join
    assert node.session.outcome.state == "stopping"
    node._deadlines(late + 1)  # the wait for votes starts
    node._deadlines(late + 1 + node.timing.step_s / 2)
    assert len(node.session.log.vote_hashes(1)) == 1  # not before the deadline
    node._deadlines(late + 2 + node.timing.step_s)
    votes = node.session.log.votes()
    assert votes[1][1].body == {"waiting": [0, 2]} and len(node.session.log.vote_hashes(1)) == 2
    o = node.session.outcome
    assert o.state == "stopped" and o.silent == (0, 2), o
    assert any("your node names them in its vote too" in line for line in said), said
    node._deadlines(late + 3 + 2 * node.timing.step_s)
    assert len(node.session.log.vote_hashes(1)) == 2  # nothing more to name: no third vote
    # Spec 10.15, races (3): the seat named silent is still linked (a slow seat, say): the
    # node lingers past the game's end for its vote, so both end with the same outcome ...
    assert node.silent_but_linked()
    del node.links[refuser]
    assert not node.silent_but_linked()  # ... not for a seat whose link is gone
    node.links[refuser] = link  # type: ignore[assignment]
    late_voter = table.sessions[refuser]
    assert late_voter.stop()  # it gets there at last, and joins the stop
    for raw in late_voter.outbox:
        node.session.receive(raw)
    o = node.session.outcome
    assert o.state == "stopped" and o.silent == (gone,), o
    assert not node.silent_but_linked()  # its vote came: nothing more to wait for


async def test_a_seat_dropped_for_refused_entries_is_kept_out_for_a_while(tmp_path: object) -> None:
    """Issue 11 (a peer that sends garbage is dropped and named): helper-66's seat redialed at
    once after each drop and sent GARBAGE_LIMIT more, 73 times in 20 s (each link a handshake,
    each entry a decode). Now a seat dropped for refused entries is kept out HOLD_OFF_S, twice
    that the next time: a link it opens meanwhile is closed at once, and this node does not
    dial it."""
    from p2puno.node.game import GARBAGE_LIMIT, HOLD_OFF_S

    node, _ = _lone_node("held", tmp_path)
    said: list[str] = []
    node.say = said.append  # type: ignore[method-assign]
    link = _StubLink()
    node.links[0] = link  # type: ignore[assignment]
    for k in range(GARBAGE_LIMIT):
        node._on_message(0, link, MsgType.ENTRY, b"not an entry %d" % k)  # type: ignore[arg-type]
    assert link.closed_why is not None and f"kept out for {HOLD_OFF_S:.0f} s" in link.closed_why
    assert any(f"kept out for {HOLD_OFF_S:.0f} s" in line for line in said), said
    again = _QuietLink()
    node._adopt(0, again)  # type: ignore[arg-type]  # (it dialed back at once)
    assert again.closed_why is not None and again.closed_why.startswith("kept out for")
    assert node.links.get(0) is not again
    assert 0 < node._held_off_for(0) <= HOLD_OFF_S
    # its time out over, it is taken again; dropped again, it is kept out twice as long
    node._held_off[0] = (0.0, node._held_off[0][1])
    back = _QuietLink()
    node._adopt(0, back)  # type: ignore[arg-type]
    assert back.closed_why is None and node.links.get(0) is back
    for k in range(GARBAGE_LIMIT):
        node._on_message(0, back, MsgType.ENTRY, b"still not %d" % k)  # type: ignore[arg-type]
    assert back.closed_why is not None and f"{2 * HOLD_OFF_S:.0f} s" in back.closed_why
    for t in list(node._tasks):
        t.cancel()


async def test_a_spectator_asking_without_end_gets_a_budget_of_bytes(tmp_path: object) -> None:
    """helper-66: a spectator asked 20 times a second for the largest entries in memory and
    drew 5 MiB/s, reading none. Its FETCHes are answered with at most WATCH_FETCH_BURST bytes at
    once, WATCH_FETCH_BYTES_PER_S after that; what is over is not sent (it asks again)."""
    from p2puno.net.frames import encode_fetch
    from p2puno.node.game import Watcher

    node, _ = _pruned_node(tmp_path)
    log_ = node.session.log
    hashes = log_.hashes(log_.memory_start)
    size = sum(len(log_.raw(h)) for h in hashes)
    link = _StubLink()
    w = Watcher(link, "eve", "00", -1, pos=None)  # type: ignore[arg-type]
    w.fetch_budget, w.fetch_at = 3.0 * size, time.monotonic()
    for _ in range(40):
        node._on_watcher(w, MsgType.FETCH, encode_fetch(hashes))
    got = sum(len(p) for _, p in link.sent)
    assert 2 * size < got <= 3 * size + 40 * size // 10, (got, size)  # (the top-up: < 1 ms)


async def test_a_spectators_name_is_a_players_name_or_none_and_its_lines_are_paced(
    tmp_path: object,
) -> None:
    """helper-66: a spectator watched as 'Ann says: “I quit: vote me out”' (shown on every
    screen as "... is watching"), and a seat that swapped two lists of 8 names in its notices
    said 35,280 lines in 10 s. A spectator's name follows the players' rule (else it is "a
    spectator"), one drawn like a player's is marked, and a seat's "is watching" lines are
    at most WATCH_LINES in CHAT_PER_S."""
    from p2puno.node.game import WATCH_LINES

    node, _ = _lone_node("names", tmp_path)
    said: list[str] = []
    node.say = said.append  # type: ignore[method-assign]

    class _Spectator(_QuietLink):
        address = "127.0.0.1:5"
        peer = b"\x01" * 32

    for name, shown in (
        ("Ann says: “I quit: vote me out”", "a spectator"),
        ("＂hi＂", "a spectator"),
        ("\u0420\u0030", "\u0420\u0030 (a spectator)"),  # (Cyrillic Р and a zero: "P0")
        ("Eve", "Eve"),
    ):
        node.add_watcher(_Spectator(), {"t": "watch", "name": name})  # type: ignore[arg-type]
        assert node.watchers[-1].name == shown, (name, node.watchers[-1].name)
    flip = [[f"A{k}" for k in range(8)], [f"B{k}" for k in range(8)]]
    said.clear()
    for k in range(40):
        node._on_notice(1, encode({"t": "watchers", "names": flip[k % 2]}))
    assert len(said) == WATCH_LINES, said
    node._on_notice(1, encode({"t": "watchers", "names": ["Bo says: “bye”", "Cy"]}))
    assert node._watched_via[1] == ["Cy"]
    # (a seat's spectator drawn like a player is marked as this node's own are: helper-69)
    node._on_notice(1, encode({"t": "watchers", "names": ["\u0420\u0030", "p1"]}))
    assert node._watched_via[1] == ["\u0420\u0030 (a spectator)", "p1 (a spectator)"]
    for t in list(node._tasks):
        t.cancel()


async def test_a_node_stops_lingering_once_every_seat_holds_what_it_holds(tmp_path: object) -> None:
    """After the game's end a node lingers to pass on what others may lack (protocol/lobby.md
    section 5); it stops at once when every other seat has shown it holds the latest step and
    the votes (a HAVE, or an entry it sent), or said its own game is over, and lingers while a
    seat is not linked or has not shown it: every game's end waited 2 s for nothing."""
    from p2puno.net.frames import encode_fetch

    node, table = _lone_node("linger", tmp_path)
    table.run()
    assert node.session.outcome.over
    ends = node.session.log.ends()
    assert ends and node.session.log.proposal(node.session.log.head) is not None
    assert not node.everyone_holds_all()  # seat 0 not linked
    link = _QuietLink()
    node.links[0] = link  # type: ignore[assignment]
    others = [h for h in ends if node.session.log.entry(h).author != 0]
    assert others  # (a response of seat 1 to seat 0's last proposal, or the reverse)
    assert not node.everyone_holds_all()  # linked, nothing shown yet
    node._on_message(0, link, MsgType.HAVE, encode_fetch([b"\x01" * 32]))  # type: ignore[arg-type]
    assert not node.everyone_holds_all()  # another entry shown, not these
    node._on_message(0, link, MsgType.HAVE, encode_fetch(others))  # type: ignore[arg-type]
    assert node.everyone_holds_all()
    del node.links[0]
    assert not node.everyone_holds_all()  # its link gone: lingered for, as before
    node._over_at.add(0)  # (its node said its game is over)
    assert node.everyone_holds_all()


async def test_a_spectator_counts_the_wait_as_the_node_it_watches_through(tmp_path: object) -> None:
    """A spectator's screen counted a wait from when it first saw it (57 s left where the
    player's read 46 s, helper-70; docs/ui.md, "Watching"): the node it watches through now
    reports its own count (the seconds until it votes, spec 10.15), again when it moves, and
    the spectator counts from that; a report of any other shape is dropped, never a crash."""
    from p2puno.node.watch import Spectator

    node, _ = _lone_node("wait", tmp_path, seat=0)  # (it waits for seat 1's genesis reply)
    node._deadlines(time.monotonic() - 3.0)  # (the wait began 3 s ago)
    assert node.wait_left() is not None
    link = _StubLink()
    node.watchers.append(Watcher(link, "eve", "00", -1, pos=None))  # type: ignore[arg-type]
    node._feed_watchers()
    node._feed_watchers()  # (said once while the count does not move)
    reports = [decode(p) for t, p in link.sent if t == MsgType.LOBBY]
    waits = [r for r in reports if isinstance(r, dict) and r["t"] == "wait"]
    assert len(waits) == 1, reports
    spectator = Spectator()
    spectator.session = node.session  # (the same waits as an observer's session)
    assert spectator.wait_left() is None  # (no report: the screen's own clock)
    spectator._on_message(MsgType.LOBBY, encode(waits[0]))
    mine, theirs = spectator.wait_left(), node.wait_left()
    assert mine is not None and theirs is not None
    assert abs(mine[0] - theirs[0]) < 0.5 and mine[1] > 2.5 and mine[2] == theirs[2]
    for bad in ({**waits[0], "left_ms": -1}, {**waits[0], "left_ms": 10**9}, {"t": "wait"}):
        spectator._wait = None
        spectator._on_message(MsgType.LOBBY, encode(bad))
        assert spectator.wait_left() is None, bad
    spectator._on_message(MsgType.LOBBY, encode({**waits[0], "step": waits[0]["step"] + 1}))
    assert spectator.wait_left() is None  # (another step's count is not this wait's)
    # its own seat's turn: its node waits on nobody (it asks its person), so it says the
    # person's own time, which the spectator's screen counts as the players' do (it showed
    # 56 s where the person's own read 51 s, seen in tmux)
    from types import SimpleNamespace

    own, _ = _lone_node("own-turn", tmp_path / "own", seat=1)  # type: ignore[operator]
    assert own.wait_left() is None and own._wait_report() is None
    own.session.prompt = SimpleNamespace(kind="turn")  # type: ignore[assignment]
    own._deciding = asyncio.Future()
    own._prompt_since = time.monotonic() - 4.0
    report = own._wait_report()
    assert report is not None
    body = report[1]
    assert isinstance(body, dict) and body["deciding"] is True
    assert abs(body["left_ms"] / 1000 - (own.turn_limit - 4.0 + own.timing.step_s)) < 0.5
    own._deciding.cancel()
    for t in list(node._tasks):
        t.cancel()


def test_a_spectator_waits_for_a_late_vote_as_the_seats_do() -> None:
    """spec 10.15, races (3): a stop naming a seat silent may yet be joined by that seat's late
    vote, and the seats linger for it; a spectator stopped at the first verdict, and its record
    named one seat more than every seat's (helper-76: "Bot-1 and Bob did not answer", the
    seats' "Bot-1 did not", 3 times in 4). It then waited only while its node's last report
    said the seat was reached, and a seat back by `p2puno resume` still read as away there
    (helper-83: the spectators' records a step short of every seat's). It follows any stop
    while its node stays (up to step_s), whatever the reports say; not a finished game."""
    from types import SimpleNamespace

    from p2puno.node.watch import Spectator

    spectator = Spectator()
    assert not spectator.follows_a_stop()  # (no game yet)
    stopped = SimpleNamespace(state="stopped", silent=(1, 2))
    spectator.session = SimpleNamespace(outcome=stopped)  # type: ignore[assignment]
    for away, left in [({1}, set()), ({1, 2}, set()), ({1}, {2})]:
        spectator.away, spectator.left = frozenset(away), frozenset(left)
        assert spectator.follows_a_stop()  # (a report may be stale: the seat may be back)
    spectator.session = SimpleNamespace(  # type: ignore[assignment]
        outcome=SimpleNamespace(state="finished", silent=())
    )
    assert not spectator.follows_a_stop()
