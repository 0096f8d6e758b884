"""helper-104's brief (a person's first evening with p2puno), at the table: docs/ui.md."""

from __future__ import annotations

import asyncio

from prompt_toolkit.output import DummyOutput

from p2puno.engine.game import Game
from p2puno.engine.options import Options
from p2puno.ui.app import TableUI
from tests.ui.test_h93_table import _source


def test_a_second_ctrl_c_at_the_leave_question_leaves() -> None:
    """docs/ui.md, the keys: Ctrl-C asks to leave, and a second Ctrl-C leaves, as a terminal
    program's does (it went back to the table: helper-104 read its Ctrl-C as ignored); n and
    Esc stay. At the table and in the lobby alike."""
    for seated in (True, False):
        ui = TableUI(name="Ann", output=DummyOutput())
        if seated:
            ui.attach(_source(Game(Options(3))), 0, ["Ann", "Bob", "Cid"])
        for stay in ("n", "escape"):
            ui.key("c-c")
            assert ui.state.mode == "quit"
            ui.key(stay)
            assert ui.state.mode == "play" and not ui.left
        ui.key("c-c")
        ui.key("c-c")
        assert ui.left, seated


async def test_a_move_unconfirmed_at_a_stop_does_not_count_until_a_late_answer() -> None:
    """protocol/spec.md 10.15: a step counts once every seat has answered it, and an answer
    after the stop (late entries) completes it. helper-105: Ann played b8 while Bob was gone;
    at the stop her card stayed in her hand with no word that it never counted, and once Bob's
    resumed node answered, "You played b8" came under the stop's votes, read as a card played
    after the game had stopped. Now the first is said, and the second says what completed it."""
    from p2puno.engine.actions import Action, Kind
    from p2puno.session.harness import LocalTable
    from p2puno.wire import decode

    table = LocalTable(Options(3, target=500), seed="late")
    s = table.sessions
    queue: list[tuple[int, bytes]] = []
    for i, session in enumerate(s):
        session.start()
        queue += [(i, r) for r in session.outbox]
        session.outbox.clear()

    def deliver(sender: int, raw: bytes, to: tuple[int, ...] = (0, 1, 2)) -> None:
        for i in to:
            if i != sender:
                s[i].receive(raw)
                queue.extend((i, r) for r in s[i].outbox)
                s[i].outbox.clear()

    held: list[bytes] = []  # seat 1's, from seat 0's proposal on: Bob has gone
    for _ in range(100_000):
        if not queue:
            break
        sender, raw = queue.pop(0)
        body = decode(raw)
        assert isinstance(body, dict)
        if not held and sender == 0 and s[0].processed > 40 and body.get("role") == "proposal":
            held.append(b"")  # (from here on)
        if held and sender == 1:
            held.append(raw)
            continue
        deliver(sender, raw)
    late = [raw for raw in held if raw]
    assert late and s[0].waiting().seats == (1,), s[0].waiting()

    ui = TableUI(name="Ann", output=DummyOutput())
    ui.attach(s[0], 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
    s[0].events.clear()
    ui._future = asyncio.get_running_loop().create_future()
    ui.answer(Action(0, Kind.DRAW))  # (what the person sent: the session's own proposal here)
    for i in (0, 2):  # the others vote Bob out
        s[i].stop()
        queue += [(i, r) for r in s[i].outbox]
        s[i].outbox.clear()
    while queue:
        deliver(*queue.pop(0), to=(0, 2))
    assert s[0].outcome.state == "stopped"
    events, s[0].events = s[0].events, []
    ui.on_events(events)
    not_counted = [x for x in ui.log if "does not count" in x]
    assert not_counted == [
        "what you sent (you draw) does not count: the game stopped before every seat had "
        "confirmed it"
    ], ui.log
    for raw in late:  # Bob's node answers after the stop
        s[0].receive(raw)
    events, s[0].events = s[0].events, []
    ui.on_events(events)
    completed = [x for x in ui.log if x.endswith("(a late answer completed it after the stop)")]
    assert len(completed) == 1 and completed[0].startswith("You "), ui.log


def test_a_persons_own_turn_names_q_to_leave_whole_at_80_columns() -> None:
    """docs/ui.md, the keys line: a wait's named "q leave" and a turn's did not (helper-104
    read no way to leave on its own turn); each turn's names it now, whole at 80 columns."""
    from p2puno.engine.actions import Action, Kind
    from p2puno.engine.game import Phase
    from p2puno.session.session import Prompt
    from p2puno.ui.render import plain, render
    from tests.ui.test_moments import _stub_source

    g = Game(Options(3, progressive=True))
    g.faces = list(range(108))
    g.hands, g.phase, g.turn, g.discard = [[10, 20], [1, 2, 3], [4, 5]], Phase.TURN, 0, [30]
    two = (Action(0, Kind.PLAY, 10), Action(0, Kind.PLAY, 10, uno=True), Action(0, Kind.DRAW))
    ui = TableUI(name="Ann", output=DummyOutput(), clock=lambda: 100.0)
    ui.attach(_stub_source(g), 0, ["Ann", "Bob", "Cid"])  # type: ignore[arg-type]
    ui.prompt, ui.prompt_since = Prompt("turn", 9, two, None), 99.0  # type: ignore[arg-type]
    footer = plain(render(ui.view(), 80, 24))[-1].strip()
    assert footer.endswith("? help · q leave") and footer.startswith("←/→ choose"), footer
    ui.key("q")
    assert ui.state.mode == "quit"
