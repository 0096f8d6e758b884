"""One wording for a game's events (p2puno.sim.words): the demo's and `--narrate`'s lines are
the table's move list, word for word, with the narration's own choice of which to tell."""

from __future__ import annotations

import random

import pytest

from p2puno.bots import make_bot
from p2puno.engine.options import Options
from p2puno.sim.narrate import Narrator
from p2puno.sim.runner import Table
from p2puno.sim.words import event_words


@pytest.mark.parametrize("verbose", [True, False])
def test_the_narration_says_each_event_in_the_tables_words(verbose: bool) -> None:
    """Every house rule on, so swaps, rotations, stacks and jump-ins come up (002 · House
    Rules): each narrated line is the table's line for that event (a round's start adds the
    scores, a round's end every hand left)."""
    options = Options(4, target=200, progressive=True, seven_o=True, jump_in=True)
    names = ["Ann", "Bob", "Cid", "Dee"]
    narrator = Narrator(names, 0.0, verbose, color=False)
    table = Table(options, [make_bot("heuristic", f"w{s}") for s in range(4)], random.Random(3))
    told = 0
    kinds: set[str] = set()
    while not table.over:
        _, events = table.step()
        for e in events:
            line = narrator.describe(table.game, e)
            if line is None:
                continue
            told += 1
            kinds.add(e.kind)
            if e.kind == "round":
                assert line.startswith(f"\n=== Round {e.value}: {names[e.seat]} deals.  Scores:")
                continue
            words = event_words(table.game, names, None, e)
            assert words is not None and line.splitlines()[0] == f"  {words}", (e, line)
            if e.kind == "round-over":
                assert [ln.split()[0] for ln in line.splitlines()[1:]] == names
    assert told > (200 if verbose else 30)
    assert {"swap", "rotate", "jump", "round-over", "uno"} <= kinds


def test_seats_are_named_whole_numbers_only() -> None:
    """The session writes "seat 2", the engine "P2"; the reader sees names. Before, "seat 10"
    became "Bob0" (a text replace of "seat 1")."""
    from p2puno.session.words import named

    names = [f"N{i}" for i in range(11)]
    assert named("seat 1 and seat 10; P2 plays; P10", names) == "N1 and N10; N2 plays; N10"
    assert named("seat 12, P11", names) == "seat 12, P11"  # (no such seat: as it was)


def test_the_offline_replay_tells_the_game_in_the_tables_words(tmp_path: object) -> None:
    """`p2puno replay LOG` printed the engine's own lines ("P0 plays rR", "color is now b");
    it tells each step as the table does, players by name."""
    from pathlib import Path

    from p2puno.session.harness import LocalTable
    from p2puno.session.replay import replay

    LocalTable(Options(2, target=60), seed="words", directory=str(tmp_path)).run()
    result = replay(Path(str(tmp_path)) / "node0.log")
    assert result.ok and result.names == ["P0", "P1"]
    assert any(line.endswith("deals first") for line in result.lines)
    assert any("] Start card: " in line for line in result.lines)
    assert not any(" plays " in line for line in result.lines)  # (the engine's wording)
