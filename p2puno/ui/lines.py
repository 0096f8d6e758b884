"""Plain lines a person reads outside the table: the demo's report and the command line's lines
after a game (`cli`, `demo`). One wrap for both: at the terminal's width where there is one,
a number kept with its unit (:func:`~p2puno.ui.replay.wrap_verdict`); as it is where a program
reads the output (a pipe, a file: tests and scripts read whole lines)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from p2puno.ui.replay import cells, width_of, wrap_verdict

Echo = Callable[[str], None]

# a command to copy, on a line of its own: indented past a wrapped line's two, so that it
# never reads as the end of the sentence before it (helper-70 read "replay /tmp/an-h70/cl" /
# "one/p2puno-demo.log" where a terminal of 80 columns cut it)
COMMAND_INDENT = "    "


def resume_split(failure: str) -> tuple[str, str]:
    """A node's failure as its reason and the resume command that ends it (node.run raises
    "<why>: <resume command>"), or (the failure, "") when it ends in none: the command is then
    put whole on a line of its own (a wrap at spaces split it, helper-77, helper-83)."""
    from p2puno.node.game import command

    at = failure.rfind(f": {command()} resume")
    if at < 0:
        return failure, ""
    return failure[:at], failure[at + 2 :]


def say_line(text: str, echo: Echo = print, stream: TextIO | None = None) -> None:
    """``text`` to ``echo``, wrapped at the width of ``stream`` (standard output by default)
    when it is a terminal; as it is when it is not. The lines after the first are indented
    two past its own indent (the demo's "  games/.../log: ... VERIFIED: ..." went on at its
    own two, and read as the next log's line), a path wider than a line broken after a "/"."""
    width = width_of(sys.stdout if stream is None else stream)
    if width is None:
        echo(text)
        return
    # each of its lines on its own (a round's end is one text of several lines, each hand on
    # its own: wrapped as one, its lines broke mid-line, "Bot-1 went" / "out": helper-87)
    for part in text.split("\n"):
        lead = len(part) - len(part.lstrip(" "))
        for line in wrap_verdict(part, width, lead + 2) if part else [""]:
            echo(line)


def command_lines(cmd: str, width: int) -> list[str]:
    """A command to copy, on a line of its own: indented by :data:`COMMAND_INDENT` where that
    fits ``width``, else at the margin, and whole even when it is wider: a command broken
    over lines does not run (docs/ui.md), and a line the terminal wraps itself stays one."""
    return [COMMAND_INDENT + cmd if cells(COMMAND_INDENT + cmd) <= width else cmd]


def say_command(
    intro: str,
    cmd: str,
    echo: Echo = print,
    stream: TextIO | None = None,
    *,
    own_line: bool = False,
) -> None:
    """A command for a person to copy: ``intro`` (wrapped) and, on a line of its own, the
    command indented by :data:`COMMAND_INDENT`. Where no terminal reads it, after ``intro``
    on the same line (a program reads one line), unless ``own_line``."""
    width = width_of(sys.stdout if stream is None else stream)
    if not own_line and width is None:
        echo(f"{intro}  {cmd}")
        return
    say_line(intro, echo, stream)
    for line in [COMMAND_INDENT + cmd] if width is None else command_lines(cmd, width):
        echo(line)
