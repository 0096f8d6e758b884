"""In-process table: N sessions whose entries are routed in memory (no sockets).

Used by the tests, the benchmark and the demo; the transport will carry the same bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from p2puno.bots import make_bot
from p2puno.crypto import DeterministicRng, Rng, SystemRng
from p2puno.engine import Options
from p2puno.log import Identity, Log, make_genesis
from p2puno.session.session import Session, options_to_obj

Tamper = Callable[[int, bytes], bytes | None]


class LocalTable:
    """``players`` bot sessions; ``seed`` makes keys, shuffles and bots reproducible (tests)."""

    def __init__(
        self,
        options: Options,
        *,
        seed: str | None = "table",
        bots: list[str] | None = None,
        tamper: Tamper | None = None,
    ) -> None:
        n = options.players
        names = bots or ["heuristic", "random"]
        if seed is not None:
            ids = [Identity.from_test_seed(f"{seed}/id/{i}".encode()) for i in range(n)]
            nonce = hashlib.sha256(f"{seed}/nonce".encode()).digest()
            rngs: list[Rng] = [DeterministicRng(f"{seed}/rng/{i}".encode()) for i in range(n)]
        else:
            import os

            ids = [Identity.generate() for _ in range(n)]
            nonce = os.urandom(32)
            rngs = [SystemRng() for _ in range(n)]
        roster = [ident.player(f"P{i}") for i, ident in enumerate(ids)]
        genesis = make_genesis(ids[0], 0, roster, options_to_obj(options), nonce)
        self.entries: list[bytes] = []  # every entry, in the order it was first sent
        self.tamper = tamper
        self.sessions: list[Session] = []
        for i in range(n):
            log = Log()
            log.add(genesis)
            bot = make_bot(names[i % len(names)], f"{seed}/bot/{i}")
            self.sessions.append(Session(log, seat=i, identity=ids[i], decider=bot, rng=rngs[i]))
        self.entries.append(genesis)

    def run(self, max_entries: int = 2_000_000) -> None:
        """Route entries until every node is done (game over or a blame)."""
        queue: list[tuple[int, bytes]] = []
        for i, s in enumerate(self.sessions):
            s.start()
            queue.extend((i, raw) for raw in s.outbox)
            s.outbox.clear()
        sent = 0
        while queue:
            sender, raw = queue.pop(0)
            if self.tamper is not None:
                changed = self.tamper(sender, raw)
                if changed is None:
                    continue
                raw = changed
            self.entries.append(raw)
            sent += 1
            if sent > max_entries:
                raise RuntimeError("the game did not end")
            for i, s in enumerate(self.sessions):
                if i == sender:
                    continue
                s.receive(raw)
                queue.extend((i, r) for r in s.outbox)
                s.outbox.clear()
