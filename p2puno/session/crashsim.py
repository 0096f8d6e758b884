"""Crash and rebuild a seat of a LocalTable from its files: TEST ONLY (tests, soak scripts).

:func:`play_with_crash` routes a seeded game and kills one seat at a chosen point (after its
secrets are written, after an entry is appended but before it is durable, after it is durable
but before it is sent, after it is sent, or a power cut: every line written since the seat's
last durable one is lost), then rebuilds it with
:func:`p2puno.session.harness.rebuild` and plays on, as a node would after `p2puno resume`.
"""

from __future__ import annotations

import os
from pathlib import Path

from p2puno.crypto import SecretReveal
from p2puno.engine import Options
from p2puno.log import NodeSecrets, append_entry, write_secrets
from p2puno.session.harness import LocalTable, rebuild
from p2puno.session.session import Session
from p2puno.wire import JSONValue


class Crash(Exception):
    """The node dies here (raised from inside its own file writes)."""


def reference(options: Options, seed: str) -> tuple[bytes, int]:
    """The uninterrupted game: its final digest and its last step."""
    table = LocalTable(options, seed=seed, bots=["heuristic"])
    table.run()
    s = table.sessions[0]
    assert s.outcome.state == "finished"
    return s.engine.digest(), s.processed


def files_of(tmp: Path, seat: int) -> tuple[Path, Path]:
    return tmp / f"node{seat}.log", tmp / f"node{seat}.secrets"


def _hooks(table: LocalTable, tmp: Path, seat: int, crash: dict[str, object]) -> Session:
    """Give ``seat``'s session file hooks that can crash at a chosen point."""
    s = table.sessions[seat]
    log_path, secrets_path = files_of(tmp, seat)
    ident = s.identity
    assert ident is not None

    def on_entry(raw: bytes) -> None:
        e = s.log.entry_of(raw)
        own = e is not None and e.author == seat
        if own and crash.get("point") == "torn" and s.processed >= int(crash["at"]):  # type: ignore[call-overload]
            crash["point"] = "done"
            with open(log_path, "ab") as f:
                f.write(raw[: len(raw) // 2])  # half a line: the append did not complete
            raise Crash
        append_entry(log_path, raw, fsync=False)
        if own:  # a node makes its own entries durable (fdatasync), and the file with them
            durable[0] = log_path.stat().st_size
        if own and crash.get("point") == "durable" and s.processed >= int(crash["at"]):  # type: ignore[call-overload]
            crash["point"] = "done"
            raise Crash  # on disk, never sent
        if not own and crash.get("point") == "power" and s.processed >= int(crash["at"]):  # type: ignore[call-overload]
            crash["point"] = "done"
            # the power goes: what the disk had not made durable is lost, every line since
            # the last of the seat's own (another seat's entry is appended without a sync)
            crash["lost"] = log_path.stat().st_size - durable[0]  # bytes
            os.truncate(log_path, durable[0])
            raise Crash

    def on_secrets(reveals: list[SecretReveal]) -> None:
        extra: dict[str, JSONValue] = {"shuffles": [r.to_obj() for r in reveals]}
        write_secrets(secrets_path, NodeSecrets(ident, s.game_id, seat, extra))
        if crash.get("point") == "secrets" and s.processed >= int(crash["at"]):  # type: ignore[call-overload]
            crash["point"] = "done"
            raise Crash  # the secrets are saved, the commitment not yet written

    s.on_entry, s.on_secrets = on_entry, on_secrets
    write_secrets(secrets_path, NodeSecrets(ident, s.game_id, seat))
    assert s.log.genesis_raw is not None
    append_entry(log_path, s.log.genesis_raw, fsync=False)  # (durable in a node)
    durable = [log_path.stat().st_size]
    return s


def play_with_crash(
    options: Options,
    seed: str,
    tmp: Path,
    seat: int,
    crash: dict[str, object],
    *,
    prune_keep: int | None = None,
) -> LocalTable:
    """Route the game; when the seat crashes (or, point 'sent', once it has processed the
    step), rebuild it from its files (pruning as a node does with ``prune_keep``) and go on;
    return the table at the end."""
    table = LocalTable(options, seed=seed, bots=["heuristic"])
    _hooks(table, tmp, seat, crash)
    queue: list[tuple[int, bytes]] = []

    def collect(i: int) -> None:
        s = table.sessions[i]
        queue.extend((i, raw) for raw in s.outbox)
        s.outbox.clear()

    def restart() -> None:
        old = table.sessions[seat]
        log_path, secrets_path = files_of(tmp, seat)
        # the same random stream as before (a seeded test table): so that after a rebuild at
        # a step boundary the game goes on exactly as it would have
        new = rebuild(
            log_path, secrets_path, decider=old.decider, rng=old.rng, prune_keep=prune_keep
        )
        # the rebuilt node's own file hooks (no crash any more)
        ident = new.identity
        assert ident is not None

        def on_entry(raw: bytes) -> None:
            append_entry(log_path, raw, fsync=False)

        def on_secrets(reveals: list[SecretReveal]) -> None:
            extra: dict[str, JSONValue] = {"shuffles": [r.to_obj() for r in reveals]}
            write_secrets(secrets_path, NodeSecrets(ident, new.game_id, seat, extra))

        new.on_entry, new.on_secrets = on_entry, on_secrets
        table.sessions[seat] = new
        new.start()
        # what a node does on reconnecting: its peers sync it, and it sends its own entries
        # of the steps in progress (one durable but never sent is among them)
        for h in new.log.hashes():
            e = new.log.entry(h)
            if e.author == seat and e.seq >= new.processed:
                queue.append((seat, new.log.raw(h)))
        for i, s in enumerate(table.sessions):
            if i != seat:
                for h in s.log.hashes():
                    if s.log.entry(h).seq > new.processed - 1 and not new.log.knows(h):
                        queue.append((i, s.log.raw(h)))
        collect(seat)

    for i, s in enumerate(table.sessions):
        try:
            s.start()
        except Crash:
            restart()
        collect(i)
    delivered = 0
    while queue:
        sender, raw = queue.pop(0)
        for i, s in enumerate(table.sessions):
            if i == sender:
                continue
            try:
                s.receive(raw)
            except Crash:
                s.outbox.clear()  # what it had not sent dies with it
                restart()
                continue
            collect(i)
            if i == seat and crash.get("point") == "sent" and s.processed >= int(crash["at"]):  # type: ignore[call-overload]
                crash["point"] = "done"
                restart()
        delivered += 1
        assert delivered < 200_000
    return table
