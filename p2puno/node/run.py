"""The flows behind `p2puno host`, `join` and `bot`: lobby, genesis, then the game node."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2puno.crypto import SecretReveal
from p2puno.engine.game import Game
from p2puno.log import Identity, Log, read_secrets
from p2puno.net import Link
from p2puno.net.discovery import Advertiser, is_ip
from p2puno.node.game import (
    GAME_OVER_BYE,
    PRUNE_KEEP,
    Address,
    GameNode,
    replay_command,
    with_command,
)
from p2puno.node.lobby import (
    Endpoint,
    GameSetup,
    HostLobby,
    LobbyChat,
    LobbyError,
    Seat,
    join_table,
    name_problem,
    nonce_of,
)
from p2puno.node.players import Player
from p2puno.node.store import DataDir, DataError, GameFiles, resume_command
from p2puno.session import Session
from p2puno.session.session import Outcome, SessionEvent
from p2puno.session.words import in_a_sentence, outcome_words, session_words
from p2puno.sim.words import event_words
from p2puno.wire import JSONValue

Say = Callable[[str], None]


@dataclass
class Result:
    outcome: Outcome
    log_path: Path
    code: str
    seat: int
    stats: dict[str, float] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)  # the players, by seat
    # the seats whose node said it was leaving (a BYE) and did not come back: the closing
    # line of a stop names them as the end box does (cli._finish)
    left: frozenset[int] = frozenset()

    def save_log(self, dest: str) -> str | None:
        """Copy the game's log to ``dest`` (a place that outlives the data directory: the
        demo's is temporary) and make it the log this result names. None once saved; else
        why not, said for a person (the result still names the data directory's log)."""
        import shutil

        target = Path(dest).absolute()
        try:
            shutil.copyfile(self.log_path, target)
        except OSError as e:
            return f"the log could not be saved to {dest}: {e.strerror or e}"
        self.log_path = target
        return None


def describe_event(ev: SessionEvent, game: Game, names: Sequence[str] = ()) -> str | None:
    """The line a terminal without the table shows for an event (None: none): verdicts and
    audits, and who deals, each round's start and end and the game's, in the table's words
    (:func:`~p2puno.sim.words.event_words`: players by name)."""
    if ev.kind in ("blame", "dispute", "vote", "evidence", "over", "audit", "bluff"):
        return session_words(ev, names)
    if (
        ev.kind == "engine"
        and ev.event is not None
        and ev.event.kind in ("round-over", "game-over", "dealer", "round")
    ):
        words = event_words(game, names, None, ev.event)
        return f"  {words}" if words else None
    return None


async def play(
    setup: GameSetup,
    identity: Identity,
    nonce: bytes,
    endpoint: Endpoint,
    data: DataDir,
    player: Player,
    *,
    say: Say,
    linger_s: float = 2.0,
    lobby_link: Link | None = None,
    verbose: bool = False,
    narrate: bool = False,
    on_game: Callable[[GameNode], None] | None = None,
    save_log: str | None = None,
    advertised: dict[str, JSONValue] | None = None,
    on_over: Callable[[], Awaitable[None]] | None = None,
) -> Result:
    """Play a game from its genesis: files first, then the node. ``on_game`` gets the node
    once it exists (a table UI draws from its session). ``save_log``: where the log is copied
    once the game is over, kept in the game's files so that a resumed node copies it too.
    ``advertised``: a host whose table is advertised on the LAN, ``{"interfaces": the
    addresses it chose, or None for every one}``; kept in the game's files so that a resumed
    host advertises it again (None: not advertised)."""
    log = Log()
    log.add(setup.genesis)
    game_id = log.game_id
    assert game_id is not None
    if data.has_played(game_id):
        raise LobbyError(
            f"this node has taken part in game {game_id.hex()[:16]} already: an old game "
            "cannot be played again"
        )
    files = data.game(game_id)
    files.write_secrets(identity, game_id, setup.seat, nonce)
    files.append(setup.genesis, durable=True)
    meta = {
        "game": game_id.hex(),
        "seat": setup.seat,
        "code": setup.code,
        "code_secrets": [x.hex() for x in setup.secrets],  # (public now: for spectators)
        "addresses": [None if a is None else [a.host, a.port] for a in setup.addresses],
        "bind": endpoint.bind,
        "port": endpoint.port,
        "table": setup.table.get("name"),
        "view": setup.table,  # the lobby's last view: seat kinds and runners, for a resumed table
        "player": player_spec(player),
        "over": False,
    }
    if save_log is not None:  # (helper-30: a resumed host dropped its --save-log copy)
        meta["save_log"] = str(Path(save_log).absolute())
    if advertised is not None:  # (a resumed host advertises its game again: resume_game)
        meta["advert"] = advertised
    files.write_meta(meta)
    data.mark_played(game_id)
    session = _session(log, identity, setup.seat, nonce, files)
    if lobby_link is not None:
        lobby_link.close("the game starts")
    return await _run_game(
        session, identity, setup.addresses, files, endpoint, player, meta,
        say=say, linger_s=linger_s, verbose=verbose, narrate=narrate, on_game=on_game,
        on_over=on_over,
    )  # fmt: skip


def event_lines(
    session: Session, say: Say, *, verbose: bool, narrate: bool
) -> Callable[[list[SessionEvent]], None]:
    """The game in lines for a terminal without the table: every move in words
    (``narrate``), each event (``verbose``), or the rounds, audits and verdicts only."""
    narrator = None
    names = [p.name for p in session.log.players]
    if narrate:
        from p2puno.sim.narrate import Narrator

        # (no colour: each line goes through the caller's ``say``, which makes every
        # character a terminal would act on a "?" (terminal_safe: the lines hold peers'
        # names) and wraps by columns; the escapes read "?[31mr6?[0m" in `scripts/demo` at a
        # terminal: helper-86. The cards' letters say their colours.)
        narrator = Narrator(names, 0.0, verbose, color=False)

    def on_events(events: list[SessionEvent]) -> None:
        # The narrator reads hands and counts from the engine, which already holds the state
        # after the whole batch: an event before a deal later in the batch (a resumed node's
        # first batch is the game so far) is told plainly, not with the hands of a later
        # round. (Not before a later round's start: that one comes out of the very move that
        # ends a round, when its hands are still the ones to show.)
        later_deals = sum(1 for ev in events if ev.event is not None and ev.event.kind == "start")
        for ev in events:
            line: str | None
            if ev.event is not None and ev.event.kind == "start":
                later_deals -= 1
            if narrator is not None and ev.event is not None and later_deals <= 0:
                line = narrator.describe(session.engine, ev.event)
            else:
                line = (
                    describe_event(ev, session.engine, names)
                    if not verbose
                    else f"[{ev.kind}] {ev.text}"
                )
            if line:
                say(line)

    return on_events


def player_spec(player: Player) -> str:
    """What plays the seat, for `p2puno resume`: "bot:<policy>" or "person"."""
    return f"bot:{player.name}" if player.kind == "bot" else "person"


def _file_hooks(
    files: GameFiles, identity: Identity, game_id: bytes, seat: int, nonce: bytes
) -> tuple[Callable[[bytes], None], Callable[[list[SecretReveal]], None], list[Session]]:
    """The session's hooks to the disk: its own entries durable before they leave, others'
    appended; the secrets file rewritten whenever the shuffle secrets change."""
    holder: list[Session] = []

    def on_entry(raw: bytes) -> None:
        e = holder[0].log.entry_of(raw)
        files.append(raw, durable=e is not None and e.author == seat)

    def on_secrets(reveals: list[SecretReveal]) -> None:
        files.write_secrets(identity, game_id, seat, nonce, reveals)

    return on_entry, on_secrets, holder


def _session(log: Log, identity: Identity, seat: int, nonce: bytes, files: GameFiles) -> Session:
    assert log.game_id is not None
    on_entry, on_secrets, holder = _file_hooks(files, identity, log.game_id, seat, nonce)
    session = Session(
        log, seat=seat, identity=identity, nonce=nonce, on_entry=on_entry, on_secrets=on_secrets
    )
    holder.append(session)
    return session


async def _run_game(
    session: Session,
    identity: Identity,
    addresses: list[Address | None],
    files: GameFiles,
    endpoint: Endpoint,
    player: Player,
    meta: dict[str, Any],
    *,
    say: Say,
    linger_s: float,
    verbose: bool,
    narrate: bool,
    on_game: Callable[[GameNode], None] | None,
    came_back_with: set[int] | None = None,
    on_over: Callable[[], Awaitable[None]] | None = None,
) -> Result:
    """``on_over``: awaited once the game is over here, when its node goes on serving it
    to seats that come back late (a host withdraws its advert then)."""
    game_id = session.game_id
    me = session.seat
    assert me is not None
    on_events = event_lines(session, say, verbose=verbose, narrate=narrate)
    node = GameNode(
        session,
        identity,
        addresses,
        files,
        player,
        linger_s=linger_s,
        say=say,
        on_events=on_events,
    )
    node.came_back_with = set(came_back_with or ())
    node.code_secrets = [str(x) for x in meta.get("code_secrets", []) if isinstance(x, str)]
    node.code = str(meta.get("code", ""))
    view = meta.get("view")  # (a spectator through any seat's node is sent it: add_watcher)
    node.table_view = view if isinstance(view, dict) else None
    endpoint.handlers[game_id] = node.on_link
    if endpoint.default is None:  # p2puno watch HOST:PORT at a seat that did not host
        endpoint.default = game_id
    endpoint.watch = node.add_watcher
    endpoint.watching.set()
    if meta.get("resumed"):
        node.resumed_at = (session.processed, float(meta["resumed"]))
        node.due_since = float(meta["resumed"]) - float(meta.get("away_s", 0.0))
    node.watch_address = watch_address(endpoint)  # (the table's help names it: ui.app)
    if on_game is not None:
        on_game(node)
    code = str(meta.get("code", ""))
    say(f"game {game_id.hex()[:16]}: table code {code}; you are seat {me}")
    # (a spectator who comes once the game runs needs a seat's address: no screen gave one,
    # and the listing's is the host's alone; docs/discovery.md, "In play")
    # (the command on a line of its own, as the host's join command: "with  p2puno watch",
    # two spaces and a command run on from the sentence, read as a slip and copied badly)
    say("others can watch the game with:")
    say(f"    p2puno watch {node.watch_address}")
    try:
        outcome = await node.run()
    except asyncio.CancelledError:
        # stopped (SIGTERM, Ctrl-C, its host gone) while it stayed on after the game's end to
        # pass on what others may lack: the game is over all the same, and a resume must not
        # offer it (helper-56: a host's bots stopped so kept their games "unfinished")
        if session.outcome.over and node.failed is None:
            _mark_over(files, meta, session.outcome)
        raise
    try:
        result = _ended(node, outcome, files, meta, say)
        if node.serving():
            # a person's end is on the screen: the node serves the game to a seat that comes
            # back late (GameNode.serve), listed no longer (a host's advert: in play no more)
            if on_over is not None:
                await on_over()
            await node.serve()
            if session.outcome != result.outcome:  # (a late seat's entries: spec 10.15)
                result.outcome = session.outcome
                _mark_over(files, meta, session.outcome)
                dest = meta.get("save_log")
                if isinstance(dest, str):
                    result.log_path = files.log_path  # (copied again: the copy was older)
                    why = result.save_log(dest)
                    if why is not None:
                        say(why)
        return result
    finally:
        await node.close(GAME_OVER_BYE)  # (closed already, but after an error here)


def _ended(
    node: GameNode, outcome: Outcome, files: GameFiles, meta: dict[str, Any], say: Say
) -> Result:
    """The result of a node's game once its run is done (its files marked, its log copied
    where it was asked to be); raises LobbyError when the node stopped on its own."""
    session = node.session
    me = node.me
    game_id = session.game_id
    code = str(meta.get("code", ""))
    if node.failed is not None:
        root = files.folder.parent.parent  # (<data dir>/games/<game>)
        if node.unreached:  # (said again when `host` or `join` offers the game back)
            drop = ("resumed", "away_s", "folder", "mtime")
            files.write_meta({k: v for k, v in meta.items() if k not in drop} | {"unreached": True})
        raise LobbyError(f"{node.failed}: {with_command(resume_command(root, game_id))}")
    if outcome.over:
        _mark_over(files, meta, outcome)
    stats = {
        "sent": node.stats.sent,
        "received": node.stats.received,
        "duplicates": node.stats.duplicates,
        "durable_writes": files.durable_writes,
        "seconds": round(time.monotonic() - node.stats.started, 2),
    }
    names = [p.name for p in session.log.players]
    result = Result(outcome, files.log_path, code, me, stats, names, frozenset(node.left))
    dest = meta.get("save_log")
    if outcome.over and isinstance(dest, str):  # (fresh or resumed: the copy asked for)
        why = result.save_log(dest)
        if why is not None:
            say(why)
    return result


def watch_address(endpoint: Endpoint) -> str:
    """HOST:PORT of this node for `p2puno watch`: the address it listens on, or where that is
    every interface, this machine's first LAN address (no packet sent; "<this machine's
    address>" where it has none)."""
    from p2puno.net.discovery import lan_addresses

    host = endpoint.bind or ""
    if host in ("", "0.0.0.0", "::"):
        usable = [a for a in lan_addresses() if _reachable_kind(a)]
        host = next(iter(usable), "<this machine's address>")
    return f"[{host}]:{endpoint.port}" if is_ip(host) and ":" in host else f"{host}:{endpoint.port}"


# the ranges no machine on a LAN answers at (RFC 5737, RFC 3849: documentation; RFC 2544:
# benchmarking): a sandbox's interface numbered from one made `p2puno lobby` name
# 192.0.2.2 for spectators (helper-83)
_NOT_A_LAN = tuple(
    ipaddress.ip_network(n)
    for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "198.18.0.0/15", "2001:db8::/32")
)


