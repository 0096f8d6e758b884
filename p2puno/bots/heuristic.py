"""A heuristic player that plays only on what its seat may know (a SeatView).

Policy, in brief:
- always call UNO, always catch a player who forgot, jump in whenever the rules allow;
- play rather than draw; hold Wilds back while another card is playable; shed high-point
  cards first, and hit the next player with action cards when they are close to going out;
- name the color it holds most of (by points);
- bluff a Wild Draw Four only when the next player is about to go out;
- challenge when the chance that the offender held the old color is high enough to pay
  (a failed challenge costs 2 more cards), estimated from the unseen cards;
- Seven-O: swap with the player holding the fewest cards.
"""

from __future__ import annotations

from collections import Counter

from p2puno.bots.base import Bot
from p2puno.bots.view import SeatView
from p2puno.engine.actions import Action, Kind
from p2puno.engine.cards import (
    CARD_COLOR,
    CARD_POINTS,
    CARD_RANK,
    DECK_SIZE,
    DRAW_TWO,
    REVERSE,
    SKIP,
    WILD,
    WILD_CARD,
    WILD_DRAW_FOUR,
)

_ACTION_RANKS = (SKIP, REVERSE, DRAW_TWO, WILD_DRAW_FOUR)


class HeuristicBot(Bot):
    name = "heuristic"

    def react(self, view: SeatView, actions: list[Action]) -> Action | None:
        order = {Kind.UNO: 0, Kind.CATCH: 1, Kind.JUMP: 2}
        best = min(actions, key=lambda a: (order.get(a.kind, 9), not a.uno))
        if best.kind is Kind.JUMP:
            return self._best_play(view, [a for a in actions if a.kind is Kind.JUMP])
        return best

    def act(self, view: SeatView, actions: list[Action]) -> Action:
        kinds = {a.kind for a in actions}
        if Kind.GUILTY in kinds or Kind.INNOCENT in kinds:
            return actions[0]  # only the truthful verdict is offered to the challenger
        if Kind.COLOR in kinds:
            want = self._best_color(view.my_cards())
            return next(a for a in actions if a.choose == want)
        plays = [a for a in actions if a.kind is Kind.PLAY]
        if Kind.CHALLENGE in kinds and self._should_challenge(view):
            return next(a for a in actions if a.kind is Kind.CHALLENGE)
        if plays:
            choice = self._best_play(view, plays)
            if choice is not None:
                return choice
        for k in (Kind.TAKE, Kind.KEEP, Kind.DRAW):
            for a in actions:
                if a.kind is k:
                    return a
        return actions[0]

    # ------------------------------------------------------------------ choices
    def _best_play(self, view: SeatView, plays: list[Action]) -> Action | None:
        mine = view.my_cards()
        nxt = view.next_seat()
        danger = view.hand_size(nxt) <= 2
        has_color = any(CARD_COLOR[c] == view.color for c in mine)
        want_color = self._best_color(mine)
        best: tuple[float, Action] | None = None
        for a in plays:
            rank = a.rank
            if rank == WILD_DRAW_FOUR and has_color and not danger:
                continue  # no bluff unless the next player is about to go out
            score = float(CARD_POINTS_BY_RANK[rank])
            if rank >= WILD_CARD:
                score = -20.0 + (60.0 if danger else 0.0)  # hold Wilds back
                if a.choose != want_color:
                    score -= 1.0
            elif rank in _ACTION_RANKS and danger:
                score += 40.0
            if not a.uno and len(mine) == 2:
                score -= 100.0  # always call UNO
            if a.target >= 0:
                score -= view.hand_size(a.target) * 0.5  # swap with the smallest hand
            if best is None or score > best[0]:
                best = (score, a)
        if best is None:
            return None
        return best[1]

    @staticmethod
    def _best_color(cards: list[int]) -> int:
        weight = [0.0] * 4
        for c in cards:
            col = CARD_COLOR[c]
            if col != WILD:
                weight[col] += 1.0 + CARD_POINTS[c] / 100.0
        return max(range(4), key=lambda i: (weight[i], -i))

    def _should_challenge(self, view: SeatView) -> bool:
        """Challenge when P(the offender held the old color) makes it pay.

        Guilty: the offender draws instead of us (a swing of about 8 cards' worth);
        innocent: we draw 2 more. So challenge when p * 8 > (1 - p) * 2, i.e. p > 0.2, made
        stricter to 0.45 because this estimate ignores that honest players rarely bluff.
        """
        color = view.challenged_color
        if color == WILD:
            return False
        seen = view.my_cards() + view.discard_cards()
        unseen = DECK_SIZE - len(seen)
        of_color = COLOR_COUNT[color] - sum(1 for c in seen if CARD_COLOR[c] == color)
        if unseen <= 0 or of_color <= 0:
            return False
        q = of_color / unseen
        h = view.challenged_hand_size
        p = 1.0 - (1.0 - q) ** h
        return p > 0.45


# (the engine's scoring, 002 · Scoring, by rank; and how many cards of each color the deck has)
CARD_POINTS_BY_RANK = {CARD_RANK[c]: CARD_POINTS[c] for c in range(DECK_SIZE)}
COLOR_COUNT = Counter(CARD_COLOR)
