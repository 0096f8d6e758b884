"""A node's whole view holds no plaintext point and no key set opening a position not its own."""

from __future__ import annotations

from p2puno.crypto import KeyRelease, ShowMessage, ShuffleStep, card_point
from p2puno.crypto._group import ORDER, InvalidPointError, encrypt_one, inverse
from p2puno.crypto.shuffle import decrypt_show
from tests.crypto.crypto_table import Table

N = 4


def test_view_of_each_node_reveals_only_its_own_cards() -> None:
    table = Table(N, seed=b"privacy")
    table.setup()
    hands = table.deal_hands(7)
    starter = 7 * N
    table.reveal(starter)
    # Wild Draw Four challenge: player 0 shows its hand to player 2 only
    shown_to_2 = hands[0][:7]
    show = table.show(0, 2, shown_to_2)
    assert table.views[2].open_show(show, table.secrets[2]) == {
        p: table.views[0].faces[p] for p in shown_to_2
    }
    points = {card_point(c) for c in range(108)}
    final = table.views[0].deck

    for me in range(N):
        secrets = table.secrets[me]
        my_x = secrets.reveal().x25519_private
        known: dict[int, dict[int, int]] = {}  # position -> owner -> key
        for msg in table.inbox[me]:
            if isinstance(msg, ShuffleStep):
                assert points.isdisjoint(msg.deck), "a plaintext card point travelled"
            elif isinstance(msg, KeyRelease):
                known.setdefault(msg.position, {})[msg.owner] = msg.key
            elif isinstance(msg, ShowMessage):
                entries = decrypt_show(msg, my_x)
                if msg.recipient != me:
                    assert entries is None, "a show opened for someone else"
                    continue
                assert entries is not None
                for pos, owner, (key, _) in zip(msg.positions, msg.owners, entries, strict=True):
                    known.setdefault(pos, {})[owner] = key
        entitled = set(hands[me]) | {starter} | (set(shown_to_2) if me == 2 else set())
        for pos in range(108):
            keys = dict(known.get(pos, {}))
            keys[me] = secrets.reveal().keys[pos]
            if pos in entitled:
                assert len(keys) == N
                continue
            assert len(keys) < N, f"node {me} holds every key of position {pos}"
            product = 1
            for k in keys.values():
                product = product * k % ORDER
            try:
                x = encrypt_one(inverse(product), final[pos])
            except InvalidPointError:  # pragma: no cover - never an invalid point here
                continue
            assert x not in points
        # the engine-facing result agrees: a node knows exactly the faces it is entitled to
        assert set(table.views[me].faces) == entitled


def test_phase1_keys_never_leave_their_owner_before_the_reveal() -> None:
    table = Table(3, cards=range(20), seed=b"phase1")
    table.setup()
    table.deal_hands(3)
    k1s = {s.reveal().phase1_key for s in table.secrets}
    for inbox in table.inbox:
        for msg in inbox:
            if isinstance(msg, KeyRelease):
                assert msg.key not in k1s


def test_seven_o_hands_go_round_and_only_the_holder_sees_them() -> None:
    """Seven-O: 0 passes its hand to 1, then 1 passes both hands on to 2 (forwarding 0's keys)."""
    table = Table(4, cards=range(24), seed=b"seven-o")
    table.setup()
    hands = table.deal_hands(3)
    h0, h1 = hands[0], hands[1]
    first = table.show(0, 1, h0)
    seen_by_1 = table.views[1].open_show(first, table.secrets[1])
    assert seen_by_1 == {p: table.views[0].faces[p] for p in h0}
    forward = [table.views[1].shown_release(p, 0) for p in h0]
    pub2 = table.views[1].commitment(2).x25519_public
    second = table.secrets[1].show(pub2, 2, h1, forward=forward)
    table.broadcast(second, lambda v, m: v.add_show(m))
    assert set(zip(second.positions, second.owners, strict=True)) == {(p, 0) for p in h0} | {
        (p, 1) for p in h1
    }
    seen_by_2 = table.views[2].open_show(second, table.secrets[2])
    assert seen_by_2 == {
        p: table.views[0].faces.get(p, table.views[1].faces.get(p)) for p in h0 + h1
    }
    # player 3 learned none of it; player 2 can now play a card of 0's first hand
    assert not set(table.views[3].faces) & set(h0 + h1)
    table.release(0, h0[0], table.views[2].shown_release(h0[0], 0))
    assert table.views[3].reveal(h0[0]) == table.views[0].faces[h0[0]]
    # and the whole record still audits clean, shows included
    from p2puno.crypto import audit

    assert audit(table.views[3].record(), table.reveals()).ok


def test_forwarding_a_wrong_key_is_blamed_on_the_forwarder() -> None:
    import dataclasses

    from p2puno.crypto import Fault, VerificationError, audit

    table = Table(3, cards=range(12), seed=b"forward-lie")
    table.setup()
    table.deal_hands(2)
    first = table.show(0, 1, [0])
    table.views[1].open_show(first, table.secrets[1])
    good = table.views[1].shown_release(0, 0)
    bad = dataclasses.replace(good, key=good.key + 1)
    pub2 = table.views[1].commitment(2).x25519_public
    second = table.secrets[1].show(pub2, 2, [1], forward=[bad])
    table.broadcast(second, lambda v, m: v.add_show(m))
    try:
        table.views[2].open_show(second, table.secrets[2])
        raise AssertionError("not caught")
    except VerificationError as err:
        assert err.verdict is None
    verdict = audit(table.views[0].record(), table.reveals(), accuser=2).verdict
    assert verdict is not None and (verdict.player, verdict.fault) == (1, Fault.BAD_SHOW)
