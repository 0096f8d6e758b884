"""`p2puno watch` (issue 12): a spectator joins a table without a seat, checks every move as
it happens like any node, never holds a key nor sees a hand; the players see who watches; a
spectator whose node goes away goes on through another seat's node."""

from __future__ import annotations

import asyncio
import re
import secrets
import signal
import time
from pathlib import Path
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from p2puno.engine.cards import UNKNOWN_CARD
from p2puno.engine.game import Phase
from p2puno.net import MsgType
from p2puno.node.game import ChatPace, GameNode
from p2puno.node.lobby import LobbyError
from p2puno.node.store import DataDir
from p2puno.node.watch import Spectator, WatchResult, watch_game
from p2puno.session.session import SessionEvent, Timing
from p2puno.session.words import outcome_words
from p2puno.wire import encode
from tests.node.procs import FAST, LOOPBACK, Node, host, logs, same_entries, verified


def _bots(tmp: Path, port: int, k: int) -> list[Node]:
    return [
        Node(
            ["bot", f"{LOOPBACK}:{port}", "--name", f"J{i}", "--bind", LOOPBACK, "--think", "0.02"],
            tmp / f"j{i}",
            f"j{i}",
        )
        for i in range(k)
    ]


def test_a_spectator_from_the_lobby_checks_every_move_and_sees_no_hand(tmp_path: Path) -> None:
    # (to 80: a round or two, every move checked; to 200 it took 16-35 s in the suite)
    h = host(tmp_path / "host", "--seats", "3", "--bot", "heuristic", "--target", "80", *FAST)
    nodes = [h]
    try:
        port = h.port()
        hidden_checks = 0
        shown: list[str] = []
        spectator_seen: list[Spectator] = []
        data = DataDir(tmp_path / "watcher")

        def on_game(sp: Spectator) -> None:
            spectator_seen.append(sp)

            def on_events(events: list[SessionEvent]) -> None:
                nonlocal hidden_checks
                assert sp.session is not None
                g = sp.session.engine
                if g.phase in (Phase.TURN, Phase.DRAWN, Phase.PENALTY):
                    # in play no hand has a face the spectator can read
                    for seat in range(sp.session.n):
                        assert set(g.hand_cards(seat)) <= {UNKNOWN_CARD}
                    hidden_checks += 1
                shown.extend(ev.text for ev in events)

            sp.on_events = on_events

        async def watch() -> WatchResult:
            task = asyncio.ensure_future(
                watch_game(
                    LOOPBACK, port, name="Eve", say=lambda t: None, on_game=on_game, data=data
                )
            )
            await asyncio.sleep(1.0)  # the spectator waits in the lobby; then the seats come
            nodes.extend(_bots(tmp_path, port, 2))
            return await asyncio.wait_for(task, 120)

        result = asyncio.run(watch())
        assert h.wait(60) == 0
        for n in nodes[1:]:
            assert n.wait(60) == 0
        sp = spectator_seen[0]
        assert sp.session is not None and sp.session.seat is None  # no seat, no keys
        assert result.error is None and result.outcome.state == "finished"
        assert result.audits >= 1 and hidden_checks > 10  # (a round is 19 turns or more)
        assert any("verified" in t for t in shown)
        # the same game as every seat: same final state and verdict
        final = h.wait_for(r"^game over: (.* wins?; scores: .*)").group(1)
        assert outcome_words(result.outcome, result.names) == final
        paths = logs(tmp_path)
        entries = same_entries(paths)
        assert sp.session.log.hashes() and len(sp.session.log) == len(entries)
        assert verified(paths[0]).digest == sp.session.engine.digest()
        # its own copy of the log: the same entries, and it replays
        assert result.log_path is not None
        assert same_entries([paths[0], result.log_path]) == entries
        verified(result.log_path)
        # the players see who watches: the host it watches through, the others through it
        h.wait_for(r"Eve is watching")
        for n in nodes[1:]:
            n.wait_for(r"Eve is watching \(through seat 0\)")
    finally:
        for n in nodes:
            n.kill()


def _watched_in_round_1(
    tmp: Path, nodes: list[Node], lobby_s: float
) -> tuple[Node, Node, list[Node]]:
    """A host's table of 3 (2 bot nodes join), watched by Eve from its lobby on: (the host,
    the spectator, the bots) once round 1 is dealt; each node also in ``nodes``."""
    h = host(tmp / "host", "--seats", "3", "--bot", "heuristic", "--target", "300", *FAST)
    nodes.append(h)
    port = h.port()
    w = Node(["watch", f"{LOOPBACK}:{port}", "--name", "Eve", "--brief"], tmp / "w", "w")
    nodes.append(w)
    time.sleep(lobby_s)
    bots = _bots(tmp, port, 2)
    nodes.extend(bots)
    h.wait_for(r"round 1: \w+ deals", 60)
    w.wait_for(r"watching game [0-9a-f]+ .* through seat 0", 30)
    # (into round 1's play: at its first line the draw for dealer's deck is being revealed
    # (step 8), and a kill there read "stopped after step 7 of the log: Host, J1 and J0 did
    # not answer" on the spectator, in the CI of 4842aad: by spec 10.15 voters owing their
    # part of a reveal are silent, and the spectator, fed by the host, may hold the host's
    # reveal proposal that neither other seat got. Noted for whoever plans)
    time.sleep(0.5)
    return h, w, bots


