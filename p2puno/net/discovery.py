"""LAN discovery: a host advertises its table by mDNS/DNS-SD; `p2puno lobby` lists the tables.

Discovery is a convenience, never a requirement: ``p2puno join HOST:PORT`` works without it, and
nothing here is trusted. A listing only says "someone on this network claims a table named X at
these addresses"; who the host is gets settled by the link handshake and the table code shown on
every screen. Records from the network are hostile input: :func:`ad_from_record` checks every
field, and a service whose record is bad is skipped with a reason (logged, and returned by
:attr:`TableWatcher.skipped` and :func:`browse`'s ``skipped``), never a crash.

Service type ``_p2puno._tcp.local.``; the instance name is the table name plus a random suffix;
the TXT record (see :func:`encode_txt` and docs/discovery.md) carries the rest.

``interfaces`` is everywhere: by default every interface (zeroconf's ``InterfaceChoice.All``),
or a list of IP addresses. Tests and scripts pass exactly ``["127.0.0.1"]``; when every chosen
address is a loopback address, the zeroconf sockets are also bound to the loopback device, so
nothing can be received from, or answered to, any other network.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import secrets
import socket
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Literal, Self

import ifaddr
from zeroconf import InterfaceChoice, IPVersion, ServiceInfo, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from p2puno.engine.options import HOUSE_RULES

__all__ = [
    "LOOPBACK",
    "MAX_TXT_BYTES",
    "PROTOCOL_VERSION",
    "SERVICE_TYPE",
    "AdError",
    "Advertiser",
    "Interfaces",
    "TableAd",
    "TableEvent",
    "TableWatcher",
    "ad_from_record",
    "browse",
    "encode_txt",
    "fingerprint",
    "lan_addresses",
    "parse_txt",
    "watch",
]

log = logging.getLogger(__name__)

SERVICE_TYPE = "_p2puno._tcp.local."
PROTOCOL_VERSION = 1  # the wire protocol's version (protocol/spec.md, section 11)
LOOPBACK: list[str] = ["127.0.0.1"]  # what tests and scripts pass as ``interfaces``

Interfaces = InterfaceChoice | Sequence[str]

# Limits. Each TXT string is at most 255 bytes by the DNS format itself; the whole record is
# kept under RFC 6763's "preferably under 400 bytes", so it always fits one mDNS packet.
MAX_TXT_BYTES = 400
MAX_NAME_BYTES = 40  # the instance label (name + "-" + 6 hex) stays under DNS's 63 bytes
MAX_CODE_CHARS = 24
MAX_ADDRESSES = 16
MIN_SEATS, MAX_SEATS = 2, 10  # as Options.players
MIN_TARGET, MAX_TARGET = 1, 100_000  # as Options.target
SCORINGS = ("standard", "lowest")
LOBBY_ID_BYTES = 32
FINGERPRINT_HEX = 16  # as the project's other short forms of keys: key.hex()[:16]

_INT = re.compile(r"0|[1-9][0-9]{0,8}")
_HEX = re.compile(r"[0-9a-f]+")
_SEATS = re.compile(r"(0|[1-9][0-9]?)/([1-9][0-9]?)")
_CODE = re.compile(r"[0-9A-Za-z](?:[0-9A-Za-z _-]*[0-9A-Za-z])?")
_KEYS = ("v", "name", "lobby", "fp", "seats", "house", "target", "scoring", "code")


class AdError(ValueError):
    """Why a table advertisement is refused; the message is the reason a listing shows."""


def fingerprint(sign_pk: bytes) -> str:
    """The host fingerprint a listing shows: the Ed25519 public key's first 8 bytes in hex."""
    if len(sign_pk) != 32:
        raise AdError(f"an Ed25519 public key is 32 bytes, got {len(sign_pk)}")
    return sign_pk.hex()[:FINGERPRINT_HEX]


# ---------------------------------------------------------------------------------------------
# The advertisement


