"""Offline replay of a signed game log: ``p2puno replay LOG [--verify]``.

The file is streamed: each entry's encoding and place in the chain is checked as it is read,
its signature in a worker process (pyca releases the GIL, but processes share nothing), and an
observer session (no seat, no secrets) applies each step once the next one's proposal is read,
with the same code the players ran: it checks that each step was proposed by the seat the
schedule names, opens every public card, and at each deck's reveal step audits the whole deck
with full information (every shuffle pass, every key, every face, every hidden-information
claim such as a challenge verdict, on a full-information engine). Processed steps leave
memory as they do in a node. The first thing that does not verify stops it, with the entry
(0-based line of the file) and the reason, exactly as if every line had been read first
(:func:`_run` says how).
"""

from __future__ import annotations

import gc
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

from p2puno.engine.game import Event
from p2puno.log import (
    Equivocation,
    Log,
    LogError,
    LogFileError,
    Reason,
    entry_hash,
    iter_log_file,
)
from p2puno.log.store import LogFileReader, LogShape, scan_log_file
from p2puno.session.session import Blame, Outcome, Session
from p2puno.session.words import named, outcome_words, session_words
from p2puno.sim.words import event_words, told_draw
from p2puno.wire import EncodingError, decode

PRUNE_KEEP = 100  # steps the replay keeps in memory, as a node does (p2puno.node.game)
# The entry cap of a log file read offline: 256 KiB, the cap of the builds before helper-78,
# where a node takes 64 KiB (MAX_ENTRY_SIZE). A file of an earlier build may hold a deck's
# whole reveal in one entry, over 64 KiB (193,909 bytes in a game of two random bots), and
# still verifies (spec 10.10); reading one's own file costs only oneself (docs/encoding.md).
REPLAY_MAX_ENTRY_SIZE = 256 * 1024
_POOL_FROM = 512 * 1024  # bytes of log from which worker processes pay for their start


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
    names: list[str] = field(default_factory=list)  # the players, by seat (when the log has them)
    # every line verified, but the file ends before the game does (spec 10.11: not a verdict
    # on anyone; a game still going on, or one its node may resume)
    incomplete: bool = False
    # who played: the names are anyone's to write, the keys are not (helper-32 passed off a
    # game played with keys of its own under the real players' names): each seat's signing
    # key, and the game id, for the verdict to show
    keys: list[bytes] = field(default_factory=list)
    game_id: bytes = b""
    # entries of steps after a finished game's last one: a node never writes them (its log is
    # frozen at the end) and nothing judges them; a file that holds them says so (helper-39:
    # they counted as verified)
    after_end: int = 0

    def players_line(self) -> str:
        """Each seat by name and key fingerprint (the first 16 hex digits of its signing key,
        as the lobby lists a host's), and the game id: what ties a verdict to the people."""
        seats = ", ".join(
            f"{name} (key {key.hex()[:16]})"
            for name, key in zip(self.names, self.keys, strict=False)
        )
        return f"game {self.game_id.hex()[:16]}; players: {seats}"


def replay(
    path: str | os.PathLike[str],
    *,
    echo: Callable[[str], None] | None = None,
    thorough: bool = False,
    on_step: Callable[[Session], None] | None = None,
) -> ReplayResult:
    """Verify the log file at ``path``; ``echo`` gets each line of the game as it is checked.

    ``thorough``: also recompute every shuffle step, so that every intermediate deck in the
    log is checked, not only the final deck (the composed audit, docs/security.md).
    ``on_step``: given the observer session after each step it processes, its events not yet
    cleared (`p2puno replay --table` draws its frames from them, in this same pass); it must
    not change the session."""
    # A replay builds many objects and frees none until the end, and makes no cycles that
    # matter: the cyclic collector would only rescan the growing log (a few % of the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _replay(path, echo, thorough, on_step)
    finally:
        if collecting:
            gc.enable()


