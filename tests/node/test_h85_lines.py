"""helper-83's evening as a person, the node's and the spectator's lines (helper-85's brief):
a spectator says each seat's going and coming back once, whichever node it watches through; its
count of steps checked reads as the stop's step does; a seat that left is said in short
sentences; the watch address is never a documentation one (docs/ui.md, "helper-85")."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from p2puno.engine import Options
from p2puno.net import MsgType
from p2puno.node.game import GameNode, left_words
from p2puno.node.players import BotPlayer
from p2puno.node.run import watch_address
from p2puno.node.store import GameFiles
from p2puno.node.watch import Spectator, WatchResult, checked_words
from p2puno.session.harness import LocalTable
from p2puno.session.session import Outcome, Timing
from p2puno.wire import decode, encode


def _spectator(said: list[str]) -> Spectator:
    players = [SimpleNamespace(name=n) for n in ("Host", "Bot-1", "Bot-2", "Bob")]
    spectator = Spectator(name="Eve", say=said.append)
    spectator.session = SimpleNamespace(  # type: ignore[assignment]
        n=4,
        log=SimpleNamespace(players=players),
        timing=Timing(step_s=5),
        outcome=SimpleNamespace(over=False),
    )
    return spectator


def _report(spectator: Spectator, away: list[int], left: list[int]) -> None:
    msg = encode({"t": "seats", "away": away, "left": left})  # type: ignore[dict-item]
    spectator._on_message(MsgType.LOBBY, msg)


def test_a_spectator_says_each_seat_gone_and_back_once_whichever_node_it_watches_through() -> None:
    """protocol/lobby.md 4a (`seats`: one node's view of the others). helper-83: the host
    killed (-9), its bots' nodes left with a BYE, and the spectator read "Bot-1 left the
    table", then "is back", twice: the node it went on through reported what it had seen so
    far, and the spectator's own word for the node it lost replaced all it knew. A seat is
    back only when the node that reported it gone reports it no more; each change once."""
    said: list[str] = []
    spectator = _spectator(said)
    link = SimpleNamespace(set_handler=lambda handler: None)
    spectator._attach(link)  # type: ignore[arg-type]  # (through the host, seat 0)
    _report(spectator, [], [1])  # (Bot-1's node said goodbye to the host first)
    spectator._through_gone(0, False)  # (the host is killed: _follow says so itself)
    spectator._attach(link)  # type: ignore[arg-type]  # (through Bob's node now)
    _report(spectator, [], [])  # (its first report: it has not seen anyone go yet)
    _report(spectator, [0], [1, 2])
    _report(spectator, [0], [1, 2])
    assert said == [
        # (the seats' words for it, node.game.back_within: helper-98's brief)
        "Bot-1 (seat 1) left the table: the others vote the seat out unless it is back within 5 s"
        " of when the game waits for it",
        "Bot-2 (seat 2) left the table: the others vote the seat out unless it is back within 5 s"
        " of when the game waits for it",
    ], said
    assert spectator.away == {0} and spectator.left == {1, 2}  # (the table's marks)
    _report(spectator, [0], [1])  # (that node's link to Bot-2 came back: said once)
    _report(spectator, [0], [1])
    assert said[2:] == ["Bot-2 (seat 2) is back"], said
    # once the game is over a node gone is not news (a seat's node whose game ended there
    # read "could no longer be reached" after the end)
    spectator.session.outcome = SimpleNamespace(over=True)  # type: ignore[union-attr]
    _report(spectator, [0, 3], [1])
    assert len(said) == 3, said


def test_a_node_does_not_report_a_seat_whose_game_ended_there_as_away(tmp_path: Path) -> None:
    """protocol/lobby.md 4a: a seat whose node said goodbye with its game over (GAME_OVER_BYE)
    is not away; a spectator read "J0 (seat 4) could no longer be reached" after the game's
    end (helper-85's run of helper-83's evening)."""
    table = LocalTable(Options(3, target=20), seed="h85-over")
    s = table.sessions[0]
    files = GameFiles(tmp_path / "n")
    node = GameNode(s, s.identity, [None] * 3, files, BotPlayer("heuristic", "t"))  # type: ignore[arg-type]
    sent: list[Any] = []
    link = SimpleNamespace(send=lambda t, raw: sent.append(decode(raw)))
    node.watchers = [SimpleNamespace(link=link, seats=None, wait=None, pos=0)]  # type: ignore[list-item]
    node._stream_backlog = lambda w: None  # type: ignore[method-assign]
    node._lost_at = {1: time.monotonic(), 2: time.monotonic()}
    node._over_at.add(2)
    node._feed_watchers()
    seats = [m for m in sent if isinstance(m, dict) and m.get("t") == "seats"]
    assert seats == [{"t": "seats", "away": [1], "left": []}], sent


def test_a_spectators_steps_checked_read_as_the_stops_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """helper-83 read "16 steps checked" under "stopped after step 15": the log counts its
    steps from 0 (protocol/spec.md 10.15: the stop names step K, the last complete one). The
    count now names the steps: "16 steps checked (steps 0 to 15)"."""
    from p2puno.cli import _finish_watch

    assert checked_words(16) == "16 steps checked (steps 0 to 15)"
    assert checked_words(1) == "1 step checked (step 0)"
    assert checked_words(0) == "no step checked"
    o = Outcome("stopped", (0, 0), silent=(1,), step=15, voters=(0,))
    _finish_watch(WatchResult(o, "AAAA-BBBB", 40, 16, 1, names=["Ann", "Bob"]), False)
    out = capsys.readouterr().out
    assert "stopped after step 15 of the log" in out
    assert "verified as it happened: 16 steps checked (steps 0 to 15), 1 deck audited" in out


def test_a_seat_that_left_is_said_in_short_sentences() -> None:
    """protocol/lobby.md 5 (a seat that said it was leaving is waited for step_s from when
    the game waits for it). helper-83 found the line "X left the table: unless it is back
    within 5 s of when the game waits for it (a player with p2puno resume, a host's bot with
    its host), the others vote it out" hard to read."""
    said = left_words("Bot-1", 1, 5, "host")
    assert said == (
        "Bot-1 (seat 1) left the table. The others vote the seat out unless it is back within "
        "5 s of when the game waits for it. A host's bot comes back with its host."
    )
    assert "(" not in said.replace("(seat 1)", "")  # (no parenthesis inside a sentence)
    # (a player's own node: only the way back that is theirs, helper-87)
    assert left_words("Jo", 2, 5, "self").endswith("Jo comes back with p2puno resume.")
    assert left_words("Jo", 2, 5).endswith("Jo comes back with p2puno resume.")


@pytest.mark.parametrize(
    ("found", "named"),
    [
        (["192.0.2.2"], "<this machine's address>:4000"),  # (this sandbox's: RFC 5737)
        (["198.51.100.7", "203.0.113.9"], "<this machine's address>:4000"),
        (["192.0.2.2", "192.168.1.20"], "192.168.1.20:4000"),
        (["2001:db8::5", "10.0.0.7"], "10.0.0.7:4000"),
        (["fe80::1"], "[fe80::1]:4000"),
    ],
)
def test_the_watch_address_is_never_a_documentation_one(
    monkeypatch: pytest.MonkeyPatch, found: list[str], named: str
) -> None:
    """`p2puno lobby` without --bind named 192.0.2.2 as its watch address here (helper-83):
    the documentation ranges (RFC 5737, RFC 3849) are no machine's on a LAN. Such an address
    is passed over, and with none left the line says so (docs/ui.md, "The help (?) names
    this node's watch address"). Nothing is sent anywhere to find it."""
    import p2puno.net.discovery

    monkeypatch.setattr(p2puno.net.discovery, "lan_addresses", lambda: found)
    endpoint = SimpleNamespace(bind=None, port=4000)
    assert watch_address(endpoint) == named  # type: ignore[arg-type]
