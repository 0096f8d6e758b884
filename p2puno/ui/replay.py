"""`p2puno replay LOG --table`: step through a finished game in the table's own view.

One pass over the log: the offline replay itself (:func:`p2puno.session.replay.replay`:
every signature, every shuffle, every move), whose verdict the table shows at the end, hands
its observer session over after each step, and a *frame* is kept after every step that moved
the game or said something (a move, an audit, a verdict): the public engine (pickled and
compressed, about 1 KB), the outcome so far, the move list so far. When a deck's audit
passes, the session's full-information engine holds every card of that deck; the table then
shows every hand of that deck's frames face up. A deck that was never audited (the round a
cheat made void) keeps its hands hidden.

Keys: → / Space next move, ← previous, ↓ / ] next round, ↑ / [ previous round, Home / End,
``g`` and a round number and Enter to jump to that round, ``?`` help, ``q`` quit.
"""

from __future__ import annotations

import copyreg
import functools
import io
import os
import pickle
import re
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import TYPE_CHECKING, TextIO

from p2puno.engine.cards import CARD_COLOR, CARD_POINTS, CARD_TEXT, UNKNOWN_CARD, WILD
from p2puno.engine.game import Claim, Event, Game, Need, Phase
from p2puno.engine.options import Options
from p2puno.session.replay import ReplayResult
from p2puno.session.replay import replay as verify_log
from p2puno.session.session import Outcome, Session, Waiting
from p2puno.session.words import SILENT, in_a_sentence, named, outcome_words
from p2puno.ui.cells import cells as _cells

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyPressEvent
    from prompt_toolkit.output import Output

    from p2puno.ui.model import TableView
    from p2puno.ui.render import Line

# (the table's modules, prompt-toolkit and the UI's, are imported where the table is made: the
# plain `p2puno replay LOG` uses none of them, and they took a third of a second to import)

REPLAY_HELP = [
    "p2puno replay — keys",
    "",
    "  → / Space / n     the next move",
    "  ← / Backspace / p the move before",
    "  ↓ / ]             the start of the next round",
    "  ↑ / [             the start of this round (again: the one before)",
    "  Home / End        the first move / the end of the game and the verdict",
    "  g 1 2 Enter       go to round 12",
    "  ?                 this help",
    "  q / Esc           leave",
    "",
    "Every hand is shown face up in the rounds whose deck was checked (at a deck's",
    "end every secret of its shuffle is revealed and checked); a deck never checked",
    "(a round a cheat made void, a game stopped) keeps its hands hidden. A round's",
    "end stays up, over its hands, until the next deal.",
    "The last screen gives the verdict: every signature, shuffle and move checked",
    "offline, who won, the scores, and how long the game was.",
]  # (each line fits 80 columns: a review read "secre" and "v" cut at the edge)


@dataclass
class Frame:
    step: int  # the last step processed
    state: bytes  # the public engine after it (:func:`freeze`; :attr:`engine` reads it)
    outcome: Outcome
    # the deck whose cards the engine holds (the session's count: 1 is the draw for dealer).
    # Not always the session's deck in play: from the audit that ends a round to the next
    # deal, the session counts the next deck, while the engine still holds the round's cards
    # (a review: those cards were shown with the next deck's faces, wrong ones, under "round 2")
    deck: int
    log_len: int  # how many lines of the move list belong to this frame
    audits: int
    disputes: list[str]
    # the box of the round that ended, kept on every frame until the next deal (the engine
    # holds that round's hands and scores until then)
    round_end: list[str] | None = None
    # the moves made up to this frame (:class:`Length`'s count: the status says "move 12 of
    # 32", as the verdict says "32 moves"; it counted frames, helper-65)
    moves: int = 0

    @property
    def engine(self) -> Game:
        return thaw(self.state)


@dataclass
class Replayed:
    """A whole game read from its log: its frames, the move list, the decks' faces."""

    names: list[str]
    frames: list[Frame]
    lines: list[str]
    deck_faces: dict[int, list[int]] = field(default_factory=dict)
    rounds: dict[int, int] = field(default_factory=dict)  # round number -> first frame
    verdict: ReplayResult | None = None
    length: Length = field(default_factory=lambda: Length())  # (for the verdict)


class _FrameSource:
    """One frame as the table's source."""

    def __init__(self, frame: Frame) -> None:
        self.frame = frame

    @property
    def engine(self) -> Game:
        return self.frame.engine

    @property
    def outcome(self) -> Outcome:
        return self.frame.outcome

    def waiting(self) -> Waiting:
        return Waiting(self.frame.step, "replay", ())


