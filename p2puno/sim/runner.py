"""Play whole games of bots on one full-information engine.

The table plays the part the session plays on a network: it answers the engine's shuffle
needs from a seeded generator, gives every seat a chance to react (call UNO, catch, jump in)
after each action in a fixed order starting after the last actor, then asks the player on
turn. Same seed, same game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from p2puno.bots import Bot, SeatView
from p2puno.engine.actions import Action
from p2puno.engine.cards import DECK_SIZE
from p2puno.engine.game import Event, Game, Phase
from p2puno.engine.options import Options

EventSink = Callable[[Game, Action | None, list[Event]], None]


@dataclass
class GameRecord:
    """What happened in one game, for statistics."""

    winners: tuple[int, ...]
    scores: list[int]
    rounds: int
    turns: int
    round_winners: list[int] = field(default_factory=list)  # -1 for a blocked round
    round_points: list[int] = field(default_factory=list)
    challenges_won: list[int] = field(default_factory=list)  # per seat (the challenger)
    challenges_lost: list[int] = field(default_factory=list)
    uno_penalties: list[int] = field(default_factory=list)  # per seat (the caught player)
    bluffs: int = 0
    actions: int = 0


class Table:
    """One game between bots; ``step`` applies one action (or one shuffle)."""

    def __init__(self, options: Options, bots: Sequence[Bot], rng: random.Random) -> None:
        if len(bots) != options.players:
            raise ValueError(f"{options.players} players need {options.players} bots")
        self.game = Game(options)
        self.bots = list(bots)
        self.rng = rng
        self.views = [SeatView(self.game, s) for s in range(options.players)]
        self.last_actor = 0
        n = options.players
        self.record = GameRecord(
            (), [], 0, 0, challenges_won=[0] * n, challenges_lost=[0] * n, uno_penalties=[0] * n
        )

    @property
    def over(self) -> bool:
        return self.game.phase is Phase.GAME_OVER

    def step(self) -> tuple[Action | None, list[Event]]:
        g = self.game
        need = g.need
        if need is not None:
            cards = (
                list(range(DECK_SIZE)) if not need.sources else [g.faces[s] for s in need.sources]
            )
            self.rng.shuffle(cards)
            events = g.shuffle(cards)
            self._count(events)
            return None, events
        n = g.players
        who = g.reactors()  # the seats with a reaction, without asking every seat
        if who:
            for i in range(1, n + 1):
                seat = (self.last_actor + i) % n
                if seat not in who:
                    continue
                options = g.reactions(seat)
                if options:
                    choice = self.bots[seat].react(self.views[seat], options)
                    if choice is not None:
                        return choice, self._apply(choice)
        seat = g.turn
        action = self.bots[seat].act(self.views[seat], g.turn_actions(seat))
        return action, self._apply(action)

    def _apply(self, action: Action) -> list[Event]:
        events = self.game.apply(action)
        self.last_actor = action.seat
        self.record.actions += 1
        self._count(events)
        return events

    def _count(self, events: list[Event]) -> None:
        r = self.record
        for e in events:
            k = e.kind
            if k == "guilty":
                r.challenges_won[e.seat] += 1
            elif k == "innocent":
                r.challenges_lost[e.seat] += 1
            elif k == "caught":
                r.uno_penalties[e.seat] += 1
            elif k == "play" and e.bluff:
                r.bluffs += 1
            elif k == "round-over":
                r.round_winners.append(e.seat)
                r.round_points.append(e.value)

    def finish(self) -> GameRecord:
        g = self.game
        r = self.record
        r.winners = g.winners
        r.scores = list(g.scores)
        r.rounds = g.round_no
        r.turns = g.stats.turns
        return r


def play_game(
    options: Options, bots: Sequence[Bot], seed: int | str, on_event: EventSink | None = None
) -> GameRecord:
    """Play one whole game; ``on_event`` sees every step (for the demo)."""
    table = Table(options, bots, random.Random(f"deck:{seed}"))
    while not table.over:
        action, events = table.step()
        if on_event is not None:
            on_event(table.game, action, events)
    return table.finish()
