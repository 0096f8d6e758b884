"""Benchmark of one link (not run in CI): the transport's own cost per message.

Two processes on 127.0.0.1 play ping-pong: the dialler sends a message, the other side's
handler sends it straight back, ``--count`` times. Reported: the round trip's wall time and
each side's CPU per message received and answered, for

- the p2puno link (``open_link`` / ``serve_links``: handshake done, then encrypted records,
  token buckets, the watchdog and the heartbeat, exactly as a node runs them), and
- the anchor, measured in the same run: bare asyncio protocols that echo the same bytes
  (no framing, no encryption), the floor that any asyncio transport on this machine pays
  (system calls, the TCP stack on loopback, the event loop).

The difference is what the link adds per message. Every socket is on 127.0.0.1; every loop is
bounded by ``--count`` and a 60 s timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import subprocess
import sys
import time

HOST = "127.0.0.1"
PAYLOAD = bytes(700)  # about a card play's entry


async def _link_server(count: int) -> None:
    from p2puno.log import Identity
    from p2puno.net.frames import MsgType
    from p2puno.net.link import Limits, Link, serve_links

    me = Identity.from_test_seed(b"bench_link server")
    game = hashlib.sha256(b"bench_link").digest()
    limits = Limits(frames_per_s=1e6, frames_burst=1e6, bytes_per_s=1e9, bytes_burst=1e9)
    done = asyncio.Event()

    def on_link(link: Link) -> None:
        link.set_handler(lambda m: link.send(MsgType.ENTRY, m.payload))
        asyncio.ensure_future(link.wait_closed()).add_done_callback(lambda _: done.set())

    server = await serve_links(HOST, 0, me, game, lambda k: True, on_link, limits)
    print(server.sockets[0].getsockname()[1], flush=True)
    cpu = time.process_time()
    await asyncio.wait_for(done.wait(), 60)
    print(f"{(time.process_time() - cpu) / count * 1e6:.1f}", flush=True)


async def _link_client(port: int, count: int) -> tuple[float, float]:
    from p2puno.log import Identity
    from p2puno.net.frames import MsgType
    from p2puno.net.link import Limits, open_link

    me = Identity.from_test_seed(b"bench_link client")
    peer = Identity.from_test_seed(b"bench_link server")
    game = hashlib.sha256(b"bench_link").digest()
    limits = Limits(frames_per_s=1e6, frames_burst=1e6, bytes_per_s=1e9, bytes_burst=1e9)
    link = await open_link(HOST, port, me, game, peer.sign_pk, limits)
    seen = 0
    finished = asyncio.Event()

    def back(_: object) -> None:
        nonlocal seen
        seen += 1
        if seen >= count:
            finished.set()
        else:
            link.send(MsgType.ENTRY, PAYLOAD)

    link.set_handler(back)
    cpu, wall = time.process_time(), time.perf_counter()
    link.send(MsgType.ENTRY, PAYLOAD)
    await asyncio.wait_for(finished.wait(), 60)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await link.aclose("done")
    return wall / count * 1e6, cpu / count * 1e6


class _Echo(asyncio.Protocol):
    def __init__(self, done: asyncio.Event) -> None:
        self.done = done

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.transport.write(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.done.set()


async def _raw_server(count: int) -> None:
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    server = await loop.create_server(lambda: _Echo(done), HOST, 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    cpu = time.process_time()
    await asyncio.wait_for(done.wait(), 60)
    print(f"{(time.process_time() - cpu) / count * 1e6:.1f}", flush=True)


class _Pinger(asyncio.Protocol):
    def __init__(self, count: int, finished: asyncio.Event) -> None:
        self.count, self.finished, self.seen, self.got = count, finished, 0, 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.got += len(data)
        while self.got >= len(PAYLOAD):  # a whole message back (TCP may split it)
            self.got -= len(PAYLOAD)
            self.seen += 1
            if self.seen >= self.count:
                self.finished.set()
            else:
                self.transport.write(PAYLOAD)


async def _raw_client(port: int, count: int) -> tuple[float, float]:
    loop = asyncio.get_running_loop()
    finished = asyncio.Event()
    transport, _ = await loop.create_connection(lambda: _Pinger(count, finished), HOST, port)
    cpu, wall = time.process_time(), time.perf_counter()
    transport.write(PAYLOAD)
    await asyncio.wait_for(finished.wait(), 60)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    transport.close()
    return wall / count * 1e6, cpu / count * 1e6


def measure(kind: str, count: int) -> tuple[float, float, float]:
    """(round trip us, dialler's CPU us per message, other side's CPU us per message)."""
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind, "--count", str(count)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        client = _link_client if kind == "link" else _raw_client
        wall, cpu = asyncio.run(client(port, count))
        other = float(server.stdout.readline())
    finally:
        server.wait(timeout=70)
    return wall, cpu, other


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=4000, help="round trips per run")
    ap.add_argument("--runs", type=int, default=3, help="runs of each (the median is shown)")
    ap.add_argument("--serve", choices=["link", "raw"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve = _link_server if args.serve == "link" else _raw_server
        asyncio.run(serve(args.count))
        return
    import os
    import statistics

    print(f"load average {os.getloadavg()[0]:.2f}; {args.count} round trips of {len(PAYLOAD)} B")
    got: dict[str, list[tuple[float, float, float]]] = {"link": [], "raw": []}
    for _ in range(args.runs):
        for kind in ("raw", "link"):  # interleaved: both see the same machine
            got[kind].append(measure(kind, args.count))
    med = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in got.items()}
    for kind, name in (("link", "p2puno link"), ("raw", "bare asyncio (anchor)")):
        wall, cpu, other = med[kind]
        each = f"CPU per message {cpu:5.1f} / {other:5.1f} us"
        print(f"  {name:22s} round trip {wall:6.1f} us; {each}")
    extra = (med["link"][1] + med["link"][2] - med["raw"][1] - med["raw"][2]) / 2
    print(f"  the link adds {extra:.1f} us of CPU per message received and answered")


if __name__ == "__main__":
    main()
