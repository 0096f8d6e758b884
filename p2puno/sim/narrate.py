"""Engine events in words for a terminal without the table: the demo's narration and a
node's ``--narrate`` (both print a line per key moment; the full-screen table has its own)."""

from __future__ import annotations

import sys
import time

from p2puno.engine.actions import Action
from p2puno.engine.cards import CARD_COLOR, CARD_TEXT, WILD
from p2puno.engine.game import Event, Game

_ANSI = {0: "31", 1: "33", 2: "32", 3: "34"}
_NAMES = {0: "red", 1: "yellow", 2: "green", 3: "blue"}
_KEY = {
    "returned",
    "challenge",
    "guilty",
    "innocent",
    "caught",
    "swap",
    "rotate",
    "reshuffle",
    "jump",
    "blocked",
    "stack",
}


class Narrator:
    def __init__(self, names: list[str], delay: float, verbose: bool, color: bool) -> None:
        self.names = names
        self.delay = delay
        self.verbose = verbose
        self.color = color

    def card(self, card: int) -> str:
        text = CARD_TEXT[card]
        col = CARD_COLOR[card]
        if not self.color or col == WILD:
            return text
        return f"\x1b[{_ANSI[col]}m{text}\x1b[0m"

    def say(self, line: str) -> None:
        print(line)
        sys.stdout.flush()
        if self.delay:
            time.sleep(self.delay)

    def who(self, seat: int) -> str:
        return f"P{seat} ({self.names[seat]})"

    def __call__(self, game: Game, action: Action | None, events: list[Event]) -> None:
        for e in events:
            line = self.describe(game, e)
            if line:
                self.say(line)

    def describe(self, game: Game, e: Event) -> str | None:
        k = e.kind
        if k == "dealer-card":
            return f"  {self.who(e.seat)} draws {self.card(e.card)} for dealer"
        if k == "dealer":
            return f"  {self.who(e.seat)} deals first"
        if k == "round":
            scores = "  ".join(f"P{s} {p}" for s, p in enumerate(game.scores))
            return f"\n=== Round {e.value}: {self.who(e.seat)} deals.  Scores: {scores}"
        if k == "start":
            return f"  start card {self.card(e.card)}"
        if k == "color" and game.phase.value != "turn" and not self.verbose:
            return None
        if k == "play":
            bluff = " - a bluff!" if e.bluff else ""
            size = e.value  # the cards left then
            important = CARD_TEXT[e.card].startswith("W+4") or size <= 1
            if self.verbose or important:
                return f"  {self.who(e.seat)} plays {self.card(e.card)}{bluff} ({size} left)"
            return None
        if k == "color":
            if self.verbose or CARD_TEXT[game.top] == "W+4":
                return f"    color: {_NAMES[e.value]}"
            return None
        if k == "uno":
            return f"  {self.who(e.seat)}: UNO!"
        if k == "out":
            return f"  {self.who(e.seat)} goes out!"
        if k == "penalty" and (self.verbose or e.value >= 4):
            return f"  {self.who(e.seat)} takes {e.value}"
        if k == "round-over":
            lines = []
            for s in range(game.players):
                hand = " ".join(self.card(c) for c in sorted(game.hand_cards(s)))
                lines.append(f"    P{s} left with {hand or '-'}  ({game.hand_points(s)} pts)")
            if e.seat >= 0 and game.options.scoring == "standard":
                head = f"  round won by {self.who(e.seat)}: +{e.value} points"
            elif e.seat >= 0:
                head = f"  round won by {self.who(e.seat)}; everyone adds their own hand"
            else:
                head = "  round blocked"
            return "\n".join([head, *lines])
        if k == "game-over":
            return None
        if k in _KEY or self.verbose:
            text = str(e)
            for s in range(game.players):
                text = text.replace(f"P{s} ", f"{self.who(s)} ").replace(
                    f"P{s}'", f"{self.who(s)}'"
                )
            return "  " + text
        return None
