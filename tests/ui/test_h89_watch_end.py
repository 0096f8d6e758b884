"""helper-87's spectator (helper-89's brief): a watch that ends before the game's verdict (no
node of the table answers, an error) is said on the spectator's screen at once, in a box as
the players' end and stop boxes are, the spinner and the counts stopped; while it looks for
a node, the screen says so (not the wait of the node gone, at "0 s left"); no line says it
watches "through another seat" when there was none, nor that "the others vote" when no other
seat is left; the terminal's last line is true in each case (docs/ui.md, "A spectator's watch
that ends")."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from prompt_toolkit.input import create_pipe_input

from p2puno import cli
from p2puno.engine import Options
from p2puno.net import LinkError, MsgType
from p2puno.node import watch
from p2puno.node.watch import Spectator, WatchResult
from p2puno.session.harness import LocalTable, quiet_after
from p2puno.session.session import Session, Timing
from p2puno.ui.app import TableUI, run_table
from p2puno.wire import encode
from tests.ui.harness import Screen, press, wait_for

NAMES = ["Hosta", "Bot-1", "Jo"]


def _mid_game() -> Session:
    """A 3-seat game cut after 40 entries: a wait in progress, as the spectator last saw it."""
    table = LocalTable(Options(3, target=500), seed="h89-watch", tamper=quiet_after(40))
    table.run()
    return table.sessions[2]


def _spectator(session: Session) -> Spectator:
    spectator = Spectator(name="Eve")
    spectator.session = session
    spectator.through = 2
    return spectator


async def test_the_watchs_end_is_in_a_box_at_once_and_nothing_counts_or_spins(
    tmp_path: Path,
) -> None:
    """Brief (helper-87 at 80x24): the last node gone, the spectator counted "0 s left", then
    a spinner for minutes; only the terminal said "stopped watching" once q and y were
    pressed. While it looks for a node the screen says so; once the watch has ended, a box
    says why, what was checked and the command that replays its copy of the log, the footer
    names the keys that close it, and Enter closes it (no "Stop watching?" question)."""
    session = _mid_game()
    spectator = _spectator(session)
    log = tmp_path / "watched" / "game.log"
    screen = Screen(80, 24)
    go_on = asyncio.Event()

    async def watching() -> WatchResult:
        ui.on_watch(spectator)
        await wait_for(screen, "P2", 5)
        spectator.lost = "Jo's node (seat 2) left the table"
        spectator.seeking = time.monotonic() + 60.0
        await go_on.wait()
        return WatchResult(
            session.outcome, "ab12", len(session.log), session.processed + 1, 1,
            "no node of the table answered for 60 s: the players' nodes have stopped, or "
            "are out of reach",
            log, NAMES,
        )  # fmt: skip

    with create_pipe_input() as pipe:
        now = [100.0]  # (the table's clock: the end's grace before Enter closes it)
        ui = TableUI(
            name="Eve",
            input=pipe,
            output=screen.output,
            tick_s=0.05,
            spectator=True,
            clock=lambda: now[0],
        )
        task = asyncio.ensure_future(run_table(ui, watching()))
        seeking = await wait_for(screen, "trying the other seats' nodes", 5)
        assert "Jo's node (seat 2) left the table" in seeking
        assert "waiting for" not in seeking, seeking  # (the wait of the node gone: not shown)
        go_on.set()
        text = await wait_for(screen, "YOU ARE NO LONGER WATCHING", 3)
        assert "no node of the table answered for 60 s" in text, text
        assert f"{session.processed + 1} steps checked (steps 0 to {session.processed})" in text
        assert "replay" in text and str(log.name) in text, text
        assert "q / Enter / Esc: close the table" in text, text
        assert "s left" not in text and "trying" not in text, text
        # the spinner and the counts have stopped: the screen stays as it is
        before = screen.text
        await asyncio.sleep(0.3)
        assert screen.text == before
        # Enter closes it as the footer says, once the box has been up a moment (END_GRACE_S,
        # from when it was drawn: it said "q closes the table" to an Enter a minute later)
        now[0] += 2.0
        await press(pipe, "\r")
        result = await asyncio.wait_for(task, 2)
    assert isinstance(result, WatchResult) and result.error is not None


async def test_a_spectator_whose_last_node_left_does_not_say_another_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Brief: "Jo's node (seat 2) left the table: watching through another seat" was said
    when there was none. The line says the other seats' nodes are tried; the watch ends with
    why, and it is said nowhere that it watches through another seat."""
    monkeypatch.setattr(watch, "GIVE_UP_S", 0.3)
    said: list[str] = []
    spectator = _spectator(_mid_game())
    spectator.say = said.append
    spectator.addresses = [None, None, None]  # (no other seat's node to dial)
    error = LinkError("bye", "left")
    spectator.link = SimpleNamespace(closed=True, error=error)  # type: ignore[assignment]
    why = await asyncio.wait_for(spectator._follow(), 5)
    assert why is not None and why.startswith("no node of the table answered"), why
    assert said == [
        "P2's node (seat 2) left the table: trying the other seats' nodes (for up to 0 s)"
    ], said
    assert not any("watching through" in line for line in said)
    assert spectator.seeking is not None  # (the table shows the search until the result)


