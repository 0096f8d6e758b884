"""helper-91: the words around a lobby seat whose link is cut, that comes back or is freed.

protocol/lobby.md section 2, "A seat whose link is cut comes back", and docs/lobby-rejoin.md
("The words, in order", helper-91): each line a person reads is true when it is said, and a
seat is said back only after a line that said its connection was cut, on host and joiner
alike. Found in earlier reviews: a joiner not yet welcomed said "dialing again to keep the
seat", then "back at seat N" of a seat it never had; a host said "is back" with no line of a
cut before (a cut seen first at the seat's end, or after the start); a joiner whose seat was
freed when the grace ran out, seated anew, said "back at seat N"; the start went again to a
seat back after the start with no line saying why.
In one event loop, over real links on 127.0.0.1 (the helpers of test_h84_seated_redial).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from p2puno.net import Link
from p2puno.net import link as link_mod
from p2puno.node import lobby as lobby_mod
from p2puno.node.lobby import receive, send
from tests.node.test_h81_cut_words import _join_a_cutting_host
from tests.node.test_h84_seated_redial import (
    _bot,
    _cut_seat,
    _host,
    _Raw,
    _started_with_bob_by_hand,
    _until,
)


def _back_after_a_cut(said: list[str], name: str) -> None:
    """Each "NAME is back" line of a host comes after a line that said NAME's connection was
    cut, since NAME was last said back (or seated)."""
    cut = False
    for line in said:
        if line.startswith(f"the connection to {name} was cut"):
            cut = True
        elif line.startswith(f"{name} is back"):
            assert cut, said
            cut = False


def _lines(said: list[str]) -> list[str]:
    """A joiner's lines but the tables it shows in words."""
    return [x for x in said if not x.startswith('table "')]


async def test_a_join_cut_before_its_welcome_does_not_say_a_seat_it_never_had() -> None:
    held: list[Link] = []

    async def cut_then_seat(link: Link) -> None:
        held.append(link)
        await receive(link)  # the join
        if len(held) == 1:  # (read, and the link cut before any answer)
            link._transport.abort()
            return
        send(link, {"t": "welcome", "seat": 1})
        send(link, {"t": "refuse", "reason": "a test's end"})

    said: list[str] = []
    await _join_a_cutting_host(cut_then_seat, held, said.append)
    assert len(held) == 2, held
    assert "keep the seat" not in said[0] and said[0].endswith(
        "dialing again to take a seat (the host had not answered the join)"
    ), said
    assert said[1:] == ["seated at seat 1"], said


async def test_a_seat_cut_first_at_its_end_is_said_cut_before_it_is_said_back() -> None:
    ep, lobby, _, said = await _host(3)
    ann = _Raw("Ann")
    await ann.sit(ep.port)
    await _until(lambda: len(lobby.seats) == 2)
    old = ann.link
    await ann.sit(ep.port)  # (its node dials again; the host has not seen its link cut)
    assert (await ann.until("welcome"))["back"] is True
    await _until(lambda: lobby.seats[1].rejoins == 1)
    assert said[-2:] == [
        "the connection to Ann was cut at its end (seen here only now, as its node dialed again)",
        "Ann is back at seat 1 (its connection had been cut)",
    ], said
    _back_after_a_cut(said, "Ann")
    assert old is not None and old.closed
    ep.close()


