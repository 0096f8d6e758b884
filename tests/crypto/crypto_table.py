"""Test harness: a whole table of players running one shuffle in memory (no network)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2puno.crypto import (
    DeterministicRng,
    KeyRelease,
    SecretReveal,
    ShowMessage,
    ShuffleSecrets,
    ShuffleSpec,
    ShuffleStep,
    ShuffleView,
)

Tamper = Callable[[ShuffleStep, tuple[bytes, ...]], ShuffleStep]


def make_spec(
    n: int,
    cards: Sequence[int] = range(108),
    sid: bytes = b"t",
    parent: ShuffleSpec | None = None,
    hidden: Sequence[int] = (),
) -> ShuffleSpec:
    pid = None if parent is None else parent.shuffle_id
    return ShuffleSpec(sid.ljust(32, b"\0"), n, tuple(cards), pid, tuple(hidden))


@dataclass
class Table:
    n: int
    cards: Sequence[int] = range(108)
    seed: bytes = b"table"
    parent: Table | None = None
    hidden: Sequence[int] = ()
    spec: ShuffleSpec = field(init=False)
    secrets: list[ShuffleSecrets] = field(init=False)
    views: list[ShuffleView] = field(init=False)
    inbox: list[list[Any]] = field(init=False)

    def __post_init__(self) -> None:
        par = self.parent
        self.spec = make_spec(
            self.n, self.cards, self.seed, None if par is None else par.spec, self.hidden
        )
        rng = DeterministicRng(self.seed)
        self.secrets = [
            ShuffleSecrets.generate(self.spec, p, rng, None if par is None else par.secrets[p])
            for p in range(self.n)
        ]
        self.views = [
            ShuffleView(self.spec, None if par is None else par.views[p]) for p in range(self.n)
        ]
        self.inbox = [[] for _ in range(self.n)]

    def replace_secrets(self, player: int, reveal: SecretReveal) -> None:
        self.secrets[player] = ShuffleSecrets.from_reveal(
            self.spec,
            reveal,
            DeterministicRng(self.seed + bytes([player])),
            None if self.parent is None else self.parent.secrets[player],
        )

    def broadcast(self, msg: Any, apply: Callable[[ShuffleView, Any], None]) -> None:
        for p, view in enumerate(self.views):
            self.inbox[p].append(msg)
            apply(view, msg)

    def commit(self) -> None:
        for s in self.secrets:
            self.broadcast(s.commitment(), ShuffleView.add_commitment)

    def shuffle(self, tamper: Tamper | None = None, *, check_points: bool = False) -> None:
        """Every step; ``tamper(honest_step, input_deck)`` may swap a step for another."""
        view = self.views[0]
        while (nxt := view.next_step) is not None:
            deck_in = view.deck
            step = self.secrets[nxt[1]].step(view)
            if tamper is not None:
                step = tamper(step, deck_in)
            for p, v in enumerate(self.views):
                self.inbox[p].append(step)
                v.add_step(step, check_points=check_points)

    def setup(self, tamper: Tamper | None = None) -> None:
        self.commit()
        self.shuffle(tamper)

    def release(self, owner: int, position: int, release: KeyRelease | None = None) -> None:
        rel = self.secrets[owner].release(position) if release is None else release
        self.broadcast(rel, ShuffleView.add_release)

    def deal(self, position: int, to: int) -> int:
        for q in range(self.n):
            if q != to:
                self.release(q, position)
        return self.views[to].open(position, self.secrets[to])

    def deal_hands(self, hand: int = 7) -> list[list[int]]:
        """Deal ``hand`` cards to each player round-robin from position 0; returns positions."""
        hands: list[list[int]] = [[] for _ in range(self.n)]
        for j in range(hand * self.n):
            hands[j % self.n].append(j)
            self.deal(j, j % self.n)
        return hands

    def reveal(self, position: int) -> list[int]:
        for q in range(self.n):
            if q not in self.views[0].released(position):
                self.release(q, position)
        return [v.reveal(position) for v in self.views]

    def show(self, sender: int, recipient: int, positions: Sequence[int]) -> ShowMessage:
        pub = self.views[sender].commitment(recipient).x25519_public
        msg = self.secrets[sender].show(pub, recipient, positions)
        self.broadcast(msg, ShuffleView.add_show)
        return msg

    def reveals(self) -> list[SecretReveal]:
        return [s.reveal() for s in self.secrets]


def audit(record: Any, reveals: Any, **kwargs: Any) -> Any:
    """:func:`p2puno.crypto.audit`, run three ways: the default (composed check, step-by-step
    replay only to name a culprit) must reach exactly the thorough audit's result, and so must
    the default sharing its work with a thread pool; every test that audits through this
    checks all three on its cheat."""
    from concurrent.futures import ThreadPoolExecutor

    from p2puno.crypto import audit as real_audit

    fast = real_audit(record, reveals, **kwargs)
    thorough = real_audit(record, reveals, thorough=True, **kwargs)
    assert fast == thorough, (fast, thorough)
    with ThreadPoolExecutor(1) as pool:  # the composed check and the shows split in two
        shared = real_audit(record, reveals, executor=pool, **kwargs)
    assert shared == fast, (shared, fast)
    return fast
