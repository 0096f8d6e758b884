"""Files: the append-only log (one canonical entry per line) and the 0600 secrets file.

Log file format: each entry's canonical bytes followed by one ``\\n`` (canonical JSON never
contains a raw newline, so lines and entries coincide). Lines appear in the order the node
accepted them: parents before children. A second entry for a taken slot (equivocation
evidence) is appended too, so a reloaded log still holds the evidence.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import sys
import threading
import time
from array import array
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2puno.log.entry import MAX_ENTRY_SIZE, LogError, Reason, entry_hash
from p2puno.log.identity import Identity
from p2puno.log.log import AddResult, Log, SigCheck, Status
from p2puno.wire import EncodingError, JSONValue, b2h, decode, encode, h2b

__all__ = [
    "LogFileError",
    "LogFileIndex",
    "LogFileReader",
    "LogShape",
    "NodeSecrets",
    "PendingSignatures",
    "VerifyReport",
    "append_entry",
    "iter_log_file",
    "load_log",
    "open_log_file",
    "read_secrets",
    "scan_log_file",
    "verify_log_file",
    "write_secrets",
]

SECRETS_KIND: Final = "p2puno-node-secrets"


class LogFileError(LogError):
    """A log file failed verification at entry ``index`` (0-based; line ``index + 1``)."""

    def __init__(self, index: int, cause: LogError) -> None:
        super().__init__(
            cause.reason,
            f"entry {index} (line {index + 1}): {cause.message}",
            author=cause.author,
            detail=cause.detail,
            evidence=cause.evidence,
        )
        self.index = index


def append_entry(path: str | os.PathLike[str], raw: bytes, *, fsync: bool = True) -> None:
    """Append one entry's canonical bytes as a line (creating the file if needed)."""
    if b"\n" in raw:
        raise ValueError("canonical entries never contain a newline")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, raw + b"\n")
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def iter_log_file(
    path: str | os.PathLike[str], *, allow_torn_tail: bool = False
) -> Iterator[tuple[int, bytes]]:
    """(index, raw entry) per line. A last line without ``\\n`` is an error unless
    ``allow_torn_tail`` (resuming after a crash mid-append), when it is skipped."""
    data = Path(path).read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    yield from enumerate(lines)
    if tail and not allow_torn_tail:
        raise LogFileError(
            len(lines),
            LogError(Reason.ENCODING, "last line has no newline (torn write?)", detail="torn"),
        )


_READ_BLOCK: Final = 1 << 20  # bytes read at a time by stream_log_file


def stream_log_file(
    path: str | os.PathLike[str], *, max_size: int = MAX_ENTRY_SIZE
) -> Iterator[tuple[int, bytes]]:
    """(index, raw entry) per line, read as it goes (a file of any length in little memory).
    A last line without ``\\n`` is an error (cut a torn tail first); a line longer than
    ``max_size`` (the entry cap of the log it is read into) is refused without being held."""
    index = 0
    rest = b""
    torn = LogError(Reason.ENCODING, "last line has no newline (torn write?)", detail="torn")
    with open(path, "rb") as f:
        while block := f.read(_READ_BLOCK):
            lines = (rest + block).split(b"\n")
            rest = lines.pop()  # the start of a line the next block goes on with
            for line in lines:
                yield index, line
                index += 1
            if len(rest) > max_size:
                # longer than any entry: measured, not held, and refused at its line
                size = len(rest)
                while (block := f.read(_READ_BLOCK)) and b"\n" not in block:
                    size += len(block)
                if not block:
                    raise LogFileError(index, torn)
                size += block.index(b"\n")
                raise LogFileError(
                    index,
                    LogError(Reason.ENCODING, f"{size} bytes is over the entry cap", detail="size"),
                )
    if rest:
        raise LogFileError(index, torn)


