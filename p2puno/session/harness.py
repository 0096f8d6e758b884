"""In-process table: N sessions whose entries are routed in memory (no sockets).

Used by the tests, the benchmark and the demo; the transport will carry the same bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable
from typing import Any

from p2puno.bots import make_bot
from p2puno.crypto import CryptoError, DeterministicRng, Rng, SecretReveal, SystemRng
from p2puno.engine import Options
from p2puno.log import (
    MAX_ENTRY_SIZE,
    Identity,
    Log,
    LogError,
    LogFileIndex,
    NodeSecrets,
    add_log_line,
    append_entry,
    make_genesis,
    read_secrets,
    stream_log_file,
    write_secrets,
)
from p2puno.session.session import Decider, Session, options_to_obj
from p2puno.wire import EncodingError, JSONValue, decode

Tamper = Callable[[int, bytes], bytes | None]


def _node_files(
    directory: str, seat: int, identity: Identity, game_id: bytes | None
) -> tuple[Callable[[bytes], None], Callable[[list[SecretReveal]], None]]:
    log_path = os.path.join(directory, f"node{seat}.log")
    secrets_path = os.path.join(directory, f"node{seat}.secrets")
    write_secrets(secrets_path, NodeSecrets(identity, game_id, seat))

    def on_entry(raw: bytes) -> None:
        append_entry(log_path, raw, fsync=False)

    def on_secrets(reveals: list[SecretReveal]) -> None:
        extra: dict[str, JSONValue] = {"shuffles": [r.to_obj() for r in reveals]}
        write_secrets(secrets_path, NodeSecrets(identity, game_id, seat, extra))

    return on_entry, on_secrets


def quiet_after(n: int) -> Tamper:
    """A :class:`LocalTable` tamper: the first ``n`` entries sent are delivered, then none
    (the network goes quiet mid-game; what a test of a stop or a late return starts from)."""
    sent = [0]

    def tamper(sender: int, raw: bytes) -> bytes | None:
        sent[0] += 1
        return raw if sent[0] <= n else None

    return tamper


class LocalTable:
    """``players`` bot sessions; ``seed`` makes keys, shuffles and bots reproducible (tests)."""

    def __init__(
        self,
        options: Options,
        *,
        seed: str | None = "table",
        bots: list[str] | None = None,
        tamper: Tamper | None = None,
        directory: str | None = None,
        reveal: int | None = None,
    ) -> None:
        """``directory``: each node appends its log to ``node<i>.log`` there, and keeps its own
        secrets (identity keys and every shuffle secret of the current deck) in
        ``node<i>.secrets``, mode 0600, rewritten atomically whenever they change: what a node
        needs to resume. ``reveal``: the genesis options' `reveal` (spec 10.10), which every
        node's table sets; without it (the tests' seeded games, made before it) a reveal step
        may carry any number of shuffles, as an earlier build's table did."""
        n = options.players
        names = bots or ["heuristic", "random"]
        if seed is not None:
            ids = [Identity.from_test_seed(f"{seed}/id/{i}".encode()) for i in range(n)]
            nonces = [hashlib.sha256(f"{seed}/nonce/{i}".encode()).digest() for i in range(n)]
            rngs: list[Rng] = [DeterministicRng(f"{seed}/rng/{i}".encode()) for i in range(n)]
        else:
            ids = [Identity.generate() for _ in range(n)]
            nonces = [os.urandom(32) for _ in range(n)]  # each node's own, in a real lobby
            rngs = [SystemRng() for _ in range(n)]
        roster = [ident.player(f"P{i}") for i, ident in enumerate(ids)]
        genesis = make_genesis(ids[0], 0, roster, options_to_obj(options, reveal=reveal), nonces)
        self.entries: list[bytes] = []  # every entry, in the order it was first sent
        self.tamper = tamper
        self.sessions: list[Session] = []
        for i in range(n):
            log = Log()
            log.add(genesis)
            bot = make_bot(names[i % len(names)], f"{seed}/bot/{i}")
            on_entry, on_secrets = None, None
            if directory is not None:
                on_entry, on_secrets = _node_files(directory, i, ids[i], log.game_id)
                on_entry(genesis)
            self.sessions.append(
                Session(
                    log,
                    seat=i,
                    identity=ids[i],
                    nonce=nonces[i],
                    decider=bot,
                    rng=rngs[i],
                    on_entry=on_entry,
                    on_secrets=on_secrets,
                )
            )
        self.entries.append(genesis)

    def run(self, max_entries: int = 2_000_000, *, prune_keep: int | None = None) -> None:
        """Route entries until every node is done (game over or a blame). ``prune_keep``: as
        a node does, each session drops the steps older than the last ``prune_keep`` it
        processed from memory whenever twice that many have piled up (``Log.prune``)."""
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
                if prune_keep is not None:
                    s.prune_memory(prune_keep)


