"""A hostile peer, run as its own process by tests/node/test_failures.py (127.0.0.1 only).

    python -m tests.node.hostile_peer MODE PORT

Modes: ``other-game`` (a link for a game that is not this table's), ``replayed-handshake``
(an initiator's messages from one connection sent again on another), ``bad-join`` (an
authenticated link whose lobby message is garbage), ``seated-garbage`` (takes a seat, then
floods its mesh links with entries that are not entries and frames past the rate limit).
Prints one line saying what happened; every loop is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys

from p2puno.log import Identity
from p2puno.net import LinkError, MsgType, open_link
from p2puno.net.frames import encode_frame
from p2puno.net.handshake import Initiator

HOST = "127.0.0.1"


async def other_game(port: int) -> str:
    try:
        link = await open_link(HOST, port, Identity.generate(), os.urandom(32))
    except LinkError as e:
        return f"refused: {e.code}"
    link.close("unexpected")
    return "accepted (wrong!)"


async def _raw_handshake(port: int, msgs: list[bytes] | None) -> list[bytes]:
    """Run (or replay) an initiator's side at the byte level; return the messages it sent."""
    reader, writer = await asyncio.open_connection(HOST, port)
    sent: list[bytes] = []
    try:
        init = Initiator(Identity.generate(), None)
        m1 = init.start() if msgs is None else msgs[0]
        writer.write(encode_frame(m1))
        sent.append(m1)
        header = await asyncio.wait_for(reader.readexactly(4), 5)
        m2 = await reader.readexactly(int.from_bytes(header, "big"))
        m3 = init.finish(m2)[0] if msgs is None else msgs[1]
        writer.write(encode_frame(m3))
        sent.append(m3)
        await writer.drain()
        await asyncio.wait_for(reader.read(1 << 16), 5)
    except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as e:
        sent.append(type(e).__name__.encode())
    finally:
        writer.close()
    return sent


async def replayed_handshake(port: int) -> str:
    first = await _raw_handshake(port, None)
    await _raw_handshake(port, first[:2])
    return "replayed"


async def bad_join(port: int) -> str:
    link = await open_link(HOST, port, Identity.generate(), None)
    link.send(MsgType.LOBBY, b'{"t":"join","v":99}')
    try:
        for _ in range(10):
            await asyncio.wait_for(link.recv(), 5)
    except (LinkError, TimeoutError) as e:
        return f"closed: {e}"
    return "still open"


async def seated_garbage(port: int) -> str:
    """Take a seat like a bot would, then flood every mesh link with garbage."""
    from p2puno.node.lobby import Endpoint, join_table

    ident = Identity.generate()
    secret = os.urandom(32)
    endpoint = Endpoint(ident, HOST, 0)
    await endpoint.start()
    links = []
    done = asyncio.Event()

    async def on_link(link: object) -> None:
        links.append(link)

    setup, _lobby_link = await join_table(
        endpoint, ident, HOST, port, name="Mallory", secret=secret, kind="bot"
    )
    from p2puno.log import Log

    log = Log()
    log.add(setup.genesis)
    assert log.game_id is not None
    endpoint.handlers[log.game_id] = on_link
    for seat, addr in enumerate(setup.addresses):
        if addr is not None and seat < setup.seat:
            with contextlib.suppress(LinkError):
                links.append(
                    await open_link(
                        addr.host, addr.port, ident, log.game_id, log.players[seat].sign_pk
                    )
                )
    sent = 0
    for _ in range(3000):  # bounded: a few seconds of flood
        for link in list(links):
            try:
                link.send(MsgType.ENTRY, b"{not an entry}")
                sent += 1
            except LinkError:
                links.remove(link)
        if not links:
            break
        await asyncio.sleep(0.001)
    done.set()
    endpoint.close()
    return f"sent {sent} garbage entries; links left {len(links)}"


def main() -> None:
    mode, port = sys.argv[1], int(sys.argv[2])
    run = {
        "other-game": other_game,
        "replayed-handshake": replayed_handshake,
        "bad-join": bad_join,
        "seated-garbage": seated_garbage,
    }[mode]
    print(f"{mode}: {asyncio.run(asyncio.wait_for(run(port), 60))}", flush=True)


if __name__ == "__main__":
    main()
