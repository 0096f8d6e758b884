"""helper-104's brief (a person's first evening with p2puno), at the table: docs/ui.md."""

from __future__ import annotations

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