def load(
    path: str | os.PathLike[str],
    *,
    thorough: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Replayed:
    """Verify the log and read it into frames, in one pass (the verifying replay's observer
    session hands each step over as it processes it: :class:`_Frames`). ``progress`` gets
    the number of the file's entries read so far, now and then (every 256 steps).
    Unreadable: not one step to draw."""
    frames = _Frames(progress)
    verdict = verify_log(path, thorough=thorough, on_step=frames.step)
    out = frames.finish(verdict)
    if not out.frames:
        # nothing to draw (a file missing, or damaged before any step): the verdict says why
        raise Unreadable(verdict, verdict.error or "no step to show")
    return out


class _Frames:
    """A frame after every step that moved the game or said something (a move, an audit, a
    verdict), from the observer session of the verifying replay. A frame's public engine is
    kept pickled and compressed (about 1 KB; a deep copy held 15 KB, and its making took
    most of the time)."""

    def __init__(self, progress: Callable[[int], None] | None) -> None:
        from p2puno.ui.model import Verification

        self.out: Replayed | None = None
        self.session: Session | None = None
        self.verification = Verification()
        self.starting = 0  # a round announced, not dealt yet
        self.progress = progress
        self.cards_deck = 0  # the deck whose cards the engine holds (Frame.deck)
        self.ended: list[str] | None = None  # the box of the round that ended, until a deal
        self.before: Event | None = None  # the engine event told last (a penalty's draw is
        # told by the penalty's line alone: sim.words.told_draw)

    def step(self, session: Session) -> None:
        from p2puno.ui.model import describe_event, describe_session_event, round_end_lines

        if self.out is None:
            self.out = Replayed([p.name for p in session.log.players], [], [])
        self.session = session
        out, names = self.out, self.out.names
        out.length.on_step(session)
        g = session.engine
        events = list(session.events)  # (the replay clears them after this)
        later_rounds = sum(1 for ev in events if ev.event is not None and ev.event.kind == "round")
        round_end = None
        moved = False
        for ev in events:
            self.verification.note(ev)
            if ev.event is not None:
                e = ev.event
                moved = True
                text = describe_event(g, names, None, e, before=self.before)
                self.before = e
                if e.kind == "round":
                    later_rounds -= 1
                    self.starting = e.value
                if e.kind == "start" and self.starting:
                    # a round starts (for the keys) where its hands are dealt
                    out.rounds.setdefault(self.starting, len(out.frames))
                    self.starting = 0
                if e.kind == "round-over":
                    round_end = round_end_lines(g, names, None, e, g.round_no - later_rounds)
            else:
                text = describe_session_event(ev, names)
                moved = moved or text is not None
                if ev.kind == "audit":
                    # the full-information engine has played this deck to its end
                    out.deck_faces[session.audited_deck] = list(session.shadow.faces)
            if text:
                out.lines.append(text)
        need = g.need
        if need is None or need.kind != "shuffle" or need.sources:
            # (a fresh deck's shuffle is due: the engine keeps the last deck's cards until
            # the new order is applied and dealt)
            self.cards_deck = session.deck_no
        if round_end is not None:
            self.ended = round_end
        elif g.phase is not Phase.GAME_OVER and self.cards_deck == session.deck_no:
            self.ended = None  # the next round is dealt (or the game went on): the box goes
        if moved:
            self._frame(self.ended)
        if self.progress is not None and session._done_seq % 256 == 0:
            self.progress(len(session.log))

    def _frame(self, round_end: list[str] | None) -> None:
        assert self.out is not None and self.session is not None
        s = self.session
        self.out.frames.append(
            Frame(
                s._done_seq,
                freeze(s.engine),
                s.outcome,
                self.cards_deck,
                len(self.out.lines),
                self.verification.audits,
                list(self.verification.disputes),
                round_end,
                self.out.length.moves,
            )
        )

    def finish(self, verdict: ReplayResult) -> Replayed:
        """The frames, with a last one if the game's end changed anything after the last
        move (the outcome a verdict or the votes decided), and the verdict."""
        out = self.out or Replayed([], [], [])
        out.verdict = verdict
        if self.session is not None and out.frames:
            last = out.frames[-1]
            if last.log_len != len(out.lines) or last.outcome != self.session.outcome:
                self._frame(self.ended)
        return out


# A frame's engine, pickled: Options, Need and Claim are frozen dataclasses with slots, which
# pickle cannot rebuild attribute by attribute (compiled or not); they are rebuilt from their
# fields. Only this process's own pickles are ever read back (never a file's, never a peer's).
_REBUILD = copyreg.dispatch_table.copy()
for _cls in (Options, Need, Claim):
    _REBUILD[_cls] = lambda o: (type(o), tuple(getattr(o, f.name) for f in fields(o)))


def freeze(game: Game) -> bytes:
    """The engine's state as compact bytes (:func:`thaw` gives back an equal engine)."""
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=5)
    pickler.dispatch_table = _REBUILD
    pickler.dump(game)
    return zlib.compress(buf.getvalue(), 1)


@functools.lru_cache(maxsize=4)  # (a screen reads its frame's engine many times)
def thaw(state: bytes) -> Game:
    """The engine :func:`freeze` kept; the same object for the same frame while cached, so
    treat it as read-only."""
    game = pickle.loads(zlib.decompress(state))
    assert isinstance(game, Game)
    return game


