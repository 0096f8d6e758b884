"""The table's moments that come from the session rather than a key: the joint shuffle's
progress while the deck is dealt, a reshuffle's notice, the verification status, and a game
a cheat ended (the cheater named, the reason, the void round). The table is drawn from real
sessions (p2puno.session.harness: one per seat, in process) and read from the pyte screen."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import replace
from types import SimpleNamespace

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2puno.engine.game import Game
from p2puno.engine.options import Options
from p2puno.node.game import command
from p2puno.session import Session
from p2puno.session.harness import LocalTable as SessionTable
from p2puno.session.testing import IllegalPlayer
from p2puno.ui.app import TableUI
from p2puno.ui.local import LocalTable
from tests.ui.harness import ENTER, Screen, press, run_out_a_turn, wait_for


@asynccontextmanager
async def at(session: Session, me: int | None) -> AsyncIterator[tuple[Screen, TableUI]]:
    screen = Screen(80, 24)
    with create_pipe_input() as pipe:
        ui = TableUI(name="P0", input=pipe, output=screen.output, tick_s=0.1)
        ui.attach(session, me, [p.name for p in session.log.players])
        app = asyncio.ensure_future(ui.app.run_async())
        ticker = asyncio.ensure_future(ui.ticker())
        try:
            yield screen, ui
        finally:
            ticker.cancel()
            ui.close()
            await asyncio.wait_for(app, 5)


def route(table: SessionTable, until: int) -> None:
    """Deliver the first ``until`` entries (in the order they were sent)."""
    queue: list[tuple[int, bytes]] = []
    for i, s in enumerate(table.sessions):
        s.start()
        queue.extend((i, raw) for raw in s.outbox)
        s.outbox.clear()
    for _ in range(until):
        if not queue:
            break
        sender, raw = queue.pop(0)
        for i, s in enumerate(table.sessions):
            if i != sender:
                s.receive(raw)
                queue.extend((i, r) for r in s.outbox)
                s.outbox.clear()


async def test_the_joint_shuffle_shows_its_progress_and_whom_it_waits_for() -> None:
    table = SessionTable(Options(3), seed="progress")
    route(table, 15)  # the draw for dealer's deck: commitments and the first passes
    s0 = table.sessions[0]
    assert s0.shuffles and not s0.shuffles[-1].view.complete
    async with at(s0, 0) as (screen, _):
        text = await wait_for(screen, "shuffling a new deck together")
        assert 'waiting for "P2"' in text
        assert "pass 3/6 ■■■□□□" in text
        first = text
        # the spinner turns: the screen never looks frozen
        await wait_for(screen, lambda s: s != first, timeout=2)


async def test_a_cheat_ends_the_game_on_the_screen_with_the_cheater_and_the_reason() -> None:
    table = SessionTable(Options(2, target=60), seed="illegal")
    table.sessions[1].decider = IllegalPlayer("x")
    table.run()
    s0 = table.sessions[0]
    assert s0.outcome.state == "cheat"
    async with at(s0, 0) as (screen, ui):
        ui.on_events(list(s0.events))
        # (the name quoted, as everywhere at the table; the round in play said plainly, as a
        # stopped game's is: "is void; the scores are the last audited ones", helper-55)
        text = await wait_for(screen, 'GAME ENDED: "P1" cheated')
        assert "reason: illegal action" in text and "does not match the top card" in text
        # (in round 1: no round was verified, the scores stay at 0; helper-64's brief)
        assert "the round in play does not count, and the scores stay at 0, no round" in text
        assert "void" not in text and "last audited" not in text
        assert "✗ cheat found" in text and "the audit named the cheater" in text


async def test_a_finished_game_shows_the_verification_and_how_to_replay_it() -> None:
    """The game's end box: the winner, the verification, the log and the command that
    replays it; no word of the game in play left under it (docs/ui.md, "Passing words leave
    by themselves")."""
    table = SessionTable(Options(2, target=60), seed="r2")
    table.run()
    s0 = table.sessions[0]
    async with at(s0, 0) as (screen, ui):
        # (a word of the game in play goes at its end: "not your turn: wait for it" stood
        # under "GAME OVER", helper-71's brief; docs/ui.md, "Passing words leave by themselves")
        ui.state.message = "not your turn: wait for it"
        ui.on_events(list(s0.events))
        ui.log_path = "/data/games/abc/log"
        ui.invalidate()
        text = await wait_for(screen, "GAME OVER — the winner")
        assert "not your turn" not in text, text
        assert 'GAME OVER — the winner: "P0"' in text or "GAME OVER — the winner: you" in text
        assert "decks verified" in text  # the header
        assert "every deck audited and verified" in text
        assert "log: /data/games/abc/log" in text
        # (a command that works from any shell: helper-51's `p2puno replay` was not on the
        # PATH of a venv not activated; the box may wrap it at a space)
        end = ui.view().end or []
        assert f"  replay it:  {command()} replay /data/games/abc/log --table" in end, end
        # (the command whole on one line, to copy: helper-71's brief read it over two)
        cmd = f"{command()} replay /data/games/abc/log --table"
        assert any(line.strip(" │") == cmd for line in text.split("\n")) or (
            f"replay it:  {cmd}" in text
        ), text
        assert "ROUND" in text and " gives " in text  # the last round's hands and points
        # a key meant for the round's end does not close the game's end unseen
        await press(ui.app.input, ENTER)  # type: ignore[arg-type]
        await wait_for(screen, "the game is over: q closes the table")
        assert ui.app.is_running
        await press(ui.app.input, "q")  # type: ignore[arg-type]
        for _ in range(100):
            if not ui.app.is_running:
                break
            await asyncio.sleep(0.02)
        assert not ui.app.is_running


async def test_a_reshuffle_is_announced() -> None:
    screen = Screen(80, 24)
    with create_pipe_input() as pipe:
        ui = TableUI(name="You", input=pipe, output=screen.output, tick_s=0.1)
        local = LocalTable(
            ui, Options(4), "reshuffle", hand_over=lambda g, k, a: False, policies=["random"] * 4
        )
        app = asyncio.ensure_future(ui.app.run_async())

        def reshuffled(g: Game) -> bool:
            return g.stats.reshuffles > 0

        try:
            await local.play(until=reshuffled, max_steps=5000)
            assert local.game.stats.reshuffles == 1
            text = await wait_for(screen, "The discard pile is shuffled again by everyone")
            assert "everyone into a new draw pile of" in text
            # a moment stays on its own line until the next key
            await press(pipe, ENTER)
            await wait_for(screen, lambda s: "pile is shuffled again by everyone" not in s)
        finally:
            ui.close()
            await asyncio.wait_for(app, 5)


def test_a_challenge_of_your_wild_draw_four_reads_as_english() -> None:
    """002 · Wild Draw Four (challenge). Found driving the CLI: "Robo challenged you's Wild Draw
    Four"."""
    from p2puno.engine.game import Event
    from p2puno.ui.model import describe_event

    g = Game(Options(3))
    names = ["Ann", "Bob", "Robo"]
    assert (
        describe_event(g, names, 0, Event("challenge", seat=2, other=0))
        == "Robo challenged your Wild Draw Four"
    )
    assert (
        describe_event(g, names, 1, Event("challenge", seat=2, other=0))
        == "Robo challenged Ann's Wild Draw Four"
    )
    assert (
        describe_event(g, names, 0, Event("challenge", seat=0, other=2))
        == "You challenged Robo's Wild Draw Four"
    )


def test_a_history_caught_up_at_once_shows_the_cards_left_at_each_play() -> None:
    """A resumed node or a spectator takes many steps before it prints them: each play's
    "(N left)" is the count at that play, not at the time of printing (found in the fourth
    session's notes: "played g3 (5 left)" for a seat that held 5 cards much later)."""
    import random

    from p2puno.bots import make_bot
    from p2puno.sim.runner import Table
    from p2puno.ui.model import describe_event

    t = Table(Options(3), [make_bot("heuristic", f"h{s}") for s in range(3)], random.Random(3))
    names = ["Ann", "Bob", "Cee"]
    held: list[tuple[object, int]] = []  # every play event, with its seat's count then
    while t.game.phase.value != "game-over" and len(held) < 60:
        _, events = t.step()
        held.extend((e, len(t.game.hands[e.seat])) for e in events if e.kind == "play")
    assert len(held) == 60
    lines = [describe_event(t.game, names, None, e) for e, _ in held]  # printed now
    assert [line.rsplit("(", 1)[1] for line in lines] == [f"{n} left)" for _, n in held]
    assert len({n for _, n in held}) > 3  # (the counts moved: the test can tell)


def test_leaving_says_what_stops_with_this_node() -> None:
    """Found driving the CLI: a spectator's q showed the player's warning (the others vote you
    out), and a host that ran bots was not told that its bots stop with it."""
    from p2puno.ui.model import UiState, ViewInputs, _choices

    g = Game(Options(3))
    ui = UiState(mode="quit")
    names = ["Ann", "Bob", "Bot-1"]
    watching, _ = _choices(g, None, ui, names, None, ViewInputs(names, None))
    assert watching == ["Stop watching?"]
    notes = ["", "", "on host"]
    host, _ = _choices(g, None, ui, names, 0, ViewInputs(names, 0, notes=notes))
    assert "the game ends for everyone" in " ".join(host) and host[-1] == (
        "The 1 bot this machine runs stops too (back with your resume)."
    )
    joiner, _ = _choices(g, None, ui, names, 1, ViewInputs(names, 1, notes=notes))
    assert "the game ends for everyone" in " ".join(joiner) and "bot" not in " ".join(joiner)
    # (helper-51: what the others' game becomes, in the question; a sentence the screen
    # wraps at its width, helper-77's brief: tests/ui/test_h77_words.py)
    assert "the game ends for everyone: the round in play does not count" in joiner[2], joiner
    hint = "p2puno resume --data-dir /tmp/x"
    named, _ = _choices(g, None, ui, names, 1, ViewInputs(names, 1, resume_hint=hint))
    assert named[1].strip() == hint  # (the command that would find this game)


def test_a_host_leaving_a_table_of_its_own_bots_is_told_the_game_waits() -> None:
    """Found driving the CLI (a host and its 2 bots, q): the screen said the others would vote
    it out, but its bots stop with it and nobody else is at the table; and the line saying its
    bots stop was never drawn (the choices were cut at four lines)."""
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import render

    table = SessionTable(Options(3), seed="leave")
    src = table.sessions[0]
    names = ["Ann", "Bot-1", "Bot-2"]
    ui = UiState(mode="quit")

    def screen(notes: list[str]) -> str:
        view = table_view(src, ui, ViewInputs(names, 0, notes=notes, resume_hint="p2puno resume"))
        return "\n".join("".join(t for _, t in line) for line in render(view, 80, 24))

    alone = screen(["", "on host", "on host"])
    assert "the 2 bots it runs with it" in alone and "the game waits for you" in alone
    assert "ends for everyone" not in alone and "p2puno resume" in alone
    mixed = screen(["", "", "on host"])
    assert "the game ends for everyone" in mixed
    assert "The 1 bot this machine runs stops too (back with your resume)." in mixed


def test_a_long_resume_command_in_the_leave_question_is_wrapped_never_cut() -> None:
    """helper-70: at 80 columns the leave question cut a resume command past 77 columns with
    no sign of it (".../p2puno-demo-khcctil" for "...khcctilh"), and copying it named no
    directory. Every part is shown; the command whole on one line (split at a space, as it
    was then, it does not run typed from two lines: helper-77's brief)."""
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import render

    table = SessionTable(Options(3), seed="leave")
    hint = "/tmp/an-h70/clone/.venv/bin/p2puno resume --data-dir /tmp/p2puno-demo-khcctilh"
    names = ["Ann", "Bob", "Cy"]
    view = table_view(
        table.sessions[0], UiState(mode="quit"), ViewInputs(names, 0, resume_hint=hint)
    )
    lines = ["".join(t for _, t in line) for line in render(view, 80, 24)]
    assert any(line.strip() == hint for line in lines), lines


def test_the_lobby_draws_its_questions_and_its_end() -> None:
    """Found driving the CLI: in the lobby, q, Ctrl-C and ? opened a question that was never
    drawn; once the host was gone the screen still said it waited for the host; before the
    host answered it showed options nobody had set; a long error was cut at the edge."""
    from p2puno.ui.render import lobby_lines

    def text(lines: list[list[tuple[str, str]]]) -> str:
        return "\n".join("".join(t for _, t in line) for line in lines)

    table = {"name": "t", "size": 3, "seats": [], "options": {"target": 200, "house": []}}
    assert "Leave the lobby (your seat is given up" in text(
        lobby_lines(table, "127.0.0.1:9", False, 100, 24, mode="quit")
    )
    assert "the table closes for everyone" in text(
        lobby_lines(table, "127.0.0.1:9", True, 100, 24, mode="quit")
    )
    assert "any key: back" in text(lobby_lines(table, "127.0.0.1:9", True, 100, 24, mode="help"))
    # a review: a spectator read "starting: the genesis is being signed" while Bob decided
    final3 = {**table, "confirm": True, "seats": [{"name": "Bob", "ready": False}] * 2}
    eve = text(lobby_lines(final3, "127.0.0.1:9", False, 100, 24, spectator=True))
    assert "waiting for Bob, Bob to confirm the table" in eve and "starting" not in eve
    watching = text(lobby_lines(table, "127.0.0.1:9", False, 100, 24, mode="quit", spectator=True))
    assert "Stop watching?" in watching and "seat" not in watching.split("\n")[-1]
    why = "the host went away: " + "its link closed without a word " * 6
    ended = text(lobby_lines(table, "127.0.0.1:9", False, 80, 24, why, closed=True))
    assert "q: close" in ended and "waiting for the host" not in ended
    assert " ".join(ended.split()).count("without a word") == 6  # wrapped, not cut off
    reaching = text(lobby_lines({"name": "(reaching the host...)"}, "?", False, 80, 24))
    assert "game to" not in reaching and "house rules" not in reaching and "join" not in reaching
    assert "seated" not in reaching and "who" not in reaching  # (a review: "seat 0/?" drawn)
    # no table yet, or none: said in words (helper-104 read 'table "(no table)"')
    assert reaching.split("\n")[0].strip() == "p2puno lobby · reaching the host...", reaching
    gone = text(lobby_lines({"name": "(no table)"}, "?", False, 80, 24, why, closed=True))
    assert gone.split("\n")[0].strip() == "p2puno lobby · no table", gone
    # a review: after the host's s with 3 of 4 seats taken, the final table still showed a
    # free seat, and "press Enter within 60 s" that never counted down
    seat = {"name": "Ann", "kind": "person", "runner": "self", "key": "ab", "ready": False}
    final = {**table, "size": 4, "confirm": True, "seats": [seat] * 3}
    final["options"] = {"target": 200, "house": [], "timing": {"turn_s": 60, "step_s": 20}}
    asked = text(lobby_lines(final, "127.0.0.1:9", False, 100, 24, asked=True, asked_left=41.2))
    assert "final: 3 seated" in asked and "(free)" not in asked and "within 42 s" in asked
    # a review: leaving a table being confirmed held the address off (a second person on the
    # same machine was refused for a minute) and the question did not say so
    leave = text(lobby_lines(final, "", False, 100, 24, mode="quit"))
    assert "no seat from this address for 60 s" in leave
    assert leave.splitlines()[-1].strip() == "Leave the lobby? y: leave · n / Esc: stay"
    # a review: nothing in the roster said which seat was the reader's own
    bob = {**seat, "name": "Bob"}
    mine = text(lobby_lines({**final, "seats": [seat, bob]}, "", False, 100, 24, me="Bob"))
    assert "Bob (you)" in mine and "Ann (you)" not in mine
    gone = text(
        lobby_lines({**final, "seats": [seat, bob]}, "", False, 100, 24, me="Bob", lost=True)
    )
    assert "Bob (lost)" in gone and "(you)" not in gone  # (the host gave it up: `x`)
    # a review: a 32-character name was cut to 16 with no mark, like another with its start
    zoe = {**seat, "name": "ZoëWWWWWWWWWWWWWWWWWWWWWWWWWWWWW"}
    cutoff = text(lobby_lines({**final, "seats": [seat, zoe]}, "", False, 100, 24, me="Ann"))
    assert "ZoëWWWWWWWWWWWW… " in cutoff
    # a review: at 60x20 the seats' rows were cut mid-word; too small is said, as the table
    # does, with what is asked (its clock) and the keys still in view
    small = text(lobby_lines(final, "", False, 60, 20, asked=True, asked_left=41.2))
    assert "The lobby needs 80x24; this terminal is 60x20." in small
    assert "within 42 s" in " ".join(small.split()) and "Enter play at this table" in small
    assert "final: 3 seated" not in small
    assert all(len(line) <= 60 for line in small.splitlines())
    # ... and a joiner's title did not name the table (the host's did)
    from prompt_toolkit.output import DummyOutput

    with create_pipe_input() as pipe:
        ui = TableUI(name="Bob", input=pipe, output=DummyOutput())
        ui.on_table({**final, "name": "Loopy"})
        ui.on_table({**final, "name": "Loopy\x1b[2J"})  # (a later table: the title stays)
        assert ui.title == "p2puno · Loopy"
        odd = TableUI(name="Bob", input=pipe, output=DummyOutput())
        odd.on_table({**final, "name": "\x1b[2Jx"})  # (not printable: the title leaves it)
        assert odd.title == "p2puno"


async def test_a_stopped_game_does_not_claim_the_deck_in_play_was_audited() -> None:
    """Spec 10.15: a stopped game's round in play is void and its deck never audited (it
    cannot be opened without the silent seat's keys; a replay shows its hands unaudited).
    The end box said "every deck audited and verified" all the same (found re-reading it).
    It also dropped the round in play altogether (helper-71's brief): it says what this
    screen knew of it (docs/ui.md, "The round's end stays up", a game stopped unfinished)."""
    from p2puno.session.simnet import NetConfig, SimNet

    table = SessionTable(Options(2, target=500), seed="stopped-end")
    gone: list[int] = []

    def silence(seat: int, raw: bytes) -> bool:
        # at its turn in the second round (deck 1 is the draw for dealer)
        proposal = b'"role":"proposal"' in raw and b'"kind":"action"' in raw
        if seat == 1 and proposal and table.sessions[1].deck_no >= 3:
            gone.append(seat)
            return True
        return False

    SimNet(table, "stopped-end", NetConfig(delay=(0, 0), deadline=1000, silence=silence)).run()
    s0 = table.sessions[0]
    assert gone and s0.outcome.state == "stopped" and s0.outcome.void, s0.outcome
    async with at(s0, 0) as (screen, ui):
        ui.on_events(list(s0.events))
        text = await wait_for(screen, "2 decks audited and verified; the deck in play was never")
        assert 'GAME STOPPED: "P1" did not answer in time' in text
        assert "the round in play does not count" in text
        assert "every deck audited" not in text
        # the round in play as this screen knew it (helper-71's brief: the box dropped the
        # last round's hands; the seat list is out of view under it at 80 columns): the
        # cards in each hand, this seat's own in its hand row under the box
        g = s0.engine
        n0, n1 = len(g.hands[0]), len(g.hands[1])
        said = f"ROUND {g.round_no} WHEN THE GAME ENDED — cards in hand: you {n0} (your hand,"
        box = " ".join(" ".join(line.strip(" │").split()) for line in text.split("\n"))
        assert said in box and f"below), P1 {n1}" in box, text
        assert f"your hand ({n0}): " in text, text


def test_the_lobby_fits_a_full_table_of_ten_at_80_by_24() -> None:
    """protocol/lobby.md section 2: a person confirms every seat, so every seat must be on
    the screen. 2 to 10 seats, host-run bots or not, asked / confirmed / waiting / spectator /
    host, with the longest message the table shows (cut to two lines): at 80 x 24 every seat
    row, the question and the keys line are there."""
    from p2puno.node.lobby import make_options
    from p2puno.session import Timing
    from p2puno.ui.render import lobby_lines

    def text(lines: list[list[tuple[str, str]]]) -> str:
        return "\n".join("".join(t for _, t in line) for line in lines)

    message = "the table refused the seat: " + "a long reason, " * 20
    for size in range(2, 11):
        house = ["progressive", "seven-o", "jump-in"] if size % 2 else []
        opts = make_options(size, house, "standard", 500, Timing(20, 60, 2500))
        for bots in (0, size - 2):
            seats: list[dict[str, object]] = [
                {"name": f"Person{k}", "kind": "person", "runner": "self",
                 "key": f"{k:016x}", "connected": True, "ready": k % 2 == 0}
                for k in range(size - bots)
            ] + [
                {"name": f"Bot-{k}", "kind": "bot", "runner": "host", "key": f"{k:016x}",
                 "connected": True}
                for k in range(bots)
            ]  # fmt: skip
            table = {"name": "Ann's table", "options": opts, "seats": seats, "size": size,
                     "confirm": True}  # fmt: skip
            for how in ("asked", "confirmed", "host", "spectator"):
                screen = text(
                    lobby_lines(
                        table, "127.0.0.1:9", how == "host", 80, 24, message,
                        asked=how == "asked", confirmed=how == "confirmed",
                        spectator=how == "spectator",
                    )
                )  # fmt: skip
                lines = screen.splitlines()
                assert len(lines) == 24, (size, bots, how)
                for s in seats:
                    assert f" {s['name']} " in screen, (size, bots, how, s["name"], screen)
                if bots:
                    assert "the host could see its hand" in screen, (size, bots, how)
                if how == "asked":
                    assert "press Enter within 60 s" in screen and "Enter play" in lines[-1]
                if how == "confirmed":
                    assert "you confirmed; waiting for" in screen
                assert "a long reason" in screen and screen.count("a long reason") < 10


async def test_the_hosts_start_key_starts_with_two_seats_or_more_and_is_forgotten_alone() -> None:
    """`s` in the host's lobby asks the node to start with the seats taken (2 or more); if
    every other seat then leaves, the ask is forgotten, so the next joiner finds the table
    open rather than final (a second review: it landed on a final table)."""
    import os

    from p2puno.log import Identity
    from p2puno.node.lobby import Endpoint, HostLobby, Seat, make_options
    from p2puno.node.run import _seated
    from p2puno.session import Timing

    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", host=True, input=pipe, output=Screen().output)
        ui.on_table({"seats": [{"name": "Ann"}], "size": 3})
        ui.key("s")
        assert not ui.start.is_set() and "at least 2 players" in ui.lobby_message
        ui.on_table({"seats": [{"name": "Ann"}, {"name": "Bob"}], "size": 3})
        ui.key("s")
        assert ui.start.is_set() and ui.lobby_message == ""

    ident = Identity.generate()
    ep = Endpoint(ident, "127.0.0.1")
    await ep.start()
    me = Seat("Ann", ident.sign_pk, ident.dh_pk, os.urandom(32), "person", "self", "@", ep.port)
    options = make_options(3, [], "standard", 200, Timing(5, 5, 0))
    lobby = HostLobby(ep, table="t", me=me, options=options, seats=3)
    seated = asyncio.ensure_future(_seated(lobby, ui.start))
    await asyncio.sleep(0.1)
    assert not ui.start.is_set() and not lobby.start_asked and not lobby.confirming
    seated.cancel()
    ep.close()


def test_a_round_that_ended_before_a_catch_up_shows_no_box() -> None:
    """A review found a resumed host shown "ROUND 1 OVER" with round 2's hands under it: the
    resumed node's first batch is the game so far, and the box of round 1's end was drawn
    from the state after the whole batch. A round's end followed in the same batch by the
    next deal is history now (its line stays in the moves); one that is the batch's last
    round shows its box, and the key that closes the box does only that (it played a card
    when it came on the person's turn)."""
    import random

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2puno.bots import make_bot
    from p2puno.session.session import SessionEvent
    from p2puno.sim.runner import Table
    from p2puno.ui.app import TableUI

    t = Table(Options(2), [make_bot("heuristic", f"r{s}") for s in range(2)], random.Random(5))
    batch: list[SessionEvent] = []
    shown: list[list[str] | None] = []
    with create_pipe_input() as pipe:
        while len(shown) < 2 and t.game.phase.value != "game-over":
            _, events = t.step()
            batch += [SessionEvent("engine", str(e), event=e) for e in events]
            kinds = [e.kind for e in events]
            if "round-over" in kinds or (shown and "start" in kinds):
                ui = TableUI(name="Ann", input=pipe, output=DummyOutput())
                src = SimpleNamespace(engine=t.game, outcome=SimpleNamespace(over=False))
                ui.attach(src, 0, ["Ann", "Bob"])  # type: ignore[arg-type]
                ui.on_events(batch)
                shown.append(ui.state.round_end)
        assert shown[0] is not None and "ROUND 1 OVER" in shown[0][0]  # the batch's last round
        assert shown[1] is None  # round 2 dealt later in the batch: history
        assert any("Round over" in line for line in ui.log)
        ui.state.round_end = ["ROUND 1 OVER"]
        ui.prompt = SimpleNamespace(kind="turn")  # type: ignore[assignment]
        ui.key("enter")
        assert ui.state.round_end is None and ui._future is None  # closed, nothing played


def test_a_wait_on_a_seat_that_is_gone_says_so() -> None:
    """A review: Bob drew while Ann had left the table; "sent: you draw" stayed up with a
    countdown and no word of why (her keys open his card). The wait now says the seat is
    gone (its link lost and not back) beside what it owes."""
    from p2puno.session.session import Outcome, Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view

    src = SimpleNamespace(
        engine=Game(Options(3)),
        outcome=Outcome("playing", (0, 0, 0)),
        waiting=lambda: Waiting(7, "sync", (0, 2), {0: "keys", 2: "keys"}),
        audited_deck=2,  # (a round verified: its scores stay; before one, they stay at 0)
        deck_no=3,
    )
    names = ["Ann", "Bob", "Cid"]
    gone = table_view(src, UiState(), ViewInputs(names, 1, away=frozenset({0})))  # type: ignore[arg-type]
    assert '"Ann" (not connected) and "Cid" to send the keys that open cards' in gone.status
    # what it leads to, before it does (helper-51: the person learnt it from the end screen)
    assert gone.progress == (
        'unless "Ann" is back in time, the game ends for everyone: the round in play does not '
        "count, and the scores stay as at the last verified round"
    )
    # a node that would stop alone says so, as its own line does (helper-54 read both at once)
    vi = ViewInputs(names, 1, away=frozenset({0}), alone=True)
    alone = table_view(src, UiState(), vi)  # type: ignore[arg-type]
    assert alone.progress.startswith('unless "Ann" is back in time, your node stops, the game '
                                     "unfinished here"), alone.progress  # fmt: skip
    assert "ends for everyone" not in alone.progress
    # a round played to its end waits only for its deck's check: it counts (spec 10.15, "What
    # it gives"; helper-56 saw "does not count" said of a round the stop then counted)
    src.round_played_out = lambda: True
    out = table_view(src, UiState(), ViewInputs(names, 1, away=frozenset({0})))  # type: ignore[arg-type]
    assert "the round just played to its end still counts, unless its winner" in out.progress
    del src.round_played_out
    here = table_view(src, UiState(), ViewInputs(names, 1))  # type: ignore[arg-type]
    assert '"Ann" and "Cid" to send the keys' in here.status and "connected" not in here.status
    assert "ends for everyone" not in here.progress
    # a seat whose node said it was leaving (Ctrl-C, q: a BYE) is told as such, to the end
    vi = ViewInputs(names, 1, away=frozenset({0}), left=frozenset({0}))
    left = table_view(src, UiState(), vi)  # type: ignore[arg-type]
    assert '"Ann" (left the table) and "Cid" to send the keys' in left.status
    src.outcome = Outcome("stopped", (0, 0, 0), silent=(0,), step=7)
    end = table_view(src, UiState(), vi)  # type: ignore[arg-type]
    assert 'GAME STOPPED: "Ann" left the table and did not come back in time' in (end.end or [])


def test_a_drawn_card_that_cannot_be_played_is_told_as_such() -> None:
    """A review: Enter on the card just drawn, which did not match, said "after drawing, only
    the drawn card may be played". It says the engine's own reason now (002 · Draw: a drawn
    card that can be played may be; else the turn passes: k keeps it); another card of the
    hand still gets the first answer."""
    import random

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2puno.bots import make_bot
    from p2puno.engine.game import Phase
    from p2puno.sim.runner import Table
    from p2puno.ui.app import TableUI

    t = Table(Options(2), [make_bot("random", f"d{s}") for s in range(2)], random.Random(9))
    g = t.game
    while not (
        g.phase is Phase.DRAWN and not g.playable(g.faces[g.drawn]) and len(g.hands[g.turn]) > 1
    ):
        t.step()
        assert g.phase is not Phase.GAME_OVER
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput())
        src = SimpleNamespace(engine=g, outcome=SimpleNamespace(over=False))
        ui.attach(src, g.turn, ["Ann", "Bob"])  # type: ignore[arg-type]
        turn = SimpleNamespace(kind="turn")
        drawn = ui._why_card(g.drawn, turn)  # type: ignore[arg-type]
        assert drawn.startswith("the drawn ") and drawn.endswith("is not playable (k keeps it)")
        other = next(s for s in g.hands[g.turn] if s != g.drawn)
        assert ui._why_card(other, turn).startswith("after drawing, only the drawn card")  # type: ignore[arg-type]


