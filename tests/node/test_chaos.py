"""Nodes killed at random moments and resumed, and links cut and restored, in a whole game
among four node processes on 127.0.0.1 (issue 13): the game ends with every node's log holding
the same entries, verifying as finished, nobody named. scripts/chaos runs a hundred kills."""

from __future__ import annotations

from pathlib import Path

from p2puno.node.chaos import game


def test_a_game_survives_kills_and_a_cut(tmp_path: Path) -> None:
    # 150 points: a game of a round or more; the first event (a kill, for seed 7) comes 0.2 to
    # 0.6 s after the first round's start, before any game's end (a game's length is not known
    # in advance: a kill up to 1.5 s after it once came after a one-round game's end, in CI;
    # 8 first rounds here took 2.3-5.1 s from that line to the host's exit); a later kill may
    # come after the end, which the game accounts for (to 300: 42 s of the suite)
    run = game(seed=7, kills=2, cuts=1, root=tmp_path, target=150, first=(0.2, 0.6))
    assert run.ok, run.why
    # every kill accounted for: back in the game, or (killed in the moment after the end)
    # resumed into a game it found over; and at least one resumed into a game still going
    assert run.made >= 1 and len(run.back) + run.over == run.made, run
    assert run.back and all(t < 10 for t in run.back), run
