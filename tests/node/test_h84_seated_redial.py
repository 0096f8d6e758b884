"""helper-84: a seated joiner whose lobby link is cut comes back to its seat.

protocol/lobby.md section 2, "A seat whose link is cut comes back": the host keeps a seat
whose link was lost to a fault (cut, broken, silent) REJOIN_GRACE_S, detached (no start
meanwhile); the joiner's node dials the same host again (its key and lobby) and sends the
same join, which only the seat's own key (proved in the handshake) can send: the seat is
its again, and after the start it gets the very same start (checked byte for byte) and code.
Before, the host freed the seat at once and the joiner stopped with "the host went away"
(scripts/chaos_net --arm-at lobby: every game whose cut fell in the lobby failed).
In one event loop, over real links on 127.0.0.1; a cut is a transport aborted.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable
from typing import Any

import pytest

from p2puno.log import Identity
from p2puno.net import Link, LinkError, open_link
from p2puno.node import lobby as lobby_mod
from p2puno.node.lobby import (
    LOBBY_VERSION,
    Endpoint,
    HostLobby,
    LobbyError,
    Seat,
    join_table,
    make_options,
    nonce_of,
    receive,
    send,
    unreachable,
)
from p2puno.session import Timing
from tests.node.test_h81_cut_words import _join_a_cutting_host

LOOP = "127.0.0.1"


async def _until(cond: Callable[[], object], timeout: float = 5.0) -> None:
    end = asyncio.get_running_loop().time() + timeout
    while not cond():
        assert asyncio.get_running_loop().time() < end, "timed out"
        await asyncio.sleep(0.01)


async def _host(size: int) -> tuple[Endpoint, HostLobby, Identity, list[str]]:
    ident = Identity.generate()
    ep = Endpoint(ident, LOOP)
    await ep.start()
    me = Seat("Host", ident.sign_pk, ident.dh_pk, os.urandom(32), "person", "self", "@", ep.port)
    options = make_options(size, [], "standard", 200, Timing(5, 5, 0))
    said: list[str] = []
    lobby = HostLobby(ep, table="t", me=me, options=options, seats=size, say=said.append)
    return ep, lobby, ident, said


async def _bot(port: int, name: str, said: list[str]) -> asyncio.Task[tuple[Any, Link]]:
    ident = Identity.generate()
    ep = Endpoint(ident, LOOP)
    await ep.start()
    join = join_table(
        ep, ident, LOOP, port, name=name, secret=os.urandom(32), kind="bot", say=said.append,
        timeout=15,
    )  # fmt: skip
    return asyncio.ensure_future(join)


class _Raw:
    """A joiner driven by hand: its identity, secret and join message, and its link."""

    def __init__(self, name: str, ident: Identity | None = None) -> None:
        self.ident = ident or Identity.generate()
        self.secret = os.urandom(32)
        self.join: dict[str, Any] = {
            "t": "join", "v": LOBBY_VERSION, "name": name, "sign": self.ident.sign_pk.hex(),
            "dh": self.ident.dh_pk.hex(), "nonce": nonce_of(self.secret).hex(), "port": 9,
            "kind": "bot", "runner": "self",
        }  # fmt: skip
        self.link: Link | None = None

    async def sit(self, port: int, join: dict[str, Any] | None = None) -> Link:
        self.link = await open_link(LOOP, port, self.ident, None)
        send(self.link, join or self.join)
        return self.link

    async def until(self, t: str) -> dict[str, Any]:
        assert self.link is not None
        while True:
            m = await asyncio.wait_for(receive(self.link), 5)
            if m.get("t") == t:
                return m
            assert m.get("t") != "refuse", m

    def cut(self) -> None:
        assert self.link is not None
        self.link._transport.abort()


def _cut_seat(lobby: HostLobby, index: int) -> Link:
    link = lobby.seats[index].link
    assert link is not None
    link._transport.abort()  # (the host's side of it: both ends see the connection lost)
    return link


async def test_a_seat_cut_in_the_lobby_comes_back_and_the_table_agrees_on_one_code() -> None:
    ep, lobby, ident, host_said = await _host(3)
    ann_said: list[str] = []
    ann = await _bot(ep.port, "Ann", ann_said)
    await _until(lambda: len(lobby.seats) == 2)
    first = _cut_seat(lobby, 1)
    await _until(lambda: lobby.seats[1].link is not first and lobby.seats[1].link is not None)
    assert [s.name for s in lobby.seats] == ["Host", "Ann"] and lobby.seats[1].rejoins == 1
    assert any("dialing again to keep the seat" in x for x in ann_said), ann_said
    await _until(lambda: "back at seat 1" in ann_said)
    assert any(x.startswith("Ann is back at seat 1") for x in host_said), host_said
    bob = await _bot(ep.port, "Bob", [])
    await _until(lobby.can_start)
    setup = lobby.start(ident)
    code = await asyncio.wait_for(lobby.code(), 5)
    got = [(await asyncio.wait_for(t, 5))[0] for t in (ann, bob)]
    assert {g.code for g in got} == {code} and {g.game_id for g in got} == {setup.game_id}
    assert [g.seat for g in got] == [1, 2]
    ep.close()


async def _started_with_bob_by_hand() -> tuple[
    Endpoint, HostLobby, Identity, _Raw, asyncio.Task[tuple[Any, Link]], list[str]
]:
    """Ann (join_table) and Bob (by hand) seated, the start out and Ann's secret in."""
    ep, lobby, ident, _ = await _host(3)
    ann_said: list[str] = []
    ann = await _bot(ep.port, "Ann", ann_said)
    await _until(lambda: len(lobby.seats) == 2)
    bob = _Raw("Bob")
    await bob.sit(ep.port)
    await _until(lambda: len(lobby.seats) == 3)
    lobby.start(ident)
    await _until(lambda: 1 in lobby.revealed)  # (Ann checked the start and showed her secret)
    return ep, lobby, ident, bob, ann, ann_said


