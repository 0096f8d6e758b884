"""The lobby (issue 11; protocol/lobby.md): seats, refusals with a clear reason, the genesis
each joiner checks before it signs anything. In one event loop, over real links on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2puno.log import Identity, make_genesis
from p2puno.net import MsgType, open_link
from p2puno.node.lobby import (
    Endpoint,
    HostLobby,
    LobbyError,
    Seat,
    _check_start,
    check_join,
    join_table,
    make_options,
    receive,
    table_code,
)
from p2puno.session import Timing
from p2puno.wire import encode

LOOP = "127.0.0.1"


async def _host(size: int) -> tuple[Endpoint, HostLobby, Identity]:
    ident = Identity.generate()
    ep = Endpoint(ident, LOOP)
    await ep.start()
    me = Seat("Host", ident.sign_pk, ident.dh_pk, os.urandom(32), "person", "self", "@", ep.port)
    options = make_options(size, ["jump-in"], "standard", 200, Timing(5, 5, 0))
    return ep, HostLobby(ep, table="t", me=me, options=options, seats=size), ident


async def _joiner() -> tuple[Endpoint, Identity]:
    ident = Identity.generate()
    ep = Endpoint(ident, LOOP)
    await ep.start()
    return ep, ident


async def _join(port: int, name: str) -> asyncio.Task[object]:
    ep, ident = await _joiner()
    return asyncio.ensure_future(
        join_table(ep, ident, LOOP, port, name=name, nonce=os.urandom(32), kind="bot", timeout=10)
    )


async def test_a_full_table_and_a_taken_name_are_refused_with_a_reason() -> None:
    ep, lobby, ident = await _host(3)
    ann = await _join(ep.port, "Ann")
    while len(lobby.seats) < 2:
        await asyncio.sleep(0.02)
    with pytest.raises(LobbyError, match="the name 'Ann' is taken"):
        await (await _join(ep.port, "Ann"))
    # names a player would take for the same one, or for none (found driving the CLI)
    with pytest.raises(LobbyError, match=r"the name 'ann' is taken at this table \(as 'Ann'\)"):
        await (await _join(ep.port, "ann"))
    for blank in ("Ann ", "   "):
        with pytest.raises(LobbyError, match="a name cannot start or end with a space"):
            await (await _join(ep.port, blank))
    bob = await _join(ep.port, "Bob")
    while len(lobby.seats) < 3:
        await asyncio.sleep(0.02)
    with pytest.raises(LobbyError, match=r"the table is full \(3 seats\)"):
        await (await _join(ep.port, "Cid"))
    setup = lobby.start(ident)
    got = [await ann, await bob]
    codes = {setup.code} | {g[0].code for g in got}  # type: ignore[index]
    assert len(codes) == 1  # every player sees the same table code
    ep.close()


async def test_a_bad_protocol_version_is_refused_with_a_reason() -> None:
    ep, _lobby, _ = await _host(2)
    link = await open_link(LOOP, ep.port, Identity.generate(), None)
    link.send(MsgType.LOBBY, encode({"t": "join", "v": 7}))
    msg = await asyncio.wait_for(receive(link), 5)
    assert msg["t"] == "refuse" and "lobby protocol 1, not 7" in msg["reason"]
    ep.close()


async def test_the_host_going_away_in_the_lobby_is_said() -> None:
    """A host that leaves says BYE and why; one whose connection breaks goes away."""
    ep, lobby, _ = await _host(3)
    ann = await _join(ep.port, "Ann")
    bob = await _join(ep.port, "Bob")
    while len(lobby.seats) < 3:
        await asyncio.sleep(0.02)
    links = [s.link for s in lobby.seats[1:]]
    assert links[0] is not None and links[1] is not None
    said_bye = lobby.seats[1].name
    links[0].close("host quits")
    links[1]._transport.abort()  # (the connection breaks: no BYE)
    ep.close()
    for name, task in (("Ann", ann), ("Bob", bob)):
        want = r"closed the table \(host quits\)" if name == said_bye else "the host went away"
        with pytest.raises(LobbyError, match=want):
            await task


async def test_a_genesis_other_than_the_table_shown_is_refused_before_anything_is_signed() -> None:
    ep, lobby, ident = await _host(2)
    ann = await _join(ep.port, "Ann")
    while len(lobby.seats) < 2:
        await asyncio.sleep(0.02)
    seat = lobby.seats[1]
    shown = lobby.view()
    # the host changes the target after the joiner saw the table
    changed = {**lobby.options, "players": 2, "target": 999}
    roster = [s for s in lobby.seats]
    from p2puno.log import Player

    players = [Player(s.name, s.sign_pk, s.dh_pk) for s in roster]
    genesis = make_genesis(ident, 0, players, changed, [s.nonce for s in roster])
    msg = {"t": "start", "genesis": genesis.decode(), "addresses": [["@", 1], ["@", 2]]}
    joiner_ident = Identity.generate()
    with pytest.raises(LobbyError, match="options are not the ones that were shown"):
        _check_start(msg, _KeysOf(seat), seat.nonce, 1, shown, LOOP)  # type: ignore[arg-type]
    with pytest.raises(LobbyError, match="keys and nonce"):
        _check_start(msg, joiner_ident, os.urandom(32), 1, shown, LOOP)
    ann.cancel()
    ep.close()
    assert len(table_code(os.urandom(32))) == 9


class _KeysOf:
    """The public keys of a seat, standing in for its identity in _check_start."""

    def __init__(self, seat: Seat) -> None:
        self.sign_pk = seat.sign_pk
        self.dh_pk = seat.dh_pk


# ---------------------------------------------------------------------- hostile lobby input
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=70),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_FIELDS = ["t", "v", "name", "sign", "dh", "nonce", "port", "kind", "runner", "genesis",
           "addresses", "table", "seats", "options", "seat"]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(_FIELDS), _json, max_size=8), st.booleans())
def test_any_join_or_start_message_gets_a_reason_never_a_crash(
    msg: dict[str, object], as_join: bool
) -> None:
    """A lobby message of any shape: a join gets a seat or a reason; a start message is a
    game or a LobbyError; nothing else comes out."""
    ident = Identity.generate()
    if as_join:
        msg = {"t": "join", "v": 1, **msg}
        reason = check_join(msg, ident.sign_pk, [], 4, False)
        assert reason is None or isinstance(reason, str)
    else:
        msg = {"t": "start", **msg}
        with contextlib.suppress(LobbyError):
            _check_start(msg, ident, os.urandom(32), 1, {"seats": []}, LOOP)  # type: ignore[arg-type]