def test_a_wait_on_the_seat_on_turn_says_what_it_decides() -> None:
    """A review: "waiting for Bob: to play" showed while Bob named the color of a Wild turned
    up at the start (000_75a4854712b36470.txt, Functions of Action Cards, Wild Card: "the
    person to the left of the dealer chooses the color"). The wait says what the seat
    decides, by the engine's phase."""
    from p2puno.engine.game import Phase
    from p2puno.session.session import Outcome, Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view

    g = Game(Options(3))
    src = SimpleNamespace(
        engine=g,
        outcome=Outcome("playing", (0, 0, 0)),
        waiting=lambda: Waiting(7, "action", (1,), {1: "action proposal"}),
    )
    said = {}
    for phase in (Phase.START_COLOR, Phase.TURN, Phase.DRAWN, Phase.PENALTY, Phase.VERDICT):
        g.phase = phase
        said[phase] = table_view(src, UiState(), ViewInputs(["Ann", "Bob", "Cid"], 0)).status  # type: ignore[arg-type]
    assert 'waiting for "Bob" to name the color of the Wild turned up' in said[Phase.START_COLOR]
    assert 'waiting for "Bob" to play' in said[Phase.TURN]
    assert '"Bob" to play or keep the drawn card' in said[Phase.DRAWN]
    assert '"Bob" to answer the Draw card played on them' in said[Phase.PENALTY]
    assert '"Bob" to say what the challenged hand shows' in said[Phase.VERDICT]
    # ... and names the card once it is face up (helper-30: "the Draw card"), 002 · Draw Two
    # and 002 · Wild Draw Four
    from p2puno.engine.cards import CARD_RANK, DRAW_TWO, WILD_DRAW_FOUR

    g.phase = Phase.PENALTY
    for rank, name in ((DRAW_TWO, "Draw Two"), (WILD_DRAW_FOUR, "Wild Draw Four")):
        g.faces, g.discard = [CARD_RANK.index(rank)], [0]
        view = table_view(src, UiState(), ViewInputs(["Ann", "Bob", "Cid"], 0))  # type: ignore[arg-type]
        assert f'"Bob" to answer the {name} played on them' in view.status, view.status


