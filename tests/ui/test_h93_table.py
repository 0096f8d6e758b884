"""helper-93's brief: the table's screens a first-time user (helper-92) tripped on at 80x24. The
stop box's first Enter did nothing; a resumed seat whose table had gone on without it read that
its bot "played" a turn nobody took; a spectator's help named a player's keys and its m said
"no chat here ... once the game is on" mid-game; the end box's replay command read "LOG: the
log's path above"; the host's lobby opened on a lone "p2puno join ..." (docs/ui.md,
"helper-93")."""

from __future__ import annotations

import asyncio
import functools
from dataclasses import replace
from types import SimpleNamespace

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2puno.engine.game import Game
from p2puno.engine.options import Options
from p2puno.session.harness import LocalTable as SessionTable
from p2puno.session.session import Outcome, Waiting
from p2puno.ui.app import TableUI
from p2puno.ui.render import plain, render
from tests.ui.harness import Screen, press, run_out_a_turn, wait_for


def _source(g: Game) -> SimpleNamespace:
    outcome = Outcome("playing", tuple(0 for _ in range(g.players)))
    return SimpleNamespace(engine=g, outcome=outcome, waiting=lambda: Waiting(9, "x", ()))


async def test_enter_closes_the_stop_box_once_it_has_been_up_a_second() -> None:
    """docs/ui.md, "An end's grace runs from when its box is drawn": the footer under "YOUR NODE
    HAS STOPPED" says "q / Enter / Esc: close the table"; the first Enter, seconds after the box
    came, answered "your node has stopped: q closes the table" (the grace began at that key).
    A key within the grace still does not close it (one meant for the table must not close an
    end unseen); Enter a second after the box was drawn does."""
    screen = Screen(80, 24)
    now = [100.0]
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=screen.output, clock=lambda: now[0])
        ui.attach(_source(Game(Options(3))), 0, ["Ann", "Bob", "Cid"])
        app = asyncio.ensure_future(ui.app.run_async())
        try:
            await wait_for(screen, "Ann (you)", 3)
            ui.failed("since you came back, no other player could be reached")
            await wait_for(screen, "YOUR NODE HAS STOPPED", 3)
            now[0] += 0.5
            await press(pipe, "\r")
            await wait_for(screen, "your node has stopped: q closes the table", 3)
            assert not app.done()
            now[0] += 0.6  # (1.1 s since the box was drawn)
            await press(pipe, "\r")
            await asyncio.wait_for(asyncio.shield(app), 1.0)
        finally:
            ui.close()
            await asyncio.wait_for(app, 5)


def _ran_out(node: SimpleNamespace) -> TableUI:
    ui = TableUI(name="Ann", output=DummyOutput())
    ui.attach(_source(Game(Options(3))), 0, ["Ann", "Bob", "Cid"])
    ui.node = node  # type: ignore[assignment]
    run_out_a_turn(ui)
    return ui


def test_a_resumed_turn_the_bot_plays_is_not_said_played_before_anyone_took_it() -> None:
    """protocol/lobby.md 5 and GameNode.reached_since_resume: a resumed node's bot's move is
    proposed, and counts only once the others answer. helper-92's seat, voted out while
    away, read "your node's bot played it; the next one is yours" over a hand of 7: nobody
    was there to take it. While the node has reached nobody since it came back, the words
    say so; reached, the bot plays it; once the step is done (resumed_at cleared), it played
    it."""
    reached = [False]
    node = SimpleNamespace(
        due_since=1.0,
        turn_limit=0.05,
        person_is_back=lambda: None,
        resumed_at=(12, 1.0),
        # (GameNode.reached_since_resume: True once resumed_at is cleared)
        reached_since_resume=lambda: node.resumed_at is None or reached[0],
        # (what the table reads of a node on each drawing)
        wait_left=lambda: None,
        away=set,
        left=frozenset(),
        stops_alone=lambda: not reached[0],
        spectators=list,
    )
    ui = _ran_out(node)
    said = ui.view().message
    assert "played" not in said and "plays it" in said, said
    assert "counts only once another player answers" in said, said
    assert "none has since you came back" in said, said
    assert "the next one is yours" not in said, said
    reached[0] = True  # (a seat that went on without it answered)
    said = ui.view().message
    assert said == "your turn ran out while you were away, so your node's bot plays it; " + (
        "the next one is yours"
    ), said
    node.resumed_at = None  # (the step it came back into is done: the move was taken)
    said = ui.view().message
    assert "bot played it; the next one is yours" in said, said


