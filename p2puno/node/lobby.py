"""The lobby: seats taken, the table shown to everyone, then the genesis.

Over LOBBY messages (canonical JSON, protocol/lobby.md) on links whose context is the lobby id:

    joiner -> host   {"t": "join", "v": 2, "name", "sign", "dh", "nonce", "port", "kind", "runner",
                      "confirms": true (a person will confirm the table; absent: a bot)}
    host -> joiner   {"t": "welcome", "seat"} | {"t": "refuse", "reason"}
    host -> all      {"t": "table", ...}: name, options, every seat (name, kind, who runs it, key
                     fingerprint, connected, ready), the address to join, "confirm" (the
                     roster is final: each person confirms it), whenever it changes
    joiner -> host   {"t": "ready", "table": <table_digest of the table confirmed>}
    host -> all      {"t": "start", "genesis": <the signed genesis entry>, "addresses": [...]}
    joiner -> host   {"t": "reveal", "secret"}: its code secret, which its nonce commits to
    host -> all      {"t": "code", "secrets": [...]}: every seat's, for the table code
    joiner -> host   {"t": "leave"} (or the link closes)
    joiner -> host   {"t": "chat", "text"}: a line its person says in the lobby
    host -> seats    {"t": "chat", "seat", "name", "text"}: a line said in the lobby, by whom
                     (to every seat but the one that said it)

The host draws the lobby id; every joiner draws its own keys and code secret, and its nonce is
the secret's commitment (the genesis carries them all). Once the table is full (or the host
starts with the seats taken) the roster is final and every person at it confirms it (the options
and every seat, by a digest); the host waits for them all, and unseats one who has not confirmed
within the table's turn deadline. A joiner checks, before it signs anything, that the genesis
holds its keys and its nonce at its seat, and exactly the options and the roster it confirmed (a
bot: it was shown); then it shows its code secret, and once every seat's is in, the table code
(from the game id and the secrets, all committed before any is shown: nobody can try values
until two codes match), which every player sees, so a man in the middle of the lobby would show
as two codes. A seat whose link is cut (a fault, not a leave) is kept REJOIN_GRACE_S while its
node dials the host again and sends the same join; after the start, it gets the same start
and code again (protocol/lobby.md section 2, "A seat whose link is cut comes back").
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import errno
import hashlib
import logging
import math
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from p2puno.log import Entry, Genesis, Identity, Log, LogError, Player, make_genesis
from p2puno.net import Limits, Link, LinkError, MsgType, open_link, serve_links
from p2puno.net.frames import FrameErrorCode
from p2puno.net.handshake import HandshakeErrorCode
from p2puno.net.link import LinkErrorCode
from p2puno.node.game import (
    CHAT_BURST,
    CHAT_PER_S,
    NODE_LIMITS,
    Address,
    ChatPace,
    chat_line,
    chat_words,
    host_of,
    terminal_safe,
    watch_refusal,
)
from p2puno.node.names import name_problem as name_problem  # (re-exported: cli, run)
from p2puno.node.names import name_skeleton
from p2puno.session.session import (
    REVEAL_SHUFFLES,
    Timing,
    options_from_obj,
    options_to_obj,
    reveal_from_obj,
)
from p2puno.wire import EncodingError, JSONValue, decode, encode

log = logging.getLogger("p2puno.lobby")

# 2: the table code's secrets, committed by the nonces (section 2); 3: a deck's secrets
# revealed two shuffles to a step (spec 10.10): a build of 2 at the table would answer such a
# step with the whole deck's and the two builds would name different seats (helper-75); 4: the
# genesis options set `reveal` (spec 10.10), which a joiner requires and a 3 would refuse
LOBBY_VERSION = 4
CODE_DOMAIN = b"p2puno/v1/table-code\x00"
SECRET_DOMAIN = b"p2puno/v1/code-secret\x00"
HERE = "@"  # in a start message: "the address you reached the host at"
REVEAL_S = 20.0  # how long the host waits for every seat's code secret after the start
# a seated joiner whose lobby link is lost to a fault (cut, broken, silent) keeps its seat this
# long, detached, for its node to dial again and take it back with the same keys and join
REJOIN_GRACE_S = 5.0
REJOINS_MAX = 10  # times one seat may come back on a new link in one lobby (a flood: no more)
# ... and how long, in all, it may be away in one lobby: each time away counts against it (a
# seat that came back 4.7 s after each cut, then cut its new link at once, held a full table
# from starting for 50 s: helper-88)
REJOIN_BUDGET_S = 2 * REJOIN_GRACE_S


class LobbyError(Exception):
    """Why a seat could not be had or the game could not start (shown to the person)."""


def nonce_of(secret: bytes) -> bytes:
    """A seat's genesis nonce: the commitment to the secret it shows once the genesis is
    out (protocol/lobby.md section 2, "The table code cannot be ground")."""
    return hashlib.sha256(SECRET_DOMAIN + secret).digest()


def table_code(game_id: bytes, secrets: list[bytes]) -> str:
    """A short code that every player sees: 8 letters and digits in two groups (40 bits),
    e.g. ``K7QD-2MXA``, from the game id and every seat's code secret, in seat order; two
    different codes at one table mean someone sits between the host and a player.

    The secrets are shown only once the genesis, which commits to each (its nonces), is out:
    no one, a host in the middle included, can try values until its code matches another's
    (helper-31 matched 24 bits in two minutes, and 40 is some core-hours of SHA-256, when
    the nonces themselves were all there was)."""
    digest = hashlib.sha256(CODE_DOMAIN + game_id + b"".join(secrets)).digest()
    b32 = base64.b32encode(digest[:5]).decode()
    return f"{b32[:4]}-{b32[4:8]}"


def check_secrets(raw: object, nonces: tuple[bytes, ...]) -> list[bytes]:
    """Every seat's code secret from a message (hex, in seat order), each the one its genesis
    nonce commits to; LobbyError says which is not. Hostile input: any shape."""
    if not isinstance(raw, list) or len(raw) != len(nonces):
        raise LobbyError("the host sent the code secrets in a bad shape")
    secrets: list[bytes] = []
    for seat, (h, nonce) in enumerate(zip(raw, nonces, strict=True)):
        try:
            secret = bytes.fromhex(h) if isinstance(h, str) and len(h) == 64 else b""
        except ValueError:
            secret = b""
        if len(secret) != 32 or nonce_of(secret) != nonce:
            raise LobbyError(
                f"seat {seat}'s code secret is not the one its nonce committed to: someone "
                "is altering the table (nothing was signed)"
            )
        secrets.append(secret)
    return secrets


def table_digest(table: dict[str, Any]) -> str:
    """What a person confirms: the table's name, lobby, size, options and every seat's name,
    kind, runner and key fingerprint (not who is connected or ready), as canonical JSON, hashed.
    Hostile input: any shape gives some digest, never an error."""
    seats = table.get("seats")
    public = {
        "name": table.get("name"),
        "lobby": table.get("lobby"),
        "size": table.get("size"),
        "options": table.get("options"),
        "seats": [
            {k: s.get(k) for k in ("name", "kind", "runner", "key")}
            for s in (seats if isinstance(seats, list) else [])
            if isinstance(s, dict)
        ],
    }
    try:
        return hashlib.sha256(encode(public)).hexdigest()  # type: ignore[arg-type]
    except (EncodingError, TypeError, ValueError):
        return ""


LOBBY_MAX_BYTES = 64 * 1024  # a lobby message's cap (protocol/lobby.md section 2)


def send(link: Link, msg: dict[str, JSONValue]) -> None:
    link.send(MsgType.LOBBY, encode(msg))


async def receive(link: Link) -> dict[str, Any]:
    m = await link.recv()
    if m.type != MsgType.LOBBY:
        raise LobbyError(f"expected a lobby message, got type {m.type}")
    try:
        # (a lobby's messages are small: a 10-seat start with its genesis is about 10 KB; a
        # stranger's 256 KiB to decode cost up to 0.1 s of the host's CPU each, helper-69)
        obj = decode(m.payload, max_size=LOBBY_MAX_BYTES)
    except EncodingError as e:
        raise LobbyError(f"a lobby message is not canonical JSON: {e}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("t"), str):
        raise LobbyError("a lobby message must be an object with a type")
    return obj


# ---------------------------------------------------------------------- the endpoint
BUSY_QUIET_S = 10.0  # a busy refusal is said at most once in this many seconds


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
        self._busy_said = -BUSY_QUIET_S  # (monotonic) when a busy refusal was last said
        self._busy_unsaid = 0  # busy refusals since, not said

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
            why = e.strerror
            if e.errno == errno.EADDRINUSE:  # (helper-36 read asyncio's own sentence)
                why = (
                    "the port is in use (another p2puno, or another program): choose another "
                    "--port, or --port 0 for any free one"
                )
            raise LobbyError(f"cannot listen on {where}: {why}") from None
        sock = self.server.sockets[0]
        self.port = int(sock.getsockname()[1])
        return self.port

    def _refused(self, err: object) -> None:
        if self.closed:  # (once closed, a link half-open at that moment is nobody's news)
            return
        if isinstance(err, LinkError) and err.code == LinkErrorCode.BUSY:
            # a flood of connections is one line a while, not one per connection (helper-38:
            # 396 lines filled a host's terminal)
            now = time.monotonic()
            if now - self._busy_said < BUSY_QUIET_S:
                self._busy_unsaid += 1
                return
            more = f" ({self._busy_unsaid} more refused so since)" if self._busy_unsaid else ""
            self._busy_said, self._busy_unsaid = now, 0
            self.say(f"refused a connection: {err}{more}")
            return
        if isinstance(err, LinkError) and err.code == LinkErrorCode.EOF and err.peer is None:
            # (helper-81: "refused a connection: eof: ..." read as a refusal of this node's,
            # when the connection was cut, by a network fault or the program that opened it)
            self.say(f"a connection from {err.address} was cut: {err.detail}")
            return
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
    confirms: bool = False  # a person who confirms the final table (the host's own seat: no)
    confirmed: set[str] = field(default_factory=set)  # digests of the tables its person confirmed
    join: dict[str, Any] | None = None  # the join it sat with (a rejoin must repeat it exactly)
    rejoins: int = 0  # how often it came back on a new link (at most REJOINS_MAX)
    away_s: float = 0.0  # how long, in all, it was away after cuts (at most REJOIN_BUDGET_S)
    cut_at: float | None = None  # (loop time) when its link was cut, while it is away
    cut_said: bool = False  # a line said its link was cut, and it is not said back since
    expiry: asyncio.TimerHandle | None = None  # the end of its grace, while it is away

    def public(self, digest: str | None = None) -> dict[str, JSONValue]:
        """As every player sees it; ``digest``: the table's as it is now, to say whether this
        seat's person has confirmed it (a seat with no one to confirm has no ``ready``)."""
        out: dict[str, JSONValue] = {
            "name": self.name,
            "kind": self.kind,
            "runner": self.runner,
            "key": self.sign_pk.hex()[:16],
            "connected": self.link is None or not self.link.closed,
        }
        if self.confirms and digest is not None:
            out["ready"] = digest in self.confirmed
        return out


