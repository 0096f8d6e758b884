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
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style

from p2puno.engine.cards import UNKNOWN_CARD, WILD
from p2puno.engine.game import Claim, Game, Need, Phase
from p2puno.engine.options import Options
from p2puno.session.replay import ReplayResult
from p2puno.session.replay import replay as verify_log
from p2puno.session.session import Outcome, Session, Waiting
from p2puno.session.words import named
from p2puno.ui.app import MONO, STYLE, no_color
from p2puno.ui.model import (
    CardView,
    TableView,
    UiState,
    Verification,
    ViewInputs,
    describe_event,
    describe_session_event,
    round_end_lines,
    table_view,
)
from p2puno.ui.render import Line, fit_line, render, screen_text

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
    "Every hand is shown face up in the rounds whose deck was audited (all the",
    "secrets of the shuffle revealed and checked at the deck's end); a deck never",
    "audited (a round a cheat made void, a game stopped) keeps its hands hidden.",
    "The last screen gives the replay's verdict: every signature, shuffle and move",
    "checked offline.",
]  # (each line fits 80 columns: a review read "secre" and "v" cut at the edge)


@dataclass
class Frame:
    step: int  # the last step processed
    state: bytes  # the public engine after it (:func:`freeze`; :attr:`engine` reads it)
    outcome: Outcome
    deck: int  # the deck in play (the session's count: 1 is the draw for dealer)
    log_len: int  # how many lines of the move list belong to this frame
    audits: int
    disputes: list[str]
    round_end: list[str] | None = None

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
    the step reached now and then (every 256 steps). Unreadable: not one step to draw."""
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
        self.out: Replayed | None = None
        self.session: Session | None = None
        self.verification = Verification()
        self.starting = 0  # a round announced, not dealt yet
        self.progress = progress

    def step(self, session: Session) -> None:
        if self.out is None:
            self.out = Replayed([p.name for p in session.log.players], [], [])
        self.session = session
        out, names = self.out, self.out.names
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
                text = describe_event(g, names, None, e)
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
        if moved:
            self._frame(round_end)
        if self.progress is not None and session._done_seq % 256 == 0:
            self.progress(session._done_seq)

    def _frame(self, round_end: list[str] | None) -> None:
        assert self.out is not None and self.session is not None
        s = self.session
        self.out.frames.append(
            Frame(
                s._done_seq,
                freeze(s.engine),
                s.outcome,
                s.deck_no,
                len(self.out.lines),
                self.verification.audits,
                list(self.verification.disputes),
                round_end,
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
                self._frame(None)
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
        self.index = 0
        self.mode = "play"  # "help", "goto"
        self.typed = ""
        self.message = ""
        self.on_rendered: Callable[[], None] | None = None
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
    def view(self) -> TableView:
        f = self.r.frames[self.index]
        faces = self.r.deck_faces.get(f.deck)
        vi = ViewInputs(
            names=self.r.names,
            me=None,
            title=f"p2puno replay · {_log_name(self.path)}" if self.path else "replay",
            log=self.r.lines[: f.log_len],
            verification=Verification(f.audits, f.disputes),
            show_all=faces is not None,
            faces=faces,
        )
        v = table_view(_FrameSource(f), UiState(round_end=f.round_end), vi)
        last = self.index == len(self.r.frames) - 1
        status = f"move {self.index + 1}/{len(self.r.frames)} · step {f.step}"
        if v.all_hands:
            status += " · every hand face up (this deck was audited)"
        elif faces is None and f.deck >= 2:
            status += " · hands hidden (this deck was never audited)"
        hands = v.all_hands
        if not hands and any(f.engine.hands) and f.engine.phase is not Phase.DEALER_DRAW:
            # a deck never audited: its hands stay hidden, their sizes shown
            hidden = CardView(UNKNOWN_CARD, -1, "??", WILD)
            hands = [
                (self.r.names[s] if s < len(self.r.names) else f"seat {s}", [hidden] * len(h))
                for s, h in enumerate(f.engine.hands)
            ]
        end = v.end
        if last:
            end = [*(end or []), *self.verdict_lines()]
            end = [ln for ln in end if not ln.startswith("  verification:")]
        help_line = "→ next · ← back · ↓ next round · ↑ round start · g go to round · End · ? · q"
        if self.mode == "goto":
            help_line = f"go to round: {self.typed}▏ (Enter · Esc)"
        return replace(
            v,
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
        )

    def verdict_lines(self) -> list[str]:
        v = self.r.verdict
        if v is None:
            return ["  verdict: not checked"]
        if v.ok:
            checked = "every signature, shuffle, key and move checks out"
            if v.outcome is not None and v.outcome.state == "stopped":
                # (helper-32: said of a stopped game, whose deck in play was never opened, it
                # read as a full audit under "hands hidden (this deck was never audited)")
                checked = "every signature and move checks out; the deck in play was never audited"
            return [
                f"  VERIFIED offline: {v.entries} entries; {checked}",
                *(
                    f"  note: {named(b, self.r.names)} (unchallenged bluffs stand)"
                    for b in v.bluffs
                ),
            ]
        if v.incomplete:
            return [
                "  NOT OVER: every entry verifies, but the log ends before the game does (a game",
                "  still going on, one its node may resume, or a copy cut short, such as a",
                "  spectator's that left early); no verdict",
            ]
        where = f"entry {v.bad_entry}" if v.bad_entry is not None else "the log"
        out = [f"  REJECTED at {where}: {v.error}"]
        if v.author is not None and 0 <= v.author < len(self.r.names):
            out.append(f"  at fault: {self.r.names[v.author]} (seat {v.author})")
        return out

    def lines(self, width: int, height: int) -> list[Line]:
        if self.mode == "help":
            out = [fit_line([("", " " + t)], width) for t in REPLAY_HELP][: height - 1]
            while len(out) < height - 1:
                out.append([("", " " * width)])
            out.append(fit_line([("class:help", " any key: back")], width, "class:help"))
            return out
        return render(self.view(), width, height)

    def _fragments(self) -> StyleAndTextTuples:
        size = self.app.output.get_size()
        return screen_text(self.lines(size.columns, size.rows))  # type: ignore[return-value]


def _log_name(path: str) -> str:
    """The log's name for the title: a node's own log is ``games/<game id>/log``, named by its
    game (the title read "p2puno replay · log")."""
    base = os.path.basename(path)
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return f"game {parent}" if base == "log" and parent else base


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
) -> ReplayResult | None:
    """Load and verify the log, then show it until the person leaves; the verdict. A log
    that cannot be drawn at all is not shown: its verdict says why (as `p2puno replay`)."""

    def progress(step: int) -> None:  # (a long game takes seconds to check: say so)
        if sys.stderr.isatty():
            sys.stderr.write(f"\rchecking the log: step {step} ...")
            sys.stderr.flush()

    try:
        replayed = load(path, thorough=thorough, progress=progress)
    except Unreadable as e:
        return e.verdict
    finally:
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[K")
    table = ReplayTable(replayed, path=path, input=input, output=output)
    await table.app.run_async()
    return replayed.verdict
