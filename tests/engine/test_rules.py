"""One test (at least) per rule, each citing the sheet and section it checks.

Sheets are in ../shared/rules: 000 UNO Deluxe, 001 house rules, 002 Checklane. Decisions where
the sheets are silent are numbered as in docs/rules.md ("D<n>").
"""

from __future__ import annotations

import pytest

from p2puno.engine import Game, IllegalAction, Options, Phase, parse_action
from p2puno.engine.cards import CARD_TEXT, COLORS
from tests.engine.rig import act, dealer_draw_order, kinds, playf, rig, slot_of, snapshot

O2 = Options(players=2)
O3 = Options(players=3)
O4 = Options(players=4)


def refused(g: Game, text: str) -> IllegalAction:
    before = snapshot(g)
    with pytest.raises(IllegalAction) as e:
        g.apply(parse_action(text))
    assert g == before, "a refused action must leave the state untouched"
    return e.value


# --------------------------------------------------------------------- setup
def test_draw_for_dealer_highest_deals_symbols_count_zero() -> None:
    # 002 · Setup 1: "the player that draws the highest number deals (count any card with a
    # symbol as zero)"
    g = Game(O3)
    # seat 0 draws a Wild (0), seat 1 a Skip (0), seat 2 a 1: seat 2 deals.
    order = [100, 20, 1] + [c for c in range(108) if c not in (100, 20, 1)]
    events = g.shuffle(order)
    assert g.dealer == 2
    assert [e.kind for e in events][:4] == ["dealer-card"] * 3 + ["dealer"]


def test_draw_for_dealer_ties_draw_again() -> None:
    # D1: ties for highest draw again among the tied, from the same shuffled deck.
    g = Game(O3)
    # r9 (id 17), y9 (42) tie; seat 1 draws y0. Then seat 0 draws r1, seat 2 draws r2.
    first = [17, 25, 42]
    again = [1, 3]
    rest = [c for c in range(108) if c not in first + again]
    events = g.shuffle(first + again + rest)
    assert g.dealer == 2
    assert kinds(events).count("dealer-card") == 5


def test_seven_cards_each_and_left_of_dealer_starts() -> None:
    # 002 · Setup 2: "deals each player 7 cards"; Let's Play: "The person to the left of the
    # dealer starts play."
    g, _ = rig(O4, [[], [], [], []], "r5", dealer=1)
    assert [len(h) for h in g.hands] == [7, 7, 7, 7]
    assert g.turn == 2
    assert len(g.draw) == 108 - 28 - 1
    assert CARD_TEXT[g.top] == "r5"


# --------------------------------------------------------------------- start card
def test_start_draw_two() -> None:
    # 002 · Draw Two: "If turned up at the beginning of play, the same rule applies."
    g, _ = rig(O3, [[], [], []], "g+2")
    assert g.phase is Phase.PENALTY and g.turn == 0 and g.pending == 2
    refused(g, "0 draw")
    act(g, "0 take")
    assert len(g.hands[0]) == 9 and g.turn == 1


def test_start_reverse_dealer_first_then_right() -> None:
    # 002 · Reverse: "If this card is turned up at the beginning of play, the dealer goes first,
    # then play moves to the right instead of the left."
    g, _ = rig(O4, [["r1"], ["r2"], ["r3"], ["r4"]], "rR", dealer=3)
    assert g.turn == 3 and g.direction == -1
    playf(g, 3, "r4")
    assert g.turn == 2


def test_start_skip() -> None:
    # 002 · Skip: "the player to the left of the dealer is skipped, hence the player to the left
    # of that player starts play."
    g, _ = rig(O4, [[], [], [], []], "yS", dealer=3)
    assert g.turn == 1


def test_start_wild_first_player_names_color() -> None:
    # 002 · Wild: "If a Wild card is turned up at the beginning of play, the person to the left
    # of the dealer chooses the color that continues play."
    g, _ = rig(O3, [["g3"], [], []], "W")
    assert g.phase is Phase.START_COLOR and g.turn == 0
    refused(g, "1 color r")
    refused(g, f"0 g3#{slot_of(g, 0, 'g3')}")
    act(g, "0 color g")
    assert g.color == COLORS.index("g") and g.turn == 0 and g.phase is Phase.TURN
    playf(g, 0, "g3")


