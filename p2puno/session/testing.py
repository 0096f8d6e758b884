"""Scripted and cheating deciders for tests and the cheat vectors (protocol/tools).

Not for play: some read the full engine behind their view (``view._game``) to find a card
they may not play, which is the point. Shared so that the tests and the vector generator
cheat in exactly the same way.
"""

from __future__ import annotations

from p2puno.bots import HeuristicBot, SeatView
from p2puno.engine import Phase
from p2puno.engine.actions import Action, Kind
from p2puno.engine.cards import CARD_COLOR, CARD_RANK, UNKNOWN_CARD, WILD, WILD_DRAW_FOUR

__all__ = [
    "AlwaysChallenges",
    "Bluffer",
    "FairWildFour",
    "IllegalPlayer",
    "LyingChallenger",
    "Trusting",
]


class IllegalPlayer(HeuristicBot):
    """Plays a card that matches neither color nor rank, once it holds one."""

    cheated = False

    def act(self, view: SeatView, actions: list[Action]) -> Action:
        g = view._game
        legal = {a.slot for a in actions if a.kind is Kind.PLAY}
        if view.phase is Phase.TURN and not self.cheated:
            for slot in g.hands[view.seat]:
                c = g.faces[slot]
                if c != UNKNOWN_CARD and slot not in legal and CARD_COLOR[c] != WILD:
                    self.cheated = True
                    return Action(view.seat, Kind.PLAY, slot, CARD_COLOR[c], CARD_RANK[c])
        return super().act(view, actions)


class FairWildFour(HeuristicBot):
    """Plays a Wild Draw Four whenever it may (legally: no card of the pile's color)."""

    def act(self, view: SeatView, actions: list[Action]) -> Action:
        fair = not any(CARD_COLOR[c] == view.color for c in view.my_cards() if c >= 0)
        for a in actions:
            if fair and a.kind is Kind.PLAY and a.rank == WILD_DRAW_FOUR:
                return a
        return super().act(view, actions)


class AlwaysChallenges(HeuristicBot):
    """Challenges every Wild Draw Four; says ``innocent`` when it could not see the hand."""

    def act(self, view: SeatView, actions: list[Action]) -> Action:
        kinds = {a.kind for a in actions}
        if Kind.CHALLENGE in kinds:
            return next(a for a in actions if a.kind is Kind.CHALLENGE)
        if Kind.INNOCENT in kinds:
            return next(a for a in actions if a.kind is Kind.INNOCENT)
        return super().act(view, actions)


class LyingChallenger(HeuristicBot):
    """Challenges every Wild Draw Four, then says ``guilty`` whatever the hand shows."""

    lied = False

    def act(self, view: SeatView, actions: list[Action]) -> Action:
        kinds = {a.kind for a in actions}
        if Kind.CHALLENGE in kinds:
            return next(a for a in actions if a.kind is Kind.CHALLENGE)
        if Kind.INNOCENT in kinds:
            self.lied = Kind.GUILTY not in kinds
            return Action(view.seat, Kind.GUILTY)
        return super().act(view, actions)


class Trusting(HeuristicBot):
    """Never challenges."""

    def act(self, view: SeatView, actions: list[Action]) -> Action:
        return super().act(view, [a for a in actions if a.kind is not Kind.CHALLENGE] or actions)


class Bluffer(Trusting):
    """Plays a Wild Draw Four while holding the pile's color (a bluff) whenever it can."""

    def __init__(self, seed: int | str = 0) -> None:
        super().__init__(seed)
        self.bluffed: list[Action] = []

    def act(self, view: SeatView, actions: list[Action]) -> Action:
        if any(CARD_COLOR[c] == view.color for c in view.my_cards()):
            for a in actions:
                if a.kind is Kind.PLAY and a.rank == WILD_DRAW_FOUR:
                    self.bluffed.append(a)
                    return a
        return super().act(view, actions)