def _reachable_kind(address: str) -> bool:
    """Whether another machine could dial ``address`` (for watch_address): not a
    documentation, benchmarking, reserved, multicast, unspecified or loopback one."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if ip.is_multicast or ip.is_reserved or ip.is_unspecified or ip.is_loopback:
        return False
    return not any(ip.version == n.version and ip in n for n in _NOT_A_LAN)


def _games(data: DataDir) -> list[dict[str, Any]]:
    """Each game of this data directory as its node.json says, with its ``folder`` and the
    ``mtime`` of its log, newest first (one that cannot be read is left out)."""
    found = []
    for meta_path in (data.root / "games").glob("*/node.json"):
        try:
            meta = json.loads(meta_path.read_text())
            if not isinstance(meta, dict):
                continue
            meta["folder"] = str(meta_path.parent)
            meta["mtime"] = meta_path.parent.joinpath("log").stat().st_mtime
        except (OSError, ValueError):
            continue
        found.append(meta)
    return sorted(found, key=lambda m: -float(m["mtime"]))


def unfinished_games(data: DataDir) -> list[dict[str, Any]]:
    """The games of this data directory a crash left unfinished, newest first."""
    return [m for m in _games(data) if not m.get("over", True)]


def give_up(meta: dict[str, Any]) -> None:
    """Stop offering an unfinished game of this data directory (`p2puno resume --give-up`):
    it is marked over here, as given up, its log kept as it stands (a replay says NOT OVER).
    Nothing is sent to anyone: the other seats' records are theirs."""
    kept = {k: v for k, v in meta.items() if k not in ("folder", "mtime")}
    GameFiles(Path(meta["folder"])).write_meta(
        {**kept, "over": True, "given_up": True, "outcome": "given up here, unfinished"}
    )


