"""Files: reload, every flipped byte named, torn tails, evidence kept, secrets at 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from p2puno.log import (
    Identity,
    LogError,
    LogFileError,
    NodeSecrets,
    Reason,
    Role,
    append_entry,
    load_log,
    read_secrets,
    sign_entry,
    verify_log_file,
    write_secrets,
)
from p2puno.log.testing import build_game


def _write(path: Path, entries: list[bytes]) -> None:
    for raw in entries:
        append_entry(path, raw, fsync=False)


def _bad_last_signature(tmp_path: Path) -> tuple[Path, list[bytes], int]:
    """A 3-player game's log file (over 512 entries) whose last signature is wrong: the file,
    its entries and the bad one's index. No entry names the last as a parent, so only its
    signature check can fail."""
    entries = list(build_game(3, 200).entries)
    last = len(entries) - 1
    bad = bytearray(entries[last])
    i = bad.index(b'"sig":"') + 10
    bad[i] = ord("0") if bad[i] != ord("0") else ord("1")
    entries[last] = bytes(bad)
    path = tmp_path / "bad-last-sig.log"
    _write(path, entries)
    return path, entries, last


def test_round_trip_and_fast_path(tmp_path: Path) -> None:
    g = build_game(4, 5)
    path = tmp_path / "game.log"
    _write(path, g.entries)
    assert path.read_bytes() == b"".join(r + b"\n" for r in g.entries)
    log = load_log(path)
    assert list(log) == list(g.log)
    log2, report = verify_log_file(path, threads=2)
    assert list(log2) == list(g.log)
    assert report.entries == len(g.entries) == report.chain and report.steps == 6
    assert report.entries_per_second > 0


def test_every_flipped_byte_is_rejected_with_its_entry_named(tmp_path: Path) -> None:
    g = build_game(2, 1)  # genesis, accept, proposal, response: 4 entries
    data = b"".join(r + b"\n" for r in g.entries)
    starts = [0]
    for r in g.entries:
        starts.append(starts[-1] + len(r) + 1)
    path = tmp_path / "flip.log"
    for pos in range(len(data)):
        line = max(i for i, s in enumerate(starts[:-1]) if s <= pos)
        # Every position once (low or high bit, alternating); the fast path on a third.
        flipped = bytearray(data)
        flipped[pos] ^= 0x01 if pos % 2 else 0x80
        path.write_bytes(bytes(flipped))
        loaders: list[Callable[[Path], object]] = [load_log]
        if pos % 3 == 0:
            loaders.append(lambda p: verify_log_file(p, threads=2))
        for loader in loaders:
            with pytest.raises(LogFileError) as e:
                loader(path)
            # The damaged line (a flipped newline is part of the line it ends).
            assert e.value.index == line, (pos, e.value)
            assert f"entry {line} " in str(e.value)


def test_fast_path_reports_first_bad_entry(tmp_path: Path) -> None:
    g = build_game(3, 4)
    entries = list(g.entries)
    # Entry 5 gets a bad signature; entry 9 is structurally broken.
    bad_sig = bytearray(g.entries[5])
    i = bad_sig.index(b'"sig":"') + 10
    bad_sig[i] = ord("0") if bad_sig[i] != ord("0") else ord("1")
    entries[5] = bytes(bad_sig)
    entries[9] = b"{}"
    path = tmp_path / "bad.log"
    _write(path, entries)
    for loader in (load_log, lambda p: verify_log_file(p)[0]):
        with pytest.raises(LogFileError) as e:
            loader(path)
        assert e.value.index == 5 and e.value.reason is Reason.BAD_SIGNATURE


def test_out_of_order_and_duplicate_lines(tmp_path: Path) -> None:
    g = build_game(3, 1)
    path = tmp_path / "order.log"
    _write(path, [g.entries[0], g.entries[3], *g.entries[1:3]])
    with pytest.raises(LogFileError) as e:
        load_log(path)
    assert e.value.index == 1 and e.value.reason is Reason.MISSING_PARENTS
    path.unlink()
    _write(path, [*g.entries, g.entries[2]])
    with pytest.raises(LogFileError) as e:
        load_log(path)
    assert e.value.index == len(g.entries)


def test_torn_tail(tmp_path: Path) -> None:
    g = build_game(2, 1)
    path = tmp_path / "torn.log"
    path.write_bytes(b"".join(r + b"\n" for r in g.entries[:-1]) + g.entries[-1][:40])
    with pytest.raises(LogFileError) as e:
        load_log(path)
    assert e.value.index == len(g.entries) - 1
    log = load_log(path, allow_torn_tail=True)
    assert len(log) == len(g.entries) - 1


def test_equivocation_evidence_survives_reload(tmp_path: Path) -> None:
    g = build_game(3, 1)
    p_hash = g.log.proposal(1)[0]  # type: ignore[index]
    twin = sign_entry(
        g.identities[2],
        game=g.log.game_id or b"",
        seq=1,
        author=2,
        role=Role.RESPONSE,
        kind="ack",
        prev=[p_hash],
        body={"twin": 1},
    )
    with pytest.raises(LogError):
        g.log.add(twin)
    path = tmp_path / "eq.log"
    _write(path, [*g.entries, twin])
    for log in (load_log(path), verify_log_file(path)[0]):
        assert len(log.evidence) == 1 and log.evidence[0].author == 2
        assert len(log) == len(g.entries)


def test_expected_proposer_callback(tmp_path: Path) -> None:
    g = build_game(3, 2)  # step n proposed by seat n % 3
    path = tmp_path / "p.log"
    _write(path, g.entries)
    load_log(path, expected_proposer=lambda seq: seq % 3)
    with pytest.raises(LogFileError) as e:
        load_log(path, expected_proposer=lambda seq: 0)
    assert e.value.reason is Reason.WRONG_PROPOSER and e.value.author == 1 and e.value.index == 3


def test_secrets_file(tmp_path: Path) -> None:
    ident = Identity.from_test_seed(b"me")
    path = tmp_path / "node.secrets"
    s = NodeSecrets(identity=ident, game_id=b"\x07" * 32, seat=2, extra={"k": ["00ff"]})
    old_umask = os.umask(0)  # even a permissive umask must not widen the mode
    try:
        write_secrets(path, s)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    back = read_secrets(path)
    assert back.identity.sign_pk == ident.sign_pk and back.identity.dh_pk == ident.dh_pk
    assert (back.game_id, back.seat, back.extra) == (s.game_id, 2, {"k": ["00ff"]})
    # Rewrite is atomic (same path, no temp files left) and still 0600.
    write_secrets(path, NodeSecrets(identity=ident))
    assert sorted(os.listdir(tmp_path)) == ["node.secrets"]
    # A temp file left by a killed process that had this pid does not stop the write.
    (tmp_path / f".node.secrets.{os.getpid()}.tmp").write_bytes(b"half")
    write_secrets(path, NodeSecrets(identity=ident))
    assert sorted(os.listdir(tmp_path)) == ["node.secrets"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # No secret in any repr.
    for hx in ident.export_secrets().values():
        assert hx not in repr(back) and hx not in str(back)
    # A world-readable secrets file is refused.
    path.chmod(0o644)
    with pytest.raises(PermissionError):
        read_secrets(path)
    # Damaged file: error without key bytes.
    path.chmod(0o600)
    path.write_bytes(path.read_bytes().replace(b'"sign_sk":"', b'"sign_sk":"zz'))
    with pytest.raises(ValueError) as e:
        read_secrets(path)
    for hx in ident.export_secrets().values():
        assert hx not in str(e.value)


@pytest.mark.parametrize("in_thread", [False, True])
def test_background_signature_checks_in_processes_or_threads(
    tmp_path: Path, in_thread: bool
) -> None:
    """open_log_file checks signatures in forked processes on Linux, in threads when another
    thread is running (fork is unsafe then); either way the first bad one is named."""
    import concurrent.futures
    import sys
    import threading

    from p2puno.log.store import PendingSignatures, open_log_file

    path, entries, last = _bad_last_signature(tmp_path)
    assert last > 512  # at least one full batch goes to the pool
    kinds: list[type] = []
    real = PendingSignatures._executor

    def spy(self: PendingSignatures) -> concurrent.futures.Executor:
        pool = real(self)
        kinds.append(type(pool))
        return pool

    outcome: list[int | None] = []

    def run() -> None:
        log, count, pending = open_log_file(path, workers=1)
        assert count == len(entries) == len(log)
        outcome.append(pending.first_bad())

    PendingSignatures._executor = spy  # type: ignore[method-assign]
    try:
        if in_thread:
            worker = threading.Thread(target=run)
            worker.start()
            worker.join()
        else:
            run()
    finally:
        PendingSignatures._executor = real  # type: ignore[method-assign]
    want = (
        concurrent.futures.ThreadPoolExecutor
        if in_thread or sys.platform != "linux"
        else concurrent.futures.ProcessPoolExecutor
    )
    assert outcome == [last]
    assert kinds and set(kinds) == {want}


def test_the_caller_checks_the_batches_no_worker_has_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """first_bad takes back the batches still queued (last first) and checks them itself;
    the bad entry is named whoever checked which batch."""
    import concurrent.futures
    import threading

    from p2puno.log import store

    path, entries, last = _bad_last_signature(tmp_path)
    gate = threading.Event()

    def executor(self: store.PendingSignatures) -> concurrent.futures.Executor:
        if self._pool is None:  # one worker, busy until the caller starts checking
            self._pool = concurrent.futures.ThreadPoolExecutor(1)
            self._pool.submit(gate.wait, 10)
        return self._pool

    checked: list[tuple[int, int]] = []  # (thread, first entry of the batch)
    real = store._verify_raw

    def verify(batch: list[store._RawCheck]) -> int | None:
        checked.append((threading.get_ident(), batch[0][0]))
        gate.set()
        return real(batch)

    monkeypatch.setattr(store.PendingSignatures, "_executor", executor)
    monkeypatch.setattr(store, "_verify_raw", verify)
    _log, count, pending = store.open_log_file(path, workers=1)
    assert count == len(entries) and pending.batches > 2
    assert pending.first_bad() == last
    starts = sorted(b for _, b in checked)
    assert len(starts) == pending.batches == len(set(starts))  # each batch checked once
    assert (threading.get_ident(), starts[-1]) in checked  # the caller took the last batch
