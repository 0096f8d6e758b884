"""A step that stalls is asked again of the seats it waits for (protocol/lobby.md section 4,
SYNC; spec 10.14, delivery independence: a copy lost in a cut link must come back before the
deadline, else an honest seat is voted out).

Found by tests/node/test_net_chaos.py under load: the host's entry went into both its links as
they were cut; both links came back, but each joiner asked a random peer for the step every
2 s, the other joiner (which lacked it too) as often as the host, and within the 5 s deadline
both voted the host out. Now the seats waited for are asked first, and a new link's SYNC is
served even when the old link's was a moment ago.
"""

from __future__ import annotations

import time
from pathlib import Path

from p2puno.net import MsgType
from p2puno.net.frames import encode_sync
from p2puno.node.game import GameNode
from p2puno.session.harness import LocalTable
from tests.node.test_hostile_input import _QuietLink, _StubLink, middle_of_three


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
    assert syncs[other] == [], syncs
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


async def test_a_new_links_sync_is_served_though_the_last_links_was_just_now(
    tmp_path: Path,
) -> None:
    """Per peer, a SYNC is served at most every SYNC_EVERY s on a link; a link cut and dialed
    again at once must not lose its first SYNC to that limit (what went into the cut link came
    back only by a stall's SYNC, 2 s later)."""
    node, _ = _three(tmp_path)
    try:
        first = _QuietLink()
        node._adopt(0, first)  # type: ignore[arg-type]
        node._on_message(0, first, MsgType.SYNC, encode_sync(0))  # type: ignore[arg-type]
        assert len(first.sent) > 1  # (this node's SYNC, then the log from step 0)
        again = _QuietLink()
        node._adopt(0, again)  # type: ignore[arg-type]  # (dialed again, within SYNC_EVERY)
        before = len(again.sent)
        node._on_message(0, again, MsgType.SYNC, encode_sync(0))  # type: ignore[arg-type]
        entries = [t for t, _ in again.sent[before:]]
        assert entries and set(entries) == {MsgType.ENTRY}, again.sent  # served, not dropped
        node._on_message(0, again, MsgType.SYNC, encode_sync(0))  # type: ignore[arg-type]
        assert len(again.sent) == before + len(entries)  # (on one link: the limit holds)
    finally:
        for t in list(node._tasks):
            t.cancel()