def rebuild(
    log_path: str | os.PathLike[str],
    secrets_path: str | os.PathLike[str],
    *,
    decider: Decider | None = None,
    rng: Rng | None = None,
    on_entry: Callable[[bytes], None] | None = None,
    on_secrets: Callable[[list[SecretReveal]], None] | None = None,
    say: Callable[[str], None] | None = None,
    prune_keep: int | None = None,
) -> Session:
    """A seat's session rebuilt from its files after a crash: the log (a torn last line, a
    crash mid-append, is dropped and cut off the file), then every step in it processed again
    with the shuffle secrets the node had saved (never fresh ones), ready to go on. Entries it
    already signed are in its log, so it never signs another for the same slot.

    The file is streamed, never held whole: the steps are processed as they are read, each
    once the next step's proposal comes (so this seat's own entries of a step are in the log
    before the step is due), and with ``prune_keep`` the older steps leave memory as they do
    in a running node: a resumed node's memory does not grow with the length of the game.

    Raises ``ResumeError`` with a clear message for a damaged or foreign file."""
    try:
        secrets = read_secrets(secrets_path)
    except (OSError, ValueError) as e:
        raise ResumeError(f"the secrets file {secrets_path} cannot be used: {e}") from None
    if secrets.seat is None or secrets.game_id is None:
        raise ResumeError(f"the secrets file {secrets_path} names no game and seat")
    seat = secrets.seat
    try:
        torn = _cut_torn_tail(log_path)
    except OSError as e:
        raise ResumeError(f"the log {log_path} cannot be read: {e.strerror or e}") from None
    if torn and say is not None:
        say("the log's last line was torn (the node died mid-write): cut off; it was never sent")
    try:
        saved = [SecretReveal.from_obj(o) for o in secrets.extra.get("shuffles", [])]  # type: ignore[union-attr]
    except (CryptoError, ValueError, TypeError) as e:
        raise ResumeError(f"the saved shuffle secrets are damaged: {e}") from None
    log = Log(game_id=secrets.game_id)
    try:
        # the decks already revealed: this seat's secrets are in its own reveal entries
        for _, raw in stream_log_file(log_path):
            obj = _peek(raw)
            body = obj.get("body") if obj is not None else None
            listed = body.get("secrets") if isinstance(body, dict) else None
            if obj is not None and obj.get("author") == seat and isinstance(listed, list):
                with contextlib.suppress(CryptoError, ValueError, TypeError):
                    saved.extend(SecretReveal.from_obj(o) for o in listed)
        lines = stream_log_file(log_path)
        for index, raw in lines:
            add_log_line(log, index, raw)
            if log.genesis is not None:
                break
    except (OSError, LogError) as e:
        raise ResumeError(f"the log {log_path} does not verify: {e}") from None
    if log.genesis is None:
        raise ResumeError(f"the log {log_path} holds no genesis")
    # Nothing is written while the file is read: a rebuild that fails part-way (a damaged
    # line) or is killed leaves the files as they were. What the replay would have written
    # (the secrets of the deck in play, made again from the saved ones) goes out at the end.
    held_entries: list[bytes] = []
    held_secrets: list[list[SecretReveal]] = []
    try:
        nonce_hex = secrets.extra.get("nonce")
        nonce = bytes.fromhex(nonce_hex) if isinstance(nonce_hex, str) else None
        if nonce is None:  # (LocalTable's files keep no nonce: the genesis has it)
            nonce = log.genesis.nonces[seat]
        session = Session(
            log,
            seat=seat,
            identity=secrets.identity,
            nonce=nonce,
            decider=decider,
            rng=rng,
            on_entry=held_entries.append,
            on_secrets=held_secrets.append,
            saved_secrets=saved,
        )
    except (ValueError, IndexError) as e:
        raise ResumeError(
            f"the secrets file {secrets_path} does not fit the log's game: {e}"
        ) from None
    if prune_keep is not None:
        log.loader = LogFileIndex(log_path).read  # what was pruned, from the file
    try:
        last = 0
        for index, raw in lines:
            obj = _peek(raw)
            seq = obj.get("seq") if obj is not None else None
            proposal = obj is not None and obj.get("role") == "proposal"
            if proposal and isinstance(seq, int) and seq > last:
                # a new step's proposal: every entry of the steps before it is in the log now
                last = seq
                session.replay_known()
                if prune_keep is not None:
                    session.prune_memory(prune_keep)
            add_log_line(log, index, raw)
        session.replay_known()
    except (OSError, LogError) as e:
        raise ResumeError(f"the log {log_path} does not verify: {e}") from None
    session.on_entry, session.on_secrets = on_entry, on_secrets
    if held_secrets and on_secrets is not None:
        on_secrets(held_secrets[-1])
    if on_entry is not None:
        for raw in held_entries:
            on_entry(raw)
    session.take_up_log()  # its own vote, the evidence, the others' votes, the stop
    return session


def _peek(raw: bytes) -> dict[str, Any] | None:
    """A line's decoded object, to look at its role, seq and author (None if it does not
    decode: adding it then says why)."""
    try:
        obj = decode(raw, max_size=MAX_ENTRY_SIZE)
    except EncodingError:
        return None
    return obj if isinstance(obj, dict) else None


class ResumeError(Exception):
    """A node cannot be rebuilt from its files (the message says why)."""


def _cut_torn_tail(path: str | os.PathLike[str]) -> bool:
    """Cut a last line without its newline (a crash mid-append). True if there was one."""
    with open(path, "rb+") as f:
        size = f.seek(0, os.SEEK_END)
        back = min(size, 2 * MAX_ENTRY_SIZE)  # a line is at most one entry: its start is in here
        f.seek(size - back)
        data = f.read()
        if not data or data.endswith(b"\n"):
            return False
        cut = data.rfind(b"\n")
        if cut < 0 and back < size:
            # no line ends in the last two entries' length: not a torn write (a line is at
            # most one entry long) but damage, which cutting would hide
            raise ResumeError(f"the log {path} ends in a line longer than any entry: damaged")
        f.truncate(size - back + cut + 1)
        return True
