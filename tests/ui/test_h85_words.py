"""helper-83's evening as a person, the table's words (helper-85's brief): a stop every seat
voted for says whose absence began it, and a Wild Draw Four's choice line fits 80 columns with
a long name (docs/ui.md, "A stop every seat voted for says whose absence began it" and "A
choice line with a long name")."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from prompt_toolkit.output import DummyOutput

from p2puno.engine import Options
from p2puno.engine.actions import Action, Kind
from p2puno.engine.game import Game, Phase
from p2puno.node.game import GameNode
from p2puno.node.players import BotPlayer
from p2puno.node.store import GameFiles
from p2puno.session import Timing
from p2puno.session.session import Outcome, Prompt, Session, Waiting
from p2puno.ui.app import TableUI
from p2puno.ui.model import UiState, ViewInputs, table_view, waited_for_first
from p2puno.ui.render import plain, render
from tests.ui.harness import seat_2_voted_out

NAMES = ["Ann", "Bot-1", "Bob"]


def _stopped_while_bob_was_away() -> tuple[Session, list[bytes]]:
    """A 3-seat game whose network went quiet after 60 entries: Ann and Bot-1 vote to stop,
    waiting for Bob (seat 2); Bob, back (as `p2puno resume` brings a seat back), has not got
    their votes yet. Returns Bob's session and the entries he gets once back."""
    ann, bot, bob = seat_2_voted_out("h85-away")
    later = [s.log.raw(h) for s in (ann, bot) for h in s.log.hashes()]
    return bob, later


def test_a_stop_every_seat_voted_for_says_whose_absence_began_it(tmp_path: Path) -> None:
    """helper-83: a seat back in time (`p2puno resume`) found the others' votes to stop, which
    waited for it, and joined them (session.py ``_on_vote``: the voter writes nothing more);
    its box read "GAME STOPPED by every player's vote / so say the votes of Ann, Bot-1 and
    you", no word of the absence that caused it. The box and the node's line say it now
    (spec 10.15: a vote names the seats it waits for; docs/ui.md, "A stop every seat voted
    for says whose absence began it")."""
    bob, later = _stopped_while_bob_was_away()
    said: list[str] = []
    files = GameFiles(tmp_path / "bob")
    player = BotPlayer("heuristic", "t")
    node = GameNode(bob, bob.identity, [None, None, None], files, player, say=said.append)  # type: ignore[arg-type]
    for raw in later:
        bob.receive(raw)
    node._join(time.monotonic())  # (the node's timer, its input quiet: it joins the votes)
    node._pump()
    o = bob.outcome
    assert o.state == "stopped" and not o.silent and waited_for_first(o) == (2,), o
    joined = [line for line in said if line.startswith("you were away")]
    assert len(joined) == 1 and '"P0" (seat 0)' in joined[0], said  # (the log's names)
    assert "your node joins their votes, and the game ends for everyone" in joined[0]
    node._pump()
    assert len([line for line in said if line.startswith("you were away")]) == 1  # (once)
    mine = table_view(bob, UiState(), ViewInputs(NAMES, 2))  # type: ignore[arg-type]
    end = mine.end or []
    assert end[0] == "GAME STOPPED: the others voted to stop while you were away", end
    assert end[1].endswith("and you (your node joined theirs when it was back)"), end
    screen = "\n".join(plain(render(mine, 80, 24)))
    assert "every player's vote" not in screen
    assert "│ GAME STOPPED: the others voted to stop while you were away   " in screen
    # the others' screens name the seat, as the stops that name a seat do; a voter's own
    # says "you voted" (helper-100 read "the others voted" on the one voter's screen), a
    # spectator's "the others"
    theirs = table_view(bob, UiState(), ViewInputs(NAMES, 0))  # type: ignore[arg-type]
    assert (theirs.end or [""])[0] == 'GAME STOPPED: you voted to stop while "Bob" was away'
    vi = ViewInputs(NAMES, 0, left=frozenset({2}))
    bye = table_view(bob, UiState(), vi)  # type: ignore[arg-type]
    assert (bye.end or [""])[0] == 'GAME STOPPED: "Bob" left the table, and you voted to stop'
    watching = table_view(bob, UiState(), ViewInputs(NAMES, None))  # type: ignore[arg-type]
    assert (watching.end or [""])[0] == (
        'GAME STOPPED: the others voted to stop while "Bob" was away'
    )


def _window_source(g: Game) -> SimpleNamespace:
    """A claim window in progress where "Bob" (seat 1) can be caught: every seat's window
    entry still to come (spec 10.9: each seat's leaves W after the step before)."""
    outcome = Outcome("playing", tuple(0 for _ in range(g.players)))
    return SimpleNamespace(
        engine=g,
        outcome=outcome,
        waiting=lambda: Waiting(9, "window", (0, 1, 2), {}),
        claims_open=lambda: ((1,), False),
    )