def test_a_spectator_counts_a_person_down_as_the_players_do() -> None:
    """A review: while Ann decided, Ann's and Bob's screens said 47 s left and the spectator's
    75 s (its count ran to the vote: turn_s + step_s). A spectator counts the person's own
    time first, as the players' screens do (docs/ui.md "One clock"), then the machine's."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.session.session import Outcome, Timing, Waiting

    now = [100.0]
    src = SimpleNamespace(
        engine=Game(Options(3)),
        outcome=Outcome("playing", (0, 0, 0)),
        waiting=lambda: Waiting(7, "action", (0,), {0: "action proposal"}),
    )
    with create_pipe_input() as pipe:
        ui = TableUI(name="Eve", input=pipe, output=DummyOutput(), clock=lambda: now[0])
        ui.attach(src, None, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
        ui.timing = Timing(step_s=20, turn_s=60, window_ms=2500)
        ui.inputs()  # (the wait starts now)
        now[0] += 13.0
        assert ui.inputs().wait_left == 47.0  # the person's own time, as on every screen
        now[0] += 50.0  # past the person's 60 s: their node's step_s, to play for them
        assert ui.inputs().wait_left == 17.0
        # a review: "Bot-1 caught Ann without UNO: +2 cards" stayed on a spectator's message
        # line to the game's end (a flash left only with a key, which a spectator never
        # presses); a move's echo "sent: ..." stayed up through later moves
        ui.state.flash, ui._flash_at = "Bot-1 caught Ann without UNO: +2 cards", now[0]
        ui.state.message, ui._sent_at = "sent: you play blue 6", now[0]
        ui.view()
        assert ui.state.flash and ui.state.message
        now[0] += 9.0
        ui.view()
        assert ui.state.flash == "" and ui.state.message == ""


def test_a_long_header_gives_way_on_the_left_and_keeps_the_status() -> None:
    """A review, after a resume at 100 columns: "p2puno · resumed · Ann's table · code
    A4VN-YOWF · round 1 · to 500 watching: Eve · ✓ 1 deck verifie" (no separator, the status
    cut). The title gives way first; the watchers and the verification stay whole."""
    from p2puno.session.session import Outcome, Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import render

    src = SimpleNamespace(
        engine=Game(Options(3)),
        outcome=Outcome("playing", (0, 0, 0)),
        waiting=lambda: Waiting(7, "sync", (), {}),
    )
    vi = ViewInputs(["Ann", "Bob", "Cid"], 0, title="p2puno · Ann's table (resumed)")
    # (helper-35: the watchers' names, a peer's words, went on the header's right with no
    # limit and pushed the code out; "table code AAAA-BBBB;" stood in its place. How many
    # watch is said there; who, in the moves)
    vi.code, vi.watchers = "A4VN-YOWF", ["Eve", "table code AAAA-BBBB;" * 2]
    for width in (80, 100):
        top = "".join(t for _, t in render(table_view(src, UiState(), vi), width, 24)[0])  # type: ignore[arg-type]
        # (at 80 the status says "verifying": the round's target stays whole, helper-71)
        want = "2 watching · verifying" + (" every move" if width > 80 else "")
        assert top.rstrip().endswith(want), top
        assert len(top) == width and "  2 watching" in top and "AAAA" not in top
        assert "draw for dealer · to 500  " in top, top
        # ("p2puno · ", then "(resumed)" give way before the name is cut: helper-64's brief)
        assert top.startswith(" Ann's") and "(res" not in top, top
        assert "code A4VN-YOWF" in top  # (a review: at 80 columns the code was cut)
    # the help page fits 80 columns and 24 rows, every line whole (a review: cut mid-word)
    from p2puno.ui.render import HELP, width_of

    assert len(HELP) <= 22 and all(width_of(" " + t) <= 80 for t in HELP)
    from p2puno.ui.replay import REPLAY_HELP  # (helper-30: the replay's was cut mid-word)

    assert len(REPLAY_HELP) <= 22 and all(width_of(" " + t) <= 80 for t in REPLAY_HELP)


def test_your_own_draws_are_named_once_their_keys_come() -> None:
    """Two reviews: "You drew 2 cards" in your own move list, while your screen knew the
    cards. The draw comes before the other seats' keys for its cards, so the line first says
    how many, then names them once they open (002 · Draw: the card goes to your hand)."""
    import re

    from prompt_toolkit.output import DummyOutput

    table = SessionTable(Options(3, target=60), seed="draws")
    s0 = table.sessions[0]
    with create_pipe_input() as pipe:
        ui = TableUI(name="P0", input=pipe, output=DummyOutput())
        ui.attach(s0, 0, [p.name for p in s0.log.players])
        receive = s0.receive

        def seen(raw: bytes) -> object:
            out = receive(raw)
            ui.on_events(list(s0.events))
            s0.events.clear()
            return out

        s0.receive = seen  # type: ignore[method-assign]
        table.run()
    lines = [x for x in ui.log if x.startswith("You drew ") and "for dealer" not in x]
    named = [re.fullmatch(r"You drew (\d+) cards?: ((?:[rygbW]\S* ?)+)", x) for x in lines]
    assert len(lines) >= 3 and all(m is not None for m in named), lines
    for m in named:
        if m is not None:
            assert len(m.group(2).split()) == int(m.group(1)), m.group(0)


def test_a_resumed_table_names_your_draws_of_the_round_in_play_as_it_did() -> None:
    """helper-55: after `p2puno resume` a person's earlier draws lost their cards in the moves
    ("You drew 1 card: r7" read "You drew 1 card"). A resumed node's first batch is the game
    so far, and a draw was named only when nothing later in the batch changed the hand. The
    round in play now reads as it did before the crash; the other seats' draws stay a count
    (their cards are theirs: 002 · Draw, the card goes to the player's hand)."""
    import re

    from prompt_toolkit.output import DummyOutput

    from p2puno.session.session import SessionEvent

    table = SessionTable(Options(3, target=500), seed="resumed-draws")
    s0 = table.sessions[0]
    batch: list[SessionEvent] = []
    with create_pipe_input() as pipe:
        live = TableUI(name="P0", input=pipe, output=DummyOutput())
        live.attach(s0, 0, [p.name for p in s0.log.players])
        receive = s0.receive

        def seen(raw: bytes) -> object:
            out = receive(raw)
            batch.extend(s0.events)
            live.on_events(list(s0.events))
            s0.events.clear()
            return out

        s0.receive = seen  # type: ignore[method-assign]
        route(table, 700)  # (round 2, P0 has drawn and played since)
        back = TableUI(name="P0", title="p2puno · resumed", input=pipe, output=DummyOutput())
        back.attach(s0, 0, [p.name for p in s0.log.players])
        back.on_events(batch)  # the game so far, in one batch, as a resumed node takes it

    def round_in_play(log: object) -> list[str]:
        # (less the line a catch-up past a round's end adds last: helper-64's brief)
        lines = [x for x in log if not x.startswith("caught up: ")]  # type: ignore[attr-defined]
        return lines[max(k for k, x in enumerate(lines) if x.startswith("Start card")) :]

    # (a penalty's cards are named on its own line: docs/ui.md, "A penalty's cards are told
    # once")
    drew = r"You (?:drew \d cards?|took \d cards and lost the turn): .+"
    named = [x for x in round_in_play(back.log) if re.fullmatch(drew, x)]
    assert len(named) >= 3, round_in_play(back.log)
    assert round_in_play(back.log) == round_in_play(live.log)
    for line in back.log:  # no other seat's cards: only a count
        assert not re.match(r"P[12] (?:drew|took) \d+ cards?[^:]*:", line), line


def test_the_slots_of_each_draw_are_read_back_from_the_pile() -> None:
    """What names a draw in a catch-up batch: each draw's slots, walked back from the draw
    pile's end. Checked on bots' games under every house rule (reshuffles, swaps, stacked
    draws): a draw that nothing changed after in its own step is the hand's last cards."""
    import random

    from p2puno.bots import make_bot
    from p2puno.engine.game import Event
    from p2puno.sim.runner import Table
    from p2puno.ui.app import drawn_slots

    moves = ("play", "jump", "swap", "rotate", "draw", "round", "start")
    checked = 0
    for seed, options in enumerate(
        [Options(2), Options(3, seven_o=True), Options(4, progressive=True, jump_in=True)]
    ):
        t = Table(options, [make_bot("random", f"p{seed}{i}") for i in range(options.players)],
                  random.Random(seed))  # fmt: skip
        events: list[Event | None] = []
        truth: dict[int, tuple[int, ...]] = {}
        for _ in range(1500):
            if t.over:
                break
            _, step = t.step()
            for k, e in enumerate(step):
                after = step[k + 1 :]
                if e.kind == "draw" and not any(
                    x.kind in moves and (x.kind in moves[3:] or e.seat in (x.seat, x.other))
                    for x in after
                ):
                    truth[len(events) + k] = tuple(t.game.hands[e.seat][-e.value :])
            events.extend(step)
            found = drawn_slots(t.game, events)
            for i, slots in found.items():
                if i in truth:
                    assert slots == truth[i], (seed, i)
                    checked += 1
    assert checked > 500


def test_a_refusal_under_a_pending_draw_two_names_the_draw_two() -> None:
    """A review, with "A Draw Two on you" on the screen: a typed draw was told "you may draw
    only at the start of your turn", a card "take the penalty (or challenge a Wild Draw
    Four)". Both now say what is pending and what may be done (000_75a4854712b36470.txt,
    Functions of Action Cards, Draw Two: the next player draws 2 and loses the turn)."""
    import random

    from p2puno.bots import make_bot
    from p2puno.engine.actions import Action, Kind
    from p2puno.engine.cards import DRAW_TWO
    from p2puno.engine.game import Phase
    from p2puno.sim.runner import Table
    from p2puno.ui.model import _why_not

    t = Table(Options(2), [make_bot("random", f"d{s}") for s in range(2)], random.Random(4))
    g = t.game
    while not (g.phase is Phase.PENALTY and g.pending_rank == DRAW_TWO):
        t.step()
        assert g.phase is not Phase.GAME_OVER, "no Draw Two came: another seed"
    said = _why_not(Action(g.turn, Kind.DRAW), g)
    assert said == "a Draw Two is on you: t takes the 2 cards", said
    card = Action(g.turn, Kind.PLAY, g.hands[g.turn][0])
    assert _why_not(card, g) == said


def test_a_wild_draw_four_that_would_be_a_bluff_is_said_before_it_is_played() -> None:
    """002 · Wild Draw Four: "You may only play this card when you do NOT have another card in
    your hand that matches the COLOR on the DISCARD pile". A review played one unwarned (it is
    marked playable: a bluff is a legal play, which a challenge may catch); with the cursor on
    it the table now says so, and not once the colour is gone from the hand."""
    from p2puno.bots.view import SeatView
    from p2puno.engine.cards import CARD_TEXT
    from p2puno.session.session import Prompt
    from p2puno.ui.model import UiState, ViewInputs, _choices, card_sort_key
    from tests.engine.rig import rig

    names = ["Ann", "Bob"]
    for hand, bluff in ((["W+4", "g3", "r1", "r2", "r4", "b1", "b2"], True),
                        (["W+4", "y3", "r1", "r2", "r4", "b1", "b2"], False)):  # fmt: skip
        g, _ = rig(Options(2), [hand, ["r5", "r6", "r7", "r8", "r9", "b5", "b6"]], "g5")
        assert g.turn == 0
        order = sorted(g.hands[0], key=lambda s: (card_sort_key(g.faces[s]), s))
        cursor = next(i for i, s in enumerate(order) if CARD_TEXT[g.faces[s]] == "W+4")
        prompt = Prompt("turn", 1, tuple(g.legal_actions(0)), SeatView(g, 0))
        lines, _ = _choices(g, prompt, UiState(cursor=cursor), names, 0, ViewInputs(names, 0))
        warned = any("W+4 now is a bluff: you hold a green card" in ln for ln in lines)
        assert warned is bluff, lines
        other, _ = _choices(
            g, prompt, UiState(cursor=(cursor + 1) % 7), names, 0, ViewInputs(names, 0)
        )
        assert not any("bluff" in ln for ln in other)


def test_a_long_message_is_wrapped_not_cut() -> None:
    """A review: "'blah' is neither a card (…) nor a word (draw, keep, take, challenge, uno,
    catc" at 80 columns. A message takes two lines when it needs them."""
    from p2puno.session.session import Outcome, Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import render

    src = SimpleNamespace(
        engine=Game(Options(2)),
        outcome=Outcome("playing", (0, 0)),
        waiting=lambda: Waiting(3, "action", (1,), {1: "its action proposal"}),
    )
    message = (
        "'blah' is neither a card (r7, W:g, g+2, jump g7) nor a word (draw, keep, take, "
        "challenge, uno, catch, pass)"
    )
    view = table_view(src, UiState(message=message), ViewInputs(["Ann", "Bob"], 0))  # type: ignore[arg-type]
    text = " ".join("".join(t for _, t in line).strip() for line in render(view, 80, 24))
    assert "catch, pass)" in text and "nor a word" in text


def test_a_catch_up_batch_flashes_nothing() -> None:
    """A review, after a resume: "Bot-1 caught Ann" from long before the crash stood in the
    message line as news. A resumed node's (and a spectator's) first batch is the game so far:
    its catches and swaps go to the move list only; later batches flash as before (the
    Seven-O swap, 001_14a553244470b24d.txt · SEVEN-O, is one of them; the catch is 002 · Going
    Out)."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2puno.engine.game import Event
    from p2puno.session.session import SessionEvent
    from p2puno.ui.app import TableUI

    caught = [SessionEvent("engine", "caught", event=Event("caught", 1, -1, 2, 0))]
    src = SimpleNamespace(engine=Game(Options(2)), outcome=SimpleNamespace(over=False))
    flashes: dict[str, list[str]] = {}
    with create_pipe_input() as pipe:
        for title in ("p2puno · resumed", "p2puno · Ann's table"):
            ui = TableUI(name="Ann", title=title, input=pipe, output=DummyOutput())
            ui.attach(src, 0, ["Ann", "Bob"])  # type: ignore[arg-type]
            seen = []
            for _ in range(2):
                ui.state.flash = ""
                ui.on_events(caught)
                seen.append(ui.state.flash)
            flashes[title] = seen
            assert any("caught" in line for line in ui.log)
    assert flashes["p2puno · resumed"][0] == "" and "caught" in flashes["p2puno · resumed"][1]
    assert all("caught" in f for f in flashes["p2puno · Ann's table"]), flashes


def test_the_game_end_box_at_80_columns_leaves_the_last_plays_in_view() -> None:
    """helper-30: at 80x24 the end box left rows for audit lines only, wrapped in the narrow
    moves column, and the plays that ended the game were on no screen (docs/ui.md: the last
    moves stay in view above the box). On a narrow screen the moves take the whole width."""
    from p2puno.session.session import Outcome, Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import plain, render

    g = Game(Options(3))
    src = SimpleNamespace(
        engine=g,
        outcome=Outcome("finished", (120, 0, 0), (0,)),
        waiting=lambda: Waiting(9, "action", (), {}),
    )
    log = [f"Bob played r{k}" for k in range(8)] + [
        "Ann played g4 (0 left): Ann goes out and wins the round, +120 points",
        "✓ deck 2 verified: every shuffle, key and move of it checks out",
    ]
    vi = ViewInputs(["Ann", "Bob", "Cid"], 0, log=log)
    text = "\n".join(plain(render(table_view(src, UiState(), vi), 80, 24)))  # type: ignore[arg-type]
    assert "GAME OVER" in text
    assert "Ann played g4 (0 left): Ann goes out and wins the round, +120 points" in text, text
    assert "Bob played r7" in text, text


def test_the_end_box_keeps_a_space_inside_its_borders() -> None:
    """helper-55: the end box's wrapped words touched its right border ("…you were│"). Every
    line of the box has a space inside each border, however its words wrap."""
    from p2puno.ui.render import _box, plain

    words = [
        "YOUR NODE HAS STOPPED",
        "  since you came back, no other player could be reached, and the time to answer has "
        "run out: the others most likely ended the game while you were away",
    ]
    for width in (80, 81, 100):
        lines = plain(_box(words, width))
        assert all(len(ln) == width for ln in lines), lines
        inside = lines[1:-1]
        assert len(inside) > 2  # (it wraps)
        for ln in inside:
            assert ln.startswith(" │ ") and ln.endswith(" │ "), ln


def test_the_lobby_wraps_its_deadlines_between_values() -> None:
    """helper-55: the lobby's deadlines line wrapped in the middle of a value ("claim window
    2.5" at a line's end, "s" on the next). Each value stays on one line, at any width."""
    from p2puno.ui.render import NBSP, lobby_lines, plain

    table = {
        "name": "t",
        "size": 3,
        "seats": [],
        "options": {"target": 500, "timing": {"turn_s": 60, "step_s": 20, "window_ms": 2500}},
    }
    for width in range(80, 131):
        lines = plain(lobby_lines(table, "a:1", False, width, 24))
        for value in ("60 s to decide", "claim window 2.5 s", "20 s for a machine"):
            assert any(value in ln for ln in lines), (width, value, lines)
        assert not any(NBSP in ln for ln in lines)


@contextlib.contextmanager
def _chatting(output: DummyOutput | None = None) -> Iterator[tuple[TableUI, list[str]]]:
    """Ann's table (seat 0 of 2) on ``output``, with a node that takes her chat: the table
    and the lines it sent."""
    sent: list[str] = []
    node = SimpleNamespace(chat=lambda text: sent.append(text), person_is_back=lambda: None)
    src = SimpleNamespace(
        engine=Game(Options(2)), outcome=SimpleNamespace(over=False, state="playing")
    )
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=output or DummyOutput())
        ui.attach(src, 0, ["Ann", "Bob"])  # type: ignore[arg-type]
        ui.node = node  # type: ignore[assignment]
        yield ui, sent