def nothing_to_resume(data: DataDir, game: str | None) -> str:
    """What `resume` says when there is no unfinished game (matching ``game``), naming the
    last one that ended, or was given up (helper-30: a game given up read "is over")."""
    which = f" matching {game!r}" if game else ""
    ended = [
        m
        for m in _games(data)
        if m.get("over") is True and Path(m["folder"]).name.startswith(game or "")
    ]
    if not ended:
        return f"no unfinished game{which} in {data.root}"
    log_path = Path(ended[0]["folder"]) / "log"
    how = "was given up here, unfinished" if ended[0].get("given_up") else "is over"
    # (the command in backquotes: a line wrapped at a terminal keeps it whole, helper-94)
    last = f"the last game there {how}: `{replay_command(log_path)}`"
    return f"no unfinished game{which} in {data.root} ({last})"


async def resume_game(
    data: DataDir,
    game: str | None,
    *,
    player: Player | None = None,
    say: Say,
    linger_s: float = 2.0,
    verbose: bool = False,
    narrate: bool = False,
    on_game: Callable[[GameNode], None] | None = None,
) -> Result:
    """Bring back a node killed in the middle of a game, from its data directory: its log
    (a torn last line cut off), its secrets (the shuffle secrets it committed to), the same
    seat, port and peers; it reconnects, syncs what it missed and plays on."""
    from p2puno.node.players import BotPlayer, TextPlayer
    from p2puno.session.harness import ResumeError, rebuild

    watch_host_pipe()  # (a bot its resumed host brought back: it leaves when that host is gone)
    started = time.monotonic()
    games = unfinished_games(data)
    if game is not None:
        games = [m for m in games if str(m.get("game", "")).startswith(game)]
    if not games:
        raise LobbyError(nothing_to_resume(data, game))
    meta = games[0]
    files = GameFiles(Path(meta["folder"]))
    try:
        secrets = read_secrets(files.secrets_path)
    except (OSError, ValueError) as e:
        raise LobbyError(f"the secrets file cannot be used: {e}") from None
    identity = secrets.identity
    seat = int(meta["seat"])
    nonce = bytes.fromhex(str(secrets.extra.get("nonce", "")))
    game_id = bytes.fromhex(str(meta["game"]))
    on_entry, on_secrets, holder = _file_hooks(files, identity, game_id, seat, nonce)
    try:  # how long ago this node last wrote (the step it comes back into was due by then)
        away_s = max(0.0, time.time() - os.stat(files.log_path).st_mtime)
    except OSError:
        away_s = 0.0
    try:
        session = rebuild(
            files.log_path,
            files.secrets_path,
            on_entry=on_entry,
            on_secrets=on_secrets,
            say=say,
            prune_keep=PRUNE_KEEP,  # as it plays: its memory does not grow with the game
        )
    except ResumeError as e:
        raise LobbyError(str(e)) from None
    holder.append(session)
    files.index.update()  # where each step starts, for peers that ask for pruned entries
    if player is None:
        spec = str(meta.get("player", "person"))
        if spec.startswith("bot:"):
            player = BotPlayer(spec[4:], f"resume/{time.time_ns()}")
        else:
            player = TextPlayer(session.log.players[seat].name)
    addresses: list[Address | None] = [
        None if a is None else Address(str(a[0]), int(a[1])) for a in meta["addresses"]
    ]
    endpoint = Endpoint(identity, meta.get("bind"), int(meta["port"]), say)
    await endpoint.start()
    # (what the person gets back, their seat and the round, before the log's step count:
    # "at step 40, seat 2" said nothing to a player, helper-98's brief)
    r = session.engine.round_no
    name = session.log.players[seat].name if 0 <= seat < len(session.log.players) else "?"
    say(
        f"resuming game {meta['game'][:16]}: your seat {seat} ({name}), "
        f"{f'round {r}' if r else 'the draw for dealer'}, from where your node stopped "
        f"(step {session.processed} of its log)"
    )
    if session.outcome.over:
        # stopped after the end, in the moment it stays to pass on what others may lack
        said = outcome_words(session.outcome, [p.name for p in session.log.players])
        say(f"the game was already over when this node stopped ({said}): it stays")
        say("a moment to pass on what the other seats may lack, then stops")
    meta = {**meta, "resumed": started, "away_s": away_s}
    # the bots this machine ran at that table (a host's): they stopped with it, back with it
    adopted: list[DataDir] = []  # its bots still running (not its children: see below)
    procs: list[asyncio.subprocess.Process] = []
    together = _came_back_with(seat)  # (a bot: its host and fellow bots, from its host)
    if not session.outcome.over:
        procs, bots = await _resume_bots(data, str(meta["game"]), say, adopted, seat)
        together |= bots
    ended = False
    # a host advertises its game again, in play, for spectators (`p2puno lobby --watch` found
    # nothing once the host had crashed and come back: docs/discovery.md, "In play"); in the
    # background: the game's links do not wait for the announcements
    advert: asyncio.Future[Advertiser | None] | None = None
    if seat == 0 and not session.outcome.over and isinstance(meta.get("advert"), dict):
        advert = asyncio.ensure_future(advertise_in_play(meta, identity, endpoint.port))

    async def withdrawn() -> None:
        # (withdrawn when the game ends here, or the node stops: as a host's that never
        # stopped; bounded, a convenience)
        nonlocal advert
        if advert is not None:
            made, advert = advert, None
            with contextlib.suppress(Exception, asyncio.CancelledError):
                got = await asyncio.wait_for(made, 5.0)
                if got is not None:
                    await _withdraw(got)

    try:
        result = await _run_game(
            session, identity, addresses, files, endpoint, player, meta,
            say=say, linger_s=linger_s, verbose=verbose, narrate=narrate, on_game=on_game,
            came_back_with=together, on_over=withdrawn,
        )  # fmt: skip
        ended = True
        return result
    finally:
        await withdrawn()
        endpoint.close()
        if not ended:  # (its person left, or it failed: the bots it runs stop with it)
            for bot_data in adopted:
                _stop_holder(bot_data)
        await _reap(procs, ended)


