"""The command line: thin wrappers that parse arguments and call the layers below."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer
from typer.core import TyperCommand

from p2puno import __version__
from p2puno.bots import BOTS, make_bot
from p2puno.engine.cards import NotationError
from p2puno.engine.options import Options, parse_house

if TYPE_CHECKING:
    from typer import _click as click

    from p2puno.net.discovery import TableAd
    from p2puno.session.session import Outcome

# plain help (click's layout): typer's rich panels print a type beside every flag, even
# `--help <bool>`, as though flags took a value (docs/ui.md, "The help screens are plain")
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="UNO for the terminal, peer to peer over a LAN, with no server to trust.",
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit(0)


# the options the commands share, worded once
House = Annotated[
    str,
    typer.Option(
        "--house", metavar="RULES", help="house rules, any of: progressive,seven-o,jump-in"
    ),
]
Scoring = Annotated[
    str, typer.Option("--scoring", metavar="standard|lowest", help="how a round scores")
]
Target = Annotated[int, typer.Option("--target", metavar="POINTS", help="points that end the game")]
Quiet = Annotated[bool, typer.Option("--quiet", help="print only errors (no progress lines)")]
Verbose = Annotated[bool, typer.Option("--verbose", help="also print the layers' own log lines")]
Bind = Annotated[
    str,
    typer.Option(
        "--bind", metavar="ADDRESS", help="address to listen on (default: every interface)"
    ),
]
DataDirOpt = Annotated[
    str | None,
    typer.Option(
        "--data-dir",
        metavar="DIR",
        help="where logs and secrets are (default: the user data directory)",
    ),
]
BotOpt = Annotated[
    str | None,
    typer.Option("--bot", metavar="heuristic|random", help="let this bot play your seat"),
]


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="print the version"
    ),
) -> None:
    """UNO for the terminal, peer to peer over a LAN, with no server to trust."""


class _PlainCommand(TyperCommand):
    """A command's --help as a person reads it: "p2puno replay [OPTIONS] LOG" and
    "LOG  a game log file ...", not typer's "{LOG}" and "LOG <str>" (the type typer 0.29
    prints beside an argument's name, whatever its metavar says)."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [p.removeprefix("{").removesuffix("}") for p in super().collect_usage_pieces(ctx)]

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        args: list[tuple[str, str]] = []
        opts: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                args.append((param.metavar or (param.name or "").upper(), record[1]))
            else:
                opts.append(record)
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    _write_dl(formatter, rows)


def _write_dl(formatter: click.HelpFormatter, rows: list[tuple[str, str]]) -> None:
    """click's list of options (HelpFormatter.write_dl), its words wrapped at spaces only and
    a default kept whole: at 80 columns `p2puno demo --help` read "[default: p2puno-" /
    "demo.log]", a file name broken at its hyphen, and "[default:" / "0.0]"."""
    import textwrap

    first = min(max((len(opt) for opt, _ in rows), default=0), 30) + 2
    width = max(formatter.width - first - 2, 10)
    wrapper = textwrap.TextWrapper(width, break_on_hyphens=False, break_long_words=False)
    glue = "\xa0"  # (a space no line breaks at: textwrap breaks at ASCII white space only)
    for opt, text in rows:
        formatter.write(f"{'':>{formatter.current_indent}}{opt}")
        if len(opt) <= first - 2:
            formatter.write(" " * (first - len(opt)))
        else:
            formatter.write("\n" + " " * (first + formatter.current_indent))
        held = re.sub(r"\[default: [^\]]*\]", lambda m: m.group(0).replace(" ", glue), text)
        lines = [line.replace(glue, " ") for line in wrapper.wrap(held)] or [""]
        formatter.write(f"{lines[0]}\n")
        for line in lines[1:]:
            formatter.write(f"{'':>{first + formatter.current_indent}}{line}\n")


@app.command(cls=_PlainCommand)
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


def _options(players: int, house: str, scoring: str, target: int) -> Options:
    try:
        return Options(players=players, scoring=scoring, target=target, **parse_house(house))  # type: ignore[arg-type]
    except (ValueError, NotationError) as e:
        raise typer.BadParameter(str(e)) from None


def _lineup(bots: str) -> list[str]:
    names = [b.strip() for b in bots.split(",") if b.strip()]
    bad = [b for b in names if b not in BOTS]
    if not names or bad:
        raise typer.BadParameter(
            f"unknown bot {', '.join(bad) or '(none)'}; choose from {', '.join(BOTS)}",
            param_hint="--bots",
        )
    return names


