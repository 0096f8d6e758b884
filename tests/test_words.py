"""One wording for a game's events (p2puno.sim.words): the demo's and `--narrate`'s lines are
the table's move list, word for word, with the narration's own choice of which to tell."""

from __future__ import annotations

import random

import pytest

from p2puno.bots import make_bot
from p2puno.engine.cards import CARD_TEXT
from p2puno.engine.options import Options
from p2puno.sim.narrate import Narrator
from p2puno.sim.runner import Table
from p2puno.sim.words import event_words


@pytest.mark.parametrize("verbose", [True, False])
def test_the_narration_says_each_event_in_the_tables_words(verbose: bool) -> None:
    """Every house rule on, so swaps, rotations, stacks and jump-ins come up (002 · House
    Rules): each narrated line is the table's line for that event (a round's start adds the
    scores, a round's end every hand left)."""
    options = Options(4, target=200, progressive=True, seven_o=True, jump_in=True)
    names = ["Ann", "Bob", "Cid", "Dee"]
    narrator = Narrator(names, 0.0, verbose, color=False)
    table = Table(options, [make_bot("heuristic", f"w{s}") for s in range(4)], random.Random(3))
    told = 0
    kinds: set[str] = set()
    while not table.over:
        _, events = table.step()
        for e in events:
            line = narrator.describe(table.game, e)
            if line is None:
                continue
            told += 1
            kinds.add(e.kind)
            if e.kind == "round":
                assert line.startswith(f"\n=== Round {e.value}: {names[e.seat]} deals.  Scores:")
                continue
            words = event_words(table.game, names, None, e)
            assert words is not None and line.splitlines()[0] == f"  {words}", (e, line)
            if e.kind == "round-over":
                assert [ln.split()[0] for ln in line.splitlines()[1:]] == names
    assert told > (200 if verbose else 30)
    assert {"swap", "rotate", "jump", "round-over", "uno"} <= kinds


def test_a_rounds_start_with_ten_seats_fits_80_columns() -> None:
    """The narration's round line names every seat's score (helper-86: 10 seats made a line of
    over 200 columns): wrapped at 80, a name and its score never apart, nothing lost."""
    names = [f"P{s} (heuristic)" for s in range(10)]
    narrator = Narrator(names, 0.0, False, color=False)
    table = Table(
        Options(10), [make_bot("heuristic", f"r{s}") for s in range(10)], random.Random(5)
    )
    line = None
    while line is None:
        _, events = table.step()
        line = next((narrator.describe(table.game, e) for e in events if e.kind == "round"), None)
    rows = line.splitlines()[1:]
    assert len(rows) > 1 and all(len(row) <= 80 for row in rows), rows
    said = " ".join(row.strip() for row in rows)
    assert all(f"{name} 0" in said for name in names), said


def test_a_wild_draw_fours_colour_is_told() -> None:
    """000 · WILD DRAW 4 (the player names the color that continues play): the narration
    tells each Wild Draw Four and the colour it names (helper-87 read "played W+4 (3 left)"
    and never the colour)."""
    names = ["Ann", "Bob", "Cid"]
    narrator = Narrator(names, 0.0, False, color=False)
    table = Table(
        Options(3, target=200), [make_bot("heuristic", f"c{s}") for s in range(3)], random.Random(5)
    )
    told: list[str] = []
    while not table.over:
        _, events = table.step()
        told += [ln for e in events if (ln := narrator.describe(table.game, e)) is not None]
    fours = [k for k, ln in enumerate(told) if "played W+4" in ln]
    assert len(fours) >= 3
    assert all(told[k + 1].strip().startswith("color is now") for k in fours), told


def test_seats_are_named_whole_numbers_only() -> None:
    """The session writes "seat 2", the engine "P2"; the reader sees names. Before, "seat 10"
    became "Bob0" (a text replace of "seat 1")."""
    from p2puno.session.words import named

    names = [f"N{i}" for i in range(11)]
    assert named("seat 1 and seat 10; P2 plays; P10", names) == "N1 and N10; N2 plays; N10"
    assert named("seat 12, P11", names) == "seat 12, P11"  # (no such seat: as it was)


