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
