"""The end box says that the node serves the end to a seat that comes back late.

While a person's end box is up, their node keeps serving the game to a seat that resumes
late (protocol/lobby.md section 6, "A late resume"), and closing the box stops it: the box
said nothing of it (the last session's note), so a person closed it at once while a friend
was restarting their node. It says so now, for a stop that named seats silent (spec 10.15:
a seat that comes back may vote late, and learns how the game ended)."""

from __future__ import annotations

import functools
from pathlib import Path

from prompt_toolkit.output import DummyOutput

from p2puno.node.game import SERVE_MAX_S, GameNode
from p2puno.node.players import BotPlayer
from p2puno.node.store import GameFiles
from p2puno.session.session import Session
from p2puno.ui.app import TableUI
from p2puno.ui.model import UiState, ViewInputs, table_view
from p2puno.ui.render import plain, render
from tests.ui.harness import seat_2_voted_out

NAMES = ["Ann", "Bot-1", "Bob"]
SAID = '"Bob" can get this end from your node by resuming'


@functools.cache  # (its views read it; the node test adds nothing to its log)
def _ann_voted_bob_out() -> Session:
    """A 3-seat game whose network went quiet after 60 entries: Ann and Bot-1 vote to stop,
    waiting for Bob (seat 2), who never comes back. Ann's session, its stop decided."""
    ann, bot, _bob = seat_2_voted_out("end-serves")
    for h in bot.log.hashes():
        ann.receive(bot.log.raw(h))  # (Bot-1's vote: it named Bob too)
    assert ann.outcome.state == "stopped" and ann.outcome.silent == (2,), ann.outcome
    return ann


def test_the_end_box_says_a_seat_back_late_gets_the_end_until_it_is_closed(
    tmp_path: Path,
) -> None:
    ann = _ann_voted_bob_out()
    assert ann.identity is not None
    node = GameNode(
        ann, ann.identity, [None, None, None], GameFiles(tmp_path / "ann"),
        BotPlayer("heuristic", "t"),
    )  # fmt: skip
    ui = TableUI(name="Ann", output=DummyOutput(), clock=lambda: 100.0)
    ui.shown = True  # (a person's screen: run_table sets it)
    ui.on_game(node)
    assert node.serve_s == SERVE_MAX_S
    text = " ".join(line.strip(" │") for line in plain(render(ui.view(), 80, 24)))
    said = 'until you close this (10 min at most), "P2" can get this end from your node by'
    assert said + " resuming" in " ".join(text.split()), text  # (the log's names: P0, P1, P2)
    # the box closed (q): the node stops serving, and the box no longer says it does
    node.stop_serving()
    text = " ".join(plain(render(ui.view(), 80, 24)))
    assert "can get this end" not in text and "GAME STOPPED" in text


def test_only_a_stop_with_someone_away_says_it_and_never_to_the_one_away() -> None:
    ann = _ann_voted_bob_out()
    serving = table_view(ann, UiState(), ViewInputs(NAMES, 0, serves=10.0))  # type: ignore[arg-type]
    assert any(SAID in line for line in serving.end or []), serving.end
    # a table nobody serves from (a bot's node, a replay): not said
    quiet = table_view(ann, UiState(), ViewInputs(NAMES, 0))  # type: ignore[arg-type]
    assert not any("can get this end" in line for line in quiet.end or [])
    # Bob's own screen, had he one: nothing to serve him
    bobs = table_view(ann, UiState(), ViewInputs(NAMES, 2, serves=10.0))  # type: ignore[arg-type]
    assert not any("can get this end" in line for line in bobs.end or [])
