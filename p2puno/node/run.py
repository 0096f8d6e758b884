"""The flows behind `p2puno host`, `join` and `bot`: lobby, genesis, then the game node."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2puno.log import Identity, Log
from p2puno.net import Link
from p2puno.net.discovery import Advertiser
from p2puno.node.game import Address, GameNode
from p2puno.node.lobby import (
    Endpoint,
    GameSetup,
    HostLobby,
    LobbyError,
    Seat,
    join_table,
)
from p2puno.node.players import Player
from p2puno.node.store import DataDir
from p2puno.session import Session
from p2puno.session.session import Outcome, SessionEvent
from p2puno.wire import JSONValue

Say = Callable[[str], None]


@dataclass
class Result:
    outcome: Outcome
    log_path: Path
    code: str
    seat: int
    stats: dict[str, float] = field(default_factory=dict)


def describe_event(ev: SessionEvent) -> str | None:
    if ev.kind in ("blame", "dispute", "vote", "evidence", "over", "audit", "bluff"):
        return f"[{ev.kind}] {ev.text}"
    if (
        ev.kind == "engine"
        and ev.event is not None
        and ev.event.kind
        in (
            "round-over",
            "game-over",
            "dealer",
            "round",
        )
    ):
        return f"  {ev.text}"
    return None


async def play(
    setup: GameSetup,
    identity: Identity,
    nonce: bytes,
    endpoint: Endpoint,
    data: DataDir,
    player: Player,
    *,
    say: Say,
    linger_s: float = 2.0,
    lobby_link: Link | None = None,
    verbose: bool = False,
    narrate: bool = False,
    on_game: Callable[[GameNode], None] | None = None,
) -> Result:
    """Play a game from its genesis: files first, then the node. ``on_game`` gets the node
    once it exists (a table UI draws from its session)."""
    log = Log()
    log.add(setup.genesis)
    game_id = log.game_id
    assert game_id is not None
    if data.has_played(game_id):
        raise LobbyError(
            f"this node has taken part in game {game_id.hex()[:16]} already: an old game "
            "cannot be played again"
        )
    files = data.game(game_id)
    files.write_secrets(identity, game_id, setup.seat, nonce)
    files.append(setup.genesis, durable=True)
    files.write_meta(
        {
            "game": game_id.hex(),
            "seat": setup.seat,
            "code": setup.code,
            "addresses": [None if a is None else [a.host, a.port] for a in setup.addresses],
            "table": setup.table.get("name"),
        }
    )
    data.mark_played(game_id)
    me = setup.seat

    def on_entry(raw: bytes) -> None:
        e = session.log.entry_of(raw)
        files.append(raw, durable=e is not None and e.author == me)

    def on_secrets(reveals: list[object]) -> None:
        files.write_secrets(identity, game_id, me, nonce, reveals)  # type: ignore[arg-type]

    session = Session(
        log,
        seat=me,
        identity=identity,
        nonce=nonce,
        on_entry=on_entry,
        on_secrets=on_secrets,  # type: ignore[arg-type]
    )
    narrator = None
    if narrate:
        from p2puno.demo import Narrator

        names = [p.name for p in log.players]
        narrator = Narrator(names, 0.0, verbose, color=sys.stdout.isatty())

    def on_events(events: list[SessionEvent]) -> None:
        for ev in events:
            line: str | None
            if narrator is not None and ev.event is not None:
                line = narrator.describe(session.engine, ev.event)
            else:
                line = describe_event(ev) if not verbose else f"[{ev.kind}] {ev.text}"
            if line:
                say(line)

    node = GameNode(
        session,
        identity,
        setup.addresses,
        files,
        player,
        linger_s=linger_s,
        say=say,
        on_events=on_events,
    )
    endpoint.handlers[game_id] = node.on_link
    if on_game is not None:
        on_game(node)
    say(f"game {game_id.hex()[:16]}: table code {setup.code}; you are seat {me}")
    if lobby_link is not None:
        lobby_link.close("the game starts")
    outcome = await node.run()
    stats = {
        "sent": node.stats.sent,
        "received": node.stats.received,
        "duplicates": node.stats.duplicates,
        "durable_writes": files.durable_writes,
        "seconds": round(time.monotonic() - node.stats.started, 2),
    }
    return Result(outcome, files.log_path, setup.code, me, stats)


async def host_game(
    *,
    table: str,
    name: str,
    seats: int,
    options: dict[str, JSONValue],
    player: Player,
    data: DataDir,
    bind: str | None,
    port: int,
    bots: int = 0,
    bot_policy: str = "heuristic",
    discovery: bool = True,
    interfaces: list[str] | None = None,
    start_when_full: bool = True,
    say: Say,
    linger_s: float = 2.0,
    verbose: bool = False,
    narrate: bool = False,
    think: float = 0.0,
    on_table: Callable[[dict[str, Any]], None] | None = None,
    on_game: Callable[[GameNode], None] | None = None,
    start: asyncio.Event | None = None,
) -> Result:
    """``start``: set it to start before the table is full (with 2 seats or more)."""
    identity = Identity.generate()
    nonce = os.urandom(32)
    endpoint = Endpoint(identity, bind, port, say)
    await endpoint.start()
    me = Seat(
        name, identity.sign_pk, identity.dh_pk, nonce, player.kind, "self", "@", endpoint.port
    )
    lobby = HostLobby(
        endpoint, table=table, me=me, options=options, seats=seats, say=say, on_table=on_table
    )
    where = f"{bind or 'every interface'}:{endpoint.port}"
    say(f"table {table!r} open on {where}: others join with  p2puno join HOST:{endpoint.port}")
    procs = []
    for k in range(bots):
        procs.append(await _spawn_bot(endpoint.port, f"Bot-{k + 1}", bot_policy, data, k, think))
    advertiser: Advertiser | None = None
    if discovery:
        advertiser = await _advertise(lobby, endpoint.port, interfaces, say)
    try:
        lobby._broadcast()
        while len(lobby.seats) < seats:
            if start is not None and start.is_set() and len(lobby.seats) >= 2:
                break
            lobby.changed.clear()
            waits = [asyncio.ensure_future(lobby.changed.wait())]
            if start is not None:
                waits.append(asyncio.ensure_future(start.wait()))
            _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for w in pending:
                w.cancel()
        if advertiser is not None:
            await advertiser.stop()
            advertiser = None
        setup = lobby.start(identity)
        return await play(
            setup,
            identity,
            nonce,
            endpoint,
            data,
            player,
            say=say,
            linger_s=linger_s,
            verbose=verbose,
            narrate=narrate,
            on_game=on_game,
        )
    finally:
        if advertiser is not None:
            with contextlib.suppress(Exception):
                await advertiser.stop()
        endpoint.close()
        for p in procs:
            try:
                await asyncio.wait_for(p.wait(), 30)
            except TimeoutError:
                p.kill()


async def _spawn_bot(
    port: int, name: str, policy: str, data: DataDir, k: int, think: float = 0.0
) -> asyncio.subprocess.Process:
    """A bot seat of the host's: its own process, keys and data directory (the host's machine
    runs it, so the host could read its hand: the table says so)."""
    folder = data.root / "bots" / f"{os.getpid()}-{k}"
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "p2puno",
        "bot",
        f"127.0.0.1:{port}",
        "--name",
        name,
        "--policy",
        policy,
        "--runner",
        "host",
        "--bind",
        "127.0.0.1",
        "--data-dir",
        str(folder),
        "--think",
        str(think),
        "--quiet",
        stdin=asyncio.subprocess.DEVNULL,
    )


async def _advertise(
    lobby: HostLobby, port: int, interfaces: list[str] | None, say: Say
) -> Advertiser | None:
    from zeroconf import InterfaceChoice

    from p2puno.net.discovery import TableAd, fingerprint

    house = lobby.options.get("house")
    target = lobby.options.get("target")
    ad = TableAd(
        name=lobby.table[:32],
        lobby_id=lobby.lobby_id,
        host_fingerprint=fingerprint(lobby.seats[0].sign_pk),
        seats_total=lobby.size,
        seats_taken=len(lobby.seats),
        house=tuple(h for h in house if isinstance(h, str)) if isinstance(house, list) else (),
        target=target if isinstance(target, int) else 500,
        scoring=str(lobby.options.get("scoring", "standard")),
        port=port,
        code=lobby.lobby_id.hex()[:8],
    )
    adv = Advertiser()
    try:
        await adv.start(ad, interfaces=interfaces or InterfaceChoice.All)
    except Exception as e:  # discovery is a convenience: HOST:PORT always works
        say(f"(not advertised on the LAN: {e})")
        return None
    return adv


async def join_game(
    host: str,
    port: int,
    *,
    name: str,
    player: Player,
    data: DataDir,
    bind: str | None,
    runner: str = "self",
    say: Say,
    linger_s: float = 2.0,
    verbose: bool = False,
    narrate: bool = False,
    on_table: Callable[[dict[str, Any]], None] | None = None,
    on_game: Callable[[GameNode], None] | None = None,
) -> Result:
    identity = Identity.generate()
    nonce = os.urandom(32)
    endpoint = Endpoint(identity, bind, 0, say)
    await endpoint.start()
    try:
        setup, link = await join_table(
            endpoint,
            identity,
            host,
            port,
            name=name,
            nonce=nonce,
            kind=player.kind,
            runner=runner,
            say=say,
            on_table=on_table,
        )
        return await play(
            setup,
            identity,
            nonce,
            endpoint,
            data,
            player,
            say=say,
            linger_s=linger_s,
            lobby_link=link,
            verbose=verbose,
            narrate=narrate,
            on_game=on_game,
        )
    finally:
        endpoint.close()


def parse_address(text: str) -> Address:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r} is not HOST:PORT")
    return Address(host.strip("[]") or "127.0.0.1", int(port))
