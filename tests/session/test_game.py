"""Whole trustless games in process: N sessions, entries routed in memory, crypto included.

Every node must end with the same log and the same state digest, and the offline replay must
accept the log.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from p2puno.engine import Options, Phase
from p2puno.log import append_entry
from p2puno.session.harness import LocalTable
from p2puno.session.replay import replay

COMBOS = list(itertools.product([False, True], repeat=3))


def play(options: Options, seed: str) -> LocalTable:
    table = LocalTable(options, seed=seed)
    table.run()
    return table


def check_agreement(table: LocalTable) -> None:
    first = table.sessions[0]
    assert first.blame is None, first.blame
    assert first.engine.phase is Phase.GAME_OVER
    heads = {s.log.head for s in table.sessions}
    assert len(heads) == 1
    digests = {s.engine.digest() for s in table.sessions}
    assert len(digests) == 1, "every node must reach the same state"
    for s in table.sessions:
        assert sorted(h for h, _ in s.log) == sorted(h for h, _ in first.log)
        assert s.audited_deck == s.deck_no, "every deck was revealed and audited"


def write_log(table: LocalTable, path: Path) -> Path:
    for h, _ in table.sessions[0].log:
        append_entry(path, table.sessions[0].log.raw(h), fsync=False)
    return path


@pytest.mark.parametrize(("progressive", "seven_o", "jump_in"), COMBOS)
def test_two_players_every_house_rule_combination(
    tmp_path: Path, progressive: bool, seven_o: bool, jump_in: bool
) -> None:
    opts = Options(2, progressive, seven_o, jump_in, target=150)
    table = play(opts, f"two/{progressive}{seven_o}{jump_in}")
    check_agreement(table)
    result = replay(write_log(table, tmp_path / "game.log"))
    assert result.ok, result.error
    assert list(result.winners) == list(table.sessions[0].engine.winners)


def test_four_players_to_500(tmp_path: Path) -> None:
    table = play(Options(4, True, True, True), "four")
    check_agreement(table)
    assert max(table.sessions[0].engine.scores) >= 500
    assert replay(write_log(table, tmp_path / "g.log")).ok
