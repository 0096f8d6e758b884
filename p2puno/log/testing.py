"""TEST ONLY: build valid games from public seeds (tests, protocol vectors, benchmarks).

The keys come from :meth:`Identity.from_test_seed`, so anyone can forge these games.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from p2puno.log.entry import ACCEPT_KIND
from p2puno.log.identity import Identity
from p2puno.log.log import Log, make_genesis
from p2puno.wire import JSONValue

__all__ = ["SampleGame", "build_game"]


@dataclass
class SampleGame:
    identities: list[Identity]
    log: Log
    entries: list[bytes] = field(default_factory=list)  # in acceptance order

    def add(self, raw: bytes) -> bytes:
        self.log.add(raw)
        self.entries.append(raw)
        return raw

    def step(self, proposer: int, kind: str = "play", body: JSONValue = None) -> None:
        """One full step: a proposal by ``proposer`` and an ack from every other seat."""
        self.add(self.log.propose(self.identities[proposer], proposer, kind, body or {}))
        for seat, ident in enumerate(self.identities):
            if seat != proposer:
                self.add(self.log.respond(ident, seat, "ack", {}))


def build_game(
    players: int, steps: int = 0, *, seed: bytes = b"p2puno test", host: int = 0
) -> SampleGame:
    """Genesis by ``host``, every accept, then ``steps`` steps proposed in seat order."""
    ids = [Identity.from_test_seed(seed + b"/seat/" + str(i).encode()) for i in range(players)]
    roster = [ident.player(f"player{i}") for i, ident in enumerate(ids)]
    nonces = [hashlib.sha256(b"test nonce\x00%d\x00" % i + seed).digest() for i in range(players)]
    game = SampleGame(ids, Log())
    game.add(make_genesis(ids[host], host, roster, {"rules": "test"}, nonces))
    for seat, ident in enumerate(ids):
        if seat != host:
            game.add(game.log.respond(ident, seat, ACCEPT_KIND, {}))
    for n in range(steps):
        game.step((host + 1 + n) % players, "play", {"n": n})
    return game
