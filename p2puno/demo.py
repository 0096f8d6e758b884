"""``p2puno demo``: a whole game between bots on this machine, narrated for a person.

The main job (run_network_demo): one node process per seat on this machine, over TCP on
127.0.0.1, the host's view narrated, every node's log replayed at the end. ``--engine-only``:
one full-information engine, bots on every seat, the key moments of each round printed.
"""

from __future__ import annotations

import random
import sys
import time

from p2puno.bots import make_bot
from p2puno.engine.cards import COLORS
from p2puno.engine.game import Game
from p2puno.engine.options import Options
from p2puno.sim.narrate import Narrator
from p2puno.sim.runner import Table
from p2puno.ui.replay import GLUE

# the file that marks a demo's temporary data directory: `p2puno resume` in it, once its game
# is over, says where the directory is and that it can be removed (it never removes it: see
# cli.temporary_note); a person who lists the directory reads what it is
TEMPORARY_MARK = "p2puno-demo.txt"
TEMPORARY_WORDS = (
    "This is the temporary data directory of a `p2puno demo` (every seat's log and secrets).\n"
    "The demo removes it at its end, unless you left the table before the game's end: then\n"
    "it stays for `p2puno resume --data-dir` this directory. Remove it when you are done.\n"
)


def bot_names(players: int) -> list[str]:
    """The names the host gives its bots, seats 1 on (node.run): "Bot-1", "Bot-2", ..."""
    return [f"Bot-{k}" for k in range(1, players)]


def name_problem(name: str, players: int) -> str | None:
    """Why ``name`` cannot be the demo's own seat's name (None: it can): a seat's name, as
    any node checks one (node.names), and none its bots have: a name that looks like
    "Bot-1" would keep that bot from its seat (names at a table are unique by look)."""
    from p2puno.node.names import name_problem as seat_problem
    from p2puno.node.names import name_skeleton
    from p2puno.session.words import in_a_sentence

    problem = seat_problem(name)
    if problem is not None:
        return problem
    bots = bot_names(players)
    if name_skeleton(name) in {name_skeleton(b) for b in bots}:
        return f"the demo's bots are {in_a_sentence(bots)}: choose another name"
    return None


def _policies(players: int) -> list[str]:
    """The demo's bots by seat: heuristic and random in turn (the trustless demo's
    LocalTable seats them so too)."""
    return ["heuristic" if s % 2 == 0 else "random" for s in range(players)]


def _seat_names(policies: list[str]) -> list[str]:
    """A name per seat ("P0 (heuristic)"): several seats play the same bot, and the
    narration names players, not seat numbers."""
    return [f"P{s} ({n})" for s, n in enumerate(policies)]


def run_demo(
    options: Options,
    seed: int,
    *,
    delay: float = 0.0,
    verbose: bool = False,
    name: str | None = None,
) -> Game:
    """``name``: seat 0's name in the narration (a bot plays it too: "Ann (heuristic)")."""
    policies = _policies(options.players)
    bots = [make_bot(n, f"demo:{seed}:{s}") for s, n in enumerate(policies)]
    names = _seat_names(policies)
    if name is not None:
        names[0] = f"{name} ({policies[0]})"
    narrator = Narrator(names, delay, verbose, sys.stdout.isatty())
    _paragraph(f"p2puno demo: {options}; seed {seed}")
    # (a name is never broken: "P4" / "(heuristic)" read as two)
    seats = (narrator.who(s).replace(" ", GLUE) for s in range(options.players))
    _paragraph("Seats: " + ", ".join(seats), 2)
    print("Card notation: r/y/g/b + 0-9, S (skip), R (reverse), +2; W and W+4 are wild.")
    print(f"\n=== Draw for dealer ({', '.join(COLORS)} colors)")
    table = Table(options, bots, random.Random(f"demo:{seed}"))
    while not table.over:
        action, events = table.step()
        narrator(table.game, action, events)
    g = table.game
    print("\n=== Final scores")
    order = sorted(range(options.players), key=lambda s: -g.scores[s])
    if options.scoring == "lowest":
        order.reverse()
    for s in order:
        mark = "  <- winner" if s in g.winners else ""
        print(f"  {narrator.who(s):<16} {g.scores[s]:>5}{mark}")
    rounds = "round" if g.round_no == 1 else "rounds"
    print(f"\n{g.round_no} {rounds}, {g.stats.turns} turns, {g.stats.reshuffles} reshuffles.")
    return g


