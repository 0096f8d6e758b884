"""helper-81: a connection cut mid-frame is said as a lost connection, in a person's words.

helper-80 cut a host's first record to a joiner (tests/node/netshim.py): the handshake had
completed and authenticated the host, yet the joiner read "does not answer as a p2puno table
(... incompatible version: truncated)"; in play a seat's cut link read "stream ended inside a
frame (89 of 115 bytes)"; a listener named a handshake cut short "closed the connection
during the handshake", as if the peer had chosen to. protocol/transport.md section 4: a
stream that ends inside a frame is a truncated frame, the connection's end.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from p2puno.log import Identity
from p2puno.net import Link, LinkError
from p2puno.node.lobby import (
    JOIN_TRIES,
    REJOINS_MAX,
    Endpoint,
    LobbyError,
    join_table,
    receive,
    send,
    unreachable,
)

LOOP = "127.0.0.1"
CUT = b"\x00\x00\x00\x40" + b"x" * 10  # the start of a 64-byte frame, then its end


async def _join_a_cutting_host(
    handler: Callable[[Link], Any], held: list[Link], say: Callable[[str], None] | None = None
) -> tuple[int, BaseException]:
    """A joiner's ``join_table`` against a host whose links ``handler`` takes (each kept in
    ``held``, aborted at the end): the host's port, and what the join raised."""
    host = Endpoint(Identity.generate(), LOOP)
    context = os.urandom(32)
    host.handlers[context] = handler
    host.default = context
    await host.start()
    ident = Identity.generate()
    me = Endpoint(ident, LOOP)
    await me.start()
    try:
        join = join_table(me, ident, LOOP, host.port, name="J", secret=os.urandom(32), say=say)
        with pytest.raises(LobbyError) as got:
            await asyncio.wait_for(join, 5)
    finally:
        for link in held:
            link._transport.abort()
        host.close()
        me.close()
    return host.port, got.value


async def test_a_host_whose_first_record_is_cut_is_a_lost_connection_not_another_program() -> None:
    held: list[Link] = []

    def cut(link: Link) -> None:  # the handshake done, the first record cut mid-frame
        link._transport.write(CUT)
        link._transport.write_eof()  # (its end stays open to read: no reset, the cut seen)
        held.append(link)

    port, got = await _join_a_cutting_host(cut, held)
    said = str(got)
    assert len(held) == JOIN_TRIES, held  # (dialed again, and cut each time)
    assert "does not answer as a p2puno table" not in said, said
    assert "incompatible" not in said and "truncated" not in said, said
    assert f"lost the connection to the table at {LOOP}:{port}" in said, said
    assert "try again" in said, said


def test_before_the_handshake_a_bad_frame_is_still_another_program() -> None:
    # (the same codes with no peer key: nothing proved it a p2puno node)
    for code in ("truncated", "oversize", "malformed", "bad_version"):
        said = unreachable(LOOP, 9, LinkError(code, "x", address=f"{LOOP}:9"))
        assert "does not answer as a p2puno table" in said, (code, said)
    for code in ("eof", "io_error"):  # after it: a lost connection, whatever cut it
        e = LinkError(code, "x", peer=b"\x60" * 32, address=f"{LOOP}:9")
        assert "lost the connection to the table" in unreachable(LOOP, 9, e), code


async def test_a_seat_whose_link_is_cut_mid_frame_is_said_in_plain_words() -> None:
    from p2puno.node.game import GameNode

    said: list[str] = []
    err = LinkError("truncated", "stream ended inside a frame (89 of 115 bytes)", peer=b"\1" * 32)
    link = SimpleNamespace(error=err)

    async def closed() -> None:
        return None

    link.wait_closed = closed
    node = SimpleNamespace(
        links={1: link}, _closing=False, done=asyncio.Event(), left={},
        say=said.append, _name=lambda seat: "J1", _lost_at={}, _watched_via={},
        session=SimpleNamespace(processed=7), timing=SimpleNamespace(step_s=20),
        _over_at=set(),
    )  # fmt: skip
    await GameNode._watch(node, 1, link)  # type: ignore[arg-type]
    assert said == [
        'lost the connection to "J1" (seat 1): it was cut in the middle of a message (a '
        "network fault, or their program stopped)"
    ], said


async def test_a_handshake_cut_short_is_said_as_cut_not_as_closed_by_the_peer() -> None:
    said: list[str] = []
    ep = Endpoint(Identity.generate(), LOOP, say=said.append)
    await ep.start()
    try:
        s = socket.create_connection((LOOP, ep.port), timeout=2)
        s.sendall(b"\x00\x00\x01\x00" + b"x" * 10)  # 10 bytes of a 256-byte frame, then the end
        s.close()
        for _ in range(100):
            if said:
                break
            await asyncio.sleep(0.01)
    finally:
        ep.close()
    assert len(said) == 1, said
    assert f"{LOOP}:" in said[0] and "closed the connection during" not in said[0], said
    assert "ended during the handshake, 10 bytes into a frame" in said[0], said


async def test_a_lobby_link_cut_mid_frame_is_said_as_the_host_gone_in_plain_words() -> None:
    held: list[Link] = []

    async def seat_then_cut(link: Link) -> None:
        held.append(link)
        await receive(link)  # the join
        send(link, {"t": "welcome", "seat": 1})
        await asyncio.sleep(0.05)
        link._transport.write(CUT)
        link._transport.write_eof()

    port, got = await _join_a_cutting_host(seat_then_cut, held)
    # (a host that cuts the seat each time it comes back: said after the last time it may,
    # protocol/lobby.md 2, REJOINS_MAX)
    assert str(got) == (
        f"the host went away: the connection to {LOOP}:{port} was cut in the middle of a "
        "message (a network fault, or the host's program stopped), after this seat had come "
        f"back {REJOINS_MAX} times: it is not dialed again"
    )


async def test_a_join_cut_right_after_the_handshake_dials_the_same_host_again() -> None:
    # nothing was sent on the cut link (the join goes after the host's first record): no seat
    # is taken, and the second link carries the join (protocol/lobby.md, "the host went away")
    held: list[Link] = []
    joins: list[dict[str, object]] = []

    async def cut_once(link: Link) -> None:
        held.append(link)
        if len(held) == 1:
            link._transport.write(CUT)
            link._transport.write_eof()
            return
        joins.append(await receive(link))
        send(link, {"t": "refuse", "reason": "no room (a test)"})

    said: list[str] = []
    port, got = await _join_a_cutting_host(cut_once, held, said.append)
    assert str(got) == "the table refused the seat: no room (a test)", got
    assert len(held) == 2 and [j.get("name") for j in joins] == ["J"], (held, joins)
    assert said == [f"the connection to {LOOP}:{port} was cut as it answered: dialing again"]


@pytest.mark.parametrize("wait", [0.0, 0.2])
async def test_a_host_that_says_bye_as_it_answers_is_said_closed_never_a_traceback(
    wait: float,
) -> None:
    """A node whose game is over and that serves its end to late seats (protocol/lobby.md
    section 6, "A late resume") closes a stranger's link at once with "the game is over".
    A joiner whose join went into that closing link raised the send's LinkError as a
    traceback, or read it as a network fault (helper-97): it says the host closed the table,
    and why."""
    held: list[Link] = []

    async def bye(link: Link) -> None:
        held.append(link)
        await asyncio.sleep(wait)
        link.close("the game is over")

    _, got = await _join_a_cutting_host(bye, held)
    assert "the host closed the table (the game is over)" in str(got), got