async def test_a_seat_cut_after_the_start_is_said_cut_then_back_with_the_start_sent_again() -> None:
    ep, lobby, _, bob, ann, ann_said = await _started_with_bob_by_hand()
    said: list[str] = []
    lobby.say = said.append
    first = _cut_seat(lobby, 1)  # (Ann, after her code secret: the host no longer reads her)
    await _until(lambda: lobby.seats[1].link is not first)
    assert said == [
        "the connection to Ann was cut (said here only now, as its node dialed again)",
        "Ann is back at seat 1 (its connection had been cut): it is sent the start again",
    ], said
    await _until(lambda: "back at seat 1" in ann_said)
    i = ann_said.index("back at seat 1")
    await _until(lambda: len(ann_said) > i + 1)
    assert ann_said[i + 1] == (
        "the host sent the same start again: this seat's code secret is sent again"
    ), ann_said
    bob.cut()  # (before its code secret: the host reads its link, and sees the cut)
    await _until(lambda: len(said) == 3)
    assert said[2] == (
        "the connection to Bob was cut after the start: the game starts if it comes back and "
        f"shows its code secret within {lobby_mod.REVEAL_S:.0f} s of the start"
    ), said
    await bob.sit(ep.port)
    await bob.until("start")
    assert said[3:] == [
        "Bob is back at seat 2 (its connection had been cut): it is sent the start again"
    ], said
    assert bob.link is not None
    send(bob.link, {"t": "reveal", "secret": bob.secret.hex()})
    await asyncio.wait_for(lobby.code(), 5)
    await asyncio.wait_for(ann, 5)
    bob.cut()  # (after the code: no word of it until Bob's node dials again)
    await bob.sit(ep.port)
    await bob.until("code")
    assert said[4:] == [
        "the connection to Bob was cut (said here only now, as its node dialed again)",
        "Bob is back at seat 2 (its connection had been cut): it is sent the start and the "
        "table code again",
    ], said
    _back_after_a_cut(said, "Ann")
    _back_after_a_cut(said, "Bob")
    ep.close()


async def test_a_seat_freed_before_its_node_came_back_is_not_said_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lobby_mod, "REJOIN_GRACE_S", 0.2)
    dial = link_mod.open_link  # (the one lobby.py calls)
    dials: list[int] = []

    async def late(*args: Any, **kwargs: Any) -> Link:
        dials.append(1)
        if len(dials) == 2:  # (the redial: after the host's grace ran out)
            await asyncio.sleep(0.5)
        return await dial(*args, **kwargs)

    monkeypatch.setattr(lobby_mod, "open_link", late)
    ep, lobby, _, host_said = await _host(3)
    ann_said: list[str] = []
    ann = await _bot(ep.port, "Ann", ann_said)
    await _until(lambda: len(lobby.seats) == 2 and len(_lines(ann_said)) >= 1)  # (welcome read)
    _cut_seat(lobby, 1)
    await _until(lambda: len(_lines(ann_said)) == 3)
    lines = _lines(ann_said)
    assert lines[0] == "seated at seat 1" and "keep the seat" in lines[1], ann_said
    assert lines[2] == (
        "the host had freed the seat (this node was not back in time): seated again at seat "
        "1, as a new join"
    ), ann_said
    assert host_said[-1] == "seat 1: Ann (bot) joined", host_said
    ann.cancel()
    ep.close()


async def test_a_join_closed_at_its_own_end_before_the_hosts_first_record_dials_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The link now reads this end's own close there as ``closed``, not "our key refused"
    (tests/net/test_h91_own_close.py); a join so closed, as by the chaos shim's cut of its own
    write (chaos_net 705/3), still dials the same host again, as docs/lobby-rejoin.md says."""
    start = link_mod.Link._start
    aborted: list[Link] = []

    def start_then_abort(self: Link) -> None:
        start(self)
        if self.role == "initiator" and not aborted:
            aborted.append(self)
            asyncio.get_running_loop().call_soon(self._transport.abort)

    monkeypatch.setattr(link_mod.Link, "_start", start_then_abort)
    ep, lobby, _, _ = await _host(3)
    said: list[str] = []
    ann = await _bot(ep.port, "Ann", said)
    # (and its welcome read: the host seats it before its node reads the welcome, and under
    # load the check ran between the two once, in a run of tests/node beside other work)
    await _until(lambda: len(lobby.seats) == 2 and len(_lines(said)) >= 2)
    assert aborted and aborted[0].error is not None and aborted[0].error.code == "closed"
    assert _lines(said) == [
        f"the connection to 127.0.0.1:{ep.port} was cut as it answered: dialing again",
        "seated at seat 1",
    ], said
    ann.cancel()
    ep.close()