async def test_a_seat_cut_right_after_the_start_gets_the_same_start_and_the_code() -> None:
    ep, lobby, _, bob, ann, ann_said = await _started_with_bob_by_hand()
    first = _cut_seat(lobby, 1)
    await _until(lambda: lobby.seats[1].link is not first)
    start = await bob.until("start")
    assert bob.link is not None
    send(bob.link, {"t": "reveal", "secret": bob.secret.hex()})
    code = await asyncio.wait_for(lobby.code(), 5)
    setup, _link = await asyncio.wait_for(ann, 5)
    assert setup.code == code and (await bob.until("code"))["secrets"] == [
        x.hex() for x in setup.secrets
    ]
    assert setup.genesis.decode() == start["genesis"] and "back at seat 1" in ann_said
    ep.close()


async def test_a_start_sent_again_other_than_the_first_is_refused() -> None:
    ep, lobby, _, _, ann, _ = await _started_with_bob_by_hand()
    assert lobby._start_msg is not None
    moved = list(reversed(lobby._start_msg["addresses"]))  # type: ignore[arg-type]
    lobby._start_msg = {**lobby._start_msg, "addresses": moved}  # (a host that changed it)
    _cut_seat(lobby, 1)
    with pytest.raises(LobbyError, match="the host sent another start when this seat came back"):
        await asyncio.wait_for(ann, 5)
    ep.close()


async def test_a_seat_not_back_within_the_grace_is_freed_with_todays_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lobby_mod, "REJOIN_GRACE_S", 0.5)
    ep, lobby, _, said = await _host(2)
    ann = _Raw("Ann")
    await ann.sit(ep.port)
    await _until(lobby.can_start)
    ann.cut()
    await _until(lambda: not lobby.can_start())
    assert [s.name for s in lobby.seats] == ["Host", "Ann"]  # (kept, detached: no start)
    assert lobby.view()["seats"][1]["connected"] is False  # type: ignore[index, call-overload]
    assert said[-1] == "the connection to Ann was cut: the seat is kept 0.5 s for it to come back"
    await _until(lambda: len(lobby.seats) == 1)
    assert said[-1] == (
        "Ann left the table (its connection was cut and it did not come back within 0.5 s)"
    )
    assert lobby.held_off  # (as one who left a table being confirmed: held off)
    ep.close()