def test_start_wild_draw_four_is_returned_by_a_new_shuffle() -> None:
    # 002 · Wild Draw Four: "If turned up at the beginning of play, return this card to the deck
    # and pick another card." D3: a new joint shuffle of the draw pile with that card.
    g, events = rig(O3, [[], [], []], "W+4", draw=["g5"])
    assert "returned" in kinds(events)
    need = g.need
    assert need is not None and need.kind == "shuffle" and need.count == 108 - 21
    cards = [g.faces[s] for s in need.sources]
    assert any(CARD_TEXT[c] == "W+4" for c in cards)
    g5 = next(c for c in cards if CARD_TEXT[c] == "g5")
    cards.remove(g5)
    events = g.shuffle([g5, *cards])
    assert CARD_TEXT[g.top] == "g5" and g.phase is Phase.TURN
    assert sorted(g.card_census()) == list(range(108))


def test_shuffle_must_hold_the_right_cards() -> None:
    g, _ = rig(O3, [[], [], []], "W+4")
    need = g.need
    assert need is not None
    cards = [g.faces[s] for s in need.sources]
    with pytest.raises(ValueError):
        g.shuffle([*cards[:-1], cards[0]])


@pytest.mark.parametrize(
    "order",
    [
        [*range(107), 0],  # a card twice, one missing
        [*range(107), 108],  # a card id out of range
        [-1, *range(1, 108)],
        [*range(107), 107.0],  # not ints
        list(range(107)),  # too short
    ],
)
def test_a_fresh_deck_must_hold_every_card_once(order: list[int]) -> None:
    g = Game(O3)
    with pytest.raises(ValueError):
        g.shuffle(order)
    assert g == Game(O3)
    g.shuffle(dealer_draw_order(3, 2))
    assert g.need is not None and g.need.kind == "shuffle" and not g.need.sources
    before = snapshot(g)
    with pytest.raises(ValueError):
        g.shuffle(order)
    assert g == before
    g.shuffle(list(range(108)))
    assert sorted(g.card_census()) == list(range(108))


# --------------------------------------------------------------------- matching
def test_match_by_color_number_or_symbol() -> None:
    # 002 · Let's Play: "If the card on the DISCARD pile is a red 7, the player must put down a
    # red card OR any color 7. Alternatively, the player can put down a Wild card"
    g, _ = rig(O3, [["r2", "g7", "y3", "W", "gS"], [], []], "r7")
    e = refused(g, f"0 y3#{slot_of(g, 0, 'y3')}")
    assert "does not match" in e.reason
    refused(g, f"0 gS#{slot_of(g, 0, 'gS')}")
    for face in ("r2", "g7"):
        h = snapshot(g)
        playf(h, 0, face)
    h = snapshot(g)
    playf(h, 0, "W", ":y")
    assert h.color == COLORS.index("y")


def test_symbol_matches_symbol() -> None:
    # 002 · Skip: "may only be played on a matching color or on another Skip card"
    g, _ = rig(O3, [["rS"], [], ["gS", "yR"]], "r5")
    playf(g, 0, "rS")
    assert g.turn == 2
    refused(g, f"2 yR#{slot_of(g, 2, 'yR')}")
    playf(g, 2, "gS")


def test_wild_may_be_played_holding_other_playable_cards_and_name_the_current_color() -> None:
    # 002 · Wild: "any color including the color in play before the Wild card was laid down. You
    # may play a Wild card on your turn even if you have another playable card in your hand."
    g, _ = rig(O3, [["r2", "W"], [], []], "r7")
    playf(g, 0, "W", ":r")
    assert g.color == 0


def test_play_out_of_turn_and_foreign_slots_are_refused() -> None:
    g, _ = rig(O3, [["r2"], ["r3"], []], "r7")
    assert "not your turn" in refused(g, f"1 r3#{slot_of(g, 1, 'r3')}").reason
    assert "not in your hand" in refused(g, f"0 r3#{slot_of(g, 1, 'r3')}").reason
    s = slot_of(g, 0, "r2")
    assert "not the card named" in refused(g, f"0 r5#{s}").reason


