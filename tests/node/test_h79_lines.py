"""helper-79: what a node's lines and counts say to a person or a spectator.

- the closing line of a game stopped on seats that said goodbye says what the end box says
  (protocol/lobby.md section 5: a seat that left is waited for step_s, then voted out);
- a headless node's lines are wrapped at the terminal's width by the shared wrap (ui.lines);
- the node's line when a person's turn times out says at once what happens next;
- a spectator through a node that is not the host's gets the seats' kinds and runners;
- a spectator's count for a seat whose bot stands in, or back by `p2puno resume`, is that
  seat's own (protocol/lobby.md 4a, `wait`)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from p2puno.engine import Options
from p2puno.net import MsgType
from p2puno.node.game import Address, GameNode
from p2puno.node.players import BotPlayer
from p2puno.node.run import Result
from p2puno.node.store import GameFiles
from p2puno.session.crashsim import files_of
from p2puno.session.harness import rebuild
from p2puno.session.session import Outcome, Session
from p2puno.wire import decode, encode


def _stopped(silent: tuple[int, ...]) -> Outcome:
    return Outcome("stopped", (0, 0, 12), silent=silent, step=40, voters=(0, 1))


def test_the_closing_line_of_a_stop_on_a_seat_that_left_says_what_the_box_says(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A review: the host's box read '"Jo" left the table and did not come back in time'
    (the seat said goodbye, a BYE) and its closing line "Jo did not answer before the
    deadline". The line now says it as the box does (ui.model's end box)."""
    from p2puno.cli import _finish

    names = ["Host", "Bot-1", "Jo"]
    left = Result(_stopped((2,)), Path("/x/log"), "AAAA-BBBB", 0, names=names, left=frozenset({2}))
    _finish(left)
    out = capsys.readouterr().out
    assert "Jo left the table and did not come back in time (by the votes" in out
    assert "did not answer" not in out
    some = Result(
        _stopped((1, 2)), Path("/x/log"), "AAAA-BBBB", 0, names=names, left=frozenset({2})
    )
    _finish(some)  # (one of two left: named so, as the box does)
    assert "Bot-1 and Jo (left the table) did not answer before the deadline" in (
        capsys.readouterr().out
    )
    _finish(Result(_stopped((2,)), Path("/x/log"), "AAAA-BBBB", 0, names=names))
    assert "Jo did not answer before the deadline" in capsys.readouterr().out  # (a lost link)


def test_a_headless_nodes_lines_are_wrapped_at_word_ends(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`p2puno join --bot` (and `p2puno bot`) at an 80-column terminal: the terminal cut
    "vote" as "vo" / "te" (a review). Its lines now go through ui.lines.say_line."""
    import p2puno.ui.lines
    from p2puno.cli import _say

    monkeypatch.setattr(p2puno.ui.lines, "width_of", lambda stream: 79)
    text = (
        "Jo (seat 2) left the table: unless it is back within 3 s of when the game waits for "
        "it (a player with p2puno resume, a host's bot with its host), the others vote it out"
    )
    _say(False)(text)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(len(line) <= 79 for line in lines)
    assert " ".join(line.strip() for line in lines) == text  # (no word cut)
    _say(True)(text)
    assert capsys.readouterr().out == ""
    from p2puno.cli import _err_line  # (the lines said on leaving, to standard error)

    _err_line(text)
    assert capsys.readouterr().err.splitlines() == lines


# ---------------------------------------------------------------------- a node's own words
def seat_files(tmp: Path, seat: int, lines_kept: int = 40) -> tuple[Path, Path, bytes]:
    """``seat``'s files of a 2-seat game played until its log has ``lines_kept`` lines (the
    game is played no further: a whole one took 4 s here), and the game id."""
    from p2puno.session.crashsim import _hooks
    from p2puno.session.harness import LocalTable

    tmp.mkdir(parents=True, exist_ok=True)
    table = LocalTable(Options(2, target=25), seed="resume", bots=["heuristic"])
    _hooks(table, tmp, seat, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(tmp, seat)
    queue: list[tuple[int, bytes]] = []
    for i, s in enumerate(table.sessions):
        s.start()
        queue.extend((i, raw) for raw in s.outbox)
        s.outbox.clear()
    while queue and len(log_path.read_bytes().splitlines()) < lines_kept:
        sender, raw = queue.pop(0)
        for i, s in enumerate(table.sessions):
            if i != sender:
                s.receive(raw)
                queue.extend((i, raw) for raw in s.outbox)
                s.outbox.clear()
    lines = log_path.read_bytes().splitlines(keepends=True)
    prefix = tmp / "prefix.log"
    prefix.write_bytes(b"".join(lines[:lines_kept]))
    game_id = table.sessions[seat].game_id
    return prefix, secrets_path, game_id


@pytest.fixture(scope="module")
def seat_1_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Seat 1's files, its log cut where it waits for seat 0's action."""
    log_path, secrets_path, _ = seat_files(tmp_path_factory.mktemp("h79"), 1)
    return log_path, secrets_path


