"""A seat rebuilt from its files at any moment plays on (issue 13): the same final state, no
blame, no evidence; at each deterministic crash point (after the secrets are written, after an
entry is appended but before it is durable, after it is durable but before it is sent, after it
is sent, a power cut that loses every line since the seat's last durable one) it never signs a
second entry for a slot and always reuses the secrets it committed to.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from p2puno.crypto import SecretReveal
from p2puno.engine import Options
from p2puno.log import NodeSecrets, Role, read_secrets, sign_entry, write_secrets
from p2puno.log.identity import Identity
from p2puno.session.crashsim import files_of, play_with_crash, reference
from p2puno.session.harness import LocalTable, ResumeError, rebuild
from p2puno.session.replay import replay
from p2puno.wire import JSONValue, decode, encode

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
    """At every 64th step (shuffles, deals, plays, windows, syncs and reveals all come up);
    scripts/soak_resume rebuilds at every step of several games, at every crash point."""
    last = REFERENCE[1]
    for at in range(0, last + 1, 64):
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


@pytest.mark.parametrize("point", ["secrets", "torn", "durable", "sent", "power"])
@pytest.mark.parametrize("at", [0, 12, 40])
def test_each_crash_point(tmp_path: Path, point: str, at: int) -> None:
    crash: dict[str, object] = {"point": point, "at": at}
    table = play_with_crash(OPTIONS, SEED, tmp_path, 0, crash)
    assert crash["point"] == "done", "the crash point was never reached"
    if point == "power":  # at least the line that came last, another seat's, is gone
        assert isinstance(crash["lost"], int) and crash["lost"] > 0
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


# ---------------------------------------------------------------- what the file holds beyond
# the steps, and files damaged where the pruning rebuild reads less (found by a review of the
# streaming rebuild: each failed before its fix)


def _stall_and_vote(tmp: Path, n: int, silent: int) -> LocalTable:
    """A table whose seat ``silent`` goes quiet at step 62 (its entries and vote never sent);
    the others pass their deadline and vote to stop (spec: a seat that stays silent is voted
    out): every file ends with the votes, after the last complete step."""
    t = LocalTable(Options(n, target=25), seed="votes", bots=["heuristic"], directory=str(tmp))
    queue: list[tuple[int, bytes]] = []

    def route() -> None:
        while queue:
            sender, raw = queue.pop(0)
            obj = decode(raw)
            assert isinstance(obj, dict)
            seq = obj["seq"]
            if sender == silent and (obj["role"] == "vote" or (isinstance(seq, int) and seq >= 62)):
                continue
            for i, s in enumerate(t.sessions):
                if i != sender:
                    s.receive(raw)
                    queue.extend((i, r) for r in s.outbox)
                    s.outbox.clear()

    for i, s in enumerate(t.sessions):
        s.start()
        queue.extend((i, r) for r in s.outbox)
        s.outbox.clear()
    route()
    for i in range(n):
        if i != silent:
            t.sessions[i].stop()
            queue.extend((i, r) for r in t.sessions[i].outbox)
            t.sessions[i].outbox.clear()
    route()
    return t


@pytest.mark.parametrize("keep", [None, 4, 100])
def test_a_seat_rebuilt_after_the_table_voted_to_stop_ends_stopped(
    tmp_path: Path, keep: int | None
) -> None:
    """Killed after the votes: the rebuilt seat takes up its own vote (never a second one,
    which would be its own equivocation) and the stop the votes decided; before the fix it
    stayed "stopping" for ever (the votes were read after the last step was processed)."""
    t = _stall_and_vote(tmp_path, 3, silent=2)
    live = t.sessions[0].outcome
    assert live.state == "stopped" and live.silent == (2,)
    s = rebuild(tmp_path / "node0.log", tmp_path / "node0.secrets", prune_keep=keep)
    s.start()
    assert s.outcome == live and s.over
    assert not s.stop() and not s.outbox  # it voted before: nothing more


def test_a_seat_rebuilt_between_the_others_votes_and_its_own_joins_them(tmp_path: Path) -> None:
    """Killed after a vote arrived, before its own went out: the rebuilt seat votes as it
    would have on arrival, and the stop follows."""
    t = _stall_and_vote(tmp_path, 3, silent=2)
    log_path = tmp_path / "node0.log"
    mine = [ln for ln in log_path.read_bytes().splitlines() if b'"role":"vote"' in ln]
    assert len(mine) == 2
    own = next(ln for ln in mine if decode(ln)["author"] == 0)  # type: ignore[index]
    log_path.write_bytes(
        b"".join(ln + b"\n" for ln in log_path.read_bytes().splitlines() if ln != own)
    )
    s = rebuild(log_path, tmp_path / "node0.secrets")
    s.start()
    assert [decode(r)["role"] for r in s.outbox] == ["vote"]  # type: ignore[index]
    assert s.outcome == t.sessions[0].outcome and s.over


@pytest.mark.parametrize("keep", [None, 4])
def test_a_forged_line_of_a_pruned_step_is_refused_as_without_pruning(
    tmp_path: Path, keep: int | None
) -> None:
    """A line of the file altered and not signed again is refused even where the pruning
    rebuild no longer reads its step (it was taken unread before the fix)."""
    play_with_crash(OPTIONS, SEED, tmp_path, 1, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(tmp_path, 1)
    lines = log_path.read_bytes().splitlines(keepends=True)
    obj = decode(lines[20][:-1])
    assert isinstance(obj, dict)
    obj["body"] = {"forged": True}
    log_path.write_bytes(b"".join([*lines[:600], encode(obj) + b"\n", *lines[600:]]))
    with pytest.raises(ResumeError, match="signature"):
        rebuild(log_path, secrets_path, prune_keep=keep)


def test_a_rebuild_that_fails_part_way_leaves_the_secrets_file_as_it_was(tmp_path: Path) -> None:
    """A damaged line deep in the file: the rebuild fails, and the secrets file still holds
    the deck in play's secrets (it was rewritten with an older deck's as the replay went by,
    so that the repaired resume made fresh ones and was named a cheater at the audit)."""
    play_with_crash(OPTIONS, SEED, tmp_path, 1, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(tmp_path, 1)
    before = secrets_path.read_bytes()
    good = log_path.read_bytes()
    lines = good.splitlines(keepends=True)
    log_path.write_bytes(b"".join([*lines[:200], b"\x00damaged\n", *lines[200:]]))
    real = read_secrets(secrets_path)

    def hook(reveals: list[SecretReveal]) -> None:
        extra: dict[str, JSONValue] = {"shuffles": [r.to_obj() for r in reveals]}
        write_secrets(secrets_path, NodeSecrets(real.identity, real.game_id, 1, extra))

    with pytest.raises(ResumeError):
        rebuild(log_path, secrets_path, on_secrets=hook, prune_keep=100)
    assert secrets_path.read_bytes() == before
    log_path.write_bytes(good)
    whole = rebuild(log_path, secrets_path, on_secrets=hook, prune_keep=100)
    assert whole.engine.digest() == REFERENCE[0] and whole.blame is None


def test_a_rebuild_names_the_author_of_evidence_its_file_holds(tmp_path: Path) -> None:
    """Two signed versions of one response in the file (the live node named their author):
    the rebuilt seat names it too, as the offline replay does, and sends the proof again;
    before the fix it played on against a seat its peers had convicted."""
    play_with_crash(OPTIONS, SEED, tmp_path, 0, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(tmp_path, 0)
    lines = log_path.read_bytes().splitlines()
    at = next(
        i for i, ln in enumerate(lines)
        if (o := decode(ln)) and o["author"] == 1 and o["role"] == "response" and o["seq"] >= 15  # type: ignore[index,operator]
    )  # fmt: skip
    obj = decode(lines[at])
    assert isinstance(obj, dict) and isinstance(obj["body"], dict)
    twin = sign_entry(
        Identity.from_test_seed(f"{SEED}/id/1".encode()),
        game=bytes.fromhex(str(obj["game"])),
        seq=int(obj["seq"]),  # type: ignore[arg-type]
        author=1,
        role=Role.RESPONSE,
        kind=str(obj["kind"]),
        prev=[bytes.fromhex(str(p)) for p in obj["prev"]],  # type: ignore[union-attr]
        body={**obj["body"], "dispute": "x"},
    )
    log_path.write_bytes(b"".join(ln + b"\n" for ln in [*lines[: at + 1], twin, *lines[at + 1 :]]))
    verdict = replay(log_path)
    assert verdict.blame is not None and verdict.blame.seat == 1
    s = rebuild(log_path, secrets_path)
    s.start()
    assert s.blame is not None and s.blame.seat == 1 and "equivocation" in s.blame.reason
    assert s.outcome.state == "cheat" and twin in s.outbox


def test_files_that_do_not_fit_get_a_clear_message(tmp_path: Path) -> None:
    """No other error than ResumeError: a missing log, a secrets file for a seat the game
    does not have, a nonce that is not hex."""
    play_with_crash(OPTIONS, SEED, tmp_path, 1, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(tmp_path, 1)
    with pytest.raises(ResumeError, match="cannot be read"):
        rebuild(tmp_path / "nowhere.log", secrets_path)
    real = read_secrets(secrets_path)
    other = tmp_path / "other.secrets"
    write_secrets(other, NodeSecrets(real.identity, real.game_id, 5, real.extra))
    with pytest.raises(ResumeError, match="does not fit"):
        rebuild(log_path, other)
    write_secrets(other, NodeSecrets(real.identity, real.game_id, 1, {**real.extra, "nonce": "zz"}))
    with pytest.raises(ResumeError, match="does not fit"):
        rebuild(log_path, other)