def _replay(
    path: str | os.PathLike[str],
    echo: Callable[[str], None] | None,
    thorough: bool,
    on_step: Callable[[Session], None] | None,
) -> ReplayResult:
    lines: list[str] = []

    def say(text: str) -> None:
        lines.append(text)
        if echo is not None:
            try:
                echo(text)
            except OSError as e:  # its own failure (a closed pipe), not the file's
                raise _EchoFailed(e) from e

    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        return _fail(None, lines, f"cannot read {path}: {e.strerror}")
    if not stat.S_ISREG(mode):
        # the replay reads the file more than once (its shape first, then its entries): a
        # pipe was drained by the first read and a valid log REJECTED, /dev/zero read for
        # ever (helper-32)
        if stat.S_ISDIR(mode):  # (it said "a pipe or a device" of a folder, helper-38)
            return _fail(None, lines, f"{path} is a folder: replay the log file in it")
        return _fail(
            None,
            lines,
            f"{path} is not a file (a pipe or a device): save the log to a file, then replay that",
        )
    log = Log(max_entry_size=REPLAY_MAX_ENTRY_SIZE)
    reader = LogFileReader(path, log, workers=max(1, (os.cpu_count() or 1) - 1))
    try:
        if os.path.getsize(path) > _POOL_FROM:
            reader.signatures.start()
        shape = scan_log_file(path)
        # No thread for the audits' EC work (there was one): pyca 50 holds the GIL through an
        # ECDH, an X25519 exchange and an AEAD, so a second thread overlapped nothing (two
        # threads ran them no faster than one; the replay took as long with it as without)
        result = _run(reader, say, lines, thorough, shape, on_step)
    except LogFileError as e:
        failed = _fail(e.index, lines, f"{e.reason.value}: {e.message}")
        failed.author = e.author
        return failed
    except (LogError, ValueError) as e:
        return _fail(0, lines, str(e))
    except _EchoFailed as e:
        raise e.error from None
    except OSError as e:
        return _fail(None, lines, f"cannot read {path}: {e.strerror}")
    finally:
        reader.signatures.close()
    # The session ran while the signatures were checked in other processes; whichever fails
    # first in the file is the verdict, so nothing the session says stands unless they pass.
    bad = reader.signatures.first_bad()
    if bad is not None and (result.bad_entry is None or bad <= result.bad_entry):
        return _fail(
            bad,
            lines,
            f"{Reason.BAD_SIGNATURE.value}: entry {bad} (line {bad + 1}): "
            "signature does not verify",
        )
    result.evidence = list(log.evidence)
    result.names = [p.name for p in log.players] if log.genesis is not None else []
    result.keys = [p.sign_pk for p in log.players] if log.genesis is not None else []
    result.game_id = log.game_id or b""
    return result