@dataclass
class GameSetup:
    """What a node needs to play once the lobby is done."""

    genesis: bytes
    seat: int
    addresses: list[Address | None]  # None: this node
    code: str
    table: dict[str, Any] = field(default_factory=dict)
    game_id: bytes = b""
    secrets: list[bytes] = field(default_factory=list)  # every seat's code secret (public)


def _is_loopback(host: str) -> bool:
    return host.startswith("127.") or host in ("::1", "localhost")


# ---------------------------------------------------------------------- the host
class LobbyChat:
    """The lobby's chat, for a screen: lines said at the table before the game (the host
    passes every seat's on to every seat: protocol/lobby.md section 2). ``on_line(who,
    line)`` gets each line said, this seat's own included (``who`` None); :meth:`say` sends
    one. Words at a table, not moves: never signed, never in the log."""

    def __init__(self) -> None:
        self.on_line: Callable[[str | None, str], None] | None = None
        self._send: Callable[[str], None] | None = None  # (bound while in a lobby)
        self._pace = ChatPace()  # (as the host paces a seat: a line it drops is not said)

    def say(self, text: str) -> str | None:
        """Say ``text`` to the table: None once said, else why not (in words)."""
        line = chat_line(text)
        if not line:
            return "nothing to say"
        if self._send is None:
            return "not at a table's lobby now: nobody hears it"
        if self._pace.take(None, time.monotonic()) != "ok":  # (helper-61: shown as said,
            # then dropped by the host)
            return f"at most {CHAT_BURST} lines in {CHAT_PER_S:.0f} s: wait a moment"
        try:
            self._send(line)
        except LinkError:
            return "the host's link is down: nobody heard it"
        self.heard(None, line)
        return None

    def bind(self, send: Callable[[str], None] | None) -> None:
        """Where a line said goes: the lobby this seat is in binds it (None: unbound, at the
        game's start or on leaving the lobby; the game's own chat takes over)."""
        self._send = send

    def heard(self, who: str | None, line: str) -> None:
        if self.on_line is not None:
            self.on_line(who, line)


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
        secret: bytes | None = None,
    ) -> None:
        self.on_table = on_table
        self.endpoint = endpoint
        self.table = table
        self.options = options
        self.size = seats
        # the host's own code secret: its seat's nonce commits to it (None: one drawn here,
        # and the seat's nonce made its commitment)
        if secret is None:
            secret = os.urandom(32)
            me = dataclasses.replace(me, nonce=nonce_of(secret))
        elif me.nonce != nonce_of(secret):
            raise ValueError("the host's nonce must commit to its code secret (nonce_of)")
        self.secret = secret
        self.seats: list[Seat] = [me]
        self.revealed: dict[int, bytes] = {}  # seat -> its code secret, once started
        self.bad_reveals: list[int] = []  # seats that sent one their nonce does not commit to
        self._revealed = asyncio.Event()
        self._setup: GameSetup | None = None
        self._coding: asyncio.Future[str] | None = None
        # what a seat that comes back after the start is sent again, exactly as it was sent
        self._start_msg: dict[str, JSONValue] | None = None
        self._code_msg: dict[str, JSONValue] | None = None
        self._failed: str | None = None  # why the game did not start (the code's wait)
        self.lobby_id = os.urandom(32)
        # what the bots this host's node starts carry to claim "runner": "host" (given to
        # them in their environment): anyone else claiming it was believed, and the table
        # showed a stranger's bot as the host's (a review)
        self.bot_token = os.urandom(16).hex()
        # seats a bot of this host's node at the table (`b` in the host's lobby: a friend who
        # did not come); set by host_game, None where no bot can be started
        self.add_bot: Callable[[], Awaitable[str]] | None = None
        self.say = say or (lambda text: None)
        self.changed = asyncio.Event()
        self.listeners: list[asyncio.Event] = []  # each set at every change (one per task)
        self.started = False
        self.start_asked = False  # the host chose to start with the seats taken
        self.confirm_since: float | None = None  # (loop time) the roster became final as it is
        self._final = ""  # the digest of the final table that confirm_since is for
        # who left a table being confirmed, by address: they may not sit again for a while
        # (else one could hold the table by leaving and coming back before each deadline)
        self.held_off: dict[str, float] = {}
        self._leaves: dict[str, int] = {}  # per address: how often it left, or was unseated
        self.spectators: list[Link] = []  # waiting for the game to start
        self.refusals: dict[str, str] = {}  # the names refused a seat here, and why (64 kept)
        self.chat = LobbyChat()  # (the host's own lines: said to every seat, by seat 0)
        self.chat.bind(lambda line: self._chat(0, line))
        self._chat_pace = ChatPace()
        endpoint.handlers[self.lobby_id] = self.on_link
        endpoint.default = self.lobby_id

    def view(self) -> dict[str, JSONValue]:
        digest = self.digest()
        return {
            "t": "table",
            "name": self.table,
            "options": self.options,
            "seats": [s.public(digest) for s in self.seats],
            "size": self.size,
            "lobby": self.lobby_id.hex(),
            "confirm": self.confirming,
        }

    def digest(self) -> str:
        """What a person confirms (:func:`table_digest`) of the table as it is now."""
        return table_digest(
            {
                "name": self.table,
                "options": self.options,
                "seats": [s.public() for s in self.seats],
                "size": self.size,
                "lobby": self.lobby_id.hex(),
            }
        )

    # ------------------------------------------------------------------ the final roster
    @property
    def confirming(self) -> bool:
        """The roster is final (the table is full, or the host started with the seats taken):
        no one else may sit, and every person seated confirms the table."""
        return len(self.seats) >= 2 and (len(self.seats) >= self.size or self.start_asked)

    def unconfirmed(self) -> list[Seat]:
        """The seats whose person has not confirmed the table as it is now."""
        digest = self.digest()
        return [s for s in self.seats if s.confirms and digest not in s.confirmed]

    def can_start(self) -> bool:
        """The roster is final, every person at it confirmed it, and every seat is linked
        (a seat whose link was cut, kept for it to come back, would miss the start)."""
        linked = all(s.link is None or not s.link.closed for s in self.seats)
        return self.confirming and not self.unconfirmed() and linked

    def ask_start(self) -> None:
        """Start with the seats taken (2 or more), once each person at them has confirmed."""
        if not self.start_asked:
            self.start_asked = True
            self._roster_changed()

    def reopen(self) -> None:
        """The host's start with the seats taken is off (a seat went since): the table is
        open again, and the host chooses again."""
        self.start_asked = False
        self._roster_changed()

    def confirm_s(self) -> float:
        """How long a person has to confirm the table: the table's turn deadline."""
        timing = self.options.get("timing")
        turn = timing.get("turn_s") if isinstance(timing, dict) else None
        return float(turn) if isinstance(turn, int) and turn > 0 else 60.0

    def _roster_changed(self) -> None:
        """A seat joined or left, or the host chose to start. A confirmation names the whole
        table (its digest), so one of a table that is no longer the one at the host counts for
        nothing; the confirm deadline runs from the moment the final table became what it is."""
        final = self.digest() if self.confirming else ""
        if final != self._final:
            self._final = final
            self.confirm_since = asyncio.get_running_loop().time() if final else None
        self._broadcast()

    def _ready(self, seat: Seat, digest: object) -> None:
        """A person confirmed a table: counted while it is the table at the host (else it
        confirmed one that has changed since, and is asked again)."""
        if not seat.confirms or not self.confirming or not isinstance(digest, str):
            return
        if digest == self.digest() and digest not in seat.confirmed:
            if len(seat.confirmed) >= 64:  # (each a person's key press; bounded all the same)
                seat.confirmed.clear()
            seat.confirmed.add(digest)
            self.say(f"{seat.name} confirmed the table")
            self._broadcast()

    def held_s(self, address: str) -> float:
        """How long ``address`` must still wait to sit again (0: it may)."""
        now = asyncio.get_running_loop().time()
        for a in [a for a, until in self.held_off.items() if until <= now]:
            del self.held_off[a]
        return max(0.0, self.held_off.get(address, now) - now)

    def _hold_off(self, address: str) -> None:
        """``address`` left a table being confirmed, or was unseated from it: no seat from it
        for one confirm deadline, doubled at each time again (at most an hour). A seat that
        comes and goes restarts everyone's deadline; one held off as long as that deadline
        can keep a free seat no longer than an honest joiner would wait for it."""
        for book in (self.held_off, self._leaves):
            if address not in book and len(book) >= 256:  # (bounded: the oldest goes)
                del book[next(iter(book))]
        n = self._leaves[address] = self._leaves.get(address, 0) + 1
        hold = min(3600.0, self.confirm_s() * 2 ** min(n - 1, 12))
        self.held_off[address] = asyncio.get_running_loop().time() + hold

    def unseat_late(self) -> list[str]:
        """Unseat each person who has not confirmed within :meth:`confirm_s` of the roster
        becoming final (the host's node calls it; a seat may not hold the table forever)."""
        if self.confirming and self.confirm_since is None:  # (never so; but never forever)
            self._roster_changed()
        if self.confirm_since is None or not self.confirming:
            return []
        if asyncio.get_running_loop().time() - self.confirm_since < self.confirm_s():
            return []
        gone = []
        late = f"you did not confirm the table within {self.confirm_s():.0f} s"
        for s in self.unconfirmed():
            reason = late
            if s.link is not None:
                self._hold_off(host_of(s.link))  # (else it could sit again at once)
                # (and how long: helper-104 joined again at once and read that a seat from
                # its address "was given up", which it had not done, and no word of this)
                wait_s = math.ceil(self.held_s(host_of(s.link)))
                reason = f"{late}: this table takes a seat from your address again in {wait_s} s"
                if not s.link.closed:
                    with contextlib.suppress(LinkError):
                        send(s.link, {"t": "refuse", "reason": reason})
                    s.link.close(reason)
            if s in self.seats:
                self.seats.remove(s)
            gone.append(s.name)
            self.say(f"{s.name} did not confirm the table in time: the seat is free again")
        if gone:
            self._roster_changed()
        return gone

    def unseat(self, index: int) -> str:
        """The host gives seat ``index`` up by hand (not its own): the joiner is told and its
        link closed, and its address may not sit again for a while, as after a late confirm
        (else it could come straight back). Returns what happened, in words; LobbyError if
        there is no such seat to give up."""
        if self.started:
            raise LobbyError("the game has started: seats are no longer the lobby's")
        if not 0 < index < len(self.seats):
            if index == 0:
                raise LobbyError("seat 0 is yours")
            free = len(self.seats) <= index < self.size
            raise LobbyError(f"seat {index} is free" if free else f"no seat {index}")
        s = self.seats[index]
        reason = "the host gave your seat up"
        if s.link is not None:
            self._hold_off(host_of(s.link))
            if not s.link.closed:
                with contextlib.suppress(LinkError):
                    send(s.link, {"t": "refuse", "reason": reason})
                s.link.close(reason)
        last = self.seats[-1] is s
        self.seats.remove(s)
        moved = "the seat is free again" if last else "the seats after it move up one"
        said = f"you gave {s.name}'s seat up: {moved}"
        self.say(said)
        self._roster_changed()
        return said

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
        for event in self.listeners:
            event.set()

    @property
    def seats_offered(self) -> int:
        """Seats taken as the LAN should see them: all of them once the roster is final."""
        return self.size if self.confirming else len(self.seats)

    async def on_link(self, link: Link) -> None:
        try:
            msg = await asyncio.wait_for(receive(link), 10)
        except (LobbyError, LinkError, TimeoutError) as e:
            link.close(f"no join: {e}")
            return
        if msg.get("t") == "watch":
            await self._spectator(link, msg)
            return
        back = self._returning(link, msg)
        if isinstance(back, Seat):
            await self._rejoin(back, link)
            return
        host = host_of(link)
        reason = back if back is not None else self._check_join(link, msg)
        if reason is None and msg.get("runner") == "host" and msg.get("token") != self.bot_token:
            reason = (
                "only the bots this host's node starts run on the host (p2puno host --bots K); "
                "a bot from elsewhere joins with --runner self"
            )
        wait_s = self.held_s(host)
        told_host: str | None = None  # (the host's own words, where they differ)
        own_bot = msg.get("runner") == "host" and msg.get("token") == self.bot_token
        if reason is None and wait_s > 0 and not own_bot:  # (helper-30: `x` held off the
            # host's own address, and with it every bot the host then seated with `b`)
            # (a seat not confirmed in time too: helper-104's, which read it had "left" or
            # been "unseated"; the host's own line says "that address", not "your address")
            given_up = (
                "was given up at this table (left while its players were confirming it, not "
                "confirmed in time, or given up by the host): seats from that address are "
                f"open again in {math.ceil(wait_s)} s"  # (not "in 0 s": helper-88)
            )
            reason = f"a seat from your address {given_up}"
            told_host = f"a seat from that address {given_up}"
        if reason is not None:
            with contextlib.suppress(LinkError):
                send(link, {"t": "refuse", "reason": reason})
            # (not the joiner's advice)
            told = told_host or reason.removesuffix(": join with another --name")
            self.say(f"refused {link.address}: {told}")
            if isinstance(msg.get("name"), str) and len(self.refusals) < 64:
                self.refusals[msg["name"][:32]] = told  # (why a bot of the host's did not sit)
            link.close(reason)
            return
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
            confirms=msg.get("confirms") is True,
            join=msg,
        )
        self.seats.append(seat)
        with contextlib.suppress(LinkError):  # (a link gone already: the seat waits for it)
            send(link, {"t": "welcome", "seat": len(self.seats) - 1})
        self.say(f"seat {len(self.seats) - 1}: {seat.name} ({seat.kind}) joined")
        self._roster_changed()
        await self._serve(seat, link)

    async def _serve(self, seat: Seat, link: Link) -> None:
        """A seat's messages on its link until it leaves, the start's reveal, or the link
        ends: a link lost to a fault before the start leaves the seat kept, detached, for
        REJOIN_GRACE_S (protocol/lobby.md, "A seat whose link is cut comes back")."""
        lost = False
        try:
            while True:
                m = await receive(link)
                if self.started:  # (the start is out: only the seat's code secret counts)
                    if m.get("t") == "reveal" and seat in self.seats:
                        index = self.seats.index(seat)
                        if index not in self.revealed:  # (a seat back says it again: the
                            self._reveal(index, m.get("secret"))  # first one stands)
                        break
                    continue
                if m.get("t") == "leave":
                    break
                if m.get("t") == "chat" and isinstance(m.get("text"), str):
                    self._heard(seat, m["text"])
                if m.get("t") == "ready":
                    self._ready(seat, m.get("table"))
        except LinkError as e:
            lost = e.code in _LOST
        except LobbyError:
            pass
        finally:  # (however it ends, even a link gone before its welcome: no seat stays)
            if lost and seat.link is link and self.started and seat in self.seats:
                self._cut_after_start(seat)
            if seat.link is link and not self.started and seat in self.seats:
                if lost and seat.rejoins < REJOINS_MAX:
                    self._detach(seat, link)
                else:
                    self._leave(seat, host_of(link), "left the table")

    def _cut_after_start(self, seat: Seat) -> None:
        """The seat's link was lost after the start, before its code secret came: said, as
        the host waits for it (no seat is freed after the start; the code's wait decides).
        Once the code is given up (``_failed``), the host closed every link itself."""
        if self._failed is not None or self.seats.index(seat) in self.revealed:
            return
        seat.cut_said = True
        self.say(
            f"the connection to {seat.name} was cut after the start: the game starts if it "
            f"comes back and shows its code secret within {REVEAL_S:.0f} s of the start"
        )

    def _leave(self, seat: Seat, address: str, words: str) -> None:
        """The seat is free again (it left, its link ended, or it did not come back)."""
        if seat.expiry is not None:
            seat.expiry.cancel()
            seat.expiry = None
        if self.confirming:  # (whoever it says runs it: a joiner's claim is its own)
            self._hold_off(address)
        self.seats.remove(seat)
        self.say(f"{seat.name} {words}")
        self._roster_changed()

    def _detach(self, seat: Seat, link: Link) -> None:
        """The seat's link was lost to a fault: kept REJOIN_GRACE_S for its node to dial
        again (no start meanwhile: can_start needs every seat linked), then freed as one
        that left. Each time away counts against REJOIN_BUDGET_S: past it, freed at once."""
        address = host_of(link)
        grace = min(REJOIN_GRACE_S, REJOIN_BUDGET_S - seat.away_s)
        if grace <= 0:
            self._leave(
                seat,
                address,
                f"left the table (its connection was cut again, after {seat.away_s:.0f} s away "
                "in all)",
            )
            return
        seat.cut_said = True
        self.say(
            f"the connection to {seat.name} was cut: the seat is kept {round(grace, 1):g} s "
            "for it to come back"
        )
        self._broadcast()  # (shown not connected)
        loop = asyncio.get_running_loop()
        seat.cut_at = loop.time()

        def expire() -> None:
            seat.expiry = None
            if seat.link is link and not self.started and seat in self.seats:
                self._leave(
                    seat,
                    address,
                    f"left the table (its connection was cut and it did not come back within "
                    f"{round(grace, 1):g} s)",
                )

        seat.expiry = loop.call_later(grace, expire)

    def _returning(self, link: Link, msg: dict[str, Any]) -> Seat | str | None:
        """The seat a join takes back (its link's key is that seat's, and the join is the one
        it sat with, exactly), or why not (a refusal), or None: not a seat's key here."""
        if msg.get("t") != "join":
            return None
        seat = next((s for s in self.seats[1:] if s.sign_pk == link.peer), None)
        if seat is None:
            return None
        if seat.join != msg:
            return (
                "a seat with these keys is at this table, taken with another join: it is not "
                "taken back with a different one"
            )
        if seat.rejoins >= REJOINS_MAX:
            return f"this seat came back {REJOINS_MAX} times already: it is not taken back again"
        if self._failed is not None:  # (said as "the game did not start: ..." after the start)
            return self._failed
        return seat

    async def _rejoin(self, seat: Seat, link: Link) -> None:
        """The seat's node is back on a new link (its key proved in the handshake, its join
        the same): the new link replaces the old one, and it is sent what it may have missed:
        the table before the start; after it, the same start (and code) again, unchanged."""
        old, seat.link = seat.link, link
        seat.rejoins += 1
        if seat.expiry is not None:
            seat.expiry.cancel()
            seat.expiry = None
        if seat.cut_at is not None:
            seat.away_s += asyncio.get_running_loop().time() - seat.cut_at
            seat.cut_at = None
        if not self.started:  # (where it is now: the start gives the others its address)
            seat.host = host_of(link)
        half_open = False
        if old is not None and not old.closed:  # (a link the host had not seen cut yet)
            half_open = True
            old.close("the seat came back on a new link")
        index = self.seats.index(seat)
        if not seat.cut_said:  # (a person reads a seat back only after reading it cut,
            # helper-91: a cut seen first at its end, or one after its code secret came,
            # when the host no longer reads its link)
            how = "at its end (seen" if half_open else "(said"
            self.say(
                f"the connection to {seat.name} was cut {how} here only now, as its node "
                "dialed again)"
            )
        seat.cut_said = False
        again = ""  # (after the start: why it gets a start now, helper-91)
        if self.started:
            code = " and the table code" if self._code_msg is not None else ""
            again = f": it is sent the start{code} again"
        self.say(f"{seat.name} is back at seat {index} (its connection had been cut){again}")
        try:
            # ("back": the seat it held, kept; a welcome without it, to a node that was
            # seated before, is a new seat: the one it held was freed, helper-91)
            send(link, {"t": "welcome", "seat": index, "back": True})
            if not self.started:
                self._broadcast()  # (connected again; the same table: nothing to confirm)
            else:  # (no table now: the start's must stay the last one it was shown)
                if self._start_msg is not None:
                    send(link, self._start_msg)
                if self._code_msg is not None:
                    send(link, self._code_msg)
        except LinkError:
            pass
        await self._serve(seat, link)

    def _heard(self, seat: Seat, text: str) -> None:
        """A seat's chat line: passed on to every seat by this host (at most CHAT_BURST a
        while from one seat; more are dropped, said once here)."""
        line = chat_line(text)
        if not line or seat not in self.seats:
            return
        # (by address, not by key: a new key costs nothing, and helper-62 rejoined 122 times
        # in 5 s with a fresh one each time, 610 lines through; CHAT_BURST for each seat of
        # that address seated now: players at one machine do not share one allowance)
        here = sum(1 for s in self.seats if s.host == seat.host)
        pace = self._chat_pace.take(seat.host, time.monotonic(), CHAT_BURST * here)
        if pace == "drop":
            self.say(f"{terminal_safe(seat.name)} chats too fast: lines dropped")
        if pace != "ok":
            return
        if self.chat.on_line is not None:
            self.chat.heard(chat_line(seat.name), line)
        else:  # (no screen: a line of the node's, as the game's chat is said)
            self.say(chat_words(chat_line(seat.name), line))
        self._chat(self.seats.index(seat), line)

    def _chat(self, index: int, line: str) -> None:
        """Send a line said by seat ``index`` to every other seat's link (not to
        spectators: the chat is the players', as at the game's table)."""
        msg: dict[str, JSONValue] = {
            "t": "chat",
            "seat": index,
            "name": self.seats[index].name,
            "text": line,
        }
        for s in self.seats:
            if s.link is not None and not s.link.closed and s is not self.seats[index]:
                with contextlib.suppress(LinkError):  # (its own: shown when it said it)
                    send(s.link, msg)

    async def _spectator(self, link: Link, msg: dict[str, Any]) -> None:
        """One who watches: it sees the lobby until the game starts, then the game node
        serves it (GameNode.add_watcher)."""
        refusal = watch_refusal(self.spectators, link)
        if refusal is not None:
            with contextlib.suppress(LinkError):
                send(link, {"t": "refuse", "reason": refusal})
            link.close(refusal)
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
        return check_join(msg, link.peer, self.seats, self.size, self.started, self.confirming)

    def start(self, identity: Identity) -> GameSetup:
        """Write the genesis (seat order = the order of joining) and send it to every seat."""
        if len(self.seats) < 2:
            raise LobbyError("a game needs at least 2 players")
        self.started = True
        self.chat.bind(None)  # (the joiners hear no more of it: the game's chat takes over)
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
        self._start_msg = msg  # (sent again, unchanged, to a seat that comes back)
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
        self.revealed[0] = self.secret
        self._setup = GameSetup(genesis, 0, mine, "", self.view(), game_id=log_.game_id)
        # every seat's code secret, then the code: awaited by code() (set in the setup too)
        self._coding = asyncio.ensure_future(self._code(REVEAL_S))
        return self._setup

    def _reveal(self, seat: int, raw: object) -> None:
        """A seat's code secret, after the start: taken if its nonce commits to it."""
        try:
            secret = bytes.fromhex(raw) if isinstance(raw, str) and len(raw) == 64 else b""
        except ValueError:
            secret = b""
        if len(secret) == 32 and nonce_of(secret) == self.seats[seat].nonce:
            self.revealed[seat] = secret
        else:  # (no honest node does: the table ends at once, naming it; helper-33 waited
            # 20 s and was told of a secret that never came)
            self.bad_reveals.append(seat)
        self._revealed.set()

    async def code(self) -> str:
        """Once :meth:`start` sent the genesis: every seat's code secret, checked, sent to
        every seat, and the table code (also set in the setup :meth:`start` returned).
        LobbyError if a seat has not shown its secret within REVEAL_S: the game does not
        start, and every seat is told why (nobody signed anything but the host's genesis)."""
        assert self._coding is not None, "code() comes after start()"
        return await asyncio.shield(self._coding)

    async def _code(self, timeout: float) -> str:
        setup = self._setup
        assert setup is not None, "code() comes after start()"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.revealed) < len(self.seats) and not self.bad_reveals:
            self._revealed.clear()
            left = deadline - loop.time()
            if left <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._revealed.wait(), left)
        missing = [i for i in range(len(self.seats)) if i not in self.revealed]
        if missing:
            who = ", ".join(f"{self.seats[i].name} (seat {i})" for i in missing)
            why = f"no code secret from {who} in time"
            if self.bad_reveals:
                i = self.bad_reveals[0]
                why = (
                    f"{self.seats[i].name} (seat {i}) sent a code secret its nonce does not "
                    "commit to"
                )
            for s in self.seats[1:]:
                if s.link is not None:
                    with contextlib.suppress(LinkError):
                        send(s.link, {"t": "refuse", "reason": why})
                    s.link.close(why)
            self._failed = why
            raise LobbyError(f"{why}: the game does not start")
        secrets = [self.revealed[i] for i in range(len(self.seats))]
        setup.code = table_code(setup.game_id, secrets)
        setup.secrets = secrets
        msg: dict[str, JSONValue] = {"t": "code", "secrets": [x.hex() for x in secrets]}
        self._code_msg = msg
        for s in self.seats[1:]:
            if s.link is not None:
                with contextlib.suppress(LinkError):
                    send(s.link, msg)
        return setup.code


