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
from p2puno.engine.actions import Action
from p2puno.engine.cards import CARD_COLOR, CARD_TEXT, COLORS, WILD
from p2puno.engine.game import Event, Game
from p2puno.engine.options import Options
from p2puno.sim.runner import Table

_ANSI = {0: "31", 1: "33", 2: "32", 3: "34"}
_NAMES = {0: "red", 1: "yellow", 2: "green", 3: "blue"}
_KEY = {
    "returned",
    "challenge",
    "guilty",
    "innocent",
    "caught",
    "swap",
    "rotate",
    "reshuffle",
    "jump",
    "blocked",
    "stack",
}


class Narrator:
    def __init__(self, names: list[str], delay: float, verbose: bool, color: bool) -> None:
        self.names = names
        self.delay = delay
        self.verbose = verbose
        self.color = color

    def card(self, card: int) -> str:
        text = CARD_TEXT[card]
        col = CARD_COLOR[card]
        if not self.color or col == WILD:
            return text
        return f"\x1b[{_ANSI[col]}m{text}\x1b[0m"

    def say(self, line: str) -> None:
        print(line)
        sys.stdout.flush()
        if self.delay:
            time.sleep(self.delay)

    def who(self, seat: int) -> str:
        return f"P{seat} ({self.names[seat]})"

    def __call__(self, game: Game, action: Action | None, events: list[Event]) -> None:
        for e in events:
            line = self.describe(game, e)
            if line:
                self.say(line)

    def describe(self, game: Game, e: Event) -> str | None:
        k = e.kind
        if k == "dealer-card":
            return f"  {self.who(e.seat)} draws {self.card(e.card)} for dealer"
        if k == "dealer":
            return f"  {self.who(e.seat)} deals first"
        if k == "round":
            scores = "  ".join(f"P{s} {p}" for s, p in enumerate(game.scores))
            return f"\n=== Round {e.value}: {self.who(e.seat)} deals.  Scores: {scores}"
        if k == "start":
            return f"  start card {self.card(e.card)}"
        if k == "color" and game.phase.value != "turn" and not self.verbose:
            return None
        if k == "play":
            bluff = " - a bluff!" if e.bluff else ""
            size = len(game.hands[e.seat])
            important = CARD_TEXT[e.card].startswith("W+4") or size <= 1
            if self.verbose or important:
                return f"  {self.who(e.seat)} plays {self.card(e.card)}{bluff} ({size} left)"
            return None
        if k == "color":
            if self.verbose or CARD_TEXT[game.top] == "W+4":
                return f"    color: {_NAMES[e.value]}"
            return None
        if k == "uno":
            return f"  {self.who(e.seat)}: UNO!"
        if k == "out":
            return f"  {self.who(e.seat)} goes out!"
        if k == "penalty" and (self.verbose or e.value >= 4):
            return f"  {self.who(e.seat)} takes {e.value}"
        if k == "round-over":
            lines = []
            for s in range(game.players):
                hand = " ".join(self.card(c) for c in sorted(game.hand_cards(s)))
                lines.append(f"    P{s} left with {hand or '-'}  ({game.hand_points(s)} pts)")
            if e.seat >= 0 and game.options.scoring == "standard":
                head = f"  round won by {self.who(e.seat)}: +{e.value} points"
            elif e.seat >= 0:
                head = f"  round won by {self.who(e.seat)}; everyone adds their own hand"
            else:
                head = "  round blocked"
            return "\n".join([head, *lines])
        if k == "game-over":
            return None
        if k in _KEY or self.verbose:
            text = str(e)
            for s in range(game.players):
                text = text.replace(f"P{s} ", f"{self.who(s)} ").replace(
                    f"P{s}'", f"{self.who(s)}'"
                )
            return "  " + text
        return None


def run_demo(options: Options, seed: int, *, delay: float = 0.0, verbose: bool = False) -> Game:
    names = ["heuristic" if s % 2 == 0 else "random" for s in range(options.players)]
    bots = [make_bot(n, f"demo:{seed}:{s}") for s, n in enumerate(names)]
    narrator = Narrator(names, delay, verbose, sys.stdout.isatty())
    print(f"p2puno demo: {options}; seed {seed}")
    print("Seats: " + ", ".join(narrator.who(s) for s in range(options.players)))
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
    print(f"\n{g.round_no} rounds, {g.stats.turns} turns, {g.stats.reshuffles} reshuffles.")
    return g


