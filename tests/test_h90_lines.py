"""helper-90's brief, the lines outside the table: a penalty said once in the demo's verbose
narration and `p2puno replay`'s lines, `p2puno demo --name`, and `--help` defaults kept whole
(docs/ui.md, "A penalty's cards are told once", "`p2puno demo --name NAME` names the demo's
own seat", "The help screens are plain")."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from p2puno.bots import make_bot
from p2puno.cli import app
from p2puno.engine.options import Options
from p2puno.session.harness import LocalTable
from p2puno.session.replay import replay
from p2puno.sim.narrate import Narrator
from p2puno.sim.runner import Table

# the lines that say a seat must draw cards, and how many (002 · Functions of Action Cards;
# Going Out), in the words before the brief and after it
TOLD = [
    re.compile(r"^(\w+) took (\d+)(?: cards)? and lost the turn"),
    re.compile(r"(\w+) bluffed and draws? (\d+)$"),
    re.compile(r"no bluff, and (\w+) draws? (\d+)$"),
    re.compile(r"caught (\w+) without UNO: (?:\w+ draws? |\+)(\d+)"),
]


def _told(line: str) -> tuple[str, str] | None:
    for rx in TOLD:
        m = rx.search(line)
        if m:
            return m.group(1), m.group(2)
    return None


def _twice(lines: list[str]) -> list[tuple[str, str]]:
    """Each line that said a seat draws N, and a "<that seat> drew N cards" right after it."""
    out = []
    for said, nxt in itertools.pairwise(lines):
        told = _told(said)
        if told is not None and re.fullmatch(rf"{told[0]} drew {told[1]} cards?", nxt):
            out.append((said, nxt))
    return out


def test_the_verbose_narration_says_a_penalty_once() -> None:
    """The demo's `--verbose` narration (and a node's `--narrate --verbose`): "took 2 and lost
    the turn" then "drew 2 cards" was one penalty said twice."""
    names = ["Ann", "Bob", "Cid"]
    narrator = Narrator(names, 0.0, True, color=False)
    t = Table(Options(3, progressive=True), [make_bot("random", f"n{s}") for s in range(3)],
              random.Random(90))  # fmt: skip
    lines: list[str] = []
    for _ in range(3000):
        if t.over or len(lines) > 600:
            break
        _, events = t.step()
        lines += [x.strip() for e in events if (x := narrator.describe(t.game, e))]
    assert sum(1 for x in lines if _told(x)) >= 5, lines
    assert not _twice(lines), _twice(lines)


def test_the_replays_lines_say_a_penalty_once(tmp_path: Path) -> None:
    """`p2puno replay LOG`: the same words, once."""
    LocalTable(Options(2, target=20), seed="h90", directory=str(tmp_path)).run()
    said: list[str] = []
    assert replay(tmp_path / "node0.log", echo=said.append).ok
    lines = [re.sub(r"^\[step +\d+\] ", "", x) for x in said]
    assert sum(1 for x in lines if _told(x)) >= 3, lines
    assert not _twice(lines), _twice(lines)


@pytest.mark.parametrize("columns", ["80", "200"])
def test_the_demos_help_keeps_each_default_whole(columns: str) -> None:
    """`p2puno demo --help` read "[default: p2puno-" / "demo.log]" and "[default:" / "0.0]"."""
    out = CliRunner().invoke(app, ["demo", "--help"], env={"COLUMNS": columns}).output
    defaults = re.findall(r"\[default:[^\]]*\]?", out)
    assert "[default: p2puno-demo.log]" in defaults and "[default: 0.0]" in defaults, out
    assert all(d.endswith("]") for d in defaults), defaults
    assert "--name NAME" in out and all(len(x) <= 80 for x in out.splitlines()), out


def test_the_demos_name_is_checked_before_anything_starts() -> None:
    """`p2puno demo --name`: a seat's name (node.names), not one of its bots'."""
    for bad, why in [("bot-1", "the demo's bots are Bot-1"), (" Ann", "start or end")]:
        res = CliRunner().invoke(app, ["demo", "--name", bad, "--target", "10"])
        assert res.exit_code == 2 and why in res.output, res.output
    res = CliRunner().invoke(app, ["demo", "--engine-only", "--name", "Ann", "--target", "10"])
    assert res.exit_code == 0 and "Seats: Ann (heuristic)" in res.output, res.output