class ReplayTable:
    """The frames of a replayed game on the table's screen, stepped through by keys."""

    def __init__(
        self,
        replayed: Replayed,
        *,
        path: str = "",
        input: Input | None = None,
        output: Output | None = None,
        color: bool | None = None,
    ) -> None:
        self.r = replayed
        self.path = path
        self.date = file_date(path) if path else None
        self.index = 0
        self.mode = "play"  # "help", "goto"
        self.typed = ""
        self.message = ""
        self.on_rendered: Callable[[], None] | None = None
        from prompt_toolkit.application import Application
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.keys import Keys
        from prompt_toolkit.layout import Layout, Window
        from prompt_toolkit.layout.controls import FormattedTextControl
        from prompt_toolkit.output import ColorDepth
        from prompt_toolkit.styles import Style

        from p2puno.ui.app import MONO, STYLE, no_color

        color = not no_color() if color is None else color
        kb = KeyBindings()
        for key, name in (
            (Keys.Right, "next"),
            (Keys.Left, "prev"),
            (Keys.Down, "round+"),
            (Keys.PageDown, "round+"),
            (Keys.Up, "round-"),
            (Keys.PageUp, "round-"),
            (Keys.Home, "home"),
            (Keys.End, "end"),
            (Keys.Enter, "enter"),
            (Keys.ControlM, "enter"),
            (Keys.Escape, "escape"),
            (Keys.Backspace, "prev"),
            (Keys.ControlH, "prev"),
            (Keys.ControlC, "quit"),
        ):
            kb.add(key, eager=True)(self._named(name))

        @kb.add(Keys.Any)
        def _(event: KeyPressEvent) -> None:
            for kp in event.key_sequence:
                if len(kp.data) == 1 and kp.data.isprintable():
                    self.key(kp.data)

        self.app: Application[None] = Application(
            layout=Layout(Window(FormattedTextControl(self._fragments, show_cursor=False))),
            key_bindings=kb,
            style=Style.from_dict(STYLE if color else MONO),
            full_screen=True,
            color_depth=None if color else ColorDepth.MONOCHROME,
            input=input,
            output=output,
            after_render=lambda app: self.on_rendered() if self.on_rendered else None,
        )
        self.app.ttimeoutlen = 0.05

    def _named(self, name: str) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            self.key(name)

        return handler

    # ------------------------------------------------------------------ keys
    def key(self, k: str) -> None:
        try:
            self._key(k)
        finally:
            self.app.invalidate()

    def _key(self, k: str) -> None:
        n = len(self.r.frames)
        self.message = ""
        if self.mode == "help":
            self.mode = "play"
            return
        if self.mode == "goto":
            if k.isdigit():
                self.typed = (self.typed + k)[:4]
            elif k == "prev":
                self.typed = self.typed[:-1]
            elif k == "enter":
                self.mode = "play"
                no = int(self.typed) if self.typed else 0
                if no in self.r.rounds:
                    self.index = self.r.rounds[no]
                else:
                    last = max(self.r.rounds, default=0)
                    self.message = f"no round {no}: rounds 1 to {last}"
            elif k in ("escape", "quit"):
                self.mode = "play"
            return
        if k in ("q", "escape", "quit"):
            self.app.exit()
        elif k == "?":
            self.mode = "help"
        elif k == "g":
            self.mode, self.typed = "goto", ""
        elif k in ("next", " ", "n", "l", "enter"):
            if self.index >= n - 1:
                self.message = "the end of the game (← goes back, q leaves)"
            self.index = min(n - 1, self.index + 1)
        elif k in ("prev", "p", "h"):
            if self.index == 0:  # (as at the end: helper-101's ← at the start said nothing)
                self.message = "the start of the game (→ goes on, q leaves)"
            self.index = max(0, self.index - 1)
        elif k in ("round+", "]"):
            nxt = [i for i in self.r.rounds.values() if i > self.index]
            self.index = min(nxt) if nxt else n - 1
        elif k in ("round-", "["):
            starts = [i for i in self.r.rounds.values() if i < self.index]
            self.index = max(starts) if starts else 0
        elif k == "home":
            self.index = 0
        elif k == "end":
            self.index = n - 1

    # ------------------------------------------------------------------ drawing
    def view(self, width: int = 80) -> TableView:
        from p2puno.ui.model import (
            CardView,
            UiState,
            Verification,
            ViewInputs,
            card_sort_key,
            table_view,
        )

        f = self.r.frames[self.index]
        faces = self.r.deck_faces.get(f.deck)
        vi = ViewInputs(
            names=self.r.names,
            me=None,
            title="replay",  # (fitted to the width below: _title)
            log=self.r.lines[: f.log_len],
            verification=Verification(f.audits, f.disputes),
            show_all=faces is not None,
            faces=faces,
        )
        box = f.round_end
        if box is not None:
            # what the hands it lists are: shown to all at the round's end, and whether its
            # deck was verified, said as the plain replay says it (helper-65: a log cut
            # before the audit showed them here, and "hands not shown" there)
            note = "  " + hands_note(faces is not None, self._why_unaudited())
            at = next((i for i, ln in enumerate(box) if ln.startswith("  scores:")), len(box))
            box = [*box[:at], note, *box[at:]]
        v = table_view(_FrameSource(f), UiState(round_end=box), vi)
        last = self.index == len(self.r.frames) - 1
        status = self.moves_said()
        g = f.engine
        shown = [[c for c in (g.faces[x] for x in h) if c >= 0] for h in g.hands]
        if v.all_hands:
            status += " · every hand face up (this deck was checked)"
        elif faces is None and f.deck >= 2:
            if any(shown) and f.round_end is not None:
                status += " · hands shown at the round's end (deck never checked)"
            else:
                status += " · hands hidden (this deck was never checked)"
        hands = v.all_hands
        if not hands and any(g.hands) and g.phase is not Phase.DEALER_DRAW:
            # a deck never audited: its hands stay hidden, their sizes shown, but for the
            # cards shown to all (every hand at a round's end, as the box above lists them)
            hidden = CardView(UNKNOWN_CARD, -1, "??", WILD)
            hands = [
                (
                    self.r.names[s] if s < len(self.r.names) else f"seat {s}",
                    [
                        CardView(c, x, CARD_TEXT[c], CARD_COLOR[c]) if c >= 0 else hidden
                        for x, c in sorted(
                            ((x, g.faces[x]) for x in h),
                            key=lambda xc: (card_sort_key(xc[1]), xc[0]),
                        )
                    ],
                )
                for s, h in enumerate(g.hands)
            ]
        end = v.end
        if last:
            verdict = self.verdict_lines()
            if self.date is not None:
                verdict.append(f"  file date {self.date} (its last change; not in the signed log)")
            # the verdict under the game's result, before the last round's block (under that
            # block it read as part of the round)
            end = [ln for ln in end or [] if not ln.startswith("  verification:")]
            cut = end.index("") if "" in end else len(end)
            end = [*end[:cut], *verdict, *end[cut:]]
        help_line = "→ next · ← back · ↓ next round · ↑ round start · g go to round · End · ? · q"
        if self.mode == "goto":
            help_line = f"go to round: {self.typed}▏ (Enter · Esc)"
        # (the file was read whole and checked before the first frame: "verifying every move",
        # the live table's words while no deck is audited yet, read as a check still under way
        # after the log had checked out, helper-101)
        checked = "no deck audited yet" if v.verification == "verifying every move" else ""
        return replace(
            v,
            verification=checked or v.verification,
            status=status,
            status_kind="over" if last else "wait",
            help_line=help_line,
            choice_lines=[],
            end=end,
            message=self.message,
            deadline=None,
            progress="",
            mode="help" if self.mode == "help" else "play",
            all_hands=hands,
            no_seat="a replay: no seat of yours",
            title=self._title(v, width),
        )

    def moves_said(self) -> str:
        """The status's count, in moves as the verdict counts them ("32 moves"): "move 12 of
        32" on the frame of move 12, "after move 12 of 32" on those that follow it before the
        next (an audit, a round's end, a kept card, a verdict). It counted frames: "move 189
        of 189" under "1 round, 142 moves" (helper-65)."""
        f, i = self.r.frames[self.index], self.index
        total = self.r.length.moves
        if f.moves <= 0:
            return f"before the first move ({total} in all)"
        before = self.r.frames[i - 1].moves if i > 0 else 0
        return f"{'' if f.moves > before else 'after '}move {f.moves} of {total}"

    def _why_unaudited(self) -> str:
        """Why a deck of this log was never verified, in the plain replay's words."""
        v = self.r.verdict
        o = v.outcome if v is not None else None
        if o is None:
            return "the log ends before its audit"
        return _why_not_shown(o, self.r.names, ended=True)

    def _title(self, v: TableView, width: int) -> str:
        """The title, fitted so that the header keeps the round and the verdict whole at this
        width (a review: at 80 columns a node's log, "game <id>", pushed them out and the
        header was cut): "p2puno replay · <log>", else "replay · <log>", else that cut."""
        if not self.path:
            return "replay"
        name = _log_name(self.path)
        # (as the table draws its header: " <title> · <round>", two spaces, "<verdict> ")
        room = width - _cells(v.verification) - 1 - 2 - 1 - 3 - _cells(v.round_info)
        for title in (f"p2puno replay · {name}", f"replay · {name}"):
            if _cells(title) <= room:
                return title
        return _fit(f"replay · {name}", max(room, 10)).rstrip()

    def verdict_lines(self) -> list[str]:
        v = self.r.verdict
        if v is None:
            return ["  verdict: not checked"]
        if v.ok:
            # (the result is the box's own first lines: the verdict says what it vouches for)
            verdict = verified_lines(v, self.r.length)
            return [
                "  VERIFIED offline, " + " ".join(ln.strip() for ln in verdict[1:-1]),
                verdict[-1],
                *(
                    f"  note: {named(b, self.r.names)} (unchallenged bluffs stand)"
                    for b in v.bluffs
                ),
            ]
        if v.incomplete:
            # (one line, wrapped by the box: cut by hand at 79 columns, its box of 76 left
            # "game" alone on a line)
            return [
                "  NOT OVER: every entry verifies, but the log ends before the game does (a game "
                "still going on, one a player may still resume, or a copy cut short, such as a "
                "spectator's that left early); no verdict"
            ]
        where = f"entry {v.bad_entry}" if v.bad_entry is not None else "the log"
        if v.blame is not None and 0 <= v.blame.seat < len(self.r.names) and v.bad_entry:
            # a cheat: the box's first lines name the cheater and the reason (a review read
            # them twice, the second time as "step 15: seat 1 is at fault: ..."); what the log
            # proves, and where in the file
            who = self.r.names[v.blame.seat]
            return [
                f"  REJECTED: what {who} signed breaks the rules (entry {v.bad_entry}, line "
                f"{v.bad_entry + 1} of the file); every entry before it verifies"
            ]
        out = [f"  REJECTED at {where}: {v.error}"]
        if v.author is not None and 0 <= v.author < len(self.r.names):
            out.append(f"  at fault: {self.r.names[v.author]} (seat {v.author})")
        return out

    def lines(self, width: int, height: int) -> list[Line]:
        from p2puno.ui.render import fit_line, render

        if self.mode == "help":
            out = [fit_line([("", " " + t)], width) for t in REPLAY_HELP][: height - 1]
            while len(out) < height - 1:
                out.append([("", " " * width)])
            out.append(fit_line([("class:help", " any key: back")], width, "class:help"))
            return out
        return render(self.view(width), width, height)

    def _fragments(self) -> StyleAndTextTuples:
        from p2puno.ui.render import screen_text

        size = self.app.output.get_size()
        return screen_text(self.lines(size.columns, size.rows))  # type: ignore[return-value]