class LogFileIndex:
    """Where each step starts in a log file that grows, so that an entry no longer in memory
    is read back by a seek and a few lines, not by a scan of the whole game (a node serves
    peers that FETCH a pruned entry or SYNC from a pruned step; each scan of a 15,000-line log
    took 50 ms, and a seat could ask for 17 a second).

    Lines are in the order the node accepted them, parents before children, so a step's
    entries lie between its first line and the first line of the step after the next (a step
    opens on the previous one's answers). Each call first indexes the lines appended since the
    last call, so every line is parsed once in the file's life; a last line still being
    written waits for the next call. Memory: 8 bytes a step (an ``array``), nothing per entry.
    Only proposals and responses are indexed, and only they are looked for (what
    :meth:`Log.prune` drops): votes and equivocation evidence stay in memory, and one of them
    is found only if it lies in its step's window."""

    MAX_WINDOW: Final = 4 * 2**20  # bytes read at most for one entry
    MAX_GAP: Final = 1024  # steps skipped at most by a line (else it is not indexed)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._starts = array("q")  # seq -> offset of the step's first line, -1 if none
        self._end = 0  # lines before this offset are indexed

    def __repr__(self) -> str:
        return f"LogFileIndex({str(self.path)!r}, {len(self._starts)} steps)"

    def update(self) -> None:
        """Index the lines appended since the last call now (a resumed node does it before it
        plays, rather than at the first peer's request, in the middle of the game)."""
        try:
            with open(self.path, "rb") as f:
                self._update(f)
        except OSError:
            pass

    def _update(self, f: BinaryIO) -> None:
        f.seek(self._end)
        pos = self._end
        starts = self._starts
        for line in f:
            if not line.endswith(b"\n"):
                break  # a line being written: next time
            seq = _indexed_seq(line)
            if seq is None:
                pass
            elif seq < len(starts):
                if starts[seq] < 0:
                    starts[seq] = pos
            elif seq <= len(starts) + self.MAX_GAP:  # (steps come in order: a gap is odd)
                starts.extend([-1] * (seq - len(starts)))
                starts.append(pos)
            pos += len(line)
        self._end = pos

    def _start(self, seq: int) -> int:
        """The offset of the first indexed line of step ``seq`` or later (the end if none)."""
        starts = self._starts
        for s in range(max(seq, 0), len(starts)):
            if starts[s] >= 0:
                return starts[s]
        return self._end

    def read(self, h: bytes, seq: int) -> bytes | None:
        """The entry of step ``seq`` whose hash is ``h``, or None (not in the file, or the
        file cannot be read)."""
        try:
            with open(self.path, "rb") as f:
                self._update(f)
                if not 0 <= seq < len(self._starts) or self._starts[seq] < 0:
                    return None
                start = self._starts[seq]
                stop = min(self._start(seq + 2), start + self.MAX_WINDOW)
                f.seek(start)
                pos = start
                for line in f:
                    if pos >= stop or not line.endswith(b"\n"):
                        break
                    if entry_hash(line[:-1]) == h:
                        return line[:-1]
                    pos += len(line)
        except OSError:
            return None
        return None

    def lines_from(self, seq: int) -> Iterator[bytes]:
        """Every complete line from the first of step ``seq`` to the end of the file, as it
        reads (a few lines of older steps may come too: a copy costs its receiver nothing).
        OSError if the file cannot be read."""
        with open(self.path, "rb") as f:
            self._update(f)
            f.seek(self._start(seq))
            for line in f:
                if not line.endswith(b"\n"):
                    return
                yield line[:-1]


def _indexed_seq(line: bytes) -> int | None:
    """The seq of a proposal or response line; None for a vote or a line that does not
    parse. (Equivocation evidence is a second version of a step's entry: it is indexed at its
    step, which it cannot open, since the first version came before it.)

    Read off the canonical bytes without decoding them (14 us a line with ``json.loads``, a
    quarter of a second for a 15,000-line game): the keys are sorted, so the entry's own
    ``"role"`` and ``"seq"`` are the last of their names in the line (only ``"sig"`` and
    ``"v"``, hex and a number, follow), and a name in quotes cannot occur inside a string,
    where every quote is escaped."""
    r = line.rfind(b'"role":"')
    q = line.rfind(b'"seq":')
    if r < 0 or q < r:
        return None
    if not line.startswith((b'proposal"', b'response"'), r + 8):
        return None
    end = q + 6
    while end < len(line) and 48 <= line[end] <= 57:
        end += 1
    if end == q + 6 or end - q - 6 > 18:
        return None
    return int(line[q + 6 : end])


