"""Who decides for a node's seat: a bot, or a person (at a terminal, later the table UI).

A player answers a :class:`~p2puno.session.session.Prompt` asynchronously: the node keeps
answering other seats, relaying and fetching while a person thinks. A person who lets the
table's turn deadline pass is played by their own node's bot (:class:`Autopilot`) until they
answer again: only their node holds their keys, so nobody else could.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sys
from typing import Any, Protocol

from p2puno.bots import make_bot
from p2puno.engine.actions import Action
from p2puno.engine.cards import CARD_TEXT
from p2puno.session.session import Prompt
from p2puno.sim.words import color_name


class Player(Protocol):
    kind: str  # "bot" or "person"
    name: str

    async def decide(self, prompt: Prompt) -> Action | None: ...

    async def confirm(self, table: dict[str, Any]) -> bool:
        """A joiner's say on the final table (the lobby's ``table`` view: options and every
        seat) before any card is shuffled: True to play at it, False to leave."""
        ...


class BotPlayer:
    """A bot (``heuristic`` or ``random``). ``think``: seconds it waits before answering, drawn
    uniformly from the range (0 for tests and demos; a person's pace to test slow seats)."""

    kind = "bot"

    def __init__(self, policy: str, seed: str, think: tuple[float, float] = (0.0, 0.0)):
        self.name = policy
        self.bot = make_bot(policy, seed)
        self.think = think
        self._rng = random.Random(seed)

    def choose(self, prompt: Prompt) -> Action | None:
        actions = list(prompt.actions)
        if prompt.kind == "turn":
            return self.bot.act(prompt.view, actions)
        return self.bot.react(prompt.view, actions)

    async def decide(self, prompt: Prompt) -> Action | None:
        lo, hi = self.think
        if hi > 0:
            await asyncio.sleep(self._rng.uniform(lo, hi))
        return self.choose(prompt)

    async def confirm(self, table: dict[str, Any]) -> bool:
        return True  # (a bot plays at any table)


class Autopilot(BotPlayer):
    """The bot a node plays a person's seat with after the turn deadline."""

    def __init__(self, seed: str) -> None:
        super().__init__("heuristic", seed)


def choice_text(action: Action | None) -> str:
    """An offered decision as a person types it at the line prompt (:meth:`Action.choice_text`:
    ``r7``, ``W:g``, ``y7>0``, ``r7!``, ``draw``...; ``pass`` for declining). Not the log's
    notation: that one carries the seat and the card's slot in the deck (``2 r7#45``)."""
    return "pass" if action is None else action.choice_text()


def pick(line: str, options: list[Action | None]) -> Action | str | None:
    """The option a typed line names: its number, or its :func:`choice_text` (any case, any
    spacing); else why not, in words."""
    text = " ".join(line.split()).lower()
    if text.isascii() and text.isdigit() and len(text) <= 3 and int(text) < len(options):
        return options[int(text)]  # (not "²", nor 5,000 digits: int() refuses those)
    for a in options:
        if choice_text(a).lower() == text:
            return a
    return f"a number from 0 to {len(options) - 1}, or one of the choices as written"


class TextPlayer:
    """A person at a plain terminal (no full-screen table): each decision printed with its
    choices numbered and in the table's card notation, the answer (a number or the choice as
    written) read from standard input without blocking the node."""

    kind = "person"

    def __init__(self, name: str) -> None:
        self.name = name
        self._input_ended = False  # (said once: each decision then takes its first choice)

    async def confirm(self, table: dict[str, Any]) -> bool:
        """The final table in words (the options and every seat), then Enter to play at it or
        ``q`` to leave; the end of the input plays."""
        from p2puno.node.lobby import table_words  # (the lobby imports the node, which us)

        _drop_typed_ahead()
        print(f"\nthe table is final: {table_words(table)}")
        print("Enter: play at this table (the cards are shuffled once everyone has) · q: leave")
        try:
            while True:
                line = (await _read_line()).strip().lower()
                if line in ("", "y", "yes"):
                    print("confirmed: the cards are shuffled once every player has", flush=True)
                    return True
                if line in ("q", "quit", "n", "no", "leave"):
                    return False
                print("  Enter to play at this table, or q to leave", flush=True)
        except asyncio.CancelledError:  # (a newer table: the host asks again if it is final)
            print("the table changed before you answered: that question is withdrawn", flush=True)
            raise

    async def decide(self, prompt: Prompt) -> Action | None:
        _drop_typed_ahead()  # (an answer typed after the last prompt timed out is not this one's)
        view = prompt.view
        hand = " ".join(CARD_TEXT[c] for c in view.my_cards() if c >= 0)
        top = CARD_TEXT[view.top] if view.top >= 0 else "-"
        # the colour in play, in words (helper-102: after a Wild "top W" said nothing of the
        # colour its player named, the one thing a next card must match)
        color = f", color {color_name(view.color)}" if 0 <= view.color < 4 else ""
        print(f"\n[{prompt.kind}] top {top}{color}; your hand: {hand}")
        # (two copies of one card are one choice: the first of them)
        first = {choice_text(a): a for a in reversed(prompt.actions)}
        options: list[Action | None] = [a for a in prompt.actions if first[choice_text(a)] is a]
        if prompt.kind != "turn":
            options.append(None)
        for i, a in enumerate(options):
            print(f"  {i}: {choice_text(a)}")
        numbers = f"0 to {len(options) - 1}" if len(options) > 1 else "0"
        print(f"your choice ({numbers}, or type it as written), then Enter:", flush=True)
        while True:
            line = await _read_line()
            if not line:
                if not self._input_ended:  # (said once: helper-101 read a bluff it never chose)
                    self._input_ended = True
                    print("  (your input has ended: each decision now takes the first choice)")
                print(f"  0: {choice_text(options[0])}", flush=True)
                return options[0]
            chosen = pick(line, options)
            if not isinstance(chosen, str):
                return chosen
            print(f"  {chosen}")


_pending = bytearray()  # standard input read but not yet handed over (past a line's end)


async def _read_line() -> str:
    """A line of standard input ("" at its end), without a thread where the loop can watch
    the descriptor (POSIX): a thread blocked in ``readline`` kept the process alive after
    Ctrl-C until Enter was pressed (asyncio.run waits for its executor's threads at exit).
    The descriptor is read directly, with a buffer of its own (a buffered ``sys.stdin`` could
    hold a second line the loop would never be told about). Elsewhere, a thread."""
    loop = asyncio.get_running_loop()
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        fd = -1
    if fd < 0 or sys.platform == "win32":
        return await loop.run_in_executor(None, sys.stdin.readline)
    while b"\n" not in _pending:
        done: asyncio.Future[None] = loop.create_future()

        def ready(done: asyncio.Future[None] = done) -> None:
            if not done.done():
                done.set_result(None)

        try:
            loop.add_reader(fd, ready)
        except (NotImplementedError, ValueError, OSError):  # (a regular file: no watching)
            pass
        else:
            try:
                await done
            finally:
                loop.remove_reader(fd)
        chunk = os.read(fd, 4096)
        if not chunk:  # the end of the input: what is left, then ""
            line, _pending[:] = bytes(_pending), b""
            return line.decode(errors="replace")
        _pending.extend(chunk)
    line, _, rest = bytes(_pending).partition(b"\n")
    _pending[:] = rest
    return line.decode(errors="replace") + "\n"


def _drop_typed_ahead() -> None:
    """Forget standard input typed before this prompt was shown (a late answer to the last
    one, which timed out, would otherwise be taken at once as the answer to this one)."""
    _pending.clear()
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return
    if sys.platform == "win32":
        return
    blocking = os.get_blocking(fd)
    try:
        os.set_blocking(fd, False)
        for _ in range(64):  # (bounded: at most 256 KiB dropped)
            if not os.read(fd, 4096):
                break
    except (BlockingIOError, OSError):
        pass
    finally:
        with contextlib.suppress(OSError):
            os.set_blocking(fd, blocking)
