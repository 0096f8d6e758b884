import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from p2puno import __version__
from p2puno.cli import app


def test_version() -> None:
    result = CliRunner().invoke(app, ["version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == __version__


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--name", ""], "a name is 1 to 32 printable characters"),
        (["--name", "x" * 33], "a name is 1 to 32 printable characters"),
        (["--name", "Ann "], "a name cannot start or end with a space"),
        (["--table", ""], "table name must be 1..40 bytes"),
        # (a name and a table's with quotation marks: the lines quote them, helper-62, -70)
        (["--name", "Pat says: “hi”"], "a name cannot hold quotation marks"),
        (["--table", 'My "best" table'], "a table name cannot hold quotation marks"),
        (["--port", "99999"], "65535"),
        (["--think", "-1"], "seconds from 0 to 60"),
        (["--interface", "1.2.3"], "'1.2.3' is not an IP address"),
    ],
)
def test_host_refuses_a_bad_option_before_anything_starts(args: list[str], says: str) -> None:
    """Found driving the CLI: an empty or overlong --name crashed the host with a traceback
    when the game started (the joiners saw only "the host went away"), --port 99999 gave a
    traceback, --think -1 was taken. Each is now a usage error that says why (exit 2)."""
    result = CliRunner().invoke(app, ["host", "--no-discovery", *args])
    assert result.exit_code == 2
    assert says in " ".join(result.output.replace("│", " ").split())  # (out of rich's box)


def test_demo_refuses_a_log_in_a_missing_folder_before_the_game(tmp_path: Path) -> None:
    """helper-77: `p2puno demo --log` into a folder that does not exist played a whole game,
    then ended in a FileNotFoundError traceback where the host's log was to be copied. It is
    said before any node starts, with exit code 2."""
    where = tmp_path / "no" / "such" / "x.log"
    result = CliRunner().invoke(app, ["demo", "--log", str(where), "--players", "2"])
    assert result.exit_code == 2, result.output
    assert f"the folder {where.parent} does not exist" in result.output, result.output
    assert not (tmp_path / "no").exists()


def test_resume_says_plainly_when_there_is_nothing_to_resume(tmp_path: object) -> None:
    """Found driving the CLI: `resume --data-dir <missing>` created the directory, and a game
    id that matched nothing exited 2 where no game at all exited 1."""
    from pathlib import Path

    missing = Path(str(tmp_path)) / "none"
    result = CliRunner().invoke(app, ["resume", "--data-dir", str(missing)])
    assert result.exit_code == 1 and "no data directory" in result.output
    assert not missing.exists()
    empty = Path(str(tmp_path)) / "empty"
    empty.mkdir()
    for args in ([], ["abcd"]):
        result = CliRunner().invoke(app, ["resume", *args, "--data-dir", str(empty)])
        assert result.exit_code == 1 and "no unfinished game" in result.output


def test_sigterm_stops_a_node_as_ctrl_c_does_and_nothing_else_passes_for_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """SIGTERM (a host stopping the bots it runs, a `kill`) cancels the node, which says BYE
    on its way out (tests/node/test_failures.py shows it at a table), and exits 143; `quiet`
    (a host's bots run so) prints nothing of its own, or the host's terminal showed a "left
    the table" per bot. A cancellation nobody asked for is not dressed up as a stop: it is
    raised, as the fault it is. A second SIGTERM changes nothing."""
    import asyncio
    import os
    import signal

    import typer

    from p2puno.cli import _run_node

    stopped: list[str] = []

    async def node() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(10)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)  # (during the stop: ignored)
            await asyncio.sleep(0.1)  # (a BYE being sent: not cut short by the second one)
            stopped.append("cleanly")

    with pytest.raises(typer.Exit) as exit_:
        _run_node(node(), quiet=True)
    assert exit_.value.exit_code == 128 + signal.SIGTERM and stopped == ["cleanly"]
    assert capsys.readouterr().err == ""

    async def hung_up() -> None:  # (its terminal closed: SIGHUP stops it the same way)
        try:
            os.kill(os.getpid(), signal.SIGHUP)
            await asyncio.sleep(10)
        finally:
            stopped.append("on hang-up")

    with pytest.raises(typer.Exit) as exit_:
        _run_node(hung_up(), quiet=True)
    assert exit_.value.exit_code == 128 + signal.SIGHUP and stopped[-1] == "on hang-up"

    async def faulty() -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(1)

    with pytest.raises(asyncio.CancelledError):
        _run_node(faulty())


