"""Frames and messages of the link protocol (sans-IO: bytes in, values out).

A **frame** is a u32 big-endian length ``L`` followed by ``L`` bytes of body. The length is
checked against a hard cap on the four header bytes alone, before any byte of the body is
buffered, so a peer cannot make a reader hold more than ``max_frame`` bytes plus one read.
After the handshake every frame body is one encrypted record (``p2puno.net.handshake``); the
plaintext of a record is a **message**: one type byte and a payload whose shape the type fixes.

Everything here raises :class:`FrameError` (a :class:`TransportError`) with a stable code, and
nothing else, on any input. The node layer above decides what the messages mean. Spec:
``protocol/transport.md``.
"""

from __future__ import annotations

import enum
from typing import Final, NamedTuple

from p2puno.log.entry import HASH_SIZE, MAX_ENTRY_SIZE

__all__ = [
    "DEFAULT_MAX_FRAME",
    "HEADER_SIZE",
    "MAX_BYE_BYTES",
    "MAX_FETCH",
    "MAX_LOBBY_BYTES",
    "FrameDecoder",
    "FrameError",
    "FrameErrorCode",
    "Message",
    "MsgType",
    "TransportError",
    "check_payload",
    "clip_reason",
    "decode_bye",
    "decode_fetch",
    "decode_message",
    "decode_ping",
    "decode_sync",
    "encode_bye",
    "encode_fetch",
    "encode_frame",
    "encode_message",
    "encode_ping",
    "encode_sync",
    "frame_header",
]

HEADER_SIZE: Final = 4
MAX_FETCH: Final = 256  # hashes per FETCH: an honest backlog is under 2N = 20 entries
MAX_BYE_BYTES: Final = 200
MAX_LOBBY_BYTES: Final = 64 * 1024
# the largest message (a signed entry or a lobby message, 64 KiB each) plus the type byte,
# the AEAD tag and room to spare: 80 KiB (it was 320 KiB while an entry could be 256 KiB)
DEFAULT_MAX_FRAME: Final = max(MAX_ENTRY_SIZE, MAX_LOBBY_BYTES) + 16 * 1024
MAX_STEP: Final = 2**32 - 1
_U32_MAX: Final = 2**32 - 1