def test_the_offline_replay_tells_the_game_in_the_tables_words(tmp_path: object) -> None:
    """`p2puno replay LOG` printed the engine's own lines ("P0 plays rR", "color is now b");
    it tells each step as the table does, players by name."""
    from pathlib import Path

    from p2puno.session.harness import LocalTable
    from p2puno.session.replay import replay

    LocalTable(Options(2, target=60), seed="words", directory=str(tmp_path)).run()
    result = replay(Path(str(tmp_path)) / "node0.log")
    assert result.ok and result.names == ["P0", "P1"]
    assert any(line.endswith("deals first") for line in result.lines)
    assert any("] Start card: " in line for line in result.lines)
    assert not any(" plays " in line for line in result.lines)  # (the engine's wording)


def test_a_result_is_told_by_name_not_by_seat_numbers() -> None:
    """`p2puno replay`, a node's last line and a watcher's said "winners [0]; scores [512,
    80]" and "seats [1] silent": seat numbers no player is shown. One line names them (the
    points: 000_75a4854712b36470.txt, SCORING; a stop: protocol/spec.md section 10.15)."""
    from p2puno.session.session import Blame, Outcome
    from p2puno.session.words import outcome_words

    names = ["Ann", "Bob", "Cy"]
    won = Outcome("finished", (512, 80, 0), winners=(0,))
    assert outcome_words(won, names) == "Ann wins; scores: Ann 512, Bob 80, Cy 0"
    tie = Outcome("finished", (500, 500, 0), winners=(0, 1))
    assert outcome_words(tie, names).startswith("Ann and Bob win; ")
    stop = Outcome("stopped", (0, 0, 0), silent=(1, 2), void=True, step=31)
    assert outcome_words(stop, names) == (
        "stopped after step 31 of the log: Bob and Cy did not answer before the deadline; the "
        "round in play is void; scores: Ann 0, Bob 0, Cy 0"
    )
    voted = Outcome("stopped", (0, 0, 0), step=4)
    assert outcome_words(voted, names).startswith(
        "stopped after step 4 of the log by every seat's vote; "
    )
    # whom the votes waited for (helper-37: Cy stalled, then voted too, naming Bob): the seat
    # whose absence began it, as the end box says it (ui.model's "while Cy was away"), not
    # what the votes that joined named ("Cy waited for Bob": Bob had voted, unseen by Cy)
    stalled = Outcome("stopped", (0, 0, 0), step=39, waited=((2,), (2,), (1,)))
    assert outcome_words(stalled, names).startswith(
        "stopped after step 39 of the log by every seat's vote (Ann and Bob waited for Cy); "
    )
    # helper-99: Bob stayed; Ann left with her node's bot Cy, and both came back late. Bob's
    # vote named them; Ann's, joining it, named Cy (no vote of Cy's yet); Cy's named Bob (the
    # votes it held then). Every seat is named by a vote: the first cannot be told, and "Cy
    # waited for Bob" blamed the one seat that never left
    crossed = Outcome("stopped", (0, 0, 0), step=19, waited=((2,), (0, 2), (1,)))
    assert outcome_words(crossed, names).startswith(
        "stopped after step 19 of the log by every seat's vote; "
    )
    cheat = Outcome("cheat", (0, 0, 0), blame=Blame(1, "seat 1 sent seat 10's key", 7))
    assert outcome_words(cheat, names) == (
        "Bob (seat 1) cheated at step 7 of the log: Bob sent seat 10's key; scores: Ann 0, Bob 0,"
        " Cy 0"
    )
    nobody = Outcome("cheat", (0, 0, 0), blame=Blame(-1, "the deck does not open", 9))
    assert outcome_words(nobody, names).startswith("a fault was found at step 9 of the log: the")
    assert outcome_words(won, []) == "seat 0 wins; scores: seat 0 512, seat 1 80, seat 2 0"


