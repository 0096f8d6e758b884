"""Chaos: whole games among node processes on 127.0.0.1 while nodes are killed and links cut.
TEST ONLY: scripts/chaos runs many (not in CI); tests/node/test_chaos.py runs a short one.

Each game: a host and three joining bots, each its own process. While it runs, a random node
is killed (SIGKILL) at a random moment and resumed (`p2puno resume`) a moment later, several
times per game; and a random node's links are cut for a while (SIGSTOP past the link timeout,
then SIGCONT: every link to it dies and is dialled again). A game ends well when every node's
log holds the same entries, each replays VERIFIED as finished, and no seat was named silent or
at fault. Prints how many games ended well, how many kills were survived, the time a resumed
node took to be back in the game from its process's start (median, max), and every failure
with its seed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from p2puno.session.replay import replay

LOOP = "127.0.0.1"
TIMING = ["--window-ms", "0", "--step-s", "30", "--turn-s", "30"]


def logs_end_well(root: Path, said: dict[str, list[str]]) -> str:
    """Why a game under ``root`` did not end well ("" if it did): a node that printed a
    traceback (``said``: each node's lines, by name; one that played on past an error of its
    own is a failure too), logs not one per node or not holding the same entries, or a log
    that does not replay VERIFIED as finished with no seat named silent or at fault."""
    for name, lines in said.items():
        if any(line.startswith("Traceback") for line in lines):
            return f"{name} printed a traceback:\n" + "\n".join(lines[-30:])
    logs = sorted(root.rglob("games/*/log"))
    sets = [set(p.read_bytes().splitlines()) for p in logs]
    if len(logs) != len(said) or any(s != sets[0] for s in sets):
        return f"{len(logs)} logs, not all the same: {[len(s) for s in sets]} entries"
    for p in logs:
        r = replay(p)
        o = r.outcome
        if not r.ok or o is None or o.state != "finished" or o.silent or o.blame:
            return f"{p.relative_to(root)}: {r.error or o}"
    return ""


class Proc:
    def __init__(self, args: list[str], data: Path) -> None:
        self.args, self.data = args, data
        self.lines: list[str] = []
        self.start()

    def start(self, args: list[str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "p2puno", *(args or self.args), "--data-dir", str(self.data)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.ended_over = False  # its last run was a resume that found the game over
        out = self.proc.stdout
        assert out is not None
        self.reader = threading.Thread(
            target=lambda: self.lines.extend(line.rstrip() for line in out), daemon=True
        )
        self.reader.start()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.alive():
            self.proc.kill()
            self.proc.wait(10)


@dataclass
class GameRun:
    ok: bool = False
    made: int = 0  # kills made (fewer than asked when the game ended first)
    back: list[float] = field(default_factory=list)  # seconds to be back in the game
    quiet: list[str] = field(default_factory=list)  # resumes not seen back in the game: why
    over: int = 0  # kills in the moment after the end: the resumed node found the game over
    why: str = ""

    @property
    def survived(self) -> int:
        """A kill is survived when the node came back and the game ended well (same logs,
        verified): then every kill was; else only those seen back in the game (or finding
        it over: killed in the moment after the end)."""
        return self.made if self.ok else len(self.back) + self.over


def game(
    seed: int,
    kills: int,
    cuts: int,
    root: Path,
    target: int,
    first: tuple[float, float] = (0.5, 3.0),
) -> GameRun:
    """One game; the events come from the first round's start on, each 0.5 s to 3 s after
    the one before (the first ``first`` s after the round's start, between its two bounds)."""
    rnd = random.Random(f"chaos/{seed}")
    host = Proc(
        ["host", "--bind", LOOP, "--no-discovery", "--seats", "4", "--bot", "heuristic",
         "--think", "0.02", "--target", str(target), *TIMING],
        root / "host",
    )  # fmt: skip
    nodes = [host]
    try:
        end = time.monotonic() + 30
        port = None
        while port is None and time.monotonic() < end:
            for line in host.lines:
                m = re.search(r"open on 127\.0\.0\.1:(\d+)", line)
                if m:
                    port = int(m.group(1))
            time.sleep(0.05)
        run = GameRun()
        if port is None:
            run.why = "the host did not open"
            return run
        for k in range(3):
            nodes.append(
                Proc(
                    ["bot", f"{LOOP}:{port}", "--name", f"J{k}", "--bind", LOOP, "--think", "0.02"],
                    root / f"j{k}",
                )
            )
        events = ["kill"] * kills + ["cut"] * cuts
        rnd.shuffle(events)
        end = time.monotonic() + 60  # the lobby, the first shuffles
        while time.monotonic() < end and not any("— round 1:" in ln for ln in host.lines):
            time.sleep(0.05)
        for k, what in enumerate(events):
            time.sleep(rnd.uniform(*first) if k == 0 else rnd.uniform(0.5, 3.0))
            if not all(n.alive() for n in nodes):
                break  # the game is over (or a node failed)
            victim = rnd.choice(nodes)
            if what == "kill":
                victim.kill()
                run.made += 1
                time.sleep(rnd.uniform(0.2, 2.0))
                before = len(victim.lines)
                victim.start(["resume", "--narrate"])
                t0 = time.monotonic()
                while time.monotonic() - t0 < 20:
                    exited = not victim.alive()
                    if exited:
                        victim.reader.join(5)  # every line it printed
                    said = victim.lines[before:]
                    found = [ln for ln in said if "back in the game" in ln]
                    if found:
                        # from the process's start, as a person waits (the node's own figure
                        # starts once Python has started and imported: 0.1-1.8 s against
                        # 0.9-4.0 s, helper-29)
                        run.back.append(time.monotonic() - t0)
                        break
                    # killed in the moment after the end: the game it resumes is over (or,
                    # killed once it had marked the game over, nothing is left to resume)
                    if any("already over" in ln or "no unfinished game" in ln for ln in said):
                        run.over += 1
                        victim.ended_over = True
                        break
                    if exited:
                        last = said[-1] if said else "nothing"
                        run.quiet.append(
                            f"{victim.data.name} resumed and exited with code "
                            f"{victim.proc.returncode}; its last line: {last}"
                        )
                        break
                    time.sleep(0.05)
                else:
                    last = victim.lines[-1] if len(victim.lines) > before else "nothing"
                    run.quiet.append(f"{victim.data.name} said nothing in 20 s; last line: {last}")
            else:
                victim.proc.send_signal(signal.SIGSTOP)
                time.sleep(7.0)  # past the links' 6 s heartbeat deadline: every link dies
                victim.proc.send_signal(signal.SIGCONT)
        for n in nodes:
            try:
                n.proc.wait(240)
            except subprocess.TimeoutExpired:
                run.why = "a node did not end:\n" + "\n".join(n.lines[-20:])
                return run
        # (a resume that found nothing left to resume exits 1, "no unfinished game": its game
        # had ended; it said 2 here, an exit code `resume` gave that until e10f7f0, so a kill
        # after the end failed the game: seen once tests/node/test_chaos.py played to 150)
        codes = [0 if n.ended_over and n.proc.returncode == 1 else n.proc.returncode for n in nodes]
        if any(codes):
            run.why = f"exit codes {codes}"
            return run
        run.why = logs_end_well(root, {n.data.name: n.lines for n in nodes})
        run.ok = not run.why
        return run
    finally:
        for n in nodes:
            n.kill()
            with contextlib.suppress(OSError):
                n.data.mkdir(parents=True, exist_ok=True)
                (n.data / "output.txt").write_text("\n".join(n.lines))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=25)
    ap.add_argument("--kills", type=int, default=4, help="kills per game")
    ap.add_argument("--cuts", type=int, default=1, help="link cuts per game")
    ap.add_argument("--target", type=int, default=500, help="points: a game ~10 rounds long")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", metavar="DIR", help="keep a failed game's files (and output) here")
    args = ap.parse_args()
    good = survived = made = 0
    back: list[float] = []
    start = time.monotonic()
    for g in range(args.seed, args.seed + args.games):
        with tempfile.TemporaryDirectory(prefix="p2puno-chaos-") as tmp:
            run = game(g, args.kills, args.cuts, Path(tmp), args.target)
            if not run.ok and args.keep:
                kept = Path(args.keep) / f"game-{g}"
                shutil.copytree(tmp, kept, dirs_exist_ok=True)
                run.why += f" (files kept in {kept})"
        good += run.ok
        survived += run.survived
        made += run.made
        back += run.back
        verdict = "ok" if run.ok else "FAILED: " + run.why
        print(f"game {g}: {verdict}; {run.survived} of {run.made} kills survived", flush=True)
        if run.over:
            print(f"  {run.over} kill(s) came after the end: the resumed node found the game over")
        for q in run.quiet:
            print(f"  not seen back in the game: {q}", flush=True)
    print(f"\n{good}/{args.games} games ended well; {survived} of {made} kills survived")
    if back:
        print(
            f"a resumed node back in the game: median {statistics.median(back):.2f} s, "
            f"max {max(back):.2f} s ({len(back)} resumes)"
        )
    print(f"{time.monotonic() - start:.0f} s")
    return 0 if good == args.games else 1


if __name__ == "__main__":
    sys.exit(main())
