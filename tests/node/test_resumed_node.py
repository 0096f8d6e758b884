"""A node brought back from its files (issue 13): what a resumed node announces, how its
first batch (the game so far) is told, what it does when a task of its own fails, and what
`resume` says when there is nothing to resume.

The first test: a node whose log was pruned as it was read announces each entry once, however
many times it pumps. Before the fix the announced index was a sum of what came back, behind the
pruned log's count, so the held part was announced again and a HAVE could name a hash twice,
which the frame encoder refuses: the resumed node's clock task died (no deadlines kept), found
by scripts/chaos."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from p2puno.engine import Options
from p2puno.node.game import Address, GameNode
from p2puno.node.lobby import LobbyError
from p2puno.node.players import BotPlayer
from p2puno.node.run import event_lines, resume_game
from p2puno.node.store import DataDir, DataError, GameFiles
from p2puno.session.crashsim import files_of, play_with_crash
from p2puno.session.harness import LocalTable, quiet_after, rebuild
from p2puno.session.session import Session


def _node(
    tmp_path: Path,
    session: Session,
    player: BotPlayer | None = None,
    say: Callable[[str], None] | None = None,
) -> GameNode:
    """Seat 1 of a 2-seat game as a node, from a session rebuilt from its files (the peer's
    address is never dialled in these tests)."""
    identity = session.identity
    assert identity is not None
    addresses: list[Address | None] = [Address("127.0.0.1", 9), None]
    return GameNode(
        session,
        identity,
        addresses,
        GameFiles(tmp_path / "node"),
        player or BotPlayer("heuristic", "t"),
        say=say,
    )


def _waiting_for_seat_0(tmp_path: Path) -> tuple[Path, Path, list[bytes]]:
    """Seat 1's files of a 2-seat game, its log cut where seat 1 waits for seat 0's action
    (its first 40 lines, in ``prefix.log``); and every line of the whole log (with its end)."""
    play_with_crash(Options(2, target=25), "resume", tmp_path, 1, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(tmp_path, 1)
    lines = log_path.read_bytes().splitlines(keepends=True)
    prefix = tmp_path / "prefix.log"
    prefix.write_bytes(b"".join(lines[:40]))
    return prefix, secrets_path, lines


async def test_a_resumed_node_announces_each_entry_once(tmp_path: Path) -> None:
    play_with_crash(Options(2, target=25), "resume", tmp_path, 1, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(tmp_path, 1)
    session = rebuild(log_path, secrets_path, prune_keep=4)
    assert session.log.memory_start > 0  # the case: a log that starts pruned
    node = _node(tmp_path, session)
    for _ in range(3):
        node._pump()
    assert node._have, "the held entries are announced once"
    assert len(node._have) == len(set(node._have))
    assert node._seen_index == len(session.log)
    await asyncio.sleep(0)


async def test_a_node_task_that_fails_stops_the_node_with_the_error_said(tmp_path: Path) -> None:
    """A bug in one of the node's own tasks fails the node loudly (as a crash would, so that
    `p2puno resume` takes it back), rather than leave it playing without its clock."""
    play_with_crash(Options(2, target=25), "resume", tmp_path, 1, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(tmp_path, 1)
    session = rebuild(log_path, secrets_path)
    said: list[str] = []
    node = _node(tmp_path, session, say=said.append)

    async def broken() -> None:
        raise ValueError("a bug")

    node._spawn(broken())
    await asyncio.wait_for(node.done.wait(), 5)
    assert node.failed is not None and "ValueError: a bug" in node.failed
    assert any("Traceback" in line for line in said)
    assert not node._tasks


def test_the_narration_of_a_batch_shows_no_hands_of_a_later_round() -> None:
    """The narrator reads hands from the engine, which holds the state after the whole batch:
    a resumed node's first batch is the game so far, and each earlier round's end was shown
    with the hands of the round being played (four unknown cards read as W+4 W+4 W+4 W+4,
    200 points). Rounds that end inside a batch are told plainly; the last one in full, its
    winner's points the sum of the hands shown (000_75a4854712b36470.txt, SCORING: "points for
    all of the cards left in their opponents' hands")."""
    table = LocalTable(Options(2, target=60), seed="narrate", bots=["heuristic"])
    table.run()
    s = table.sessions[0]
    said: list[str] = []
    events, s.events = s.events, []
    rounds = sum(1 for ev in events if ev.event is not None and ev.event.kind == "round-over")
    assert rounds >= 2, "the case needs a game of several rounds"
    event_lines(s, said.append, verbose=False, narrate=True)(events)
    said = [part for line in said for part in line.splitlines()]
    overs = [k for k, ln in enumerate(said) if "Round over:" in ln]
    assert len(overs) == rounds  # each round's end told once
    hands = [k for k, ln in enumerate(said) if "left with" in ln or ln.endswith(" went out")]
    assert hands == [overs[-1] + 1, overs[-1] + 2]  # the last in full: every hand under it
    points = [int(said[k].rsplit("(", 1)[1].split()[0]) for k in hands if "left with" in said[k]]
    assert int(said[overs[-1]].rsplit(" ", 1)[1]) == sum(points)


