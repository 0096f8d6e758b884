"""The transport: frames, the link handshake and record layer, and asyncio links.

``frames`` and ``handshake`` are sans-IO; ``link`` runs them over asyncio TCP streams. LAN
discovery lives in ``p2puno.net.discovery`` (imported from there, not re-exported here).
Spec: ``protocol/transport.md``.
"""

from p2puno.net.frames import (
    DEFAULT_MAX_FRAME,
    FrameDecoder,
    FrameError,
    Message,
    MsgType,
    TransportError,
    decode_bye,
    decode_fetch,
    decode_message,
    decode_sync,
    encode_bye,
    encode_fetch,
    encode_message,
    encode_sync,
)
from p2puno.net.handshake import (
    HandshakeError,
    HandshakeResult,
    Initiator,
    RecordError,
    RecordReceiver,
    RecordSender,
    Responder,
)
from p2puno.net.link import (
    DEFAULT_LIMITS,
    Limits,
    Link,
    LinkError,
    LinkStats,
    open_link,
    serve_links,
)

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_FRAME",
    "FrameDecoder",
    "FrameError",
    "HandshakeError",
    "HandshakeResult",
    "Initiator",
    "Limits",
    "Link",
    "LinkError",
    "LinkStats",
    "Message",
    "MsgType",
    "RecordError",
    "RecordReceiver",
    "RecordSender",
    "Responder",
    "TransportError",
    "decode_bye",
    "decode_fetch",
    "decode_message",
    "decode_sync",
    "encode_bye",
    "encode_fetch",
    "encode_message",
    "encode_sync",
    "open_link",
    "serve_links",
]