def _session(files: tuple[Path, Path]) -> Session:
    return rebuild(*files)


def _node(tmp_path: Path, session: Session, player: Any = None, said: Any = None) -> GameNode:
    identity = session.identity
    assert identity is not None
    return GameNode(
        session,
        identity,
        [Address("127.0.0.1", 9), None],
        GameFiles(tmp_path / "node"),
        player or BotPlayer("heuristic", "t"),
        say=None if said is None else said.append,
    )


class _Away(BotPlayer):
    """A person who is not at the keys."""

    kind = "person"

    async def decide(self, prompt: object) -> None:
        await asyncio.sleep(3600)


async def test_the_line_for_a_turn_that_timed_out_says_what_happens_next(
    tmp_path: Path, seat_1_files: tuple[Path, Path]
) -> None:
    """The node said "your turn timed out: your node's bot plays for you", then the table
    "you are back: your node's bot played only the turn that ran out" (a review read them as
    contradicting). Its line now says at once that the bot plays that turn only, and how the
    seat comes back; a turn that ran out while the person was away (back by `p2puno
    resume`, no time left) is the bot's, the next one theirs (protocol/lobby.md section 5)."""
    from p2puno.session.session import Timing

    said: list[str] = []
    node = _node(tmp_path, _session(seat_1_files), _Away("heuristic", "t"), said)
    node.autopilot = SimpleNamespace(choose=lambda prompt: None)  # type: ignore[assignment]
    node.timing = Timing(step_s=4, turn_s=1, window_ms=0)
    turn = SimpleNamespace(kind="turn")
    await asyncio.wait_for(node._decide(turn), 3)  # type: ignore[arg-type]
    assert said[-1] == (
        "your turn timed out: your node's bot plays this turn; any key gives you the seat "
        "back (until then, each of your turns is yours for its first 0.25 s, then the bot's)"
    )
    assert node._autopilot
    node._autopilot = False
    node.timing = Timing(step_s=20, turn_s=60, window_ms=0)
    node.due_since = time.monotonic() - 10 * node.timing.turn_s  # long gone: the bot at once
    await asyncio.wait_for(node._decide(turn), 1)  # type: ignore[arg-type]
    assert said[-1] == (
        "your turn ran out while you were away: your node's bot plays only that turn, and "
        "the next one is yours"
    )
    assert not node._autopilot  # (the seat is the person's again: no key needed)
    # back by `p2puno resume` and no other seat reached since: nobody may be there to take the
    # bot's move (the others may have ended the game meanwhile), so it is not said played
    # and the next turn is not promised (helper-92, helper-93)
    node.resumed_at = (node.session.processed, time.monotonic())
    assert not node.reached_since_resume()
    await asyncio.wait_for(node._decide(turn), 1)  # type: ignore[arg-type]
    assert said[-1] == (
        "your turn ran out while you were away: your node's bot plays it, but it counts only "
        "once another player answers, and none has since you came back"
    )


