"""The game node: one seat's session, run over a full mesh of links, with the clock.

The session (sans-IO) decides everything about the game; this runtime carries its bytes and
brings what it lacks: sockets, time and the disk.

- **Mesh.** Seat i dials every seat j < i and accepts every seat j > i (one link per pair;
  a second link from the same seat replaces the first). Each link is bound to the game id
  and to the roster key of its seat (protocol/transport.md). A dropped link is dialled again
  with backoff.
- **Entries.** What this node writes goes to every peer at once; what it takes from others is
  announced (HAVE, batched) so that an entry reaches every node even when one link is down,
  and equivocation evidence spreads; a peer that lacks an announced entry FETCHes it. The
  parents the session says it is missing are fetched by hash; a node stuck on a step asks a
  peer to SYNC it from that step.
- **Write before send.** This node's own entries are on disk (fdatasync) before they leave;
  its secrets file is rewritten before any entry that depends on them.
- **Deadlines** (the table's, signed in the genesis: :class:`~p2puno.session.Timing`): a seat
  that owes a step past its deadline is voted out (:meth:`Session.stop`), which ends the game
  with a record every remaining seat signs; a person who lets their turn pass is played by
  their own node's bot until they answer again.
- **Timing.** An entry of a window step in which something can be claimed is sent exactly
  ``window_ms`` after this node processed the step before it, whatever it decided; every other
  entry as soon as it is made (spec 10.9).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import functools
import logging
import os
import random
import resource
import shlex
import shutil
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from p2puno.engine.actions import Action
from p2puno.log import Identity, Log, Role, entry_hash, vote_waiting
from p2puno.net import Limits, Link, LinkError, MsgType, TransportError, open_link
from p2puno.net.frames import MAX_FETCH, decode_fetch, decode_sync, encode_fetch, encode_sync
from p2puno.net.link import host_group
from p2puno.node.names import name_problem, name_skeleton
from p2puno.node.players import Autopilot, Player
from p2puno.node.store import GameFiles
from p2puno.session import Session, SessionError
from p2puno.session.session import Outcome, Prompt, SessionEvent, Timing
from p2puno.session.words import in_a_sentence, outcome_words
from p2puno.wire import EncodingError, JSONValue, decode, encode

log = logging.getLogger("p2puno.node")
T = TypeVar("T")

LINK_WORDS = {  # why the connection to a seat ended, as a person reads it
    "eof": "it was closed at their end (their program may have stopped)",
    "silent": "nothing came from them for a while",
    "stalled": "nothing came from them for a while",
    "io_error": "a network error",
    # (helper-80 read "stream ended inside a frame (89 of 115 bytes)": the stream's end in
    # the middle of a message, its code in the log)
    "truncated": "it was cut in the middle of a message (a network fault, or their program "
    "stopped)",
    "rate_limited": "they sent more than a player's program may",
    "too_slow": "they stopped taking what your node sends",
    "closed": "your node closed it",
}
NODE_LIMITS = Limits(frames_per_s=4000.0, frames_burst=20000.0, bytes_per_s=32 * 2**20)
GARBAGE_LIMIT = 20  # unattributable bad entries from one peer before it is dropped ...
# ... and then kept out this long (doubled each time, up to HOLD_OFF_MAX_S): it redialed at
# once and sent 20 more, 73 times in 20 s, each link a handshake and each entry a decode
# (helper-66); a seat kept out is waited for as one not connected (its moves still come
# through the other seats' relays)
HOLD_OFF_S, HOLD_OFF_MAX_S = 10.0, 60.0
# The CPU what a seat sends may cost this node when it takes no place in the game: its entries
# that are not in the log once taken (refused, seen far ahead, waiting for parents), its HAVEs,
# FETCHes and notices (chat, watchers, a turn's time): CPU seconds a second, and at once. Over
# it the seat's link is dropped and kept out as for refused entries. A seat's signed entries a
# million steps ahead are dropped unrefused (the node takes them as a sign it is behind), each
# decoded and its signature checked first: 0.28 ms of CPU for a small one at the link's 4,000
# frames a second, 2.8 ms for one of 60 KB at its 32 MiB a second, held an honest node at
# 100% CPU, naming no one (2026-11-28); so did notices of 16 KiB (1 ms each), HAVEs and
# FETCHes of 256 made-up hashes (0.15 and 0.17 ms each, helper-103). What is charged is the
# handler's time, about half of what such a flood costs (the link's reading and decryption
# are not counted: helper-103's HAVE flood held the node at 100% for 8 s under a budget of
# 2 s), hence a budget this low. What honest seats cost so is far under it: no seat's charge
# stood above 1.1 ms in the node tests. Entries that join the log and SYNCs (one a second,
# SYNC_EVERY) are not charged: a node catching up asks for them.
CPU_PER_S, CPU_BURST = 0.1, 1.0
_CHARGED = (MsgType.HAVE, MsgType.FETCH, MsgType.LOBBY)
PRUNE_KEEP = 100  # steps kept in memory; older ones are read back from the log file
SYNC_EVERY = 1.0  # seconds between two SYNCs served to one peer
# A vote taken: this node joins it once its input has been quiet this long (at most
# JOIN_MAX_S after the vote): a SYNC's answer brings a step and then every vote held, one
# entry at a time, and a join at its first vote named the seats whose votes came next as
# silent (helper-97; Session.join_votes)
JOIN_QUIET_S, JOIN_MAX_S = 0.05, 0.5
BEHIND_TRIES = 6  # SYNCs for entries seen far ahead that bring no step, before they are forgotten
# Hashes announced to this node and not yet held: at most this many wait to be fetched (an
# honest backlog is a few steps' entries; a peer announcing hashes that do not exist must not
# grow the node's memory, nor its timer's work), each given up after WANTED_FOR seconds.
MAX_WANTED = 2048
# hashes remembered per peer as held by it (its HAVEs, the entries it sent): the end's linger
# reads the latest step's and the votes' (Log.ends), which a peer announced last
HOLDS_KEEP = 512
WANTED_FOR = 30.0
DISK_READS_PER_S = 16  # FETCHed entries read back from the log file, per peer and second
# room left in a link's send queue after a SYNC is served, for the live game's messages
SYNC_RESERVE_MESSAGES = 64
SYNC_RESERVE_BYTES = 2**20
# a person whose node's bot has the seat (a turn let pass) still has this long at each turn
# (a quarter of turn_s at most) before the bot plays it (spec: protocol/lobby.md section 5)
AUTOPILOT_GRACE_S = 5.0
# a person back with `p2puno resume` into their turn has at least this long to play it,
# when the table's deadline leaves it (see resumed_turn_limit)
RESUMED_TURN_S = 10.0
# a seat whose link was lost this recently is not named in a vote to stop: it may be redialing
# (the backoff tops out at 3 s) and would join the stop at once
LINK_GRACE_S = 5.0
# what a node says when it closes its links because its game is over (a peer that has not
# got there yet does not announce it as a seat leaving the table)
GAME_OVER_BYE = "the game is over"
# the BYE reasons of a node that leaves on purpose (its person quit, or it stopped); any other
# BYE names a fault of the link (silent, auth_failed, ...), said as a lost link: helper-29's
# half-open link read "J0 (seat 1) left the table" on the other side
LEAVING_BYES = ("this seat is leaving the table", "this node is stopping")
# A node whose game ended while its end is on a person's screen (the table's end box) keeps
# serving the game to the seats that lack its end, until the person closes the end or for at
# most SERVE_MAX_S (protocol/lobby.md section 6, "A late resume"): a seat resumed a minute
# after the end then learns how it ended, where before every node had gone 0-2 s after the end
# and its resume reached nobody. A bot's node does not (0: whoever runs the node sets it).
SERVE_MAX_S = 600.0
# a served end changed by late entries is said once it has held this long (_say_late)
END_SETTLE_S = 1.0
# while it serves, the longest pause between two dials to a seat below it that lacks the end
# (the mesh's rule: the higher seat dials; a resumed node dials only its lower seats)
SERVE_REDIAL_S = 2.0
MAX_WATCHERS = 8  # spectators one node serves
NOTICE_MAX_BYTES = 16 * 1024  # a notice's cap (a chat line, 8 names: well under 2 KB)
WATCH_LINES = 8  # "X is watching" lines said, from one address or seat, in any CHAT_PER_S
# the table's chat (a LOBBY notice, spec: protocol/transport.md "Notices"): a line of at most
# CHAT_MAX characters, at most CHAT_BURST from one seat in any CHAT_PER_S seconds (more are
# dropped, said once); never signed, never in the log: words at a table, not moves
CHAT_MAX = 200
CHAT_BURST, CHAT_PER_S = 5, 10.0
MAX_WATCHERS_PER_ADDRESS = 4  # of them from one address: one machine cannot take every slot
# the bytes of entries a spectator's FETCHes are answered with, a second (and at once): a
# spectator asking 20 times a second for the largest entries held drew 5 MiB/s and never
# read them (helper-66); an honest one fetches a missing parent now and then
WATCH_FETCH_BYTES_PER_S, WATCH_FETCH_BURST = 256 * 2**10, 2**20


def terminal_safe(text: str) -> str:
    """``text`` as a terminal may be sent it: a line break and a tab kept, every other
    character that is not printable a "?" (no escape sequence, no bidi override). What a node
    prints holds words of its peers (a host's seat names and refusals, a peer's BYE): a hostile
    host set the terminal's title and hid text with them (helper-38)."""
    return "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text)


def chat_line(text: str) -> str:
    """A chat line as every screen shows it: one line of printable characters (a tab or a line
    break is a space, any other a "?": no terminal escapes, no bidi overrides), trimmed, at
    most CHAT_MAX characters."""
    line = "".join(
        c if c.isprintable() else " " if c.isspace() else "?" for c in text[: CHAT_MAX * 2]
    )
    # (runs of spaces made one: helper-33 padded a line so that its wrapped end read as a
    # line of the game's own, "Mal caught you not calling UNO: you draw 2")
    return " ".join(line.split())[:CHAT_MAX].rstrip()


class ChatPace:
    """At most ``burst`` (CHAT_BURST) chat lines from one speaker in any CHAT_PER_S seconds
    (the node's clock): the table's chat (GameNode) and the lobby's (HostLobby) alike."""

    def __init__(self) -> None:
        self._times: dict[object, deque[float]] = {}  # speaker -> its recent lines' times
        self._muted: set[object] = set()  # speakers told of dropping their lines (once a run)

    def take(self, who: object, now: float, burst: int = CHAT_BURST) -> str:
        """ "ok": the line is shown; "drop": dropped, the first of a run (say so once);
        "quiet": dropped, said already."""
        if len(self._times) > 64:  # (speakers quiet a while are forgotten: helper-62's
            # fresh key per rejoin grew it by one each, without end)
            self._times = {k: t for k, t in self._times.items() if t and now - t[-1] < CHAT_PER_S}
            self._muted &= set(self._times)
        times = self._times.setdefault(who, deque())
        while times and now - times[0] >= CHAT_PER_S:
            times.popleft()
        if len(times) >= burst:
            if who in self._muted:
                return "quiet"
            self._muted.add(who)
            return "drop"
        times.append(now)
        self._muted.discard(who)
        return "ok"


def chat_words(who: str, line: str, *, own: bool = False) -> str:
    """A chat line as a screen says it, the words quoted (however it wraps, they read as the
    seat's): "Bob says: “gg”", or, of this seat's own (``own``), "you say: “gg”"."""
    return f"you say: “{line}”" if own else f"{who} says: “{line}”"


@functools.cache
def command() -> str:
    """How a person runs p2puno from a shell on this machine, for the commands the screens
    name: ``p2puno`` when that name on the PATH is the script this process runs; else that
    script's full path (a venv that is not activated: helper-51's end screen said `p2puno
    replay`, which the shell did not find); run as ``python -m p2puno`` (the demo's seats),
    the ``p2puno`` script beside that interpreter, where there is one; else the interpreter
    with ``-m p2puno``."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "p2puno" and os.path.isfile(argv0):
        script = os.path.abspath(argv0)
    else:  # (`python -m p2puno`: the script beside this interpreter, as the demo's seats
        # run; helper-54 read three forms of one command after the demo)
        script = os.path.join(os.path.dirname(sys.executable), "p2puno")
        if not os.path.isfile(script):
            return f"{shlex.quote(sys.executable)} -m p2puno"
    found = shutil.which("p2puno")
    with contextlib.suppress(OSError):
        if found is not None and os.path.samefile(found, script):
            return "p2puno"
    return shlex.quote(script)


def back_within(step_s: float, whom: str = "it") -> str:
    """How long a seat that said it was leaving has to come back, one way on every screen a
    player reads (the leaver's, the others', a spectator's, the command line's): ``step_s``
    from when the game waits for it, or from its leaving when the game already does
    (protocol/lobby.md section 5). ``whom``: "it" (the seat), or "you" on the leaver's own
    screen. helper-98's brief: the leaver read "within 20 s", the others "within 20 s of when
    the game waits for it"."""
    return f"within {step_s:g} s of when the game waits for {whom}"