def test_m_says_a_line_to_the_table_and_a_seats_line_is_shown() -> None:
    """The table chat (docs/ui.md, keys: m): `m`, a line, Enter sends it through the node;
    Esc drops it; a seat's line goes to the moves and the message line, by its name."""
    with _chatting() as (ui, sent):
        for k in ["m", *"gg q!", "backspace", "enter"]:
            ui.key(k)
        assert sent == ["gg q"] and ui.state.mode == "play"  # ("q" typed, not a leave)
        for k in ["m", *"no", "escape"]:
            ui.key(k)
        assert sent == ["gg q"] and ui.state.typed == ""
        ui.on_chat(1, "well played")
        said = "Bob says: “well played”"
        assert ui.log[-1] == said and ui.state.flash == said
        # m at the colour question (helper-34: m did nothing there, and the "r" of the words
        # typed next chose red) and at the leave question ("hey": its "y" left the table)
        for mode, back in (("color", "color"), ("quit", "play")):
            ui.state.mode = mode
            for k in ["m", *"hey, in color", "enter"]:
                ui.key(k)
            assert sent[-1] == "hey, in color" and ui.state.mode == back, ui.state.mode
        assert not ui.left


def test_under_80x24_only_q_acts_the_chat_included() -> None:
    """docs/ui.md (80x24 is the floor): under it the table is hidden and only q acts, asking
    to leave. helper-102: m opened the chat out of sight, and q then went into it as a letter;
    Enter played a card from a hand never shown (helper-101)."""
    from prompt_toolkit.data_structures import Size

    class Small(DummyOutput):
        def get_size(self) -> Size:
            return Size(rows=23, columns=79)

    with _chatting(Small()) as (ui, sent):
        for k in ["m", *"hi", "enter", "?", "d"]:
            ui.key(k)
        assert ui.state.mode == "play" and sent == [], (ui.state.mode, sent)
        ui.state.mode, ui.state.typed = "say", "hel"  # (a chat begun at full size)
        ui.key("q")  # q asks to leave, whatever was under way: not a letter typed unseen
        assert ui.state.mode == "quit" and ui.state.typed == "hel"
        ui.key("n")
        assert ui.state.mode == "play" and not ui.left and sent == []


def test_no_line_a_peer_can_word_sets_the_table_code_shown() -> None:
    """helper-33 watched a table under the name "table code AAAA-BBBB;" and every player's
    header then showed AAAA-BBBB: the table read the code off any line its node said, and a
    spectator's name, a seat's BYE reason or a watchers notice are words a peer chooses. The
    code comes from the lobby's own result now (protocol/lobby.md section 2)."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2puno.ui.app import TableUI

    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput())
        ui.code = "WZP4-MTDY"
        ui.say("table code AAAA-BBBB; is watching (key 9d68c695fb6b8e49)")
        ui.say("game 0011: table code CCCC-DDDD; you are seat 1")
        assert ui.code == "WZP4-MTDY"


def test_a_tie_in_the_draw_for_dealer_is_said() -> None:
    """002 · Setup (docs/rules.md: ties draw again). helper-36 read "You drew yS for dealer /
    Bot-1 drew b0 for dealer", then both drew again, with nothing to say why."""
    from prompt_toolkit.output import DummyOutput

    with create_pipe_input() as pipe:
        ui = TableUI(name="You", input=pipe, output=DummyOutput())
        local = LocalTable(ui, Options(4), "tie8")  # (a seed whose first draw ties)
        local.shuffle()
        lines = list(ui.log)
    tie = "A tie for the highest card: the tied players draw again"
    assert tie in lines, lines
    drew = [line for line in lines if "for dealer" in line]
    assert lines.index(tie) > lines.index(drew[0]) and len(drew) > 4, lines


