"""Plain lines a person reads outside the table: the demo's report and the command line's lines
after a game (`cli`, `demo`). One wrap for both: at the terminal's width where there is one,
a number kept with its unit (:func:`~p2puno.ui.replay.wrap_verdict`); as it is where a program
reads the output (a pipe, a file: tests and scripts read whole lines)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from p2puno.ui.replay import width_of, wrap_verdict

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
    when it is a terminal; as it is when it is not."""
    width = width_of(sys.stdout if stream is None else stream)
    for line in [text] if width is None else wrap_verdict(text, width):
        echo(line)


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
    if not own_line and width_of(sys.stdout if stream is None else stream) is None:
        echo(f"{intro}  {cmd}")
        return
    say_line(intro, echo, stream)
    echo(f"{COMMAND_INDENT}{cmd}")
