"""Bots and the simulator."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from p2puno.bots import SeatView, make_bot
from p2puno.cli import app
from p2puno.engine import Options
from p2puno.sim import play_game
from p2puno.sim.strength import measure

runner = CliRunner()


def test_heuristic_beats_random_two_players_over_2000_rounds() -> None:
    # The bar: the lower end of the 95% CI above 55% (RLCard's rule agent: ~55%).
    s = measure(2, 2000)
    assert s.rounds >= 2000
    assert s.low > 0.55, str(s)


def test_seat_view_shows_only_own_hand() -> None:
    from tests.engine.rig import rig

    g, _ = rig(Options(players=3), [["r1"], ["g2"], ["b3"]], "r7")
    v = SeatView(g, 1)
    assert sorted(v.my_cards()) == sorted(g.hand_cards(1))
    assert not hasattr(v, "game") and not hasattr(v, "faces")


def test_every_bot_finishes_games_with_every_house_rule() -> None:
    opts = Options(players=5, progressive=True, seven_o=True, jump_in=True, target=150)
    bots = [make_bot(n, i) for i, n in enumerate(["heuristic", "random"] * 2 + ["random"])]
    record = play_game(opts, bots, "all-rules")
    assert record.winners and record.rounds >= 1


def _sim(*args: str) -> str:
    result = runner.invoke(app, ["simulate", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_simulate_same_seed_same_output() -> None:
    args = ["--players", "3", "--games", "4", "--seed", "7", "--house", "seven-o,jump-in"]
    a = json.loads(_sim(*args, "--json"))
    b = json.loads(_sim(*args, "--json"))
    a.pop("rounds_per_second")
    b.pop("rounds_per_second")
    assert a == b
    for key in ("games", "rounds", "turns", "rounds_per_second", "wins_per_seat"):
        assert key in json.loads(_sim(*args, "--json"))
    assert a["games"] == 4 and sum(a["wins_per_seat"]) >= 4
    text1 = _sim(*args).splitlines()[:-1]  # the last line is rounds/s
    text2 = _sim(*args).splitlines()[:-1]
    assert text1 == text2


def test_simulate_text_names_what_players_care_about() -> None:
    out = _sim("--players", "2", "--games", "3", "--scoring", "lowest", "--target", "200")
    for word in ("rounds", "turns", "challenges", "UNO penalties", "round wins by bot", "P0"):
        assert word in out


def test_simulate_bad_arguments_get_a_clear_error() -> None:
    for args, words in [
        (["--players", "1"], "players must be 2..10"),
        (["--players", "11"], "players must be 2..10"),
        (["--games", "0"], "games"),
        (["--house", "stacking"], "unknown house rule"),
        (["--scoring", "highest"], "scoring"),
        (["--target", "0"], "target"),
        (["--bots", "alphazero"], "unknown bot"),
    ]:
        result = runner.invoke(app, ["simulate", *args])
        assert result.exit_code == 2, args
        assert words in result.output, (args, result.output)


def test_demo_plays_a_whole_game_between_node_processes_and_verifies_every_log(
    tmp_path: Path,
) -> None:
    """The README's main job: one node process per seat over TCP on 127.0.0.1, the host's
    seat narrated, then every node's log replayed: all verify and hold the same entries."""
    import subprocess
    import sys

    log = tmp_path / "d.log"
    done = subprocess.run(
        [sys.executable, "-m", "p2puno", "demo", "--players", "3", "--target", "100",
         "--log", str(log)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "Round 1" in out and re.search(r"game over: \S+ wins; scores: ", out), out
    assert len(re.findall(r"entries; VERIFIED: \S+ wins; scores: ", out)) == 3, out
    assert "every node holds the same entries and every log verifies" in out and log.exists()


def test_engine_only_demo_is_reproducible() -> None:
    args = ["demo", "--engine-only", "--players", "3", "--seed", "5"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "Draw for dealer" in first.stdout and "<- winner" in first.stdout
    assert runner.invoke(app, args).stdout == first.stdout
