"""Aggregate statistics over many simulated games, as text or one JSON object."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from p2puno.engine import NATIVE
from p2puno.engine.options import Options
from p2puno.sim.runner import GameRecord


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (display only: never signed or replayed)."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (centre - half, centre + half)


@dataclass
class Summary:
    options: Options
    bots: Sequence[str]
    seed: int
    games: int = 0
    rounds: int = 0
    blocked: int = 0
    turns: int = 0
    actions: int = 0
    game_wins_seat: list[int] = field(default_factory=list)
    game_wins_bot: dict[str, int] = field(default_factory=dict)
    round_wins_seat: list[int] = field(default_factory=list)
    round_wins_bot: dict[str, int] = field(default_factory=dict)
    rounds_bot: dict[str, int] = field(default_factory=dict)  # rounds each bot sat in (x seats)
    points_won: int = 0
    challenges_won: int = 0
    challenges_lost: int = 0
    uno_penalties: int = 0
    bluffs: int = 0

    def __post_init__(self) -> None:
        n = self.options.players
        self.game_wins_seat = [0] * n
        self.round_wins_seat = [0] * n
        names = sorted(set(self.bots))
        self.game_wins_bot = dict.fromkeys(names, 0)
        self.round_wins_bot = dict.fromkeys(names, 0)
        self.rounds_bot = dict.fromkeys(names, 0)

    def add(self, record: GameRecord, lineup: Sequence[str]) -> None:
        self.games += 1
        self.rounds += record.rounds
        self.turns += record.turns
        self.actions += record.actions
        for w in record.winners:
            self.game_wins_seat[w] += 1
            self.game_wins_bot[lineup[w]] += 1
        for w, pts in zip(record.round_winners, record.round_points, strict=True):
            for name in lineup:
                self.rounds_bot[name] += 1
            if w < 0:
                self.blocked += 1
                continue
            self.round_wins_seat[w] += 1
            self.round_wins_bot[lineup[w]] += 1
            self.points_won += pts
        self.challenges_won += sum(record.challenges_won)
        self.challenges_lost += sum(record.challenges_lost)
        self.uno_penalties += sum(record.uno_penalties)
        self.bluffs += record.bluffs

    def to_json(self, seconds: float) -> dict[str, Any]:
        rounds_per_second = round(self.rounds / seconds) if seconds > 0 else 0
        return {
            "players": self.options.players,
            "house": list(self.options.house),
            "scoring": self.options.scoring,
            "target": self.options.target,
            "seed": self.seed,
            "bots": list(self.bots),
            "games": self.games,
            "rounds": self.rounds,
            "blocked_rounds": self.blocked,
            "turns": self.turns,
            "actions": self.actions,
            "rounds_per_second": rounds_per_second,
            "wins_per_seat": self.game_wins_seat,
            "wins_per_bot": self.game_wins_bot,
            "round_wins_per_seat": self.round_wins_seat,
            "round_wins_per_bot": self.round_wins_bot,
            "points_per_round_won": round(self.points_won / max(1, self.rounds - self.blocked), 2),
            "challenges_won": self.challenges_won,
            "challenges_lost": self.challenges_lost,
            "uno_penalties": self.uno_penalties,
            "uncontested_and_contested_bluffs": self.bluffs,
        }

    def text(self, seconds: float) -> str:
        o = self.options
        g = max(1, self.games)
        r = max(1, self.rounds)
        won = max(1, self.rounds - self.blocked)
        lines = [
            f"{self.games} games, {o}, seed {self.seed}",
            f"bots, rotating one seat each game: {', '.join(self.bots)}",
            "",
            f"rounds        {self.rounds}  ({self.rounds / g:.2f} per game"
            + (f", {self.blocked} blocked)" if self.blocked else ")"),
            f"turns         {self.turns}  ({self.turns / r:.1f} per round)",
            f"points        {self.points_won / won:.1f} per round won",
            f"challenges    {self.challenges_won} won, {self.challenges_lost} lost",
            f"Wild Draw Four bluffs  {self.bluffs}",
            f"UNO penalties {self.uno_penalties}  ({self.uno_penalties / r:.2f} per round)",
            "",
            "round wins by bot (95% CI)",
        ]
        for name in sorted(self.round_wins_bot):
            wins = self.round_wins_bot[name]
            seats = self.rounds_bot[name]
            # share of rounds won per seat this bot held, against a fair share of 1/players
            per_seat = wins / max(1, seats)
            lo, hi = wilson(wins, max(1, seats))
            lines.append(
                f"  {name:<10} {wins:>7} rounds  {100 * per_seat:5.1f}% per seat "
                f"[{100 * lo:.1f}, {100 * hi:.1f}]  (fair share {100 / o.players:.1f}%)"
            )
        lines.append("game wins by bot")
        for name in sorted(self.game_wins_bot):
            lines.append(f"  {name:<10} {self.game_wins_bot[name]:>7}")
        lines.append("game wins by seat")
        lines.append(
            "  "
            + "  ".join(f"P{s} {w} ({100 * w / g:.1f}%)" for s, w in enumerate(self.game_wins_seat))
        )
        lines.append("")
        # the one line that is not the same for the same seed: the speed, and the engine build
        # that gave it (the same rules either way: p2puno/engine/native.py)
        build = "compiled" if NATIVE else "pure-Python"
        lines.append(
            f"{self.rounds / seconds:.0f} rounds/s ({build} engine)" if seconds > 0 else ""
        )
        return "\n".join(lines)