def test_a_spectator_goes_on_through_another_seat_when_its_node_dies(tmp_path: Path) -> None:
    """The spectator comes in the lobby and the host is killed in the first round (a game's
    length is not known in advance: a spectator started once the game was under way could
    come after a short game's end)."""
    nodes: list[Node] = []
    try:
        # (in the lobby the host says nothing of the spectator: it waits there, unseen)
        h, w, _ = _watched_in_round_1(tmp_path, nodes, lobby_s=2.0)
        h.signal(signal.SIGKILL)
        w.wait_for(r"watching through \S+'s node \(seat [12]\) now", 30)
        # (SIGKILL: in words, not the link's code)
        w.wait_for(r"'s node \(seat 0\) could no longer be reached: it was closed at ", 5)
        # the seats left vote the host out (its deadline); the spectator sees that record
        assert w.wait(90) == 0, w.text()
        game = w.wait_for(r"^game: (.*)").group(1)
        assert re.match(
            r"stopped after step \d+ of the log: \S+ did not answer before the deadline", game
        ), game
        w.wait_for(r"verified as it happened: \d+ steps checked")
        for n in nodes[2:4]:
            assert n.wait(60) == 0
            n.wait_for(re.escape(f"game over: {game}"))
    finally:
        for n in nodes:
            n.kill()


def test_a_spectator_is_told_when_a_seat_it_does_not_watch_through_goes(tmp_path: Path) -> None:
    """The node it watches through reports what it sees of the other seats' nodes: a spectator
    learnt of a seat gone only from the vote's record at the end (a review)."""
    nodes: list[Node] = []
    try:
        _, w, bots = _watched_in_round_1(tmp_path, nodes, lobby_s=1.0)
        bots[0].signal(signal.SIGKILL)
        w.wait_for(r"^J0 \(seat [12]\) could no longer be reached$", 10)
        assert w.wait(90) == 0, w.text()
        w.wait_for(
            r"^game: stopped after step \d+ of the log: J0 did not answer before the deadline"
        )
        assert "is back" not in w.text()
    finally:
        for n in nodes:
            n.kill()


def test_a_table_found_by_discovery_is_watched_from_the_lobby(tmp_path: Path) -> None:
    """`p2puno lobby --watch` (discovery on the loopback interface only) waits in the lobby
    as a spectator and follows the game once the seats are taken; one who comes once the game
    is under way finds it listed as in play and follows it too, and the host's lines named
    the address to watch it by (docs/discovery.md, "In play": a reviewer's late `lobby
    --watch` found no game, and no screen named a seat's HOST:PORT)."""
    # (a name of its own: a table in play stays listed, and another run of this test at the
    # same time would list a second "Seen", which --join refuses to choose between)
    table = f"Seen-{secrets.token_hex(3)}"
    h = Node(
        ["host", "--bind", LOOPBACK, "--interface", LOOPBACK, "--seats", "2", "--bot",
         "heuristic", "--target", "20", "--table", table, *FAST],
        tmp_path / "host",
        "host",
    )  # fmt: skip
    nodes = [h]
    try:
        port = h.port()
        w = Node(
            ["lobby", "--interface", LOOPBACK, "--wait", "3", "--join", table, "--watch",
             "--name", "Eve"],
            tmp_path / "w",
            "w",
        )  # fmt: skip
        nodes.append(w)
        # (by name: another test's table on the loopback may be listed first, helper-68)
        w.wait_for(rf"\d\. {table}  1/2 seats", 30)
        time.sleep(1.0)
        nodes.extend(_bots(tmp_path, port, 1))
        h.wait_for(r"^others can watch the game with:$", 30)  # (the command on its own line)
        h.wait_for(rf"^    p2puno watch 127\.0\.0\.1:{port}$", 30)
        # one who comes once the game is under way: the table is listed as in play, and a
        # spectator by its address follows it to its end (in this process: the game is a few
        # seconds long, a `lobby` process's start and its wait could outlast it)
        late = asyncio.run(_late_spectator(table, tmp_path / "late"))
        assert late.error is None and late.outcome.over, late
        assert late.log_path is not None and verified(late.log_path).ok
        assert w.wait(120) == 0, w.text()
        w.wait_for(r"verified as it happened")
        h.wait_for(r"Eve is watching")
        h.wait_for(r"Fay is watching")
    finally:
        for n in nodes:
            n.kill()


async def _late_spectator(table: str, data: Path) -> WatchResult:
    """Browse the loopback until ``table`` is listed as in play (at most 10 s), then watch it
    by the listed address as "Fay"."""
    from p2puno.net.discovery import LOOPBACK as LOOPBACK_ONLY
    from p2puno.net.discovery import watch

    async with asyncio.timeout(10), watch(LOOPBACK_ONLY) as watcher:
        while True:
            found = [ad for ad in watcher.tables.values() if ad.name == table and ad.in_play]
            if found:
                break
            await asyncio.sleep(0.05)
    ad = found[0]
    assert ad.seats_taken == ad.seats_total == 2 and ad.seats_free == 0
    return await asyncio.wait_for(
        watch_game(ad.addresses[0], ad.port, name="Fay", say=lambda _: None, data=DataDir(data)),
        120,
    )