# --------------------------------------------------------------------- drawing
def test_draw_then_play_the_drawn_card_if_playable() -> None:
    # 002 · Let's Play: "If the card you picked up can be played, you are free to put it down in
    # the same turn."
    g, _ = rig(O3, [["y1"], [], []], "r7", draw=["r4"])
    act(g, "0 draw")
    assert g.phase is Phase.DRAWN
    drawn = g.drawn
    assert CARD_TEXT[g.faces[drawn]] == "r4"
    act(g, f"0 r4#{drawn}")
    assert g.turn == 1


def test_drawn_card_may_be_kept() -> None:
    g, _ = rig(O3, [["y1"], [], []], "r7", draw=["r4"])
    act(g, "0 draw")
    act(g, "0 keep")
    assert g.turn == 1 and len(g.hands[0]) == 8


def test_unplayable_drawn_card_cannot_be_played() -> None:
    # 002 · Let's Play: "Otherwise, play moves on to the next person in turn." (the README: a
    # drawn card may be played only if playable; 004's OCR typo is not followed)
    g, _ = rig(O3, [["y1"], [], []], "r7", draw=["g4"])
    act(g, "0 draw")
    assert "not playable" in refused(g, f"0 g4#{g.drawn}").reason
    assert [str(a) for a in g.turn_actions(0)] == ["0 keep"]


def test_may_draw_holding_a_playable_card_but_then_play_only_the_drawn_one() -> None:
    # 002 · Let's Play: "You may also choose NOT to play a playable card from your hand. If so,
    # you must draw ... however you may not play any other card from your hand after the draw."
    g, _ = rig(O3, [["r1"], [], []], "r7", draw=["g4"])
    act(g, "0 draw")
    assert "only the drawn card" in refused(g, f"0 r1#{slot_of(g, 0, 'r1')}").reason


# --------------------------------------------------------------------- action cards
def test_draw_two_next_draws_two_and_misses_turn() -> None:
    # 002 · Draw Two: "the next player must draw 2 cards and miss their turn."
    g, _ = rig(O3, [["r+2"], [], []], "r7")
    playf(g, 0, "r+2")
    assert g.turn == 1 and g.phase is Phase.PENALTY
    refused(g, "1 draw")
    act(g, "1 take")
    assert len(g.hands[1]) == 9 and g.turn == 2


def test_reverse_changes_direction() -> None:
    # 002 · Reverse: "the direction of play reverses"
    g, _ = rig(O4, [["rR"], [], [], []], "r7")
    playf(g, 0, "rR")
    assert g.direction == -1 and g.turn == 3


def test_skip_next_player_loses_turn() -> None:
    # 002 · Skip: "the next player is skipped (loses their turn)"
    g, _ = rig(O4, [["rS"], [], [], []], "r7")
    playf(g, 0, "rS")
    assert g.turn == 2


def test_two_players_reverse_acts_as_skip() -> None:
    # D5: with two players a Reverse acts like a Skip: its player plays again.
    g, _ = rig(O2, [["rR", "r3"], []], "r7", dealer=1)
    playf(g, 0, "rR")
    assert g.turn == 0
    playf(g, 0, "r3")
    assert g.turn == 1


def test_a_play_carries_the_cards_its_seat_has_left() -> None:
    # Not a rule: what the history prints after a play ("(2 left)"). Carried by the event, as
    # it was at the play: a history caught up later (a resumed node, a spectator) showed the
    # count at the time it was printed (docs/ui.md, "The history's cards left").
    g, _ = rig(O3, [["r3", "r4", "g5"], [], []], "r7")
    before = len(g.hands[0])
    events = playf(g, 0, "r3")
    play = next(e for e in events if e.kind == "play")
    assert play.value == before - 1 == len(g.hands[0])


# --------------------------------------------------------------------- Wild Draw Four
WD4_HAND_LEGAL = ["W+4", "g1", "g2", "y3", "y4", "g5", "y6"]
WD4_HAND_BLUFF = ["W+4", "r1", "g2", "y3", "y4", "g5", "y6"]