class _Link:
    def __init__(self) -> None:
        self.sent: list[tuple[int, Any]] = []
        self.address = "127.0.0.1:5000"
        self.peer = b"\x07" * 32
        self.closed = False

    def send(self, mtype: int, payload: bytes) -> None:
        self.sent.append((mtype, decode(payload) if mtype == MsgType.LOBBY else {}))

    def set_handler(self, handler: object) -> None:
        pass

    async def wait_closed(self) -> None:
        await asyncio.sleep(3600)

    def close(self, reason: str) -> None:
        self.closed = True


async def test_a_spectator_through_a_joiners_node_learns_which_seats_are_bots(
    tmp_path: Path, seat_1_files: tuple[Path, Path]
) -> None:
    """Through the host's node a spectator sees "·bot" and "on host" beside the host's bot
    seats: the host's lobby sends it the table (`table`, with each seat's kind and runner)
    before `watching`. A joiner's node sent `watching` only, so the spectator's table had no
    kinds (a review). A node now sends the lobby's last view of the table first
    (protocol/lobby.md 4a)."""
    node = _node(tmp_path, _session(seat_1_files))
    view = {
        "t": "table",
        "name": "Friday",
        "options": {"target": 25},
        "seats": [
            {"name": "Ann", "kind": "person", "runner": "self", "key": "ab" * 8, "ready": True},
            {"name": "Bot-1", "kind": "bot", "runner": "host", "key": "cd" * 8},
        ],
        "size": 2,
        "lobby": "00" * 32,
        "confirm": True,
    }
    node.table_view = view
    link = _Link()
    node.add_watcher(link, {"t": "watch", "name": "Eve"})  # type: ignore[arg-type]
    kinds = [m for _, m in link.sent if isinstance(m, dict) and m.get("t") in ("table", "watching")]
    assert [m["t"] for m in kinds] == ["table", "watching"]
    table = kinds[0]
    assert [(s["kind"], s["runner"]) for s in table["seats"]] == [
        ("person", "self"),
        ("bot", "host"),
    ]
    assert all("ready" not in s and "connected" not in s for s in table["seats"])
    assert "confirm" not in table  # (the lobby's moment, long gone)
    await node.close("done")


async def test_a_spectators_count_is_the_seats_own_while_its_bot_stands_in(
    tmp_path: Path, seat_1_files: tuple[Path, Path]
) -> None:
    """Seat 1's node waits for seat 0's turn. Seat 0's person let a turn pass: its node's bot
    stands in, and each turn is the person's for AUTOPILOT_GRACE_S only (their screen counts
    5 s); seat 1's report to its spectator said the table's turn_s (55 s where the seat read
    5 s, a review), as it did for a turn a seat came back into by `p2puno resume` (its extra
    seconds). The seat's node now tells the table its person's time when it is not turn_s
    (a `turn` notice), and the others count from it (protocol/lobby.md 4a)."""
    from p2puno.node.game import AUTOPILOT_GRACE_S

    session = _session(seat_1_files)
    w = session.waiting()
    assert w.kind == "action" and w.seats == (0,)
    node = _node(tmp_path, session)
    node.watchers.append(SimpleNamespace())  # type: ignore[arg-type]
    node._deadlines(time.monotonic())
    got = node._wait_report()
    assert got is not None
    step_s = node.timing.step_s
    full = node.timing.turn_s + step_s
    assert abs(got[1]["left_ms"] - 1000 * full) < 200  # type: ignore[index,call-overload]
    notice = {"t": "turn", "step": w.step, "left_ms": round(AUTOPILOT_GRACE_S * 1000)}
    node._on_notice(0, encode(notice))
    got = node._wait_report()
    assert got is not None
    left = got[1]["left_ms"]  # type: ignore[index,call-overload]
    assert abs(left - 1000 * (AUTOPILOT_GRACE_S + step_s)) < 200  # the spectator shows 5 s
    node._on_notice(1, encode(notice | {"left_ms": 1000}))  # (not the seat waited for)
    node._on_notice(0, encode(notice | {"step": w.step - 1, "left_ms": 1000}))  # (a step done)
    node._on_notice(0, encode(notice | {"left_ms": -5}))  # (malformed: ignored)
    node._on_notice(0, encode(notice | {"left_ms": 10**9}))  # (past turn_s + step_s: ignored)
    got = node._wait_report()
    assert got is not None
    assert abs(got[1]["left_ms"] - left) < 200  # type: ignore[index,call-overload]
    node.watchers.clear()
    await node.close("done")


