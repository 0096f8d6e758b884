"""The full-screen table: a prompt-toolkit Application beside the node, in the same loop.

The node runs in its own tasks (never in the app's background tasks, which end with the app);
everything here happens in loop callbacks: the node's hooks (:meth:`TableUI.on_table`,
:meth:`~TableUI.on_game`, :meth:`~TableUI.on_events`, :meth:`~TableUI.say`) and the key
handler mutate the UI's state and call ``invalidate()``; the app draws from
:func:`~p2puno.ui.model.table_view` at its own pace. A decision is a future: the node's
player (:class:`~p2puno.ui.player.TablePlayer`) awaits it, a key resolves it, and the node
goes on relaying and answering meanwhile. Nothing is printed while the screen is up; the
terminal is given back by prompt-toolkit on exit, on an error and on Ctrl-C.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style

from p2puno.engine.actions import Action, Kind
from p2puno.engine.cards import CARD_TEXT, COLORS
from p2puno.engine.game import Event, Game, Phase
from p2puno.node.game import CHAT_MAX, SERVE_MAX_S, chat_words, command, with_command
from p2puno.node.lobby import HostLobby, LobbyChat, LobbyError, table_digest
from p2puno.node.watch import checked_words
from p2puno.session.session import Prompt, SessionEvent, Timing
from p2puno.sim.words import owed_cards, told_draw
from p2puno.ui.lines import resume_split
from p2puno.ui.model import (
    BOT_QUIET_S,
    SPINNER,
    Source,
    TableView,
    UiState,
    Verification,
    ViewInputs,
    card_name,
    card_sort_key,
    catches_of,
    describe_event,
    describe_session_event,
    parse_typed,
    penalty_words,
    plays_of,
    resolve_play,
    round_end_lines,
    simple_of,
    table_view,
    watch_end_lines,
)
from p2puno.ui.render import (
    MIN_HEIGHT,
    MIN_WIDTH,
    NBSP,
    NO_TABLE,
    OPENING,
    REACHING,
    Line,
    lobby_lines,
    render,
    screen_text,
)

if TYPE_CHECKING:
    from p2puno.node.game import GameNode
    from p2puno.node.run import Result
    from p2puno.node.watch import Spectator, WatchResult

R = TypeVar("R", "Result", "WatchResult")

STYLE = {
    "header": "reverse bold",
    "help": "reverse",
    "card.r": "#ff5555 bold",
    "card.y": "#ffff55 bold",
    "card.g": "#55ff55 bold",
    "card.b": "#5599ff bold",
    "card.w": "bold",
    "card.x": "",
    "chip": "",
    "playable": "underline",
    "selected": "reverse",
    "you": "bold",
    "turn": "bold",
    "alert": "#ff5555 bold",
    "ok": "#55ff55",
    "dim": "#888888",
    "status.you": "bold #ffff55",
    "choice": "",
    "input": "bold",
    "box": "",
    "boxtext": "bold",
}
# NO_COLOR (no-color.org): no colors at all; emphasis only (bold, underline, reverse). Every
# color is also written out (the card letters, the color in play in words).
MONO = {k: " ".join(w for w in v.split() if not w.startswith("#")) for k, v in STYLE.items()}

# an end (the game's, a stop's, a watch's) is drawn this long before Enter, Esc or Space may
# close it (q closes at once): a key meant for the table must not close an end unseen; a box up
# a second is seen (helper-92 pressed Enter 5 s after the stop box came: docs/ui.md, helper-93)
END_GRACE_S = 1.0
# what a resumed turn its bot played at once begins with (TableUI._ran_out_words)
RAN_OUT = "your turn ran out while you were away"
_FLASHED = ("reshuffle", "swap", "rotate", "returned", "caught", "jump")  # a line of its own
_MOVES = frozenset({"play", "jump", "keep", "pass"})  # a turn's end (a jump ends one too)
CHAT_IN_MOVES = 90  # characters of a chat line kept in the moves (the rest: "…")
ECHO_S = 8.0  # a move's echo ("sent: ...") and a flash (a swap, a catch) stay up this long

KEY_NAMES = {
    Keys.Left: "left",
    Keys.Right: "right",
    Keys.Up: "up",
    Keys.Down: "down",
    Keys.Enter: "enter",
    Keys.ControlM: "enter",
    Keys.Escape: "escape",
    Keys.Backspace: "backspace",
    Keys.ControlH: "backspace",
    Keys.ControlC: "c-c",
    Keys.ControlL: "c-l",
    Keys.ControlZ: "c-z",
    Keys.Tab: "tab",
}


# the events after which the engine deals from another deck (a new round's, or the deck a
# Wild Draw Four turned up at the start went back into): the slots before them are gone
_DECK_ENDS = frozenset({"start", "round", "returned"})


def drawn_slots(g: Game, events: list[Event | None]) -> dict[int, tuple[int, ...]]:
    """The slots each draw of ``events`` (a batch the engine ``g`` has already taken, so it
    holds the state after all of it) took, by the draw's index in the batch, in the order
    drawn: every draw of the deck in play, whoever drew (the caller names only its own).

    The engine draws from one end of its pile, and the pile is always the slots from
    ``draw[-1]`` to the deck's end (a reshuffle adds the next slots, once the pile is empty):
    so the slots are taken in increasing order, and walking the batch back from the pile's
    end gives each draw's. A resumed node's first batch is the game so far: before, a draw
    was named only when nothing later in the batch changed the hand, so a person back with
    `p2puno resume` read "You drew 1 card" where the table had said "You drew 1 card: r5".
    A draw before the batch's last deal (or a start card sent back) is of a deck whose
    faces are gone: left out."""
    out: dict[int, tuple[int, ...]] = {}
    nxt = g.draw[-1] if g.draw else len(g.faces)  # the next slot the pile would give
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if e is None:
            continue
        if e.kind in _DECK_ENDS:
            break
        if e.kind == "draw" and e.value > 0:
            nxt -= e.value
            if nxt < 0:  # (cannot happen: an engine that draws otherwise names nothing)
                return {}
            out[i] = tuple(range(nxt, nxt + e.value))
    return out


# terminals without colours, by their TERM (and any "-mono" entry: xterm-mono): a colour's
# escape code there may mean something else (on a VT100, 5 in "ESC[38;5;83m" is blinking).
# helper-101 saw 256-colour codes sent to TERM=vt100 and TERM=xterm-mono.
MONO_TERMS = ("vt52", "vt100", "vt102", "vt220")


def no_color() -> bool:
    """No colours: NO_COLOR is set (no-color.org), or the terminal has none (MONO_TERMS)."""
    term = os.environ.get("TERM", "")
    return bool(os.environ.get("NO_COLOR")) or term in MONO_TERMS or term.endswith("-mono")


class TableUI:
    """The state behind the screen, its hooks for the node, and the Application."""

    def __init__(
        self,
        *,
        name: str = "",
        host: bool = False,
        address: str = "",
        title: str = "p2puno",
        input: Input | None = None,
        output: Output | None = None,
        color: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        tick_s: float = 0.5,
        spectator: bool = False,
    ) -> None:
        self.name = name
        self.is_host = host
        self.spectator = spectator  # watching: no seat, in the lobby too
        # (the launcher names a non-default --data-dir; a venv not activated: its full path)
        self.resume_hint = with_command("p2puno resume")
        self.address = address
        # this node's address for `p2puno watch` (the help names it: said once, it scrolled
        # out of the moves, helper-77); "" until the game starts (a spectator's table: never)
        self.watch_address = ""
        self.title = title
        self.clock = clock
        self.tick_s = tick_s
        self.state = UiState()
        self._flash_at = self._sent_at = 0.0  # when the flash and a move's echo were set
        self._logged = 0  # lines ever put in the move list (it keeps the last 300)
        # your draws not named yet: (the line's serial, the slots, the line, the deck's faces)
        self._drawn: list[tuple[int, tuple[int, ...], str, list[int]]] = []
        # the engine event told last, and the serial and line of a penalty's (the cards that
        # it says are drawn are told by it alone: sim.words.told_draw; yours are named on it)
        self._before: Event | None = None
        self._owed_line: tuple[int, str] | None = None
        self._said_from = "play"  # the mode a chat line was begun in (it returns there)
        self._drew_for_dealer: set[int] = set()  # who drew for dealer since the last tie
        # a resumed node's and a spectator's first batch is the game so far: its swaps and
        # catches go to the move list, not the flash line (a review saw an old one as new)
        self._history = spectator or title.endswith("resumed")
        self.start = asyncio.Event()
        self.lobby: HostLobby | None = None  # the host's lobby: its `x` key gives a seat up
        self.table: dict[str, Any] | None = None
        self.node: GameNode | None = None
        self.watching: Spectator | None = None  # a spectator's table: whom it watches through
        self.source: Source | None = None
        self.me: int | None = None
        self.names: list[str] = []
        self.kinds: list[str] = []
        self.notes: list[str] = []
        self.timing = Timing()
        self.code = ""
        self.log: deque[str] = deque(maxlen=300)
        self.verification = Verification()
        self.prompt: Prompt | None = None
        self.prompt_since = 0.0
        self._future: asyncio.Future[Action | None] | None = None
        self.autopilot = False
        # a resumed turn its bot played at once (see ask): the node is told the person is back
        # once its bot's move is taken (it turns its bot on as the move is made)
        self._give_back = False
        self._back_in: Prompt | None = None  # the prompt a key gave the seat back in
        self._bot_turn = False  # the node's bot makes this seat's move: its line says so
        self._ended = False  # the game's end has been taken (its words cleared once)
        # what the person last sent, in words, until a step completes (theirs is the next):
        # at a stop before every seat confirmed it, said not to count (helper-105)
        self._unconfirmed: str | None = None
        self.log_path = ""
        self.save_log: str | None = None  # --save-log: where the log is copied at the end
        self.result: Result | WatchResult | None = None
        self.failure: str | None = None
        self.left = False  # the person chose to leave
        self.shown = False  # run by run_table, on a person's screen
        self.lobby_message = ""
        # the lobby's chat: this seat's (a joiner's is bound by join_table, the host's is its
        # lobby's), and its lines as shown, newest last
        self.lobby_chat = LobbyChat()
        self.lobby_chat.on_line = self.on_lobby_line
        self.lobby_lines: deque[str] = deque(maxlen=50)
        self._seating: asyncio.Future[None] | None = None  # a bot being seated (b, the host)
        self._confirm: asyncio.Future[bool] | None = None  # the final table, asked (a joiner)
        self._confirm_since = 0.0  # when it was asked (clock)
        self.confirmed = False  # the person confirmed the table now shown
        self.spinner = 0
        self._wait_key: object = None
        self._wait_since = 0.0
        self.rendered = 0  # screens drawn (bench_ui)
        self.on_rendered: Callable[[], None] | None = None
        self.extra_view: Callable[[ViewInputs], None] | None = None  # replay, watch
        self.key_time = 0.0  # when the last key was handled (bench_ui)
        self._over_since: float | None = None  # when the game's end was first drawn
        self._help_pages = 1  # the lobby's help, as last drawn: its number of pages
        self._join_said = ""  # the host's node's join command, said under "others join with:"
        color = not no_color() if color is None else color
        self.app: Application[None] = Application(
            layout=Layout(Window(FormattedTextControl(self._fragments, show_cursor=False))),
            key_bindings=self._bindings(),
            style=Style.from_dict(STYLE if color else MONO),
            full_screen=True,
            mouse_support=False,
            color_depth=None if color else ColorDepth.MONOCHROME,
            input=input,
            output=output,
            after_render=self._after_render,
        )
        self.app.ttimeoutlen = 0.05  # Esc alone is a key here, not the start of a sequence
        self.app.timeoutlen = 0.2

    # ------------------------------------------------------------------ node hooks
    def on_lobby(self, lobby: HostLobby) -> None:
        """The host's node opened its lobby: the host may give a seat up from the table, and
        its chat is the lobby's own."""
        self.lobby = lobby
        self.lobby_chat = lobby.chat
        lobby.chat.on_line = self.on_lobby_line

    def on_lobby_line(self, who: str | None, line: str) -> None:
        """A chat line said in the lobby (``who`` None: this seat's own)."""
        self.lobby_lines.append(chat_words(who or "you", line, own=who is None))
        self.invalidate()

    def on_table(self, table: dict[str, Any]) -> None:
        if self.table is not None and table_digest(self.table) != table_digest(table):
            self.confirmed = False  # (a seat came or went: what was confirmed is not this)
            if self.result is None and self.failure is None:
                self.lobby_message = ""  # (said of the table before: stale now)
        self.table = table
        name = table.get("name")
        if (
            self.title in ("p2puno", "p2puno · resumed")
            and isinstance(name, str)
            and 0 < len(name) <= 40
            and name.isprintable()  # (the host's word: the lobby shows it quoted)
        ):
            # a joiner's title names the table too (the host's does from the start)
            resumed = self.title.endswith("resumed")
            self.title = f"p2puno · {name}" + (" (resumed)" if resumed else "")
        self.invalidate()

    async def confirm(self, table: dict[str, Any]) -> bool:
        """The joiner's node asks: play at this final table? Enter says yes (q leaves the
        table, which ends the node's lobby; a newer table cancels the question)."""
        self.on_table(table)
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._confirm, self.confirmed = fut, False
        self._confirm_since = self.clock()
        self.invalidate()
        try:
            return await fut
        finally:
            if self._confirm is fut:
                self._confirm = None
            self.invalidate()

    def _confirm_left(self) -> float | None:
        """Seconds left to confirm the table asked about (the table's turn deadline, from
        the question: the host's count began at most a moment before), or None."""
        if self._confirm is None or self._confirm.done() or self.table is None:
            return None
        opts = self.table.get("options")
        timing = opts.get("timing") if isinstance(opts, dict) else None
        turn = timing.get("turn_s") if isinstance(timing, dict) else None
        if not isinstance(turn, int):
            return None
        return turn - (self.clock() - self._confirm_since)

    def on_game(self, node: GameNode) -> None:
        """The node once the game starts: draw from its session, hear its events."""
        self.node = node
        self.attach(node.session, node.me, [p.name for p in node.session.log.players])
        self.timing = node.timing
        self.log_path = str(node.files.log_path)
        if self.save_log is not None:  # where it will be once the game ends (finished)
            self.log_path = os.path.abspath(self.save_log)
        node.on_events = self.on_events  # the table describes the moves itself
        # (from the lobby's own result, never read off a line: helper-33 set the code every
        # screen showed by watching under the name "table code AAAA-BBBB;")
        self.code = node.code
        node.on_chat = self.on_chat
        if self.shown:
            # the game's end stays on this screen until the person closes it: meanwhile the
            # node serves the game to a seat that comes back late (GameNode.serve; end_closed
            # stops it). Not a table nobody sees (a test's, reading a bot's node)
            node.serve_s = SERVE_MAX_S
        self._seats_from_table()
        self.watch_address = node.watch_address
        self.invalidate()

    def on_watch(self, spectator: Spectator) -> None:
        """A spectator's table once the game starts: no seat, no hand, every move checked
        as it happens by the spectator's own observer session."""
        assert spectator.session is not None
        self.attach(spectator.session, None, [p.name for p in spectator.session.log.players])
        self.timing = spectator.timing
        self.code = spectator.code
        if spectator.files is not None:
            self.log_path = str(spectator.files.log_path)
        spectator.on_events = self.on_events
        self.watching = spectator
        self._seats_from_table()
        self.invalidate()

    def _seats_from_table(self) -> None:
        if self.table is not None:
            seats = self.table.get("seats")
            if isinstance(seats, list):
                self.kinds = [str(s.get("kind", "")) for s in seats if isinstance(s, dict)]
                self.notes = [
                    "on host"  # the host's machine runs it: it could see its hand
                    if s.get("runner") == "host" and s.get("kind") == "bot"
                    else ""
                    for s in seats
                    if isinstance(s, dict)
                ]

    def attach(self, source: Source, me: int | None, names: list[str]) -> None:
        self.source = source
        self.me = me
        self.names = names

    def say(self, text: str) -> None:
        m = re.search(r"open on (\S+):(\d+)", text)
        if m and not self.address:
            host = m.group(1)
            if host == "every":  # "every interface"
                host = _lan_address()
            self.address = f"{host}:{m.group(2)}"
        if text[:1].isspace() and self.log and self.log[-1].endswith("others join with:"):
            self._join_said = text.strip()  # (the host's join command: see _lobby_word)
        self._log(text.strip())
        self.invalidate()

    def on_events(self, events: list[SessionEvent]) -> None:
        src = self.source
        if src is None:
            return
        g = src.engine
        # the engine already holds the state after every event of the batch: a round that
        # ends is the one before each new round that starts later in the batch
        later_rounds = sum(1 for ev in events if ev.event is not None and ev.event.kind == "round")
        # ... and a round whose next one was dealt later in the batch (a resumed node's first
        # batch is the game so far) is history: its box would show the later round's hands
        later_deals = sum(1 for ev in events if ev.event is not None and ev.event.kind == "start")
        history, self._history = self._history, False
        # a batch taken while the session is far behind the table is history too (a resumed
        # node or a spectator catching up in several batches: helper-64's brief saw its
        # swaps and catches flash one after another, as if new)
        behind, done = getattr(src, "behind", -1), getattr(src, "processed", None)
        history = history or (
            isinstance(done, int) and isinstance(behind, int) and behind > done + 1
        )
        # ... and a flash followed in its batch by a later turn's move is of a move gone by
        last_move = max(
            (i for i, ev in enumerate(events) if ev.event is not None and ev.event.kind in _MOVES),
            default=-1,
        )
        if self._give_back and self.node is not None:
            # (the bot's move for the resumed turn is the first game event after it: the node
            # turned its bot on just before making it; until then, telling it changes nothing)
            self.node.person_is_back()
            self._give_back = not any(ev.event is not None for ev in events)
            back = not self._give_back
        else:
            back = False
        drawn = drawn_slots(g, [ev.event for ev in events])
        passed_over: tuple[int, str] | None = None  # a round's end passed over (no box)
        for i, ev in enumerate(events):
            self.verification.note(ev)
            told = False  # (a draw a penalty's line said: none of its own)
            if ev.event is not None:
                e = ev.event
                self._unconfirmed = None  # (a step completed: the person's, or before it)
                line = describe_event(g, self.names, self.me, e, before=self._before)
                if self._ended and e.kind in _MOVES and line:
                    # a move whose step a late answer completed after the end (spec 10.15,
                    # late entries): helper-105 read "You played b8" under the stop's votes
                    # as a card played after the game had stopped
                    line = f"{line} (a late answer completed it after the stop)"
                told = told_draw(self._before, e)
                self._before = e
                if self._bot_turn and e.seat == self.me is not None and e.kind in _MOVES:
                    # (the move its node's bot made when the person's time was up: the
                    # "time's up" message can be gone at once, the next turn's question in
                    # its place, and "You played y9" read as a card played by itself,
                    # helper-100)
                    self._bot_turn = False
                    line = f"{line} (your node's bot: your time was up)" if line else line
                if e.kind == "dealer-card":
                    if e.seat in self._drew_for_dealer:  # (helper-36: a tie, unexplained)
                        self._log("A tie for the highest card: the tied players draw again")
                        self._drew_for_dealer = set()
                    self._drew_for_dealer.add(e.seat)
                if e.kind == "dealer" and line:  # the rule, where the draw is shown (002 ·
                    # Setup 1; docs/rules.md D1; engine.cards.dealer_draw_value): helper-54
                    # saw W+4 lose to b3 with no word of why
                    self._log(line)
                    line = "  (the highest number deals: S, R, +2, W and W+4 count as 0)"
                if e.kind == "round":
                    later_rounds -= 1
                if e.kind == "start":
                    later_deals -= 1
                # (a batch of history: a spectator or a resumed node catching up, more of the
                # game to come; its next round's deal, in a later batch, leaves no box to close
                # it: helper-83's spectator who came in round 2 had "ROUND 1 OVER" over it)
                if e.kind == "round-over" and later_deals == 0 and not history:
                    ended = g.round_no - later_rounds
                    self.state.round_end = round_end_lines(g, self.names, self.me, e, ended)
                    self.state.round_end_no = ended  # (kept beside the box, not read off it)
                    passed_over = None
                elif e.kind == "round-over":  # (its box is not drawn, and one still up is of
                    # a round before it: a spectator's catch-up in several batches left
                    # "ROUND 4 OVER" over round 6, helper-57)
                    self.state.round_end = None
                    passed_over = (g.round_no - later_rounds, line or "")
                if e.kind in _FLASHED and not history and later_deals == 0 and i >= last_move:
                    self.state.flash = line or ""
                    self._flash_at = self.clock()
                if e.kind == "swap" and self.me in (e.seat, e.other):
                    self.state.cursor = 0
            else:
                line = describe_session_event(ev, self.names, self.me)
            if line:
                self._log(line)
                if ev.event is not None and owed_cards(ev.event) is not None:
                    self._owed_line = (self._logged, line)
            d = ev.event
            if d is not None and d.kind == "draw" and d.seat == self.me is not None:
                # (a penalty's draw is named on the penalty's line, which said it: "You took
                # 2 cards and lost the turn: r5 g7")
                at = (self._logged, line) if line else self._owed_line if told else None
                slots = drawn.get(i)
                if slots is not None and at is not None:  # (else a deck gone: a count stays)
                    self._drawn.append((at[0], slots, at[1], g.faces))
        if passed_over is not None and not src.outcome.over:
            # a catch-up passed over the last round's end (its box would show the next
            # round's hands): one line, last in the batch and so in view, says where the game
            # is and how that round ended, which had scrolled out of the moves a resumed
            # person sees (helper-64's brief)
            n, how = passed_over
            self._log(f"caught up: round {g.round_no} in play; round {n}'s end: {how}")
        if back:  # (in the moves, under the bot's move and the node's "your node's bot plays
            # for you", which read as if it went on; the message line is the next turn's soon)
            self._log("you are back: your node's bot played only the turn that ran out")
        if src.outcome.over and not self._ended:
            # the game's end box says what happened: a word said before it is of the game in
            # play ("not your turn: wait for it" stayed over "GAME OVER", helper-71's brief)
            self._ended = True
            self.state.message = ""
            if self._unconfirmed is not None and src.outcome.state == "stopped":
                # (helper-105: the card sent stayed in the hand, "sent: you play blue 8" gone,
                # and no word that the move never counted: a step counts once every seat
                # has answered it, spec 10.15)
                self._log(
                    f"what you sent ({self._unconfirmed}) does not count: the game stopped "
                    "before every seat had confirmed it"
                )
            self._unconfirmed = None
        self._name_draws(g)
        self.invalidate()

    def _log(self, line: str) -> None:
        self.log.append(line)
        self._logged += 1

    def _name_draws(self, g: Game) -> None:
        keep = []
        for serial, slots, line, deck in self._drawn:
            at = len(self.log) - (self._logged - serial) - 1
            if at < 0 or self.log[at] != line:
                continue  # (scrolled out of the move list)
            if deck is not g.faces:
                continue  # (a new deck since: its slots name other cards; the count stays)
            faces = [g.faces[x] if 0 <= x < len(g.faces) else -1 for x in slots]
            if all(f >= 0 for f in faces):
                self.log[at] = f"{line}: {' '.join(CARD_TEXT[f] for f in faces)}"
            else:
                keep.append((serial, slots, line, deck))
        self._drawn = keep[-8:]  # (a draw whose keys never come is forgotten in time)

    # ------------------------------------------------------------------ decisions
    async def ask(self, prompt: Prompt) -> Action | None:
        """Show the prompt and wait for the person's choice (the node's deadline cancels)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Action | None] = loop.create_future()
        self.prompt = prompt
        self.prompt_since = self.clock()
        self._future = fut
        st = self.state
        st.uno = False
        if st.mode in ("color", "target", "type"):
            st.mode = "play"
        st.pending = ()
        st.message = ""
        self._bot_turn = False  # (asked: the person's move again, or said already)
        # a turn a resumed node came back into after the table's deadline for it had passed
        # (GameNode.due_since, resumed_turn_limit): its bot plays it at once, with no time for
        # the person, who has just typed `p2puno resume` and is at the keys
        node = self.node
        no_chance = (
            prompt.kind == "turn"
            and node is not None
            and node.due_since is not None
            and node.turn_limit < 1.0
        )
        self._aim(prompt)
        self._only_keep(prompt)
        self.invalidate()
        try:
            return await fut
        except asyncio.CancelledError:
            if no_chance:  # (not the bot's from here on: the seat is theirs from the next
                # decision, with its whole clock; helper-71's brief saw the bot go on playing
                # on a 5 s count until a key was pressed, and expected a fresh clock)
                self._give_back = True
                st.message = self._ran_out_words()  # (said again as it changes: view)
            elif prompt.kind == "turn" and self._back_in is prompt:
                self._bot_turn = True
                # a key gave the seat back during the moment the bot left this turn theirs:
                # the node's bot plays it, the next is the person's with its whole clock
                # (GameNode.person_is_back). helper-99 read "any key: you play again" after
                # the key, and the next turn said the bot was playing it
                st.message = "time's up: your node's bot played this turn; the next one is yours"
            elif prompt.kind == "turn":
                self.autopilot, self._bot_turn = True, True
                st.message = "time's up: your node's bot played this turn (any key: you play again)"
            else:
                st.message = "the claim window closed"
            raise
        finally:
            if self.prompt is prompt:
                self.prompt = None
                self._future = None
                if st.mode in ("color", "target", "type"):
                    st.mode = "play"
                self._said_from = "play"  # (a chat begun at a question the bot then answered
                # went back to that question, stale: helper-35)
            self.invalidate()

    def _ran_out_words(self) -> str:
        """What a resumed turn its bot played at once says, true as the node stands now: the
        bot's move is a proposal, which counts only once the others answer (protocol/lobby.md
        5). While this node has reached no other seat since it came back (GameNode._reached)
        nobody may be there to take it: helper-92's seat, voted out while away, read "your
        node's bot played it; the next one is yours" over a hand of 7, and its node stopped
        ~25 s later. Reached, the bot plays it; the step it came back into done (resumed_at
        cleared), it played it."""
        node = self.node
        resumed = node is not None and node.resumed_at is not None
        if node is not None and not node.reached_since_resume():
            return (
                f"{RAN_OUT}: your node's bot plays it, but it counts only once another player "
                "answers, and none has since you came back"
            )
        verb = "plays" if resumed else "played"
        return f"{RAN_OUT}, so your node's bot {verb} it; the next one is yours"

    def _only_keep(self, prompt: Prompt) -> None:
        """A drawn card that cannot be played leaves one thing to do, keep it, and the turn
        passes (002 · Let's Play: "If the card you picked up can be played, you are free to
        put it down in the same turn. Otherwise, play moves on to the next person in turn"):
        the table does it for the person and says so (helper-54 pressed an extra k for it).
        Not under the node's bot (autopilot): a keep sent here would read as the person
        back at the keys (GameNode._decide)."""
        src = self.source
        if src is None or self.autopilot or prompt.kind != "turn":
            return
        g = src.engine
        if g.phase is not Phase.DRAWN or [a.kind for a in prompt.actions] != [Kind.KEEP]:
            return
        face = g.faces[g.drawn] if 0 <= g.drawn < len(g.faces) else -1
        what = f"{CARD_TEXT[face]} ({card_name(face)})" if face >= 0 else "a card"
        st = self.state
        mode = st.mode  # (the help, a chat line or the leave question stay up: a key did not
        # answer this; test_node's person sat in the help as it came)
        self.answer(prompt.actions[0])
        st.mode, st.message = mode, ""
        st.flash = f"you drew {what}: it cannot be played, your turn passes"
        self._flash_at = self.clock()

    def _aim(self, prompt: Prompt) -> None:
        """Put the cursor on the drawn card, else on the first playable one."""
        src = self.source
        if src is None or self.me is None:
            return
        hand = self._sorted_hand()
        g = src.engine
        target = [s for s in hand if g.phase is Phase.DRAWN and s == g.drawn]
        if not target:
            playable = {a.slot for a in prompt.actions if a.kind in (Kind.PLAY, Kind.JUMP)}
            target = [s for s in hand if s in playable]
        if target:
            self.state.cursor = hand.index(target[0])

    def _sorted_hand(self) -> list[int]:
        if self.source is None or self.me is None:
            return []
        g = self.source.engine
        if self.me >= len(g.hands):
            return []
        faces = g.faces

        def face(slot: int) -> int:
            return faces[slot] if 0 <= slot < len(faces) else -1

        # the order table_view draws the hand in (without building the whole view per key)
        return sorted(g.hands[self.me], key=lambda s: (card_sort_key(face(s)), s))

    def answer(self, action: Action | None) -> None:
        fut = self._future
        if fut is None or fut.done():
            self.state.message = "nothing to decide now"
            return
        self.state.message = "" if action is None else f"sent: {self._words(action)}"
        self._unconfirmed = None if action is None else self._words(action)
        self._sent_at = self.clock()
        self.state.mode = "play"
        self.state.pending = ()
        self.state.uno = False
        self.prompt = None
        self._future = None
        fut.set_result(action)

    def _words(self, a: Action) -> str:
        """What was sent, in words ("you play green 5", "you draw")."""
        from p2puno.ui.model import card_name, color_name

        src = self.source
        if a.kind in (Kind.PLAY, Kind.JUMP) and src is not None:
            c = src.engine.faces[a.slot] if 0 <= a.slot < len(src.engine.faces) else -1
            what = f"you {'jump in with' if a.kind is Kind.JUMP else 'play'} {card_name(c)}"
            if a.choose >= 0:
                what += f", naming {color_name(a.choose)}"
            if a.target >= 0 and a.target < len(self.names):
                what += f", swapping with {self.names[a.target]}"
            return what + (" and call UNO" if a.uno else "")
        if a.kind is Kind.CATCH and 0 <= a.target < len(self.names):
            return f"you catch {self.names[a.target]}"
        if a.kind is Kind.COLOR:
            return f"you name {color_name(a.choose)}"
        if a.kind in (Kind.GUILTY, Kind.INNOCENT):  # (was "you innocent")
            return f"the verdict: {a.kind.value}"
        if a.kind is Kind.UNO:  # (was "you uno")
            return "you call UNO"
        return f"you {a.kind.value}"

    # ------------------------------------------------------------------ keys
    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()

        def named(key: Keys, name: str) -> None:
            @kb.add(key, eager=True)
            def _(event: KeyPressEvent) -> None:
                self.key(name)

        for key, name in KEY_NAMES.items():
            named(key, name)

        @kb.add(Keys.Any)
        def _(event: KeyPressEvent) -> None:
            for kp in event.key_sequence:
                if len(kp.data) == 1 and kp.data.isprintable():
                    self.key(kp.data)

        return kb

    def key(self, k: str) -> None:
        """One key press, by name ("left", "enter", "escape", ...) or character."""
        self.key_time = self.clock()
        try:
            self._key(k)
        finally:
            self.invalidate()

    def _key(self, k: str) -> None:
        st = self.state
        back = ""  # the seat given back by this key: said, not cleared by the key itself
        if self.autopilot and self.node is not None:
            self.node.person_is_back()
            self.autopilot = False
            self._back_in = self.prompt
            if not self.over():  # (helper-34: said at the game's end too)
                back = (
                    "the seat is yours again: play this turn before its count ends"
                    if self.prompt is not None and self.prompt.kind == "turn"
                    else "you play again from your next decision"
                )
                st.flash, self._flash_at = back, self.clock()
            if st.message.startswith("time's up"):  # (it read as if the key did nothing)
                st.message = ""
        if k == "c-l":
            self.app.renderer.clear()
            return
        if k == "c-z":  # (helper-36: swallowed without a word; a timed table cannot pause)
            words = "Ctrl-Z does not pause: the table's clock runs on (q leaves the table)"
            if self.source is None:
                self.lobby_message = words
            else:
                st.message = words
            return
        if k == "c-c" and self._end_shown() and st.mode != "help":
            # (at an end, Ctrl-C closes it as q does: it asked "Leave the table? ... the game
            # ends for everyone" over a game already over, and y then lost its result while
            # the node served its end to late seats, helper-97)
            self.close()
            return
        if k == "c-c" and st.mode != "quit":
            st.mode = "quit"
            return
        if st.mode == "help":
            if self.source is None and self._help_pages > 1 and k in (" ", "right", "left"):
                # the lobby's help, paged (helper-64's brief: cut at 24 rows): Space or →
                # the next page, ← the one before; any other key goes back, and so do these
                # past the first or the last page (the keys line names them only where
                # they turn one: helper-71's brief read "next page" on the last)
                page = st.help_page + (-1 if k == "left" else 1)
                if 0 <= page < self._help_pages:
                    st.help_page = page
                    return
            st.mode, st.help_page = "play", 0
            if k == "enter" and self.source is None:
                # the question shown with the help ("press Enter within 41 s to play at
                # it") is answered by Enter there too: it only went back, and a second Enter
                # confirmed (helper-71's brief); every other key goes back only
                self._confirm_table()
            return
        if self.source is not None and st.mode != "quit" and self._too_small():
            # the table is hidden (the screen says to make it larger, and that only q acts,
            # to leave): any other key would act unseen (helper-101: Enter at 79x23 played g6
            # from a hand never shown, d at 60x20 drew with a playable card in hand; helper-
            # 102: m opened the chat unseen, and q then went into it as a letter). q asks to
            # leave, or closes the end, whatever was under way (the chat, a colour's question)
            if k in ("q", "Q"):
                if self._end_shown():
                    self.close()
                else:
                    st.mode = "quit"
            return
        if (
            k == "m"
            and st.mode not in ("say", "type")
            and self.node is not None
            and self.source is not None
            and not self.over()
        ):
            # the chat from any moment of the game, the colour, seat and leave questions
            # included, which it then returns to (helper-34 pressed m at the colour question:
            # m did nothing there, and the "r" of the words typed next chose red)
            self._said_from = st.mode if st.mode in ("color", "target") else "play"
            st.mode, st.typed = "say", ""
            return
        if st.mode == "quit":
            # (a second Ctrl-C leaves, as a terminal program's second Ctrl-C does: it went
            # back to the table, which helper-104 read as its Ctrl-C ignored)
            if k in ("y", "Y", "c-c"):
                self.leave()
            elif k in ("n", "N", "escape"):
                st.mode = "play"
            return
        if self._end_shown():
            now = self.clock()
            if self._over_since is None:
                self._over_since = now
            # q closes; Enter, Esc or Space only once the end has been on the screen a moment
            # (a key meant for the round's end must not close the game's end unseen)
            if k == "q" or (
                k in ("enter", "escape", " ") and now - self._over_since >= END_GRACE_S
            ):
                self.close()
            elif k in ("enter", "escape", " "):
                ended = "the game is over" if self.over() else "your node has stopped"
                if self.watching is not None and not self.over():
                    ended = "you are no longer watching"
                st.message = f"{ended}: q closes the table"
            elif k == "?":
                st.mode = "help"
            return
        if st.mode == "type":
            self._key_line(k, 40, self._typed_move)
            return
        if st.mode == "say":
            self._key_line(k, CHAT_MAX, self._said, self._said_from)
            return
        if st.mode == "color":
            if k in COLORS:
                action, need, left = resolve_play(st.pending, st.uno, choose=COLORS.index(k))
                self._resolved(action, need, left)
            elif k == "escape":
                st.mode, st.pending = "play", ()
            else:
                st.message = "r red · y yellow · g green · b blue (Esc: back)"
            return
        if st.mode == "unseat":
            st.mode = "play"
            if k.isdigit() and self.lobby is not None and self.source is None:
                try:
                    self.lobby_message = self.lobby.unseat(int(k))
                except LobbyError as e:
                    self.lobby_message = str(e)
            return
        if st.mode == "target":
            if k.isdigit():
                action, need, left = resolve_play(st.pending, st.uno, target=int(k))
                if action is None and need == "no":
                    st.message = f"seat {k} is not one you can swap with"
                else:
                    self._resolved(action, need, left)
            elif k == "escape":
                st.mode, st.pending = "play", ()
            return
        if st.round_end is not None and k in ("enter", " ", "escape"):
            st.round_end = None  # (only that: a key meant for the box must not play a card)
            return
        if k != "escape" and not back:  # (helper-100 never saw "the seat is yours again":
            # the key that gave the seat back cleared its flash at once)
            st.flash = ""
        if k == "?":
            st.mode = "help"
            return
        if k == "q":
            st.mode = "quit"
            return
        if self.source is None:
            if k == "enter" and self._confirm_table():
                return
            if k == "x" and self.is_host and self.lobby is not None:
                st.mode = "unseat"
                return
            if k == "b" and self.is_host and self.lobby is not None:
                add = self.lobby.add_bot
                if add is None or self._seating is not None:
                    return
                self.lobby_message = "seating a bot of this machine's (its own process)..."
                self._seating = asyncio.ensure_future(self._add_bot(add))
                return
            if k == "m":  # (helper-51: the key did nothing here, without a word)
                if self.spectator:
                    self.lobby_message = "no chat for spectators: the chat is the players'"
                else:
                    self._said_from = "play"
                    st.mode, st.typed = "say", ""
                return
            if k == "s" and self.is_host:
                seats = self.table.get("seats", []) if self.table else []
                if isinstance(seats, list) and len(seats) >= 2:
                    self.start.set()  # (the screen says what it waits for, if anything)
                    self.lobby_message = ""
                else:
                    self.lobby_message = "a game needs at least 2 players"
            return
        if k in (":", "/"):
            if self.me is None:  # (a spectator: it opened a line whose Enter did nothing)
                st.message = "you are watching: no seat, so no move of yours to type"
                return
            st.mode, st.typed = "type", ""
            return
        if k == "m":  # (a seat's table in a game takes it above)
            if self.watching is not None or self.spectator:
                # (by design, docs/ui.md: it said "a seat's table has it once the game is
                # on", mid-game, to helper-92's spectator)
                st.message = "no chat for spectators: the chat is the players'"
            elif self.node is None:
                st.message = "no chat here: a seat's table has it once the game is on"
            else:
                st.message = "the game is over: nobody hears it"
            return
        if k in ("left", "h", "up"):
            st.cursor = max(0, st.cursor - 1)
            return
        if k in ("right", "l", "down", "tab"):
            st.cursor = min(max(0, len(self._sorted_hand()) - 1), st.cursor + 1)
            return
        st.round_end = None
        self._decide_key(k)

    def _confirm_table(self) -> bool:
        """Enter in the lobby: play at the final table asked about, if one is (True)."""
        if self._confirm is None or self._confirm.done():
            return False
        self._confirm.set_result(True)
        self.confirmed = True
        self.lobby_message = ""
        return True

    async def _add_bot(self, add: Callable[[], Awaitable[str]]) -> None:
        try:
            self.lobby_message = await add()
        except Exception as e:  # (a bot that cannot start is said, the lobby goes on)
            self.lobby_message = f"no bot seated: {e}"
        finally:
            self._seating = None
            self.invalidate()

    def _decide_key(self, k: str) -> None:
        st = self.state
        p = self.prompt
        src = self.source
        if src is None or self.me is None:
            return
        g = src.engine
        if p is None:
            if k in ("enter", " ", "d", "k", "t", "c", "u", "j"):
                st.message = self._not_now()
            return
        if p.kind == "turn" and g.phase is Phase.START_COLOR:
            if k in COLORS:
                self.answer(next(a for a in p.actions if a.choose == COLORS.index(k)))
            else:
                st.message = "name the color that starts play: r, y, g or b"
            return
        if p.kind == "turn" and g.phase is Phase.VERDICT:
            verdicts = [a for a in p.actions if a.kind in (Kind.GUILTY, Kind.INNOCENT)]
            want = {"g": Kind.GUILTY, "i": Kind.INNOCENT}.get(k)
            if k in ("enter", " ") and len(verdicts) == 1:
                self.answer(verdicts[0])
            elif want is not None:
                a = next((v for v in verdicts if v.kind is want), None)
                if a is None:
                    st.message = f"the hand you were shown says otherwise: {want.value} is untrue"
                else:
                    self.answer(a)
            elif len(verdicts) == 1:  # (the hand shown decides it: the other key is refused)
                st.message = f"give the verdict the hand shows: Enter ({verdicts[0].kind.value})"
            else:
                st.message = "give the verdict: Enter (or g guilty / i innocent)"
            return
        if k in ("enter", " "):
            self._play_selected(p)
            return
        simple = {"d": Kind.DRAW, "k": Kind.KEEP, "t": Kind.TAKE}.get(k)
        if simple is not None:
            a = simple_of(p, simple)
            if a is not None:
                self.answer(a)
            else:
                st.message = self._why_simple(simple, p)
            return
        if k == "c":
            a = simple_of(p, Kind.CHALLENGE)
            catches = catches_of(p)
            if a is not None:
                self.answer(a)
            elif len(catches) == 1:
                self.answer(catches[0])
            elif catches:
                st.mode, st.pending = "target", tuple(catches)
                st.message = "catch whom? press their seat number"
            else:
                st.message = "nothing to challenge or catch now"
            return
        if k == "u":
            a = simple_of(p, Kind.UNO)
            if a is not None:
                self.answer(a)
            elif p.kind == "turn" and len(g.hands[self.me]) == 2:
                st.uno = not st.uno
                # (the choice line above says it: "UNO! will be called ..." was read twice,
                # there and here, helper-71's brief)
                st.message = ""
            else:
                st.message = "UNO is called with your next-to-last card"
            return
        if k == "j":
            jumps = [a for a in p.actions if a.kind is Kind.JUMP]
            if not jumps:
                st.message = "no card of yours is identical to the one just played"
                return
            slot = jumps[0].slot
            action, need, left = resolve_play(plays_of(p, slot), st.uno)
            self._resolved(action, need, left)
            return
        if k in ("escape", "p"):
            if p.kind == "turn":
                st.message = "on your turn you play or draw (d)"
            else:
                self.answer(None)
                st.message = "you let it pass"
            return
        if k in ("g", "i", "r", "y", "b"):
            st.message = "no color or verdict to give now"

    def _play_selected(self, p: Prompt) -> None:
        st = self.state
        hand = self._sorted_hand()
        if not hand:
            return
        slot = hand[min(st.cursor, len(hand) - 1)]
        variants = plays_of(p, slot)
        if not variants:
            st.message = self._why_card(slot, p)
            return
        action, need, left = resolve_play(variants, st.uno)
        if action is None and need == "no":
            # UNO to be called with a card that cannot carry it (or not, where only UNO fits)
            action, need, left = resolve_play(variants, not st.uno)
        self._resolved(action, need, left)

    def _resolved(self, action: Action | None, need: str, left: tuple[Action, ...]) -> None:
        st = self.state
        if action is not None:
            self.answer(action)
        elif need in ("color", "target"):
            st.mode, st.pending = need, left
        elif need:
            st.message = need

    def _why_card(self, slot: int, p: Prompt) -> str:
        from p2puno.ui.model import _why_not

        src = self.source
        assert src is not None and self.me is not None
        g = src.engine
        c = g.faces[slot]
        if p.kind != "turn":
            return "only a card identical to the one just played may jump in (j)"
        if g.phase is Phase.DRAWN and slot != g.drawn:
            return "after drawing, only the drawn card may be played (or k keeps it)"
        if g.phase is Phase.PENALTY:
            return (
                "take the penalty (t)"
                + (" or challenge it (c)" if simple_of(p, Kind.CHALLENGE) else "")
                + (
                    " or stack a matching card"
                    if any(a.kind is Kind.PLAY for a in p.actions)
                    else ""
                )
            )
        from p2puno.engine.cards import CARD_COLOR, CARD_RANK, WILD_CARD

        probe = Action(
            self.me,
            Kind.PLAY,
            slot,
            CARD_COLOR[c],
            CARD_RANK[c],
            0 if CARD_RANK[c] >= WILD_CARD else -1,
        )
        why = _why_not(probe, g)  # (the engine's own reason: "the drawn b5 is not playable")
        return f"{why} (k keeps it)" if g.phase is Phase.DRAWN else why

    def _why_simple(self, kind: Kind, p: Prompt) -> str:
        if p.kind != "turn":
            return "that is for your turn; now: claim (u, c, j) or let it pass (Esc)"
        g = self.source.engine if self.source is not None else None
        if kind is Kind.DRAW and g is not None and g.phase is Phase.PENALTY:
            return penalty_words(g)
        return {
            Kind.DRAW: "you may draw only at the start of your turn",
            Kind.KEEP: "nothing drawn to keep",
            Kind.TAKE: "no penalty to take",
        }.get(kind, "not now")

    def _not_now(self) -> str:
        src = self.source
        if src is not None and src.outcome.state not in ("playing",):
            return "the game is ending"
        return "not your turn: wait for it (the status line says whom the table waits for)"

    def _key_line(
        self, k: str, limit: int, done: Callable[[str], None], back: str = "play"
    ) -> None:
        """A line being typed (a move after ':', a chat line after 'm'): Esc drops it,
        Backspace takes a character back, Enter gives it to ``done``; either way the table
        goes back to mode ``back``."""
        st = self.state
        if k == "escape":
            st.mode, st.typed = back, ""
        elif k == "backspace":
            st.typed = st.typed[:-1]
        elif k == "enter":
            text, st.typed, st.mode = st.typed, "", back
            done(text)
        elif len(k) == 1 and k.isprintable():
            st.typed = (st.typed + k)[:limit]

    def _typed_move(self, text: str) -> None:
        src = self.source
        if src is None or self.me is None:
            return
        action, need, left = parse_typed(text, self.prompt, src.engine, self.me, self.names)
        if need == "pass":
            self.answer(None)
        else:
            self._resolved(action, need, left)

    def _said(self, text: str) -> None:
        if not text.strip():
            return
        if self.node is not None:
            why = self.node.chat(text)
            if why is not None:
                self.state.message = why
        elif self.source is None:  # (the lobby's chat: the host passes it on)
            why = self.lobby_chat.say(text)
            self.lobby_message = why or ""
            if why is not None and text.strip() and self._said_from == "play":
                # (kept to send again: helper-63's refused line was gone)
                self.state.mode, self.state.typed = "say", text

    def on_chat(self, seat: int, text: str) -> None:
        """A seat said something at the table: in the moves, and in the message line a while."""
        who = "you" if seat == self.me else self.names[seat] if seat < len(self.names) else "?"
        # (the words quoted: a seat's line, however it wraps, reads as that seat's words)
        line = chat_words(who, text, own=seat == self.me)
        # (the moves keep a line's start only: one line of 200 characters took 9 of the 17
        # rows of moves at 80 columns, helper-34; the message line shows it whole a while)
        self._log(line if len(line) <= CHAT_IN_MOVES else line[: CHAT_IN_MOVES - 2] + "…”")
        if seat != self.me:
            self.state.flash, self._flash_at = line, self.clock()
        self.invalidate()

    # ------------------------------------------------------------------ leaving
    def over(self) -> bool:
        return self.source is not None and self.source.outcome.over

    def _serves(self) -> float:
        """Minutes a seat back late may get the end from this node (the end box says so),
        else 0 (GameNode.serves_end)."""
        node = self.node
        if node is None or not self.over() or not node.serves_end():
            return 0.0
        return node.serve_s / 60

    def _end_shown(self) -> bool:
        """An end is on the screen, which q, Enter, Esc and Space close: the game's, this node's
        stop (its box), the lobby's, or a watch's."""
        return bool(
            self.over()
            or self.failure
            or (self.source is None and self.result)
            or self.watch_ended()
        )

    def leave(self) -> None:
        """The person confirmed: leave the table (the game task is cancelled by run_table)."""
        self.left = True
        self.close()

    def end_closed(self) -> None:
        """The screen is gone (its end closed, or the table left): the node serves its game
        no longer (GameNode.serve)."""
        if self.node is not None:
            self.node.stop_serving()

    def close(self) -> None:
        fut = self.app.future
        if self.app.is_running and fut is not None and not fut.done():
            self.app.exit()

    def finished(self, result: Result | WatchResult) -> None:
        self.result = result
        self.state.message = ""
        if result.log_path is not None:
            self.log_path = str(result.log_path)
        self.invalidate()

    def failed(self, text: str) -> None:
        self.failure = text
        # (its reason in the moves; the resume command is in the box, whole: the moves'
        # narrow column broke it, helper-77's brief)
        self._log(f"!! {resume_split(text)[0]}")
        self.state.message = f"{text} — q leaves"
        self.invalidate()

    # ------------------------------------------------------------------ drawing
    def invalidate(self) -> None:
        if self.app.is_running:
            self.app.invalidate()

    def inputs(self) -> ViewInputs:
        now = self.clock()
        prompt_left = None
        p = self.prompt
        if p is not None:
            limit = self.timing.turn_s if p.kind == "turn" else self.timing.window_ms / 1000
            if p.kind == "turn" and self.node is not None:
                limit = self.node.turn_limit  # (a resumed turn has only what is left of it)
            prompt_left = limit - (now - self.prompt_since)
        wait_left = None
        src = self.source
        node_wait = self.node.wait_left() if self.node is not None and p is None else None
        if node_wait is None and self.watching is not None and p is None:
            # a spectator: the count of the node it watches through, as its players see it
            # (its own clock began when it first saw the wait: helper-70 read 57 s where the
            # player's screen said 46 s); without a report yet, its own below
            node_wait = self.watching.wait_left()
        if node_wait is not None:
            # the node's own deadline (one clock for the vote and the screen); while a person
            # may be deciding, their own time (the last step_s are their node's, to play for
            # them), so every screen shows the same count as the person's own; then the rest
            left, waited, deciding = node_wait
            window = src is not None and src.waiting().kind == "window"
            usual = self.timing.window_ms / 1000 + 1.0 if window else 2.0
            step_s = float(self.timing.step_s)
            gone = src is not None and set(src.waiting().seats) <= self._away()
            if deciding and src is not None and self._bots_only(src.waiting().seats):
                # a bot thinks: no count (it read "60 s left", as if it might take a minute),
                # then the vote's, once it is slower than a machine should be
                wait_left = left if waited > BOT_QUIET_S else None
            elif deciding and not gone:  # (a seat that is gone decides nothing: the vote's)
                wait_left = left - step_s if left > step_s else left
            elif deciding or waited > usual:  # (a machine answers at once: before, noise)
                wait_left = left
        elif src is not None and p is None:
            w = src.waiting()
            key = (w.step, w.kind, w.seats)
            if key != self._wait_key:
                self._wait_key, self._wait_since = key, now
            if w.seats:
                t = self.timing
                limit = float(t.step_s)
                deciding = w.kind == "action" and not any("response" in o for o in w.owed.values())
                deciding = deciding and not set(w.seats) <= self._away()  # (gone: the vote's)
                if deciding:
                    limit = t.turn_s + t.step_s
                elif w.kind == "window":
                    limit = t.step_s + t.window_ms / 1000
                waited = now - self._wait_since
                # a countdown once the wait is longer than it should be (a window is held
                # window_ms by every node; a machine answers at once): before, it is noise;
                # a person deciding: their own time first, as the players' screens count it
                usual = t.window_ms / 1000 + 1.0 if w.kind == "window" else 2.0
                left = limit - waited
                if deciding and self._bots_only(w.seats):  # (as above: a bot thinks)
                    wait_left = left if waited > BOT_QUIET_S else None
                elif deciding:
                    wait_left = left - t.step_s if left > t.step_s else left
                elif waited > usual:
                    wait_left = left
        claim = self._claim_left(node_wait, now)
        if claim is not None:
            wait_left = claim
        vi = ViewInputs(
            names=self.names,
            me=self.me,
            timing=self.timing,
            kinds=self.kinds,
            notes=self.notes,
            resume_hint=self.resume_hint,
            title=self.title,
            code=self.code,
            prompt=p,
            prompt_left=prompt_left,
            wait_left=wait_left,
            log=list(self.log),
            verification=self.verification,
            log_path=self.log_path,
            autopilot=self.autopilot,
            watchers=self._watchers(),
            away=frozenset(self._away()),
            left=self._left(),
            alone=self.node is not None and self.node.stops_alone(),
            spinner=self.spinner,
            watch=self.watch_address,
            serves=self._serves(),
        )
        if self.extra_view is not None:
            self.extra_view(vi)
        return vi

    def _claim_left(self, node_wait: tuple[float, float, bool] | None, now: float) -> float | None:
        """A spectator's count in a claim window something can be claimed in: what is left of
        the window, as each player's claim line counts it (``prompt_left``: window_ms from
        when the window became due). helper-83's spectator read 'claim window (UNO call or
        catch on "Bob"): waiting for ...' with no count, where the players' lines said "2 s
        left" (docs/ui.md, "A spectator's claim window counts as the players' does"). The
        seconds waited are the node's it watches through (its wait report), else its own.
        None: not a spectator, not such a window, or the window's time is over (the vote's
        count, as before, once it is late)."""
        src = self.source
        if self.watching is None or self.prompt is not None or src is None:
            return None
        w = src.waiting()
        claims_open = getattr(src, "claims_open", None)
        if w.kind != "window" or not w.seats or claims_open is None or claims_open() == ((), False):
            return None
        waited = node_wait[1] if node_wait is not None else now - self._wait_since
        left = self.timing.window_ms / 1000 - waited
        return left if left > 0 else None

    def _bots_only(self, seats: tuple[int, ...]) -> bool:
        """Every seat of ``seats`` is a bot by the roster, and none is out of reach (one that
        is has its count at once: whether it comes back matters)."""
        gone = self._away() | self._left()
        bots = {s for s, kind in enumerate(self.kinds) if kind == "bot"}  # (as model.is_bot)
        return bool(seats) and all(s in bots and s not in gone for s in seats)

    def _away(self) -> set[int]:
        """The seats whose node is out of reach (left, or unreachable): this node's own view,
        or, for a spectator, that of the node it watches through."""
        if self.node is not None:
            return self.node.away()
        if self.watching is not None:
            return set(self.watching.away | self.watching.left)
        return set()

    def _left(self) -> frozenset[int]:
        """The seats whose node said it was leaving (its person pressed q)."""
        if self.node is not None:
            return frozenset(self.node.left)
        if self.watching is not None:
            return self.watching.left
        return frozenset()

    def _watchers(self) -> list[str]:
        """Who watches the game (each node tells the table who watches through it)."""
        if self.node is not None:
            return [name for name, _ in self.node.spectators()]
        return []  # a spectator or a replay: no node of a seat

    def view(self) -> TableView:
        assert self.source is not None
        st = self.state
        now = self.clock()
        if self._drawn:
            self._name_draws(self.source.engine)
        if st.message.startswith("sent:") and (self.over() or now - self._sent_at > ECHO_S):
            st.message = ""  # the move's echo: the move list has it by then (or the end)
        if st.message.startswith(RAN_OUT):  # (as the node stands now: see _ran_out_words)
            st.message = self._ran_out_words()
        if st.flash and (now - self._flash_at > ECHO_S or self.over()):
            # (a review: "Bot-1 caught Ann" stayed up many moves later; helper-64's brief: "you
            # drew b5 ...: your turn passes" over the game's end, which says what happened)
            st.flash = ""
        if st.flash and not st.message:
            st = UiState(**{**st.__dict__, "message": st.flash})
        view = table_view(self.source, st, self.inputs())
        failure = self.failure or ""
        if self.watch_ended() or getattr(self.watching, "seeking", None) is not None:
            return self._watch_view(view, failure)  # (else a spectator's as before)
        stopped = bool(failure) and not self.over()
        if stopped:  # (its node stopped: nothing is waited for now; a round's end box still
            # up gives way: it hid the stop, its footer naming keys that close the table now,
            # and "0 s left" under it, helper-77 in tmux)
            # why, in a box as a game's end is (helper-51: a resumed seat that reached nobody
            # read two lines of its cut in the message line, what it could do in a narrow
            # column of moves, and "unless they are back in time" still under the status)
            why, resume = resume_split(failure)
            end = ["YOUR NODE HAS STOPPED", f"  {why}"]
            commands = view.commands
            if resume:  # (on a line of its own, whole: it was split over two, helper-77's
                # brief; one wider than the box but not the screen stands across its borders,
                # render._wide_known; one wider than the screen is said to be printed as the
                # table closes, which the command line does with the node's error:
                # cli._run_node; in words that fit one line at 80 columns, helper-98)
                end += ["  the command that takes the game up again:", f"    {resume}"]
                wide = "(wider than this screen: the terminal shows it when the table closes)"
                commands = (*commands, (resume, wide))
            view = replace(
                view,
                status="your node has stopped",
                status_kind="over",
                deadline=None,
                progress="",
                end=end,
                commands=commands,
                message="" if st.message.startswith(failure) else st.message,
                help_line="q / Enter / Esc: close the table (your node has stopped) · ? help",
            )
        over = self.over()  # (a game's end box, not the round's: helper-83 read "Enter, Space
        # or Esc: close round 1's end" under GAME OVER, and Enter closed the table)
        if st.round_end is not None and view.end and not stopped and not over and st.mode == "play":
            # Enter, Space or Esc closes the round's end and does only that; a key of the
            # decision up (r at the colour question) closes it and acts: the footer says both
            # (helper-36 read only the first, with a colour to name and the clock running)
            which = f"round {st.round_end_no}'s end" if st.round_end_no else "the round's end"
            help_line = f"Enter, Space or Esc: close {which} · ? help"
            note = ""
            if self.prompt is not None:
                # a decision's key closes the box and acts at once; Esc only closes it (it
                # read "Esc: close round 1's end · then t take", and helper-63 pressed Esc
                # first, a part of a 2.5 s claim window gone, and Esc twice let it pass)
                # only the decision's own keys close it: Enter and Space close the box alone,
                # and ←/→, :, m and ? do not close it (the footer was cut at 80 columns with
                # them in it, helper-71's brief)
                keep = [
                    part
                    for part in view.help_line.split(" · ")
                    if not part.startswith(("Enter", "←/→", ":", "m say", "? help", "Esc"))
                ]
                then = " · ".join(keep)
                help_line = f"{then} (closes the box too) · Esc: close {which} only"
                if not keep:  # (a verdict's key is Enter: the box is closed first)
                    help_line = f"Enter, Space or Esc: close {which} · ? help"
                # (its clock, on the box's border, which costs no row: helper-54 read a box
                # while their turn ran out under it)
                what = "your turn" if self.prompt.kind == "turn" else "your claim"
                left = view.deadline
                count = f": {max(0.0, left):.0f} s left" if left is not None else ""
                note = f"{what} runs on under this box{count}"
                if self.prompt.kind != "turn":  # (Esc closes the box only: the claim's keys
                    # beside its count said "Esc let it pass"; p lets it pass, box or not)
                    def p_passes(text: str) -> str:
                        return text.replace("Esc let it pass", "p let it pass").replace(
                            "Esc pass", "p pass"
                        )

                    view = replace(
                        view,
                        status=p_passes(view.status),
                        status_shorter=tuple(p_passes(x) for x in view.status_shorter),
                    )
            view = replace(view, help_line=help_line, box_note=note)
        return view

    def watch_ended(self) -> str:
        """Why a spectator's watch ended before the game's verdict ("": it has not; the game's
        end has its own box): no node of the table answered, or an error."""
        if self.watching is None or self.over():
            return ""
        if self.failure:
            return self.failure
        error = getattr(self.result, "error", None)
        return error if isinstance(error, str) else ""

    def _watch_view(self, view: TableView, failure: str) -> TableView:
        """A spectator's table before the game's verdict: while no node answers, that (not the
        wait of the node gone, counted to "0 s left", helper-87); once the watch has ended, a
        box as the players' end and stop boxes are: why, what was checked, its copy of the log
        and the command that replays it; nothing counts or spins any more."""
        w = self.watching
        assert w is not None
        why = self.watch_ended()
        seeking = getattr(w, "seeking", None)  # (a test's stand-in may have none)
        if not why and seeking is not None:
            left = max(0.0, seeking - time.monotonic())
            spin = SPINNER[self.spinner % len(SPINNER)]
            lost = getattr(w, "lost", "") or "the node watched through is gone"
            status = f"{spin} {lost}: trying the other seats' nodes"
            return replace(
                view,
                status=status,
                status_shorter=(f"{spin} trying the seats' nodes",),
                status_kind="wait",
                deadline=left,
                progress="the watch ends if none answers in time",
            )
        result = self.result
        s = w.session
        checked = checked_words(getattr(result, "checked", s.processed + 1 if s else 0))
        audits = getattr(result, "audits", w.audits)
        end = watch_end_lines(why, checked, audits, self.log_path, command())
        return replace(
            view,
            status="you are no longer watching",
            status_shorter=(),
            status_kind="over",
            deadline=None,
            progress="",
            end=end,
            message="" if failure and self.state.message.startswith(failure) else view.message,
            help_line="q / Enter / Esc: close the table (you are no longer watching) · ? help",
        )

    def lines(self, width: int, height: int) -> list[Line]:
        if self.source is None:
            waiting = OPENING if self.is_host else REACHING
            table = self.table or {"name": NO_TABLE if self.failure else waiting}
            msg = self.lobby_message or self.failure or ""
            if self.log and not msg:
                msg = self._lobby_word()
            info: dict[str, int] = {}
            lines = lobby_lines(
                table,
                self.address or "?",
                self.is_host,
                width,
                height,
                msg,
                asked=self._confirm is not None and not self._confirm.done(),
                asked_left=self._confirm_left(),
                confirmed=self.confirmed,
                mode=self.state.mode,
                closed=bool(self.result or self.failure),
                spectator=self.spectator,
                me="" if self.spectator else self.name,
                lost=(self.failure or "").startswith("you lost your seat"),
                chat=list(self.lobby_lines),
                typed=self.state.typed,
                page=self.state.help_page,
                info=info,
            )
            self._help_pages = info.get("pages", 1)
            return lines
        return render(self.view(), width, height)

    def _lobby_word(self) -> str:
        """The lobby's passing word: the last line said, but not the host's join command
        alone. The host's node says it on a line of its own under 'others join with:' (node/
        run.py: wrapped, it was broken), and as the last line it stood alone on row 2 of the
        host's first screen and after it, helper-92's brief. Until the table shows, it is said
        with its lead, as the lobby says it; then the lobby's own line says it, once."""
        last = self.log[-1]
        if not self._join_said or last != self._join_said:
            return last
        if self.table is not None and "options" in self.table:
            return ""
        return f"others join with:  {last.replace(' ', NBSP)}"

    def _too_small(self) -> bool:
        """Whether the terminal is under the table's size (render draws a notice instead)."""
        size = self.app.output.get_size()
        return size.columns < MIN_WIDTH or size.rows < MIN_HEIGHT

    def _fragments(self) -> StyleAndTextTuples:
        size = self.app.output.get_size()
        return screen_text(self.lines(size.columns, size.rows))  # type: ignore[return-value]

    def _after_render(self, app: Application[None]) -> None:
        self.rendered += 1
        if self._over_since is None and self._end_shown():
            # (the grace runs from here, the end's first drawing, for every end: a stop box's
            # began at the first key, which it only answered "q closes the table", helper-92)
            self._over_since = self.clock()
        if self.on_rendered is not None:
            self.on_rendered()

    def busy(self) -> bool:
        """Something on the screen moves with time (a countdown, a spinner)."""
        if self.source is None:
            return True
        return not self.over() and not self.watch_ended()

    async def ticker(self) -> None:
        """Redraw a few times a second while a countdown or a spinner shows: the screen
        never looks frozen while the table waits."""
        while True:
            await asyncio.sleep(self.tick_s)
            if self.busy():
                self.spinner += 1
                self.invalidate()


