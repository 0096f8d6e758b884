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
                for pos, (key, _) in zip(msg.positions, entries, strict=True):
                    known.setdefault(pos, {})[msg.sender] = key
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