@app.command(
    cls=_PlainCommand, short_help="Play bot games and print what a player would want to know."
)
def simulate(
    players: int = typer.Option(4, "--players", "-p", metavar="N", help="players per game, 2..10"),
    games: int = typer.Option(
        100, "--games", "-g", metavar="N", min=1, max=10_000_000, help="games to play"
    ),
    seed: int = typer.Option(0, "--seed", "-s", metavar="N", help="seed: same seed, same output"),
    house: House = "",
    scoring: Scoring = "standard",
    target: Target = 500,
    bots: str = typer.Option(
        "heuristic,random",
        metavar="BOTS",
        help="bots by seat, comma-separated, repeated; the lineup rotates one seat per game",
    ),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Play whole games between bots and print what a player of UNO would want to know."""
    from p2puno.sim.runner import play_game
    from p2puno.sim.stats import Summary

    options = _options(players, house, scoring, target)
    names = _lineup(bots)
    summary = Summary(options, names, seed)
    show_progress = games >= 20 and sys.stderr.isatty()
    start = time.perf_counter()
    last = start
    for i in range(games):
        lineup = [names[(s + i) % len(names)] for s in range(players)]
        seat_bots = [make_bot(name, f"{seed}:{i}:{s}") for s, name in enumerate(lineup)]
        summary.add(play_game(options, seat_bots, f"{seed}:{i}"), lineup)
        now = time.perf_counter()
        if show_progress and (now - last > 0.5 or i + 1 == games):
            last = now
            sys.stderr.write(f"\r{i + 1}/{games} games, {summary.rounds} rounds")
            sys.stderr.flush()
    seconds = time.perf_counter() - start
    if show_progress:
        sys.stderr.write("\n")
    if as_json:
        typer.echo(json.dumps(summary.to_json(seconds), sort_keys=True))
    else:
        typer.echo(summary.text(seconds))


@app.command(cls=_PlainCommand)
def demo(
    players: int = typer.Option(4, "--players", "-p", metavar="N", help="players, 2..10"),
    seed: int = typer.Option(
        2026, "--seed", "-s", metavar="N", help="seed of the engine-only game"
    ),
    house: House = "",
    scoring: Scoring = "standard",
    target: Target = 500,
    delay: float = typer.Option(
        0.0, metavar="SECONDS", help="seconds to pause after each shown line"
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="show every action"),
    trustless: bool = typer.Option(
        True,
        "--network/--engine-only",
        help="one node process per seat over TCP on 127.0.0.1, with mental poker, a signed log "
        "and audits (default), or the bare rules engine with full information (fast, "
        "reproducible with --seed)",
    ),
    log: str = typer.Option(
        "p2puno-demo.log", metavar="FILE", help="where the host's log is copied"
    ),
    data_dir: str | None = typer.Option(
        None, "--data-dir", metavar="DIR", help="keep every node's files here"
    ),
    bots_only: bool = typer.Option(
        False, "--bots-only", help="at a terminal too: bots in every seat, the host's narrated"
    ),
    name: str | None = typer.Option(
        None,
        "--name",
        metavar="NAME",
        help="your seat's name (default: Player; Host where a bot plays it)",
        callback=lambda v: v if v is None else _name(v),
    ),
) -> None:
    """A full game on this machine: you against bots, or bots alone.

    At a terminal you play one seat in the table against bots; without one (CI), or with
    --bots-only, bots play every seat and it is narrated."""
    from p2puno.demo import name_problem, run_demo, run_network_demo

    options = _options(players, house, scoring, target)
    if trustless:
        problem = name_problem(name, players) if name is not None else None
        if problem is not None:  # (a bot's name: said before any node starts)
            raise typer.BadParameter(f"{name!r}: {problem}", param_hint="'--name'")
        from pathlib import Path

        folder = Path(log).absolute().parent
        if not folder.is_dir():  # (said before the game: helper-77 played one to the end and
            # read a FileNotFoundError traceback where the log was to be copied)
            _err_line(f"p2puno: --log {log}: the folder {folder} does not exist")
            raise typer.Exit(2)
        ok = run_network_demo(
            options,
            delay=delay,
            verbose=verbose,
            log_path=log,
            data_dir=data_dir,
            person=_terminal() and not bots_only,
            name=name,
        )
        if not ok:
            raise typer.Exit(1)
    else:
        run_demo(options, seed, delay=delay, verbose=verbose, name=name)


@app.command(cls=_PlainCommand, short_help="Verify a game log offline, signature by signature.")
def replay(
    log: str = typer.Argument(
        ..., metavar="LOG", help="a game log file (a game's end says where its log is)"
    ),
    verify: bool = typer.Option(
        False,
        "--verify",
        help="print only the verdict, not the game (every entry is checked either way)",
    ),
    thorough: bool = typer.Option(
        False,
        "--thorough",
        help="also recompute every shuffle step, so every intermediate deck is checked "
        "(slower: by default the audit checks each final deck, which is what decides the cards)",
    ),
    table: bool = typer.Option(
        False,
        "--table",
        help="step through the game in the full-screen table (forward, back, jump to a round; "
        "every hand face up once its deck was audited; the verdict at the end)",
    ),
) -> None:
    """Check a game log offline, signature by signature and card by card.

    It prints the game move by move, each round's end (who went out, each player's points
    and total, and every hand once the round's deck passed its audit), a table of the scores
    of every round, and the file's date (the signed log holds no clock time). A game left
    unfinished is checked as far as it goes and said to be NOT OVER (exit status 1)."""
    from p2puno.session.replay import replay as run_replay
    from p2puno.session.session import Session
    from p2puno.ui.replay import Length

    length = Length()  # (rounds, moves and steps, for the verdict)

    if not os.path.exists(log):  # (said plainly: not "REJECTED at the log")
        _err_line(f"p2puno: cannot read {log}: no such file")
        raise typer.Exit(1)
    if os.path.isdir(log):  # (nor a folder: helper-42)
        _err_line(f"p2puno: {log} is a folder: replay the log file in it (games/<game>/log)")
        raise typer.Exit(1)
    if table:
        import asyncio

        from p2puno.ui.replay import run_replay_table

        if not _terminal():
            # (TERM=dumb: a terminal that cannot draw a screen, said so)
            dumb = " that draws a screen (TERM=dumb here)" if sys.stdin.isatty() else ""
            _err_line(f"p2puno: --table needs a terminal{dumb} (without it: p2puno replay LOG)")
            raise typer.Exit(2)
        shown = asyncio.run(run_replay_table(log, thorough=thorough, length=length))
        assert shown is not None
        result = shown
    elif verify:
        result = run_replay(log, thorough=thorough, on_step=length.on_step)
    else:
        from p2puno.ui.replay import PlainReplay, file_date_line

        # each round's end and every audited hand as the game goes, the scores of every
        # round at the end, and the file's date, labelled as the file's (the log has none)
        plain = PlainReplay(typer.echo)

        def on_step(session: Session) -> None:
            length.on_step(session)
            plain.on_step(session)

        try:
            date = file_date_line(log)
            if date is not None:
                typer.echo(date)
            result = run_replay(log, echo=plain.echo, thorough=thorough, on_step=on_step)
            plain.finish(result)
        except BrokenPipeError:
            # whoever read the lines stopped reading (`p2puno replay LOG | head`): stop too
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(141) from None
    import re

    from p2puno.ui.replay import wrap_verdict

    # (a verdict's line, wrapped at the terminal's width, 80 columns without one: it ran on
    # to 190 columns, helper-65; no number is cut from its label or unit)
    width = _width(sys.stderr)
    if not result.ok and result.incomplete:
        said = (
            f"NOT OVER: the {result.entries + 1} entries verify, but the log ends before the game "
            "does (a game still going on, one a player may still resume, or a copy cut short, "
            "such as a spectator's that left early); no verdict"
        )
        for line in wrap_verdict(said, width):
            typer.echo(line, err=True)
        raise typer.Exit(1)
    if not result.ok:
        where = f"entry {result.bad_entry}" if result.bad_entry is not None else "the log"
        # (the step a session fault names is the log's, said so: "entry 30: step 15:" read
        # as two counts of one thing, helper-65)
        reason = re.sub(r"^step (\d+): ", r"step \1 of the log: ", result.error or "")
        for line in wrap_verdict(f"REJECTED at {where}: {reason}", width):
            typer.echo(line, err=True)
        if result.author is not None:
            # (the seat as spec 10.11 gives it, and the player's name: the table says both)
            who = _safe(result.names[result.author]) if result.author < len(result.names) else ""
            _err_line(f"at fault: seat {result.author}{f' ({who})' if who else ''}")
        raise typer.Exit(1)
    from p2puno.session.words import named
    from p2puno.ui.replay import verified_lines

    assert result.outcome is not None  # (a log that verifies to its end has its result)
    # the verdict first, for a person: the result, what it vouches for, the game's length;
    # the counts a verifier wants in one line (it read "VERIFIED: 4600 entries; ...")
    from p2puno.ui.lines import say_line

    def out(text: str) -> None:
        # (wrapped at word ends at a terminal, as they are in a pipe otherwise: the terminal
        # cut "before the dea" / "dline" and a key "(key b1b05f5" / "bd5e5075d", helper-87)
        say_line(text, typer.echo)

    for line in verified_lines(result, length):
        out(line)
    for b in result.bluffs:
        out(f"note: {named(b, result.names)} (unchallenged bluffs stand)")
    if result.after_end:
        out(
            f"note: {result.after_end:,} of the signed entries come after the game's end: not "
            "part of the game (an honest seat writes nothing after the end), and not judged"
        )
    out(result.players_line())
    code = _code_beside(log)
    if code is not None:  # (helper-34: the code every screen showed was nowhere in a replay)
        typer.echo(f"table code {code} (from node.json beside the log, checked against the log)")


def _width(stream: TextIO) -> int:
    """The columns a line to ``stream`` may take: its terminal's less one; 79 without one (an
    80-column terminal is the rule for what a person reads): a verdict's line (to stderr),
    the lines after leaving the table (to stdout)."""
    from p2puno.ui.replay import width_of

    return width_of(stream) or 79


def _code_beside(log: str) -> str | None:
    """The table code of a node's own log (its data directory keeps the code secrets in
    node.json beside it), each secret checked against the genesis nonce; None without them.
    The log holds no secret of the code: a copy elsewhere has none."""
    import json
    from pathlib import Path

    from p2puno.log import Log
    from p2puno.node.lobby import LobbyError, check_secrets, table_code

    try:
        meta = json.loads((Path(log).parent / "node.json").read_text("utf-8"))
        with open(log, "rb") as f:
            first = f.readline().rstrip(b"\n")
        genesis = Log()
        genesis.add(first)
        assert genesis.genesis is not None and genesis.game_id is not None
        secrets = check_secrets(meta.get("code_secrets"), genesis.genesis.nonces)
    except (OSError, ValueError, LobbyError, AssertionError, AttributeError, RecursionError):
        return None  # (RecursionError: a node.json nested deep, helper-38)
    return table_code(genesis.game_id, secrets)


# ---------------------------------------------------------------------- the network
def _safe(e: object) -> str:
    """An error's words for the terminal (they may hold a peer's: see terminal_safe)."""
    from p2puno.node.game import terminal_safe

    return terminal_safe(str(e))


def _say(quiet: bool) -> Callable[[str], None]:
    from p2puno.node.game import terminal_safe

    def say(text: str) -> None:
        if not quiet:  # (wrapped at word ends: the terminal cut "vote" as "vo" / "te")
            _line(terminal_safe(text))

    return say


def _timing(step_s: int, turn_s: int, window_ms: int) -> object:
    from p2puno.session import Timing

    # each option named with its range (a review got "--step-s, --turn-s or --window-ms:
    # timing out of range" for --turn-s 0); the ranges are Timing.from_obj's
    for option, value, low, high in (
        ("--step-s", step_s, 1, 3600),
        ("--turn-s", turn_s, 1, 3600),
        ("--window-ms", window_ms, 0, 60_000),
    ):
        if not low <= value <= high:
            raise typer.BadParameter(f"{option} {value}: from {low} to {high}")
    try:
        return Timing.from_obj({"step_s": step_s, "turn_s": turn_s, "window_ms": window_ms})
    except ValueError as e:
        raise typer.BadParameter(f"--step-s, --turn-s or --window-ms: {e}") from None


def _name(value: str) -> str:
    """A player's name, checked before anything starts (as the table checks those who join)."""
    from p2puno.node.lobby import name_problem

    problem = name_problem(value)
    if problem is not None:
        raise typer.BadParameter(f"{value!r}: {problem}")
    return value