def _spectator_ui() -> TableUI:
    ui = TableUI(name="Eve", output=DummyOutput(), spectator=True)
    ui.attach(_source(Game(Options(3))), None, ["Ann", "Bob", "Cid"])
    watching = SimpleNamespace(away=frozenset(), left=frozenset(), wait_left=lambda: None)
    ui.watching = watching  # type: ignore[assignment]
    return ui


def test_a_spectators_help_names_only_what_a_spectator_can_do() -> None:
    """docs/ui.md, "Watching and resuming" (no hand row: it has no seat and no key in the game;
    spectators neither send nor see the chat): the spectator's ? listed "On your turn", "m say
    something to the table", "q leave the table (asks first)" and "One player leaving ends the
    game for everyone" (helper-92's brief)."""
    ui = _spectator_ui()
    ui.key("?")
    text = "\n".join(plain(render(ui.view(), 80, 24)))
    for player_only in ("On your turn", "m say", "leave the table", "A player who leaves"):
        assert player_only not in text, text
    assert "q               stop watching (asks first; the game goes on without you)" in text
    assert "neither sends nor sees" in text, text
    ui.key("?")  # (its footer says q as the help does: it said "q leave", helper-93)
    text = "\n".join(plain(render(ui.view(), 80, 24)))
    assert "q stop watching" in text and "q leave" not in text, text
    # a player's help is as it was
    player = TableUI(name="Ann", output=DummyOutput())
    player.attach(_source(Game(Options(3))), 0, ["Ann", "Bob", "Cid"])
    player.key("?")
    text = "\n".join(plain(render(player.view(), 80, 24)))
    assert "On your turn" in text and "m say something to the table" in text, text


def test_m_in_a_watch_says_spectators_have_no_chat() -> None:
    """docs/ui.md (m: "Spectators neither send nor see it"): m in a game being watched said "no
    chat here: a seat's table has it once the game is on", the game on."""
    ui = _spectator_ui()
    ui.key("m")
    said = ui.state.message
    assert said.startswith("no chat for spectators"), said
    assert "once the game is on" not in said and ui.state.mode == "play"


@functools.cache
def _ended_table() -> SessionTable:
    table = SessionTable(Options(2, target=60), seed="r2")
    table.run()
    return table


def _end_box(path: str, width: int) -> list[str]:
    s0 = _ended_table().sessions[0]
    ui = TableUI(name="P0", output=DummyOutput())
    ui.attach(s0, 0, [p.name for p in s0.log.players])
    ui.on_events(list(s0.events))
    ui.log_path = path
    ui.inputs = lambda: replace(TableUI.inputs(ui), command="p2puno")  # type: ignore[method-assign]
    return plain(render(ui.view(), width, 24))