def _log_name(path: str) -> str:
    """The log's name for the title: a node's own log is ``games/<game id>/log``, named by its
    game (the title read "p2puno replay · log")."""
    base = os.path.basename(path)
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return f"game {parent}" if base == "log" and parent else base


@dataclass
class Length:
    """How long a game was, for the verdict: the rounds dealt, the moves made (each play,
    draw, penalty taken and challenge: the engine's turns) and, for a verifier, the log's
    steps (what each plain line's ``[step N]`` counts). Give :meth:`on_step` to the replay."""

    rounds: int = 0
    moves: int = 0
    steps: int = 0
    announced: bool = False  # a round announced, not dealt yet
    jumps: int = 0  # (a jump-in is a move the engine's count of turns leaves out)

    def on_step(self, session: Session) -> None:
        for ev in session.events:
            e = ev.event
            if e is None:
                continue
            if e.kind == "round":
                self.announced = True
            elif e.kind == "start" and self.announced:  # (its deal: a start card turned up)
                self.rounds, self.announced = self.rounds + 1, False
            elif e.kind == "jump":
                self.jumps += 1
        self.moves = session.engine.stats.turns + self.jumps
        # (steps count from 0: K complete is K + 1 of them; "347 steps" read against "stopped
        # after step 347", helper-87)
        self.steps = max(session._done_seq + 1, 0)

    def words(self) -> str:
        """ "10 rounds, 612 moves" """
        rounds = f"{self.rounds} round{'' if self.rounds == 1 else 's'}"
        return f"{rounds}, {self.moves:,} move{'' if self.moves == 1 else 's'}"