@dataclass(frozen=True, slots=True)
class TableAd:
    """One table as advertised, and as a ``p2puno lobby`` listing shows it.

    Every field is checked on construction, by the same rules that check a record read from the
    network. ``addresses`` are IP literals; an advertiser given none advertises those of the
    interfaces it was started on.
    """

    name: str
    lobby_id: bytes
    host_fingerprint: str
    seats_total: int
    seats_taken: int
    house: tuple[str, ...]
    target: int
    scoring: str
    port: int
    code: str
    addresses: tuple[str, ...] = ()
    version: int = PROTOCOL_VERSION
    # its game has started: listed for spectators (`p2puno lobby --watch`), joined by nobody
    # (TXT ``play=1``; absent while the table is open: docs/discovery.md, "In play")
    in_play: bool = False

    def __post_init__(self) -> None:
        check_table_name(self.name)
        if not isinstance(self.lobby_id, bytes) or len(self.lobby_id) != LOBBY_ID_BYTES:
            raise AdError(f"lobby id must be {LOBBY_ID_BYTES} bytes")
        fp = self.host_fingerprint
        if not (isinstance(fp, str) and len(fp) == FINGERPRINT_HEX and _HEX.fullmatch(fp)):
            raise AdError(f"host fingerprint must be {FINGERPRINT_HEX} lowercase hex digits")
        _check_int("seats total", self.seats_total, MIN_SEATS, MAX_SEATS)
        _check_int("seats taken", self.seats_taken, 0, self.seats_total)
        if not isinstance(self.house, tuple) or any(r not in HOUSE_RULES for r in self.house):
            raise AdError(f"house rules must be among {', '.join(HOUSE_RULES)}")
        if list(self.house) != [r for r in HOUSE_RULES if r in self.house]:
            raise AdError("house rules must be listed once each, in their usual order")
        _check_int("target", self.target, MIN_TARGET, MAX_TARGET)
        if self.scoring not in SCORINGS:
            raise AdError(f"scoring must be one of {', '.join(SCORINGS)}")
        _check_int("port", self.port, 1, 65535)
        code = self.code
        if not (isinstance(code, str) and len(code) <= MAX_CODE_CHARS and _CODE.fullmatch(code)):
            raise AdError(
                f"table code must be 1..{MAX_CODE_CHARS} letters, digits, '-', '_' or spaces"
            )
        if not isinstance(self.addresses, tuple) or len(self.addresses) > MAX_ADDRESSES:
            raise AdError(f"addresses must be a tuple of at most {MAX_ADDRESSES}")
        for address in self.addresses:
            _check_address(address)
        _check_int("version", self.version, 1, 999)
        if type(self.in_play) is not bool:
            raise AdError("in play must be true or false")

    @property
    def seats_free(self) -> int:
        return 0 if self.in_play else self.seats_total - self.seats_taken


def _check_int(what: str, value: object, low: int, high: int) -> None:
    if type(value) is not int or not low <= value <= high:
        raise AdError(f"{what} must be an integer in {low}..{high}")


def check_table_name(name: object) -> None:
    if not isinstance(name, str):
        raise AdError("table name must be text")
    size = len(name.encode("utf-8", "surrogatepass"))
    if not 1 <= size <= MAX_NAME_BYTES:
        raise AdError(f"table name must be 1..{MAX_NAME_BYTES} bytes of UTF-8")
    # A listing prints the name on a terminal: no control, format (bidi overrides), surrogate,
    # private-use or unassigned characters, and no line breaks or padding.
    for ch in name:
        category = unicodedata.category(ch)
        if category[0] == "C" or category in ("Zl", "Zp"):
            raise AdError(f"table name has a forbidden character (U+{ord(ch):04X})")
    if name != name.strip():
        raise AdError("table name must not start or end with spaces")


def is_ip(text: str) -> bool:
    """True for an IPv4 or IPv6 literal (no host name, no port)."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _check_address(address: object) -> None:
    if not isinstance(address, str) or not is_ip(address):
        raise AdError("an address must be an IP literal")


# ---------------------------------------------------------------------------------------------
# The TXT record


def encode_txt(ad: TableAd) -> dict[str, str]:
    """The TXT record's key=value pairs, in order. Port and addresses travel in SRV and A."""
    txt = {
        "v": str(ad.version),
        "name": ad.name,
        "lobby": ad.lobby_id.hex(),
        "fp": ad.host_fingerprint,
        "seats": f"{ad.seats_taken}/{ad.seats_total}",
        "house": ",".join(ad.house),
        "target": str(ad.target),
        "scoring": ad.scoring,
        "code": ad.code,
    }
    if ad.in_play:  # (only then: an open table's record is as it always was)
        txt["play"] = "1"
    size = sum(1 + len(k) + 1 + len(v.encode()) for k, v in txt.items())
    assert size <= MAX_TXT_BYTES, size  # the field limits above keep it near 250 bytes
    return txt