def _came_back_with(me: int) -> set[int]:
    """The seats this node's host brought back with it (CAME_BACK_WITH_ENV), if it is a bot
    a resumed host started; else none."""
    raw = os.environ.get(CAME_BACK_WITH_ENV, "")
    seats = set()
    for part in raw.split(","):
        if part.strip().isdigit():
            seats.add(int(part))
    return seats - {me}


def watch_host_pipe() -> None:
    """In a bot its host started (HOST_PIPE_ENV): stop this node as SIGTERM stops it, with
    BYE on its links and its data directory kept for its host's resume, once its standard
    input ends. It is a pipe its host never writes to, so its end is the host gone, killed
    outright (SIGKILL) included, when no handler of the host's could stop its bots: they
    played on without it (and voted their own host out once its deadline passed), and a host
    resumed meanwhile found them still running. A pipe works on Linux and macOS alike, where
    the node runs (Linux's PR_SET_PDEATHSIG is Linux's alone). Nothing is watched in any other
    process."""
    if os.environ.pop(HOST_PIPE_ENV, "") != "1":  # (popped: nothing it starts inherits it)
        return
    loop = asyncio.get_running_loop()

    def host_gone() -> None:
        # the stop a host's SIGTERM makes (cli._run_node's handler; where there is none, the
        # signal ends the process: the bot goes all the same, without its BYE)
        signal.raise_signal(signal.SIGTERM)

    def read() -> None:
        for _ in range(1000):  # (the host writes nothing: one read, which ends with it)
            try:
                if os.read(0, 4096):
                    continue
            except BrokenPipeError:  # (some systems' end of a pipe whose writer is gone)
                pass
            except OSError:  # (no standard input to watch: nothing to go by)
                return
            with contextlib.suppress(RuntimeError):  # (the loop is closed: the node is over)
                loop.call_soon_threadsafe(host_gone)
            return

    threading.Thread(target=read, name="host-pipe", daemon=True).start()


def _mark_over(files: GameFiles, meta: dict[str, Any], outcome: Outcome) -> None:
    """The game's metadata says it is over (no resume offers it) and how it ended."""
    kept = {k: v for k, v in meta.items() if k not in ("resumed", "away_s")}  # (this run's)
    files.write_meta({**kept, "over": True, "outcome": str(outcome)})