def check_join(
    msg: dict[str, Any],
    peer: bytes,
    seats: list[Seat],
    size: int,
    started: bool,
    final: bool = False,
) -> str | None:
    """Why a join message cannot have a seat (None: it can). ``final``: the roster is being
    confirmed. Hostile input: any shape."""
    if msg.get("t") != "join":
        return "the first message must be a join"
    if msg.get("v") != LOBBY_VERSION:
        return (
            f"this table speaks lobby protocol {LOBBY_VERSION}, not {msg.get('v')!r:.20}: the "
            "host's p2puno and yours are different versions (the older one needs updating)"
        )
    if started:  # (the joiner writes its address for HOST:PORT: helper-104 read no way on)
        return "the game has started: watch it with  p2puno watch HOST:PORT"
    if len(seats) >= size:
        return f"the table is full ({size} seats)"
    if final:
        return "the table is starting with the seats taken (its players are confirming it)"
    name = msg.get("name")
    problem = name_problem(name)
    if problem is not None:
        return problem
    assert isinstance(name, str)
    for s in seats:
        if s.name.casefold() == name.casefold():
            was = "" if s.name == name else f' (as "{s.name}")'
            if s.link is not None and s.link.closed:  # (a node restarted at once: helper-88)
                return (
                    f'the name "{name}" is taken at this table{was} by a seat whose connection '
                    "was cut, kept a few seconds for its node to come back: if it was yours, "
                    "join again in a few seconds"
                )
            return f'the name "{name}" is taken at this table{was}: join with another --name'
        if name_skeleton(s.name) == name_skeleton(name):
            return (
                f'the name "{name}" looks like "{s.name}", taken at this table: join with '
                "another --name"
            )
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
    if type(msg.get("confirms", False)) is not bool:
        return "confirms must be true or false"
    return None


