"""Full shuffle, deal of 7 cards to each of N players, reveal of the rest: the exact deck."""

from __future__ import annotations

import importlib

import pytest

from p2puno.crypto import ShuffleRecord
from tests.crypto.crypto_table import Table, audit


@pytest.mark.parametrize("n", range(2, 11))
def test_full_round_trip(n: int) -> None:
    table = Table(n, seed=b"roundtrip-%d" % n)
    table.setup()
    hands = table.deal_hands(7)
    seen = {}
    for p, positions in enumerate(hands):
        for pos in positions:
            seen[pos] = table.views[p].faces[pos]
            # no other node learned it
            assert all(pos not in v.faces for q, v in enumerate(table.views) if q != p)
    for pos in range(7 * n, 108):
        faces = table.reveal(pos)
        assert len(set(faces)) == 1
        seen[pos] = faces[0]
    assert sorted(seen.values()) == list(range(108))

    record = table.views[n - 1].record()
    assert ShuffleRecord.from_bytes(record.canonical_bytes()) == record
    result = audit(record, table.reveals())
    assert result.ok, result.faults
    assert result.faces == tuple(seen[i] for i in range(108))


def test_an_honest_audit_needs_no_step_by_step_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """The composed check (one layer per position) clears an honest shuffle on its own; the
    step-by-step replay ((2n-1) layers per position) is only for naming a culprit."""
    from p2puno.crypto import audit as real_audit

    audit_module = importlib.import_module("p2puno.crypto.audit")  # the module, not the function

    table = Table(4, seed=b"composed")
    table.setup()
    record, reveals = table.views[0].record(), table.reveals()

    def no_replay(task: object) -> object:
        raise AssertionError("step-by-step replay of an honest shuffle")

    monkeypatch.setattr(audit_module, "_replay", no_replay)
    result = real_audit(record, reveals)
    assert result.ok and result.faces is not None
    with pytest.raises(AssertionError, match="step-by-step"):
        real_audit(record, reveals, thorough=True)


def test_reshuffle_of_a_subset() -> None:
    """A reshuffle takes any list of card ids (e.g. a discard pile), in any order."""
    cards = [107, 3, 55, 20, 99]
    table = Table(3, cards=cards, seed=b"subset")
    table.setup()
    got = [table.reveal(i)[0] for i in range(len(cards))]
    assert sorted(got) == sorted(cards)
    assert audit(table.views[0].record(), table.reveals()).faces == tuple(got)


def test_one_card_dealt_costs_one_layer_for_the_recipient() -> None:
    """The recipient strips every layer at once: opening needs no further message."""
    table = Table(5, cards=range(10), seed=b"one-layer")
    table.setup()
    card = table.deal(4, 2)
    assert table.views[2].faces == {4: card}
    assert table.views[0].faces == {}
