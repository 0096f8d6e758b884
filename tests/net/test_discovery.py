"""LAN discovery: the TXT parser against hostile records, then real mDNS across processes.

Every network test advertises in a subprocess and browses here, with interfaces=["127.0.0.1"]
only (the sockets are also bound to the loopback device: see test_loopback_sockets_are_confined),
and is bounded in time. Other tests or programs on this machine may advertise p2puno tables at
the same time, so each test looks only for its own lobby ids and service names.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from zeroconf import ServiceStateChange

from p2puno.net.discovery import (
    LOOPBACK,
    MAX_TXT_BYTES,
    SERVICE_TYPE,
    AdError,
    Advertiser,
    TableAd,
    TableEvent,
    TableWatcher,
    _open_zeroconf,
    _zc_sockets,
    ad_from_record,
    browse,
    encode_txt,
    fingerprint,
    parse_txt,
    watch,
)

TEST_SECONDS = 14  # each network test's bound (registration probing alone takes about 1.7 s)
BROWSE_SECONDS = 2.5  # past zeroconf's second query, about 1 s after the first


def make_ad(**changes: object) -> TableAd:
    ad = TableAd(
        name="Alice's table",
        lobby_id=secrets.token_bytes(32),
        host_fingerprint=fingerprint(bytes(range(32))),
        seats_total=4,
        seats_taken=1,
        house=("progressive", "jump-in"),
        target=500,
        scoring="standard",
        port=40123,
        code="K7Q2-9XW4",
    )
    return replace(ad, **changes)  # type: ignore[arg-type]


def raw_txt(pairs: list[tuple[str, str]] | dict[str, str]) -> bytes:
    items = pairs.items() if isinstance(pairs, dict) else pairs
    out = b""
    for key, value in items:
        string = f"{key}={value}".encode()
        out += bytes([len(string)]) + string
    return out


def good_pairs(ad: TableAd | None = None) -> dict[str, str]:
    return encode_txt(ad or make_ad())


# ---------------------------------------------------------------------------------------------
# The parser, directly


def test_round_trip() -> None:
    ad = make_ad(addresses=("127.0.0.1", "192.0.2.7"))
    back = ad_from_record(raw_txt(encode_txt(ad)), ad.port, list(ad.addresses))
    assert back == ad
    assert back.seats_free == 3


def test_no_house_rules_round_trip() -> None:
    ad = make_ad(house=(), addresses=("127.0.0.1",))
    assert encode_txt(ad)["house"] == ""
    assert ad_from_record(raw_txt(encode_txt(ad)), ad.port, ["127.0.0.1"]) == ad


def test_a_game_in_play_round_trips_and_says_nothing_more() -> None:
    """docs/discovery.md, "In play": a started game's ad adds ``play=1`` and nothing else
    (its players, game id and table code stay off the network); an open table's record is as
    it always was, with no ``play`` key; any other value of it is refused."""
    open_ad = make_ad(addresses=("127.0.0.1",))
    playing = replace(open_ad, in_play=True, seats_total=3, seats_taken=3)
    assert "play" not in encode_txt(open_ad)
    assert encode_txt(playing) == {**encode_txt(open_ad), "seats": "3/3", "play": "1"}
    back = ad_from_record(raw_txt(encode_txt(playing)), playing.port, ["127.0.0.1"])
    assert back == playing and back.in_play and back.seats_free == 0
    for bad in ("0", "true", "", "11"):
        with pytest.raises(AdError, match="bad field 'play'"):
            ad_from_record(raw_txt(_with(play=bad)), 1, ["127.0.0.1"])
    with pytest.raises(AdError, match="in play must be true or false"):
        make_ad(in_play=1)


def test_largest_ad_fits_the_txt_budget() -> None:
    ad = make_ad(
        name="é" * 20,  # 40 bytes of UTF-8
        code="X" * 24,
        house=("progressive", "seven-o", "jump-in"),
        target=100_000,
        seats_total=10,
        seats_taken=10,
        addresses=("127.0.0.1",),
        in_play=True,
    )
    text = raw_txt(encode_txt(ad))
    assert len(text) <= 300 < MAX_TXT_BYTES
    assert all(len(f"{k}={v}".encode()) <= 255 for k, v in encode_txt(ad).items())
    assert ad_from_record(text, ad.port, ["127.0.0.1"]) == ad


def _without(key: str) -> dict[str, str]:
    pairs = good_pairs()
    del pairs[key]
    return pairs


def _with(**changes: str) -> dict[str, str]:
    return {**good_pairs(), **changes}


HOSTILE: list[tuple[str, bytes, str]] = [
    ("empty", b"", "no TXT record"),
    ("garbage", b"\xff\x00\x13garbage\x01", "truncated"),
    ("truncated", b"\x09v=1", "truncated"),
    ("oversize", raw_txt([(f"k{i}", "x" * 200) for i in range(3)]), "oversize"),
    ("no equals", b"\x03v=1\x05hello", "without '='"),
    ("binary key", b"\x03v=1\x04\x01a=b", "printable ASCII"),
    ("repeated key", raw_txt([*good_pairs().items(), ("V", "1")]), "repeated"),
    ("not utf-8 value", raw_txt(_without("name")) + b"\x06name=\xff", "not UTF-8"),
    ("no version", raw_txt(_without("v")), "missing field 'v'"),
    ("bad version", raw_txt(_with(v="01")), "bad field 'v'"),
    ("wrong version", raw_txt(_with(v="2")), "wrong version 2"),
    ("wrong version, other fields", raw_txt({"v": "7", "name": "x"}), "wrong version 7"),
    ("only version", raw_txt({"v": "1"}), "missing field 'name'"),
    ("no name", raw_txt(_without("name")), "missing field 'name'"),
    ("no lobby", raw_txt(_without("lobby")), "missing field 'lobby'"),
    ("no fp", raw_txt(_without("fp")), "missing field 'fp'"),
    ("no seats", raw_txt(_without("seats")), "missing field 'seats'"),
    ("no house", raw_txt(_without("house")), "missing field 'house'"),
    ("no target", raw_txt(_without("target")), "missing field 'target'"),
    ("no scoring", raw_txt(_without("scoring")), "missing field 'scoring'"),
    ("no code", raw_txt(_without("code")), "missing field 'code'"),
    ("empty name", raw_txt(_with(name="")), "table name"),
    ("long name", raw_txt(_with(name="x" * 41)), "table name"),
    ("escape in name", raw_txt(_with(name="evil\x1b[2J")), "forbidden character"),
    ("newline in name", raw_txt(_with(name="a\nb")), "forbidden character"),
    ("bidi override", raw_txt(_with(name="abc\u202edcba")), "forbidden character"),
    ("padded name", raw_txt(_with(name=" x")), "spaces"),
    ("short lobby", raw_txt(_with(lobby="ab" * 31)), "bad field 'lobby'"),
    ("upper lobby", raw_txt(_with(lobby="AB" * 32)), "bad field 'lobby'"),
    ("bad fp", raw_txt(_with(fp="xyz")), "fingerprint"),
    ("seats over", raw_txt(_with(seats="5/4")), "seats taken"),
    ("seats many", raw_txt(_with(seats="1/11")), "seats total"),
    ("seats text", raw_txt(_with(seats="four")), "bad field 'seats'"),
    ("seats negative", raw_txt(_with(seats="-1/4")), "bad field 'seats'"),
    ("unknown house rule", raw_txt(_with(house="progressive,cheating")), "house rules"),
    ("house rule twice", raw_txt(_with(house="jump-in,jump-in")), "house rules"),
    ("zero target", raw_txt(_with(target="0")), "target"),
    ("padded target", raw_txt(_with(target="0500")), "bad field 'target'"),
    ("huge target", raw_txt(_with(target="9" * 30)), "bad field 'target'"),
    ("unicode digits", raw_txt(_with(target="٥٠٠")), "bad field 'target'"),
    ("bad scoring", raw_txt(_with(scoring="highest")), "scoring"),
    ("empty code", raw_txt(_with(code="")), "table code"),
    ("code escape", raw_txt(_with(code="a\x1bb")), "table code"),
]


@pytest.mark.parametrize(("text", "reason"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_hostile_txt_is_refused_with_a_reason(text: bytes, reason: str) -> None:
    with pytest.raises(AdError, match=reason):
        ad_from_record(text, 40123, ["127.0.0.1"])


def test_unknown_keys_and_empty_strings_are_ignored() -> None:
    ad = make_ad(addresses=("127.0.0.1",))
    text = b"\x00" + raw_txt({**encode_txt(ad), "future": "x"}) + b"\x00"
    assert ad_from_record(text, ad.port, ["127.0.0.1"]) == ad
    assert parse_txt(b"\x03V=1") == {"v": "1"}  # keys are case-insensitive (RFC 6763)


@pytest.mark.parametrize(
    ("port", "addresses", "reason"),
    [
        (None, ["127.0.0.1"], "no port"),
        (0, ["127.0.0.1"], "port"),
        (40123, [], "no address"),
        (40123, ["127.0.0.1"] * 17, "more than 16"),
        (40123, ["localhost"], "IP literal"),
    ],
)
def test_bad_srv_or_addresses(port: int | None, addresses: list[str], reason: str) -> None:
    with pytest.raises(AdError, match=reason):
        ad_from_record(raw_txt(good_pairs()), port, addresses)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=MAX_TXT_BYTES + 50))
def test_any_bytes_give_an_ad_or_a_reason(text: bytes) -> None:
    with contextlib.suppress(AdError):
        ad_from_record(text, 40123, ["127.0.0.1"])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["v", "name", "seats", "target", "lobby"]), st.text()))
def test_mutated_fields_give_an_ad_or_a_reason(changes: dict[str, str]) -> None:
    pairs = {**good_pairs(), **changes}
    text = raw_txt({k: v for k, v in pairs.items() if len(f"{k}={v}".encode()) <= 255})
    with contextlib.suppress(AdError):
        ad_from_record(text, 40123, ["127.0.0.1"])


def test_a_bad_ad_cannot_be_built() -> None:
    with pytest.raises(AdError):
        make_ad(seats_taken=5)
    with pytest.raises(AdError):
        make_ad(lobby_id=b"short")
    with pytest.raises(AdError):
        make_ad(house=("jump-in", "progressive"))  # not in the usual order
    with pytest.raises(AdError):
        make_ad(addresses=("not an address",))
    with pytest.raises(AdError):
        fingerprint(b"\x00" * 31)


def test_interfaces_must_be_addresses() -> None:
    with pytest.raises(TypeError):
        TableWatcher("127.0.0.1")
    with pytest.raises(ValueError, match="not an IP"):
        TableWatcher(["eth0"])
    with pytest.raises(ValueError, match="empty"):
        TableWatcher([])


async def test_listing_state_changes() -> None:
    """The watcher's bookkeeping without a network: list, update, turn bad, come back, remove."""
    watcher = TableWatcher(LOOPBACK, max_services=1)
    service = f"t-abc123.{SERVICE_TYPE}"
    ad = make_ad(addresses=("127.0.0.1",))
    watcher._list(service, ad)
    watcher._list(service, ad)  # the same again: no event
    watcher._list(service, replace(ad, seats_taken=2))
    watcher._skip(service, "wrong version 2")
    watcher._skip(service, "wrong version 2")  # the same reason again: no event
    watcher._list(service, ad)
    watcher._on_state_change(None, SERVICE_TYPE, service, ServiceStateChange.Removed)  # type: ignore[arg-type]
    other = f"u-def456.{SERVICE_TYPE}"
    watcher._list(service, ad)
    watcher._on_state_change(None, SERVICE_TYPE, other, ServiceStateChange.Added)  # type: ignore[arg-type]
    queued = [watcher._events.get_nowait() for _ in range(watcher._events.qsize())]
    events = [e for e in queued if e is not None]
    assert len(events) == len(queued)
    assert [(e.kind, e.service) for e in events] == [
        ("added", service),
        ("updated", service),
        ("removed", service),
        ("skipped", service),
        ("added", service),
        ("removed", service),
        ("added", service),
        ("skipped", other),
    ]
    assert events[2].ad is not None and events[2].ad.seats_taken == 2
    assert events[3].reason == "wrong version 2"
    assert events[7].reason is not None and "more than 1 services" in events[7].reason
    assert watcher.tables == {service: ad}
    assert watcher.skipped == {other: events[7].reason}
    await watcher.close()
    assert [e async for e in watcher] == []