def parse_txt(text: bytes) -> dict[str, str]:
    """Split raw TXT record data into its key=value pairs, strictly.

    Raises :class:`AdError` on anything but a well-formed record of at most MAX_TXT_BYTES:
    a string running past the end, a string without "=", a key that is not printable ASCII,
    a repeated key, or a value that is not UTF-8. Keys are compared case-insensitively
    (RFC 6763); empty strings are ignored. Unknown keys are kept (the caller ignores them).
    """
    if not text:
        raise AdError("no TXT record")
    if len(text) > MAX_TXT_BYTES:
        raise AdError(f"TXT record oversize ({len(text)} bytes, at most {MAX_TXT_BYTES})")
    pairs: dict[str, str] = {}
    at = 0
    while at < len(text):
        size = text[at]
        string = text[at + 1 : at + 1 + size]
        if len(string) != size:
            raise AdError("TXT record truncated")
        at += 1 + size
        if not string:
            continue
        key_bytes, eq, value_bytes = string.partition(b"=")
        if not eq:
            raise AdError("TXT string without '='")
        if not key_bytes or any(b < 0x20 or b > 0x7E for b in key_bytes):
            raise AdError("TXT key is not printable ASCII")
        key = key_bytes.decode("ascii").lower()
        if key in pairs:
            raise AdError(f"TXT key {key!r} repeated")
        try:
            pairs[key] = value_bytes.decode("utf-8")
        except UnicodeDecodeError:
            raise AdError(f"TXT value of {key!r} is not UTF-8") from None
    return pairs


def ad_from_record(text: bytes | None, port: int | None, addresses: Sequence[str]) -> TableAd:
    """Build a :class:`TableAd` from what the network said: TXT data, SRV port, A/AAAA addresses.

    Raises :class:`AdError` naming the first bad field (a wrong version is checked before the
    others, so a future record says so rather than failing on a field it changed).
    """
    pairs = parse_txt(text or b"")
    version = pairs.get("v")
    if version is None:
        raise AdError("missing field 'v'")
    if not _INT.fullmatch(version):
        raise AdError("bad field 'v'")
    if int(version) != PROTOCOL_VERSION:
        raise AdError(f"wrong version {int(version)} (this build speaks {PROTOCOL_VERSION})")
    for key in _KEYS:
        if key not in pairs:
            raise AdError(f"missing field {key!r}")
    seats = _SEATS.fullmatch(pairs["seats"])
    if seats is None:
        raise AdError("bad field 'seats' (taken/total)")
    lobby = pairs["lobby"]
    if len(lobby) != 2 * LOBBY_ID_BYTES or not _HEX.fullmatch(lobby):
        raise AdError("bad field 'lobby'")
    target = pairs["target"]
    if not _INT.fullmatch(target):
        raise AdError("bad field 'target'")
    house = tuple(pairs["house"].split(",")) if pairs["house"] else ()
    play = pairs.get("play")
    if play not in (None, "1"):
        raise AdError("bad field 'play' (1, or absent)")
    if port is None:
        raise AdError("no port (SRV record)")
    if not addresses:
        raise AdError("no address (A/AAAA record)")
    if len(addresses) > MAX_ADDRESSES:
        raise AdError(f"more than {MAX_ADDRESSES} addresses")
    try:
        return TableAd(
            name=pairs["name"],
            lobby_id=bytes.fromhex(lobby),
            host_fingerprint=pairs["fp"],
            seats_total=int(seats.group(2)),
            seats_taken=int(seats.group(1)),
            house=house,
            target=int(target),
            scoring=pairs["scoring"],
            port=port,
            code=pairs["code"],
            addresses=tuple(addresses),
            version=PROTOCOL_VERSION,
            in_play=play == "1",
        )
    except AdError as exc:
        raise AdError(f"bad field: {exc}") from None


# ---------------------------------------------------------------------------------------------
# Interfaces and the zeroconf instance


def _chosen_addresses(interfaces: Interfaces) -> list[str] | None:
    """The explicit list of interface addresses, checked; None for an InterfaceChoice."""
    if isinstance(interfaces, InterfaceChoice):
        return None
    if isinstance(interfaces, str):
        raise TypeError("interfaces is a list of addresses, not one string")
    chosen = list(interfaces)
    if not chosen:
        raise ValueError("interfaces: an empty list chooses nothing")
    for address in chosen:
        try:
            ipaddress.ip_address(address)
        except ValueError:
            raise ValueError(f"interfaces: {address!r} is not an IP address") from None
    return chosen


