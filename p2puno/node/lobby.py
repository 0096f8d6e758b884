"""The lobby: seats taken, the table shown to everyone, then the genesis.

Over LOBBY messages (canonical JSON, protocol/lobby.md) on links whose context is the lobby id:

    joiner -> host   {"t": "join", "v": 1, "name", "sign", "dh", "nonce", "port", "kind", "runner"}
    host -> joiner   {"t": "welcome", "seat"} | {"t": "refuse", "reason"}
    host -> all      {"t": "table", ...}: name, options, every seat (name, kind, who runs it, key
                     fingerprint, connected), the address to join, whenever it changes
    host -> all      {"t": "start", "genesis": <the signed genesis entry>, "addresses": [...]}
    joiner -> host   {"t": "leave"} (or the link closes)

The host draws the lobby id; every joiner draws its own nonce (the genesis carries them all) and
keys. A joiner checks, before it signs anything, that the genesis holds its keys and its nonce
at its seat, and exactly the options and the roster it was shown; then it shows the table code
(from the game id), which every player sees, so a man in the middle of the lobby would show
as two codes.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from p2puno.log import Identity, Log, LogError, Player, make_genesis
from p2puno.net import Limits, Link, LinkError, MsgType, open_link, serve_links
from p2puno.node.game import NODE_LIMITS, Address
from p2puno.session.session import Timing, options_from_obj, options_to_obj
from p2puno.wire import EncodingError, JSONValue, decode, encode

log = logging.getLogger("p2puno.lobby")

LOBBY_VERSION = 1
CODE_DOMAIN = b"p2puno/v1/table-code\x00"
HERE = "@"  # in a start message: "the address you reached the host at"


class LobbyError(Exception):
    """Why a seat could not be had or the game could not start (shown to the person)."""


def table_code(game_id: bytes) -> str:
    """A short code from the game id that every player sees: 8 letters and digits in two
    groups (40 bits), e.g. ``K7QD-2MXA``; two different codes at one table mean someone sits
    between the host and a player."""
    b32 = base64.b32encode(hashlib.sha256(CODE_DOMAIN + game_id).digest()[:5]).decode()
    return f"{b32[:4]}-{b32[4:8]}"


def send(link: Link, msg: dict[str, JSONValue]) -> None:
    link.send(MsgType.LOBBY, encode(msg))


async def receive(link: Link) -> dict[str, Any]:
    m = await link.recv()
    if m.type != MsgType.LOBBY:
        raise LobbyError(f"expected a lobby message, got type {m.type}")
    try:
        obj = decode(m.payload)
    except EncodingError as e:
        raise LobbyError(f"a lobby message is not canonical JSON: {e}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("t"), str):
        raise LobbyError("a lobby message must be an object with a type")
    return obj


# ---------------------------------------------------------------------- the endpoint
class Endpoint:
    """A node's one listening socket, for the lobby (host) and the game's mesh links."""

    def __init__(
        self,
        identity: Identity,
        bind: str | None,
        port: int = 0,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.identity = identity
        self.say = say or (lambda text: None)
        self.bind = bind
        self.port = port
        self.handlers: dict[bytes, Callable[[Link], Awaitable[None] | None]] = {}
        # the game's spectators, once it runs (GameNode.add_watcher)
        self.watch: Callable[[Link, dict[str, Any]], None] | None = None
        self.watching = asyncio.Event()  # set when ``watch`` is
        self.default: bytes | None = None  # the context of one who joins by address
        self.server: asyncio.Server | None = None
        self.closed = False  # (set by close: no more refusals said)

    def _resolve(self, asked: bytes | None) -> bytes | None:
        if asked is None:
            return self.default
        return asked if asked in self.handlers else None

    async def _on_link(self, link: Link) -> None:
        handler = self.handlers.get(link.context)
        if handler is None:
            link.close("no such table here")
            return
        got = handler(link)
        if got is not None:
            await got

    async def start(self, limits: Limits = NODE_LIMITS) -> int:
        try:
            self.server = await serve_links(
                self.bind,  # type: ignore[arg-type]
                self.port,
                self.identity,
                self._resolve,
                lambda key: True,  # each context's handler checks the key
                self._on_link,
                limits,
                on_error=self._refused,
            )
        except OSError as e:
            where = f"{self.bind or '*'}:{self.port}"
            raise LobbyError(f"cannot listen on {where}: {e.strerror}") from None
        sock = self.server.sockets[0]
        self.port = int(sock.getsockname()[1])
        return self.port

    def _refused(self, err: object) -> None:
        if not self.closed:  # (once closed, a link half-open at that moment is nobody's news)
            self.say(f"refused a connection: {err}")

    def close(self) -> None:
        self.closed = True
        if self.server is not None:
            self.server.close()


# ---------------------------------------------------------------------- seats
@dataclass
class Seat:
    name: str
    sign_pk: bytes
    dh_pk: bytes
    nonce: bytes
    kind: str  # "person" or "bot"
    runner: str  # "self": its own machine; "host": the host's machine (the host could look)
    host: str  # address as the host sees it (HERE for the host's own machine)
    port: int
    link: Link | None = None

    def public(self) -> dict[str, JSONValue]:
        return {
            "name": self.name,
            "kind": self.kind,
            "runner": self.runner,
            "key": self.sign_pk.hex()[:16],
            "connected": self.link is None or not self.link.closed,
        }


@dataclass
class GameSetup:
    """What a node needs to play once the lobby is done."""

    genesis: bytes
    seat: int
    addresses: list[Address | None]  # None: this node
    code: str
    table: dict[str, Any] = field(default_factory=dict)


def _is_loopback(host: str) -> bool:
    return host.startswith("127.") or host in ("::1", "localhost")


# ---------------------------------------------------------------------- the host
class HostLobby:
    """The host's side: takes seats, shows the table, writes the genesis."""

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        table: str,
        me: Seat,
        options: dict[str, JSONValue],
        seats: int,
        say: Callable[[str], None] | None = None,
        on_table: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.on_table = on_table
        self.endpoint = endpoint
        self.table = table
        self.options = options
        self.size = seats
        self.seats: list[Seat] = [me]
        self.lobby_id = os.urandom(32)
        self.say = say or (lambda text: None)
        self.changed = asyncio.Event()
        self.started = False
        self.spectators: list[Link] = []  # waiting for the game to start
        endpoint.handlers[self.lobby_id] = self.on_link
        endpoint.default = self.lobby_id

    def view(self) -> dict[str, JSONValue]:
        return {
            "t": "table",
            "name": self.table,
            "options": self.options,
            "seats": [s.public() for s in self.seats],
            "size": self.size,
            "lobby": self.lobby_id.hex(),
        }

    def _broadcast(self) -> None:
        msg = self.view()
        if self.on_table is not None:
            self.on_table(msg)
        links = [s.link for s in self.seats if s.link is not None] + self.spectators
        for link in links:
            if not link.closed:
                with contextlib.suppress(LinkError):
                    send(link, msg)
        self.changed.set()

    async def on_link(self, link: Link) -> None:
        try:
            msg = await asyncio.wait_for(receive(link), 10)
        except (LobbyError, LinkError, TimeoutError) as e:
            link.close(f"no join: {e}")
            return
        if msg.get("t") == "watch":
            await self._spectator(link, msg)
            return
        reason = self._check_join(link, msg)
        if reason is not None:
            send(link, {"t": "refuse", "reason": reason})
            self.say(f"refused {link.address}: {reason}")
            link.close(reason)
            return
        host = link.address.rsplit(":", 1)[0].strip("[]")
        seat = Seat(
            name=msg["name"],
            sign_pk=bytes.fromhex(msg["sign"]),
            dh_pk=bytes.fromhex(msg["dh"]),
            nonce=bytes.fromhex(msg["nonce"]),
            kind=msg["kind"],
            runner=msg["runner"],
            host=HERE if _is_loopback(host) else host,
            port=msg["port"],
            link=link,
        )
        self.seats.append(seat)
        send(link, {"t": "welcome", "seat": len(self.seats) - 1})
        self.say(f"seat {len(self.seats) - 1}: {seat.name} ({seat.kind}) joined")
        self._broadcast()
        try:
            while not self.started:
                m = await receive(link)
                if m.get("t") == "leave":
                    break
        except (LobbyError, LinkError):
            pass
        if not self.started and seat in self.seats:
            self.seats.remove(seat)
            self.say(f"{seat.name} left the table")
            self._broadcast()

    async def _spectator(self, link: Link, msg: dict[str, Any]) -> None:
        """One who watches: it sees the lobby until the game starts, then the game node
        serves it (GameNode.add_watcher)."""
        if len(self.spectators) >= 8:
            send(link, {"t": "refuse", "reason": "too many spectators"})
            link.close("too many spectators")
            return
        self.spectators.append(link)
        try:
            send(link, self.view())
            waiting = asyncio.ensure_future(self.endpoint.watching.wait())
            closed = asyncio.ensure_future(link.wait_closed())
            await asyncio.wait([waiting, closed], return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            closed.cancel()
        except LinkError:
            return
        finally:
            self.spectators.remove(link)
        if not link.closed and self.endpoint.watch is not None:
            self.endpoint.watch(link, msg)

    def _check_join(self, link: Link, msg: dict[str, Any]) -> str | None:
        return check_join(msg, link.peer, self.seats, self.size, self.started)

    def start(self, identity: Identity) -> GameSetup:
        """Write the genesis (seat order = the order of joining) and send it to every seat."""
        if len(self.seats) < 2:
            raise LobbyError("a game needs at least 2 players")
        self.started = True
        roster = [Player(s.name, s.sign_pk, s.dh_pk) for s in self.seats]
        options = dict(self.options)
        options["players"] = len(self.seats)
        self.options = options
        genesis = make_genesis(identity, 0, roster, options, [s.nonce for s in self.seats])
        addresses: list[JSONValue] = [[s.host, s.port] for s in self.seats]
        msg: dict[str, JSONValue] = {
            "t": "start",
            "genesis": genesis.decode(),
            "addresses": addresses,
            "table": self.view(),
        }
        for s in self.seats[1:]:
            if s.link is not None:
                with contextlib.suppress(LinkError):
                    send(s.link, msg)
        log_ = Log()
        log_.add(genesis)
        assert log_.game_id is not None
        mine: list[Address | None] = [None] + [
            Address("127.0.0.1" if s.host == HERE else s.host, s.port) for s in self.seats[1:]
        ]
        return GameSetup(genesis, 0, mine, table_code(log_.game_id), self.view())


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's name (None: it can): 1 to 32 printable characters,
    no space at either end (a blank name, or "Ann " beside "Ann", would look like another).
    Two names that differ only in case are one name at a table (check_join)."""
    if not isinstance(name, str) or not 1 <= len(name) <= 32 or not name.isprintable():
        return "a name is 1 to 32 printable characters"
    if name != name.strip():
        return "a name cannot start or end with a space"
    return None


def check_join(
    msg: dict[str, Any], peer: bytes, seats: list[Seat], size: int, started: bool
) -> str | None:
    """Why a join message cannot have a seat (None: it can). Hostile input: any shape."""
    if msg.get("t") != "join":
        return "the first message must be a join"
    if msg.get("v") != LOBBY_VERSION:
        return f"this table speaks lobby protocol {LOBBY_VERSION}, not {msg.get('v')!r:.20}"
    if started:
        return "the game has started"
    if len(seats) >= size:
        return f"the table is full ({size} seats)"
    name = msg.get("name")
    problem = name_problem(name)
    if problem is not None:
        return problem
    assert isinstance(name, str)
    for s in seats:
        if s.name.casefold() == name.casefold():
            was = "" if s.name == name else f" (as {s.name!r})"
            return f"the name {name!r} is taken at this table{was}"
    try:
        sign, dh, nonce = (bytes.fromhex(msg[k]) for k in ("sign", "dh", "nonce"))
    except (KeyError, TypeError, ValueError):
        return "keys and nonce must be hex"
    if len(sign) != 32 or len(dh) != 32 or len(nonce) != 32 or sign != peer:
        return "the join must carry the keys of the link and a 32-byte nonce"
    if any(s.sign_pk == sign or s.dh_pk == dh or s.nonce == nonce for s in seats):
        return "those keys (or that nonce) are already at this table"
    port = msg.get("port")
    if type(port) is not int or not 1 <= port <= 65535:
        return "a listening port is needed"
    if msg.get("kind") not in ("person", "bot") or msg.get("runner") not in ("self", "host"):
        return "kind must be person or bot, runner self or host"
    return None


def make_options(
    players: int, house: list[str], scoring: str, target: int, timing: Timing
) -> dict[str, JSONValue]:
    from p2puno.engine import Options
    from p2puno.engine.options import parse_house

    opts = Options(players, target=target, scoring=scoring, **parse_house(",".join(house)))  # type: ignore[arg-type]
    return options_to_obj(opts, timing)


# ---------------------------------------------------------------------- a joiner
async def join_table(
    endpoint: Endpoint,
    identity: Identity,
    host: str,
    port: int,
    *,
    name: str,
    nonce: bytes,
    kind: str = "person",
    runner: str = "self",
    say: Callable[[str], None] | None = None,
    timeout: float = 3600.0,
    on_table: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[GameSetup, Link]:
    """Take a seat at ``host:port`` and wait for the game to start. LobbyError says why not."""
    say = say or (lambda text: None)
    try:
        link = await open_link(host, port, identity, None, limits=NODE_LIMITS)
    except LinkError as e:
        raise LobbyError(f"cannot reach a table at {host}:{port}: {e}") from None
    send(
        link,
        {
            "t": "join",
            "v": LOBBY_VERSION,
            "name": name,
            "sign": identity.sign_pk.hex(),
            "dh": identity.dh_pk.hex(),
            "nonce": nonce.hex(),
            "port": endpoint.port,
            "kind": kind,
            "runner": runner,
        },
    )
    seat: Any = -1
    table: dict[str, Any] = {}
    try:
        async with asyncio.timeout(timeout):
            while True:
                msg = await receive(link)
                t = msg.get("t")
                if t == "refuse":
                    raise LobbyError(f"the table refused the seat: {msg.get('reason')}")
                if t == "welcome":
                    seat = msg.get("seat")
                    if type(seat) is not int or not 0 < seat < 10:
                        raise LobbyError("the host sent a bad welcome")
                    say(f"seated at seat {seat}")
                elif t == "table":
                    table = msg
                    if on_table is not None:
                        on_table(msg)
                    with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError):
                        say(_describe(msg))
                elif t == "start":
                    setup = _check_start(msg, identity, nonce, seat, table, host)
                    return setup, link
    except LinkError as e:
        if e.code == "bye":  # it said why
            why = e.detail.removeprefix("said bye: ")
            raise LobbyError(f"the host closed the table ({why})") from None
        raise LobbyError(f"the host went away: {e}") from None
    except TimeoutError:
        link.close("gave up waiting")
        raise LobbyError("the game did not start in time") from None


def _describe(table: dict[str, Any]) -> str:
    parts = []
    for s in table.get("seats", []):
        note = ""
        if s["runner"] == "host" and s["kind"] == "bot":
            note = ", run by the host's machine: the host could see its hand"
        parts.append(f"{s['name']} ({s['kind']}{note})")
    taken = f"{len(table.get('seats', []))}/{table.get('size')}"
    return f"table {table.get('name')!r}: {taken} seats: {', '.join(parts)}"


def _check_start(
    msg: dict[str, Any],
    identity: Identity,
    nonce: bytes,
    seat: int,
    shown: dict[str, Any],
    host: str,
) -> GameSetup:
    """The genesis must hold this node's keys and nonce at its seat, and the options and
    roster it was shown; else nothing is signed. Hostile input: any shape is a LobbyError."""
    try:
        return _check_start_fields(msg, identity, nonce, seat, shown, host)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        if isinstance(e, LogError):
            raise LobbyError(f"the host sent a bad genesis: {e}") from None
        raise LobbyError(f"a malformed start message ({type(e).__name__})") from None


def _check_start_fields(
    msg: dict[str, Any],
    identity: Identity,
    nonce: bytes,
    seat: int,
    shown: dict[str, Any],
    host: str,
) -> GameSetup:
    try:
        genesis = str(msg["genesis"]).encode()
        log_ = Log()
        log_.add(genesis)
    except (KeyError, LogError) as e:
        raise LobbyError(f"the host sent a bad genesis: {e}") from None
    g = log_.genesis
    assert g is not None and log_.game_id is not None
    if not 0 <= seat < len(g.players):
        raise LobbyError("the genesis has no seat for this node")
    me = g.players[seat]
    if (me.sign_pk, me.dh_pk) != (identity.sign_pk, identity.dh_pk) or g.nonces[seat] != nonce:
        raise LobbyError("the genesis does not hold this node's keys and nonce at its seat")
    table = msg.get("table") or shown
    names = [s["name"] for s in table.get("seats", [])]
    if [p.name for p in g.players] != names:
        raise LobbyError("the genesis roster is not the table that was shown")
    try:
        options_from_obj(g.options)
    except ValueError as e:
        raise LobbyError(f"the genesis options are not valid: {e}") from None
    shown_opts = dict(table.get("options", {}))
    shown_opts["players"] = len(g.players)
    if shown_opts != g.options:
        raise LobbyError("the genesis options are not the ones that were shown")
    raw = msg.get("addresses")
    if not isinstance(raw, list) or len(raw) != len(g.players):
        raise LobbyError("the start message must give every seat's address")
    addresses: list[Address | None] = []
    for i, a in enumerate(raw):
        if i == seat:
            addresses.append(None)
            continue
        if not (isinstance(a, list) and len(a) == 2 and isinstance(a[0], str)):
            raise LobbyError("bad address in the start message")
        port = a[1]
        if type(port) is not int or not 0 < port < 65536:
            raise LobbyError("bad port in the start message")
        addresses.append(Address(host if a[0] == HERE else a[0], port))
    return GameSetup(genesis, seat, addresses, table_code(log_.game_id), table)