def test_the_narration_at_a_terminal_holds_no_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    """A node's narration (`scripts/demo`, `p2puno host --narrate`) at a terminal: every line
    goes through the node's ``say``, which makes each character a terminal acts on a "?"
    (terminal_safe: the lines hold peers' names), so coloured cards read "?[31mr6?[0m"
    (helper-86). The narration is plain: the cards' letters name their colours."""
    from p2puno.node.game import terminal_safe

    table = LocalTable(Options(2, target=20), seed="narrate", bots=["heuristic"])
    table.run()
    s = table.sessions[0]
    said: list[str] = []
    events, s.events = s.events, []
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    event_lines(s, said.append, verbose=False, narrate=True)(events)
    assert any("Start card" in line for line in said)  # (a card, in words)
    assert all(terminal_safe(line) == line for line in said)


async def test_resume_with_nothing_to_resume_points_at_the_game_that_ended(tmp_path: Path) -> None:
    """`p2puno resume` after the game ended (a node killed once it had marked its game over):
    nothing to resume, said so, with the command that checks the finished game's log."""
    data = DataDir(tmp_path / "d")
    folder = data.root / "games" / "0a1b2c3d4e5f6071"
    folder.mkdir(parents=True)
    (folder / "log").write_bytes(b"")
    (folder / "node.json").write_text(json.dumps({"over": True}))
    with pytest.raises(LobbyError, match=r"no unfinished game .*is over: .*p2puno replay .*log"):
        await resume_game(data, None, say=lambda text: None)
    (folder / "node.json").write_text("{damaged")  # not known to be over: not said to be
    with pytest.raises(LobbyError) as e:
        await resume_game(data, None, say=lambda text: None)
    assert "is over" not in str(e.value)


def test_every_entry_a_node_signs_is_on_disk_before_it_leaves(tmp_path: Path) -> None:
    """Write before send (protocol/lobby.md section 6), for every entry this node signs,
    proposals, votes and every answer alike; others' entries wait for no disk. An answer that
    a rebuilt node would make again byte for byte must be made durable too: its fdatasync
    also saves the proposal it answers, and without it a power cut loses both; a proposer that
    then sends the rebuilt node a second version of its proposal holds two signed answers of
    an honest seat for one step, and the seat is convicted (found by a review, 2026-11-26,
    of a change that let such answers skip the disk; reverted)."""
    from p2puno.log import Role
    from p2puno.node.run import _file_hooks

    table = LocalTable(Options(3, True, True, True, target=40), seed="durable")
    seat = 1
    s = table.sessions[seat]
    assert s.identity is not None and s.log.game_id is not None
    files = GameFiles(tmp_path / "node")
    written: list[tuple[bytes, bool]] = []
    real = files.append

    def append(raw: bytes, *, durable: bool) -> None:
        written.append((raw, durable))
        real(raw, durable=durable)

    files.append = append  # type: ignore[method-assign]
    on_entry, on_secrets, holder = _file_hooks(files, s.identity, s.log.game_id, seat, b"")
    holder.append(s)
    s.on_entry, s.on_secrets = on_entry, on_secrets
    table.run()
    assert s.outcome.state == "finished"
    roles: dict[tuple[Role, bool], int] = {}
    for raw, durable in written:
        e = s.log.entry_of(raw)
        assert e is not None
        assert durable == (e.author == seat), (e.role, e.kind, e.author)
        roles[(e.role, durable)] = roles.get((e.role, durable), 0) + 1
    assert roles[(Role.RESPONSE, True)] > 100 and roles[(Role.PROPOSAL, True)] > 20, roles


