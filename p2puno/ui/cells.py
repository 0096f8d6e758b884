"""Terminal cells: how many columns a character or a text takes on a screen (one rule for the
table, the replay and the line prompt).

A wide (East Asian W/F) character takes two; a combining mark, an enclosing mark or a format
character (Mn, Me, Cf: an accent written after its letter, a zero-width joiner) takes none, as a
terminal draws it over the character before it; every other character one. Names cannot hold
the zero-width ones (node/names.py), but a chat line can: "e" then U+0301 is one cell on the
screen, and counted as two it left that row of the table one cell short.
"""

from __future__ import annotations

from functools import lru_cache
from unicodedata import category, east_asian_width


@lru_cache(maxsize=4096)
def char_cells(ch: str) -> int:
    """Columns the one character ``ch`` takes: 0, 1 or 2."""
    if category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if east_asian_width(ch) in "WF" else 1


def cells(text: str) -> int:
    """Columns ``text`` takes on a terminal."""
    return sum(map(char_cells, text))
