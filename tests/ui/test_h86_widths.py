"""helper-86's brief, read as a person at 80x24: the demo's report, the replay table's moves
and the end box's replay line fit 80 columns, with nothing lost (docs/ui.md, "Decisions where
the issue is silent": "A command a person types is never broken", "The end box's log path,
wider than the box, stands on lines of its own cut only after a "/"", and the lines at 80
columns outside the table)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import p2puno.ui.lines as lines
import p2puno.ui.replay as replay_mod
from p2puno import demo
from p2puno.engine.options import Options
from p2puno.session.harness import LocalTable
from p2puno.ui.render import _box, plain, render
from p2puno.ui.replay import ReplayTable, load

LONG = "a-rather-long-folder-name-for-the-logs/of-the-demo-game"


@pytest.fixture(scope="module")
def fair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("h86")
    LocalTable(Options(2, target=60), seed="r2", directory=str(root)).run()
    return root / "node0.log"


def _report(
    fair: Path,
    where: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    width: int | None,
    person: bool,
) -> list[str]:
    """The demo's report, its game's node processes played by copies of a finished log (its
    host's and a bot's, where the demo finds them), at a terminal ``width`` wide (None: a
    pipe)."""
    root = where / "data"
    log = where / LONG / "p2puno-demo.log"
    log.parent.mkdir(parents=True, exist_ok=True)

    def game(cmd: list[str], **_: object) -> SimpleNamespace:
        for at in ("games/0123456789abcdef/log", "bots/4242-0/games/0123456789abcdef/log"):
            (root / at).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(fair, root / at)
        return SimpleNamespace(returncode=0)

    monkeypatch.setattr(subprocess, "run", game)
    monkeypatch.setattr(shutil, "which", lambda name: None)  # (the venv's own script)
    monkeypatch.setattr(lines, "width_of", lambda stream: width)
    monkeypatch.setattr(replay_mod, "width_of", lambda stream: width)
    capsys.readouterr()
    assert demo.run_network_demo(
        Options(2, target=60), log_path=str(log), data_dir=str(root), person=person
    )
    return capsys.readouterr().out.splitlines()


def _said(out: list[str]) -> str:
    """What lines say, however broken: a break after a "/" or at a space are one."""
    return " ".join(re.sub(r"/\n\s*", "/", "\n".join(out)).split())


@pytest.mark.parametrize("person", [False, True])
def test_the_demos_report_fits_80_columns_and_says_all_it_said(
    fair: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    person: bool,
) -> None:
    """helper-86's brief, items 1 and 4: at 80 columns the demo's intro (86 columns) and the
    sentence with the log's path (91) ran past the edge. Every line fits 79 columns (what
    say_line gives an 80-column terminal), but for a command wider than that, which stands
    whole on a line of its own (docs/ui.md, "A command a person types is never broken"); a
    path in a sentence is broken after a "/"; the words are those of whole lines (a pipe's)."""
    whole = _report(fair, tmp_path / "pipe", monkeypatch, capsys, None, person)
    shutil.rmtree(tmp_path / "pipe" / "data")
    at80 = _report(fair, tmp_path / "pipe", monkeypatch, capsys, 79, person)
    log = str(tmp_path / "pipe" / LONG / "p2puno-demo.log")
    commands = [f"replay {log}"] + ([f"replay {log} --table"] if person else [])
    for cmd in commands:  # (whole, on a line of its own)
        assert sum(bool(re.fullmatch(rf" *\S*p2puno {re.escape(cmd)}", ln)) for ln in at80) == 1
    said = [ln for ln in at80 if not re.fullmatch(r" *\S*p2puno replay .*", ln)]
    assert all(len(line) <= 79 for line in said), [ln for ln in said if len(ln) > 79]
    assert _said(at80) == _said(whole)
    intro = at80[: at80.index("")]
    assert len(intro) > 2 and all(len(line) > 60 for line in intro[1:-1]), intro
    verdicts = [i for i, ln in enumerate(at80) if "VERIFIED" in ln]
    assert len(verdicts) == 2, at80
    for i in verdicts:  # (a verdict's next line is indented past the log's own two)
        if not at80[i].rstrip().endswith("0"):
            assert at80[i + 1].startswith("    "), at80[i : i + 2]


def test_the_replay_tables_moves_break_a_long_path_after_a_slash(fair: Path) -> None:
    """helper-86's brief, item 2: the replay table's moves column cut a long path mid-word.
    A word wider than the column is broken after a "/": each line of it ends in one, and
    the lines read one after the other give the path whole."""
    path = "/tmp/an-h86/the-folder-of-the-logs/of-the-demo-game/p2puno-demo.log"
    with create_pipe_input() as pipe:
        table = ReplayTable(load(fair), path=str(fair), input=pipe, output=DummyOutput())
        view = table.view(80)
    view = replace(view, log=[*view.log, f"Ann said: see {path} please"])
    screen = plain(render(view, 80, 24))
    assert all(len(line) <= 80 for line in screen)
    moves = [line.split("│", 1)[1].strip() for line in screen[2:] if "│" in line]
    at = next(i for i, m in enumerate(moves) if m.startswith("Ann said:"))
    said = moves[at : next(i for i, m in enumerate(moves) if m.endswith("please")) + 1]
    assert all(m.endswith("/") for m in said[:-1]), said
    assert " ".join(said).replace("/ ", "/") == f"Ann said: see {path} please", said


def test_the_end_boxs_replay_line_says_plainly_what_to_run() -> None:
    """helper-86's brief, item 3: a replay command wider than the end box was said as
    "... replay, then the log's path above, then --table (the whole command is ...)". It is
    now the command with LOG for the path, whole on a line of its own, and what LOG is;
    nothing cut, every line inside the box at 80 columns."""
    prog = "/tmp/an-h77/clone/.venv/bin/p2puno"
    path = f"/tmp/an-h86/{LONG}/p2puno-demo.log"
    text = ["GAME OVER", f"  log: {path}", f"  replay it:  {prog} replay {path} --table"]
    box = [line[3:-3].strip() for line in plain(_box(text, 80))[1:-1]]
    assert all(len(line) <= 80 for line in plain(_box(text, 80))), box
    at = box.index("replay it:")
    assert box[at + 1 : at + 3] == [
        f"{prog} replay LOG --table",
        "(LOG: the log's path above)",
    ]
    # a path with a part wider than the box is not shown there: LOG says where it is
    wide = f"/tmp/{'x' * 90}/p2puno-demo.log"
    text = ["GAME OVER", f"  log: {wide}", f"  replay it:  {prog} replay {wide} --table"]
    said = " ".join(line.strip(" │") for line in plain(_box(text, 80))[1:-1])
    assert "the log's path above" not in said and "LOG: the log's path" in said, said


def test_a_text_of_several_lines_is_wrapped_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A round's end is narrated as one text, each hand on a line of its own: at a terminal
    each line is wrapped on its own, not the text as one (helper-87 read "Bot-1 went" /
    "out" and "Host left with r2 r3 r5 r6 y5 b7 b8" / "(36 pts)" at 80 columns)."""
    monkeypatch.setattr(lines, "width_of", lambda stream: 79)
    text = (
        "  Round over: Bot-1 scores 36\n    Bot-1 went out\n    Host left with r2 r3 b8  (36 pts)"
    )
    said: list[str] = []
    lines.say_line(text, said.append)
    assert said == text.split("\n")
    long = "    " + " ".join(["Bartholomew-Quincey"] * 6)
    said.clear()
    lines.say_line(f"\n{long}", said.append)
    assert said[0] == "" and len(said) == 3 and all(len(x) <= 79 for x in said)
    assert said[2].startswith("      Bartholomew")  # (its own indent, and two more)


def test_a_command_in_backquotes_is_never_broken_where_it_fits_a_line() -> None:
    """docs/ui.md, "A command a person types is never broken": the CLI's notes and errors are
    wrapped at word ends at a terminal (ui.lines.say_line), and a command in backquotes in them
    broke at its spaces (helper-94: "`/home/ann/p2puno/.venv/bin/p2puno resume" /
    "abcdef0123456789 --give-up`"). It moves to a line of its own whole; one wider than a
    line is broken only after a "/"."""
    cmd = "`/home/ann/p2puno/.venv/bin/p2puno resume abcdef0123456789 --give-up`"
    text = (
        "  when it was last taken up it reached no other player: the others most likely "
        f"ended it without you. {cmd} stops offering it"
    )
    out = replay_mod.wrap_verdict(text, 79, 4)
    assert all(len(line) <= 79 for line in out), out
    assert any(cmd in line for line in out), out
    assert " ".join(w for line in out for w in line.split()) == " ".join(text.split())
    wide = "`p2puno replay /a-very-long-folder/" + "x" * 40 + "/games/d15312add0de3339/log`"
    out = replay_mod.wrap_verdict(f"the last game there is over: {wide}", 60)
    # (broken after a "/" only: the lines read one after the other give it whole)
    assert all(line.endswith("/") for line in out[:-1]), out
    assert out[0] + "".join(line.strip() for line in out[1:]) == (
        f"the last game there is over: {wide}"
    ), out