def test_a_short_write_is_completed_not_glued_to_the_next_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """os.write may write less than asked (a disk filling up): the log's append writes the
    rest, so each entry stays one whole line (before, the rest was lost and the next entry
    glued onto the fragment: neither could be read back, nor verified)."""
    import os
    import types

    import p2puno.node.store as store_module

    short = types.SimpleNamespace(**vars(os))  # this module's os, seven bytes a write
    short.write = lambda fd, data: os.write(fd, bytes(data)[:7])
    monkeypatch.setattr(store_module, "os", short)
    files = GameFiles(tmp_path / "g")
    files.append(b'{"a":1}' * 5, durable=False)
    files.append(b'{"b":2}', durable=True)
    files.close()
    assert files.log_path.read_bytes() == b'{"a":1}' * 5 + b'\n{"b":2}\n'


def test_the_resume_hint_names_a_data_directory_that_is_not_the_default(tmp_path: Path) -> None:
    """Found driving the CLI: the hints said `p2puno resume 1d8f...` for a node started with
    --data-dir, which would look in the default directory and find nothing."""
    from p2puno.node.store import default_root, resume_command

    gid = bytes.fromhex("1d8f" * 16)
    assert resume_command(default_root(), gid) == "p2puno resume 1d8f1d8f1d8f1d8f"
    there = tmp_path / "my games"
    assert resume_command(there) == f"p2puno resume --data-dir '{there}'"


def _holder(root: Path) -> subprocess.Popen[str]:
    """Another node process on the data directory ``root``: it holds it, then waits."""
    code = (
        "import sys, time\n"
        "from p2puno.node.store import DataDir\n"
        "DataDir(sys.argv[1]).hold()\n"
        "print('held', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(root)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_probe_of_a_data_directory_neither_keeps_a_node_out_nor_writes_its_pid(
    tmp_path: Path,
) -> None:
    """A full run of the suite saw a host's bot brought back by its resume refused its own
    data directory, "in use by another p2puno process (pid ?)": another process was asking
    `busy()` at that moment, and the probe took the lock (and wrote its own pid in it).
    Now a probe writes nothing, and a node's `hold()` tries again for a moment."""
    import threading

    root = tmp_path / "data"
    DataDir(root)
    stop = threading.Event()

    def probe() -> None:
        d = DataDir(root)
        while not stop.is_set():
            d.busy()

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        for _ in range(5):
            proc = _holder(root)  # (each a node taking the directory while it is probed)
            try:
                assert DataDir(root).holder() == proc.pid  # (not the prober's pid)
            finally:
                proc.kill()
                proc.wait(10)
    finally:
        stop.set()
        prober.join(10)


def test_one_node_process_at_a_time_uses_a_data_directory(tmp_path: Path) -> None:
    """Two seats of one game in one data directory share its game folder (named by the game
    id) and write over each other's log and secrets; a resume while the node still runs cuts
    its half-written last line as torn (seen: a host killed with SIGKILL and resumed while its
    bot still ran). The directory is held by a kernel lock: a second holder is refused with
    the first one's pid, and a process killed outright leaves no lock behind (the resume
    after a crash is not refused)."""
    root = tmp_path / "data"
    proc = _holder(root)
    try:
        data = DataDir(root)
        assert data.busy()
        with pytest.raises(DataError, match=rf"another p2puno process \(pid {proc.pid}\)"):
            data.hold()
    finally:
        proc.kill()  # SIGKILL: no clean-up runs in it
        proc.wait(10)
    data = DataDir(root)
    assert not data.busy()
    data.hold()  # taken at once
    data.hold()  # (again in this process, as a command run twice in one process: no error)
    busy = subprocess.run(
        [sys.executable, "-c", "import sys; from p2puno.node.store import DataDir as D; "
         "sys.exit(D(sys.argv[1]).busy())", str(root)],
        timeout=60,
    )  # fmt: skip
    assert busy.returncode == 1  # held, as another process sees it
    data.release()
    assert not DataDir(root).busy()