def _is_loopback_only(chosen: list[str] | None) -> bool:
    return chosen is not None and all(ipaddress.ip_address(a).is_loopback for a in chosen)


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses except loopback: what a host on every interface advertises
    (and the address a node listening on every interface names for spectators)."""
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ipaddress.ip_address(ip.ip).is_loopback:
                found.append(ip.ip)
    return list(dict.fromkeys(found))[:MAX_ADDRESSES]


def _zc_sockets(aiozc: AsyncZeroconf) -> list[socket.socket]:
    """The instance's listen and respond sockets (zeroconf keeps no public list of them)."""
    engine = aiozc.zeroconf.engine
    found = [engine._listen_socket, *engine._respond_sockets]
    return [s for s in found if s is not None]


def _confine_to_loopback(aiozc: AsyncZeroconf) -> None:
    """Bind every socket to the loopback device, before the engine reads any of them.

    zeroconf binds its listen socket to 0.0.0.0:5353; on Linux that socket would also receive
    mDNS from other networks (any group joined on another interface by any process) and answer
    a unicast query through whichever interface leads back. With SO_BINDTODEVICE "lo" it can
    only receive from, and send to, this machine. Anything that reached the socket before the
    option was set is dropped unread.
    """
    if not sys.platform.startswith("linux"):
        log.warning("loopback-only discovery: no SO_BINDTODEVICE on %s", sys.platform)
        return
    for sock in _zc_sockets(aiozc):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"lo\0")
        for _ in range(256):  # bounded: at most one socket buffer's worth
            try:
                sock.recv(9000, socket.MSG_DONTWAIT)
            except OSError:
                break


def _open_zeroconf(interfaces: Interfaces) -> AsyncZeroconf:
    """An AsyncZeroconf on the chosen interfaces.

    Inside a running loop zeroconf only schedules its reading, so a loopback-only instance is
    confined before anything is read; without one it would start a thread at once.
    """
    asyncio.get_running_loop()  # raises RuntimeError outside a running loop
    chosen = _chosen_addresses(interfaces)
    if chosen is None:
        assert isinstance(interfaces, InterfaceChoice)
        return AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
    aiozc = AsyncZeroconf(interfaces=list(chosen))
    if _is_loopback_only(chosen):
        try:
            _confine_to_loopback(aiozc)
        except BaseException:
            aiozc.zeroconf.close()
            raise
    return aiozc


# ---------------------------------------------------------------------------------------------
# Advertising


def _label(name: str) -> str:
    """The name as a DNS-SD instance label: dots and backslashes would need escaping."""
    return name.replace(".", "-").replace("\\", "-")