def make_options(
    players: int, house: list[str], scoring: str, target: int, timing: Timing
) -> dict[str, JSONValue]:
    from p2puno.engine import Options
    from p2puno.engine.options import parse_house

    opts = Options(players, target=target, scoring=scoring, **parse_house(",".join(house)))  # type: ignore[arg-type]
    # (reveal: the most shuffles a reveal step carries, spec 10.10; a joiner requires it)
    return options_to_obj(opts, timing, reveal=REVEAL_SHUFFLES)


# ---------------------------------------------------------------------- a joiner
# what a port answers when no p2puno node of this version listens there
_NOT_P2PUNO: Final = frozenset(
    {*FrameErrorCode, HandshakeErrorCode.MALFORMED, HandshakeErrorCode.BAD_VERSION}
)


# how a connection is lost, whatever cut it: once the handshake is done, they say nothing of
# what listens there (it proved itself a p2puno node)
_CUT: Final = frozenset({FrameErrorCode.TRUNCATED, LinkErrorCode.EOF, LinkErrorCode.IO_ERROR})
# a lobby link lost to a fault, not closed by a word (BYE) or a bad message: a seat's node
# dials its host again (join_table), and the host keeps the seat meanwhile (HostLobby._serve)
_LOST: Final = frozenset({*_CUT, LinkErrorCode.SILENT, LinkErrorCode.STALLED})
# a dial's link that ended after the handshake, before the host's first record: the link reads
# an end there as "refused" (our key), but a lobby's host takes every key at the handshake (its
# handler checks the join), so there it is a cut too (chaos_net 705/3: this node's own
# connection cut mid-write read "closed the connection after the handshake (our key refused)");
# and the link's own end closed there (``closed``: the chaos shim's cut of this node's own
# write now reads so, no longer as the host refusing our key, helper-91)
_ANSWERED_CUT: Final = frozenset({*_CUT, LinkErrorCode.REFUSED, LinkErrorCode.CLOSED})
_HOST_LOST: Final[dict[str, str]] = {  # (the code goes to the log)
    FrameErrorCode.TRUNCATED: "was cut in the middle of a message (a network fault, or the "
    "host's program stopped)",
    LinkErrorCode.EOF: "was closed at its end without a word (the host's program may have stopped)",
    LinkErrorCode.IO_ERROR: "broke (a network error)",
}