def test_a_second_node_on_a_data_directory_in_use_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`p2puno resume` (or host, join, bot, lobby) on a data directory a running node holds:
    a clear error and exit 2 before anything in it is read or cut; and the host's resume
    leaves a bot seat that still runs as it is, instead of starting a second copy (found: a
    host killed with SIGKILL and resumed within the deadline started one)."""
    from p2puno.node import run
    from p2puno.node.run import _resume_bots

    # (the resume waits that long for a bot of a killed host to leave: this one never does)
    monkeypatch.setattr(run, "BOT_LEAVE_S", 0.3)
    data = DataDir(tmp_path / "host")
    files = GameFiles(data.root / "games" / "0123456789abcdef")
    files.write_meta({"game": "0123456789abcdef" * 4, "seat": 0, "over": False})
    files.log_path.write_bytes(b'{"torn')  # a last line a live node is writing
    bot = DataDir(data.root / "bots" / "1-0")
    bot_files = GameFiles(bot.root / "games" / "0123456789abcdef")
    view = {"seats": [{"name": "Host"}, {"name": "Bot-1"}]}  # (the lobby's last view)
    bot_files.write_meta({"game": "0123456789abcdef" * 4, "seat": 1, "over": False, "view": view})
    bot_files.log_path.write_bytes(b"")
    procs = [_holder(data.root), _holder(bot.root)]
    try:
        for cmd in (["resume"], ["join", "127.0.0.1:9"]):
            done = subprocess.run(
                [sys.executable, "-m", "p2puno", *cmd, "--data-dir", str(data.root)],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=60,
            )
            assert done.returncode == 2, done
            assert f"in use by another p2puno process (pid {procs[0].pid})" in done.stderr
            assert "Traceback" not in done.stderr
        assert files.log_path.read_bytes() == b'{"torn'  # untouched
        said: list[str] = []
        adopted: list[DataDir] = []
        started, back = asyncio.run(
            _resume_bots(data, "0123456789abcdef" * 4, said.append, adopted, 0)
        )
        assert started == [] and back == set()  # (not brought back: it never left)
        assert said == ["Bot-1 (seat 1) is still running: left as it is"]
        assert [d.root for d in adopted] == [bot.root]  # (stopped with this host: see below)
    finally:
        for p in procs:
            p.kill()
            p.wait(10)


async def test_a_resumed_turn_leaves_the_person_what_the_table_has_left(
    tmp_path: Path,
) -> None:
    """A review found a person back with `p2puno resume` shown "your turn · 60 s left" while
    the others' deadline for that turn had run since before the crash: the table voted the
    seat out (the game stopped for everyone) with time still on the person's screen. The
    turn a node comes back into counts from when it became due (the log's last write before
    the stop), as the others count it (protocol/lobby.md section 5).

    helper-55: a turn whose turn_s had run out while the person was away was then played by
    their node's bot the moment they came back, at the keyboard, though the table waits
    turn_s + step_s before it votes. The person now has what is left of turn_s, but at least
    RESUMED_TURN_S while the table's deadline less half a step_s allows (the other half is
    the node's, to link up and send); past that, the bot plays at once, as before."""
    from types import SimpleNamespace

    from p2puno.node.game import RESUMED_TURN_S, resumed_turn_limit
    from p2puno.session.session import Timing

    play_with_crash(Options(2, target=25), "resume", tmp_path, 1, {"point": "never", "at": 0})
    log_path, secrets_path = files_of(tmp_path, 1)
    session = rebuild(log_path, secrets_path)

    class Away(BotPlayer):
        kind = "person"

        async def decide(self, prompt: object) -> None:
            await asyncio.sleep(3600)

    said: list[str] = []
    node = _node(tmp_path, session, Away("heuristic", "t"), say=said.append)
    node.autopilot = SimpleNamespace(choose=lambda prompt: None)  # type: ignore[assignment]
    turn = SimpleNamespace(kind="turn")
    fresh = asyncio.ensure_future(node._decide(turn))  # type: ignore[arg-type]
    await asyncio.sleep(0.1)
    assert node.turn_limit == node.timing.turn_s and not fresh.done()  # a turn as usual
    fresh.cancel()
    # the rule, on the table's default deadlines (60 s to decide, 20 s for a machine)
    t = Timing()
    assert resumed_turn_limit(t, 0.0, 20.0) == 40.0  # plenty left: what is left
    assert resumed_turn_limit(t, 0.0, 55.0) == RESUMED_TURN_S  # 5 s left: 10
    assert resumed_turn_limit(t, 0.0, 65.0) == 5.0  # ran out 5 s ago: to turn_s + step_s / 2
    assert resumed_turn_limit(t, 0.0, 71.0) < 0  # past that: the bot at once
    # a node back into a turn that ran out a moment ago: the person plays it, not the bot
    # (1.5 s: room for a loaded machine's stall between here and the check; helper-56)
    node.timing = Timing(step_s=4, turn_s=2, window_ms=0)
    node.due_since = time.monotonic() - 2.5  # (turn_s gone; the table waits 3.5 s more)
    waiting = asyncio.ensure_future(node._decide(turn))  # type: ignore[arg-type]
    await asyncio.sleep(0.2)
    assert not waiting.done() and 0.8 < node.turn_limit < 1.6 and not node._autopilot
    await asyncio.wait_for(waiting, 5)
    assert node._autopilot  # (the person did not play it: the bot did, then)
    node._autopilot = False
    node.timing = Timing(step_s=20, turn_s=60, window_ms=0)
    node.due_since = time.monotonic() - 65.0
    waiting = asyncio.ensure_future(node._decide(turn))  # type: ignore[arg-type]
    await asyncio.sleep(0.1)
    assert 4.5 < node.turn_limit < 5.0 and not waiting.done()
    assert said[-1] == (
        "back in your turn after its time ran out: you have 5 s to play it before your node's "
        "bot does"
    )
    waiting.cancel()
    node.due_since = time.monotonic() - 10 * node.timing.turn_s  # long gone: the bot at once
    await asyncio.wait_for(node._decide(turn), 1)  # type: ignore[arg-type]
    assert node.turn_limit == 0.05


