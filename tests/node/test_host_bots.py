"""A host's bot seats (`p2puno host --bots K`), each its own process, live and die with their
host. Killed outright (SIGKILL: no handler of the host's runs), the host took no bot with it:
they played on without it, voted their own host out once its deadline passed (20 s to 80 s at
the default deadlines), and a resume of the host found them still running. Each bot now reads
the end of a pipe from its host (p2puno/node/run.py watch_host_pipe) and leaves as a bot its
host stops leaves (BYE: the table reads that it left, and may come back with its host), its
data directory kept; the resumed host brings it back as its own child, and one process at a
time plays a seat (the data directory's lock: protocol/lobby.md section 6).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from p2puno.node.run import unfinished_games
from p2puno.node.store import DataDir, GameFiles
from tests.node.procs import LOOPBACK, Node, host

# a bot is gone this long after its host at most (it leaves in well under a second here; the
# deadline the table gives a seat is 5 s or more, so the old bot was still playing then)
GONE_S = 5.0


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process still running (a zombie that nobody reaped is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # (no /proc: the signal said it is there)


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _until(check: Callable[[], object], limit_s: float) -> float | None:
    """Seconds until ``check()`` held (polled every 0.05 s for at most ``limit_s``), or None."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        if check():
            return time.monotonic() - t0
        time.sleep(0.05)
    return None


def test_a_host_killed_outright_takes_its_bot_with_it_and_brings_it_back(tmp_path: Path) -> None:
    h = host(
        tmp_path / "host", "--seats", "3", "--bots", "1", "--bot", "heuristic",
        "--target", "300", "--think", "0.2",
        "--window-ms", "0", "--step-s", "10", "--turn-s", "10",
    )  # fmt: skip
    port = h.port()
    j0 = Node(
        ["bot", f"{LOOPBACK}:{port}", "--name", "J0", "--bind", LOOPBACK, "--think", "0.1"],
        tmp_path / "j0",
        "j0",
    )
    nodes = [h, j0]
    pids: list[int] = []  # every bot process seen, killed at the end if it still runs
    try:
        j0.wait_for(r"round 1: \S+ deals", 60)
        (folder,) = (tmp_path / "host" / "bots").iterdir()
        bot = DataDir(folder)
        assert bot.busy()
        old = bot.holder()
        assert old is not None and _parent(old) in (h.proc.pid, None)
        pids.append(old)

        os.kill(h.proc.pid, signal.SIGKILL)  # the host alone: its bot is not signalled
        h.proc.wait(10)
        took = _until(lambda: not bot.busy() and not _running(old), GONE_S)
        assert took is not None, f"the host's bot (pid {old}) outlived it by {GONE_S} s"
        # it left as a bot its host stops leaves: the table reads a BYE, not a lost link
        j0.wait_for(r"Bot-1\W.*left the table", 5)
        assert unfinished_games(bot), "the bot's game is kept for its host's resume"

        r = Node(["resume"], tmp_path / "host", "resumed")
        nodes.append(r)
        r.wait_for(r"bringing back Bot-1 \(seat \d\)", 30)
        assert "still running" not in r.text()
        assert _until(bot.busy, 30) is not None, r.text()
        new = bot.holder()
        assert new is not None and new != old
        pids.append(new)
        assert _parent(new) in (r.proc.pid, None)  # the resumed host's own child, not adopted
        j0.wait_for(r"Bot-1\W.* is back", 30)

        # a second process for the seat is refused, before it reads or cuts anything
        second = subprocess.run(
            [sys.executable, "-m", "p2puno", "resume", "--data-dir", str(folder)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2, second
        assert f"in use by another p2puno process (pid {new})" in second.stderr

        # the bot a resumed host brought back goes with it too
        os.kill(r.proc.pid, signal.SIGKILL)
        r.proc.wait(10)
        took = _until(lambda: not bot.busy() and not _running(new), GONE_S)
        assert took is not None, f"the bot brought back (pid {new}) outlived its host"
        assert unfinished_games(bot)
    finally:
        for n in nodes:
            n.kill()
        for pid in pids:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_resumed_host_waits_for_a_bot_still_leaving_then_brings_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host resumed at once, while its killed run's bot is still saying BYE: the bot's data
    directory is held a moment longer. The host waits for it (BOT_LEAVE_S at most) and brings
    it back as its own child; adopted instead, that bot left a moment later and its seat
    stayed empty. One that holds on past the wait is left as it is, never run twice."""
    from p2puno.node import run

    game = "0123456789abcdef" * 4
    host_data = DataDir(tmp_path / "host")
    bots = []
    for k in range(2):
        bot = DataDir(host_data.root / "bots" / f"1-{k}")
        view = {"seats": [{"name": "Host"}, {"name": "Bot-1"}, {"name": "Bot-2"}]}
        meta = {"game": game, "seat": k + 1, "over": False, "view": view}
        files = GameFiles(bot.root / "games" / game[:16])
        files.write_meta(meta)
        files.log_path.write_bytes(b"")
        bots.append(bot)
    started: list[tuple[str, ...]] = []

    async def child(who: str, say: object, *args: str, **kw: object) -> object:
        started.append(args)
        return who

    monkeypatch.setattr(run, "_child", child)
    monkeypatch.setattr(run, "BOT_LEAVE_S", 3.0)
    leaving = _holding(bots[0].root, 0.5)  # (lets go after half a second: leaving)
    staying = _holding(bots[1].root, 60)
    try:
        said: list[str] = []
        adopted: list[DataDir] = []
        t0 = time.monotonic()
        procs, back = asyncio.run(run._resume_bots(host_data, game, said.append, adopted, 0))
        assert 0.4 < time.monotonic() - t0 < 10
        assert said == [
            "Bot-2 (seat 2) is still running: left as it is",
            "bringing back Bot-1 (seat 1)",
        ]
        assert [d.root for d in adopted] == [bots[1].root]
        assert [a[a.index("--data-dir") + 1] for a in started] == [str(bots[0].root)]
        assert [str(p) for p in procs] == ["Bot-1 (seat 1)"] and back == {1}
    finally:
        for p in (leaving, staying):
            p.kill()
            p.wait(10)


def _holding(root: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process that holds the data directory ``root`` for ``seconds``, then exits."""
    code = (
        "import sys, time\n"
        "from p2puno.node.store import DataDir\n"
        "DataDir(sys.argv[1]).hold()\n"
        "print('held', flush=True)\n"
        "time.sleep(float(sys.argv[2]))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(root), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc
