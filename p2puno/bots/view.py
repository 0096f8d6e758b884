"""What one seat may know: the public state plus its own hand. Bots see the game only
through this, so a bot in the full-information simulator plays on exactly what its node
would know at a real table."""

from __future__ import annotations

from p2puno.engine.actions import Action
from p2puno.engine.cards import UNKNOWN_CARD
from p2puno.engine.game import Game, Phase


class SeatView:
    __slots__ = ("_game", "seat")

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self.seat = seat

    # public facts
    @property
    def players(self) -> int:
        return self._game.players

    @property
    def phase(self) -> Phase:
        return self._game.phase

    @property
    def turn(self) -> int:
        return self._game.turn

    @property
    def color(self) -> int:
        return self._game.color

    @property
    def top(self) -> int:
        return self._game.top

    @property
    def pending(self) -> int:
        return self._game.pending

    @property
    def offender(self) -> int:
        return self._game.offender

    @property
    def challenged_color(self) -> int:
        return self._game.wd4_color

    @property
    def challenged_hand_size(self) -> int:
        return len(self._game.wd4_hand)

    def next_seat(self, seat: int | None = None) -> int:
        return self._game.next_seat(self.seat if seat is None else seat)

    def hand_size(self, seat: int) -> int:
        return len(self._game.hands[seat])

    def discard_cards(self) -> list[int]:
        faces = self._game.faces
        return [faces[s] for s in self._game.discard]

    def scores(self) -> list[int]:
        return list(self._game.scores)

    # this seat's own knowledge
    def my_cards(self) -> list[int]:
        return [c for c in self._game.hand_cards(self.seat) if c != UNKNOWN_CARD]

    def turn_actions(self) -> list[Action]:
        return self._game.turn_actions(self.seat)

    def reactions(self) -> list[Action]:
        return self._game.reactions(self.seat)