def test_replay_into_a_closed_pipe_stops_quietly() -> None:
    """Found driving the CLI: `p2puno replay LOG | head` reported "REJECTED at the log:
    cannot read LOG: Broken pipe" once head had its lines (the echo's failure taken for the
    file's). The replay now stops as other tools do: nothing more said, exit 141."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    log = Path(__file__).resolve().parents[1] / "protocol" / "vectors" / "game-2p.log"
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    try:
        done = subprocess.run(
            [sys.executable, "-m", "p2puno", "replay", str(log)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141
    assert done.stderr == b""


def test_a_table_is_named_after_its_host_unless_named() -> None:
    """`p2puno host --name Ann` opens "Ann's table" (what the README's `lobby --join` names);
    a long name is cut to a table name's 40 bytes, never refused."""
    from p2puno.cli import default_table
    from p2puno.net.discovery import check_table_name

    assert default_table("Ann") == "Ann's table"
    for name in ("x" * 32, "é" * 32, "😀" * 32, "Ann " * 7 + "Bo"):
        table = default_table(name)
        check_table_name(table)
        assert name.startswith(table.removesuffix("'s table").rstrip())


def test_the_list_of_commands_says_each_one_whole() -> None:
    """helper-99: `p2puno --help` read "resume    Take your seat back in a game you left (q)
    or lost (a crash,...": click cuts a command's line in the list at 45 characters."""
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    listed = result.output.split("Commands:", 1)[1].strip().splitlines()
    assert len(listed) >= 10 and all(line.rstrip().endswith(".") for line in listed), listed
    assert not any("..." in line for line in listed), listed


@pytest.mark.parametrize(
    "command", ["host", "join", "bot", "lobby", "resume", "watch", "replay", "demo", "simulate"]
)
def test_help_shows_flags_bare_and_names_what_each_option_takes(command: str) -> None:
    """Found reading the help: typer's rich panels printed `--no-discovery <bool>` and even
    `--help <bool>`, as if a flag took a value, and `--bind <str>` for an address. The help is
    plain now: a flag stands alone, and an option names what it takes (docs/ui.md)."""
    result = CliRunner().invoke(app, [command, "--help"])
    assert result.exit_code == 0
    options = result.output.split("Options:", 1)[1]
    assert "<bool>" not in options and "<str>" not in options and "<int" not in options
    assert re.search(r"^ +--help +Show this message", options, re.MULTILINE)
    if command == "host":
        for shown in ("--seats N", "--bind ADDRESS", "--bot heuristic|random", "--data-dir DIR"):
            assert shown in options


def test_a_table_address_a_person_mistypes_gets_a_plain_reason() -> None:
    """A review: `join 127.0.0.1:99999` said only "is not HOST:PORT", `127.0.0.1:41759:5` got
    "Name or service not known" from the resolver, and a port nobody listens on "Connect call
    failed ('127.0.0.1', 1)"; a port where something else listens answered with the frame
    decoder's "length header ... is over the handshake cap"."""
    import asyncio
    import socket

    from p2puno.log import Identity
    from p2puno.net import LinkError, open_link
    from p2puno.node.lobby import unreachable
    from p2puno.node.run import parse_address

    a = parse_address("127.0.0.1:4000")
    assert (a.host, a.port) == ("127.0.0.1", 4000)
    assert parse_address("[::1]:4000").host == "::1"
    for bad, says in (
        ("127.0.0.1:99999", "the port is a number from 1 to 65535"),
        ("127.0.0.1:41759:5", "an IPv6 address goes in brackets"),
        ("127.0.0.1", "is not HOST:PORT"),
    ):
        with pytest.raises(ValueError, match=says):
            parse_address(bad)

    async def reach(port: int) -> str:
        try:
            link = await open_link("127.0.0.1", port, Identity.generate(), None)
        except LinkError as e:
            return unreachable("127.0.0.1", port, e)
        link.close("done")
        return "reached"

    free = socket.socket()
    free.bind(("127.0.0.1", 0))  # (bound, never listening: nothing answers there)
    port = free.getsockname()[1]
    try:
        said = asyncio.run(reach(port))
    finally:
        free.close()
    assert said == (
        f"cannot reach a table at 127.0.0.1:{port}: nothing is listening there (connection refused)"
    ), said

    async def http_like() -> str:  # something else on the port: it answers in its own words
        async def answer(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await r.read(1)
            w.write(b"HTTP/1.1 400 Bad Request\r\n\r\n")
            await w.drain()
            w.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        async with server:
            return await reach(server.sockets[0].getsockname()[1])

    said = asyncio.run(http_like())
    assert "does not answer as a p2puno table" in said, said
    # a server that waits for its client to speak first (http.server does): a timeout, told
    from p2puno.net.link import LinkErrorCode

    quiet = LinkError(LinkErrorCode.HANDSHAKE_TIMEOUT, "did not finish the handshake")
    assert "did not answer as a p2puno table" in unreachable("127.0.0.1", 80, quiet)
    # a joiner's node before its game starts (a review: "other_context ... (unauthenticated
    # alert)" for `watch` at a seat's address, which works once the game is on)
    from p2puno.net.handshake import HandshakeErrorCode

    other = LinkError(HandshakeErrorCode.OTHER_CONTEXT, "the responder refused")
    assert "use the host's address" in unreachable("127.0.0.1", 80, other)


def test_replay_names_each_seats_key_and_refuses_a_pipe_plainly() -> None:
    """helper-32: a game played with keys of one's own under the real players' names verified
    with nothing to tell it apart, so the verdict names each seat's key fingerprint and the
    game id; and a valid log read from a pipe was REJECTED ("the log must hold the genesis
    first": the replay reads the file twice), /dev/zero read for ever. A file only, said so."""
    import subprocess
    import sys
    from pathlib import Path

    from p2puno.log import Log

    log = Path(__file__).resolve().parents[1] / "protocol" / "vectors" / "game-2p.log"
    genesis = Log()
    genesis.add(log.read_bytes().split(b"\n", 1)[0])
    done = subprocess.run(
        [sys.executable, "-m", "p2puno", "replay", "--verify", str(log)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert genesis.game_id is not None
    want = f"game {genesis.game_id.hex()[:16]}; players: " + ", ".join(
        f"{p.name} (key {p.sign_pk.hex()[:16]})" for p in genesis.players
    )
    assert done.stdout.splitlines()[-1] == want, done.stdout
    piped = subprocess.run(
        [sys.executable, "-m", "p2puno", "replay", "--verify", "/dev/stdin"],
        input=log.read_bytes(), capture_output=True, timeout=120,
    )  # fmt: skip
    assert piped.returncode == 1
    said = b" ".join(piped.stderr.split())  # (the verdict's line is wrapped at 80 columns)
    assert b"is not a file (a pipe or a device): save the log to a file" in said
    folder = subprocess.run(  # (helper-38: a folder was called a pipe or a device)
        [sys.executable, "-m", "p2puno", "replay", "--verify", str(log.parent)],
        capture_output=True, timeout=120,
    )  # fmt: skip
    assert folder.returncode == 1 and b"is a folder: replay the log file in it" in folder.stderr
    assert b"REJECTED" not in folder.stderr  # (a folder is no verdict on a log: helper-42)


def test_lobby_refuses_an_interface_that_is_not_an_address() -> None:
    """helper-30: `p2puno lobby --interface 1.2.3` ended in a traceback (ValueError); it is a
    usage error now. (An address this machine lacks gives "No such device" from the system,
    said in a line: not run here, as nothing may be tried on another address.)"""
    result = CliRunner().invoke(app, ["lobby", "--interface", "1.2.3", "--wait", "1"])
    assert result.exit_code == 2
    assert "'1.2.3' is not an IP address" in " ".join(result.output.replace("│", " ").split())


def test_what_a_node_prints_holds_no_terminal_escape(capsys: pytest.CaptureFixture[str]) -> None:
    """helper-38: a hostile host's seat names and refusal reasons reached a joiner's terminal
    raw (clear screen, set title, hidden text). Every line a node prints, and the error it
    stops with, keeps only printable characters, line breaks and tabs."""
    from p2puno.cli import _safe, _say
    from p2puno.node.game import terminal_safe

    hostile = "Host\x1b[2J\x1b[H\x1b]0;pwned\x07FAKE CODE\u202e\tok\nnext"
    assert terminal_safe(hostile) == "Host?[2J?[H?]0;pwned?FAKE CODE?\tok\nnext"
    _say(False)(hostile)
    assert capsys.readouterr().out == terminal_safe(hostile) + "\n"
    assert "\x1b" not in _safe(ValueError(hostile))


def test_replay_help_names_the_log_plainly() -> None:
    """A new user read `p2puno replay --help` as "Usage: ... {LOG}" and "LOG <str>" (typer
    0.29's form for an argument): it reads "[OPTIONS] LOG" and "LOG  a game log file" now."""
    result = CliRunner().invoke(app, ["replay", "--help"])
    assert result.exit_code == 0
    usage = result.output.splitlines()[0]
    assert usage.startswith("Usage: ") and usage.endswith(" replay [OPTIONS] LOG"), usage
    args = result.output.split("Arguments:", 1)[1].split("Options:", 1)[0]
    said = r"^  LOG  a game log file \(a game's end says where its log is\)"
    assert re.search(said, args, re.M), args
    assert "<str>" not in result.output and "{LOG}" not in result.output
    missing = CliRunner().invoke(app, ["replay"])
    assert missing.exit_code == 2 and "Missing argument 'LOG'" in missing.output


def test_replay_prints_the_files_date_each_rounds_end_and_a_table_of_scores() -> None:
    """The plain replay (helper-52): the file's date first, labelled as the file's (the signed
    log holds no time); each round's end with every hand its audit opened; a table of every
    round whose total is the verdict's. `--verify` still prints only the verdict.
    The verdict leads with what a person asks (helper-59: it read "VERIFIED: 206 entries;
    ..."): the result, what verified vouches for, how long the game was; the log's counts
    in one line, labelled."""
    import subprocess
    import sys
    from pathlib import Path

    log = Path(__file__).resolve().parents[1] / "protocol" / "vectors" / "game-2p.log"
    done = subprocess.run(
        [sys.executable, "-m", "p2puno", "replay", str(log)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    date = r"\d{4}-\d\d-\d\d \d\d:\d\d \S+"
    said = r"\(this file's last change, not in the signed log\)"
    assert re.fullmatch(f"file date {date} {said}", out[0]), out[0]
    assert "  round 1 over: P0 went out and scores 81" in out
    assert "    hands: as shown to all at the round's end; its deck verified" in out
    verified = next(ln for ln in out if ln.startswith("VERIFIED: "))
    total = next(ln for ln in out if ln.split()[:1] == ["total"])
    assert out.index(total) < out.index(verified)
    assert verified.endswith("scores: P0 " + ", P1 ".join(total.split()[1:])), (verified, total)
    assert "entries" not in verified and re.match(r"VERIFIED: P\d wins; ", verified), verified
    at = out.index(verified)
    assert out[at + 1] == (
        "  genuine: every move signed by the player who made it; every deck checked"
    )
    head = next(i for i, ln in enumerate(out) if ln.startswith("scores by round"))
    rounds = out.index(total) - head - 2  # (the table's rows)
    assert re.fullmatch(
        rf"  {rounds} rounds?, \d+ moves; the log: [\d,]+ signed entries, [\d,]+ steps "
        r"\(0 to [\d,]+\)",
        out[at + 2],
    ), out[at + 2]
    assert "(each line's [step N]: the step of the signed log it happened in)" in out[:3]
    quiet = subprocess.run(
        [sys.executable, "-m", "p2puno", "replay", "--verify", str(log)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    said = quiet.stdout.splitlines()
    assert said[:3] == out[at : at + 3] and "scores by round" not in quiet.stdout


def test_a_player_who_leaves_is_told_how_long_the_others_wait() -> None:
    """protocol/lobby.md 5: a seat that said it was leaving is waited for step_s; the line a
    person reads on leaving says so, from the lobby's view kept in the game's meta (helper-63
    read "unless you come back in time", no number); "in time" where the meta cannot say."""
    from p2puno.cli import _within

    # (in the words every screen says it in, node.game.back_within: helper-98's brief)
    said = _within({"view": {"options": {"timing": {"step_s": 20}}}})
    assert said == " within 20 s of when the game waits for you"
    assert _within({}) == _within({"view": {"options": "?"}}) == " in time"


def _ad(name: str, *, in_play: bool, fp: str) -> object:
    from p2puno.net.discovery import TableAd

    return TableAd(
        name=name, lobby_id=bytes(32), host_fingerprint=fp, seats_total=4 if not in_play else 3,
        seats_taken=1 if not in_play else 3, house=(), target=500, scoring="standard",
        port=4000, code="abcd", addresses=("127.0.0.1",), in_play=in_play,
    )  # fmt: skip


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """`p2puno lobby` hears the tables put in this list (no network)."""
    import p2puno.net.discovery as discovery

    tables: list[object] = []

    class Heard:
        async def __aenter__(self) -> "Heard":
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

        @property
        def tables(self) -> dict[str, object]:
            return {str(k): ad for k, ad in enumerate(tables)}

    monkeypatch.setattr(discovery, "watch", lambda *a, **k: Heard())
    return tables


def test_a_game_in_play_is_listed_to_watch_and_not_joined(listed: list[object]) -> None:
    """docs/discovery.md, "In play": a started game stays listed, marked in play, for
    spectators (`lobby --watch`); a joiner who picks it is told it has started and how to
    watch it instead (a reviewer's late `lobby --watch` found no game at all)."""
    listed += [
        _ad("Open", in_play=False, fp="aaaa" * 4),
        _ad("Busy", in_play=True, fp="bbbb" * 4),
    ]
    base = ["lobby", "--wait", "0.5", "--interface", "127.0.0.1"]
    result = CliRunner().invoke(app, [*base, "--join", "Busy"])
    out = " ".join(result.output.replace("│", " ").split())
    assert "2. Open 1/4 seats at 127.0.0.1:4000" in out
    assert "1. Busy in play, 3 players: to watch at 127.0.0.1:4000" in out
    assert result.exit_code == 2
    assert 'the game at "Busy" has started: nobody joins it now; watch it with' in out
    # (with the interface it was given: helper-76's hint dropped it, and looked everywhere)
    assert "p2puno lobby --watch --interface 127.0.0.1 --join bbbbbbbb" in out


def test_the_lines_after_leaving_name_the_bots_the_host_runs() -> None:
    """The host's lines once it left the table say what became of its bot seats, by name:
    its child processes, which stop with it and come back with its resume (protocol/lobby.md
    6, "A host's bots live and die with their host"; a reviewer read no word of them)."""
    from p2puno.cli import _bots_words, _own_bots, _own_bots_only

    def seat(name: str, kind: str, runner: str) -> dict[str, str]:
        return {"name": name, "kind": kind, "runner": runner}

    ann = seat("Ann", "person", "self")
    meta = {"seat": 0, "view": {"seats": [ann, seat("Bot-1", "bot", "host"), ann]}}
    assert _own_bots(meta) == ["Bot-1"] and _own_bots_only(meta) == 0
    assert _bots_words(meta) == ', and with it the bot it runs, "Bot-1"'
    two = {
        "seat": 0,
        "view": {"seats": [ann, seat("Bot-1", "bot", "host"), seat("Bot-2", "bot", "host")]},
    }
    assert _own_bots_only(two) == 2
    assert _bots_words(two) == ', and with it the 2 bots it runs, "Bot-1" and "Bot-2"'
    # a bot of its own machine's at another seat's, or a joiner's own: none of the host's
    assert _bots_words({"seat": 1, "view": two["view"]}) == ""
    assert _bots_words({"seat": 0, "view": {"seats": [ann, seat("B", "bot", "self")]}}) == ""


def test_the_demo_and_the_command_line_say_their_lines_with_one_helper(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One wrap for the lines a person reads outside the table (p2puno/ui/lines.py): the
    demo's report and the command line's lines wrap alike at a terminal, and both indent a
    command to copy by COMMAND_INDENT on a line of its own (docs/ui.md's 80 columns)."""
    import p2puno.ui.lines as lines
    from p2puno import cli, demo

    text = "the nodes' data directory /tmp/p2puno-demo-abcdefgh is removed now: " * 3
    monkeypatch.setattr(lines, "width_of", lambda stream: 60)
    demo._say(text)
    by_demo = capsys.readouterr().out
    cli._line(text)
    by_cli = capsys.readouterr().out
    assert by_demo == by_cli and len(by_cli.splitlines()) > 1
    assert all(len(line) <= 60 for line in by_cli.splitlines())
    demo._command("check it again with:", "p2puno replay x.log")
    cli._say_command("check it again with:", "p2puno replay x.log")
    both = capsys.readouterr().out.splitlines()
    assert both == ["check it again with:", f"{lines.COMMAND_INDENT}p2puno replay x.log"] * 2
    monkeypatch.setattr(lines, "width_of", lambda stream: None)  # (a pipe: whole lines)
    demo._say(text)
    cli._line(text)
    assert capsys.readouterr().out == f"{text}\n" * 2
    demo._command("check it again with:", "p2puno replay x.log")  # (the demo's: own line)
    cli._say_command("check it again with:", "p2puno replay x.log")
    # (the command line's on a line of its own too: "check it offline with:  <cmd>" read as
    # a slip beside the rest, helper-98's brief)
    both = capsys.readouterr().out.splitlines()
    assert both == ["check it again with:", f"{lines.COMMAND_INDENT}p2puno replay x.log"] * 2


def test_a_resumed_demo_that_ends_says_where_its_temporary_directory_is(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """protocol/lobby.md 6, "A demo's data directory": a demo left before its end keeps its
    temporary directory for `p2puno resume`; once that resume ends the game, it says where
    the directory is and that it can be removed (it does not remove it). A reviewer read no
    word of it after a resumed demo finished."""
    from pathlib import Path

    from p2puno.cli import temporary_note
    from p2puno.demo import TEMPORARY_MARK
    from p2puno.node.run import Result
    from p2puno.node.store import DataDir
    from p2puno.session.session import Outcome
    from p2puno.ui.lines import COMMAND_INDENT

    root = Path(str(tmp_path)) / "p2puno-demo-x"
    data = DataDir(root)
    saved = Path(str(tmp_path)) / "p2puno-demo.log"
    over = Result(Outcome("finished", (0, 30), (1,)), saved, "AAAA-BBBB", 0)
    temporary_note(data, over, False)
    assert capsys.readouterr().out == ""  # (not a demo's directory: nothing said)
    (root / TEMPORARY_MARK).write_text("a demo's")
    temporary_note(data, over, False)
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"this game's data directory {root.absolute()} is the demo's, and temporary: nothing "
        "needs it now",
        "remove it when you are done with its files:",  # (the command on a line of its own,
        f"{COMMAND_INDENT}rm -r {root.absolute()}",  # in a pipe too: helper-98's brief)
    ]
    inside = Result(Outcome("finished", (0, 30), (1,)), root / "games" / "g" / "log", "A", 0)
    temporary_note(data, inside, False)
    assert "(copy the log above out of it first: it is in it)" in capsys.readouterr().out
    playing = Result(Outcome("playing", (0, 0)), saved, "A", 0)
    temporary_note(data, playing, False)
    temporary_note(data, over, True)  # (--quiet)
    assert capsys.readouterr().out == ""
    assert root.is_dir()  # (never removed here)


def test_a_verified_replay_at_a_terminal_is_wrapped_at_word_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`p2puno replay --verify LOG` at a terminal: its VERIFIED, notes and players lines are
    wrapped at word ends (the terminal cut "before the dea" / "dline" and a key "(key
    b1b05f5" / "bd5e5075d": helper-87); in a pipe each stays one line."""
    import p2puno.ui.lines

    log = str(Path(__file__).parent.parent / "protocol" / "vectors" / "game-2p.log")
    piped = CliRunner().invoke(app, ["replay", "--verify", log]).output.splitlines()
    assert max(len(line) for line in piped) > 60
    # (steps counted from 0, as the stop's words number them: "40 steps" for steps 0 to 40
    # read against "stopped after step 40", helper-87)
    assert "82 signed entries, 41 steps (0 to 40)" in " ".join(piped)
    monkeypatch.setattr(p2puno.ui.lines, "width_of", lambda stream: 60)
    shown = CliRunner().invoke(app, ["replay", "--verify", log]).output.splitlines()
    assert len(shown) > len(piped) and all(len(line) <= 60 for line in shown), shown
    assert " ".join(" ".join(shown).split()) == " ".join(" ".join(piped).split())


@pytest.mark.parametrize("others", ["own bots", "a joiner"])
def test_ctrl_c_says_whether_anyone_is_left_to_vote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], others: str
) -> None:
    """Ctrl-C at a node (protocol/lobby.md 5): a host whose every other seat is one of its own
    bots (they stop with it) is told the game waits for it, as the table's leave question
    says; helper-87 read "the others vote it out ... unless you come back" there. Elsewhere
    the others' deadline stands."""
    import asyncio
    import json
    import os
    import signal

    import typer

    from p2puno.cli import _run_node
    from p2puno.node.store import DataDir

    data = DataDir(tmp_path / "d")
    folder = data.root / "games" / "0a1b2c3d4e5f6071"
    folder.mkdir(parents=True)
    (folder / "log").write_bytes(b"")
    second = {"name": "Bot-1", "kind": "bot", "runner": "host" if others == "own bots" else "self"}
    view = {"seats": [{"name": "Ann", "kind": "person"}, second], "options": {}}
    (folder / "node.json").write_text(json.dumps({"over": False, "seat": 0, "view": view}))

    async def node() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(10)

    with pytest.raises(typer.Exit):
        _run_node(node(), data=data)
    err = " ".join(capsys.readouterr().err.split())
    waits = "Nobody else is at the table: the game waits for you" in err
    assert waits == (others == "own bots") and ("the others vote it out" in err) != waits, err
