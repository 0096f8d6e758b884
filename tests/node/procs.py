"""Running nodes as separate processes on 127.0.0.1 (never another address)."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from p2puno.session.replay import ReplayResult, replay

LOOPBACK = "127.0.0.1"
# quick tables for tests: no claim window to wait for, short deadlines
FAST = ["--window-ms", "0", "--step-s", "5", "--turn-s", "5"]


class Node:
    """One ``python -m p2puno ...`` process; its output lines gathered by a thread."""

    def __init__(
        self, args: list[str], data: Path, name: str = "node", *, typed: bool = False
    ) -> None:
        """``typed``: its standard input is a pipe the test types into (:meth:`type`), as a
        person at a plain terminal; else it reads nothing (its end at once)."""
        self.name = name
        self.data = data
        self.lines: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "p2puno", *args, "--data-dir", str(data)],
            stdin=subprocess.PIPE if typed else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            self._q.put(line)
        self._q.put(None)

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        """The first output line (seen or to come) matching ``pattern``."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < end:
            for line in self.lines[seen:]:
                m = rx.search(line)
                if m:
                    return m
            seen = len(self.lines)
            try:
                if self._q.get(timeout=0.1) is None and seen == len(self.lines):
                    break
            except queue.Empty:
                pass
        raise AssertionError(f"{self.name}: no line like {pattern!r}:\n" + "\n".join(self.lines))

    def type(self, text: str, *, end: bool = False) -> None:
        """Type ``text`` at its standard input; ``end``: then close it (the end of input)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()
        if end:
            self.proc.stdin.close()

    def port(self) -> int:
        return int(self.wait_for(r"open on 127\.0\.0\.1:(\d+)").group(1))

    def wait(self, timeout: float = 120.0) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                f"{self.name} did not end:\n" + "\n".join(self.lines[-30:])
            ) from None

    def signal(self, sig: int) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)

    def kill(self) -> None:
        """The process and what it started (its bots), by process group id."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def text(self) -> str:
        return "\n".join(self.lines)


def host(data: Path, *args: str) -> Node:
    return Node(["host", "--bind", LOOPBACK, "--no-discovery", *args], data, "host")


def logs(root: Path) -> list[Path]:
    return sorted(root.rglob("games/*/log"))


def same_entries(paths: list[Path]) -> set[bytes]:
    """Every node's log holds the same entries (each in the order that node took them)."""
    sets = [set(p.read_bytes().splitlines()) for p in paths]
    assert all(s == sets[0] for s in sets), [len(s) for s in sets]
    return sets[0]


def verified(path: Path) -> ReplayResult:
    result = replay(path)
    assert result.ok, (path, result.error)
    return result
