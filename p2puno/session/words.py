"""The session's own events in words: one wording for the table's move list, the replay's
and a node's lines at a plain terminal (the engine's events: :mod:`p2puno.sim.words`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from p2puno.session.session import SessionEvent

_SEAT = re.compile(r"\bseat (\d+)\b|\bP(\d+)\b")  # a seat as the session and engine write it


def named(text: str, names: Sequence[str]) -> str:
    """``text`` with each seat ("seat 2", the engine's "P2") told by its player's name; a seat
    the roster does not have stays as it was."""

    def name(m: re.Match[str]) -> str:
        seat = int(m.group(1) or m.group(2))
        return names[seat] if seat < len(names) else m.group(0)

    return _SEAT.sub(name, text)


def session_words(ev: SessionEvent, names: Sequence[str]) -> str | None:
    """The session's own news (audits, disputes, verdicts, votes) in words, players by name;
    None for news a reader need not see (the game's end: each screen and command says it its
    own way, with the outcome)."""
    text = named(ev.text, names)
    if ev.kind == "audit":
        return f"✓ {text}: every shuffle, key and move of it checks out"
    if ev.kind == "bluff":  # (the audit found it: the played card's hand is open now)
        who = names[ev.seat] if 0 <= ev.seat < len(names) else f"seat {ev.seat}"
        return f"audit: {who}'s Wild Draw Four was a bluff (unchallenged bluffs stand)"
    if ev.kind == "dispute":
        return f"! dispute: {text}: every seat reveals its secrets, the audit will name who"
    if ev.kind == "blame":
        return f"!! cheat found: {text}"
    if ev.kind == "vote":
        return f"! vote to stop: {text}"
    if ev.kind == "evidence":
        return f"!! two versions of one entry: {text} (the evidence goes to every seat)"
    if ev.kind == "refused":
        return f"refused an entry: {text}"
    return None
