"""Benchmark of the trustless session (not run in CI): whole games, then offline replays.

Method (docs/benchmarks.md, "bench_session: method"):

- Every measurement runs in a driver process, one per measured tree: the project's .venv
  python with PYTHONPATH set to that tree only (it checks that ``p2puno`` is imported from
  there), started once, warmed up with a one-round game, then fed one command at a time. The
  driver (written to a temp dir) uses only ``LocalTable(options, seed=...).run()``,
  ``session.log``, ``session.engine.round_no`` and ``p2puno.session.replay.replay``, and reads
  ``blame`` / ``outcome`` / ``seq`` only if the session has them, so it runs on older and newer
  revisions alike. This process never imports p2puno.
- Games: for each player count, one whole game to the target with every house rule on, all N
  seats as sessions in one process (every node's work, for all N nodes, on this machine). Timed
  **unprofiled** (``time.perf_counter``, best of ``--games``): s/round, entries, steps (session
  steps: one proposal and its responses each), entries/s and cpu% (process CPU / wall: well
  under 100 means the machine was busy).
- Split: a **separate, profiled** run of the same seed (the same game: its rounds and entries
  must match) under cProfile, reported only as shares of the profiled time, with the profiler's
  overhead (profiled wall / unprofiled wall) beside it. Layers: engine (p2puno.engine, pure
  Python by file name, and the compiled engine, which cProfile reports with file name "~" as
  methods of the engine's classes or built-ins of ``p2puno.engine.*`` / ``native__mypyc``),
  crypto (p2puno.crypto and pyca's EC, X25519, AEAD, HKDF), signing (Ed25519 sign + verify),
  encoding (p2puno.wire and json), log (p2puno.log: entries, hash chain), bots (p2puno.bots),
  other (p2puno.session bookkeeping, the harness). Any function that is none of these
  (built-ins such as ``len`` or ``sha256``, the standard library) is booked to the layers of
  its callers, in proportion to the time it spent under each caller. ``--other N`` prints the
  N functions that make up "other".
- Replays: each tree replays the log of its own game (or the ``--replay`` files), best of
  ``--repeat``: entries/s and cpu% (CPU of every process, signature workers included / wall),
  against one Ed25519 verify's cost measured in this run, between the replays.
- ``--baseline REF``: the same games and replays on git revision REF too, in a temporary
  ``git worktree add --detach`` (removed afterwards, also on error or Ctrl-C) with its own
  compiled engine: the working tree's build is reused if REF's engine sources are the same
  (the build's stamp says so), else REF's is built there (~30 s; pure Python if that fails,
  which the header says). Baseline and current runs alternate (B C C B B C ...), so both share
  the machine's drift, and each row prints both figures and the ratio current/baseline.
  ``--current REF`` measures a second revision instead of the working tree.

    scripts/bench_session                             # 4 and 10 players to 500
    scripts/bench_session --players 2,4 --target 50   # quick
    scripts/bench_session --baseline HEAD             # the working tree against HEAD
    scripts/bench_session --baseline HEAD~3 --current HEAD
    scripts/bench_session --replay A.log B.log        # replays of these files only
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import pstats
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = ("crypto", "engine", "signing", "encoding", "log", "bots", "other")

# Runs inside the measured tree. Keep it small and to the session's most stable API.
DRIVER = r"""
import cProfile, gc, hashlib, json, os, resource, signal, sys, time, traceback

signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops this process

out = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)  # whatever the code under test prints goes to stderr, not into the answers
ROOT = os.path.realpath(sys.argv[1])
# the editable install's finder would fill in modules this tree lacks from the working tree
for hooks in (sys.meta_path, sys.path_hooks):
    hooks[:] = [h for h in hooks if "__editable__" not in str(getattr(h, "__module__", ""))]


def check_origin():
    for name, mod in list(sys.modules.items()):
        where = os.path.realpath(getattr(mod, "__file__", None) or ROOT + os.sep)
        if name.split(".")[0] == "p2puno" and not where.startswith(ROOT + os.sep):
            raise RuntimeError(f"{name} was imported from {where}, not from {ROOT}")