def test_a_spectators_claim_window_counts_as_the_players_claim_line_does() -> None:
    """helper-83: a player's claim line reads 'claim now: ... · 2 s left', the spectator's
    'claim window (UNO call or catch on "Bob"): waiting for ...' with no count. The window is
    W for every seat (spec 10.9, docs/ui.md "The claim window's length"): the spectator counts
    what is left of it as the players do, from the wait report of the node it watches
    through (its seconds waited), else from its own clock (docs/ui.md, "A spectator's claim
    window counts as the players' does")."""
    g = Game(Options(3))
    g.faces = list(range(108))
    g.hands, g.phase, g.turn, g.discard = [[10, 20], [1], [4, 5]], Phase.TURN, 2, [30]
    now = [100.0]
    timing = Timing(step_s=5, turn_s=60, window_ms=2500)
    # the player's line, for the same window: W from when it was asked
    player = TableUI(name="Ann", output=DummyOutput(), clock=lambda: now[0])
    player.attach(_window_source(g), 0, NAMES)  # type: ignore[arg-type]
    player.timing = timing
    claim = Prompt("claim", 9, (Action(0, Kind.CATCH, target=1),), None)  # type: ignore[arg-type]
    player.prompt, player.prompt_since = claim, 99.5
    assert player.inputs().prompt_left == pytest.approx(2.0)
    # the spectator, through a node that has waited 0.5 s on this window
    eve = TableUI(name="Eve", output=DummyOutput(), clock=lambda: now[0])
    eve.attach(_window_source(g), None, NAMES)  # type: ignore[arg-type]
    eve.timing = timing
    eve.watching = SimpleNamespace(  # type: ignore[assignment]
        away=frozenset(), left=frozenset(), wait_left=lambda: (7.0, 0.5, False)
    )
    assert eve.inputs().wait_left == pytest.approx(2.0)
    status = [line for line in plain(render(eve.view(), 80, 24)) if "claim window" in line]
    assert status and status[0].rstrip().endswith("· 2 s left"), status
    # no report yet: its own clock, from when it saw the window
    eve.watching = SimpleNamespace(away=frozenset(), left=frozenset(), wait_left=lambda: None)  # type: ignore[assignment]
    assert eve.inputs().wait_left == pytest.approx(2.5)
    now[0] += 1.0
    assert eve.inputs().wait_left == pytest.approx(1.5)
    now[0] += 5.0  # (late: the vote's count, once it is longer than usual, as before)
    assert eve.inputs().wait_left == pytest.approx(timing.step_s + 2.5 - 6.0)
    # nothing to claim: a window every seat passes at once shows no count (docs/ui.md)
    eve.attach(  # type: ignore[arg-type]
        SimpleNamespace(**{**vars(_window_source(g)), "claims_open": lambda: ((), False)}),
        None,
        NAMES,
    )
    eve._wait_key = None
    assert eve.inputs().wait_left is None


@pytest.mark.parametrize("color", [0, 1])
def test_a_wild_draw_four_choice_fits_80_columns_with_a_long_name(color: int) -> None:
    """helper-83: with a name over 8 characters the Wild Draw Four's choice lines were cut
    at the 80-column edge ("you see Bartholomew-the-Gr"). They fit now, at every name length
    a seat may have (32 characters), the offender named, the rule whole (002 · Wild Draw Four:
    challenged, a guilty player draws 4, else the challenger draws 6). Names of 8 characters
    keep the words they had."""
    for name, whole in (
        ("Annabel1", True),
        ("Bartholomew-the-Gre", False),
        ("Bartholomew-the-Grea", False),
        ("B" * 32, False),
    ):
        g = Game(Options(3))
        g.faces = list(range(108))
        g.hands, g.phase, g.turn, g.discard = [[10, 20], [1, 2], [4, 5]], Phase.PENALTY, 0, [30]
        g.pending, g.offender, g.wd4_color = 4, 2, color
        acts = (Action(0, Kind.TAKE), Action(0, Kind.CHALLENGE))
        ui = TableUI(name="Ann", output=DummyOutput(), clock=lambda: 100.0)
        ui.attach(_window_source(g), 0, ["Ann", "Bob", name])  # type: ignore[arg-type]
        ui.prompt, ui.prompt_since = Prompt("turn", 9, acts, None), 99.0  # type: ignore[arg-type]
        screen = plain(render(ui.view(), 80, 24))
        text = "\n".join(screen)
        lines = ui.view().choice_lines
        assert all(len(line) <= 79 for line in lines), lines  # (render: " " + line)
        assert name in text and "you draw 6." in text, lines
        assert "draw 4, turn lost." in text and "c challenge:" in text
        said = " c challenge: you see " + name + "'s hand;"
        assert (said in text) is whole, lines
