"""Bots: players that choose among the engine's legal actions, seeing only a SeatView.

- :class:`RandomBot`    a uniformly random legal player
- :class:`HeuristicBot` a stronger player using only what its seat may know
"""

from p2puno.bots.base import Bot
from p2puno.bots.heuristic import HeuristicBot
from p2puno.bots.random_bot import RandomBot
from p2puno.bots.view import SeatView

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(name: str, seed: int | str) -> Bot:
    """A bot by name with its own seeded generator."""
    try:
        cls = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (choose from {', '.join(BOTS)})") from None
    return cls(seed)


__all__ = ["BOTS", "Bot", "HeuristicBot", "RandomBot", "SeatView", "make_bot"]