def run_network_demo(
    options: Options,
    *,
    delay: float = 0.0,
    verbose: bool = False,
    log_path: str = "p2puno-demo.log",
    data_dir: str | None = None,
    person: bool = False,
) -> bool:
    """The main job: one node process per seat on this machine (127.0.0.1), a host with its
    bots, playing over TCP with mental poker and a signed log. ``person``: the host's seat is
    the person at this terminal, in the full-screen table (the other seats are bots); else a
    bot plays it and its view is narrated. Then every node's log is replayed offline: all must
    verify and hold the same entries."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    from p2puno.session.replay import replay

    tmp = tempfile.mkdtemp(prefix="p2puno-demo-") if data_dir is None else data_dir
    root = Path(tmp)
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
        cmd += ["--name", "You", "--think", str(delay or 1.0), "--step-s", "30"]
        # the table's end screen names the log that stays (the data directory goes)
        cmd += ["--save-log", log_path]
    else:
        cmd += ["--name", "Host", "--bot", "heuristic", "--narrate", "--think", str(delay)]
        cmd += ["--window-ms", "300", "--step-s", "30", "--turn-s", "30"]
    if verbose:
        cmd.append("--verbose")
    print(f"p2puno demo: {options}")
    if person:
        print(
            f"You against {options.players - 1} bots, each seat its own node process on "
            "127.0.0.1\nwith its own keys, over TCP: the deck is shuffled and dealt by all of "
            "you\ntogether, every move is a signed log entry, every deck is audited when it\n"
            "ends. The table opens now (? lists the keys).\n"
        )
    else:
        print(
            f"{options.players} node processes on 127.0.0.1, each with its own keys: the deck "
            "is\nshuffled and dealt by all of them together over TCP, every move is a signed "
            "log entry,\nevery deck is audited when it ends; the host's seat is narrated.\n"
        )
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
        verdict = f"VERIFIED, {result.outcome}" if result.ok else f"REJECTED: {result.error}"
        left = left or (result.error or "").endswith("the log ends before the game does")
        differ = "" if same else " (DIFFER)"
        print(f"  {path.relative_to(root)}: {len(lines)} entries{differ}; {verdict}")
    if logs:
        shutil.copyfile(logs[0], log_path)
        if data_dir is None:
            print(f"(the nodes' data directory {tmp} is removed now: its paths above go with it)")
        print(f"the host's log is in {log_path}: check it again with  p2puno replay {log_path}")
        if person:
            print(f"or step through it in the table:  p2puno replay {log_path} --table")
    if person and left and done.returncode == 0:
        # every entry up to where each log stops was checked; the game has no result
        print("you left the table before the end: each log verifies up to where it stops")
        ok = True
    else:
        print("every node holds the same entries and every log verifies" if ok else "DEMO FAILED")
    if data_dir is None:
        shutil.rmtree(tmp, ignore_errors=True)
    return ok


def run_trustless_demo(
    options: Options,
    *,
    delay: float = 0.0,
    verbose: bool = False,
    log_path: str = "p2puno-demo.log",
) -> bool:
    """The same game through one session per seat: mental-poker deal, signed log, an audit of
    every deck, then the offline replay of the log. Returns whether the replay verified it."""
    import os

    from p2puno.log import append_entry
    from p2puno.session.harness import LocalTable
    from p2puno.session.replay import replay

    names = ["heuristic" if s % 2 == 0 else "random" for s in range(options.players)]
    narrator = Narrator(names, delay, verbose, sys.stdout.isatty())
    print(f"p2puno demo (trustless): {options}")
    print("Seats: " + ", ".join(narrator.who(s) for s in range(options.players)))
    print(
        "Every seat is its own node with its own keys: the deck is shuffled and dealt by all of\n"
        "them together, every move is a signed log entry, every deck is audited when it ends."
    )
    print("\n=== Draw for dealer")
    table = LocalTable(options, seed=None, bots=["heuristic", "random"])
    node = table.sessions[0]
    audits = [0]

    def drain() -> None:
        for ev in node.events:
            if ev.event is not None:
                line = narrator.describe(node.engine, ev.event)
                if line:
                    narrator.say(line)
            elif ev.kind == "audit":
                audits[0] += 1
                if verbose:
                    narrator.say(f"  [audit] {ev.text}")
            elif ev.kind in ("blame", "dispute"):
                narrator.say(f"  !! {ev.text}")
        node.events.clear()

    def watch(sender: int, raw: bytes) -> bytes:
        drain()
        return raw

    table.tamper = watch
    table.run()
    drain()
    g = node.engine
    if node.blame is not None:
        print(f"\nThe game stopped: {node.blame}")
        return False
    print("\n=== Final scores")
    order = sorted(range(options.players), key=lambda s: -g.scores[s])
    if options.scoring == "lowest":
        order.reverse()
    for s in order:
        mark = "  <- winner" if s in g.winners else ""
        print(f"  {narrator.who(s):<16} {g.scores[s]:>5}{mark}")
    if os.path.exists(log_path):
        os.remove(log_path)
    for h, _ in node.log:
        append_entry(log_path, node.log.raw(h), fsync=False)
    print(
        f"\n{g.round_no} rounds, {len(node.log)} signed entries, {audits[0]} decks audited; "
        f"log written to {log_path}"
    )
    result = replay(log_path)
    if result.ok:
        print(f"offline replay: VERIFIED ({result.entries} entries; p2puno replay {log_path})")
    else:
        print(f"offline replay: REJECTED at entry {result.bad_entry}: {result.error}")
    return result.ok
