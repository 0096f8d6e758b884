"""A full-information table mirrored by one partial-information engine per seat.

Each partial engine gets what its node would get: every action, no deck order (shuffle(None)),
and the faces of exactly the slots ``Game.visible_to(seat)`` names, which is what the mental
poker layer opens for that node. Used to check that all views agree on every public fact.
"""

from __future__ import annotations

import random

from p2puno.bots import make_bot
from p2puno.engine import Game, Options, Phase
from p2puno.engine.actions import Action, Kind
from p2puno.sim.runner import Table


class MirroredTable:
    def __init__(self, options: Options, seed: int | str, bots: list[str] | None = None) -> None:
        names = bots or ["random", "heuristic"]
        n = options.players
        lineup = [make_bot(names[s % len(names)], f"{seed}:{s}") for s in range(n)]
        self.table = Table(options, lineup, random.Random(f"deck:{seed}"))
        self.full = self.table.game
        self.views = [Game(options) for _ in range(n)]
        self.steps = 0
        self.entitled: list[set[int]] = [set() for _ in range(n)]
        self.public: set[int] = set()  # slots revealed to all (played, turned up)

    def step(self) -> None:
        full = self.full
        need = full.need
        if need is not None:
            self.table.step()
            for v in self.views:
                v.shuffle(None)
            if not need.sources:  # a new deck: slot numbers start again
                self.entitled = [set() for _ in self.views]
                self.public = set()
        else:
            action = self._choose()
            if action.kind in (Kind.PLAY, Kind.JUMP):
                card = full.faces[action.slot]
                self.public.add(action.slot)
                for v in self.views:
                    v.reveal(action.slot, card, public=True)
            for v in self.views:
                v.apply(action)
            self.table._apply(action)
        self.steps += 1
        self.sync()

    def _choose(self) -> Action:
        # The same choice Table.step would make, without applying it yet.
        t = self.table
        g = self.full
        n = g.players
        if g.window:
            for i in range(1, n + 1):
                seat = (t.last_actor + i) % n
                options = g.reactions(seat)
                if options:
                    choice = t.bots[seat].react(t.views[seat], options)
                    if choice is not None:
                        return choice
        seat = g.turn
        return t.bots[seat].act(t.views[seat], g.turn_actions(seat))

    def sync(self) -> None:
        """Open for each view what its seat may see; answer public reveal needs."""
        full = self.full
        for seat, v in enumerate(self.views):
            while True:
                visible = v.visible_to(seat)
                self.entitled[seat].update(visible)
                public = (
                    set(v.need.slots) if v.need is not None and v.need.kind == "reveal" else set()
                )
                public |= set(v.discard) | set(v.dd_slots)
                for slot in visible:
                    if v.faces[slot] < 0 or (slot in public and slot not in v.public):
                        v.reveal(slot, full.faces[slot], public=slot in public)
                if v.need is None or v.need.kind != "reveal":
                    break
                if all(s in v.public for s in v.need.slots):
                    break

    @property
    def over(self) -> bool:
        return self.full.phase is Phase.GAME_OVER

    def check(self) -> None:
        # The public state, compared whole at every step; the digest (a hash of it, the
        # slowest call here) only at the end of a game (:meth:`check_digests`).
        public = self.full.public_state()
        for seat, v in enumerate(self.views):
            assert v.public_state() == public, f"seat {seat} disagrees after {self.steps} steps"
            # a view knows exactly the slots it was ever entitled to, never the draw pile
            known = {slot for slot, c in enumerate(v.faces) if c >= 0}
            assert known <= self.entitled[seat] | self.public
            assert not known & set(v.draw)
            # reactors() is the cheap form of polling reactions(), in a partial view too
            assert v.reactors() == [s for s in range(v.players) if v.reactions(s)]

    def check_digests(self) -> None:
        d = self.full.digest()
        for seat, v in enumerate(self.views):
            assert v.digest() == d, f"seat {seat}'s digest differs after {self.steps} steps"