def left_words(
    name: str, seat: int, step_s: float, runner: object = None, decides: str = "others"
) -> str:
    """What a node says of a seat whose node said it was leaving (a BYE): who decides on it,
    how long it has, from when, and how it comes back (protocol/lobby.md section 5: step_s
    from when the game waits for it). ``runner``: the seat's in the lobby's view ("host": a
    bot its host's node runs, back with its host; else a player's own node, back with
    `p2puno resume`; helper-87 read both ways said of a person, and "it" for them).
    ``decides`` (GameNode._who_decides): "others", the seats still there vote; "alone", this
    node is the only one left and votes; "stops", nobody else is left to vote and this node,
    cut off, stops the game unfinished there (helper-91: "The others vote" was said with no
    other seat left)."""
    back = (
        "A host's bot comes back with its host."
        if runner == "host"
        else f"{name} comes back with p2puno resume."
    )
    within = back_within(step_s)
    if decides == "alone":
        then = (
            f"Your node is the only one left: it votes the seat out unless {name} is back {within}."
        )
    elif decides == "stops":
        then = (
            "Nobody else is left to vote: your node is connected to no other player, and "
            f"stops the game unfinished here unless {name} is back {within}."
        )
    else:
        then = f"The others vote the seat out unless it is back {within}."
    return f"{name} (seat {seat}) left the table. {then} {back}"


def host_bot_seats(seats: object) -> frozenset[int]:
    """The seats a table view's ``seats`` (the lobby's `table` message) says are bots the
    host's machine runs: they stop with the host (a node's and a spectator's words on who
    is left to vote both read it so)."""
    if not isinstance(seats, list):
        return frozenset()
    return frozenset(
        i
        for i, x in enumerate(seats)
        if isinstance(x, dict) and x.get("kind") == "bot" and x.get("runner") == "host"
    )


def replay_command(path: str | os.PathLike[str]) -> str:
    """The command that replays the log at ``path``, as :func:`command` runs it here, the path
    quoted for the shell (macOS's data directory is under "Application Support") and from
    "~/" under the home directory (:func:`shell_path`)."""
    return f"{command()} replay {shell_path(str(path))}"


def shell_path(path: str) -> str:
    """``path`` as a shell reads it, quoted where it must be, and from "~/" where it is under
    the home directory (every shell expands a word's leading "~/"; the "~" stays outside the
    quotes): the default data directory's log, ~/.local/share/p2puno/games/<game>/log, then
    leaves the end box's replay command whole at 80 columns, where "/home/<name>/" made it
    "p2puno replay LOG --table (LOG: the log's path above)" (helper-92's host), and the
    terminal's "check it offline with:" line one the terminal does not break (helper-93)."""
    home = os.path.expanduser("~").rstrip("/")
    if home and home != "~" and path.startswith(home + "/") and len(path) > len(home) + 1:
        return "~/" + shlex.quote(path[len(home) + 1 :])
    return shlex.quote(path)


def with_command(text: str) -> str:
    """``text`` (a command that begins "p2puno ") as :func:`command` runs it here."""
    return command() + text[len("p2puno") :] if text.startswith("p2puno ") else text


# what a seat the table waits for owes, in a person's words, by the step's kind (the
# session's own words, `Waiting.owed`, are "its action proposal", "its response to the
# window": kept for logs and tests, never shown)
_OWES = {
    "genesis": ("to open the game", "to accept the table"),
    "action": ("to play (their turn)", "to confirm the last move"),
    "pass": ("to act on their claim or pass", "to confirm the last move"),
    "window": ("to confirm the last move", "to confirm the last move"),
    "shuffle": ("to shuffle the deck (their share of it)", "to confirm the shuffle"),
    "sync": ("to send the keys that open cards", "to confirm the keys"),
    "reveal": (
        "to reveal their secrets for the deck's check",
        "to reveal their secrets for the deck's check",
    ),
}


def owed_words(kind: str, owed: str) -> str:
    """What a seat owes (``Waiting.kind`` and its ``owed``) as a person reads it: "to play
    (their turn)", "to confirm the last move", "to agree to end the game"."""
    if kind == "stop":
        return "to agree to end the game"
    words = _OWES.get(kind)
    if words is None:
        return "to answer"
    return words[1] if "response" in owed else words[0]


# what a game that ends because a seat is gone gives (spec 10.15, "What it gives"), said
# where a person reads that it will, or did; before any round is verified the scores are all
# 0 (the standings of no audited deck), and "as at the last verified round" named a round
# there is none of (helper-63, in round 1)
STOP_GIVES = "the round in play does not count, and the scores stay as at the last verified round"
STOP_GIVES_FIRST = (
    "the round in play does not count, and the scores stay at 0, no round being verified yet"
)


def void_words(verified: bool, dealt: bool = True) -> str:
    """What a stop gives of the round in play, void: STOP_GIVES once a round has been
    verified (``verified``: Session.audited_deck >= 2, deck 1 being the draw for dealer),
    else STOP_GIVES_FIRST; before the first round's deck (``dealt``: Session.deck_no >= 2)
    there is no round in play to void."""
    if not dealt:
        return "no round has been dealt yet, and the scores stay at 0"
    return STOP_GIVES if verified else STOP_GIVES_FIRST


def stop_gives(played_out: bool, verified: bool = True, dealt: bool = True) -> str:
    """What a game stopped now would give, said before it does: :func:`void_words`, unless a
    round has been played to its end and only its deck's check is missing (``played_out``:
    Session.round_played_out), which counts unless its winner is the seat missing (helper-56:
    "does not count" was said of a round the stop then counted)."""
    if not played_out:
        return void_words(verified, dealt)
    stay = "as at the last verified round" if verified else "at 0"
    return (
        "the round just played to its end still counts, unless its winner is the one missing "
        f"(then it does not count, and the scores stay {stay})"
    )


def session_stop_gives(s: Session) -> str:
    """:func:`stop_gives` of a session as it stands."""
    return stop_gives(s.round_played_out(), s.audited_deck >= 2, s.deck_no >= 2)


def resumed_turn_limit(timing: Timing, due_since: float, now: float) -> float:
    """The seconds a person back with `p2puno resume` has to play the turn they came back
    into (0 or less: their node's bot plays it at once), counted, as the others count it,
    from when it became due (``due_since``): what is left of ``turn_s``, but never less than
    RESUMED_TURN_S while the table's deadline allows it. The table votes the seat out at
    ``turn_s + step_s`` (protocol/lobby.md section 5); half of ``step_s`` is kept for the
    node, to link up again, write and send the move, and for the clocks' difference (the
    moment it became due is read off the log's last write). Before, a turn that had run out
    while the person was away was played by their node's bot the moment they came back,
    though they were at the keyboard and the table would have waited for them a while yet.
    A bot's moment, like a person's, depends on the deadlines and on when the node came
    back, never on a hand (lobby.md 5, "When entries leave")."""
    left = due_since + timing.turn_s - now
    table = due_since + timing.turn_s + timing.step_s / 2 - now
    return max(left, min(RESUMED_TURN_S, table))


def watch_table(view: dict[str, Any] | None) -> dict[str, JSONValue] | None:
    """The `table` a spectator is sent before `watching` by any seat's node (protocol/
    lobby.md 4a): the lobby's last view of the table, its seats' names, kinds, runners and
    keys, which every seat and the host's spectators had already. Without it a spectator
    through a joiner's node saw no "·bot" or "on host" beside the host's bots (helper-79's
    brief): only the host's lobby sent it. Not the lobby's moment (who was connected or
    ready, a confirm under way): stale once the game runs."""
    if not isinstance(view, dict) or not isinstance(view.get("seats"), list):
        return None
    keep = ("name", "kind", "runner", "key")
    seats: list[JSONValue] = [
        {k: s[k] for k in keep if k in s} for s in view["seats"] if isinstance(s, dict)
    ]
    table: dict[str, JSONValue] = {"t": "table", "seats": seats}
    for k in ("name", "options", "size", "lobby"):
        if k in view:
            table[k] = view[k]
    return table


def host_of(link: Link) -> str:
    """The address part of a link's peer address ("[::1]:5" -> "::1")."""
    return link.address.rsplit(":", 1)[0].strip("[]")


def watch_refusal(watching: list[Link], link: Link) -> str | None:
    """Why ``link`` may not watch beside ``watching`` (None: it may): at most MAX_WATCHERS
    spectators at a node, and at most MAX_WATCHERS_PER_ADDRESS from any one address, so that
    one machine holding idle links cannot keep everyone else from watching through it."""
    if len(watching) >= MAX_WATCHERS:
        return "too many spectators"
    mine = host_of(link)
    if sum(1 for w in watching if host_of(w) == mine) >= MAX_WATCHERS_PER_ADDRESS:
        return f"too many spectators from your address (at most {MAX_WATCHERS_PER_ADDRESS})"
    return None


WATCH_BACKLOG_BYTES = 2 * 2**20  # a spectator's queue while its backlog streams ...
WATCH_BACKLOG_MESSAGES = 512  # ... in bytes and in messages


@dataclass
class Address:
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def _in(log_: Log, h: bytes, start: int) -> bool:
    """A chain entry held in memory of step ``start`` or later (votes are sent apart)."""
    try:
        e = log_.entry(h)
    except KeyError:  # (pruned out of order: its step is older than asked for)
        return False
    return e.seq >= start and e.role is not Role.VOTE


def _libc_trim() -> Callable[[], object] | None:
    try:
        fn = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    fn.argtypes = [ctypes.c_size_t]
    return lambda: fn(0)


_TRIM = _libc_trim()


def _trim_heap() -> None:
    """Give the C heap's free pages back to the system (glibc's malloc keeps them, and the
    steady churn of entries decoded then pruned leaves its heap ragged: RSS crept up about
    0.4 KB an entry with no Python object left behind). Called at each prune."""
    if _TRIM is not None:
        _TRIM()


def _peak_rss_kb(usage: resource.struct_rusage) -> int:
    """This process's peak resident memory (KB): VmHWM, which starts anew at exec. (Linux
    keeps ru_maxrss across exec, so a node started by a large process, e.g. a benchmark,
    would report that process's memory as its own.)"""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return int(usage.ru_maxrss)


@dataclass
class Watcher:
    link: Link
    name: str
    key: str  # the start of its key's hex (it has no seat)
    id: int  # negative: its slot in the per-peer limits
    sent: int = 0  # entries of the log (in acceptance order) it has been sent
    pos: int | None = 0  # offset in the log file while the backlog streams (None: done)
    seats: tuple[list[int], list[int]] | None = None  # the last "seats" report it was sent
    fetch_budget: float = WATCH_FETCH_BURST  # bytes its FETCHes may still be answered with
    fetch_at: float = 0.0  # when that budget was last topped up
    said: bool = False  # its coming was said (then its going is too)
    # the last wait report it was sent: (step, kind, when this node votes, monotonic)
    wait: tuple[int, str, float] | None = None


@dataclass
class NodeStats:
    started: float = field(default_factory=time.monotonic)
    sent: int = 0
    received: int = 0
    duplicates: int = 0
    fetched: int = 0
    syncs: int = 0
    garbage: dict[int, int] = field(default_factory=dict)
    # the last refusals, for a person who asks why (a hostile seat that reconnects without
    # end must not grow the node's memory with them)
    refused: deque[str] = field(default_factory=lambda: deque(maxlen=100))


