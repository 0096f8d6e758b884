"""The UNO state machine. This file owns it: every rule of play lives here and nowhere else.

Like h11's connection state, the engine does not know which role it plays: it never knows
which seat is local. It takes three kinds of input and returns events:

- :meth:`Game.apply` takes a player's :class:`Action`; an illegal one raises
  :class:`IllegalAction` and leaves the state exactly as it was.
- :meth:`Game.shuffle` answers :attr:`Game.need` when the game waits for a new deck order
  (draw for dealer, each round's deal, a reshuffle, a Wild Draw Four returned at the start).
  The engine has no randomness of its own: the order comes from outside (a seeded generator
  in the simulator, the joint mental-poker shuffle on a node).
- :meth:`Game.reveal` tells it the card in a slot. A slot is a position in the round's
  shuffled deck; with full information every slot is known from the shuffle, while a node
  knows only its own cards and what was shown to it. Some steps wait for public reveals
  (the start card, the draw for dealer, the hands at the end of a round).

What a partial view cannot check at once (a challenge verdict about a hand it never saw) is
accepted and recorded in :attr:`Game.claims`; the end-of-round audit replays the same log with
full information, where a false claim raises :class:`IllegalAction` naming its author.

Rules cite the sheets in ``../shared/rules`` by file and section; decisions where the sheets
are silent are in docs/rules.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final, NamedTuple

from p2puno.engine.actions import MAX_SEATS, Action, Kind, choose_color, simple
from p2puno.engine.actions import catch as catch_action
from p2puno.engine.cards import (
    CARD_COLOR,
    CARD_FACE,
    CARD_POINTS,
    CARD_RANK,
    CARD_TEXT,
    COLORS,
    DECK_SIZE,
    DRAW_TWO,
    RANK_TEXT,
    REVERSE,
    SKIP,
    UNKNOWN_CARD,
    WILD,
    WILD_CARD,
    WILD_DRAW_FOUR,
    dealer_draw_value,
)
from p2puno.engine.options import Options

# Module constants are Final: the compiled build (p2puno.engine.native) reads a Final name
# directly instead of looking it up in the module dict on every use.
UNKNOWN: Final = UNKNOWN_CARD
_new: Final = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths)
HAND_SIZE: Final = 7  # 002 · Setup 2: "deals each player 7 cards"
UNO_PENALTY: Final = 2  # 002 · Going Out: caught without UNO, "draw two cards"
CHALLENGE_EXTRA: Final = 2  # 002 · Wild Draw Four: a challenge lost, "PLUS an additional 2"


class Phase(Enum):
    DEALER_DRAW = "dealer-draw"  # waiting for the draw-for-dealer shuffle or its reveals
    SHUFFLE = "shuffle"  # waiting for a deck order (see Game.need)
    REVEAL = "reveal"  # waiting for public reveals (see Game.need)
    START_COLOR = "start-color"  # a Wild was turned up: the first player names the color
    TURN = "turn"  # the player on turn plays or draws
    DRAWN = "drawn"  # the player drew: play that card (if playable) or keep it
    PENALTY = "penalty"  # a Draw Two / Wild Draw Four is pending on the player on turn
    VERDICT = "verdict"  # the challenger saw the hand and must say guilty or innocent
    GAME_OVER = "game-over"


# Hot-path constants: a module global is cheaper to read than an Enum member attribute.
_PLAY: Final = Kind.PLAY
_JUMP: Final = Kind.JUMP
_DRAW: Final = Kind.DRAW
_KEEP: Final = Kind.KEEP
_TAKE: Final = Kind.TAKE
_CHALLENGE: Final = Kind.CHALLENGE
_UNO: Final = Kind.UNO
_CATCH: Final = Kind.CATCH
_GUILTY: Final = Kind.GUILTY
_INNOCENT: Final = Kind.INNOCENT
_TURN: Final = Phase.TURN
_DRAWN: Final = Phase.DRAWN
_PENALTY: Final = Phase.PENALTY
_GAME_OVER: Final = Phase.GAME_OVER
_START_COLOR: Final = Phase.START_COLOR
_VERDICT: Final = Phase.VERDICT
_SHUFFLE: Final = Phase.SHUFFLE
_REVEAL: Final = Phase.REVEAL
_DEALER_DRAW: Final = Phase.DEALER_DRAW
_COLOR: Final = Kind.COLOR

# 002 · Let's Play as one bit test: a card matches when ``_MATCH[card] & mask`` where the mask
# holds the color in play and the top card's rank (see _match_mask). Bits 0..3 are the colors,
# 4..16 the ranks 0..12 (Wild ranks never match by rank), bit 17 "wild": set in every mask and
# only on Wild cards, so a Wild matches anything. ``_MATCH[UNKNOWN]`` (index -1) is the extra
# last entry, 0: a card this view does not know never matches.
_WILD_BIT: Final = 1 << 17
_MATCH: Final = (
    *(
        _WILD_BIT if CARD_COLOR[c] == WILD else (1 << CARD_COLOR[c]) | (1 << (4 + CARD_RANK[c]))
        for c in range(DECK_SIZE)
    ),
    0,
)
# indexed by the color in play (WILD = -1 reads the last entry, 0) and by the top card's rank
_COLOR_BITS: Final[tuple[int, ...]] = (1, 2, 4, 8, 0)  # [...]: mypyc keeps it boxed
_RANK_BITS: Final = tuple(1 << (4 + r) if r < WILD_CARD else 0 for r in range(WILD_DRAW_FOUR + 1))
_FACE: Final = (
    *CARD_FACE,
    -1,
)  # CARD_FACE with an entry for UNKNOWN (index -1) that no face equals
# the other cards with the same face as each card (what a Jump-In needs); () for UNKNOWN
_TWINS: Final = (
    *(
        tuple(t for t in range(DECK_SIZE) if t != c and CARD_FACE[t] == CARD_FACE[c])
        for c in range(DECK_SIZE)
    ),
    (),
)
_NOBODY: Final[list[int]] = []  # reactors() when nobody may react (never mutated)
_ACTION: Final = Action  # Final: the compiled build reads it without a module dict lookup
# the argument-less turn actions, per seat (the same objects simple() returns)
_SIMPLE_DRAW: Final = tuple(simple(seat, Kind.DRAW) for seat in range(MAX_SEATS))
_SIMPLE_KEEP: Final = tuple(simple(seat, Kind.KEEP) for seat in range(MAX_SEATS))
_SIMPLE_TAKE: Final = tuple(simple(seat, Kind.TAKE) for seat in range(MAX_SEATS))
_SIMPLE_CHALLENGE: Final = tuple(simple(seat, Kind.CHALLENGE) for seat in range(MAX_SEATS))


def _deck_slots(order: list[int]) -> list[int] | None:
    """The inverse of a fresh deck's order (card id -> slot), or None if ``order`` is not
    every card id exactly once (its length is already checked to be DECK_SIZE)."""
    card_slot = [UNKNOWN] * DECK_SIZE
    try:
        for slot in range(DECK_SIZE):
            c = order[slot]
            if not 0 <= c < DECK_SIZE or card_slot[c] != UNKNOWN:  # out of range, or twice
                return None
            card_slot[c] = slot
    except TypeError:  # not ints
        return None
    return card_slot


class IllegalAction(ValueError):
    """An action the rules refuse. ``seat`` is the player to blame."""

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(f"seat {seat}: {reason}")
        self.seat = seat
        self.reason = reason


class InputError(ValueError):
    """A shuffle or reveal that contradicts what the engine already knows."""


@dataclass(frozen=True, slots=True)
class Need:
    """What the game waits for before any player may act.

    ``kind == "shuffle"``: a new order of ``count`` cards; ``sources`` are the slots whose cards
    go into it (empty for a fresh 108-card deck). ``kind == "reveal"``: the cards in ``slots``
    must be revealed to everyone.
    """

    kind: str
    count: int = 0
    sources: tuple[int, ...] = ()
    slots: tuple[int, ...] = ()

    # Immutable: a copy is the same object. (Also what lets copy.deepcopy work on the compiled
    # build, where a frozen dataclass cannot be rebuilt field by field.)
    def __copy__(self) -> Need:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Need:
        return self


class Event(NamedTuple):
    """Something that happened, for the UI, the log viewer and the statistics.

    ``kind`` names it; ``seat`` is the main player concerned (-1 if none); ``card`` a card id
    (-1 if none); ``value`` a number (cards drawn, points, a color code, the cards a seat has
    left after a play or jump...); ``other`` a second seat. ``bluff`` is set on a Wild Draw
    Four only where the hand was known (full information).
    """

    kind: str
    seat: int = -1
    card: int = -1
    value: int = 0
    other: int = -1
    bluff: bool | None = None

    def __str__(self) -> str:  # a readable line for logs and the demo
        template = _EVENT_TEXT.get(self.kind, self.kind)
        text = template.format(
            seat=self.seat,
            other=self.other,
            value=self.value,
            card=CARD_TEXT[self.card] if self.card >= 0 else "",
            color=COLORS[self.value] if 0 <= self.value < 4 else "?",
        )
        if self.kind == "play" and self.bluff:
            text += " (a bluff)"
        return text


_EVENT: Final = Event  # Final: the compiled build reads it without a module dict lookup
# The commonest events, built once (events are immutable): the color a seat names
# [seat * 4 + color], and per seat: one card drawn, the drawn card kept, UNO called. (A play
# is built as it happens: it carries the cards left, and a Wild Draw Four's the bluff flag.)
_EV_COLOR: Final = tuple(
    _new(Event, ("color", seat, -1, color, -1, None))
    for seat in range(MAX_SEATS)
    for color in range(4)
)
_EV_DRAW1: Final = tuple(_new(Event, ("draw", seat, -1, 1, -1, None)) for seat in range(MAX_SEATS))
_EV_KEEP: Final = tuple(_new(Event, ("keep", seat, -1, 0, -1, None)) for seat in range(MAX_SEATS))
_EV_UNO: Final = tuple(_new(Event, ("uno", seat, -1, 0, -1, None)) for seat in range(MAX_SEATS))
_EVENT_TEXT: Final = {
    "dealer-card": "P{seat} draws {card} for dealer",
    "dealer": "P{seat} deals",
    "round": "round {value} begins, P{seat} deals",
    "start": "start card {card}",
    "returned": "{card} turned up: returned to the deck by a new shuffle",
    "play": "P{seat} plays {card}",
    "jump": "P{seat} jumps in with {card}",
    "color": "color is now {color}",
    "draw": "P{seat} draws {value}",
    "keep": "P{seat} keeps the drawn card",
    "pass": "P{seat} has nothing to draw and passes",
    "skip": "P{seat} is skipped",
    "reverse": "direction reverses",
    "penalty": "P{seat} takes {value} and loses the turn",
    "stack": "the stack on P{seat} is now {value}",
    "uno": "P{seat} calls UNO",
    "caught": "P{seat} caught by P{other} without UNO: draws 2",
    "challenge": "P{seat} challenges P{other}'s Wild Draw Four",
    "guilty": "challenge won: P{other} played the Wild Draw Four illegally and draws {value}",
    "innocent": "challenge lost: P{seat} draws {value}",
    "swap": "P{seat} swaps hands with P{other}",
    "rotate": "all hands pass on in the direction of play",
    "reshuffle": "the discard pile is reshuffled into a new draw pile of {value}",
    "out": "P{seat} goes out",
    "blocked": "no cards left to draw and nobody plays: the round is blocked",
    "round-over": "round over: P{seat} scores {value}",
    "game-over": "game over: P{seat} wins",
}


@dataclass(frozen=True, slots=True)
class Claim:
    """A statement the engine could not check when it was made (partial information)."""

    seat: int  # who made it
    kind: str  # "verdict"
    offender: int
    guilty: bool
    slots: tuple[int, ...]  # the hand it is about, as it was when the card was played
    color: int  # the color the Wild Draw Four was played on

    # Immutable: a copy is the same object. (Also what lets copy.deepcopy work on the compiled
    # build, where a frozen dataclass cannot be rebuilt field by field.)
    def __copy__(self) -> Claim:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Claim:
        return self


def _no_plays() -> list[Action | None]:
    return [None] * (DECK_SIZE * MAX_SEATS)


@dataclass
class _Stats:
    turns: int = 0
    draws: int = 0
    challenges_won: int = 0
    challenges_lost: int = 0
    uno_penalties: int = 0
    reshuffles: int = 0


@dataclass
class Game:
    """A whole game: draw for dealer, rounds, scores, until someone reaches the target.

    Build one with ``Game(Options(...))``; then answer :attr:`need` and apply actions.
    """

    options: Options
    # --- whole game
    scores: list[int] = field(default_factory=list)
    round_no: int = 0
    dealer: int = -1
    winners: tuple[int, ...] = ()
    stats: _Stats = field(default_factory=_Stats)
    # --- the current deck (the draw for dealer, then each round): slot -> card id or UNKNOWN
    faces: list[int] = field(default_factory=list)
    draw: list[int] = field(default_factory=list)  # slots, top of the pile last
    discard: list[int] = field(default_factory=list)  # slots, top last
    hands: list[list[int]] = field(default_factory=list)
    # --- the draw for dealer
    dd_contenders: list[int] = field(default_factory=list)
    dd_slots: list[int] = field(default_factory=list)  # slot drawn by each contender
    # --- play
    phase: Phase = Phase.DEALER_DRAW
    turn: int = -1
    direction: int = 1  # +1 = to the left (seat order), -1 = to the right
    color: int = WILD  # the color in play
    pending: int = 0  # cards the player on turn must take (Draw Two / Wild Draw Four)
    pending_rank: int = -1  # DRAW_TWO or WILD_DRAW_FOUR while pending
    top_played: bool = False  # the top card was played by a player (not turned up)
    window: bool = False  # the moment after a play, before the next turn action
    vulnerable: set[int] = field(default_factory=set)  # seats that may be caught (no UNO)
    before: tuple[int, int, int] = (1, 0, -1)  # (direction, pending, pending_rank) pre-play
    offender: int = -1  # who played the Wild Draw Four that may be challenged
    wd4_hand: tuple[int, ...] = ()  # the offender's hand (slots) when it was played
    wd4_color: int = WILD  # the color it was played on
    drawn: int = -1  # the slot drawn this turn
    passes: int = 0  # consecutive turns ending with nothing to draw
    out: int = -1  # who went out (-1: nobody yet / blocked)
    ending: bool = False  # the round is over once owed cards are drawn
    owed: list[list[int]] = field(default_factory=list)  # [seat, count] still to draw
    turn_draw: bool = False  # the owed card is the player's own turn draw
    resume: Phase = Phase.TURN  # phase to return to after a reshuffle
    need: Need | None = None
    claims: list[Claim] = field(default_factory=list)
    card_slot: list[int] = field(default_factory=list)  # card id -> live slot, or UNKNOWN
    public: set[int] = field(default_factory=set)  # slots revealed to every node
    full_info: bool = False  # this deck's order was given: every card is known
    # turn_actions' one-variant plays, built once: [card * MAX_SEATS + seat] -> the Action,
    # valid while its slot is the card's (a new deck or a reshuffle gives the card a new slot)
    plays_made: list[Action | None] = field(default_factory=_no_plays, compare=False, repr=False)

    def __post_init__(self) -> None:
        n = self.options.players
        if not self.scores:
            self.scores = [0] * n
        self.hands = [[] for _ in range(n)]
        self.card_slot = [UNKNOWN] * DECK_SIZE
        # 002 · Setup 1: "Each player draws a card; the player that draws the highest number
        # deals". A fresh jointly shuffled deck; each seat turns one card.
        self.dd_contenders = list(range(n))
        self.need = Need("shuffle", count=DECK_SIZE)

    # ------------------------------------------------------------------ small helpers
    @property
    def players(self) -> int:
        return self.options.players

    def next_seat(self, seat: int, steps: int = 1) -> int:
        return (seat + self.direction * steps) % self.options.players

    @property
    def top(self) -> int:
        """The card id on top of the discard pile (-1 if none)."""
        return self.faces[self.discard[-1]] if self.discard else UNKNOWN

    def hand_cards(self, seat: int) -> list[int]:
        """The card ids in a hand, UNKNOWN where this view does not know them."""
        faces = self.faces
        return [faces[s] for s in self.hands[seat]]

    def hand_points(self, seat: int) -> int:
        return sum(CARD_POINTS[self.faces[s]] for s in self.hands[seat])

    def playable(self, card: int) -> bool:
        """002 · Let's Play: match "by number, color or symbol"; a Wild matches anything."""
        if CARD_COLOR[card] == WILD:
            return True
        if CARD_COLOR[card] == self.color:
            return True
        top = self.top
        return top >= 0 and CARD_RANK[top] == CARD_RANK[card] and CARD_RANK[card] < WILD_CARD

    # ------------------------------------------------------------------ external inputs
    def shuffle(self, order: Sequence[int] | None = None) -> list[Event]:
        """Answer a ``shuffle`` need with the new order of its cards.

        ``order`` lists the card ids of the new pile from its first card dealt to its last;
        pass ``None`` on a node that does not know the order (faces stay unknown).
        """
        need = self.need
        if need is None or need.kind != "shuffle":
            raise InputError("no shuffle is due")
        card_slot: list[int] | None = None
        if order is not None:
            order = list(order)
            if len(order) != need.count:
                raise InputError(f"the shuffle must hold {need.count} cards, got {len(order)}")
            if not need.sources:
                # a fresh deck: every card id once. Its inverse (card -> slot) is built here
                # and checks that: 108 ids in range filling 108 places hit each place once.
                card_slot = _deck_slots(order)
                if card_slot is None:
                    raise InputError("the shuffle does not hold exactly the cards it should")
            else:
                expected = [self.faces[s] for s in need.sources]
                if UNKNOWN not in expected and sorted(order) != sorted(expected):
                    raise InputError("the shuffle does not hold exactly the cards it should")
        events: list[Event] = []
        if self.phase is _DEALER_DRAW:
            self._new_deck(order, card_slot)
            self._dealer_draw_turn()
            return self._check_need()
        if not need.sources:  # a fresh deck for a new round
            self._new_deck(order, card_slot)
            return self._deal(events)
        # a reshuffle of existing cards into a new draw pile
        for s in need.sources:
            c = self.faces[s]
            if c >= 0:
                self.card_slot[c] = UNKNOWN
        base = len(self.faces)
        if order is None:
            self.faces.extend([UNKNOWN] * need.count)
        else:
            self.faces.extend(order)
            for i, c in enumerate(order):
                self.card_slot[c] = base + i
        self.draw = list(range(base + need.count - 1, base - 1, -1))
        self.need = None
        self.stats.reshuffles += 1
        if self.phase is _REVEAL:  # a Wild Draw Four turned up went back into the deck
            return self._turn_up(events)
        self.discard = self.discard[-1:]
        events.append(_new(_EVENT, ("reshuffle", -1, -1, need.count, -1, None)))
        self.phase = self.resume
        return self._settle(events)

    def reveal(self, slot: int, card: int, *, public: bool = False) -> list[Event]:
        """Learn that ``slot`` holds ``card``; ``public`` if every node learns it now.

        Only public reveals complete a ``reveal`` need: a node that privately knows a card
        (its own hand) must still wait for everyone, or views would part ways.
        Returns events if this completes the need.
        """
        if not 0 <= slot < len(self.faces):
            raise InputError(f"no slot {slot} in this deck")
        if not 0 <= card < DECK_SIZE:
            raise InputError(f"no card {card}")
        if public:
            self.public.add(slot)
        known = self.faces[slot]
        if known != UNKNOWN:
            if known != card:
                raise InputError(f"slot {slot} already holds a different card")
            return self._check_need()
        other = self.card_slot[card]
        if other != UNKNOWN and other != slot:
            raise InputError(f"card {CARD_TEXT[card]} is already in slot {other}")
        self.faces[slot] = card
        self.card_slot[card] = slot
        return self._check_need()

    def _check_need(self) -> list[Event]:
        need = self.need
        if need is None or need.kind != "reveal":
            return []
        faces, public, full = self.faces, self.public, self.full_info
        if any(faces[s] == UNKNOWN or not (full or s in public) for s in need.slots):
            return []
        self.need = None
        events: list[Event] = []
        if self.phase is _DEALER_DRAW:
            return self._dealer_draw_done(events)
        if self.ending:
            return self._score(events)
        return self._start_card(events)

    # ------------------------------------------------------------------ dealer and deal
    def _new_deck(self, order: list[int] | None, card_slot: list[int] | None) -> None:
        # ``order`` is the caller's own copy; card_slot its inverse (see _deck_slots)
        self.faces = [UNKNOWN] * DECK_SIZE if order is None else order
        self.card_slot = [UNKNOWN] * DECK_SIZE if card_slot is None else card_slot
        self.draw = list(range(DECK_SIZE - 1, -1, -1))
        self.discard = []
        self.hands = [[] for _ in range(self.players)]
        self.need = None
        self.public = set()
        self.full_info = order is not None

    def _dealer_draw_turn(self) -> None:
        # Each contender turns the next card; decision (docs/rules.md): ties draw again.
        self.dd_slots = []
        for _ in self.dd_contenders:
            if not self.draw:  # cannot happen with 108 cards and <= 10 players in practice
                break
            self.dd_slots.append(self.draw.pop())
        self.need = Need("reveal", slots=tuple(self.dd_slots))

    def _dealer_draw_done(self, events: list[Event]) -> list[Event]:
        best = -1
        tied: list[int] = []
        for seat, slot in zip(self.dd_contenders, self.dd_slots, strict=False):
            card = self.faces[slot]
            events.append(_new(_EVENT, ("dealer-card", seat, card, 0, -1, None)))
            v = dealer_draw_value(card)
            if v > best:
                best, tied = v, [seat]
            elif v == best:
                tied.append(seat)
        if len(tied) > 1 and len(self.draw) >= len(tied):
            self.dd_contenders = tied
            self._dealer_draw_turn()
            return events + self._check_need()
        self.dealer = tied[0]
        events.append(_new(_EVENT, ("dealer", self.dealer, -1, 0, -1, None)))
        return self._next_round(events)

    def _next_round(self, events: list[Event]) -> list[Event]:
        self.round_no += 1
        events.append(_new(_EVENT, ("round", self.dealer, -1, self.round_no, -1, None)))
        self.phase = _SHUFFLE
        self.need = Need("shuffle", count=DECK_SIZE)
        self.claims = []
        self.dd_slots = []  # the draw for dealer's slots name a deck that is gone
        return events

    def _deal(self, events: list[Event]) -> list[Event]:
        n = self.players
        # 002 · Setup 2-4: 7 cards each, one at a time starting left of the dealer: the k-th
        # card off the pile (its end) goes to seat first + k (mod n).
        first = (self.dealer + 1) % n
        draw = self.draw
        cut = len(draw) - HAND_SIZE * n
        dealt = draw[cut:]
        dealt.reverse()
        del draw[cut:]
        hands = self.hands
        for i in range(n):
            hands[(first + i) % n].extend(dealt[i::n])
        self.direction = 1
        self.out = -1
        self.ending = False
        self.owed = []
        self.passes = 0
        self.pending = 0
        self.pending_rank = -1
        self.vulnerable = set()
        self.window = False
        self.offender = -1
        return self._turn_up(events)

    def _turn_up(self, events: list[Event]) -> list[Event]:
        # 002 · Setup 4: "The top card of the DRAW pile is turned over to begin a DISCARD pile."
        self.discard.append(self.draw.pop())
        self.phase = _REVEAL
        self.need = Need("reveal", slots=(self.discard[-1],))
        return events + self._check_need()

    def _start_card(self, events: list[Event]) -> list[Event]:
        n = self.players
        card = self.top
        rank = CARD_RANK[card]
        first = (self.dealer + 1) % n
        self.top_played = False
        self.color = CARD_COLOR[card]
        if rank == WILD_DRAW_FOUR:
            # 002 · Wild Draw Four: "If turned up at the beginning of play, return this card to
            # the deck and pick another card." A new joint shuffle: nobody learns where it went.
            events.append(_new(_EVENT, ("returned", -1, card, 0, -1, None)))
            sources = (*self.draw[::-1], self.discard[-1])
            self.discard = []
            self.card_slot[card] = UNKNOWN
            self.need = Need("shuffle", count=len(sources), sources=sources)
            return events
        events.append(_new(_EVENT, ("start", -1, card, 0, -1, None)))
        self.phase = _TURN
        self.turn = first
        if rank == WILD_CARD:
            # 002 · Wild: "the person to the left of the dealer chooses the color".
            self.phase = _START_COLOR
        elif rank == DRAW_TWO:
            # 002 · Draw Two: "If turned up at the beginning of play, the same rule applies."
            self.phase = _PENALTY
            self.pending, self.pending_rank = 2, DRAW_TWO
        elif rank == SKIP:
            # 002 · Skip: "the player to the left of the dealer is skipped".
            events.append(_new(_EVENT, ("skip", first, -1, 0, -1, None)))
            self.turn = (first + 1) % n
        elif rank == REVERSE:
            # 002 · Reverse: "the dealer goes first, then play moves to the right".
            self.direction = -1
            self.turn = self.dealer
            events.append(_new(_EVENT, ("reverse", -1, -1, 0, -1, None)))
        return events

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now that this view can name.

        Cards whose faces this view does not know are left out: a node lists its own
        actions, and the simulator and the audit see everything.
        """
        return self.reactions(seat) + self.turn_actions(seat)

    def reactors(self) -> list[int]:
        """The seats whose :meth:`reactions` are not empty now, in seat order.

        Cheap (no seat's hand is scanned): call it after a play instead of polling
        ``reactions`` for every seat. Do not mutate the list it returns.
        """
        if not self.window or self.need is not None:
            return _NOBODY
        if self.vulnerable:  # the vulnerable seat may call UNO, every other seat catch it
            return list(range(self.options.players))
        if not (self.options.jump_in and self.top_played):
            return _NOBODY
        # Jump-In: who holds a card identical to the top one. A known card's live slot is
        # card_slot[card]; the draw pile is always the slots from draw[-1] to the deck's end.
        draw = self.draw
        low = draw[-1] if draw else len(self.faces)
        card_slot = self.card_slot
        hands = self.hands
        found: list[int] = _NOBODY
        for t in _TWINS[self.faces[self.discard[-1]]]:
            slot = card_slot[t]
            if 0 <= slot < low:  # known, and not in the draw pile: in a hand, or discarded
                for s in range(len(hands)):
                    if slot in hands[s]:
                        if found is _NOBODY:
                            found = []
                        found.append(s)
                        break
        if len(found) > 1:
            found.sort()
            if len(set(found)) < len(found):
                found = sorted(set(found))
        return found

    def reactions(self, seat: int) -> list[Action]:
        """The out-of-turn part of :meth:`legal_actions`: call UNO, catch, jump in."""
        acts: list[Action] = []
        if not self.window or self.need is not None:
            return acts
        options = self.options
        if not 0 <= seat < options.players:
            return acts
        vulnerable = self.vulnerable
        if not vulnerable and not (options.jump_in and self.top_played):
            return acts
        if vulnerable:
            if seat in vulnerable:
                acts.append(simple(seat, _UNO))
            for t in sorted(vulnerable):
                if t != seat:
                    acts.append(catch_action(seat, t))
        if options.jump_in and self.top_played:
            faces = self.faces
            top_face = CARD_FACE[faces[self.discard[-1]]]
            for slot in self.hands[seat]:
                c = faces[slot]
                if _FACE[c] == top_face:  # _FACE[UNKNOWN] is -1: never identical
                    self._play_variants(acts, seat, slot, c, _JUMP)
        return acts

    def turn_actions(self, seat: int) -> list[Action]:
        """The on-turn part of :meth:`legal_actions` (empty unless ``seat`` is on turn)."""
        acts: list[Action] = []
        phase = self.phase
        if seat != self.turn or self.need is not None or phase is _GAME_OVER:
            return acts
        hand = self.hands[seat]
        faces = self.faces
        if phase is _TURN:
            # The engine's hottest loop: playable() as one bit test, and the common case of
            # _play_variants (one variant) inlined.
            top = faces[self.discard[-1]]  # _match_mask(), inlined
            mask = _WILD_BIT | _COLOR_BITS[self.color] | _RANK_BITS[CARD_RANK[top]]
            left = len(hand) - 1
            single = left != 1  # no UNO variant
            seven = left > 0 and self.options.seven_o  # a 7 names a seat to swap with
            made = self.plays_made
            for slot in hand:
                c = faces[slot]
                if _MATCH[c] & mask:
                    cc = CARD_COLOR[c]
                    rank = CARD_RANK[c]
                    if single and cc != WILD and not (seven and rank == 7):
                        i = c * MAX_SEATS + seat
                        act = made[i]
                        if act is None or act[2] != slot:
                            act = _new(_ACTION, (seat, _PLAY, slot, cc, rank, -1, -1, False))
                            made[i] = act
                        acts.append(act)
                    else:
                        self._play_variants(acts, seat, slot, c, _PLAY)
            acts.append(_SIMPLE_DRAW[seat])
        elif phase is _DRAWN:
            c = faces[self.drawn]
            if _MATCH[c] & self._match_mask():
                self._play_variants(acts, seat, self.drawn, c, _PLAY)
            acts.append(_SIMPLE_KEEP[seat])
        elif phase is _PENALTY:
            acts.append(_SIMPLE_TAKE[seat])
            if self.pending_rank == WILD_DRAW_FOUR:
                acts.append(_SIMPLE_CHALLENGE[seat])
            if self.options.progressive:
                for slot in hand:
                    c = faces[slot]
                    if c >= 0 and CARD_RANK[c] == self.pending_rank:
                        self._play_variants(acts, seat, slot, c, _PLAY)
        elif phase is _START_COLOR:
            acts.extend(choose_color(seat, col) for col in range(4))
        elif phase is _VERDICT:
            truth = self._wd4_illegal()
            if truth is not False:
                acts.append(simple(seat, _GUILTY))
            if truth is not True:
                acts.append(simple(seat, _INNOCENT))
        return acts

    def _match_mask(self) -> int:
        """The bits a card must share to be playable now (see _MATCH)."""
        discard = self.discard
        top = self.faces[discard[-1]] if discard else UNKNOWN
        return _WILD_BIT | _COLOR_BITS[self.color] | _RANK_BITS[CARD_RANK[top]]

    def _play_variants(self, acts: list[Action], seat: int, slot: int, c: int, kind: Kind) -> None:
        color, rank = CARD_COLOR[c], CARD_RANK[c]
        left = len(self.hands[seat]) - 1
        seven = rank == 7 and left > 0 and self.options.seven_o
        if color != WILD and left != 1 and not seven:  # the common case: one variant
            acts.append(_new(_ACTION, (seat, kind, slot, color, rank, -1, -1, False)))
            return
        # Every color a Wild may name (else -1), then every seat a 7 may swap with (else -1),
        # then without and with UNO (with the next-to-last card): in this nesting order.
        uno = left == 1
        first, last = (0, 4) if color == WILD else (-1, 0)
        players = self.options.players if seven else 0
        for ch in range(first, last):
            if not seven:
                acts.append(_new(_ACTION, (seat, kind, slot, color, rank, ch, -1, False)))
                if uno:
                    acts.append(_new(_ACTION, (seat, kind, slot, color, rank, ch, -1, True)))
                continue
            for t in range(players):
                if t != seat:
                    acts.append(_new(_ACTION, (seat, kind, slot, color, rank, ch, t, False)))
                    if uno:
                        acts.append(_new(_ACTION, (seat, kind, slot, color, rank, ch, t, True)))

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> list[Event]:
        """Apply one action; raise IllegalAction (state untouched) if the rules refuse it."""
        self._check(action)
        return self._do(action)

    def is_legal(self, action: Action) -> bool:
        try:
            self._check(action)
        except IllegalAction:
            return False
        return True

    def check(self, action: Action) -> None:
        """Raise IllegalAction, with the rules' reason, if :meth:`apply` would refuse
        ``action``; change nothing either way."""
        self._check(action)

    def _check(self, a: Action) -> None:
        """Every refusal happens here, before anything changes."""
        if not isinstance(a, Action):
            raise IllegalAction(-1, "not an action")
        seat, k, slot, color, rank, choose, target, uno = a
        if type(seat) is not int or type(k) is not Kind:
            raise IllegalAction(-1, "not an action")
        options = self.options
        if not 0 <= seat < options.players:
            raise IllegalAction(seat, "no such seat")
        phase = self.phase
        if phase is _GAME_OVER:
            raise IllegalAction(seat, "the game is over")
        if self.need is not None:
            raise IllegalAction(seat, f"the game is waiting for a {self.need.kind}")
        on_turn = seat == self.turn
        if k is _PLAY:
            if not on_turn:
                raise IllegalAction(seat, "not your turn")
            if phase is _TURN:
                # _check_card(a) and playable(c) inlined for the most common action; the
                # refusals and their order are the same as there.
                hand = self.hands[seat]
                faces = self.faces
                c = faces[slot] if slot in hand else UNKNOWN
                if (
                    c == UNKNOWN
                    or CARD_COLOR[c] != color
                    or CARD_RANK[c] != rank
                    or choose != -1
                    or target != -1
                    or uno
                    or color == WILD
                    or (rank == 7 and options.seven_o)
                ):
                    c = self._check_card(a)  # the uncommon variants, and every refusal
                discard = self.discard
                top = faces[discard[-1]] if discard else UNKNOWN
                if not _MATCH[c] & (
                    _WILD_BIT | _COLOR_BITS[self.color] | _RANK_BITS[CARD_RANK[top]]
                ):
                    raise IllegalAction(seat, f"{CARD_TEXT[c]} does not match the top card")
            elif phase is _DRAWN:
                if a.slot != self.drawn:
                    raise IllegalAction(seat, "after drawing, only the drawn card may be played")
                c = self._check_card(a)
                if not _MATCH[c] & self._match_mask():
                    raise IllegalAction(seat, f"the drawn {CARD_TEXT[c]} is not playable")
            elif phase is _PENALTY:
                if not options.progressive:
                    raise IllegalAction(seat, "take the penalty (or challenge a Wild Draw Four)")
                c = self._check_card(a)
                if CARD_RANK[c] != self.pending_rank:
                    what = RANK_TEXT[self.pending_rank]  # (with WILD's color it said "b+2")
                    raise IllegalAction(seat, f"only a {what} can be stacked on the pending one")
            else:
                raise IllegalAction(seat, f"no card may be played now ({phase.value})")
            return
        if k is _UNO:
            if not (self.window and seat in self.vulnerable):
                raise IllegalAction(
                    seat, "UNO can be called only right after your next-to-last card"
                )
            return
        if k is _DRAW:
            if not (on_turn and phase is _TURN):
                raise IllegalAction(seat, "you may draw only at the start of your turn")
            return
        if k is _KEEP:
            if not (on_turn and phase is _DRAWN):
                raise IllegalAction(seat, "nothing drawn to keep")
            return
        if k is _TAKE:
            if not (on_turn and phase is _PENALTY):
                raise IllegalAction(seat, "no penalty to take")
            return
        if k is _JUMP:
            if not options.jump_in:
                raise IllegalAction(seat, "Jump-In is not in play")
            if not (self.window and self.top_played):
                raise IllegalAction(seat, "a jump-in must follow a card just played")
            c = self._check_card(a)
            if CARD_FACE[c] != CARD_FACE[self.top]:
                raise IllegalAction(seat, "a jump-in needs a card identical to the top card")
            return
        if k is _CHALLENGE:
            if not (on_turn and phase is _PENALTY and self.pending_rank == WILD_DRAW_FOUR):
                raise IllegalAction(seat, "no Wild Draw Four to challenge")
            return
        if k is _GUILTY or k is _INNOCENT:
            if not (on_turn and phase is _VERDICT):
                raise IllegalAction(seat, "no challenge awaits your verdict")
            truth = self._wd4_illegal()
            if truth is not None and truth != (k is _GUILTY):
                raise IllegalAction(seat, f"false verdict: {k.value}, which the hand shows untrue")
            return
        if k is _CATCH:
            t = a.target
            if not (self.window and t in self.vulnerable and t != seat):
                raise IllegalAction(seat, f"seat {t} cannot be caught now")
            return
        if k is _COLOR:
            if not (on_turn and phase is _START_COLOR):
                raise IllegalAction(seat, "no color to name now")
            if not 0 <= a.choose < 4:
                raise IllegalAction(seat, "name one of r, y, g, b")
            return
        raise IllegalAction(seat, "unknown action")

    def _check_card(self, a: Action) -> int:
        """Check a played card's slot, face and options; return its card id."""
        seat, _, slot, color, rank, choose, target, uno = a
        hand = self.hands[seat]
        if slot not in hand:
            raise IllegalAction(seat, f"slot {slot} is not in your hand")
        c = self.faces[slot]
        if c == UNKNOWN:
            raise IllegalAction(seat, f"slot {slot} was played without being revealed")
        cc = CARD_COLOR[c]
        if cc != color or CARD_RANK[c] != rank:
            raise IllegalAction(seat, f"slot {slot} holds {CARD_TEXT[c]}, not the card named")
        if cc == WILD:
            if not 0 <= choose < 4:
                raise IllegalAction(seat, "a Wild must name a color")
        elif choose != -1:
            raise IllegalAction(seat, "only a Wild names a color")
        left = len(hand) - 1
        if rank == 7 and left > 0 and self.options.seven_o:
            if not (0 <= target < self.options.players and target != seat):
                raise IllegalAction(seat, "a 7 must name another player to swap hands with")
        elif target != -1:
            raise IllegalAction(seat, "only a 7 under Seven-O names a player")
        if uno and left != 1:
            raise IllegalAction(seat, "UNO is called with the next-to-last card")
        return c

    def _wd4_illegal(self) -> bool | None:
        """Was the challenged Wild Draw Four illegal? None if this view cannot see the hand.

        002 · Wild Draw Four: "You may only play this card when you do NOT have another card in
        your hand that matches the COLOR on the DISCARD pile".
        """
        return self._holds_color(self.wd4_hand, self.wd4_color)

    def wd4_bluff_now(self, seat: int) -> bool | None:
        """Would a Wild Draw Four that ``seat`` plays now be a bluff (a card of the color in
        play in its hand: the rule above)? None if this view cannot see that hand. For the
        table, which warns before such a card is played."""
        return self._holds_color(self.hands[seat], self.color)

    def _holds_color(self, slots: Sequence[int], color: int) -> bool | None:
        faces = self.faces
        cards = [faces[s] for s in slots]
        if UNKNOWN in cards:
            return None
        return any(CARD_COLOR[c] == color for c in cards)

    # ------------------------------------------------------------------ effects
    def _close_window(self) -> None:
        # 002 · Going Out: caught "before the next player begins their turn".
        self.window = False
        self.vulnerable.clear()

    def _do(self, a: Action) -> list[Event]:
        k = a.kind
        seat = a.seat
        events: list[Event] = []
        if k is _PLAY:
            self.window = False  # _close_window(), inlined on the hot paths
            self.vulnerable.clear()
            self.stats.turns += 1
            return self._play(a, events, False)
        if k is _DRAW:
            self.window = False
            self.vulnerable.clear()
            self.stats.turns += 1
            draw = self.draw
            if draw and not self.owed:
                # _settle() for the one card owed, the draw pile not being empty
                slot = draw.pop()
                self.hands[seat].append(slot)
                self.stats.draws += 1
                self.turn_draw = False
                events.append(_EV_DRAW1[seat])
                self.drawn = slot
                self.phase = _DRAWN
                self.passes = 0
                if self.ending:
                    return self._finish_round(events)
                return events
            self.turn_draw = True
            self.owed.append([seat, 1])
            return self._settle(events)
        if k is _UNO:
            self.vulnerable.discard(seat)
            events.append(_EV_UNO[seat])
            return events
        if k is _KEEP:
            events.append(_EV_KEEP[seat])
            return self._end_turn(events, seat)
        if k is _TAKE:
            self.window = False
            self.vulnerable.clear()
            self.stats.turns += 1
            n = self.pending
            events.append(_new(_EVENT, ("penalty", seat, -1, n, -1, None)))
            self.pending, self.pending_rank = 0, -1
            self.offender = -1
            self.owed.append([seat, n])
            self.turn = (seat + self.direction) % self.options.players
            self.phase = _TURN
            return self._settle(events)
        if k is _JUMP:
            # 001 · JUMP-IN: a Skip/Reverse/Draw Two/Wild Draw Four jumped on "cancels out the
            # first": undo its effect, then play on from the jumper.
            if CARD_RANK[self.top] in (SKIP, REVERSE, DRAW_TWO, WILD_DRAW_FOUR):
                self.direction, self.pending, self.pending_rank = self.before
                if self.pending == 0:
                    self.pending_rank = -1
            self.turn = seat
            return self._play(a, events, True)
        if k is _CHALLENGE:
            self._close_window()
            self.stats.turns += 1
            events.append(_new(_EVENT, ("challenge", seat, -1, 0, self.offender, None)))
            self.phase = _VERDICT
            return events
        if k is _GUILTY or k is _INNOCENT:
            return self._verdict(seat, k is _GUILTY, events)
        if k is _CATCH:
            # 002 · Going Out: "If you don't yell UNO and you are caught ... draw two cards."
            t = a.target
            self.vulnerable.discard(t)
            self.stats.uno_penalties += 1
            events.append(_new(_EVENT, ("caught", t, -1, 0, seat, None)))
            self.owed.append([t, UNO_PENALTY])
            return self._settle(events)
        # Kind.COLOR
        self._close_window()
        self.color = a.choose
        events.append(_new(_EVENT, ("color", seat, -1, a.choose, -1, None)))
        self.phase = _TURN
        return events

    def _verdict(self, seat: int, guilty: bool, events: list[Event]) -> list[Event]:
        # Every verdict is recorded, checked or not, so the public state is the same on every
        # node whatever it could see; the audit re-checks them all with full information.
        self.claims.append(
            Claim(seat, "verdict", self.offender, guilty, self.wd4_hand, self.wd4_color)
        )
        n = self.pending
        self.pending, self.pending_rank = 0, -1
        self.phase = _TURN
        if guilty:
            # 002 · Wild Draw Four NOTE: "If guilty, the challenged player must draw the 4 cards
            # instead of you." Decision: the challenger then plays their turn.
            events.append(_new(_EVENT, ("guilty", seat, -1, n, self.offender, None)))
            self.stats.challenges_won += 1
            self.owed.append([self.offender, n])
            self.turn = seat
        else:
            # "... you must draw the 4 cards PLUS an additional 2 cards (6 total)!"
            events.append(
                _new(_EVENT, ("innocent", seat, -1, n + CHALLENGE_EXTRA, self.offender, None))
            )
            self.stats.challenges_lost += 1
            self.owed.append([seat, n + CHALLENGE_EXTRA])
            self.turn = self.next_seat(seat)
        self.offender = -1
        return self._settle(events)

    def _play(self, a: Action, events: list[Event], jump: bool) -> list[Event]:
        seat, _, slot, _, _, choose, target, uno = a
        hand = self.hands[seat]
        before_size = len(hand)
        hand.remove(slot)
        self.discard.append(slot)
        c = self.faces[slot]
        rank = CARD_RANK[c]
        options = self.options
        n = options.players
        wild = CARD_COLOR[c] == WILD
        prev_color = self.color
        color = choose if wild else CARD_COLOR[c]
        self.color = color
        self.top_played = True
        self.window = True
        self.passes = 0
        self.before = (self.direction, self.pending, self.pending_rank)
        bluff: bool | None = None
        if rank == WILD_DRAW_FOUR:
            self.offender = seat
            self.wd4_hand = tuple(hand)
            self.wd4_color = prev_color
            bluff = self._wd4_illegal()
        # value: the cards left, as they were then (a history caught up later shows that)
        events.append(_new(_EVENT, ("jump" if jump else "play", seat, c, len(hand), -1, bluff)))
        if wild:
            events.append(_EV_COLOR[seat * 4 + color])
        if uno:
            events.append(_EV_UNO[seat])
        if not hand:
            events.append(_new(_EVENT, ("out", seat, -1, 0, -1, None)))
            self.out = seat
            self.ending = True
            self._close_window()
            if rank in (DRAW_TWO, WILD_DRAW_FOUR):
                # 002 · Going Out: "the next player must draw the 2 or 4 cards respectively".
                victim = self.next_seat(seat)
                total = self.pending + (2 if rank == DRAW_TWO else 4)
                if not self.options.progressive:
                    total = 2 if rank == DRAW_TWO else 4
                events.append(_new(_EVENT, ("penalty", victim, -1, total, -1, None)))
                self.owed.append([victim, total])
                self.pending, self.pending_rank = 0, -1
            return self._settle(events)
        if options.seven_o and (rank == 0 or rank == 7):
            self.vulnerable.clear()
            if rank == 7:
                # 001 · SEVEN-O 2: "must trade their hand with another player of their choice".
                t = target
                self.hands[seat], self.hands[t] = self.hands[t], self.hands[seat]
                events.append(_new(_EVENT, ("swap", seat, -1, 0, t, None)))
            else:
                # 001 · SEVEN-O 1: "all players pass their hands to the next player in
                # direction of play".
                old = self.hands
                self.hands = [old[(i - self.direction) % n] for i in range(n)]
                # (value: the direction they passed in, so a screen can say whose hand
                # each seat now holds, also when it describes the move later)
                events.append(_new(_EVENT, ("rotate", seat, -1, self.direction, -1, None)))
        if before_size == 2 and not uno and len(self.hands[seat]) == 1:
            self.vulnerable.add(seat)
        # Effects of the card, from the player's seat.
        self.phase = _TURN
        if rank < SKIP or rank == WILD_CARD:  # a number or a Wild: the next player's turn
            self.turn = (seat + self.direction) % n
            return events
        if rank == SKIP or (rank == REVERSE and n == 2):
            # 002 · Skip; decision: with two players a Reverse acts as a Skip.
            skipped = self.next_seat(seat)
            events.append(_new(_EVENT, ("skip", skipped, -1, 0, -1, None)))
            if rank == REVERSE:
                self.direction = -self.direction
                events.append(_new(_EVENT, ("reverse", -1, -1, 0, -1, None)))
                skipped = seat
            self.turn = self.next_seat(skipped) if rank == SKIP else seat
        elif rank == REVERSE:
            self.direction = -self.direction
            events.append(_new(_EVENT, ("reverse", -1, -1, 0, -1, None)))
            self.turn = self.next_seat(seat)
        elif rank in (DRAW_TWO, WILD_DRAW_FOUR):
            add = 2 if rank == DRAW_TWO else 4
            victim = self.next_seat(seat)
            if self.options.progressive and self.pending_rank == rank:
                self.pending += add  # 001 · PROGRESSIVE UNO 1-3: the stack grows
            else:
                self.pending = add
            self.pending_rank = rank
            self.turn = victim
            self.phase = _PENALTY
            if self.pending > add:
                events.append(_new(_EVENT, ("stack", victim, -1, self.pending, -1, None)))
        else:
            self.turn = self.next_seat(seat)
        return events

    def _end_turn(self, events: list[Event], seat: int) -> list[Event]:
        self.turn = (seat + self.direction) % self.options.players
        self.phase = _TURN
        self.drawn = -1
        return events

    def _settle(self, events: list[Event]) -> list[Event]:
        """Draw every owed card; stop for a reshuffle when the draw pile runs out."""
        draw = self.draw
        owed = self.owed
        while owed:
            entry = owed[0]
            seat, count = entry
            hand = self.hands[seat]
            # the top of the pile (its end) goes into the hand first, as with draw.pop()
            got = min(count, len(draw)) if count > 0 else 0
            if got:
                cut = len(draw) - got
                moved = draw[cut:]
                moved.reverse()
                hand.extend(moved)
                del draw[cut:]
            # the draw pile ran out: reshuffle, or (decision) if both piles are exhausted the
            # rest is forgiven
            if count > got and len(self.discard) > 1:
                # 002 · Going Out: "If no player is out of cards by the time the DRAW pile is
                # depleted, the DISCARD pile is reshuffled and play continues."
                entry[1] = count - got
                if got:
                    events.append(_new(_EVENT, ("draw", seat, -1, got, -1, None)))
                sources = tuple(self.discard[:-1])
                self.resume = self.phase
                self.phase = _SHUFFLE
                self.need = Need("shuffle", count=len(sources), sources=sources)
                return events
            owed.pop(0)
            self.stats.draws += got
            if self.turn_draw:
                self.turn_draw = False
                if got:
                    events.append(_EV_DRAW1[seat])
                    self.drawn = hand[-1]
                    self.phase = _DRAWN
                    self.passes = 0
                else:
                    events.append(_new(_EVENT, ("pass", seat, -1, 0, -1, None)))
                    self.passes += 1
                    self._end_turn(events, seat)
                    if self.passes >= self.options.players:
                        events.append(_new(_EVENT, ("blocked", -1, -1, 0, -1, None)))
                        self.ending = True
            elif got:
                events.append(_new(_EVENT, ("draw", seat, -1, got, -1, None)))
        if self.ending:
            return self._finish_round(events)
        return events

    # ------------------------------------------------------------------ scoring
    def _finish_round(self, events: list[Event]) -> list[Event]:
        self._close_window()
        # Every hand is shown to all: the same need on every node, whatever each one knows.
        hands = tuple(s for h in self.hands for s in h)
        self.phase = _REVEAL
        self.need = Need("reveal", slots=hands)
        return events + self._check_need()

    def _score(self, events: list[Event]) -> list[Event]:
        n = self.players
        target = self.options.target
        w = self.out
        winners: tuple[int, ...]
        if self.options.scoring == "standard":
            # 002 · Scoring: the winner scores the cards left in the opponents' hands.
            points = sum(self.hand_points(s) for s in range(n) if s != w) if w >= 0 else 0
            if w >= 0:
                self.scores[w] += points
            events.append(_new(_EVENT, ("round-over", w, -1, points, -1, None)))
            done = w >= 0 and self.scores[w] >= target
            winners = (w,) if done else ()
        else:
            # 002 · Alternative Scoring: "keep a running tally of the points each player is left
            # with ... When one player reaches 500 points, the player with the lowest points is
            # the winner."
            for s in range(n):
                self.scores[s] += self.hand_points(s)
            events.append(_new(_EVENT, ("round-over", w, -1, 0, -1, None)))
            done = max(self.scores) >= target
            low = min(self.scores)
            winners = tuple(s for s in range(n) if self.scores[s] == low) if done else ()
        self.ending = False
        if done:
            self.winners = winners
            self.phase = _GAME_OVER
            self.need = None
            events.extend(_new(_EVENT, ("game-over", s, -1, 0, -1, None)) for s in winners)
            return events
        # Decision: the deal passes to the left.
        self.dealer = (self.dealer + 1) % n
        return self._next_round(events)

    # ------------------------------------------------------------------ who may see what
    def visible_to(self, seat: int) -> list[int]:
        """The slots whose cards ``seat`` is entitled to see now: its own hand, the discard
        pile, the draw for dealer, the challenged hand while it gives its verdict, and every
        hand once the round is over. A node's crypto layer opens exactly these for it."""
        slots = self.private_to(seat)
        slots.extend(self.discard)
        slots.extend(self.dd_slots)
        if self.need is not None and self.need.kind == "reveal":
            slots.extend(self.need.slots)
        return slots

    def private_to(self, seat: int) -> list[int]:
        """The part of :meth:`visible_to` that is not public: ``seat``'s own hand, and the
        challenged hand while ``seat`` gives its verdict (002 · Wild Draw Four NOTE: "The
        challenged player must show you (the challenger) their hand")."""
        slots = list(self.hands[seat])
        if self.phase is _VERDICT and seat == self.turn:
            slots.extend(self.wd4_hand)
        return slots

    # ------------------------------------------------------------------ public state
    def public_state(self) -> dict[str, Any]:
        """Everything every node knows, in plain values (no faces a node may not see)."""
        faces = self.faces
        return {
            "phase": self.phase.value,
            "round": self.round_no,
            "dealer": self.dealer,
            "scores": list(self.scores),
            "winners": list(self.winners),
            "turn": self.turn,
            "direction": self.direction,
            "color": self.color,
            "pending": [self.pending, self.pending_rank],
            "draw": list(self.draw),
            "discard": [[s, faces[s]] for s in self.discard],
            "hands": [list(h) for h in self.hands],
            "window": self.window,
            "top_played": self.top_played,
            "vulnerable": sorted(self.vulnerable),
            "before": list(self.before),
            "challenge": [self.offender, list(self.wd4_hand), self.wd4_color],
            "drawn": self.drawn,
            "passes": self.passes,
            "out": self.out,
            "owed": [list(o) for o in self.owed],
            "need": None
            if self.need is None
            else [self.need.kind, self.need.count, list(self.need.sources), list(self.need.slots)],
            "dealer_draw": [list(self.dd_contenders), [[s, faces[s]] for s in self.dd_slots]],
            "claims": [[c.seat, c.offender, c.guilty, list(c.slots), c.color] for c in self.claims],
        }

    def digest(self) -> bytes:
        """SHA-256 of the canonical public state: equal on every node that saw the same log."""
        body = json.dumps(self.public_state(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(b"p2puno/v1/state\x00" + body.encode()).digest()

    def card_census(self) -> list[int]:
        """Every card id in the deck (draw pile, discard pile, hands): for conservation checks."""
        faces = self.faces
        slots = [*self.draw, *self.discard, *(s for h in self.hands for s in h)]
        return [faces[s] for s in slots]
