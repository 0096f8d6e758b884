#!/usr/bin/env python3
"""Generate protocol/vectors/transport.json (deterministic; run again to check nothing drifted).

    .venv/bin/python protocol/tools/gen_transport_vectors.py          # rewrite the file
    .venv/bin/python protocol/tools/gen_transport_vectors.py --check  # exit 1 if it differs

The handshake's intermediate values (hashes, keys, signed messages) are recomputed here from
the spec (protocol/transport.md, section 4) with hashlib and pyca directly, not taken from
p2puno.net, and the generator stops if the implementation's messages differ from them.

TEST ONLY: every key here comes from a public seed (Identity.from_test_seed and seeded
"randomness"), and the traffic keys are printed. Never use these keys in a real game.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

from p2puno.log import Identity
from p2puno.net.frames import (
    FrameDecoder,
    FrameError,
    MsgType,
    decode_message,
    encode_bye,
    encode_fetch,
    encode_message,
    encode_ping,
    encode_sync,
)
from p2puno.net.handshake import (
    HandshakeError,
    HandshakeResult,
    Initiator,
    RecordError,
    RecordReceiver,
    Responder,
)

OUT = Path(__file__).resolve().parent.parent / "vectors" / "transport.json"
SEEDS = {
    "initiator": b"p2puno transport vector initiator",
    "responder": b"p2puno transport vector responder",
}
CONTEXT = hashlib.sha256(b"p2puno transport vector context").digest()
OTHER_CONTEXT = hashlib.sha256(b"p2puno transport vector other context").digest()
L = b"p2puno/v1/link/"


def seeded(label: str) -> bytes:
    """The 64 bytes a side draws in one handshake: ephemeral private key, then challenge."""
    return b"".join(
        hashlib.sha256(
            b"p2puno/v1/test-only-transport-rng\x00" + label.encode() + bytes([i])
        ).digest()
        for i in range(2)
    )


def rng_of(data: bytes) -> Callable[[int], bytes]:
    buf = bytearray(data)

    def rng(n: int) -> bytes:
        if len(buf) < n:
            raise AssertionError("the vector rng ran dry")
        out = bytes(buf[:n])
        del buf[:n]
        return out

    return rng


def sha(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def expand(prk: bytes, info: bytes) -> bytes:
    return HKDFExpand(algorithm=hashes.SHA256(), length=32, info=info).derive(prk)


Sign = Callable[[bytes], bytes]


def spec_handshake(
    ini: Identity,
    res: Identity,
    asked: bytes | None,
    ctx: bytes,
    rng_i: bytes,
    rng_r: bytes,
    *,
    sign_r: Sign | None = None,
    sign_i: Sign | None = None,
) -> dict[str, bytes]:
    """The handshake computed straight from protocol/transport.md section 4 (``sign_r`` /
    ``sign_i`` replace a side's signing, to forge a message that decrypts but lies)."""
    v: dict[str, bytes] = {}
    e_i = X25519PrivateKey.from_private_bytes(rng_i[:32])
    e_r = X25519PrivateKey.from_private_bytes(rng_r[:32])
    n_i, n_r = rng_i[32:], rng_r[32:]
    v["e_i"] = e_i.public_key().public_bytes_raw()
    v["e_r"] = e_r.public_key().public_bytes_raw()
    flags = b"\x01" if asked is not None else b"\x00"
    v["msg1"] = b"P2PU\x01\x01" + flags + (asked or bytes(32)) + v["e_i"] + n_i
    v["dh"] = e_r.exchange(X25519PublicKey.from_public_bytes(v["e_i"]))
    assert v["dh"] == e_i.exchange(X25519PublicKey.from_public_bytes(v["e_r"]))
    clear2 = b"P2PU\x01\x02" + v["e_r"] + n_r
    v["h1"] = sha(L + b"h1\x00", v["msg1"])
    v["h2"] = sha(L + b"h2\x00", v["h1"], clear2)
    v["prk"] = hmac.new(v["h2"], v["dh"], "sha256").digest()
    v["k_hs_r"] = expand(v["prk"], L + b"key/hs-responder")
    v["k_hs_i"] = expand(v["prk"], L + b"key/hs-initiator")
    v["responder_signed"] = L + b"sig/responder\x00" + v["h2"] + ctx + res.sign_pk
    v["sig_r"] = (sign_r or res.sign)(v["responder_signed"])
    c2 = ChaCha20Poly1305(v["k_hs_r"]).encrypt(bytes(12), ctx + res.sign_pk + v["sig_r"], v["h2"])
    v["msg2"] = clear2 + c2
    v["h3"] = sha(L + b"h3\x00", v["h2"], c2)
    v["initiator_signed"] = (
        L + b"sig/initiator\x00" + v["h2"] + ctx + res.sign_pk + v["sig_r"] + ini.sign_pk
    )
    v["sig_i"] = (sign_i or ini.sign)(v["initiator_signed"])
    c3 = ChaCha20Poly1305(v["k_hs_i"]).encrypt(bytes(12), ini.sign_pk + v["sig_i"], v["h3"])
    v["msg3"] = b"P2PU\x01\x03" + c3
    v["h4"] = sha(L + b"h4\x00", v["h3"], c3)
    v["k_i2r"] = expand(v["prk"], L + b"key/initiator-to-responder\x00" + v["h4"])
    v["k_r2i"] = expand(v["prk"], L + b"key/responder-to-initiator\x00" + v["h4"])
    v["binding"] = expand(v["prk"], L + b"binding\x00" + v["h4"])
    return v


def run_impl(
    ini: Identity, res: Identity, asked: bytes | None, ctx: bytes, rng_i: bytes, rng_r: bytes
) -> tuple[list[bytes], HandshakeResult, HandshakeResult]:
    i = Initiator(ini, asked, rng=rng_of(rng_i))
    r = Responder(res, ctx, rng=rng_of(rng_r))
    m1 = i.start()
    m2 = r.hello(m1)
    m3, ri = i.finish(m2)
    rr = r.finish(m3)
    return [m1, m2, m3], ri, rr


def handshake_vector(
    name: str, asked: bytes | None
) -> tuple[dict[str, Any], HandshakeResult, HandshakeResult]:
    ini = Identity.from_test_seed(SEEDS["initiator"])
    res = Identity.from_test_seed(SEEDS["responder"])
    rng_i, rng_r = seeded(name + "/initiator"), seeded(name + "/responder")
    spec = spec_handshake(ini, res, asked, CONTEXT, rng_i, rng_r)
    msgs, ri, rr = run_impl(ini, res, asked, CONTEXT, rng_i, rng_r)
    if msgs != [spec["msg1"], spec["msg2"], spec["msg3"]]:
        raise AssertionError(f"{name}: the implementation differs from the spec's computation")
    if not ri.channel_binding == rr.channel_binding == spec["binding"]:
        raise AssertionError(f"{name}: channel binding differs")
    vec: dict[str, Any] = {
        "name": name,
        "initiator_context": asked.hex() if asked is not None else None,
        "responder_context": CONTEXT.hex(),
        "initiator_rng": rng_i.hex(),
        "responder_rng": rng_r.hex(),
    }
    vec.update({k: spec[k].hex() for k in ("msg1", "msg2", "msg3")})
    vec["intermediate"] = {
        k: spec[k].hex()
        for k in (
            "e_i",
            "e_r",
            "dh",
            "h1",
            "h2",
            "prk",
            "k_hs_r",
            "k_hs_i",
            "responder_signed",
            "sig_r",
            "h3",
            "initiator_signed",
            "sig_i",
            "h4",
            "k_i2r",
            "k_r2i",
            "binding",
        )
    }
    return vec, ri, rr


def records(ri: HandshakeResult, rr: HandshakeResult) -> list[dict[str, Any]]:
    plan: list[tuple[str, MsgType, bytes]] = [
        ("i2r", MsgType.PING, encode_ping(0)),
        ("r2i", MsgType.PING, encode_ping(0)),
        ("r2i", MsgType.PONG, encode_ping(0)),
        ("i2r", MsgType.PONG, encode_ping(0)),
        ("i2r", MsgType.LOBBY, b'{"hello":"table"}'),
        ("i2r", MsgType.SYNC, encode_sync(7)),
        ("r2i", MsgType.FETCH, encode_fetch([sha(b"a"), sha(b"b")])),
        ("i2r", MsgType.ENTRY, b'{"v":1}'),
        ("r2i", MsgType.BYE, encode_bye("game over")),
    ]
    out = []
    for direction, mtype, payload in plan:
        sender, receiver = (
            (ri.sender, rr.receiver) if direction == "i2r" else (rr.sender, ri.receiver)
        )
        counter = sender.counter
        plaintext = encode_message(mtype, payload)
        frame = sender.seal(plaintext)
        if receiver.open(frame[4:]) != plaintext or decode_message(plaintext) != (mtype, payload):
            raise AssertionError("record round trip")
        out.append(
            {
                "direction": direction,
                "counter": counter,
                "type": mtype.name,
                "payload": payload.hex(),
                "plaintext": plaintext.hex(),
                "frame": frame.hex(),
            }
        )
    return out


def _flip(data: str, index: int) -> str:
    raw = bytearray(bytes.fromhex(data))
    raw[index] ^= 0x01
    return raw.hex()


def handshake_cases(vec: dict[str, Any]) -> list[dict[str, Any]]:
    """Bad inputs to each step, with the state each starts from and the code it must give."""
    m1, m2, m3 = vec["msg1"], vec["msg2"], vec["msg3"]
    other = Identity.from_test_seed(b"p2puno transport vector stranger").sign_pk
    cases: list[dict[str, Any]] = [
        {
            "name": "msg1 of version 2",
            "step": "responder.hello",
            "input": m1[:8] + "02" + m1[10:],
            "error": "bad_version",
        },
        {
            "name": "msg1 without magic",
            "step": "responder.hello",
            "input": "00" + m1[2:],
            "error": "malformed",
        },
        {
            "name": "msg1 truncated",
            "step": "responder.hello",
            "input": m1[:-2],
            "error": "malformed",
        },
        {
            "name": "msg1 with a trailing byte",
            "step": "responder.hello",
            "input": m1 + "00",
            "error": "malformed",
        },
        {
            "name": "msg1 with an unknown flag",
            "step": "responder.hello",
            "input": m1[:12] + "03" + m1[14:],
            "error": "malformed",
        },
        {
            "name": "msg1 for another context",
            "step": "responder.hello",
            "input": m1[:14] + OTHER_CONTEXT.hex() + m1[78:],
            "error": "other_context",
        },
        {
            "name": "msg3 where msg1 is due",
            "step": "responder.hello",
            "input": m3,
            "error": "out_of_order",
        },
        {
            "name": "msg2 with a flipped ephemeral bit",
            "step": "initiator.finish",
            "input": _flip(m2, 6),
            "error": "auth_failed",
        },
        {
            "name": "msg2 with a flipped ciphertext bit",
            "step": "initiator.finish",
            "input": _flip(m2, 100),
            "error": "auth_failed",
        },
        {
            "name": "msg2 truncated",
            "step": "initiator.finish",
            "input": m2[:-2],
            "error": "malformed",
        },
        {
            "name": "msg1 where msg2 is due",
            "step": "initiator.finish",
            "input": m1,
            "error": "out_of_order",
        },
        {
            "name": "other_context alert",
            "step": "initiator.finish",
            "input": "5032505501ff02",
            "error": "other_context",
        },
        {
            "name": "busy alert",
            "step": "initiator.finish",
            "input": "5032505501ff03",
            "error": "busy",
        },
        {
            "name": "msg2 from an unexpected responder",
            "step": "initiator.finish",
            "expect": other.hex(),
            "input": m2,
            "error": "unexpected_identity",
        },
        {
            "name": "msg3 with a flipped ciphertext bit",
            "step": "responder.finish",
            "input": _flip(m3, 50),
            "error": "auth_failed",
        },
        {
            "name": "msg3 truncated",
            "step": "responder.finish",
            "input": m3[:-2],
            "error": "malformed",
        },
        {
            "name": "msg2 where msg3 is due",
            "step": "responder.finish",
            "input": m2,
            "error": "out_of_order",
        },
    ]
    cases += forged_cases(vec)
    for case in cases:
        got = run_case(vec, case)
        if got != case["error"]:
            raise AssertionError(f"{case['name']}: got {got}, want {case['error']}")
    return cases


# X25519 public values whose shared secret is all zero with any private key
LOW_ORDER = [
    "00" * 32,
    "01" + "00" * 31,
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "ec" + "ff" * 30 + "7f",
]


def forged_cases(vec: dict[str, Any]) -> list[dict[str, Any]]:
    """Messages that decrypt under the right keys but carry a lying signature, and low-order
    ephemerals: what an active attacker on the path, or a dishonest peer, can send."""
    ini = Identity.from_test_seed(SEEDS["initiator"])
    res = Identity.from_test_seed(SEEDS["responder"])
    stranger = Identity.from_test_seed(b"p2puno transport vector stranger")
    asked = bytes.fromhex(vec["initiator_context"]) if vec["initiator_context"] else None
    rng_i, rng_r = bytes.fromhex(vec["initiator_rng"]), bytes.fromhex(vec["responder_rng"])

    def forged(which: str, sign: Sign) -> str:
        kw: dict[str, Sign] = {"sign_r": sign} if which == "msg2" else {"sign_i": sign}
        return spec_handshake(ini, res, asked, CONTEXT, rng_i, rng_r, **kw)[which].hex()

    def other_game(signer: Identity) -> Sign:
        return lambda m: signer.sign(m.replace(CONTEXT, OTHER_CONTEXT))

    def other_role(signer: Identity, mine: bytes, theirs: bytes) -> Sign:
        return lambda m: signer.sign(m.replace(mine, theirs))

    r_label, i_label = L + b"sig/responder\x00", L + b"sig/initiator\x00"
    m1, m2 = vec["msg1"], vec["msg2"]
    bad = "bad_signature"
    cases: list[dict[str, Any]] = [
        {
            "name": "msg2 signed over another game's transcript",
            "step": "initiator.finish",
            "input": forged("msg2", other_game(res)),
            "error": bad,
        },
        {
            "name": "msg2 signed with the initiator's role label",
            "step": "initiator.finish",
            "input": forged("msg2", other_role(res, r_label, i_label)),
            "error": bad,
        },
        {
            "name": "msg2 naming the responder but signed by another key",
            "step": "initiator.finish",
            "input": forged("msg2", stranger.sign),
            "error": bad,
        },
        {
            "name": "msg3 signed over another game's transcript",
            "step": "responder.finish",
            "input": forged("msg3", other_game(ini)),
            "error": bad,
        },
        {
            "name": "msg3 signed with the responder's role label",
            "step": "responder.finish",
            "input": forged("msg3", other_role(ini, i_label, r_label)),
            "error": bad,
        },
    ]
    for n, point in enumerate(LOW_ORDER):
        cases.append(
            {
                "name": f"msg1 with low-order ephemeral {n}",
                "step": "responder.hello",
                "input": m1[:78] + point + m1[142:],
                "error": "weak_key",
            }
        )
        cases.append(
            {
                "name": f"msg2 with low-order ephemeral {n}",
                "step": "initiator.finish",
                "input": m2[:12] + point + m2[76:],
                "error": "weak_key",
            }
        )
    return cases


def run_case(vec: dict[str, Any], case: dict[str, Any]) -> str:
    """Run one bad-input case; returns the error code (or "accepted")."""
    ini = Identity.from_test_seed(SEEDS["initiator"])
    res = Identity.from_test_seed(SEEDS["responder"])
    asked = bytes.fromhex(vec["initiator_context"]) if vec["initiator_context"] else None
    ctx = bytes.fromhex(vec["responder_context"])
    data = bytes.fromhex(case["input"])
    expect = bytes.fromhex(case["expect"]) if "expect" in case else None
    i = Initiator(ini, asked, expect=expect, rng=rng_of(bytes.fromhex(vec["initiator_rng"])))
    r = Responder(res, ctx, rng=rng_of(bytes.fromhex(vec["responder_rng"])))
    try:
        if case["step"] == "responder.hello":
            r.hello(data)
        elif case["step"] == "initiator.finish":
            i.start()
            i.finish(data)
        else:
            r.hello(bytes.fromhex(vec["msg1"]))
            r.finish(data)
    except HandshakeError as e:
        return e.code
    return "accepted"


def frame_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = [
        {
            "name": "two frames",
            "max_frame": 16,
            "stream": "00000001aa00000002bbcc",
            "frames": ["aa", "bbcc"],
        },
        {"name": "a partial frame waits", "max_frame": 16, "stream": "00000003aabb", "frames": []},
        {
            "name": "oversize header, no body",
            "max_frame": 16,
            "stream": "00000011",
            "error": "oversize",
        },
        {"name": "largest u32", "max_frame": 327680, "stream": "ffffffff", "error": "oversize"},
        {"name": "zero length", "max_frame": 16, "stream": "00000000", "error": "empty"},
    ]
    for c in cases:
        dec = FrameDecoder(c["max_frame"])
        try:
            got = [f.hex() for f in dec.feed(bytes.fromhex(c["stream"]))]
        except FrameError as e:
            assert c.get("error") == e.code, c
        else:
            assert got == c["frames"], c
    return cases


def message_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = [
        {"name": "PING", "hex": "01" + encode_ping(5).hex(), "type": "PING"},
        {"name": "BYE, empty reason", "hex": "03", "type": "BYE"},
        {"name": "SYNC step 1", "hex": "1200000001", "type": "SYNC"},
        {"name": "FETCH one hash", "hex": "110001" + sha(b"x").hex(), "type": "FETCH"},
        {"name": "empty message", "hex": "", "error": "empty"},
        {"name": "unknown type 0x7f", "hex": "7f", "error": "unknown_type"},
        {"name": "PING of 7 bytes", "hex": "01" + "00" * 7, "error": "bad_payload"},
        {"name": "BYE not UTF-8", "hex": "03ff", "error": "bad_payload"},
        {"name": "BYE with a control character", "hex": "030a", "error": "bad_payload"},
        {"name": "empty ENTRY", "hex": "10", "error": "bad_payload"},
        {"name": "FETCH of zero hashes", "hex": "110000", "error": "bad_payload"},
        {
            "name": "FETCH count over its bytes",
            "hex": "110002" + sha(b"x").hex(),
            "error": "bad_payload",
        },
        {
            "name": "FETCH naming a hash twice",
            "hex": "110002" + sha(b"x").hex() * 2,
            "error": "bad_payload",
        },
        {"name": "FETCH over 256 hashes", "hex": "110101", "error": "bad_payload"},
        {"name": "SYNC of 8 bytes", "hex": "12" + "00" * 8, "error": "bad_payload"},
        {"name": "empty LOBBY", "hex": "20", "error": "bad_payload"},
    ]
    for c in cases:
        try:
            got = decode_message(bytes.fromhex(c["hex"]))
        except FrameError as e:
            assert c.get("error") == e.code, (c, e)
        else:
            assert c.get("type") == got.type.name, c
    return cases


def record_cases(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Frames of "records" (by index) opened in this order by a fresh i2r receiver."""
    i2r = [n for n, r in enumerate(recs) if r["direction"] == "i2r"]
    cases: list[dict[str, Any]] = [
        {"name": "in order", "open": i2r, "error": None},
        {"name": "replayed", "open": [i2r[0], i2r[0]], "error": "auth_failed"},
        {"name": "reordered", "open": [i2r[1], i2r[0]], "error": "auth_failed"},
        {"name": "dropped", "open": [i2r[0], i2r[2]], "error": "auth_failed"},
        {"name": "from the other direction", "open": [1], "error": "auth_failed"},
    ]
    return cases


def check_record_case(recs: list[dict[str, Any]], key: bytes, case: dict[str, Any]) -> None:
    rx = RecordReceiver(key)
    try:
        for n in case["open"]:
            rx.open(bytes.fromhex(recs[n]["frame"])[4:])
    except RecordError as e:
        assert e.code == case["error"], case
    else:
        assert case["error"] is None, case


def vectors() -> dict[str, Any]:
    main, ri, rr = handshake_vector("handshake in a known context", CONTEXT)
    join, _, _ = handshake_vector("join by address (initiator context none)", None)
    recs = records(ri, rr)
    rcases = record_cases(recs)
    for c in rcases:
        check_record_case(recs, bytes.fromhex(main["intermediate"]["k_i2r"]), c)
    ini = Identity.from_test_seed(SEEDS["initiator"])
    res = Identity.from_test_seed(SEEDS["responder"])
    return {
        "description": "p2puno link transport v1 (protocol/transport.md): a handshake byte by "
        "byte with every intermediate value, records of that link, and bad inputs with the "
        "error code each must give. TEST ONLY: public seeds, printed traffic keys. Keys from "
        'seeds: sign_sk = SHA-256("p2puno/v1/test-only-seed\\0" + "sign\\0" + seed) '
        "(the Ed25519 32-byte secret; the link uses no other static key); each handshake's "
        "initiator_rng / responder_rng is the 64 bytes that side draws (ephemeral X25519 "
        "private key, then challenge). record_cases: a fresh receiver keyed with "
        "handshakes[0].intermediate.k_i2r, counter 0, opens the frames of records[n] for each "
        "n in `open`, in that order (each frame without its 4-byte header); error null: all "
        "open; else the last one listed fails with that code. See protocol/transport.md "
        "section 9.",
        "labels": {
            "h1": (L + b"h1\x00").hex(),
            "h2": (L + b"h2\x00").hex(),
            "h3": (L + b"h3\x00").hex(),
            "h4": (L + b"h4\x00").hex(),
            "sig_responder": (L + b"sig/responder\x00").hex(),
            "sig_initiator": (L + b"sig/initiator\x00").hex(),
            "key_hs_responder": (L + b"key/hs-responder").hex(),
            "key_hs_initiator": (L + b"key/hs-initiator").hex(),
            "key_initiator_to_responder": (L + b"key/initiator-to-responder\x00").hex(),
            "key_responder_to_initiator": (L + b"key/responder-to-initiator\x00").hex(),
            "binding": (L + b"binding\x00").hex(),
        },
        "identities": {
            role: {
                "seed": SEEDS[role].decode(),
                "sign_pk": (ini if role == "initiator" else res).sign_pk.hex(),
            }
            for role in ("initiator", "responder")
        },
        "handshakes": [main, join],
        "records": recs,
        "record_cases": rcases,
        "handshake_cases": handshake_cases(main),
        "frame_cases": frame_cases(),
        "message_cases": message_cases(),
    }


def render() -> str:
    return json.dumps(vectors(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text("utf-8") != text:
            print(f"stale {OUT}: run protocol/tools/gen_transport_vectors.py", file=sys.stderr)
            return 1
        print(f"{OUT.name} is up to date")
        return 0
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
