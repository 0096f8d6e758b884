"""A real network that splits, delays and cuts, under node processes on 127.0.0.1. TEST ONLY.

Run a node as ``python -m tests.node.netshim CONFIG_JSON p2puno-args...`` (see
:func:`command`): before p2puno starts, :func:`install` wraps asyncio's TCP transport (the
one every link of p2puno/net/link.py writes to, ``transport.write``) so that on a connection
to or from 127.0.0.1 each write is

* split at random byte boundaries into up to ``max_pieces`` pieces (handshake messages and
  frames arrive a few bytes at a time, their length headers split too);
* delayed, each piece by a random 0..``max_delay`` s, the order within the connection kept
  (it is TCP): pieces that fall due together are sent in one ``send``, so several frames (or
  the end of one and the start of the next) arrive in one read;
* and cut: once ``arm`` exists (a file; "" for at once), the connection is aborted in the
  middle of a write, its first bytes sent and the rest never: the peer reads a truncated
  frame, then the end of the stream. At most ``cuts`` per process, each after a random
  ``cut_writes`` = [lo, hi] writes (counted from the arming, or from the previous cut).

Every decision comes from ``seed`` (the times at which the writes come do not: the game's
own clock), so a failure names its seeds. Counts go to the file ``stats`` (JSON) at each cut
and at the process's end. Nothing but loopback connections is touched; every queue drains
within ``max_delay`` of its last write.

:func:`game` runs one whole game of such processes (a host and ``joiners`` bots), used by
tests/node/test_net_chaos.py (a short one) and scripts/chaos_net (many, stronger).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from asyncio import selector_events
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LOOP = "127.0.0.1"
# asyncio's TCP transport (not a public name)
_T: Any = selector_events._SelectorSocketTransport  # type: ignore[attr-defined]
_ORIG = {
    name: getattr(_T, name)
    for name in ("write", "write_eof", "close", "abort", "is_closing", "get_write_buffer_size")
}
CUT = None  # a queue's mark: abort the connection here


@dataclass
class Config:
    seed: str = "0"
    max_pieces: int = 8  # a write is split into 1..max_pieces pieces
    max_delay: float = 0.02  # seconds, each piece
    cuts: int = 0  # connections this process aborts mid-write, at most
    cut_writes: tuple[int, int] = (50, 400)  # writes before each cut (from arming / last cut)
    arm: str = ""  # cuts only once this file exists ("": at once)
    stats: str = ""  # where the counts go (JSON); "": nowhere


@dataclass
class Stats:
    seed: str = ""
    writes: int = 0  # writes on loopback links
    split: int = 0  # of them, split into two pieces or more
    pieces: int = 0
    sends: int = 0  # sends made of the pieces
    merged: int = 0  # of them, holding pieces of two writes or more (frames coalesced)
    cuts: int = 0  # connections aborted mid-write
    cut_at: list[str] = field(default_factory=list)  # each: "a of b bytes of write w"


class _Pipe:
    """One connection's pieces waiting for their time: (due, write number, bytes or CUT)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.q: deque[tuple[float, int, bytes | None]] = deque()
        self.queued = 0  # bytes
        self.last_due = 0.0
        self.timer: asyncio.TimerHandle | None = None
        self.doomed = False  # a cut is queued: what is written after it goes nowhere
        self.eof = False  # write_eof() asked, done once the queue drains
        self.close = False  # close() asked, ditto