# a join whose link is cut right after the handshake (before the join is sent) dials again,
# this many tries in all, JOIN_REDIAL_S, then twice that, apart
JOIN_TRIES = 3
JOIN_REDIAL_S = 0.25


def unreachable(host: str, port: int, e: LinkError) -> str:
    """Why no table could be reached at ``host:port``, for a person: a port nobody listens
    on, or something there that is not a p2puno node, rather than the transport's codes."""
    if e.code == LinkErrorCode.CONNECT:
        return f"cannot reach a table at {host}:{port}: {e.detail}"
    if e.peer is not None and e.code == LinkErrorCode.BYE:  # it said why (helper-97: a node
        # whose game is over, serving its end to late seats, read as a network fault)
        return f"the host closed the table ({e.detail.removeprefix('said bye: ')})"
    if e.peer is not None and e.code == LinkErrorCode.CLOSED:  # (this end's close: helper-91)
        return (
            f"the connection to the table at {host}:{port} was closed at this end just after "
            "it answered (nothing was sent on it): try again"
        )
    if e.peer is not None and e.code in _ANSWERED_CUT:  # (helper-80: the host's first record
        # cut, after a handshake that authenticated it, read "does not answer as a p2puno table")
        return (
            f"lost the connection to the table at {host}:{port} just after it answered (a "
            "network fault, or its program stopped): try again"
        )
    if e.peer is None and e.code in _NOT_P2PUNO:
        return (
            f"{host}:{port} does not answer as a p2puno table (something else listens there, "
            f"or an incompatible version: {e.code})"
        )
    if e.peer is None and e.code in (LinkErrorCode.EOF, LinkErrorCode.IO_ERROR):
        return (
            f"the connection to {host}:{port} was cut during the handshake, each time it was "
            f"dialed (a network fault, or something else listens there): {e.detail}"
        )
    if e.code == LinkErrorCode.HANDSHAKE_TIMEOUT:
        return (
            f"{host}:{port} did not answer as a p2puno table within a few seconds (something "
            "else listens there, or the node is too busy)"
        )
    if e.code == HandshakeErrorCode.UNEXPECTED_IDENTITY:  # (only when dialing again: helper-82
        # read "does not answer as a p2puno table (... unexpected_identity)")
        return (
            f"another program answers at {host}:{port} now (a key other than the host's that "
            "answered before): it was not joined again, and nothing was sent to it"
        )
    if e.code == HandshakeErrorCode.OTHER_CONTEXT:
        return (
            f"{host}:{port} is a p2puno node, but has no table to join or watch there: a "
            "joiner's node takes spectators only once its game has started; before, use the "
            "host's address"
        )
    return f"cannot reach a table at {host}:{port}: {e}"


