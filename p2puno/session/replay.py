"""Offline replay of a signed game log: ``p2puno replay LOG [--verify]``.

The replay is an observer session (no seat, no secrets): it checks every entry's signature and
place in the chain, applies every step with the same code the players ran, opens every public
card, and at each deck's reveal step audits the whole deck with full information (every
shuffle pass, every key, every face, every hidden-information claim such as a challenge
verdict, on a full-information engine). The first thing that does not verify stops it, with
the entry and the reason.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from p2puno.log import Log, LogError, LogFileError, iter_log_file
from p2puno.session.session import Session, SessionError


@dataclass
class ReplayResult:
    ok: bool
    entries: int
    lines: list[str] = field(default_factory=list)
    error: str | None = None
    bad_entry: int | None = None
    winners: tuple[int, ...] = ()
    scores: list[int] = field(default_factory=list)
    bluffs: list[str] = field(default_factory=list)


def replay(
    path: str | os.PathLike[str], *, echo: Callable[[str], None] | None = None
) -> ReplayResult:
    lines: list[str] = []

    def say(text: str) -> None:
        lines.append(text)
        if echo is not None:
            echo(text)

    index = -1
    session: Session | None = None
    try:
        for index, raw in iter_log_file(path):
            if session is None:
                log = Log()
                log.add(raw)
                try:
                    session = Session(log)
                except ValueError as e:
                    return _fail(None, index, lines, f"bad genesis: {e}")
                say(f"game {session.game_id.hex()[:16]}: {session.options}")
                continue
            session.receive(raw)
            for ev in session.events:
                if ev.kind in ("engine", "bluff", "audit", "dispute", "blame", "over"):
                    say(f"[{index:>5}] {ev.text}")
            session.events.clear()
            if session.blame is not None:
                return _fail(session, index, lines, str(session.blame))
    except LogFileError as e:
        return _fail(session, e.index, lines, f"{e.reason.value}: {e.message}")
    except (LogError, SessionError) as e:
        return _fail(session, index, lines, str(e))
    except OSError as e:
        return _fail(session, None, lines, f"cannot read {path}: {e.strerror}")
    if session is None:
        return _fail(None, 0, lines, "the log is empty")
    if not session.over:
        return _fail(session, index, lines, "the log ends before the game does")
    g = session.engine
    return ReplayResult(
        True, index + 1, lines, None, None, g.winners, list(g.scores), session.bluffs
    )


def _fail(
    session: Session | None, index: int | None, lines: list[str], reason: str
) -> ReplayResult:
    entries = index if index is not None else 0
    return ReplayResult(False, entries, lines, reason, index)
