"""helper-91: a dialed link closed at this end before the peer's first record is not "our key
refused".

p2puno/net/link.py's table: ``refused`` is "(initiator) the responder refused our key after
the handshake", and ``closed`` "we closed the link ourselves". A responder refuses a key by a
BYE as its first record, or by ending its side of the stream before any record (its EOF);
the initiator's own transport closed or aborted in that window (this node closing the link,
at its shutdown, or its own write cut by the chaos shim, tests/node/netshim.py) reached the
link as the connection lost with no EOF from the peer, and read "closed the connection after
the handshake (our key refused)": the peer blamed for this end's close.

In one event loop over 127.0.0.1: a responder by hand (the handshake, then silence, or its
EOF), so that the window before its first record stays open as long as the test needs.
"""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from p2puno.log import Identity
from p2puno.net import link as link_mod
from p2puno.net.frames import encode_frame
from p2puno.net.handshake import Responder
from p2puno.net.link import Limits, Link, LinkError, open_link

HOST = "127.0.0.1"
ME = Identity.from_test_seed(b"h91 own close initiator")
PEER = Identity.from_test_seed(b"h91 own close responder")
CONTEXT = hashlib.sha256(b"h91 own close").digest()
FAST = Limits(connect_timeout=1.0, handshake_timeout=1.5, close_timeout=0.2)


async def _frame(r: asyncio.StreamReader) -> bytes:
    n = int.from_bytes(await r.readexactly(4), "big")
    return await r.readexactly(n)


async def _dial_a_silent_responder(
    then_eof: bool, monkeypatch: pytest.MonkeyPatch, abort_mine: bool
) -> LinkError:
    """open_link against a responder that completes the handshake and then sends nothing
    (``then_eof``: ends its side of the stream); ``abort_mine``: this end's transport is
    aborted as soon as the link is made, before any record came. What open_link raised."""
    done = asyncio.Event()
    writers: list[asyncio.StreamWriter] = []

    async def respond(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        writers.append(w)
        resp = Responder(PEER, CONTEXT)
        w.write(encode_frame(resp.hello(await _frame(r))))
        resp.finish(await _frame(r))
        if then_eof:
            w.write_eof()  # (no record: the responder's refusal of the key)
        await done.wait()

    if abort_mine:
        start = Link._start

        def start_then_abort(self: Link) -> None:
            start(self)
            asyncio.get_running_loop().call_soon(self._transport.abort)

        monkeypatch.setattr(link_mod.Link, "_start", start_then_abort)
    server = await asyncio.start_server(respond, HOST, 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(LinkError) as got:
            await asyncio.wait_for(open_link(HOST, port, ME, CONTEXT, PEER.sign_pk, FAST), 3)
    finally:
        done.set()
        for w in writers:
            w.transport.abort()
        server.close()
    return got.value


async def test_this_ends_own_close_before_the_first_record_is_not_a_refusal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    e = await _dial_a_silent_responder(False, monkeypatch, abort_mine=True)
    assert e.code == "closed", e
    assert "refused" not in e.detail and "at this end" in e.detail, e.detail
    assert e.peer == PEER.sign_pk  # (the handshake named it: the error still says who)


async def test_the_peers_end_before_its_first_record_still_refuses_our_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    e = await _dial_a_silent_responder(True, monkeypatch, abort_mine=False)
    assert e.code == "refused" and "our key refused" in e.detail, e