@dataclass(frozen=True, slots=True)
class LogShape:
    """What a first quick pass over a log file finds (:func:`scan_log_file`)."""

    back: int  # the most steps a line reaches back below the highest step before it
    first_vote: int | None  # the lowest step a vote names, if the file holds a vote


def scan_log_file(path: str | os.PathLike[str]) -> LogShape:
    """A quick pass over a log file, each line's role and step read off its bytes (no
    decoding, nothing checked: the real pass does that): how far back any line reaches, and
    where the first vote is. A reader that prunes as it goes keeps that many steps, so it
    reads the file as one that keeps every step would (a node's own file reaches back a step
    or two; a hand-made one may reach back to the start)."""
    top, back, first_vote = -1, 0, None
    with open(path, "rb") as f:
        rest = b""
        while block := f.read(_READ_BLOCK):
            data = rest + block
            cut = data.rfind(b"\n") + 1  # whole lines only: a match never spans two reads
            rest = data[cut:] if len(data) - cut <= _READ_BLOCK else b""
            for role, number in _ROLE_SEQ.findall(data, 0, cut):
                seq = int(number)
                if role == b"vote":
                    first_vote = seq if first_vote is None else min(first_vote, seq)
                back = max(back, top - seq)
                top = max(top, seq)
    return LogShape(back, first_vote)


# An entry's own role and seq: adjacent in canonical JSON (sorted keys), never inside a
# string, where every quote is escaped, and the last of their names in the line (only "sig"
# and "v" follow them), as _indexed_seq reads them: the greedy ^.* takes a line's last match,
# so a body that nests {"role":"proposal","seq":0} does not make the reader keep every step
# (a code review). A line that is not an entry may match or not: the real pass refuses it
# either way, and a match only makes the reader keep more steps.
_ROLE_SEQ: Final = re.compile(rb'^.*"role":"(proposal|response|vote)","seq":(\d{1,18})', re.M)


def add_log_line(log: Log, index: int, raw: bytes) -> None:
    """Add line ``index`` of a log file to ``log``, as :func:`load_log` does each line
    (LogFileError names it if it does not verify; evidence is kept)."""
    _add_line(log, index, raw, None, None, 0)


def load_log(
    path: str | os.PathLike[str],
    *,
    game_id: bytes | None = None,
    expected_proposer: Callable[[int], int | None] | None = None,
    allow_torn_tail: bool = False,
) -> Log:
    """Rebuild and fully verify a Log from its file; LogFileError names the first bad entry.

    ``expected_proposer(seq)``, if given, is asked for each proposal (the engine's view).
    Equivocation evidence in the file is kept in ``log.evidence``, not treated as damage.
    """
    log = Log(game_id=game_id)
    raw_lines = list(iter_log_file(path, allow_torn_tail=allow_torn_tail))
    for index, raw in raw_lines:
        _add_line(log, index, raw, expected_proposer, None, len(raw_lines))
    return log


def _add_line(
    log: Log,
    index: int,
    raw: bytes,
    expected_proposer: Callable[[int], int | None] | None,
    deferred: list[SigCheck] | None,
    total: int,
) -> AddResult | None:
    """Add one line (None: it was equivocation evidence, kept in ``log.evidence``)."""
    try:
        exp = None
        if expected_proposer is not None:
            exp = _proposer_hint(log, raw, expected_proposer)
        result = log._add(raw, exp, deferred, index)
        if result.status is Status.STALE:
            # of a step pruned from memory (a rebuild that prunes as it reads): not read
            # further, but a line of the file is still checked to be genuine
            log.check_signature(raw)
    except LogError as e:
        if e.reason is Reason.EQUIVOCATION:
            return None  # evidence: kept in log.evidence
        raise LogFileError(index, e) from None
    if result.status is Status.MISSING_PARENTS:
        raise LogFileError(
            index, LogError(Reason.MISSING_PARENTS, "an entry before its parents", author=None)
        )
    if result.status is Status.DUPLICATE:
        raise LogFileError(index, LogError(Reason.MALFORMED, "the same entry twice"))
    return result


