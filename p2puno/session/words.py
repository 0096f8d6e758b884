"""The session's own events in words: one wording for the table's move list, the replay's
and a node's lines at a plain terminal (the engine's events: :mod:`p2puno.sim.words`)."""

from __future__ import annotations

from collections.abc import Sequence

from p2puno.session.session import SessionEvent


def session_words(ev: SessionEvent, names: Sequence[str]) -> str | None:
    """The session's own news (audits, disputes, verdicts, votes) in words, players by name;
    None for news a reader need not see (the game's end: each screen and command says it its
    own way, with the outcome)."""
    text = ev.text
    for s, n in enumerate(names):
        text = text.replace(f"seat {s}", n)
    if ev.kind == "audit":
        return f"✓ {text}: every shuffle, key and move of it checks out"
    if ev.kind == "bluff":
        return f"audit: {text} (unchallenged bluffs stand)"
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
