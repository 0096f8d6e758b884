"""Authenticated, encrypted links between nodes over asyncio TCP streams.

``open_link`` dials (the handshake's initiator), ``serve_links`` accepts (the responder); both
give :class:`Link` objects that carry typed messages (``p2puno.net.frames.MsgType``) as records
of the record layer (``p2puno.net.handshake``). A link knows nothing of game rules: it
authenticates the peer's roster key, keeps the connection alive (PING every ``ping_interval``,
dead after ``dead_after`` with no record received), and drops a peer that breaks a limit:

==================  ==========================================================================
code                the peer ...
==================  ==========================================================================
handshake codes     failed the handshake (``bad_signature``, ``other_context``, ...)
handshake_timeout   did not finish the handshake in time (slowloris)
oversize, empty,    sent a frame or message that breaks ``protocol/transport.md``
bad_payload, ...
auth_failed         sent a record that does not authenticate (tampered, replayed, reordered)
rate_limited        sent more bytes or frames per second than its token buckets allow (or, in
                    a listener's report, its host opened new connections too fast)
silent / stalled    sent nothing / left a frame unfinished for ``dead_after`` seconds
too_slow            did not read what we send (send queue full, or drain timed out)
eof / io_error      closed the connection without BYE / broke it
bye                 said BYE (a clean close); ``closed``: we closed the link ourselves
refused             (initiator) the responder refused our key after the handshake (its BYE, or
                    its end of the stream, before any record)
==================  ==========================================================================

Every :class:`LinkError` names the peer by its key when the handshake got that far, else by its
address; a server keeps accepting whatever one connection does. Timing uses ``loop.time()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import inspect
import ipaddress
import logging
import os
import socket
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from p2puno.net.frames import (
    DEFAULT_MAX_FRAME,
    HEADER_SIZE,
    FrameDecoder,
    FrameError,
    FrameErrorCode,
    Message,
    MsgType,
    TransportError,
    clip_reason,
    decode_bye,
    decode_message,
    decode_ping,
    encode_bye,
    encode_frame,
    encode_message,
    encode_ping,
)
from p2puno.net.handshake import (
    MAX_HANDSHAKE_FRAME,
    TAG_SIZE,
    ContextResolver,
    HandshakeError,
    HandshakeErrorCode,
    HandshakeResult,
    Initiator,
    RecordError,
    Responder,
    Rng,
    Signer,
    encode_alert,
)

__all__ = [
    "DEFAULT_LIMITS",
    "Limits",
    "Link",
    "LinkError",
    "LinkErrorCode",
    "LinkStats",
    "open_link",
    "serve_links",
]

log = logging.getLogger("p2puno.net")
_MiB: Final = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-link limits and timers (seconds, bytes). The defaults suit a LAN game."""

    max_frame: int = DEFAULT_MAX_FRAME  # frame cap after the handshake (256 bytes during it)
    connect_timeout: float = 5.0  # open_link: TCP connect
    handshake_timeout: float = 5.0  # whole handshake, both roles (slowloris cap)
    ping_interval: float = 2.0  # a PING this often
    dead_after: float = 6.0  # no complete record for this long: the peer is dropped
    write_timeout: float = 6.0  # one drain() of our writes: longer and the peer is too slow
    close_timeout: float = 1.0  # flushing the BYE on close
    send_queue_frames: int = 1024  # messages waiting to be written ...
    send_queue_bytes: int = 8 * _MiB  # ... and their bytes: over either, the link closes
    recv_queue_frames: int = 1024  # messages received and not yet taken by recv() ...
    recv_queue_bytes: int = 8 * _MiB  # ... over either, reading pauses (TCP backpressure;
    # the records of the read in hand still go in: one read_chunk and one frame more at most)
    bytes_per_s: float = 4 * _MiB  # token bucket on the bytes the peer sends
    bytes_burst: float = 16 * _MiB
    frames_per_s: float = 200.0  # token bucket on the frames the peer sends
    frames_burst: float = 1000.0
    max_handshakes: int = 32  # serve_links: handshakes in progress at once; more are refused
    # (a link counts as one until its first message: see serve_links) and of them, from one
    # address (host)
    max_handshakes_per_host: int = 16
    # serve_links: new connections from one host (``host_group``), a token bucket checked at
    # the accept, before any handshake work; over it the connection is closed at once
    # (helper-66: one address kept a lobby at 92-102% CPU with 412 handshakes in 15 s). The
    # burst covers a host's own 9 bots joining and dialling it at once from 127.0.0.1
    accepts_per_s: float = 4.0
    accepts_burst: float = 40.0
    accept_hosts: int = 1024  # hosts whose bucket is kept (idle ones are forgotten first)
    refusals_quiet: float = 10.0  # connections refused over that rate: said once, then at
    # most once in this many seconds, with their count
    read_chunk: int = 64 * 1024

    def __post_init__(self) -> None:
        if not HEADER_SIZE < self.max_frame < 2**32:
            raise ValueError("max_frame out of range")
        timers = (
            self.connect_timeout,
            self.handshake_timeout,
            self.ping_interval,
            self.dead_after,
            self.write_timeout,
            self.close_timeout,
            self.refusals_quiet,
        )
        if min(timers) <= 0:
            raise ValueError("every timeout and interval must be > 0")
        if self.dead_after <= self.ping_interval:
            raise ValueError("dead_after must be longer than ping_interval")
        counts = (
            self.send_queue_frames,
            self.send_queue_bytes,
            self.recv_queue_frames,
            self.recv_queue_bytes,
            self.max_handshakes,
            self.max_handshakes_per_host,
            self.accept_hosts,
            self.read_chunk,
        )
        if min(counts) < 1 or min(self.bytes_per_s, self.frames_per_s, self.accepts_per_s) <= 0:
            raise ValueError("queue sizes, rates and counts must be positive")
        if self.bytes_burst < self.read_chunk or min(self.frames_burst, self.accepts_burst) < 1:
            raise ValueError(
                "bytes_burst must hold one read_chunk, frames_burst one frame, accepts_burst "
                "one connection"
            )


