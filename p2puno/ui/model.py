"""The table's view model: plain data computed from a game's state, no prompt-toolkit here.

:func:`table_view` reads a :class:`Source` (a :class:`~p2puno.session.Session`, an offline
replay's observer session, or a bare engine in tests and benchmarks), the prompt the person
owes, the recent moves and the UI's own state (cursor, mode, what is being typed) and returns
a :class:`TableView`: what the screen shows, in words. The same inputs give the same view, so
rendering is tested without a terminal. :func:`parse_typed` and :func:`resolve_play` turn what
the person typed or picked into one of the prompt's actions, or say in words why not: an
illegal choice is explained here and never reaches the session.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from p2puno.engine.actions import Action, Kind, parse_action
from p2puno.engine.cards import (
    CARD_COLOR,
    CARD_POINTS,
    CARD_RANK,
    CARD_TEXT,
    COLORS,
    DRAW_TWO,
    UNKNOWN_CARD,
    WILD,
    WILD_CARD,
    WILD_DRAW_FOUR,
    NotationError,
    face_text,
    parse_color,
    parse_face,
)
from p2puno.engine.game import CHALLENGE_EXTRA, UNO_PENALTY, Event, Game, IllegalAction, Phase
from p2puno.node.game import (
    CHAT_MAX,
    back_within,
    command,
    owed_words,
    shell_path,
    stop_gives,
    void_words,
)
from p2puno.session.session import Outcome, Prompt, SessionEvent, Timing, Waiting
from p2puno.session.words import in_a_sentence, named, waited_for_first
from p2puno.session.words import session_words as describe_session_event
from p2puno.sim.words import card_name, color_name
from p2puno.sim.words import event_words as describe_event
from p2puno.ui.cells import cells as _cells


class Source(Protocol):
    """What the table reads: a Session has all of it (an observer session too)."""

    @property
    def engine(self) -> Game: ...

    @property
    def outcome(self) -> Outcome: ...

    def waiting(self) -> Waiting: ...


# ---------------------------------------------------------------------- words
def card_sort_key(card: int) -> tuple[int, int]:
    color = CARD_COLOR[card] if card >= 0 else 5
    return (4 if color == WILD else color, CARD_RANK[card] if card >= 0 else 99)


# ---------------------------------------------------------------------- the UI's own state
MODES = ("play", "color", "target", "type", "help", "quit", "seat", "unseat")


@dataclass
class UiState:
    """What the person is doing on the screen (the app mutates it, from loop callbacks)."""

    cursor: int = 0  # index into the sorted hand
    mode: str = "play"  # one of MODES
    typed: str = ""  # the text after ':' in type mode
    uno: bool = False  # call UNO with the card about to be played
    pending: tuple[Action, ...] = ()  # variants left to choose among (color or seat)
    message: str = ""  # the last explanation (an illegal choice, what happened)
    flash: str = ""  # a moment worth a line of its own (a reshuffle, a swap)
    round_end: list[str] | None = None  # the last round's end, until dismissed
    round_end_no: int = 0  # the round that box is of (0: not known)
    seat_choice: str = ""  # catch: which seat ("catch" mode)
    help_page: int = 0  # the lobby's help: the page shown (from 0)


@dataclass(frozen=True)
class CardView:
    card: int  # -1: not known to this view
    slot: int
    text: str
    color: int  # 0..3, WILD (-1) for a Wild or an unknown card
    playable: bool = False
    drawn: bool = False
    selected: bool = False


@dataclass(frozen=True)
class SeatRow:
    seat: int
    name: str
    kind: str  # "person", "bot" or "" (not known)
    you: bool
    cards: int
    uno: str  # "UNO" (one card), "open!" (one card, UNO not called: may be caught), ""
    score: int
    on_turn: bool
    note: str = ""  # "dealer", "disconnected", "run by the host"...


@dataclass(frozen=True)
class TableView:
    title: str
    seats: list[SeatRow]
    top: CardView | None
    color: str  # the color in play, in words
    color_code: int
    direction: str
    pending: str
    status: str  # what is awaited from whom (with a countdown when one runs)
    status_kind: str  # "you" (you owe a decision), "wait", "over"
    hand: list[CardView]
    help_line: str  # the keys that apply now
    choice_lines: list[str]  # the prompt's options in words (what each costs)
    shown: list[CardView]  # the challenged hand shown to you
    log: list[str]
    message: str
    verification: str
    round_info: str
    end: list[str] | None = None  # the game's end (or the round's end while shown)
    mode: str = "play"
    typed: str = ""
    deadline: float | None = None  # seconds left of what is awaited
    progress: str = ""
    watchers: str = ""
    all_hands: list[tuple[str, list[CardView]]] = field(default_factory=list)  # replay
    no_seat: str = "no hand: watching"  # what the hand's place says with no seat of one's own
    box_note: str = ""  # a word on the end box's top border (a decision's clock under it)
    status_shorter: tuple[str, ...] = ()  # the status in fewer words (render: the first that fits)
    # commands a person types, each with what to say instead where it is wider than the screen
    # (render never breaks one: a line whose text is one stands whole, or those words do)
    commands: tuple[tuple[str, str], ...] = ()
    watch: str = ""  # this node's `p2puno watch` address (the help names it), "" not known
    # no seat here (a spectator; a replay draws its own help): the help names only what
    # watching can do (helper-92's spectator read "On your turn" and "m say ...")
    spectator: bool = False


@dataclass
class Verification:
    """What the crypto layer has said, for the header: audits, bluffs, disputes, verdicts."""

    audits: int = 0
    disputes: list[str] = field(default_factory=list)
    bluffs: int = 0

    def note(self, ev: SessionEvent) -> None:
        if ev.kind == "audit":
            self.audits += 1
        elif ev.kind == "dispute":
            self.disputes.append(ev.text)
        elif ev.kind == "bluff":
            self.bluffs += 1


# ---------------------------------------------------------------------- choices
def plays_of(prompt: Prompt | None, slot: int) -> list[Action]:
    if prompt is None:
        return []
    return [a for a in prompt.actions if a.slot == slot and a.kind in (Kind.PLAY, Kind.JUMP)]


def simple_of(prompt: Prompt | None, kind: Kind) -> Action | None:
    if prompt is None:
        return None
    return next((a for a in prompt.actions if a.kind is kind and a.slot < 0), None)


def catches_of(prompt: Prompt | None) -> list[Action]:
    if prompt is None:
        return []
    return [a for a in prompt.actions if a.kind is Kind.CATCH]


def resolve_play(
    variants: Sequence[Action], uno: bool, choose: int = -1, target: int = -1
) -> tuple[Action | None, str, tuple[Action, ...]]:
    """Pick one of a card's variants: (the action, "", ()) or (None, what is still needed:
    "color" or "target", the variants left) or (None, "no", ()) if none fits."""
    if not variants:
        return None, "no", ()
    left = list(variants)
    has_uno = any(a.uno for a in left)
    if has_uno:
        left = [a for a in left if a.uno == uno]
    if choose >= 0:
        left = [a for a in left if a.choose == choose]
    if target >= 0:
        left = [a for a in left if a.target == target]
    if not left:
        return None, "no", ()
    if len({a.choose for a in left}) > 1:
        return None, "color", tuple(left)
    if len({a.target for a in left}) > 1:
        return None, "target", tuple(left)
    return left[0], "", ()


def _normal_face(text: str) -> str:
    """Accept any case: "R7" -> "r7", "bs" -> "bS", "w+4" -> "W+4"."""
    if not text:
        return text
    if text[0] in "wW":
        return "W" + text[1:].upper()
    return text[0].lower() + text[1:].upper()


def parse_typed(
    text: str, prompt: Prompt | None, game: Game, me: int, names: Sequence[str] = ()
) -> tuple[Action | None, str, tuple[Action, ...]]:
    """What the person typed after ':' as one of the prompt's actions.

    Accepts a face with its options (``r7``, ``W:g``, ``W+4:b!``, ``g7>2``, ``jump g7``), a
    word (``draw``, ``keep``, ``take``, ``challenge``, ``uno``, ``catch 2``, ``pass``,
    ``guilty``, ``innocent``, ``color g``) or the log's own notation (``0 r7#45``). Returns
    (action, "", ()), or (None, "color"/"target", variants) when a choice is still needed, or
    (None, why not in words, ())."""
    t = " ".join(text.strip().split())
    if not t:
        return None, "type a card (r7, W:g, g+2) or a word (draw, keep, take, uno, pass)", ()
    if prompt is None:
        return None, "nothing to decide now: wait for your turn", ()
    offered = prompt.actions
    low = t.lower()
    if low == "pass":
        if prompt.kind == "turn":
            return None, "you cannot pass on your turn: play a card or draw", ()
        return None, "pass", ()
    if low in ("draw", "keep", "take", "challenge", "uno", "guilty", "innocent"):
        kind = Kind(low)
        a = next((x for x in offered if x.kind is kind), None)
        if a is not None:
            return a, "", ()
        return None, _why_not_simple(kind, game, me), ()
    if low.startswith("catch"):
        rest = low[5:].strip()
        catches = [a for a in offered if a.kind is Kind.CATCH]
        if not catches:
            return None, "nobody can be caught now", ()
        if not rest and len(catches) == 1:
            return catches[0], "", ()
        target = _seat_of(rest, names)
        a = next((x for x in catches if x.target == target), None)
        if a is None:
            who = ", ".join(str(x.target) for x in catches)
            return None, f"catch whom? seats that can be caught: {who}", ()
        return a, "", ()
    if low.startswith("color"):
        try:
            c = parse_color(low[5:].strip())
        except NotationError as e:
            return None, str(e), ()
        a = next((x for x in offered if x.kind is Kind.COLOR and x.choose == c), None)
        return (a, "", ()) if a is not None else (None, "no color to name now", ())
    if t[0].isdigit() and " " in t:  # the log's notation
        try:
            a = parse_action(t)
        except NotationError as e:
            return None, str(e), ()
        if a in offered:
            return a, "", ()
        return None, _why_not(a, game), ()
    jump = False
    if low.startswith("jump "):
        jump, t = True, t[5:].strip()
    uno = t.endswith("!")
    if uno:
        t = t[:-1]
    target = -1
    if ">" in t:
        t, _, who = t.partition(">")
        target = _seat_of(who.strip(), names)
        if target < 0:
            return None, f"no seat {who.strip()!r}", ()
    choose = -1
    if ":" in t:
        t, _, ctext = t.partition(":")
        try:
            choose = parse_color(ctext.strip().lower())
        except NotationError as e:
            return None, str(e), ()
    face = _normal_face(t.strip())
    try:
        color, rank = parse_face(face)
    except NotationError:
        # (in the person's own spelling: the normalised one read "fOO" for "foo")
        return (
            None,
            (
                f"{text.strip()!r} is neither a card (r7, W:g, g+2, jump g7) nor a word (draw, "
                "keep, take, challenge, uno, catch, pass)"
            ),
            (),
        )
    mine = [
        s
        for s in game.hands[me]
        if game.faces[s] >= 0
        and CARD_COLOR[game.faces[s]] == color
        and CARD_RANK[game.faces[s]] == rank
    ]
    if not mine:
        return None, f"you have no {face} ({card_name(_any_card(color, rank))})", ()
    variants = [
        a
        for a in offered
        if a.kind in (Kind.PLAY, Kind.JUMP)
        and a.slot in mine
        and (a.kind is Kind.JUMP) == (jump or prompt.kind != "turn")
    ]
    if not variants:
        kind = Kind.JUMP if jump or prompt.kind != "turn" else Kind.PLAY
        slot = mine[0]
        probe = Action(me, kind, slot, color, rank, choose if rank >= WILD_CARD else -1, -1)
        if rank >= WILD_CARD and choose < 0:
            probe = probe._replace(choose=0)
        return None, _why_not(probe, game), ()
    # prefer the drawn card, then the first of that face
    variants.sort(key=lambda a: (a.slot != game.drawn, a.slot))
    first = [a for a in variants if a.slot == variants[0].slot]
    if uno and not any(a.uno for a in first):
        # (the "!" is refused, not dropped: the person believes they call UNO)
        n = len(game.hands[me])
        return None, f"UNO is called with your next-to-last card: you hold {n}, leave out the !", ()
    action, need, left = resolve_play(first, uno, choose, target)
    if action is None and need == "no":
        return None, "that is not one of the choices now", ()
    return action, need, left


def _seat_of(text: str, names: Sequence[str]) -> int:
    if text.isdigit():
        return int(text)
    for i, n in enumerate(names):
        if n.lower() == text.lower():
            return i
    return -1


def _any_card(color: int, rank: int) -> int:
    for c in range(len(CARD_TEXT)):
        if CARD_COLOR[c] == color and CARD_RANK[c] == rank:
            return c
    return -1


def _why_not(action: Action, game: Game) -> str:
    try:
        game.check(action)
    except IllegalAction as e:
        penalty = game.phase is Phase.PENALTY and action.seat == game.turn
        if penalty and action.kind in (Kind.DRAW, Kind.PLAY) and not e.reason.startswith("only"):
            return penalty_words(game)  # (the engine's general reason named the wrong card)
        return e.reason
    return "that is not one of the choices now"


def penalty_words(game: Game) -> str:
    """What the seat on turn may do with a Draw card pending on it, in words (a review: a
    typed draw was told "you may draw only at the start of your turn" under a Draw Two)."""
    what = "Draw Two" if game.pending_rank == DRAW_TWO else "Wild Draw Four"
    ways = [f"t takes the {game.pending} cards"]
    if game.options.progressive:
        ways.append(f"or stack another {what} on it")
    try:
        game.check(Action(game.turn, Kind.CHALLENGE))
        ways.append("or c challenges it")
    except IllegalAction:
        pass
    return f"a {what} is on you: " + ", ".join(ways)


def _why_not_simple(kind: Kind, game: Game, me: int) -> str:
    if game.turn != me and kind in (Kind.DRAW, Kind.KEEP, Kind.TAKE, Kind.CHALLENGE):
        return "it is not your turn"
    return _why_not(Action(me, kind), game)


# ---------------------------------------------------------------------- the view
@dataclass
class ViewInputs:
    """Everything :func:`table_view` reads besides the source (plain values)."""

    names: list[str]
    me: int | None  # None: a spectator or a replay (no seat)
    timing: Timing = field(default_factory=Timing)
    kinds: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # per seat: "run by the host", ...
    title: str = "p2puno"
    code: str = ""
    prompt: Prompt | None = None
    prompt_left: float | None = None  # seconds left to answer the prompt
    wait_left: float | None = None  # seconds left of the deadline of whom we wait for
    log: list[str] = field(default_factory=list)
    verification: Verification = field(default_factory=Verification)
    log_path: str = ""
    show_all: bool = False  # a replay after the audit: every hand face up
    faces: list[int] | None = None  # full-information faces for show_all
    autopilot: bool = False
    watchers: list[str] = field(default_factory=list)
    spinner: int = 0
    resume_hint: str = "p2puno resume"  # with its --data-dir when not the default one
    command: str = field(default_factory=command)  # how p2puno runs from a shell here
    away: frozenset[int] = frozenset()  # seats whose link is lost (left, or unreachable)
    left: frozenset[int] = frozenset()  # ... of which these said they were leaving (a BYE)
    alone: bool = False  # this node would stop unfinished, not vote (GameNode.stops_alone)
    watch: str = ""  # HOST:PORT others watch the game at through this node ("": not known)
    serves: float = 0.0  # minutes a seat back late may get the end here (GameNode.serves_end)


def table_view(src: Source, ui: UiState, vi: ViewInputs) -> TableView:
    g = src.engine
    me = vi.me
    names = vi.names
    outcome = src.outcome
    prompt = vi.prompt
    faces = vi.faces if vi.show_all and vi.faces is not None else g.faces

    def face(slot: int) -> int:
        return faces[slot] if 0 <= slot < len(faces) else UNKNOWN_CARD

    # the seats
    rows = []
    in_play = g.phase not in (Phase.DEALER_DRAW, Phase.GAME_OVER) and bool(g.hands)
    in_play = in_play and not src.outcome.over  # (a stopped game: nobody is on turn)
    for s in range(g.players):
        cards = len(g.hands[s]) if s < len(g.hands) else 0
        uno = ""
        if in_play and cards == 1:
            uno = "open!" if s in g.vulnerable else "UNO"
        notes = []
        if s == g.dealer:
            notes.append("dealer")
        if s < len(vi.notes) and vi.notes[s]:
            notes.append(vi.notes[s])
        rows.append(
            SeatRow(
                seat=s,
                name=names[s] if s < len(names) else f"seat {s}",
                kind=vi.kinds[s] if s < len(vi.kinds) else "",
                you=s == me,
                cards=cards,
                uno=uno,
                score=g.scores[s] if s < len(g.scores) else 0,
                on_turn=s == g.turn and g.phase not in (Phase.GAME_OVER,) and in_play,
                note=", ".join(notes),
            )
        )
    # the top card and the color
    top = None
    if g.discard:
        c = face(g.discard[-1])
        top = CardView(
            c, g.discard[-1], CARD_TEXT[c] if c >= 0 else "??", CARD_COLOR[c] if c >= 0 else WILD
        )
    # (no arrow: "→ left" read as a contradiction; the seat numbers are on the screen)
    direction = (
        "up the seat numbers (to the left)"
        if g.direction == 1
        else "down the seat numbers (reversed)"
    )
    pending = ""
    if g.pending:
        what = "Draw Two" if g.pending_rank == DRAW_TWO else "Wild Draw Four"
        victim = names[g.turn] if 0 <= g.turn < len(names) and g.turn != me else "you"
        pending = f"+{g.pending} pending on {victim} ({what})"
    # the hand
    hand: list[CardView] = []
    playable: set[int] = set()
    if prompt is not None:
        playable = {a.slot for a in prompt.actions if a.kind in (Kind.PLAY, Kind.JUMP)}
    if me is not None and me < len(g.hands):
        slots = sorted(g.hands[me], key=lambda s: (card_sort_key(face(s)), s))
        cur = min(max(ui.cursor, 0), len(slots) - 1) if slots else 0
        for i, s in enumerate(slots):
            c = face(s)
            hand.append(
                CardView(
                    c,
                    s,
                    CARD_TEXT[c] if c >= 0 else "??",
                    CARD_COLOR[c] if c >= 0 else WILD,
                    playable=s in playable,
                    drawn=g.phase is Phase.DRAWN and s == g.drawn and g.turn == me,
                    selected=i == cur and ui.mode in ("play", "color", "target"),
                )
            )
    # the challenged hand, shown to the challenger
    shown: list[CardView] = []
    if me is not None and g.phase is Phase.VERDICT and g.turn == me:
        for s in sorted(g.wd4_hand, key=lambda s: card_sort_key(face(s))):
            c = face(s)
            shown.append(
                CardView(c, s, CARD_TEXT[c] if c >= 0 else "??", CARD_COLOR[c] if c >= 0 else WILD)
            )
    # every hand, face up (a replay, once the deck has been audited)
    all_hands: list[tuple[str, list[CardView]]] = []
    if vi.show_all and vi.faces is not None and any(g.hands) and g.phase is not Phase.DEALER_DRAW:
        for s, h in enumerate(g.hands):
            in_hand = sorted(h, key=lambda x: (card_sort_key(face(x)), x))
            views = [
                CardView(
                    face(x),
                    x,
                    CARD_TEXT[face(x)] if face(x) >= 0 else "??",
                    CARD_COLOR[face(x)] if face(x) >= 0 else WILD,
                    drawn=g.phase is Phase.DRAWN and x == g.drawn,
                )
                for x in in_hand
            ]
            all_hands.append((names[s] if s < len(names) else f"seat {s}", views))
    status, kind, deadline, progress, shorter = _status(src, vi, prompt, names, me)
    choice_lines, help_line = _choices(
        g, prompt, ui, names, me, vi, outcome.over, _played_out(src), verified_dealt(src)
    )
    if me is not None and not outcome.over and "m say" not in help_line:
        # (the chat at every decision too: helper-34 found it only in the idle footer)
        help_line = help_line.replace("? help", "m say · ? help")
    verification = _verification(outcome, vi.verification)
    end = ui.round_end
    if outcome.over:
        # the game's end, and under it the last round's (every hand left, its points)
        last_round = [ln for ln in ui.round_end or [] if not ln.startswith("  scores:")]
        if outcome.state != "finished" and not (last_round and _played_out(src)):
            # a stopped game (or a cheat's): the round in play as this screen knows it, the
            # cards in each hand (helper-71's brief: the box dropped the last round's hands,
            # and at 80 columns the seat list is not in view then); a round played to its end
            # before the stop keeps its own end, every hand, if its box is still up
            last_round = hands_known_lines(g, names, me)
        end = _end(src, vi, names, me) + (["", *last_round] if last_round else [])
    # the round in play, whatever box is up (helper-54 read "round 1 over" through round 2's
    # first turn: the box of the round before stays until a key closes it, and it names its
    # own round; the footer says which round's end it closes)
    round_info = f"round {g.round_no}" if g.round_no else "draw for dealer"
    round_info += f" · to {g.options.target}"
    title = vi.title + (f" · code {vi.code}" if vi.code else "")
    return TableView(
        title=title,
        seats=rows,
        top=top,
        color=color_name(g.color),
        color_code=g.color,
        direction=direction,
        pending=pending,
        status=status,
        status_shorter=shorter,
        status_kind=kind,
        hand=hand,
        help_line=help_line,
        choice_lines=choice_lines,
        shown=shown,
        log=list(vi.log),
        message=ui.message,
        verification=verification,
        round_info=round_info,
        end=end,
        mode=ui.mode,
        typed=ui.typed,
        deadline=deadline,
        progress=progress,
        watchers=str(len(vi.watchers)) if vi.watchers else "",
        all_hands=all_hands,
        commands=((vi.resume_hint, LEAVE_WIDE),) if ui.mode == "quit" and me is not None else (),
        # (not once the game is over: a node refuses a spectator then, "the game is over",
        # and helper-99's help still offered the command)
        watch=vi.watch if not outcome.over else "",
        spectator=me is None,
    )


# where the leave question's resume command is, when it is wider than the screen (the command
# line prints it once the table is left: cli._finish_table)
LEAVE_WIDE = "(the command is wider than this screen: the terminal shows it when you leave)"

# what the log's path on the end box says when one of its parts is wider than the box (the
# command line prints the path once the table closes: cli._finish)
LOG_LEAD = "  log: "


# what the seat on turn is deciding, by the engine's phase ("to play" is the rest)
_TO_ACT = {
    Phase.START_COLOR: "to name the color of the Wild turned up",
    Phase.DRAWN: "to play or keep the drawn card",
    Phase.PENALTY: "to answer the Draw card played on them",
    Phase.VERDICT: "to say what the challenged hand shows",
}

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def _status(
    src: Source, vi: ViewInputs, prompt: Prompt | None, names: Sequence[str], me: int | None
) -> tuple[str, str, float | None, str, tuple[str, ...]]:
    g = src.engine
    outcome = src.outcome
    if outcome.over:
        return "the game is over", "over", None, "", ()
    progress = ""
    shuffles = getattr(src, "shuffles", None)
    if shuffles:
        sh = shuffles[-1]
        view = getattr(sh, "view", None)
        if view is not None and not view.complete:
            n = g.players
            done = len(view.steps)
            committed = getattr(sh, "committed", True)
            bar = "■" * done + "□" * (2 * n - done)
            what = "a new deck" if g.need is None or not g.need.sources else "a reshuffle"
            step = f"pass {done}/{2 * n}" if committed else "committing to keys"
            progress = f"shuffling {what} together: {step} {bar}"
    if outcome.state == "stopping":
        # (the seats still to vote are waited for a step_s: the count would say nothing)
        ending = "a player did not answer in time: the game is ending for everyone"
        return ending, "wait", None, stop_words(src), ()
    if prompt is not None:
        left = vi.prompt_left
        what = {
            "turn": "your turn",
            # the keys of a claim, in the line with its countdown: the window is a few seconds,
            # the same for every seat (spec 10.9), and helper-54 read "the claim window is open
            # for you" with no word of which key claims, while the bots claimed at once
            "claim": f"claim now: {_claim_keys(prompt, names)}",
            "react": f"your claim is up: {_claim_keys(prompt, names)}",
        }.get(prompt.kind, prompt.kind)
        if vi.autopilot and prompt.kind == "turn":  # (with its count, in 80 columns)
            if left is not None and left < 1.0:  # (it read "your bot plays it at 0 s")
                what += " (your bot is playing it: any key takes the seat back)"
                left = None
            else:
                what += " (your bot plays it when this ends: any key takes it back)"
        elif vi.autopilot:
            what += " (your node's bot played your last turn: any key takes the seat back)"
        shorter: tuple[str, ...] = ()
        if prompt.kind in ("claim", "react"):
            # the same keys in fewer words (render takes the first that fits beside the count):
            # three keys and a count wrapped to two lines at 80 columns (helper-77's brief)
            head = "claim: " if prompt.kind == "claim" else "your claim: "
            shorter = tuple(head + _claim_keys(prompt, names, short) for short in (1, 2, 3))
            if vi.autopilot:
                suffix = " (your node's bot played your last turn: any key takes the seat back)"
                shorter = tuple(x + suffix for x in shorter)
        return what, "you", left, progress, shorter
    w = src.waiting()
    spin = SPINNER[vi.spinner % len(SPINNER)]
    if w.seats:
        by_what: dict[str, list[int]] = {}
        for s in w.seats:
            owed = w.owed.get(s, "")
            word = owed_words(w.kind, owed)  # (the node's lines say it the same way)
            if w.kind == "action" and "response" not in owed:
                word = _TO_ACT.get(g.phase, word)
                if g.phase is Phase.PENALTY and g.top >= 0:  # (helper-30: "the Draw card")
                    card = "Wild Draw Four" if CARD_RANK[g.top] == WILD_DRAW_FOUR else "Draw Two"
                    word = f"to answer the {card} played on them"
            by_what.setdefault(word, []).append(s)
        claims = _claims(src, names) if w.kind == "window" else ""
        texts = []  # the wait in words, then shorter (render takes the first that fits)
        for short in range(3):
            if claims:
                who = _who_waited(w.seats, vi, names, short)
                texts.append(f"claim window ({claims}): waiting for {who}")
                continue
            text = "waiting for " + "; ".join(
                f"{_who_waited(ss, vi, names, short)} {word}" for word, ss in by_what.items()
            )
            if bots_deciding(w, vi):  # (its count shows once it is slow: BOT_QUIET_S)
                text += ": it is thinking"
            texts.append(text)
        text = texts[0]
        gone = [s for s in w.seats if s in vi.away or s in vi.left]
        if gone and w.kind != "stop":  # (what a seat gone for good does: said before it does)
            they = "they are" if len(gone) > 1 else f'"{names[gone[0]]}" is'
            if vi.alone:  # (as the node's own line says: it does not vote alone)
                progress = (
                    f"unless {they} back in time, your node stops, the game unfinished here: it "
                    "is connected to no other player, and does not end the game on its own"
                )
            else:
                gives = stop_words(src)
                progress = f"unless {they} back in time, the game ends for everyone: {gives}"
        shorter = tuple(f"{spin} {t}" for t in dict.fromkeys(texts[1:]) if t != text)
        return f"{spin} {text}", "wait", vi.wait_left, progress, shorter
    if w.kind == "window" and _claims(src, names):
        return f"{spin} claim window: {_claims(src, names)}", "wait", None, progress, ()
    if g.phase is Phase.GAME_OVER:
        return f"{spin} the last deck is being audited", "wait", None, progress, ()
    if me is None:
        return f"{spin} following the table", "wait", None, progress, ()
    return f"{spin} your node is working (keys, checks)", "wait", None, progress, ()


BOT_QUIET_S = 5.0  # a bot's decision shows no count for this long (a machine answers at once)


def _who_waited(seats: Sequence[int], vi: ViewInputs, names: Sequence[str], short: int) -> str:
    """The seats waited for, in words. ``short`` 0: each named, the bots together ('"Ann" and
    the bots "Bot-1" and "Bot-2"': a bot's wait is no person's minute, helper-64's brief);
    1: the names alone; 2: a count of those with nothing to add ("3 bots"). A seat not
    connected, or that left, is named with that at every length: it is what matters then.
    A wait on three bots wrapped to two lines at 80 columns (helper-71's brief)."""

    def name(s: int) -> str:
        return f'"{names[s]}"' if 0 <= s < len(names) else f"seat {s}"

    def gone(s: int) -> str:
        if s in vi.left:
            return " (left the table)"
        return " (not connected)" if s in vi.away else ""

    marked = [s for s in seats if gone(s)]
    people = [s for s in seats if not gone(s) and not is_bot(vi, s)]
    bots = [s for s in seats if not gone(s) and is_bot(vi, s)]
    parts = [
        ("the bot " if not short and is_bot(vi, s) else "") + name(s) + gone(s) for s in marked
    ]
    if short == 2 and len(people) > 1:
        parts.append(f"{len(people)} players")
    else:
        parts += [name(s) for s in people]
    if short == 2 and len(bots) > 1:
        parts.append(f"{len(bots)} bots")
    elif short == 0 and bots:
        some = in_a_sentence([name(s) for s in bots])
        parts.append(("the bots " if len(bots) > 1 else "the bot ") + some)
    else:
        parts += [name(s) for s in bots]
    return in_a_sentence(parts)


def is_bot(vi: ViewInputs, seat: int) -> bool:
    """Whether the table's roster says ``seat`` is a bot (its own word, as the seat list's
    "·bot" is: a seat that said "bot" and is slow gets its count after BOT_QUIET_S)."""
    return 0 <= seat < len(vi.kinds) and vi.kinds[seat] == "bot"


def bots_deciding(w: Waiting, vi: ViewInputs) -> bool:
    """The wait is for a turn's decision of bots only, every one of them connected: nothing
    a person weighs, so no count at first (the app shows one after BOT_QUIET_S)."""
    if w.kind != "action" or not w.seats:
        return False
    if any("response" in w.owed.get(s, "") for s in w.seats):
        return False
    return all(is_bot(vi, s) and s not in vi.away and s not in vi.left for s in w.seats)


def _claim_keys(prompt: Prompt, names: Sequence[str], short: int = 0) -> str:
    """The keys of a claim prompt, in a few words ('c catch "Bob" · Esc let it pass');
    ``short`` 1: "u UNO"; 2: also "Esc pass", "j/Enter", "(then its seat)"; 3: also the
    one to catch unnamed (the choice lines under the hand name them). Every key is named
    with what it does at every length (helper-77's brief: shorter words, not less said)."""
    keys = []
    if simple_of(prompt, Kind.UNO) is not None:
        keys.append("u UNO" if short else "u call UNO")
    catches = catches_of(prompt)
    if len(catches) == 1 and short < 3:
        t = catches[0].target
        keys.append(f'c catch "{names[t]}"' if 0 <= t < len(names) else "c catch")
    elif catches and short < 2:
        keys.append("c catch (then the seat's number)")
    elif catches:
        keys.append("c catch (then its seat)" if len(catches) > 1 else "c catch")
    if any(a.kind is Kind.JUMP for a in prompt.actions):
        # (Enter plays the card under the cursor, which jumps in when it can: helper-63 did
        # so by an Enter meant for something else, unsaid here)
        keys.append("j/Enter jump in" if short >= 2 else "j / Enter jump in")
    keys.append("Esc pass" if short >= 2 else "Esc let it pass")
    return " · ".join(keys)


def verified_dealt(src: Source) -> tuple[bool, bool]:
    """Whether a round's deck has been verified yet (``Session.audited_deck`` >= 2: deck 1 is
    the draw for dealer's) and whether a round has been dealt (``Session.deck_no`` >= 2), as
    node.game.session_stop_gives reads them; a source that cannot tell (a bare engine): by the
    engine's round, round 1 having none verified."""
    g = src.engine
    audited, deck = getattr(src, "audited_deck", None), getattr(src, "deck_no", None)
    verified = audited >= 2 if isinstance(audited, int) else g.round_no >= 2
    dealt = deck >= 2 if isinstance(deck, int) else g.round_no >= 1
    return verified, dealt


def stop_words(src: Source) -> str:
    """What a game stopped now would give, in the node's words (node.game.stop_gives): in
    round 1, that the scores stay at 0, none having been verified (spec 10.15, "What it
    gives"; it said "as at the last verified round" there, helper-64's brief)."""
    return stop_gives(_played_out(src), *verified_dealt(src))


def _played_out(src: Source) -> bool:
    """Whether a round has been played to its end and only its deck's check is missing
    (Session.round_played_out; a source that cannot tell: no)."""
    played_out = getattr(src, "round_played_out", None)
    return bool(played_out()) if played_out is not None else False


def _claims(src: Source, names: Sequence[str]) -> str:
    """What may be claimed in the window in progress, in words ('UNO call or catch on "Bob";
    jump-ins'), by the session's public facts (spec 10.9); "" when nothing can be (a
    window every seat passes at once: the words "claim window" read as a moment to act).
    A source that cannot tell (none but a session's) names every kind of claim. Which claims
    are open is the session's to say (Session.claims_open), never worked out here."""
    claims_open = getattr(src, "claims_open", None)
    if claims_open is None:
        return "UNO calls, catches, jump-ins"
    seats, jump = claims_open()  # (the session's rule: Session.claims_open)
    parts = []
    if seats:
        who = in_a_sentence(
            [f'"{names[s]}"' if 0 <= s < len(names) else f"seat {s}" for s in seats]
        )
        parts.append(f"UNO call or catch on {who}")
    if jump:
        parts.append("jump-ins")
    return "; ".join(parts)


CHOICE_COLUMNS = 79  # a choice line's room at 80 columns (render: one space before it)


def _wd4_lines(offender: str, n: int, color: str) -> list[str]:
    """A Wild Draw Four on you, in three lines of at most 79 cells: with a name of 20
    characters the offender's two mentions were cut at the 80-column edge ("you see
    Bartholomew-the-Grea", helper-83). Fewer words first, then "they" for the second
    mention, then the name only once, on the first line (a name may have 32 characters)."""
    extra = n + CHALLENGE_EXTRA
    first = [f"A Wild Draw Four on you: take {n}, or challenge it."]
    takes = [
        f"t take: you draw {n}, turn lost.  c challenge: you see {offender}'s hand;",
        f"t take: draw {n}, turn lost.  c challenge: see {offender}'s hand;",
    ]
    ifs = [
        f"  if it held a {color} card, {offender} draws {n} and you play; if not, you draw "
        f"{extra}.",
        f"  if it held a {color} card, they draw {n} and you play; if not, you draw {extra}.",
    ]
    for take in takes:
        for if_ in ifs:
            if _cells(take) <= CHOICE_COLUMNS and _cells(if_) <= CHOICE_COLUMNS:
                return [*first, take, if_]
    return [
        f"{offender}'s Wild Draw Four on you: take {n} or challenge.",
        f"t take: draw {n}, turn lost.  c challenge: see their hand;",
        ifs[1],
    ]


def _selected_rank(g: Game, me: int, ui: UiState) -> int:
    """The rank of the card under the cursor in the person's own hand, in the order
    table_view shows it (-1: none, or not known)."""
    slots = sorted(g.hands[me], key=lambda s: (card_sort_key(g.faces[s]), s))
    if not slots:
        return -1
    c = g.faces[slots[min(max(ui.cursor, 0), len(slots) - 1)]]
    return CARD_RANK[c] if c >= 0 else -1


# how every keys line of a person's own turn ends: each names q as a wait's does (helper-104
# read no way to leave on its own turn); cut first where a line does not fit (keys_fit)
_TURN_KEYS_END = " · : type · ? help · q leave"


def _choices(
    g: Game,
    prompt: Prompt | None,
    ui: UiState,
    names: Sequence[str],
    me: int | None,
    vi: ViewInputs,
    over: bool = False,
    played_out: bool = False,
    verified: tuple[bool, bool] = (True, True),
) -> tuple[list[str], str]:
    """The prompt's options in words, and the keys that apply (``played_out``: see
    _played_out)."""
    if ui.mode == "help":
        return [], "any key: back to the table"
    if ui.mode == "quit":
        if me is None:  # a spectator, or a replay: nothing depends on it
            return ["Stop watching?"], "y: leave · n / Esc: stay"
        # (the host is seat 0; its machine runs the bots noted "on host", which leave with it)
        bots = sum(1 for note in vi.notes if note == "on host") if me == 0 else 0
        s = "" if bots == 1 else "s"
        if bots and bots == g.players - 1:  # nobody else at the table: nobody to vote
            return [
                f"Leave the table? Your node stops, and the {bots} bot{s} it runs with it: every "
                "other seat is one of them, so the game waits for you. Take it up again with",
                f"  {vi.resume_hint}",
            ], "y: leave · n / Esc: stay"
        t = vi.timing
        # (what a stop gives of the round in play, in the node's words: node.game.void_words;
        # in round 1 the scores stay at 0, helper-64's brief)
        void = void_words(*verified)
        # (sentences, wrapped by the screen at its width, the command on a line of its own:
        # broken here in advance and wrapped again there, they read unevenly, helper-77's
        # brief)
        leave = [
            "Leave the table? Nobody else can play your seat: unless you come back with",
            f"  {vi.resume_hint}",
            # (your node says goodbye as it stops: the others wait step_s from then, your turn
            # or not, or from when the game next waits for your seat; it read "within 80 s on
            # your turn", helper-61: lobby.md 5; said as the others read it, helper-98)
            f"{back_within(t.step_s, 'you')}, the game ends for everyone: "
            # (a round played to its end counts unless its winner is the one missing: the
            # one leaving, here; spec 10.15, "What it gives")
            + (
                "the round just played to its end still counts, unless you won it."
                if played_out
                else f"{void}."
            ),
        ]
        if bots:
            verb = "stops" if bots == 1 else "stop"
            leave.append(f"The {bots} bot{s} this machine runs {verb} too (back with your resume).")
        return leave, "y: leave · n / Esc: stay"
    if ui.mode == "type":
        return [
            "type a card (r7, W:g, W+4:b!, g7>2, jump g7) or a word (draw, keep, take,",
            "challenge, uno, catch 2, pass): Enter to send, Esc to cancel",
        ], "Enter send · Esc cancel"
    if ui.mode == "say":
        left = CHAT_MAX - len(ui.typed)  # (helper-34: 253 typed, 200 sent, nothing said)
        return [f"a line to every seat (not a move): {left} characters left"], (
            "Enter send · Esc cancel"
        )
    if ui.mode == "color":
        return ["Name the color for your Wild:"], (
            "r red · y yellow · g green · b blue · Esc back · m say"
        )
    if ui.mode == "target":
        seats = sorted({a.target for a in ui.pending})
        who = " · ".join(f"{s} {names[s]} ({len(g.hands[s])} cards)" for s in seats)
        if ui.pending and all(a.kind is Kind.CATCH for a in ui.pending):  # (c with several:
            # it asked "Seven-O: swap hands with whom?")
            return ["Catch whom? (one card, no UNO called)", who], "a seat number · Esc back"
        return ["Seven-O: swap hands with whom?", who], "a seat number · Esc back"
    if prompt is None:
        if over:
            return [], "q / Enter / Esc: close the table (the game is over) · ? help"
        if me is None:  # (a spectator: as its help says it, helper-93)
            return [], "? help · q stop watching"
        return [], "←/→ look at your hand · : type · m say · ? help · q leave"
    acts = prompt.actions
    lines: list[str] = []
    keys: list[str] = []
    has_play = any(a.kind is Kind.PLAY for a in acts)
    # a round's end box is up over the decision: Enter (and Space, Esc) closes it and does only
    # that (app.TableUI._key); the choice line said "Play a marked card (Enter)" there while
    # the footer said Enter closes the box (helper-77's brief)
    boxed = bool(ui.round_end) and not over and ui.mode == "play"
    if prompt.kind == "turn":
        if g.phase is Phase.START_COLOR:
            lines.append("A Wild was turned up: you name the color that starts play.")
            return lines, "r red · y yellow · g green · b blue"
        if g.phase is Phase.VERDICT:
            offender = names[g.offender] if 0 <= g.offender < len(names) else "they"
            lines.append(
                f"{offender}'s hand when the Wild Draw Four was played on "
                f"{color_name(g.wd4_color)} (shown to you alone):"
            )
            verdicts = [a for a in acts if a.kind in (Kind.GUILTY, Kind.INNOCENT)]
            if len(verdicts) == 1:
                v = verdicts[0].kind.value
                lines.append(
                    f"It {'holds a' if v == 'guilty' else 'holds no'} {color_name(g.wd4_color)} "
                    f"card: the verdict is {v.upper()}"
                )
            if len(verdicts) == 1:  # (the hand decides it: the other key is refused)
                return lines, f"Enter: give the verdict ({verdicts[0].kind.value})"
            return lines, "Enter: give the verdict · g guilty · i innocent"
        if g.phase is Phase.PENALTY:
            n = g.pending
            if simple_of(prompt, Kind.CHALLENGE) is not None:
                offender = names[g.offender] if 0 <= g.offender < len(names) else "they"
                lines.extend(_wd4_lines(offender, n, color_name(g.wd4_color)))
                keys.append("t take · c challenge")
            else:
                lines.append(f"A Draw Two on you: t takes {n} and ends your turn.")
                keys.append("t take")
            if has_play:
                lines.append(
                    "Progressive: Enter closes the box, then Enter stacks a matching card on it."
                    if boxed
                    else "Progressive: stack a matching card (Enter) to pass it on."
                )
                keys.insert(0, "Enter stack")
            return lines, " · ".join(keys) + _TURN_KEYS_END
        if g.phase is Phase.DRAWN:
            face = g.faces[g.drawn] if 0 <= g.drawn < len(g.faces) else UNKNOWN_CARD
            what = f"{CARD_TEXT[face]} ({card_name(face)})" if face >= 0 else "a card"
            lines.append(
                f"You drew {what}: play it (Enter) or keep it (k)."
                if has_play and not boxed
                else f"You drew {what}: play it or keep it (k)."
                if has_play
                else f"You drew {what}, which cannot be played: k keeps it."
            )
            if has_play and boxed:  # (a line of its own: the card's name may be long)
                lines.append("Enter closes the box, then Enter plays it; k keeps it at once.")
            keys = (["Enter play it"] if has_play else []) + ["k keep"]
            if has_play and me is not None and len(g.hands[me]) == 2:
                # (helper-36: drawn to two cards, the screen never offered u, and the drawn
                # card played was caught without UNO; u worked, unsaid)
                lines.append(  # (plain words: helper-54 read "armed" as jargon)
                    "Two cards: UNO! will be called with it (u again: not called)"
                    if ui.uno
                    else "Two cards: press u to call UNO with it (UNO not called)"
                )
                keys.append("u UNO")
            return lines, " · ".join(keys) + _TURN_KEYS_END
        if has_play and boxed:
            # (its first words as before: scripts/play_tmux reads them)
            lines.append(
                "Play a marked card: Enter closes the box, then Enter plays it; d draws at once."
            )
        elif has_play:
            lines.append("Play a marked card (Enter) or draw (d).")
        else:
            lines.append("No card of yours can be played: d draws one.")
            return lines, "d draw · ←/→ look at your hand" + _TURN_KEYS_END
        # 002 · Wild Draw Four: legal only without a card of the color in play (a review
        # played one unwarned; playing it anyway is a bluff a challenge may catch)
        if me is not None and _selected_rank(g, me, ui) == WILD_DRAW_FOUR and g.wd4_bluff_now(me):
            lines.append(  # (one line at 80 columns: helper-34 read it cut mid-word)
                f"W+4 now is a bluff: you hold a {color_name(g.color)} card; a challenge "
                "would catch it."
            )
        if me is not None and len(g.hands[me]) == 2:
            lines.append(
                "Two cards: UNO! will be called with the card you play (u again: not called)"
                if ui.uno
                else "Two cards: press u to call UNO with the card you play (UNO not called)"
            )
        uno_key = " · u UNO" if me is not None and len(g.hands[me]) == 2 else ""
        return lines, f"←/→ choose · Enter play · d draw{uno_key}" + _TURN_KEYS_END
    # a claim window or the claimant's turn
    claims = []
    if simple_of(prompt, Kind.UNO) is not None:
        claims.append("u call UNO (you have one card left and did not call it)")
        keys.append("u UNO")
    for a in catches_of(prompt):
        who = names[a.target] if a.target < len(names) else str(a.target)
        claims.append(f"c catch {who}: one card, no UNO called (+{UNO_PENALTY} cards for them)")
    if catches_of(prompt):
        keys.append("c catch")
    if any(a.kind is Kind.JUMP for a in acts):
        claims.append("j jump in with your identical card (it becomes your turn)")
        keys.append("j jump in")
    head = "Claim window" if prompt.kind == "claim" else "Your claim is up"
    lines.append(f"{head}: " + ("; ".join(claims) if len(claims) < 2 else ""))
    if len(claims) >= 2:
        lines.extend("  " + c for c in claims)
    keys.append("Esc let it pass")
    return lines, " · ".join(keys)


def _verification(outcome: Outcome, v: Verification) -> str:
    if outcome.state == "cheat":
        return "✗ cheat found"
    if v.disputes:
        return "! dispute: audit due"
    if v.audits:
        s = "" if v.audits == 1 else "s"
        return f"✓ {v.audits} deck{s} verified"
    return "verifying every move"


REPLAY_LEAD = "  replay it:  "  # the end box's replay line (the box keeps its command whole)


def _end(src: Source, vi: ViewInputs, names: Sequence[str], me: int | None) -> list[str]:
    o = src.outcome
    g = src.engine

    def name(s: int) -> str:
        # (a name in plain double quotes, as in the table's other words; "you" is not one)
        return ("you" if s == me else f'"{names[s]}"') if 0 <= s < len(names) else f"seat {s}"

    lines: list[str] = []
    if o.state == "finished":
        won = ", ".join(name(s) for s in o.winners) or "nobody"
        lines.append(f"GAME OVER — the winner: {won}")
    elif o.state == "cheat" and o.blame is not None:
        lines.append(f"GAME ENDED: {name(o.blame.seat)} cheated (step {o.blame.step})")
        lines.append(f"  reason: {named(o.blame.reason, names)}")
        if o.void:  # (it said "void; the scores are the last audited ones")
            lines.append(f"  {void_words(*verified_dealt(src))}")
    elif o.state == "stopped":
        silent = in_a_sentence([name(s) for s in o.silent])
        if silent and all(s in vi.left for s in o.silent):  # (as the node's line says it:
            # helper-63 read "left the table and did not come back" above "(left the
            # table) did not answer in time")
            lines.append(f"GAME STOPPED: {silent} left the table and did not come back in time")
        elif silent:
            silent = in_a_sentence(
                [name(s) + (" (left the table)" if s in vi.left else "") for s in o.silent]
            )
            lines.append(f"GAME STOPPED: {silent} did not answer in time")
        else:
            lines.append(_every_vote_line(o, vi, name, me))
        if o.voters:  # (a vote is a signed claim, not a proof: whose claim, spec 10.15)
            voters = in_a_sentence([name(s) for s in o.voters])
            whose = (
                "your vote"
                if o.voters == (me,)
                else f"the vote{'s' if len(o.voters) > 1 else ''} of {voters}"
            )
            say = "says" if len(o.voters) == 1 else "say"
            joined = ""
            if not o.silent and me in o.voters and waited_for_first(o) == (me,):
                joined = " (your node joined theirs when it was back)"
            lines.append(f"  so {say} {whose}{joined}")
        if o.void:
            lines.append(f"  {void_words(*verified_dealt(src))}")
        away = [name(s) for s in o.silent if s != me]
        if vi.serves and away:
            # (closing the box stops the node, and with it the end's one source for a seat
            # that resumes late: helper-96's serving was said nowhere on the screen)
            lines.append(
                f"  until you close this ({vi.serves:.0f} min at most), {in_a_sentence(away)}"
                " can get this end from your node by resuming"
            )
    lines.append(
        "  scores: "
        + "  ".join(f"{names[s]} {p}" for s, p in enumerate(o.scores) if s < len(names))
    )
    audits = vi.verification.audits
    rounds = f"{g.round_no} round{'' if g.round_no == 1 else 's'}"
    decks = f"{audits} deck{'' if audits == 1 else 's'}"
    if o.state == "cheat":
        verdict = "the audit named the cheater"
    elif o.state == "stopped":
        # the deck in play is never audited: it cannot be opened without the silent seats'
        # keys (spec 10.15), and a replay shows its hands unaudited
        if audits:
            verdict = f"{decks} audited and verified; the deck in play was never audited"
        else:
            verdict = "no deck audited (the game stopped before the first audit)"
    elif audits:  # (the first deck is the draw for dealer: "8 decks, 7 rounds" read wrong)
        verdict = f"every deck audited and verified ({decks}: the draw for dealer, {rounds})"
    else:
        verdict = "no deck audited"
    lines.append(f"  verification: {verdict}")
    if vi.log_path:
        lines.append(f"{LOG_LEAD}{vi.log_path}")  # (render cuts it only at a "/")
        lines.append(f"{REPLAY_LEAD}{vi.command} replay {shell_path(vi.log_path)} --table")
    return lines


def watch_end_lines(why: str, checked: str, audits: int, log_path: str, cmd: str) -> list[str]:
    """A spectator's box when its watch ends before the game's verdict (no node of the table
    answers, an error): why, what it checked, and how its own copy of the log is replayed.
    helper-87's spectator kept a spinner and "0 s left" for minutes after its watch had ended,
    and only the terminal said so once the table was left (docs/ui.md)."""
    decks = f"{audits} deck{'' if audits == 1 else 's'}"
    lines = [
        "YOU ARE NO LONGER WATCHING",
        f"  {why}",
        f"  before it ended: {checked}, {decks} audited",
        "  the game's end is not known here",
    ]
    if log_path:
        lines.append("  your copy of the log, as far as it got:")
        lines.append(f"{LOG_LEAD}{log_path}")  # (render cuts it only at a "/")
        lines.append(f"{REPLAY_LEAD}{cmd} replay {shell_path(log_path)} --table")
    return lines


def _every_vote_line(o: Outcome, vi: ViewInputs, name: Callable[[int], str], me: int | None) -> str:
    """The end box's first line of a stop every seat voted for: that the others voted while
    the seats the first votes waited for were away (docs/ui.md, "A stop every seat voted for
    says whose absence began it")."""
    away = waited_for_first(o)
    if not away:
        return "GAME STOPPED by every player's vote"
    who = in_a_sentence([name(s) for s in away])
    if away == (me,):
        return "GAME STOPPED: the others voted to stop while you were away"
    # (the reader's own vote: helper-100 read "the others voted to stop while "Ann" and
    # "Bot-1" were away" on Bob's screen, the one voter, the others being the ones away)
    voted = "you voted" if me is not None and me not in away else "the others voted"
    if all(s in vi.left for s in away):  # (a goodbye this node got is said as such)
        return f"GAME STOPPED: {who} left the table, and {voted} to stop"
    was = "were" if len(away) > 1 else "was"
    return f"GAME STOPPED: {voted} to stop while {who} {was} away"


def hands_known_lines(game: Game, names: Sequence[str], me: int | None) -> list[str]:
    """The round in play when the game ended unfinished, as this screen knew it: the cards in
    each hand (its own are in the hand row under the box: the others' were never opened), on
    as few lines as the box allows; [] with no round dealt."""
    if game.round_no < 1 or not any(game.hands) or game.phase is Phase.DEALER_DRAW:
        return []
    counts = []
    for s, hand in enumerate(game.hands):
        name = names[s] if s < len(names) else f"seat {s}"
        # (a name and its count held together by the box's wrap: "P1" ended a line, "7" began
        # the next; a no-break space, drawn as a space)
        counts.append(
            f"you\u00a0{len(hand)} (your hand, below)" if s == me else f"{name}\u00a0{len(hand)}"
        )
    return [f"ROUND {game.round_no} WHEN THE GAME ENDED — cards in hand: " + ", ".join(counts)]


def round_end_lines(
    game: Game, names: Sequence[str], me: int | None, e: Event, round_no: int
) -> list[str]:
    """The round's end, every hand left and its points (shown until a key is pressed).
    ``round_no``: the round that ended (the engine may already count the next one: the
    round-over event and the next round's start come out of one move)."""
    who = ("you" if e.seat == me else names[e.seat]) if 0 <= e.seat < len(names) else "nobody"
    lowest = game.options.scoring != "standard"
    if e.seat < 0:  # (under lowest scoring a blocked round still adds each hand: rules.md D6)
        head = f"ROUND {round_no} OVER — blocked: nobody went out"
        head += "; each adds their own hand" if lowest else ""
    elif not lowest:
        head = f"ROUND {round_no} OVER — {who} went out: +{e.value} points"
    else:
        head = f"ROUND {round_no} OVER — {who} went out; each adds their own hand"
    lines = [head]
    # what each hand's points do, said beside them (a person read "Bob 23 pts" under standard
    # scoring as Bob's own): given to the one who went out, added to one's own, or only held
    verb = "adds" if lowest else "holds" if e.seat < 0 else "gives"
    # (the names' column as wide as the longest, up to 20: names of 20 characters left the
    # points out of line, helper-87; longer ones push their own row only)
    named = [names[s] if s < len(names) else str(s) for s in range(game.players)]
    pad = min(max(12, *(len(n) for n in named)), 20)
    for s in range(game.players):
        cards = sorted((game.faces[x] for x in game.hands[s]), key=card_sort_key)
        name = named[s]
        if not cards:
            lines.append(f"  {name:<{pad}} (out)")
            continue
        text = " ".join(CARD_TEXT[c] if c >= 0 else "??" for c in cards)
        pts = sum(CARD_POINTS[c] for c in cards if c >= 0)
        lines.append(f"  {name:<{pad}} {verb} {pts:>3}  {text}")
    lines.append("  scores: " + "  ".join(f"{names[s]} {p}" for s, p in enumerate(game.scores)))
    return lines


_HAND_ROW = re.compile(r"^  (\S.*?) +(gives|holds|adds) +(\d+)  \S.*$")
_OUT_ROW = re.compile(r"^  (\S.*?) +\(out\)$")


def compact_end(lines: Sequence[str]) -> list[str]:
    """An end box's lines (:func:`round_end_lines` under the game's end) with each hand's row
    cut to its name and points, the rows run together (the box wraps them): for a box taller
    than the screen leaves it. helper-101: a ten-seat game's box at 80x24 lost its last two
    hands and its bottom border, with no sign of them."""
    out: list[str] = []
    items: list[str] = []
    for line in lines:
        row = _HAND_ROW.match(line) or _OUT_ROW.match(line)
        if row is not None:
            # (each held together by no-break spaces: the box wraps between them only)
            said = " ".join(row.groups()) if row.re is _HAND_ROW else f"{row[1]} out"
            items.append(said.replace(" ", "\u00a0"))
            continue
        if items:
            out.append("  " + " · ".join(items))
            items = []
        out.append(line)
    if items:
        out.append("  " + " · ".join(items))
    return out


def color_of_face(text: str) -> int:
    try:
        return parse_face(text)[0]
    except NotationError:
        return WILD


__all__ = [
    "COLORS",
    "LEAVE_WIDE",
    "LOG_LEAD",
    "REPLAY_LEAD",
    "CardView",
    "SeatRow",
    "Source",
    "TableView",
    "UiState",
    "ViewInputs",
    "card_name",
    "color_name",
    "describe_event",
    "describe_session_event",
    "face_text",
    "parse_typed",
    "penalty_words",
    "resolve_play",
    "table_view",
]
