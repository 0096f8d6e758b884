"""A table without a network: one full-information engine, bots in the other seats, the
person asked through the same :meth:`TableUI.ask` as at a real table.

For the UI's tests (a chosen position, every prompt, deterministic by seed) and for
``scripts/bench_ui`` (key press to screen without network noise). A real game goes through
the node and its session; nothing here is used by ``host``, ``join`` or ``demo``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from p2puno.bots import SeatView, make_bot
from p2puno.engine.actions import Action
from p2puno.engine.cards import DECK_SIZE
from p2puno.engine.game import Event, Game, Phase
from p2puno.engine.options import Options
from p2puno.session.session import Outcome, Prompt, SessionEvent, Waiting
from p2puno.ui.app import TableUI


class EngineSource:
    """A bare engine seen as the table's source (no crypto: nothing to wait for but bots)."""

    def __init__(self, game: Game, me: int | None) -> None:
        self._game = game
        self.me = me

    @property
    def engine(self) -> Game:
        return self._game

    @property
    def outcome(self) -> Outcome:
        g = self._game
        if g.phase is Phase.GAME_OVER:
            return Outcome("finished", tuple(g.scores), tuple(g.winners))
        return Outcome("playing", tuple(g.scores))

    def waiting(self) -> Waiting:
        g = self._game
        if g.phase is Phase.GAME_OVER or g.turn == self.me or g.turn < 0:
            return Waiting(0, "action", ())
        return Waiting(0, "action", (g.turn,), {g.turn: "its action proposal"})


class LocalTable:
    """The person at ``me`` against bots, on one engine. ``pace``: seconds between bot moves."""

    def __init__(
        self,
        ui: TableUI,
        options: Options,
        seed: str,
        *,
        me: int = 0,
        names: list[str] | None = None,
        pace: float = 0.0,
        hand_over: Callable[[Game, str, list[Action]], bool] | None = None,
        policies: list[str] | None = None,
    ) -> None:
        """``hand_over``: ask the person only when it says so (else a bot plays the seat):
        how a test reaches the position it wants to show."""
        self.ui = ui
        self.hand_over = hand_over
        self.rng = random.Random(seed)
        self.game = Game(options)
        self.me = me
        policies = policies or ["heuristic"] * options.players
        self.bots = [make_bot(policies[s], f"{seed}:{s}") for s in range(options.players)]
        self.pace = pace
        self.last_actor = 0
        self.seq = 0
        self.names = names or ["You" if s == me else f"Bot-{s}" for s in range(options.players)]
        self.source = EngineSource(self.game, me)
        ui.attach(self.source, me, self.names)
        ui.kinds = ["person" if s == me else "bot" for s in range(options.players)]

    def _emit(self, events: list[Event]) -> None:
        if events:
            self.ui.on_events([SessionEvent("engine", str(e), e.seat, e) for e in events])

    def shuffle(self) -> None:
        g = self.game
        need = g.need
        assert need is not None and need.kind == "shuffle"
        cards = list(range(DECK_SIZE)) if not need.sources else [g.faces[s] for s in need.sources]
        self.rng.shuffle(cards)
        self._emit(g.shuffle(cards))

    async def step(self) -> None:
        """One shuffle, one round of reactions, or one turn action."""
        g = self.game
        if g.need is not None:
            self.shuffle()
            return
        n = g.players
        who = g.reactors()
        if who:
            acted = False
            for i in range(1, n + 1):
                seat = (self.last_actor + i) % n
                if seat not in who:
                    continue
                options = g.reactions(seat)
                if not options:
                    continue
                choice = await self._choose("claim", seat, options)
                if choice is not None:
                    self._apply(choice)
                    acted = True
                    break
            if acted:
                return
        seat = g.turn
        acts = g.turn_actions(seat)
        choice = await self._choose("turn", seat, acts)
        assert choice is not None
        self._apply(choice)

    async def _choose(self, kind: str, seat: int, actions: list[Action]) -> Action | None:
        self.seq += 1
        if seat == self.me and (self.hand_over is None or self.hand_over(self.game, kind, actions)):
            return await self.ui.ask(
                Prompt(kind, self.seq, tuple(actions), SeatView(self.game, seat))
            )
        if self.pace:
            await asyncio.sleep(self.pace)
        view = SeatView(self.game, seat)
        if kind == "turn":
            return self.bots[seat].act(view, actions)
        return self.bots[seat].react(view, actions)

    def _apply(self, action: Action) -> None:
        self.last_actor = action.seat
        self._emit(self.game.apply(action))

    async def play(
        self, until: Callable[[Game], bool] | None = None, max_steps: int = 100_000
    ) -> Game:
        for _ in range(max_steps):
            if self.game.phase is Phase.GAME_OVER or (until is not None and until(self.game)):
                break
            await self.step()
            await asyncio.sleep(0)
        self.ui.invalidate()
        return self.game
