"""The link handshake and record layer (sans-IO), and the protocol vectors that pin them."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2puno.log import Identity
from p2puno.net.frames import MsgType, decode_message, encode_message, encode_sync
from p2puno.net.handshake import (
    MSG1_SIZE,
    MSG2_SIZE,
    MSG3_SIZE,
    HandshakeError,
    HandshakeResult,
    Initiator,
    RecordError,
    RecordReceiver,
    RecordSender,
    Responder,
    encode_alert,
)

ROOT = Path(__file__).resolve().parents[2] / "protocol"
VECTORS = json.loads((ROOT / "vectors" / "transport.json").read_text("utf-8"))

ALICE = Identity.from_test_seed(b"net test alice")
BOB = Identity.from_test_seed(b"net test bob")
MALLORY = Identity.from_test_seed(b"net test mallory")
GAME = hashlib.sha256(b"game").digest()
OTHER = hashlib.sha256(b"other game").digest()


def run(
    initiator: Initiator, responder: Responder
) -> tuple[list[bytes], HandshakeResult, HandshakeResult]:
    m1 = initiator.start()
    m2 = responder.hello(m1)
    m3, ri = initiator.finish(m2)
    rr = responder.finish(m3)
    return [m1, m2, m3], ri, rr


def code_of(call: Callable[[], object]) -> str:
    with pytest.raises(HandshakeError) as e:
        call()
    return e.value.code


# ---------------------------------------------------------------- success


def test_handshake_success_both_ways() -> None:
    msgs, ri, rr = run(
        Initiator(ALICE, GAME, expect=BOB.sign_pk),
        Responder(BOB, GAME, accept={ALICE.sign_pk}.__contains__),
    )
    assert [len(m) for m in msgs] == [MSG1_SIZE, MSG2_SIZE, MSG3_SIZE]
    assert ri.peer_sign_pk == BOB.sign_pk and rr.peer_sign_pk == ALICE.sign_pk
    assert ri.context == rr.context == GAME
    assert ri.channel_binding == rr.channel_binding and len(ri.channel_binding) == 32
    assert (ri.role, rr.role) == ("initiator", "responder")
    for sender, receiver in ((ri.sender, rr.receiver), (rr.sender, ri.receiver)):
        for n in range(3):
            plain = encode_message(MsgType.SYNC, encode_sync(n))
            frame = sender.seal(plain)
            assert receiver.open(frame[4:]) == plain
    # each connection gets fresh keys and binding
    _, ri2, _ = run(Initiator(ALICE, GAME), Responder(BOB, GAME))
    assert ri2.channel_binding != ri.channel_binding


def test_identities_are_not_in_the_clear() -> None:
    msgs, _, _ = run(Initiator(ALICE, GAME), Responder(BOB, GAME))
    wire = b"".join(msgs)
    for pk in (ALICE.sign_pk, BOB.sign_pk):
        assert pk not in wire
        assert pk[:8] not in wire


def test_join_by_address_learns_the_context() -> None:
    _, ri, rr = run(Initiator(ALICE, None), Responder(BOB, GAME))
    assert ri.context == rr.context == GAME
    assert GAME not in Initiator(ALICE, None).start()  # nothing asked in the clear


def test_resolver_picks_the_context() -> None:
    seen: list[bytes | None] = []

    def resolver(asked: bytes | None) -> bytes | None:
        seen.append(asked)
        return asked if asked in (GAME, OTHER) else None

    _, ri, _ = run(Initiator(ALICE, OTHER), Responder(BOB, resolver))
    assert ri.context == OTHER
    assert code_of(lambda: Responder(BOB, resolver).hello(Initiator(ALICE, None).start())) == (
        "other_context"
    )
    assert seen == [OTHER, None]


# ---------------------------------------------------------------- refusals


def test_wrong_context() -> None:
    resp = Responder(BOB, GAME)
    assert code_of(lambda: resp.hello(Initiator(ALICE, OTHER).start())) == "other_context"
    alert = encode_alert("other_context")
    assert alert is not None
    init = Initiator(ALICE, OTHER)
    init.start()
    assert code_of(lambda: init.finish(alert)) == "other_context"
    # a responder claiming another context than the one asked for (resolver lies)
    init = Initiator(ALICE, GAME)
    m2 = Responder(BOB, lambda _asked: OTHER).hello(init.start())
    assert code_of(lambda: init.finish(m2)) == "other_context"


def test_unexpected_identity() -> None:
    init = Initiator(ALICE, GAME, expect=MALLORY.sign_pk)
    m2 = Responder(BOB, GAME).hello(init.start())
    assert code_of(lambda: init.finish(m2)) == "unexpected_identity"
    init = Initiator(MALLORY, GAME)
    resp = Responder(BOB, GAME, accept={ALICE.sign_pk}.__contains__)
    m3, _ = init.finish(resp.hello(init.start()))
    assert code_of(lambda: resp.finish(m3)) == "unexpected_identity"


class _Lying:
    """Claims one key and signs with another, or signs another message."""

    def __init__(self, claim: Identity, sign: Callable[[bytes], bytes]) -> None:
        self.sign_pk = claim.sign_pk
        self._sign = sign

    def sign(self, message: bytes, /) -> bytes:
        return self._sign(message)


@pytest.mark.parametrize(
    "forge",
    [
        lambda m: MALLORY.sign(m),  # someone else's key
        lambda m: BOB.sign(m.replace(GAME, OTHER)),  # another game's transcript
        lambda m: BOB.sign(m.replace(b"sig/responder\x00", b"sig/initiator\x00")),  # other role
        lambda m: BOB.sign(m[:-1] + bytes([m[-1] ^ 1])),  # another transcript
    ],
    ids=["other key", "other context", "other role", "other transcript"],
)
def test_responder_signature_bound_to_everything(forge: Callable[[bytes], bytes]) -> None:
    init = Initiator(ALICE, GAME)
    m2 = Responder(_Lying(BOB, forge), GAME).hello(init.start())
    assert code_of(lambda: init.finish(m2)) == "bad_signature"


@pytest.mark.parametrize(
    "forge",
    [
        lambda m: MALLORY.sign(m),
        lambda m: ALICE.sign(m.replace(GAME, OTHER)),
        lambda m: ALICE.sign(m.replace(b"sig/initiator\x00", b"sig/responder\x00")),
    ],
    ids=["other key", "other context", "other role"],
)
def test_initiator_signature_bound_to_everything(forge: Callable[[bytes], bytes]) -> None:
    init = Initiator(_Lying(ALICE, forge), GAME)
    resp = Responder(BOB, GAME)
    m3, _ = init.finish(resp.hello(init.start()))
    assert code_of(lambda: resp.finish(m3)) == "bad_signature"


def test_signature_from_an_earlier_connection_is_refused() -> None:
    # Bob's signature captured on one connection, replayed by someone holding Bob's claim
    captured: list[bytes] = []

    def keep(message: bytes) -> bytes:
        captured.append(message)
        return BOB.sign(message)

    run(Initiator(ALICE, GAME), Responder(_Lying(BOB, keep), GAME))
    old = BOB.sign(captured[0])
    init = Initiator(ALICE, GAME)
    m2 = Responder(_Lying(BOB, lambda _m: old), GAME).hello(init.start())
    assert code_of(lambda: init.finish(m2)) == "bad_signature"


def test_bad_version_and_weak_key() -> None:
    m1 = bytearray(Initiator(ALICE, GAME).start())
    m1[4] = 2
    assert code_of(lambda: Responder(BOB, GAME).hello(bytes(m1))) == "bad_version"
    m1 = bytearray(Initiator(ALICE, GAME).start())
    m1[39:71] = bytes(32)
    assert code_of(lambda: Responder(BOB, GAME).hello(bytes(m1))) == "weak_key"
    init = Initiator(ALICE, GAME)
    m2 = bytearray(Responder(BOB, GAME).hello(init.start()))
    m2[6:38] = bytes(32)
    assert code_of(lambda: init.finish(bytes(m2))) == "weak_key"


# ---------------------------------------------------------------- tamper, truncate, replay, order


def test_every_tampered_bit_is_caught() -> None:
    tape_i, tape_r = _Tape(), _Tape()
    init, resp = Initiator(ALICE, GAME, rng=tape_i), Responder(BOB, GAME, rng=tape_r)
    m1 = init.start()
    m2 = resp.hello(m1)
    for i in range(len(m1)):
        for bit in (0x01, 0x80):
            bad = bytearray(m1)
            bad[i] ^= bit
            r = Responder(BOB, GAME)
            try:
                m2b = r.hello(bytes(bad))
            except HandshakeError:
                continue
            # the tamper reached the transcript: the initiator refuses the answer
            fresh = Initiator(ALICE, GAME)
            fresh.start()
            with pytest.raises(HandshakeError):
                fresh.finish(m2b)
    for i in range(len(m2)):
        bad = bytearray(m2)
        bad[i] ^= 0x01
        i2 = Initiator(ALICE, GAME, rng=tape_i.replay())
        i2.start()
        assert code_of(lambda b=bytes(bad), i2=i2: i2.finish(b)) in {  # type: ignore[misc]
            "auth_failed",
            "malformed",
            "bad_version",
            "out_of_order",
            "weak_key",
        }
    m3, _ = init.finish(m2)
    for i in range(len(m3)):
        bad = bytearray(m3)
        bad[i] ^= 0x01
        r2 = Responder(BOB, GAME, rng=tape_r.replay())
        r2.hello(m1)
        assert code_of(lambda b=bytes(bad), r2=r2: r2.finish(b)) in {  # type: ignore[misc]
            "auth_failed",
            "malformed",
            "bad_version",
            "out_of_order",
        }


class _Tape:
    """Random bytes, recorded, so a twin machine can draw exactly the same ones."""

    def __init__(self) -> None:
        self.drawn = bytearray()

    def __call__(self, n: int) -> bytes:
        out = os.urandom(n)
        self.drawn += out
        return out

    def replay(self) -> Callable[[int], bytes]:
        data = bytearray(self.drawn)

        def rng(n: int) -> bytes:
            out = bytes(data[:n])
            del data[:n]
            return out

        return rng


def test_truncated_and_extended_messages() -> None:
    tape_i, tape_r = _Tape(), _Tape()
    init, resp = Initiator(ALICE, GAME, rng=tape_i), Responder(BOB, GAME, rng=tape_r)
    m1 = init.start()
    for cut in range(len(m1)):
        assert code_of(lambda c=cut: Responder(BOB, GAME).hello(m1[:c])) == "malformed"  # type: ignore[misc]
    assert code_of(lambda: Responder(BOB, GAME).hello(m1 + b"\x00")) == "malformed"
    m2 = resp.hello(m1)
    for cut in (0, 5, 6, 70, len(m2) - 1):
        i2 = Initiator(ALICE, GAME, rng=tape_i.replay())
        i2.start()
        assert code_of(lambda c=cut, i2=i2: i2.finish(m2[:c])) == "malformed"  # type: ignore[misc]
    m3, _ = init.finish(m2)
    for cut in (0, 6, len(m3) - 1):
        r2 = Responder(BOB, GAME, rng=tape_r.replay())
        r2.hello(m1)
        assert code_of(lambda c=cut, r2=r2: r2.finish(m3[:c])) == "malformed"  # type: ignore[misc]


def test_replayed_messages_fail() -> None:
    # a whole handshake recorded, then replayed against fresh machines
    old_init, old_resp = Initiator(ALICE, GAME), Responder(BOB, GAME)
    (m1, m2, m3), _, _ = run(old_init, old_resp)
    resp = Responder(BOB, GAME)
    resp.hello(m1)  # a replayed msg1 gets a fresh msg2 ...
    assert code_of(lambda: resp.finish(m3)) == "auth_failed"  # ... and the old msg3 fails
    init = Initiator(ALICE, GAME)
    init.start()
    assert code_of(lambda: init.finish(m2)) == "auth_failed"  # an old msg2 to a new hello


def test_out_of_order() -> None:
    init, resp = Initiator(ALICE, GAME), Responder(BOB, GAME)
    m1 = init.start()
    assert code_of(init.start) == "out_of_order"
    assert code_of(lambda: Responder(BOB, GAME).finish(m1)) == "out_of_order"
    m2 = resp.hello(m1)
    assert code_of(lambda: Responder(BOB, GAME).hello(m2)) == "out_of_order"
    assert code_of(lambda: resp.hello(m1)) == "out_of_order"
    fresh = Initiator(ALICE, GAME)
    assert code_of(lambda: fresh.finish(m2)) == "out_of_order"  # finish before start
    m3, _ = init.finish(m2)
    assert code_of(lambda: init.finish(m2)) == "out_of_order"
    r2 = Responder(BOB, GAME)
    r2.hello(Initiator(ALICE, GAME).start())
    assert code_of(lambda: r2.finish(m1)) == "out_of_order"
    assert code_of(lambda: r2.finish(m3)) == "out_of_order"  # failed machines stay failed
    resp.finish(m3)
    assert code_of(lambda: resp.finish(m3)) == "out_of_order"


def test_secrets_never_printed() -> None:
    secrets = [bytes.fromhex(v) for v in ALICE.export_secrets().values()]
    secrets += [bytes.fromhex(v) for v in BOB.export_secrets().values()]
    init, resp = Initiator(ALICE, GAME), Responder(BOB, GAME)
    texts = [repr(init), repr(resp)]
    _, ri, rr = run(init, resp)
    texts += [repr(x) for x in (ri, rr, ri.sender, ri.receiver, rr.sender, rr.receiver)]
    key = bytes(range(32))
    texts += [repr(RecordSender(key)), repr(RecordReceiver(key)), str(RecordSender(key))]
    joined = " ".join(texts)
    for s in [*secrets, key]:
        assert s.hex()[:12] not in joined


# ---------------------------------------------------------------- records


def _pair() -> tuple[RecordSender, RecordReceiver]:
    _, ri, rr = run(Initiator(ALICE, GAME), Responder(BOB, GAME))
    return ri.sender, rr.receiver


def test_record_tamper_is_fatal() -> None:
    tx, rx = _pair()
    assert rx.open(tx.seal(b"\x10first")[4:]) == b"\x10first"
    key = hashlib.sha256(b"tamper").digest()
    frame = RecordSender(key).seal(b"\x10hello")
    for i in range(4, len(frame)):
        bad = bytearray(frame)
        bad[i] ^= 0x04
        rx = RecordReceiver(key)
        with pytest.raises(RecordError) as e:
            rx.open(bytes(bad[4:]))
        assert e.value.code == "auth_failed"
        with pytest.raises(RecordError):  # dead afterwards, even for the genuine record
            rx.open(frame[4:])
    assert RecordReceiver(key).open(frame[4:]) == b"\x10hello"


def test_records_replay_reorder_drop() -> None:
    key = hashlib.sha256(b"k").digest()
    tx = RecordSender(key)
    frames = [tx.seal(bytes([0x10]) + bytes([i])) for i in range(4)]
    orders = {"replay": [0, 0], "reorder": [1, 0], "drop": [0, 2], "foreign": [3]}
    for name, order in orders.items():
        rx = RecordReceiver(key)
        with pytest.raises(RecordError, match="auth_failed"):
            for n in order:
                rx.open(frames[n][4:])
        assert name
    rx = RecordReceiver(key)
    assert [rx.open(f[4:]) for f in frames] == [bytes([0x10, i]) for i in range(4)]
    # the AAD is the length header: a body cut short fails even with a consistent header
    rx = RecordReceiver(key)
    with pytest.raises(RecordError, match="auth_failed"):
        rx.open(frames[0][4:-1])
    with pytest.raises(RecordError, match="auth_failed"):
        RecordReceiver(key).open(b"short")


def test_record_counter_limit_and_size() -> None:
    key = bytes(32)
    tx = RecordSender(key, limit=2, max_frame=64)
    rx = RecordReceiver(key, limit=2)
    for _ in range(2):
        rx.open(tx.seal(b"\x01" + bytes(8))[4:])
    with pytest.raises(RecordError, match="exhausted"):
        tx.seal(b"\x01" + bytes(8))
    with pytest.raises(RecordError, match="exhausted"):
        rx.open(bytes(32))
    with pytest.raises(RecordError, match="too_large"):
        RecordSender(key, max_frame=64).seal(bytes(49))
    assert len(RecordSender(key, max_frame=64).seal(bytes(48))) == 68


# ---------------------------------------------------------------- vectors


def _rng_of(data: bytes) -> Callable[[int], bytes]:
    buf = bytearray(data)

    def rng(n: int) -> bytes:
        out = bytes(buf[:n])
        del buf[:n]
        return out

    return rng


def _identities() -> tuple[Identity, Identity]:
    ids = VECTORS["identities"]
    ini = Identity.from_test_seed(ids["initiator"]["seed"].encode())
    res = Identity.from_test_seed(ids["responder"]["seed"].encode())
    assert ini.sign_pk.hex() == ids["initiator"]["sign_pk"]
    assert res.sign_pk.hex() == ids["responder"]["sign_pk"]
    return ini, res


@pytest.mark.parametrize("vec", VECTORS["handshakes"], ids=lambda v: v["name"])
def test_vector_handshakes(vec: dict[str, Any]) -> None:
    ini, res = _identities()
    asked = bytes.fromhex(vec["initiator_context"]) if vec["initiator_context"] else None
    i = Initiator(ini, asked, rng=_rng_of(bytes.fromhex(vec["initiator_rng"])))
    r = Responder(
        res,
        bytes.fromhex(vec["responder_context"]),
        rng=_rng_of(bytes.fromhex(vec["responder_rng"])),
    )
    (m1, m2, m3), ri, rr = run(i, r)
    assert (m1.hex(), m2.hex(), m3.hex()) == (vec["msg1"], vec["msg2"], vec["msg3"])
    assert ri.channel_binding.hex() == vec["intermediate"]["binding"]
    assert rr.channel_binding.hex() == vec["intermediate"]["binding"]
    # the traffic keys in the vector are the ones the result holds
    tx = RecordSender(bytes.fromhex(vec["intermediate"]["k_i2r"]))
    assert rr.receiver.open(tx.seal(b"\x01" + bytes(8))[4:]) == b"\x01" + bytes(8)
    tx = RecordSender(bytes.fromhex(vec["intermediate"]["k_r2i"]))
    assert ri.receiver.open(tx.seal(b"\x01" + bytes(8))[4:]) == b"\x01" + bytes(8)


def test_vector_records() -> None:
    inter = VECTORS["handshakes"][0]["intermediate"]
    keys = {"i2r": bytes.fromhex(inter["k_i2r"]), "r2i": bytes.fromhex(inter["k_r2i"])}
    senders = {d: RecordSender(k) for d, k in keys.items()}
    receivers = {d: RecordReceiver(k) for d, k in keys.items()}
    for rec in VECTORS["records"]:
        d = rec["direction"]
        assert senders[d].counter == rec["counter"]
        plain = bytes.fromhex(rec["plaintext"])
        assert senders[d].seal(plain).hex() == rec["frame"]
        assert receivers[d].open(bytes.fromhex(rec["frame"])[4:]) == plain
        assert decode_message(plain) == (MsgType[rec["type"]], bytes.fromhex(rec["payload"]))
    for case in VECTORS["record_cases"]:
        rx = RecordReceiver(keys["i2r"])
        try:
            for n in case["open"]:
                rx.open(bytes.fromhex(VECTORS["records"][n]["frame"])[4:])
        except RecordError as e:
            assert e.code == case["error"], case["name"]
        else:
            assert case["error"] is None, case["name"]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gen_transport_vectors", ROOT / "tools" / "gen_transport_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


@pytest.mark.parametrize("case", VECTORS["handshake_cases"], ids=lambda c: c["name"])
def test_vector_handshake_cases(case: dict[str, Any]) -> None:
    assert _generator().run_case(VECTORS["handshakes"][0], case) == case["error"]


def test_vectors_are_up_to_date() -> None:
    text = _generator().render()
    assert (ROOT / "vectors" / "transport.json").read_text("utf-8") == text, (
        "transport.json is stale: run protocol/tools/gen_transport_vectors.py"
    )


class _Nobody:
    """A party with no secret at all: its "key" is the neutral point, and (R = neutral,
    S = 0) verifies over any message under it in OpenSSL (helper-31)."""

    sign_pk = bytes([1] + [0] * 31)

    def sign(self, message: bytes) -> bytes:
        return self.sign_pk + bytes(32)


def test_a_signing_key_of_small_order_is_refused_on_either_side() -> None:
    """helper-31 authenticated to a responder as a seat whose roster key was the neutral
    point, holding no key: both sides now refuse such a key with `weak_key` (transport.md
    4.3), before its signature is checked."""
    nobody = _Nobody()
    resp = Responder(ALICE, GAME, accept=lambda pk: True)
    init = Initiator(nobody, GAME, expect=ALICE.sign_pk)  # type: ignore[arg-type]
    msg3, _ = init.finish(resp.hello(init.start()))
    with pytest.raises(HandshakeError) as e:
        resp.finish(msg3)
    assert e.value.code.value == "weak_key", e.value
    resp = Responder(nobody, GAME)  # type: ignore[arg-type]
    init = Initiator(ALICE, GAME)
    with pytest.raises(HandshakeError) as e:
        init.finish(resp.hello(init.start()))
    assert e.value.code.value == "weak_key", e.value
