"""Fuzzing in CI (a few seconds): hypothesis on every decoder, then 20,000 random and
mutated inputs through scripts/fuzz_transport.py's harness. Only the documented errors may come
out, with documented codes, and nothing may hang. The long run: scripts/fuzz_transport."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2puno.log import Identity
from p2puno.net.frames import (
    FrameDecoder,
    FrameError,
    decode_bye,
    decode_fetch,
    decode_message,
    decode_ping,
    decode_sync,
)
from p2puno.net.handshake import (
    HandshakeError,
    Initiator,
    RecordError,
    RecordReceiver,
    RecordSender,
    Responder,
)

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fuzz_transport.py"
_spec = importlib.util.spec_from_file_location("fuzz_transport", SCRIPT)
assert _spec is not None and _spec.loader is not None
fuzz: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

GAME = hashlib.sha256(b"fuzz test game").digest()
ALICE = Identity.from_test_seed(b"fuzz test alice")
BOB = Identity.from_test_seed(b"fuzz test bob")
KEY = hashlib.sha256(b"fuzz test key").digest()
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _only_documented(call: Any, *errors: type[Exception]) -> None:
    try:
        call()
    except errors as e:
        assert e.code in fuzz.CODES, e  # type: ignore[attr-defined]


@FAST
@given(st.binary(max_size=600), st.integers(1, 64), st.sampled_from([1, 16, 512, 327680]))
def test_frame_decoder(data: bytes, step: int, cap: int) -> None:
    dec = FrameDecoder(cap)

    def feed_all() -> None:
        for i in range(0, len(data), step):
            for body in dec.feed(data[i : i + step]):
                assert 1 <= len(body) <= cap
            assert dec.pending <= cap + 4
        dec.eof()

    _only_documented(feed_all, FrameError)


@FAST
@given(st.binary(max_size=300))
def test_payload_decoders(data: bytes) -> None:
    for decoder in (decode_message, decode_fetch, decode_sync, decode_bye, decode_ping):
        _only_documented(lambda d=decoder: d(data), FrameError)


@FAST
@given(st.integers(0, 0x21), st.binary(max_size=40))
def test_messages_by_type(mtype: int, payload: bytes) -> None:
    _only_documented(lambda: decode_message(bytes([mtype]) + payload), FrameError)


@FAST
@given(st.binary(max_size=260))
def test_handshake_parsers(data: bytes) -> None:
    _only_documented(lambda: Responder(BOB, GAME).hello(data), HandshakeError)
    init = Initiator(ALICE, GAME)
    init.start()
    _only_documented(lambda: init.finish(data), HandshakeError)
    init = Initiator(ALICE, GAME)
    resp = Responder(BOB, GAME)
    resp.hello(init.start())
    _only_documented(lambda: resp.finish(data), HandshakeError)


@FAST
@given(st.lists(st.binary(max_size=64), max_size=5))
def test_record_receiver(bodies: list[bytes]) -> None:
    rx = RecordReceiver(KEY)
    genuine = RecordSender(KEY).seal(b"\x01" + bytes(8))[4:]
    for body in bodies:
        try:
            assert rx.open(body) == b"\x01" + bytes(8) and body == genuine
        except RecordError as e:
            assert e.code in fuzz.CODES


def test_random_and_mutated_inputs_through_every_decoder() -> None:
    result = fuzz.run(20000, seed=20240601, max_seconds=20.0, hang_seconds=5.0, report=print)
    assert result["crash"] is None, result["crash"]
    assert result["inputs"] == 20000
    outcomes = result["outcomes"]
    targets = {key.split(": ")[0] for key in outcomes}
    assert targets == set(fuzz.Targets().run)  # every decoder got inputs
    assert sum(v for k, v in outcomes.items() if not k.endswith("accepted")) > 10000
