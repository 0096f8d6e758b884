"""RLCard's UNO, measured the same way as p2puno in scripts/bench_engine.py.

Two loops, both on RLCard 1.2.0 (installed only in ./.venv-bench by scripts/bench_engine):

- ``core``: the bare game, ``UnoGame(num_players=N)``; ``init_game()`` .. ``is_over()`` is one
  round; each step takes a uniformly random action among the legal ones. The legal actions are
  read from the state that ``init_game``/``step`` already return (``state['legal_actions']``,
  computed by the same ``get_legal_actions`` call), so the loop adds no work of its own: the
  fastest honest way to drive the core, i.e. the comparison is conservative for p2puno.
- ``env``: ``rlcard.make('uno')`` with two ``RandomAgent``s and ``env.run(is_training=False)``,
  which is what RLCard's own examples and benchmarks do. One ``run`` is one round. UnoEnv
  ignores ``game_num_players`` (only blackjack and the hold'ems read it), so it is always 2p.

RLCard's rules, for the record: "draw" is offered only when nothing is playable; a drawn card
that matches the color (or is a Wild) is played at once in the same step; no UNO call, no
challenge, no stacking, no scoring, a Wild Draw Four only when nothing else is playable.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass


@dataclass
class Result:
    rounds: int
    actions: int
    seconds: float
    aborted: int = 0  # rounds RLCard could not finish (it raised), not counted in rounds
    seats_seen: int = 0  # distinct players who acted: checks num_players is really honoured
    cpu: float = 0.0  # process CPU seconds over the same span (set by the caller)


def run_core(players: int, seconds: float, seed: int, max_rounds: int = 0) -> Result:
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=players)
    game.np_random = np.random.RandomState(seed)  # deals and wild colors of drawn cards
    rng = random.Random(seed)
    choice = rng.choice
    perf = time.perf_counter
    rounds = actions = aborted = 0
    seen: set[int] = set()
    t0 = perf()
    while True:
        try:
            state, pid = game.init_game()
            seen.add(pid)
            while not game.round.is_over:  # game.is_over() is exactly this
                state, pid = game.step(choice(state["legal_actions"]))
                actions += 1
            seen.add(pid)
            rounds += 1
        except (IndexError, ValueError):  # e.g. both piles empty: RLCard pops an empty deck
            aborted += 1
        if max_rounds:
            if rounds >= max_rounds:
                break
        elif perf() - t0 >= seconds:
            break
    elapsed = perf() - t0
    _check_players(game, players)
    return Result(rounds, actions, elapsed, aborted, len(seen))


def _check_players(game: object, players: int) -> None:
    n = len(game.players)  # type: ignore[attr-defined]
    if n != players:
        raise SystemExit(f"RLCard UnoGame(num_players={players}) made {n} players")


def run_env(seconds: float, seed: int, max_rounds: int = 0) -> Result:
    import numpy as np
    import rlcard
    from rlcard.agents import RandomAgent

    np.random.seed(seed)  # RandomAgent draws from numpy's global generator
    env = rlcard.make("uno", config={"seed": seed, "game_num_players": 4})  # 4 is ignored
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    perf = time.perf_counter
    rounds = aborted = 0
    t0 = perf()
    start_steps = env.timestep
    while True:
        try:
            env.run(is_training=False)
            rounds += 1
        except (IndexError, ValueError):
            aborted += 1
        if max_rounds:
            if rounds >= max_rounds:
                break
        elif perf() - t0 >= seconds:
            break
    elapsed = perf() - t0
    return Result(rounds, env.timestep - start_steps, elapsed, aborted, env.num_players)
