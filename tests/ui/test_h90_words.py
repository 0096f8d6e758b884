"""helper-90's brief, a player's words: a penalty said once in the moves (the table's and the
replay's), long names in the seat list, and the demo's own seat by the name a person gives
(docs/ui.md, "Decisions where the issue is silent": "A penalty's cards are told once", "The
seat list's name takes 14 cells", "The demo's --name")."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2puno import demo
from p2puno.bots import make_bot
from p2puno.engine.game import UNO_PENALTY, Event, Game
from p2puno.engine.options import Options
from p2puno.session.harness import LocalTable
from p2puno.session.session import Outcome, SessionEvent, Waiting
from p2puno.sim.runner import Table
from p2puno.ui.app import TableUI
from p2puno.ui.model import UiState, ViewInputs, table_view
from p2puno.ui.render import plain, render
from p2puno.ui.replay import load

NAMES = ["Ann", "Bob", "Cid"]


def _owed(e: Event) -> tuple[int, int] | None:
    """(seat, cards) an event says a seat draws (002 · Functions of Action Cards: Draw Two,
    Wild Draw Four and its challenge; Going Out: a catch without UNO draws 2)."""
    return {
        "penalty": (e.seat, e.value),
        "innocent": (e.seat, e.value),
        "guilty": (e.other, e.value),
        "caught": (e.seat, UNO_PENALTY),
    }.get(e.kind)


def test_a_penalty_is_said_once_in_the_tables_moves() -> None:
    """The brief: "Bob took 2 and lost the turn", then "Bob drew 2 cards", the same cards
    (the engine's penalty event, then its draw of them). One line says it; your own cards are
    named on it, as a draw's are ("You drew 1 card: r7")."""
    t = Table(
        Options(3, progressive=True),
        [make_bot("random", f"h90-{s}") for s in range(3)],
        random.Random(90),
    )
    src = SimpleNamespace(engine=t.game, outcome=SimpleNamespace(over=False))
    seen = {"you": 0, "others": 0}
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput())
        ui.attach(src, 0, NAMES)
        for _ in range(4000):
            if t.over or min(seen.values()) >= 3:
                break
            _, events = t.step()
            logged = ui._logged
            ui.on_events([SessionEvent("engine", str(e), event=e) for e in events])
            new = list(ui.log)[len(ui.log) - (ui._logged - logged) :]
            for k, e in enumerate(events[:-1]):
                owed, nxt = _owed(e), events[k + 1]
                if owed is None or (nxt.kind, nxt.seat, nxt.value) != ("draw", *owed):
                    continue  # (a draw cut short by an empty pile says how many came)
                seat, n = owed
                who = "You" if seat == 0 else NAMES[seat]
                assert not any(line.startswith(f"{who} drew ") for line in new), new
                if seat != 0:
                    seen["others"] += 1
                    continue
                seen["you"] += 1
                said = [line for line in new if re.search(rf"\b{n}\b", line)]
                assert len(said) == 1, new  # (its count, once) and the cards on that line
                assert len(said[0].rsplit(": ", 1)[1].split()) == n, said
                if e.kind == "penalty":
                    assert re.fullmatch(rf"You took {n} cards and lost the turn: .+", said[0])
    assert min(seen.values()) >= 3, seen


def test_a_penalty_is_said_once_in_the_replays_moves(tmp_path: Path) -> None:
    """The replay's table (`p2puno replay --table`) reads the same words: no "drew 2 cards"
    after the penalty, the catch or the verdict that said them."""
    LocalTable(Options(2, target=20), seed="h90", directory=str(tmp_path)).run()
    lines = load(tmp_path / "node0.log").lines
    told = [
        k
        for k, line in enumerate(lines)
        if re.search(r"took \d+( cards)? and lost|draws \d+$", line)
    ]
    assert len(told) >= 3, lines
    for k in told:
        assert not re.match(r"P\d drew \d+ cards", lines[k + 1]), lines[k : k + 2]


def _seats(names: list[str], width: int, kinds: list[str] | None = None) -> list[str]:
    """The table's rows at ``width`` x 24: its header and one row a seat (seat 0 is yours)."""
    g = Game(Options(len(names)))
    src = SimpleNamespace(
        engine=g,
        outcome=Outcome("playing", tuple(0 for _ in names)),
        waiting=lambda: Waiting(9, "x", ()),
    )
    vi = ViewInputs(names, 0, kinds=kinds or ["person"] * len(names))
    lines = plain(render(table_view(src, UiState(), vi), width, 24))
    assert all(len(line) == width for line in lines), lines
    assert lines[1].startswith("   # player ") and " cards UNO  score" in lines[1], lines[1]
    assert width - lines[1].index("│") - 1 >= 29, lines[1]  # (the moves: 29 cells at 80)
    return lines[2 : 2 + len(names)]


