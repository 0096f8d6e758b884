"""A person decides at their own pace (issue 11): the node keeps answering, relaying and
fetching meanwhile; a person who lets the turn deadline pass is played by their own node's bot
(only that node holds their keys). Nodes run in one event loop here, over real links on
127.0.0.1, each with its own keys and data directory."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest

from p2puno.engine.actions import Action
from p2puno.node.lobby import make_options
from p2puno.node.players import BotPlayer
from p2puno.node.run import Result, host_game, join_game
from p2puno.node.store import DataDir
from p2puno.session import Timing
from p2puno.session.session import Prompt

LOOP = "127.0.0.1"


class SlowPerson(BotPlayer):
    """Answers like a bot, after ``pause`` seconds, for its first ``slow_for`` decisions (a
    person thinking), then at once (the rest of the game is not what the test is about: the
    suite's time is)."""

    kind = "person"

    def __init__(self, pause: tuple[float, float], seed: str, slow_for: int = 10**9) -> None:
        super().__init__("heuristic", seed)
        self.pause = pause
        self.rng = random.Random(seed)
        self.asked = 0
        self.slow_for = slow_for

    async def decide(self, prompt: Prompt) -> Action | None:
        self.asked += 1
        if self.asked <= self.slow_for:
            await asyncio.sleep(self.rng.uniform(*self.pause))
        return self.choose(prompt)


class AwayPerson(SlowPerson):
    """Never answers: the person went for coffee."""

    async def decide(self, prompt: Prompt) -> Action | None:
        self.asked += 1
        await asyncio.sleep(3600)
        return None


async def _table(tmp: Path, player: BotPlayer, timing: Timing, target: int = 30) -> list[Result]:
    said: list[str] = []
    options = make_options(3, [], "standard", target, timing)
    host = asyncio.ensure_future(
        host_game(
            table="t", name="Host", seats=3, options=options, player=player,
            data=DataDir(tmp / "h"), bind=LOOP, port=0, discovery=False,
            say=said.append, linger_s=0.5,
        )
    )  # fmt: skip
    while not any("open on" in line for line in said):
        await asyncio.sleep(0.02)
    line = next(line for line in said if "open on" in line)
    port = int(re.search(r"open on 127\.0\.0\.1:(\d+)", line).group(1))  # type: ignore[union-attr]
    joiners = [
        asyncio.ensure_future(
            join_game(
                LOOP, port, name=f"B{k}", player=BotPlayer("heuristic", f"b{k}"),
                data=DataDir(tmp / f"j{k}"), bind=LOOP, say=lambda text: None, linger_s=0.5,
            )
        )
        for k in range(2)
    ]  # fmt: skip
    results = await asyncio.wait_for(asyncio.gather(host, *joiners), 240)
    return [*results, said]  # type: ignore[list-item]


async def test_a_person_who_takes_their_time_is_waited_for(tmp_path: Path) -> None:
    """Decisions of 1.1-1.5 s, each longer than the table's step deadline (1 s) but within
    the turn deadline (5 s): nobody votes, and the game is played to its end."""
    person = SlowPerson((1.1, 1.5), "slow", slow_for=5)
    *results, said = await _table(tmp_path, person, Timing(step_s=1, turn_s=5, window_ms=0))
    outcomes = {r.outcome for r in results}
    assert len(outcomes) == 1, outcomes
    assert outcomes.pop().state == "finished"
    assert person.asked >= 3  # slow decisions (its first ten are), each waited for
    assert not any("votes to end the game" in line for line in said)


async def test_a_person_away_past_the_turn_deadline_is_played_by_their_own_node(
    tmp_path: Path,
) -> None:
    """The person never answers: after turn_s (1 s) their node's bot plays for them, and
    keeps playing, each later turn after a moment that is still the person's (a quarter of
    turn_s here; helper-30: the bot played every later turn at once); the others never see a
    missed deadline and the game ends normally."""
    person = AwayPerson((0, 0), "away")
    timing = Timing(step_s=5, turn_s=1, window_ms=0)
    *results, said = await _table(tmp_path, person, timing, target=10)  # (the suite's time)
    assert {r.outcome.state for r in results} == {"finished"}
    # (said once, and what follows: helper-79's brief read "plays for you" as for good)
    assert sum("your node's bot plays this turn; any key gives" in line for line in said) == 1
    # (the command to join on a line of its own: wrapped at 80 columns it was cut in two)
    assert any(re.fullmatch(r"    p2puno join 127\.0\.0\.1:\d+", line) for line in said), said
    assert person.asked > 1  # asked each turn, the bot playing it when the moment passed


async def test_a_full_disk_stops_the_node_cleanly_and_it_resumes_once_there_is_space(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host's disk refuses a write mid-game (ENOSPC): the node stops at once with a clear
    message (nothing it sent was unwritten: write before send); `resume` then takes it back
    into the game, which ends normally for everyone. The nodes keep 10 steps in memory (100
    in a real node) and the write refused comes near step 40, so the resumed node's log is
    pruned as it is read, as in a long game (a node bug on that path, e.g. a task that
    raises, stops the node and fails this test). The game's length is not known in advance
    (its deck comes from every seat's fresh secrets): a 3-seat game to 150 took 56 to 1,122
    steps over 40 seeded games, so the write refused comes before the shortest (it came at
    write 900, about step 300, once, in a game to 300: 2 of 30 such games ended before it)."""
    import errno

    from p2puno.node import game, run
    from p2puno.node.lobby import LobbyError
    from p2puno.node.run import resume_game
    from p2puno.node.store import GameFiles

    keep = 10
    monkeypatch.setattr(game, "PRUNE_KEEP", keep)
    monkeypatch.setattr(run, "PRUNE_KEEP", keep)
    FAIL_AT = 120  # the host appends about three entries a step
    real = GameFiles.append
    writes = {"n": 0}

    def failing(self: GameFiles, raw: bytes, *, durable: bool) -> None:
        if str(self.folder).startswith(str(tmp_path / "h")):  # the host's disk only
            writes["n"] += 1
            if writes["n"] == FAIL_AT:
                raise OSError(errno.ENOSPC, "No space left on device")
        real(self, raw, durable=durable)

    GameFiles.append = failing  # type: ignore[method-assign]
    said: list[str] = []
    try:
        with pytest.raises(LobbyError, match="disk refused a write"):
            await _table(tmp_path, BotPlayer("heuristic", "h"), Timing(30, 30, 0), target=150)
    except BaseException:
        GameFiles.append = real  # type: ignore[method-assign]
        raise
    GameFiles.append = real  # type: ignore[method-assign]
    assert writes["n"] >= FAIL_AT
    result = await asyncio.wait_for(
        resume_game(DataDir(tmp_path / "h"), None, say=said.append, linger_s=0.5), 240
    )
    assert result.outcome.state == "finished", result.outcome
    assert any("back in the game" in line for line in said)
    at = int(next(re.findall(r"step (\d+) of its log", ln)[0] for ln in said if "resuming" in ln))
    assert at > 2 * keep, said[:3]  # the rebuild pruned as it read


def test_the_line_prompt_speaks_the_tables_notation_and_takes_it_typed() -> None:
    """A person without a full-screen terminal picks by number or types the choice as it is
    written: the card's notation with what goes with it (a Wild's color, 002 · Wild; a
    Seven-O's seat, 001 · SEVEN-O 2; UNO called with the next-to-last card, 002 · Going
    Out), not the log's notation with its seat and deck slot ("2 r7#45")."""
    from p2puno.engine.actions import Kind, catch, play, simple
    from p2puno.engine.cards import COLORS
    from p2puno.node.players import choice_text, pick

    r, y, g = COLORS.index("r"), COLORS.index("y"), COLORS.index("g")
    options = [
        play(2, 45, r, 7),
        play(2, 46, r, 7),  # the other r7: the same choice
        play(2, 12, 4, 13, choose=g),  # a Wild naming green
        play(2, 30, y, 7, target=0),  # Seven-O: swap with seat 0
        play(2, 45, r, 7, uno=True),
        play(2, 50, g, 7, jump=True),
        simple(2, Kind.DRAW),
        catch(2, 1),
        None,
    ]
    texts = [choice_text(a) for a in options]
    assert texts[0] == texts[1] == "r7" and "#" not in " ".join(texts)
    assert texts[2].endswith(":g") and texts[3] == "y7>0" and texts[4] == "r7!"
    assert texts[5:] == ["jump g7", "draw", "catch 1", "pass"]
    assert pick("0", options) is options[0] and pick("8", options) is None
    assert pick(" R7 ", options) is options[0]
    assert pick(texts[2].upper(), options) is options[2]
    assert pick("r7!", options) is options[4] and pick("y7>0", options) is options[3]
    assert pick("jump  g7", options) is options[5] and pick("Draw", options) is options[6]
    assert pick("pass", options) is None
    for bad in ("9", "b5", "", "draw 2", "²", "-1", "9" * 5000):
        assert pick(bad, options) == "a number from 0 to 8, or one of the choices as written"


def test_a_terminal_without_the_table_tells_players_by_name() -> None:
    """`p2puno host --bot ...` and a person at the line prompt saw "P2 deals", "game over: P0
    wins": the engine's seat numbers, which no player is shown anywhere else. They are told
    by name, in the table's own words (one wording: p2puno.sim.words)."""
    from p2puno.engine.game import Event, Game
    from p2puno.engine.options import Options
    from p2puno.node.run import describe_event
    from p2puno.session.session import SessionEvent

    names = ["Ann", "Bob", "Pat"]
    game = Game(Options(3))
    said = [
        describe_event(SessionEvent("engine", "", event=Event(kind, seat=s, value=v)), game, names)
        for kind, s, v in (
            ("dealer", 2, 0),
            ("round", 1, 3),
            ("round-over", 0, 35),
            ("game-over", 2, 0),
        )
    ]
    assert said == [
        "  Pat deals first",
        "  — round 3: Bob deals —",
        "  Round over: Ann scores 35",
        "  Game over: Pat wins!",
    ]
    play = SessionEvent("engine", "P1 plays r7", event=Event("play", 1))
    assert describe_event(play, game, names) is None


async def test_a_chat_line_reaches_the_other_seats_printable_and_a_flood_is_cut(
    tmp_path: Path,
) -> None:
    """The table's chat (protocol/transport.md, "Notices"): a seat's line reaches every seat
    linked, by the sender's roster name (the link says who sent it), made one printable line;
    more than CHAT_BURST lines in CHAT_PER_S seconds from one seat are dropped, said once.
    Not a move: nothing of it is signed or in the log."""
    from p2puno.node.game import CHAT_BURST, GameNode

    heard: list[str] = []
    nodes: list[GameNode] = []
    options = make_options(2, [], "standard", 30, Timing(20, 60, 0))
    host = asyncio.ensure_future(
        host_game(
            table="t", name="Host", seats=2, options=options,
            player=SlowPerson((0.05, 0.1), "chat", slow_for=4),
            data=DataDir(tmp_path / "h"), bind=LOOP, port=0, discovery=False,
            say=heard.append, linger_s=0.5, on_game=nodes.append,
        )
    )  # fmt: skip
    while not any("open on" in line for line in heard):
        await asyncio.sleep(0.02)
    line = next(line for line in heard if "open on" in line)
    port = int(re.search(r"open on 127\.0\.0\.1:(\d+)", line).group(1))  # type: ignore[union-attr]
    bob_heard: list[str] = []
    bob = asyncio.ensure_future(
        join_game(
            LOOP, port, name="Bob", player=BotPlayer("heuristic", "b"),
            data=DataDir(tmp_path / "j"), bind=LOOP, say=bob_heard.append, linger_s=0.5,
            on_game=nodes.append,
        )
    )  # fmt: skip
    while len(nodes) < 2 or any(not n.links for n in nodes):
        await asyncio.sleep(0.02)
    ann = next(n for n in nodes if n.me == 0)
    bobs = next(n for n in nodes if n.me == 1)
    assert ann.chat("  good luck \x1b[2J\u202e all  ") is None
    assert ann.chat(" \t ") == "nothing to say"
    for k in range(CHAT_BURST + 3):
        assert bobs.chat(f"spam {k}") is None
    await asyncio.sleep(0.5)
    assert "Host says: “good luck ?[2J? all”" in bob_heard
    got = [line for line in heard if line.startswith("Bob says: “spam")]
    assert got == [f"Bob says: “spam {k}”" for k in range(CHAT_BURST)], got
    assert sum("chats too fast" in line for line in heard) == 1
    await asyncio.wait_for(asyncio.gather(host, bob), 240)


async def test_a_link_dropped_for_a_fault_is_not_a_seat_leaving() -> None:
    """helper-29: a half-open link was dropped as silent by one side, whose BYE named the
    fault; the other side told its person "J0 (seat 1) left the table: they may come back
    with p2puno resume". Only a node that leaves on purpose says so in its BYE (LEAVING_BYES);
    any other BYE is a lost link, said as one, and the seat is not counted as gone."""
    from types import SimpleNamespace

    from p2puno.net import LinkError
    from p2puno.node.game import LEAVING_BYES, GameNode

    said: list[str] = []
    for reason in (LEAVING_BYES[0], "silent: nothing came from it for a while", None):
        # (None: the connection ended with no word, eof)
        error = LinkError("eof", "peer 60ab at 127.0.0.1:9") if reason is None else None
        link = SimpleNamespace(error=error or LinkError("bye", f"said bye: {reason}"))

        async def closed() -> None:
            return None

        link.wait_closed = closed
        node = SimpleNamespace(
            links={1: link}, _closing=False, done=asyncio.Event(), left={},
            say=said.append, _name=lambda seat: "J0", _runner=lambda seat: "self",
            _who_decides=lambda: "others",
            _lost_at={}, _watched_via={},
            session=SimpleNamespace(processed=7), timing=SimpleNamespace(step_s=20),
            _over_at=set(),
        )  # fmt: skip
        await GameNode._watch(node, 1, link)  # type: ignore[arg-type]
        assert node.left == ({1: 7} if reason == LEAVING_BYES[0] else {}), reason
    assert said[0].startswith("J0 (seat 1) left the table")
    assert said[1] == (
        'lost the connection to "J0" (seat 1): their side closed it, saying “silent: nothing '
        "came from it for a while”"
    ), said
    # helper-55: "lost the link to Bot-1 (seat 1): its connection closed (eof)" read as
    # jargon; the name is quoted as in every other line, the code left to the log
    assert said[2] == (
        'lost the connection to "J0" (seat 1): it was closed at their end (their program may '
        "have stopped)"
    ), said


def test_the_countdown_of_a_node_with_no_link_left_includes_its_grace() -> None:
    """helper-29: a node whose every link was lost said "the table votes to stop in 5 s",
    then voted 10 s later: with no live link it waits a whole step_s after the loss (its own
    network may be the one down), and the countdown said only the deadline. It says the
    longer of the two now (protocol/lobby.md section 5)."""
    from types import SimpleNamespace

    from p2puno.node.game import LINK_GRACE_S, GameNode

    now = 100.0
    live = SimpleNamespace(closed=False)
    node = SimpleNamespace(
        links={}, _lost_at={1: now - 1.0, 2: now - 3.0}, _started=0.0, me=0,
        session=SimpleNamespace(n=3), timing=SimpleNamespace(step_s=10),
    )  # fmt: skip
    lost, left = GameNode._lost_grace(node, now)  # type: ignore[arg-type]
    assert set(lost) == {1, 2} and left == 9.0  # (no live link: a whole step_s)
    node.links = {2: live}
    lost, left = GameNode._lost_grace(node, now)  # type: ignore[arg-type]
    assert set(lost) == {1} and left == LINK_GRACE_S - 1.0
    node.links = {1: live, 2: live}
    assert GameNode._lost_grace(node, now) == ({}, 0.0)