def usage():
    s, c = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return time.perf_counter(), s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def game(players, target, seed, profile=None, log=None):
    from p2puno.engine import Options
    from p2puno.session.harness import LocalTable

    opts = Options(players, progressive=True, seven_o=True, jump_in=True, target=target)
    table = LocalTable(opts, seed=seed)
    prof = cProfile.Profile() if profile else None
    gc.collect()
    t0, c0 = usage()
    if prof:
        prof.enable()
    table.run()
    if prof:
        prof.disable()
    t1, c1 = usage()
    s0 = table.sessions[0]
    fault = getattr(s0, "blame", None)
    outcome = getattr(s0, "outcome", None)
    if fault is None and outcome is not None:
        fault = getattr(outcome, "blame", None)
    if fault is not None:
        raise RuntimeError(f"the game ended in a blame: {fault}")
    if prof:
        prof.dump_stats(profile)
    data = b"".join(s0.log.raw(h) + b"\n" for h, _ in s0.log)
    if log:
        with open(log, "wb") as f:
            f.write(data)
    steps = getattr(s0, "seq", None)
    return {
        "wall": t1 - t0,
        "cpu": c1 - c0,
        "rounds": s0.engine.round_no,
        "entries": len(s0.log),
        "steps": steps if isinstance(steps, int) else None,
        "digest": hashlib.sha256(data).hexdigest(),
    }


def replay(path):
    from p2puno.session.replay import replay

    gc.collect()
    t0, c0 = usage()
    r = replay(path)
    t1, c1 = usage()
    error = None if r.ok else str(getattr(r, "error", "failed"))
    return {"ok": bool(r.ok), "error": error, "entries": r.entries, "wall": t1 - t0, "cpu": c1 - c0}


def hello():
    import p2puno.engine

    game(2, 1, "bench-session-warm-up")
    classes = set()
    for name, mod in list(sys.modules.items()):
        if name.startswith("p2puno.engine") and mod is not None:
            for v in vars(mod).values():
                if isinstance(v, type) and str(v.__module__).startswith("p2puno.engine"):
                    classes.add(v.__name__)
    native = bool(getattr(p2puno.engine, "NATIVE", False))
    return {"native": native, "classes": sorted(classes)}


for line in sys.stdin:
    cmd = json.loads(line)
    try:
        answer = {"ok": {"game": game, "replay": replay, "hello": hello}[cmd.pop("cmd")](**cmd)}
        check_origin()
    except BaseException:
        answer = {"error": traceback.format_exc()}
    out.write(json.dumps(answer) + "\n")