def test_a_vote_waiting_for_the_reader_says_you() -> None:
    """helper-99's own screen read "Bot-1 votes to stop (waiting for Bob, who voted too: the
    votes crossed)", Bob being the reader: whom a vote waited for is "you" on that seat's
    screen (spec 10.15: a vote names the seats it waited for), the voter still by name."""
    from p2puno.session.session import SessionEvent
    from p2puno.session.words import session_words

    names = ["Ann", "Bot-1", "Bob"]
    ev = SessionEvent("vote", "seat 1 votes to stop (waiting for seat 2, who voted too: ...)", 1)
    assert session_words(ev, names, me=2) == (
        "! Bot-1 votes to stop (waiting for you, who voted too: ...)"
    )
    assert session_words(ev, names, me=0) == (
        "! Bot-1 votes to stop (waiting for Bob, who voted too: ...)"
    )
    assert session_words(ev, names) == session_words(ev, names, me=0)
    # the reader's own vote: "You vote", as its moves say "You played" (helper-100 read
    # "Bob votes to stop" on Bob's screen)
    own = SessionEvent("vote", "seat 2 votes to stop (waiting for seat 0)", 2)
    assert session_words(own, names, me=2) == "! You vote to stop (waiting for Ann)"
    assert session_words(own, names, me=0) == "! Bob votes to stop (waiting for you)"
    amended = SessionEvent("vote", "seat 2 amends its vote to stop (waiting for seat 0, seat 1)", 2)
    assert session_words(amended, names, me=2) == (
        "! You amend your vote to stop (waiting for Ann, Bot-1)"
    )
    # whose vote it is comes from the event, not its words (a vote with no author is nobody's)
    assert session_words(SessionEvent("vote", own.text), names, me=2) == (
        "! Bob votes to stop (waiting for Ann)"
    )


def test_a_zero_under_seven_o_says_whose_hand_you_now_hold() -> None:
    """001 · SEVEN-O 1: "all players pass their hands to the next player in direction of
    play". A review read only that every hand passed on, not whose it now held; the event
    carries the direction it passed in, so the words hold when said late (a catch-up)."""
    from p2puno.engine.game import Event
    from p2puno.sim.words import event_words

    names = ["Ann", "Bob", "Cy"]
    for direction, giver in ((1, "Cy"), (-1, "Bob")):
        said = event_words(None, names, 0, Event("rotate", 2, -1, direction))  # type: ignore[arg-type]
        assert said is not None and said.endswith(f": you now hold {giver}'s hand")
    said = event_words(None, names, None, Event("rotate", 2, -1, 1))  # type: ignore[arg-type]
    assert said is not None and "you now hold" not in said  # (a spectator holds no hand)


def test_a_cheat_is_named_with_its_seat() -> None:
    """helper-25 joined as "Ноѕt" (Cyrillic letters) beside the host, Host, and cheated: every
    blame line read as if the host had. The one named carries its seat number."""
    from p2puno.session.session import SessionEvent
    from p2puno.session.words import session_words

    names = ["Host", "H1", "Ноѕt"]
    said = session_words(SessionEvent("blame", "step 17: seat 2 is at fault: two claims", 2), names)
    assert said == "!! cheat found: step 17 of the log: Ноѕt (seat 2) is at fault: two claims"
    said = session_words(SessionEvent("evidence", "seat 2 signed two votes", 2), names)
    assert said is not None and said.startswith(
        "!! two versions of one entry: Ноѕt (seat 2) signed"
    )


