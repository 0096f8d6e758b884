"""`p2puno watch HOST:PORT`: a spectator that follows a running game without a seat.

It dials any node of the table (the host's address, or any seat's), says it wants to watch,
and gets the genesis and then every entry that node holds, in the order they joined its log,
then each new one as it comes. It runs an observer session (no seat, no keys, no secrets):
every step is checked as a seat checks it, every public card opened, every deck audited at
its reveal, so the verdict it shows is its own. It cannot see a hand: until the reveal a card
is encrypted under every seat's key, and no seat releases a key to it.

The node it watches through is not trusted: the genesis must name that node's key at the
seat it claims (the link proved the key), and each entry is signed by its author. A node
that sends garbage or stops is left for another seat's node (their addresses come with the
genesis); a node that withholds entries only delays the view.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2puno.log import Identity, Log, LogError, entry_hash
from p2puno.net import Link, LinkError, MsgType, open_link
from p2puno.net.frames import MAX_FETCH, encode_fetch, encode_sync
from p2puno.node.game import (
    LINK_GRACE_S,
    LINK_WORDS,
    NODE_LIMITS,
    PRUNE_KEEP,
    Address,
    back_within,
    host_bot_seats,
)
from p2puno.node.lobby import LobbyError, check_secrets, receive, send, table_code, unreachable
from p2puno.node.store import DataDir, GameFiles
from p2puno.session import Session, SessionError
from p2puno.session.session import Outcome, SessionEvent, Timing
from p2puno.wire import EncodingError, decode

log = logging.getLogger("p2puno.watch")

Say = Callable[[str], None]

GIVE_UP_S = 60.0  # no node of the table answers for this long: the spectator stops
STUCK_S = 2.0  # no progress for this long: ask the node for the step again (SYNC)


@dataclass
class WatchResult:
    outcome: Outcome
    code: str
    entries: int
    checked: int  # steps checked
    audits: int  # decks audited
    error: str | None = None  # why it stopped before the game's end
    log_path: Path | None = None  # the spectator's copy of the log (p2puno replay reads it)
    names: list[str] = field(default_factory=list)  # the players, by seat
    # the seats the node watched through last said had left (a BYE), as GameNode.left
    left: frozenset[int] = frozenset()


def checked_words(checked: int) -> str:
    """How many steps a spectator checked, with the last one named as the log numbers it (from
    step 0): "16 steps checked (steps 0 to 15)". helper-83 read "16 steps checked" under
    "stopped after step 15" as two counts that disagree."""
    if checked <= 0:
        return "no step checked"
    if checked == 1:
        return "1 step checked (step 0)"
    return f"{checked} steps checked (steps 0 to {checked - 1})"


class Spectator:
    """Follows one game through one node at a time (sans seat: ``session.seat is None``)."""

    me: int | None = None

    def __init__(
        self,
        *,
        name: str = "spectator",
        say: Say | None = None,
        on_table: Callable[[dict[str, Any]], None] | None = None,
        on_game: Callable[[Spectator], None] | None = None,
        on_events: Callable[[list[SessionEvent]], None] | None = None,
        data: DataDir | None = None,
    ) -> None:
        """``data``: keep a copy of the log under ``watched/`` there (memory then stays
        bounded: old steps are read back from the file)."""
        self.name = name
        self.data = data
        self.files: GameFiles | None = None
        self.identity = Identity.generate()  # only to open links: it signs nothing
        self.say = say or (lambda text: None)
        self.on_table = on_table
        self.on_game = on_game
        self.on_events = on_events
        self.session: Session | None = None
        self.code = ""
        self.addresses: list[Address | None] = []
        self.link: Link | None = None
        self.through: int | None = None  # the seat whose node it watches through
        # what that node sees of the other seats' nodes (its "seats" reports): link lost
        # (left or unreachable), and said it was leaving; the table marks them in the wait
        self.away: frozenset[int] = frozenset()
        self.left: frozenset[int] = frozenset()
        # what this spectator has said of each seat ("left", "away"; not in it: nothing, or
        # "is back"), so that each change is said once whichever node it came through; and
        # the seats gone in the last report of the node watched through now (see _on_seats)
        self._told: dict[int, str] = {}
        self._reported: frozenset[int] = frozenset()
        # the wait that node reported (step, kind, seconds left, seconds waited, whether a
        # person may be deciding, when it came): its count, not one of this spectator's own
        self._wait: tuple[int, str, float, float, bool, float] | None = None
        self.refused = 0
        self.audits = 0
        # while no node is watched through: when the search for one gives up (monotonic), and
        # the words of why it began; the table shows it in place of the wait (helper-87 read
        # "... 0 s left" and a spinner for minutes after the last node had gone)
        self.seeking: float | None = None
        self.lost = ""
        # the seats whose bot the host's machine runs (the table's roster): they stop with
        # their host (the host's own lines say so), so none of them votes once it is gone
        self.host_bots: frozenset[int] = frozenset()
        self._progress = time.monotonic()
        self._asked: dict[bytes, float] = {}
        self._last_sync = 0.0
        self._wake = asyncio.Event()

    @property
    def timing(self) -> Timing:
        assert self.session is not None
        return self.session.timing

    def spectators(self) -> list[tuple[str, int]]:
        return []

    # ------------------------------------------------------------------ joining
    async def _open(self, host: str, port: int, context: bytes | None, key: bytes | None) -> Link:
        link = await open_link(host, port, self.identity, context, expect=key, limits=NODE_LIMITS)
        send(link, {"t": "watch", "name": self.name})
        return link

    async def _hello(self, link: Link) -> dict[str, Any]:
        """Lobby views until the game starts (on_table), then the genesis."""
        while True:
            msg = await receive(link)
            t = msg.get("t")
            if t == "refuse":
                raise LobbyError(f"the node refused a spectator: {msg.get('reason')}")
            if t == "table":
                seats = msg.get("seats")
                if isinstance(seats, list):
                    self.host_bots = host_bot_seats(seats)
                if self.on_table is not None:
                    self.on_table(msg)
            if t == "watching":
                return msg

    def _adopt_genesis(self, link: Link, msg: dict[str, Any]) -> None:
        seat, raw = msg.get("seat"), msg.get("genesis")
        if type(seat) is not int or not isinstance(raw, str):
            raise LobbyError("the node sent a malformed genesis")
        genesis = raw.encode()
        if self.session is not None:  # a later node: it must be the same game
            if self.session.log.genesis_raw != genesis:
                raise LobbyError("that node plays another game")
        else:
            log = Log()
            try:
                log.add(genesis)
                session = Session(log, on_entry=self._keep)
            except (LogError, ValueError) as e:
                raise LobbyError(f"the node sent a bad genesis: {e}") from None
            if self.data is not None:
                assert log.game_id is not None
                self.files = GameFiles(self.data.root / "watched" / log.game_id.hex()[:16])
                with contextlib.suppress(FileNotFoundError):
                    self.files.log_path.unlink()  # watched before: this copy starts anew
                self.files.append(genesis, durable=False)
                log.loader = self.files.read
            self.session = session
            # (from the secrets the node sends, each the one its genesis nonce commits to; a
            # node that sends none or wrong ones gets no code shown: nothing else hangs on it)
            with contextlib.suppress(LobbyError):
                secrets = check_secrets(msg.get("secrets"), log.genesis.nonces)  # type: ignore[union-attr]
                self.code = table_code(session.game_id, secrets)
            addresses = msg.get("addresses")
            if isinstance(addresses, list) and len(addresses) == session.n:
                self.addresses = [_address(a) for a in addresses]
        players = self.session.log.players
        if not 0 <= seat < len(players) or players[seat].sign_pk != link.peer:
            raise LobbyError("the node is not the seat it says it is")
        self.through = seat

    # ------------------------------------------------------------------ running
    async def run(self, host: str, port: int) -> WatchResult:
        try:
            link = await self._open(host, port, None, None)
            hello = await asyncio.wait_for(self._hello(link), 3600)
        except LinkError as e:
            raise LobbyError(unreachable(host, port, e)) from None
        except TimeoutError:
            raise LobbyError("the game did not start in time") from None
        self._adopt_genesis(link, hello)
        session = self.session
        assert session is not None and self.through is not None
        if self.addresses and self.addresses[self.through] is None:
            self.addresses[self.through] = Address(host, port)
        names = ", ".join(p.name for p in session.log.players)
        self.say(
            f"watching game {session.game_id.hex()[:16]} (table code {self.code}) through "
            f"seat {self.through}: {names}"
        )
        if self.on_game is not None:
            self.on_game(self)
        self._attach(link)
        error: str | None = None
        try:
            error = await self._follow()
        finally:
            if self.link is not None:
                self.link.close("done watching")
            if self.files is not None:
                self.files.close()
        outcome = session.outcome
        return WatchResult(
            outcome,
            self.code,
            len(session.log),
            session.processed + 1,
            self.audits,
            error,
            self.files.log_path if self.files is not None else None,
            [p.name for p in session.log.players],
            self.left,
        )

    def _keep(self, raw: bytes) -> None:
        if self.files is not None:
            self.files.append(raw, durable=False)

    def _attach(self, link: Link) -> None:
        self.link = link
        self.seeking = None
        self._reported = frozenset()  # (none of its reports yet: see _on_seats)
        self._wait = None  # (another node's count: its own reports follow)
        self._progress = time.monotonic()
        link.set_handler(lambda m: self._on_message(m.type, m.payload))

    def _on_message(self, mtype: int, payload: bytes) -> None:
        if mtype == MsgType.LOBBY and self.session is not None:
            try:  # (decoded once, whatever its type: a report of any shape is words only)
                msg = decode(payload)
            except EncodingError:
                return
            if isinstance(msg, dict) and msg.get("t") == "wait":
                self._on_wait(msg)
            elif isinstance(msg, dict) and msg.get("t") == "seats":
                self._on_seats(msg)
            return
        if mtype != MsgType.ENTRY or self.session is None:
            return
        s = self.session
        if s.log.knows(entry_hash(payload)):
            return
        before = s.processed
        try:
            s.receive(payload)
        except SessionError:
            self.refused += 1
            if self.refused > 20 and self.link is not None:
                self.link.close("it sent entries that do not verify")
        if s.processed != before:
            self._progress = time.monotonic()
            if self.files is not None:
                s.prune_memory(PRUNE_KEEP)
        self._wake.set()

    def _on_wait(self, msg: dict[str, Any]) -> None:
        """The node's count for the wait in progress (``{"t": "wait", ...}``: GameNode.
        _wait_report; a malformed one is dropped). Only shown: nothing is decided on it, and a
        count past the table's longest deadline is not taken."""
        step, kind, left, waited = (msg.get(k) for k in ("step", "kind", "left_ms", "waited_ms"))
        deciding = msg.get("deciding")
        t = self.timing
        most = 1000 * (t.turn_s + 2 * t.step_s + t.window_ms / 1000 + LINK_GRACE_S)
        if (
            type(step) is int
            and step >= 0
            and type(kind) is str
            and len(kind) <= 16
            and type(left) is int
            and type(waited) is int
            and 0 <= left <= most
            and 0 <= waited <= 10 * most
            and type(deciding) is bool
        ):
            self._wait = (step, kind, left / 1000, waited / 1000, deciding, time.monotonic())

    def wait_left(self) -> tuple[float, float, bool] | None:
        """As :meth:`GameNode.wait_left`, from the reports of the node watched through: the
        seconds left before it votes, the seconds waited, whether a person may be deciding;
        None when it reported none for the wait this spectator's session is in."""
        if self._wait is None or self.session is None:
            return None
        w = self.session.waiting()
        step, kind, left, waited, deciding, at = self._wait
        if not w.seats or (w.step, w.kind) != (step, kind):
            return None
        since = time.monotonic() - at
        return left - since, waited + since, deciding

    def _on_seats(self, msg: dict[str, Any]) -> None:
        """The node's view of the other seats (``{"t": "seats", ...}``), said when it changes
        (who left the table, who is out of reach, who is back). Not trusted beyond the words:
        nothing is checked or decided on it, and a malformed report is ignored."""
        s = self.session
        assert s is not None
        got: list[frozenset[int]] = []
        for key in ("away", "left"):
            seats = msg.get(key)
            if not isinstance(seats, list) or not all(
                type(x) is int and 0 <= x < s.n for x in seats
            ):
                return
            got.append(frozenset(x for x in seats if type(x) is int))
        away, left = got
        names = [p.name for p in s.log.players]
        # Each change is said once, by what this spectator has said of the seat, not by the
        # last report: the nodes it watches through in turn see the others each at its own
        # moment. helper-83: the host killed (-9), its bots' nodes left with a BYE, and the
        # spectator read "Bot-1 left the table", then "is back", twice: a node just watched
        # through reports what it has seen so far, and a seat gone that its report did not
        # name yet was said back. A seat is back when the node that reported it gone reports
        # it no more (its link to the seat came back), never because another node, just
        # watched through, has not seen it go yet. Once the game is over, a node gone is not
        # news (its game ended: "could no longer be reached" read as a fault).
        over = getattr(getattr(s, "outcome", None), "over", False)
        told = self._told
        for seat in sorted(left):
            if told.get(seat) != "left" and not over:
                # (how long, as the seat's own lines say it: the table waits step_s for a
                # seat that said it was leaving, protocol/lobby.md 5)
                self.say(
                    f"{names[seat]} (seat {seat}) left the table: {self._who_votes(away, left)}"
                )
            told[seat] = "left"
        for seat in sorted(away - left):
            if told.get(seat) is None and not over:  # (one that left stays said so)
                self.say(f"{names[seat]} (seat {seat}) could no longer be reached")
            told.setdefault(seat, "away")
        for seat in sorted(self._reported - away - left):
            if told.pop(seat, None) is not None and not over:
                self.say(f"{names[seat]} (seat {seat}) is back")
        self.away, self.left = away, left
        self._reported = away | left
        self._wake.set()

    def _who_votes(self, away: frozenset[int], left: frozenset[int]) -> str:
        """Who decides on a seat that left, and how long it has, as the node watched through
        would (GameNode._cut_off): "the others", unless that node is the only seat left, or
        none is (the host gone: the bots its machine runs stop with it, as the host's own lines
        say). helper-87's spectator
        read "the others vote the seat out" when the last other seat had gone: that node,
        connected to no other player (one of them not said leaving), stops the game
        unfinished there instead; with every other seat said leaving, it votes alone."""
        s = self.session
        assert s is not None
        t = self.through
        gone = away | left
        if 0 in gone:  # (the host, seat 0: the bots its machine runs stop with it)
            gone |= self.host_bots
        within = f"unless it is back {back_within(s.timing.step_s)}"  # (as the seats say it)
        if t is not None and not set(range(s.n)) - gone:  # (the node watched through too)
            return "nobody is left to vote: the host has gone, and the bots it runs stop with it"
        if t is None or set(range(s.n)) - gone != {t}:
            return f"the others vote the seat out {within}"
        who = f"{s.log.players[t].name}'s node" if 0 <= t < len(s.log.players) else "the node"
        if s.n > 2 and any(x not in left for x in away | left if x != t):
            return (
                f"nobody is left to vote: {who}, connected to no other player, stops the game "
                f"unfinished there {within}"
            )
        return f"{who} votes the seat out {within}"

    def _flush_events(self) -> None:
        s = self.session
        assert s is not None
        if s.events:
            events, s.events = s.events, []
            self.audits += sum(1 for ev in events if ev.kind == "audit")
            if self.on_events is not None:
                self.on_events(events)

    async def _follow(self) -> str | None:
        """Until the game has its verdict; another node when this one goes."""
        s = self.session
        assert s is not None
        late_until: float | None = None
        while True:
            self._flush_events()
            link = self.link
            now = time.monotonic()
            if s.over:
                # a stop: a late vote may yet join it, and the seats wait for that vote
                # (spec 10.15, races (3)); so does the spectator, as long as the node it
                # watches through stays (up to step_s), or its record named one seat more
                # than every seat's (helper-76: "Bot-1 and Bob did not answer" against the
                # seats' "Bot-1 did not"). Not by the node's last report of who is away:
                # helper-83's seat came back by `p2puno resume` while the spectator's report
                # still had it away, and its record stopped a step before every seat's
                if not self.follows_a_stop():
                    return None
                if late_until is None:
                    late_until = now + float(s.timing.step_s)
                if now >= late_until or link is None or link.closed:
                    return None
            if link is None or link.closed:
                why = link.error if link is not None else None
                players = s.log.players
                seat = self.through if self.through is not None else -1
                who = players[seat].name if 0 <= seat < len(players) else f"seat {seat}"
                self.lost = f"{who}'s node (seat {seat}) is gone"
                if why is not None:
                    left = why.code == "bye"  # (said on purpose: its person left, or it stopped)
                    # (in words, its code in the log: helper-83 read "(eof: peer ed62b8cd...
                    # at 127.0.0.1:44099: closed the connection without BYE)")
                    log.info("the link to seat %d ended: %s", seat, why)
                    said = LINK_WORDS.get(why.code, "the connection was lost")
                    gone = "left the table" if left else f"could no longer be reached: {said}"
                    self.lost = f"{who}'s node (seat {seat}) {gone}"
                    if 0 <= seat < len(players):
                        self._through_gone(seat, left)
                # (not "watching through another seat": helper-87's spectator read it when
                # there was none; the seats' nodes are tried, and what came of it is said)
                self.say(
                    f"{self.lost}: trying the other seats' nodes (for up to {GIVE_UP_S:.0f} s)"
                )
                if not await self._reconnect():
                    return (
                        f"no node of the table answered for {GIVE_UP_S:.0f} s: the players' "
                        "nodes have stopped, or are out of reach"
                    )
                continue
            self._ask(link, now)
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.1)

    def _through_gone(self, seat: int, left: bool) -> None:
        """The node watched through is gone (said by _follow): marked so until the next
        node's report, added to what was known (it replaced it: a seat another node had
        reported gone was said gone again, helper-83), and said, so that the next node's
        report does not say it again (see _on_seats)."""
        self.away = self.away | {seat}
        self.left = self.left | {seat} if left else self.left
        self._told[seat] = "left" if left or self._told.get(seat) == "left" else "away"

    def follows_a_stop(self) -> bool:
        """The game was stopped: the spectator stays while its node does (up to step_s), for
        a late vote that may yet join the stop (see _follow)."""
        s = self.session
        return s is not None and s.outcome.state == "stopped"

    def _ask(self, link: Link, now: float) -> None:
        s = self.session
        assert s is not None
        want = [h for h in s.missing() if now - self._asked.get(h, 0.0) > 1.0]
        with contextlib.suppress(LinkError):
            for i in range(0, len(want), MAX_FETCH):
                for h in want[i : i + MAX_FETCH]:
                    self._asked[h] = now
                link.send(MsgType.FETCH, encode_fetch(want[i : i + MAX_FETCH]))
            behind = s.behind > s.processed + 1
            stuck = now - self._progress > STUCK_S
            if (behind or stuck) and now - self._last_sync > STUCK_S:
                self._last_sync = now
                link.send(MsgType.SYNC, encode_sync(s.processed + 1))

    async def _reconnect(self) -> bool:
        """Dial the seats' nodes in turn, with backoff, for up to GIVE_UP_S without one."""
        s = self.session
        assert s is not None
        keys = [p.sign_pk for p in s.log.players]
        end = time.monotonic() + GIVE_UP_S
        self.seeking = end
        delay = 0.2
        start = (self.through or 0) + 1
        while time.monotonic() < end:
            for k in range(s.n):
                seat = (start + k) % s.n
                addr = self.addresses[seat] if seat < len(self.addresses) else None
                if addr is None:
                    continue
                try:
                    link = await self._open(addr.host, addr.port, s.game_id, keys[seat])
                    hello = await asyncio.wait_for(self._hello(link), 5.0)
                    self._adopt_genesis(link, hello)
                except (LinkError, LobbyError, TimeoutError):
                    continue
                players = s.log.players
                who = f"{players[seat].name}'s node" if seat < len(players) else "the node"
                self.say(f"watching through {who} (seat {seat}) now")
                self._attach(link)
                return True
            await asyncio.sleep(delay)
            delay = min(delay * 2, 3.0)
        return False


def _address(a: object) -> Address | None:
    if (
        isinstance(a, list)
        and len(a) == 2
        and isinstance(a[0], str)
        and type(a[1]) is int
        and 0 < a[1] < 65536
    ):
        return Address("127.0.0.1" if a[0] == "@" else a[0], a[1])
    return None


async def watch_game(
    host: str,
    port: int,
    *,
    name: str = "spectator",
    say: Say,
    on_table: Callable[[dict[str, Any]], None] | None = None,
    on_game: Callable[[Spectator], None] | None = None,
    on_events: Callable[[list[SessionEvent]], None] | None = None,
    data: DataDir | None = None,
) -> WatchResult:
    spectator = Spectator(
        name=name, say=say, on_table=on_table, on_game=on_game, on_events=on_events, data=data
    )
    return await spectator.run(host, port)
