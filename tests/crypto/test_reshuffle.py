"""Hidden reshuffle: a Wild Draw Four turned up at the start goes back into the undealt deck."""

from __future__ import annotations

import dataclasses

import pytest

from p2puno.crypto import (
    CryptoStateError,
    Fault,
    Parent,
    ShuffleStep,
    VerificationError,
    card_point,
)
from p2puno.crypto._group import ORDER, encrypt_one, inverse
from tests.crypto.crypto_table import Table, audit

N = 3
HAND = 3
DECK = 30


def _deal_and_flip() -> tuple[Table, int, int]:
    first = Table(N, cards=range(DECK), seed=b"first")
    first.setup()
    first.deal_hands(HAND)
    starter = HAND * N
    return first, starter, first.reveal(starter)[0]


def _parent(table: Table) -> Parent:
    reveals = {r.player: r for r in table.reveals()}
    result = audit(table.views[0].record(), reveals)
    assert result.ok and result.faces is not None
    return Parent(table.views[0].record(), reveals, result.faces)


def test_wild_draw_four_goes_back_where_no_one_knows() -> None:
    first, starter, w4 = _deal_and_flip()
    undealt = list(range(starter + 1, DECK))
    second = Table(N, cards=[w4], seed=b"second", parent=first, hidden=undealt)
    second.setup()
    assert second.spec.size == len(undealt) + 1
    # the undealt positions of the first shuffle are gone for good
    with pytest.raises(CryptoStateError):
        first.views[0].reveal(undealt[0])
    # no step carries the W4's point or any card point in the clear
    points = {card_point(c) for c in range(DECK)}
    for step in second.views[0].steps:
        assert points.isdisjoint(step.deck)
    faces = [second.reveal(i)[0] for i in range(second.spec.size)]
    parent = _parent(first)
    assert sorted(faces) == sorted([parent.faces[p] for p in undealt] + [w4])
    result = audit(second.views[1].record(), second.reveals(), parent=parent)
    assert result.ok, result.faults
    assert result.faces == tuple(faces)
    # the hands dealt from the first shuffle are untouched and still private
    for p in range(N):
        assert len(first.views[p].faces) == HAND + 1


def test_rekey_cheat_is_named() -> None:
    first, starter, w4 = _deal_and_flip()
    undealt = list(range(starter + 1, DECK))
    second = Table(N, cards=[w4], seed=b"rekey-cheat", parent=first, hidden=undealt)

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        if (step.phase, step.player) != (0, 1):
            return step
        deck = list(step.deck)
        deck[2] = encrypt_one(12345, deck_in[2])
        return dataclasses.replace(step, deck=tuple(deck))

    second.commit()
    second.shuffle(tamper)
    with pytest.raises(VerificationError):
        for i in range(second.spec.size):
            second.reveal(i)
    result = audit(second.views[2].record(), second.reveals(), parent=_parent(first), accuser=0)
    assert result.verdict is not None
    assert (result.verdict.player, result.verdict.fault) == (1, Fault.BAD_SHUFFLE)


def test_card_still_in_a_hand_cannot_come_back() -> None:
    """If every seat colluded to copy a dealt card into the reshuffle, its holder sees it."""
    first, starter, w4 = _deal_and_flip()
    mine = first.views[0].faces[0]  # position 0 was dealt to player 0
    parent_final = first.views[0].deck
    undealt = list(range(starter + 1, DECK))
    second = Table(N, cards=[w4], seed=b"dup-hand", parent=first, hidden=undealt)
    us = [s.reveal().rekey_key for s in second.secrets]
    bs = [s.reveal().keys[0] for s in first.secrets]

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        if step.phase != 0:
            return step
        j = step.player
        u = us[j]
        assert u is not None
        src = parent_final[0] if j == 0 else deck_in[2]
        deck = list(step.deck)
        deck[2] = encrypt_one(u * inverse(bs[j]) % ORDER, src)
        return dataclasses.replace(step, deck=tuple(deck))

    second.setup(tamper)
    found = None
    for i in range(second.spec.size):
        for q in range(N):
            if q not in second.views[0].released(i):
                second.release(q, i)
        if i in second.views[0].faces:
            continue
        # the public reveal is judged on public openings only (every node must agree)...
        cards = [view.reveal(i) for view in second.views]
        # ...and the holder, who alone has seen the card in its hand, finds the clash
        found = second.views[0].clash(cards[0], i)
        if found is not None:
            assert cards[0] == mine
            assert [v.clash(cards[0], i) for v in second.views[1:]] == [None] * (N - 1)
            break
    assert found is not None and "was opened at 0 of shuffle" in found


def test_hidden_reshuffle_needs_its_parent() -> None:
    first, starter, w4 = _deal_and_flip()
    second = Table(N, cards=[w4], seed=b"orphan", parent=first, hidden=[starter + 1])
    second.setup()
    with pytest.raises(CryptoStateError):
        audit(second.views[0].record(), second.reveals())
    with pytest.raises(CryptoStateError):  # an opened position cannot be hidden again
        Table(N, cards=[w4], seed=b"again", parent=first, hidden=[0])


def test_public_reveal_of_a_card_seen_privately_elsewhere() -> None:
    """A card dealt to one seat and, by a bad shuffle, also at a public position: the public
    reveal succeeds on every node alike, and only the holder's clash() reports it."""
    table = Table(N, seed=b"clash")
    table.setup()
    mine = table.deal(0, 1)  # position 0 dealt to seat 1
    # every node reveals position 5 publicly: no node but the holder knows position 0's card
    revealed = table.reveal(5)
    assert len(set(revealed)) == 1
    assert all(v.clash(revealed[0], 5) is None for v in table.views)
    assert table.views[1].clash(mine, 5) == f"card {mine} at position 5 was opened at 0"
    assert table.views[1].clash(mine, 0) is None
