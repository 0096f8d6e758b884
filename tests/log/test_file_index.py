"""LogFileIndex: an entry pruned from memory is read back from a growing log file by its step,
not by a scan (protocol/spec.md 9: one entry a line, in acceptance order, parents first)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from p2puno.log import LogFileIndex, entry_hash
from p2puno.log.store import _indexed_seq
from p2puno.log.testing import SampleGame, build_game
from p2puno.wire import decode


def _game() -> SampleGame:
    """A 3-seat game whose bodies hold a nested "seq" and the text of one, closed by a vote
    (which names a step but opens none: it is not indexed, and read in its step's window)."""
    g = build_game(3, 0)
    for n in range(30):
        g.step((n + 1) % 3, "play", {"seq": 10**6 + n, "note": '"seq":7,"role":"proposal"'})
    g.add(g.log.vote(g.identities[1], 1, "stop", {"waiting": [2]}))
    return g


GAME = _game()
LINES = [raw + b"\n" for raw in GAME.entries]


def test_the_seq_is_read_off_the_bytes_as_a_decoder_reads_it() -> None:
    for line in LINES:
        obj = decode(line[:-1])
        assert isinstance(obj, dict)
        want = obj["seq"] if obj["role"] in ("proposal", "response") else None
        assert _indexed_seq(line) == want
    assert _indexed_seq(b"not json\n") is None
    assert _indexed_seq(b'{"role":"proposal","seq":-1}\n') is None


@settings(max_examples=10, deadline=None)
@given(cuts=st.lists(st.integers(0, sum(map(len, LINES))), max_size=6))
def test_every_entry_is_found_at_its_step_as_the_file_grows(cuts: list[int]) -> None:
    """The file is written in pieces that end anywhere, mid-line too (a node appends while it
    serves reads): after each piece every complete proposal and response is found by its hash
    and step, a line still being written is not, nor is any entry asked for at another step."""
    with tempfile.TemporaryDirectory() as d:
        _grow(Path(d) / "log", cuts)


def _grow(path: Path, cuts: list[int]) -> None:
    data = b"".join(LINES)
    index = LogFileIndex(path)
    path.write_bytes(b"")
    written = 0
    for cut in [*sorted(cuts), len(data)]:
        with open(path, "ab") as f:
            f.write(data[written:cut])
        written = max(written, cut)
        complete = data[:written].count(b"\n")
        for i, line in enumerate(LINES):
            raw = line[:-1]
            obj = decode(raw)
            assert isinstance(obj, dict)
            seq = obj["seq"]
            assert isinstance(seq, int)
            found = index.read(entry_hash(raw), seq)
            assert found == (raw if i < complete else None)  # (the vote: in its step's window)
            assert index.read(entry_hash(raw), seq + 3) is None


def test_lines_from_a_step_start_at_its_first_line_and_run_to_the_end(tmp_path: Path) -> None:
    path = tmp_path / "log"
    path.write_bytes(b"".join(LINES) + b'{"torn')
    index = LogFileIndex(path)
    for start in (0, 1, 17, 30, 31, 99):
        got = list(index.lines_from(start))
        first = next((i for i, line in enumerate(LINES) if _indexed_seq(line) == start), len(LINES))
        if start > 30:  # past the last step: nothing
            first = len(LINES)
        assert got == [line[:-1] for line in LINES[first:]]  # (the torn tail never comes)


def test_a_missing_file_reads_as_nothing(tmp_path: Path) -> None:
    index = LogFileIndex(tmp_path / "none")
    assert index.read(b"\0" * 32, 1) is None
    assert repr(index).endswith("0 steps)")
