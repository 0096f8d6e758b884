"""Rule options: the player count, the house rules and the scoring, fixed for a whole game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from p2puno.engine.cards import NotationError

HOUSE_RULES = ("progressive", "seven-o", "jump-in")
Scoring = Literal["standard", "lowest"]


@dataclass(frozen=True, slots=True)
class Options:
    """What every node agrees on before the first card.

    ``scoring="lowest"`` is the sheets' "Alternative Scoring and Winning" (002): each player
    keeps a tally of the points left in their own hand and the lowest total wins.
    """

    players: int = 4
    progressive: bool = False
    seven_o: bool = False
    jump_in: bool = False
    scoring: Scoring = "standard"
    target: int = 500

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 10:
            raise ValueError(f"players must be 2..10 (002 · title: '2-10'), got {self.players}")
        if self.scoring not in ("standard", "lowest"):
            raise ValueError(f"scoring must be 'standard' or 'lowest', got {self.scoring!r}")
        if not 1 <= self.target <= 100_000:
            raise ValueError(f"target must be 1..100000, got {self.target}")

    @property
    def house(self) -> tuple[str, ...]:
        flags = (self.progressive, self.seven_o, self.jump_in)
        return tuple(name for name, on in zip(HOUSE_RULES, flags, strict=True) if on)

    def __str__(self) -> str:
        house = ",".join(self.house) or "none"
        return (
            f"{self.players} players, house rules: {house}, {self.scoring} scoring to {self.target}"
        )

    # Immutable: a copy is the same object. (Also what lets copy.deepcopy work on the compiled
    # build, where a frozen dataclass cannot be rebuilt field by field.)
    def __copy__(self) -> Options:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Options:
        return self


def parse_house(text: str) -> dict[str, bool]:
    """Parse ``"progressive,seven-o"`` into Options keyword arguments."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in HOUSE_RULES:
            raise NotationError(
                f"unknown house rule {name!r} (choose from {', '.join(HOUSE_RULES)})"
            )
    return {
        "progressive": "progressive" in names,
        "seven_o": "seven-o" in names,
        "jump_in": "jump-in" in names,
    }
