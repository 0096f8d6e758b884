"""helper-77's brief: words of the table a person still tripped on at 80 columns in tmux. Each
test renders the screen (the model's lines through render, as the app draws them) at 80
columns and reads a line whole: a choice line that says what the keys do at that moment, a
claim's keys and count on one line, a log path and a command never broken mid-word, the leave
question wrapped cleanly, and the node's watch address in the help (docs/ui.md, "helper-77")."""

from __future__ import annotations

import re
from itertools import pairwise
from types import SimpleNamespace

import pytest
from prompt_toolkit.output import DummyOutput

from p2puno.engine.actions import Action, Kind
from p2puno.engine.game import Game, Phase
from p2puno.engine.options import Options
from p2puno.node.game import command
from p2puno.session import Timing
from p2puno.session.harness import LocalTable as SessionTable
from p2puno.session.session import Outcome, Prompt, Waiting
from p2puno.ui.app import TableUI
from p2puno.ui.model import UiState, ViewInputs, table_view
from p2puno.ui.render import plain, render


def _source(g: Game) -> SimpleNamespace:
    outcome = Outcome("playing", tuple(0 for _ in range(g.players)))
    return SimpleNamespace(engine=g, outcome=outcome, waiting=lambda: Waiting(9, "x", ()))


def _ui(g: Game, names: list[str]) -> TableUI:
    ui = TableUI(name=names[0], output=DummyOutput(), clock=lambda: 100.0)
    ui.attach(_source(g), 0, names)  # type: ignore[arg-type]
    return ui


def _inside(lines: list[str]) -> list[str]:
    """The screen's lines without the box's borders and the margins."""
    return [line.strip().strip("│").strip() for line in lines]


def test_the_choice_line_under_a_round_end_box_says_enter_closes_the_box() -> None:
    """Under a round's end box, Enter, Space and Esc close the box and do only that (docs/ui.md,
    "The round's end stays up"): the choice line said "Play a marked card (Enter) or draw (d)."
    while the footer said Enter closes the box. It says what Enter does there, and once the
    box is closed, what it said before."""
    g = Game(Options(3))
    g.faces = list(range(108))
    g.hands, g.phase, g.turn, g.discard = [[10, 20, 40], [1, 2, 3], [4, 5]], Phase.TURN, 0, [30]
    acts = (Action(0, Kind.PLAY, 10), Action(0, Kind.DRAW))
    ui = _ui(g, ["Ann", "Bob", "Cid"])
    ui.prompt, ui.prompt_since = Prompt("turn", 9, acts, None), 99.0  # type: ignore[arg-type]
    ui.state.round_end, ui.state.round_end_no = ["ROUND 1 OVER", "  scores: ..."], 1
    boxed = plain(render(ui.view(), 80, 24))
    text = "\n".join(boxed)
    assert "ROUND 1 OVER" in text
    assert "Play a marked card (Enter)" not in text, text
    said = " Play a marked card: Enter closes the box, then Enter plays it; d draws at once."
    assert said in [line.rstrip() for line in boxed], boxed
    ui.key("enter")  # (the box only)
    assert ui.state.round_end is None and ui.prompt is not None
    text = "\n".join(plain(render(ui.view(), 80, 24)))
    assert "Play a marked card (Enter) or draw (d)." in text, text
    # the drawn card's question says it too (Enter closes the box first there as well)
    g.phase, g.drawn = Phase.DRAWN, 10
    ui.prompt = Prompt("turn", 9, (Action(0, Kind.PLAY, 10), Action(0, Kind.KEEP)), None)  # type: ignore[arg-type]
    ui.state.round_end = ["ROUND 1 OVER", "  scores: ..."]
    text = "\n".join(plain(render(ui.view(), 80, 24)))
    assert "play it (Enter)" not in text and "then Enter plays it; k keeps it" in text, text


def _claim_status(names: list[str], acts: tuple[Action, ...], boxed: bool = False) -> list[str]:
    g = Game(Options(4, jump_in=True))
    g.faces = list(range(108))
    g.hands, g.phase, g.turn, g.discard = [[10, 20, 30], [1, 2, 3], [4], [6]], Phase.TURN, 1, [40]
    ui = _ui(g, names)
    ui.prompt, ui.prompt_since = Prompt("claim", 9, acts, None), 99.0  # type: ignore[arg-type]
    if boxed:
        ui.state.round_end, ui.state.round_end_no = ["ROUND 1 OVER", "  scores: ..."], 1
    lines = plain(render(ui.view(), 80, 24))
    at = next(i for i, line in enumerate(lines) if line.startswith(" claim"))
    return [lines[at]] + [line for line in lines[at + 1 :] if re.search(r"\d s left", line)]