def _proposer_hint(log: Log, raw: bytes, expected: Callable[[int], int | None]) -> int | None:
    # Only proposals need the hint; peek at seq cheaply (the full checks follow in add).
    try:
        obj = decode(raw, max_size=log.max_entry_size)
    except EncodingError:
        return None
    if type(obj) is dict and obj.get("role") == "proposal" and type(obj.get("seq")) is int:
        seq = obj["seq"]
        assert isinstance(seq, int)
        return expected(seq) if seq > 0 else None
    return None


@dataclass(frozen=True, slots=True)
class VerifyReport:
    entries: int  # lines in the file (chain + evidence)
    chain: int  # entries in the verified chain
    evidence: int  # equivocations found
    steps: int  # proposals (seq 0..head)
    seconds: float
    threads: int

    @property
    def entries_per_second(self) -> float:
        return self.entries / self.seconds if self.seconds > 0 else float("inf")


_CHUNK: Final = 256  # entries per batch of signatures (the unit a worker or the caller takes)


def verify_log_file(
    path: str | os.PathLike[str], *, game_id: bytes | None = None, threads: int | None = None
) -> tuple[Log, VerifyReport]:
    """The replay fast path: verify a whole file, signatures checked in parallel batches.

    The error is exactly the one :func:`load_log` would raise: the first bad entry in file
    order. ``threads``: workers for the signatures (default: one per core).
    """
    start = time.perf_counter()
    log, lines, signatures = open_log_file(path, game_id=game_id, workers=threads)
    signatures.check()
    report = VerifyReport(
        entries=lines,
        chain=len(log),
        evidence=len(log.evidence),
        steps=log.head + 1,
        seconds=time.perf_counter() - start,
        threads=signatures.workers,
    )
    return log, report


def open_log_file(
    path: str | os.PathLike[str], *, game_id: bytes | None = None, workers: int | None = None
) -> tuple[Log, int, PendingSignatures]:
    """Check a log file's structure now and its signatures in the background.

    Returns the log (every entry decoded, chained and slotted, no signature checked yet), the
    number of lines, and the pending signature checks: the caller may go on (a replay runs the
    session meanwhile) and must call :meth:`PendingSignatures.check` before trusting anything.
    A structural error is raised (as :class:`LogFileError`) only once every signature before
    it has been checked, so the error is the first bad entry in file order either way.
    """
    log = Log(game_id=game_id)
    lines = list(iter_log_file(path))
    pending = PendingSignatures(workers)
    deferred: list[SigCheck] = []
    try:
        for index, raw in lines:
            try:
                _add_line(log, index, raw, None, deferred, len(lines))
            except LogFileError as e:
                pending.submit(deferred)
                pending.check(before=e)
                raise
            if len(deferred) >= _CHUNK:
                pending.submit(deferred)
                deferred = []
        pending.submit(deferred)
    except BaseException:
        pending.close()
        raise
    return log, len(lines), pending


