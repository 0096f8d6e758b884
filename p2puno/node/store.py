"""A node's data directory: one folder per game with its log and its 0600 secrets.

Layout (``--data-dir``, else the platform's user data directory, e.g. ~/.local/share/p2puno):

    played                      every game id this node has taken part in (one hex a line)
    lock                        held (flock) by the one node process using the directory, its pid
    games/<first 16 hex>/log    the game's log: one signed entry a line (protocol/spec.md 9)
    games/<...>/secrets         this node's identity and shuffle secrets (mode 0600)
    games/<...>/node.json       seat, table name, addresses: what `p2puno resume` needs

Write before send: an entry this node signs is appended and made durable (fdatasync) before it
leaves; entries from others are appended without waiting for the disk (they can be fetched
again from any peer). The secrets file is rewritten atomically (temp file, fsync, rename)
whenever it changes, before anything that depends on it is sent.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import platformdirs

from p2puno.crypto import SecretReveal
from p2puno.log import Identity, LogFileIndex, NodeSecrets, write_secrets
from p2puno.wire import JSONValue

# the data directories this process holds (DataDir.hold): resolved root -> the lock's fd
_HELD: dict[Path, int] = {}


def default_root() -> Path:
    return Path(platformdirs.user_data_dir("p2puno", appauthor=False))


def resume_command(root: str | os.PathLike[str], game_id: bytes | None = None) -> str:
    """The command that takes a game of this data directory up again, with ``--data-dir``
    when it is not the default one (else the hint would look in the wrong place)."""
    cmd = "p2puno resume"
    if game_id is not None:
        cmd += f" {game_id.hex()[:16]}"
    if Path(root).resolve() != default_root().resolve():
        cmd += f" --data-dir {shlex.quote(str(root))}"
    return cmd


class DataError(Exception):
    """The data directory cannot be used (a clear message for the user)."""


class DataDir:
    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()
        try:
            (self.root / "games").mkdir(parents=True, exist_ok=True, mode=0o700)
            probe = self.root / ".write-test"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as e:
            raise DataError(
                f"the data directory {self.root} cannot be written: {e.strerror}"
            ) from e

    def hold(self) -> None:
        """Hold this data directory for this process until it exits (the kernel's lock goes
        with the process, a SIGKILL included): one node plays from a data directory at a
        time. Two seats of one game would share its game folder (named by the game id) and
        write over each other's log and secrets; a resume while the node still runs would
        cut its half-written last line as torn. DataError names the process holding it. On
        a file system without locks, or where there is no ``flock`` (Windows), nothing is
        held."""
        key = self.root.resolve()
        if sys.platform == "win32" or key in _HELD:
            return  # (this process holds it already: a command run again in one process)
        import fcntl

        fd = os.open(self.root / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            # (a few tries over a quarter second: another process's busy() holds the lock
            # for the moment of its probe, and a bot started then failed, "in use by
            # another p2puno process (pid ?)", seen once in a full run of the suite)
            for wait in (0.01, 0.02, 0.04, 0.08, 0.1, 0.0):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if not wait:
                        raise
                    time.sleep(wait)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise DataError(
                f"the data directory {self.root} is in use by another p2puno process (pid "
                f"{holder}); a second seat on this machine needs a directory of its own: "
                "--data-dir DIR"
            ) from None
        except OSError:  # (no locks on this file system: hold nothing)
            os.close(fd)
            return
        # the pid over the last holder's, then cut to it: never an empty file for a moment
        # (holder() read None between a truncate and the write, once in a full suite)
        pid = f"{os.getpid()}\n".encode()
        os.pwrite(fd, pid, 0)
        os.ftruncate(fd, len(pid))
        _HELD[key] = fd  # open until the process exits

    def holder(self) -> int | None:
        """The pid the last holder of :meth:`hold` wrote in the lock (None: none written).
        Whether it holds it still is :meth:`busy`'s to say."""
        try:
            return int((self.root / "lock").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def busy(self) -> bool:
        """Whether another process holds this data directory (see :meth:`hold`)."""
        if sys.platform == "win32" or self.root.resolve() in _HELD:
            return False
        import fcntl

        try:  # (a probe of the lock, taken and let go at once: the pid the holder wrote stays)
            fd = os.open(self.root / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:  # (no locks on this file system: nothing is held)
            return False
        finally:
            os.close(fd)  # (and the lock, if it was taken, with it)
        return False

    def release(self) -> None:
        """Let go of :meth:`hold` (a process that goes on after its node, e.g. a test)."""
        fd = _HELD.pop(self.root.resolve(), None)
        if fd is not None:
            os.close(fd)

    @property
    def played_path(self) -> Path:
        return self.root / "played"

    def has_played(self, game_id: bytes) -> bool:
        try:
            return game_id.hex() in self.played_path.read_text().split()
        except FileNotFoundError:
            return False

    def mark_played(self, game_id: bytes) -> None:
        fd = os.open(self.played_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, game_id.hex().encode() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)

    def game(self, game_id: bytes) -> GameFiles:
        return GameFiles(self.root / "games" / game_id.hex()[:16])


class GameFiles:
    """One game's files. ``append`` keeps the log open; call ``close`` when done."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.log_path = folder / "log"
        self.secrets_path = folder / "secrets"
        self.meta_path = folder / "node.json"
        self._fd: int | None = None
        self._index: LogFileIndex | None = None
        self.durable_writes = 0

    def append(self, raw: bytes, *, durable: bool) -> None:
        """One entry, as a line; ``durable``: on disk before this returns (fdatasync)."""
        if self._fd is None:
            self._fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        data = memoryview(raw + b"\n")
        while data:  # (a short write, e.g. on a disk filling up: the rest, or OSError)
            data = data[os.write(self._fd, data) :]
        if durable:
            os.fdatasync(self._fd)
            self.durable_writes += 1

    @property
    def index(self) -> LogFileIndex:
        """Where each step starts in the log file (8 bytes a step in memory)."""
        if self._index is None or self._index.path != self.log_path:
            self._index = LogFileIndex(self.log_path)
        return self._index

    def read(self, h: bytes, seq: int) -> bytes | None:
        """The entry of step ``seq`` with hash ``h`` in this node's log file, or None: a seek
        to its step and a few lines (:class:`LogFileIndex`), what :attr:`Log.loader` reads
        back for a peer that asks for an entry pruned from memory."""
        return self.index.read(h, seq)

    def lines_from(self, seq: int) -> Iterator[bytes]:
        """The log file's entries from step ``seq`` on, read as they go (OSError if the file
        cannot be read)."""
        return self.index.lines_from(seq)

    def write_secrets(
        self,
        identity: Identity,
        game_id: bytes | None,
        seat: int | None,
        nonce: bytes,
        shuffles: list[SecretReveal] | None = None,
    ) -> None:
        extra: dict[str, JSONValue] = {"nonce": nonce.hex()}
        if shuffles is not None:
            extra["shuffles"] = [r.to_obj() for r in shuffles]
        write_secrets(self.secrets_path, NodeSecrets(identity, game_id, seat, extra))

    def write_meta(self, meta: dict[str, Any]) -> None:
        tmp = self.meta_path.with_name(f".node.json.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, self.meta_path)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