async def test_advertiser_misuse() -> None:
    advertiser = Advertiser()
    with pytest.raises(RuntimeError):
        await advertiser.update(make_ad())
    await advertiser.stop()  # stopping what never started is harmless
    assert advertiser.service_name is None and advertiser.ad is None


# ---------------------------------------------------------------------------------------------
# Loopback confinement


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_BINDTODEVICE is Linux's")
async def test_loopback_sockets_are_confined() -> None:
    aiozc = _open_zeroconf(LOOPBACK)
    try:
        socks = _zc_sockets(aiozc)
        assert socks
        for sock in socks:
            device = sock.getsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, 16)
            assert device.rstrip(b"\0") == b"lo"
    finally:
        await aiozc.async_close()


# ---------------------------------------------------------------------------------------------
# Across processes, on 127.0.0.1 only

CHILD = r"""
import asyncio, json, sys
from dataclasses import replace
from zeroconf import ServiceInfo
from p2puno.net.discovery import LOOPBACK, SERVICE_TYPE, Advertiser, TableAd, _open_zeroconf

def ad_from(d):
    d = dict(d)
    d["lobby_id"] = bytes.fromhex(d["lobby_id"])
    d["house"] = tuple(d["house"])
    d["addresses"] = tuple(d["addresses"])
    return TableAd(**d)

async def run(config):
    ads = [ad_from(d) for d in config["ads"]]
    advertisers = [Advertiser() for _ in ads]
    raw = None
    try:
        await asyncio.gather(*(a.start(ad, interfaces=LOOPBACK) for a, ad in zip(advertisers, ads)))
        names = [a.service_name for a in advertisers]
        if config["raw"]:
            raw = _open_zeroconf(LOOPBACK)
            infos = [
                ServiceInfo(SERVICE_TYPE, r["name"] + "." + SERVICE_TYPE, port=r["port"],
                            properties=bytes.fromhex(r["txt"]), server=r["name"] + ".local.",
                            parsed_addresses=["127.0.0.1"])
                for r in config["raw"]
            ]
            tasks = await asyncio.gather(*(raw.async_register_service(i) for i in infos))
            await asyncio.gather(*tasks)
            names += [i.name for i in infos]
        print("ready " + json.dumps(names), flush=True)
        reader = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        for _ in range(100):
            words = (await reader.readline()).decode().split()
            if not words or words[0] == "quit":
                break
            if words[0] == "update":
                i, taken = int(words[1]), int(words[2])
                ads[i] = replace(ads[i], seats_taken=taken)
                await advertisers[i].update(ads[i])
            elif words[0] == "stop":
                await advertisers[int(words[1])].stop()
            print("done " + words[0], flush=True)
    finally:
        for a in advertisers:
            await a.stop()
        if raw is not None:
            await raw.async_close()

config = json.loads(sys.argv[1])
asyncio.run(asyncio.wait_for(run(config), config["life"]))
"""


