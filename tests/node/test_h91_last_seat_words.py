"""helper-91: a node whose last other seat leaves says who votes, as it will be.

protocol/lobby.md section 5 (a seat that said it was leaving is waited for step_s from when
the game waits for it) and GameNode._cut_off (a node with no live link, at a table of three
or more, one of the lost not said leaving, stops the game unfinished there; else it votes,
alone if it is the only one left). A joiner's node read "Bot-1 (seat 1) left the table. The
others vote the seat out ..." when no other seat was left to vote, then stopped alone
(node/watch.py ``_who_votes`` already says so for a spectator: the same rule here).
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from p2puno.engine import Options
from p2puno.net import LinkError
from p2puno.node.game import GameNode
from p2puno.node.players import BotPlayer
from p2puno.node.store import GameFiles
from p2puno.session.harness import LocalTable


def _node(tmp_path: Path, n: int, seat: int) -> tuple[GameNode, list[str]]:
    table = LocalTable(Options(n, target=20), seed=f"h91-last-{n}")
    s = table.sessions[seat]
    said: list[str] = []
    node = GameNode(
        s, s.identity, [None] * n, GameFiles(tmp_path / "n"), BotPlayer("heuristic", "t"),  # type: ignore[arg-type]
        say=said.append,
    )  # fmt: skip
    return node, said


def _link(closed: bool, error: LinkError | None = None) -> Any:
    async def wait_closed() -> None:
        return None

    return SimpleNamespace(closed=closed, error=error, wait_closed=wait_closed)


BYE = LinkError("bye", "said bye: this seat is leaving the table", peer=b"\1" * 32)


async def _leaves(node: GameNode, seat: int) -> None:
    node.links[seat] = _link(True, BYE)
    await GameNode._watch(node, seat, node.links[seat])


async def test_the_last_other_seat_leaving_a_node_cut_off_from_the_rest_says_it_stops(
    tmp_path: Path,
) -> None:
    node, said = _node(tmp_path, 3, 2)
    node.links[0] = _link(True)  # (the host's link was cut, not left: a fault)
    node._lost_at[0] = time.monotonic()
    await _leaves(node, 1)
    assert "(seat 1) left the table. " in said[-1], said
    assert "The others vote" not in said[-1], said
    assert "Nobody else is left to vote" in said[-1], said
    assert "stops the game unfinished here" in said[-1], said
    assert node.stops_alone()  # (what the line says is what the node does)


async def test_the_last_other_seat_leaving_a_node_whose_others_all_left_says_it_votes(
    tmp_path: Path,
) -> None:
    node, said = _node(tmp_path, 3, 2)
    node.links[1] = _link(False)
    await _leaves(node, 0)
    assert "The others vote the seat out" in said[-1], said  # (seat 1 is still there)
    await _leaves(node, 1)
    assert "The others vote" not in said[-1], said
    assert "Your node is the only one left: it votes the seat out unless" in said[-1], said
    assert not node.stops_alone()


async def test_at_a_table_of_two_the_other_leaving_is_voted_out_by_this_node(
    tmp_path: Path,
) -> None:
    node, said = _node(tmp_path, 2, 1)
    await _leaves(node, 0)
    assert "Your node is the only one left: it votes the seat out unless" in said[-1], said


async def test_the_host_leaving_takes_its_bots_with_it_as_the_spectator_says(
    tmp_path: Path,
) -> None:
    node, said = _node(tmp_path, 3, 2)
    node.table_view = {
        "seats": [
            {"kind": "person", "runner": "self"},
            {"kind": "bot", "runner": "host"},
            {"kind": "person", "runner": "self"},
        ]
    }
    node.links[1] = _link(False)  # (the host's bot: live a moment more, then gone with it)
    await _leaves(node, 0)
    assert "The others vote" not in said[-1], said
    assert "Your node is the only one left: it votes the seat out unless" in said[-1], said