class LogFileReader:
    """A log file read into a :class:`Log` a line at a time, each line checked as
    :func:`open_log_file` checks it (structure at once, signatures in the background), never
    held whole: the offline replay streams a game of any length through it and prunes as it
    goes. Iterating yields ``(index, result)`` once line ``index`` is in the log (``result``
    None for equivocation evidence). A structural error is raised (:class:`LogFileError`) only
    once every signature before it has been checked, so the error is the first bad entry in
    file order either way. :attr:`signatures` must be checked before anything is trusted."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        log: Log,
        *,
        workers: int | None = None,
    ) -> None:
        self.path = path
        self.log = log
        self.signatures = PendingSignatures(workers)
        self.count = 0  # lines read so far

    def __iter__(self) -> Iterator[tuple[int, AddResult | None]]:
        deferred: list[SigCheck] = []
        try:
            for index, raw in stream_log_file(self.path, max_size=self.log.max_entry_size):
                result = _add_line(self.log, index, raw, None, deferred, 0)
                self.count = index + 1
                if result is not None and result.status is Status.STALE:
                    # of a step already pruned here, not a copy of a recent line: a node
                    # never writes one (it prunes no sooner than a reader of its file does)
                    raise LogFileError(
                        index,
                        LogError(
                            Reason.MALFORMED,
                            f"an entry of step {result.entry.seq}, settled long before this "
                            "line (a copy of an earlier line, or a second version of one)",
                        ),
                    )
                if len(deferred) >= _CHUNK:
                    self.signatures.submit(deferred)
                    deferred = []
                yield index, result
        except LogFileError as e:
            self.signatures.submit(deferred)
            self.signatures.check(before=e)
            raise
        self.signatures.submit(deferred)


# (entry index, raw Ed25519 public key, signature, signed bytes): picklable for a process pool
_RawCheck = tuple[int, bytes, bytes, bytes]


def _verify_raw(checks: list[_RawCheck]) -> int | None:
    """Worker side: the smallest failing index of a batch, or None."""
    keys: dict[bytes, Ed25519PublicKey] = {}
    for index, pk, sig, msg in checks:
        key = keys.get(pk)
        if key is None:
            key = keys[pk] = Ed25519PublicKey.from_public_bytes(pk)
        try:
            key.verify(sig, msg)
        except InvalidSignature:
            return index
    return None


class PendingSignatures:
    """Signature checks running in worker processes while the caller goes on.

    Processes, not threads: pyca releases the GIL inside a verify, but a thread must take the
    GIL back after each one, and a main thread busy with Python (a replay's session) makes it
    wait a switch interval every time. Forked workers share nothing and cost ~10 ms to start;
    where fork is unsafe (not Linux, or other threads running) threads do the work instead.
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers if workers is not None else os.cpu_count() or 1)
        self._pool: Executor | None = None
        self._bad: int | None = None  # the smallest failing index of the batches done
        # the batches out with the workers, oldest first, each kept beside its future to be
        # taken back; a finished one is dropped, so memory holds a few batches, not the file
        self._live: deque[tuple[Future[int | None], list[_RawCheck]]] = deque()
        self._raw_keys: dict[int, bytes] = {}
        self.batches = 0  # batches submitted

    def _executor(self) -> Executor:
        if self._pool is None:
            # fork only where it is safe: Linux (macOS system libraries may not survive it),
            # and no other thread that could hold a lock at the moment of the fork
            fork = sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()
            if fork and threading.active_count() == 1:
                ctx = multiprocessing.get_context("fork")
                self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx)
            else:
                self._pool = ThreadPoolExecutor(self.workers)
        return self._pool

    def start(self) -> None:
        """Start the workers now: forked while this process runs one thread (a caller that is
        about to start threads calls this first)."""
        self._executor()

    def submit(self, checks: list[SigCheck]) -> None:
        if not checks:
            return
        raw = self._raw_keys
        batch = []
        for index, key, sig, msg in checks:
            pk = raw.get(id(key))
            if pk is None:
                pk = raw[id(key)] = key.public_bytes_raw()
            batch.append((index, pk, sig, msg))
        self.batches += 1
        while self._live and self._live[0][0].done():
            self._note(self._live.popleft()[0].result())
        if (self._pool is None and len(batch) < _CHUNK) or len(self._live) > 2 * self.workers:
            # a small log, or the tail of one before any full batch (a pool costs more), or
            # the workers are behind: the caller checks this batch itself (so the queue, and
            # memory, stay a few batches long however long the file)
            self._note(_verify_raw(batch))
        else:
            self._live.append((self._executor().submit(_verify_raw, batch), batch))

    def _note(self, bad: int | None) -> None:
        if bad is not None and (self._bad is None or bad < self._bad):
            self._bad = bad

    def first_bad(self) -> int | None:
        """Wait for every check; the smallest failing entry index, or None. Closes the pool.

        The caller's process helps: it takes back the batches no worker has started yet, from
        the last one (the workers take them first to last), and checks them itself. The
        verdict is the same whoever checks a batch.
        """
        try:
            live = list(self._live)
            self._live.clear()
            while live and live[-1][0].cancel():  # else a worker has it (and, very likely,
                self._note(_verify_raw(live.pop()[1]))  # every batch before it)
            for future, _ in live:
                self._note(future.result())
        finally:
            self.close()
        return self._bad

    def check(self, before: LogFileError | None = None) -> None:
        """Raise :class:`LogFileError` for the first bad signature (``before``: a structural
        error found meanwhile, raised instead if it comes first in the file)."""
        bad = self.first_bad()
        if bad is not None and (before is None or bad <= before.index):
            raise LogFileError(bad, LogError(Reason.BAD_SIGNATURE, "signature does not verify"))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


