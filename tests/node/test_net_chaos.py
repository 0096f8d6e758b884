"""A whole game among node processes over real TCP whose byte streams are split at random byte
boundaries, delayed with jitter (in order: it is TCP) and cut mid-frame (tests/node/netshim.py;
scripts/chaos_net runs many, stronger). A frame, a length header or a handshake message arrives
a few bytes at a time, several frames in one read; a cut leaves the peer a truncated frame,
then the end of the stream (protocol/transport.md sections 1 and 4). The nodes must redial,
fetch what they missed and play on (protocol/spec.md 10.14, delivery independence): every
node's log holds the same entries and verifies as finished, and no seat is named silent
(spec 10.15) nor blamed.
"""

from __future__ import annotations

from pathlib import Path

from tests.node.netshim import game


def test_a_game_over_links_split_delayed_and_cut_mid_frame(tmp_path: Path) -> None:
    # a host and two joining bots, one round (target 1); each process splits every write into
    # up to 8 pieces, each piece 0-5 ms late, and cuts one of its connections mid-write 10-60
    # writes after round 1 has begun (before any game's end: a round is hundreds of writes).
    # 5-8 s here at load 2.5-3 (at load 4-5 with pieces up to 20 ms late: 9-19 s), most of it
    # the game itself, whose length is its deal's; the same game without the shim took 6-20 s
    run = game(
        7, tmp_path, joiners=2, target=1, max_delay=0.005, cuts=1, cut_writes=(10, 60), timeout=90
    )
    assert run.ok, f"seeds {run.seeds}: {run.why}"
    # not vacuous: the shim split and merged writes, and cut connections mid-write ...
    assert run.total("split") > 100 and run.total("merged") > 10, run.stats
    assert run.total("pieces") > run.total("writes"), run.stats
    assert run.total("cuts") >= 2, run.stats  # (3 in every run seen)
    said = "\n".join((tmp_path / f"output{k}.txt").read_text(encoding="utf-8") for k in range(3))
    # ... which a peer read as a frame cut short (game.py LINK_WORDS["truncated"]); and seats whose
    # connection was lost came back
    assert "cut in the middle of a message" in said, said
    lost, back = said.count("lost the connection to"), said.count(") is back")
    assert lost >= 2 and back >= 1, said