def test_the_end_boxs_replay_command_stands_whole_where_the_screen_has_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/ui.md, "The end box's replay command is whole wherever it fits": the host's end
    box, its log in the default data directory, read "replay it: p2puno replay LOG --table
    (LOG: the log's path above)". A path under the home directory is said from "~/" in the
    command (which every shell expands), so the whole command fits the box at 80 columns; one
    wider than the box's text but not the screen stands on a row of its own; one wider than
    the screen says it with LOG for the path, the "log:" line just above."""
    monkeypatch.setenv("HOME", "/home/annabel-longname")
    path = "/home/annabel-longname/.local/share/p2puno/games/d15312add0de3339/log"
    cmd = "p2puno replay ~/.local/share/p2puno/games/d15312add0de3339/log --table"
    lines = _end_box(path, 80)
    assert any(line.strip(" │") == cmd for line in lines), lines
    assert any(path in line or path.endswith(line.strip(" │")) for line in lines), lines
    # not under the home: as wide as the screen's row, not the box's text
    monkeypatch.setenv("HOME", "/root")
    lines = _end_box(path, 94)
    whole = f"p2puno replay {path} --table"
    assert len(whole) + 1 > 94 - 6 and len(whole) + 1 <= 94
    assert any(line.strip() == whole for line in lines), lines
    lines = _end_box(path, 80)
    text = " ".join(line.strip(" │") for line in lines)
    assert "p2puno replay LOG --table" in text, text
    assert "(LOG: the log's path above)" in text, text


def test_the_terminals_replay_command_says_a_path_under_the_home_from_its_tilde(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same rule for the line the terminal gets once the table is gone ("check it
    offline with:", node.game.replay_command): helper-93 saw it broken at 80 columns by the
    default data directory's path under /home/<name>. Quoted where the shell needs it, and
    the "~" outside the quotes (a shell expands only a bare one)."""
    from p2puno.node.game import replay_command

    monkeypatch.setenv("HOME", "/home/annabel-longname")
    cmd = replay_command("/home/annabel-longname/.local/share/p2puno/games/d15312add0de3339/log")
    assert cmd.endswith(" replay ~/.local/share/p2puno/games/d15312add0de3339/log"), cmd
    cmd = replay_command("/home/annabel-longname/Application Support/p2puno/log")
    assert cmd.endswith(" replay ~/'Application Support/p2puno/log'"), cmd
    assert replay_command("/tmp/x y/log").endswith(" replay '/tmp/x y/log'")
    assert replay_command("/home/annabel-longnamer/log").endswith(" /home/annabel-longnamer/log")


def test_the_hosts_lobby_never_shows_a_lone_join_command() -> None:
    """docs/ui.md, "The host's lobby says the join command once, with its words": its first
    frame (no table yet) showed " p2puno join 127.0.0.1:PORT" alone on row 2, the node's line
    under "others join with:" without it, and once the table showed it stayed there above the
    lobby's own "others join with:  p2puno join ..." (helper-92's brief)."""
    ui = TableUI(name="Host", host=True, output=DummyOutput())
    ui.say('table "Host\'s table" open on 127.0.0.1:42635; others join with:')
    ui.say("    p2puno join 127.0.0.1:42635")
    first = [line.rstrip() for line in plain(ui.lines(80, 24))]
    joins = [i for i, line in enumerate(first) if "p2puno join 127.0.0.1:42635" in line]
    assert len(joins) == 1, first
    at = joins[0]
    assert first[at].strip() == "p2puno join 127.0.0.1:42635" or "join with:" in first[at]
    assert "others join with:" in first[at] or first[at - 1].endswith("others join with:")
    timing = {"turn_s": 60, "step_s": 20, "window_ms": 2500}
    ui.on_table(
        {
            "name": "Host's table",
            "size": 3,
            "seats": [{"name": "Host", "kind": "person", "runner": "self", "key": "ab"}],
            "options": {"timing": timing, "target": 500},
        }
    )
    shown = [line.rstrip() for line in plain(ui.lines(80, 24))]
    said = [line for line in shown if "p2puno join 127.0.0.1:42635" in line]
    assert said == [" others join with:  p2puno join 127.0.0.1:42635"], shown


@pytest.mark.parametrize("keys", [["c-c"], ["q"]])
async def test_ctrl_c_at_the_games_end_closes_it_and_the_result_is_kept(keys: list[str]) -> None:
    """protocol/lobby.md section 6, "A late resume": the node serves its game's end while the
    end is on the screen. Ctrl-C there asked the in-play leave question ("the game ends for
    everyone") over a game already over, and y returned no result ("you left the table
    before the game began"), the game task cancelled while it served (helper-97). At an end,
    Ctrl-C closes it as q does; the serving stops (end_closed) and the game's result is
    returned."""
    from p2puno.ui.app import run_table

    screen = Screen(80, 24)
    closed = asyncio.Event()
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=screen.output)
        src = _source(Game(Options(3)))
        ui.attach(src, 0, ["Ann", "Bob", "Cid"])
        ui.end_closed = closed.set  # type: ignore[method-assign]  # (its node stops serving)

        async def game() -> str:
            await wait_for(screen, "Ann (you)", 3)
            src.outcome = Outcome("stopped", (0, 0, 0), silent=(1,), voters=(0, 2))
            ui.invalidate()
            await closed.wait()  # (serving, until the end is closed)
            return "the result"

        table = asyncio.ensure_future(run_table(ui, game()))
        await wait_for(screen, "GAME STOPPED", 5)
        for k in keys:
            ui.key(k)
        assert await asyncio.wait_for(table, 5) == "the result"
        assert closed.is_set()