DEFAULT_LIMITS: Final = Limits()


class LinkErrorCode(enum.StrEnum):
    """Link-level codes; handshake, frame and record codes pass through unchanged."""

    CONNECT = "connect"
    HANDSHAKE_TIMEOUT = "handshake_timeout"
    BUSY = "busy"
    REFUSED = "refused"
    SILENT = "silent"
    STALLED = "stalled"
    RATE_LIMITED = "rate_limited"
    TOO_SLOW = "too_slow"
    EOF = "eof"
    IO_ERROR = "io_error"
    BYE = "bye"
    CLOSED = "closed"


class LinkError(TransportError):
    """Why a link failed or closed, naming the peer: its key when known, else its address."""

    def __init__(
        self, code: str, message: str, *, peer: bytes | None = None, address: str = ""
    ) -> None:
        self.peer = peer
        self.address = address
        self.detail = message
        super().__init__(code, f"{self.who}: {message}")

    @property
    def who(self) -> str:
        if self.peer is not None:
            at = f" at {self.address}" if self.address else ""
            return f"peer {self.peer.hex()[:16]}{at}"
        return f"address {self.address or '?'}"


@dataclass(slots=True)
class LinkStats:
    """Counters of one link. Bytes include the handshake; frames are records after it."""

    bytes_in: int = 0
    bytes_out: int = 0
    frames_in: int = 0
    frames_out: int = 0
    handshake_ms: float = 0.0  # connect (initiator) or first byte (responder) to a usable link
    rtt_ms: float | None = None  # the last PING's round trip