class Advertiser:
    """Advertise one table until stopped: ``start``, then ``update`` as seats fill, ``stop``."""

    def __init__(self) -> None:
        self._aiozc: AsyncZeroconf | None = None
        self._info: ServiceInfo | None = None
        self._ad: TableAd | None = None
        self._server = ""

    @property
    def ad(self) -> TableAd | None:
        """What is advertised now (with the addresses filled in), or None when stopped."""
        return self._ad

    @property
    def service_name(self) -> str | None:
        """The full service name (instance label with its random suffix), or None."""
        return self._info.name if self._info is not None else None

    async def start(self, ad: TableAd, interfaces: Interfaces = InterfaceChoice.All) -> None:
        """Register the service; returns after probing (about 1.2 s) and three announcements.

        The advertised addresses are ``ad.addresses`` if given, else those of the chosen
        interfaces (every non-loopback IPv4 address for InterfaceChoice.All).
        """
        if self._aiozc is not None:
            raise RuntimeError("already advertising; stop() first")
        chosen = _chosen_addresses(interfaces)
        if not ad.addresses:
            addresses = lan_addresses() if chosen is None else chosen[:MAX_ADDRESSES]
            if not addresses:
                raise ValueError("no address to advertise: no interface has an IPv4 address")
            ad = replace(ad, addresses=tuple(addresses))
        suffix = secrets.token_hex(3)
        name = f"{_label(ad.name)}-{suffix}.{SERVICE_TYPE}"
        self._server = f"p2puno-{suffix}-{secrets.token_hex(2)}.local."
        info = self._service_info(name, ad)
        aiozc = _open_zeroconf(interfaces)
        try:
            announced = await aiozc.async_register_service(info, allow_name_change=True)
            await announced
        except BaseException:
            await aiozc.async_close()
            raise
        self._aiozc, self._info, self._ad = aiozc, info, ad

    async def update(self, ad: TableAd) -> None:
        """Publish a changed ad (seats taken, say) under the same name and server.

        Addresses left empty keep the ones advertised now. Browsers see the first announcement
        at once; this returns after the third, about 0.45 s later.
        """
        if self._aiozc is None or self._info is None or self._ad is None:
            raise RuntimeError("not advertising; start() first")
        if not ad.addresses:
            ad = replace(ad, addresses=self._ad.addresses)
        info = self._service_info(self._info.name, ad)
        announced = await self._aiozc.async_update_service(info)
        await announced
        self._info, self._ad = info, ad

    async def stop(self) -> None:
        """Withdraw the service (goodbye packets, so browsers drop it at once) and close."""
        aiozc, info = self._aiozc, self._info
        self._aiozc = self._info = self._ad = None
        if aiozc is None:
            return
        try:
            if info is not None:
                goodbye = await aiozc.async_unregister_service(info)
                await goodbye
        finally:
            await aiozc.async_close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    def _service_info(self, name: str, ad: TableAd) -> ServiceInfo:
        return ServiceInfo(
            SERVICE_TYPE,
            name,
            port=ad.port,
            properties=encode_txt(ad),
            server=self._server,
            parsed_addresses=list(ad.addresses),
        )


# ---------------------------------------------------------------------------------------------
# Browsing


@dataclass(frozen=True, slots=True)
class TableEvent:
    """A change in the listing. ``service`` is the raw service name from the network: a key,
    not for display. ``ad`` is the table (its last known form for "removed"); None for
    "skipped", whose ``reason`` says why the service is not listed."""

    kind: Literal["added", "updated", "removed", "skipped"]
    service: str
    ad: TableAd | None = None
    reason: str | None = None


@dataclass
class _Resolving:
    task: asyncio.Task[None]
    again: bool = False  # the service changed while it was being resolved