def test_wild_draw_four_next_draws_four() -> None:
    # 002 · Wild Draw Four: "the next player must draw 4 cards from the DRAW pile and lose
    # their turn"
    g, _ = rig(O3, [WD4_HAND_LEGAL, [], []], "r7")
    events = playf(g, 0, "W+4", ":g")
    assert next(e for e in events if e.kind == "play").bluff is False
    act(g, "1 take")
    assert len(g.hands[1]) == 11 and g.turn == 2 and g.color == COLORS.index("g")


def test_wild_draw_four_bluff_stands_unchallenged() -> None:
    # 002 · Wild Draw Four: "You may only play this card when you do NOT have another card in
    # your hand that matches the COLOR". The challenge is the remedy (D18): a bluff that is not
    # challenged stands, and the full-information engine marks it.
    g, _ = rig(O3, [WD4_HAND_BLUFF, [], []], "r7")
    events = playf(g, 0, "W+4", ":g")
    assert next(e for e in events if e.kind == "play").bluff is True
    act(g, "1 take")
    assert len(g.hands[1]) == 11


def test_matching_number_does_not_make_wild_draw_four_illegal() -> None:
    # 002 · Wild Draw Four: "it is acceptable to play this card if you have matching number or
    # Action Cards"
    g, _ = rig(O3, [["W+4", "g7", "y7", "gS", "b7", "g1", "y2"], [], []], "r7")
    events = playf(g, 0, "W+4", ":g")
    assert next(e for e in events if e.kind == "play").bluff is False


def test_after_a_wild_the_named_color_is_the_color_on_the_discard_pile() -> None:
    # 002 · Wild Draw Four: legality is checked against the COLOR in play; after a Wild that is
    # the named color.
    g, _ = rig(O3, [["W"], ["W+4", "r1", "g2", "g3", "g4", "g5", "g6"], []], "r7")
    playf(g, 0, "W", ":y")
    events = playf(g, 1, "W+4", ":g")
    assert next(e for e in events if e.kind == "play").bluff is False  # holds red, not yellow


def test_challenge_guilty_offender_draws_four_challenger_plays() -> None:
    # 002 · Wild Draw Four NOTE: "If guilty, the challenged player must draw the 4 cards instead
    # of you." D4: the challenger then takes their turn.
    g, _ = rig(O3, [WD4_HAND_BLUFF, [], []], "r7")
    playf(g, 0, "W+4", ":g")
    act(g, "1 challenge")
    assert g.phase is Phase.VERDICT
    assert [str(a) for a in g.turn_actions(1)] == ["1 guilty"]
    e = refused(g, "1 innocent")
    assert "false verdict" in e.reason and e.seat == 1
    act(g, "1 guilty")
    assert len(g.hands[0]) == 6 + 4 and len(g.hands[1]) == 7 and g.turn == 1


def test_challenge_innocent_challenger_draws_six() -> None:
    # 002 · Wild Draw Four NOTE: "if the challenger is innocent, you must draw the 4 cards PLUS
    # an additional 2 cards (6 total)!"
    g, _ = rig(O3, [WD4_HAND_LEGAL, [], []], "r7")
    playf(g, 0, "W+4", ":g")
    act(g, "1 challenge")
    refused(g, "1 guilty")
    act(g, "1 innocent")
    assert len(g.hands[1]) == 13 and len(g.hands[0]) == 6 and g.turn == 2


def test_partial_view_records_a_verdict_it_cannot_check_as_a_claim() -> None:
    # D15: nodes that never saw the hand record the verdict as a claim for the audit.
    full, _ = rig(O3, [WD4_HAND_BLUFF, [], []], "r7")
    order = [full.faces[s] for s in range(108)]
    # The bystander (seat 2): same dealer draw, an unknown deck, only public reveals.
    dd_order = dealer_draw_order(3, 2)
    part = Game(O3)
    part.shuffle(None)
    assert part.need is not None
    for slot in part.need.slots:
        part.reveal(slot, dd_order[slot], public=True)
    part.shuffle(None)
    start = full.discard[0]
    part.reveal(start, order[start], public=True)
    wd4 = slot_of(full, 0, "W+4")
    part.reveal(wd4, order[wd4], public=True)
    part.apply(parse_action(f"0 W+4#{wd4}:g"))
    part.apply(parse_action("1 challenge"))
    part.apply(parse_action("1 innocent"))  # a lie the bystander cannot see
    assert [c.guilty for c in part.claims] == [False]
    # The audit replays with full information and names the liar.
    playf(full, 0, "W+4", ":g")
    act(full, "1 challenge")
    with pytest.raises(IllegalAction) as e:
        act(full, "1 innocent")
    assert e.value.seat == 1