def _interface(value: str) -> str:
    """An interface is named by one of this machine's IP addresses (helper-30: "1.2.3" gave
    a traceback in `lobby`, and `host` went on without an advert)."""
    from p2puno.net.discovery import is_ip

    if value and not is_ip(value):
        raise typer.BadParameter(f"{value!r} is not an IP address (one of this machine's)")
    return value


def _table_name(value: str | None) -> str | None:
    from p2puno.net.discovery import AdError, check_table_name

    if value is None:  # (the default: named after the host's player, see default_table)
        return value
    try:
        check_table_name(value)
    except AdError as e:
        raise typer.BadParameter(f"{value!r}: {e}") from None
    from p2puno.node.names import has_double_quote

    if has_double_quote(value):  # (as a player's name: the table's lines quote it, helper-70
        # read 'table "My "best" table" open on ...')
        raise typer.BadParameter(
            f"{value!r}: a table name cannot hold quotation marks (\" “ ”): the table's lines "
            "quote it"
        )
    return value


def default_table(name: str) -> str:
    """A table named after its host's player ("Ann's table"), cut to a table name's length
    (40 bytes of UTF-8: a long name loses the end)."""
    from p2puno.net.discovery import MAX_NAME_BYTES

    text = f"{name}'s table"
    while len(text.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        text = text[:-1].rstrip()
    return text


def _listen_s(value: float) -> float:
    if not 0.5 <= value <= 600:
        raise typer.BadParameter("seconds from 0.5 to 600")
    return value


def _think(value: float) -> float:
    if not 0 <= value <= 60:
        raise typer.BadParameter("seconds from 0 to 60")
    return value


def _player(bot: str | None, name: str, seed: str, think: float = 0.0) -> object:
    from p2puno.node.players import BotPlayer, TextPlayer

    if bot is not None:
        if bot not in BOTS:
            raise typer.BadParameter(f"unknown bot {bot}; choose from {', '.join(BOTS)}")
        return BotPlayer(bot, seed, (0.0, think))
    return TextPlayer(name)


def _finish(result: object, quiet: bool = False) -> None:
    from p2puno.node.game import replay_command
    from p2puno.node.run import Result
    from p2puno.session.words import outcome_words

    assert isinstance(result, Result)
    o = result.outcome
    if not quiet:
        said = _said_left(o, outcome_words(o, result.names), result.names, result.left)
        _line(f"game over: {said}")
        _line(f"table code {result.code}; log: {result.log_path}")
        _say_command("check it offline with:", replay_command(result.log_path))
    if o.state == "cheat":
        raise typer.Exit(3)


def _said_left(o: Outcome, said: str, names: list[str], left: frozenset[int]) -> str:
    """The closing line of a stop as the table's end box says it (ui.model): seats that
    said goodbye (a BYE, not back) "left the table and did not come back in time", or
    are marked "(left the table)" beside others. The record cannot tell a goodbye from a
    lost link (session.words.SILENT); the node that saw the goodbye can (helper-79's brief:
    the box said "left the table ..." and the line "did not answer")."""
    from p2puno.session.words import SILENT, in_a_sentence

    silent = [s for s in o.silent if 0 <= s < len(names)] if o.state == "stopped" else []
    if not silent or len(silent) != len(o.silent) or not left & set(silent):
        return said
    plain = f": {in_a_sentence([names[s] for s in silent])} {SILENT}"
    if all(s in left for s in silent):
        who = in_a_sentence([names[s] for s in silent])
        told = f": {who} left the table and did not come back in time"
    else:
        marked = [names[s] + (" (left the table)" if s in left else "") for s in silent]
        told = f": {in_a_sentence(marked)} {SILENT}"
    return said.replace(plain, told, 1)


def _err_echo(text: str) -> None:
    typer.echo(text, err=True)


def _err_line(text: str) -> None:
    """:func:`_line` to standard error (wrapped at its terminal's width)."""
    from p2puno.ui.lines import say_line

    say_line(text, _err_echo, sys.stderr)


def _line(text: str) -> None:
    """A line for a person: wrapped at the terminal's width (a number kept with its unit),
    as it is where a program reads it (a pipe: tests and scripts read whole lines); the demo's
    report says its lines so too (ui.lines)."""
    from p2puno.ui.lines import say_line

    say_line(text, typer.echo)


def _say_command(intro: str, cmd: str) -> None:
    """A command for a person to copy, on a line of its own, indented past a wrapped line's
    two (helper-70 read "replay /tmp/an-h70/cl" / "one/p2puno-demo.log"), in a pipe too, as
    the demo gives its commands (ui.lines.say_command, ``own_line``): in a pipe it read
    "check it offline with:  <cmd>", the two spaces a slip to a reader, where every other
    command stood on a line of its own (helper-98's brief)."""
    from p2puno.ui.lines import say_command

    say_command(intro, cmd, typer.echo, own_line=True)


def _terminal() -> bool:
    """A person at a terminal that draws a screen: `host`, `join` and `lobby` open the
    full-screen table. A terminal that says it cannot (TERM=dumb: Emacs' shell, an editor's
    pane) gets the line prompt, as a pipe does: it showed the table's cursor moves as text
    (helper-101 read ESC[14C ESC[25A in its bytes)."""
    if os.environ.get("TERM", "") == "dumb":
        return False
    return sys.stdin.isatty() and sys.stdout.isatty()


def _games_left(data: object) -> set[str]:
    """The unfinished games of a data directory (before a table opens: to tell, once it is
    left, whether its game had begun)."""
    from p2puno.node.run import unfinished_games
    from p2puno.node.store import DataDir

    assert isinstance(data, DataDir)
    return {str(m.get("game")) for m in unfinished_games(data)}


def _own_bots(meta: dict[str, Any]) -> list[str]:
    """The names of the bot seats this node runs (a host's `--bots`: its child processes,
    which stop with it and come back with its resume), from the game's node.json; none at a
    seat that is not the host's."""
    view = meta.get("view")
    seats = view.get("seats") if isinstance(view, dict) else None
    if meta.get("seat") != 0 or not isinstance(seats, list):
        return []
    return [
        str(s.get("name"))
        for s in seats[1:]
        if isinstance(s, dict) and (s.get("kind"), s.get("runner")) == ("bot", "host")
    ]


def _own_bots_only(meta: dict[str, Any]) -> int:
    """How many bots this node runs, if every other seat of the game is one of them (its
    bots stop with it: nobody is left to vote it out), else 0. From the game's node.json."""
    view = meta.get("view")
    seats = view.get("seats") if isinstance(view, dict) else None
    if not isinstance(seats, list) or len(seats) < 2:
        return 0
    bots = _own_bots(meta)
    return len(bots) if len(bots) == len(seats) - 1 else 0


def _bots_words(meta: dict[str, Any]) -> str:
    """What became of the bots this node runs (its child processes) once it stopped: ", and
    with it the bot it runs, "Bot-1"" (the host's lines after leaving named no bot: the
    reviewer of helper-72's brief); "" where it runs none."""
    from p2puno.node.game import terminal_safe
    from p2puno.session.words import in_a_sentence

    bots = [f'"{terminal_safe(b)}"' for b in _own_bots(meta)]
    if not bots:
        return ""
    them = "the bot it runs" if len(bots) == 1 else f"the {len(bots)} bots it runs"
    return f", and with it {them}, {in_a_sentence(bots)}"


def _finish_table(
    result: object,
    quiet: bool,
    data: object,
    before: set[str],
    game: str | None = None,
    *,
    host: bool = False,
) -> None:
    """After the table's screen is gone (the terminal is back): the result in lines.
    ``before``: the data directory's unfinished games when the table opened; ``game``: the
    id (or its start) of the game a resume took up, when one was named; ``host``: this node
    opened the table (`p2puno host`)."""
    from p2puno.node.game import with_command
    from p2puno.node.store import DataDir, resume_command

    assert isinstance(data, DataDir)
    if result is None:
        from p2puno.node.run import unfinished_games

        left = [
            m
            for m in unfinished_games(data)
            if str(m.get("game")) not in before and str(m.get("game")).startswith(game or "")
        ]
        if not left:  # (left in the lobby: no game to come back to; the host's leaving
            # closes its table, which "you left the table" did not say, helper-104)
            typer.echo(
                "you closed the table before the game began"
                if host
                else "you left the table before the game began"
            )
            raise typer.Exit(0)
        # (the words wrapped at the terminal's width and the command on a line of its own, to
        # copy whole: at 80 columns the terminal cut "Nobody els|e" and the command's path)
        stopped = f"you left the table: your node stopped{_bots_words(left[0])}."
        if _own_bots_only(left[0]):
            said = (
                f"{stopped} Nobody else is at the table: the game waits for you. Take it up "
                "again with:"
            )
        else:
            back = " (your bots come back with you)" if _own_bots(left[0]) else ""
            said = (
                f"{stopped} Unless you come back{_within(left[0])}{back}, the others vote you "
                "out and the game ends for everyone. Come back with:"
            )
        from p2puno.ui.lines import say_command

        # (the table was up: a terminal reads it; its command on a line of its own whatever)
        say_command(said, with_command(resume_command(data.root)), typer.echo, own_line=True)
        raise typer.Exit(0)
    _finish(result, quiet)  # (saved by the table already, where the end screen shows it)


def _within(meta: dict[str, Any]) -> str:
    """ " within N s of when the game waits for you": how long the others wait for a seat
    that said it was leaving (its table's step_s, from the lobby's view kept in the game's
    meta: protocol/lobby.md 5), in the words every screen says it in (node.game.back_within);
    " in time" where the meta does not say (helper-63 read "in time", no number)."""
    from p2puno.node.game import back_within

    view = meta.get("view")
    options = view.get("options") if isinstance(view, dict) else None
    timing = options.get("timing") if isinstance(options, dict) else None
    step_s = timing.get("step_s") if isinstance(timing, dict) else None
    return f" {back_within(step_s, 'you')}" if type(step_s) is int else " in time"


def _run_node(
    coro: object, verbose: bool = False, data: object = None, quiet: bool = False
) -> object:
    """Run a node to its end. Ctrl-C (exit 130), SIGTERM (exit 143) and SIGHUP (exit 129: its
    terminal was closed) stop it: it says BYE first; ``quiet`` (a bot a host runs, among
    others) then prints nothing of its own."""
    import asyncio
    import logging

    # the node says what matters (_say); the layers' own logs only with --verbose
    logging.basicConfig(
        level=logging.INFO if verbose else logging.ERROR,
        format="%(name)s: %(message)s",
        stream=sys.stderr,
    )

    from p2puno.node.lobby import LobbyError
    from p2puno.node.store import DataError

    terminated: list[int] = []  # the signal that stopped it

    async def main() -> object:
        # SIGTERM (`kill`, a host stopping the bots it runs, a service manager) stops the node
        # as Ctrl-C does: it says BYE ("this seat is leaving the table") on every link, so the
        # others read who left rather than a connection closed without a word. A second one
        # changes nothing (it would cut the stop short: a host's bots left running).
        task = asyncio.current_task()
        assert task is not None

        def stop(sig: int) -> None:
            if not terminated:
                terminated.append(sig)
                task.cancel()

        # (SIGHUP too: a person who closes the terminal's window leaves the table as one who
        # presses q does, and the others read that they left, not a link fault)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                asyncio.get_running_loop().add_signal_handler(sig, stop, sig)
        return await coro  # type: ignore[misc]

    try:
        return asyncio.run(main())
    except (LobbyError, DataError) as e:
        from p2puno.ui.lines import resume_split, say_command

        why, back = resume_split(_safe(e))
        if back:  # (the resume command whole on a line of its own: helper-83 read it split)
            say_command(f"p2puno: {why}:", back, _err_echo, sys.stderr, own_line=True)
        else:
            _err_line(f"p2puno: {why}")  # (a node's reason can be long: wrapped at words)
        raise typer.Exit(2) from None
    except (KeyboardInterrupt, asyncio.CancelledError) as e:
        if isinstance(e, asyncio.CancelledError) and not terminated:
            raise  # (not a stop this process was asked for: a fault, shown as one)
        code = 130 if isinstance(e, KeyboardInterrupt) else 128 + terminated[0]
        if quiet:
            raise typer.Exit(code) from None
        _err_line("left the table")
        if data is not None:
            from p2puno.node.run import unfinished_games
            from p2puno.node.store import DataDir, resume_command
            from p2puno.ui.lines import say_command

            assert isinstance(data, DataDir)
            games = unfinished_games(data)
            if games:
                from p2puno.node.game import with_command

                # (as this shell runs it, as the table's leave says it: it said `p2puno
                # resume` where no p2puno was on the PATH, helper-98 in a pipe)
                back = with_command(resume_command(data.root))
                bots = _bots_words(games[0])
                if bots:  # (its bots stopped too: said by name, helper-72's brief)
                    _err_line(f"your node stopped{bots}")
                said = (
                    "the others vote it out once the table's deadline passes, and the game "
                    f"ends for everyone, unless you come back{_within(games[0])}:"
                )
                if _own_bots_only(games[0]):  # (as the table's leave says: helper-87 read
                    # "the others vote it out" at a table of the host's own bots only)
                    said = (
                        "Nobody else is at the table: the game waits for you. Take it up "
                        "again with:"
                    )
                # (wrapped at word ends, the command whole on a line of its own, in a pipe
                # too: it read "... come back within 20 s: `p2puno resume ...`" there,
                # helper-98's brief)
                say_command(said, back, _err_echo, sys.stderr, own_line=True)
        raise typer.Exit(code) from None


@app.command(cls=_PlainCommand, short_help="Open a table and play at it.")
def host(
    table: str | None = typer.Option(
        None,
        "--table",
        metavar="NAME",
        help="the table's name (default: the host's name + \"'s table\")",
        callback=_table_name,
    ),
    name: str = typer.Option(
        "Host", "--name", metavar="NAME", help="your name at the table", callback=_name
    ),
    seats: int = typer.Option(4, "--seats", metavar="N", min=2, max=10, help="seats at the table"),
    bots: int = typer.Option(
        0, "--bots", metavar="K", min=0, max=9, help="bot seats this machine runs"
    ),
    house: House = "",
    scoring: Scoring = "standard",
    target: Target = 500,
    step_s: int = typer.Option(
        20,
        metavar="SECONDS",
        help="seconds a player's program may take to answer each move (a person's own time "
        "to decide is --turn-s)",
    ),
    turn_s: int = typer.Option(60, metavar="SECONDS", help="seconds a person may take to decide"),
    window_ms: int = typer.Option(
        2500,
        metavar="MS",
        help="time to call UNO, catch a missed UNO or jump in, in milliseconds (0: none, for "
        "tables of bots only)",
    ),
    bind: Bind = "",
    port: int = typer.Option(
        0, metavar="PORT", min=0, max=65535, help="port to listen on (0: any free one)"
    ),
    interface: str = typer.Option(
        "",
        metavar="ADDRESS",
        help="the interface address to advertise the table on",
        callback=_interface,
    ),
    no_discovery: bool = typer.Option(False, "--no-discovery", help="do not advertise on the LAN"),
    bot: BotOpt = None,
    think: float = typer.Option(
        0.0,
        "--think",
        metavar="SECONDS",
        help="seconds a bot may take per decision",
        callback=_think,
    ),
    data_dir: DataDirOpt = None,
    narrate: bool = typer.Option(False, "--narrate", help="describe every move in words"),
    save_log: str | None = typer.Option(
        None,
        "--save-log",
        metavar="FILE",
        help="also copy the game's log to this file when it ends",
    ),
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Open a table and play at it: others join with `p2puno join HOST:PORT` or `p2puno lobby`."""
    from p2puno.node.lobby import make_options
    from p2puno.node.run import host_game
    from p2puno.node.store import DataDir, DataError

    if bots >= seats:
        raise typer.BadParameter("leave at least your own seat: --bots must be below --seats")
    table = default_table(name) if table is None else table
    try:
        data = DataDir(data_dir)
        data.hold()  # (one node per data directory: see DataDir.hold)
    except DataError as e:
        _err_line(f"p2puno: {_safe(e)}")
        raise typer.Exit(2) from None
    _offer_resume(data)
    try:
        opts = make_options(
            seats,
            [h for h in house.split(",") if h],
            scoring,
            target,
            _timing(step_s, turn_s, window_ms),  # type: ignore[arg-type]
        )
    except (ValueError, NotationError) as e:
        raise typer.BadParameter(str(e)) from None
    if bot is None and _terminal():
        # a person at a terminal: the full-screen table (lobby, then the game)
        from p2puno.ui.launch import host_table

        before = _games_left(data)
        _finish_table(
            _run_node(
                host_table(
                    table=table,
                    name=name,
                    seats=seats,
                    options=opts,
                    data=data,
                    bind=bind or None,
                    port=port,
                    bots=bots,
                    discovery=not no_discovery,
                    interfaces=[interface] if interface else None,
                    think=think,
                    save_log=save_log,
                ),
                data=data,
            ),
            quiet,
            data,
            before,
            host=True,
        )
        return
    result = _run_node(
        host_game(
            table=table,
            name=name,
            seats=seats,
            options=opts,
            player=_player(bot, name, f"host/{time.time_ns()}", think),  # type: ignore[arg-type]
            data=data,
            bind=bind or None,
            port=port,
            bots=bots,
            discovery=not no_discovery,
            interfaces=[interface] if interface else None,
            say=_say(quiet),
            verbose=verbose,
            narrate=narrate,
            think=think,
            save_log=save_log,  # (copied by the node at the end, also after a resume)
        ),
        data=data,
        quiet=quiet,
    )
    _finish(result, quiet)


@app.command(cls=_PlainCommand)
def join(
    address: str = typer.Argument(..., metavar="HOST:PORT", help="the table's address"),
    name: str = typer.Option(
        "Player", "--name", metavar="NAME", help="your name at the table", callback=_name
    ),
    bot: BotOpt = None,
    bind: Bind = "",
    data_dir: DataDirOpt = None,
    narrate: bool = typer.Option(
        False, "--narrate", help="describe every move in words (at a line prompt)"
    ),
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Take a seat at a table by its address."""
    _join(address, name, bot, "self", bind, data_dir, quiet, verbose, narrate=narrate)


@app.command(cls=_PlainCommand, name="bot")
def bot_node(
    address: str = typer.Argument(..., metavar="HOST:PORT", help="the table's address"),
    name: str = typer.Option(
        "Bot", "--name", metavar="NAME", help="the bot's name at the table", callback=_name
    ),
    policy: str = typer.Option(
        "heuristic", "--policy", metavar="heuristic|random", help="how the bot plays"
    ),
    think: float = typer.Option(
        0.0,
        "--think",
        metavar="SECONDS",
        help="seconds the bot may take per decision",
        callback=_think,
    ),
    runner: str = typer.Option(
        "self",
        "--runner",
        metavar="self|host",
        help="who runs this bot (host: only the bots `p2puno host --bots K` starts)",
    ),
    bind: Bind = "",
    data_dir: DataDirOpt = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Seat a bot at a table: its own node, with its own keys."""
    if runner == "host":
        # a bot the host's node started: a Ctrl-C at the host's terminal is the host's to act
        # on (it stops its bots itself); each bot printed "left the table" of its own before
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _join(address, name, policy, runner, bind, data_dir, quiet, verbose, think=think)


@app.command(cls=_PlainCommand)
def lobby(
    interface: str = typer.Option(
        "",
        metavar="ADDRESS",
        help="the interface address to look on (default: all)",
        callback=_interface,
    ),
    wait: float = typer.Option(
        3.0,
        "--wait",
        metavar="SECONDS",
        help="seconds to listen for tables",
        callback=_listen_s,
    ),
    pick: str = typer.Option(
        "",
        "--join",
        metavar="TABLE",
        help="join this table without asking: its number or name as listed (or the first "
        "characters of its host's key, also listed)",
    ),
    spectate: bool = typer.Option(False, "--watch", help="watch the table picked, without a seat"),
    name: str = typer.Option(
        "Player", "--name", metavar="NAME", help="your name at the table", callback=_name
    ),
    bot: BotOpt = None,
    bind: Bind = "",
    data_dir: DataDirOpt = None,
    quiet: Quiet = False,
) -> None:
    """List the tables on the LAN and join one (or watch it: --watch)."""
    import asyncio

    from zeroconf import InterfaceChoice

    from p2puno.net.discovery import watch

    async def listen() -> list[TableAd]:
        found: dict[str, TableAd] = {}
        where: list[str] | InterfaceChoice = [interface] if interface else InterfaceChoice.All
        async with watch(where) as watcher:
            loop = asyncio.get_running_loop()
            end = loop.time() + wait
            while loop.time() < end:
                await asyncio.sleep(0.1)
                found = dict(watcher.tables)
        return sorted(found.values(), key=lambda ad: ad.name)

    if not quiet:
        where = f" on {interface}" if interface else ""
        typer.echo(f"looking for tables on the LAN{where} for {wait:g} s ...")
    try:
        tables = asyncio.run(listen())
    except OSError as e:  # (an address this machine does not have: "No such device")
        where = f"on {interface}" if interface else "on this machine's interfaces"
        _err_line(
            f"p2puno: cannot look for tables {where}: {e.strerror or e} (is it an address of "
            "this machine? `ip addr` lists them)"
        )
        raise typer.Exit(2) from None
    if not tables:
        # (a game in play stays listed, for spectators, while its host's node runs it: one
        # whose host left is watched by any seat's address; a resumed host lists it again)
        typer.echo(
            "no table found on the LAN ("
            + ("watch" if spectate else "join")
            + " by address: p2puno "
            + ("watch HOST:PORT, any seat's" if spectate else "join HOST:PORT")
            + ")"
        )
        raise typer.Exit(1)
    for k, ad in enumerate(tables, 1):
        house = ",".join(ad.house) or "no house rules"
        where = f"{ad.addresses[0]}:{ad.port}" if ad.addresses else f"?:{ad.port}"
        # two short lines a table (one ran past 100 columns): what it is, then how it plays
        # (a game in play: its players, and that it is to watch, not to join)
        seats = (
            f"in play, {ad.seats_taken} players: to watch"
            if ad.in_play
            else f"{ad.seats_taken}/{ad.seats_total} seats"
        )
        typer.echo(f"{k}. {ad.name}  {seats}  at {where}")
        typer.echo(f"   {house}, {ad.scoring} to {ad.target} · host key {ad.host_fingerprint}")
    # ("from 1 to 1" read oddly, helper-104)
    number = "1" if len(tables) == 1 else f"a number from 1 to {len(tables)}"
    choose = f"choose {number}, or a table's name (or its start) or host key"
    if pick:
        chosen = pick_table(tables, pick)
        if chosen is None or not chosen.addresses:
            raise typer.BadParameter(choose)
        if chosen.in_play and not spectate:
            raise typer.BadParameter(_in_play_words(chosen, interface))
    else:
        if not sys.stdin.isatty():
            raise typer.Exit(0)
        if not spectate and all(ad.in_play for ad in tables):
            typer.echo(
                "every game listed has started: watch one with  " + _lobby_watch(interface),
            )
            raise typer.Exit(1)
        verb = "watch" if spectate else "join"
        for _ in range(20):  # a typo asks again (Ctrl-C leaves)
            try:
                typed = str(typer.prompt(f"{verb} which table")).strip()
            except typer.Abort:  # (Ctrl-C or the input's end: click's "Aborted!")
                typer.echo("")
                raise typer.Exit(130) from None
            chosen = pick_table(tables, typed)
            if chosen is not None and chosen.addresses:
                if not chosen.in_play or spectate:
                    break
                typer.echo(_in_play_words(chosen, interface))
                continue
            typer.echo(f'no table "{typed}" listed: {choose}')
        else:
            raise typer.Exit(2)
    ad = chosen
    address = f"{ad.addresses[0]}:{ad.port}"
    if spectate:
        watch_table(address, name, True, data_dir, quiet, False)
        return
    # (the host there must be the one listed: its key's fingerprint, its lobby id)
    _join(address, name, bot, "self", bind, data_dir, quiet, False, advert=ad, ask=not pick)


def _in_play_words(ad: TableAd, interface: str = "") -> str:
    """Why a table listed as in play is not joined, and how it is watched (named by its host
    key's start: a name may need quoting, and two tables may share one)."""
    return (
        f'the game at "{ad.name}" has started: nobody joins it now; watch it with  '
        f"{_lobby_watch(interface)} --join {ad.host_fingerprint[:8]}"
    )


def _lobby_watch(interface: str) -> str:
    """`p2puno lobby --watch` with the interface the lobby was given (helper-76: the command
    said dropped it, and looked on every interface instead)."""
    where = f" --interface {shlex.quote(interface)}" if interface else ""
    return f"p2puno lobby --watch{where}"


def pick_table(tables: list[TableAd], choice: str) -> TableAd | None:
    """The table ``choice`` names in the listed order: its number (1-based), else its name
    (any case), else the start of its name (any case: "ann" for "Ann's table", helper-104),
    else the start of its host's key; None if none, or if several match."""
    if choice.isdigit() and 1 <= int(choice) <= len(tables):
        return tables[int(choice) - 1]
    named = [ad for ad in tables if ad.name.casefold() == choice.casefold()]
    if not named and choice:
        named = [ad for ad in tables if ad.name.casefold().startswith(choice.casefold())]
    if not named and len(choice) >= 4:
        named = [ad for ad in tables if ad.host_fingerprint.startswith(choice.lower())]
    return named[0] if len(named) == 1 else None


@app.command(  # (short: click cuts a command's line in the list at 45 characters, helper-99)
    cls=_PlainCommand, short_help="Take your seat back in a game you left or lost."
)
def resume(
    game: str | None = typer.Argument(
        None, metavar="GAME", help="the game id (or its start); default: newest"
    ),
    bot: str | None = typer.Option(
        None, "--bot", metavar="heuristic|random", help="let this bot play the seat from now on"
    ),
    data_dir: DataDirOpt = None,
    narrate: bool = typer.Option(False, "--narrate", help="describe every move in words"),
    quiet: Quiet = False,
    verbose: Verbose = False,
    give_up: bool = typer.Option(
        False, "--give-up", help="stop offering this game here (its log stays as it is)"
    ),
) -> None:
    """Take your seat back in a game you left (q) or lost (a crash, a closed terminal).

    The same seat and keys; what you missed is fetched from the others (a host's bot seats
    come back with it). Be back before the others' deadline, or they vote the seat out."""
    from p2puno.node.game import replay_command
    from p2puno.node.run import nothing_to_resume, resume_game, unfinished_games
    from p2puno.node.store import DataDir, DataError

    if data_dir is not None and not os.path.isdir(data_dir):
        _err_line(f"p2puno: no data directory {data_dir} (nothing to resume there)")
        raise typer.Exit(1)
    try:
        data = DataDir(data_dir)
        data.hold()  # (one node per data directory: see DataDir.hold)
    except DataError as e:
        _err_line(f"p2puno: {_safe(e)}")
        raise typer.Exit(2) from None
    games = [m for m in unfinished_games(data) if str(m["game"]).startswith(game or "")]
    if not games:  # (the same answer and code whether a game was named or not)
        _err_line(f"p2puno: {nothing_to_resume(data, game)}")
        raise typer.Exit(1)
    if give_up:
        from pathlib import Path

        from p2puno.node.run import give_up as mark_given_up

        g = games[0]
        mark_given_up(g)
        # (wrapped at words, the command whole on its own line: helper-83 read "(NOT O" /
        # "VER: no verdict)" at 80 columns)
        _say_command(
            f"game {str(g['game'])[:16]} is no longer offered here (NOT OVER: no verdict); "
            "its log stays as it stood:",
            replay_command(Path(g["folder"]) / "log"),
        )
        return
    person = not str(games[0].get("player", "person")).startswith("bot:")
    if bot is None and _terminal() and person:
        from p2puno.ui.launch import resume_table

        shown = _run_node(resume_table(data, game), data=data)
        try:
            _finish_table(shown, quiet, data, set(), game)
        finally:  # (after a cheat's exit code too; not when the table was left again)
            if shown is not None:
                temporary_note(data, shown, quiet)
        return
    player = None
    if bot is not None:
        player = _player(bot, "resumed", f"resume/{time.time_ns()}")
    result = _run_node(
        resume_game(
            data,
            game,
            player=player,  # type: ignore[arg-type]
            say=_say(quiet),
            verbose=verbose,
            narrate=narrate,
        ),
        verbose,
        data=data,
        quiet=quiet,
    )
    try:
        _finish(result, quiet)
    finally:
        temporary_note(data, result, quiet)


def temporary_note(data: object, result: object, quiet: bool) -> None:
    """After a resumed game's end in a demo's temporary data directory (demo.TEMPORARY_MARK):
    where it is, that nothing needs it now, and how to remove it (helper-72's brief: a resumed
    demo left it without a word). It is not removed here: a person named it on the command
    line; its bots' logs are in it, which the demo checked and a resume does not; and where the
    log could not be copied out (--save-log) the log named above is in it."""
    import shlex
    from pathlib import Path

    from p2puno.demo import TEMPORARY_MARK
    from p2puno.node.run import Result
    from p2puno.node.store import DataDir

    assert isinstance(data, DataDir) and isinstance(result, Result)
    root = data.root.absolute()
    if quiet or not (root / TEMPORARY_MARK).is_file() or not result.outcome.over:
        return
    inside = root in Path(result.log_path).absolute().parents
    keep = " (copy the log above out of it first: it is in it)" if inside else ""
    _line(f"this game's data directory {root} is the demo's, and temporary: nothing needs it now")
    _say_command(
        f"remove it when you are done with its files{keep}:", f"rm -r {shlex.quote(str(root))}"
    )


@app.command(cls=_PlainCommand, name="watch", short_help="Watch a game without a seat.")
def watch_table(
    address: str = typer.Argument(
        ..., metavar="HOST:PORT", help="the table's address (the host's, or any player's)"
    ),
    name: str = typer.Option(
        "spectator", "--name", metavar="NAME", help="the name the players see", callback=_name
    ),
    narrate: bool = typer.Option(True, "--narrate/--brief", help="every move, or the rounds"),
    data_dir: str | None = typer.Option(
        None,
        "--data-dir",
        metavar="DIR",
        help="where its copy of the log goes (default: the user data directory)",
    ),
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Watch a game without a seat: every move checked as it happens, no key, no hand."""
    from p2puno.node.run import event_lines, parse_address
    from p2puno.node.store import DataDir, DataError
    from p2puno.node.watch import Spectator, watch_game

    try:
        addr = parse_address(address)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    say = _say(quiet)
    try:
        data = DataDir(data_dir)
    except DataError as e:
        _err_line(f"p2puno: {_safe(e)}")
        raise typer.Exit(2) from None

    if _terminal() and not quiet:
        from p2puno.ui.app import TableUI
        from p2puno.ui.launch import watch_table

        # (the table built here, as the launcher would: what it saw last says whether the game
        # went on when the person left, helper-87)
        ui = TableUI(
            name=name,
            address=f"{addr.host}:{addr.port}",
            title=f"p2puno · watching as {name}",
            spectator=True,
        )
        shown = _run_node(watch_table(addr.host, addr.port, name=name, data=data, ui=ui))
        if shown is None:
            typer.echo(_left_watching(ui.watching))
            return
        _finish_watch(shown, quiet)
        return

    def on_game(spectator: Spectator) -> None:
        assert spectator.session is not None
        spectator.on_events = event_lines(spectator.session, say, verbose=verbose, narrate=narrate)

    result = _run_node(
        watch_game(addr.host, addr.port, name=name, say=say, on_game=on_game, data=data),
        quiet=quiet,
    )
    _finish_watch(result, quiet)


def _left_watching(spectator: object) -> str:
    """The line when the person leaves a spectator's table before its watch ends: "the game
    goes on without you" only while a node of the table was being watched through (helper-87
    read it after every node had gone, the spectator looking for one)."""
    from p2puno.node.watch import Spectator, checked_words

    if not isinstance(spectator, Spectator) or spectator.session is None:
        return "you stopped watching (the game goes on without you)"
    checked = checked_words(spectator.session.processed + 1)
    decks = "deck" if spectator.audits == 1 else "decks"
    done = f"{checked}, {spectator.audits} {decks} audited"
    if spectator.seeking is not None:
        return (
            "you stopped watching while no node of the table answered (whether the game goes "
            f"on is not known here); {done}"
        )
    return f"you stopped watching (the game goes on without you); {done}"


def _finish_watch(result: object, quiet: bool) -> None:
    from p2puno.node.game import replay_command
    from p2puno.node.watch import WatchResult, checked_words
    from p2puno.session.words import outcome_words

    assert isinstance(result, WatchResult)
    o = result.outcome
    if not quiet:
        said = _said_left(o, outcome_words(o, result.names), result.names, result.left)
        if result.error is not None and o.state == "playing":  # ("not over yet" read as
            # known: the spectator saw no end, and the game may have ended since, helper-87)
            said = said.replace("not over yet", "its end not seen here: the watch ended first", 1)
        _line(f"game: {said}")
        decks = "deck" if result.audits == 1 else "decks"
        # (the last step named as the log numbers it: "16 steps checked" read as disagreeing
        # with "stopped after step 15", helper-83)
        checked = f"{checked_words(result.checked)}, {result.audits} {decks} audited"
        if result.error is not None:
            # (not in brackets: "(74 steps checked (steps 0 to 73), ...)", helper-87)
            _line(f"stopped watching: {result.error}; {checked}")
        else:
            _line(f"verified as it happened: {checked}; table code {result.code}")
        if result.log_path is not None:
            _line(f"its copy of the log: {result.log_path}")
            _say_command("check it offline with:", replay_command(result.log_path))
    if o.state == "cheat":
        raise typer.Exit(3)
    if result.error is not None:
        raise typer.Exit(1)


def _offer_resume(data: object, ask: bool = True) -> None:
    """`host` and `join` say so when this data directory holds an unfinished game, and ask
    whether to take it up now (``ask``, at a terminal), unless its node stopped reaching
    nobody: the others most likely ended it, and the question stood before every later table
    (helper-54); the note says how to take it up, or stop offering it."""
    from p2puno.node.game import with_command
    from p2puno.node.run import unfinished_games
    from p2puno.node.store import DataDir, resume_command

    assert isinstance(data, DataDir)
    games = unfinished_games(data)
    if games:
        g = games[0]
        gid = str(g["game"])[:16]
        cmd = with_command(resume_command(data.root, bytes.fromhex(str(g["game"]))))
        _err_line(
            f'note: game {gid} (table "{g.get("table")}", seat {g.get("seat")}) was left '
            f"unfinished here: `{cmd}` takes it up again"
        )
        if g.get("unreached"):  # (it stopped reaching no seat: it may be over elsewhere)
            _err_line(
                "  when it was last taken up it reached no other player: the others most "
                f"likely ended it without you. `{cmd} --give-up` stops offering it"
            )
        if (
            ask
            and not g.get("unreached")
            and _terminal()
            and typer.confirm("resume it now (instead of a new game)?", False)
        ):
            resume(gid, None, str(data.root), False, False, False, False)
            raise typer.Exit(0)


def _join(
    address: str,
    name: str,
    bot: str | None,
    runner: str,
    bind: str,
    data_dir: str | None,
    quiet: bool,
    verbose: bool,
    *,
    think: float = 0.0,
    narrate: bool = False,
    advert: TableAd | None = None,
    ask: bool = True,
) -> None:
    """``ask``: whether an unfinished game of the data directory may be offered by a question
    (not with `lobby --join`, "without asking": helper-54's waited at it)."""
    from p2puno.node.run import join_game, parse_address
    from p2puno.node.store import DataDir, DataError

    try:
        addr = parse_address(address)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    try:
        data = DataDir(data_dir)
        data.hold()  # (one node per data directory: see DataDir.hold)
    except DataError as e:
        _err_line(f"p2puno: {_safe(e)}")
        raise typer.Exit(2) from None
    if runner == "self":
        _offer_resume(data, ask)
    listed = (advert.host_fingerprint, advert.lobby_id) if advert is not None else None
    if bot is None and runner == "self" and _terminal():
        from p2puno.ui.launch import join_table

        before = _games_left(data)
        _finish_table(
            _run_node(
                join_table(
                    addr.host,
                    addr.port,
                    name=name,
                    data=data,
                    bind=bind or None,
                    advert=listed,
                ),
                data=data,
            ),
            quiet,
            data,
            before,
        )
        return
    result = _run_node(
        join_game(
            addr.host,
            addr.port,
            name=name,
            player=_player(bot, name, f"{name}/{time.time_ns()}", think),  # type: ignore[arg-type]
            data=data,
            bind=bind or None,
            runner=runner,
            say=_say(quiet),
            verbose=verbose,
            narrate=narrate,
            advert=listed,
        ),
        data=data,
        quiet=quiet,
    )
    _finish(result, quiet)


def main() -> None:
    app(prog_name="p2puno")  # (run as python -m p2puno, its usage lines said "python -m p2puno")
