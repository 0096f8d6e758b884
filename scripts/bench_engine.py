"""Rounds/s and actions/s of p2puno's rules engine, next to RLCard's UNO, in one run.

Run it through ``scripts/bench_engine`` (which makes ./.venv-bench with rlcard, and builds the
optional compiled engine when it can); ``--help`` lists the options. What is measured is
printed with the table and written up in docs/benchmarks.md ("Engine vs RLCard").

The p2puno policy mirrors what RLCard's random play can do, so that rounds are comparable:

- on turn: a uniformly random play among the legal ones if there is one, else draw. This is
  RLCard's own random policy (``choice(state['legal_actions'])``, which lists a Wild once per
  color): each variant of a card is one play (a Wild's 4 colors, a Seven-O 7's seats), except
  that UNO is always called with the next-to-last card (only the variants with UNO are drawn
  from then);
- after drawing: play the drawn card (a random variant) if it is playable, else keep it;
- under a pending Draw Two / Wild Draw Four: take it, or challenge a Wild Draw Four at 50%
  (no stacking); a verdict is the truthful one (the only one the engine offers here);
- a Wild turned up at the start: a random color;
- reactions, while the window after a play is open and a seat is vulnerable (it played its
  next-to-last card without calling UNO), asked of every seat that has one
  (``Game.reactors()``): call UNO and catch when offered; never jump in (so with no seat
  vulnerable there is nothing to ask).

Every ``Game.apply`` call counts as an action (each is validated by the engine); ``round-over``
events count rounds; games to 500 are played one after another until the time is up. Choices
use ``random.Random(seed)``; deck orders (the engine takes them from outside) a numpy
``RandomState(seed)``, as RLCard shuffles its own deck, and are timed too.

The p2puno rows run in a child process per engine: the pure-Python modules
(``P2PUNO_ENGINE=pure``) and, when it is built, the mypyc-compiled build of the same modules
(``P2PUNO_ENGINE=native``, see p2puno/engine/native.py).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_rlcard
from bench_rlcard import Result

from p2puno.engine import Game, Kind, Options, Phase
from p2puno.engine.cards import DECK_SIZE

PLAY, DRAW, KEEP, TAKE = Kind.PLAY, Kind.DRAW, Kind.KEEP, Kind.TAKE
CHALLENGE, UNO, CATCH = Kind.CHALLENGE, Kind.UNO, Kind.CATCH
TURN, DRAWN, PENALTY, GAME_OVER = Phase.TURN, Phase.DRAWN, Phase.PENALTY, Phase.GAME_OVER

POLICY = (
    "p2puno policy: on turn a uniformly random legal play, each variant one play as RLCard "
    "lists a Wild once per color (Wild: 4 colors; 7 under Seven-O: one per seat; with the "
    "next-to-last card only the variants that call UNO), else draw; after a draw play the drawn"
    " card if playable, else keep; a pending +2/+4 is taken (a +4 challenged at 50%), no "
    "stacking; verdicts are truthful; reactions while a seat is vulnerable (asked of the seats "
    "Game.reactors() names): call UNO and catch when offered, never jump in. Every action "
    "through Game.apply (validated). Choices: random.Random(seed); deck orders: numpy "
    "RandomState(seed).permutation, as RLCard shuffles."
)
ENGINES = {"pure": "pure", "native": "mypyc"}


def run_p2puno(players: int, full: bool, seconds: float, seed: int, max_rounds: int = 0) -> Result:
    """Whole games to 500 until ``seconds`` (or ``max_rounds``) are up.

    The loop is kept as lean as RLCard's own (scripts/bench_rlcard.py): a random choice is
    ``seq[below(len(seq))]``, which is exactly what ``random.choice`` does without its extra
    call; events are scanned for ``round-over`` only when a round can have ended (the engine
    then waits for a new deck or the game is over); reactions are asked only of the seats
    ``Game.reactors()`` names, which are exactly those whose ``reactions`` are not empty.
    """
    import numpy  # in .venv-bench: rlcard needs it

    opts = Options(players=players, progressive=full, seven_o=full, jump_in=full)
    rng = random.Random(seed)
    rand = rng.random
    below = rng._randbelow  # what rng.choice(seq) calls: seq[below(len(seq))]
    permutation = numpy.random.RandomState(seed).permutation  # deck orders, as RLCard's
    perf = time.perf_counter
    rounds = actions = games = 0
    t0 = perf()
    done = False
    while not done:
        g = Game(opts)
        games += 1
        turn_actions, apply, reactions, reactors = g.turn_actions, g.apply, g.reactions, g.reactors
        while True:
            need = g.need
            if need is not None:
                if not need.sources:  # a fresh deck: a random order of the 108 card ids
                    cards = permutation(DECK_SIZE).tolist()
                else:  # a reshuffle of these cards
                    faces = g.faces
                    cards = [faces[need.sources[i]] for i in permutation(need.count).tolist()]
                events = g.shuffle(cards)
            else:
                phase = g.phase
                if phase is TURN or phase is DRAWN:
                    # turn_actions lists the plays, each card's variants one after another
                    # (with the next-to-last card: each without, then with UNO), then the
                    # draw (TURN) or keep (DRAWN) last
                    acts = turn_actions(g.turn)
                    n = len(acts) - 1
                    if n <= 1:
                        a = acts[0]  # the only play, or (none) the draw / keep
                    elif acts[1][7]:  # Action.uno: every play comes as a pair; call UNO
                        a = acts[below(n >> 1) * 2 + 1]
                    else:
                        a = acts[below(n)]
                elif phase is PENALTY:  # take, or challenge a +4 at 50%; never stack
                    acts = turn_actions(g.turn)
                    a = acts[0]  # turn_actions lists take first, then challenge
                    if len(acts) > 1 and rand() < 0.5:
                        a = _first(acts, CHALLENGE) or a
                elif phase is GAME_OVER:
                    break
                else:  # START_COLOR (4 colors) or VERDICT (the truthful one only)
                    acts = turn_actions(g.turn)
                    a = acts[below(len(acts))] if len(acts) > 1 else acts[0]
                events = apply(a)
                actions += 1
                # Reactions exist only while the window after a play is open. Calling UNO and
                # catching are offered only while a seat is vulnerable (it played its
                # next-to-last card without UNO): the policy never jumps in, so it has nothing
                # to ask of reactors() otherwise, and does not.
                while g.window and g.vulnerable:
                    r = None
                    for s in reactors():
                        for x in reactions(s):
                            if x.kind is UNO or x.kind is CATCH:
                                r = x
                                break
                        if r is not None:
                            break
                    if r is None:
                        break
                    events += apply(r)
                    actions += 1
            # A round ends with a round-over event, after which the engine waits for the next
            # round's deck (or the game is over): only then can these events hold one.
            if g.need is not None or g.phase is GAME_OVER:
                for e in events:
                    if e.kind == "round-over":
                        rounds += 1
                        done = rounds >= max_rounds if max_rounds else perf() - t0 >= seconds
                if done:
                    break
    elapsed = perf() - t0
    return Result(rounds, actions, elapsed, 0, players)


def _first(acts: list, kind: Kind):  # type: ignore[no-untyped-def]
    for a in acts:
        if a.kind is kind:
            return a
    return None


def _measure(fn: Callable[[], Result]) -> Result:
    gc.collect()
    c0 = time.process_time()
    r = fn()
    r.cpu = time.process_time() - c0  # cpu% well under 100: the machine was busy, rerun
    return r


def _child(engine: str, secs: float, seed: int, nr: int) -> None:
    """Measure the four p2puno configurations with one engine; one JSON line per row."""
    import p2puno.engine

    if (engine == "native") != p2puno.engine.NATIVE:
        raise SystemExit(f"bench_engine: asked for the {engine} engine, another one loaded")
    run_p2puno(4, True, 0, seed, max_rounds=20)  # warm-up, not counted
    for full in (True, False):
        for n in (2, 4):
            r = _measure(lambda n=n, full=full: run_p2puno(n, full, secs, seed, nr))
            row = {"full": full, "n": n, "rounds": r.rounds, "actions": r.actions}
            print(json.dumps({**row, "seconds": r.seconds, "cpu": r.cpu}), flush=True)


def _p2puno_rows(engine: str, secs: float, seed: int, nr: int):  # type: ignore[no-untyped-def]
    """Run _child in a fresh process with P2PUNO_ENGINE=engine; yield (name, n, Result)."""
    cmd = [sys.executable, __file__, "--child", engine, "--seconds", str(secs)]
    cmd += ["--seed", str(seed), "--rounds", str(nr)]
    env = {**os.environ, "P2PUNO_ENGINE": engine}
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            d = json.loads(line)
            name = f"p2puno {'full' if d['full'] else 'official'} ({ENGINES[engine]})"
            r = Result(d["rounds"], d["actions"], d["seconds"], 0, d["n"], d["cpu"])
            yield name, d["n"], r
    if proc.returncode:
        raise SystemExit(f"bench_engine: the {engine} child failed ({proc.returncode})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per configuration (5)")
    ap.add_argument("--seed", type=int, default=1, help="seed of every generator (1)")
    ap.add_argument("--rounds", type=int, default=0, help="a fixed number of rounds instead")
    ap.add_argument("--only", choices=["p2puno", "rlcard"], help="measure one side only")
    ap.add_argument(
        "--engine",
        choices=["both", "pure", "native"],
        default="both",
        help="p2puno engine(s): both (the compiled one only if built), pure, native",
    )
    ap.add_argument(
        "--profile", action="store_true", help="then profile p2puno full rules 4p (pyinstrument)"
    )
    ap.add_argument("--profile-seconds", type=float, default=10.0)
    ap.add_argument("--child", choices=["pure", "native"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    secs, seed, nr = args.seconds, args.seed, args.rounds
    if args.child:
        _child(args.child, secs, seed, nr)
        return

    import numpy
    import rlcard

    from p2puno.engine import native

    engines = ["native", "pure"] if args.engine == "both" else [args.engine]
    why = native.problem()
    if why is not None and "native" in engines:
        if args.engine == "native":
            raise SystemExit(f"bench_engine: --engine native: {why}")
        engines.remove("native")
    print(
        f"date {datetime.date.today()}  nproc {os.cpu_count()}"
        f"  python {platform.python_version()}  rlcard {rlcard.__version__}"
        f"  numpy {numpy.__version__}"
    )
    print(
        f"each configuration: {f'{nr} rounds' if nr else f'{secs:.1f} s'}, seed {seed}, "
        "time.perf_counter, one after another (p2puno: one process per engine)"
    )
    print(POLICY)
    print(
        "p2puno engines: "
        + ", ".join(f"{ENGINES[e]} (P2PUNO_ENGINE={e})" for e in engines)
        + ("" if why is None else f"; no compiled engine: {why}")
    )
    print(
        "RLCard core: UnoGame(num_players=N), init_game..is_over = 1 round, uniform random "
        "legal action per step (from the returned state). RLCard env.run: rlcard.make('uno') "
        "+ RandomAgent x2 (uniform among legal actions, as RLCard's own examples), always 2p."
    )
    print()

    rows: list[tuple[str, int, Result]] = []
    if args.only != "rlcard":
        for engine in engines:
            for name, n, r in _p2puno_rows(engine, secs, seed, nr):
                rows.append((name, n, r))
                _row(name, n, r, header=len(rows) == 1)
    if args.only != "p2puno":
        bench_rlcard.run_core(4, 0, seed, max_rounds=20)  # warm-up, not counted
        for n in (2, 4):
            r = _measure(lambda n=n: bench_rlcard.run_core(n, secs, seed, nr))
            rows.append(("RLCard UnoGame core", n, r))
            _row("RLCard UnoGame core", n, r, header=len(rows) == 1)
        r = _measure(lambda: bench_rlcard.run_env(secs, seed, nr))
        rows.append(("RLCard env.run", r.seats_seen, r))
        _row("RLCard env.run", r.seats_seen, r, header=len(rows) == 1)

    print(
        "cpu% = process CPU time / wall time: well under 100 means the machine was busy "
        "(it is shared); rerun."
    )
    rate = {(name, n): r.rounds / r.seconds for name, n, r in rows}
    cpu_rate = {(name, n): r.rounds / max(r.cpu, 1e-9) for name, n, r in rows}
    for name, n, r in rows:
        if r.aborted:
            print(f"note: {name} {n}p: {r.aborted} rounds raised inside RLCard (not counted)")
        if name == "RLCard UnoGame core" and r.seats_seen != n:
            print(f"note: RLCard core at {n}p: only {r.seats_seen} seats ever acted")
    if ("RLCard UnoGame core", 4) in rate:
        print(
            "RLCard UnoGame(num_players=4) does deal 4 hands and rotate turns over 4 seats in "
            "rlcard 1.2.0 (checked above); only get_payoffs() assumes 2 players."
        )
    if args.only is None:
        print()
        print("ratio p2puno / RLCard UnoGame core, rounds/s (target >= 2.00x):")
        names = [name for name, n, _ in rows if name.startswith("p2puno") and n == 2]
        for name in names:
            parts = []
            for n in (2, 4):
                x = rate[(name, n)] / rate[("RLCard UnoGame core", n)]
                y = cpu_rate[(name, n)] / cpu_rate[("RLCard UnoGame core", n)]
                verdict = "met" if x >= 2 else "NOT met"
                parts.append(f"{n}p {x:5.2f}x {verdict:<7} (per CPU-second {y:4.2f}x)")
            print(f"  {name:<26} " + "   ".join(parts))
        env2 = rate[("RLCard env.run", 2)]
        print(
            "ratio p2puno / RLCard env.run (2p), rounds/s: "
            + ", ".join(f"{name} {rate[(name, 2)] / env2:.2f}x" for name in names)
        )

    if args.profile:
        _profile(args.profile_seconds, seed)


def _row(name: str, n: int, r: Result, header: bool) -> None:
    if header:
        print(
            f"{'configuration':<28}{'players':>8}{'rounds':>9}{'actions':>10}{'seconds':>9}"
            f"{'rounds/s':>11}{'actions/s':>12}{'actions/round':>15}{'cpu%':>6}"
        )
    print(
        f"{name:<28}{n:>8}{r.rounds:>9}{r.actions:>10}{r.seconds:>9.2f}"
        f"{r.rounds / r.seconds:>11.1f}{r.actions / r.seconds:>12.0f}"
        f"{r.actions / max(r.rounds, 1):>15.1f}{100 * r.cpu / r.seconds:>6.0f}",
        flush=True,
    )


def _profile(seconds: float, seed: int) -> None:
    from pyinstrument import Profiler

    import p2puno.engine

    print()
    print(
        f"profile: p2puno full rules, 4 players, {seconds:.0f} s, "
        f"{'mypyc' if p2puno.engine.NATIVE else 'pure Python'} engine (pyinstrument; the "
        "bench's own policy code is in the picture too; P2PUNO_ENGINE=pure for the other)"
    )
    prof = Profiler(interval=0.0005)
    prof.start()
    run_p2puno(4, True, seconds, seed)
    prof.stop()
    print(prof.output_text(unicode=False, color=False, show_all=False))


if __name__ == "__main__":
    main()