async def test_a_resumed_node_never_votes_out_sooner_than_a_step_after_it_is_back(
    tmp_path: Path,
) -> None:
    """The other side of the resumed turn's clock: a resumed node counts its wait on the
    others from when the step became due too, but leaves them at least step_s (a whole table
    back after an outage, each node's last write minutes old, must not vote out a seat whose
    node is back a moment later); a recent stop leaves the deadline as it was."""
    prefix, secrets_path, _lines = _waiting_for_seat_0(tmp_path)
    session = rebuild(prefix, secrets_path)
    assert session.waiting().kind == "action" and session.waiting().seats == (0,)
    node = _node(tmp_path, session)
    t = node.timing
    full = t.turn_s + t.step_s  # (an action not proposed yet: a person may be deciding)
    now = time.monotonic()
    node.due_since = now - 10 * full  # (down for long)
    node._deadlines(now)
    assert node._deadline("action", True) == full
    assert abs((full - (now - node._wait_since)) - t.step_s) < 1e-6  # step_s left, no less
    node._wait_key = None
    node.due_since = now - 5.0  # (down a moment)
    node._deadlines(now)
    assert abs((now - node._wait_since) - 5.0) < 1e-6  # the table's own count: 5 s gone
    await asyncio.sleep(0)


async def test_a_seat_that_said_it_was_leaving_is_waited_for_a_step_not_a_turn(
    tmp_path: Path,
) -> None:
    """helper-54: a table of two waited out the whole turn_s + step_s (80 s at the defaults)
    for a player who had quit and said so (a BYE naming a leave), with no key to end it
    sooner. A seat that said it was leaving decides nothing (its node, and the bot that plays
    for its person, are gone): the wait for it ends step_s after it left (its time to come
    back with `p2puno resume`), never later than the table's deadline (protocol/lobby.md
    section 5). A seat that is merely not connected is waited for as before."""
    prefix, secrets_path, _lines = _waiting_for_seat_0(tmp_path)
    voted = {}
    for said_bye in (True, False):
        session = rebuild(prefix, secrets_path)
        assert session.waiting().kind == "action" and session.waiting().seats == (0,)
        said: list[str] = []
        node = _node(tmp_path / str(said_bye), session, say=said.append)
        t = node.timing
        now = time.monotonic()
        node._deadlines(now)  # (the wait begins)
        node._lost_at[0] = now + 10.0  # seat 0's link ends 10 s into its turn
        if said_bye:
            node.left[0] = node.session.processed  # (with a BYE: "this seat is leaving")
        node._deadlines(now + 10.0 + t.step_s - 1.0)
        assert not session.voted  # (its step_s to come back is not over)
        wait = node.wait_left()
        assert wait is not None and wait[2] is not said_bye  # (a person deciding: no)
        node._deadlines(now + 10.0 + t.step_s + 1.0)
        voted[said_bye] = session.voted
        if said_bye:  # (and says so: it left, it did not fail to answer)
            assert '"P0" (seat 0) left the table and did not come back in time' in said[-1]
    assert voted == {True: True, False: False}
    await asyncio.sleep(0)


