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
import unicodedata
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2puno.engine.game import Phase
from p2puno.engine.options import Options
from p2puno.session.harness import LocalTable
from p2puno.session.replay import ReplayResult, replay
from p2puno.session.testing import IllegalPlayer
from p2puno.ui.render import plain
from p2puno.ui.replay import (
    PlainReplay,
    ReplayTable,
    RoundEnd,
    file_date,
    file_date_line,
    load,
    score_table,
)
from p2puno.wire import decode
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
    m = re.search(r"move (\d+) of (\d+)", text)
    assert m, text
    return int(m.group(1))


FIRST = "before the first move ("  # (the status of the frames before any move)


async def test_stepping_through_a_game_forward_back_by_round_and_to_the_verdict(
    logs: dict[str, Path],
) -> None:
    async with shown(logs["fair"]) as (screen, pipe, table):
        text = await wait_for(screen, FIRST)
        assert "drew" in text and "for dealer" in text
        await press(pipe, RIGHT, RIGHT, RIGHT, RIGHT, RIGHT)
        text = await wait_for(screen, lambda s: table.index == 5 and "move" in s)
        assert "every hand face up" in text  # the first round's deck was audited
        hands = [ln for ln in screen.lines if re.match(r" P[01] +\d+: ", ln)]
        assert len(hands) == 2 and all(re.search(r"[rygb]\d|W", h) for h in hands), hands
        await press(pipe, LEFT)
        await wait_for(screen, lambda s: table.index == 4 and "move" in s)
        await press(pipe, DOWN)  # the next round starts
        text = await wait_for(screen, "round 2")
        at = move_no(text)
        assert at > 6 and "Start card" in text and "ROUND 1 OVER" not in text
        await press(pipe, UP)  # back to the start of round 2's previous round: its deal
        text = await wait_for(screen, FIRST)
        await press(pipe, "g", "2", ENTER)
        await wait_for(screen, f"move {at} of ")
        assert table.r.frames[table.index].moves == at
        await press(pipe, "g", "9", ENTER)
        await wait_for(screen, "no round 9: rounds 1 to 2")
        await press(pipe, "?")
        await wait_for(screen, "p2puno replay — keys")
        await press(pipe, "x")
        await press(pipe, END)
        text = await wait_for(screen, 'GAME OVER — the winner: "P0"')
        assert "VERIFIED offline" in text and "scores: P0" in text
        # what it vouches for, how long the game was, the log's counts labelled (it read
        # "move 52/53 · step 101" and "VERIFIED offline: 206 entries", helper-59)
        said = " ".join(text.replace("│", " ").split())
        assert "VERIFIED offline, genuine: every move signed by the player who made it" in said, (
            said
        )
        assert re.search(r"2 rounds, \d+ moves; the log: \d+ signed entries, \d+ steps", said)
        assert said.index("VERIFIED offline") < said.index("ROUND 2 OVER")  # (not under it)
        assert "step" not in text.split("\n")[-4], text  # (the status line: no log's count)
        await press(pipe, HOME)
        await wait_for(screen, FIRST)
        await press(pipe, "q")
        await asyncio.sleep(0.1)
        assert not table.app.is_running


async def test_a_round_end_shows_every_hand_and_its_points(logs: dict[str, Path]) -> None:
    r = load(logs["fair"])
    ends = [
        i
        for i, f in enumerate(r.frames)
        if f.round_end is not None and r.frames[i - 1].round_end is None
    ]
    assert len(ends) == 2
    async with shown(logs["fair"]) as (screen, pipe, table):
        await wait_for(screen, FIRST)
        table.index = ends[0] - 1
        await press(pipe, RIGHT)
        text = await wait_for(screen, "ROUND 1 OVER")
        # (the points a hand gives the one who went out, said as such: helper-36)
        assert re.search(r"P\d +gives +\d+  ", text) and "scores:" in text


