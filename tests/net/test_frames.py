"""Frames and message payloads: split, cap before the body, strict codecs."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from p2puno.net.frames import (
    DEFAULT_MAX_FRAME,
    MAX_BYE_BYTES,
    MAX_FETCH,
    MAX_LOBBY_BYTES,
    FrameDecoder,
    FrameError,
    MsgType,
    TransportError,
    clip_reason,
    decode_bye,
    decode_fetch,
    decode_message,
    decode_ping,
    decode_sync,
    encode_bye,
    encode_fetch,
    encode_frame,
    encode_message,
    encode_ping,
    encode_sync,
)

H = [hashlib.sha256(i.to_bytes(2, "big")).digest() for i in range(MAX_FETCH + 1)]


def test_frames_split_in_any_chunking() -> None:
    bodies = [b"a", b"bc" * 100, bytes(range(256)) * 3, b"z"]
    stream = b"".join(encode_frame(b) for b in bodies)
    for step in (1, 2, 3, 5, 7, 64, len(stream)):
        dec = FrameDecoder()
        got: list[bytes] = []
        for i in range(0, len(stream), step):
            got += dec.feed(stream[i : i + step])
        assert got == bodies
        assert dec.pending == 0
        dec.eof()


def test_oversize_header_refused_before_any_body_byte() -> None:
    dec = FrameDecoder(max_frame=100)
    assert dec.feed(b"\x00\x00") == []
    with pytest.raises(FrameError) as e:
        dec.feed(b"\x00\x65")  # 101: the 4 header bytes alone are enough
    assert e.value.code == "oversize"
    assert "101" in str(e.value)
    with pytest.raises(FrameError):  # dead after an error
        dec.feed(b"")
    assert dec.pending == 0  # nothing buffered


def test_default_cap_fits_the_largest_entry() -> None:
    """The frame cap follows the largest message (an entry or a lobby message, 64 KiB each,
    transport.md 2) plus the type byte and the AEAD tag: 80 KiB since helper-78 (320 KiB while
    an entry could be 256 KiB)."""
    from p2puno.log import MAX_ENTRY_SIZE

    assert MAX_ENTRY_SIZE == MAX_LOBBY_BYTES == 64 * 1024
    assert MAX_ENTRY_SIZE + 1 + 16 < DEFAULT_MAX_FRAME == 80 * 1024
    dec = FrameDecoder()
    with pytest.raises(FrameError, match="oversize"):
        dec.feed((DEFAULT_MAX_FRAME + 1).to_bytes(4, "big"))
    dec = FrameDecoder()
    assert dec.feed(DEFAULT_MAX_FRAME.to_bytes(4, "big")) == []
    assert dec.pending == 4


def test_zero_length_and_truncation() -> None:
    with pytest.raises(FrameError, match="empty"):
        FrameDecoder().feed(bytes(4))
    dec = FrameDecoder()
    dec.feed(b"\x00\x00\x00\x05abc")
    assert dec.pending == 7
    with pytest.raises(FrameError) as e:
        dec.eof()
    assert e.value.code == "truncated"
    half = FrameDecoder()
    half.feed(b"\x00\x00")
    with pytest.raises(FrameError, match="truncated"):
        half.eof()
    with pytest.raises(FrameError, match="empty"):
        encode_frame(b"")
    with pytest.raises(FrameError, match="oversize"):
        encode_frame(b"x" * 11, max_frame=10)


def test_errors_are_transport_errors_with_codes() -> None:
    with pytest.raises(TransportError) as e:
        decode_message(b"\x7f")
    assert e.value.code == "unknown_type"
    assert str(e.value).startswith("unknown_type: ")


@pytest.mark.parametrize(
    ("mtype", "payload"),
    [
        (MsgType.PING, encode_ping(0)),
        (MsgType.PONG, encode_ping(2**64 - 1)),
        (MsgType.BYE, encode_bye("")),
        (MsgType.BYE, encode_bye("game over: é ✓")),
        (MsgType.ENTRY, b"{}"),
        (MsgType.ENTRY, b"x" * (64 * 1024)),
        (MsgType.FETCH, encode_fetch(H[:1])),
        (MsgType.FETCH, encode_fetch(H[:MAX_FETCH])),
        (MsgType.SYNC, encode_sync(0)),
        (MsgType.SYNC, encode_sync(2**32 - 1)),
        (MsgType.LOBBY, b'{"a":1}'),
    ],
)
def test_messages_round_trip(mtype: MsgType, payload: bytes) -> None:
    data = encode_message(mtype, payload)
    assert data[0] == mtype
    msg = decode_message(data)
    assert msg == (mtype, payload)
    assert type(msg.type) is MsgType


def test_structured_payloads() -> None:
    assert decode_ping(encode_ping(12345)) == 12345
    assert decode_sync(encode_sync(77)) == 77
    assert decode_fetch(encode_fetch(H[:3])) == tuple(H[:3])
    assert decode_bye(encode_bye("bye")) == "bye"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "empty"),
        (b"\x00", "unknown_type"),
        (b"\x04", "unknown_type"),
        (b"\xff", "unknown_type"),
        (b"\x01" + bytes(7), "bad_payload"),
        (b"\x02" + bytes(9), "bad_payload"),
        (b"\x03\xc3", "bad_payload"),  # truncated UTF-8
        (b"\x03\xed\xa0\x80", "bad_payload"),  # a surrogate in UTF-8
        (b"\x03a\x1bb", "bad_payload"),  # an escape character
        (b"\x03" + b"a" * (MAX_BYE_BYTES + 1), "bad_payload"),
        (b"\x10", "bad_payload"),
        (b"\x10" + b"x" * (64 * 1024 + 1), "bad_payload"),
        (b"\x11", "bad_payload"),
        (b"\x11\x00", "bad_payload"),
        (b"\x11\x00\x00", "bad_payload"),
        (b"\x11\x00\x01" + H[0][:31], "bad_payload"),
        (b"\x11\x00\x01" + H[0] + b"\x00", "bad_payload"),
        (b"\x11\x00\x02" + H[0] + H[0], "bad_payload"),
        (b"\x11\x01\x01" + b"".join(H[:257]), "bad_payload"),
        (b"\x12\x00\x00\x01", "bad_payload"),
        (b"\x12" + bytes(5), "bad_payload"),
        (b"\x20", "bad_payload"),
        (b"\x20" + b"x" * (64 * 1024 + 1), "bad_payload"),
    ],
)
def test_bad_messages(data: bytes, code: str) -> None:
    with pytest.raises(FrameError) as e:
        decode_message(data)
    assert e.value.code == code


def test_encoders_are_as_strict_as_decoders() -> None:
    bad: list[Callable[[], object]] = [
        lambda: encode_ping(-1),
        lambda: encode_ping(2**64),
        lambda: encode_sync(2**32),
        lambda: encode_sync(True),
        lambda: encode_fetch([]),
        lambda: encode_fetch(H[: MAX_FETCH + 1]),
        lambda: encode_fetch([H[0], H[0]]),
        lambda: encode_fetch([b"short"]),
        lambda: encode_bye("line\nbreak"),
        lambda: encode_bye("x" * (MAX_BYE_BYTES + 1)),
        lambda: encode_bye("\ud800"),
        lambda: encode_message(0x7F, b""),
        lambda: encode_message(MsgType.ENTRY, b""),
        lambda: encode_message(MsgType.SYNC, b"\x00"),
    ]
    for make in bad:
        with pytest.raises(FrameError):
            make()


def test_clip_reason_always_encodes() -> None:
    for text in ["", "fine", "a\nb\x00c", "é" * 300, "\ud800x"]:
        clipped = clip_reason(text)
        assert decode_bye(encode_bye(clipped)) == clipped