# --------------------------------------------------------------------- UNO
def test_uno_called_with_the_play_cannot_be_caught() -> None:
    # 002 · Going Out: "When you play your next-to-last card, you must yell UNO"
    g, _ = rig(O3, [["r1", "r2", "r3", "r4", "r5", "r6", "r8"], [], []], "r7")
    for face in ("r1", "r2", "r3", "r4", "r5"):
        playf(g, 0, face)
        g.turn = 0  # let seat 0 play on (a test shortcut: turn order is tested elsewhere)
        g.window = False
        g.vulnerable.clear()
    playf(g, 0, "r6", "!")
    assert g.vulnerable == set()
    assert "cannot be caught" in refused(g, "1 catch 0").reason


def _two_cards_left() -> Game:
    g, _ = rig(O3, [["r1", "r2"], [], []], "r7")
    # shrink seat 0's hand to two cards (r1, r2) by moving the filled cards to the draw pile
    keep = [slot_of(g, 0, "r1"), slot_of(g, 0, "r2")]
    for s in list(g.hands[0]):
        if s not in keep:
            g.hands[0].remove(s)
            g.draw.insert(0, s)
    return g


def test_forgetting_uno_and_being_caught_draws_two() -> None:
    # 002 · Going Out: "If you don't yell UNO and you are caught before the next player begins
    # their turn, you must draw two cards."
    g = _two_cards_left()
    playf(g, 0, "r1")
    assert g.vulnerable == {0}
    assert "cannot be caught" in refused(g, "0 catch 0").reason
    events = act(g, "2 catch 0")
    assert "caught" in kinds(events)
    assert len(g.hands[0]) == 3
    assert "cannot be caught" in refused(g, "1 catch 0").reason  # no double penalty


def test_uno_may_be_called_after_the_play_while_the_window_is_open() -> None:
    g = _two_cards_left()
    playf(g, 0, "r1")
    act(g, "0 uno")
    refused(g, "1 catch 0")


def test_catch_window_closes_when_the_next_player_begins_their_turn() -> None:
    g = _two_cards_left()
    playf(g, 0, "r1")
    act(g, "1 draw")
    assert "cannot be caught" in refused(g, "2 catch 0").reason
    assert "right after" in refused(g, "0 uno").reason


def test_catching_a_player_who_did_nothing_wrong_is_refused() -> None:
    # D10: a catch that is not valid is refused, so catching cannot be spammed.
    g, _ = rig(O3, [[], [], []], "r7")
    refused(g, "1 catch 0")
    refused(g, "1 catch 2")


def test_uno_flag_only_with_the_next_to_last_card() -> None:
    g, _ = rig(O3, [["r1"], [], []], "r7")
    assert "next-to-last" in refused(g, f"0 r1#{slot_of(g, 0, 'r1')}!").reason


# --------------------------------------------------------------------- going out and scoring
def _one_card(options: Options, last: str, others: list[list[str]], start: str = "r7") -> Game:
    g, _ = rig(options, [[last], *others], start)
    for s in list(g.hands[0]):
        if CARD_TEXT[g.faces[s]] != last:
            g.hands[0].remove(s)
            g.draw.insert(0, s)
    return g


def test_going_out_ends_the_round_and_scores_the_opponents_hands() -> None:
    # 002 · Going Out: "Once a player has no cards left, the round is over." 002 · Scoring:
    # "receives points for all of the cards left in their opponents' hands"
    hand1 = ["r1", "y2", "gS", "bR", "y+2", "W", "W+4"]
    hand2 = ["g9", "g8", "b0", "b1", "b2", "b3", "b4"]
    g = _one_card(O3, "r3", [hand1, hand2])
    events = playf(g, 0, "r3")
    points = (1 + 2 + 20 + 20 + 20 + 50 + 50) + (9 + 8 + 0 + 1 + 2 + 3 + 4)
    over = next(e for e in events if e.kind == "round-over")
    assert over.seat == 0 and over.value == points
    assert g.scores == [points, 0, 0]
    assert g.round_no == 2 and g.need is not None and g.dealer == 0  # D2: deal passes left


