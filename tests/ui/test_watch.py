"""`p2puno watch` at a terminal (issue 12): the spectator's table shows the public game live
from its own checks (no hand: it has no seat and no key), the verification status and, at
the end, the verdict and its copy of the log; the players' table shows who watches."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from prompt_toolkit.input import create_pipe_input

from p2puno.node.game import GameNode
from p2puno.node.lobby import make_options
from p2puno.node.players import BotPlayer
from p2puno.node.run import host_game, join_game
from p2puno.node.store import DataDir
from p2puno.session import Timing
from p2puno.session.replay import replay
from p2puno.ui.app import TableUI
from p2puno.ui.launch import watch_table
from tests.ui.harness import Screen, press, wait_for

LOOP = "127.0.0.1"


def _text(ui: TableUI) -> str:
    return "\n".join("".join(t for _, t, *_ in line) for line in ui.lines(100, 30))


async def test_a_spectator_sees_the_public_table_and_the_players_see_who_watches(
    tmp_path: Path,
) -> None:
    timing = Timing(step_s=5, turn_s=5, window_ms=0)
    # (to 1: the first round ends the game, all this test needs; to 60 it took 16-27 s, to 25
    # 13.8-32.8 s, and the suite is near its 10 minutes)
    options = make_options(3, ["seven-o"], "standard", 1, timing)
    port_said: list[str] = []
    nodes: list[GameNode] = []
    host_ui = TableUI(name="Ann", host=True, output=Screen(100, 30).output)

    def on_game(node: GameNode) -> None:
        nodes.append(node)
        host_ui.on_game(node)

    host = asyncio.ensure_future(
        host_game(
            table="t", name="Ann", seats=3, options=options, player=BotPlayer("heuristic", "a"),
            data=DataDir(tmp_path / "h"), bind=LOOP, port=0, discovery=False,
            say=port_said.append, linger_s=1.0, think=0.0, on_game=on_game,
        )
    )  # fmt: skip
    while not any("open on" in line for line in port_said):
        await asyncio.sleep(0.02)
    line = next(line for line in port_said if "open on" in line)
    port = int(re.search(r"open on 127\.0\.0\.1:(\d+)", line).group(1))  # type: ignore[union-attr]
    screen = Screen(80, 24)
    with create_pipe_input() as pipe:
        ui = TableUI(name="Eve", input=pipe, output=screen.output, tick_s=0.1)
        watching = asyncio.ensure_future(
            watch_table(LOOP, port, name="Eve", ui=ui, data=DataDir(tmp_path / "w"))
        )
        # in the lobby until the table is full, then the game
        await wait_for(screen, "Ann", 10)
        joiners = [
            asyncio.ensure_future(
                join_game(
                    LOOP, port, name=f"B{k}", player=BotPlayer("random", f"b{k}"),
                    data=DataDir(tmp_path / f"j{k}"), bind=LOOP, say=lambda t: None,
                    linger_s=1.0,
                )
            )
            for k in range(2)
        ]  # fmt: skip
        text = await wait_for(screen, lambda s: "B0" in s and "B1" in s and "Ann" in s, 30)
        mid = await wait_for(screen, lambda s: "cards" in s or "card" in s, 30)
        assert "your hand" not in mid.lower()  # no seat: no hand, no prompt
        # the players see who watches
        for _ in range(600):  # (30 s at most)
            if nodes and nodes[0].spectators():
                break
            await asyncio.sleep(0.05)
        assert "1 watching" in _text(host_ui)
        text = await wait_for(screen, "GAME OVER", 120)
        assert "verified" in text
        await press(pipe, "q")
        result = await asyncio.wait_for(watching, 30)
    played = await asyncio.wait_for(host, 30)
    await asyncio.wait_for(asyncio.gather(*joiners), 30)
    assert result is not None and result.error is None
    assert result.outcome == played.outcome
    assert result.log_path is not None and replay(result.log_path).ok