# ---------------------------------------------------------------------- secrets


@dataclass(frozen=True, slots=True)
class NodeSecrets:
    """What a node needs to resume: its identity, seat, game, and the crypto layer's secrets
    (``extra``: an opaque JSON object). ``repr`` shows no secret."""

    identity: Identity
    game_id: bytes | None = None
    seat: int | None = None
    extra: dict[str, JSONValue] = field(default_factory=dict, repr=False)

    def to_obj(self) -> dict[str, JSONValue]:
        obj: dict[str, JSONValue] = {
            "v": 1,
            "kind": SECRETS_KIND,
            "game": b2h(self.game_id) if self.game_id is not None else None,
            "seat": self.seat,
            "extra": self.extra,
        }
        obj.update(self.identity.export_secrets())
        return obj

    @classmethod
    def from_obj(cls, obj: JSONValue) -> NodeSecrets:
        keys = {"v", "kind", "game", "seat", "extra", "sign_sk", "dh_sk"}
        if type(obj) is not dict or obj.keys() != keys:
            raise ValueError("secrets file: unexpected fields")
        if type(obj["v"]) is not int or obj["v"] != 1 or obj["kind"] != SECRETS_KIND:
            raise ValueError("secrets file: not a p2puno v1 secrets file")
        seat, extra, game = obj["seat"], obj["extra"], obj["game"]
        if seat is not None and type(seat) is not int:
            raise ValueError("secrets file: bad seat")
        if type(extra) is not dict:
            raise ValueError("secrets file: bad extra")
        try:
            identity = Identity.from_secret_bytes(h2b(obj["sign_sk"], 32), h2b(obj["dh_sk"], 32))
            game_id = h2b(game, 32) if game is not None else None
        except (EncodingError, ValueError):
            raise ValueError("secrets file: bad key material") from None  # no bytes echoed
        return cls(identity=identity, game_id=game_id, seat=seat, extra=extra)


def write_secrets(path: str | os.PathLike[str], secrets: NodeSecrets) -> None:
    """Atomically (re)write the secrets file with mode 0600: temp file, fsync, rename."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    data = encode(secrets.to_obj()) + b"\n"
    # a temp file left by a process killed mid-write that had this pid (O_EXCL refused it
    # and the node stopped, "the disk refused a write"); O_EXCL still refuses a link put
    # there between the two calls
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)  # umask cannot widen it, but be explicit
        os.write(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, target)
    dir_fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_secrets(path: str | os.PathLike[str]) -> NodeSecrets:
    """Read a secrets file; refuse one that group or others could read."""
    st = os.stat(path)
    if st.st_mode & 0o077:
        raise PermissionError(f"{path}: secrets file must be mode 0600, is {st.st_mode & 0o777:o}")
    data = Path(path).read_bytes()
    if not data.endswith(b"\n"):
        raise ValueError("secrets file: truncated")
    try:
        # the node's own file, of any length: it holds every shuffle secret of the current
        # deck (about 12 KB a whole shuffle), past the wire's 256 KiB default in a round of
        # some 22 reshuffles (helper-78); the entry cap is for what peers send
        obj = decode(data[:-1], max_size=len(data))
    except EncodingError as e:
        raise ValueError(f"secrets file: {e.code.value}") from None
    return NodeSecrets.from_obj(obj)
