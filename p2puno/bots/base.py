"""The bot interface: a bot acts on its turn and may react out of turn."""

from __future__ import annotations

import random

from p2puno.bots.view import SeatView
from p2puno.engine.actions import Action


class Bot:
    """Base class. ``act`` must return one of ``view.turn_actions()``; ``react`` one of
    ``view.reactions()`` or None. Each bot owns a seeded generator: no unseeded randomness."""

    name = "bot"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView, actions: list[Action]) -> Action:
        raise NotImplementedError

    def react(self, view: SeatView, actions: list[Action]) -> Action | None:
        return None