async def join_table(
    endpoint: Endpoint,
    identity: Identity,
    host: str,
    port: int,
    *,
    name: str,
    secret: bytes,
    kind: str = "person",
    runner: str = "self",
    token: str | None = None,
    say: Callable[[str], None] | None = None,
    timeout: float = 3600.0,
    on_table: Callable[[dict[str, Any]], None] | None = None,
    confirm: Callable[[dict[str, Any]], Awaitable[bool]] | None = None,
    advert: tuple[str, bytes] | None = None,
    chat: LobbyChat | None = None,
) -> tuple[GameSetup, Link]:
    """Take a seat at ``host:port`` and wait for the game to start. LobbyError says why not.

    ``chat``: the lobby's chat for a screen (lines in, a line out), bound to this table while
    seated here; None: the lines are said (``say``) as they come.

    ``advert``: the host key fingerprint and the lobby id of the table as a LAN listing showed
    it (``p2puno lobby``): the link then asks for that lobby and the host's key must match the
    fingerprint, or nothing is sent (helper-31: another host answering at the listed address
    seated a joiner, and the "host key" the listing showed was never checked).

    ``confirm``: a person's say on the final table (True: play at it; False: leave), asked
    each time the roster becomes final as it is; the genesis must then be the table the host
    showed last, and the person must have confirmed that one. None (a bot): no one is asked,
    and the genesis must be the table last shown. An older host, which never marks a table
    final, gets the person asked when its start comes.

    ``secret``: this seat's code secret (32 fresh bytes); the join carries its commitment as
    the seat's nonce, and the secret is shown to the host once the genesis is out."""
    say = say or (lambda text: None)
    nonce = nonce_of(secret)
    context = advert[1] if advert is not None else None
    expect: bytes | None = None  # (once a host answered: that host again, none other)
    tries = 0
    while True:
        try:
            link = await open_link(host, port, identity, context, expect, limits=NODE_LIMITS)
            break
        except LinkError as e:
            if advert is not None and e.code == HandshakeErrorCode.OTHER_CONTEXT:
                raise LobbyError(
                    f"the table listed at {host}:{port} is not there now (another lobby "
                    "answered: list the tables again)"
                ) from None
            tries += 1
            answered = e.peer is not None and e.code in _ANSWERED_CUT
            # (or cut during the handshake: nothing proved, nothing sent; chaos_net 711/2, its
            # own first handshake message cut, read "cannot reach a table ... eof")
            shaking = e.peer is None and e.code in (LinkErrorCode.EOF, LinkErrorCode.IO_ERROR)
            if not (answered or shaking) or tries >= JOIN_TRIES:
                raise LobbyError(unreachable(host, port, e)) from None
            # the host answered, then the connection was cut before anything was sent:
            # no seat is taken yet, and dialing again is safe (helper-80's cut first record)
            log.info("join: %s; dialing again", e)
            if answered:
                say(f"the connection to {host}:{port} was cut as it answered: dialing again")
                expect = e.peer
            else:
                say(f"the connection to {host}:{port} was cut in the handshake: dialing again")
            await asyncio.sleep(JOIN_REDIAL_S * tries)
    if advert is not None and not link.peer.hex().startswith(advert[0]):
        link.close("not the host the listing named")
        raise LobbyError(
            f"the host at {host}:{port} has key {link.peer.hex()[:16]}, not the host key "
            f"{advert[0]} the listing showed: someone else answers at that address (a "
            "machine in the middle, or another table); nothing was sent to it"
        )
    join: dict[str, JSONValue] = {
        "t": "join",
        "v": LOBBY_VERSION,
        "name": name,
        "sign": identity.sign_pk.hex(),
        "dh": identity.dh_pk.hex(),
        "nonce": nonce.hex(),
        "port": endpoint.port,
        "kind": kind,
        "runner": runner,
    }
    if confirm is not None:
        join["confirms"] = True
    if token is not None:  # (a bot the host's node started: see HostLobby.bot_token)
        join["token"] = token
    with contextlib.suppress(LinkError):  # (closed as it answered, a node whose game is over
        # serving its end, say: why is read below; the send's error was a traceback, helper-97)
        send(link, join)
    seat: Any = -1
    table: dict[str, Any] = {}
    confirmed: set[str] = set()  # the digests of the tables the person confirmed
    asking: tuple[str, asyncio.Task[bool]] | None = None  # (the table's digest, the question)
    final_tables = False  # the host marks a table final (a host older than that never does)
    started: GameSetup | None = None  # the genesis is out: this seat waits for the code
    start_msg: dict[str, Any] = {}  # (the start as it came: one sent again must be the same)
    left = False
    host_key, lobby_id = link.peer, link.context  # (a node back after a cut: this host only)
    rejoins = 0  # links this seat came back on (at most REJOINS_MAX, as the host counts)

    def leaving() -> bool:
        """Whether the person left (``ask`` may say so while this node awaits)."""
        return left

    async def redial(cut: LinkError) -> Link:
        """The link to the host was lost to a fault with the join sent: the same host (its
        key, its lobby) again, JOIN_TRIES tries, and the same join, for the host to give this
        seat back (protocol/lobby.md, "A seat whose link is cut comes back")."""
        how = _HOST_LOST.get(cut.code, "went silent (a network fault, or the host's program hangs)")
        lost = f"the connection to {host}:{port} {how}"
        if seat == -1:  # (no welcome yet: it holds no seat it knows of, helper-91)
            say(f"{lost}: dialing again to take a seat (the host had not answered the join)")
        else:
            say(f"{lost}: dialing again to keep the seat")
        why = ""
        for tries in range(JOIN_TRIES):  # (at once, then JOIN_REDIAL_S, twice that, apart)
            await asyncio.sleep(JOIN_REDIAL_S * tries)
            if left:
                raise LobbyError("you left the table")
            try:
                new = await open_link(host, port, identity, lobby_id, host_key, limits=NODE_LIMITS)
            except LinkError as e:
                log.info("rejoin: %s", e)
                if e.code == HandshakeErrorCode.UNEXPECTED_IDENTITY:
                    raise LobbyError(
                        f"the host went away: {lost}, and another program answers there now "
                        "(a key other than the host's): the seat was not taken back, and "
                        "nothing was sent to it"
                    ) from None
                if e.code == HandshakeErrorCode.OTHER_CONTEXT:
                    raise LobbyError(
                        f"the host went away: {lost}, and the node there now has another "
                        "table: the seat was not taken back"
                    ) from None
                why = unreachable(host, port, e)
                continue
            try:
                send(new, join)
            except LinkError as e:
                why = unreachable(host, port, e)
                continue
            return new
        raise LobbyError(
            f"the host went away: {lost}; dialed it again {JOIN_TRIES} times, in vain ({why})"
        )

    async def ask(view: dict[str, Any], digest: str) -> bool:
        nonlocal left
        if await confirm(view):  # type: ignore[misc]
            if len(confirmed) >= 4096:  # (bounded: a person's answers; past the host's 64,
                confirmed.clear()  # which it forgets first: then this node says ready again)
            confirmed.add(digest)
            with contextlib.suppress(LinkError):
                send(link, {"t": "ready", "table": digest})
            return True
        left = True
        with contextlib.suppress(LinkError):
            send(link, {"t": "leave"})
        link.close("left the table")
        return False

    def asked(view: dict[str, Any]) -> None:
        """Ask the person about this table if it is final and not what they are asked or
        confirmed already (the host shows the table again each time a seat confirms)."""
        nonlocal asking, final_tables
        digest = table_digest(view)
        final_tables = final_tables or "confirm" in view
        if asking is not None and asking[0] == digest and not asking[1].done():
            return
        if asking is not None:
            asking[1].cancel()
            asking = None
        if confirm is None or view.get("confirm") is not True:
            return
        if digest in confirmed:
            if _my_seat(view, identity).get("ready") is False:  # (the host lost or forgot it:
                with contextlib.suppress(LinkError):  # the person confirmed this very table)
                    send(link, {"t": "ready", "table": digest})
            return
        asking = (digest, asyncio.ensure_future(ask(view, digest)))

    async def _started(msg: dict[str, Any], shown: dict[str, Any]) -> GameSetup:
        """The genesis, checked against the table last shown (and confirmed, with a person)."""
        if confirm is None:
            return _check_start(msg, identity, nonce, shown, host)
        digest = table_digest(shown)
        if digest not in confirmed and not final_tables:  # (an older host)
            started = msg.get("table")
            shown = started if isinstance(started, dict) else shown
            digest = table_digest(shown)
            if on_table is not None:
                on_table(shown)
            if not await ask({**shown, "confirm": True}, digest):
                raise LobbyError("you left the table")
        if digest not in confirmed:
            link.close("started before the table was confirmed")
            raise LobbyError(
                "the host started the game before you confirmed the table: nothing was signed"
            )
        return _check_start(msg, identity, nonce, shown, host, True)

    if chat is not None:
        chat.bind(lambda line: send(link, {"t": "chat", "text": line}))
    host_pace = ChatPace()  # (the host's lines, all of them: a joiner paces its host too)
    try:
        async with asyncio.timeout(timeout):
            while True:
                try:
                    if started is None:
                        msg = await receive(link)
                    else:  # (the code's secrets come within REVEAL_S of the start, or never)
                        msg = await asyncio.wait_for(receive(link), REVEAL_S + 10.0)
                except LinkError as e:
                    if left:
                        raise LobbyError("you left the table") from None
                    if e.code not in _LOST:
                        raise
                    if rejoins >= REJOINS_MAX:
                        how = _HOST_LOST.get(e.code, "went silent")
                        raise LobbyError(
                            f"the host went away: the connection to {host}:{port} {how}, "
                            f"after this seat had come back {REJOINS_MAX} times: it is not "
                            "dialed again"
                        ) from None
                    rejoins += 1
                    link = await redial(e)  # (LobbyError if it cannot)
                    if leaving():  # (the person left while it dialed: said on the new link,
                        # helper-88: the seat was taken back and the person asked again)
                        with contextlib.suppress(LinkError):
                            send(link, {"t": "leave"})
                        link.close("left the table")
                        raise LobbyError("you left the table") from None
                    continue
                except TimeoutError:
                    raise LobbyError(
                        "the host sent no table code after the start: the game did not start "
                        "(nothing was signed)"
                    ) from None
                t = msg.get("t")
                if t == "refuse":
                    if started is not None:
                        raise LobbyError(f"the game did not start: {msg.get('reason')}")
                    if seat != -1:  # (seated, then unseated: by the host, or for a deadline)
                        raise LobbyError(f"you lost your seat: {msg.get('reason')}")
                    why = str(msg.get("reason")).replace("HOST:PORT", f"{host}:{port}")
                    raise LobbyError(f"the table refused the seat: {why}")
                if t == "welcome":
                    had, seat = seat, msg.get("seat")
                    if type(seat) is not int or not 0 < seat < 10:
                        raise LobbyError("the host sent a bad welcome")
                    if had == -1:  # (a welcome lost in a cut: the first this node read)
                        say(f"seated at seat {seat}")
                    elif msg.get("back") is True:
                        say(f"back at seat {seat}")
                    else:  # (the grace ran out: helper-91 read "back at seat 1" here)
                        say(
                            "the host had freed the seat (this node was not back in time): "
                            f"seated again at seat {seat}, as a new join"
                        )
                elif t == "table":
                    if on_table is None and table_digest(msg) != table_digest(table):
                        # (in words where no table shows it; not again for a seat's "ready")
                        with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError):
                            say(_describe(msg))
                    table = msg
                    if on_table is not None:
                        on_table(msg)
                    asked(msg)
                elif t == "chat" and seat != -1 and started is None:
                    # (the host passes on at most CHAT_BURST lines a seat in CHAT_PER_S, its
                    # own included: more comes from a host flooding, dropped here unsaid)
                    if host_pace.take("host", time.monotonic(), CHAT_BURST * 10) == "ok":
                        _lobby_line(msg, chat, say)
                elif t == "start" and started is not None:  # (sent again to a seat back)
                    if encode(msg) != encode(start_msg):
                        link.close("another start")
                        raise LobbyError(
                            "the host sent another start when this seat came back after a "
                            "cut: the game did not start (nothing was signed)"
                        )
                    say("the host sent the same start again: this seat's code secret is sent again")
                    with contextlib.suppress(LinkError):  # (the same secret: its nonce's)
                        send(link, {"t": "reveal", "secret": secret.hex()})
                elif t == "start":
                    if chat is not None:
                        chat.bind(None)  # (the game's own chat takes over)
                    started = await _started(msg, table)
                    start_msg = msg
                    # the genesis commits to every seat's code secret: show this seat's
                    with contextlib.suppress(LinkError):  # (a link lost: said at the next read)
                        send(link, {"t": "reveal", "secret": secret.hex()})
                elif t == "code" and started is not None:
                    g = Genesis.from_obj(Entry.from_obj(decode(started.genesis)).body)
                    started.secrets = check_secrets(msg.get("secrets"), g.nonces)
                    started.code = table_code(g.game_id, started.secrets)
                    return started, link
    except LinkError as e:
        if e.code == "bye":  # it said why
            why = e.detail.removeprefix("said bye: ")
            raise LobbyError(f"the host closed the table ({why})") from None
        log.info("the host's link ended: %s", e)
        if e.code in _CUT:  # (helper-80 read "the host went away: truncated: peer 60ab...")
            raise LobbyError(
                f"the host went away: the connection to {host}:{port} {_HOST_LOST[e.code]}"
            ) from None
        raise LobbyError(f"the host went away: {e}") from None
    except TimeoutError:
        link.close("gave up waiting")
        raise LobbyError("the game did not start in time") from None
    except asyncio.CancelledError:
        # the person left the lobby (q, Ctrl-C: the table's task is cancelled): said to the
        # host, which frees the seat at once. The link was dropped unsaid, and the host read
        # a cut and kept the seat REJOIN_GRACE_S for it to come back (helper-104)
        if started is None and not left and not link.closed:
            with contextlib.suppress(LinkError):
                send(link, {"t": "leave"})
            link.close("left the table")
            with contextlib.suppress(TimeoutError):  # (the leave and the BYE flushed)
                await asyncio.wait_for(link.wait_closed(), 1.0)
        raise
    finally:
        if asking is not None:
            asking[1].cancel()
        if chat is not None:
            chat.bind(None)