def ad_json(ad: TableAd) -> dict[str, object]:
    return {
        "name": ad.name,
        "lobby_id": ad.lobby_id.hex(),
        "host_fingerprint": ad.host_fingerprint,
        "seats_total": ad.seats_total,
        "seats_taken": ad.seats_taken,
        "house": list(ad.house),
        "target": ad.target,
        "scoring": ad.scoring,
        "port": ad.port,
        "code": ad.code,
        "addresses": list(ad.addresses),
        "version": ad.version,
    }


class Child:
    """An advertising process; killed by its pid when the test ends, whatever happens."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.names: list[str] = []

    async def line(self, timeout: float = 8.0) -> str:
        assert self.proc.stdout is not None
        raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not raw:
            raise AssertionError(f"advertiser exited (code {await self.proc.wait()})")
        return raw.decode().strip()

    async def ready(self) -> list[str]:
        words = (await self.line()).split(" ", 1)
        assert words[0] == "ready", words
        self.names = json.loads(words[1])
        return self.names

    async def command(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode() + b"\n")
        await self.proc.stdin.drain()
        assert await self.line() == "done " + text.split()[0]


@contextlib.asynccontextmanager
async def advertising(
    ads: list[TableAd], raw: list[dict[str, object]] | None = None
) -> AsyncIterator[Child]:
    config = {"ads": [ad_json(ad) for ad in ads], "raw": raw or [], "life": TEST_SECONDS + 5}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        json.dumps(config),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        yield Child(proc)
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), 5)


def mine(ads: list[TableAd], lobby_ids: set[bytes]) -> dict[bytes, TableAd]:
    return {ad.lobby_id: ad for ad in ads if ad.lobby_id in lobby_ids}


async def next_event_for(watcher: TableWatcher, service: str, kind: str) -> TableEvent:
    for _ in range(1000):  # bounded; the caller's timeout bounds the time
        event = await anext(watcher)
        if event.service == service and event.kind == kind:
            return event
    raise AssertionError(f"no {kind} event for {service}")


async def until(watcher: TableWatcher, done: Callable[[], bool]) -> None:
    """Read events until ``done()``; the caller's timeout bounds the time."""
    for _ in range(1000):
        if done():
            return
        await anext(watcher)
    raise AssertionError("too many events")