def _run(
    reader: LogFileReader,
    say: Callable[[str], None],
    lines: list[str],
    thorough: bool,
    shape: LogShape,
    on_step: Callable[[Session], None] | None = None,
) -> ReplayResult:
    """The file streamed through the session: each step processed once the next one's
    proposal is read (every entry of it is in the log then: a proposal names them all), and
    the steps processed leave memory as they do in a running node, so a replay's memory does
    not grow with the length of the game.

    The verdict is the one a replay that read every line first gives (as this one once did),
    whatever the file (``shape``, a first quick pass over it, says what it needs):

    - a damaged line anywhere in the file wins over what the session finds, so the rest of
      the file is still read after the session's verdict, and a log the session froze (a
      verdict, the game over) still takes its remaining lines, frozen again at the end;
    - the equivocation evidence counts once the whole file is read (the earliest verdict
      stands, 10.16), also when the session found a cheat first;
    - no step is pruned that a later line still reaches back to (a vote naming an old step,
      a second version of an old entry: a node never writes these, a hand-made file may),
      and none once the file has shown a cheat (the step of the verdict names its line);
    - a step from the lowest one a vote names on is processed only once every vote is in
      (the stop is decided from every vote the file holds, spec 10.15); votes end a game,
      so that tail is short.

    The narration differs in one way: a file damaged part-way shows its steps up to the
    damage (before, nothing), then the verdict."""
    log = reader.log
    keep = max(PRUNE_KEEP, shape.back + 2)
    hold = shape.first_vote
    session: Session | None = None
    bad_genesis: ReplayResult | None = None
    blamed = False  # the session found a cheat while the file was read
    blamed_at: int | None = None  # the step whose proposer was not the one due, if that
    refreeze = False
    head = -1  # the log's head when the steps were last processed

    def step_line(seq: int) -> int:
        # the last line of the step: where its outcome was decided (only on failure: this
        # reads and hashes the file again)
        hashes = {h for h, e in log if e.seq == seq}
        last = 0
        for i, raw in iter_log_file(reader.path):
            if hashes and entry_hash(raw) in hashes:
                last = i
            elif not hashes and _line_seq(raw) == seq:
                last = i  # a step already pruned from memory: found by its seq
        return last

    def start() -> None:
        nonlocal session, bad_genesis
        try:
            session = Session(log, thorough_audit=thorough)
        except ValueError as e:
            bad_genesis = _fail(0, lines, f"bad genesis: {e}")
        else:
            say(f"game {session.game_id.hex()[:16]}: {session.options}")
            # (a review: the prefix was never said; a verdict names its step by it)
            say("(each line's [step N]: the step of the signed log it happened in)")

    names: list[str] = []  # the players' names, once the genesis is read
    told_last: list[Event] = []  # the engine event told last (a penalty's draw: its line's)

    def narrate(s: Session) -> None:
        if on_step is not None:
            on_step(s)
        if not names:
            names.extend(p.name for p in s.log.players)
        for ev in s.events:
            if ev.kind in ("engine", "bluff", "audit", "dispute", "blame", "over", "vote"):
                last = told_last[-1] if told_last else None
                if ev.event is not None:
                    told_last[:] = [ev.event]
                    if told_draw(last, ev.event):
                        continue  # (the penalty's line said these cards)
                # the table's words (players by name), else the session's own text
                text = (
                    event_words(s.engine, names, None, ev.event, before=last)
                    if ev.event is not None
                    else f"game over: {outcome_words(s.outcome, names)}"
                    if ev.kind == "over"
                    else session_words(ev, names)
                )
                say(f"[step {max(s._done_seq, 0):>5}] {text or named(ev.text, names)}")
        s.events.clear()

    def blame(s: Session, bad_seq: int | None) -> ReplayResult:
        assert s.blame is not None
        seq = bad_seq if bad_seq is not None else s.blame.step
        failed = _fail(step_line(seq), lines, str(s.blame))
        failed.blame = s.blame
        failed.author = s.blame.seat if s.blame.seat >= 0 else None
        failed.outcome = s.outcome
        return failed

    for _index, _added in reader:
        if session is None and bad_genesis is None:
            start()
        if log.head == head:
            continue  # no new step: nothing more can be processed
        head = log.head
        if session is not None and not blamed:
            # the complete steps (all but the head's), short of those a vote names
            limit = head if hold is None else min(head, hold)
            while session._done_seq + 1 < limit:
                before = session._done_seq
                bad_seq = session.catch_up(max_steps=1)
                narrate(session)
                if session.blame is not None:
                    blamed, blamed_at = True, bad_seq
                    break
                if session._done_seq == before:
                    break  # (the game is over)
        if blamed or log.evidence:
            pass  # a cheat file: its verdict's step stays to be found (the line to name)
        elif session is not None:
            session.prune_memory(keep)
        elif head - log.pruned_before > 2 * keep:
            log.prune(head - keep)  # no session reads these steps
        if log.frozen:
            # as if every line had been read before the session ran: the rest goes in too
            log.frozen, refreeze = False, True
    if refreeze:
        log.freeze()
    if session is None and bad_genesis is None:
        start()  # an empty file: the session says what is missing
    if bad_genesis is not None:
        return bad_genesis
    assert session is not None
    if blamed:
        for eq in log.evidence:
            session.note_evidence(eq)
        narrate(session)
        return blame(session, blamed_at)
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
        narrate(session)
        if session.blame is not None:
            return blame(session, bad_seq)
        if ended:
            break
    outcome = session.outcome
    if not outcome.over:
        failed = _fail(reader.count - 1, lines, "the log ends before the game does")
        failed.outcome = outcome
        failed.incomplete = True
        return failed
    after_end = 0
    if outcome.state == "finished" and log.head > session._done_seq:
        last = session._done_seq
        after_end = sum(1 for _, raw in iter_log_file(reader.path) if (_line_seq(raw) or 0) > last)
    return ReplayResult(
        True,
        reader.count,
        lines,
        None,
        None,
        outcome.winners,
        list(outcome.scores),
        session.bluffs,
        session.engine.digest(),
        outcome=outcome,
        after_end=after_end,
    )


class _EchoFailed(Exception):
    """The echo could not write (say, to a closed pipe): raised as itself, not reported as a
    log that cannot be read."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def _line_seq(raw: bytes) -> int | None:
    try:
        obj = decode(raw, max_size=REPLAY_MAX_ENTRY_SIZE)
    except EncodingError:
        return None
    seq = obj.get("seq") if isinstance(obj, dict) else None
    return seq if isinstance(seq, int) else None


def _fail(index: int | None, lines: list[str], reason: str) -> ReplayResult:
    return ReplayResult(False, index if index is not None else 0, lines, reason, index)