def _stop_holder(data: DataDir) -> None:
    """SIGTERM to the process that holds ``data`` (a bot of this host that outlived it: the
    host was killed, not its bot), if it holds it still: the pid is read from the lock the
    holder keeps, and only while the lock is held, so a pid used again is not signalled."""
    pid = data.holder()
    if pid is not None and pid != os.getpid() and data.busy():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)


async def _resume_bots(
    data: DataDir, game: str, say: Say, adopted: list[DataDir], me: int
) -> tuple[list[asyncio.subprocess.Process], set[int]]:
    """`p2puno resume` for each bot seat this data directory's host ran in ``game`` and that
    did not finish it (each its own process, as when the host started it). A bot seat whose
    process still holds its data directory is waited for, up to BOT_LEAVE_S: its host was
    killed, and it is leaving (it read the end of its host's pipe: watch_host_pipe); then it
    is brought back like the others. One still running after that (a bot of a p2puno without
    that pipe) goes into ``adopted``, never a second process for its seat: it is stopped with
    the host (the leave question says so), as the bots the host started are."""
    procs = []
    found: list[tuple[str, DataDir]] = []  # (who, data dir) of each bot seat not finished
    for folder in sorted((data.root / "bots").glob("*")):
        try:
            bot_data = DataDir(folder)
        except DataError:
            continue
        mine = [m for m in unfinished_games(bot_data) if m.get("game") == game]
        if not mine:
            continue
        who = f"the bot seat in bots/{folder.name}"
        with contextlib.suppress(KeyError, TypeError, IndexError):
            who = f"{mine[0]['view']['seats'][mine[0]['seat']]['name']} (seat {mine[0]['seat']})"
        found.append((who, bot_data))
    await _until_free([d for _, d in found], BOT_LEAVE_S)
    back: list[tuple[str, Path, int]] = []  # (who, data dir, seat) of each bot brought back
    for who, bot_data in found:
        if bot_data.busy():
            # still running: leave it be; a second copy would fail to bind, and its rebuild
            # could cut the live bot's last line as torn (the lock refuses it in any case)
            say(f"{who} is still running: left as it is")
            adopted.append(bot_data)
            continue
        # (read again: it may have ended the game meanwhile, or marked it given up)
        mine = [m for m in unfinished_games(bot_data) if m.get("game") == game]
        if mine:
            with contextlib.suppress(KeyError, TypeError, ValueError):
                back.append((who, bot_data.root, int(mine[0]["seat"])))
    # each comes back knowing which seats came back with it (its host and fellow bots): not
    # seats that went on without it (GameNode._reached)
    seats = {me} | {seat for _, _, seat in back}
    for who, folder, seat in back:
        say(f"bringing back {who}")
        together = ",".join(str(x) for x in sorted(seats - {seat}))
        procs.append(
            await _child(
                who, say, "resume", game[:16], "--data-dir", str(folder), "--quiet",
                env={CAME_BACK_WITH_ENV: together},
            )
        )  # fmt: skip
    return procs, seats - {me}


# the longest a resumed host waits for a bot of its killed run to leave (its BYEs: a second
# or so; each link's close is given up to 2 s) before it leaves that bot running as it is
BOT_LEAVE_S = 5.0


async def _until_free(dirs: list[DataDir], limit_s: float) -> None:
    """Until no process holds any of ``dirs`` (see DataDir.hold), or ``limit_s`` passed."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit_s
    while any(d.busy() for d in dirs) and loop.time() < end:
        await asyncio.sleep(0.1)


BOT_TOKEN_ENV = "P2PUNO_HOST_BOT_TOKEN"  # (HostLobby.bot_token, to the bots a host starts)
# set ("1") for a bot a host starts: its standard input is its host's pipe (watch_host_pipe)
HOST_PIPE_ENV = "P2PUNO_HOST_PIPE"
# the seats a resumed host brought back with a bot of its (comma separated; GameNode._reached)
CAME_BACK_WITH_ENV = "P2PUNO_CAME_BACK_WITH"


async def _child(
    who: str, say: Say, *args: str, token: str | None = None, env: dict[str, str] | None = None
) -> asyncio.subprocess.Process:
    """A bot seat's own process: ``python -m p2puno ARGS``. What it prints (with --quiet:
    only why it stopped, if it failed) reaches the host's lines as ``say``, named: written to
    the terminal itself, it tore up the host's full-screen table. ``token``: its claim to be
    the host's own bot, in its environment (not on its command line, which every user of the
    machine can read). Its standard input is a pipe from this process that nothing is written
    to: its end is this process gone, however it went (see :func:`watch_host_pipe`)."""
    extra = {**(env or {}), **({} if token is None else {BOT_TOKEN_ENV: token})}
    extra[HOST_PIPE_ENV] = "1"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "p2puno", *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, env={**os.environ, **extra},
    )  # fmt: skip
    assert proc.stdout is not None
    task = asyncio.ensure_future(_relay_lines(proc.stdout, who, say))
    _relays.add(task)
    task.add_done_callback(_relays.discard)
    return proc


_relays: set[asyncio.Future[None]] = set()  # (held: a task only the loop refers to may go)


async def _relay_lines(stream: asyncio.StreamReader, who: str, say: Say) -> None:
    """Each line a bot's process prints, to ``say`` (at most 300 characters of each)."""
    buf = b""
    while chunk := await stream.read(4096):
        *lines, buf = (buf + chunk).split(b"\n")
        buf = buf[-4096:]  # (a line with no end yet: bounded)
        for line in lines:
            text = line.decode(errors="replace").strip()
            if text:
                say(f"{who}: {text if len(text) <= 300 else text[:299] + '…'}")
    if buf.strip():
        say(f"{who}: {buf.decode(errors='replace').strip()[:300]}")