def test_a_claims_three_keys_and_its_count_stand_on_one_line_at_80_columns() -> None:
    """helper-77's brief: a claim with its three keys (u, c, j) and its count wrapped to two
    lines at 80 columns, the count alone on the second (spec 10.9: the window is the same few
    seconds for every seat; 002 · UNO: a player not calling UNO may be caught). Shorter words,
    every key still named with what it does, and Esc (p under a box) that lets it pass."""
    uno, jump = Action(0, Kind.UNO), Action(0, Kind.JUMP, 10)
    one = (uno, Action(0, Kind.CATCH, target=3), jump)
    two = (uno, Action(0, Kind.CATCH, target=3), Action(0, Kind.CATCH, target=2), jump)
    for names, acts, boxed in [
        (["Ann", "Bot-1", "Bot-2", "Bot-3"], one, False),
        (["Ann", "Bot-1", "Bot-2", "Annabel-Longname"], one, False),
        (["Ann", "Bot-1", "Bot-2", "Bot-3"], two, False),
        (["Ann", "Bot-1", "Bot-2", "Bot-3"], one, True),
    ]:
        status = _claim_status(names, acts, boxed)
        assert len(status) == 1, status  # (one line: its count beside the keys)
        line = status[0]
        assert re.search(r" · \d s left$", line.rstrip()), line
        assert "u " in line and "UNO" in line and "c catch" in line and "Enter jump in" in line, (
            line
        )
        assert "jump in" in line and ("p let it pass" if boxed else "Esc") in line, line


def test_the_end_boxs_log_path_is_cut_only_at_a_slash() -> None:
    """helper-77's brief: a log path wider than the end box was broken mid-word ("…/p2" /
    "puno-demo.log"). It stands on lines of its own, each cut after a '/', so the lines read
    one after the other give the path; the replay line says to use the path above."""
    table = SessionTable(Options(2, target=60), seed="r2")
    table.run()
    s0 = table.sessions[0]
    path = "/tmp/an-h77/run/a-rather-long-folder-name-for-logs/of-the-demo-game/p2puno-demo.log"
    ui = TableUI(name="P0", output=DummyOutput())
    ui.attach(s0, 0, [p.name for p in s0.log.players])
    ui.on_events(list(s0.events))
    ui.log_path = path
    lines = _inside(plain(render(ui.view(), 80, 24)))
    at = lines.index("log:")
    parts = []
    for line in lines[at + 1 :]:
        parts.append(line)
        if not line.endswith("/"):
            break
    assert len(parts) > 1 and "".join(parts) == path, lines
    assert "the log's path above" in " ".join(lines), lines


def test_the_node_stopped_box_keeps_its_resume_command_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """helper-77's brief: the "YOUR NODE HAS STOPPED" box split the resume command that ends
    its reason over two lines (a command a person types must stand whole: docs/ui.md). The
    reason is said, then the command on a line of its own; one wider than the box is said in
    words, where it is shown."""
    import p2puno.node.game as node_game

    # (the program as an activated venv names it: a clean clone's longer path made the short
    # command wider than the box, and the test read the words for a wide one)
    monkeypatch.setattr(node_game, "command", lambda: "p2puno")
    g = Game(Options(3))
    prog = "p2puno"
    short = f"{prog} resume 3fa2c1d0a1b2c3d4 --data-dir /tmp/d"
    wide = f"{prog} resume 3fa2c1d0a1b2c3d4 --data-dir /tmp/an-h77/" + "x" * 60
    reason = (
        "your node lost its connection to every other player, and the time to answer has run "
        "out: take it up again once another player can be reached"
    )
    for cmd in (short, wide):
        ui = _ui(g, ["Ann", "Bob", "Cid"])
        ui.failed(f"{reason}: {cmd}")
        lines = _inside(plain(render(ui.view(), 80, 24)))
        assert "YOUR NODE HAS STOPPED" in lines, lines
        if cmd is short:
            assert cmd in lines, lines
        else:
            assert not any("--data-dir" in line for line in lines), lines
            said = " ".join(lines)
            assert "wider than this screen: the terminal shows it when the table" in said, said


def test_the_leave_question_wraps_cleanly_and_keeps_its_command_whole() -> None:
    """helper-77's brief: the leave question (q) was broken into lines in advance, which the
    screen then wrapped again: short lines after the command, and a resume command of 79
    cells split at a space (helper-70). Each sentence is wrapped at the screen's width, every
    line but a sentence's last as full as its next word allows; the command stands whole."""
    table = SessionTable(Options(3), seed="leave")
    src = table.sessions[0]
    for hint in (
        "/work/main/.venv/bin/p2puno resume --data-dir /tmp/an-h77/run/data-dir",
        "/tmp/an-h70/clone/.venv/bin/p2puno resume --data-dir /tmp/p2puno-demo-khcctilh",
    ):
        for notes in (["", "", ""], ["", "on host", "on host"], ["", "", "on host"]):
            vi = ViewInputs(["Ann", "Bob", "Cy"], 0, resume_hint=hint, notes=notes)
            lines = plain(render(table_view(src, UiState(mode="quit"), vi), 80, 24))
            at = next(i for i, line in enumerate(lines) if "Leave the table?" in line)
            question = [line.rstrip() for line in lines[at:-1]]
            assert hint in [line.strip() for line in question], question
            for line, after in pairwise(question):
                if hint in line or hint in after or not after.strip():
                    continue
                if line.rstrip().endswith("."):  # (a sentence's end)
                    continue
                word = after.split()[0]
                assert len(line) + 1 + len(word) > 80, (line, after)


