"""Property tests (hypothesis) for the engine invariants: card conservation, determinism, and
legal-move soundness (every action legal_actions offers is accepted; every other is refused
without changing the state)."""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2puno.engine import Game, IllegalAction, Options, Phase
from p2puno.engine.actions import Action, Kind
from p2puno.engine.cards import DECK_SIZE

options_st = st.builds(
    Options,
    players=st.integers(2, 10),
    progressive=st.booleans(),
    seven_o=st.booleans(),
    jump_in=st.booleans(),
    scoring=st.sampled_from(["standard", "lowest"]),
    target=st.integers(50, 300),
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def all_legal(g: Game) -> list[Action]:
    return [a for s in range(g.players) for a in g.legal_actions(s)]


def feed(g: Game, rng: random.Random) -> None:
    need = g.need
    assert need is not None and need.kind == "shuffle"
    cards = list(range(DECK_SIZE)) if not need.sources else [g.faces[s] for s in need.sources]
    rng.shuffle(cards)
    g.shuffle(cards)


def run(opts: Options, seed: int, steps: int, on_step=None) -> Game:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    g = Game(opts)
    for _ in range(steps):
        if g.phase is Phase.GAME_OVER:
            break
        if g.need is not None:
            feed(g, rng)
            continue
        legal = all_legal(g)
        assert legal, "a running game always offers someone an action"
        a = rng.choice(legal)
        if on_step is not None:
            on_step(g, a, rng)
        g.apply(a)
    return g


@SETTINGS
@given(options_st, st.integers(0, 2**32), st.integers(1, 1500))
def test_cards_are_conserved(opts: Options, seed: int, steps: int) -> None:
    def check(g: Game, a: Action, rng: random.Random) -> None:
        census = g.card_census()
        assert sorted(census) == list(range(DECK_SIZE)), "108 cards, no duplicates, none lost"
        slots = [*g.draw, *g.discard, *(s for h in g.hands for s in h)]
        assert len(set(slots)) == len(slots), "no slot in two places"

    run(opts, seed, steps, check)


@SETTINGS
@given(options_st, st.integers(0, 2**32), st.integers(1, 800))
def test_engine_is_deterministic(opts: Options, seed: int, steps: int) -> None:
    a = run(opts, seed, steps)
    b = run(opts, seed, steps)
    assert a.digest() == b.digest()
    assert a == b


def candidates(g: Game, rng: random.Random) -> list[Action]:
    """Actions from a broad space around the current state: legal ones and near misses."""
    n = g.players
    slots = [s for h in g.hands for s in h][:30] + g.draw[-3:] + g.discard[-2:] + [999]
    out: list[Action] = []
    for _ in range(40):
        seat = rng.randrange(-1, n + 1)
        kind = rng.choice(list(Kind))
        slot = rng.choice(slots)
        c = g.faces[slot] if 0 <= slot < len(g.faces) else 0
        color = rng.choice([-1, 0, 1, 2, 3])
        rank = rng.randrange(-1, 15)
        if rng.random() < 0.6 and c >= 0:  # mostly the true face, so many are near-legal
            from p2puno.engine.cards import CARD_COLOR, CARD_RANK

            color, rank = CARD_COLOR[c], CARD_RANK[c]
        choose = rng.choice([-1, -1, 0, 1, 2, 3, 4])
        target = rng.choice([-1, -1, 0, 1, n - 1, n])
        uno = rng.random() < 0.3
        if kind not in (Kind.PLAY, Kind.JUMP):  # the canonical form of a card-less action
            slot, color, rank, uno = -1, -1, -1, False
            choose = choose if kind is Kind.COLOR else -1
            target = target if kind is Kind.CATCH else -1
        out.append(Action(seat, kind, slot, color, rank, choose, target, uno))
    return out


# (as many examples as the others since one copy of the game serves every refusal of a step:
# a copy per candidate made it the suite's longest test, 22-41 s for 12 examples)
@SETTINGS
@given(options_st, st.integers(0, 2**32), st.integers(1, 600))
def test_legal_actions_are_sound_and_complete(opts: Options, seed: int, steps: int) -> None:
    def check(g: Game, chosen: Action, rng: random.Random) -> None:
        if rng.random() < 0.8:  # deep copies are slow: check one step in five
            return
        legal = all_legal(g)
        legal_set = set(legal)
        assert len(legal_set) == len(legal), "no action offered twice"
        for a in rng.sample(legal, min(len(legal), 4)):
            h = copy.deepcopy(g)
            h.apply(a)  # accepted
        before = copy.deepcopy(g)  # (one copy for every refusal: each must leave g as it was)
        for a in candidates(g, rng):
            if a in legal_set:
                assert g.is_legal(a)
                continue
            try:
                g.apply(a)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"{a} was accepted but not offered")
            assert g == before, f"refusing {a} changed the state"

    run(opts, seed, steps, check)


@SETTINGS
@given(options_st, st.integers(0, 2**32), st.integers(1, 1500))
def test_reactors_are_the_seats_with_reactions(opts: Options, seed: int, steps: int) -> None:
    """``reactors()`` (cheap) names exactly the seats that ``reactions`` offers something,
    and the draw pile is always the slots from its top to the deck's end (which it uses)."""

    def check(g: Game, a: Action, rng: random.Random) -> None:
        assert g.reactors() == [s for s in range(g.players) if g.reactions(s)]
        if g.draw:
            assert g.draw == list(range(len(g.faces) - 1, g.draw[-1] - 1, -1))

    run(opts, seed, steps, check)
