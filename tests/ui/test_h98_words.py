"""helper-98's brief: four rough edges of words a player reads.

- The time a seat that left has to come back is said one way on every screen (the leaver's,
  the others', a spectator's, the command line's): protocol/lobby.md section 5, step_s from
  when the game waits for it. The leaver read "within 20 s", the others "within 20 s of when
  the game waits for it".
- The stop box's resume command a few cells wider than the box stands whole on a row of the
  screen, as the end box's replay command does (docs/ui.md, "A command a person types is never
  broken"); one wider than the screen is said in words on one line at 80 columns.
- `resume` says what the person gets back (their seat, the round), not "at step 40, seat 2".
- A command the command line prints stands on a line of its own in a pipe too, as everywhere
  else ("check it offline with:  <cmd>" had two spaces).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from prompt_toolkit.output import DummyOutput

from p2puno import cli
from p2puno.engine.game import Game
from p2puno.engine.options import Options
from p2puno.net import MsgType
from p2puno.node import run
from p2puno.node.game import left_words
from p2puno.node.store import DataDir
from p2puno.node.watch import Spectator
from p2puno.session import Timing
from p2puno.session.harness import LocalTable as SessionTable
from p2puno.session.session import Outcome, Waiting
from p2puno.ui import lines
from p2puno.ui.app import TableUI
from p2puno.ui.model import UiState, ViewInputs, table_view
from p2puno.ui.render import plain, render
from p2puno.wire import encode

WITHIN = "within 20 s of when the game waits for"


def test_the_time_to_come_back_is_said_one_way_on_every_screen() -> None:
    """protocol/lobby.md section 5: a seat that said it was leaving is waited for step_s from
    when it left or when the wait began, whichever is later. Every screen says it so."""
    # the others' table and lines (node.game.left_words)
    assert f"unless it is back {WITHIN} it." in left_words("Bob", 1, 20)
    # the leaver's own question (q) at the table
    table = SessionTable(Options(3), seed="h98")
    vi = ViewInputs(["Ann", "Bob", "Cy"], 0, resume_hint="p2puno resume", timing=Timing())
    text = " ".join(plain(render(table_view(table.sessions[0], UiState(mode="quit"), vi), 80, 24)))
    assert f"{WITHIN} you, the game ends for everyone" in " ".join(text.split()), text
    # the command line's, after the table is left (or in a pipe)
    meta = {"view": {"options": {"timing": {"step_s": 20}}}}
    assert cli._within(meta) == f" {WITHIN} you"
    # a spectator's
    said: list[str] = []
    spectator = Spectator(name="Eve", say=said.append)
    players = [SimpleNamespace(name=n) for n in ("Ann", "Bob", "Cy")]
    spectator.session = SimpleNamespace(  # type: ignore[assignment]
        n=3, log=SimpleNamespace(players=players), timing=Timing(step_s=20),
        outcome=SimpleNamespace(over=False),
    )  # fmt: skip
    spectator._on_message(MsgType.LOBBY, encode({"t": "seats", "away": [], "left": [1]}))
    assert said[-1].endswith(f"unless it is back {WITHIN} it"), said


def _stopped_box(cmd: str) -> list[str]:
    g = Game(Options(3))
    source = SimpleNamespace(
        engine=g, outcome=Outcome("playing", (0, 0, 0)), waiting=lambda: Waiting(9, "x", ())
    )
    ui = TableUI(name="Ann", output=DummyOutput(), clock=lambda: 100.0)
    ui.attach(source, 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
    ui.failed(f"your node lost its connection to every other player: {cmd}")
    return plain(render(ui.view(), 80, 24))


def test_the_stop_boxs_resume_command_stands_whole_where_it_fits_the_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/ui.md, "A command a person types is never broken": helper-98 at 80x24 read the
    stop box's resume command, with its --data-dir, replaced by two lines of words. One that
    fits a row of the screen stands on a row of its own across the box's borders (as the
    replay command does); one wider than the screen is said in words on one line."""
    prog = "/work/main/.venv/bin/p2puno"
    # (how p2puno runs here decides what reads as its resume command: the checkout's own path,
    # which a clean clone's CI made 84 cells, failing this test only there)
    import p2puno.node.game as node_game
    import p2puno.ui.app as app_mod

    monkeypatch.setattr(node_game, "command", lambda: prog)
    monkeypatch.setattr(app_mod, "command", lambda: prog)
    for extra in range(4):  # (76 to 79 cells: wider than the box's text, not the screen)
        cmd = f"{prog} resume ab695751d4b32a17 --data-dir /tmp/an-h98/h{'x' * extra}"
        assert 74 < len(cmd) < 80
        screen = _stopped_box(cmd)
        assert "YOUR NODE HAS STOPPED" in " ".join(screen), screen
        assert any(row.strip() == cmd for row in screen), screen
        assert "wider than this screen" not in " ".join(screen), screen
    wide = f"{prog} resume ab695751d4b32a17 --data-dir /tmp/an-h98/run/host"  # (84 cells)
    screen = [row.strip().strip("│").strip() for row in _stopped_box(wide)]
    assert "(wider than this screen: the terminal shows it when the table closes)" in screen
    assert not any("--data-dir" in row for row in screen), screen


@pytest.fixture(scope="module")
def seat_1_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    from tests.node.test_h79_lines import seat_files

    return seat_files(tmp_path_factory.mktemp("h98"), 1)


async def test_resume_says_the_seat_and_round_the_person_gets_back(
    tmp_path: Path, seat_1_game: tuple[Path, Path, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """helper-98's brief: "resuming game 0123456789abcdef at step 40, seat 2" ("step 40"
    means nothing to a player). It says their seat and name and the round, the log's step
    after, in words that say what it is (session.words: "step N of the log")."""
    log_path, secrets_path, game_id = seat_1_game
    data = DataDir(str(tmp_path / "data"))
    files = data.game(game_id)
    shutil.copyfile(log_path, files.log_path)
    shutil.copyfile(secrets_path, files.secrets_path)
    files.secrets_path.chmod(0o600)
    files.write_meta(
        {
            "game": game_id.hex(),
            "seat": 1,
            "code": "AAAA-BBBB",
            "addresses": [["127.0.0.1", 9], None],
            "bind": "127.0.0.1",
            "port": 0,
            "player": "bot:heuristic",
            "over": False,
        }
    )

    async def game(*args: Any, **kwargs: Any) -> str:
        await asyncio.sleep(0)
        return "played"

    monkeypatch.setattr(run, "_run_game", game)
    said: list[str] = []
    assert await run.resume_game(data, None, say=said.append) == "played"
    [line] = [s for s in said if s.startswith("resuming")]
    assert line.startswith(f"resuming game {game_id.hex()[:16]}: your seat 1 ("), line
    assert ", round 1, from where your node stopped (step " in line, line
    assert line.endswith(" of its log)") and "at step" not in line, line


def test_the_command_line_puts_a_command_on_a_line_of_its_own_in_a_pipe_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/ui.md, "A command stays whole on a line of its own": in a pipe the command line's
    end read "check it offline with:  <cmd>", the two spaces a slip beside every other
    command, which stands on a line of its own (the demo's, the leave's)."""
    monkeypatch.setattr(lines, "width_of", lambda stream: None)  # (a pipe)
    cli._say_command("check it offline with:", "p2puno replay /d/log")
    assert capsys.readouterr().out.splitlines() == [
        "check it offline with:",
        f"{lines.COMMAND_INDENT}p2puno replay /d/log",
    ]
