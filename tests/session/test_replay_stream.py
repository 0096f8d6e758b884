"""``p2puno replay`` streams the log file through the session and prunes as it goes, as a
running node does: its memory does not grow with the length of the game, and pruning changes
nothing it says (issue "Play over the network", Memory; docs/architecture.md, "The offline
replay streams the file").

Every verdict the cheat vectors promise (protocol/spec.md 8, 10.8-10.16) is held to be the
same, line for line, whether the replay keeps every step in memory or only the last one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import p2puno.log.log as log_module
import p2puno.session.replay as replay_module
from p2puno.engine import Options
from p2puno.log import Log, Role, entry_hash, sign_entry
from p2puno.session.harness import LocalTable
from p2puno.session.replay import ReplayResult, replay
from p2puno.wire import JSONValue, decode

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
LOGS = [*sorted((VECTORS / "cheats").glob("*.log")), VECTORS / "game-2p.log"]


def _said(r: ReplayResult) -> tuple[object, ...]:
    return (
        r.ok,
        r.entries,
        r.error,
        r.bad_entry,
        r.winners,
        r.scores,
        r.bluffs,
        r.digest,
        r.blame,
        r.author,
        r.evidence,
        r.outcome,
        r.lines,
    )


def _replayed(path: Path, keep: int, monkeypatch: pytest.MonkeyPatch) -> ReplayResult:
    monkeypatch.setattr(replay_module, "PRUNE_KEEP", keep)
    return replay(path)


@pytest.mark.parametrize("keep", [1, 3])
@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_a_replay_that_prunes_says_what_one_that_keeps_every_step_says(
    path: Path, keep: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every cheat vector (a cheat, a log-layer fault, a stopped game, evidence) and a whole
    game: the same verdict, line, blame, outcome and narration."""
    whole = _replayed(path, 10**9, monkeypatch)
    pruned = _replayed(path, keep, monkeypatch)
    assert _said(pruned) == _said(whole)


@pytest.fixture(scope="module")
def long_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("long")
    table = LocalTable(
        Options(4, True, True, True, target=150), seed="bounded", directory=str(folder)
    )
    table.run(prune_keep=10)
    assert table.sessions[0].outcome.over
    return folder / "node0.log"


