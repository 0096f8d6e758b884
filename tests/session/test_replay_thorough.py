"""`p2puno replay --thorough`: every shuffle step recomputed, so that an intermediate deck the
composed audit does not look at is checked too (docs/security.md, "the composed check").

The tampered logs here are made by every player together (each later entry re-signed by its
own author, as a coalition of all seats could): the one way to change a deck in a signed,
hash-chained log. They change no card anyone saw; the default audit accepts them by design,
and the thorough one names the author of the false step."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2puno.engine import Options
from p2puno.log import Role, entry_hash, sign_entry
from p2puno.session.harness import LocalTable
from p2puno.session.replay import replay
from p2puno.wire import decode


@pytest.fixture(scope="module")
def game() -> tuple[LocalTable, list[bytes]]:
    table = LocalTable(Options(2, target=60), seed="thorough")
    table.run()
    log = table.sessions[0].log
    return table, [log.raw(h) for h, _ in log]


def _rewrite(
    table: LocalTable, lines: list[bytes], index: int, edit: Callable[[Any], None]
) -> list[bytes]:
    """``lines`` with entry ``index``'s body edited, re-signed by its author, and every later
    entry re-chained onto it and re-signed by its own author."""
    renamed: dict[bytes, bytes] = {}
    out: list[bytes] = []
    for i, raw in enumerate(lines):
        o = decode(raw)
        assert isinstance(o, dict)
        prev = [bytes.fromhex(p) for p in o["prev"]]
        new_prev = [renamed.get(p, p) for p in prev]
        if i != index and new_prev == prev:
            out.append(raw)
            continue
        body = o["body"]
        if i == index:
            edit(body)
        identity = table.sessions[o["author"]].identity
        assert identity is not None
        new = sign_entry(
            identity,
            game=bytes.fromhex(o["game"]),
            seq=o["seq"],
            author=o["author"],
            role=Role(o["role"]),
            kind=o["kind"],
            prev=new_prev,
            body=body,
        )
        renamed[entry_hash(raw)] = entry_hash(new)
        out.append(new)
    return out


def _steps(lines: list[bytes]) -> list[int]:
    out = []
    for i, raw in enumerate(lines):
        body = decode(raw)["body"]  # type: ignore[index, call-overload]
        if isinstance(body, dict) and "step" in body:
            out.append(i)
    return out


def _swap(a: int, b: int) -> Callable[[Any], None]:
    def edit(body: Any) -> None:
        deck = body["step"]["deck"]
        deck[a], deck[b] = deck[b], deck[a]

    return edit


def _write(tmp_path: Path, name: str, lines: list[bytes]) -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join(x + b"\n" for x in lines))
    return path


def test_an_honest_log_verifies_thoroughly(
    game: tuple[LocalTable, list[bytes]], tmp_path: Path
) -> None:
    _, lines = game
    path = _write(tmp_path, "honest.log", lines)
    assert replay(path).ok
    assert replay(path, thorough=True).ok


@pytest.mark.parametrize("step", [0, 1])  # the first deck's first two (phase-1) steps
def test_a_false_intermediate_deck_is_found_only_thoroughly(
    game: tuple[LocalTable, list[bytes]], tmp_path: Path, step: int
) -> None:
    table, lines = game
    index = _steps(lines)[step]
    author = decode(lines[index])["author"]  # type: ignore[index, call-overload]
    bad = _write(tmp_path, f"step{step}.log", _rewrite(table, lines, index, _swap(10, 50)))
    # The composed audit checks the final deck (what decides every card) and spot-checks one
    # position per step: this swap changes neither, by design.
    assert replay(bad).ok
    result = replay(bad, thorough=True)
    assert not result.ok
    assert result.author == author
    assert "bad-shuffle" in (result.error or "")