def listed(watcher: TableWatcher, lobby_ids: set[bytes]) -> dict[bytes, TableAd]:
    return mine(list(watcher.tables.values()), lobby_ids)


async def test_a_table_is_found_with_its_fields_by_a_one_shot_browse() -> None:
    ad = make_ad()
    async with asyncio.timeout(TEST_SECONDS), advertising([ad]) as child:
        [service] = await child.ready()
        assert service.endswith("." + SERVICE_TYPE)
        assert service.startswith("Alice's table-")
        skipped: dict[str, str] = {}
        found = mine(await browse(LOOPBACK, timeout=BROWSE_SECONDS, skipped=skipped), {ad.lobby_id})
        assert found == {ad.lobby_id: replace(ad, addresses=("127.0.0.1",))}
        assert service not in skipped


async def test_update_and_stop_are_seen_live() -> None:
    ad = make_ad(seats_total=3, seats_taken=1, house=(), scoring="lowest", target=200)
    async with (
        asyncio.timeout(TEST_SECONDS),
        watch(LOOPBACK) as watcher,
        advertising([ad]) as child,
    ):
        [service] = await child.ready()
        added = await next_event_for(watcher, service, "added")
        assert added.ad == replace(ad, addresses=("127.0.0.1",))
        await child.command("update 0 2")
        updated = await next_event_for(watcher, service, "updated")
        assert updated.ad is not None
        assert (updated.ad.seats_taken, updated.ad.seats_free) == (2, 1)
        assert watcher.tables[service].seats_taken == 2
        await child.command("stop 0")
        removed = await next_event_for(watcher, service, "removed")
        assert removed.ad is not None and removed.ad.seats_taken == 2
        assert service not in watcher.tables


