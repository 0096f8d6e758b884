"""helper-79: a host back with `p2puno resume` advertises its game again, in play.

A review: once a host had crashed and come back, `p2puno lobby --watch --interface 127.0.0.1`
found nothing (a resumed node had no discovery: docs/discovery.md, "In play"). The resumed
host now advertises the table again as in play (`play=1`), at the port it listens on, on the
interfaces the host chose, from what the game's files kept of the table."""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
from pathlib import Path
from typing import Any

import pytest

from p2puno.log import Identity
from p2puno.net.discovery import LOOPBACK, TableAd, fingerprint, watch
from p2puno.node import run
from p2puno.node.store import DataDir


def _meta(lobby_id: bytes, interfaces: list[str] | None) -> dict[str, Any]:
    """What `play` keeps of a host's table in its game's node.json."""
    return {
        "view": {
            "t": "table",
            "name": "h79 resumed table",
            "options": {"house": ["progressive"], "target": 250, "scoring": "lowest"},
            "seats": [
                {"name": "Ann", "kind": "person", "runner": "self", "key": "ab" * 8},
                {"name": "Bot-1", "kind": "bot", "runner": "host", "key": "cd" * 8},
                {"name": "Bob", "kind": "person", "runner": "self", "key": "ef" * 8},
            ],
            "size": 4,
            "lobby": lobby_id.hex(),
        },
        "advert": {"interfaces": interfaces},
        "addresses": [None, ["@", 5001], ["127.0.0.1", 5002]],
    }


async def test_a_resumed_hosts_game_is_listed_in_play_on_loopback() -> None:
    lobby_id = secrets.token_bytes(32)
    identity = Identity.generate()
    async with asyncio.timeout(14), watch(LOOPBACK) as watcher:
        adv = await run.advertise_in_play(_meta(lobby_id, LOOPBACK), identity, 47999)
        assert adv is not None
        try:
            for _ in range(1000):  # bounded; the timeout bounds the time
                found = [ad for ad in watcher.tables.values() if ad.lobby_id == lobby_id]
                if found:
                    break
                await anext(watcher)
            [ad] = found
            assert ad == TableAd(
                name="h79 resumed table",
                lobby_id=lobby_id,
                host_fingerprint=fingerprint(identity.sign_pk),
                seats_total=3,
                seats_taken=3,
                house=("progressive",),
                target=250,
                scoring="lowest",
                port=47999,
                code=lobby_id.hex()[:8],
                addresses=("127.0.0.1",),
                in_play=True,
            )
        finally:
            await adv.stop()


async def test_a_game_with_no_table_kept_is_not_advertised() -> None:
    meta = _meta(secrets.token_bytes(32), LOOPBACK)
    meta["view"]["name"] = " padded "  # (a name a browser would refuse: no advert, no crash)
    assert await run.advertise_in_play(meta, Identity.generate(), 47999) is None
    del meta["view"]
    assert await run.advertise_in_play(meta, Identity.generate(), 47999) is None


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Path, bytes]]:
    """Seat 0's and seat 1's files of one game under way (made once: about 1 s each)."""
    from tests.node.test_h79_lines import seat_files

    tmp = tmp_path_factory.mktemp("h79games")
    return {seat: seat_files(tmp / f"seat{seat}", seat) for seat in (0, 1)}


@pytest.mark.parametrize(("seat", "kept"), [(0, True), (0, False), (1, True)])
async def test_resume_advertises_again_only_a_host_whose_table_was_advertised(
    tmp_path: Path,
    seat: int,
    kept: bool,
    games: dict[int, tuple[Path, Path, bytes]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`resume_game` brings the advert back for the host's seat (0) of a game whose files
    say it was advertised (`advert`, kept by `play`: a host with --no-discovery is not),
    and withdraws it when the game ends here."""
    log_path, secrets_path, game_id = games[seat]
    data = DataDir(str(tmp_path / "data"))
    files = data.game(game_id)
    shutil.copyfile(log_path, files.log_path)
    shutil.copyfile(secrets_path, files.secrets_path)
    files.secrets_path.chmod(0o600)
    meta = {
        "game": game_id.hex(),
        "seat": seat,
        "code": "AAAA-BBBB",
        "addresses": [None, ["127.0.0.1", 9]] if seat == 0 else [["127.0.0.1", 9], None],
        "bind": "127.0.0.1",
        "port": 0,
        "view": _meta(bytes(32), None)["view"],
        "player": "bot:heuristic",
        "over": False,
    }
    if kept:
        meta["advert"] = {"interfaces": LOOPBACK}
    files.write_meta(meta)
    calls: list[tuple[dict[str, Any], int]] = []
    stopped: list[object] = []

    class Fake:
        async def stop(self) -> None:
            stopped.append(self)

    async def advertise(m: dict[str, Any], identity: Identity, port: int) -> Any:
        calls.append((m, port))
        return Fake()

    async def game(*args: Any, **kwargs: Any) -> str:
        await asyncio.sleep(0.05)
        return "played"

    monkeypatch.setattr(run, "advertise_in_play", advertise)
    monkeypatch.setattr(run, "_run_game", game)
    got = await run.resume_game(data, None, say=lambda text: None)
    assert got == "played"
    if seat == 0 and kept:
        [(m, port)] = calls
        assert m["advert"] == {"interfaces": LOOPBACK} and port > 0
        assert len(stopped) == 1  # (withdrawn when the game ends here)
    else:
        assert calls == [] and stopped == []
    json.loads((files.folder / "node.json").read_text())  # (its files left as they were)
