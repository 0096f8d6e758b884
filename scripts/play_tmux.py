"""A person's game against three bots, played under tmux by reading the screen and pressing keys.

Runs ``scripts/demo`` (the main job: you against bots, each seat its own node process over TCP
on 127.0.0.1, in the full-screen table) in a detached tmux pane of 80x24 on a tmux server of
its own (``tmux -L p2puno-play-PID``), reads the pane with ``capture-pane``, decides from the
text alone which keys a person would press, sends them with ``send-keys``, and saves every
distinct screen it passed through to ``DIR/NNNN.txt`` (``DIR/keys.txt`` lists what it pressed
and when). It plays to the end of the game, dismisses the end screen and waits for the demo's
offline replay of every node's log. Bounded: ``--timeout`` seconds in all, at most
``--max-screens`` screens saved; at the end it kills only the tmux server it started.

Usage: scripts/play_tmux [--dir DIR] [--target 100] [--timeout 900] [--house ...]
Exit 0 when the demo ends with every log verified; 1 otherwise (the screens show why).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENTER, ESC = "Enter", "Escape"
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class Tmux:
    """One tmux server of this script's own (its socket name holds our pid)."""

    def __init__(self, cols: int, rows: int) -> None:
        self.sock = f"p2puno-play-{os.getpid()}"
        self.cols, self.rows = cols, rows

    def run(self, *args: str, check: bool = True) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.sock, *args], capture_output=True, text=True, timeout=10
        )
        if check and out.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def start(self, command: str) -> None:
        self.run(
            "new-session", "-d", "-s", "play", "-x", str(self.cols), "-y", str(self.rows),
            "-e", "TERM=xterm-256color", command,
        )  # fmt: skip
        self.run("set-option", "-t", "play", "remain-on-exit", "on")

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "play")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "play", *keys)

    def dead(self) -> bool:
        return self.run("display-message", "-p", "-t", "play", "#{pane_dead}").strip() == "1"

    def kill(self) -> None:
        self.run("kill-server", check=False)


def normal(text: str) -> str:
    """The screen without what moves by itself (spinner, countdowns): one file per real change."""
    text = re.sub(f"[{SPINNER}]", "*", text)
    text = re.sub(r"\d+ s left", "N s left", text)
    return re.sub(r"pass \d+/\d+ [■□]+", "pass", text)


def decide(text: str, turn: int) -> list[str]:
    """The keys for what the screen asks of the person (none: nothing asked)."""
    if "GAME OVER" in text or "GAME ENDED" in text or "GAME STOPPED" in text:
        return ["q"]
    if "The table needs" in text:
        return []
    if "Leave the table?" in text:
        return ["n"]
    if "p2puno — keys" in text:
        return [ESC]
    if "Name the color for your Wild" in text or "A Wild was turned up" in text:
        return ["rygb"[turn % 4]]
    if "Seven-O: swap hands with whom?" in text:
        m = re.search(r"swap hands with whom\?\s*\n\s*(\d)", text)
        return [m.group(1)] if m else [ESC]
    if "give the verdict" in text:
        return [ENTER]
    if "A Wild Draw Four on you" in text:
        return ["c" if turn % 2 else "t"]  # challenge every other one
    if "A Draw Two on you" in text:
        return [ENTER] if "Progressive: stack" in text else ["t"]
    # (the drawn card is named: "You drew g4 (green 4): play it (Enter) or keep it (k)";
    # the old words matched nothing, and each drawn card waited out the turn's 60 s)
    if re.search(r"You drew .*: play it \(Enter\)", text):
        return [ENTER]
    if re.search(r"You drew .*, which cannot be played", text):
        return ["k"]
    if "Claim window" in text or "Your claim is up" in text:
        if "u call UNO" in text:
            return ["u"]
        if "c catch" in text:
            return ["c"]
        if "j / Enter jump in" in text or "j jump in" in text:
            return ["j"]
        return [ESC]
    if "Play a marked card" in text:
        if "(UNO not called)" in text or "(not armed)" in text:  # (the words since helper-58)
            return ["u", ENTER]
        return [ENTER]
    if "No card of yours can be played" in text:
        return ["d"]
    if re.search(r"ROUND \d+ OVER", text) and "your turn" not in text:
        return [ENTER]
    return []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="play-tmux-screens")
    ap.add_argument("--target", type=int, default=100)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--house", default="")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--max-screens", type=int, default=3000)
    ap.add_argument("--think", type=float, default=0.3, help="seconds a bot takes per move")
    args = ap.parse_args()
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.txt"):
        old.unlink()
    demo = (
        f"cd {ROOT} && scripts/demo --players {args.players} --target {args.target} "
        f"--delay {args.think} --log {out.resolve()}/game.log"
        + (f" --house {args.house}" if args.house else "")
        + '; echo; echo "[demo exited: $?]"'
    )
    tmux = Tmux(80, 24)
    keylog = (out / "keys.txt").open("w")
    saved = 0
    last = ""
    acted_on = ""
    turn = 0
    start = time.monotonic()
    end_seen = False
    code = 1
    try:
        tmux.start(demo)
        while time.monotonic() - start < args.timeout:
            time.sleep(0.15)
            text = tmux.screen()
            norm = normal(text)
            if norm != last and saved < args.max_screens:
                saved += 1
                (out / f"{saved:04d}.txt").write_text(text)
                last = norm
            m = re.search(r"\[demo exited: (\d+)\]", text)
            if m:
                code = int(m.group(1))
                break
            if tmux.dead():
                break
            if norm == acted_on:
                continue  # already answered this screen; wait for it to change
            keys = decide(text, turn)
            if keys:
                if any(w in text for w in ("GAME OVER", "GAME ENDED", "GAME STOPPED")):
                    end_seen = True
                time.sleep(0.1)  # a person reads the screen first
                tmux.keys(*keys)
                turn += 1
                acted_on = norm
                keylog.write(f"{time.monotonic() - start:8.2f} {saved:04d} {' '.join(keys)}\n")
                keylog.flush()
        else:
            print(f"play_tmux: no end after {args.timeout:.0f} s", file=sys.stderr)
    finally:
        final = ""
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            final = tmux.screen()
        tmux.kill()
        keylog.close()
    (out / "final.txt").write_text(final)
    m = re.search(r"\[demo exited: (\d+)\]", final)
    if m:  # (the pane may die between a read and the check for its end: the last screen
        # holds the demo's code; a run read "demo exit 1" over a final "[demo exited: 0]")
        code = int(m.group(1))
    verified = "every node holds the same entries and every log verifies" in final
    took = time.monotonic() - start
    print(
        f"play_tmux: {saved} screens in {out}/ ({turn} key presses, {took:.0f} s); "
        f"end screen {'seen' if end_seen else 'NOT seen'}; demo exit {code}; "
        f"logs {'verified' if verified else 'NOT verified'}"
    )
    return 0 if (code == 0 and verified and end_seen) else 1


if __name__ == "__main__":
    sys.exit(main())
