"""A late resume learns how the game ended (protocol/lobby.md section 6, "A late resume").

Bob's node stops near a game's end; the others vote his seat out and the game ends. Before,
every node closed its links and its listener 0-2 s after the end, so Bob's `p2puno resume` a
minute later reached nobody: it stopped the game unfinished in its own log, and he never
learned who won. A node whose end is still on a person's screen (the table's end box) now
keeps serving the game to the seats that lack it: Bob's resumed node reaches it, takes the end
(votes included), says the verdict, and its log verifies with the serving node's entries.

Nodes run in one event loop here, over real links on 127.0.0.1, each with its own keys, data
directory and listener; the seat that stops is a node whose task is cancelled (its links end
with a BYE, its data directory left unfinished, as a `kill` leaves it), and it comes back by
:func:`~p2puno.node.run.resume_game`, as `p2puno resume` does."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

from p2puno.log import Identity
from p2puno.net import LinkError, open_link
from p2puno.node import game as node_game
from p2puno.node.game import GameNode
from p2puno.node.lobby import make_options
from p2puno.node.players import BotPlayer
from p2puno.node.run import Result, host_game, join_game, resume_game
from p2puno.node.store import DataDir
from p2puno.session import Timing
from p2puno.session.replay import replay
from p2puno.session.words import outcome_words

LOOP = "127.0.0.1"


async def _until(cond: object, limit: float, what: str) -> None:
    """Until ``cond()`` holds (polled: the nodes' state has no event to await), or fail."""
    end = time.monotonic() + limit
    while not cond():  # type: ignore[operator]
        assert time.monotonic() < end, what
        await asyncio.sleep(0.02)


def _entries(path: Path) -> set[bytes]:
    return set(path.read_bytes().splitlines())


async def test_a_seat_resumed_after_the_end_learns_it_from_a_node_still_at_its_end_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three seats: Host (seat 0, a bot's node: it ends as today), Bob (seat 1, stopped mid-
    game) and Cy (seat 2, whose end stays on a person's screen: ``serve_s``). Host and Cy vote
    Bob out; Host's node ends; Bob resumes after that, while Cy's end is still shown. Cy's
    node is the higher seat: it dials Bob, as during play (Bob's resumed node dials only its
    lower seats: protocol/lobby.md section 3). Bob's node gets the end, says how it ended, and
    ends the game in its own files; Cy's says Bob came back for it; closing Cy's end stops Cy's
    node. Bob's log and Cy's hold the same entries and verify as a stop (spec 10.15: Bob's
    late vote joins theirs, and Cy's node takes it as any late vote); Host's, which left
    before, holds what it signed with them."""
    # (the vote comes a step after Bob left; the redial grace and the serving node's redial
    # shortened so the whole story fits in seconds: the rule is the same at any length)
    monkeypatch.setattr(node_game, "LINK_GRACE_S", 0.3)
    monkeypatch.setattr(node_game, "SERVE_REDIAL_S", 0.2, raising=False)
    options = make_options(3, [], "standard", 500, Timing(step_s=2, turn_s=2, window_ms=0))
    host_said: list[str] = []
    bob_said: list[str] = []
    cy_said: list[str] = []
    nodes: dict[str, GameNode] = {}

    def keep(name: str, serve: bool = False) -> object:
        def on_game(node: GameNode) -> None:
            nodes[name] = node
            if serve:  # (what the table does: ui.app, TableUI.on_game)
                node.serve_s = 30.0

        return on_game

    host = asyncio.ensure_future(
        host_game(
            table="t", name="Host", seats=3, options=options,
            player=BotPlayer("heuristic", "h"), data=DataDir(tmp_path / "h"), bind=LOOP,
            port=0, discovery=False, say=host_said.append, linger_s=0.3,
            on_game=keep("host"),  # type: ignore[arg-type]
        )
    )  # fmt: skip
    await _until(lambda: any("open on" in line for line in host_said), 10, "no table")
    line = next(line for line in host_said if "open on" in line)
    port = int(re.search(r"open on 127\.0\.0\.1:(\d+)", line).group(1))  # type: ignore[union-attr]
    bob = asyncio.ensure_future(
        join_game(
            LOOP, port, name="Bob", player=BotPlayer("heuristic", "b"),
            data=DataDir(tmp_path / "bob"), bind=LOOP, say=bob_said.append, linger_s=0.3,
            on_game=keep("bob"),  # type: ignore[arg-type]
        )
    )  # fmt: skip
    await _until(lambda: any("seated at seat 1" in x for x in bob_said), 10, "Bob not seated")
    cy = asyncio.ensure_future(
        join_game(
            LOOP, port, name="Cy", player=BotPlayer("heuristic", "c"),
            data=DataDir(tmp_path / "cy"), bind=LOOP, say=cy_said.append, linger_s=0.3,
            on_game=keep("cy", serve=True),  # type: ignore[arg-type]
        )
    )  # fmt: skip
    await _until(lambda: "bob" in nodes and nodes["bob"].session.processed >= 12, 15, "no play")
    bob.cancel()  # Bob's node stops mid-game
    with pytest.raises(asyncio.CancelledError):
        await bob
    host_result = await asyncio.wait_for(host, 15)  # voted out; Host's node ends as today
    assert host_result.outcome.state == "stopped" and host_result.outcome.silent == (1,)
    cy_node = nodes["cy"]
    assert cy_node.session.outcome.over
    # Cy's linger is over: before, its node closed here and Bob's resume reached nobody
    await _until(lambda: cy.done() or getattr(cy_node, "_serving", False), 10, "Cy lingers")

    t0 = time.monotonic()
    back: Result = await asyncio.wait_for(
        resume_game(
            DataDir(tmp_path / "bob"), None, player=BotPlayer("heuristic", "b2"),
            say=bob_said.append, linger_s=0.3,
        ),
        15,
    )  # fmt: skip
    took = time.monotonic() - t0
    assert back.outcome.over and back.outcome.state == "stopped", back.outcome
    # Bob's node says how it ended, as a resume into a game that ends does (its own vote
    # joins the others': the words say he was away and they voted while waiting for him)
    assert any("you were away" in x and "your node joins" in x for x in bob_said), bob_said
    # (back into a game over, not "play went on 0.6 s after the resume", helper-97)
    back_lines = [x for x in bob_said if x.startswith("back in the game")]
    assert back_lines == ["back in the game: it had ended while you were away (the end below)"]
    # ... and its verdict, which `resume` then says ("game over: ..."), names every seat's vote
    said = outcome_words(back.outcome, ["Host", "Bob", "Cy"])
    assert said.startswith("stopped after step") and "by every seat's vote" in said, said
    # ... whom Host and Cy waited for, and nothing of Bob's: his node joined their votes once
    # the answer that brought them was in, so its vote names nobody. (helper-97: it joined at
    # the first vote of the answer, before Cy's, which it read as Cy's silence: "Host and Cy
    # waited for Bob; Bob waited for Cy", in a record every seat signed)
    assert "by every seat's vote (Host and Cy waited for Bob);" in said, said
    assert back.outcome.waited[1] == (), back.outcome
    await _until(
        lambda: any("Bob (seat 1) came back after the end and was sent the result" in x
                    for x in cy_said),
        5, f"Cy said nothing of Bob: {cy_said}",
    )  # fmt: skip

    # ... and that Bob's late vote changed the end it shows (helper-99: the end box changed
    # with no word why; spec 10.15, a late vote takes its seat out of the silent ones)
    def changed() -> list[str]:
        return [x for x in cy_said if x.startswith("the end changed with what Bob sent after")]

    await _until(changed, 5, f"Cy said nothing of the end's change: {cy_said}")
    assert changed() == [f"the end changed with what Bob sent after it: {said}"], cy_said
    assert not cy.done()  # still serving: its end is still on the screen
    # ... to the seats of this game only: a key not on its roster is refused (no spectator,
    # no stranger is sent the game for the asking)
    cy_port = int(cy_node.watch_address.rsplit(":", 1)[1])
    game_id = cy_node.session.game_id
    with pytest.raises(LinkError, match="the game is over"):
        stranger = await open_link(
            LOOP, cy_port, Identity.generate(), game_id, expect=cy_node.identity.sign_pk
        )
        await asyncio.wait_for(stranger.recv(), 5)  # (refused at once, or its first word)
    t1 = time.monotonic()
    cy_node.stop_serving()  # the person closes the end box
    cy_result = await asyncio.wait_for(cy, 5)
    closed_in = time.monotonic() - t1
    assert closed_in < 3, closed_in  # (its links' closing, at most)
    assert cy_result.outcome == back.outcome  # (the same entries: the same outcome)

    bob_log, cy_log = back.log_path, cy_result.log_path
    assert _entries(bob_log) == _entries(cy_log)
    assert _entries(host_result.log_path) <= _entries(cy_log)
    for path in (bob_log, cy_log, host_result.log_path):
        checked = replay(path)
        assert checked.ok, checked.error
        assert checked.outcome is not None and checked.outcome.state == "stopped"
    # the resume ended the game in Bob's files: nothing is left to resume
    with pytest.raises(Exception, match="no unfinished game"):
        await resume_game(DataDir(tmp_path / "bob"), None, say=bob_said.append)
    print(f"resume to the end: {took:.2f} s; Cy's end closed to its node gone: {closed_in:.2f} s")
