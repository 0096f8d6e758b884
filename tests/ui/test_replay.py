"""`p2puno replay LOG --table`: stepping through a finished game by keys (pipe input, pyte
screen): forward, back, round by round, a round by number, the end with the verdict; every
hand face up in an audited deck; a cheat's log ends on the named cheater, the reason and the
void round, its last deck's hands hidden. And the command itself, in a pseudo-terminal."""

from __future__ import annotations

import asyncio
import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input

from p2puno.engine.options import Options
from p2puno.session.harness import LocalTable
from p2puno.session.testing import IllegalPlayer
from p2puno.ui.replay import ReplayTable, load
from tests.ui.harness import ENTER, LEFT, RIGHT, Screen, press, wait_for

DOWN, UP, END, HOME = "\x1b[B", "\x1b[A", "\x1b[F", "\x1b[H"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("replays")
    fair = root / "fair"
    fair.mkdir()
    LocalTable(Options(2, target=100), seed="r2", directory=str(fair)).run()  # two rounds
    cheat = root / "cheat"
    cheat.mkdir()
    t = LocalTable(Options(2, target=60), seed="illegal", directory=str(cheat))
    t.sessions[1].decider = IllegalPlayer("x")
    t.run()
    return {"fair": fair / "node0.log", "cheat": cheat / "node0.log"}


@asynccontextmanager
async def shown(path: Path) -> AsyncIterator[tuple[Screen, PipeInput, ReplayTable]]:
    screen = Screen(80, 24)
    with create_pipe_input() as pipe:
        table = ReplayTable(load(path), path=str(path), input=pipe, output=screen.output)
        app = asyncio.ensure_future(table.app.run_async())
        try:
            yield screen, pipe, table
        finally:
            if not app.done():
                table.app.exit()
            await asyncio.wait_for(app, 5)


def move_no(text: str) -> int:
    m = re.search(r"move (\d+)/(\d+)", text)
    assert m, text
    return int(m.group(1))


async def test_stepping_through_a_game_forward_back_by_round_and_to_the_verdict(
    logs: dict[str, Path],
) -> None:
    async with shown(logs["fair"]) as (screen, pipe, table):
        text = await wait_for(screen, "move 1/")
        assert "drew" in text and "for dealer" in text
        await press(pipe, RIGHT, RIGHT, RIGHT, RIGHT, RIGHT)
        text = await wait_for(screen, "move 6/")
        assert "every hand face up" in text  # the first round's deck was audited
        hands = [ln for ln in screen.lines if re.match(r" P[01] +\d+: ", ln)]
        assert len(hands) == 2 and all(re.search(r"[rygb]\d|W", h) for h in hands), hands
        await press(pipe, LEFT)
        await wait_for(screen, "move 5/")
        await press(pipe, DOWN)  # the next round starts
        text = await wait_for(screen, "round 2")
        at = move_no(text)
        assert at > 6 and "Start card" in text and "ROUND 1 OVER" not in text
        await press(pipe, UP)  # back to the start of round 2's previous round
        text = await wait_for(screen, lambda s: "move" in s and move_no(s) < at)
        await press(pipe, "g", "2", ENTER)
        await wait_for(screen, f"move {at}/")
        await press(pipe, "g", "9", ENTER)
        await wait_for(screen, "no round 9: rounds 1 to 2")
        await press(pipe, "?")
        await wait_for(screen, "p2puno replay — keys")
        await press(pipe, "x")
        await press(pipe, END)
        text = await wait_for(screen, "GAME OVER — the winner: P0")
        assert "VERIFIED offline" in text and "scores: P0" in text
        await press(pipe, HOME)
        await wait_for(screen, "move 1/")
        await press(pipe, "q")
        await asyncio.sleep(0.1)
        assert not table.app.is_running


async def test_a_round_end_shows_every_hand_and_its_points(logs: dict[str, Path]) -> None:
    r = load(logs["fair"])
    ends = [i for i, f in enumerate(r.frames) if f.round_end is not None]
    assert len(ends) == 2
    async with shown(logs["fair"]) as (screen, pipe, table):
        await wait_for(screen, "move 1/")
        table.index = ends[0] - 1
        await press(pipe, RIGHT)
        text = await wait_for(screen, "ROUND 1 OVER")
        # (the points a hand gives the one who went out, said as such: helper-36)
        assert re.search(r"P\d +gives +\d+  ", text) and "scores:" in text


