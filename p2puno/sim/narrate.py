"""A game told line by line at a terminal without the table: the demo's narration and a
node's ``--narrate``. Which moments it tells is its own (every move when verbose, else the key
ones, with each round's hands at its end); the words are the table's (:mod:`p2puno.sim.words`)."""

from __future__ import annotations

import sys
import textwrap
import time

from p2puno.engine.actions import Action
from p2puno.engine.cards import CARD_COLOR, CARD_TEXT, WILD
from p2puno.engine.game import Event, Game
from p2puno.sim.words import event_words

_ANSI = {0: "31", 1: "33", 2: "32", 3: "34"}
_KEEP = "\x00"  # (a space no line may break at)
_SHOWN = {"dealer-card", "dealer", "start", "uno", "out", "penalty"}  # (a large penalty)
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
        self._last_play = ""  # (the card of the last play told: a W+4's colour follows it)
        self._before: Event | None = None  # (the event before: a penalty's draw is its own)

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
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def __call__(self, game: Game, action: Action | None, events: list[Event]) -> None:
        for e in events:
            line = self.describe(game, e)
            if line:
                self.say(line)

    def describe(self, game: Game, e: Event) -> str | None:
        """The line for one event, or None: every event when verbose, else the key moments
        (the deal, each round's start and end with every hand left, a Wild Draw Four and the
        color it names, a last card, UNO, a large penalty, challenges, catches, swaps, jumps).
        The words are the table's own (:func:`~p2puno.sim.words.event_words`)."""
        k = e.kind
        before, self._before = self._before, e
        words = event_words(game, self.names, None, e, self.card, before=before)
        if k == "draw" and words is None:
            return None  # (the penalty's line said these cards: sim.words.told_draw)
        if k == "round":
            # (wrapped at 80 columns, a seat's name and score never apart: with 10 seats the
            # line was over 200 columns: helper-86)
            scores = "  ".join(
                f"{self.who(s)} {p}".replace(" ", _KEEP) for s, p in enumerate(game.scores)
            )
            lines = textwrap.wrap(
                f"=== Round {e.value}: {self.who(e.seat).replace(' ', _KEEP)} deals.  "
                f"Scores: {scores}",
                width=79,
                subsequent_indent="    ",
                break_long_words=False,
                break_on_hyphens=False,
            )
            return "\n" + "\n".join(lines).replace(_KEEP, " ")
        if k == "play":
            self._last_play = CARD_TEXT[e.card]
            important = CARD_TEXT[e.card].startswith("W+4") or e.value <= 1  # (cards left then)
            return f"  {words}" if self.verbose or important else None
        if k == "color":
            # (the colour a Wild Draw Four names, told after it: read from the engine's state
            # it was never told, that state being past the challenge's question or a whole
            # batch later: helper-87 read "played W+4 (3 left)" and no colour)
            return f"  {words}" if self.verbose or self._last_play == "W+4" else None
        if k == "penalty" and not (self.verbose or e.value >= 4):
            return None
        if k == "round-over":
            lines = [f"  {words}"]
            for s in range(game.players):
                hand = " ".join(self.card(c) for c in sorted(game.hand_cards(s)))
                points = game.hand_points(s)
                pts = "1 pt" if points == 1 else f"{points} pts"
                held = f"left with {hand}  ({pts})" if hand else "went out"
                lines.append(f"    {self.who(s)} {held}")
            return "\n".join(lines)
        if k == "game-over":
            return None  # (the demo and the node say the end themselves)
        if k in _SHOWN or k in _KEY or self.verbose:
            return f"  {words or e}"
        return None