async def _reap(procs: list[asyncio.subprocess.Process], ended: bool) -> None:
    """The bot processes of this node, once it stops: given time to finish the game with it,
    or told to stop with it (its person left, or it failed)."""
    for p in procs:
        if not ended and p.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                p.terminate()
        try:
            await asyncio.wait_for(p.wait(), 30 if ended else 5)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                p.kill()
        if p.stdin is not None:  # (its host's pipe: the process has ended, or was killed)
            p.stdin.close()


async def host_game(
    *,
    table: str,
    name: str,
    seats: int,
    options: dict[str, JSONValue],
    player: Player,
    data: DataDir,
    bind: str | None,
    port: int,
    bots: int = 0,
    bot_policy: str = "heuristic",
    discovery: bool = True,
    interfaces: list[str] | None = None,
    start_when_full: bool = True,
    say: Say,
    linger_s: float = 2.0,
    verbose: bool = False,
    narrate: bool = False,
    think: float = 0.0,
    on_table: Callable[[dict[str, Any]], None] | None = None,
    on_game: Callable[[GameNode], None] | None = None,
    start: asyncio.Event | None = None,
    on_lobby: Callable[[HostLobby], None] | None = None,
    save_log: str | None = None,
) -> Result:
    """``start``: set it to start before the table is full (with 2 seats or more);
    ``on_lobby``: given the lobby once it is open (the table's host gives seats up by it)."""
    problem = name_problem(name)
    if problem is not None:  # (the seats that join are checked by the lobby)
        raise LobbyError(f'your name "{name}": {problem}')
    identity = Identity.generate()
    secret = os.urandom(32)  # (the table code's: the seat's nonce commits to it)
    nonce = nonce_of(secret)
    endpoint = Endpoint(identity, bind, port, say)
    await endpoint.start()
    me = Seat(
        name, identity.sign_pk, identity.dh_pk, nonce, player.kind, "self", "@", endpoint.port
    )
    lobby = HostLobby(
        endpoint, table=table, me=me, options=options, seats=seats, say=say,
        on_table=on_table, secret=secret,
    )  # fmt: skip
    if on_lobby is not None:
        on_lobby(lobby)
    where = f"{bind or 'every interface'}:{endpoint.port}"
    addr = bind if bind and bind not in ("0.0.0.0", "::") else "<this machine's address>"
    # (the command on a line of its own: wrapped at 80 columns it read "others join with
    # p2puno join" / "127.0.0.1:38413", a command in two pieces: helper-86)
    say(f'table "{table}" open on {where}; others join with:')
    say(f"    p2puno join {addr}:{endpoint.port}")
    procs = []
    for k in range(bots):
        bot = f"Bot-{k + 1}"
        procs.append(
            await _spawn_bot(
                endpoint.port, bot, bot_policy, data, k, think, bind, say, lobby.bot_token
            )
        )
        # one at a time, so that Bot-1 sits before Bot-2 (seats go in the order of joining:
        # started together, "seat 1: Bot-3" read wrong); each as soon as it sits
        await _until_seated(lobby, bot, procs[-1], BOT_SIT_S)

    async def add_bot() -> str:
        """One more bot of this node's at the table while it is open (the host's `b`)."""
        if lobby.started or lobby.confirming or len(lobby.seats) >= lobby.size:
            return "no seat to give a bot: the table is full or starting"
        taken = {s.name.casefold() for s in lobby.seats}
        k = next(i for i in range(len(procs), len(procs) + lobby.size + 1)
                 if f"bot-{i + 1}" not in taken)  # fmt: skip
        bot = f"Bot-{k + 1}"
        procs.append(
            await _spawn_bot(
                endpoint.port, bot, bot_policy, data, k, think, bind, say, lobby.bot_token
            )
        )
        await _until_seated(lobby, bot, procs[-1], BOT_SIT_S)
        why = lobby.refusals.get(bot)  # (the lobby's own reason: its lines are not shown)
        return (
            f"{bot} sits at the table"
            if any(s.name == bot for s in lobby.seats)
            else f"{bot} could not sit: {why}"
            if why
            else f"{bot} could not sit (its process ended, or took too long)"
        )

    lobby.add_bot = add_bot
    ended = False
    advertiser: Advertiser | None = None
    follow: asyncio.Future[None] | None = None
    in_play: asyncio.Future[None] | None = None

    async def withdrawn() -> None:
        """The table listed no more: its game is over here (its node may serve it on a
        while to a seat that comes back late, and takes no spectator: GameNode.serve)."""
        nonlocal advertiser
        if in_play is not None:
            await in_play
        if advertiser is not None:
            made, advertiser = advertiser, None
            await _withdraw(made)

    if discovery:
        if interfaces is None and bind and bind not in ("0.0.0.0", "::") and is_ip(bind):
            interfaces = [bind]  # (listening on one address: advertised there only, not at
            # every interface's address, where nothing listens)
        advertiser = await _advertise(lobby, endpoint.port, interfaces, say)
    if advertiser is not None:
        follow = asyncio.ensure_future(_advert_follows(lobby, advertiser))
    try:
        lobby._broadcast()
        await _seated(lobby, start)
        setup = lobby.start(identity)  # (at once: a seat that came or went since is not in it)
        await lobby.code()  # (every seat's code secret, or the game does not start)
        if follow is not None:
            follow.cancel()
        if advertiser is not None:  # (meanwhile: the game's links come at once)
            # listed as in play until the game ends here, for a spectator who comes late
            # (`p2puno lobby --watch`: it watches through this node); joined by nobody
            in_play = asyncio.ensure_future(_in_play(advertiser, len(setup.addresses)))
        result = await play(
            setup,
            identity,
            nonce,
            endpoint,
            data,
            player,
            say=say,
            linger_s=linger_s,
            verbose=verbose,
            narrate=narrate,
            on_game=on_game,
            save_log=save_log,
            advertised=None
            if advertiser is None
            else {"interfaces": None if interfaces is None else list[JSONValue](interfaces)},
            on_over=withdrawn,
        )
        ended = True
        return result
    finally:
        if follow is not None:
            follow.cancel()
        await withdrawn()
        seated = [  # (the host's own bots are stopped, not told)
            s.link
            for s in lobby.seats
            if s.link is not None and not s.link.closed and s.runner != "host"
        ]
        if not ended and seated:  # (left in the lobby: those seated are told, with a BYE)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    asyncio.gather(*(link.aclose("it left the lobby") for link in seated)),
                    2.0,
                )
        endpoint.close()
        await _reap(procs, ended)  # (the host left or failed: the bots it runs leave with it)


