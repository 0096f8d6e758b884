"""The 108-card deck, card ids and the face notation.

Every physical card has an id 0..107 (sheet 002 · Contents lists the deck): for each color in
the order r, y, g, b one 0, two each of 1..9, two Skips, two Reverses and two Draw Twos (25 per
color, ids 0..99), then four Wilds (100..103) and four Wild Draw Fours (104..107).

Faces print and parse as ``r7``, ``g+2``, ``bS`` (Skip), ``yR`` (Reverse), ``W``, ``W+4``.
Everything here is a table lookup on small ints: the engine's hot paths never build objects.
"""

from __future__ import annotations

from typing import Final

COLORS: Final = "rygb"
"""Color letters in id order. The index of a letter is its color code."""

WILD: Final = -1
"""Color code of a card with no color (Wild, Wild Draw Four)."""

# Ranks: 0..9 are numbers, then the symbols.
SKIP: Final = 10
REVERSE: Final = 11
DRAW_TWO: Final = 12
WILD_CARD: Final = 13
WILD_DRAW_FOUR: Final = 14

RANK_TEXT: Final = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2", "W", "W+4")
DECK_SIZE: Final = 108
UNKNOWN_CARD: Final = -1
"""A slot whose card this view does not know."""


def _build() -> tuple[tuple[int, ...], tuple[int, ...]]:
    colors: list[int] = []
    ranks: list[int] = []
    for color in range(4):
        order = [0, *[r for n in range(1, 10) for r in (n, n)], SKIP, SKIP, REVERSE, REVERSE]
        order += [DRAW_TWO, DRAW_TWO]
        for rank in order:
            colors.append(color)
            ranks.append(rank)
    for rank in (WILD_CARD, WILD_DRAW_FOUR):
        for _ in range(4):
            colors.append(WILD)
            ranks.append(rank)
    return tuple(colors), tuple(ranks)


_TABLES = _build()
CARD_COLOR: Final = _TABLES[0]
"""``CARD_COLOR[id]`` is the color code (or WILD); ``CARD_RANK[id]`` the rank."""
CARD_RANK: Final = _TABLES[1]

assert len(CARD_COLOR) == DECK_SIZE


def _points(rank: int) -> int:
    # 002 · Scoring: numbers face value, Draw Two / Reverse / Skip 20, Wild / Wild Draw Four 50.
    if rank <= 9:
        return rank
    return 20 if rank <= DRAW_TWO else 50


CARD_POINTS: Final = tuple(_points(r) for r in CARD_RANK)

# A face is (color, rank) packed as one int so identical cards compare equal cheaply.
CARD_FACE: Final = tuple((c + 1) * 16 + r for c, r in zip(CARD_COLOR, CARD_RANK, strict=True))


def face_text(color: int, rank: int) -> str:
    """The notation of a face, e.g. ``face_text(0, 7) == "r7"``."""
    if rank >= WILD_CARD:
        return RANK_TEXT[rank]
    return COLORS[color] + RANK_TEXT[rank]


CARD_TEXT: Final = tuple(face_text(c, r) for c, r in zip(CARD_COLOR, CARD_RANK, strict=True))


def card_text(card: int) -> str:
    """The face notation of a card id, e.g. ``card_text(100) == "W"``."""
    return CARD_TEXT[card]


class NotationError(ValueError):
    """Text that is not a valid card or action in p2puno's notation."""


_FACES_BY_TEXT: Final = {
    face_text(c, r): (c, r) for c, r in zip(CARD_COLOR, CARD_RANK, strict=True)
}


def parse_face(text: str) -> tuple[int, int]:
    """Parse a face (``"g+2"``) into ``(color, rank)``; raise NotationError otherwise."""
    face = _FACES_BY_TEXT.get(text)
    if face is None:
        raise NotationError(f"not a card: {text!r} (expected e.g. r7, g+2, bS, yR, W, W+4)")
    return face


def parse_color(text: str) -> int:
    """Parse one color letter (r, y, g, b)."""
    if len(text) != 1 or text not in COLORS:
        raise NotationError(f"not a color: {text!r} (expected one of r, y, g, b)")
    return COLORS.index(text)


def cards_with_face(color: int, rank: int) -> tuple[int, ...]:
    """Every card id with this face."""
    return tuple(i for i in range(DECK_SIZE) if CARD_COLOR[i] == color and CARD_RANK[i] == rank)


def dealer_draw_value(card: int) -> int:
    """The value of a card in the draw for dealer: symbols count as zero (002 · Setup 1)."""
    rank = CARD_RANK[card]
    return rank if rank <= 9 else 0