class _Bucket:
    """Token bucket: ``rate`` per second, at most ``burst`` saved up."""

    __slots__ = ("burst", "last", "rate", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate, self.burst, self.tokens, self.last = rate, burst, burst, now

    def take(self, n: float, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < n:
            return False
        self.tokens -= n
        return True


class _AcceptRate:
    """New connections per host (``host_group``) at a listener: a :class:`_Bucket` each, in a
    dict least recently seen first. Memory is bounded: a bucket full again is the same as a
    fresh one, so the idle ones at the front are forgotten as new connections come (amortised
    O(1)); and past ``hosts`` buckets (a flood from many addresses) a new host is charged to
    one shared bucket instead of a bucket of its own (so the rate stays bounded too: dropping
    a bucket still in use would give its host a fresh burst)."""

    __slots__ = ("buckets", "burst", "hosts", "overflow", "rate")

    def __init__(self, rate: float, burst: float, hosts: int) -> None:
        self.rate, self.burst, self.hosts = rate, burst, hosts
        self.buckets: dict[str, _Bucket] = {}
        self.overflow: _Bucket | None = None

    def _idle(self, bucket: _Bucket, now: float) -> bool:
        return bucket.tokens + (now - bucket.last) * self.rate >= self.burst

    def take(self, host: str, now: float) -> bool:
        """One connection from ``host`` now: False if it is over the rate."""
        buckets = self.buckets
        bucket = buckets.pop(host, None)
        while buckets:  # (the least recently seen first: forget those full again)
            oldest = next(iter(buckets))
            if not self._idle(buckets[oldest], now):
                break
            del buckets[oldest]
        if bucket is None and len(buckets) >= self.hosts:
            if self.overflow is None:
                self.overflow = _Bucket(self.rate, self.burst, now)
            return self.overflow.take(1, now)
        if bucket is None:
            bucket = _Bucket(self.rate, self.burst, now)
        buckets[host] = bucket  # (now the most recently seen)
        return bucket.take(1, now)


class _Conn(asyncio.BufferedProtocol):
    """The protocol of one connection, from its first byte to its last.

    During the handshake it keeps what arrives for :meth:`read_exactly` (reading pauses past
    ``limit`` bytes: a peer cannot grow it); once the link is made (:meth:`attach`) every read
    goes straight to the :class:`Link`, in the event loop's callback: no reader task to wake
    and no timer per read (a watchdog task checks the silence instead). Reads are at most
    ``chunk`` bytes (the link's byte bucket is charged per read). It also carries the
    transport's write flow control (:meth:`drain`) and its end (:meth:`wait_closed`).
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        chunk: int,
        on_made: Callable[[_Conn], None] | None = None,
    ) -> None:
        self.loop = loop
        self._on_made = on_made
        self.transport: asyncio.Transport | None = None
        self.limit = chunk
        self._chunk = chunk
        self._rview: memoryview | None = None  # (made at the first read: a connection closed
        # at its accept costs no read buffer)
        self._buf = bytearray()  # during the handshake: what came and was not read yet
        self._waiter: asyncio.Future[None] | None = None
        self._eof = False
        self._error: OSError | None = None
        self._reading_paused = False
        self._link: Link | None = None
        self._write_paused = False
        self._drainers: deque[asyncio.Future[None]] = deque()
        self._lost: asyncio.Future[None] = loop.create_future()
        self._peer_done: asyncio.Future[None] = loop.create_future()  # its EOF, or the end
        # the peer ended its side (its EOF came): a connection lost without it and without
        # an OSError was closed at this end (a reset or a broken socket comes with one)
        self.peer_eof = False

    # ------------------------------------------------------------ asyncio's calls
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if self._on_made is not None:
            self._on_made(self)

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._rview is None:
            self._rview = memoryview(bytearray(self._chunk))
        return self._rview

    def buffer_updated(self, nbytes: int) -> None:
        assert self._rview is not None
        data = bytes(self._rview[:nbytes])
        if self._link is not None:
            self._link._data(data)
            return
        self._buf += data
        if len(self._buf) > self.limit and self.transport is not None:
            self.transport.pause_reading()
            self._reading_paused = True
        self._wake()

    def eof_received(self) -> bool:
        self.peer_eof = True
        if not self._peer_done.done():
            self._peer_done.set_result(None)
        if self._link is not None:
            self._link._eof()
        else:
            self._eof = True
            self._wake()
        return True  # half-closed: we may still write (a BYE naming the fault)

    def connection_lost(self, exc: Exception | None) -> None:
        self._eof = True
        if isinstance(exc, OSError):
            self._error = exc
        if self._link is not None:
            self._link._lost(self._error)
        self._wake()
        while self._drainers:
            fut = self._drainers.popleft()
            if not fut.done():
                fut.set_result(None)
        if not self._lost.done():
            self._lost.set_result(None)
        if not self._peer_done.done():
            self._peer_done.set_result(None)

    def pause_writing(self) -> None:
        self._write_paused = True

    def resume_writing(self) -> None:
        self._write_paused = False
        while self._drainers:
            fut = self._drainers.popleft()
            if not fut.done():
                fut.set_result(None)

    # ------------------------------------------------------------ ours
    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def read_exactly(self, n: int) -> bytes:
        """``n`` bytes (the handshake's frames); IncompleteReadError at the end of stream."""
        while len(self._buf) < n:
            if self._error is not None:
                raise self._error
            if self._eof:
                raise asyncio.IncompleteReadError(bytes(self._buf), n)
            if self._reading_paused and self.transport is not None:
                self.transport.resume_reading()  # the reader wants more than the limit
                self._reading_paused = False
            self._waiter = self.loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    def attach(self, link: Link) -> None:
        """From now on every byte read goes to ``link`` (what came early first)."""
        self._link = link
        early, self._buf = bytes(self._buf), bytearray()
        if self._reading_paused and self.transport is not None:
            self.transport.resume_reading()
            self._reading_paused = False
        if early:
            link._data(early)
        if self._error is not None or self._lost.done():
            link._lost(self._error)
        elif self._eof:
            link._eof()

    def pause_reading(self) -> None:
        if not self._reading_paused and self.transport is not None:
            self.transport.pause_reading()
            self._reading_paused = True

    def resume_reading(self) -> None:
        if self._reading_paused and self.transport is not None:
            self.transport.resume_reading()
            self._reading_paused = False

    async def drain(self) -> None:
        """Wait until the transport's write buffer is below its high-water mark;
        ConnectionResetError once the connection is gone."""
        if self._lost.done():
            raise ConnectionResetError("connection lost")
        if not self._write_paused:
            return
        fut = self.loop.create_future()
        self._drainers.append(fut)
        await fut
        if self._lost.done():
            raise ConnectionResetError("connection lost")

    async def wait_closed(self) -> None:
        await asyncio.shield(self._lost)


_OPEN, _CLOSING, _CLOSED = 0, 1, 2
_GRACEFUL: Final = frozenset({LinkErrorCode.CLOSED.value, LinkErrorCode.BYE.value})


class Link:
    """One authenticated link. Made by :func:`open_link` and :func:`serve_links` only.

    ``send(type, payload)`` queues a message and returns at once; a writer task seals and
    writes the queue and awaits ``drain()`` under ``write_timeout``. If the queue is over
    ``send_queue_frames`` or ``send_queue_bytes`` when a message is added, or a drain times
    out, the peer is too slow: the link closes with ``too_slow`` and ``send`` raises that
    :class:`LinkError` (memory per link stays bounded). ``recv()`` (or ``async for``) gives
    ``(type, payload)`` of ENTRY, FETCH, SYNC and LOBBY messages in order; PING, PONG and BYE
    are handled here. Once the link is closed and what it had received is taken, ``recv()``
    raises the :class:`LinkError` that closed it and iteration stops (cleanly for ``closed``
    and ``bye``, else by raising it).
    """

    def __init__(
        self,
        conn: _Conn,
        result: HandshakeResult,
        limits: Limits,
        address: str,
        stats: LinkStats,
    ) -> None:
        self.peer: bytes = result.peer_sign_pk
        self.heard = asyncio.Event()  # set by the peer's first message (see serve_links)
        self.context: bytes = result.context
        self.channel_binding: bytes = result.channel_binding
        self.role: str = result.role
        self.address = address
        self.stats = stats
        self.limits = limits
        assert conn.transport is not None
        self._conn = conn
        self._transport: asyncio.Transport = conn.transport
        self._decoder = FrameDecoder(limits.max_frame)
        self._sender = result.sender
        self._receiver = result.receiver
        self._loop = asyncio.get_running_loop()
        self._state = _OPEN
        self._error: LinkError | None = None
        self._out: deque[bytes] = deque()
        self._out_bytes = 0
        self._out_wake = asyncio.Event()
        self._in: deque[Message] = deque()
        self._in_bytes = 0
        self._in_ready = asyncio.Event()
        self._reading_paused = False  # the inbox is full (recv() mode): TCP backpressure
        self._first = asyncio.Event()  # the first record from the peer, or the link closed
        self._accepted = False  # a first record that was not BYE (the responder's welcome)
        self._closed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._closer: asyncio.Task[None] | None = None
        self._ping: tuple[int, float] | None = None
        self._handler: Callable[[Message], None] | None = None
        now = self._loop.time()
        self._last = now  # the last complete record, or when reading resumed after a pause
        self._byte_bucket = _Bucket(limits.bytes_per_s, limits.bytes_burst, now)
        self._frame_bucket = _Bucket(limits.frames_per_s, limits.frames_burst, now)

    # ------------------------------------------------------------ public

    @property
    def closed(self) -> bool:
        """True once the link is closing or closed (``error`` says why)."""
        return self._state != _OPEN

    @property
    def error(self) -> LinkError | None:
        """Why the link closed (``closed`` / ``bye`` for clean closes), None while open."""
        return self._error

    @property
    def queued_bytes(self) -> int:
        """Bytes of messages waiting in the send queue (to pace a large transfer by)."""
        return self._out_bytes

    @property
    def queued_messages(self) -> int:
        """Messages waiting in the send queue."""
        return len(self._out)

    def send(self, mtype: MsgType | int, payload: bytes) -> None:
        """Queue one message. :class:`FrameError` for a malformed payload (the link stays
        open); :class:`LinkError` if the link is closed or this message overflows the queue."""
        if self._error is not None:
            raise self._error.with_traceback(None)
        data = encode_message(mtype, payload)
        if len(data) + TAG_SIZE > self.limits.max_frame:
            raise FrameError(FrameErrorCode.OVERSIZE, "message over the frame cap")
        lim = self.limits
        if self._out and (
            len(self._out) >= lim.send_queue_frames
            or self._out_bytes + len(data) > lim.send_queue_bytes
        ):
            err = self._err(
                LinkErrorCode.TOO_SLOW,
                f"send queue full ({len(self._out)} messages, {self._out_bytes} bytes): "
                "the peer does not read fast enough",
            )
            self._fail(err, bye=False)
            raise err
        if self._transport.is_closing():
            # the connection broke on an earlier write (a reset) and asyncio has yet to call
            # connection_lost, which fails this link: the message cannot go (asyncio would drop
            # it too, and log a warning for each write past its fifth: a node's stderr once
            # held 924 lines of "socket.send() raised exception.", helper-103)
            return
        if (
            not self._out
            and self._state == _OPEN
            and self._transport.get_write_buffer_size() < 64 * 1024
        ):
            # nothing waiting and the socket keeps up: write now, a task hop saved (the writer
            # task is not woken: it has nothing to write; once the transport holds 64 KiB,
            # messages queue and its drain() bounds what the kernel and transport hold)
            self._write_record(data)
            return
        self._queue(data)

    def set_handler(self, handler: Callable[[Message], None]) -> None:
        """Take messages as they are read, by a call from the reader (no queue, no task hop:
        the lower latency a game step wants) instead of :meth:`recv`. ``handler`` must be
        quick and must not raise (an exception closes the link as an internal error). Messages
        already queued are handed over first."""
        self._handler = handler
        while self._in:  # (also those that came before the peer closed: they are its word)
            msg = self._in.popleft()
            self._in_bytes -= len(msg.payload)
            try:
                self._deliver(msg)  # a handler that raises closes the link, as on a read
            except LinkError as e:
                self._fail(e)
                break
        self._in.clear()
        self._in_bytes = 0
        if self._reading_paused and self._state == _OPEN:
            self._reading_paused = False
            self._last = self._loop.time()
            self._conn.resume_reading()

    async def recv(self) -> Message:
        """The next message from the peer (waits); :class:`LinkError` once closed and empty."""
        while not self._in:
            if self._error is not None:
                raise self._error.with_traceback(None)
            self._in_ready.clear()
            await self._in_ready.wait()
        msg = self._in.popleft()
        self._in_bytes -= len(msg.payload)
        if self._reading_paused and not self._inbox_full():
            self._reading_paused = False
            self._last = self._loop.time()  # the app made us wait: the silence clock restarts
            self._conn.resume_reading()
        return msg

    def __aiter__(self) -> Link:
        return self

    async def __anext__(self) -> Message:
        try:
            return await self.recv()
        except LinkError as e:
            if e.code in _GRACEFUL:
                raise StopAsyncIteration from None
            raise

    def close(self, reason: str = "closed") -> None:
        """Close cleanly: what is queued is written, then BYE with ``reason``, each within
        ``close_timeout``. Does nothing if the link is already closing."""
        if self._state != _OPEN:
            return
        self._begin_close(self._err(LinkErrorCode.CLOSED, f"closed here: {reason}"))
        self._closer = self._loop.create_task(self._shutdown(reason, flush=True))

    async def aclose(self, reason: str = "closed") -> None:
        """:meth:`close` and wait until the connection is closed."""
        self.close(reason)
        await self.wait_closed()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    def __repr__(self) -> str:
        state = ("open", "closing", "closed")[self._state]
        return f"Link({self.role}, peer={self.peer.hex()[:16]}, {self.address}, {state})"

    # ------------------------------------------------------------ internals

    def _err(self, code: str, message: str) -> LinkError:
        return LinkError(code, message, peer=self.peer, address=self.address)

    def _start(self) -> None:
        create = self._loop.create_task
        self._tasks = [create(self._watchdog()), create(self._write_loop())]
        self._tasks.append(create(self._heartbeat()))
        self._conn.attach(self)  # from here on, reads come to _data

    async def _wait_first(self) -> None:
        await self._first.wait()

    def _queue(self, data: bytes) -> None:
        self._out.append(data)
        self._out_bytes += len(data)
        self._out_wake.set()

    def _queue_internal(self, mtype: MsgType, payload: bytes) -> None:
        if self._state == _OPEN:  # link upkeep bypasses the queue limits (a few bytes)
            self._queue(bytes((mtype,)) + payload)

    def _begin_close(self, error: LinkError) -> None:
        self._state = _CLOSING
        self._error = error
        self._first.set()
        self._in_ready.set()
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()

    def _fail(self, error: LinkError, *, bye: bool = True) -> None:
        """Close at once because of ``error``; BYE naming it if the socket may take it."""
        if self._state != _OPEN:
            return
        if error.code in _GRACEFUL:
            log.info("link %s", error)
        else:
            log.warning("link dropped: %s", error)
        self._begin_close(error)
        self._out.clear()
        self._out_bytes = 0
        reason = clip_reason(f"{error.code}: {error.detail}") if bye else None
        self._closer = self._loop.create_task(self._shutdown(reason, flush=False))

    async def _shutdown(self, bye: str | None, *, flush: bool) -> None:
        transport = self._transport
        try:
            current = asyncio.current_task()
            others = [t for t in self._tasks if t is not current and not t.done()]
            if others:
                await asyncio.wait(others, timeout=self.limits.close_timeout)
            if not transport.is_closing():
                if flush:
                    self._write_queued()
                if bye is not None:
                    with contextlib.suppress(RecordError, FrameError):
                        self._write_record(encode_message(MsgType.BYE, encode_bye(bye)))
                with contextlib.suppress(TimeoutError, OSError):
                    async with asyncio.timeout(self.limits.close_timeout):
                        await self._conn.drain()
                if bye is not None and transport.can_write_eof() and not transport.is_closing():
                    # our end sent, then wait for the peer's (it reads the BYE, then closes)
                    # while what it still sends is read and dropped: a close with unread
                    # bytes makes the kernel answer RST and throw away what it had not sent
                    # yet, the BYE with it (a test at load 4 read "lost the link: a network
                    # error" of a seat that left)
                    with contextlib.suppress(OSError, RuntimeError):
                        transport.write_eof()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.limits.close_timeout):
                            await asyncio.shield(self._conn._peer_done)
                transport.close()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.limits.close_timeout):
                        await self._conn.wait_closed()
        finally:
            transport.abort()  # a no-op once closed; else the peer is not reading
            self._out.clear()
            self._out_bytes = 0
            self._state = _CLOSED
            self._closed.set()

    def _write_record(self, data: bytes) -> int:
        frame = self._sender.seal(data)
        self._transport.write(frame)
        self.stats.bytes_out += len(frame)
        self.stats.frames_out += 1
        return len(frame)

    def _write_queued(self, budget: int = 2**62) -> None:
        written = 0
        while self._out and written < budget:
            if self._transport.is_closing():
                # the connection broke on an earlier write (a reset): what is left cannot go,
                # and asyncio would log a warning for each write past its fifth; the link
                # fails once asyncio calls connection_lost (the queue emptied, the writer
                # waits for more rather than spinning on a drain that returns at once)
                self._out.clear()
                self._out_bytes = 0
                return
            data = self._out.popleft()
            self._out_bytes -= len(data)
            written += self._write_record(data)

    async def _write_loop(self) -> None:
        try:
            while True:
                while not self._out:
                    self._out_wake.clear()
                    await self._out_wake.wait()
                self._write_queued(budget=256 * 1024)
                try:
                    async with asyncio.timeout(self.limits.write_timeout):
                        await self._conn.drain()
                except TimeoutError:
                    raise self._err(
                        LinkErrorCode.TOO_SLOW,
                        f"not reading: our writes did not drain in {self.limits.write_timeout} s",
                    ) from None
        except LinkError as e:
            self._fail(e, bye=False)
        except RecordError as e:
            self._fail(self._err(e.code, e.message))
        except OSError as e:
            self._fail(self._err(LinkErrorCode.IO_ERROR, f"write failed: {_os_text(e)}"))

    async def _heartbeat(self) -> None:
        token = 0
        while True:
            self._ping = (token, self._loop.time())
            self._queue_internal(MsgType.PING, encode_ping(token))
            token += 1
            await asyncio.sleep(self.limits.ping_interval)

    def _silence(self) -> LinkError:
        secs = self.limits.dead_after
        if self._decoder.pending:
            return self._err(
                LinkErrorCode.STALLED,
                f"left a frame unfinished for {secs} s ({self._decoder.pending} bytes of it)",
            )
        return self._err(LinkErrorCode.SILENT, f"sent nothing for {secs} s")

    async def _watchdog(self) -> None:
        """A peer that sends no complete record for ``dead_after`` is dropped (the PINGs keep
        an honest idle peer talking). While the app keeps reading paused, the clock stops."""
        loop = self._loop
        while True:
            wait = self._last + self.limits.dead_after - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            elif self._reading_paused:
                self._last = loop.time()
            else:
                self._fail(self._silence())
                return

    def _data(self, chunk: bytes) -> None:
        """Bytes from the peer (the protocol's callback): every record they complete."""
        if self._state != _OPEN:
            return
        try:
            self._records(chunk)
        except LinkError as e:
            self._fail(e)
        except TransportError as e:  # a bad frame, record or message: the peer's fault
            self._fail(self._err(e.code, e.message))
        except Exception as e:  # a bug of ours: this link closes, the node goes on
            log.exception("reading from %s failed", self.address)
            self._fail(self._err(LinkErrorCode.CLOSED, f"internal error: {type(e).__name__}"))

    def _records(self, chunk: bytes) -> None:
        lim = self.limits
        now = self._loop.time()
        self.stats.bytes_in += len(chunk)
        if not self._byte_bucket.take(len(chunk), now):
            raise self._err(
                LinkErrorCode.RATE_LIMITED,
                f"sent more than {lim.bytes_per_s:.0f} bytes/s (burst {lim.bytes_burst:.0f})",
            )
        for body in self._decoder.feed(chunk):
            if self._state != _OPEN:
                return  # the app closed the link on an earlier record of this read
            if not self._frame_bucket.take(1, now):
                raise self._err(
                    LinkErrorCode.RATE_LIMITED,
                    f"sent more than {lim.frames_per_s:.0f} frames/s "
                    f"(burst {lim.frames_burst:.0f})",
                )
            msg = decode_message(self._receiver.open(body))
            self.stats.frames_in += 1
            self._last = now
            first = not self._first.is_set()
            if msg.type is not MsgType.BYE:
                self._accepted = True
            self._first.set()
            if msg.type is MsgType.PING:
                self._queue_internal(MsgType.PONG, msg.payload)
            elif msg.type is MsgType.PONG:
                self._pong(decode_ping(msg.payload), now)
            elif msg.type is MsgType.BYE:
                self._peer_bye(decode_bye(msg.payload), first)
                return
            else:
                self._deliver(msg)

    def _eof(self) -> None:
        """The peer closed its side of the connection."""
        if self._state != _OPEN:
            return
        try:
            self._decoder.eof()
        except FrameError as e:
            self._fail(self._err(e.code, e.message))
            return
        if self.role == "initiator" and not self._first.is_set():
            self._fail(
                self._err(
                    LinkErrorCode.REFUSED,
                    "closed the connection after the handshake (our key refused)",
                )
            )
            return
        self._fail(self._err(LinkErrorCode.EOF, "closed the connection without BYE"))

    def _lost(self, exc: OSError | None) -> None:
        """The connection is gone (broken, or closed by either side)."""
        if self._state != _OPEN:
            return
        if exc is not None:
            self._fail(self._err(LinkErrorCode.IO_ERROR, f"read failed: {_os_text(exc)}"))
        elif self.role == "initiator" and not self._first.is_set() and not self._conn.peer_eof:
            # closed at this end (this node, or a cut of its own write: tests/node/netshim.py)
            # before the responder's first record: no word of the peer's, so not "our key
            # refused", which is the peer's EOF or BYE there (helper-91)
            self._fail(
                self._err(
                    LinkErrorCode.CLOSED,
                    "the connection was closed at this end before the peer's first record "
                    "(not a refusal of our key)",
                ),
                bye=False,
            )
        else:
            self._eof()

    def _pong(self, token: int, now: float) -> None:
        if self._ping is not None and self._ping[0] == token:
            self.stats.rtt_ms = (now - self._ping[1]) * 1000.0

    def _peer_bye(self, reason: str, first: bool) -> None:
        if self.role == "initiator" and first:
            err = self._err(LinkErrorCode.REFUSED, f"refused the link: {reason}")
        else:
            err = self._err(LinkErrorCode.BYE, f"said bye: {reason}")
        self._fail(err, bye=False)

    def _inbox_full(self) -> bool:
        lim = self.limits
        return len(self._in) >= lim.recv_queue_frames or self._in_bytes > lim.recv_queue_bytes

    def _deliver(self, msg: Message) -> None:
        """To the handler, or to the inbox for recv(); a full inbox pauses reading (the rest
        of the read in hand still goes in: the inbox exceeds its cap by one read at most)."""
        if not self.heard.is_set():
            self.heard.set()
        if self._handler is not None:
            try:
                self._handler(msg)
            except Exception as e:
                log.exception("message handler failed")
                raise self._err(LinkErrorCode.CLOSED, f"internal error: {type(e).__name__}") from e
            return
        self._in.append(msg)
        self._in_bytes += len(msg.payload)
        self._in_ready.set()
        if not self._reading_paused and self._inbox_full():
            self._reading_paused = True
            self._conn.pause_reading()


def _os_text(e: OSError) -> str:
    if isinstance(e, ConnectionRefusedError):  # (asyncio's text: "Connect call failed (...)")
        return "nothing is listening there (connection refused)"
    if isinstance(e, socket.gaierror):
        return f"no such host ({e.strerror or e})"
    return e.strerror or type(e).__name__


def host_group(host: str) -> str:
    """The group a listener counts a peer's pending connections in: its address, or for an
    IPv6 address its /64 network (a host on a LAN may take any number of addresses in its
    /64: helper-62 noted that counting each one alone lets one machine hold every place)."""
    try:
        ip = ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return host


def _address(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    if isinstance(peer, tuple) and len(peer) >= 2:
        return f"{peer[0]}:{peer[1]}"
    return str(peer)


async def _read_handshake_frame(conn: _Conn) -> bytes:
    header = await conn.read_exactly(HEADER_SIZE)
    length = int.from_bytes(header, "big")
    if length == 0:
        raise FrameError(FrameErrorCode.EMPTY, "a zero-length handshake frame")
    if length > MAX_HANDSHAKE_FRAME:
        raise FrameError(
            FrameErrorCode.OVERSIZE,
            f"length header {length} is over the handshake cap of {MAX_HANDSHAKE_FRAME}",
        )
    return await conn.read_exactly(length)


def _handshake_error(e: BaseException, address: str, limits: Limits) -> LinkError:
    if isinstance(e, TimeoutError):
        return LinkError(
            LinkErrorCode.HANDSHAKE_TIMEOUT,
            f"did not finish the handshake within {limits.handshake_timeout} s",
            address=address,
        )
    if isinstance(e, asyncio.IncompleteReadError):
        return LinkError(
            LinkErrorCode.EOF,
            # (helper-80: "closed the connection" read as the peer's choice; it may be a cut)
            "the connection ended during the handshake, "
            + (f"{len(e.partial)} bytes into a frame" if e.partial else "before a frame came"),
            address=address,
        )
    if isinstance(e, TransportError):
        return LinkError(e.code, e.message, address=address)
    if isinstance(e, OSError):
        return LinkError(LinkErrorCode.IO_ERROR, _os_text(e), address=address)
    raise e


async def open_link(
    host: str,
    port: int,
    identity: Signer,
    context: bytes | None,
    expect: bytes | None = None,
    limits: Limits = DEFAULT_LIMITS,
    *,
    rng: Rng = os.urandom,
) -> Link:
    """Connect to ``host:port`` and run the initiator's handshake in ``context`` (None: take
    the responder's, joining by address), requiring the key ``expect`` if given. Returns once
    the responder has accepted our key (its first record arrived); :class:`LinkError` if not.
    """
    loop = asyncio.get_running_loop()
    address = f"{host}:{port}"
    start = loop.time()
    try:
        async with asyncio.timeout(limits.connect_timeout):
            transport, conn = await loop.create_connection(
                lambda: _Conn(loop, limits.read_chunk), host, port
            )
    except TimeoutError:
        raise LinkError(
            LinkErrorCode.CONNECT, f"no connection in {limits.connect_timeout} s", address=address
        ) from None
    except OSError as e:
        raise LinkError(LinkErrorCode.CONNECT, _os_text(e), address=address) from None
    deadline = loop.time() + limits.handshake_timeout
    stats = LinkStats()
    init = Initiator(identity, context, expect=expect, rng=rng, max_frame=limits.max_frame)
    try:
        async with asyncio.timeout_at(deadline):
            msg1 = encode_frame(init.start())
            transport.write(msg1)
            await conn.drain()
            msg2 = await _read_handshake_frame(conn)
            msg3, result = init.finish(msg2)
            transport.write(encode_frame(msg3))
            await conn.drain()
    except (TimeoutError, asyncio.IncompleteReadError, TransportError, OSError) as e:
        transport.abort()
        raise _handshake_error(e, address, limits) from None
    except BaseException:  # cancelled (or a bug): leave no socket behind
        transport.abort()
        raise
    stats.bytes_out = len(msg1) + HEADER_SIZE + len(msg3)
    stats.bytes_in = HEADER_SIZE + len(msg2)
    link = Link(conn, result, limits, address, stats)
    link._start()
    try:
        async with asyncio.timeout_at(deadline):
            await link._wait_first()
    except TimeoutError:
        link._fail(
            link._err(
                LinkErrorCode.HANDSHAKE_TIMEOUT,
                f"did not accept or refuse the link within {limits.handshake_timeout} s",
            )
        )
    except asyncio.CancelledError:
        link._fail(link._err(LinkErrorCode.CLOSED, "open_link cancelled"), bye=False)
        raise
    if not link._accepted:
        await link.wait_closed()
        assert link.error is not None
        raise link.error
    stats.handshake_ms = (loop.time() - start) * 1000.0
    return link


OnLink = Callable[["Link"], Awaitable[None] | None]


async def serve_links(
    host: str,
    port: int,
    identity: Signer,
    context: bytes | ContextResolver,
    accept_peer: Callable[[bytes], bool],
    on_link: OnLink,
    limits: Limits = DEFAULT_LIMITS,
    *,
    on_error: Callable[[LinkError], object] | None = None,
    rng: Rng = os.urandom,
) -> asyncio.Server:
    """Listen on ``host:port`` (port 0: any free port) as the handshake's responder.

    ``context`` is this node's context or a resolver (see ``Responder``). ``accept_peer(key)``
    decides whether an authenticated key is welcome (a roster is an allow list; e.g.
    ``keys.__contains__``): if not, the peer gets a BYE naming the refusal. Each accepted link
    is passed to ``on_link`` (awaited if it returns an awaitable), which owns it from then on.
    Each connection that fails is reported to ``on_error`` (and logged) as a
    :class:`LinkError`; the server goes on accepting. At most ``limits.max_handshakes``
    connections are pending at once, and ``limits.max_handshakes_per_host`` from one host;
    beyond that a connection gets a ``busy`` alert and is closed, unless every place is taken
    and another host holds more of them than its own host (by more than one): then the oldest
    of the host holding the most is cut and it takes the place. A connection is pending from
    its accept until its link's first message (or its end): any key may complete a handshake
    here (a spectator, a joiner), and the handlers give a link 10 s to say what it is, so a
    peer that completed handshakes and then said nothing held a descriptor and 64 KiB each,
    with no bound: a review (helper-38) held 1,100 links open and the node, out of
    descriptors, could no longer write its files and stopped.

    Before any of that, each host's new connections are counted at their accept
    (``limits.accepts_per_s``, burst ``accepts_burst``): one over the rate gets a ``busy``
    alert and is closed there, its cost the accept alone (no task, no read, no handshake; a
    review, helper-66, kept a lobby at 92-102% CPU with 412 handshakes in 15 s from one
    address, each 5.8 ms of the listener's CPU). Such refusals are reported once
    (``rate_limited``, naming the host), then at most once per ``limits.refusals_quiet``
    seconds with their count: a flood fills neither the log nor the screen.
    """
    # Every pending connection, by host, oldest first (dicts keep insertion order): a token
    # per connection, and the transport to abort if it is evicted and its address.
    by_host: dict[str, dict[object, tuple[asyncio.Transport, str]]] = {}

    def pending() -> int:
        return sum(len(held) for held in by_host.values())

    def release(host: str, token: object) -> bool:
        """Frees the place; False if it was not held (evicted: reported then)."""
        held = by_host.get(host)
        if held is None or held.pop(token, None) is None:
            return False
        if not held:
            del by_host[host]
        return True

    def evict_for(host: str) -> str | None:
        """Room for one more pending connection from ``host`` when every place is taken:
        the oldest of the host holding the most, if it holds more than ``host`` does (one
        host flooding, or two, cannot keep a third out: helper-38 held 16 places from one
        host by reconnecting, and two hosts all 32). Returns the evicted one's address."""
        most = max(by_host, key=lambda h: len(by_host[h]))
        if len(by_host[most]) <= len(by_host.get(host, {})) + 1:
            return None  # (``host`` holds as many: it is the flood, or one of equals)
        token, (victim, where) = next(iter(by_host[most].items()))
        release(most, token)
        victim.abort()  # (its handshake or first-message wait ends with the connection)
        return where

    async def until_heard(link: Link, host: str, token: object) -> None:
        try:
            heard = asyncio.ensure_future(link.heard.wait())
            closed = asyncio.ensure_future(link.wait_closed())
            try:
                await asyncio.wait({heard, closed}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                heard.cancel()
                closed.cancel()
        finally:
            release(host, token)

    def report(err: LinkError) -> None:
        log.info("refused connection: %s", err)
        if on_error is not None:
            try:
                on_error(err)
            except Exception:
                log.exception("on_error failed")

    rates = _AcceptRate(limits.accepts_per_s, limits.accepts_burst, limits.accept_hosts)
    # refusals over the rate not reported yet: their count, the last one's address and host;
    # and the timer that reports them (None: the next refusal is reported at once)
    unsaid = 0
    last_refused = ("", "")
    quiet: asyncio.TimerHandle | None = None
    served: list[asyncio.Server] = []  # (the server, once made)

    def over_rate_said(first: bool = False) -> None:
        nonlocal unsaid, quiet
        address, host = last_refused
        if first:
            text = (
                f"more new connections from {host} than {limits.accepts_per_s:g} a second "
                f"(or {limits.accepts_burst:g} at once): its connections are closed as they "
                "come, until it slows down"
            )
        elif unsaid and served and served[0].is_serving():  # (closed: nobody's news)
            text = (
                f"{unsaid} more connection{'s' if unsaid > 1 else ''} closed as they came, in "
                f"the last {limits.refusals_quiet:g} s, over the rate of new connections from "
                f"one host (the last from {host})"
            )
        else:
            quiet = None  # (a quiet period with none: the next one is said at once)
            return
        unsaid = 0
        quiet = loop.call_later(limits.refusals_quiet, over_rate_said)
        report(LinkError(LinkErrorCode.RATE_LIMITED, text, address=address))

    def refuse_over_rate(transport: asyncio.Transport, address: str, host: str) -> None:
        nonlocal unsaid, last_refused
        alert = encode_alert(HandshakeErrorCode.BUSY)
        assert alert is not None
        transport.write(encode_frame(alert))  # (one send; an honest peer reads "busy")
        transport.close()
        last_refused = (address, host)
        if quiet is None:
            over_rate_said(first=True)
        else:
            unsaid += 1

    async def handle(conn: _Conn, address: str, host: str) -> None:
        transport = conn.transport
        assert transport is not None
        mine = len(by_host.get(host, {}))
        evicted = None
        if mine < limits.max_handshakes_per_host and pending() >= limits.max_handshakes:
            evicted = evict_for(host)
        if pending() >= limits.max_handshakes or mine >= limits.max_handshakes_per_host:
            alert = encode_alert(HandshakeErrorCode.BUSY)
            assert alert is not None
            transport.write(encode_frame(alert))
            transport.close()
            full = mine < limits.max_handshakes_per_host
            many = f"{pending()}" if full else f"{mine} from {host}"
            report(
                LinkError(
                    LinkErrorCode.BUSY,
                    f"{many} connections already waiting for a handshake or a first message",
                    address=address,
                )
            )
            return
        if evicted is not None:  # (reported as the one cut, at its own address: helper-61
            # read the one let in named as refused)
            report(
                LinkError(
                    LinkErrorCode.BUSY,
                    f"cut, the oldest of the most connections from one host waiting for a "
                    f"handshake or a first message, to make room for {address}",
                    address=evicted,
                )
            )
        token = object()
        by_host.setdefault(host, {})[token] = (transport, address)
        try:
            link = await _respond(conn, identity, context, accept_peer, limits, rng)
        except LinkError as e:
            if release(host, token):  # (not one evicted: its end is the eviction's)
                report(e)
            return
        except asyncio.CancelledError:
            # the server is shutting down: end quietly
            release(host, token)
            transport.abort()
            return
        except Exception:
            release(host, token)
            log.exception("handshake with %s failed unexpectedly", address)
            transport.abort()
            return
        # pending until its first message (or its end)
        if token not in by_host.get(host, {}):  # (evicted as it finished: gone with it)
            link.close("busy")
            return
        watcher = loop.create_task(until_heard(link, host, token))
        tasks.add(watcher)
        watcher.add_done_callback(tasks.discard)
        try:
            got = on_link(link)
            if inspect.isawaitable(got):
                await got
        except Exception:
            log.exception("on_link failed for %r", link)
            link.close("internal error")

    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[None]] = set()

    def made(conn: _Conn) -> None:
        transport = conn.transport
        assert transport is not None
        address = _address(transport)
        host = host_group(address.rpartition(":")[0] or address)
        if not rates.take(host, loop.time()):
            refuse_over_rate(transport, address, host)
            return
        task = loop.create_task(handle(conn, address, host))
        tasks.add(task)  # (held until done: the loop keeps only a weak reference)
        task.add_done_callback(tasks.discard)

    server = await loop.create_server(lambda: _Conn(loop, limits.read_chunk, made), host, port)
    served.append(server)
    return server


async def _respond(
    conn: _Conn,
    identity: Signer,
    context: bytes | ContextResolver,
    accept_peer: Callable[[bytes], bool],
    limits: Limits,
    rng: Rng,
) -> Link:
    loop = asyncio.get_running_loop()
    transport = conn.transport
    assert transport is not None
    address = _address(transport)
    start = loop.time()
    resp = Responder(identity, context, rng=rng, max_frame=limits.max_frame)
    stats = LinkStats()
    try:
        async with asyncio.timeout(limits.handshake_timeout):
            msg1 = await _read_handshake_frame(conn)
            stats.bytes_in += HEADER_SIZE + len(msg1)
            try:
                msg2 = encode_frame(resp.hello(msg1))
            except HandshakeError as e:
                alert = encode_alert(e.code)
                if alert is not None:
                    transport.write(encode_frame(alert))
                    with contextlib.suppress(OSError):
                        await conn.drain()
                raise
            transport.write(msg2)
            stats.bytes_out += len(msg2)
            await conn.drain()
            msg3 = await _read_handshake_frame(conn)
            stats.bytes_in += HEADER_SIZE + len(msg3)
            result = resp.finish(msg3)
    except (TimeoutError, asyncio.IncompleteReadError, TransportError, OSError) as e:
        transport.abort()
        raise _handshake_error(e, address, limits) from None
    except BaseException:  # cancelled (or a bug): leave no socket behind
        transport.abort()
        raise
    stats.handshake_ms = (loop.time() - start) * 1000.0
    link = Link(conn, result, limits, address, stats)
    try:
        welcome = accept_peer(result.peer_sign_pk)
    except Exception:
        log.exception("accept_peer failed")
        welcome = False
    if not welcome:
        err = link._err(
            HandshakeErrorCode.UNEXPECTED_IDENTITY, "is not welcome here (not on the roster)"
        )
        link._fail(err)  # sends BYE naming the refusal, then closes
        raise err
    link._start()
    return link