class _Shim:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.rnd = random.Random(f"netshim/{cfg.seed}")
        self.stats = Stats(seed=cfg.seed)
        self.cuts_left = cfg.cuts
        self.until_cut: int | None = None  # writes before the next cut, once armed

    # ------------------------------------------------------------ which connections
    def pipe(self, t: Any) -> _Pipe | None:
        p: _Pipe | bool | None = t.__dict__.get("_netshim", False)
        if p is False:
            peer = t.get_extra_info("peername")
            ours = isinstance(peer, tuple) and peer[0] == LOOP
            p = _Pipe(t._loop) if ours else None
            t._netshim = p
        assert p is not True
        return p

    def armed(self) -> bool:
        return not self.cfg.arm or os.path.exists(self.cfg.arm)

    # ------------------------------------------------------------ the transport's calls
    def write(self, t: Any, data: bytes | bytearray | memoryview) -> None:
        p = self.pipe(t)
        if p is None:
            _ORIG["write"](t, data)
            return
        if p.eof or t._eof:  # (as asyncio's own write: after write_eof(), a bug)
            raise RuntimeError("Cannot call write() after write_eof()")
        data = bytes(data)
        if not data or p.doomed or _ORIG["is_closing"](t):
            return None
        st = self.stats
        st.writes += 1
        wid = st.writes
        cut_at = len(data)
        if self.cuts_left and len(data) >= 2 and self.armed():
            if self.until_cut is None:
                self.until_cut = self.rnd.randint(*self.cfg.cut_writes)
            self.until_cut -= 1
            if self.until_cut <= 0:
                self.until_cut = None
                self.cuts_left -= 1
                cut_at = self.rnd.randint(1, len(data) - 1)
                st.cut_at.append(f"{cut_at} of {len(data)} bytes of write {wid}")
        part = data[:cut_at]
        k = self.rnd.randint(1, min(self.cfg.max_pieces, len(part)))
        bounds = [0, *sorted(self.rnd.sample(range(1, len(part)), k - 1)), len(part)]
        st.split += k > 1
        st.pieces += k
        now = p.loop.time()
        for a, b in itertools.pairwise(bounds):
            p.last_due = max(p.last_due, now + self.rnd.uniform(0, self.cfg.max_delay))
            p.q.append((p.last_due, wid, part[a:b]))
            p.queued += b - a
        if cut_at < len(data):
            p.q.append((p.last_due, wid, CUT))
            p.doomed = True
        if p.timer is None:
            p.timer = p.loop.call_at(p.q[0][0], self.pump, t, p)
        return None

    def pump(self, t: Any, p: _Pipe) -> None:
        p.timer = None
        if _ORIG["is_closing"](t):  # (gone: reset by the peer, or aborted here)
            p.q.clear()
            p.queued = 0
            return
        now = p.loop.time()
        out: list[bytes] = []
        wids: set[int] = set()
        cut = False
        while p.q and p.q[0][0] <= now:
            _, wid, piece = p.q.popleft()
            if piece is CUT:
                cut = True
                break
            out.append(piece)
            wids.add(wid)
            p.queued -= len(piece)
        if out:
            self.stats.sends += 1
            self.stats.merged += len(wids) > 1
            _ORIG["write"](t, b"".join(out))
        if cut:
            p.q.clear()
            p.queued = 0
            self.stats.cuts += 1
            self.save()
            # the bytes before the cut, then the end of the stream (FIN: the peer reads a
            # truncated frame, then EOF), then the socket closed (RST if it held unread data)
            if not _ORIG["get_write_buffer_size"](t):
                with contextlib.suppress(OSError):
                    t._sock.shutdown(socket.SHUT_WR)
            _ORIG["abort"](t)
            return
        if p.q:
            p.timer = p.loop.call_at(p.q[0][0], self.pump, t, p)
            return
        if p.eof:  # (the link's own call suppresses what it raises: a peer gone, ...)
            with contextlib.suppress(OSError, RuntimeError):
                _ORIG["write_eof"](t)
        if p.close:
            _ORIG["close"](t)

    def write_eof(self, t: Any) -> None:
        p = self.pipe(t)
        if p is not None and p.q:
            p.eof = True
        else:
            _ORIG["write_eof"](t)

    def close(self, t: Any) -> None:
        p = self.pipe(t)
        if p is not None and p.q:
            p.close = True
        else:
            _ORIG["close"](t)

    def abort(self, t: Any) -> None:
        p = self.pipe(t)
        if p is not None:
            if p.timer is not None:
                p.timer.cancel()
                p.timer = None
            p.q.clear()
            p.queued = 0
        _ORIG["abort"](t)

    def is_closing(self, t: Any) -> bool:
        p = self.pipe(t)
        return bool(_ORIG["is_closing"](t) or (p is not None and p.close))

    def get_write_buffer_size(self, t: Any) -> int:
        p = self.pipe(t)
        return int(_ORIG["get_write_buffer_size"](t)) + (p.queued if p is not None else 0)

    def save(self) -> None:
        if self.cfg.stats:
            with contextlib.suppress(OSError):
                Path(self.cfg.stats).write_text(json.dumps(self.stats.__dict__))


def install(cfg: Config) -> Stats:
    """Wrap asyncio's TCP transport for the rest of this process (once)."""
    shim = _Shim(cfg)
    for name in _ORIG:
        method = getattr(shim, name)
        setattr(_T, name, lambda self, *a, _m=method: _m(self, *a))
    import atexit

    atexit.register(shim.save)
    shim.save()
    return shim.stats


def command(cfg: Config) -> list[str]:
    """The start of a command line running p2puno under the shim (the p2puno args follow)."""
    d = dict(cfg.__dict__)
    d["cut_writes"] = list(cfg.cut_writes)
    return [sys.executable, "-m", "tests.node.netshim", json.dumps(d)]


# ---------------------------------------------------------------------- whole games


class Proc:
    """One node process under the shim; its output lines gathered by a thread."""

    def __init__(self, cfg: Config, args: list[str], data: Path) -> None:
        self.cfg, self.data = cfg, data
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [*command(cfg), *args, "--data-dir", str(data)],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
        )
        out = self.proc.stdout
        assert out is not None
        self.reader = threading.Thread(
            target=lambda: self.lines.extend(ln.rstrip("\n") for ln in out), daemon=True
        )
        self.reader.start()

    def said(self, pattern: str) -> re.Match[str] | None:
        for line in list(self.lines):
            m = re.search(pattern, line)
            if m:
                return m
        return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stats(self) -> Stats:
        try:
            return Stats(**json.loads(Path(self.cfg.stats).read_text()))
        except (OSError, ValueError, TypeError):
            return Stats(seed=self.cfg.seed)