def steps_words(length: Length) -> str:
    """The log's steps counted, and numbered as the log and the stop's words number them:
    "41 steps (0 to 40)"."""
    n = length.steps
    if n <= 1:
        return "1 step (0)" if n == 1 else "no step"
    return f"{n:,} steps (0 to {n - 1:,})"


def verified_lines(result: ReplayResult, length: Length) -> list[str]:
    """A verified log's verdict, for a person first: the result (who won, the scores), what
    "verified" vouches for, how long the game was; then the counts a verifier wants, in one
    line labelled in plain words. The first line starts "VERIFIED: " (scripts and tests read
    it; the demo prints the same words)."""
    o = result.outcome
    assert o is not None
    # (each line fits 80 columns)
    checked = ["  genuine: every move signed by the player who made it; every deck checked"]
    if o.state == "stopped":
        # (helper-32: said of a stopped game, whose deck in play was never opened, it read as
        # a full audit)
        checked = [checked[0] + " but", "  the one in play when the game stopped"]
    return [
        f"VERIFIED: {outcome_words(o, result.names)}",
        *checked,
        f"  {length.words()}; the log: {result.entries:,} signed entries, {steps_words(length)}",
    ]


def progress_words(read: int, total: int) -> str:
    """The loading line, in the file's own unit: "checking the log: 1,024 of 5,492 entries
    (18%) ..." (it said "step 1024": the log's count, which a person never sees elsewhere
    as such, helper-65). ``total``: the file's entries (0: not known)."""
    if total <= 0:
        return f"checking the log: {read:,} entries so far ..."
    read = min(read, total)
    return f"checking the log: {read:,} of {total:,} entries ({100 * read // total}%) ..."


def _entries_in(path: str | os.PathLike[str]) -> int:
    """The file's entries (one a line), 0 if it cannot be read or is no regular file (a pipe
    read here would be drained before the replay reads it; /dev/zero never ends)."""
    n, last = 0, b"\n"
    if not os.path.isfile(path):
        return 0
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                n += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError:
        return 0
    return n + (last != b"\n")


class Unreadable(Exception):
    """The log cannot be drawn at all (missing, or damaged before its first step)."""

    def __init__(self, verdict: ReplayResult | None, why: str) -> None:
        super().__init__(why)
        self.verdict = verdict