def test_a_long_replay_holds_a_window_of_steps_not_the_game(
    long_game: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entries in memory stay under a bound set by the window while the whole game is
    read, and the replay says what a replay that keeps everything says."""
    keep = 10
    peak = [0]
    original = Log.prune

    def watch(self: Log, before: int) -> int:
        peak[0] = max(peak[0], len(self) - self.memory_start)  # held before this prune
        return original(self, before)

    monkeypatch.setattr(Log, "prune", watch)
    pruned = _replayed(long_game, keep, monkeypatch)
    monkeypatch.setattr(Log, "prune", original)
    whole = _replayed(long_game, 10**9, monkeypatch)
    assert pruned.ok and _said(pruned) == _said(whole)
    steps = sum(1 for _ in long_game.open("rb")) // 4
    assert steps > 40 * keep  # a long game against the window
    # a prune comes once 2*keep steps are processed past the last one, and the step being
    # read may be one ahead: 2*keep+3 steps of 4 entries (+ the votes, one a seat)
    assert 0 < peak[0] <= (2 * keep + 3) * 4 + 4


def test_a_copy_of_an_early_line_is_the_same_entry_twice_whatever_the_window(
    long_game: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node never writes a line for a step it pruned long before, but a hand-made file may:
    a copy of an early line, a second signed version of one, a vote naming an early step. The
    first pass over the file sees how far back its lines reach, and the replay keeps that many
    steps: the verdict is the one a replay that keeps every step gives (the same entry twice,
    its author's equivocation), whatever the window."""
    monkeypatch.setattr(log_module, "RECENT_GONE", 8)  # the copy is older than the ring
    lines = long_game.read_bytes().split(b"\n")[:-1]
    path = tmp_path / "copy.log"
    path.write_bytes(b"\n".join([*lines, lines[5]]) + b"\n")
    pruned = _replayed(path, 2, monkeypatch)
    whole = _replayed(path, 10**9, monkeypatch)
    assert _said(pruned) == _said(whole)
    assert not pruned.ok and pruned.bad_entry == len(lines)
    assert pruned.error is not None and "the same entry twice" in pruned.error


def test_a_big_log_is_checked_by_worker_processes_started_before_any_thread(
    long_game: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signature workers are forked before the audit thread exists (an early deck's audit
    comes before the first batch): otherwise they would be threads fighting the session for
    the interpreter. (Linux: forking is used only there.)"""
    import concurrent.futures

    from p2puno.log import store

    assert long_game.stat().st_size > replay_module._POOL_FROM
    kinds: list[type] = []
    real = store.PendingSignatures._executor

    def spy(self: store.PendingSignatures) -> concurrent.futures.Executor:
        pool = real(self)
        kinds.append(type(pool))
        return pool

    monkeypatch.setattr(store.PendingSignatures, "_executor", spy)
    assert replay(long_game).ok
    want = (
        concurrent.futures.ProcessPoolExecutor
        if sys.platform == "linux"
        else concurrent.futures.ThreadPoolExecutor
    )
    assert kinds and set(kinds) == {want}


def _game_lines(
    players: int, target: int, seed: str, folder: Path
) -> tuple[LocalTable, list[bytes]]:
    table = LocalTable(Options(players, target=target), seed=seed, directory=str(folder))
    table.run()
    return table, (folder / "node0.log").read_bytes().split(b"\n")[:-1]


# One finished game for each size, played once per worker and only read by the tests below
# (each writes its altered copies to its own tmp_path): a 3-seat game to 200 takes 7-10 s.
@pytest.fixture(scope="module")
def three_seats(tmp_path_factory: pytest.TempPathFactory) -> tuple[LocalTable, list[bytes]]:
    return _game_lines(3, 200, "late", tmp_path_factory.mktemp("three"))


@pytest.fixture(scope="module")
def two_seats(tmp_path_factory: pytest.TempPathFactory) -> tuple[LocalTable, list[bytes]]:
    return _game_lines(2, 60, "mid-file", tmp_path_factory.mktemp("two"))


def _resigned(
    table: LocalTable,
    lines: list[bytes],
    at: int,
    *,
    body: JSONValue = None,
    prev: list[bytes] | None = None,
) -> list[bytes]:
    """``lines`` with line ``at``'s body (or parents) replaced, and it and every line after
    it signed again by its author (the table's test keys) on the new hashes of its parents: a
    file that is sound entry by entry, whatever the session makes of it."""
    out, moved = lines[:at], {}
    for i, raw in enumerate(lines[at:], at):
        o = decode(raw)
        assert isinstance(o, dict)
        author = o["author"]
        assert isinstance(author, int) and isinstance(o["prev"], list)
        identity = table.sessions[author].identity
        assert identity is not None
        parents = [moved.get(p, p) for p in (bytes.fromhex(str(h)) for h in o["prev"])]
        new = sign_entry(
            identity,
            game=bytes.fromhex(str(o["game"])),
            seq=int(str(o["seq"])),
            author=author,
            role=Role(o["role"]),
            kind=str(o["kind"]),
            prev=prev if i == at and prev is not None else parents,
            body=body if i == at and body is not None else o["body"],
        )
        moved[entry_hash(raw)] = entry_hash(new)
        out.append(new)
    return out


def test_a_cheat_mid_file_is_the_verdict_though_the_file_goes_on(
    tmp_path: Path, two_seats: tuple[LocalTable, list[bytes]]
) -> None:
    """A seat's signed proposal that breaks the rules (spec 10.8) halfway through a file whose
    later lines are sound (a writer that kept writing): the verdict is that cheat, at the last
    line of its step, not a damaged line after it (the session froze its log at the cheat,
    yet the rest of the file is read into it as if it had all been read first)."""
    table, lines = two_seats
    actions = [
        i
        for i, raw in enumerate(lines)
        if (o := decode(raw)) and isinstance(o, dict) and o["kind"] == "action"
    ]
    at = actions[len(actions) // 2]
    o = decode(lines[at])
    assert isinstance(o, dict) and isinstance(o["body"], dict)
    body = {**o["body"], "action": f"{o['author']} nonsense"}
    cheat = _resigned(table, lines, at, body=body)
    path = tmp_path / "cheat.log"
    path.write_bytes(b"\n".join(cheat) + b"\n")
    r = replay(path)
    assert not r.ok and r.blame is not None and r.blame.seat == o["author"]
    step = [i for i, raw in enumerate(lines) if (d := decode(raw)) and d["seq"] == o["seq"]]  # type: ignore[index]
    assert r.bad_entry == max(step) < len(lines) - 10
    # ... and a line further on that names a parent no line holds is still found (every
    # line is checked, as when the whole file was read before the session ran)
    last = decode(cheat[-1])
    assert isinstance(last, dict) and isinstance(last["prev"], list)
    orphan = _resigned(table, cheat, len(cheat) - 1, prev=[bytes(32)] * len(last["prev"]))
    path.write_bytes(b"\n".join(orphan) + b"\n")
    r = replay(path)
    assert not r.ok and r.bad_entry == len(cheat) - 1
    assert r.error is not None and "parents" in r.error


def test_votes_either_side_of_a_proposal_count_together(
    tmp_path: Path, three_seats: tuple[LocalTable, list[bytes]]
) -> None:
    """spec 10.15: the stop is decided from the votes the file holds, wherever they stand.
    Seat 0 votes naming seats 1 and 2, a proposal of the next step follows (it never
    completes), then seat 1 votes naming seat 2: the replay says exactly what it says for
    the same entries with both votes after the proposal (it never decides from seat 0's vote
    alone, which would name seat 1 silent)."""
    table, lines = three_seats
    log = Log()
    proposals = [i for i, raw in enumerate(lines) if decode(raw)["role"] == "proposal"]  # type: ignore[index]
    cut = proposals[len(proposals) // 2]  # the proposal that will never complete
    for raw in lines[:cut]:
        log.add(raw)
    ids = [s.identity for s in table.sessions]
    assert ids[0] is not None and ids[1] is not None
    vote0 = log.vote(ids[0], 0, "stop", {"waiting": [1, 2]})
    vote1 = log.vote(ids[1], 1, "stop", {"waiting": [2]})
    split = tmp_path / "split.log"
    split.write_bytes(b"\n".join([*lines[:cut], vote0, lines[cut], vote1]) + b"\n")
    after = tmp_path / "after.log"
    after.write_bytes(b"\n".join([*lines[:cut], lines[cut], vote0, vote1]) + b"\n")
    a, b = replay(split), replay(after)
    assert a.outcome is not None and a.outcome.state == "stopped" and a.outcome.silent == (2,)
    assert _said(a) == _said(b)


def test_a_reader_that_goes_away_is_not_a_log_that_cannot_be_read(tmp_path: Path) -> None:
    """The echo's own failure (`p2puno replay LOG | head`: a closed pipe) stops the replay
    as that failure; only the file's own (missing, unreadable) is reported as the log's."""
    path = VECTORS / "game-2p.log"

    def closed(_: str) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(BrokenPipeError):
        replay(path, echo=closed)
    missing = replay(tmp_path / "missing.log")
    assert not missing.ok and missing.error is not None
    assert missing.error.startswith("cannot read") and "No such file" in missing.error


def _second_version(table: LocalTable, raw: bytes) -> bytes:
    """Another validly signed version of the entry ``raw``, by its author's key."""
    o = decode(raw)
    assert isinstance(o, dict) and isinstance(o["body"], dict)
    return _resigned(table, [raw], 0, body={**o["body"], "zz": 1})[0]


def test_evidence_and_a_later_cheat_name_the_earliest_fault(
    tmp_path: Path, two_seats: tuple[LocalTable, list[bytes]]
) -> None:
    """spec 10.16: the earliest verdict stands. A seat signs two versions of a response, and
    later another seat proposes an action that breaks the rules (re-signed, so every line is
    sound): the equivocation, at its earlier step, is the verdict, though the session met the
    cheat first (found in review: the streamed replay had named the later cheat)."""
    table, lines = two_seats
    actions = [i for i, raw in enumerate(lines) if decode(raw)["kind"] == "action"]  # type: ignore[index]
    at = actions[len(actions) // 2]
    o = decode(lines[at])
    assert isinstance(o, dict) and isinstance(o["body"], dict)
    cheat = _resigned(table, lines, at, body={**o["body"], "action": f"{o['author']} nonsense"})
    r = next(i for i in range(at - 12, at) if decode(cheat[i])["role"] == "response")  # type: ignore[index]
    first = decode(cheat[r])
    assert isinstance(first, dict)
    path = tmp_path / "both.log"
    path.write_bytes(
        b"\n".join([*cheat[: r + 1], _second_version(table, cheat[r]), *cheat[r + 1 :]]) + b"\n"
    )
    for keep in (1, 10**9):
        monkey = pytest.MonkeyPatch()
        monkey.setattr(replay_module, "PRUNE_KEEP", keep)
        try:
            got = replay(path)
        finally:
            monkey.undo()
        assert got.blame is not None and got.blame.seat == first["author"]
        assert got.blame.step == first["seq"] and "equivocation" in got.blame.reason


def test_a_line_reaching_far_back_is_judged_as_if_no_step_were_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, three_seats: tuple[LocalTable, list[bytes]]
) -> None:
    """Found in review: a second signed version of a response of step 1, or a sound vote naming
    an early step, at the end of a finished game's file. Read with every step kept, the first
    names its author's equivocation and the second changes nothing (the game finished); the
    streamed replay says the same with a window of one step (it had refused both lines as
    damage)."""
    table, lines = three_seats
    steps = [decode(raw)["seq"] for raw in lines]  # type: ignore[index]
    early = next(
        i for i, raw in enumerate(lines) if decode(raw)["role"] == "response" and steps[i] == 3
    )  # type: ignore[index]
    log = Log()
    for raw in lines[: steps.index(6)]:
        log.add(raw)
    identity = table.sessions[0].identity
    assert identity is not None and max(steps) > 100
    vote = log.vote(identity, 0, "stop", {"waiting": [1]})
    for extra, ok in ((_second_version(table, lines[early]), False), (vote, True)):
        path = tmp_path / "late.log"
        path.write_bytes(b"\n".join([*lines, extra]) + b"\n")
        pruned = _replayed(path, 1, monkeypatch)
        whole = _replayed(path, 10**9, monkeypatch)
        assert _said(pruned) == _said(whole) and pruned.ok is ok
        if not ok:
            author = decode(lines[early])["author"]  # type: ignore[index]
            assert pruned.blame is not None and pruned.blame.seat == author == pruned.author


def test_a_line_longer_than_any_entry_is_named_with_its_length(tmp_path: Path) -> None:
    """An oversize line is measured, not held (the file is read in blocks), and named with its
    own length; a last one without its newline is a torn write (found in review: both were
    named with the reading block's length)."""
    head = (VECTORS / "game-2p.log").read_bytes().split(b"\n")[:3]
    big = b"x" * (3 * 2**20 + 1)
    path = tmp_path / "big.log"
    path.write_bytes(b"\n".join([*head, big, b""]))
    r = replay(path)
    assert r.bad_entry == 3 and r.error is not None and f"{len(big)} bytes" in r.error
    path.write_bytes(b"\n".join([*head, big]))
    r = replay(path)
    assert r.bad_entry == 3 and r.error is not None and "torn" in r.error


def test_a_body_that_nests_a_role_and_a_step_does_not_widen_the_window(tmp_path: Path) -> None:
    """The first pass reads each line's own role and step off its bytes; a body may carry
    extra members (spec 10.3), and one nesting {"role": "proposal", "seq": 0} made the replay
    keep every step in memory (a code review). Only the line's last match is its own."""
    from p2puno.log.store import scan_log_file

    def line(seq: int, body: str = "{}") -> bytes:
        return b'{"author":0,"body":%s,"role":"proposal","seq":%d,"sig":"00","v":1}' % (
            body.encode(),
            seq,
        )

    path = tmp_path / "nested.log"
    nested = '{"x":{"role":"proposal","seq":0},"y":{"role":"vote","seq":1}}'
    path.write_bytes(b"\n".join([line(5), line(6, nested), line(7)]) + b"\n")
    shape = scan_log_file(path)
    assert shape.back == 0 and shape.first_vote is None


def test_a_vote_dated_back_does_not_undo_the_steps_the_file_shows_complete(
    tmp_path: Path, three_seats: tuple[LocalTable, list[bytes]]
) -> None:
    """spec 10.15, "What it gives": K is the furthest step complete in the log, not the step a
    vote claims. Found in review (helper-39): the host cut its file six steps after a round's
    end-of-deck reveal and appended a vote of its own dated at the step before that reveal;
    the replay said "stopped after step R-1 ... the round in play is void" and the round a
    seat had won, audited in the same file, was gone. Now it says what the honest vote at
    the file's last complete step says."""
    table, lines = three_seats
    steps = [decode(raw)["seq"] for raw in lines]  # type: ignore[index]
    reveals = [
        steps[i]
        for i, raw in enumerate(lines)
        if decode(raw)["kind"] == "reveal" and decode(raw)["role"] == "proposal"  # type: ignore[index]
    ]
    assert len(reveals) >= 3
    r = reveals[-2]  # a reveal well before the game's end
    cut = max(i for i, seq in enumerate(steps) if seq == r + 6) + 1
    identity = table.sessions[0].identity
    assert identity is not None

    def vote_after(last_line: int) -> bytes:
        log = Log()
        for raw in lines[:last_line]:
            log.add(raw)
        return log.vote(identity, 0, "stop", {"waiting": [1, 2]})

    early = max(i for i, seq in enumerate(steps) if seq == r - 1) + 1
    said = {}
    for name, vote in (("honest", vote_after(cut)), ("back", vote_after(early))):
        path = tmp_path / f"{name}.log"
        path.write_bytes(b"\n".join([*lines[:cut], vote]) + b"\n")
        got = replay(path)
        assert got.ok and got.outcome is not None and got.outcome.state == "stopped", got.error
        said[name] = got.outcome
    assert decode(vote_after(early))["seq"] == r - 1  # type: ignore[index]
    assert said["back"].step == said["honest"].step == r + 6
    assert said["back"] == said["honest"]
    assert sum(said["honest"].scores) > 0  # (rounds audited by then: the scores are theirs)


def test_entries_after_a_finished_game_are_said_not_judged(tmp_path: Path) -> None:
    """spec 10.11 (helper-39): a proposal signed after the game's last audit verified as one
    of the game's entries ("VERIFIED: 907 entries; Bot-1 wins") though nothing judged it. The
    outcome stands (the game ended before it), and the replay counts such entries apart."""
    table, lines = _game_lines(2, 25, "after-end", tmp_path)
    log = Log()
    for raw in lines:
        log.add(raw)
    identity = table.sessions[0].identity
    assert identity is not None and log.game_id is not None
    extra = sign_entry(
        identity,
        game=log.game_id,
        seq=log.head + 1,
        author=0,
        role=Role.PROPOSAL,
        kind="action",
        prev=log.next_prev(),
        body={"action": "0 draw"},
    )
    clean, padded = tmp_path / "clean.log", tmp_path / "padded.log"
    clean.write_bytes(b"\n".join(lines) + b"\n")
    padded.write_bytes(b"\n".join([*lines, extra]) + b"\n")
    a, b = replay(clean), replay(padded)
    assert a.ok and b.ok and a.outcome == b.outcome and a.outcome is not None
    assert a.outcome.state == "finished"
    assert (a.after_end, b.after_end) == (0, 1)