def test_the_header_names_the_round_in_play_while_the_last_rounds_end_is_up() -> None:
    """helper-54 read "round 1 over" in the header through round 2's first turn, the box of
    round 1 still up (helper-51 had the header follow the box, whose number was read back off
    its text). The header names the round in play; the box names its own round, and the
    footer which round's end a key closes (the number kept beside the box, in UiState)."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.session.session import Outcome, Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view

    g = Game(Options(3))
    g.round_no = 2
    src = SimpleNamespace(
        engine=g, outcome=Outcome("playing", (0, 0, 0)), waiting=lambda: Waiting(9, "x", ())
    )
    names = ["Ann", "Bob", "Cid"]
    box = UiState(round_end=["ROUND 1 OVER — Bob went out: +20 points", "  scores: ..."])
    up = table_view(src, box, ViewInputs(names, 0))  # type: ignore[arg-type]
    assert up.round_info.startswith("round 2 ·") and up.end and "ROUND 1 OVER" in up.end[0]
    closed = table_view(src, UiState(), ViewInputs(names, 0))  # type: ignore[arg-type]
    assert closed.round_info.startswith("round 2 ·")
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput())
        ui.attach(src, 0, names)  # type: ignore[arg-type]
        ui.state.round_end, ui.state.round_end_no = box.round_end, 1
        assert ui.view().help_line.startswith("Enter, Space or Esc: close round 1's end")


def test_the_claim_window_is_named_only_when_something_can_be_claimed() -> None:
    """helper-51: "claim window (UNO calls, catches, jump-ins): waiting for Bob" showed after
    every play a seat was slow to answer, though nobody could claim anything there (spec 10.9:
    such a window is answered at once, W = 0). The words follow the session's public facts:
    none then, and what may be claimed when something may."""
    from p2puno.session.session import Outcome, Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view

    g = Game(Options(3))
    can = {"claim": False}
    src = SimpleNamespace(
        engine=g,
        outcome=Outcome("playing", (0, 0, 0)),
        waiting=lambda: Waiting(9, "window", (1,), {1: "its response to the window"}),
        # (Session.claims_open: the seats open to an UNO call or catch, and a Jump-In)
        claims_open=lambda: (tuple(sorted(g.vulnerable)), False) if can["claim"] else ((), False),
    )
    names = ["Ann", "Bob", "Cid"]
    nothing = table_view(src, UiState(), ViewInputs(names, 0)).status  # type: ignore[arg-type]
    assert "claim" not in nothing and 'waiting for "Bob" to confirm the last move' in nothing
    can["claim"] = True
    g.vulnerable = {2}
    some = table_view(src, UiState(), ViewInputs(names, 0)).status  # type: ignore[arg-type]
    assert 'claim window (UNO call or catch on "Cid"): waiting for "Bob"' in some, some
    assert "jump-in" not in some  # (Jump-In is off at this table)


def test_the_lobby_answers_m_and_says_what_one_player_leaving_does() -> None:
    """helper-51: m in the lobby did nothing, without a word; and nothing said, before it
    happened, that one player leaving ends the game for everyone (no seat can be played
    without its own keys): the lobby and the table's help say so. A player's m opens the
    lobby's chat now (protocol/lobby.md 2); a spectator's says there is none for it."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.ui.render import HELP, lobby_lines, plain, render

    for spectator in (False, True):
        with create_pipe_input() as pipe:
            ui = TableUI(name="Ann", input=pipe, output=DummyOutput(), spectator=spectator)
            ui.key("m")
            shown = "\n".join(plain(ui.lines(80, 24)))
            if not spectator:  # (a player: the line to say, on the keys' line)
                assert ui.state.mode == "say" and "say: ▏ · Enter send · Esc drop" in shown
                ui.key("x")
                ui.key("enter")  # (no table yet: said why nobody hears it)
                assert ui.lobby_message.startswith("not at a table's lobby now"), shown
                assert ui.state.mode == "say" and ui.state.typed == "x"  # (kept: helper-63)
                continue
            said = ui.lobby_message
            assert said.startswith("no chat"), said
            assert said.split(":")[0] in shown and ui.state.mode != "say"
    timing = {"turn_s": 60, "step_s": 20, "window_ms": 2500}
    table = {"name": "t", "size": 3, "seats": [], "options": {"timing": timing}}
    lobby = " ".join(t.strip() for t in plain(lobby_lines(table, "127.0.0.1:9", True, 80, 24)))
    # (and how long a player may be away: protocol/lobby.md section 5, step_s from when the
    # game waits for them; helper-99 read only "leaving ends the game")
    assert "a player not back 20 s after the game waits for them ends the game for all" in lobby
    # (the table's help said "One player leaving ends the game for everyone", which helper-104
    # read against the q question and `p2puno resume`: a player has time to come back)
    said = "A player who leaves and is not back in time (p2puno resume) ends the game."
    assert said in HELP
    bare = SimpleNamespace(
        mode="help", deadline=None, status="x", status_kind="wait", watch="", spectator=False
    )
    helped = render(bare, 80, 24)  # type: ignore[arg-type]
    assert any(said in line for line in plain(helped))


async def test_a_node_that_stopped_says_why_in_a_box_and_nothing_of_the_wait() -> None:
    """helper-51 resumed a seat whose table had ended the game without it: the reason and what
    to do came cut to two lines in the message line (whole only in a narrow column of moves),
    and "unless they are back in time, the game ends" stayed under the status. The reason is
    in a box now, as a game's end is, and the wait's words are gone."""
    from p2puno.ui.render import plain, render

    table = SessionTable(Options(3), seed="stopped-node")
    route(table, 40)
    s0 = table.sessions[0]
    why = "since you came back, no other player could be reached " + "and so on " * 30
    async with at(s0, 0) as (screen, ui):
        ui.failed(why.strip())
        view = ui.view()
        assert view.end == ["YOUR NODE HAS STOPPED", f"  {why.strip()}"]
        assert view.progress == "" and view.message == "" and view.deadline is None
        text = "\n".join(plain(render(view, 80, 24)))
        assert "YOUR NODE HAS STOPPED" in text and "and so on and so on" in text
        await wait_for(screen, "YOUR NODE HAS STOPPED")
        assert "close the table" in view.help_line


def test_a_blocked_round_says_what_its_hands_do_under_each_scoring() -> None:
    """docs/rules.md D6 (a full cycle without a play ends the round blocked, nobody out) and
    002 · Alternative Scoring (each player adds the cards left in their own hand): under lowest
    scoring a blocked round still adds every hand, so the box says "adds", not "holds" (a
    review saw "holds" where the engine added the points); under standard scoring nobody
    scores a blocked round, and the hands are only held."""
    from p2puno.engine.cards import CARD_POINTS, CARD_TEXT
    from p2puno.ui.model import round_end_lines

    faces = list(range(108))
    hands = [[0, 1], [2]]
    blocked = SimpleNamespace(seat=-1, value=0)
    for scoring, verb, head in (
        ("lowest", "adds", "blocked: nobody went out; each adds their own hand"),
        ("standard", "holds", "blocked: nobody went out"),
    ):
        game = SimpleNamespace(
            options=SimpleNamespace(scoring=scoring), players=2, hands=hands, faces=faces,
            scores=[10, 20],
        )  # fmt: skip
        lines = round_end_lines(game, ["Ann", "Bob"], 0, blocked, 3)  # type: ignore[arg-type]
        assert lines[0] == f"ROUND 3 OVER — {head}", lines
        pts = CARD_POINTS[2]
        assert lines[2].split() == ["Bob", verb, str(pts), CARD_TEXT[2]], lines


def test_a_rounds_end_lines_up_its_points_under_long_names() -> None:
    """The round's end box (002 · SCORING: each hand's points beside it): names of up to 20
    characters widen the names' column, so every row's points stand in one column (helper-87:
    "Hosta        gives  50" above "Bartholomew-Quincey2 gives  41")."""
    from p2puno.ui.model import round_end_lines

    faces = list(range(108))
    game = SimpleNamespace(
        options=SimpleNamespace(scoring="standard"), players=3, hands=[[], [0, 1], [2]],
        faces=faces, scores=[0, 0, 0],
    )  # fmt: skip
    out = SimpleNamespace(seat=0, value=9)
    names = ["Hosta", "Bartholomew-Quincey2", "Maximilian-Ostergard"]
    lines = round_end_lines(game, names, None, out, 1)  # type: ignore[arg-type]
    rows = lines[1:4]
    assert [row.index(" gives ") for row in rows[1:]] == [22, 22], rows
    assert rows[0] == "  Hosta" + " " * 16 + "(out)", rows


def test_a_long_wait_keeps_its_countdown_at_80_columns() -> None:
    """helper-54 read '⠙ waiting for "Ann" (not connected) and "Bot-1" (left the table) to
    confirm the' at 80 columns: the rest, and the countdown, were cut. The status wraps to a
    second line."""
    from p2puno.session.session import Outcome, Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import plain, render

    src = SimpleNamespace(
        engine=Game(Options(3)),
        outcome=Outcome("playing", (0, 0, 0)),
        waiting=lambda: Waiting(7, "window", (0, 2), {0: "response", 2: "response"}),
    )
    vi = ViewInputs(
        ["Annabelle", "Bob", "Bot-1"], 1, away=frozenset({0, 2}), left=frozenset({2}),
        wait_left=17.0,
    )  # fmt: skip
    view = table_view(src, UiState(), vi)  # type: ignore[arg-type]
    assert view.deadline is not None and len(view.status) > 60, view.status
    text = "\n".join(plain(render(view, 80, 24)))
    assert "(left the table)" in text and "s left" in text, text


def test_a_wait_on_three_bots_stands_on_one_line_at_80_columns() -> None:
    """helper-71's brief: a window's wait on three bots, with its count, wrapped to two lines
    at 80 columns ('waiting for the bot "Bot-1", the bot "Bot-2" and the bot "Bot-3" to
    confirm the last move · 4 s left'). The bots are named together, then by name only, then
    counted, whichever first fits (docs/ui.md, "A wait says who in as few words as fit one
    line"; "A long status wraps to a second line" is for what cannot be said shorter)."""
    from p2puno.session.session import Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import plain, render

    g = Game(Options(4))
    wait = Waiting(7, "window", (1, 2, 3), {s: "response" for s in (1, 2, 3)})
    kinds = ["person", "bot", "bot", "bot"]
    for names, want in [
        (["You", "Bot-1", "Bot-2", "Bot-3"], 'waiting for "Bot-1", "Bot-2" and "Bot-3" to confirm'),
        (["You", "Cornelia", "Dominika", "Bartholo"], "waiting for 3 bots to confirm the last"),
    ]:
        src = _stub_source(g, waiting=wait, claims_open=lambda: ((), False))
        vi = ViewInputs(names, 0, kinds=kinds, wait_left=4.0)
        view = table_view(src, UiState(), vi)  # type: ignore[arg-type]
        lines = plain(render(view, 80, 24))
        said = [line for line in lines if "waiting for" in line]
        assert len(said) == 1 and want in said[0] and said[0].rstrip().endswith("· 4 s left")
        assert not lines[lines.index(said[0]) + 1].startswith("  "), lines  # (no second line)
        # (wider: every name, the bots together, as before)
        wide = [line for line in plain(render(view, 120, 24)) if "waiting for" in line]
        assert f'waiting for the bots "{names[1]}", "{names[2]}" and "{names[3]}"' in wide[0]


def test_a_catch_up_in_several_batches_leaves_no_earlier_rounds_box_up() -> None:
    """helper-57: a spectator who came right after round 5 ended saw "round 4 over" and the
    box "ROUND 4 OVER" over the moves of round 6. Its catch-up came in several batches: one
    ended on round 4's end (its box, then the last round that ended), and the next held
    round 5's end and round 6's deal, so round 5's box was rightly not drawn (its hands are
    gone) but round 4's stayed up. A round's end passed over closes the box of a round
    before it."""
    import random

    from prompt_toolkit.output import DummyOutput

    from p2puno.bots import make_bot
    from p2puno.session.session import Outcome, SessionEvent, Waiting
    from p2puno.sim.runner import Table
    from p2puno.ui.model import ViewInputs, table_view

    t = Table(Options(2), [make_bot("heuristic", f"r{s}") for s in range(2)], random.Random(5))
    src = SimpleNamespace(engine=t.game, outcome=SimpleNamespace(over=False))
    boxes: list[list[str] | None] = []
    with create_pipe_input() as pipe:
        ui = TableUI(name="Eve", input=pipe, output=DummyOutput(), spectator=True)
        ui.attach(src, None, ["Ann", "Bob"])  # type: ignore[arg-type]
        batch: list[SessionEvent] = []
        ended = dealt = 0  # rounds ended, and deals after round 5's end
        for _ in range(20000):
            if t.over or dealt:
                break
            _, events = t.step()
            batch += [SessionEvent("engine", str(e), event=e) for e in events]
            for e in events:
                ended += e.kind == "round-over"
                dealt += e.kind == "start" and ended == 5
            # the batches: the first few moves; then up to round 4's end; then the rest
            last = any(e.kind == "round-over" for e in events) and ended == 4
            if len(batch) > 5 and (ended == 0 or last):
                ui.on_events(batch)
                boxes.append(ui.state.round_end)
                batch = []
        assert dealt and ended == 5 and t.game.round_no == 6, (ended, t.game.round_no)
        ui.on_events(batch)
        assert boxes[-1] is not None and boxes[-1][0].startswith("ROUND 4 OVER")  # (then)
        assert any("Round over" in line for line in ui.log)
        assert ui.state.round_end is None, ui.state.round_end
        seen = SimpleNamespace(
            engine=t.game, outcome=Outcome("playing", (0, 0)), waiting=lambda: Waiting(9, "x", ())
        )
        view = table_view(seen, ui.state, ViewInputs(["Ann", "Bob"], None))  # type: ignore[arg-type]
        assert view.round_info.startswith("round 6") and not view.end, view.round_info