TEN = [
    "Ann",
    "Alexander-the-Great",
    "Alexander-the-Grey",
    "Bob",
    "Maximilian-Longname",
    "Maximilian-Longnome",
    "Cid",
    "Dee",
    "Eve-whose-name-has-32-characters",
    "Zed",
]


def test_long_names_in_the_seat_list_stay_apart_at_80_and_whole_when_wider() -> None:
    """The brief: names were cut at 13 characters at any width (a name may have 32:
    node.names), and "Alexander-the-Great" / "Alexander-the-Grey" both read
    "Alexander-the…". At 80x24 with 10 seats each name shows as much as fits, two alike
    tell apart by their ends; from 98 columns every name stands whole, the moves as wide as
    at 80."""
    rows = _seats(TEN, 80)
    shown = [row[5:19].rstrip() for row in rows]  # (14 cells: the "(you)" of seat 0 in it)
    assert shown[0] == "Ann (you)" and shown[3] == "Bob" and shown[9] == "Zed", shown
    assert len(set(shown)) == 10, shown
    for name, said in zip(TEN[1:], shown[1:], strict=True):
        start, _, end = said.partition("…")
        assert name.startswith(start) and name.endswith(end), (name, said)
    assert shown[8] == "Eve-whose-nam…", shown  # (alike to none: its start)
    assert shown[1].endswith("Great") and shown[2].endswith("Grey"), shown
    # (ten seats of bots: 9 cells a name, still told apart)
    bots = _seats(TEN, 80, ["person"] + ["bot"] * 9)
    assert len({row[5:19] for row in bots}) == 10, bots
    for width in (98, 120):
        rows = _seats(TEN, width)
        for name, row in zip(TEN[1:], rows[1:], strict=True):
            assert f" {name} " in row, (width, row)


async def test_long_names_on_the_screen_at_80_then_wider() -> None:
    """The same on a terminal (the table drawn through pyte): at 80x24 with 10 seats the two
    Alexanders tell apart; widened to 100 columns, every name stands whole."""
    import asyncio

    from tests.ui.harness import Screen, wait_for

    screen = Screen(80, 24)
    src = SimpleNamespace(
        engine=Game(Options(10)),
        outcome=Outcome("playing", (0,) * 10),
        waiting=lambda: Waiting(9, "x", ()),
    )
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=screen.output, tick_s=0.1)
        ui.attach(src, 0, TEN)
        app = asyncio.ensure_future(ui.app.run_async())
        try:
            text = await wait_for(screen, "9 Zed")
            assert "1 Alexande…Great " in text and "2 Alexander…Grey " in text, text
            assert "4 Maximilian…ame " in text and "5 Maximilian…ome " in text, text
            screen.resize(100, 24)
            ui.invalidate()
            text = await wait_for(screen, "8 Eve-whose-name-has-32-characters ")
            assert all(f" {name} " in text for name in TEN[1:]), text
        finally:
            ui.close()
            await asyncio.wait_for(app, 5)


def test_the_demo_plays_your_seat_under_the_name_you_give(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The brief: `p2puno demo` named its host's seat "Host" (or "Player") whatever a person
    was called. ``name`` is that seat's name, checked as any seat's (node.names) and against
    the demo's bots' names, before any node starts."""
    cmds: list[list[str]] = []

    def game(cmd: list[str], **_: object) -> SimpleNamespace:
        cmds.append(cmd)
        return SimpleNamespace(returncode=1)  # (no game played: the command is what counts)

    monkeypatch.setattr(subprocess, "run", game)
    for person in (False, True):
        demo.run_network_demo(Options(3, target=20), name="Ann O'Hara", person=person)
        assert cmds[-1][cmds[-1].index("--name") + 1] == "Ann O'Hara", cmds[-1]
    demo.run_network_demo(Options(3, target=20))
    assert cmds[-1][cmds[-1].index("--name") + 1] == "Host", cmds[-1]
    for bad in ("bot-2", "Ann ", 'a "b"', ""):
        with pytest.raises(ValueError, match="--name"):
            demo.run_network_demo(Options(3, target=20), name=bad)
    assert len(cmds) == 3  # (a bad name starts nothing)
    assert demo.name_problem("Bot-3", 4) is not None and demo.name_problem("Bot-3", 3) is None
    capsys.readouterr()
    demo.run_demo(Options(2, target=20), 7, name="Ann")
    assert "Seats: Ann (heuristic), P1 (random)" in capsys.readouterr().out