async def test_a_cheat_ends_on_the_named_cheater_the_reason_and_the_void_round(
    logs: dict[str, Path],
) -> None:
    async with shown(logs["cheat"]) as (screen, pipe, _):
        await wait_for(screen, "move 1/")
        await press(pipe, END)
        text = await wait_for(screen, "GAME ENDED: P1 cheated")
        assert "reason: illegal action" in text and "does not match the top card" in text
        assert "the round in play is void" in text
        assert "REJECTED at entry" in text and "at fault: P1 (seat 1)" in text
        assert "hands hidden (this deck was never audited)" in text and "??" in text
        assert "✗ cheat found" in text


def test_the_command_in_a_terminal(logs: dict[str, Path]) -> None:
    """`p2puno replay LOG --table` in a pseudo-terminal: End, q, then the verdict in lines;
    without a terminal it says it needs one."""
    cmd = [sys.executable, "-m", "p2puno", "replay", str(logs["fair"]), "--table"]
    plain = subprocess.run(
        cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert plain.returncode == 2 and "needs a terminal" in plain.stderr
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command on the pseudo-terminal
        os.environ["TERM"] = "xterm"
        os.execv(sys.executable, cmd)
    out = b""
    sent = 0
    end = time.monotonic() + 60
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            if sent == 0 and b"move 1/" in out:
                os.write(fd, END.encode())
                sent = 1
            elif sent == 1 and b"VERIFIED offline" in out:
                os.write(fd, b"q")
                sent = 2
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    assert sent == 2, out[-2000:]
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"VERIFIED: " in out.split(b"VERIFIED offline")[-1]  # printed once the screen is gone


@pytest.mark.parametrize("damage", ["missing", "empty", "torn", "swapped"])
async def test_a_log_that_cannot_be_drawn_gets_the_verdict_not_a_traceback(
    logs: dict[str, Path], tmp_path: Path, damage: str
) -> None:
    """Found driving the CLI: `replay LOG --table` on a missing, empty, cut or reordered log
    ended in a traceback, where `replay LOG` rejects it at the line at fault. Now the table is
    not shown and the verdict is the plain replay's."""
    from p2puno.session.replay import replay
    from p2puno.ui.replay import run_replay_table

    lines = logs["fair"].read_bytes().splitlines(keepends=True)
    path = tmp_path / "damaged.log"
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "torn":
        path.write_bytes(b"".join(lines[:5]) + lines[5][:40])
    elif damage == "swapped":
        path.write_bytes(b"".join([lines[0], lines[2], lines[1], *lines[3:]]))
    with create_pipe_input() as pipe:
        pipe.send_text("q")
        got = await asyncio.wait_for(run_replay_table(str(path), input=pipe), 60)
    want = replay(path)
    assert got is not None and not got.ok and not want.ok
    assert (got.bad_entry, got.error) == (want.bad_entry, want.error)


def test_each_frame_holds_the_engine_of_its_step_read_in_one_pass(logs: dict[str, Path]) -> None:
    """The frames come from the verifying replay's own observer session (one pass; before,
    a second pass re-ran every step, and each frame held a 15 KB deep copy of the engine):
    each frame's engine equals, field for field, that of a plain observer session stepped
    through the same log on its own, and is kept in under 2 KB."""
    import copy

    from p2puno.log.store import open_log_file
    from p2puno.session.session import Session

    for name in ("fair", "cheat"):
        log, _, signatures = open_log_file(logs[name], workers=0)
        signatures.close()
        plain = Session(log)
        engines = {0: copy.deepcopy(plain.engine)}
        while plain.blame is None:
            before = plain._done_seq
            plain.catch_up(max_steps=1)
            if plain._done_seq == before:
                break
            engines[plain._done_seq] = copy.deepcopy(plain.engine)
        r = load(logs[name])
        assert len(r.frames) > (20 if name == "fair" else 3)
        for f in r.frames:
            assert f.engine == engines[f.step] and f.engine.digest() == engines[f.step].digest()
            assert len(f.state) < 2048
        assert r.frames[-1].step == plain._done_seq
        assert (r.verdict is not None) and r.verdict.ok == (name == "fair")