# the longest a bot of this node's is waited for to sit (its own process: Python, its imports,
# its keys, the handshake; the wait ends once it sits). 5 s was too short on a loaded machine:
# a test saw "Bot-1 could not sit" at load 5, and a person's machine may be as busy
BOT_SIT_S = 20.0


async def _until_seated(
    lobby: HostLobby, name: str, proc: asyncio.subprocess.Process, limit_s: float
) -> None:
    """Until a seat named ``name`` is taken, its process has ended, or ``limit_s`` passed."""
    end = asyncio.get_running_loop().time() + limit_s
    changed = asyncio.Event()
    lobby.listeners.append(changed)
    try:
        while not any(s.name == name for s in lobby.seats) and proc.returncode is None:
            left = end - asyncio.get_running_loop().time()
            if left <= 0:
                return
            changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), min(left, 0.2))
    finally:
        lobby.listeners.remove(changed)


async def _withdraw(advertiser: Advertiser) -> None:
    """Withdraw the table's advert (goodbye packets), in at most 3 s; a failure is no one's
    business but the log's: HOST:PORT always worked, and the game goes on."""
    try:
        await asyncio.wait_for(advertiser.stop(), 3.0)
    except Exception as e:
        logging.getLogger("p2puno.lobby").warning("the table's advert was not withdrawn: %s", e)


async def _in_play(advertiser: Advertiser, players: int) -> None:
    """The table's advert once its game has started: in play, every seat taken (a build that
    knows no ``play`` key lists it full), in at most 3 s; a failure is the log's business
    only (docs/discovery.md, "In play"). Nothing else of the game is added to it."""
    ad = advertiser.ad
    if ad is None:
        return
    try:
        await asyncio.wait_for(
            advertiser.update(
                dataclasses.replace(ad, in_play=True, seats_total=players, seats_taken=players)
            ),
            3.0,
        )
    except Exception as e:
        logging.getLogger("p2puno.lobby").warning("the table's advert was not updated: %s", e)


async def advertise_in_play(
    meta: dict[str, Any], identity: Identity, port: int
) -> Advertiser | None:
    """A resumed host's advert of its game, in play (docs/discovery.md, "In play"): what the
    table's advert said at the start, from the lobby's last view kept in the game's files
    (``view``), at the port it listens on again, on the interfaces the host chose
    (``advert``, kept by :func:`play`); None when it cannot be (logged only: HOST:PORT always
    works, and a game's files from an older build name no interfaces)."""
    from zeroconf import InterfaceChoice

    from p2puno.net.discovery import TableAd, fingerprint

    lg = logging.getLogger("p2puno.lobby")
    view, chosen = meta.get("view"), meta.get("advert")
    if not isinstance(view, dict) or not isinstance(chosen, dict):
        return None
    where = chosen.get("interfaces")
    options = view.get("options") if isinstance(view.get("options"), dict) else {}
    assert isinstance(options, dict)
    house, target = options.get("house"), options.get("target")
    players = len(meta.get("addresses") or ())
    try:
        lobby_id = bytes.fromhex(str(view.get("lobby", "")))
        ad = TableAd(
            name=str(view.get("name", "")),
            lobby_id=lobby_id,
            host_fingerprint=fingerprint(identity.sign_pk),
            seats_total=players,
            seats_taken=players,
            house=tuple(h for h in house if isinstance(h, str)) if isinstance(house, list) else (),
            target=target if isinstance(target, int) else 500,
            scoring=str(options.get("scoring", "standard")),
            port=port,
            code=lobby_id.hex()[:8],
            in_play=True,
        )
    except ValueError as e:  # (AdError is one)
        lg.warning("the game's advert was not made again: %s", e)
        return None
    interfaces = [str(a) for a in where] if isinstance(where, list) else InterfaceChoice.All
    adv = Advertiser()
    try:
        await asyncio.wait_for(adv.start(ad, interfaces=interfaces), 10.0)
    except BaseException as e:  # (cancelled too: its sockets closed, then on its way)
        lg.warning("the game's advert was not made again: %r", e)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(adv.stop(), 3.0)
        if not isinstance(e, Exception):
            raise
        return None
    return adv


async def _seated(lobby: HostLobby, start: asyncio.Event | None) -> None:
    """Until every seat is taken (or ``start`` is set, with 2 seats or more) and each person
    at them has confirmed the table as it is; one who lets the confirm deadline pass is
    unseated (protocol/lobby.md section 2)."""
    loop = asyncio.get_running_loop()
    asked_with = 0  # the seats taken when the host asked to start with them
    asked_names: list[str] = []  # their names (to name the ones that went: helper-63)
    while True:
        if start is not None and start.is_set() and len(lobby.seats) < max(2, asked_with):
            # a seat went (left, unconfirmed, given up) after the host chose to start with
            # the seats taken: the table opens again, its seat free, and the host chooses
            # again (a review: the game began with fewer players than the host had seen)
            start.clear()
            asked_with = 0
            lobby.reopen()
            here = {seat.name for seat in lobby.seats}
            went = [f'"{name}"' for name in asked_names if name not in here]
            who = in_a_sentence(went) if went else "a seat"
            lobby.say(
                f"the table is open again with {len(lobby.seats)} seated ({who} went while "
                "it was being confirmed): s starts with the seats taken"
            )
        if start is not None and start.is_set() and len(lobby.seats) >= 2:
            lobby.ask_start()
            if not asked_with:
                asked_with = len(lobby.seats)
                asked_names = [seat.name for seat in lobby.seats]
        if lobby.can_start():
            break
        lobby.changed.clear()
        waits = [asyncio.ensure_future(lobby.changed.wait())]
        if start is not None and not start.is_set():
            waits.append(asyncio.ensure_future(start.wait()))
        wait_s = None
        if lobby.confirm_since is not None and lobby.unconfirmed():
            wait_s = max(0.05, lobby.confirm_since + lobby.confirm_s() - loop.time())
        _, pending = await asyncio.wait(waits, timeout=wait_s, return_when=asyncio.FIRST_COMPLETED)
        for w in pending:
            w.cancel()
        lobby.unseat_late()