async def run_replay_table(
    path: str,
    *,
    input: Input | None = None,
    output: Output | None = None,
    thorough: bool = False,
    length: Length | None = None,
) -> ReplayResult | None:
    """Load and verify the log, then show it until the person leaves; the verdict. A log
    that cannot be drawn at all is not shown: its verdict says why (as `p2puno replay`).
    ``length``: filled with the game's length (for the verdict printed after)."""

    total = _entries_in(path) if sys.stderr.isatty() else 0

    def progress(read: int) -> None:  # (a long game takes seconds to check: say so)
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{progress_words(read, total)}")
            sys.stderr.flush()

    try:
        replayed = load(path, thorough=thorough, progress=progress)
    except Unreadable as e:
        return e.verdict
    finally:
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[K")
    if length is not None:
        length.__dict__.update(replayed.length.__dict__)
    table = ReplayTable(replayed, path=path, input=input, output=output)
    await table.app.run_async()
    return replayed.verdict


# ---------------------------------------------------------------------- the plain replay
# `p2puno replay LOG` prints the game line by line as the replay verifies it; this part adds
# each round's end (who went out, each seat's points and running total, and every hand once
# its deck's audit passed), a table of every round at the end, and the file's date. All of it
# is read off the verifying replay's own observer session (its engine, and the full-
# information engine the end-of-deck audit played): nothing here scores or judges a card.

WIDE = 79  # (what the plain replay prints fits an 80-column terminal)


def file_date(path: str | os.PathLike[str]) -> str | None:
    """The log file's last change, in this machine's local time ("2026-11-27 17:13 UTC"):
    the only date a replay has. The signed log holds no clock time, on purpose: every node
    must replay it alike, and a time one seat wrote would be that seat's word only. So the
    date shown is the file's, and said to be (a node writes its log as the game goes, so its
    own log's date is about the game's end; a copy's is when it was copied). None if the file
    cannot be read."""
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return None
    return datetime.fromtimestamp(mtime).astimezone().strftime("%Y-%m-%d %H:%M %Z")


def file_date_line(path: str | os.PathLike[str]) -> str | None:
    """The plain replay's first line: the file's date, labelled as the file's."""
    when = file_date(path)
    return (
        None
        if when is None
        else f"file date {when} (this file's last change, not in the signed log)"
    )


@dataclass
class RoundEnd:
    """A round played to its end, as the verified replay's engine scored it."""

    number: int
    deck: int  # the session's deck it was played with (deck 1 is the draw for dealer)
    out: int  # the seat that went out; -1: nobody (a blocked round)
    points: tuple[int, ...]  # what each seat scored in it
    totals: tuple[int, ...]  # each seat's running total after it
    # each seat's cards at the round's end (card ids, in the deck's order; -1 a card not
    # opened), as they were shown to all then (every hand is a public slot at a round's end,
    # spec 10.6: each card opened by every seat's key, each key checked), and their points
    hands: tuple[tuple[int, ...], ...] | None = None
    hand_points: tuple[int, ...] = ()
    # its deck's end-of-deck audit passed (every secret of its shuffle revealed and checked):
    # the hands are then the audit's full-information engine's
    audited: bool = False


class PlainReplay:
    """Round ends and the table of scores for `p2puno replay LOG`.

    Give :meth:`on_step` to the replay as its ``on_step`` and :meth:`echo` as its ``echo``:
    a round's block is printed once its deck's audit has passed, after that step's lines
    (``on_step`` sees a step before the replay prints it; the block waits for the next
    step's). :meth:`finish` prints what is left, the rounds whose deck was never audited (and
    why nothing of them is shown), and the table of every round."""

    def __init__(self, out: Callable[[str], None]) -> None:
        self._out = out
        self._blank = False  # the last line printed was blank
        self.names: list[str] = []
        self.scoring = "standard"
        self.rounds: list[RoundEnd] = []
        self.session: Session | None = None
        self._queued: list[str] = []  # blocks of the step just seen, printed after its lines
        self._ready: list[str] = []  # blocks due before the next line

    def echo(self, line: str) -> None:
        """One line of the replay's own ("[step    12] P0 played y4"), wrapped at
        :data:`WIDE` under its text (a cheat's line ran on to 120 columns, helper-65)."""
        self._flush()
        m = re.match(r"\[step +\d+\] ", line)
        if m is None or _cells(line) <= WIDE:
            self.out(line)
            return
        words = _glued(line[m.end() :]).split(" ")
        for part in _wrapped(m.group(0), words, glue=True):
            self.out(part)

    def out(self, line: str) -> None:
        if line or not self._blank:  # (one blank line between blocks, never two)
            self._out(line)
        self._blank = not line

    def _flush(self) -> None:
        ready, self._ready = self._ready, []
        for text in ready:
            self.out(text)

    def on_step(self, session: Session) -> None:
        self._ready.extend(self._queued)
        self._queued = []
        self.session = session
        if not self.names:
            self.names = [p.name for p in session.log.players]
            self.scoring = session.options.scoring
        events = session.events
        if not events:
            return
        g = session.engine
        # (the round-over event and the next round's start come out of one move)
        later = sum(1 for ev in events if ev.event is not None and ev.event.kind == "round")
        for ev in events:
            e = ev.event
            if e is not None:
                if e.kind == "round":
                    later -= 1
                elif e.kind == "round-over":
                    totals = tuple(g.scores)
                    before = self.rounds[-1].totals if self.rounds else (0,) * len(totals)
                    points = tuple(t - b for t, b in zip(totals, before, strict=True))
                    number = g.round_no - later
                    # every hand as shown to all at the round's end (the sync before this
                    # event opened them: the table's round-end box lists the same)
                    seats = range(len(totals))
                    hands = tuple(tuple(sorted(g.hand_cards(s))) for s in seats)
                    hand_points = tuple(sum(CARD_POINTS[c] for c in h if c >= 0) for h in hands)
                    self.rounds.append(
                        RoundEnd(
                            number, session.deck_no, e.seat, points, totals, hands, hand_points
                        )
                    )
            elif ev.kind == "audit":
                # a deck's end-of-deck audit passed: its full-information engine has played
                # the deck to its end, every card known and checked
                r = next((r for r in self.rounds if r.deck == session.audited_deck), None)
                if r is not None and not r.audited:
                    shadow = session.shadow
                    seats = range(len(r.totals))
                    r.hands = tuple(tuple(sorted(shadow.hand_cards(s))) for s in seats)
                    r.hand_points = tuple(shadow.hand_points(s) for s in seats)
                    r.audited = True
                    self._queued.extend(["", *round_lines(r, self.names, self.scoring), ""])

    def finish(self, result: ReplayResult) -> None:
        """What is left to print once the replay is done: the last blocks, then (if the log
        gives a result: not a damaged file or a bad signature) every round whose deck was
        never audited and why nothing of it is shown, the round the game ended in, and the
        table of every round."""
        self._ready.extend(self._queued)
        self._queued = []
        self._flush()
        s, o = self.session, result.outcome
        if s is None or o is None:
            return
        names, n = self.names, len(self.names)
        # the round the verdict made void: the deck in play when the game ended (a round
        # played to its end, whose deck's audit did not pass, or the one being played)
        void_deck = s.deck_no if o.void and s.deck_no >= 2 else None
        counted: dict[int, bool] = {}
        for r in self.rounds:
            # a round counts if its deck's audit passed, or if the verdict counts it as it
            # stood at its end (a stop whose silent seat had not won it)
            counts = r.deck != void_deck and (r.audited or o.scores == r.totals)
            counted[r.number] = counts
            if r.audited:
                continue
            why = _why_not_shown(o, names, ended=True)
            self.out("")
            self.out_lines(round_lines(r, names, self.scoring, unaudited=why, void=not counts))
        # a round dealt and not played to its end: the deck in play is none of the rounds'
        # above (the engine counts a round from its announcement: round_no is its number)
        in_play = None
        number = s.engine.round_no
        dealt = s.deck_no >= 2 and all(r.deck != s.deck_no for r in self.rounds)
        if dealt and (void_deck is not None or not o.over):
            in_play = number
            self.out("")
            if o.over:
                self.out(f"  round {number}: void, not counted; nothing of it is shown:")
            else:
                self.out(f"  round {number}: still in play where the log ends; no hand shown:")
            why = _glued(_why_not_shown(o, names, ended=False))
            self.out_lines(_wrapped("    ", why.split(" "), glue=True, indent=6))
        if not self.rounds and in_play is None:
            return
        self.out("")
        label = "total" if o.over else "so far"
        self.out_lines(score_table(self.rounds, counted, in_play, names, o.scores[:n], label))

    def out_lines(self, lines: list[str]) -> None:
        for line in lines:
            self.out(line)


def _why_not_shown(o: Outcome, names: Sequence[str], *, ended: bool) -> str:
    """Why nothing of a deck is shown (it was never opened), in the verdict's words;
    ``ended``: its round was played to its end (its deck's audit was next)."""
    if o.state == "cheat" and o.blame is not None:
        who = names[o.blame.seat] if 0 <= o.blame.seat < len(names) else "a seat"
        # (the step is the log's, said so: helper-65)
        cheat = f"{who} cheated (at step {o.blame.step} of the log)"
        if ended:
            return f"its audit did not pass: {cheat}"
        return f"{cheat}: the game ended before its deck was audited"
    if o.state == "stopped":
        silent = in_a_sentence([names[s] for s in o.silent if s < len(names)])
        # (not "silent": the record cannot tell a seat that said goodbye from a lost link)
        why = f"{silent} {SILENT}" if silent else "every seat voted to stop"
        when = "before its audit" if ended else "in it, its deck never audited"
        return f"the game stopped {when} ({why})"
    if not o.over:
        if ended:
            return "the log ends before its audit"
        return "the log ends in it: its deck is not audited yet"
    return "never audited"


def hands_note(audited: bool, why: str) -> str:
    """What the hands a round's end lists are, said alike by the plain replay and the
    table's round-end box: every hand is opened to all at a round's end (spec 10.6, public
    slots), and its deck's audit checks the whole shuffle. ``why``: why the deck was not
    verified (:func:`_why_not_shown`)."""
    said = "hands: as shown to all at the round's end; "
    return said + ("its deck verified" if audited else f"its deck not verified: {why}")


cells = _cells  # (for ui.lines: a line's width in terminal cells, one definition: ui.cells)


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells ("…" where it was cut), padded to ``width``."""
    if _cells(text) > width:
        out = ""
        for ch in text:
            if _cells(out + ch) > width - 1:
                break
            out += ch
        text = out + "…"
    return text + " " * max(0, width - _cells(text))


def round_lines(
    r: RoundEnd,
    names: Sequence[str],
    scoring: str,
    unaudited: str | None = None,
    void: bool = False,
) -> list[str]:
    """A round's end: who went out, what each seat scored in it and its running total, the
    cards each seat held at its end (as shown to all then) in the card notation and their
    points, and whether its deck was verified (``unaudited``: why not). ``void``: the round
    does not count (its points are left out)."""
    n = len(r.totals)
    seat_name = [names[s] if s < len(names) else f"seat {s}" for s in range(n)]
    if void:
        went = f"{seat_name[r.out]} went out" if r.out >= 0 else "blocked, nobody went out"
        head = f"round {r.number} over: {went}; void, not counted"
    elif r.out < 0:
        head = f"round {r.number} over: blocked, nobody went out"
        head += "; each adds their own hand" if scoring != "standard" else "; nobody scores"
    elif scoring == "standard":
        head = f"round {r.number} over: {seat_name[r.out]} went out and scores {r.points[r.out]}"
    else:
        head = f"round {r.number} over: {seat_name[r.out]} went out; each adds their own hand"
    # what a hand's points do, said beside them (under standard scoring they are the points
    # of the one who went out: "Bob 23 pts" read as Bob's own)
    verb = "adds" if scoring != "standard" else "gives" if r.out >= 0 else "holds"
    nw = min(14, max(6, *(_cells(x) for x in seat_name)))
    lines = [f"  {head}"]
    title = f"    {'player':<{nw}}" + ("" if void else "  round  total")
    if r.hands is not None:
        title += "  hand at the round's end"
    lines.append(title)
    for s in range(n):
        row = f"    {_fit(seat_name[s], nw)}"
        if not void:
            row += f"  {r.points[s]:>+5}  {r.totals[s]:>5}"
        if r.hands is not None:
            cards = [CARD_TEXT[c] if c >= 0 else "??" for c in r.hands[s]]
            if not cards:
                cards = ["(out)"]
            else:
                cards[-1] += f"  ({verb} {r.hand_points[s]})"
            lines.extend(_wrapped(row + "  ", cards))
        else:
            lines.append(row.rstrip())
    if r.hands is not None:
        note = hands_note(r.audited, unaudited or "")
        lines.extend(_wrapped("    ", _glued(note).split(" "), glue=True, indent=6))
    elif unaudited is not None:
        lines.append(f"    hands not shown: {unaudited}")
    return lines


def _wrapped(
    prefix: str, words: list[str], *, width: int = WIDE, glue: bool = False, indent: int = -1
) -> list[str]:
    """``prefix`` and the words after it, wrapped at ``width`` under their first (or at
    ``indent`` columns); ``glue``: the words hold :data:`_GLUE` where a space may not break
    (:func:`_glued`), a space again in the lines. A word wider than a line (a path) is
    broken after a "/" (the lines read one after the other give it whole; the reviews of
    helper-77 and helper-83 read paths cut mid-name at 80 columns)."""
    lines: list[str] = []
    line, first = prefix, True
    pad = " " * (_cells(prefix) if indent < 0 else indent)
    for w in words:
        parts = slash_parts(w) if _cells(pad) + _cells(w) > width else [w]
        for i, part in enumerate(parts):
            sep = "" if first or i > 0 else " "
            if not first and _cells(line) + _cells(sep) + _cells(part) > width:
                lines.append(line)
                line, first, sep = pad, True, ""
            line += sep + part
            first = False
    lines.append(line)
    return [ln.replace(_GLUE, " ") for ln in lines] if glue else lines


def slash_parts(word: str) -> list[str]:
    """``word`` in the parts a line may end after: each up to and with a "/" ("/tmp/",
    "an-h86/", "p2puno-demo.log"); [word] when it holds none."""
    return re.findall(r"[^/]*/|[^/]+$", word) or [word]


_GLUE = "\x00"  # (a space no line may break at: between a number and its label or unit)
GLUE = _GLUE  # (for the lines of ui.lines and the demo: the same glue, one definition)


def _glued(text: str) -> str:
    """``text`` with each number bound to the word before it ("entry 30", "step 15") and,
    when nothing ends it (no ":" or ","), to the word after it ("136 entries", "5 s"): a line
    wrapped there never cuts a number from what it counts. A command in backquotes is one
    word too: broken over lines it does not run (helper-94: "`/home/ann/p2puno/.venv/bin/
    p2puno resume" / "abcdef0123456789 --give-up`"); one wider than a line is still broken,
    after a "/" (:func:`_wrapped`)."""
    text = re.sub(r"`[^`\n]*`", lambda m: m.group(0).replace(" ", _GLUE), text)
    words = text.split(" ")
    out: list[str] = []
    join_next = False
    for w in words:
        bare = re.fullmatch(r"\(?\d+(?:[,.]\d+)*%?([:;,.)]*)", w)
        if out and (join_next or (bare is not None and out[-1][-1:].isalnum())):
            out[-1] += _GLUE + w
        else:
            out.append(w)
        join_next = bare is not None and not bare.group(1)
    return " ".join(out)


def width_of(stream: TextIO) -> int | None:
    """The columns a line to ``stream`` may take, its terminal's less one (never fewer than
    40); None where it is no terminal (a pipe, a file: a program reads it)."""
    try:
        if stream.isatty():
            return max(40, os.get_terminal_size(stream.fileno()).columns - 1)
    except (OSError, ValueError):
        pass
    return None


def wrap_verdict(text: str, width: int = WIDE, indent: int = 2) -> list[str]:
    """A verdict's line (REJECTED, NOT OVER) wrapped at ``width`` columns, the lines after the
    first indented by ``indent``: never a number cut from its label or unit."""
    return _wrapped("", _glued(text).split(" "), width=width, glue=True, indent=indent)


def score_table(
    rounds: Sequence[RoundEnd],
    counted: dict[int, bool],
    in_play: int | None,
    names: Sequence[str],
    result: Sequence[int],
    label: str,
) -> list[str]:
    """Every round in a row, every seat in a column: the points each scored in it; the last
    row is the game's result (``label``: "total", or "so far" of a log that ends before the
    game does). ``counted``: whether each round counts (by number); ``in_play``: the number
    of a round the game ended in (void) or the log ends in, not played to its end.

    Fits :data:`WIDE` columns for up to 10 seats: a name too long for its column is cut, and
    if the cut names (or the names themselves) do not tell the seats apart, the columns are
    #0, #1, ... (the seat numbers); a legend then gives every name in full."""
    n = len(result)
    numbers = [p for r in rounds for p in r.points] + list(result)
    digits = max(len(str(x)) for x in numbers) if numbers else 1
    widest = max((_cells(x) for x in names[:n]), default=2)
    # the first column (6: "so far"), then who went out and one column per seat, each w wide
    # with a space before it (who went out gives way to numbers too wide for 10 seats)
    room = (WIDE - 6) // (n + 1) - 1
    with_out = room >= digits
    if not with_out:
        room = (WIDE - 6) // n - 1
    w = max(digits, 3, min(widest, room, 12))
    labels = [names[s] if s < len(names) else f"#{s}" for s in range(n)]
    legend = any(_cells(x) > w for x in labels) or len(set(labels)) < n
    if legend:
        cut = [_fit(x, w).rstrip() for x in labels]
        labels = cut if len(set(cut)) == n else [f"#{s}" for s in range(n)]

    def row(first: str, out: str, cells: Sequence[str] = ()) -> str:
        text = f"{first:>6}" + (f" {_fit(out, w)}" if with_out else "")
        return (text + "".join(" " * (1 + w - _cells(c)) + c for c in cells)).rstrip()

    def who(seat: int) -> str:
        return labels[seat] if 0 <= seat < n else "none"

    said = "the points each seat scored in each round"
    lines = [f"scores by round ({said}{'; out: who went out' if with_out else ''})"]
    lines.append(row("round", "out", labels))
    unaudited = False
    for r in rounds:
        if not counted.get(r.number, True):
            lines.append(row(str(r.number), who(r.out)) + "  void: not counted")
            continue
        mark = "" if r.audited else "*"
        unaudited = unaudited or bool(mark)
        lines.append(row(f"{r.number}{mark}", who(r.out), [str(p) for p in r.points]))
    if in_play is not None:
        lines.append(row(str(in_play), "") + ("  in play" if label == "so far" else "  void"))
    lines.append(row(label, "", [str(p) for p in result]))
    # (the hands were shown all the same: every hand is opened to all at a round's end)
    if unaudited and label == "so far":
        lines.append("  *: its deck's audit is not in the log (hands as shown at its end)")
    elif unaudited:
        lines.append("  *: its deck was never audited (hands as shown at its end); it counts")
    if legend:
        lines.extend(_wrapped("  ", [f"{labels[s]} = {names[s]};" for s in range(n)]))
        lines[-1] = lines[-1].rstrip(";")
    return lines
