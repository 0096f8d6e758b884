"""A random legal player: every legal action equally likely, reactions included."""

from __future__ import annotations

from p2puno.bots.base import Bot
from p2puno.bots.view import SeatView
from p2puno.engine.actions import Action


class RandomBot(Bot):
    name = "random"

    def act(self, view: SeatView, actions: list[Action]) -> Action:
        return self.rng.choice(actions)

    def react(self, view: SeatView, actions: list[Action]) -> Action | None:
        # Doing nothing is one more choice among the legal reactions.
        i = self.rng.randrange(len(actions) + 1)
        return actions[i] if i < len(actions) else None