def test_a_rounds_end_box_stays_with_that_rounds_hands_until_the_next_deal(
    logs: dict[str, Path],
) -> None:
    """A review: from the audit that ends a round to the next deal the session counts the
    next deck while the engine still holds the round's cards; the viewer showed those cards
    with the next deck's faces (wrong cards, a wrong top card) under "round 2", and the
    round's end box was gone. Every frame now shows its cards with their own deck's faces,
    and the box of a round's end stays, over that round's hands, until the next deal."""
    r = load(logs["fair"])
    boxed = 0
    with create_pipe_input() as pipe:
        table = ReplayTable(r, input=pipe, output=DummyOutput())
        for i, f in enumerate(r.frames):
            g = f.engine
            faces = r.deck_faces.get(f.deck)
            if faces is not None:  # every card known in public is the face the audit found
                known = [(s, c) for s, c in enumerate(g.faces) if c >= 0]
                assert known and all(faces[s] == c for s, c in known), i
            fresh = g.need is not None and g.need.kind == "shuffle" and not g.need.sources
            between = (g.round_no >= 2 and fresh) or g.phase is Phase.GAME_OVER
            assert (f.round_end is not None) == between, i
            if f.round_end is None or f.outcome.over:
                continue
            boxed += 1
            table.index = i
            shown = {name: [c.text for c in cards] for name, cards in table.view().all_hands}
            for ln in f.round_end:
                m = re.match(r"  (P\d) +gives +\d+  (.*)", ln)
                if m:
                    assert sorted(m[2].split()) == sorted(shown[m[1]]), (i, ln, shown)
    assert boxed >= 3  # (round 1's end, its deck's audit; round 2's end)


def test_a_step_past_either_end_says_where_it_is(logs: dict[str, Path]) -> None:
    """docs/replay.md (the viewer's keys): → past the last frame said it was the end; ← at
    the first said nothing (helper-101). Each now says where it is, and stays there."""
    r = load(logs["fair"])
    with create_pipe_input() as pipe:
        table = ReplayTable(r, input=pipe, output=DummyOutput())
        table.key("prev")
        assert table.index == 0 and table.message == "the start of the game (→ goes on, q leaves)"
        table.key("next")
        assert table.index == 1 and table.message == ""
        table.index = len(r.frames) - 1
        table.key("next")
        assert table.message == "the end of the game (← goes back, q leaves)"
        assert table.index == len(r.frames) - 1


async def test_a_cheat_ends_on_the_named_cheater_the_reason_and_the_void_round(
    logs: dict[str, Path],
) -> None:
    async with shown(logs["cheat"]) as (screen, pipe, _):
        await wait_for(screen, FIRST)
        await press(pipe, END)
        text = await wait_for(screen, 'GAME ENDED: "P1" cheated')
        assert "reason: illegal action" in text and "does not match the top card" in text
        assert "the round in play does not count" in text
        # (the reason once: the verdict says what the log proves and where, helper-59)
        said = " ".join(text.replace("│", " ").split())
        assert re.search(
            r"REJECTED: what P1 signed breaks the rules \(entry (\d+), line (\d+) of the file\)",
            said,
        ), said
        assert said.count("does not match the top card") == 2  # (the moves list, the box)
        assert "hands hidden (this deck was never checked)" in text and "??" in text
        assert "✗ cheat found" in text
    from typer.testing import CliRunner

    from p2puno.cli import app

    out = CliRunner().invoke(app, ["replay", "--verify", str(logs["cheat"])])
    said = out.output.splitlines()
    assert out.exit_code == 1 and said[-1] == "at fault: seat 1 (P1)", out.output
    # (wrapped at 80 columns, the first line as spec 10.11 gives it: helper-65)
    assert said[0].startswith("REJECTED at entry ") and all(len(ln) <= 79 for ln in said)