class TableWatcher:
    """The live listing: an async iterator of :class:`TableEvent`, and the current tables.

    ``async with watch(interfaces) as tables: async for event in tables: ...``. Each service is
    resolved in its own task (never a sync lookup in zeroconf's handler); at most
    ``max_services`` are tracked at once, and at most ``max_queued`` events wait unread (more
    are dropped, logged; ``tables`` stays right).
    """

    def __init__(
        self,
        interfaces: Interfaces = InterfaceChoice.All,
        *,
        resolve_timeout: float = 3.0,
        max_services: int = 256,
        max_queued: int = 1024,
    ) -> None:
        _chosen_addresses(interfaces)  # fail early on a bad list
        self._interfaces = interfaces
        self._resolve_ms = resolve_timeout * 1000
        self._max_services = max_services
        self._aiozc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._tables: dict[str, TableAd] = {}
        self._skipped: dict[str, str] = {}
        self._resolving: dict[str, _Resolving] = {}
        self._events: asyncio.Queue[TableEvent | None] = asyncio.Queue(max_queued)
        self._closed = False

    @property
    def tables(self) -> dict[str, TableAd]:
        """The tables listed now, by service name (a copy)."""
        return dict(self._tables)

    @property
    def skipped(self) -> dict[str, str]:
        """The services seen but not listed, by service name, with the reason (a copy)."""
        return dict(self._skipped)

    async def start(self) -> None:
        if self._aiozc is not None or self._closed:
            raise RuntimeError("a TableWatcher starts once")
        self._aiozc = _open_zeroconf(self._interfaces)
        self._browser = AsyncServiceBrowser(
            self._aiozc.zeroconf, SERVICE_TYPE, handlers=[self._on_state_change]
        )

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for resolving in self._resolving.values():
            resolving.task.cancel()
        tasks = [r.task for r in self._resolving.values()]
        self._resolving.clear()
        await asyncio.gather(*tasks, return_exceptions=True)
        try:
            if self._browser is not None:
                await self._browser.async_cancel()
        finally:
            if self._aiozc is not None:
                await self._aiozc.async_close()
            with contextlib.suppress(asyncio.QueueFull):
                self._events.put_nowait(None)  # wakes a reader waiting in __anext__

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> TableEvent:
        if self._closed and self._events.empty():
            raise StopAsyncIteration
        event = await self._events.get()
        if event is None:
            raise StopAsyncIteration
        return event

    # zeroconf calls this in the event loop; it must not block, so it only schedules.
    def _on_state_change(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        if self._closed:
            return
        if state_change is ServiceStateChange.Removed:
            resolving = self._resolving.pop(name, None)
            if resolving is not None:
                resolving.task.cancel()
            self._skipped.pop(name, None)
            ad = self._tables.pop(name, None)
            if ad is not None:
                self._emit(TableEvent("removed", name, ad))
            return
        resolving = self._resolving.get(name)
        if resolving is not None:
            resolving.again = True  # resolve once more when this one ends: it may be stale
            return
        known = name in self._tables or name in self._skipped
        if not known and len(self._tables) + len(self._resolving) >= self._max_services:
            self._skip(name, f"not listed: more than {self._max_services} services")
            return
        task = asyncio.get_running_loop().create_task(self._resolve(name))
        self._resolving[name] = _Resolving(task)

    async def _resolve(self, name: str) -> None:
        again = True
        while again and not self._closed:
            ad: TableAd | None = None
            reason = ""
            try:
                ad = await self._lookup(name)
            except AdError as exc:
                reason = str(exc)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # hostile input must not end the listing
                reason = f"unreadable service ({type(exc).__name__})"
            resolving = self._resolving.get(name)
            if resolving is None or resolving.task is not asyncio.current_task():
                return  # removed (or replaced) meanwhile
            again, resolving.again = resolving.again, False
            if ad is not None:
                self._list(name, ad)
            else:
                self._skip(name, reason)
        self._resolving.pop(name, None)

    async def _lookup(self, name: str) -> TableAd:
        assert self._aiozc is not None
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if not await info.async_request(self._aiozc.zeroconf, self._resolve_ms):
            raise AdError(f"no complete answer within {self._resolve_ms / 1000:g} s")
        return ad_from_record(info.text, info.port, info.parsed_addresses())

    def _list(self, name: str, ad: TableAd) -> None:
        self._skipped.pop(name, None)
        old = self._tables.get(name)
        if old == ad:
            return
        self._tables[name] = ad
        self._emit(TableEvent("added" if old is None else "updated", name, ad))

    def _skip(self, name: str, reason: str) -> None:
        old = self._tables.pop(name, None)
        if old is not None:
            self._emit(TableEvent("removed", name, old))
        if self._skipped.get(name) == reason:
            return
        if name not in self._skipped and len(self._skipped) >= self._max_services:
            log.debug("not recording more than %d skipped services", self._max_services)
            return
        self._skipped[name] = reason
        log.info("discovery: skipped %r: %s", name, reason)
        self._emit(TableEvent("skipped", name, reason=reason))

    def _emit(self, event: TableEvent) -> None:
        try:
            self._events.put_nowait(event)
        except asyncio.QueueFull:
            log.warning("discovery: listing events unread, dropped one (%s)", event.kind)


def watch(
    interfaces: Interfaces = InterfaceChoice.All,
    *,
    resolve_timeout: float = 3.0,
    max_services: int = 256,
    max_queued: int = 1024,
) -> TableWatcher:
    """The live form: ``async with watch(...) as w: async for event in w: ...``."""
    return TableWatcher(
        interfaces,
        resolve_timeout=resolve_timeout,
        max_services=max_services,
        max_queued=max_queued,
    )


async def browse(
    interfaces: Interfaces = InterfaceChoice.All,
    timeout: float = 2.0,
    *,
    skipped: dict[str, str] | None = None,
) -> list[TableAd]:
    """A one-shot listing: every table heard within ``timeout`` seconds, by name.

    Services skipped as bad (with their reasons) are added to ``skipped`` if one is given.
    """
    if not 0 < timeout <= 600:
        raise ValueError("timeout must be in (0, 600] seconds")
    async with TableWatcher(interfaces, resolve_timeout=min(timeout, 3.0)) as watcher:
        await asyncio.sleep(timeout)
        tables, bad = watcher.tables, watcher.skipped
    if skipped is not None:
        skipped.update(bad)
    return sorted(tables.values(), key=lambda ad: (ad.name, ad.lobby_id))