@pytest.mark.parametrize(("last", "extra"), [("r+2", 2), ("W+4", 4)])
def test_going_out_on_draw_two_or_wild_draw_four_next_player_draws(last: str, extra: int) -> None:
    # 002 · Going Out: "If the last card played in a round is a Draw Two or Wild Draw Four card,
    # the next player must draw the 2 or 4 cards respectively. These cards are counted when the
    # points are totaled." D8: no challenge, no stacking.
    g = _one_card(O3, last, [[], []])
    choose = ":g" if last.startswith("W") else ""
    events = playf(g, 0, last, choose)
    assert len(g.hands[1]) == 7 + extra  # hands stay on the table until the next deal
    over = next(e for e in events if e.kind == "round-over")
    assert over.value == g.hand_points(1) + g.hand_points(2)
    assert g.scores[0] == over.value


def test_alternative_scoring_lowest_total_wins() -> None:
    # 002 · Alternative Scoring and Winning: "keep a running tally of the points each player is
    # left with ... When one player reaches 500 points, the player with the lowest points is
    # the winner."
    opts = Options(players=3, scoring="lowest", target=60)
    hand1 = ["W", "W+4", "r1", "r2", "r3", "r4", "r5"]  # 115
    hand2 = ["g1", "g2", "g3", "g4", "g5", "g6", "g8"]  # 29
    g = _one_card(opts, "r6", [hand1, hand2])
    events = playf(g, 0, "r6")
    assert g.scores == [0, 115, 29]
    assert g.phase is Phase.GAME_OVER and g.winners == (0,)
    assert "game-over" in kinds(events)


def test_standard_game_ends_at_target() -> None:
    # 002 · Winning the Game: "The WINNER is the first player to reach 500 points."
    opts = Options(players=2, target=50)
    g = _one_card(opts, "r6", [["W", "r1"]])
    playf(g, 0, "r6")
    assert g.phase is Phase.GAME_OVER and g.winners == (0,)
    assert g.legal_actions(0) == [] and g.legal_actions(1) == []


# --------------------------------------------------------------------- reshuffle
def test_empty_draw_pile_reshuffles_the_discard_pile_under_its_top_card() -> None:
    # 002 · Going Out: "If no player is out of cards by the time the DRAW pile is depleted, the
    # DISCARD pile is reshuffled and play continues." (D7)
    g, _ = rig(O3, [["r1", "r2"], [], []], "r7")
    playf(g, 0, "r1")
    # empty the draw pile into nowhere-land for the test: move it under the discard pile
    g.discard[:0] = g.draw
    g.draw = []
    top = g.discard[-1]
    act(g, "1 draw")
    need = g.need
    assert need is not None and need.kind == "shuffle" and top not in need.sources
    cards = [g.faces[s] for s in need.sources]
    events = g.shuffle(cards)
    assert "reshuffle" in kinds(events)
    assert g.discard == [top] and g.phase is Phase.DRAWN
    assert sorted(g.card_census()) == list(range(108))


def test_both_piles_exhausted_draw_is_a_pass_and_a_full_cycle_blocks_the_round() -> None:
    # D6: both piles exhausted: nothing to draw ends the turn; a full cycle of that blocks the
    # round with no winner.
    g, _ = rig(O3, [["y1"], ["y2"], ["y3"]], "r7")
    g.draw = []
    events = act(g, "0 draw")
    assert "pass" in kinds(events) and g.turn == 1
    act(g, "1 draw")
    events = act(g, "2 draw")
    assert "blocked" in kinds(events)
    over = next(e for e in events if e.kind == "round-over")
    assert over.seat == -1 and g.scores == [0, 0, 0]


# --------------------------------------------------------------------- Progressive
PROG = Options(players=3, progressive=True)