async def _stop_tasks(node: GameNode) -> None:
    """The tasks a test's node started (its links' watchers, its dialers), cancelled."""
    for task in list(node._tasks):
        task.cancel()
    await asyncio.sleep(0)


async def test_a_seat_that_says_goodbye_twice_is_let_go_and_gains_no_time(
    tmp_path: Path,
) -> None:
    """helper-61: a seat that had left (a BYE), was linked again (this node redialled a node
    that was stopping) and said BYE again kept its closed link in the node's links: the wait's
    words left it out, a sync could go to the dead link, and the redial ran again at once. Its
    link is let go as any ended link is; its first leaving still counts for the deadline
    (protocol/lobby.md 5: step_s after it left), and the redial backs off."""
    from p2puno.net.link import LinkError
    from p2puno.node.game import LEAVING_BYES

    class Gone:  # (a link that ends when told to, as a BYE ends one)
        def __init__(self) -> None:
            self.closed, self.error, self.address = False, None, "127.0.0.1:9"
            self._ended = asyncio.Event()

        async def wait_closed(self) -> None:
            await self._ended.wait()

        def set_handler(self, handler: object) -> None:
            pass

        def send(self, *args: object) -> None:
            if self.closed:
                raise LinkError("closed", "closed")

        def close(self, reason: str = "") -> None:
            self.end(LinkError("closed", reason))

        def end(self, err: LinkError) -> None:
            self.closed, self.error = True, err
            self._ended.set()

    prefix, secrets_path, _lines = _waiting_for_seat_0(tmp_path)
    said: list[str] = []
    node = _node(tmp_path / "n", rebuild(prefix, secrets_path), say=said.append)
    left_at = []
    for _ in range(2):
        link = Gone()
        node._adopt(0, link)  # type: ignore[arg-type]
        await asyncio.sleep(0.01)
        link.end(LinkError("bye", f"said bye: {LEAVING_BYES[1]}"))
        await asyncio.sleep(0.01)
        assert 0 not in node.links and list(node.left) == [0]
        left_at.append(node._lost_at[0])
    assert left_at[0] == left_at[1]  # (the second goodbye gains it no time)
    assert sum("left the table" in line for line in said) == 1
    await _stop_tasks(node)


async def test_a_seat_that_left_and_plays_on_through_others_is_waited_for_as_before(
    tmp_path: Path,
) -> None:
    """helper-62: a seat whose BYE reached this node, back with `p2puno resume` and linked to
    the others but not (yet) to this node, stayed "left" here: each of its turns was waited
    for step_s, not turn_s + step_s, and this node voted it out while it played through the
    others' relays. An entry it signs for a later step, by any link, says it is back."""
    prefix, secrets_path, lines = _waiting_for_seat_0(tmp_path)
    said: list[str] = []
    node = _node(tmp_path / "n", rebuild(prefix, secrets_path), say=said.append)
    node.left[0] = node.session.processed  # seat 0 said it was leaving, at this step
    old = node.session.log.entry(node.session.log.hashes()[-1])
    assert old.author != 0 or old.seq <= node.left[0]  # (nothing later of seat 0's yet)

    class Relay:  # (the link of the seat that relays: never written to here)
        closed = False

        def close(self, reason: str = "") -> None:
            pass

    for line in lines[40:]:
        node._on_entry(1, Relay(), line.rstrip(b"\n"))  # type: ignore[arg-type]
        if 0 not in node.left:
            break
    back = node.session.log.entry(node.session.log.hashes()[-1])
    assert 0 not in node.left, "seat 0's later entries came, and it is still 'left'"
    assert back.seq > 0 and "is back (its moves come through others)" in said[-1]
    await _stop_tasks(node)


