"""Engine events in words, one wording for every place a person reads a game: the table's
move list, the replay's, a node's lines at a plain terminal and the demo's narration
(``--narrate``). Names, not seat numbers; "you" for the reader's own seat; a card as its
notation (``r7``) and, where it helps, in words ("red 7"). Nothing here decides a rule: each
line only reads the event the engine emitted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p2puno.engine.cards import (
    CARD_COLOR,
    CARD_RANK,
    CARD_TEXT,
    DRAW_TWO,
    REVERSE,
    SKIP,
    WILD_CARD,
    WILD_DRAW_FOUR,
)
from p2puno.engine.game import UNO_PENALTY, Event, Game

COLOR_NAMES = ("red", "yellow", "green", "blue")
RANK_NAMES = {SKIP: "Skip", REVERSE: "Reverse", DRAW_TWO: "Draw Two"}


def card_name(card: int) -> str:
    """A card in words: "red 7", "green Draw Two", "Wild Draw Four"."""
    if card < 0:
        return "a hidden card"
    rank, color = CARD_RANK[card], CARD_COLOR[card]
    if rank == WILD_CARD:
        return "Wild"
    if rank == WILD_DRAW_FOUR:
        return "Wild Draw Four"
    return f"{COLOR_NAMES[color]} {RANK_NAMES.get(rank, str(rank))}"


def color_name(color: int) -> str:
    return COLOR_NAMES[color] if 0 <= color < 4 else "none yet"


def owed_cards(e: Event) -> tuple[int, int] | None:
    """(seat, count) of the cards event ``e`` says a seat must draw as a penalty (a Draw Two's
    or a stack's taken, a catch without UNO, a challenge's verdict); None for any other. The
    engine draws them at once after it (``Game._settle``), as a "draw" event of that seat."""
    if e.kind in ("penalty", "innocent"):
        return e.seat, e.value
    if e.kind == "caught":
        return e.seat, UNO_PENALTY
    if e.kind == "guilty":
        return e.other, e.value
    return None


def told_draw(before: Event | None, e: Event) -> bool:
    """Whether ``e`` is the "draw" of cards that ``before``, the event told just before it,
    already said were drawn, every one of them ("Bob took 2 cards and lost the turn", then
    the engine's "draw" of those 2): its words would say the same cards twice (a review read
    "took 2 and lost the turn" and "drew 2 cards" as four cards). A draw cut short by an
    empty draw pile is not: it says how many of them came."""
    owed = owed_cards(before) if before is not None else None
    return e.kind == "draw" and owed is not None and owed == (e.seat, e.value)


def event_words(
    game: Game,
    names: Sequence[str],
    me: int | None,
    e: Event,
    card_text: Callable[[int], str] | None = None,
    *,
    before: Event | None = None,
) -> str | None:
    """One move in plain words (names, not seat numbers; "you" for seat ``me``); None for
    an event a reader need not see. ``card_text``: how a card is written (default: its
    notation, ``r7``; the narration colours it). ``before``: the engine event told just
    before this one, where the reader has it: a penalty's draw is then told once, by the
    penalty's line (:func:`told_draw`: None for the draw); without it every draw is told."""

    def who(seat: int) -> str:
        if seat == me:
            return "you"
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    def Who(seat: int) -> str:
        w = who(seat)
        return w[0].upper() + w[1:]

    k = e.kind
    card = card_name(e.card) if e.card >= 0 else ""
    text = (card_text or CARD_TEXT.__getitem__)(e.card) if e.card >= 0 else ""
    if k == "dealer-card":
        return f"{Who(e.seat)} drew {text} for dealer"
    if k == "dealer":
        return f"{Who(e.seat)} deal{'' if e.seat == me else 's'} first"
    if k == "round":
        return f"— round {e.value}: {who(e.seat)} deal{'' if e.seat == me else 's'} —"
    if k == "start":
        return f"Start card: {text} ({card})"
    if k == "returned":
        # (plain words: "a new joint shuffle" was a reviewer's puzzle, helper-54)
        return f"{text} turned up: it goes back into the deck, shuffled again by everyone"
    if k == "play":
        left = e.value  # the cards left then, not now (a history caught up at once)
        bluff = " — a bluff!" if e.bluff else ""
        return f"{Who(e.seat)} played {text}{bluff} ({left} left)"
    if k == "jump":
        return f"{Who(e.seat)} jumped in with {text}! ({e.value} left)"
    if k == "color":
        return f"  color is now {color_name(e.value)}"
    if k == "draw":
        if told_draw(before, e):
            return None  # (the penalty's line said these cards: one line for one draw)
        owed = owed_cards(before) if before is not None else None
        if owed is not None and owed[0] == e.seat:  # (the pile ran out: the rest follow its
            # reshuffle, "Bob drew 3 cards", or are forgiven if nothing is left to shuffle)
            return f"{Who(e.seat)} got only {e.value} of them before the draw pile ran out"
        if before is not None and before.kind == "reshuffle" and e.value > 1:
            # (the rest of a penalty, drawn once the pile was shuffled anew: a turn's draw is
            # one card. "drew 3 cards" after "took 4 cards" read as seven)
            return f"{Who(e.seat)} drew the {e.value} cards still owed"
        s = "" if e.value == 1 else "s"
        return f"{Who(e.seat)} drew {e.value} card{s}"
    if k == "keep":
        return f"{Who(e.seat)} kept the drawn card"
    if k == "pass":
        return f"{Who(e.seat)} had nothing to draw and passed"
    if k == "skip":
        return f"  {who(e.seat)} {'are' if e.seat == me else 'is'} skipped"
    if k == "reverse":
        return "  direction reverses"
    if k == "penalty":
        return f"{Who(e.seat)} took {e.value} cards and lost the turn"
    if k == "stack":
        return f"  the stack on {who(e.seat)} is now {e.value}"
    if k == "uno":
        return f"{Who(e.seat)}: UNO!"
    if k == "caught":
        # (who draws, said as a verdict's line says it: the table names your own cards after
        # it, "...: you draw 2: r5 g7", where "+2 cards: r5 g7" read as a list of two)
        verb = "draw" if e.seat == me else "draws"
        return (
            f"{Who(e.other)} caught {who(e.seat)} without UNO: {who(e.seat)} {verb} {UNO_PENALTY}"
        )
    if k == "challenge":
        whose = "your" if e.other == me else f"{who(e.other)}'s"
        return f"{Who(e.seat)} challenged {whose} Wild Draw Four"
    if k == "guilty":
        verb = "draw" if e.other == me else "draws"
        # (said by who won it: "Challenge won: you bluffed" read wrong on the bluffer's screen)
        return f"{Who(e.seat)} won the challenge: {who(e.other)} bluffed and {verb} {e.value}"
    if k == "innocent":
        verb = "draw" if e.seat == me else "draws"
        return f"{Who(e.seat)} lost the challenge: no bluff, and {who(e.seat)} {verb} {e.value}"
    if k == "swap":
        return f"{Who(e.seat)} swapped hands with {who(e.other)} (Seven-O)"
    if k == "rotate":
        text = "A 0: every hand passes on in the direction of play (Seven-O)"
        if me is not None and e.value in (1, -1) and names:  # (a review: whose hand now?)
            text += f": you now hold {who((me - e.value) % len(names))}'s hand"
        return text
    if k == "reshuffle":
        return f"The discard pile is shuffled again by everyone into a new draw pile of {e.value}"
    if k == "out":
        return f"{Who(e.seat)} went out!"
    if k == "blocked":
        return "No cards left to draw and nobody can play: the round is blocked"
    if k == "round-over":
        if e.seat < 0:
            return "Round over (blocked)"
        if game.options.scoring == "standard":
            return f"Round over: {who(e.seat)} score{'' if e.seat == me else 's'} {e.value}"
        return f"Round over: {who(e.seat)} went out; everyone adds their own hand"
    if k == "game-over":
        return f"Game over: {who(e.seat)} win{'' if e.seat == me else 's'}!"
    return None