# ---------------------------------------------------------------------- hostile input
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
messages = st.dictionaries(
    st.sampled_from(["t", "names", "seat", "genesis", "addresses", "name"]), json_values
) | st.fixed_dictionaries({"t": st.just("watchers"), "names": json_values})


@settings(max_examples=300, deadline=None)
@given(messages)
def test_a_watchers_notice_of_any_shape_is_taken_or_ignored_never_a_crash(msg: object) -> None:
    log = SimpleNamespace(players=[SimpleNamespace(name="Ann")])
    node = SimpleNamespace(
        _watched_via={},
        say=lambda text: None,
        _watch_pace=ChatPace(),
        session=SimpleNamespace(log=log),
    )
    GameNode._on_notice(node, 2, encode(msg))  # type: ignore[arg-type]
    names = node._watched_via.get(2, [])
    assert all(isinstance(n, str) and 0 < len(n) <= 32 for n in names)


@settings(max_examples=300, deadline=None)
@given(messages)
def test_a_watching_message_of_any_shape_is_a_lobby_error_never_a_crash(msg: object) -> None:
    spectator = Spectator(name="Eve")
    link = SimpleNamespace(peer=b"\x01" * 32)
    try:
        spectator._adopt_genesis(link, msg)  # type: ignore[arg-type]
    except LobbyError:
        return
    raise AssertionError("a made-up genesis was taken")


seat_lists = json_values | st.lists(st.integers(-2, 5), max_size=4)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["t", "away", "left"]), json_values)
    | st.fixed_dictionaries({"t": st.just("seats"), "away": seat_lists, "left": seat_lists})
    | st.binary(max_size=40)
)
def test_a_seats_report_of_any_shape_is_taken_or_ignored_never_a_crash(msg: object) -> None:
    players = [SimpleNamespace(name=n) for n in ("Ann", "Bob", "Cy")]
    spectator = Spectator(name="Eve")
    spectator.session = SimpleNamespace(  # type: ignore[assignment]
        n=3, log=SimpleNamespace(players=players), timing=Timing(step_s=7)
    )
    spectator._on_message(MsgType.LOBBY, msg if isinstance(msg, bytes) else encode(msg))  # type: ignore[arg-type]
    assert spectator.away <= {0, 1, 2} and spectator.left <= {0, 1, 2}


def test_a_seats_report_is_said_once_per_change() -> None:
    """protocol/lobby.md 4a (`seats`) and 5: each change said once; a seat that left is said
    with how long the others wait for it (step_s: "before the deadline" said no number)."""
    players = [SimpleNamespace(name=n) for n in ("Ann", "Bob", "Cy")]
    said: list[str] = []
    spectator = Spectator(name="Eve", say=said.append)
    spectator.session = SimpleNamespace(  # type: ignore[assignment]
        n=3, log=SimpleNamespace(players=players), timing=Timing(step_s=7)
    )
    for away, left in (([1], []), ([1], []), ([], [2]), ([], [])):
        spectator._on_message(MsgType.LOBBY, encode({"t": "seats", "away": away, "left": left}))
    assert said == [
        "Bob (seat 1) could no longer be reached",
        # (in the seats' words, node.game.back_within: helper-98's brief)
        "Cy (seat 2) left the table: the others vote the seat out unless it is back within 7 s"
        " of when the game waits for it",
        "Bob (seat 1) is back",
        "Cy (seat 2) is back",
    ]


def test_one_address_cannot_take_every_spectators_slot() -> None:
    """Idle spectator links from one machine could hold all 8 of a node's slots (noted in an
    earlier session): one address may hold at most 4; 8 in all, as before."""
    from types import SimpleNamespace

    from p2puno.node.game import MAX_WATCHERS, MAX_WATCHERS_PER_ADDRESS, watch_refusal

    def at(address: str) -> object:
        return SimpleNamespace(address=address)

    watching = [at(f"10.0.0.9:{4000 + k}") for k in range(MAX_WATCHERS_PER_ADDRESS)]
    assert "from your address (at most 4)" in str(watch_refusal(watching, at("10.0.0.9:5000")))  # type: ignore[arg-type]
    assert watch_refusal(watching, at("10.0.0.10:5000")) is None  # type: ignore[arg-type]
    assert watch_refusal(watching, at("[fe80::1]:5000")) is None  # type: ignore[arg-type]
    ipv6 = [at(f"[fe80::1]:{4000 + k}") for k in range(MAX_WATCHERS_PER_ADDRESS)]
    assert watch_refusal(ipv6, at("[fe80::1]:5000")) is not None  # type: ignore[arg-type]
    full = [at(f"10.0.1.{k}:4000") for k in range(MAX_WATCHERS)]
    assert watch_refusal(full, at("10.0.2.1:4000")) == "too many spectators"  # type: ignore[arg-type]
