"""Offline replay of a signed game log: ``p2puno replay LOG [--verify]``.

First every entry's signature, encoding and place in the chain is checked (signatures in
parallel: pyca releases the GIL). Then an observer session (no seat, no secrets) applies every
step with the same code the players ran: it checks that each step was proposed by the seat the
schedule names, opens every public card, and at each deck's reveal step audits the whole deck
with full information (every shuffle pass, every key, every face, every hidden-information
claim such as a challenge verdict, on a full-information engine). The first thing that does not
verify stops it, with the entry (0-based line of the file) and the reason.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field

from p2puno.log import (
    Equivocation,
    Log,
    LogError,
    LogFileError,
    Reason,
    entry_hash,
    iter_log_file,
)
from p2puno.log.store import open_log_file
from p2puno.session.session import Blame, Outcome, Session


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
    digest: bytes = b""  # the final public state digest (equal on every node)
    blame: Blame | None = None  # when a validly signed entry broke the rules: who, why, which step
    author: int | None = None  # the seat to blame for a log-level fault, when there is one
    evidence: list[Equivocation] = field(default_factory=list)  # two signed entries, one slot
    outcome: Outcome | None = None  # the game's result as the log proves it


def replay(
    path: str | os.PathLike[str],
    *,
    echo: Callable[[str], None] | None = None,
    thorough: bool = False,
) -> ReplayResult:
    """Verify the log file at ``path``; ``echo`` gets each line of the game as it is checked.

    ``thorough``: also recompute every shuffle step, so that every intermediate deck in the
    log is checked, not only the final deck (the composed audit, docs/security.md)."""
    # A replay builds many objects and frees none until the end, and makes no cycles that
    # matter: the cyclic collector would only rescan the growing log (a few % of the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _replay(path, echo, thorough)
    finally:
        if collecting:
            gc.enable()


def _replay(
    path: str | os.PathLike[str], echo: Callable[[str], None] | None, thorough: bool
) -> ReplayResult:
    lines: list[str] = []

    def say(text: str) -> None:
        lines.append(text)
        if echo is not None:
            echo(text)

    try:
        log, count, signatures = open_log_file(path, workers=max(1, (os.cpu_count() or 1) - 1))
    except LogFileError as e:
        failed = _fail(e.index, lines, f"{e.reason.value}: {e.message}")
        failed.author = e.author
        return failed
    except (LogError, ValueError) as e:
        return _fail(0, lines, str(e))
    except OSError as e:
        return _fail(None, lines, f"cannot read {path}: {e.strerror}")
    # The session runs while the signatures are checked in other processes; whichever fails
    # first in the file is the verdict, so nothing the session says stands unless they pass.
    try:
        # a thread beside the session for each audit's EC work (GIL released), which also
        # fills the gaps the signature workers leave
        with ThreadPoolExecutor(1) as audit_pool:
            result = _run(path, log, count, say, lines, audit_pool, thorough)
    except BaseException:
        signatures.close()
        raise
    bad = signatures.first_bad()
    if bad is not None and (result.bad_entry is None or bad <= result.bad_entry):
        return _fail(
            bad,
            lines,
            f"{Reason.BAD_SIGNATURE.value}: entry {bad} (line {bad + 1}): "
            "signature does not verify",
        )
    result.evidence = list(log.evidence)
    return result


def _run(
    path: str | os.PathLike[str],
    log: Log,
    count: int,
    say: Callable[[str], None],
    lines: list[str],
    audit_pool: Executor,
    thorough: bool,
) -> ReplayResult:
    try:
        session = Session(log, audit_executor=audit_pool, thorough_audit=thorough)
    except ValueError as e:
        return _fail(0, lines, f"bad genesis: {e}")
    say(f"game {session.game_id.hex()[:16]}: {session.options}")

    def step_line(seq: int) -> int:
        # the last line of the step: where its outcome was decided (only on failure: this
        # reads and hashes the file again)
        line_of = {entry_hash(raw): i for i, raw in iter_log_file(path)}
        hashes = [h for h, e in log if e.seq == seq]
        return max((line_of.get(h, 0) for h in hashes), default=0)

    while True:
        before = session._done_seq
        bad_seq = session.catch_up(max_steps=1)
        # every complete step is processed, also past a stop the votes decided (a cheat in
        # them still wins): the replay ends only when no step is left
        ended = session.blame is not None or session._done_seq == before
        if ended:
            # no more complete steps: the evidence in the file counts now (the earliest
            # verdict stands, whichever check found it)
            for eq in log.evidence:
                session.note_evidence(eq)
        for ev in session.events:
            if ev.kind in ("engine", "bluff", "audit", "dispute", "blame", "over", "vote"):
                say(f"[step {session._done_seq:>5}] {ev.text}")
        session.events.clear()
        if session.blame is not None:
            seq = bad_seq if bad_seq is not None else session.blame.step
            failed = _fail(step_line(seq), lines, str(session.blame))
            failed.blame = session.blame
            failed.author = session.blame.seat if session.blame.seat >= 0 else None
            failed.outcome = session.outcome
            return failed
        if ended:
            break
    outcome = session.outcome
    if not outcome.over:
        failed = _fail(count - 1, lines, "the log ends before the game does")
        failed.outcome = outcome
        return failed
    return ReplayResult(
        True,
        count,
        lines,
        None,
        None,
        outcome.winners,
        list(outcome.scores),
        session.bluffs,
        session.engine.digest(),
        outcome=outcome,
    )


def _fail(index: int | None, lines: list[str], reason: str) -> ReplayResult:
    return ReplayResult(False, index if index is not None else 0, lines, reason, index)