async def test_a_seat_that_drops_its_link_again_and_again_cannot_stall_the_vote(
    tmp_path: Path,
) -> None:
    """protocol/spec.md 10.15: a seat without a link is named once it has been without one
    LINK_GRACE_S (it may be redialing). That grace ran from the seat's latest loss, so a
    seat that linked and dropped again and again, faster than the grace, kept the vote off
    for ever: the table waited without end. The wait now runs past its deadline by step_s
    at most; a seat that drops once still has its grace."""
    prefix, secrets_path, _lines = _waiting_for_seat_0(tmp_path)
    node = _node(tmp_path / "n", rebuild(prefix, secrets_path))
    session = node.session
    t = node.timing
    deadline = t.turn_s + t.step_s  # (seat 0's action: a person may be deciding)
    now = time.monotonic()
    node._deadlines(now)  # (the wait begins)
    node._lost_at[0] = now + deadline - 1.0  # one loss just before the deadline:
    node._deadlines(now + deadline + 1.0)
    assert not session.voted  # its grace (it may be redialing) is kept
    voted_at = None
    for k in range(2, 200):  # then a loss every second, for minutes past the deadline
        node._lost_at[0] = now + deadline + k - 0.5
        node._deadlines(now + deadline + k)
        if session.voted:
            voted_at = k
            break
    assert voted_at is not None and voted_at <= t.step_s + 1, voted_at
    await asyncio.sleep(0)


async def test_a_resumed_node_that_reaches_nobody_does_not_stop_the_game_alone(
    tmp_path: Path,
) -> None:
    """A review: Bob left, the table voted him out and its nodes exited; Bob resumed, reached
    nobody, and his node alone voted every other seat out: a second record of the game, which
    verifies, naming the others silent. A resumed node that has reached no seat since it came
    back stops at its deadline without voting, the game unfinished and resumable
    (protocol/lobby.md section 5); a node that has reached one votes as before. helper-36:
    a seat its own machine brought back with it (a host's bot) is not one reached (a host and
    its own bot, back too late, voted out the seat that stayed and had already voted them out:
    two records, each blaming the other)."""
    prefix, secrets_path, _lines = _waiting_for_seat_0(tmp_path)
    voted = []
    for linked, back in ((False, False), (True, True), (True, False)):
        reached = linked and not back
        session = rebuild(prefix, secrets_path)
        said: list[str] = []
        node = _node(tmp_path / f"{linked}{back}", session, say=said.append)
        node.resumed_at = (session.processed, time.monotonic())
        if linked:  # (a link to seat 0 came up, and went; seat 0 came back with it, or not)
            node._linked_since.add(0)
            if back:
                node.came_back_with = {0}
        node.left = (
            {0: node.session.processed} if linked else {}
        )  # (then seat 0 left: no link is left, and a
        # node whose every link is lost votes only for seats that said they were leaving)
        t = node.timing
        now = time.monotonic()
        node._deadlines(now)
        node._deadlines(now + t.turn_s + 3 * t.step_s)  # past the deadline and the grace
        voted.append(session.voted)
        if not reached:
            assert node.failed is not None and node.done.is_set(), said
            assert "since you came back, no other player could be reached" in node.failed
            assert "ask another player for their game log" in node.failed  # (helper-51)
            assert not session.outcome.over and not session.log.votes()
    assert voted == [False, False, True]


