"""Build exact positions: a rigged deck order so tests can name every hand and the start card."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from p2puno.engine import Game, Options, parse_action
from p2puno.engine.cards import CARD_TEXT, DECK_SIZE
from p2puno.engine.game import Event


class Deck:
    """Hands out card ids by face text, each physical card once."""

    def __init__(self) -> None:
        self.free = list(range(DECK_SIZE))

    def take(self, face: str) -> int:
        for c in self.free:
            if CARD_TEXT[c] == face:
                self.free.remove(c)
                return c
        raise ValueError(f"no {face} left in the deck")


def dealer_draw_order(players: int, dealer: int) -> list[int]:
    deck = Deck()
    zeros = ["r0", "y0", "g0", "b0", "rS", "yS", "gS", "bS", "rR", "yR"]
    order = []
    for s in range(players):
        order.append(deck.take("r9") if s == dealer else deck.take(zeros[s]))
    return order + deck.free


def rig(
    options: Options,
    hands: Sequence[Sequence[str]],
    start: str,
    draw: Sequence[str] = (),
    dealer: int | None = None,
) -> tuple[Game, list[Event]]:
    """A game in round 1 with these hands (by seat), this start card, and the draw pile
    beginning with ``draw`` (top first). Hands shorter than 7 are filled from the deck."""
    n = options.players
    dealer = n - 1 if dealer is None else dealer
    g = Game(options)
    g.shuffle(dealer_draw_order(n, dealer))
    assert g.dealer == dealer
    deck = Deck()
    chosen = [[deck.take(f) for f in h] for h in hands]
    start_id = deck.take(start)
    draw_ids = [deck.take(f) for f in draw]
    # Fill short hands from cards that are not wild, so fills never change a test's point.
    fill = [c for c in deck.free if CARD_TEXT[c][0] in "rygb"]
    for h in chosen:
        while len(h) < 7:
            c = fill.pop()
            deck.free.remove(c)
            h.append(c)
    order: list[int] = []
    first = (dealer + 1) % n
    for k in range(7):
        for i in range(n):
            order.append(chosen[(first + i) % n][k])
    order.append(start_id)
    order.extend(draw_ids)
    order.extend(deck.free)
    events = g.shuffle(order)
    return g, events


def act(g: Game, text: str) -> list[Event]:
    return g.apply(parse_action(text))


def slot_of(g: Game, seat: int, face: str) -> int:
    for s in g.hands[seat]:
        if CARD_TEXT[g.faces[s]] == face:
            return s
    raise AssertionError(
        f"P{seat} holds no {face}: {[CARD_TEXT[g.faces[s]] for s in g.hands[seat]]}"
    )


def playf(g: Game, seat: int, face: str, extra: str = "", jump: bool = False) -> list[Event]:
    """Play a card by face, e.g. ``playf(g, 0, "W", ":g")``."""
    slot = slot_of(g, seat, face)
    prefix = f"{seat} jump " if jump else f"{seat} "
    return act(g, f"{prefix}{face}#{slot}{extra}")


def faces(g: Game, seat: int) -> list[str]:
    return sorted(CARD_TEXT[g.faces[s]] for s in g.hands[seat])


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def snapshot(g: Game) -> Game:
    return copy.deepcopy(g)