class TransportError(Exception):
    """Base of every error the transport raises on purpose: a stable ``code`` and a message.

    Messages name peers and lengths, never a key or a secret byte.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class FrameErrorCode(enum.StrEnum):
    OVERSIZE = "oversize"  # the length header is over the cap (checked before the body)
    EMPTY = "empty"  # a zero-length frame, or an empty message
    TRUNCATED = "truncated"  # the stream ended inside a frame
    UNKNOWN_TYPE = "unknown_type"  # a message type byte this version does not define
    BAD_PAYLOAD = "bad_payload"  # the payload does not have the shape its type requires


class FrameError(TransportError):
    """A frame or a message that does not follow ``protocol/transport.md``."""

    def __init__(self, code: FrameErrorCode, message: str) -> None:
        super().__init__(code, message)


class MsgType(enum.IntEnum):
    """Message types of protocol v1. Link upkeep below 0x10, the game's data above.

    Values not listed are rejected (``unknown_type``); a new type needs a new protocol version
    (the handshake carries it), so an old node never meets one.
    """

    PING = 0x01  # 8 opaque bytes, echoed by PONG
    PONG = 0x02  # the 8 bytes of the PING it answers
    BYE = 0x03  # UTF-8 reason, at most 200 bytes, printable; the sender closes after it
    ENTRY = 0x10  # one signed log entry (opaque canonical bytes), 1..64 KiB
    FETCH = 0x11  # u16 count 1..256, then count distinct 32-byte entry hashes
    SYNC = 0x12  # u32 step s: "send me every entry from step s"
    HAVE = 0x13  # as FETCH: "I hold these entries" (relay by announcement; FETCH what you lack)
    LOBBY = 0x20  # opaque canonical JSON bytes for the lobby, 1..64 KiB


_TYPES: Final = {int(t): t for t in MsgType}


class Message(NamedTuple):
    type: MsgType
    payload: bytes


def frame_header(length: int) -> bytes:
    """The four header bytes of a frame whose body is ``length`` bytes (the record's AAD)."""
    return length.to_bytes(HEADER_SIZE, "big")


def encode_frame(body: bytes, max_frame: int = DEFAULT_MAX_FRAME) -> bytes:
    """Header + body; :class:`FrameError` if the body is empty or over ``max_frame``."""
    if not body:
        raise FrameError(FrameErrorCode.EMPTY, "a frame body must not be empty")
    if len(body) > max_frame:
        raise FrameError(
            FrameErrorCode.OVERSIZE, f"frame of {len(body)} bytes is over the cap of {max_frame}"
        )
    return frame_header(len(body)) + body


class FrameDecoder:
    """Splits a byte stream into frame bodies.

    ``feed`` buffers at most one partial frame: the header is checked against ``max_frame`` as
    soon as its four bytes are in, before the body is buffered. After a :class:`FrameError` the
    decoder is dead and raises the same error again on every call (a stream has no resync).
    """

    __slots__ = ("_buf", "_error", "_need", "max_frame")

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        if not 1 <= max_frame <= _U32_MAX:
            raise ValueError("max_frame must be in 1..2**32-1")
        self.max_frame = max_frame
        self._buf = bytearray()
        self._need = 0  # body length of the frame in progress, 0 while reading a header
        self._error: FrameError | None = None

    @property
    def pending(self) -> int:
        """Bytes received of a frame not yet complete (0 exactly at a frame boundary)."""
        return len(self._buf) + (HEADER_SIZE if self._need else 0)

    def feed(self, data: bytes) -> list[bytes]:
        """Every frame body completed by ``data``, in order."""
        if self._error is not None:
            raise self._error
        buf = self._buf
        buf += data
        out: list[bytes] = []
        pos = 0
        end = len(buf)
        try:
            while True:
                if self._need == 0:
                    if end - pos < HEADER_SIZE:
                        break
                    length = int.from_bytes(buf[pos : pos + HEADER_SIZE], "big")
                    if length == 0:
                        raise FrameError(FrameErrorCode.EMPTY, "a zero-length frame")
                    if length > self.max_frame:
                        raise FrameError(
                            FrameErrorCode.OVERSIZE,
                            f"length header {length} is over the cap of {self.max_frame}",
                        )
                    pos += HEADER_SIZE
                    self._need = length
                if end - pos < self._need:
                    break
                out.append(bytes(buf[pos : pos + self._need]))
                pos += self._need
                self._need = 0
        except FrameError as e:
            self._error = e
            buf.clear()
            raise
        del buf[:pos]
        return out

    def eof(self) -> None:
        """The stream ended: :class:`FrameError` ``truncated`` if it ended inside a frame."""
        if self._error is not None:
            raise self._error
        if self._buf or self._need:
            have = len(self._buf)
            raise FrameError(
                FrameErrorCode.TRUNCATED,
                f"stream ended inside a frame ({have} of {self._need or HEADER_SIZE} bytes)"
                if self._need
                else f"stream ended inside a length header ({have} of {HEADER_SIZE} bytes)",
            )

    def __repr__(self) -> str:
        return f"FrameDecoder(max_frame={self.max_frame}, pending={self.pending})"


# ---------------------------------------------------------------- payloads


def _bad(message: str) -> FrameError:
    return FrameError(FrameErrorCode.BAD_PAYLOAD, message)


def encode_ping(token: int) -> bytes:
    """PING / PONG payload: a u64 the PONG echoes."""
    if type(token) is not int or not 0 <= token < 2**64:
        raise _bad("a ping token is a u64")
    return token.to_bytes(8, "big")


def decode_ping(payload: bytes) -> int:
    if len(payload) != 8:
        raise _bad(f"a PING/PONG payload is 8 bytes, not {len(payload)}")
    return int.from_bytes(payload, "big")


def encode_bye(reason: str) -> bytes:
    """BYE payload: the reason as UTF-8, printable, at most 200 bytes (may be empty)."""
    if type(reason) is not str or not reason.isprintable():
        raise _bad("a BYE reason is printable text")
    data = _utf8(reason)
    if len(data) > MAX_BYE_BYTES:
        raise _bad(f"a BYE reason is at most {MAX_BYE_BYTES} bytes, not {len(data)}")
    return data


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8", "strict")
    except UnicodeEncodeError:  # lone surrogates
        raise _bad("a BYE reason must be valid Unicode") from None


def decode_bye(payload: bytes) -> str:
    if len(payload) > MAX_BYE_BYTES:
        raise _bad(f"a BYE reason is at most {MAX_BYE_BYTES} bytes, not {len(payload)}")
    try:
        text = payload.decode("utf-8", "strict")
    except UnicodeDecodeError:
        raise _bad("a BYE reason is not valid UTF-8") from None
    if not text.isprintable():
        raise _bad("a BYE reason holds unprintable characters")
    return text


def clip_reason(reason: str) -> str:
    """Any text made into a valid BYE reason: unprintables replaced, cut to 200 bytes."""
    text = "".join(c if c.isprintable() else "?" for c in reason)
    data = text.encode("utf-8", "replace")[:MAX_BYE_BYTES]
    return data.decode("utf-8", "ignore")


def encode_fetch(hashes: list[bytes] | tuple[bytes, ...]) -> bytes:
    """FETCH payload: u16 count (1..256), then that many distinct 32-byte hashes."""
    if not 1 <= len(hashes) <= MAX_FETCH:
        raise _bad(f"a FETCH asks for 1..{MAX_FETCH} hashes, not {len(hashes)}")
    if any(type(h) is not bytes or len(h) != HASH_SIZE for h in hashes):
        raise _bad(f"a FETCH hash is {HASH_SIZE} bytes")
    if len(set(hashes)) != len(hashes):
        raise _bad("a FETCH names a hash twice")
    return len(hashes).to_bytes(2, "big") + b"".join(hashes)


def decode_fetch(payload: bytes) -> tuple[bytes, ...]:
    if len(payload) < 2:
        raise _bad("a FETCH payload starts with a u16 count")
    count = int.from_bytes(payload[:2], "big")
    if not 1 <= count <= MAX_FETCH:
        raise _bad(f"a FETCH asks for 1..{MAX_FETCH} hashes, not {count}")
    if len(payload) != 2 + count * HASH_SIZE:
        raise _bad(f"a FETCH of {count} hashes is {2 + count * HASH_SIZE} bytes")
    hashes = tuple(payload[i : i + HASH_SIZE] for i in range(2, len(payload), HASH_SIZE))
    if len(set(hashes)) != count:
        raise _bad("a FETCH names a hash twice")
    return hashes


def encode_sync(step: int) -> bytes:
    """SYNC payload: the step number as a u32."""
    if type(step) is not int or not 0 <= step <= MAX_STEP:
        raise _bad("a SYNC step is a u32")
    return step.to_bytes(4, "big")


def decode_sync(payload: bytes) -> int:
    if len(payload) != 4:
        raise _bad(f"a SYNC payload is 4 bytes, not {len(payload)}")
    return int.from_bytes(payload, "big")


def _check_opaque(kind: str, payload: bytes, cap: int) -> None:
    if not 1 <= len(payload) <= cap:
        raise _bad(f"an {kind} payload is 1..{cap} bytes, not {len(payload)}")


def check_payload(mtype: MsgType, payload: bytes) -> None:
    """:class:`FrameError` ``bad_payload`` unless ``payload`` has the shape ``mtype`` requires."""
    if mtype is MsgType.PING or mtype is MsgType.PONG:
        decode_ping(payload)
    elif mtype is MsgType.BYE:
        decode_bye(payload)
    elif mtype is MsgType.ENTRY:
        _check_opaque("ENTRY", payload, MAX_ENTRY_SIZE)
    elif mtype is MsgType.FETCH or mtype is MsgType.HAVE:
        decode_fetch(payload)
    elif mtype is MsgType.SYNC:
        decode_sync(payload)
    elif mtype is MsgType.LOBBY:
        _check_opaque("LOBBY", payload, MAX_LOBBY_BYTES)
    else:  # pragma: no cover - every member is handled above
        raise FrameError(FrameErrorCode.UNKNOWN_TYPE, f"message type {int(mtype)}")


def encode_message(mtype: MsgType | int, payload: bytes) -> bytes:
    """Type byte + payload, after checking the payload's shape (strict, like the decoder)."""
    the_type = _TYPES.get(int(mtype)) if isinstance(mtype, int) else None
    if the_type is None:
        raise FrameError(FrameErrorCode.UNKNOWN_TYPE, f"message type {mtype!r:.20}")
    if not isinstance(payload, bytes | bytearray | memoryview):
        raise _bad("a payload is bytes")
    data = bytes(payload)
    check_payload(the_type, data)
    return bytes((the_type,)) + data


def decode_message(data: bytes) -> Message:
    """One message from a record's plaintext; the payload is checked for its type's shape."""
    if not data:
        raise FrameError(FrameErrorCode.EMPTY, "an empty message")
    the_type = _TYPES.get(data[0])
    if the_type is None:
        raise FrameError(FrameErrorCode.UNKNOWN_TYPE, f"message type 0x{data[0]:02x}")
    payload = bytes(data[1:])
    check_payload(the_type, payload)
    return Message(the_type, payload)
