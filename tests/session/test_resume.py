"""A seat rebuilt from its files at any moment plays on (issue 13): the same final state, no
blame, no evidence; at each deterministic crash point (after the secrets are written, after an
entry is appended but before it is durable, after it is durable but before it is sent, after it
is sent) it never signs a second entry for a slot and always reuses the secrets it committed to.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from p2puno.engine import Options
from p2puno.session.crashsim import files_of, play_with_crash, reference
from p2puno.session.harness import LocalTable, ResumeError, rebuild

OPTIONS = Options(2, target=25)
SEED = "resume"
REFERENCE = reference(OPTIONS, SEED)


def _same_game(table: LocalTable, *, digest: bool = True) -> None:
    for s in table.sessions:
        assert s.blame is None, s.blame
        assert s.log.evidence == ()
        assert s.outcome.state == "finished"
    assert len({s.engine.digest() for s in table.sessions}) == 1
    if digest:
        assert table.sessions[0].engine.digest() == REFERENCE[0]


def test_a_seat_rebuilt_at_many_steps_plays_on_to_the_same_end(tmp_path: Path) -> None:
    """At every 24th step (shuffles, deals, plays, windows, syncs and reveals all come up);
    scripts/soak_resume rebuilds at every step of several games, at every crash point."""
    last = REFERENCE[1]
    for at in range(0, last + 1, 24):
        folder = tmp_path / f"at{at}"
        folder.mkdir()
        table = play_with_crash(OPTIONS, SEED, folder, 1, {"point": "sent", "at": at})
        _same_game(table)


@pytest.mark.parametrize("at", [30, 90, 150])
def test_a_rebuild_that_prunes_as_it_reads_plays_on_to_the_same_end(
    tmp_path: Path, at: int
) -> None:
    """A node resumes by streaming its log file, processing each step as the next one's
    proposal comes and pruning the old ones as it plays (prune_keep): the seat goes on to
    the very same game, and its memory held only the last steps, whatever the game's length."""
    keep = 4
    table = play_with_crash(
        OPTIONS, SEED, tmp_path, 1, {"point": "sent", "at": at}, prune_keep=keep
    )
    _same_game(table)
    # the finished seat's files, rebuilt both ways: the same state; the pruning one holds
    # only the last steps in memory (the game is over 400 steps long)
    log_path, secrets_path = files_of(tmp_path, 1)
    whole = rebuild(log_path, secrets_path)
    pruned = rebuild(log_path, secrets_path, prune_keep=keep)
    assert pruned.processed == whole.processed > 400
    assert pruned.engine.digest() == whole.engine.digest() == REFERENCE[0]
    assert pruned.outcome == whole.outcome
    held = {e.seq for _, e in pruned.log}
    assert len(held) <= 2 * keep + 2, sorted(held)
    assert len({e.seq for _, e in whole.log}) > 400


@pytest.mark.parametrize("point", ["secrets", "torn", "durable", "sent"])
@pytest.mark.parametrize("at", [0, 12, 40])
def test_each_crash_point(tmp_path: Path, point: str, at: int) -> None:
    crash: dict[str, object] = {"point": point, "at": at}
    table = play_with_crash(OPTIONS, SEED, tmp_path, 0, crash)
    assert crash["point"] == "done", "the crash point was never reached"
    # An entry lost or never sent is made again; any randomness in it (a show's ephemeral
    # key) comes from the stream again, so the rest of the game may differ from the reference:
    # it must still end cleanly, with no blame and no second entry for any slot.
    _same_game(table, digest=point in ("secrets", "sent"))


def test_a_damaged_secrets_file_or_log_gets_a_clear_message(tmp_path: Path) -> None:
    table = play_with_crash(OPTIONS, SEED, tmp_path, 1, {"point": "never", "at": 0})
    _same_game(table)
    log_path, secrets_path = files_of(tmp_path, 1)
    broken = tmp_path / "broken.secrets"
    fd = os.open(broken, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b'{"not": "secrets"}\n')
    os.close(fd)
    with pytest.raises(ResumeError, match=r"secrets file .* cannot be used"):
        rebuild(log_path, broken)
    bad_log = tmp_path / "bad.log"
    lines = log_path.read_bytes().splitlines(keepends=True)
    bad_log.write_bytes(lines[0] + lines[2] + lines[1])  # a child before its parent
    with pytest.raises(ResumeError, match="does not verify"):
        rebuild(bad_log, secrets_path)
    torn = tmp_path / "torn.log"
    torn.write_bytes(b"".join(lines) + lines[-1][:40])  # a crash mid-append
    s = rebuild(torn, secrets_path)
    s.start()
    assert torn.read_bytes() == b"".join(lines)  # the torn line was cut off the file