def test_progressive_draw_two_stacks() -> None:
    # 001 · PROGRESSIVE UNO 1, 3: "the next player may play another Draw Two card, causing the
    # next player to draw 4 cards"
    g, _ = rig(PROG, [["r+2"], ["g+2"], []], "r7")
    playf(g, 0, "r+2")
    playf(g, 1, "g+2")
    assert g.turn == 2 and g.pending == 4
    act(g, "2 take")
    assert len(g.hands[2]) == 11 and g.turn == 0


def test_progressive_no_mixing_and_no_plain_play_on_a_stack() -> None:
    # D12: Draw Two only on Draw Two, Wild Draw Four only on Wild Draw Four.
    g, _ = rig(PROG, [["r+2"], ["W+4", "r5"], []], "r7")
    playf(g, 0, "r+2")
    assert "stacked" in refused(g, f"1 W+4#{slot_of(g, 1, 'W+4')}:g").reason
    refused(g, f"1 r5#{slot_of(g, 1, 'r5')}")


def test_draw_two_does_not_stack_without_progressive() -> None:
    g, _ = rig(O3, [["r+2"], ["g+2"], []], "r7")
    playf(g, 0, "r+2")
    refused(g, f"1 g+2#{slot_of(g, 1, 'g+2')}")


def test_progressive_wild_draw_four_last_stacker_names_color_and_challenge_scales() -> None:
    # 001 · PROGRESSIVE UNO 2: "causing the next player to draw 8 cards. The last player to play
    # a consecutive Wild Draw Four card calls the color ... the penalty will increase depending
    # on the number of cards played." D4: innocent -> total + 2.
    g, _ = rig(PROG, [["W+4", "g1"], ["W+4", "y1", "y2", "y3", "y4", "y5", "y6"], []], "r7")
    playf(g, 0, "W+4", ":g")
    playf(g, 1, "W+4", ":b")  # legal: seat 1 holds no green
    assert g.pending == 8 and g.color == COLORS.index("b")
    act(g, "2 challenge")
    act(g, "2 innocent")
    assert len(g.hands[2]) == 7 + 10


def test_progressive_guilty_offender_draws_the_stack() -> None:
    g, _ = rig(PROG, [["W+4", "g1"], ["W+4", "g2"], []], "r7")
    playf(g, 0, "W+4", ":g")
    playf(g, 1, "W+4", ":b")  # seat 1 holds green: illegal
    act(g, "2 challenge")
    act(g, "2 guilty")
    assert len(g.hands[1]) == 6 + 8 and g.turn == 2


# --------------------------------------------------------------------- Seven-O
SEVEN_O = Options(players=3, seven_o=True)


def test_seven_swaps_hands_with_a_chosen_player() -> None:
    # 001 · SEVEN-O 2: "the player who played the 7 card must trade their hand with another
    # player of their choice."
    g, _ = rig(SEVEN_O, [["r7"], ["g1", "g2"], []], "r3")
    before1 = list(g.hands[1])
    s = slot_of(g, 0, "r7")
    assert "must name another player" in refused(g, f"0 r7#{s}").reason
    refused(g, f"0 r7#{s}>0")
    act(g, f"0 r7#{s}>1")
    assert g.hands[0] == before1 and len(g.hands[1]) == 6


def test_zero_passes_every_hand_in_the_direction_of_play() -> None:
    # 001 · SEVEN-O 1: "all players pass their hands to the next player in direction of play."
    g, _ = rig(SEVEN_O, [["r0"], [], []], "r3")
    h = [list(x) for x in g.hands]
    h[0].remove(slot_of(g, 0, "r0"))
    playf(g, 0, "r0")
    assert g.hands == [h[2], h[0], h[1]]


def test_going_out_on_a_seven_makes_no_swap() -> None:
    # D9
    g = _one_card(SEVEN_O, "r7", [[], []], start="r3")
    events = act(g, f"0 r7#{slot_of(g, 0, 'r7')}")
    assert "swap" not in kinds(events) and "round-over" in kinds(events)


def test_seven_without_seven_o_names_nobody() -> None:
    g, _ = rig(O3, [["r7"], [], []], "r3")
    refused(g, f"0 r7#{slot_of(g, 0, 'r7')}>1")


# --------------------------------------------------------------------- Jump-In
JUMP = Options(players=4, jump_in=True)


