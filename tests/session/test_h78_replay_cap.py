"""The entry cap: a node takes entries of at most 64 KiB (MAX_ENTRY_SIZE, spec 2 and section 8
row 1), its own log file and store with it; the offline replay reads a file's entries up to
256 KiB (REPLAY_MAX_ENTRY_SIZE), the cap of the builds before helper-78, whose files may hold
a deck's whole reveal in one entry over 64 KiB (spec 10.10: such a log still verifies;
docs/encoding.md "Entry size cap")."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from p2puno.engine import Options
from p2puno.log import (
    MAX_ENTRY_SIZE,
    Identity,
    Log,
    LogError,
    LogFileError,
    append_entry,
    load_log,
    make_genesis,
)
from p2puno.session.replay import REPLAY_MAX_ENTRY_SIZE, replay
from p2puno.session.session import options_to_obj


def _file_with_a_large_entry(tmp_path: Path, size: int) -> tuple[Path, int]:
    """Genesis, both accepts, then seat 0's first proposal padded to ``size`` bytes with a
    member no step reads (its author's fault, spec 10.3). Returns the file and that size."""
    ids = [Identity.from_test_seed(b"h78 cap/%d" % i) for i in range(2)]
    nonces = [hashlib.sha256(b"h78 nonce %d" % i).digest() for i in range(2)]
    roster = [ident.player(f"P{i}") for i, ident in enumerate(ids)]
    log = Log(max_entry_size=REPLAY_MAX_ENTRY_SIZE)
    path = tmp_path / "game.log"
    lines = [make_genesis(ids[0], 0, roster, options_to_obj(Options(players=2)), nonces)]
    log.add(lines[0])
    lines.append(log.respond(ids[1], 1, "accept", {}))
    log.add(lines[1])
    body = {"releases": [], "shows": [], "pad": ""}
    pad = size - len(log.propose(ids[0], 0, "shuffle", body))
    body["pad"] = "x" * pad
    lines.append(log.propose(ids[0], 0, "shuffle", body))
    for raw in lines:
        append_entry(path, raw, fsync=False)
    return path, len(lines[-1])


def test_a_node_refuses_an_entry_over_64_kib_that_the_replay_reads(tmp_path: Path) -> None:
    assert MAX_ENTRY_SIZE == 64 * 1024 < REPLAY_MAX_ENTRY_SIZE == 256 * 1024
    path, size = _file_with_a_large_entry(tmp_path, MAX_ENTRY_SIZE + 1)
    assert size == MAX_ENTRY_SIZE + 1
    # a node (and its own file: resume) takes 64 KiB: the bytes prove nothing (section 8 row 1)
    with pytest.raises(LogFileError) as e:
        load_log(path)
    assert e.value.index == 2 and "over the entry cap" in str(e.value)
    with pytest.raises(LogError, match="over the entry cap"):
        Log().add(path.read_bytes().split(b"\n")[2])
    # the replay reads it: the verdict is the session's, on its signed author (spec 10.3)
    result = replay(path)
    assert not result.ok and result.bad_entry == 2
    assert result.blame is not None and result.blame.seat == 0
    assert "no use for" in (result.error or "") and "entry cap" not in (result.error or "")


def test_the_replay_refuses_an_entry_over_256_kib(tmp_path: Path) -> None:
    path, size = _file_with_a_large_entry(tmp_path, REPLAY_MAX_ENTRY_SIZE + 1)
    result = replay(path)
    assert not result.ok and result.bad_entry == 2 and result.blame is None
    assert f"{size} bytes is over the entry cap" in (result.error or "")