@dataclass
class GameRun:
    ok: bool = False
    why: str = ""
    seconds: float = 0.0
    armed: float = 0.0  # seconds from the start to the arming of the cuts
    stats: list[Stats] = field(default_factory=list)

    def total(self, what: str) -> int:
        return sum(int(getattr(s, what)) for s in self.stats)

    @property
    def seeds(self) -> str:
        return ", ".join(s.seed for s in self.stats)


def game(
    seed: int,
    root: Path,
    *,
    joiners: int = 3,
    target: int = 30,
    timing: tuple[str, ...] = ("--window-ms", "0", "--step-s", "5", "--turn-s", "5"),
    max_pieces: int = 8,
    max_delay: float = 0.02,
    cuts: int = 1,
    cut_writes: tuple[int, int] = (50, 400),
    arm_at: str = "— round 1:",
    think: float = 0.0,
    timeout: float = 120.0,
) -> GameRun:
    """One game: a host and ``joiners`` bots that join it by address, each its own process
    under the shim (process k's seed ``{seed}/k``). Cuts are armed once the host has said a
    line matching ``arm_at`` (round 1 has begun; "": from the start, the lobby's links too;
    "table code": the game's start, its first shuffle). It ends well when every process exits
    0 with no traceback, every node's log holds the same entries, each replays verified as
    finished, nobody blamed and no seat named silent."""
    from p2puno.node.chaos import logs_end_well  # (here: the shim's processes never need it)

    t0 = time.monotonic()
    arm = root / "armed"
    root.mkdir(parents=True, exist_ok=True)
    if not arm_at:
        arm.touch()
    run = GameRun()

    def cfg(k: int) -> Config:
        return Config(
            seed=f"{seed}/{k}",
            max_pieces=max_pieces,
            max_delay=max_delay,
            cuts=cuts,
            cut_writes=cut_writes,
            arm=str(arm),
            stats=str(root / f"shim{k}.json"),
        )

    host = Proc(
        cfg(0),
        ["host", "--bind", LOOP, "--no-discovery", "--seats", str(joiners + 1), "--bot",
         "heuristic", "--think", str(think), "--target", str(target), *timing],
        root / "host",
    )  # fmt: skip
    nodes = [host]
    try:
        end = t0 + 30
        while (m := host.said(r"open on 127\.0\.0\.1:(\d+)")) is None and time.monotonic() < end:
            if host.proc.poll() is not None:
                break
            time.sleep(0.02)
        if m is None:
            run.why = "the host did not open:\n" + "\n".join(host.lines[-20:])
            return run
        port = m.group(1)
        for k in range(1, joiners + 1):
            nodes.append(
                Proc(
                    cfg(k),
                    ["bot", f"{LOOP}:{port}", "--name", f"J{k}", "--bind", LOOP,
                     "--think", str(think)],
                    root / f"j{k}",
                )
            )  # fmt: skip
        end = t0 + timeout
        if arm_at:
            while time.monotonic() < end and host.said(arm_at) is None:
                if any(n.proc.poll() is not None for n in nodes):
                    break
                time.sleep(0.02)
            arm.touch()
        run.armed = time.monotonic() - t0
        if arm_at and host.said(arm_at) is None:  # (a node ended, or the time did)
            gone = [n for n in nodes if n.proc.poll() is not None]
            if gone:
                run.why = f"{gone[0].data.name} ended before the game began: " + "\n".join(
                    gone[0].lines[-10:]
                )
                return run
        elif not arm_at:  # (the lobby's links cut: a joiner may leave, the host waits)
            while time.monotonic() < end and host.said("— round 1:") is None:
                gone = [n for n in nodes if n.proc.poll() is not None]
                if gone:
                    run.why = f"{gone[0].data.name} ended before round 1: " + "\n".join(
                        gone[0].lines[-10:]
                    )
                    return run
                time.sleep(0.05)
        for n in nodes:
            try:
                n.proc.wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                run.why = f"{n.data.name} did not end in {timeout:.0f} s:\n" + "\n".join(
                    n.lines[-25:]
                )
                return run
        for n in nodes:
            n.reader.join(5)
        codes = [n.proc.returncode for n in nodes]
        if any(codes):
            bad = next(n for n in nodes if n.proc.returncode)
            run.why = f"exit codes {codes}; {bad.data.name} said:\n" + "\n".join(bad.lines[-25:])
            return run
        run.why = logs_end_well(root, {n.data.name: n.lines for n in nodes})
        run.ok = not run.why
        return run
    finally:
        for n in nodes:
            n.kill()
        run.stats = [n.stats() for n in nodes]
        run.seconds = time.monotonic() - t0
        for k, n in enumerate(nodes):
            with contextlib.suppress(OSError):
                (root / f"output{k}.txt").write_text("\n".join(n.lines))


def _main() -> None:
    cfg = json.loads(sys.argv[1])
    cfg["cut_writes"] = tuple(cfg["cut_writes"])
    install(Config(**cfg))
    sys.argv = ["p2puno", *sys.argv[2:]]
    from p2puno.cli import main

    main()


if __name__ == "__main__":
    _main()