def test_jump_in_with_an_identical_card_play_resumes_from_the_jumper() -> None:
    # 001 · JUMP-IN: "If you are holding the exact same card (identical color and number) as the
    # card on top of Discard Pile, you may play it immediately, regardless of whose turn it is.
    # ... Play resumes from the player who played the last card"
    g, _ = rig(JUMP, [["b6"], [], ["b6"], []], "b2")
    playf(g, 0, "b6")
    assert g.turn == 1
    playf(g, 2, "b6", jump=True)
    assert g.turn == 3


def test_jump_in_needs_the_identical_card() -> None:
    g, _ = rig(JUMP, [["b6"], [], ["g6", "b5"], []], "b2")
    playf(g, 0, "b6")
    assert "identical" in refused(g, f"2 jump g6#{slot_of(g, 2, 'g6')}").reason
    refused(g, f"2 jump b5#{slot_of(g, 2, 'b5')}")


def test_no_jump_in_on_the_start_card_or_after_the_next_turn_began() -> None:
    # D11
    g, _ = rig(JUMP, [["y1"], [], ["b2"], []], "b2")
    refused(g, f"2 jump b2#{slot_of(g, 2, 'b2')}")
    g, _ = rig(JUMP, [["b6"], [], ["b6"], []], "b2")
    playf(g, 0, "b6")
    act(g, "1 draw")
    refused(g, f"2 jump b6#{slot_of(g, 2, 'b6')}")


def test_jump_in_not_allowed_without_the_house_rule() -> None:
    g, _ = rig(O4, [["b6"], [], ["b6"], []], "b2")
    playf(g, 0, "b6")
    assert "not in play" in refused(g, f"2 jump b6#{slot_of(g, 2, 'b6')}").reason


def test_jumped_skip_cancels_the_first() -> None:
    # 001 · JUMP-IN 2: "If you jump in with a Skip, Reverse, Draw Two or Wild Draw Four, the
    # second identical card played cancels out the first. (Follow normal UNO card game rules for
    # these cards beginning with the player who played the second identical card.)"
    g, _ = rig(JUMP, [["bS"], [], ["bS"], []], "b2")
    playf(g, 0, "bS")
    assert g.turn == 2
    playf(g, 2, "bS", jump=True)
    assert g.turn == 0  # skips seat 3, from seat 2


def test_jumped_draw_two_cancels_the_first_and_falls_on_the_player_after_the_jumper() -> None:
    g, _ = rig(JUMP, [["b+2"], [], ["b+2"], []], "b2")
    playf(g, 0, "b+2")
    assert g.turn == 1 and g.pending == 2
    playf(g, 2, "b+2", jump=True)
    assert g.turn == 3 and g.pending == 2
    act(g, "3 take")
    assert len(g.hands[1]) == 7 and len(g.hands[3]) == 9


def test_jumped_reverse_cancels_the_first() -> None:
    g, _ = rig(JUMP, [["bR"], [], ["bR"], []], "b2")
    playf(g, 0, "bR")
    assert g.direction == -1 and g.turn == 3
    playf(g, 2, "bR", jump=True)
    assert g.direction == -1 and g.turn == 1


def test_back_to_back_identical_cards_by_the_same_player() -> None:
    # 001 · JUMP-IN 1: "If you have 2 matching cards in your hand, you may play them back-to-back,
    # but they must be played one at a time"
    g, _ = rig(JUMP, [["g4", "g4"], [], [], []], "g2")
    playf(g, 0, "g4")
    playf(g, 0, "g4", jump=True)
    assert g.turn == 1 and len(g.hands[0]) == 5


def test_progressive_and_jump_in_the_stack_moves_on() -> None:
    # D13: a jumped Draw Two cancels the covered one's part of the stack and adds its own.
    opts = Options(players=4, progressive=True, jump_in=True)
    g, _ = rig(opts, [["b+2"], ["g+2"], [], ["g+2"]], "b2")
    playf(g, 0, "b+2")
    playf(g, 1, "g+2")
    assert g.pending == 4 and g.turn == 2
    playf(g, 3, "g+2", jump=True)
    assert g.pending == 4 and g.turn == 0