def _on_a_pty(
    cmd: list[str], term: str, answer: Callable[[bytes], bytes] | None = None
) -> tuple[bytes, int]:
    """``cmd`` run on a pseudo-terminal with ``TERM=term`` (60 s at most): all it wrote, and
    its exit code. ``answer`` sees what it wrote so far after each read and gives the keys
    to type then (b"" for none)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command on the pseudo-terminal
        os.environ["TERM"] = term
        os.execv(sys.executable, cmd)
    out = b""
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
            keys = answer(out) if answer is not None else b""
            if keys:
                os.write(fd, keys)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    return out, os.waitstatus_to_exitcode(status)


def test_the_command_in_a_terminal(logs: dict[str, Path]) -> None:
    """`p2puno replay LOG --table` in a pseudo-terminal: End, q, then the verdict in lines;
    without a terminal it says it needs one."""
    cmd = [sys.executable, "-m", "p2puno", "replay", str(logs["fair"]), "--table"]
    plain = subprocess.run(
        cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert plain.returncode == 2 and "needs a terminal" in plain.stderr
    sent = 0

    def answer(out: bytes) -> bytes:
        nonlocal sent
        if sent == 0 and FIRST.encode() in out:
            sent = 1
            return END.encode()
        if sent == 1 and b"VERIFIED offline" in out:
            sent = 2
            return b"q"
        return b""

    out, code = _on_a_pty(cmd, "xterm", answer)
    assert sent == 2, out[-2000:]
    assert code == 0
    assert b"VERIFIED: " in out.split(b"VERIFIED offline")[-1]  # printed once the screen is gone


def test_a_terminal_that_cannot_draw_a_screen_is_told_so(logs: dict[str, Path]) -> None:
    """TERM=dumb (Emacs' shell, an editor's pane): a terminal, but one that shows cursor moves
    as text (helper-101 read ESC[14C ESC[25A in its bytes). The table is not drawn there, and
    the reason is said; `host`, `join` and `lobby` take the line prompt there, by the same
    test (cli._terminal)."""
    cmd = [sys.executable, "-m", "p2puno", "replay", str(logs["fair"]), "--table"]
    out, code = _on_a_pty(cmd, "dumb")
    assert code == 2, out
    said = b" ".join(out.split())  # (wrapped at the terminal's width)
    assert b"needs a terminal that draws a screen (TERM=dumb here)" in said, out
    assert b"\x1b[" not in out  # (no screen drawn: no cursor moves)


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


# ---------------------------------------------------------------------- the plain replay
def plain_replay(path: Path) -> tuple[list[str], ReplayResult]:
    """`p2puno replay LOG`'s lines (the game, each round's end, the table) and its verdict."""
    out: list[str] = []
    plain = PlainReplay(out.append)
    result = replay(path, echo=plain.echo, on_step=plain.on_step)
    plain.finish(result)
    return out, result


def stopped_after_a_round(directory: Path, winner_silent: bool = False) -> Path:
    """A log of three seats whose game stopped once round 1 was played to its end, before its
    deck's audit (the network gone just as its end-of-deck reveal was proposed), the seat
    named silent not the one who went out: the round counts, unaudited (spec 10.15); or
    (``winner_silent``) the one who went out: the round is void."""
    reveals = [0]

    def cut(sender: int, raw: bytes) -> bytes | None:
        if reveals[0] < 2 and decode(raw).get("kind") == "reveal":
            reveals[0] += 1  # (the first is the draw for dealer's)
        return raw if reveals[0] < 2 else None

    t = LocalTable(Options(3, target=200), seed="stop", tamper=cut, directory=str(directory))
    t.run()
    winner = t.sessions[0].engine.out
    silent = winner if winner_silent else next(s for s in range(3) if s != winner)
    a, b = (t.sessions[s] for s in range(3) if s != silent)
    for h in b.log.hashes():
        a.receive(b.log.raw(h))
    for h in a.log.hashes():
        b.receive(a.log.raw(h))
    for voter, other in ((a, b), (b, a)):
        voter.stop([silent])
        for raw in voter.outbox:
            other.receive(raw)
        voter.outbox.clear()
    o = a.outcome
    assert o.state == "stopped" and o.void == winner_silent and a.audited_deck == 1, o
    return directory / f"node{a.seat}.log"


def test_the_plain_replay_gives_each_rounds_end_every_audited_hand_and_a_table(
    logs: dict[str, Path],
) -> None:
    """A new user: the plain replay said "Round over: P0 scores 68" and nothing of the hands
    or the standings. Each round's end now follows its deck's audit: who went out, each
    seat's points in it and running total, and every hand as the round ended; the end has a
    table of every round, whose total is the verdict's. The hands are those the table's
    round end shows (the public engine at the round's end; here, the audit's own engine)."""
    out, result = plain_replay(logs["fair"])
    assert result.ok and result.outcome is not None
    text = "\n".join(out)
    heads = [i for i, ln in enumerate(out) if re.match(r"  round \d over: P\d went out", ln)]
    assert len(heads) == 2, text
    for i in heads:  # (each after the lines of the step its deck's audit passed in)
        step = next(ln for ln in reversed(out[:i]) if ln.startswith("[step"))[:12]
        assert any(ln.startswith(step) and "verified" in ln for ln in out[:i])
    table_hands = {}
    frames = load(logs["fair"]).frames
    for before, f in zip([None, *frames], frames, strict=False):  # (a box stays up: once)
        if f.round_end is None or (before is not None and before.round_end == f.round_end):
            continue
        for ln in f.round_end:
            m = re.match(r"  (P\d) +gives +(\d+)  (.*)", ln)
            if m:
                table_hands.setdefault(m[1], []).append((sorted(m[3].split()), int(m[2])))
    plain_hands: dict[str, list[tuple[list[str], int]]] = {}
    joined = "\n".join(out).replace("\n" + " " * 26, " ")  # (a long hand wraps under itself)
    for ln in joined.splitlines():
        m = re.match(r"    (P\d) +\+(\d+) +(\d+)  (.*)  \(gives (\d+)\)$", ln)
        if m:
            plain_hands.setdefault(m[1], []).append((sorted(m[4].split()), int(m[5])))
    assert plain_hands and plain_hands == table_hands, (plain_hands, table_hands)
    # the points: the one who went out scores what the others' hands give
    for i in heads:
        scored = int(re.search(r"scores (\d+)", out[i])[1])  # type: ignore[index]
        block = out[i : out.index("", i)]
        gives = [int(g) for ln in block for g in re.findall(r"\(gives (\d+)\)", ln)]
        assert scored == sum(gives)
    at = out.index(next(ln for ln in out if ln.startswith("scores by round")))
    assert out[at + 1].split() == ["round", "out", "P0", "P1"]
    rows = [ln.split() for ln in out[at + 2 : at + 4]]
    assert [r[:2] for r in rows] == [["1", "P0"], ["2", "P0"]]
    total = out[at + 4].split()
    assert total[0] == "total" and [int(x) for x in total[1:]] == list(result.outcome.scores)
    assert [sum(int(r[2 + s]) for r in rows) for s in range(2)] == list(result.outcome.scores)
    assert all(len(ln) <= 80 for ln in out if not ln.startswith("[step"))


def test_the_plain_replay_shows_nothing_of_a_deck_never_audited_and_says_why(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    """A void round (a cheat in it) and one a log ends in: no hand of them is shown, and the
    replay says why. A round played to its end whose deck was never audited shows the hands
    as they were shown to all at its end (spec 10.6: every hand is a public slot then), and
    says its deck was not verified and why (helper-65: the table's box showed them, the plain
    replay said "hands not shown"); the verdict counts it, marked, or it is void."""
    out, result = plain_replay(logs["cheat"])
    assert not result.ok and result.blame is not None
    text = "\n".join(out)
    assert "  round 1: void, not counted; nothing of it is shown:" in out
    assert f"    P1 cheated (at step {result.blame.step} of the log): the game ended" in text
    assert "hand at the round's end" not in text and "(gives" not in text
    assert re.search(r"^ +1 +void$", text, re.MULTILINE) and re.search(
        r"^ +total +0 +0$", text, re.M
    )

    lines = logs["fair"].read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.log"
    cut.write_bytes(b"".join(lines[:60]))
    out, result = plain_replay(cut)
    assert result.incomplete
    assert "  round 1: still in play where the log ends; no hand shown:" in out
    assert "    the log ends in it: its deck is not audited yet" in out
    assert out[-1].split()[:2] == ["so", "far"]
    # cut where round 1 has ended and its deck's audit is next: its points and hands as
    # shown at its end, its deck not verified, and no round 2 (the engine counts it already;
    # nothing of it was dealt)
    reveals = [i for i, ln in enumerate(lines) if decode(ln.rstrip(b"\n")).get("kind") == "reveal"]
    cut.write_bytes(b"".join(lines[: reveals[1]]))
    out, result = plain_replay(cut)
    assert result.incomplete
    text = "\n".join(out)
    assert (
        "    hands: as shown to all at the round's end; its deck not verified: the log\n"
        "      ends before its audit"
    ) in text, text
    assert re.search(r"^    P1 +\+0 +0  .*  \(gives \d+\)$", text, re.M), text
    assert not any("round 2" in ln for ln in out if not ln.startswith("[step")), out
    assert out[-3].split()[:2] == ["1*", "P0"] and out[-2].split()[:2] == ["so", "far"]
    assert out[-1] == "  *: its deck's audit is not in the log (hands as shown at its end)"

    (tmp_path / "stop").mkdir()
    out, result = plain_replay(stopped_after_a_round(tmp_path / "stop"))
    assert result.ok and result.outcome is not None and result.outcome.state == "stopped"
    text = "\n".join(out).replace("\n      ", " ")  # (the note wraps under itself)
    assert "hand at the round's end" in text and "(gives" in text
    assert re.search(r"^  round 1 over: P\d went out and scores \d+$", text, re.MULTILINE)
    (silent,) = result.outcome.silent
    assert (
        "    hands: as shown to all at the round's end; its deck not verified: the game "
        f"stopped before its audit (P{silent} did not answer before the deadline)"
    ) in text, text
    star = next(ln for ln in out if ln.lstrip().startswith("1*"))
    total = out[out.index(star) + 1].split()
    assert total[0] == "total" and [int(x) for x in total[1:]] == list(result.outcome.scores)
    assert [int(x) for x in star.split()[2:]] == list(result.outcome.scores)
    assert "  *: its deck was never audited (hands as shown at its end); it counts" in out


def test_a_void_round_played_to_its_end_shows_its_hands_as_shown_to_all(tmp_path: Path) -> None:
    """protocol/spec.md 10.15 ("What it gives": a round whose winner is silent at its reveal
    is void) and 10.6 (its hands were opened to all at its end): the one who went out named
    silent before its deck's audit; the round's hands are listed as the table's box lists
    them, its points left out, void (helper-65)."""
    (tmp_path / "void").mkdir()
    out, result = plain_replay(stopped_after_a_round(tmp_path / "void", winner_silent=True))
    assert result.ok and result.outcome is not None and result.outcome.void
    text = "\n".join(out)
    assert re.search(r"^  round 1 over: P\d went out; void, not counted$", text, re.M), text
    said = text.replace("\n      ", " ")  # (the note wraps under itself)
    assert "(gives" in text and "its deck not verified: the game stopped" in said, text
    assert re.search(r"^ +1 +P\d +void: not counted$", text, re.M), text


def test_the_score_table_fits_80_columns_for_ten_seats_with_a_legend() -> None:
    """Ten seats, long or clashing names, and totals of six digits (a target of 100000): the
    table stays within 79 columns; names cut or numbered are given in full in a legend."""
    for names in (
        ["Host", *(f"Bot-{i}" for i in range(1, 10))],
        [f"Alexandra {i}" for i in range(10)],
        ["Ann", "Bob", "Ann"],
        ["Bartholomew", "李小龍大师", "Christabel"],
    ):
        n = len(names)
        big = tuple(99_999 + s for s in range(n))
        rounds = [
            RoundEnd(1, 2, 0, big, big, hands=((),) * n, hand_points=(0,) * n),
            RoundEnd(2, 3, -1, (0,) * n, big),
        ]
        lines = score_table(rounds, {1: True, 2: True}, 3, names, big, "total")
        cells = [
            sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in ln) for ln in lines
        ]
        assert max(cells) <= 79, lines
        legend = "\n".join(ln for ln in lines if " = " in ln)
        for name in names:  # every name in the header, else in the legend
            assert (f" {name}" in lines[1] and names.count(name) == 1) or f"= {name}" in legend
        if len(set(names)) < n:  # (names alike: the columns are the seat numbers)
            assert lines[1].split()[-n:] == [f"#{s}" for s in range(n)]
        assert "  *: its deck was never audited" in "\n".join(lines)


def test_the_file_date_is_the_files_and_said_so(
    logs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signed log holds no clock time (every node replays it alike); the replay shows the
    file's own date, labelled as the file's, and the table's end box says it too."""
    log = tmp_path / "game.log"
    log.write_bytes(logs["fair"].read_bytes())
    stamp = 1_767_323_040  # 2026-01-02 03:04 UTC
    os.utime(log, (stamp, stamp))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        assert file_date(log) == "2026-01-02 03:04 UTC"
        said = file_date_line(log)
        assert (
            said
            == "file date 2026-01-02 03:04 UTC (this file's last change, not in the signed log)"
        )
        assert len(said) <= 80
        with create_pipe_input() as pipe:
            table = ReplayTable(load(log), path=str(log), input=pipe, output=DummyOutput())
            table.index = len(table.r.frames) - 1
            screen = [ln.rstrip() for ln in plain(table.lines(80, 24))]
        assert any(
            "file date 2026-01-02 03:04 UTC (its last change; not in the signed log)" in ln
            for ln in screen
        )
    finally:
        monkeypatch.undo()
        time.tzset()
    assert file_date(tmp_path / "missing.log") is None


def test_the_tables_header_and_end_box_at_80_columns(logs: dict[str, Path], tmp_path: Path) -> None:
    """A review at 80 columns: a long log name cut the header's round ("rou…"), and the end
    box of a log cut short left "game" alone on a line. The title gives way first (to
    "replay · <name>", then cut), the round and the verdict stay whole; the box's lines are
    wrapped by the box, never by hand."""
    long = tmp_path / "p2puno-demo-four-players-on-friday-evening.log"
    long.write_bytes(logs["fair"].read_bytes())
    lines = logs["fair"].read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.log"
    cut.write_bytes(b"".join(lines[:60]))
    for path in (long, cut, logs["fair"]):
        with create_pipe_input() as pipe:
            table = ReplayTable(load(path), path=str(path), input=pipe, output=DummyOutput())
            for index in (0, len(table.r.frames) - 1):
                table.index = index
                screen = [ln.rstrip() for ln in plain(table.lines(80, 24))]
                header = screen[0]
                assert re.search(r"· (round \d+|draw for dealer) · to 100 ", header), header
                # (not "verifying every move": the file is checked before the first frame)
                assert header.endswith(("no deck audited yet", "verified")), header
                if path == logs["fair"]:
                    assert header.startswith(" p2puno replay · node0.log · ")
                if path == long:
                    assert header.startswith(" replay · p2puno-demo-four-players"), header
                box = [ln.strip(" │") for ln in screen if ln.startswith(" │")]
                assert all(len(ln.split()) > 1 for ln in box if ln), box
        if path == cut:
            assert any("NOT OVER: every entry verifies" in ln for ln in box), box


# ---------------------------------------------------------------------- helper-65
def cut_before_the_audit(fair: Path, tmp_path: Path) -> Path:
    """The fair log cut where round 1 has ended (its hands shown to all) and its deck's
    audit is next."""
    lines = fair.read_bytes().splitlines(keepends=True)
    reveals = [i for i, ln in enumerate(lines) if decode(ln.rstrip(b"\n")).get("kind") == "reveal"]
    cut = tmp_path / "cut.log"
    cut.write_bytes(b"".join(lines[: reveals[1]]))
    return cut


def test_a_rounds_hands_are_said_alike_by_the_table_and_the_plain_replay(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    """protocol/spec.md 10.6 (every hand is a public slot at a round's end) and 10.10 (the
    audit). A log cut before a deck's audit: the table's round-end box showed that round's
    hands while the plain replay said "hands not shown" (helper-65). Both now list the hands
    as shown to all at the round's end, and say alike whether its deck was verified; the
    table's own hands under the box show those cards too, not "??"."""
    for path, audited in (
        (logs["fair"], True),
        (cut_before_the_audit(logs["fair"], tmp_path), False),
    ):
        out, _ = plain_replay(path)
        text = "\n".join(out).replace("\n      ", " ").replace("\n" + " " * 26, " ")
        note = re.findall(r"^    (hands: .*)$", text, re.M)[0]
        text = text[: text.index(note)]  # (round 1's block)
        plain_hands = {
            m[1]: sorted(m[2].split())
            for m in re.finditer(r"^    (P\d) +\+\d+ +\d+  (.*)  \(gives \d+\)$", text, re.M)
        }
        r = load(path)
        i = next(i for i, f in enumerate(r.frames) if f.round_end is not None)
        with create_pipe_input() as pipe:
            table = ReplayTable(r, path=str(path), input=pipe, output=DummyOutput())
            table.index = i
            screen = " ".join(" ".join(ln.strip(" │") for ln in plain(table.lines(80, 24))).split())
            below = {name: sorted(c.text for c in cards) for name, cards in table.view().all_hands}
        assert note in screen, (note, screen)
        assert ("its deck verified" in note) == audited, note
        if not audited:
            assert note.endswith("its deck not verified: the log ends before its audit"), note
            assert "hands shown at the round's end (deck never checked)" in screen, screen
        box_hands = {
            m[1]: sorted(m[2].split())
            for ln in r.frames[i].round_end or []
            if (m := re.match(r"  (P\d) +gives +\d+  (.*)", ln))
        }
        assert plain_hands and plain_hands == box_hands, (plain_hands, box_hands)
        assert all(below[name] == cards for name, cards in box_hands.items()), below


def test_the_tables_counter_counts_moves_as_the_verdict_does(logs: dict[str, Path]) -> None:
    """helper-65: the end said "1 round, 142 moves" above "move 189 of 189": the counter
    counted the frames. It counts moves now (the verdict's, docs/replay.md): "move N of M" on
    the frame of move N, "after move N of M" on the frames that follow it before the next."""
    r = load(logs["fair"])
    with create_pipe_input() as pipe:
        table = ReplayTable(r, input=pipe, output=DummyOutput())
        said = []
        for i in range(len(r.frames)):
            table.index = i
            said.append(table.view().status.split(" · ")[0])
        verdict = " ".join(table.verdict_lines())
    total = r.length.moves
    assert f"{total} moves;" in verdict and said[0] == f"before the first move ({total} in all)"
    numbered = [int(m[1]) for s in said if (m := re.fullmatch(rf"move (\d+) of {total}", s))]
    assert numbered == list(range(1, total + 1)), said
    assert all(re.fullmatch(rf"(after )?move \d+ of {total}|before .*", s) for s in said), said
    assert said[-1] in (f"move {total} of {total}", f"after move {total} of {total}")


def test_loading_says_its_progress_in_the_files_entries(logs: dict[str, Path]) -> None:
    """helper-65: "checking the log: step 256 ..." (the log's step, a verifier's count). The
    loading line says the entries read of the file's, and the share."""
    from p2puno.ui.replay import progress_words

    read: list[int] = []
    load(logs["fair"], progress=read.append)
    lines = len(logs["fair"].read_bytes().splitlines())
    assert read and all(0 < n <= lines for n in read) and read == sorted(read)
    assert progress_words(1024, 5492) == "checking the log: 1,024 of 5,492 entries (18%) ..."
    assert progress_words(9000, 5492).startswith("checking the log: 5,492 of 5,492 entries (100%)")
    assert "step" not in progress_words(3, 0) + progress_words(3, 10)


def test_a_verdicts_long_line_wraps_at_80_columns_never_cutting_a_number_from_its_unit(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    """helper-65: REJECTED and NOT OVER ran on to 120 and 190 columns. Wrapped at 80 (the
    terminal's width when there is one), the first line as spec 10.11 gives it; a number
    stays with its label or unit on one line ("entry 30", "136 entries")."""
    from typer.testing import CliRunner

    from p2puno.cli import app
    from p2puno.ui.replay import wrap_verdict

    out = CliRunner().invoke(app, ["replay", str(cut_before_the_audit(logs["fair"], tmp_path))])
    said = out.output.splitlines()
    at = next(i for i, ln in enumerate(said) if ln.startswith("NOT OVER: the "))
    assert re.match(r"NOT OVER: the \d+ entries verify", said[at]), said[at]
    assert out.exit_code == 1 and all(len(ln) <= 79 for ln in said), said
    assert " ".join(" ".join(said[at:]).split()).endswith("; no verdict")
    assert "node" not in " ".join(said[at:])  # (a person's words: helper-65)
    text = "REJECTED at entry 30: " + "word " * 9 + "12 entries, step 15: 45 s left"
    for width in (40, 60, 79):
        lines = wrap_verdict(text, width)
        assert lines[0].startswith("REJECTED at entry 30:") and all(len(x) <= width for x in lines)
        assert all(not re.search(r"\d$", x) and not re.match(r" *[a-z]+[:,]", x) for x in lines)
        assert " ".join(" ".join(lines).split()) == text
