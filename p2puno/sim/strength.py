"""Bot strength: the heuristic bot against the random bot, seats rotated, with a 95% CI."""

from __future__ import annotations

from dataclasses import dataclass

from p2puno.bots import make_bot
from p2puno.engine.options import Options
from p2puno.sim.runner import play_game
from p2puno.sim.stats import wilson


@dataclass(frozen=True)
class Strength:
    players: int
    rounds: int
    wins: int  # rounds won by the heuristic bot
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.wins / self.rounds if self.rounds else 0.0

    def __str__(self) -> str:
        return (
            f"{self.players} players (1 heuristic, {self.players - 1} random): heuristic won "
            f"{self.wins}/{self.rounds} rounds = {100 * self.rate:.1f}% "
            f"[95% CI {100 * self.low:.1f}, {100 * self.high:.1f}], fair share "
            f"{100 / self.players:.1f}%"
        )


def measure(
    players: int,
    min_rounds: int,
    seed: int = 0,
    *,
    progressive: bool = False,
    seven_o: bool = False,
    jump_in: bool = False,
) -> Strength:
    """Play whole games (one heuristic seat, rotating each game) until ``min_rounds``."""
    options = Options(players, progressive, seven_o, jump_in)
    rounds = wins = 0
    game = 0
    while rounds < min_rounds:
        hseat = game % players
        lineup = ["heuristic" if s == hseat else "random" for s in range(players)]
        bots = [make_bot(name, f"strength:{seed}:{game}:{s}") for s, name in enumerate(lineup)]
        record = play_game(options, bots, f"strength:{seed}:{game}")
        for w in record.round_winners:
            if w >= 0:
                rounds += 1
                wins += w == hseat
        game += 1
    low, high = wilson(wins, rounds)
    return Strength(players, rounds, wins, low, high)
