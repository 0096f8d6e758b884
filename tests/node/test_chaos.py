"""Nodes killed at random moments and resumed, and links cut and restored, in a whole game
among four node processes on 127.0.0.1 (issue 13): the game ends with every node's log holding
the same entries, verifying as finished, nobody named. scripts/chaos runs a hundred kills."""

from __future__ import annotations

from pathlib import Path

from p2puno.node.chaos import game


def test_a_game_survives_kills_and_a_cut(tmp_path: Path) -> None:
    ok, survived, back, why = game(seed=7, kills=2, cuts=1, root=tmp_path, target=200)
    assert ok, why
    assert survived >= 1 and all(t < 10 for t in back)
