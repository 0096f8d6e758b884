"""Whole games between node processes over TCP on 127.0.0.1 (issue 11): every node is its own
process with its own keys; at the end every node's log holds the same entries and verifies
offline. House rules across the runs cover every combination of the three of
001_14a553244470b24d.txt · HOUSE RULES (Progressive UNO, Seven-O, Jump-In).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
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


def _game(
    tmp: Path, seats: int, rules: str, target: int, *, joiners: int = 0, code: bool = False
) -> set[bytes]:
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
    if not code:
        return entries
    # every node showed one table code, and the replay of a node's own log shows it too (the
    # code's secrets are kept beside it, in node.json: helper-34 found it in no replay)
    codes = set(re.findall(r"table code (\w{4}-\w{4});", "\n".join(n.text() for n in nodes)))
    assert len(codes) == 1, codes
    (host_log,) = [p for p in paths if "host" in p.parts and "bots" not in p.parts]
    done = subprocess.run(
        [sys.executable, "-m", "p2puno", "replay", "--verify", str(host_log)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert f"table code {codes.pop()} (from node.json" in done.stdout, done.stdout
    return entries


def _pat(tmp: Path, port: int) -> Node:
    """A person, Pat, at a plain terminal (`p2puno join`) whose keys the test types."""
    args = ["join", f"{LOOPBACK}:{port}", "--name", "Pat", "--bind", LOOPBACK]
    return Node(args, tmp / "joiner", "joiner", typed=True)


def _played_out(h: Node, j: Node, tmp: Path) -> list[Path]:
    """Both nodes ended well; their two logs, holding the same entries."""
    assert j.wait(120) == 0 and h.wait(120) == 0, j.text() + h.text()
    return _two_logs(tmp)


def _kill(*nodes: Node | None) -> None:
    for n in nodes:
        if n is not None:
            n.kill()


def _two_logs(tmp: Path) -> list[Path]:
    """The two nodes' logs under ``tmp``, holding the same entries."""
    paths = logs(tmp)
    assert len(paths) == 2
    same_entries(paths)
    return paths


@pytest.mark.parametrize("rules", ["", "p", "s", "psj"])
def test_two_nodes_one_joining_by_address(tmp_path: Path, rules: str) -> None:
    _game(tmp_path, 2, rules, 40, joiners=1, code=rules == "")


@pytest.mark.parametrize("rules", ["ps", "sj", "j"])
def test_four_nodes(tmp_path: Path, rules: str) -> None:
    _game(tmp_path, 4, rules, 30, joiners=1)


def test_ten_nodes(tmp_path: Path) -> None:
    # Jump-In here, Progressive with Seven-O at four seats: a ten-seat round with Jump-In is
    # shorter and its length less spread (300 in-process rounds of 10 bots: 91 moves on
    # average, 139 at the 90th percentile, against 145 and 276 with "ps"), and ten processes
    # on two cores made this the suite's longest test (27-83 s with "ps")
    _game(tmp_path, 10, "pj", 1, joiners=2)


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
        j.wait_for(r"^\d\. Loopy  1/2 seats  at 127\.0\.0\.1:\d+$", 30)
        j.wait_for(r"^   no house rules, standard to 20 · host key [0-9a-f]+$", 5)
        paths = _played_out(h, j, tmp_path)
    finally:
        _kill(h, j)
    assert verified(paths[0]).outcome is not None