def run_network_demo(
    options: Options,
    *,
    delay: float = 0.0,
    verbose: bool = False,
    log_path: str = "p2puno-demo.log",
    data_dir: str | None = None,
    person: bool = False,
    name: str | None = None,
) -> bool:
    """The main job: one node process per seat on this machine (127.0.0.1), a host with its
    bots, playing over TCP with mental poker and a signed log. ``person``: the host's seat is
    the person at this terminal, in the full-screen table (the other seats are bots); else a
    bot plays it and its view is narrated. Then every node's log is replayed offline: all must
    verify and hold the same entries. ``name``: the host's seat's name (default "Player" for
    a person, "Host" for its bot; checked by :func:`name_problem` first)."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    from p2puno.session.replay import replay
    from p2puno.session.words import outcome_words

    problem = name_problem(name, options.players) if name is not None else None
    if problem is not None:  # (said before any node starts: the command line says it so too)
        raise ValueError(f"--name {name!r}: {problem}")
    tmp = tempfile.mkdtemp(prefix="p2puno-demo-") if data_dir is None else data_dir
    root = Path(tmp)
    if data_dir is None:  # (a resume that finishes its game says the directory can go)
        (root / TEMPORARY_MARK).write_text(TEMPORARY_WORDS, "utf-8")
    house = ",".join(options.house)
    cmd = [
        sys.executable, "-m", "p2puno", "host", "--bind", "127.0.0.1", "--no-discovery",
        "--table", "demo", "--seats", str(options.players),
        "--bots", str(options.players - 1), "--house", house,
        "--target", str(options.target), "--scoring", options.scoring, "--data-dir", str(root),
    ]  # fmt: skip
    if person:
        # the table's own deadlines for a person (60 s to decide, a 2.5 s claim window);
        # the bots take up to a second a move, so a person sees each one happen
        # (named "Player": the log and its replay speak of each seat by name, and "You deals
        # first", "You wins" read wrong there; the table itself says "you": helper-50)
        cmd += ["--name", name or "Player", "--think", str(delay or 1.0), "--step-s", "30"]
    else:
        cmd += ["--name", name or "Host", "--bot", "heuristic", "--narrate"]
        cmd += ["--think", str(delay)]
        cmd += ["--window-ms", "300", "--step-s", "30", "--turn-s", "30"]
    if verbose:
        cmd.append("--verbose")
    # the host names the log that stays (on the table's end screen, or in its last lines):
    # the data directory is removed at the end
    cmd += ["--save-log", log_path]
    _paragraph(f"p2puno demo: {options}")
    # (wrapped here, not broken by hand: a line of it was 86 columns, cut at 80: helper-86)
    if person:
        bots = f"{options.players - 1} bot{'s' if options.players > 2 else ''}"
        _paragraph(
            f"You against {bots}, each seat its own node process on "
            "127.0.0.1 with its own keys, over TCP: the deck is shuffled and dealt by all of "
            "you together, every move is a signed log entry, every deck is audited when it "
            "ends. The table opens now (? lists the keys)."
        )
    else:
        _paragraph(
            f"{options.players} node processes on 127.0.0.1, each with its own keys: the deck "
            "is shuffled and dealt by all of them together over TCP, every move is a signed "
            "log entry, every deck is audited when it ends; the host's seat is narrated."
        )
    print()
    start = time.monotonic()
    done = subprocess.run(cmd, stdin=None if person else subprocess.DEVNULL)
    took = time.monotonic() - start
    # the host's log first (the bots' nodes keep theirs under bots/)
    logs = sorted(
        root.rglob("games/*/log"), key=lambda p: (p.parts[len(root.parts)] != "games", str(p))
    )
    print(f"\n=== {len(logs)} node logs after {took:.0f} s; replaying each offline")
    ok = done.returncode == 0 and len(logs) == options.players
    entries = None
    left = False
    for path in logs:
        result = replay(path)
        lines = set(path.read_bytes().splitlines())
        entries = lines if entries is None else entries
        same = lines == entries
        ok = ok and result.ok and same
        # (a game left before its end is not over, not rejected: helper-50 read REJECTED
        # after pressing q, as if a log had been forged)
        verdict = (
            f"VERIFIED: {outcome_words(result.outcome, result.names)}"
            if result.ok and result.outcome is not None
            else "NOT OVER: every entry verifies; the log ends before the game does"
            if result.incomplete
            else f"REJECTED: {result.error}"
        )
        left = left or result.incomplete
        differ = "" if same else " (DIFFER)"
        _say(f"  {path.relative_to(root)}: {len(lines)} entries{differ}; {verdict}")
    # `p2puno` is on the PATH only with the project's .venv active (helper-50's first command
    # after the demo was "p2puno: command not found"): say the one that works from here
    prog = "p2puno" if shutil.which("p2puno") else _program_path()
    keep = person and left and done.returncode == 0  # (its resume needs the directory)
    if logs:
        shutil.copyfile(logs[0], log_path)
        if data_dir is None and not keep:
            _say(f"(the nodes' data directory {tmp} is removed now: its paths above go with it)")
        # (each command on a line of its own, to copy whole: a terminal of 80 columns cut
        # these lines, paths included, where they reached its edge)
        _command(
            f"the host's log is in {log_path}; check it again with:", f"{prog} replay {log_path}"
        )
        if person:
            _command("or step through it in the table:", f"{prog} replay {log_path} --table")
    if keep:
        # every entry up to where each log stops was checked; the game has no result yet
        print("you left the table before the end: each log verifies up to where it stops")
        if data_dir is None:  # (helper-50: it was offered, then removed)
            _command("the game can be taken up again with:", f"{prog} resume --data-dir {tmp}")
            _say(f"(its data directory stays for that: remove {tmp} when you are done)")
        ok = True
    else:
        print("every node holds the same entries and every log verifies" if ok else "DEMO FAILED")
    if data_dir is None and not keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return ok


def _command(intro: str, cmd: str) -> None:
    """A command to copy, indented on a line of its own as the command line gives one
    (ui.lines.say_command), with or without a terminal (the demo's report is read whole)."""
    from p2puno.ui.lines import say_command

    say_command(intro, cmd, own_line=True)


def _program_path() -> str:
    """This environment's own `p2puno` script (".venv/bin/p2puno" from the project), else
    ``python -m p2puno``."""
    import os
    from pathlib import Path

    script = Path(sys.executable).parent / "p2puno"
    if not script.exists():
        return f"{sys.executable} -m p2puno"
    rel = os.path.relpath(script)
    return rel if not rel.startswith("..") else str(script)


def _paragraph(text: str, indent: int = 0) -> None:
    """Words no program reads (what the demo is), wrapped at the terminal's width, or at 80
    columns where there is none (they were broken by hand, a line of 86 columns), the lines
    after the first indented by ``indent``; a space of ``text`` that is :data:`GLUE` is
    never broken."""
    from p2puno.ui.replay import WIDE, width_of, wrap_verdict

    for line in wrap_verdict(text, width_of(sys.stdout) or WIDE, indent):
        print(line)


def _say(text: str) -> None:
    """A line of the demo's report, as the command line's lines are (ui.lines)."""
    from p2puno.ui.lines import say_line

    say_line(text)