def _lobby_line(msg: dict[str, Any], chat: LobbyChat | None, say: Callable[[str], None]) -> None:
    """A chat line the host passed on (any shape: a malformed one is dropped), named as the
    host names it, in printable characters on one line."""
    text, name = msg.get("text"), msg.get("name")
    if not isinstance(text, str) or not isinstance(name, str):
        return
    line = chat_line(text)
    who = chat_line(name)[:32]
    if not line or not who:
        return
    if chat is not None:
        chat.heard(who, line)
    else:
        say(chat_words(who, line))


def _my_seat(table: dict[str, Any], identity: Identity) -> dict[str, Any]:
    """This node's seat in a table view (by its key fingerprint), or {} (any shape)."""
    key = identity.sign_pk.hex()[:16]
    seats = table.get("seats")
    for s in seats if isinstance(seats, list) else []:
        if isinstance(s, dict) and s.get("key") == key:
            return s
    return {}


def table_words(table: dict[str, Any]) -> str:
    """The table a person confirms, in one line: the options, then every seat (hostile
    input: members of any shape are shown as they are, never an error)."""
    opts = table.get("options")
    opts = opts if isinstance(opts, dict) else {}
    house = opts.get("house")
    rules = ", ".join(str(h) for h in house) if isinstance(house, list) and house else "none"
    timing = opts.get("timing")
    timing = timing if isinstance(timing, dict) else {}
    try:
        seats = _describe(table)
    except (KeyError, TypeError, ValueError, AttributeError):
        seats = "(seats not readable)"
    return (
        f"game to {opts.get('target')} points, {opts.get('scoring')} scoring, house rules: "
        f"{rules}; {timing.get('turn_s')} s to decide, claim window {timing.get('window_ms')} "
        f"ms, {timing.get('step_s')} s for a machine; {seats}"
    )