def test_a_person_at_a_line_prompt_confirms_the_final_table_then_plays(tmp_path: Path) -> None:
    """`p2puno join` for a person at a plain terminal (issue 11: each joiner sees and accepts
    the exact options and roster before any card is shuffled; protocol/lobby.md section 2):
    the table is full once Pat sits, so Pat is shown the final table in words and asked; no
    card is shuffled until Pat presses Enter. Then the end of Pat's input (each decision:
    the first choice offered) plays a whole game, and both logs hold the same entries."""
    h = host(tmp_path / "host", "--seats", "2", "--bot", "heuristic", "--target", "20", *FAST)
    j = None
    try:
        port = h.port()
        j = _pat(tmp_path, port)
        final = j.wait_for(r"the table is final: game to 20 points.*Host \(bot\), Pat", 30)
        assert "s to decide" in final.string
        h.wait_for(r"seat 1: Pat \(person\) joined", 10)
        j.wait_for("Enter: play at this table", 10)
        time.sleep(0.5)
        assert "table code" not in h.text() + j.text()  # (no genesis, no shuffle)
        j.type("\n")  # Enter (the end of the input would say yes too: not yet)
        h.wait_for("Pat confirmed the table", 30)
        j.wait_for("confirmed: the cards are shuffled once every player has", 10)
        j.type("", end=True)  # (each decision of the game: the first choice offered)
        paths = _played_out(h, j, tmp_path)
    finally:
        _kill(h, j)
    assert str(verified(paths[0]).outcome).startswith("finished")
    assert re.search(r"Game over: (Host|Pat) wins", h.text()), h.text()  # (by name)
    # what the end of the input does is said once, and each choice it makes (helper-101 read
    # a Wild Draw Four it never chose called a bluff, with no word of why it was played)
    said = j.text()
    assert said.count("your input has ended: each decision now takes the first choice") == 1
    assert re.search(r"then Enter:\n(  \(your input has ended.*\n)?  0: \S", said), said
    # the colour in play with the top card (helper-102: "top W" said nothing of the colour
    # named with it: 000_75a4854712b36470.txt · FUNCTIONS OF ACTION CARDS, Wild Card:
    # "you get to choose the color that continues play")
    assert re.search(r"^\[turn\] top \S+, color (red|yellow|green|blue); your hand:", said, re.M)


def test_a_person_at_a_line_prompt_who_says_q_leaves_the_full_table(tmp_path: Path) -> None:
    """Pat is shown the final table and types q: Pat's node leaves (no game was signed), and
    the host's table is open again for someone else."""
    h = host(tmp_path / "host", "--seats", "2", "--bot", "heuristic", *FAST)
    j = None
    try:
        port = h.port()
        j = _pat(tmp_path, port)
        j.wait_for("Enter: play at this table", 30)
        j.type("q\n")
        assert j.wait(30) != 0
        j.wait_for("you left the table", 5)
        h.wait_for("Pat left the table", 10)
        assert h.proc.poll() is None  # still open
    finally:
        h.kill()
        if j is not None:
            j.kill()
    assert logs(tmp_path) == []


async def test_the_advert_shows_the_seats_taken_as_they_fill(tmp_path: Path) -> None:
    """`p2puno lobby` lists a table with its seats taken as they are now, not as they were
    when the host opened it (found driving the CLI: a host with a bot of its own was listed
    1/3 with 2 seats taken): each join updates the table's DNS-SD record (on the loopback
    interface only here), and the table leaves the listing when its game starts."""
    import asyncio
    import uuid

    from p2puno.net.discovery import watch

    name = f"Seats {uuid.uuid4().hex[:8]}"  # (another test may advertise on loopback too)

    async def seen(watcher: object, taken: int | None) -> None:
        for _ in range(1000):  # bounded; the timeout below bounds the time
            ads = [ad for ad in watcher.tables.values() if ad.name == name]  # type: ignore[attr-defined]
            if (ads and ads[0].seats_taken == taken) or (taken is None and not ads):
                return
            await anext(watcher)  # type: ignore[call-overload]
        raise AssertionError("too many events")

    h = Node(
        ["host", "--bind", LOOPBACK, "--interface", LOOPBACK, "--seats", "3", "--bots", "1",
         "--bot", "heuristic", "--target", "10", "--table", name, *FAST],
        tmp_path / "host",
        "host",
    )  # fmt: skip
    j = None
    try:
        port = h.port()
        async with asyncio.timeout(60), watch([LOOPBACK]) as watcher:
            await seen(watcher, 2)  # the host and its bot
            j = Node(
                ["bot", f"{LOOPBACK}:{port}", "--name", "J", "--bind", LOOPBACK, "--quiet"],
                tmp_path / "joiner",
                "joiner",
            )
            await seen(watcher, None)  # full: the game starts, the advert is withdrawn
        assert j.wait(120) == 0 and h.wait(120) == 0, h.text()
    finally:
        h.kill()
        if j is not None:
            j.kill()