async def test_two_tables_are_listed_at_once() -> None:
    one, two = make_ad(name="Table one"), make_ad(name="Table two", seats_total=10, port=40200)
    lobby_ids = {one.lobby_id, two.lobby_id}
    async with (
        asyncio.timeout(TEST_SECONDS),
        advertising([one]) as first,
        advertising([two]) as second,
    ):
        await asyncio.gather(first.ready(), second.ready())
        async with watch(LOOPBACK) as watcher:
            await until(watcher, lambda: len(listed(watcher, lobby_ids)) == 2)
            assert listed(watcher, lobby_ids) == {
                one.lobby_id: replace(one, addresses=("127.0.0.1",)),
                two.lobby_id: replace(two, addresses=("127.0.0.1",)),
            }


async def test_hostile_services_are_skipped_with_a_reason() -> None:
    good = make_ad(name="Honest table")
    tag = secrets.token_hex(3)
    hostile = {
        f"garbage-{tag}": (b"\xff\x00\x13garbage\x01", "truncated"),
        f"oversize-{tag}": (raw_txt([(f"k{i}", "x" * 200) for i in range(3)]), "oversize"),
        f"missing-{tag}": (raw_txt({"v": "1", "name": "half a table"}), "missing field"),
        f"version-{tag}": (raw_txt(_with(v="2")), "wrong version 2"),
        f"escape-{tag}": (raw_txt(_with(name="\x1b]0;pwned\x07")), "forbidden character"),
    }
    services = {f"{name}.{SERVICE_TYPE}": reason for name, (_, reason) in hostile.items()}
    raw = [{"name": n, "txt": t.hex(), "port": 40999} for n, (t, _) in hostile.items()]
    async with (
        asyncio.timeout(TEST_SECONDS),
        watch(LOOPBACK) as watcher,
        advertising([good], raw) as child,
    ):
        await child.ready()
        await until(
            watcher,
            lambda: (
                bool(listed(watcher, {good.lobby_id})) and services.keys() <= watcher.skipped.keys()
            ),
        )
        assert listed(watcher, {good.lobby_id}) == {
            good.lobby_id: replace(good, addresses=("127.0.0.1",))
        }
        for service, reason in services.items():
            assert reason in watcher.skipped[service], (service, watcher.skipped[service])
            assert service not in watcher.tables