async def test_only_the_seats_own_key_and_join_take_a_detached_seat_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lobby_mod, "REJOINS_MAX", 2)
    ep, lobby, _, _ = await _host(3)
    ann = _Raw("Ann")
    await ann.sit(ep.port)
    await _until(lambda: len(lobby.seats) == 2)
    ann.cut()
    await _until(lambda: lobby.seats[1].link is not None and lobby.seats[1].link.closed)

    async def refused(raw: _Raw, join: dict[str, Any] | None = None) -> str:
        await raw.sit(ep.port, join)
        assert raw.link is not None
        while True:
            try:
                m = await asyncio.wait_for(receive(raw.link), 5)
            except LinkError:
                return "closed"
            if m.get("t") == "refuse":
                return str(m["reason"])
            assert m.get("t") != "welcome", m

    eve = _Raw("Eve")  # another key: Ann's join copied, her name, her nonce
    assert 'the name "Ann" is taken' in await refused(eve, ann.join)
    assert "the keys of the link" in await refused(_Raw("Eve"), {**ann.join, "name": "Eve"})
    assert 'the name "Ann" is taken' in await refused(_Raw("Ann"))
    eve = _Raw("Eve")
    assert "already at this table" in await refused(eve, {**eve.join, "nonce": ann.join["nonce"]})
    # Ann's own key with another join (another port: elsewhere to deal to)
    other = {**ann.join, "port": 10}
    assert "taken with another join" in await refused(_Raw("Ann", ann.ident), other)
    assert [s.name for s in lobby.seats] == ["Host", "Ann"] and lobby.seats[1].rejoins == 0
    for k in (1, 2):  # Ann herself, twice (REJOINS_MAX here): back each time
        await ann.sit(ep.port)
        assert (await ann.until("welcome"))["seat"] == 1
        await _until(lambda k=k: lobby.seats[1].rejoins == k)  # type: ignore[misc]
        if k == 1:
            ann.cut()
            await _until(lambda: lobby.seats[1].link is not None and lobby.seats[1].link.closed)
    again = await refused(_Raw("Ann", ann.ident), ann.join)  # (a third time: a flood)
    assert "came back 2 times already" in again, again
    ann.cut()  # (and a cut past that frees the seat at once, as before)
    await _until(lambda: len(lobby.seats) == 1)
    ep.close()


async def test_a_redial_answered_by_another_key_is_said_so_not_as_another_program() -> None:
    ep, lobby, _, _ = await _host(3)
    said: list[str] = []
    ann = await _bot(ep.port, "Ann", said)
    await _until(lambda: len(lobby.seats) == 2)
    port = ep.port
    link = lobby.seats[1].link
    assert link is not None
    ep.close()
    other = Endpoint(Identity.generate(), LOOP, port=port)  # another node at that address
    other.handlers[lobby.lobby_id] = lambda lk: lk.close("no")
    await other.start()
    link._transport.abort()
    with pytest.raises(LobbyError) as got:
        await asyncio.wait_for(ann, 5)
    other.close()
    assert "another program answers there now (a key other than the host's)" in str(got.value)
    assert "the seat was not taken back" in str(got.value)
    e = LinkError("unexpected_identity", "x", address=f"{LOOP}:9")
    assert "does not answer as a p2puno table" not in unreachable(LOOP, 9, e)
    assert "another program answers at 127.0.0.1:9 now" in unreachable(LOOP, 9, e)


async def test_a_host_gone_for_good_is_said_after_the_redials() -> None:
    ep, lobby, _, _ = await _host(3)
    ann = await _bot(ep.port, "Ann", [])
    await _until(lambda: len(lobby.seats) == 2)
    link = lobby.seats[1].link
    assert link is not None
    ep.close()
    link._transport.abort()
    with pytest.raises(LobbyError) as got:
        await asyncio.wait_for(ann, 5)
    said = str(got.value)
    assert said.startswith(f"the host went away: the connection to {LOOP}:{ep.port} "), said
    assert "dialed it again 3 times, in vain (cannot reach a table at" in said, said


async def test_a_handshake_cut_short_is_said_as_a_cut_connection() -> None:
    said: list[str] = []
    ep = Endpoint(Identity.generate(), LOOP, say=said.append)
    await ep.start()
    try:
        s = socket.create_connection((LOOP, ep.port), timeout=2)
        s.sendall(b"\x00\x00\x01\x00" + b"x" * 10)
        s.close()
        await _until(lambda: said)
    finally:
        ep.close()
    assert said[0].startswith(f"a connection from {LOOP}:"), said
    assert "was cut: the connection ended during the handshake" in said[0], said
    assert "refused" not in said[0], said


async def test_a_join_whose_link_ends_before_the_hosts_first_record_dials_again() -> None:
    # the link reads an end there as "refused" (our key); a lobby's host takes every key at
    # the handshake, so it is a cut (chaos_net 705/3: a cut of the joiner's own write)
    held: list[Link] = []

    def end(link: Link) -> None:
        held.append(link)
        link._transport.write_eof()  # (no record, no partial frame: the stream just ends)

    said: list[str] = []
    _, got = await _join_a_cutting_host(end, held, said.append)
    assert len(held) == 3 and len(said) == 2, (held, said)  # (JOIN_TRIES dials)
    assert "just after it answered" in str(got) and "refused" not in str(got)


