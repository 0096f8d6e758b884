"""Print one SHA-256 over every step of seeded bot games: each action in the log notation, each
event, and the public-state digest after each step. Run it under ``P2PUNO_ENGINE=pure`` and
``=native``: the two builds of the engine must print the same line (tests/engine/test_native.py).

    python tests/engine/engine_trace.py GAMES
"""

from __future__ import annotations

import hashlib
import itertools
import sys

import p2puno.engine as engine
from p2puno.bots import HeuristicBot, RandomBot
from p2puno.engine.actions import Action
from p2puno.engine.game import Event, Game
from p2puno.engine.options import Options
from p2puno.sim.runner import play_game


def trace(games: int) -> str:
    h = hashlib.sha256()

    def record(g: Game, action: Action | None, events: list[Event]) -> None:
        h.update(f"{action}|{events!r}|".encode())
        h.update(g.digest())

    combos = list(itertools.product((False, True), repeat=3))
    for i in range(games):
        progressive, seven_o, jump_in = combos[i % len(combos)]
        players = (2, 3, 4, 10)[i % 4]
        opts = Options(
            players=players,
            progressive=progressive,
            seven_o=seven_o,
            jump_in=jump_in,
            scoring="lowest" if i % 5 == 4 else "standard",
            target=200,
        )
        # random bots reach every legal action; heuristic ones bluff, challenge and catch
        bots = [(RandomBot if (s + i) % 2 else HeuristicBot)(f"{i}:{s}") for s in range(players)]
        play_game(opts, bots, seed=i, on_event=record)
    return h.hexdigest()


if __name__ == "__main__":
    print(f"{'native' if engine.NATIVE else 'pure'} {trace(int(sys.argv[1]))}")
