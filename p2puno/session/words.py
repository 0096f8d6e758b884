"""The session's own events in words: one wording for the table's move list, the replay's
and a node's lines at a plain terminal (the engine's events: :mod:`p2puno.sim.words`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from p2puno.session.session import Outcome, SessionEvent

_STEP = re.compile(r"^step (\d+): ")  # a verdict's step, as the session writes it
_SEAT = re.compile(r"\bseat (\d+)\b|\bP(\d+)\b")  # a seat as the session and engine write it


def named(text: str, names: Sequence[str]) -> str:
    """``text`` with each seat ("seat 2", the engine's "P2") told by its player's name; a seat
    the roster does not have stays as it was."""

    def name(m: re.Match[str]) -> str:
        seat = int(m.group(1) or m.group(2))
        return names[seat] if seat < len(names) else m.group(0)

    return _SEAT.sub(name, text)


def session_words(ev: SessionEvent, names: Sequence[str], me: int | None = None) -> str | None:
    """The session's own news (audits, disputes, verdicts, votes) in words, players by name
    (``me``, the reader's seat, as "you" where a vote says whom it waited for); None for news a
    reader need not see (the game's end: each screen and command says it its own way, with
    the outcome)."""
    text = named(ev.text, names)
    if ev.kind == "vote" and me is not None and 0 <= me < len(names):
        # (helper-99's own screen read "Bot-1 votes to stop (waiting for Bob, who voted too:
        # ...)", Bob being the reader)
        head, sep, tail = ev.text.partition(" (waiting for ")
        yours = [("you" if s == me else n) for s, n in enumerate(names)]
        own = f"seat {me} "
        if ev.seat == me and head.startswith(own):  # ("You vote", as its moves "You played")
            head = "You " + head[len(own) :].replace("votes", "vote", 1).replace(
                "amends its vote", "amend your vote", 1
            )
        text = named(head, names) + sep + named(tail, yours)
    if ev.kind == "audit":
        return f"✓ {text}: every shuffle, key and move of it checks out"
    if ev.kind == "bluff":  # (the audit found it: the played card's hand is open now)
        who = names[ev.seat] if 0 <= ev.seat < len(names) else f"seat {ev.seat}"
        return f"audit: {who}'s Wild Draw Four {text} was a bluff (unchallenged bluffs stand)"
    if ev.kind == "dispute":
        return f"! dispute: {text}: every seat reveals its secrets, the audit will name who"
    if ev.kind == "blame":  # (the one blamed with its seat: see outcome_words)
        text = _STEP.sub(r"step \1 of the log: ", text)  # (the log's step, said so)
        return f"!! cheat found: {_with_seat(ev, names, text)}"
    if ev.kind == "vote":
        return f"! {text}"  # ("Ann votes to stop (waiting for Bob)": said once)
    if ev.kind == "evidence":
        text = _with_seat(ev, names, text)
        return f"!! two versions of one entry: {text} (the evidence goes to every seat)"
    if ev.kind == "refused":
        return f"refused an entry: {text}"
    return None


def _with_seat(ev: SessionEvent, names: Sequence[str], text: str) -> str:
    """``text`` (players by name) with the seat of the one the event names after its first
    mention: "Bob (seat 1) signed two ...". Two players may look alike by name."""
    if not 0 <= ev.seat < len(names):
        return text
    name = names[ev.seat]
    at = text.find(name)
    if at < 0:
        return text
    return f"{text[: at + len(name)]} (seat {ev.seat}){text[at + len(name) :]}"


def in_a_sentence(items: Sequence[str]) -> str:
    """Names in a sentence: "A", "A and B", "A, B and C"."""
    return " and ".join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else "".join(items)


def _who(seats: Sequence[int], names: Sequence[str]) -> str:
    return in_a_sentence([names[s] if 0 <= s < len(names) else f"seat {s}" for s in seats])


def _wins(seats: Sequence[int]) -> str:
    return "win" if len(seats) > 1 else "wins"


# what a stop says of the seats it names (spec 10.15: the seats that neither voted nor sent
# what they owed): the vote records only that nothing came in time, whether the seat's person
# left the table (pressed q) or its network was lost; "silent past the deadline" said more
SILENT = "did not answer before the deadline"


def waited_for_first(o: Outcome) -> tuple[int, ...]:
    """Of a stop every seat voted for, the seats the first votes waited for: those named by
    the votes of seats that no vote names (whoever voted while nobody waited for them). A
    seat back from ``p2puno resume`` finds those votes and joins them, naming nobody or a
    seat whose vote crossed its own (session.py ``_on_vote``), so without this the stop read
    "by every player's vote", the absence that caused it unsaid (helper-83). () when every
    voter was waited for by another (the votes all crossed): the first cannot be told."""
    named = {x for seats in o.waited for x in seats}
    first = {x for v, seats in enumerate(o.waited) if v not in named for x in seats}
    return tuple(sorted(s for s in first if 0 <= s < len(o.scores)))


def outcome_words(o: Outcome, names: Sequence[str]) -> str:
    """The game's result in one line, players by name: what a node, a watcher and
    ``p2puno replay`` print at the end ("Ann wins; scores: Ann 512, Bob 80, Cy 0")."""
    scores = ", ".join(f"{_who([s], names)} {p}" for s, p in enumerate(o.scores))
    void = "; the round in play is void" if o.void else ""
    if o.state == "finished":
        said = f"{_who(o.winners, names)} {_wins(o.winners)}" if o.winners else "nobody wins"
    elif o.state == "cheat" and o.blame is not None:
        b = o.blame
        # (with the seat: a player named "Ноѕt" in Cyrillic letters read as the host, Host,
        # in a review's blame line; the seat number tells them apart)
        seat = f" (seat {b.seat})" if 0 <= b.seat < len(names) else ""
        who = f"{_who([b.seat], names)}{seat} cheated" if b.seat >= 0 else "a fault was found"
        # (the round a loser's spoiled last reveal did not undo, and its winners: spec 10.16)
        won = f"; {_who(o.winners, names)} {_wins(o.winners)}" if o.winners else ""
        # (the step is the log's, said so: "at step 7" read as a seventh move, helper-65)
        said = f"{who} at step {b.step} of the log: {named(b.reason, names)}{void}{won}"
    elif o.state == "stopped":
        # (the record cannot tell a seat that said goodbye, q, from one whose link was lost:
        # "silent" was untrue of the first; what is true of both, helper-65)
        who = f": {_who(o.silent, names)} {SILENT}" if o.silent else ""
        if who and o.voters:  # (whose claim it is: a vote is not a proof, spec 10.15)
            whose = f"{_who(o.voters, names)}'s vote" if len(o.voters) == 1 else "the votes of "
            whose += "" if len(o.voters) == 1 else _who(o.voters, names)
            who += f" (by {whose})"
        if not who:
            who = " by every seat's vote"
            # whom each vote waited for of the seats the first votes waited for (helper-37:
            # a seat that stalled, then voted too, was named by nobody; its vote named a seat
            # that had waited for it). Only those (waited_for_first, as the end box says it):
            # a vote that joined named every seat that had not voted as far as its node knew
            # (spec 10.15), and "Bot-1 waited for Bob" read as blame of the one seat that never
            # left (helper-99); where the votes all crossed, the first cannot be told: none
            away = set(waited_for_first(o))
            by: dict[tuple[int, ...], list[int]] = {}
            for voter, named_ in enumerate(o.waited):
                seats = tuple(s for s in named_ if s in away)
                if seats and voter not in away:
                    by.setdefault(seats, []).append(voter)
            if by:
                who += (
                    " ("
                    + "; ".join(
                        f"{_who(voters, names)} waited for {_who(list(named_), names)}"
                        for named_, voters in by.items()
                    )
                    + ")"
                )
        won = f"; {_who(o.winners, names)} {_wins(o.winners)}" if o.winners else ""
        said = f"stopped after step {o.step} of the log{who}{void}{won}"
    else:
        said = "not over yet" if o.state == "playing" else o.state
    return f"{said}; scores: {scores}"
