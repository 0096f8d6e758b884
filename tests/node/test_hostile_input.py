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

import pytest

from p2puno.engine import Options
from p2puno.log import Identity
from p2puno.net import Link, MsgType
from p2puno.net.link import serve_links
from p2puno.node.game import NODE_LIMITS, Address, GameNode
from p2puno.node.players import BotPlayer
from p2puno.node.store import GameFiles
from p2puno.session.harness import LocalTable


@pytest.mark.parametrize("first", [b"lobby", b"garbage"])
async def test_a_peer_that_says_one_thing_then_bye_does_not_stop_the_dialler(
    tmp_path: object, first: bytes
) -> None:
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
        assert not any("internal error in this node" in line for line in said)
    finally:
        await node.close("test over")
        node.done.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(run, 5)
        server.close()


class _StubLink:
    """What the node's message handler needs of a link: what it sends, and a close."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, bytes]] = []
        self.closed_why: str | None = None

    def send(self, mtype: int, payload: bytes) -> None:
        self.sent.append((mtype, payload))

    def close(self, reason: str = "closed") -> None:
        self.closed_why = reason


async def test_a_flood_of_announced_hashes_that_do_not_exist_is_bounded(tmp_path: object) -> None:
    """A seat announces (HAVE) hashes no one holds, as fast as its link allows: the node keeps
    at most MAX_WANTED of them waiting to be fetched, and gives each up after WANTED_FOR
    seconds (before, every one stayed for ever: 774k of them, 252 MiB, and a timer walking
    them all every 50 ms, seen in an attack over a real link)."""
    import os
    import time

    from p2puno.net.frames import MAX_FETCH, encode_fetch
    from p2puno.node.game import MAX_WANTED, WANTED_FOR

    table = LocalTable(Options(2, target=25), seed="have")
    session = table.sessions[1]
    assert session.identity is not None
    node = GameNode(
        session,
        session.identity,
        [Address("127.0.0.1", 9), None],
        GameFiles(tmp_path / "node"),  # type: ignore[operator]
        BotPlayer("heuristic", "t"),
    )
    link = _StubLink()
    for _ in range(4 * MAX_WANTED // MAX_FETCH):
        payload = encode_fetch([os.urandom(32) for _ in range(MAX_FETCH)])
        node._on_message(0, link, MsgType.HAVE, payload)  # type: ignore[arg-type]
    assert len(node._wanted) == MAX_WANTED
    node._fetch_wanted(time.monotonic() + WANTED_FOR + 1)
    assert not node._wanted