async def test_a_seat_tells_the_table_its_persons_time_when_it_is_not_turn_s(
    tmp_path: Path, seat_1_files: tuple[Path, Path]
) -> None:
    """The other side of the `turn` notice: a node whose person's turn is not the table's
    turn_s (its bot stands in: AUTOPILOT_GRACE_S; back by `p2puno resume`: what
    resumed_turn_limit leaves) says so on its links; on a turn as usual it says nothing."""
    session = _session(seat_1_files)
    node = _node(tmp_path, session, _Away("heuristic", "t"))
    node.autopilot = SimpleNamespace(choose=lambda prompt: None)  # type: ignore[assignment]
    link = _Link()
    node.links[0] = link  # type: ignore[assignment]
    turn = SimpleNamespace(kind="turn")
    task = asyncio.ensure_future(node._decide(turn))  # type: ignore[arg-type]
    await asyncio.sleep(0.05)
    assert not [m for _, m in link.sent if m.get("t") == "turn"]  # a turn as usual
    task.cancel()
    node._deciding = None
    node._autopilot = True
    task = asyncio.ensure_future(node._decide(turn))  # type: ignore[arg-type]
    await asyncio.sleep(0.05)
    turns = [m for _, m in link.sent if m.get("t") == "turn"]
    # (left_ms as sent, a moment before turn_limit is read here: under load they differed by
    # a millisecond once, 4999 against 5000)
    assert [{**m, "left_ms": 0} for m in turns] == [
        {"t": "turn", "step": session.waiting().step, "left_ms": 0}
    ], turns
    assert 0 <= round(node.turn_limit * 1000) - int(turns[0]["left_ms"]) <= 1000, turns
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    del node.links[0]
    # back by `p2puno resume` into its turn: its person is asked before any link is up, so
    # the notice goes on each link as it comes (a tmux run saw the host's spectator count
    # 3 s, the table's, where the resumed seat's screen counted 10 s)
    node._deciding = None
    node._autopilot = False
    node.due_since = time.monotonic() - 5.0
    task = asyncio.ensure_future(node._decide(turn))  # type: ignore[arg-type]
    node._deciding = task
    await asyncio.sleep(0.05)
    late = _Link()
    node._adopt(0, late)  # type: ignore[arg-type]
    [told] = [m for _, m in late.sent if m.get("t") == "turn"]
    assert told["step"] == session.waiting().step
    assert abs(told["left_ms"] - 1000 * node.turn_limit) < 300  # (what is left of it)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await node.close("done")


async def test_a_seats_turn_notice_never_counts_past_this_nodes_own_vote(
    tmp_path: Path, seat_1_files: tuple[Path, Path]
) -> None:
    """protocol/lobby.md 4a, `turn` (helper-82): the notice is the seat's word, for screens
    only; a hostile seat whose turn had run said left_ms = turn_s + step_s, and every screen
    and spectator through this node counted that while its vote was step_s away. The count
    may only be shortened by it, never put past this node's own deadline."""
    session = _session(seat_1_files)
    w = session.waiting()
    node = _node(tmp_path, session)
    node.watchers.append(SimpleNamespace())  # type: ignore[arg-type]
    node._deadlines(time.monotonic())
    t = node.timing
    node._wait_since -= t.turn_s  # (the seat's turn has run: the vote is step_s away)
    report = node._wait_report()
    assert report is not None and isinstance(report[1], dict)
    own = report[1]["left_ms"]
    told = {"t": "turn", "step": w.step, "left_ms": 1000 * (t.turn_s + t.step_s)}
    node._on_notice(0, encode(told))
    report = node._wait_report()
    assert report is not None and isinstance(report[1], dict)
    assert isinstance(own, int) and report[1]["left_ms"] <= own + 200, (own, report[1])
    node.watchers.clear()
    await node.close("done")
