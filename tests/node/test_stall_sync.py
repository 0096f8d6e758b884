"""A step that stalls is asked again of the seats it waits for (protocol/lobby.md section 4,
SYNC; spec 10.14, delivery independence: a copy lost in a cut link must come back before the
deadline, else an honest seat is voted out).

Found by tests/node/test_net_chaos.py under load: the host's entry went into both its links as
they were cut; both links came back, but each joiner asked a random peer for the step every
2 s, the other joiner (which lacked it too) as often as the host, and within the 5 s deadline
both voted the host out. Now the seats waited for are asked (and one other), and a SYNC that
comes within a second of the last one served (a link dialed again at once) is kept and served
when its second is up, not dropped.
"""

from __future__ import annotations

import time
from pathlib import Path

from p2puno.net import MsgType
from p2puno.net.frames import encode_sync
from p2puno.node.game import SYNC_EVERY, GameNode
from p2puno.session.harness import LocalTable
from tests.node.test_hostile_input import _QuietLink, _StubLink, middle_of_three, stop_dialer


def _three(tmp_path: Path) -> tuple[GameNode, LocalTable]:
    node, table = middle_of_three("stall", tmp_path)
    node.say = lambda text: None  # type: ignore[method-assign]
    return node, table


def test_a_stalled_step_is_asked_of_the_seat_it_waits_for(tmp_path: Path) -> None:
    node, _ = _three(tmp_path)
    (awaited,) = node.session.waiting().seats
    other = 2 - awaited  # (seats 0 and 2 besides this node's 1)
    links = {awaited: _StubLink(), other: _StubLink()}
    for link in links.values():
        link.closed = False  # type: ignore[attr-defined]
    node.links.update(links)  # type: ignore[arg-type]
    now = time.monotonic()
    node._deadlines(now)  # (the wait starts)
    for k in range(1, 11):  # ten stalls, 2.1 s apart: within no deadline, asked each time
        node._last_sync = 0.0
        node._deadlines(now + 2.1 + k * 0.01)
    syncs = {seat: [t for t, _ in link.sent if t == MsgType.SYNC] for seat, link in links.items()}
    assert len(syncs[awaited]) == 10, syncs  # (a random peer: all ten there 1 time in 1,024)
    # ... and one other seat each time, in case the awaited one withholds (helper-95)
    assert len(syncs[other]) == 10, syncs
    assert not node.session.log.votes()  # (before the deadline: nobody voted out)


def test_a_stall_with_the_awaited_seat_away_asks_another(tmp_path: Path) -> None:
    node, _ = _three(tmp_path)
    (awaited,) = node.session.waiting().seats
    other = 2 - awaited
    link = _StubLink()
    link.closed = False  # type: ignore[attr-defined]
    node.links[other] = link  # type: ignore[assignment]
    now = time.monotonic()
    node._deadlines(now)
    node._deadlines(now + 2.1)
    assert [t for t, _ in link.sent] == [MsgType.SYNC]  # (it may have relayed what was lost)


async def test_a_sync_too_soon_is_served_once_its_time_is_up_on_the_new_link(
    tmp_path: Path,
) -> None:
    """Per peer, a SYNC is served at most every SYNC_EVERY s. A link cut and dialed again at
    once must not lose its SYNC to that limit (what went into the cut link came back only by a
    stall's SYNC, 2 s later): one that comes too soon is kept and served when its time is up,
    on the seat's link of then; never more than one a second (helper-95: serving each new
    link's at once let a seat that redials have 12 a second served, 1 MB each)."""
    node, _ = _three(tmp_path)
    try:
        first = _QuietLink()
        node._adopt(0, first)  # type: ignore[arg-type]
        node._on_message(0, first, MsgType.SYNC, encode_sync(0))  # type: ignore[arg-type]
        assert len(first.sent) > 1  # (this node's SYNC, then the log from step 0)
        served_at = node._served_sync[0]
        again = _QuietLink()
        again.closed = False  # type: ignore[attr-defined]
        node._adopt(0, again)  # type: ignore[arg-type]  # (dialed again, within SYNC_EVERY)
        before = len(again.sent)
        for _ in range(5):  # (a flood of them: one kept)
            node._on_message(0, again, MsgType.SYNC, encode_sync(0))  # type: ignore[arg-type]
        assert len(again.sent) == before  # not yet: within the second
        node._serve_pending(served_at + SYNC_EVERY / 2)
        assert len(again.sent) == before
        node._serve_pending(served_at + SYNC_EVERY + 0.01)
        entries = [t for t, _ in again.sent[before:]]
        assert entries and set(entries) == {MsgType.ENTRY}, again.sent  # served, not dropped
        node._serve_pending(served_at + SYNC_EVERY + 0.02)
        assert len(again.sent) == before + len(entries)  # (once)
    finally:
        for t in list(node._tasks):
            t.cancel()


async def test_a_seat_that_closes_each_link_at_once_is_dialed_with_a_backoff(
    tmp_path: Path,
) -> None:
    """A lower seat that accepts each link and closes it at once (a SYNC first, each served
    at a cost) was dialed again at once, each time: 58 handshakes in 5 s (helper-95). A link
    that lived under a second is backed off as a failed dial is (protocol/lobby.md section 3:
    0.1 s doubling to 3 s)."""
    import asyncio

    from p2puno.engine import Options
    from p2puno.log import Identity
    from p2puno.net import Link
    from p2puno.net.link import serve_links
    from p2puno.node.game import NODE_LIMITS, Address
    from p2puno.node.players import BotPlayer
    from p2puno.node.store import GameFiles

    table = LocalTable(Options(2, target=25), seed="redial")
    session = table.sessions[1]
    me = session.identity
    assert me is not None
    hostile = Identity.from_test_seed(b"redial/id/0")
    links = 0

    async def on_link(link: Link) -> None:
        nonlocal links
        links += 1
        link.send(MsgType.SYNC, encode_sync(0))
        link.close("bye now")

    server = await serve_links(
        "127.0.0.1", 0, hostile, session.game_id, lambda k: True, on_link, NODE_LIMITS
    )
    port = server.sockets[0].getsockname()[1]
    node = GameNode(
        session,
        me,
        [Address("127.0.0.1", port), None],
        GameFiles(tmp_path / "node"),
        BotPlayer("heuristic", "t"),
        say=lambda text: None,
    )
    run = asyncio.ensure_future(node.run())
    try:
        await asyncio.sleep(3.0)
        assert node.failed is None
        # 0.05-0.15, then 0.1-0.3, 0.2-0.6, 0.4-1.2, 0.8-2.4 s apart: 6 links at most in 3 s
        assert 2 <= links <= 7, links
    finally:
        await stop_dialer(node, run, server)
