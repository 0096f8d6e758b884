"""The audit takes the cards a node opened as proven: fewer multiplications, the same verdicts."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest

from p2puno.crypto import Parent, ShuffleStep
from p2puno.crypto import audit as real_audit
from tests.crypto.crypto_table import Table, audit

audit_module = importlib.import_module("p2puno.crypto.audit")  # the module, not the function


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    counted = [0]
    real = audit_module.encrypt_each

    def encrypt_each(ks: Any, xs: Any) -> Any:
        counted[0] += len(xs)
        return real(ks, xs)

    monkeypatch.setattr(audit_module, "encrypt_each", encrypt_each)
    return counted


def test_opened_cards_are_not_multiplied_again(monkeypatch: pytest.MonkeyPatch) -> None:
    table = Table(4, seed=b"openings")
    table.setup()
    table.deal_hands(7)
    for pos in range(28, 60):
        table.reveal(pos)
    record, reveals = table.views[1].record(), table.reveals()
    opened = table.views[1].openings()
    assert set(opened) == set(range(1, 28, 4)) | set(range(28, 60))  # its hand, the public cards
    counted = _counting(monkeypatch)
    plain = real_audit(record, reveals)
    assert counted[0] == 108
    counted[0] = 0
    assert real_audit(record, reveals, opened=opened) == plain
    assert plain.ok
    assert counted[0] == 108 - len(opened)


def test_openings_that_prove_nothing_are_multiplied() -> None:
    """Openings that do not fit the position (another product, point or final entry) are not
    taken: the audit multiplies or replays step by step, and reaches the same result."""
    table = Table(3, cards=range(20), seed=b"forged-openings")
    table.setup()
    for pos in range(20):
        table.reveal(pos)
    record, reveals = table.views[0].record(), table.reveals()
    plain = audit(record, reveals)
    assert plain.ok
    good = table.views[0].openings()
    k, x, f = good[3]
    for forged in ((k + 1, x, f), (k, good[4][1], f), (k, x, good[4][2])):
        assert real_audit(record, reveals, opened={**good, 3: forged}) == plain


def _false_final_step(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
    if (step.phase, step.player) != (2, 0):
        return step
    deck = list(step.deck)
    deck[5], deck[6] = deck[6], deck[5]  # two cards change places: nobody can tell until the end
    return dataclasses.replace(step, deck=tuple(deck))


def test_a_false_shuffle_gets_the_same_verdict_with_openings() -> None:
    table = Table(3, cards=range(20), seed=b"false-last-step")
    table.setup(_false_final_step)
    for pos in range(20):
        if pos not in (5, 6):
            table.reveal(pos)
    record, reveals = table.views[2].record(), table.reveals()
    plain = audit(record, reveals)
    assert not plain.ok and plain.verdict is not None and plain.verdict.player == 0
    for view in table.views:
        assert real_audit(record, reveals, opened=view.openings()) == plain


def test_a_hidden_reshuffle_gets_the_same_result_with_openings() -> None:
    first = Table(3, cards=range(30), seed=b"first-openings")
    first.setup()
    first.deal_hands(3)
    w4 = first.reveal(9)[0]
    reveals = {r.player: r for r in first.reveals()}
    base = real_audit(first.views[0].record(), reveals, opened=first.views[0].openings())
    assert base == audit(first.views[0].record(), reveals)
    assert base.faces is not None
    parent = Parent(first.views[0].record(), reveals, base.faces)
    second = Table(3, cards=[w4], seed=b"second-openings", parent=first, hidden=range(10, 30))
    second.setup()
    for pos in range(second.spec.size):
        second.reveal(pos)
    record, reveals2 = second.views[1].record(), second.reveals()
    plain = audit(record, reveals2, parent=parent)
    assert plain.ok
    assert real_audit(record, reveals2, parent=parent, opened=second.views[1].openings()) == plain