def test_the_help_names_the_nodes_watch_address() -> None:
    """helper-77's brief: "others can watch the game with  p2puno watch HOST:PORT" was said
    once in the moves and scrolled out. The help (?) says it for the rest of the game, whole
    on one line: the node's own address, as its node has it (not read off a line said, which
    a peer's words may be in)."""
    table = SessionTable(Options(3), seed="watch")
    s0 = table.sessions[0]
    node = SimpleNamespace(
        session=s0,
        me=0,
        timing=Timing(),
        files=SimpleNamespace(log_path="/x/log"),
        code="ABCD-EFGH",
        wait_left=lambda: None,
        turn_limit=60.0,
        away=lambda: set(),
        left=set(),
        stops_alone=lambda: False,
        spectators=lambda: [],
        due_since=None,
        watch_address="127.0.0.1:40123",
        serve_s=0.0,
        serves_end=lambda: False,
    )
    ui = TableUI(name="P0", output=DummyOutput())
    ui.on_game(node)  # type: ignore[arg-type]
    ui.say("others can watch the game with  p2puno watch evil.example:1")
    ui.state.mode = "help"
    for rows in (24, 30):
        lines = [line.strip() for line in plain(render(ui.view(), 80, rows))]
        assert "Others can watch this game with:  p2puno watch 127.0.0.1:40123" in lines, lines
        assert not any("evil" in line for line in lines), lines
        assert lines[-1].startswith("any key: back to the table"), lines
    # once the game is over a node refuses a spectator ("the game is over"): the help no
    # longer offers the command (helper-99 ran it from there)
    over = SessionTable(Options(3, target=20), seed="watch-over")
    over.run()
    assert over.sessions[0].outcome.over
    ui = TableUI(name="P0", output=DummyOutput())
    ui.on_game(SimpleNamespace(**(vars(node) | {"session": over.sessions[0]})))  # type: ignore[arg-type]
    ui.state.mode = "help"
    text = " ".join(plain(render(ui.view(), 80, 24)))
    assert "HELP" in text.upper() and "p2puno watch" not in text, text


def test_a_node_that_stops_under_a_round_end_box_shows_the_stop() -> None:
    """helper-77 in tmux: the node stopped (every other seat gone) while a round's end box was
    still up; the box stayed, its footer "Enter, Space or Esc: close round 1's end" (those
    keys close the table then), the wait's "0 s left" under it, the stop only in the message
    line. The stop's box takes the round's place."""
    g = Game(Options(3))
    ui = _ui(g, ["Ann", "Bob", "Cid"])
    ui.state.round_end, ui.state.round_end_no = ["ROUND 1 OVER", "  scores: ..."], 1
    ui.failed(f"your node lost its connection to every other player: {command()} resume 3fa2")
    lines = _inside(plain(render(ui.view(), 80, 24)))
    assert "YOUR NODE HAS STOPPED" in lines and "ROUND 1 OVER" not in lines, lines
    assert f"{command()} resume 3fa2" in lines, lines
    assert lines[-1].startswith("q / Enter / Esc: close the table (your node has stopped)"), lines


def test_under_a_games_end_the_footer_does_not_offer_to_close_a_rounds_end() -> None:
    """helper-83: the game ended with the last round's end box not closed; the footer under
    GAME OVER still read "Enter, Space or Esc: close round 1's end", and Enter closed the
    whole table. The game's end box's own footer stands there (docs/ui.md, "The round's end
    stays up")."""
    g = Game(Options(3))
    ui = _ui(g, ["Ann", "Bob", "Cid"])
    ui.state.round_end, ui.state.round_end_no = ["ROUND 1 OVER", "  scores: ..."], 1
    ui.source.outcome = Outcome("finished", (500, 0, 0), winners=(0,))  # type: ignore[union-attr]
    lines = plain(render(ui.view(), 80, 24))
    assert not any("close round 1's end" in line for line in lines), lines


def test_a_stopped_nodes_resume_command_stands_whole_at_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """helper-83: the table's stop box said the resume command "is wider than this screen: the
    terminal shows it when the table closes", and the terminal then printed it wrapped at
    spaces, "--data-dir" on one line and its folder on the next. The node's reason is wrapped
    at words and the command is put whole on a line of its own."""
    import p2puno.ui.lines as lines
    from p2puno.ui.lines import resume_split, say_command

    back = f"{command()} resume 4e30413780dae626 --data-dir /tmp/an-h83/a-rather-long/ann"
    text = f"your node could not reach the others, who may be offline: {back}"
    assert resume_split(text) == ("your node could not reach the others, who may be offline", back)
    assert resume_split("no command here") == ("no command here", "")
    monkeypatch.setattr(lines, "width_of", lambda stream: 60)
    said: list[str] = []
    why, cmd = resume_split(text)
    say_command(f"p2puno: {why}:", cmd, said.append)
    assert said[-1].strip() == back and all(len(line) <= 60 for line in said[:-1]), said