def _claim_view(kinds: tuple[str, ...], autopilot: bool = False, left: float = 2.3) -> str:
    """The screen of seat 0 (Ann) asked a claim of ``kinds`` on Cid (seat 2), or its turn."""
    from p2puno.engine.actions import Action, Kind
    from p2puno.session.session import Outcome, Prompt, Waiting
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import plain, render

    g = Game(Options(3))
    src = SimpleNamespace(
        engine=g, outcome=Outcome("playing", (0, 0, 0)), waiting=lambda: Waiting(9, "x", ())
    )
    acts = {
        "uno": Action(0, Kind.UNO),
        "catch": Action(0, Kind.CATCH, target=2),
        "draw": Action(0, Kind.DRAW),
    }
    kind = "turn" if "draw" in kinds else "claim"
    prompt = Prompt(kind, 9, tuple(acts[k] for k in kinds), None)  # type: ignore[arg-type]
    vi = ViewInputs(["Ann", "Bob", "Cid"], 0, prompt=prompt, prompt_left=left, autopilot=autopilot)
    view = table_view(src, UiState(), vi)  # type: ignore[arg-type]
    return "\n".join(plain(render(view, 80, 24)))


def test_a_claim_names_its_keys_beside_its_countdown() -> None:
    """helper-54: the status said "the claim window is open for you · 2 s left" and no key;
    the window is W for every seat (spec 10.9; protocol/spec.md 10.9, ties by seat order), so
    a person who reads which key claims has the same 2.5 s as a bot. The status line, the one
    with the count, names the keys (002 · UNO: a player not calling UNO may be caught)."""
    catch = _claim_view(("catch",))
    assert 'claim now: c catch "Cid" · Esc let it pass · 2 s left' in catch, catch
    both = _claim_view(("uno", "catch"))
    assert 'claim now: u call UNO · c catch "Cid" · Esc let it pass · 2 s left' in both, both


def test_the_bots_count_never_reads_zero_seconds() -> None:
    """helper-54 read "your bot plays it at 0 s": under a second it says the bot is playing."""
    later = _claim_view(("draw",), autopilot=True, left=3.4)
    assert "(your bot plays it when this ends: any key takes it back) · 3 s left" in later
    now = _claim_view(("draw",), autopilot=True, left=0.4)
    assert "your bot is playing it" in now and "0 s" not in now, now