def _describe(table: dict[str, Any]) -> str:
    parts = []
    for s in table.get("seats", []):
        note = ""
        if s["runner"] == "host" and s["kind"] == "bot":
            note = ", run by the host's machine: the host could see its hand"
        parts.append(f"{s['name']} ({s['kind']}{note})")
    taken = f"{len(table.get('seats', []))}/{table.get('size')}"
    return f'table "{table.get("name")}": {taken} seats: {", ".join(parts)}'


def _check_start(
    msg: dict[str, Any],
    identity: Identity,
    nonce: bytes,
    shown: dict[str, Any],
    host: str,
    confirmed: bool = False,
) -> GameSetup:
    """The genesis must hold this node's keys and nonce at one seat (its place in the roster
    is this node's seat: the ``welcome`` named a seat that moves down as an earlier one
    leaves the lobby), and the options and
    roster it was shown (``confirmed``: the table the person confirmed, whatever the start
    message says; else the table in the start message, or the one shown last); else nothing
    is signed. Hostile input: any shape is a LobbyError."""
    try:
        return _check_start_fields(msg, identity, nonce, shown, host, confirmed)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        if isinstance(e, LogError):
            raise LobbyError(f"the host sent a bad genesis: {e}") from None
        raise LobbyError(f"a malformed start message ({type(e).__name__})") from None


def _check_start_fields(
    msg: dict[str, Any],
    identity: Identity,
    nonce: bytes,
    shown: dict[str, Any],
    host: str,
    confirmed: bool,
) -> GameSetup:
    try:
        genesis = str(msg["genesis"]).encode()
        log_ = Log()
        log_.add(genesis)
    except (KeyError, LogError) as e:
        raise LobbyError(f"the host sent a bad genesis: {e}") from None
    g = log_.genesis
    assert g is not None and log_.game_id is not None
    mine = [i for i, p in enumerate(g.players) if p.sign_pk == identity.sign_pk]
    if len(mine) != 1:
        raise LobbyError("the genesis has no seat for this node")
    seat = mine[0]
    me = g.players[seat]
    if (me.sign_pk, me.dh_pk) != (identity.sign_pk, identity.dh_pk) or g.nonces[seat] != nonce:
        raise LobbyError("the genesis does not hold this node's keys and nonce at its seat")
    table = shown if confirmed else msg.get("table") or shown
    seen = table.get("seats", [])
    names = [s["name"] for s in seen]
    keys = [s["key"] for s in seen]  # (every seat shows its key: none may be left out)
    if [p.name for p in g.players] != names or [p.sign_pk.hex()[:16] for p in g.players] != keys:
        said = "confirmed" if confirmed else "shown"
        raise LobbyError(f"the genesis roster is not the table that was {said}")
    try:
        options_from_obj(g.options)
        reveal = reveal_from_obj(g.options)
    except ValueError as e:
        raise LobbyError(f"the genesis options are not valid: {e}") from None
    if reveal != REVEAL_SHUFFLES:
        # (without it any number of shuffles to a reveal step is taken, as from an earlier
        # build: a proposer of many could make this node's answer outgrow the entry cap)
        raise LobbyError(
            f"the genesis options must set reveal {REVEAL_SHUFFLES} (spec 10.10), not {reveal}"
        )
    shown_opts = dict(table.get("options", {}))
    shown_opts["players"] = len(g.players)
    if shown_opts != g.options:
        said = "confirmed" if confirmed else "shown"
        raise LobbyError(f"the genesis options are not the ones that were {said}")
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
    assert log_.game_id is not None
    # (the code comes once every seat's secret is in: join_table)
    return GameSetup(genesis, seat, addresses, "", table, game_id=log_.game_id)