async def _advert_follows(lobby: HostLobby, advertiser: Advertiser) -> None:
    """The table's advert shows the seats taken as they change (a full count once the roster
    is final): one update at a time, each about half a second of announcements, so a seat
    that comes and goes quickly costs at most one more."""
    changed = asyncio.Event()
    lobby.listeners.append(changed)
    try:
        while (ad := advertiser.ad) is not None:
            if ad.seats_taken != lobby.seats_offered:
                try:
                    await advertiser.update(
                        dataclasses.replace(ad, seats_taken=lobby.seats_offered)
                    )
                except Exception as e:  # (discovery is a convenience: HOST:PORT always works)
                    logging.getLogger("p2puno.lobby").warning(
                        "the table's advert was not updated: %s", e
                    )
                    return
                continue
            changed.clear()
            await changed.wait()
    finally:
        lobby.listeners.remove(changed)


async def _spawn_bot(
    port: int,
    name: str,
    policy: str,
    data: DataDir,
    k: int,
    think: float,
    bind: str | None,
    say: Say,
    token: str,
) -> asyncio.subprocess.Process:
    """A bot seat of the host's: its own process, keys and data directory (the host's machine
    runs it, so the host could read its hand: the table says so)."""
    folder = data.root / "bots" / f"{os.getpid()}-{k}"
    command = bot_command(port, name, policy, bind, str(folder), think)
    return await _child(name, say, *command, token=token)


def bot_command(
    port: int, name: str, policy: str, bind: str | None, folder: str, think: float
) -> list[str]:
    """The arguments of a host's bot seat. It listens where its host listens: the other
    seats dial it at the host's address (its seat's address in the start message is "@"),
    so a bot bound to 127.0.0.1 behind a host on every interface could not be reached from
    another machine, and its entries reached those seats only by announcement and fetch
    through other links, a quarter of a second late or more each. It reaches its host at the
    address the host is bound to (127.0.0.1 when that is every interface)."""
    everywhere = not bind or bind in ("0.0.0.0", "::")
    host = "127.0.0.1" if everywhere else str(bind)
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return [
        "bot", where, "--name", name, "--policy", policy, "--runner", "host",
        "--bind", "" if everywhere else host, "--data-dir", folder, "--think", str(think),
        "--quiet",
    ]  # fmt: skip


async def _advertise(
    lobby: HostLobby, port: int, interfaces: list[str] | None, say: Say
) -> Advertiser | None:
    from zeroconf import InterfaceChoice

    from p2puno.net.discovery import AdError, TableAd, fingerprint

    house = lobby.options.get("house")
    target = lobby.options.get("target")
    try:  # discovery is a convenience: HOST:PORT always works (never a crash here)
        ad = TableAd(
            name=lobby.table,  # (the whole name: a cut one could end on a space, or miss a join)
            lobby_id=lobby.lobby_id,
            host_fingerprint=fingerprint(lobby.seats[0].sign_pk),
            seats_total=lobby.size,
            seats_taken=len(lobby.seats),
            house=tuple(h for h in house if isinstance(h, str)) if isinstance(house, list) else (),
            target=target if isinstance(target, int) else 500,
            scoring=str(lobby.options.get("scoring", "standard")),
            port=port,
            code=lobby.lobby_id.hex()[:8],
        )
    except AdError as e:
        say(f"(not advertised on the LAN: {e})")
        return None
    adv = Advertiser()
    try:
        await adv.start(ad, interfaces=interfaces or InterfaceChoice.All)
    except Exception as e:
        say(f"(not advertised on the LAN: {e})")
        return None
    return adv


async def join_game(
    host: str,
    port: int,
    *,
    name: str,
    player: Player,
    data: DataDir,
    bind: str | None,
    runner: str = "self",
    say: Say,
    linger_s: float = 2.0,
    verbose: bool = False,
    narrate: bool = False,
    on_table: Callable[[dict[str, Any]], None] | None = None,
    on_game: Callable[[GameNode], None] | None = None,
    advert: tuple[str, bytes] | None = None,
    chat: LobbyChat | None = None,
) -> Result:
    watch_host_pipe()  # (a bot its host started: it leaves when its host is gone)
    identity = Identity.generate()
    secret = os.urandom(32)  # (the table code's: the seat's nonce commits to it)
    nonce = nonce_of(secret)
    endpoint = Endpoint(identity, bind, 0, say)
    await endpoint.start()
    try:
        setup, link = await join_table(
            endpoint,
            identity,
            host,
            port,
            name=name,
            secret=secret,
            kind=player.kind,
            runner=runner,
            token=os.environ.get(BOT_TOKEN_ENV) if runner == "host" else None,
            say=say,
            on_table=on_table,
            confirm=player.confirm if player.kind == "person" else None,
            advert=advert,
            chat=chat,
        )
        return await play(
            setup,
            identity,
            nonce,
            endpoint,
            data,
            player,
            say=say,
            linger_s=linger_s,
            lobby_link=link,
            verbose=verbose,
            narrate=narrate,
            on_game=on_game,
        )
    finally:
        endpoint.close()


def parse_address(text: str) -> Address:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"{text!r} is not HOST:PORT")
    if not 0 < int(port) < 65536:
        raise ValueError(f"{text!r}: the port is a number from 1 to 65535")
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        raise ValueError(
            f"{text!r} is not HOST:PORT (an IPv6 address goes in brackets: [::1]:PORT)"
        )
    return Address(host.strip("[]") or "127.0.0.1", int(port))