def test_a_seat_that_left_when_no_other_is_left_is_not_voted_out_by_the_others() -> None:
    """Brief: "Bot-1 (seat 1) left the table: the others vote the seat out unless it is back
    within 5 s" when no seat remained to vote. The node watched through, alone, stops the
    game unfinished there when one seat gone did not say it was leaving (GameNode._cut_off,
    protocol/lobby.md 5); with every other seat said leaving it votes alone; the host gone,
    the bots its machine runs stop with it, and nobody votes."""
    players = [SimpleNamespace(name=n) for n in NAMES]
    said: list[str] = []
    spectator = Spectator(name="Eve", say=said.append)
    spectator.session = SimpleNamespace(  # type: ignore[assignment]
        n=3, log=SimpleNamespace(players=players), timing=Timing(step_s=5),
        outcome=SimpleNamespace(over=False),
    )  # fmt: skip
    spectator.through = 2
    for away, left in (([0], []), ([0], [1])):
        spectator._on_message(MsgType.LOBBY, encode({"t": "seats", "away": away, "left": left}))
    assert said[-1] == (
        "Bot-1 (seat 1) left the table: nobody is left to vote: Jo's node, connected to no "
        "other player, stops the game unfinished there unless it is back within 5 s of when the "
        "game waits for it"
    ), said
    assert not any("the others vote" in line for line in said)
    said.clear()
    spectator._told.clear()
    spectator._on_message(MsgType.LOBBY, encode({"t": "seats", "away": [], "left": [0, 1]}))
    assert said[-1].endswith("left the table: Jo's node votes the seat out unless it is back "
                             "within 5 s of when the game waits for it"), said  # fmt: skip
    # the host gone, and the node watched through one of the bots its machine runs: they
    # stop with their host (its own lines say so), so nobody votes at all
    said.clear()
    spectator._told.clear()
    spectator.host_bots = frozenset({1, 2})
    spectator._on_message(MsgType.LOBBY, encode({"t": "seats", "away": [], "left": [0, 1]}))
    assert said[-1] == (
        "Bot-1 (seat 1) left the table: nobody is left to vote: the host has gone, and the "
        "bots it runs stop with it"
    ), said
    spectator.host_bots = frozenset()
    # another seat still there: the others vote, as before
    said.clear()
    spectator._told.clear()
    spectator._on_message(MsgType.LOBBY, encode({"t": "seats", "away": [], "left": [1]}))
    assert "the others vote the seat out" in said[-1], said


def test_the_terminals_last_line_is_true_for_each_end(capsys: pytest.CaptureFixture[str]) -> None:
    """Brief: "(74 steps checked (steps 0 to 73), 2 decks audited)" had brackets in
    brackets; "game: not over yet" though the spectator saw no end; leaving while no node
    answered said "the game goes on without you"."""
    session = _mid_game()
    result = WatchResult(
        session.outcome, "ab12", 74, 74, 2, "no node of the table answered for 60 s", None, NAMES
    )
    with pytest.raises(cli.typer.Exit):
        cli._finish_watch(result, False)
    out = capsys.readouterr().out
    assert (
        "stopped watching: no node of the table answered for 60 s; 74 steps checked (steps 0 "
        "to 73), 2 decks audited"
    ) in " ".join(out.split()), out
    assert "game: its end not seen here: the watch ended first; scores:" in out, out
    spectator = _spectator(session)
    spectator.seeking = time.monotonic() + 30
    line = cli._left_watching(spectator)
    assert "goes on without you" not in line
    assert line.startswith("you stopped watching while no node of the table answered"), line
    spectator.seeking = None  # (watching through a node: the game goes on)
    assert "the game goes on without you" in cli._left_watching(spectator)