def test_the_help_and_the_round_end_box_say_the_persons_clock_runs_on() -> None:
    """helper-54 read the help (and a round's end box) while their turn ran out: a timed table
    cannot pause, and it now says so beside the count."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.engine.actions import Action, Kind
    from p2puno.session.session import Outcome, Prompt, Waiting
    from p2puno.ui.render import plain, render

    g = Game(Options(3))
    src = SimpleNamespace(
        engine=g, outcome=Outcome("playing", (0, 0, 0)), waiting=lambda: Waiting(9, "x", ())
    )
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput(), clock=lambda: 100.0)
        ui.attach(src, 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
        ui.prompt, ui.prompt_since = Prompt("turn", 9, (Action(0, Kind.DRAW),), None), 90.0  # type: ignore[arg-type]
        ui.state.round_end, ui.state.round_end_no = ["ROUND 1 OVER", "  scores: ..."], 1
        boxed = plain(render(ui.view(), 80, 24))
        top = next(line for line in boxed if "┌" in line)
        assert top.startswith(" ┌─ your turn runs on under this box: 50 s left ─"), boxed
        assert top.endswith("─┐ ") and len(top) == 80, top  # (its corner over the border)
        # a decision's key acts and closes the box at once, Esc only closes it (helper-63
        # read "Esc: close round 1's end · then d draw" as two keys to press)
        footer = ui.view().help_line
        assert "d draw" in footer and footer.endswith("Esc: close round 1's end only"), footer
        assert "(closes the box too)" in footer and "then" not in footer
        ui.state.mode = "help"
        helped = plain(render(ui.view(), 80, 24))
        assert helped[-2].strip() == "your turn · 50 s left", helped
        assert "your clock runs on while this help is up" in helped[-1]


def test_the_footer_under_a_round_end_box_stands_whole_at_80_columns() -> None:
    """helper-71's brief: with a round's end box up over the person's turn, the footer (its
    keys line) was cut at 80 columns. It names the decision's own keys, which close the box
    too, and Esc, which closes it only (docs/ui.md, "The round's end stays up"); Enter,
    Space, ←/→, :, m and ? do not close it and are left out."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.engine.actions import Action, Kind
    from p2puno.engine.game import Phase
    from p2puno.session.session import Prompt
    from p2puno.ui.render import plain, render

    g = Game(Options(3, progressive=True))
    g.faces = list(range(108))
    g.hands, g.phase, g.turn, g.discard = [[10, 20], [1, 2, 3], [4, 5]], Phase.TURN, 0, [30]
    two = (Action(0, Kind.PLAY, 10), Action(0, Kind.PLAY, 10, uno=True), Action(0, Kind.DRAW))
    claim = (Action(0, Kind.UNO), Action(0, Kind.CATCH, target=2), Action(0, Kind.JUMP, 10))
    colors = tuple(Action(0, Kind.COLOR, choose=c) for c in range(4))
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput(), clock=lambda: 100.0)
        ui.attach(_stub_source(g), 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
        for kind, acts, keys, esc in [
            ("turn", two, "d draw · u UNO", "Esc: close round 1's end only"),
            # (three claim keys: the box's key says "the box", 80 columns hold no more)
            ("claim", claim, "u UNO · c catch · j jump in", "Esc: close the box only"),
            # (a Wild turned up at the start of the next round: the colors by their letters)
            ("color", colors, "r / y / g / b: the color", "Esc: close round 1's end only"),
        ]:
            g.phase = Phase.START_COLOR if kind == "color" else Phase.TURN
            kind = "turn" if kind == "color" else kind
            ui.prompt, ui.prompt_since = Prompt(kind, 9, acts, None), 99.0  # type: ignore[arg-type]
            ui.state.round_end, ui.state.round_end_no = ["ROUND 1 OVER", "  scores: ..."], 1
            footer = plain(render(ui.view(), 80, 24))[-1]
            assert footer.rstrip().endswith(esc), footer
            assert footer.startswith(f" {keys}") and "(closes the box too)" in footer, footer
            assert "Enter" not in footer and "? help" not in footer, footer


def test_the_end_boxs_replay_command_stands_whole_on_one_line() -> None:
    """helper-71's brief: the game-over box split its replay command over two lines at 80
    columns (a command to copy must stand whole: docs/ui.md, "The round's end stays up", its
    game's end). The words go around it; a command wider than the box says what to run with
    the log's path above instead."""
    from p2puno.ui.render import plain, render

    table = SessionTable(Options(2, target=60), seed="r2")
    table.run()
    s0 = table.sessions[0]
    prog = "/work/main/.venv/bin/p2puno"
    for path, whole in [
        ("/tmp/an-h71/run/demo.log", True),  # (the brief's: 77 cells with its words)
        ("/a/log", True),
        ("/home/someone/" + "x" * 60 + "/log", False),
    ]:
        ui = TableUI(name="P0", output=DummyOutput())
        ui.attach(s0, 0, [p.name for p in s0.log.players])
        ui.on_events(list(s0.events))
        ui.log_path = path
        ui.inputs = lambda ui=ui: replace(TableUI.inputs(ui), command=prog)  # type: ignore[method-assign]
        lines = [line.strip(" │") for line in plain(render(ui.view(), 80, 24))]
        cmd = f"{prog} replay {path} --table"
        if whole:
            assert cmd in lines or f"replay it:  {cmd}" in lines, lines
        else:  # (where the log is, and what to run with it)
            assert not any("--table" in line and path in line for line in lines), lines
            said = " ".join(lines)
            assert f"{prog} replay LOG --table" in said and "(LOG: the log's path above)" in said
            # (the path on lines of its own, cut after a "/": helper-77's brief)
            at = lines.index("log:")
            assert "".join(x.strip() for x in lines[at + 1 : at + 3]) == path, said


def test_a_resumed_turn_its_bot_played_at_once_gives_the_seat_back() -> None:
    """helper-71's brief: back with `p2puno resume` in a turn whose time had run out past the
    table's deadline (resumed_turn_limit in p2puno/node/game.py: nothing left, the node's bot
    plays it at once), the seat stayed the bot's, each later turn on a short count "until a
    key is pressed". The person who typed `resume` is at the keys: the seat is theirs again
    from the next decision, with its whole clock, and the table says so (docs/ui.md, "A turn
    the bot played the moment the person came back leaves the seat theirs"; protocol/lobby.md
    section 5: the next turn's deadline is the table's, as for every turn)."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.engine.game import Event
    from p2puno.session.session import SessionEvent

    backs: list[int] = []
    for due_since, limit, given_back in [(1.0, 0.05, True), (None, 0.05, False), (1.0, 9.0, False)]:
        with create_pipe_input() as pipe:
            ui = TableUI(name="Ann", input=pipe, output=DummyOutput())
            ui.attach(_stub_source(Game(Options(3))), 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
            node = SimpleNamespace(
                due_since=due_since,
                turn_limit=limit,
                person_is_back=lambda: backs.append(1),
                resumed_at=None,  # (GameNode: a seat reached since it came back)
                reached_since_resume=lambda: True,
            )
            ui.node = node  # type: ignore[assignment]
            run_out_a_turn(ui)
            assert ui.autopilot is not given_back, (due_since, limit)
            backs.clear()
            ui.on_events([SessionEvent("audit", "a deck checks out")])  # (no move: not yet)
            ui.on_events([SessionEvent("engine", "draw", event=Event("draw", 0, -1, 1))])
            ui.on_events([SessionEvent("engine", "draw", event=Event("draw", 1, -1, 1))])
            if given_back:
                assert len(backs) == 2, backs  # (told again until its bot's move is taken)
                assert "the next one is yours" in ui.state.message, ui.state.message
                assert "bot played only the turn that ran out" in ui.log[-2], list(ui.log)
                assert ui.log[-3] == "You drew 1 card", list(ui.log)  # (the bot's move first)
            else:
                assert backs == [] and "any key: you play again" in ui.state.message


def test_a_key_in_a_turn_the_bot_then_plays_leaves_the_next_turn_the_persons() -> None:
    """protocol/lobby.md section 5: a person whose node's bot has the seat still has each turn
    for a moment (the grace), and a key gives the seat back from the next decision. helper-99
    pressed a key 4 s into such a turn, 1 s before the bot played it: the screen then said
    "time's up: your node's bot played this turn (any key: you play again)", and the next
    turn that the bot was playing it, though the node had given the seat back."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.engine.actions import Action, Kind
    from p2puno.session.session import Prompt

    backs: list[int] = []
    ui = TableUI(name="Ann", output=DummyOutput())
    ui.attach(_stub_source(Game(Options(3))), 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
    ui.node = SimpleNamespace(  # type: ignore[assignment]
        due_since=None, turn_limit=1.25, person_is_back=lambda: backs.append(1)
    )
    ui.autopilot = True  # (a turn let pass before: the bot has the seat)
    prompt = Prompt("turn", 9, (Action(0, Kind.DRAW),), None)  # type: ignore[arg-type]

    async def grace_runs_out() -> None:
        asked = asyncio.ensure_future(ui.ask(prompt))
        await asyncio.sleep(0.01)
        ui.key("right")  # (any key)
        assert backs == [1] and not ui.autopilot
        # ... and it says so (helper-100 never saw it: the key cleared its own flash)
        assert ui.state.flash.startswith("the seat is yours again"), ui.state
        asked.cancel()  # (the node's grace ran out: its bot plays this turn)
        with contextlib.suppress(asyncio.CancelledError):
            await asked
        assert asked.cancelled()

    asyncio.run(grace_runs_out())
    # (the next turn is the person's, as the node's is: the screen's "your bot is playing
    # it" comes from this)
    assert not ui.autopilot
    # the bot's move says it is the bot's (helper-100: the next turn came at once and
    # cleared the message, and "You played y9" read as a card played by itself); the
    # person's own next move does not
    from p2puno.engine.game import Event
    from p2puno.session.session import SessionEvent

    def move() -> None:
        ui.on_events([SessionEvent("engine", "pass", event=Event("pass", 0, -1, 0, -1, None))])

    move()
    assert ui.log[-1].endswith(" (your node's bot: your time was up)"), list(ui.log)
    move()  # (a later move of the seat, not asked in between: said once)
    assert not ui.log[-1].endswith("time was up)"), list(ui.log)
    msg = ui.state.message
    assert msg == "time's up: your node's bot played this turn; the next one is yours", msg


def test_a_number_and_its_unit_are_never_split_by_the_wrap() -> None:
    """helper-54 read "3" at the end of a line of moves and "s" under it."""
    from p2puno.ui.render import wrap

    assert wrap("back in your turn: you have 3 s to play it", 30, "   ") == [
        "back in your turn: you have",
        "   3 s to play it",
    ]
    assert wrap("Bot-3 jumped in with b2! (2 left)", 27, "   ") == [
        "Bot-3 jumped in with b2!",
        "   (2 left)",
    ]


def test_the_lobby_says_what_to_compare_and_what_its_keys_and_options_do() -> None:
    """helper-54: "link key" over the seats' keys read as jargon, and the lobby's ? named four
    keys and nothing else. The heading says what to do with a key (compare it aloud); the
    help says what each key does, what the table code is for, what the options mean, who
    deals (002 · Setup 1: a card with a symbol counts as zero; docs/rules.md D1) and that one
    player leaving and not back in time ends the game for everyone."""
    from p2puno.node.lobby import make_options
    from p2puno.session import Timing
    from p2puno.ui.render import lobby_lines, plain

    opts = make_options(3, ["jump-in"], "standard", 500, Timing(20, 60, 2500))
    seat = {"name": "Ann", "kind": "person", "runner": "self", "key": "0123456789abcdef"}
    table = {"name": "t", "size": 3, "seats": [seat], "options": opts}
    shown = "\n".join(plain(lobby_lines(table, "127.0.0.1:9", False, 80, 24)))
    assert "key (compare aloud)" in shown and "link key" not in shown, shown
    final = {**table, "confirm": True, "seats": [seat, {**seat, "name": "Bob", "ready": False}]}
    row = next(ln for ln in plain(lobby_lines(final, "", False, 80, 24)) if "  Bob " in ln)
    assert row.rstrip().endswith("0123456789abcdef  deciding"), row
    for host in (True, False):
        helped = " ".join(
            " ".join(plain(lobby_lines(table, "127.0.0.1:9", host, 80, 24, mode="help"))).split()
        )
        for said in (
            "Compare it aloud with every player: a different code means someone is in the middle",
            "Read your own row's key out",
            "60 s for a person to decide",
            "a claim window of 2.5 s after each card",
            # (this table's house rules only: helper-71's brief found the help a page too
            # long, with three lines on rules not in play)
            "House rules: Jump-In: an identical card may be played out of turn.",
            "lowest, each adds their own hand",
            "the highest number deals (S, R, +2, W and W+4 count as 0",
            # (how long: it said "One player leaving ends the game for everyone", helper-104)
            "Leaving: a player who leaves and is not back within 20 s (p2puno resume) ends "
            "the game for everyone, since nobody else can play their seat.",
            "q: leave the lobby",
        ):
            assert said in helped, (host, said, helped)
        assert ("s: start now" in helped) == host and ("Enter: play at" in helped) != host


def test_the_draw_for_dealer_says_how_its_cards_rank() -> None:
    """helper-54 saw W+4 lose the draw for dealer to a b3 with no word of why (002 · Setup 1:
    "count any card with a symbol as zero"; engine.cards.dealer_draw_value). The moves say
    the rule under who deals."""
    from prompt_toolkit.output import DummyOutput

    with create_pipe_input() as pipe:
        ui = TableUI(name="You", input=pipe, output=DummyOutput())
        local = LocalTable(ui, Options(3), "dealer")
        local.shuffle()
        lines = list(ui.log)
    deals = next(i for i, line in enumerate(lines) if "deal" in line and "first" in line)
    rule = "  (the highest number deals: S, R, +2, W and W+4 count as 0)"
    assert lines[deals + 1] == rule, lines


def test_the_lobbys_chat_lines_wrap_and_never_push_the_table_off() -> None:
    """The lobby's chat (protocol/lobby.md 2) below the seats: a long line wraps (helper-61:
    a 200-character line was cut at the screen's edge, its end and closing quote never seen),
    two rows at most, the end said to be cut; a table that fills the screen shows none
    (helper-62: a line put above the seats pushed the note on the host's bots off)."""
    from p2puno.ui.render import lobby_lines, plain

    timing = {"turn_s": 60, "step_s": 20, "window_ms": 2500}
    seat = {"name": "Ann", "kind": "person", "runner": "self", "key": "ab" * 8}
    table = {"name": "t", "size": 4, "seats": [seat], "options": {"timing": timing}}
    long = "Bob says: “" + "word " * 25 + "end”"
    shown = plain(lobby_lines(table, "127.0.0.1:9", True, 80, 24, chat=[long, "Cy says: “hi”"]))
    text = "\n".join(shown)
    assert "end”" in text and "Cy says: “hi”" in text  # (the whole line, wrapped)
    very = "Bob says: “" + "x " * 150 + "”"
    cut = "\n".join(plain(lobby_lines(table, "127.0.0.1:9", True, 80, 24, chat=[very])))
    assert "..." in cut and sum("x x x" in line for line in cut.splitlines()) == 2
    final = {**table, "size": 1, "confirm": True}  # (asked while typing: Enter sends first)
    asked = lobby_lines(final, "", False, 80, 24, asked=True, mode="say", typed="hi")
    assert "Enter first sends the line you are typing" in " ".join(plain(asked))
    near = plain(lobby_lines(table, "", False, 80, 24, mode="say", typed="y" * 185))
    assert near[-1].rstrip().endswith("Esc drop · 15 left")  # (the table's count: helper-63)
    seat2 = {**seat, "name": "Bo", "ready": False}
    confirming = {**table, "size": 2, "confirm": True, "seats": [seat, seat2]}
    keys = plain(lobby_lines(confirming, "", True, 80, 24))[-1]
    assert keys.rstrip().endswith("q leave") and "x give a seat up" in keys  # (was cut)
    bot = {"name": "B", "kind": "bot", "runner": "host", "key": "cd" * 8}
    full = {**table, "size": 10, "seats": [seat] + [{**bot, "name": f"B{i}"} for i in range(9)]}
    lines = plain(lobby_lines(full, "127.0.0.1:9", True, 80, 24, chat=["Cy says: “hi”"]))
    assert not any("Cy says" in line for line in lines)
    assert any("the host could see its hand" in line for line in lines)


# ---------------------------------------------------------------------- helper-64's moments
def _stub_source(g: Game, state: str = "playing", **extra: object) -> SimpleNamespace:
    from p2puno.session.session import Outcome, Waiting

    waiting = extra.pop("waiting", Waiting(9, "x", ()))
    outcome = extra.pop("outcome", Outcome(state, tuple(0 for _ in range(g.players))))
    return SimpleNamespace(engine=g, outcome=outcome, waiting=lambda: waiting, **extra)


def test_the_kept_cards_flash_does_not_stay_into_the_game_over_screen() -> None:
    """helper-64's brief: "you drew b5 (blue 5): it cannot be played, your turn passes" (the
    keep the table sends for the person, 002 · Let's Play) stayed up ECHO_S, over the game's
    end when the game ended within those seconds. A passing word is of the game in play: at
    its end the box says what happened."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.session.session import Outcome
    from p2puno.ui.render import plain, render

    g = Game(Options(3))
    src = _stub_source(g)
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput(), clock=lambda: 100.0)
        ui.attach(src, 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
        ui.state.flash = "you drew b5 (blue 5): it cannot be played, your turn passes"
        ui._flash_at = 98.0
        assert "cannot be played" in ui.view().message  # (in play: it shows)
        src.outcome = Outcome("finished", (0, 20, 0), (1,))
        shown = "\n".join(plain(render(ui.view(), 80, 24)))
        assert "GAME OVER" in shown and "cannot be played" not in shown, shown


def test_esc_over_a_round_end_box_in_a_claim_window_closes_the_box_only() -> None:
    """helper-63 lost part of a claim window to an Esc meant for a round's end box (420007d
    said so in the footer). Esc closes the box and never passes the claim (spec 10.9: a
    claim window is W for every seat); with the box up, the status line beside the count
    names p, not Esc, as the key that lets the window pass (it said "Esc let it pass")."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.engine.actions import Action, Kind
    from p2puno.session.session import Prompt

    g = Game(Options(3))
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput(), clock=lambda: 100.0)
        ui.attach(_stub_source(g), 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
        loop = asyncio.new_event_loop()
        try:
            fut: asyncio.Future[Action | None] = loop.create_future()
            ui.prompt = Prompt("claim", 9, (Action(0, Kind.CATCH, target=2),), None)  # type: ignore[arg-type]
            ui.prompt_since, ui._future = 99.0, fut
            ui.state.round_end, ui.state.round_end_no = ["ROUND 1 OVER", "  scores: ..."], 1
            view = ui.view()
            assert "Esc let it pass" not in view.status, view.status
            assert 'c catch "Cid" · p let it pass' in view.status, view.status
            assert view.help_line.endswith("Esc: close round 1's end only"), view.help_line
            ui.key("escape")
            assert ui.state.round_end is None and not fut.done()  # (the box only)
            assert "Esc let it pass" in ui.view().status  # (the box gone: Esc passes)
            ui.key("escape")
            assert fut.done() and fut.result() is None
        finally:
            loop.close()


def test_a_bots_wait_says_it_is_thinking_and_counts_only_when_it_is_slow() -> None:
    """helper-64's brief: a wait on a bot's turn read 'waiting for "Bob" to play (their
    turn) · 60 s left', as if the bot might take a minute. A bot's seat (the table's roster
    says its kind) is named a bot that is thinking; a count shows once it is slower than a
    machine should be (BOT_QUIET_S), or at once when it is not connected (docs/ui.md)."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.session.session import Waiting

    g = Game(Options(3))
    now = [100.0]
    owed = Waiting(9, "action", (1,), {1: "its action proposal"})
    g.turn, g.phase = 1, g.phase.TURN
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput(), clock=lambda: now[0])
        ui.attach(_stub_source(g, waiting=owed), 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
        ui.kinds = ["person", "bot", "bot"]
        first = ui.view()
        assert 'the bot "Bob"' in first.status and "thinking" in first.status, first.status
        assert first.deadline is None, first.deadline
        now[0] += 6.0  # (slower than a machine should be: the vote's count shows)
        slow = ui.view()
        assert slow.deadline is not None and slow.deadline > 60, slow.deadline
        # a seat whose node runs a person: their count at once, as before
        ui.kinds = ["person", "person", "bot"]
        ui._wait_key = None
        person = ui.view()
        assert person.deadline is not None and 'the bot "Bob"' not in person.status
        # through the node: the same (its own clock, GameNode.wait_left)
        ui.kinds = ["person", "bot", "bot"]
        node = SimpleNamespace(
            wait_left=lambda: (79.0, 1.0, True),
            away=lambda: set(),
            left={},
            stops_alone=lambda: False,
            spectators=lambda: [],
            turn_limit=60.0,
        )
        ui.node = node  # type: ignore[assignment]
        assert ui.view().deadline is None
        node.wait_left = lambda: (73.0, 7.0, True)
        assert ui.view().deadline == 73.0
        node.away = lambda: {1}  # (not connected: the count matters at once)
        node.wait_left = lambda: (79.0, 1.0, True)
        gone = ui.view()
        assert gone.deadline == 79.0 and "thinking" not in gone.status, gone.status


def test_the_header_keeps_the_round_and_its_target_whole_with_watchers() -> None:
    """helper-71's brief: with someone watching, the header at 80 columns read "round 3 · to
    5…". The round and its target stay whole (docs/ui.md, "The seat list's name takes 14
    cells": what gives way first); the name, then the right side's words, give way."""
    from p2puno.ui.model import UiState, Verification, ViewInputs, table_view
    from p2puno.ui.render import plain, render

    g = Game(Options(4))
    g.round_no = 3
    names = ["You", "Bot-1", "Bot-2", "Bot-3"]
    for title, watchers, audits in [
        ("p2puno · You's table", ["Eve"], 2),
        ("p2puno · Annabel1's table (resumed)", ["Eve", "Zed"], 12),
        ("p2puno · Bartholomew's big table (resumed)", ["Eve"] * 10, 12),
        ("p2puno · a table with a name far too long for it", ["Eve"], 3),
    ]:
        vi = ViewInputs(names, 0, title=title, code="ABCD-EFGH", watchers=watchers)
        vi.verification = Verification(audits=audits)
        top = plain(render(table_view(_stub_source(g), UiState(), vi), 80, 24))[0]  # type: ignore[arg-type]
        assert len(top) == 80 and "· round 3 · to 500  " in top, top
        assert "code ABCD-EFGH" in top and f"{len(watchers)} watching · ✓ {audits} " in top, top
        assert top.rstrip().endswith("verified"), top


def test_a_four_seat_tables_seat_list_fits_eight_character_names_at_80() -> None:
    """helper-64's brief: at 80x24 with four seats of 8-character names the person's own row
    read "Annabe… (you)": the name and its "(you)" passed the name column. The column takes
    an 8-character name with "(you)" or "·bot" now, and every row stays in its 50 cells."""
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import plain, render

    g = Game(Options(4))
    g.dealer = 2
    names = ["Annabel1", "Bartholo", "Cornelia", "Dominika"]
    vi = ViewInputs(
        names, 0, kinds=["person", "person", "bot", "bot"], notes=["", "", "on host", "on host"]
    )
    vi.title, vi.code, vi.watchers = "p2puno · Annabel1's table", "ABCD-EFGH", ["Eve", "Zed"]
    view = table_view(_stub_source(g), UiState(), vi)  # type: ignore[arg-type]
    lines = plain(render(view, 80, 24))
    assert all(len(line) == 80 for line in lines)
    rows = [line[:50] for line in lines[2:6]]
    assert "0 Annabel1 (you)" in rows[0], rows
    assert "2 Cornelia ·bot" in rows[2] and rows[2].rstrip().endswith("dealer, on host"), rows
    assert "ABCD-EFGH" in lines[0] and "2 watching" in lines[0], lines[0]


def test_the_lobbys_help_pages_when_it_does_not_fit_80_by_24() -> None:
    """helper-64's brief: the lobby's `?` was cut at 24 rows (the question asked and a message
    above it take rows), with nothing to scroll. It is paged: every line is on a page, the
    keys line says which page and the key to the next, and the question stays on each."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.node.lobby import make_options
    from p2puno.session import Timing
    from p2puno.ui.render import _lobby_help, lobby_lines, plain

    opts = make_options(4, ["progressive", "seven-o", "jump-in"], "standard", 500, Timing())
    seats = [
        {"name": n, "kind": "person", "runner": "self", "key": "0" * 16, "connected": True,
         "ready": False}
        for n in ("Annabel1", "Bartholo", "Cornelia", "Dominika")
    ]  # fmt: skip
    table = {"name": "Annabel1's table", "options": opts, "seats": seats, "size": 4,
             "confirm": True}  # fmt: skip
    every: list[str] = []

    def words(style: str, text: str, most: int = 99) -> list[list[tuple[str, str]]]:
        import textwrap

        return [[(style, " " + p)] for p in textwrap.wrap(text, 78)]

    timing = opts["timing"]
    assert isinstance(timing, dict)
    for page in _lobby_help(opts, timing, True, False, words):
        every += [p.strip() for p in plain([line for line in page])]
    pages: list[list[str]] = []
    for n in range(4):
        # (the host's: five keys, and what it waits for; helper-71 made a joiner's fit)
        shown = plain(
            lobby_lines(
                table, "", True, 80, 24, "a word from the table " * 4, mode="help", page=n,
            )
        )  # fmt: skip
        assert len(shown) == 24 and "waiting for Annabel1, Bartholo" in shown[1], shown
        assert shown[0].startswith(" p2puno lobby — help"), shown  # (the title first)
        pages.append(shown)
    assert pages[0] != pages[1] and pages[2] == pages[1]  # (two pages; past the last: it)
    seen = {line.strip() for page in pages for line in page}
    assert all(line in seen for line in every if line), [x for x in every if x not in seen]
    assert "page 1 of 2" in pages[0][-1] and "Space" in pages[0][-1], pages[0][-1]
    with create_pipe_input() as pipe:  # the keys: Space, the next page; another, back
        ui = TableUI(name="Annabel1", host=True, input=pipe, output=DummyOutput())
        ui.table, ui.lobby_message = table, "a word from the table " * 4
        ui.key("?")
        assert "page 1 of 2" in plain(ui.lines(80, 24))[-1]  # (drawn: the app knows its pages)
        ui.key(" ")
        assert ui.state.mode == "help" and "page 2 of 2" in plain(ui.lines(80, 24))[-1]
        ui.key("x")
        assert ui.state.mode == "play"


def test_the_lobbys_help_covers_the_lobby_ends_its_pages_and_takes_enter() -> None:
    """helper-71's brief, the lobby's `?` (docs/ui.md, "The lobby's `?` is a page, or
    pages"): its second page held one line; its last page's keys line said "next page"; a
    seat's "joined" line stood above its title; Enter there only went back, though the
    question shown with it says "press Enter"; a spectator's help said "any key: back" twice."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.node.lobby import make_options
    from p2puno.session import Timing
    from p2puno.ui.render import lobby_lines, plain

    opts = make_options(4, [], "standard", 500, Timing())
    seats = [
        {"name": n, "kind": k, "runner": r, "key": "0" * 16, "connected": True}
        for n, k, r in (("Ann", "person", "self"), ("You", "person", "self"), ("Bo", "bot", "host"))
    ]
    table = {"name": "Ann's table", "options": opts, "seats": seats, "size": 3, "confirm": True}
    joined = '"Bo" joined seat 2'
    shown = plain(
        lobby_lines(table, "", False, 80, 24, joined, mode="help", asked=True, asked_left=41.0)
    )
    assert shown[0].startswith(" p2puno lobby — help") and "page" not in shown[0], shown
    assert "press Enter within 41 s" in shown[1] and joined not in "".join(shown), shown
    assert any("Leaving: a player who leaves and is not back" in line for line in shown), shown
    assert shown[-1].strip() == "Enter: play at this table · any other key: back to the lobby"
    # the host's, paged (five keys, three house rules, a seat deciding): even pages, and no
    # "next page" on the last
    house = make_options(4, ["progressive", "seven-o", "jump-in"], "standard", 500, Timing())
    paged = {**table, "options": house, "seats": [{**seats[1], "ready": False}]}
    first = plain(lobby_lines(paged, "", True, 80, 24, mode="help"))
    last = plain(lobby_lines(paged, "", True, 80, 24, mode="help", page=9))
    assert "page 1 of 2 · Space / → next page" in first[-1], first[-1]
    assert "page 2 of 2 · ← page 1 · any other key" in last[-1], last[-1]
    assert "next page" not in last[-1], last[-1]
    assert min(sum(1 for line in page[2:-1] if line.strip()) for page in (first, last)) > 5
    spectator = plain(lobby_lines(table, "", False, 80, 24, mode="help", spectator=True))
    assert sum(line.count("any key") for line in spectator) == 1, spectator
    with create_pipe_input() as pipe:  # Enter in the help answers the question shown with it
        ui = TableUI(name="You", input=pipe, output=DummyOutput())
        loop = asyncio.new_event_loop()
        try:
            ui.table, ui._confirm = table, loop.create_future()
            ui.key("?")
            assert ui.state.mode == "help"
            ui.key("enter")
            assert ui.state.mode == "play" and ui._confirm.done() and ui._confirm.result()
            assert ui.confirmed
        finally:
            loop.close()


def test_a_stop_in_the_first_round_says_the_scores_stay_at_0() -> None:
    """helper-64's brief: in round 1 the leave question said "the scores stay as at the last
    verified round", and none was (spec 10.15, "What it gives": the standings of the last deck
    audited, zeros if none; deck 1 is the draw for dealer, Session.audited_deck)."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.session.session import Outcome
    from p2puno.ui.render import plain, render

    g = Game(Options(3))
    g.round_no = 1
    src = _stub_source(g, audited_deck=1)
    none = "the round in play does not count, and the scores stay at 0, no round being verified yet"
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput())
        ui.attach(src, 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
        ui.state.mode = "quit"
        asked = " ".join(ui.view().choice_lines)
        assert (
            "the round in play does not count, and the scores stay at 0, no round being" in (asked)
            and "last verified" not in asked
        ), asked
        ui.state.mode = "play"
        src.outcome = Outcome("stopped", (0, 0, 0), silent=(1,), void=True, voters=(0,))
        box = " ".join(t.strip() for t in ui.view().end or [])
        assert none in box and "last verified" not in box, box
        assert len(plain(render(ui.view(), 80, 24))) == 24
        src.audited_deck = 2  # (round 1 verified: the words as before)
        box = " ".join(t.strip() for t in ui.view().end or [])
        assert "scores stay as at the last verified round" in box, box


def test_a_later_catch_up_batch_flashes_no_old_move() -> None:
    """helper-64's brief: a batch of many moves at once (a resumed node or a spectator behind
    the table) flashed its swaps, catches and jump-ins one after another, as if new. A flash
    is of the last move: one followed in its batch by later plays goes to the moves only,
    and so does every one while the session is behind the table (Session.behind)."""
    from prompt_toolkit.output import DummyOutput

    from p2puno.engine.game import Event
    from p2puno.session.session import SessionEvent

    g = Game(Options(3, seven_o=True))

    def batch(*events: Event) -> list[SessionEvent]:
        return [SessionEvent("engine", str(e), e.seat, e) for e in events]

    swap = Event("swap", 1, -1, 0, 2)
    play = Event("play", 2, 5, 6)
    with create_pipe_input() as pipe:
        ui = TableUI(name="Ann", input=pipe, output=DummyOutput(), clock=lambda: 100.0)
        src = _stub_source(g, behind=-1, processed=40)
        ui.attach(src, 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
        ui.on_events(batch(play))  # (the first batch: the game so far)
        ui.on_events(batch(swap, play, play))  # (a swap, two plays ago)
        assert ui.state.flash == "", ui.state.flash
        assert any("swap" in line for line in ui.log), list(ui.log)
        src.behind = 90  # (entries far ahead: still catching up)
        ui.on_events(batch(swap))
        assert ui.state.flash == "", ui.state.flash
        src.behind = -1  # (caught up: a swap now is news)
        ui.on_events(batch(swap))
        assert "swap" in ui.state.flash, ui.state.flash


def test_a_catch_up_past_a_rounds_end_says_where_the_game_is() -> None:
    """helper-64's brief: a resumed person (or a spectator) whose catch-up passes a round's
    end gets no box for it (its hands are gone: the next round is dealt), and the line that
    said how it ended had scrolled out of the moves in view at 80x24. One line, last in the
    batch, says the round in play and how the round before ended; a header too long for 80
    columns drops "(resumed)" before it cuts the table's name."""
    import random

    from prompt_toolkit.output import DummyOutput

    from p2puno.bots import make_bot
    from p2puno.session.session import Outcome, SessionEvent, Waiting
    from p2puno.sim.runner import Table
    from p2puno.ui.model import UiState, ViewInputs, table_view
    from p2puno.ui.render import plain, render

    t = Table(Options(2), [make_bot("heuristic", f"r{s}") for s in range(2)], random.Random(5))
    src = SimpleNamespace(
        engine=t.game, outcome=Outcome("playing", (0, 0)), waiting=lambda: Waiting(9, "x", ())
    )
    batch: list[SessionEvent] = []
    for _ in range(20000):
        _, events = t.step()
        batch += [SessionEvent("engine", str(e), event=e) for e in events]
        if t.game.round_no == 2 and any(e.kind == "start" for e in events):
            break  # (round 2's start card: its hands are dealt)
    assert t.game.round_no == 2
    with create_pipe_input() as pipe:
        ui = TableUI(name="you", input=pipe, output=DummyOutput(), title="p2puno · resumed")
        ui.attach(src, 0, ["Annabel1", "Bartholo"])  # type: ignore[arg-type]
        ui.on_events(batch)
        assert ui.state.round_end is None  # (no box: round 2's hands are dealt)
        last = ui.log[-1]
        assert last.startswith("caught up: round 2 in play; round 1's end: Round over: "), last
    vi = ViewInputs(["Annabel1", "Bartholo"], 0, title="p2puno · Annabel1's table (resumed)")
    vi.code = "ABCD-EFGH"
    view = table_view(src, UiState(), vi)  # type: ignore[arg-type]
    head = plain(render(view, 80, 24))[0]
    assert head.startswith(" Annabel1's table · code ABCD-EFGH · round 2 · to 500"), head


def test_a_catch_of_one_of_several_seats_asks_whom_to_catch() -> None:
    """c with two seats to catch (002 · UNO: a player who does not call UNO may be caught)
    asked "Seven-O: swap hands with whom?", the seat question's words (helper-64 found it
    while fitting the seat lines)."""
    from p2puno.engine.actions import Action, Kind
    from p2puno.ui.model import UiState, ViewInputs, table_view

    g = Game(Options(3))
    catches = (Action(0, Kind.CATCH, target=1), Action(0, Kind.CATCH, target=2))
    ui = UiState(mode="target", pending=catches)
    view = table_view(_stub_source(g), ui, ViewInputs(["Ann", "Bob", "Cid"], 0))  # type: ignore[arg-type]
    assert view.choice_lines[0] == "Catch whom? (one card, no UNO called)", view.choice_lines
    assert view.choice_lines[1] == "1 Bob (0 cards) · 2 Cid (0 cards)", view.choice_lines


def test_a_rounds_end_taken_while_catching_up_draws_no_box() -> None:
    """helper-83: a spectator who came in round 2 had the box "ROUND 1 OVER" over the live
    table: its catch-up's batch ended on round 1's end, and round 2's deal came in a later
    batch, which closes no box (a live round's end stays up until a key). A round's end taken
    while the session is still behind the table is history: said in the moves, no box; the
    same batch taken live draws it."""
    import random

    from prompt_toolkit.output import DummyOutput

    from p2puno.bots import make_bot
    from p2puno.session.session import SessionEvent
    from p2puno.sim.runner import Table

    for behind, box in ((400, False), (None, True)):
        t = Table(Options(2), [make_bot("heuristic", f"r{s}") for s in range(2)], random.Random(5))
        src = SimpleNamespace(engine=t.game, outcome=SimpleNamespace(over=False))
        if behind is not None:  # (the session knows of steps far past those it processed)
            src.behind, src.processed = behind, 10  # type: ignore[attr-defined]
        with create_pipe_input() as pipe:
            ui = TableUI(name="Eve", input=pipe, output=DummyOutput(), spectator=True)
            ui.attach(src, None, ["Ann", "Bob"])  # type: ignore[arg-type]
            batch: list[SessionEvent] = []
            for _ in range(3):  # (a first batch: a table's first is history whatever comes)
                batch += [SessionEvent("engine", str(e), event=e) for e in t.step()[1]]
            ui.on_events(batch)
            batch = []
            for _ in range(20000):
                _, events = t.step()
                kinds = [e.kind for e in events]
                if "round-over" in kinds:  # (up to it: the next round's deal comes later)
                    events = events[: kinds.index("round-over") + 1]
                batch += [SessionEvent("engine", str(e), event=e) for e in events]
                if "round-over" in kinds:
                    break
            ui.on_events(batch)
        assert (ui.state.round_end is not None) == box, (behind, ui.state.round_end)
        assert any("Round over" in line for line in ui.log) or box, ui.log
