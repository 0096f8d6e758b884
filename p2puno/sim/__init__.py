"""The simulator: whole games of bots with full information and no crypto."""

from p2puno.sim.runner import GameRecord, Table, play_game

__all__ = ["GameRecord", "Table", "play_game"]
