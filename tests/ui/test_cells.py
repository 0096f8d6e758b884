"""Terminal cells (p2puno/ui/cells.py): every row of the table is exactly as wide as the
screen (p2puno/ui/render.py's rule), chat with accents written as combining marks included.

A chat line is any printable text (node/game.py chat_line): "cafe" then U+0301 is "café" in
four cells on a terminal, and counted as five it left that row one cell short of the border.
"""

from __future__ import annotations

from p2puno.engine.options import Options
from p2puno.session.harness import LocalTable
from p2puno.ui.cells import cells
from p2puno.ui.model import UiState, ViewInputs, table_view
from p2puno.ui.render import cut, fit, plain, render

NFD = "cafe\u0301"  # "café", its accent a combining mark
ZALGO = "h" + "\u0335\u0336\u0337" * 20 + "i"  # two letters under sixty marks


def test_marks_take_no_cell_and_wide_characters_two() -> None:
    assert cells(NFD) == 4 and cells("café") == 4
    assert cells(ZALGO) == 2
    assert cells("漢字") == 4 and cells("a\u200db") == 2  # (a zero-width joiner: none)


def test_fit_and_cut_keep_a_mark_with_its_letter() -> None:
    assert fit(NFD, 6) == NFD + "  " and cells(fit(NFD, 6)) == 6
    assert fit(NFD, 4) == NFD  # (the accent is not cut from its e)
    assert fit("\u0301abc", 3) == "abc"  # (a mark with no letter before it: dropped)
    assert fit(ZALGO, 1) == ZALGO[: 1 + 60]  # the h and its marks, not the i
    assert cut("résumé-of-a-long-name", 8) == "résumé-…"
    assert cells(cut(NFD * 5, 9)) == 9


def test_a_table_with_chat_in_combining_marks_is_as_wide_as_the_screen() -> None:
    table = LocalTable(Options(3), seed="cells")
    names = ["Ann", "Bøb", "Cy"]
    chat = [f"Bøb: {NFD} au lait? {ZALGO} 漢字", f"Ann: {NFD * 20}"]
    for width in (80, 100):
        view = table_view(table.sessions[0], UiState(), ViewInputs(names, 0, log=chat))
        rows = plain(render(view, width, 24))
        shown = [r for r in rows if "au lait" in r or "cafe" in r]
        assert shown, rows
        assert all(cells(r) == width for r in rows), [r for r in rows if cells(r) != width]


def test_a_terminal_under_the_tables_size_is_told_it_in_lines_that_fit() -> None:
    """docs/ui.md (the table needs 80x24): under it the table says so, wrapped as the lobby
    does (helper-101 read "The table needs 80x24; this terminal is" at 40x15, the size and
    "q to leave" cut off), each row as wide as the screen."""
    table = LocalTable(Options(2), seed="cells")
    view = table_view(table.sessions[0], UiState(), ViewInputs(["Ann", "Bob"], 0))
    for width, height in ((40, 15), (60, 20), (79, 23)):
        rows = plain(render(view, width, height))
        text = " ".join(" ".join(rows).split())
        assert f"this terminal is {width}x{height}." in text, rows
        assert "until then only q acts, to leave." in text, rows
        assert len(rows) == height and all(cells(r) == width for r in rows), rows


def test_a_ten_seat_games_end_box_fits_80x24_with_its_border() -> None:
    """The game's end box, under it the last round's hands (docs/ui.md): at 80x24 a ten-seat
    game's box ran past the screen (helper-101: the last two hands and the bottom border
    gone, no sign of them). Where it does not fit, each hand is cut to its name and points
    (001 · SCORING: the points each hand gives), the rows run together; every seat is said."""
    import random
    from dataclasses import replace

    from p2puno.bots.heuristic import HeuristicBot
    from p2puno.sim.runner import Table
    from p2puno.ui.model import LOG_LEAD, REPLAY_LEAD, round_end_lines

    # the rows of a real ten-seat round's end (the engine alone: no keys, no network)
    game = Table(Options(10, target=1), [HeuristicBot() for _ in range(10)], random.Random(3))
    over = None
    while over is None:
        over = next((e for e in game.step()[1] if e.kind == "round-over"), None)
    names = ["Ann", *(f"Bot-{k}" for k in range(1, 10))]
    hands = round_end_lines(game.game, names, 0, over, 1)
    end = [
        "GAME OVER — the winner: you",
        "  scores: " + "  ".join(f"{n} 0" for n in names),
        "  verification: every deck audited and verified (2 decks: the draw for dealer, 1 round)",
        f"{LOG_LEAD}/tmp/x/game.log",
        f"{REPLAY_LEAD}p2puno replay /tmp/x/game.log --table",
        "",
        *hands,
    ]
    table = LocalTable(Options(2), seed="cells")
    view = table_view(table.sessions[0], UiState(), ViewInputs(["Ann", "Bob"], 0))
    view = replace(view, end=end, status_kind="over")
    rows = plain(render(view, 80, 24))
    assert len(rows) == 24 and all(cells(r) == 80 for r in rows), rows
    text = "\n".join(rows)
    assert "GAME OVER" in text and " └" in text and "┘" in text, text  # (its bottom border)
    said = " ".join(text.replace("│", " ").split())
    for name in names:  # (every seat: its points, or that it went out)
        assert f"{name} gives" in said or f"{name} out" in said, said
    assert "p2puno replay /tmp/x/game.log --table" in said  # (the command, whole)
    # with the room for it, the box is as it was: each hand with its cards
    roomy = "\n".join(plain(render(view, 120, 50)))
    assert all(line.strip() in roomy for line in hands[1:-1]), roomy


def test_a_ten_seat_replay_keeps_the_top_card_in_view_at_80x24() -> None:
    """A replay shows every hand face up (docs/replay.md), one row a seat: at 80x24 with ten
    seats those rows left the seats' column no room for the top card, the direction and a
    pending draw (helper-101). Two hands to a row then, each in half the width."""
    from dataclasses import replace

    from p2puno.engine.cards import CARD_COLOR, CARD_TEXT
    from p2puno.ui.model import CardView, SeatRow

    table = LocalTable(Options(2), seed="cells")
    view = table_view(table.sessions[0], UiState(), ViewInputs(["Ann", "Bob"], 0))
    names = ["Ann", *(f"Bot-{k}" for k in range(1, 10))]
    seats = [SeatRow(k, n, "bot", k == 0, 7, "", 0, k == 3) for k, n in enumerate(names)]
    hands = [(n, [CardView(c, c, CARD_TEXT[c], CARD_COLOR[c]) for c in range(k, k + 7)])
             for k, n in enumerate(names)]  # fmt: skip
    view = replace(view, seats=seats, all_hands=hands, pending="+2 pending on Bot-3 (Draw Two)")
    rows = plain(render(view, 80, 24))
    assert len(rows) == 24 and all(cells(r) == 80 for r in rows), rows
    text = "\n".join(rows)
    for line in ("no card on the table yet", "turns pass ", "+2 pending on Bot-3"):
        assert line in text, text
    for n, cards in hands:  # every seat's row, and every hand with its first card
        assert f" {n} " in text and f"{cards[0].text} " in text, text
    # with the room, one hand a row, as before
    tall = plain(render(view, 80, 40))
    assert sum(1 for r in tall if r.startswith((" Ann ", " Bot-"))) == 10  # (a seat: "   1")