"""


class BenchError(Exception):
    pass


def git(*args: str) -> str:
    r = subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def venv_python() -> str:
    py = os.path.join(REPO, ".venv", "bin", "python")
    return py if os.path.exists(py) else sys.executable


def tree_env(root: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = root  # this tree only: its p2puno shadows the editable install
    return env


@dataclass
class Side:
    label: str  # "current" or "baseline"
    root: str  # the tree on PYTHONPATH
    what: str  # for the header
    engine: str = ""  # how its compiled engine was provided
    native: bool = False
    classes: frozenset[str] = frozenset()
    proc: subprocess.Popen[str] | None = None
    games: dict[int, list[dict[str, Any]]] = field(default_factory=dict)

    def start(self, python: str, driver: str, cwd: str) -> None:
        self.proc = subprocess.Popen(
            [python, driver, self.root],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env=tree_env(self.root),
        )
        hi = self.call("hello")
        self.native, self.classes = hi["native"], frozenset(hi["classes"])

    def call(self, cmd: str, **kw: Any) -> Any:
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"cmd": cmd, **kw}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise BenchError(f"{self.label}: the driver exited (code {self.proc.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise BenchError(f"{self.label} ({self.what}), {cmd} {kw}:\n{answer['error']}")
        return answer["ok"]

    def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=2)  # idle drivers exit at once
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


def native_problem(python: str, root: str) -> str | None:
    code = "from p2puno.engine import native; print(native.problem() or '')"
    r = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, cwd=root, env=tree_env(root)
    )
    if r.returncode != 0:
        return (r.stderr.strip().splitlines() or ["import failed"])[-1]
    return r.stdout.strip() or None


def provide_engine(python: str, root: str, build: bool) -> str:
    """Give the worktree at ``root`` a compiled engine: the working tree's build when it was
    made from the same engine sources (its stamp matches), else a build of its own."""
    if not os.path.exists(os.path.join(root, "p2puno", "engine", "native.py")):
        return "pure Python (no compiled engine at this revision)"
    if os.environ.get("P2PUNO_ENGINE") == "pure":
        return "pure Python (P2PUNO_ENGINE=pure)"
    ours = os.path.join(REPO, "p2puno", "engine", "_native")
    theirs = os.path.join(root, "p2puno", "engine", "_native")
    if os.path.isdir(ours):
        shutil.copytree(ours, theirs)
        if native_problem(python, root) is None:
            return "compiled, the working tree's build (same engine sources)"
        shutil.rmtree(theirs)
    if not build:
        return "pure Python (engine sources differ from the working tree's build; not built)"
    print(f"building the compiled engine in {root} (its sources differ; ~30 s)", file=sys.stderr)
    r = subprocess.run(
        [python, "-m", "p2puno.engine.build_native"],
        capture_output=True,
        text=True,
        cwd=root,
        env=tree_env(root),
    )
    why = native_problem(python, root)
    if why is None:
        return "compiled, built for this run"
    said = (r.stdout + r.stderr).strip().splitlines()
    return f"pure Python (build failed: {said[-1] if said else why})"


@contextlib.contextmanager
def worktree(ref: str, tmp: str, name: str) -> Iterator[tuple[str, str]]:
    """A detached worktree of ``ref`` under ``tmp``, removed (and pruned) on the way out."""
    try:
        commit = git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except BenchError:
        raise BenchError(f"{ref!r} names no commit in {REPO}") from None
    desc = f"{ref} = {git('log', '-1', '--format=%h %<(60,trunc)%s', commit)}".rstrip()
    path = os.path.join(tmp, name)
    try:
        git("worktree", "add", "--detach", "--quiet", path, commit)
        yield path, desc
    finally:
        subprocess.run(
            ["git", "-C", REPO, "worktree", "remove", "--force", path], capture_output=True
        )
        shutil.rmtree(path, ignore_errors=True)
        subprocess.run(["git", "-C", REPO, "worktree", "prune"], capture_output=True)


# --- the split ------------------------------------------------------------------------------

_PYCA = re.compile(r"<built-in method (ec|x25519|x448|ed448|aead|hashes|hmac|kdf|dh|rsa|dsa)\.")
_OF_CLASS = re.compile(r"of '([^']+)' objects>")
_DIRS = (
    # third-party and standard-library code first: a checkout may itself be named p2puno, and
    # its .venv's cryptography was booked to "other" (helper-50's clone failed the smoke test)
    ("/cryptography/", "crypto"),
    ("/json/", "encoding"),
    ("/p2puno/crypto/", "crypto"),
    ("/p2puno/engine/", "engine"),
    ("/p2puno/wire/", "encoding"),
    ("/p2puno/log/", "log"),
    ("/p2puno/bots/", "bots"),
    ("/p2puno/", "other"),  # the session, the harness
)

Func = tuple[str, int, str]


def layer_of(func: Func, engine_classes: frozenset[str]) -> str | None:
    """The layer a profiled function belongs to by itself; None: book it to its callers."""
    filename, _line, name = func
    if "ed25519" in name.lower() or "ed25519" in filename.lower():
        return "signing"  # pyca's Ed25519 (its C methods and its Python wrappers)
    if filename == "~":  # C functions, the compiled engine's among them
        if "p2puno.engine." in name or "native__mypyc" in name:
            return "engine"  # a compiled module-level function
        m = _OF_CLASS.search(name)
        if m and m.group(1) in engine_classes:
            return "engine"  # a method of a compiled engine class ('Game', not 'x.Game')
        if "cryptography" in name or _PYCA.match(name):
            return "crypto"
        if "_json." in name:
            return "encoding"
        return None
    path = filename.replace(os.sep, "/")
    return next((layer for part, layer in _DIRS if part in path), None)


def split(
    stats_file: str, engine_classes: frozenset[str]
) -> tuple[dict[str, float], list[tuple[float, str]]]:
    """Seconds of profiled time per layer, and what "other" is made of (seconds, function)."""
    stats: dict[Func, Any] = pstats.Stats(stats_file).stats  # type: ignore[attr-defined]
    homes: dict[Func, dict[str, float]] = {}

    def home(func: Func) -> dict[str, float]:
        if func in homes:
            return homes[func]
        own = layer_of(func, engine_classes)
        if own is not None:
            homes[func] = {own: 1.0}
            return homes[func]
        homes[func] = {"other": 1.0}  # while its callers are resolved (recursion)
        callers = {c: e for c, e in stats[func][4].items() if c in stats}
        weights = {c: e[2] for c, e in callers.items()}  # time spent in func under caller c
        if sum(weights.values()) <= 0:
            weights = {c: e[0] for c, e in callers.items()}  # calls
        total = sum(weights.values())
        mix: dict[str, float] = {}
        for c, w in weights.items():
            for layer, f in home(c).items():
                mix[layer] = mix.get(layer, 0.0) + f * w / total
        homes[func] = mix if total > 0 else {"other": 1.0}
        return homes[func]

    out = dict.fromkeys(LAYERS, 0.0)
    other: list[tuple[float, str]] = []
    for func, row in stats.items():
        for layer, f in home(func).items():
            out[layer] += row[2] * f
            if layer == "other" and row[2] * f > 0:
                filename, line, name = func
                where = name if filename == "~" else f"{name} ({shorten(filename)}:{line})"
                other.append((row[2] * f, where))
    return out, sorted(other, reverse=True)


def shorten(path: str) -> str:
    i = path.find("/p2puno/")
    return path[i + 1 :] if i >= 0 else os.path.basename(path)


# --- measuring ------------------------------------------------------------------------------


def verify_cost(n: int = 1000) -> float:
    key = Ed25519PrivateKey.generate()
    pub, msg = key.public_key(), b"x" * 300
    sig = key.sign(msg)
    t0 = time.perf_counter()
    for _ in range(n):
        pub.verify(sig, msg)
    return (time.perf_counter() - t0) / n


def ratio(cur: float | None, base: float | None) -> str:
    return f"{cur / base:.2f}x" if cur and base else "-"


def fmt(x: float | int | None, spec: str) -> str:
    return "?" if x is None else format(x, spec)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", default="4,10", help="player counts (4,10)")
    ap.add_argument("--target", type=int, default=500)
    ap.add_argument("--seed", default="bench")
    ap.add_argument("--games", type=int, default=1, help="unprofiled runs per game; best counts")
    ap.add_argument("--repeat", type=int, default=3, help="replays per log; the best counts (3)")
    ap.add_argument(
        "--split", choices=("none", "current", "both"), help="profiled runs (default: both sides)"
    )
    ap.add_argument("--other", type=int, default=0, metavar="N", help="show what 'other' holds")
    ap.add_argument("--baseline", metavar="REF", help="also measure git revision REF")
    ap.add_argument("--current", metavar="REF", help="measure REF instead of the working tree")
    ap.add_argument("--no-build", action="store_true", help="never build a revision's engine")
    ap.add_argument("--save", metavar="DIR", help="keep each game's log in DIR")
    ap.add_argument("--replay", nargs="*", metavar="LOG", help="only replay these log files")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up the worktrees
    try:
        with contextlib.ExitStack() as stack:
            return run(args, stack)
    except BenchError as e:
        print(f"bench_session: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench_session: interrupted (worktrees removed)", file=sys.stderr)
        return 130


def run(args: argparse.Namespace, stack: contextlib.ExitStack) -> int:
    tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="p2puno-bench-session-"))
    python = venv_python()
    build = not args.no_build and os.environ.get("P2PUNO_BUILD_NATIVE", "1") != "0"
    sides: list[Side] = []
    for label, ref in (("baseline", args.baseline), ("current", args.current)):
        if ref is None:
            continue
        root, desc = stack.enter_context(worktree(ref, tmp, label))
        sides.append(Side(label, root, desc, provide_engine(python, root, build)))
    if args.current is None:
        sides.append(Side("current", REPO, f"working tree {REPO}", "as built there"))
    driver = os.path.join(tmp, "bench_session_driver.py")
    with open(driver, "w") as f:
        f.write(DRIVER)
    for side in sides:
        stack.callback(side.stop)
        side.start(python, driver, tmp)

    load = os.getloadavg()[0]
    games_run = (
        ""
        if args.replay is not None
        else (f"; games: all house rules on, to {args.target}, seed {args.seed!r}/<players>")
    )
    print(f"load average {load:.2f}; cores {os.cpu_count()}{games_run}")
    for side in sides:
        engine = "compiled engine (mypyc)" if side.native else "pure-Python engine"
        print(f"{side.label + ':':<10} {side.what}; {engine} [{side.engine}]")
    if len({s.native for s in sides}) > 1:
        print(
            "WARNING: the two sides run different engine builds (compiled vs pure Python); "
            "python -m p2puno.engine.build_native --status says why"
        )
    flip = itertools.count()

    def turns() -> list[Side]:  # B C, C B, B C, ...: both sides share the machine's drift
        return sides if next(flip) % 2 == 0 else sides[::-1]

    paths: list[tuple[str, dict[str, str]]] = []
    if args.replay is not None:
        paths = [(os.path.basename(p), {s.label: p for s in sides}) for p in args.replay]
    else:
        players = [int(p) for p in args.players.split(",")]
        games(args, sides, players, turns, paths, tmp)
        split_table(args, sides, players, turns, tmp)
    replays(args, sides, paths, turns)
    return 0


def row_label(side: Side, n: int) -> str:
    return f"{n:>7} {side.label:<9}"


def games(
    args: argparse.Namespace,
    sides: list[Side],
    players: list[int],
    turns: Any,
    paths: list[tuple[str, dict[str, str]]],
    tmp: str,
) -> None:
    print(f"\ngames, unprofiled (best of {args.games}); steps = session steps; cpu% = CPU / wall")
    print(
        f"{'players':>7} {'side':<9} {'rounds':>6} {'entries':>7} {'steps':>6} "
        f"{'s/round':>8} {'entries/s':>9} {'cpu%':>5}"
    )
    for n in players:
        logs: dict[str, str] = {}
        for side in sides:
            logs[side.label] = os.path.join(args.save or tmp, f"game-{n}p.{side.label}.log")
            side.games[n] = []
        for g in range(args.games):
            for side in turns():
                log = logs[side.label] if g == 0 else None
                res = side.call("game", players=n, target=args.target, seed=seed(args, n), log=log)
                side.games[n].append(res)
        best = {}
        for side in sides:
            b = best[side.label] = min(side.games[n], key=lambda r: r["wall"])
            print(
                f"{row_label(side, n)} {b['rounds']:>6} {b['entries']:>7} "
                f"{fmt(b['steps'], '>6')} {b['wall'] / b['rounds']:>8.3f} "
                f"{b['entries'] / b['wall']:>9,.0f} {100 * b['cpu'] / b['wall']:>5.0f}"
            )
        if len(sides) == 2:
            b, c = best["baseline"], best["current"]
            same = "same log" if b["digest"] == c["digest"] else "the logs differ"
            print(
                f"{'':>7} {'cur/base':<9} {'':>6} {'':>7} {'':>6} "
                f"{ratio(c['wall'] / c['rounds'], b['wall'] / b['rounds']):>8} "
                f"{ratio(c['entries'] / c['wall'], b['entries'] / b['wall']):>9}        {same}"
            )
        paths.append((f"{n} players", logs))


def seed(args: argparse.Namespace, n: int) -> str:
    return f"{args.seed}/{n}"


def split_table(
    args: argparse.Namespace, sides: list[Side], players: list[int], turns: Any, tmp: str
) -> None:
    which = args.split or "both"
    if which == "none":
        return
    profiled = {s.label for s in sides if which == "both" or s.label == "current"}
    print(
        "\nsplit: cProfile of a separate run of the same game, in % of the profiled time "
        "(overhead = profiled / unprofiled wall)"
    )
    cols = " ".join(f"{k:>8}" for k in LAYERS)
    print(f"{'players':>7} {'side':<9} {'overhead':>8} {cols}")
    listed: list[tuple[str, list[tuple[float, str]]]] = []
    for n in players:
        order = [s for s in sides if s.label in profiled]
        shares: dict[str, dict[str, float]] = {}
        results: dict[str, tuple[Side, dict[str, Any], dict[str, float], list[Any]]] = {}
        for side in turns():
            if side.label not in profiled:
                continue
            prof = os.path.join(tmp, f"game-{n}p.{side.label}.prof")
            res = side.call("game", players=n, target=args.target, seed=seed(args, n), profile=prof)
            parts, other = split(prof, side.classes)
            results[side.label] = (side, res, parts, other)
        for side in order:
            _, res, parts, other = results[side.label]
            unprof = min(side.games[n], key=lambda r: r["wall"])
            if (res["rounds"], res["entries"]) != (unprof["rounds"], unprof["entries"]):
                print(f"WARNING: {side.label}'s profiled game differs from its unprofiled one")
            total = sum(parts.values()) or 1.0
            shares[side.label] = {k: 100 * v / total for k, v in parts.items()}
            cells = " ".join(f"{shares[side.label][k]:>7.1f}%" for k in LAYERS)
            print(f"{row_label(side, n)} {res['wall'] / unprof['wall']:>7.2f}x {cells}")
        if len(shares) == 2:
            diff = " ".join(
                f"{shares['current'][k] - shares['baseline'][k]:>+7.1f}p" for k in LAYERS
            )
            print(f"{'':>7} {'cur-base':<9} {'':>8} {diff}")
        for side in order:
            parts, other = results[side.label][2:]
            total = sum(parts.values()) or 1.0
            listed.append((f"{side.label}, {n} players", [(100 * t / total, w) for t, w in other]))
    for what, other in listed if args.other > 0 else []:
        print(f"'other' of {what}, top {args.other} (% of the profiled time):")
        for share, where in other[: args.other]:
            print(f"  {share:5.2f}%  {where}")


def replays(
    args: argparse.Namespace,
    sides: list[Side],
    paths: list[tuple[str, dict[str, str]]],
    turns: Any,
) -> None:
    if not paths:
        return
    print(
        f"\nreplay (p2puno.session.replay: signatures in worker processes), best of "
        f"{args.repeat}; cpu% = CPU of all processes / wall; target >= 5,000 entries/s"
    )
    print(
        f"{'log':>12} {'side':<9} {'entries':>7} {'replay s':>9} {'entries/s':>9} {'cpu%':>5} "
        f"{'x bare verify':>13}"
    )
    costs: list[float] = []
    for name, files in paths:
        best: dict[str, dict[str, Any]] = {}
        failed: dict[str, str] = {}
        for _ in range(args.repeat):
            costs.append(verify_cost())
            for side in turns():
                if side.label in failed:
                    continue
                res = side.call("replay", path=files[side.label])
                if not res["ok"]:
                    failed[side.label] = str(res["error"])
                elif side.label not in best or res["wall"] < best[side.label]["wall"]:
                    best[side.label] = res
        cost = statistics.median(costs)
        for side in sides:
            if side.label in failed:
                print(f"{name:>12} {side.label:<9} replay FAILED: {failed[side.label][:200]}")
                continue
            b = best[side.label]
            rate = b["entries"] / b["wall"]
            print(
                f"{name:>12} {side.label:<9} {b['entries']:>7} {b['wall']:>9.3f} {rate:>9,.0f} "
                f"{100 * b['cpu'] / b['wall']:>5.0f} {rate * cost:>12.2f}x  "
                f"{'met' if rate >= 5000 else 'NOT met'}"
            )
        if len(best) == 2:
            b, c = best["baseline"], best["current"]
            print(
                f"{'':>12} {'cur/base':<9} {'':>7} {ratio(c['wall'], b['wall']):>9} "
                f"{ratio(c['entries'] / c['wall'], b['entries'] / b['wall']):>9}"
            )
    print(
        f"Ed25519 verify, measured between the replays: median {statistics.median(costs) * 1e6:.0f}"
        f" us (range {min(costs) * 1e6:.0f}-{max(costs) * 1e6:.0f}) -> "
        f"{1 / statistics.median(costs):,.0f} signatures/s on one core; 'x bare verify' = "
        "entries/s x that cost"
    )


if __name__ == "__main__":
    raise SystemExit(main())