def _lan_address() -> str:
    """This machine's LAN address for the lobby's "join with" line (no packet is sent)."""
    import socket

    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            addr = str(info[4][0])
            if not addr.startswith("127."):
                return addr
    except OSError:
        pass
    return "THIS-MACHINE"


async def run_table(ui: TableUI, game: Coroutine[Any, Any, R]) -> R | None:
    """Run the app and the game side by side in this loop. The game ends: its result (or its
    error) is shown until the person leaves the screen. The person leaves first: the game is
    cancelled (the node closes its links). Returns the result, None if the person left;
    re-raises the game's error once the terminal is restored."""
    ui.shown = True  # (its node serves its game's end while it is shown: on_game)
    game_task: asyncio.Task[R] = asyncio.ensure_future(game)
    app_task = asyncio.ensure_future(ui.app.run_async(handle_sigint=False))
    ticker = asyncio.ensure_future(ui.ticker())
    error: BaseException | None = None
    try:
        await asyncio.wait({game_task, app_task}, return_when=asyncio.FIRST_COMPLETED)
        if game_task.done():
            error = game_task.exception()
            if error is not None:
                ui.failed(str(error) or type(error).__name__)
            else:
                ui.finished(game_task.result())
            if not app_task.done():
                await app_task
        else:
            ui.end_closed()  # (before an error of the app's too: see the finally)
            app_task.result()  # an error of the app's is raised here
            if ui.over():
                # the game is over on the screen (left by its end's key or a leave question
                # answered over it: the result all the same, helper-97); the node lingers a
                # moment for the others, or stops serving its end (end_closed)
                with contextlib.suppress(Exception):
                    return await asyncio.wait_for(asyncio.shield(game_task), 30)
            game_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await game_task
            return None
    finally:
        ticker.cancel()
        ui.end_closed()
        if not game_task.done():
            game_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await game_task
        if not app_task.done():
            ui.close()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(app_task, 5)
    if error is not None:
        raise error
    return game_task.result()