def test_the_commands_the_screens_name_run_from_any_shell(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """helper-51: the table's end screen said `p2puno replay LOG`, which a shell whose venv
    is not activated does not find. The command named is `p2puno` only when that name on the
    PATH is the script running; else the script's full path; run as `python -m p2puno`, the
    script beside that interpreter; else `python -m p2puno` with this interpreter."""
    import os
    import sys
    from pathlib import Path

    from p2puno.node.game import command, with_command

    bin_ = Path(str(tmp_path)) / "venv bin"
    bin_.mkdir()
    script = bin_ / "p2puno"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    other = Path(str(tmp_path)) / "other"
    other.mkdir()

    def named(argv0: str, path: Path) -> str:
        monkeypatch.setattr(sys, "argv", [argv0, "host"])
        monkeypatch.setenv("PATH", str(path))
        command.cache_clear()
        return command()

    try:
        assert named(str(script), bin_) == "p2puno"  # (the venv is active)
        assert named(str(script), other) == f"'{script}'"  # (not: its full path, quoted)
        monkeypatch.chdir(bin_)
        assert named("./p2puno", other) == f"'{script}'"  # (started by a relative path)
        # `python -m p2puno` (the demo's seats): the script beside the interpreter, if any
        # (helper-54 read three forms of one command after the demo)
        monkeypatch.setattr(sys, "executable", str(bin_ / "python"))
        assert named("/x/p2puno/__main__.py", bin_) == "p2puno"
        assert named("/x/p2puno/__main__.py", other) == f"'{script}'"
        monkeypatch.setattr(sys, "executable", str(other / "python"))
        assert named("/x/p2puno/__main__.py", bin_) == f"{other / 'python'} -m p2puno"
        assert with_command("p2puno resume --data-dir /d") == f"{command()} resume --data-dir /d"
        assert with_command("echo p2puno") == "echo p2puno"
    finally:
        command.cache_clear()
    assert os.path.basename(sys.argv[0]) != "p2puno"  # (the test runner: restored)


def test_a_shuffle_is_said_in_plain_words() -> None:
    """helper-54 read "a new joint shuffle" as jargon (a Wild Draw Four turned up at the start
    goes back into the deck: 002 · Setup, docs/rules.md D3). Every seat shuffles the deck
    together; the words say so plainly, for that card and for a reshuffle of the discards."""
    from p2puno.engine.game import Event, Game

    game = Game(Options(3))
    wd4 = next(c for c in range(108) if CARD_TEXT[c] == "W+4")
    returned = event_words(game, ["Ann", "Bob", "Cid"], 0, Event("returned", card=wd4))
    assert returned == "W+4 turned up: it goes back into the deck, shuffled again by everyone"
    again = event_words(game, ["Ann", "Bob", "Cid"], 0, Event("reshuffle", value=75))
    assert again == "The discard pile is shuffled again by everyone into a new draw pile of 75"
    for line in (returned, again):
        assert "joint" not in line


def test_a_stop_says_of_the_seats_it_names_what_is_true_of_a_goodbye_and_of_a_lost_link() -> None:
    """protocol/spec.md 10.15 (the stop protocol): a vote names the seats it waited for; it
    records no reason. A seat whose person pressed q (a goodbye) and one whose network was lost
    are named alike, and the record read "Bob silent past the deadline" of a seat that had said
    goodbye (helper-65). The words now say what is true of both, and still whose vote it is
    and whom it names; the step is said to be the log's (a person read "step 31" as a move)."""
    from p2puno.session.session import Outcome
    from p2puno.session.words import outcome_words

    names = ["Ann", "Bob", "Cy"]
    one = Outcome("stopped", (0, 0, 0), silent=(1,), step=31, voters=(0,))
    assert outcome_words(one, names) == (
        "stopped after step 31 of the log: Bob did not answer before the deadline (by Ann's "
        "vote); scores: Ann 0, Bob 0, Cy 0"
    )
    two = Outcome("stopped", (5, 0, 0), silent=(2,), step=40, voters=(0, 1), winners=(0,))
    said = outcome_words(two, names)
    assert said.startswith(
        "stopped after step 40 of the log: Cy did not answer before the deadline (by the votes "
        "of Ann and Bob); Ann wins; "
    ), said
    for o in (one, two):
        assert "silent" not in outcome_words(o, names)


def test_a_penalty_drawn_across_a_reshuffle_is_told_as_its_cards() -> None:
    """002 · Going Out (the discard pile is reshuffled when the draw pile is depleted) and the
    penalties (002 · Functions of Action Cards: Draw Two, Wild Draw Four; House Rules:
    Progressive UNO's stacks): a penalty the draw pile cannot cover is drawn in two parts, the
    rest after the reshuffle. Told as "took 6 cards", "got only 2 of them ...", the reshuffle,
    then "drew the 4 cards still owed" (it read "drew 4 cards": ten cards to a reader)."""
    from p2puno.sim.words import owed_cards

    names = [f"N{s}" for s in range(10)]  # (ten hands of cards: the pile runs out often)
    found = 0
    for seed in range(40):
        options = Options(10, target=300, progressive=True)
        bots = [make_bot("heuristic", f"p{seed}/{s}") for s in range(10)]
        table = Table(options, bots, random.Random(seed))
        before = None
        owed: tuple[int, int] | None = None  # (seat, cards still owed) of the last penalty
        while not table.over and found < 3:
            _, events = table.step()
            for e in events:
                line = event_words(table.game, names, None, e, before=before)
                if (o := owed_cards(e)) is not None:
                    owed = o
                elif e.kind == "draw" and owed is not None and owed[0] == e.seat:
                    if before is not None and before.kind == "reshuffle" and e.value > 1:
                        assert e.value == owed[1], (e, owed)  # (the rest of that penalty)
                        assert line == f"{names[e.seat]} drew the {e.value} cards still owed"
                        found += 1
                    owed = (e.seat, owed[1] - e.value) if e.value < owed[1] else None
                elif e.kind not in ("reshuffle", "color", "skip", "stack"):
                    owed = None
                before = e
        if found >= 3:
            break
    assert found >= 3