def test_a_game_its_last_resume_could_not_reach_can_be_given_up(tmp_path: Path) -> None:
    """A review: a seat voted out, whose late resume reached nobody (the test above), was
    offered the game by every later `host` and `join` for good: "was left unfinished here".
    The offer now says the last resume reached no seat, and `resume --give-up` stops it (the
    log stays as it stood; nothing is sent to anyone)."""
    from typer.testing import CliRunner

    from p2puno.cli import app
    from p2puno.node.run import unfinished_games

    data = DataDir(tmp_path / "bob")
    gid = "0123456789abcdef" * 4
    files = GameFiles(data.root / "games" / gid[:16])
    files.write_meta({"game": gid, "seat": 2, "over": False, "unreached": True, "table": "t"})
    files.log_path.write_bytes(b"")
    offered = CliRunner().invoke(
        app, ["join", "127.0.0.1:1", "--bind", "127.0.0.1", "--data-dir", str(data.root)]
    )
    assert "it reached no other player: the others most" in offered.output, offered.output
    # (with its --data-dir: the hint as printed must work, a review ran it and it did not)
    assert f"p2puno resume {gid[:16]} --data-dir {data.root} --give-up" in offered.output
    done = CliRunner().invoke(app, ["resume", gid[:6], "--give-up", "--data-dir", str(data.root)])
    assert done.exit_code == 0 and "is no longer offered here" in done.output, done.output
    assert unfinished_games(DataDir(data.root)) == []
    meta = json.loads(files.meta_path.read_text())
    assert meta["over"] is True and meta["given_up"] is True and meta["seat"] == 2
    # (helper-30: a resume then said "the last game there is over")
    again = CliRunner().invoke(app, ["resume", "--data-dir", str(data.root)])
    assert again.exit_code == 1 and "the last game there was given up here" in again.output


def test_a_bot_that_outlived_its_killed_host_is_stopped_with_the_resumed_host(
    tmp_path: Path,
) -> None:
    """A review killed a host (its bot seat went on: a bot now leaves with its host, the
    pipe of test_host_bots.py, but one of an older p2puno may not), resumed it and left
    with q: "your node stopped, and the 1 bot it runs with it", and the bot ran on. The
    resumed host now stops a bot it finds running when it stops, found by the lock its data
    directory holds (never a pid that no longer holds it)."""
    from p2puno.node.run import _stop_holder

    folder = tmp_path / "bot"
    code = (
        "import sys, time; from p2puno.node.store import DataDir; "
        f"DataDir({str(folder)!r}).hold(); print('held', flush=True); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        _stop_holder(DataDir(folder))
        assert child.wait(10) == -15  # SIGTERM
        _stop_holder(DataDir(folder))  # held by nobody now: nothing is signalled
    finally:
        child.kill()


def test_a_bot_brought_back_by_its_host_knows_which_seats_came_back_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """protocol/lobby.md section 5 (helper-36): a resumed host tells each bot it brings back
    which seats came back with it (itself and the other bots); the bot does not count them as
    seats reached. Anything else in the variable is ignored; without it, no seat."""
    from p2puno.node.run import CAME_BACK_WITH_ENV, _came_back_with

    monkeypatch.setenv(CAME_BACK_WITH_ENV, "0,2,x,,3")
    assert _came_back_with(2) == {0, 3}
    monkeypatch.delenv(CAME_BACK_WITH_ENV)
    assert _came_back_with(1) == set()


def test_a_resumed_seat_whose_own_move_came_first_is_told_it_was_its_move(
    tmp_path: Path,
) -> None:
    """A node back from `p2puno resume` says when play went on (GameNode._say_back). helper-99
    resumed into his own turn, took 16 s over it, and read "back in the game: play went on
    16.1 s after the resume" as the table stuck: the wait was his. Where the first move since
    the resume was this seat's, the line says so."""
    table = LocalTable(Options(2, target=25), seed="back-mine", tamper=quiet_after(80))
    table.run()
    s = table.sessions[1]
    assert s.outcome.state == "playing" and s.processed > 4
    said: list[str] = []
    node = _node(tmp_path, s, say=said.append)
    for mine in (True, False):
        # the last step this seat proposed (or did not): as if it had resumed just before it
        j = max(
            q
            for q in range(1, s.processed + 1)
            if (p := s.log.proposal(q)) is not None and (p[1].author == 1) == mine
        )
        node.resumed_at = (j - 1, time.monotonic() - 16.0)
        node._done_at.pop(s.processed, None)  # (the pump notes each step once)
        node._pump()
        node._say_back(time.monotonic() + 1.0)
    assert [re.sub(r"16\.\d s", "16 s", line) for line in said] == [
        "back in the game: play went on with your move, 16 s after the resume",
        "back in the game: play went on 16 s after the resume",
    ], said