class GameNode:
    def __init__(
        self,
        session: Session,
        identity: Identity,
        addresses: list[Address | None],
        files: GameFiles,
        player: Player,
        *,
        limits: Limits = NODE_LIMITS,
        linger_s: float = 2.0,
        say: Callable[[str], None] | None = None,
        on_events: Callable[[list[SessionEvent]], None] | None = None,
    ) -> None:
        assert session.seat is not None
        self.session = session
        session.defer_join = True  # (joined in the timer: _join)
        self._join_due_at: float | None = None  # when the join came due, the last entry since
        self._join_input_at = 0.0
        self.me = session.seat
        self.identity = identity
        self.addresses = addresses  # None: this node
        self.files = files
        self.player = player
        self.autopilot = Autopilot(f"autopilot/{identity.sign_pk.hex()[:16]}")
        self.limits = limits
        self.linger_s = linger_s
        self.say = say or (lambda text: None)
        self.on_events = on_events
        # a seat's chat line, by its roster name (None: said as a line of the node's)
        self.on_chat: Callable[[int, str], None] | None = None
        self._chat_pace = ChatPace()  # (a seat's lines beyond CHAT_BURST a while: dropped)
        self.timing = session.timing
        self.keys = [p.sign_pk for p in session.log.players]
        self.links: dict[int, Link] = {}
        self.stats = NodeStats()
        self.done = asyncio.Event()
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._seen_index = 0  # entries of the log already announced
        self._have: list[bytes] = []  # hashes to announce at the next flush
        self._asked: dict[bytes, float] = {}  # hash -> when we last asked for it
        self._wanted: dict[bytes, tuple[float, int]] = {}  # announced to us, not yet held
        self._holds: dict[int, dict[bytes, None]] = {}  # seat -> latest hashes it holds
        self._over_at: set[int] = set()  # seats whose node said its game is over (a BYE)
        self._held: list[tuple[float, bytes]] = []  # window entries waiting for their time
        # ... and their hashes: until it leaves, such an entry is not announced (HAVE), nor
        # given to a FETCH, a SYNC or a spectator (spec 10.9: it leaves W after the window
        # became due, whatever its seat decided, and reaches no one earlier)
        self._held_hashes: set[bytes] = set()
        self._told_wait: object = None  # the wait already said (see _deadlines)
        # when each seat's link was lost (none: never linked since this node started)
        self._lost_at: dict[int, float] = {}
        # seats whose node said it was leaving (a BYE), not back, each with the step this node
        # had processed when it said so: an entry it signs for a later step, relayed by
        # another seat, says it is back (_back_by_relay)
        self.left: dict[int, int] = {}
        self._back_pending: set[int] = set()  # of them, linked again and not heard from yet
        self._started = time.monotonic()
        self._done_at: dict[int, float] = {}  # step -> when this node processed it
        self._wait_key: object = None
        self._wait_since = 0.0
        self._last_sync = 0.0
        self._behind_at, self._behind_tries = -1, 0  # SYNCs for entries far ahead, at a step
        self._deciding: asyncio.Task[None] | None = None
        self._prompt_since = 0.0
        self._autopilot = False  # the person let a deadline pass: the bot plays until they answer
        self._rng = random.Random()
        self._served_sync: dict[int, float] = {}
        self._sync_pending: dict[int, int] = {}  # seat -> a SYNC's start kept for its turn
        # (seconds from the resume, when, whether this seat's was that move): see _say_back
        self._back_at: tuple[float, float, bool] | None = None
        self._disk_reads: dict[int, tuple[float, int]] = {}
        self._closing = False
        self._closed = False  # close() has run
        # after the end, while a person's screen shows it: how long this node serves the game
        # at most (0: it stops as a bot's does, after its linger), and the person closing that
        # end (stop_serving); see serve()
        self.serve_s = 0.0
        self.end_closed = asyncio.Event()
        self._serving = False
        self._dialing: dict[int, asyncio.Task[None]] = {}  # each lower seat's dialer
        self._late: set[int] = set()  # seats that linked while this node served ...
        self._late_said: set[int] = set()  # ... and those said to have taken the end
        self._end_said: Outcome | None = None  # the end as it stood when serving began
        self._end_new: tuple[Outcome, float] | None = None  # a changed end, and since when
        self.watchers: list[Watcher] = []  # spectators through this node
        self._watcher_ids = 0
        self._watched_via: dict[int, list[str]] = {}  # seat -> who watches through it
        self._watch_pace = ChatPace()  # "... is watching" lines, by address or by seat
        self._held_off: dict[int, tuple[float, float]] = {}  # seat -> (until, next hold-off)
        # seat -> (CPU seconds left to what it sends that takes no place in the game, when)
        self._cpu_left: dict[int, tuple[float, float]] = {}
        self.code_secrets: list[str] = []  # every seat's table-code secret, hex (lobby.md 2)
        self.code = ""  # the table code (lobby.md 2), set by whoever runs the node
        self.failed: str | None = None  # why the node stopped on its own (a disk error)
        self.resumed_at: tuple[int, float] | None = None  # (step, when) for a resumed node
        # the seats a link came up to since this node started; and the seats this machine
        # brought back with this node (a resumed host's own bots, and a bot's host and fellow
        # bots), set by whoever runs it: see _reached
        self._linked_since: set[int] = set()
        self.came_back_with: set[int] = set()
        self.unreached = False  # it stopped for that: back, and no seat reached (see below)
        # this seat's vote joined votes that waited for it (_pump); a vote it held already (a
        # resumed node that had voted) joined nothing here
        self._said_joined = session.voted
        # a resumed node: (monotonic) when the step it came back into became due, as far as
        # it can tell (its log's last write before it stopped). The others' deadlines for that
        # step run from then, not from the resume: its person's time and its own wait on the
        # others count from then too, so its screen never shows time the table has not left
        self.due_since: float | None = None
        self.turn_limit = float(self.timing.turn_s)  # seconds for the prompt asked now
        # what each other seat said of its person's time on its turn when that is not turn_s
        # (a `turn` notice: its bot stands in, or it came back by `p2puno resume`): the step,
        # and when (monotonic, here) that time ends; the counts shown count from it
        self._person_clock: dict[int, tuple[int, float]] = {}
        # ... and this seat's own, when it told one: said again on each new link (a resumed
        # node asks its person before any link is up: the first one reached nobody)
        self._my_clock: tuple[int, float] | None = None
        # the lobby's last view of the table (its seats' kinds and runners), set by whoever
        # runs the node: a spectator gets it first, through any seat's node (add_watcher)
        self.table_view: dict[str, Any] | None = None
        # where a spectator can dial this node (`p2puno watch` HOST:PORT), set by whoever runs
        # it ("": not said); the table's help names it for the whole game
        self.watch_address = ""
        # P2PUNO_TRACE=DIR: each node writes when it sent its proposals and processed each
        # step (monotonic seconds, comparable across processes on one machine), and its CPU
        # and peak memory at the end: what scripts/bench_net measures
        trace_dir = os.environ.get("P2PUNO_TRACE")
        self._trace = None
        if trace_dir:
            path = os.path.join(trace_dir, f"seat{self.me}.trace")
            # buffered (written out at close): a write per line cost the node a system call at
            # every step, and the benchmark counted it against the network
            self._trace = open(path, "w", buffering=1 << 16)  # noqa: SIM115 (closed in close())
        self._traced_done = -1
        self._pruned_to = session.log.pruned_before  # (a resumed node's rebuild prunes too)
        session.log.loader = files.read  # what is pruned from memory is read back from disk

    # ------------------------------------------------------------------ running
    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        """A task of this node ended. One that raised is a bug of this node (what peers send
        is checked and refused before it gets this far): the node stops at once, as after a
        crash, with the error said, rather than play on without its clock or a link's reader
        (no deadlines kept, a hang); `p2puno resume` takes it back into the game."""
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None or self.failed is not None:
            return
        exc = task.exception()
        assert exc is not None
        self._internal_error(exc)

    def _internal_error(self, exc: BaseException) -> None:
        """Stop this node for a bug of its own (see _task_done), the error said."""
        if self.failed is not None:
            return
        self.failed = f"internal error in this node ({type(exc).__name__}: {exc}): it stops"
        for line in traceback.format_exception(exc):
            for part in line.rstrip("\n").splitlines():
                self.say(part)
        self.say(f"{self.failed}; please report it with the lines above")
        self._closing = True
        self.done.set()

    async def run(self) -> Outcome:
        """Play until the game has an outcome, linger to pass on what others may lack, stop."""
        for seat, addr in enumerate(self.addresses):
            if seat < self.me and addr is not None:
                self._dialing[seat] = self._spawn(self._dial(seat, addr))
        self._spawn(self._timer())
        self._guard(self.session.start)
        self._pump()
        serves = False
        try:
            await self.done.wait()
            linger = self.linger_s if self.failed is None else 0.0
            end = time.monotonic() + linger
            late = end + (float(self.timing.step_s) if linger else 0.0)
            while True:  # keep relaying and answering a while
                now = time.monotonic()
                if now >= late or (
                    (now >= end or self.everyone_holds_all()) and not self.silent_but_linked()
                ):
                    break
                await asyncio.sleep(0.05)
                self._pump()
            serves = self._serves()
        finally:
            # (cancelled: its person left, or the process is stopping; the others say so)
            if not serves:
                over = self.session.outcome.over
                await self.close(GAME_OVER_BYE if over else LEAVING_BYES[0])
        return self.session.outcome

    def _serves(self) -> bool:
        """Whether this node, its linger done, goes on serving its game (see serve()): its
        game is over here, it did not stop on its own, and a person's end is still shown."""
        return (
            self.serve_s > 0
            and self.failed is None
            and self.session.outcome.over
            and not self.end_closed.is_set()
            and not self._closing
        )

    def serving(self) -> bool:
        """Whether :meth:`run` left this node open, to serve its game (:meth:`serve`)."""
        return not self._closed

    def serves_end(self) -> bool:
        """Whether a seat that comes back late may still get this game's end from this node
        (:meth:`serve`): a person's end is shown (``serve_s``), not closed, the node up."""
        return (
            self.serve_s > 0
            and self.failed is None
            and not self._closing
            and not self._closed
            and not self.end_closed.is_set()
        )

    def stop_serving(self) -> None:
        """The person closed the end (the table's end box): serving stops (see serve())."""
        self.end_closed.set()

    async def serve(self) -> None:
        """After :meth:`run`, where it left this node open (:meth:`_serves`): keep serving the
        game, until the person closes its end (:meth:`stop_serving`) or for ``serve_s``, then
        close. A seat that lacks the end (killed near it, resumed late) links as during play,
        by the handshake (a roster key of this game: no spectator, no stranger): the seats
        above this one dial it (a resumed node dials its lower seats), and this node dials
        the seats below it (SERVE_REDIAL_S apart at most), as it did while the game ran; what
        it lacks it asks for (SYNC, FETCH: the same limits as in play) and is answered from
        this node's log, votes included. What it sends is taken as any entry is (protocol/
        spec.md 10.15, late entries). protocol/lobby.md section 6, "A late resume"."""
        if self._closed:
            return
        try:
            self._serving = True
            self._end_said = self.session.outcome
            until = time.monotonic() + self.serve_s
            for seat, link in list(self.links.items()):
                if self._has_end(seat):  # (it needs nothing more: as at any node's end)
                    link.close(GAME_OVER_BYE)
            for seat, addr in enumerate(self.addresses):
                if seat < self.me and addr is not None and not self._has_end(seat):
                    # (dialed anew: a dialer of the game may be in a backoff of seconds, or
                    # gone with the end)
                    old = self._dialing.get(seat)
                    if old is not None:
                        old.cancel()
                    self._dialing[seat] = self._spawn(self._dial(seat, addr))
            while not self._closing and not self.end_closed.is_set():
                left = until - time.monotonic()
                if left <= 0:
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.end_closed.wait(), min(0.25, left))
                self._say_late()
            self._say_late()
        finally:
            self._serving = False
            await self.close(GAME_OVER_BYE)

    def _has_end(self, seat: int) -> bool:
        """Whether ``seat`` has shown that it holds this node's end: its node said its game
        is over (a BYE), or it holds the latest step's entries and the votes (Log.ends)."""
        if seat in self._over_at:
            return True
        log_ = self.session.log
        holds = self._holds.get(seat, {})
        return all(h in holds or log_.entry(h).author == seat for h in log_.ends())

    def _say_late(self) -> None:
        """One line for each seat that linked while this node served and has taken the end;
        one more where what they sent changed the end (spec 10.15, late entries: a late vote
        takes its seat out of the silent ones, a late response completes the step it
        owed). helper-99's end box changed from '"Bob" did not answer in time' to 'by every
        player's vote', a card played and a hand one card smaller, with no word why."""
        for seat in sorted(self._late - self._late_said):
            if self._has_end(seat):
                self._late_said.add(seat)
                self.say(
                    f"{self._name(seat)} (seat {seat}) came back after the end and was sent "
                    "the result"
                )
        o = self.session.outcome
        if self._end_said is None or o == self._end_said or not o.over:
            return
        now = time.monotonic()
        if self._end_new is None or self._end_new[0] != o:
            # (said once it holds END_SETTLE_S: the late votes come one at a time, and
            # helper-100 read a passing end first, "Bot-1 did not answer", then the last)
            self._end_new = (o, now)
        elif now - self._end_new[1] >= END_SETTLE_S:
            self._end_said, self._end_new = o, None
            names = [p.name for p in self.session.log.players]
            who = in_a_sentence([self._name(s) for s in sorted(self._late)]) or "a seat"
            self.say(f"the end changed with what {who} sent after it: {outcome_words(o, names)}")

    def everyone_holds_all(self) -> bool:
        """Every other seat is linked and has shown that it holds every entry this node
        holds (announced it, sent it or signed it): lingering longer would pass on nothing,
        so the node stops at once instead of ``linger_s`` later (every game's end took 2 s
        more than it needed). A seat whose node said its game is over needs nothing more; a
        seat not linked, or a spectator here, is lingered for."""
        if self.watchers:
            return False
        log_ = self.session.log
        ends = log_.ends()
        for seat in range(len(self.keys)):
            if seat == self.me or seat in self._over_at:
                continue
            if seat not in self.links:
                return False
            holds = self._holds.get(seat, {})
            if any(h not in holds and log_.entry(h).author != seat for h in ends):
                return False
        return True

    def _peer_holds(self, seat: int, hashes: Iterable[bytes]) -> None:
        """Remember that ``seat`` holds these entries (at least the latest HOLDS_KEEP of
        them: cut back in one go past twice that, C-speed and amortized; deleting the oldest
        one at a time made each next lookup of the oldest skip the holes left before it)."""
        holds = self._holds.setdefault(seat, {})
        holds.update(dict.fromkeys(hashes))
        if len(holds) > 2 * HOLDS_KEEP:
            self._holds[seat] = dict.fromkeys(list(holds)[-HOLDS_KEEP:])

    def silent_but_linked(self) -> bool:
        """The game was stopped naming a seat silent that this node is still linked to: a
        slow seat (far behind, its machine busy), which joins the stop with its own vote once
        it gets there. The node lingers for it (at most a step_s more), so that it and this
        node end holding the same votes and the same outcome (spec 10.15, races (3)); a seat
        that left, or whose link died, is not waited for."""
        o = self.session.outcome
        return o.state == "stopped" and any(seat in self.links for seat in o.silent)

    async def close(self, reason: str) -> None:
        if self._closed:
            return
        self._closed = True
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        for link in [*self.links.values(), *(w.link for w in self.watchers)]:
            link.close(reason)  # (a spectator too is told why: it goes on through another seat)
        for link in list(self.links.values()):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(link.wait_closed(), 2.0)
        self.files.close()
        if self._trace is not None:
            usage = resource.getrusage(resource.RUSAGE_SELF)
            cpu = usage.ru_utime + usage.ru_stime
            self._trace.write(
                f"end {cpu:.4f} {_peak_rss_kb(usage)} {len(self.session.log)} "
                f"{self.files.durable_writes}\n"
            )
            self._trace.close()
            self._trace = None

    # ------------------------------------------------------------------ links
    def accept_key(self, key: bytes) -> bool:
        return key in self.keys

    async def on_link(self, link: Link) -> None:
        """A link from a seat above ours (or one that dialled us again), or a spectator's."""
        if self._closing:
            # a peer that dialled again while this node stops (its links just closed, its
            # listener not yet): refused, so that it dials the next run of this seat (a
            # resume) instead of holding a link to a node that no longer plays
            link.close(LEAVING_BYES[1])
            return
        if link.context != self.session.game_id:
            link.close("not a link of this game")
            return
        if link.peer not in self.keys and self._serving:
            # (after the end only the seats are served: serve(); a spectator goes nowhere
            # a seat's node would not take it, and is not sent the game for the asking)
            link.close(GAME_OVER_BYE)
            return
        if link.peer not in self.keys:
            # not a seat: a spectator, if it says so first
            try:
                m = await asyncio.wait_for(link.recv(), 10.0)
                msg = (
                    decode(m.payload, max_size=NOTICE_MAX_BYTES)
                    if m.type == MsgType.LOBBY
                    else None
                )  # (a stranger's first message: a watch or a join, a few hundred bytes)
            except (LinkError, EncodingError, TimeoutError):
                msg = None
            if not isinstance(msg, dict) or msg.get("t") not in ("watch", "join"):
                link.close("not a seat of this game")
                return
            if msg["t"] == "join":
                reason = "the game has started: watch it with  p2puno watch HOST:PORT"
                with contextlib.suppress(LinkError):
                    link.send(MsgType.LOBBY, encode({"t": "refuse", "reason": reason}))
                link.close("the game has started")
                return
            self.add_watcher(link, msg)
            return
        self._adopt(self.keys.index(link.peer), link)

    # ------------------------------------------------------------------ spectators
    def add_watcher(self, link: Link, msg: dict[str, Any]) -> None:
        """A spectator (``p2puno watch``): it gets the genesis, every entry this node holds
        and each new one as it joins the log; it may FETCH and SYNC like a seat (same limits)
        and nothing it sends is taken as an entry. It holds no key and sees no hand: entries
        carry only encrypted cards until they are opened in public."""
        name = msg.get("name")
        if name_problem(name) is not None:  # (the players' rule: helper-66 watched as 'Ann
            # says: “I quit: vote me out”', shown on every screen as "... is watching")
            name = "a spectator"
        elif any(
            name_skeleton(p.name) == name_skeleton(str(name)) for p in self.session.log.players
        ):
            # (32 in all; "Bob is watching" on Bob's screen, or a look-alike of a player)
            name = str(name)[:18] + " (a spectator)"
        assert isinstance(name, str)
        refusal = watch_refusal([w.link for w in self.watchers], link)
        if self._serving:  # (the game is over: see serve(); through the host's lobby too)
            refusal = GAME_OVER_BYE
        if refusal is not None:
            with contextlib.suppress(LinkError):
                link.send(MsgType.LOBBY, encode({"t": "refuse", "reason": refusal}))
            link.close(refusal)
            return
        log_ = self.session.log
        hello: dict[str, JSONValue] = {
            "t": "watching",
            "seat": self.me,
            "genesis": (log_.genesis_raw or b"").decode(),
            "addresses": [None if a is None else [a.host, a.port] for a in self.addresses],
            "secrets": list(self.code_secrets),  # (the table code's: the spectator checks them)
        }
        self._watcher_ids += 1
        wid = -self._watcher_ids  # its key in the per-peer limits (seats are >= 0)
        w = Watcher(link, name, link.peer.hex()[:16], wid)
        table = watch_table(self.table_view)
        try:
            if table is not None:  # (which seats are bots, and whose machine runs them)
                link.send(MsgType.LOBBY, encode(table))
            link.send(MsgType.LOBBY, encode(hello))
        except LinkError:
            link.close("gone")
            return
        self.watchers.append(w)
        link.set_handler(lambda m: self._on_watcher(w, m.type, m.payload))
        where = host_group(host_of(link))  # (an IPv6 /64 as one: helper-69)
        if self._watch_pace.take(where, time.monotonic(), WATCH_LINES) == "ok":
            # (a spectator coming and going under new keys said 482 lines in 10 s: helper-66)
            w.said = True
            self.say(f"{name} is watching (key {w.key})")
        self._announce_watchers()
        self._spawn(self._watcher_gone(w))

    async def _watcher_gone(self, w: Watcher) -> None:
        await w.link.wait_closed()
        self._served_sync.pop(w.id, None)  # (a key per spectator link would pile up)
        if w in self.watchers:
            self.watchers.remove(w)
            if not self._closing and not self.session.outcome.over and w.said:  # (at the
                # end: all do; one whose coming was not said goes unsaid too)
                self.say(f"{w.name} stopped watching")
            self._announce_watchers()

    def _on_watcher(self, w: Watcher, mtype: int, payload: bytes) -> None:
        """What a spectator may ask: entries by hash, or a step on (no entry is taken). Only
        from memory: the backlog stream gave it the log file from its start, so nothing
        older is owed to it, and a spectator needs no key, so it must not make the node read
        its file again and again (each read scans the whole game)."""
        with contextlib.suppress(LinkError, TransportError):
            if mtype == MsgType.FETCH:
                now = time.monotonic()
                w.fetch_budget = min(
                    WATCH_FETCH_BURST,
                    w.fetch_budget + (now - w.fetch_at) * WATCH_FETCH_BYTES_PER_S,
                )
                w.fetch_at = now
                for h in decode_fetch(payload):
                    try:
                        raw = self.session.log.entry_raw_in_memory(h)
                    except KeyError:
                        continue
                    if len(raw) > w.fetch_budget:
                        break  # (what it still lacks it asks again, or takes by a SYNC)
                    w.fetch_budget -= len(raw)
                    w.link.send(MsgType.ENTRY, raw)
            elif mtype == MsgType.SYNC:
                now = time.monotonic()
                if now - self._served_sync.get(w.id, -10.0) >= SYNC_EVERY:
                    self._served_sync[w.id] = now
                    self._serve_sync(w.link, max(decode_sync(payload), self._pruned_to))

    def _feed_watchers(self) -> None:
        """What each spectator lacks: first the log file from its start (every entry, in the
        order it joined the log, paced by the link's queue), then each new entry at once."""
        log_ = self.session.log
        # (a seat whose node said its game is over is not away: its game ended there, and a
        # spectator read "J0 could no longer be reached" after the end, helper-85)
        seats = (sorted(self.away() - self.left.keys() - self._over_at), sorted(self.left))
        wait = self._wait_report() if self.watchers else None
        for w in list(self.watchers):
            if wait is not None and (
                w.wait is None or w.wait[:2] != wait[0][:2] or abs(w.wait[2] - wait[0][2]) > 0.5
            ):
                w.wait = wait[0]
                with contextlib.suppress(LinkError):
                    w.link.send(MsgType.LOBBY, encode(wait[1]))
            if w.seats != seats:  # (what this node sees of the other seats' nodes)
                w.seats = seats
                away: list[JSONValue] = list(seats[0])
                left: list[JSONValue] = list(seats[1])
                with contextlib.suppress(LinkError):
                    report: JSONValue = {"t": "seats", "away": away, "left": left}
                    w.link.send(MsgType.LOBBY, encode(report))
            if w.pos is not None:
                self._stream_backlog(w)
            if w.pos is not None or w.sent >= len(log_):
                continue
            if w.sent < log_.memory_start:  # (cannot happen: it is fed on every pump)
                w.link.close("fell behind what this node holds in memory")
                continue
            hashes = log_.hashes(w.sent)
            for k, h in enumerate(hashes):
                if h in self._held_hashes:  # it, and what came after it, once it leaves
                    hashes = hashes[:k]
                    break
            w.sent += len(hashes)
            try:
                for h in hashes:
                    w.link.send(MsgType.ENTRY, log_.raw(h))
            except (LinkError, KeyError) as e:
                w.link.close(f"cannot keep up: {e}")

    def _wait_report(self) -> tuple[tuple[int, str, float], JSONValue] | None:
        """What a spectator through this node is told of the wait in progress, so that its
        screen counts what the players' screens count (it counted from when it first saw the
        wait: 57 s left where a player's read 46, helper-70): the step, the kind, the seconds
        until this node votes, the seconds waited and whether a person may be deciding
        (:meth:`wait_left`). Said again when the vote's time moves (a seat left, a link
        lost); never trusted beyond the count it shows."""
        got = self.wait_left()
        prompt = self.session.prompt
        if got is None and prompt is not None and prompt.kind == "turn" and self._deciding:
            # this seat's own turn (its node waits on nobody: it asks its person or bot):
            # what the others count, from its prompt, so the spectator counts the person's
            # own time as their screen does (it counted from when it saw the turn begin)
            waited = time.monotonic() - self._prompt_since
            got = (self.turn_limit - waited + float(self.timing.step_s), waited, True)
        if got is None:
            return None
        left, waited, deciding = got
        w = self.session.waiting()
        step, kind = w.step, w.kind
        report: JSONValue = {
            "t": "wait",
            "step": step,
            "kind": kind,
            "left_ms": round(max(0.0, left) * 1000),
            "waited_ms": round(max(0.0, waited) * 1000),
            "deciding": deciding,
        }
        return (step, kind, time.monotonic() + left), report

    def _stream_backlog(self, w: Watcher) -> None:
        assert w.pos is not None
        budget = WATCH_BACKLOG_BYTES - w.link.queued_bytes
        if budget <= 0:
            return
        try:
            with open(self.files.log_path, "rb") as f:
                f.seek(w.pos)
                chunk = f.read(budget)
        except OSError as e:
            w.link.close(f"cannot read the log: {e.strerror}")
            return
        lines = chunk.split(b"\n")[:-1]  # complete lines only
        room = WATCH_BACKLOG_MESSAGES - w.link.queued_messages
        if room <= 0:
            return
        lines = lines[:room]
        held, stopped = self._held_hashes, False
        for k, line in enumerate(lines):
            if held and entry_hash(line) in held:  # as in _feed_watchers
                lines, stopped = lines[:k], True
                break
        end = sum(len(line) + 1 for line in lines)
        try:
            for line in lines:
                w.link.send(MsgType.ENTRY, line)
        except LinkError:
            return
        w.pos += end
        if stopped:
            return  # (the rest once that entry has left)
        if len(chunk) < budget and end == len(chunk):
            # the whole file is sent, and every entry of the log is in it (each is written
            # the moment it joins the log): from here on, new entries as they come
            w.pos = None
            w.sent = len(self.session.log)
        elif end == 0 and len(chunk) == budget and budget == WATCH_BACKLOG_BYTES:
            # (a whole window read with nothing queued, and no line end in it; with some
            # queued, the window was only smaller: the rest once the link drains, helper-38)
            w.link.close("an entry longer than the backlog window")

    def _announce_watchers(self) -> None:
        """Tell the other seats who watches through this node (the table shows it)."""
        names: list[JSONValue] = [w.name for w in self.watchers]
        self._send_all(MsgType.LOBBY, encode({"t": "watchers", "names": names}))

    def spectators(self) -> list[tuple[str, int]]:
        """Who watches the game, and through which seat's node."""
        mine = [(w.name, self.me) for w in self.watchers]
        theirs = [(n, seat) for seat, names in sorted(self._watched_via.items()) for n in names]
        return mine + theirs

    def _adopt(self, seat: int, link: Link) -> None:
        if self._closing:
            link.close(LEAVING_BYES[1])
            return
        held = self._held_off_for(seat)
        if held > 0:  # (dropped for refused entries: not back before its time)
            link.close(f"kept out for {held:.0f} s more: too many refused entries")
            return
        old = self.links.get(seat)
        if old is not None and old is not link:
            old.close("replaced by a newer link")
        self.links[seat] = link
        self._linked_since.add(seat)
        if self._serving and not self._has_end(seat):
            self._late.add(seat)  # (said once it has taken the end: _say_late)
        if seat in self.left:
            # it said it was leaving: back only once it says something on this link (a link
            # to a node still lingering on its way out was said "is back", then "left" again)
            self._back_pending.add(seat)
        elif self._lost_at.pop(seat, None) is not None and not self.done.is_set():
            self.say(f"{self._name(seat)} (seat {seat}) is back")
        self._spawn(self._watch(seat, link))
        # (what the peer sent before this moment is handled now: it may close the link)
        link.set_handler(lambda msg: self._on_message(seat, link, msg.type, msg.payload))
        with contextlib.suppress(LinkError):  # closed already: _watch says why, _dial redials
            # what the peer may have missed while we were apart: a sync from the current step
            link.send(MsgType.SYNC, encode_sync(self.session.processed + 1))
            if self.watchers:
                names: list[JSONValue] = [w.name for w in self.watchers]
                link.send(MsgType.LOBBY, encode({"t": "watchers", "names": names}))
            clock = self._my_clock
            if clock is not None and clock[0] > self.session.processed and self._deciding:
                link.send(MsgType.LOBBY, self._clock_notice())  # (see _my_clock)

    def _held_off_for(self, seat: int) -> float:
        """Seconds ``seat`` is still kept out for refused entries (0: it is not)."""
        until = self._held_off.get(seat, (0.0, 0.0))[0]
        return max(0.0, until - time.monotonic())

    def _dials(self, seat: int) -> bool:
        """Whether this node still dials ``seat``: while its game runs; after the end, while
        it serves (serve()) and that seat has not shown it holds the end."""
        if self._closing:
            return False
        if not self.done.is_set():
            return True
        return self._serving and not self._has_end(seat)

    async def _dial(self, seat: int, addr: Address) -> None:
        delay = 0.1
        dialed_at: float | None = None  # when the link it dialed last was taken up
        while self._dials(seat):
            held = self._held_off_for(seat)
            if held > 0:
                await asyncio.sleep(held)
                continue
            link = self.links.get(seat)
            if link is not None and not link.closed:
                await link.wait_closed()
            if dialed_at is not None:
                lived, dialed_at = time.monotonic() - dialed_at, None
                if seat in self.left or lived < 1.0:
                    # (a stopping node answers each dial with a BYE: not at once again,
                    # helper-61; nor a link that lived under a second: a peer that closed
                    # each one at once had 58 dials in 5 s, each a handshake, helper-95)
                    await asyncio.sleep(delay * (0.5 + self._rng.random()))
                    delay = min(delay * 2, 3.0)
                    continue
                delay = 0.1  # (a link that lived, then was cut: dialed again at once)
            try:
                link = await open_link(
                    addr.host,
                    addr.port,
                    self.identity,
                    self.session.game_id,
                    expect=self.keys[seat],
                    limits=self.limits,
                )
            except LinkError as e:
                log.info("seat %d at %s: %s", seat, addr, e)
                await asyncio.sleep(delay * (0.5 + self._rng.random()))
                delay = min(delay * 2, SERVE_REDIAL_S if self._serving else 3.0)
                continue
            self._adopt(seat, link)
            dialed_at = time.monotonic()

    async def _watch(self, seat: int, link: Link) -> None:
        """Messages come through the link's handler; this waits for the link to end."""
        await link.wait_closed()
        e = link.error
        current = self.links.get(seat) is link  # (not one this node replaced)
        again = False  # a BYE of a seat that had left already: its first leaving counts
        if e is not None and current and e.code == "bye" and GAME_OVER_BYE in e.detail:
            self._over_at.add(seat)
        if e is not None and current and not self._closing and not self.done.is_set():
            if e.code == "bye" and GAME_OVER_BYE in e.detail:
                pass  # its game ended there first: this node gets there from what it relayed
            elif e.code == "bye" and any(r in e.detail for r in LEAVING_BYES):
                # it left on purpose (its person quit, or it stopped); said once (helper-36
                # read it twice: the BYE of a second link of the same node)
                # (and the link let go all the same: it stayed in links, closed, and the
                # wait's words left that seat out, helper-61)
                again = seat in self.left
                if not again:
                    self.left[seat] = self.session.processed
                    # (short sentences: one read "unless it is back within 5 s of when the
                    # game waits for it (a player with ..., a host's bot with its host), the
                    # others vote it out" as hard to follow, helper-83)
                    runner = self._runner(seat)
                    name = self._name(seat)
                    decides = self._who_decides()
                    self.say(left_words(name, seat, self.timing.step_s, runner, decides))
            else:  # (in words: "eof: peer 60ab... at ..." read as noise, and "lost the link
                # to Bot-1 (seat 1): its connection closed (eof)" as jargon, helper-55; the
                # code goes to the log)
                why = LINK_WORDS.get(e.code, e.detail)
                if e.code == "bye":  # (the peer dropped it for a fault it names, in its own
                    # words: quoted, they are its, not this node's)
                    why = f"their side closed it, saying “{e.detail.removeprefix('said bye: ')}”"
                log.info("seat %d: link ended: %s", seat, e)
                self.say(f'lost the connection to "{self._name(seat)}" (seat {seat}): {why}')
        if current:
            del self.links[seat]
            if not again or seat not in self._lost_at:  # (a BYE again: no more time)
                self._lost_at[seat] = time.monotonic()
            self._watched_via.pop(seat, None)  # (its spectators go on through another node)

    def _who_decides(self) -> str:
        """Who decides on a seat that just said it was leaving, for :func:`left_words`, by the
        rule node/watch.py's ``_who_votes`` says for a spectator: "others" while another seat
        is linked to this node (not counting the host's bots once the host is gone: they stop
        with it); else "stops" when this node would stop alone (:meth:`stops_alone`: cut off,
        one of the lost not said leaving; or resumed and reaching nobody), else "alone"."""
        live = {i for i, link in self.links.items() if not link.closed and i != self.me}
        host_gone = 0 in self.left or 0 in self._lost_at  # (not one not linked yet)
        if self.me != 0 and host_gone and 0 not in live:  # (the bots its machine runs go too)
            view = self.table_view if isinstance(self.table_view, dict) else {}
            live -= host_bot_seats(view.get("seats"))
        if live:
            return "others"
        return "stops" if self.stops_alone() else "alone"

    def _runner(self, seat: int) -> object:
        """Who runs ``seat`` as the lobby's view of the table says ("host", "self"), or None."""
        seats = self.table_view.get("seats") if isinstance(self.table_view, dict) else None
        if isinstance(seats, list) and 0 <= seat < len(seats) and isinstance(seats[seat], dict):
            return seats[seat].get("runner")
        return None

    def _name(self, seat: int) -> str:
        players = self.session.log.players
        return players[seat].name if 0 <= seat < len(players) else f"seat {seat}"

    def _names(self, seats: Iterable[int]) -> str:
        """Seats as a person reads them: "J1 (seat 1), J2 (seat 2)"."""
        return ", ".join(f"{self._name(i)} (seat {i})" for i in seats)

    def _who(self, seats: Iterable[int]) -> str:
        """Seats as a person reads them in a sentence: '"Bob" (seat 1) and "Cy" (seat 2)'."""
        return in_a_sentence([f'"{self._name(i)}" (seat {i})' for i in seats])

    def _send_all(self, mtype: MsgType, payload: bytes) -> None:
        for seat, link in list(self.links.items()):
            try:
                link.send(mtype, payload)
            except LinkError as e:
                log.info("seat %d: %s", seat, e)

    # ------------------------------------------------------------------ messages
    def _on_message(self, seat: int, link: Link, mtype: int, payload: bytes) -> None:
        if seat in self._back_pending and self.links.get(seat) is link:
            self._back_pending.discard(seat)
            self.left.pop(seat, None)
            self._lost_at.pop(seat, None)
            if not self.done.is_set():
                self.say(f"{self._name(seat)} (seat {seat}) is back")
        # (what HAVEs, FETCHes and notices cost is charged; an entry's, where it takes no
        # place in the log, by _on_entry: CPU_PER_S)
        cpu = time.thread_time() if mtype in _CHARGED else None
        if mtype == MsgType.ENTRY:
            self._on_entry(seat, link, payload)
        elif mtype == MsgType.HAVE:
            now = time.monotonic()
            have = decode_fetch(payload)
            self._peer_holds(seat, have)
            for h in have:
                if len(self._wanted) >= MAX_WANTED:
                    break  # (what is lost comes directly, or by a SYNC once a step stalls)
                if not self.session.log.knows(h) and h not in self._wanted:
                    self._wanted[h] = (now, seat)
        elif mtype == MsgType.FETCH:
            with contextlib.suppress(LinkError):  # (a peer that asks and does not read: its
                # link closes too_slow, which _watch says; helper-38 saw a traceback here)
                for h in decode_fetch(payload):
                    raw = self._lookup(h, seat)
                    if raw is not None:
                        link.send(MsgType.ENTRY, raw)
        elif mtype == MsgType.SYNC:
            now = time.monotonic()
            start = decode_sync(payload)
            if now - self._served_sync.get(seat, -10.0) < SYNC_EVERY:
                # at most one a peer every SYNC_EVERY seconds: it is costly to serve. One that
                # comes sooner is kept (the lowest start) and served once that time is up
                # (_serve_pending): a link cut and dialed again at once had its SYNC dropped,
                # and what went into the cut link waited for a stall's SYNC; serving each new
                # link's at once let a seat that closes and redials have 12 a second served
                # (helper-95: 1 MB queued and 12-19 ms of CPU each)
                was = self._sync_pending.get(seat)
                self._sync_pending[seat] = start if was is None else min(was, start)
                return
            self._served_sync[seat] = now
            self._sync_pending.pop(seat, None)
            self.stats.syncs += 1
            if self._trace is not None:
                self._trace.write(f"y {seat} {start} {self.session.processed} {now:.6f}\n")
            self._serve_sync(link, start)
        elif mtype == MsgType.LOBBY:
            self._on_notice(seat, payload)
        if cpu is not None:
            self._charge_cpu(seat, link, time.thread_time() - cpu)
        self._pump()

    def chat(self, text: str) -> str | None:
        """Say ``text`` to every seat this node has a link to (the table's chat): None once
        sent, else why not. It reaches the seats linked now; a seat away misses it."""
        line = chat_line(text)
        if not line:
            return "nothing to say"
        if self._closing:
            return "the game is over: nobody hears it"
        self._send_all(MsgType.LOBBY, encode({"t": "chat", "text": line}))
        if self.on_chat is not None:
            self.on_chat(self.me, line)
        return None

    def _on_chat(self, seat: int, text: object) -> None:
        if not isinstance(text, str):
            return
        line = chat_line(text)
        if not line:
            return
        pace = self._chat_pace.take(seat, time.monotonic())
        if pace == "drop":
            self.say(f"{self._name(seat)} (seat {seat}) chats too fast: lines dropped")
        if pace != "ok":
            return
        if self.on_chat is not None:
            self.on_chat(seat, line)
        else:
            self.say(chat_words(self._name(seat), line))

    def _on_notice(self, seat: int, payload: bytes) -> None:
        """A seat says who watches through it (shown at the table, nothing more), or says
        something at the table (:meth:`chat`)."""
        try:
            msg = decode(payload, max_size=NOTICE_MAX_BYTES)
        except EncodingError:
            return
        if isinstance(msg, dict) and msg.get("t") == "chat":
            self._on_chat(seat, msg.get("text"))
            return
        if isinstance(msg, dict) and msg.get("t") == "turn":
            self._on_turn(seat, msg)
            return
        if not isinstance(msg, dict) or msg.get("t") != "watchers":
            return
        names = msg.get("names")
        if isinstance(names, list) and len(names) <= MAX_WATCHERS:
            # (the names a seat gives, under the players' rule as its own spectators'; said
            # at most WATCH_LINES in CHAT_PER_S a seat: one that swapped two lists of 8 said
            # 35,280 lines in 10 s, helper-66; the table's list still shows them all)
            ok = [n for n in names if isinstance(n, str) and name_problem(n) is None]
            # (one drawn like a player's marked, as this node marks its own: helper-69's
            # seat relayed a spectator called "Bob")
            players = {name_skeleton(p.name) for p in self.session.log.players}
            ok = [n[:18] + " (a spectator)" if name_skeleton(n) in players else n for n in ok]
            before = self._watched_via.get(seat, [])
            self._watched_via[seat] = ok
            now = time.monotonic()
            for n in ok:
                if n not in before and self._watch_pace.take(seat, now, WATCH_LINES) == "ok":
                    self.say(f"{n} is watching (through seat {seat})")

    def _on_turn(self, seat: int, msg: dict[str, Any]) -> None:
        """A seat says how long its person has on the turn it owes (``{"t": "turn", "step",
        "left_ms"}``), sent when that is not the table's turn_s: its node's bot stands in
        (AUTOPILOT_GRACE_S), or its person came back into the turn by `p2puno resume`
        (resumed_turn_limit). Only counted on the screens, as the seat's own screen counts
        (wait_left); never a deadline: the vote keeps the table's. One for a step already
        done, over the table's turn_s + step_s, or malformed is ignored."""
        step, left = msg.get("step"), msg.get("left_ms")
        most = 1000 * (self.timing.turn_s + self.timing.step_s)
        if type(step) is not int or type(left) is not int or not 0 <= left <= most:
            return
        if step <= self.session.processed:
            return
        self._person_clock[seat] = (step, time.monotonic() + left / 1000)

    def _tell_person_clock(self, limit: float) -> None:
        """Tell the table this seat's person's time on its turn, counted from now (a `turn`
        notice, see _on_turn): each other node's spectators and players then count what
        this seat's own screen counts (they counted turn_s from the turn's start: 55 s where
        the seat's read 5 s, helper-79's brief)."""
        step = self.session.waiting().step
        self._my_clock = (step, time.monotonic() + limit)
        self._send_all(MsgType.LOBBY, self._clock_notice())

    def _clock_notice(self) -> bytes:
        assert self._my_clock is not None
        step, until = self._my_clock
        left = round(max(0.0, until - time.monotonic()) * 1000)
        return encode({"t": "turn", "step": step, "left_ms": left})

    def _serve_sync(self, link: Link, start: int) -> None:
        """Every entry from step ``start`` on, then every vote: from memory, or, when the
        steps asked for were pruned from it, from the log file (a seek to the step's first
        line, :class:`LogFileIndex`, then the file as it reads). No more than the link's send
        queue has room for (over it, the link would close as too slow): a peer far behind
        takes what came and asks again, while it still sees entries ahead of it."""
        log_ = self.session.log
        lim = link.limits
        messages = lim.send_queue_frames - link.queued_messages - SYNC_RESERVE_MESSAGES
        room = lim.send_queue_bytes - link.queued_bytes - SYNC_RESERVE_BYTES
        try:
            if start < self._pruned_to:
                chain: Iterable[bytes] = self.files.lines_from(start)
            else:
                chain = (log_.raw(h) for h in log_.hashes(log_.memory_start) if _in(log_, h, start))
            held = self._held_hashes
            for raw in chain:
                messages -= 1
                room -= len(raw) + 64
                if messages < 0 or room < 0:
                    return  # (the votes too wait for the next SYNC)
                if held and entry_hash(raw) in held:
                    continue
                link.send(MsgType.ENTRY, raw)
            for h in log_.vote_hashes():
                link.send(MsgType.ENTRY, log_.raw(h))
        except (OSError, LinkError):
            pass

    def _lookup(self, h: bytes, seat: int) -> bytes | None:
        log_ = self.session.log
        if not log_.knows(h) or h in self._held_hashes:
            return None
        try:
            return log_.entry_raw_in_memory(h)
        except KeyError:
            pass
        # pruned: read back from the log file, a few per peer and second (each read scans it)
        now = time.monotonic()
        since, used = self._disk_reads.get(seat, (now, 0))
        if now - since > 1.0:
            since, used = now, 0
        if used >= DISK_READS_PER_S:
            return None
        self._disk_reads[seat] = (since, used + 1)
        try:
            return log_.raw(h)
        except KeyError:
            return None

    def _on_entry(self, seat: int, link: Link, raw: bytes) -> None:
        h = entry_hash(raw)
        self._peer_holds(seat, (h,))
        if self.session.log.knows(h):  # a copy: dropped before any decoding
            self.stats.duplicates += 1
            return
        self.stats.received += 1
        self._wanted.pop(h, None)
        if self._trace is not None:
            self._trace.write(f"r {seat} {time.monotonic():.6f} {h.hex()[:8]}\n")
        cpu = time.thread_time()
        try:
            self._receive(seat, link, raw, h)
        finally:
            if not self.session.log.knows(h):  # (it took no place: its cost is charged)
                self._charge_cpu(seat, link, time.thread_time() - cpu)

    def _receive(self, seat: int, link: Link, raw: bytes, h: bytes) -> None:
        try:
            self._guard(lambda: self.session.receive(raw))
            if self.session.join_due:  # (joined once the input is quiet: _join)
                self._join_input_at = time.monotonic()
                if self._join_due_at is None:
                    self._join_due_at = self._join_input_at
            if self.left:
                self._back_by_relay(h)
        except SessionError as e:
            self.stats.refused.append(str(e))
            if e.seat is None or e.seat == seat:  # garbage, or the peer's own signed fault
                n = self.stats.garbage.get(seat, 0) + 1
                self.stats.garbage[seat] = n
                if n >= GARBAGE_LIMIT:
                    self.stats.garbage[seat] = 0  # (another GARBAGE_LIMIT once it is back)
                    self._keep_out(seat, link, f"{n} refused entries", f" ({e})")
            return
        except Exception as e:  # (not the peer's: this node's own, see _task_done)
            # (helper-38: an own entry over the log's size cap escaped as a LogError; the
            # link's reader closed the link as "internal error" and the node played on)
            self._internal_error(e)

    def _keep_out(self, seat: int, link: Link, why: str, detail: str = "") -> None:
        """Drop ``seat``'s link for ``why`` and keep it out HOLD_OFF_S, twice that the next
        time (up to HOLD_OFF_MAX_S): a link it opens meanwhile is closed at once."""
        hold = self._held_off.get(seat, (0.0, HOLD_OFF_S))[1]
        self._held_off[seat] = (time.monotonic() + hold, min(hold * 2, HOLD_OFF_MAX_S))
        self.say(f"dropping seat {seat}'s link: {why}{detail}; kept out for {hold:.0f} s")
        link.close(f"{why}: kept out for {hold:.0f} s")

    def _charge_cpu(self, seat: int, link: Link, spent: float) -> None:
        """Charge ``spent`` CPU seconds to ``seat`` (what it sent took no place in the game:
        CPU_PER_S); over CPU_BURST, refilled at CPU_PER_S, the seat is kept out (_keep_out)."""
        now = time.monotonic()
        left, at = self._cpu_left.get(seat, (CPU_BURST, now))
        left = min(CPU_BURST, left + (now - at) * CPU_PER_S) - spent
        if left >= 0:
            self._cpu_left[seat] = (left, now)
            return
        self._cpu_left.pop(seat, None)  # (the full budget again once it is back)
        why = f"what it sent that took no place in the game cost over {CPU_BURST:.0f} s of CPU"
        self._keep_out(seat, link, why)

    def _back_by_relay(self, h: bytes) -> None:
        """A seat that said it was leaving is back if an entry it signed for a step after it
        said so arrives, by whichever link (it came back with `p2puno resume` and reached
        only other seats, whose relays carry its moves here): it is waited for as any seat
        again, its person's turn_s included. helper-62: it stayed "left" as long as its own
        link to this node was not back, and this node voted it out step_s into a turn it was
        playing. (An entry it signed before it left, relayed late, is no sign: its step is
        not later than this node's at the BYE; such a seat is only waited for longer, as
        before.)"""
        try:
            entry = self.session.log.entry(h)
        except KeyError:  # (not held: refused, or parked until its parents come)
            return
        seat = entry.author
        if seat in self.left and entry.seq > self.left.get(seat, entry.seq):
            del self.left[seat]
            self.say(f"{self._name(seat)} (seat {seat}) is back (its moves come through others)")

    # ------------------------------------------------------------------ the pump
    def _pump(self) -> None:
        """Send what the session wrote, announce what it took, raise a decision, notice the
        end (what it lacks is asked for at the timer's tick)."""
        s = self.session
        now = time.monotonic()
        if s.prune_memory(PRUNE_KEEP):
            # the last PRUNE_KEEP steps stay in memory (what peers ask for), the rest on disk
            self._pruned_to = s.log.pruned_before
            _trim_heap()
            self._done_at = {k: v for k, v in self._done_at.items() if k >= self._pruned_to}
            self._asked = {h: t for h, t in self._asked.items() if now - t < 10.0}
        if s.events and self.on_events is not None:
            events, s.events = s.events, []
            self.on_events(events)
        if s.voted and not self._said_joined:
            self._said_joined = True
            self._say_joined()
        if s.processed not in self._done_at:
            self._done_at[s.processed] = now
            if self.resumed_at is not None and s.processed > self.resumed_at[0]:
                # said at the timer's next tick, with what came with this step taken too
                # (_say_back: a SYNC's answer brings the step, then the votes that ended it)
                first = s.log.proposal(self.resumed_at[0] + 1)
                mine = first is not None and first[1].author == self.me
                self._back_at = (now - self.resumed_at[1], now, mine)
                self.resumed_at = None
                self.due_since = None  # (the step it came back into is done)
        if self._trace is not None and s.processed > self._traced_done:
            cpu = time.process_time()  # this process's CPU seconds, for the benchmark
            for seq in range(self._traced_done + 1, s.processed + 1):
                self._trace.write(f"d {seq} {now:.6f} {cpu:.6f}\n")
            self._traced_done = s.processed
        # what we took: announce it (batched in the timer); remember it
        # (a resumed node's log starts pruned: the index is the log's count, not a sum of
        # what came back, or the held part would be announced again at every pump)
        self._have.extend(s.log.hashes(self._seen_index))
        self._seen_index = len(s.log)
        if self.watchers:
            self._feed_watchers()
        # what we wrote: at once, or held until the window's time
        for raw in s.outbox:
            release = self._release_time(raw)
            if release > now:
                self._held.append((release, raw))
                self._held_hashes.add(entry_hash(raw))
            else:
                self._send_all(MsgType.ENTRY, raw)
                self.stats.sent += 1
                self._trace_sent(raw, now)
        s.outbox.clear()
        self._flush_held(now)
        # a decision
        if s.prompt is not None and self._deciding is None:
            self._prompt_since = now
            self._deciding = asyncio.ensure_future(self._decide(s.prompt))
            self._deciding.add_done_callback(self._task_done)  # a player that raises: said
        if s.behind > s.processed + 1 and now - self._last_sync > 0.5 and self.links:
            # entries far ahead of us: we were away; ask a peer for everything we lack
            if s.processed != self._behind_at:
                self._behind_at, self._behind_tries = s.processed, 0
            self._behind_tries += 1
            if self._behind_tries > BEHIND_TRIES:
                # peers had nothing past this step: the entry ahead was a seat's signed lie
                # (a step that does not exist), not a game we missed; a stall is the
                # deadline's business (a SYNC once a step waits, then the vote)
                s.forget_ahead()
            else:
                self._last_sync = now
                seat = self._rng.choice(list(self.links))
                with contextlib.suppress(LinkError):
                    self.links[seat].send(MsgType.SYNC, encode_sync(s.processed + 1))
        if s.over and not self.done.is_set():
            self.done.set()

    def _trace_sent(self, raw: bytes, now: float) -> None:
        if self._trace is None:
            return
        e = self.session.log.entry_of(raw)
        if e is not None and e.role is Role.RESPONSE and e.author == self.me:
            self._trace.write(f"s {e.seq} {now:.6f}\n")
        if e is not None and e.role is Role.PROPOSAL and e.author == self.me:
            what = e.kind
            if e.kind == "action" and isinstance(e.body, dict):
                what = "play" if "#" in str(e.body.get("action", "")) else "action"
            elif e.kind == "shuffle" and isinstance(e.body, dict) and "commitment" in e.body:
                what = "commit"
            self._trace.write(f"p {e.seq} {now:.6f} {what}\n")

    def _release_time(self, raw: bytes) -> float:
        """When an entry this node wrote may leave (spec 10.9: a window entry, W after this
        node processed the step before it, if something could be claimed; else now)."""
        s = self.session
        e = s.log.entry_of(raw)
        if e is None or e.author != self.me or e.role is Role.VOTE:
            return 0.0
        if e.seq != s.processed + 1 or s.step.kind != "window" or not s.claimable():
            return 0.0
        base = self._done_at.get(e.seq - 1, time.monotonic())
        return base + self.timing.window_ms / 1000.0

    def _flush_held(self, now: float) -> None:
        if not self._held:
            return
        due = [raw for t, raw in self._held if t <= now]
        self._held = [(t, raw) for t, raw in self._held if t > now]
        for raw in due:
            self._held_hashes.discard(entry_hash(raw))
            self._send_all(MsgType.ENTRY, raw)
            self.stats.sent += 1
            self._trace_sent(raw, now)

    async def _decide(self, prompt: Prompt) -> None:
        """Ask the player; past the deadline (turn: turn_s; a claim: the window) the node's
        own bot answers (a claim is declined) and keeps answering until the person does."""
        limit = self.timing.turn_s if prompt.kind == "turn" else self.timing.window_ms / 1000
        no_chance = False  # a resumed turn already past what the table leaves: the bot's
        if prompt.kind == "turn" and self.due_since is not None:
            # back into a turn that was due before this node stopped (see resumed_turn_limit)
            left = self.due_since + limit - time.monotonic()
            limit = resumed_turn_limit(self.timing, self.due_since, time.monotonic())
            if limit >= 1.0 and limit > max(0.0, left) + 0.5 and self.player.kind == "person":
                ran = "after its time ran out" if left <= 0 else "with its time nearly gone"
                self.say(
                    f"back in your turn {ran}: you have {limit:.0f} s to play it before your "
                    "node's bot does"
                )
            no_chance = limit < 1.0  # (as the table's screen tells it: ui.app, TableUI.ask)
            limit = max(0.05, limit)  # (none: the node's bot plays at once)
        self.turn_limit = limit
        # the person's clock starts here, where their screen's does (TableUI.ask); the one a
        # spectator is told counts from it too (_wait_report: it counted from the pump that
        # raised the prompt)
        self._prompt_since = time.monotonic()
        person_turn = self.player.kind == "person" and prompt.kind == "turn"
        if person_turn and self.due_since is not None and not self._autopilot:
            self._tell_person_clock(limit)  # (a resumed turn: not turn_s, see _on_turn)
        try:
            if self._autopilot and self.player.kind == "person" and prompt.kind == "turn":
                # the person let a turn pass: their node's bot has the seat, but each turn is
                # still theirs for a moment first (helper-30: the bot played every later turn
                # at once, and a whole game ended in seconds without the person). A key
                # pressed meanwhile gives the seat back from the next turn (person_is_back).
                grace = self._grace(limit)
                self.turn_limit = grace
                self._prompt_since = time.monotonic()
                self._tell_person_clock(grace)
                try:
                    choice: Action | None = await asyncio.wait_for(
                        self.player.decide(prompt), grace
                    )
                    self._autopilot = False  # (they played it: the seat is theirs again)
                except TimeoutError:
                    choice = self.autopilot.choose(prompt)
            elif self._autopilot and self.player.kind == "person":
                choice = self.autopilot.choose(prompt)  # (a claim: the bot's, as before)
            else:
                try:
                    choice = await asyncio.wait_for(self.player.decide(prompt), max(limit, 0.05))
                except TimeoutError:
                    if self.player.kind == "person":
                        # said at once as it is (helper-79's brief: "your node's bot plays for
                        # you", then the table's "you are back: your node's bot played only the
                        # turn that ran out", read as contradicting each other)
                        self._autopilot = prompt.kind == "turn" and not no_chance
                        if no_chance and not self.reached_since_resume():
                            # (nobody since it came back may be there to take the move: the
                            # others may have ended the game, helper-93; as the table says)
                            self.say(
                                "your turn ran out while you were away: your node's bot plays "
                                "it, but it counts only once another player answers, and none "
                                "has since you came back"
                            )
                        elif no_chance:  # (the table gives the seat back too: TableUI.ask)
                            self.say(
                                "your turn ran out while you were away: your node's bot plays "
                                "only that turn, and the next one is yours"
                            )
                        elif self._autopilot:
                            grace = self._grace(float(self.timing.turn_s))
                            self.say(
                                "your turn timed out: your node's bot plays this turn; any key "
                                "gives you the seat back (until then, each of your turns is "
                                f"yours for its first {grace:g} s, then the bot's)"
                            )
                    choice = self.autopilot.choose(prompt) if prompt.kind == "turn" else None
            if self.session.prompt is prompt:
                self._guard(lambda: self.session.decide(choice))
        finally:
            self._deciding = None
        self._pump()

    def _guard(self, step: Callable[[], T]) -> T | None:
        """Run a session call that may write to the disk. If the disk fails (full, gone), the
        node stops at once, as after a crash: what it wrote is consistent (write before send),
        and `p2puno resume` goes on once there is space."""
        if self.failed is not None:
            return None
        try:
            return step()
        except OSError as e:
            what = "the disk refused a write"
            if e.errno in (errno.EMFILE, errno.ENFILE):  # (not the disk: helper-38)
                what = "this process could not open a file to write"
            self.failed = f"{what} ({e.strerror or e}): this node stops"
            self.say(f"{self.failed}; resume with `{command()} resume` once it is fixed")
            self._closing = True
            self.done.set()
            return None

    @staticmethod
    def _grace(limit: float) -> float:
        """A person's time on a turn while their node's bot has the seat (see _decide)."""
        return max(0.05, min(AUTOPILOT_GRACE_S, limit / 4))

    def person_is_back(self) -> None:
        """The person pressed a key: they decide again from the next prompt on."""
        self._autopilot = False

    # ------------------------------------------------------------------ the clock
    async def _timer(self) -> None:
        rss_at = 0.0
        while not self._closing:
            await asyncio.sleep(0.05)
            now = time.monotonic()
            if self._trace is not None and now - rss_at > 1.0:
                rss_at = now
                with open("/proc/self/statm") as f:
                    pages = int(f.read().split()[1])
                self._trace.write(f"m {now:.3f} {pages * 4} {self.session.processed}\n")
            self._flush_held(now)
            self._serve_pending(now)
            self._announce()
            self._fetch_wanted(now)
            self._fetch_parents(now)
            self._join(now)
            self._deadlines(now)
            self._pump()
            self._say_back(now)

    def _join(self, now: float) -> None:
        """Join the votes taken (Session.join_votes) once no entry has come for JOIN_QUIET_S,
        or JOIN_MAX_S after the first: the rest of the answer that brought them is in."""
        s = self.session
        if not s.join_due:
            self._join_due_at = None
            return
        due = self._join_due_at if self._join_due_at is not None else now
        if now - self._join_input_at < JOIN_QUIET_S and now - due < JOIN_MAX_S:
            return
        self._join_due_at = None
        self._guard(s.join_votes)

    def _say_back(self, now: float) -> None:
        """A resumed node's line once play went on (see _pump), a tick after its first step:
        not "play went on 0.6 s after the resume" for a game the step's votes had ended (a
        late resume, its end served by a node still showing it: helper-97)."""
        if self._back_at is None or now - self._back_at[1] < 0.1:
            return
        took, mine = self._back_at[0], self._back_at[2]
        self._back_at = None
        if self.session.outcome.state in ("stopping", "stopped", "finished", "cheat"):
            self.say("back in the game: it had ended while you were away (the end below)")
        elif mine:
            # (the wait was this seat's own: helper-99 read "play went on 16.1 s after the
            # resume" as the table stuck, where it waited for his turn)
            self.say(
                f"back in the game: play went on with your move, {took:.1f} s after the resume"
            )
        else:
            # (not "at step 40 (14.00 s after resuming)": a step is the log's word, and the
            # time is the wait for the next move, not a catching up, helper-92)
            self.say(f"back in the game: play went on {took:.1f} s after the resume")

    def _serve_pending(self, now: float) -> None:
        """Each SYNC kept for its turn (one a peer every SYNC_EVERY s), served on the seat's
        link of now."""
        for seat, start in list(self._sync_pending.items()):
            if now - self._served_sync.get(seat, -10.0) < SYNC_EVERY:
                continue
            del self._sync_pending[seat]
            link = self.links.get(seat)
            if link is None or link.closed:
                continue  # (it asks again on its next link)
            self._served_sync[seat] = now
            self.stats.syncs += 1
            self._serve_sync(link, start)

    def _announce(self) -> None:
        """HAVE to every peer: the entries taken since the last tick, but those held back
        (announced once they leave)."""
        if not self._have:
            return
        held = self._held_hashes
        batch = list(dict.fromkeys(h for h in self._have if h not in held))  # (each once)
        self._have = [h for h in dict.fromkeys(self._have) if h in held]
        for i in range(0, len(batch), MAX_FETCH):
            self._send_all(MsgType.HAVE, encode_fetch(batch[i : i + MAX_FETCH]))

    def _fetch_parents(self, now: float) -> None:
        """Parents of entries that came before them, from every peer (at each tick of the
        timer, not at every message: a peer that parks many entries must not make every
        later message cost a walk over them)."""
        want = [h for h in self.session.missing() if now - self._asked.get(h, 0.0) > 1.0]
        for h in want[:MAX_FETCH]:
            self._asked[h] = now
        if want:
            self._send_all(MsgType.FETCH, encode_fetch(want[:MAX_FETCH]))

    def _fetch_wanted(self, now: float) -> None:
        """Entries a peer announced that have not come directly after a while: fetch them
        from that peer (a link down elsewhere, or a copy lost)."""
        ask: dict[int, list[bytes]] = {}
        for h, (since, seat) in list(self._wanted.items()):
            if self.session.log.knows(h) or now - since > WANTED_FOR:
                del self._wanted[h]  # held now, or announced by a peer that never had it
            elif now - since > 0.2 and now - self._asked.get(h, 0.0) > 1.0:
                self._asked[h] = now
                ask.setdefault(seat, []).append(h)
        for seat, hashes in ask.items():
            link = self.links.get(seat)
            if link is None:
                continue
            for i in range(0, len(hashes), MAX_FETCH):
                with contextlib.suppress(LinkError):
                    link.send(MsgType.FETCH, encode_fetch(hashes[i : i + MAX_FETCH]))

    def _deadlines(self, now: float) -> None:
        s = self.session
        w = s.waiting()
        key = (w.step, w.kind, w.seats)
        if key != self._wait_key:
            self._wait_key, self._wait_since = key, now
            if self.due_since is not None:
                # (see due_since) but never less than step_s left: a whole table coming back
                # after an outage must not vote out a seat whose node is back a moment later
                full = self._deadline(w.kind, s.log.proposal(w.step) is None)
                latest = now - max(0.0, full - float(self.timing.step_s))
                self._wait_since = min(now, max(self.due_since, latest))
            return
        if not w.seats:
            return
        waited = now - self._wait_since
        if waited > 2.0 and now - self._last_sync > 2.0 and self.links:
            # stuck: a lost copy, or a peer that was away; ask for the step again, first of
            # all the seats waited for, which hold what is awaited (their own entries): a
            # seat's entry sent into a link as it was cut reached nobody, and a SYNC asked of
            # a random peer found it with one chance in two a try with three seats (chaos_net
            # under load: both other seats voted out an honest host, every link back up)
            self._last_sync = now
            awaited = [i for i in w.seats if i in self.links]
            others = [i for i in self.links if i not in awaited]
            # (and one other: an awaited seat linked but withholding, or its link half-open
            # and not yet found dead, must not leave the step unasked elsewhere, helper-95)
            for seat in awaited + ([self._rng.choice(others)] if others else []):
                with contextlib.suppress(LinkError):
                    self.links[seat].send(MsgType.SYNC, encode_sync(s.processed + 1))
        deadline = self._wait_deadline(w.kind, w.step, w.seats)
        cut = [i for i in w.seats if i not in self.links]
        up_s = now - self._started  # (a resumed node's wait may start before it did)
        # (said again when what it leads to changes: a BYE that came after the line made a
        # node that said it would stop alone vote after all, helper-54)
        told = (key, self.stops_alone(), all(i in self.left for i in cut)) if cut else None
        if waited > 5.0 and up_s > 5.0 and cut and self._told_wait != told:
            # waiting on seats this node has no link to: say so once (a resumed node whose
            # table is gone waited without a word; the table's countdown is not on a line)
            self._told_wait = told
            owes = {owed_words(w.kind, w.owed.get(i, "")) for i in cut}
            who = in_a_sentence([f'"{self._name(i)}"' for i in cut])
            what = f" {owes.pop()}" if len(owes) == 1 else ""
            they = "they are" if len(cut) > 1 else f'"{self._name(cut[0])}" is'
            # (when this node votes: its deadline, and the redial grace; helper-29 read "in
            # 5 s" from a node with no link left, which voted 10 s later)
            left = max(0.0, self._vote_in(deadline, waited, now))
            within = f"within {left:.0f} s" if left >= 1 else "now"  # (not "within 0 s")
            if self.resumed_at is not None and not self._reached():
                then = (
                    f"unless {they} back {within}, your node stops, the game unfinished here: "
                    "since you came back it has reached no other player, and it does not end "
                    "the game without them"
                )
            elif self._cut_off(self._lost_grace(now)[0]):  # (helper-33: it said it would vote)
                then = (
                    f"unless {they} back {within}, your node stops, the game unfinished here: "
                    "it is connected to no other player (their computers, or your own network, "
                    "may be down), and it does not end the game on its own"
                )
            else:
                gives = session_stop_gives(s)
                then = f"unless {they} back {within}, the table ends the game: {gives}"
            why = (
                "they left the table"  # (each said so: a BYE)
                if all(i in self.left for i in cut)
                else "they are not connected (they left, or their computer or network is down)"
            )
            self.say(f"waiting for {who}{what}, but {why}; {then}")
        if waited <= deadline:
            return
        if self.resumed_at is not None and not self._reached() and not self._closing:
            # Back from a stop, and no seat that stayed reached since: this node's own absence
            # may be what the others voted on (a seat away past its deadline is voted out). A
            # stop it decided without them would be a second record of the game, naming them
            # silent; it stops instead, the game unfinished here and resumable (lobby.md 5).
            self.failed = (
                "since you came back, no other player could be reached, and the time to "
                "answer has run out: the others most likely ended the game while you were "
                "away (a player away past the deadline is voted out, and that ends the game "
                "for everyone). Your node does not end it without them, so the game stays "
                "unfinished here. To see how it ended, ask another player for their game log "
                f"(the file their end screen names) and open it with `{command()} replay "
                "LOG`; if their game is still waiting for you, take it up again once one of "
                "them is back online"
            )
            self.unreached = True  # (said once, by whoever runs the node: run.py raises it)
            self._closing = True
            self.done.set()
            return
        # the seats this node has no link to (a process gone between two of its answers,
        # which nobody waits for): named in the vote too, or the stop would wait for them.
        # Not one that lost its link a moment ago (it may be redialing, and would join the
        # stop at once); and when this node has no link at all (its own network may be the
        # one down), only after a whole step_s: it would decide the stop alone
        lost, grace_left = self._lost_grace(now)
        if grace_left > 0 and waited - deadline < self._grace_cap():
            return  # (the vote waits that long: a voter never votes again)
        if self._cut_off(lost) and not self._closing:
            # No link left, and not every seat said it was leaving: this node's own network
            # may be the one down. A stop it decided alone would be a second record naming
            # every other seat silent (helper-29 cut one node off: it alone wrote "Host, J0
            # and J1 silent" while the three wrote "J2 silent"). It stops instead, the game
            # unfinished here and resumable, as a resumed node that reaches nobody does.
            self.failed = (
                "your node lost its connection to every other player, and the time to answer "
                "has run out: their computers may have stopped, or your own network may be "
                "the one down, so it does not end the game on its own. The game stays "
                "unfinished here: take it up again once another player can be reached"
            )
            self.unreached = True
            self._closing = True
            self.done.set()
            return
        gone = list(lost)
        amending = s.voted  # (a vote already cast: the stop waits for seats nobody named)
        named = s.log.named_by_votes()
        self._said_joined = True  # (this node votes of its own: it joins no one's, _say_joined)
        if self._guard(lambda: s.stop(gone)):
            if amending:
                added = sorted(s.log.named_by_votes() - named)
                has = "has" if len(added) == 1 else "have"
                self.say(
                    f"{self._who(added)} {has} neither answered nor agreed to end the game: "
                    "your node names them in its vote too, so that the game can end"
                )
            else:
                also = sorted(set(gone) - set(w.seats))
                are = "is" if len(also) == 1 else "are"
                more = f", and {self._who(also)} {are} not connected either" if also else ""
                bye = all(i in self.left for i in w.seats)  # (each said it was leaving)
                what = "left the table and did not come back" if bye else "did not answer"
                gives = session_stop_gives(s)
                self.say(
                    f"{self._who(w.seats)} {what} in time{more}: your node votes "
                    f"to end the game for everyone ({gives})"
                )
            self._pump()

    def _say_joined(self) -> None:
        """Said once this seat has voted: when the others' votes waited for it (it was away,
        and its node, back, found them and joined them: session.py ``_on_vote``), why the
        game ends. The stop then reads "by every seat's vote", and a person back from
        `p2puno resume` read no word of their absence having caused it (helper-83)."""
        s = self.session
        votes = s.log.votes()
        me = s.seat
        others = sorted(v for v in votes if v != me)
        if me is None or not others:
            return
        if not all(me in vote_waiting(votes[v][1]) for v in others):
            return  # (this node's own vote, or votes that waited for others too)
        has, theirs = ("has", "that vote") if len(others) == 1 else ("have", "their votes")
        self.say(
            f"you were away, and {self._who(others)} {has} voted to end the game while "
            f"waiting for you: your node joins {theirs}, and the game ends for everyone "
            f"({session_stop_gives(s)})"
        )

    def reached_since_resume(self) -> bool:
        """Whether this node, back by `p2puno resume`, has reached another seat since (see
        :meth:`_reached`); True for a node that did not resume. For the table's words: a
        move its bot makes counts only once another seat answers (ui.app)."""
        return self.resumed_at is None or self._reached()

    def _reached(self) -> bool:
        """Whether a resumed node has reached, since it came back, a seat its own machine did
        not bring back with it (``came_back_with``): only a seat that went on without it can
        tell it (by a sync) that the game was stopped while it was away. A host's own bots
        come back with it (helper-36: Ann's host left with its bot, Bob's node voted them both
        out and its game ended; back too late, Ann's node and its bot, each reaching only the
        other, voted Bob out: two verified records, each blaming the other). Known on this
        machine, not taken on a peer's word: a "back" notice any peer could send let a seat
        that stalled keep a resumed node from voting (helper-41)."""
        return bool(self._linked_since - self.came_back_with)

    def _cut_off(self, lost: dict[int, float]) -> bool:
        """Whether this node, with a stop due, is cut off from a table that could decide it
        without it: no live link, at least two other seats, and not every lost one said it was
        leaving. (Two seats: the other seat alone is the table, and a stop is always one
        node's vote; refusing it would let a player who is losing walk away leaving no record
        that names them, helper-33. A split of two is two records, as any split is.)"""
        return (
            self.session.n > 2
            and not any(not link.closed for link in self.links.values())
            and any(i not in self.left for i in lost)
        )

    def stops_alone(self) -> bool:
        """Whether this node, if its deadline passed now, would stop with the game unfinished
        here instead of voting: no seat that stayed reached since it came back, or cut off
        (_cut_off). The table says so beside whom it waits for (helper-54 read "your node
        stops, the game unfinished here" in the moves and "the game ends for everyone" under
        the status, at once)."""
        if self.resumed_at is not None and not self._reached():
            return True
        return self._cut_off(self._lost_grace(time.monotonic())[0])

    def _vote_in(self, deadline: float, waited: float, now: float) -> float:
        """Seconds until this node votes on the wait in progress: its deadline, or the grace
        of a seat redialing (_lost_grace), capped (_grace_cap)."""
        grace = min(self._lost_grace(now)[1], deadline + self._grace_cap() - waited)
        return max(deadline - waited, grace)

    def _grace_cap(self) -> float:
        """How long past its deadline a wait may run for seats redialing (_lost_grace), at
        most: a seat that linked and dropped again and again, faster than the grace, kept
        the vote off for ever (a stall without end, found reading the grace this session)."""
        return max(LINK_GRACE_S, float(self.timing.step_s))

    def _lost_grace(self, now: float) -> tuple[dict[int, float], float]:
        """The seats this node has no live link to (when each was lost), and how long the
        vote still waits for them to redial: LINK_GRACE_S after a loss, a whole step_s when
        this node has no live link at all (see _deadlines)."""
        live = [i for i, link in self.links.items() if not link.closed]
        grace = LINK_GRACE_S if live else max(LINK_GRACE_S, float(self.timing.step_s))
        lost = {
            i: self._lost_at.get(i, self._started)
            for i in range(self.session.n)
            if i != self.me and i not in live
        }
        return lost, max((grace - (now - t) for t in lost.values()), default=0.0)

    def away(self) -> set[int]:
        """The seats whose link to this node was lost and is not back (left the table, or
        unreachable), and, in a resumed node up LINK_GRACE_S, those it never reached (its
        table may be gone: helper-51 read "waiting for Bot-1 and Bot-2" with no word that
        neither was there): the table says so beside whom it waits for. Not in a node that
        never stopped: two seats that cannot dial each other play on through the others'
        relaying (protocol/lobby.md section 3), and a slow start is no absence (helper-56)."""
        gone = {i for i in self._lost_at if i not in self.links or self.links[i].closed}
        if self.resumed_at is not None and time.monotonic() - self._started > LINK_GRACE_S:
            gone |= {i for i in range(self.session.n) if i != self.me and i not in self.links}
        return gone

    def wait_left(self) -> tuple[float, float, bool] | None:
        """What the table's screen counts down while it waits for other seats: the seconds
        left before this node votes them out, the seconds waited so far, and whether a person
        may be deciding (an action not proposed yet: of the seconds left, the last step_s are
        the machine's, after the person's node has played for them). None: no wait of this
        node's yet."""
        w = self.session.waiting()
        if not w.seats or (w.step, w.kind, w.seats) != self._wait_key:
            return None
        proposal = self.session.log.proposal(w.step) is None
        deadline = self._wait_deadline(w.kind, w.step, w.seats)
        now = time.monotonic()
        waited = now - self._wait_since
        left = self._vote_in(deadline, waited, now)  # (see _deadlines)
        leaving = all(i in self.left for i in w.seats)  # (nobody deciding: see _wait_deadline)
        deciding = proposal and w.kind == "action" and not leaving
        clock = self._person_clock.get(w.seats[0]) if len(w.seats) == 1 else None
        if deciding and clock is not None and clock[0] == w.step:
            # that seat's person has not turn_s (its bot stands in, or it was resumed): their
            # time, as their own screen counts it, then step_s for their node (_on_turn)
            # (only shorter: helper-82's seat said turn_s + step_s where the vote came in
            # step_s, and every screen counted 100 s against the node's 20)
            left = min(left, clock[1] - now + float(self.timing.step_s))
        return left, waited, deciding

    def _wait_deadline(self, kind: str, step: int, seats: tuple[int, ...]) -> float:
        """This node's deadline for the wait in progress, counted from ``_wait_since``: the
        table's (_deadline), but when every seat waited for said it was leaving (a BYE, and
        not back), at most ``step_s`` after the last of them left. Such a seat decides
        nothing (its node is gone, and with it the bot that would play for its person), so
        the person's ``turn_s`` is no use to it; ``step_s`` is its time to come back with
        `p2puno resume` (protocol/lobby.md section 5). Before, a table of two waited out the
        whole ``turn_s + step_s`` (80 s at the defaults) for a player who had said goodbye,
        with no key to end it sooner (helper-54)."""
        full = self._deadline(kind, self.session.log.proposal(step) is None)
        if seats and all(i in self.left for i in seats):
            last = max(self._lost_at.get(i, self._wait_since) for i in seats)
            full = min(full, max(0.0, last - self._wait_since) + float(self.timing.step_s))
        return full

    def _deadline(self, kind: str, proposal: bool) -> float:
        t = self.timing
        if proposal and kind == "action":  # a person may be deciding
            return t.turn_s + t.step_s
        if kind == "window":
            return t.step_s + t.window_ms / 1000
        return float(t.step_s)