def test_lobby_join_picks_a_table_by_number_name_or_host_key() -> None:
    """`p2puno lobby --join X`: the listed number, else the name (any case), else its start,
    else the start of the host's key; nothing when it names no table or more than one (two
    tables on one LAN may share a name: then the number or the key tells them apart)."""
    from p2puno.cli import pick_table

    a = make_ad(name="Alice's table")
    b = make_ad(name="Loopy", host_fingerprint=fingerprint(bytes(range(1, 33))))
    c = make_ad(name="loopy", host_fingerprint=fingerprint(bytes(range(2, 34))))
    tables = [a, b]
    assert pick_table(tables, "2") is b and pick_table(tables, "1") is a
    assert pick_table(tables, "LOOPY") is b
    assert pick_table(tables, b.host_fingerprint[:6]) is b
    assert pick_table(tables, "3") is None and pick_table(tables, "nobody") is None
    assert pick_table([a, b, c], "loopy") is None  # two of that name
    assert pick_table([a, b, c], c.host_fingerprint[:8]) is c
    # the start of a name, any case, where one table's alone has it (helper-104 typed "Ann"
    # for "Ann's table" and read "no table "Ann" listed")
    assert pick_table(tables, "ali") is a and pick_table(tables, "Loo") is b
    assert pick_table([a, b, c], "loo") is None  # (two names start so)


async def test_a_host_advertises_its_whole_table_name_and_never_crashes_on_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A review: the advert cut the name to 32 characters, so "Thursday night at the office
    UN league" was cut on a space, the advert refused it and the host crashed (and `lobby
    --join` by the whole name could never match the cut one). The whole name goes out now,
    and an advert that cannot be made is said, never raised."""
    from types import SimpleNamespace

    import p2puno.node.run as run

    started: list[TableAd] = []

    class Fake:
        async def start(self, ad: TableAd, interfaces: object) -> None:
            started.append(ad)

    monkeypatch.setattr(run, "Advertiser", Fake)
    said: list[str] = []
    lobby = SimpleNamespace(
        table="Thursday night at the office UN league",
        options={"house": [], "target": 500, "scoring": "standard"},
        lobby_id=bytes(32),
        seats=[SimpleNamespace(sign_pk=bytes(32))],
        size=2,
    )
    assert await run._advertise(lobby, 5000, [LOOPBACK], said.append) is not None, said  # type: ignore[arg-type]
    assert started[0].name == lobby.table and not said
    lobby.table = " padded "
    assert await run._advertise(lobby, 5000, [LOOPBACK], said.append) is None  # type: ignore[arg-type]
    assert said and said[0].startswith("(not advertised on the LAN: ")
