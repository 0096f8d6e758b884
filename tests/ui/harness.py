"""Driving the real table headless: keys in through prompt-toolkit's pipe input, the screen
read back through pyte (a VT100 emulator) fed with everything the app writes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pyte
import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput
from prompt_toolkit.output.vt100 import Vt100_Output

from p2puno.engine import Options
from p2puno.engine.actions import Action, Kind
from p2puno.session import Session
from p2puno.session.harness import LocalTable, quiet_after
from p2puno.session.session import Prompt
from p2puno.ui.app import TableUI

ESC = "\x1b"
LEFT, RIGHT, ENTER = "\x1b[D", "\x1b[C", "\r"


class Screen:
    """A terminal of ``cols`` x ``rows`` that the app draws on."""

    encoding = "utf-8"

    def __init__(self, cols: int = 80, rows: int = 24) -> None:
        self.size = Size(rows=rows, columns=cols)
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.screen)
        self.output = Vt100_Output(self, lambda: self.size, term="xterm", enable_cpr=False)  # type: ignore[arg-type]
        self.written = 0

    def write(self, data: str) -> int:
        self.stream.feed(data)
        self.written += len(data)
        return len(data)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True

    def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(rows, cols)
        self.size = Size(rows=rows, columns=cols)

    @property
    def lines(self) -> list[str]:
        return list(self.screen.display)

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display)


async def wait_for(screen: Screen, want: str | Callable[[str], bool], timeout: float = 10.0) -> str:
    """Wait until the screen shows ``want`` (a substring, or a test of the whole text)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = screen.text
        if (want in text) if isinstance(want, str) else want(text):
            return text
        await asyncio.sleep(0.02)
    raise AssertionError(f"the screen never showed {want!r}; it shows:\n{screen.text}")


async def press(pipe: PipeInput, *keys: str, pause: float = 0.03) -> None:
    for k in keys:
        pipe.send_text(k)
        await asyncio.sleep(pause)


def run_out_a_turn(ui: TableUI) -> None:
    """Ask ``ui`` for a turn (draw only) and let it run out at once: what its node's bot and
    words do then is the test's (a node stand-in holds the clock's figures)."""
    prompt = Prompt("turn", 9, (Action(0, Kind.DRAW),), None)  # type: ignore[arg-type]
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(TimeoutError):
            loop.run_until_complete(asyncio.wait_for(ui.ask(prompt), 0.05))
    finally:
        loop.close()


def seat_2_voted_out(seed: str) -> tuple[Session, Session, Session]:
    """A 3-seat game whose network went quiet after 60 entries: seats 0 and 1 hold each
    other's entries, seat 0 votes to stop waiting for seat 2, and seat 1 joins it (naming
    seat 2 too); seat 2 has neither vote. The three sessions."""
    table = LocalTable(Options(3, target=20), seed=seed, tamper=quiet_after(60))
    table.run()
    a, b, c = table.sessions
    for x, y in ((a, b), (b, a)):
        for h in x.log.hashes():
            y.receive(x.log.raw(h))
    assert a.stop([2])  # (its deadline passed: it names seat 2)
    for h in a.log.hashes():
        b.receive(a.log.raw(h))
    assert b.voted
    return a, b, c