async def test_a_join_cut_during_the_handshake_dials_again() -> None:
    # chaos_net 711/2: the joiner's first handshake message cut mid-write; nothing proved,
    # nothing sent: the same dial again, not "cannot reach a table ... eof" at once
    dialed: list[int] = []

    async def cut(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        dialed.append(1)
        await r.read(10)
        w.transport.abort()

    server = await asyncio.start_server(cut, LOOP, 0)
    ident = Identity.generate()
    me = Endpoint(ident, LOOP)
    await me.start()
    said: list[str] = []
    port = server.sockets[0].getsockname()[1]
    try:
        join = join_table(me, ident, LOOP, port, name="J", secret=os.urandom(32), say=said.append)
        with pytest.raises(LobbyError) as got:
            await asyncio.wait_for(join, 5)
    finally:
        server.close()
        me.close()
    assert len(dialed) == 3 and said[0].endswith("was cut in the handshake: dialing again")
    assert str(got.value).startswith(f"the connection to {LOOP}:{port} was cut during the")


async def test_a_seat_back_after_the_code_was_given_up_is_told_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lobby_mod, "REVEAL_S", 0.3)
    ep, lobby, ident, _ = await _host(3)
    ann, bob = _Raw("Ann"), _Raw("Bob")
    await ann.sit(ep.port)
    await _until(lambda: len(lobby.seats) == 2)
    await bob.sit(ep.port)
    await _until(lambda: len(lobby.seats) == 3)
    lobby.start(ident)
    await ann.until("start")
    ann.cut()  # (and Bob shows no secret: the host gives up on the code)
    with pytest.raises(LobbyError, match=r"no code secret from Ann \(seat 1\), Bob \(seat 2\)"):
        await asyncio.wait_for(lobby.code(), 5)
    await ann.sit(ep.port)
    refusal = await ann.until("refuse")
    assert refusal["reason"] == "no code secret from Ann (seat 1), Bob (seat 2) in time"
    ep.close()


async def test_a_seat_away_past_its_budget_is_freed_at_its_next_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each time away counts (REJOIN_BUDGET_S in all): helper-88's seat came back 4.7 s after
    each cut and cut its new link at once, and held a full table from starting for 50 s."""
    monkeypatch.setattr(lobby_mod, "REJOIN_BUDGET_S", 0.6)
    ep, lobby, _, said = await _host(3)
    ann = _Raw("Ann")
    await ann.sit(ep.port)
    await _until(lambda: len(lobby.seats) == 2)
    ann.cut()
    await _until(lambda: lobby.seats[1].link is not None and lobby.seats[1].link.closed)
    assert said[-1] == "the connection to Ann was cut: the seat is kept 0.6 s for it to come back"
    await asyncio.sleep(0.4)
    await ann.sit(ep.port)
    await ann.until("welcome")
    await _until(lambda: lobby.seats[1].away_s >= 0.4)
    ann.cut()  # (0.2 s of its budget left: kept that long, no more)
    await _until(lambda: len(lobby.seats) == 1, 1.0)
    assert said[-1].startswith("Ann left the table (its connection was cut and it did not come")
    ep.close()


async def test_a_person_who_leaves_while_the_node_dials_again_leaves() -> None:
    """protocol/lobby.md 2: a person answers "leave" to the final table while their node is
    dialing the host again after a cut; the leave went to the closed link, and the node took
    the seat back and asked again (helper-88). The leave is said on the new link."""
    ep, lobby, _, _ = await _host(2)
    asked: list[asyncio.Future[bool]] = []

    async def confirm(view: object) -> bool:
        asked.append(asyncio.get_running_loop().create_future())
        return await asked[-1]

    def say(text: str) -> None:
        if "dialing again to keep the seat" in text and asked and not asked[0].done():
            asked[0].set_result(False)  # (the person says leave, now)

    ident = Identity.generate()
    node = Endpoint(ident, LOOP)
    await node.start()
    ann = asyncio.ensure_future(
        join_table(
            node, ident, LOOP, ep.port, name="Ann", secret=os.urandom(32), kind="person",
            say=say, confirm=confirm, timeout=20,
        )
    )  # fmt: skip
    await _until(lambda: len(asked) == 1)
    _cut_seat(lobby, 1)
    with pytest.raises(LobbyError, match="you left the table"):
        await asyncio.wait_for(ann, 5)
    await _until(lambda: len(lobby.seats) == 1)
    assert len(asked) == 1
    node.close()
    ep.close()
