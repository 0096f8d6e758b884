"""Whole games between node processes over TCP on 127.0.0.1 (issue 11): every node is its own
process with its own keys; at the end every node's log holds the same entries and verifies
offline. House rules across the runs cover every combination of the three of
001_14a553244470b24d.txt · HOUSE RULES (Progressive UNO, Seven-O, Jump-In).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.node.procs import FAST, LOOPBACK, Node, host, logs, same_entries, verified

RULES = {
    "": "",
    "p": "progressive",
    "s": "seven-o",
    "j": "jump-in",
    "ps": "progressive,seven-o",
    "pj": "progressive,jump-in",
    "sj": "seven-o,jump-in",
    "psj": "progressive,seven-o,jump-in",
}


def _game(tmp: Path, seats: int, rules: str, target: int, *, joiners: int = 0) -> set[bytes]:
    """A host with ``seats - 1 - joiners`` bots of its own and ``joiners`` bot nodes that join
    by address, each in its own process; returns the entries every log holds. The host also
    saves a copy of its log (--save-log), which it names at the end."""
    saved = tmp / "saved.log"
    args = [
        "--seats", str(seats), "--bots", str(seats - 1 - joiners), "--bot", "heuristic",
        "--house", RULES[rules], "--target", str(target), "--save-log", str(saved), *FAST,
    ]  # fmt: skip
    h = host(tmp / "host", *args)
    nodes = [h]
    try:
        port = h.port()
        for k in range(joiners):
            nodes.append(
                Node(
                    ["bot", f"{LOOPBACK}:{port}", "--name", f"J{k}", "--policy", "random",
                     "--bind", LOOPBACK, "--quiet"],
                    tmp / f"joiner{k}",
                    f"joiner{k}",
                )
            )  # fmt: skip
        for n in nodes:
            assert n.wait(240) == 0, n.text()
    finally:
        for n in nodes:
            n.kill()
    paths = logs(tmp)
    assert len(paths) == seats
    entries = same_entries(paths)
    outcomes = {str(verified(p).outcome) for p in paths}
    assert len(outcomes) == 1 and outcomes.pop().startswith("finished"), outcomes
    assert set(saved.read_bytes().splitlines()) == entries
    assert f"p2puno replay {saved}" in h.text()
    return entries


@pytest.mark.parametrize("rules", ["", "p", "s", "psj"])
def test_two_nodes_one_joining_by_address(tmp_path: Path, rules: str) -> None:
    _game(tmp_path, 2, rules, 40, joiners=1)


@pytest.mark.parametrize("rules", ["pj", "sj", "j"])
def test_four_nodes(tmp_path: Path, rules: str) -> None:
    _game(tmp_path, 4, rules, 30, joiners=1)


def test_ten_nodes(tmp_path: Path) -> None:
    _game(tmp_path, 10, "ps", 1, joiners=2)


def test_a_table_found_by_discovery_on_loopback_and_joined(tmp_path: Path) -> None:
    """`p2puno host` advertises the table (DNS-SD on the loopback interface only) and
    `p2puno lobby` lists it and joins it: a whole game, then the same logs on both nodes."""
    h = Node(
        ["host", "--bind", LOOPBACK, "--interface", LOOPBACK, "--seats", "2", "--bot",
         "heuristic", "--target", "20", "--table", "Loopy", *FAST],
        tmp_path / "host",
        "host",
    )  # fmt: skip
    j = None
    try:
        h.port()
        j = Node(
            # by its name: another test may advertise a table on loopback at the same time
            ["lobby", "--interface", LOOPBACK, "--wait", "3", "--join", "Loopy", "--bot",
             "random", "--bind", LOOPBACK],
            tmp_path / "joiner",
            "joiner",
        )  # fmt: skip
        j.wait_for(r"\d\. Loopy  1/2 seats", 30)
        assert j.wait(120) == 0 and h.wait(120) == 0, j.text() + h.text()
    finally:
        h.kill()
        if j is not None:
            j.kill()
    paths = logs(tmp_path)
    assert len(paths) == 2
    same_entries(paths)
    assert verified(paths[0]).outcome is not None
