#!/usr/bin/env python3
"""Generate protocol/vectors/*.json (deterministic; run again to check nothing drifted).

    .venv/bin/python protocol/tools/gen_vectors.py          # rewrite the vector files
    .venv/bin/python protocol/tools/gen_vectors.py --check  # exit 1 if they differ

TEST ONLY: every key here comes from a public seed (Identity.from_test_seed), so anyone can
sign as these players. Never use these keys, or this way of making keys, in a real game.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from p2puno.log import (
    GAME_ID_DOMAIN,
    HASH_DOMAIN,
    MAX_ENTRY_SIZE,
    SIG_DOMAIN,
    Entry,
    Identity,
    Log,
    LogError,
    Role,
    entry_hash,
    make_genesis,
    sign_entry,
)
from p2puno.wire import EncodingError, JSONValue, decode, encode

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
SEEDS = [f"p2puno test vector seat {i}".encode() for i in range(3)]


def _enc_valid(name: str, value: JSONValue) -> dict[str, Any]:
    data = encode(value)
    return {"name": name, "text": data.decode(), "hex": data.hex(), "value": value}


def _bytes_field(data: bytes) -> dict[str, Any]:
    """Small inputs as "hex"; long runs as a pattern: prefix + repeat * times + suffix."""
    if len(data) <= 4096:
        return {"hex": data.hex()}
    for start in range(len(data)):
        b = data[start]
        end = start
        while end < len(data) and data[end] == b:
            end += 1
        if end - start > 1024:
            return {
                "pattern": {
                    "prefix": data[:start].hex(),
                    "repeat": bytes([b]).hex(),
                    "times": end - start,
                    "suffix": data[end:].hex(),
                }
            }
    raise AssertionError("no long run to compress")


def _enc_invalid(name: str, data: bytes) -> dict[str, Any]:
    try:
        decode(data, max_size=MAX_ENTRY_SIZE)
    except EncodingError as e:
        return {"name": name, **_bytes_field(data), "error": e.code.value}
    raise AssertionError(f"{name}: decoded")


def encoding_vectors() -> dict[str, Any]:
    valid = [
        _enc_valid("empty object", {}),
        _enc_valid("scalars", [None, True, False, 0, -1, 2**53 - 1, -(2**53 - 1), ""]),
        _enc_valid("key order by UTF-16 code units", {"\uffff": 1, "\U0001f600": 2, "a": 3}),
        _enc_valid("escapes", '\u0000\u0008\t\n\u000c\r\u001f"\\/\u007f\u00e9\u2028'),
        _enc_valid("nested", {"b": [1, {"d": None, "c": [[]]}], "a": "x"}),
        _enc_valid(
            "1024 objects and arrays (the cap); brackets in strings are not counted",
            [{"[{": '"[{\\'}] + [[] for _ in range(1022)],
        ),
    ]
    invalid = [
        _enc_invalid("key order", b'{"b":1,"a":2}'),
        _enc_invalid("whitespace", b'{"a": 1}'),
        _enc_invalid("trailing newline", b"{}\n"),
        _enc_invalid("duplicate key", b'{"a":1,"a":1}'),
        _enc_invalid("fraction", b"1.5"),
        _enc_invalid("exponent", b"1e2"),
        _enc_invalid("NaN", b"NaN"),
        _enc_invalid("int over 2^53-1", b"9007199254740992"),
        _enc_invalid("leading zero", b"007"),
        _enc_invalid("minus zero", b"-0"),
        _enc_invalid("needless escape", b'"\\u0061"'),
        _enc_invalid("escaped solidus", b'"\\/"'),
        _enc_invalid("uppercase unicode escape", b'"\\u001F"'),
        _enc_invalid("lone surrogate escape", b'"\\ud800"'),
        _enc_invalid("invalid UTF-8", b'"\xc3\x28"'),
        _enc_invalid("UTF-8 BOM", b"\xef\xbb\xbf{}"),
        _enc_invalid("too deep (33 nested lists)", b"[" * 33 + b"]" * 33),
        _enc_invalid("over size cap (64 KiB)", encode("x" * MAX_ENTRY_SIZE)),
        _enc_invalid(
            "over container cap (1025 objects and arrays)", b"[" + b",".join([b"{}"] * 1024) + b"]"
        ),
        _enc_invalid(
            "over container cap, checked before the parse (1025 objects, a float)",
            b"[" + b"{}," * 1024 + b"1.5]",
        ),
    ]
    return {
        "description": "Canonical encoding (RFC 8785 JSON subset): see protocol/spec.md section 2",
        "limits": {
            "max_size": MAX_ENTRY_SIZE,
            "max_depth": 32,
            "max_containers": 1024,
            "max_int": 2**53 - 1,
        },
        "valid": valid,
        "invalid": invalid,
    }


def _outcome(log: Log, data: bytes, expected_proposer: int | None = None) -> dict[str, Any]:
    try:
        r = log.add(data, expected_proposer=expected_proposer)
    except LogError as e:
        return {"expect": e.reason.value, "blame": e.author, "detail": e.detail}
    return {"expect": r.status.value, "blame": None, "detail": None}


def log_vectors() -> dict[str, Any]:
    ids = [Identity.from_test_seed(s) for s in SEEDS]
    roster = [ident.player(f"seat{i}") for i, ident in enumerate(ids)]
    nonces = [hashlib.sha256(b"p2puno test vector nonce %d" % i).digest() for i in range(3)]
    log = Log()
    base: list[bytes] = []

    def add(raw: bytes) -> bytes:
        log.add(raw)
        base.append(raw)
        return raw

    add(make_genesis(ids[0], 0, roster, {"house_rules": []}, nonces))
    add(log.respond(ids[1], 1, "accept", {}))
    add(log.respond(ids[2], 2, "accept", {}))
    add(log.propose(ids[1], 1, "example", {"note": "session kinds are specced later"}))
    add(log.respond(ids[0], 0, "ack", {}))
    add(log.respond(ids[2], 2, "ack", {}))
    gid = log.game_id
    assert gid is not None

    entries = []
    for raw in base:
        e = Entry.from_obj(decode(raw))
        entries.append(
            {
                "text": raw.decode(),
                "hash": entry_hash(raw).hex(),
                "signer": ids[e.author].sign_pk.hex(),
                "signed_message_hex": e.signing_bytes().hex(),
                "signature_valid": True,
                "decoded": decode(raw),
            }
        )

    # Cases: each is checked against a log holding base[:after].
    n = len(base)
    next_prop = log.propose(ids[2], 2, "example", {"n": 2})
    cases: list[dict[str, Any]] = []

    def case(name: str, after: int, data: bytes, expected_proposer: int | None = None) -> None:
        probe = Log()
        for raw in base[:after]:
            probe.add(raw)
        c: dict[str, Any] = {"name": name, "after": after, **_bytes_field(data)}
        if expected_proposer is not None:
            c["expected_proposer"] = expected_proposer
        c.update(_outcome(probe, data, expected_proposer))
        cases.append(c)

    def mutate(raw: bytes, **changes: JSONValue) -> dict[str, JSONValue]:
        obj = decode(raw)
        assert isinstance(obj, dict)
        obj.update(changes)
        return obj

    def resign(ident: Identity, obj: dict[str, JSONValue]) -> bytes:
        e = Entry.from_obj(obj)
        return sign_entry(
            ident,
            game=e.game,
            seq=e.seq,
            author=e.author,
            role=e.role,
            kind=e.kind,
            prev=e.prev,
            body=e.body,
        )

    obj = decode(next_prop)
    case("next proposal (valid)", n, next_prop)
    case("duplicate", n, base[4])
    case("missing parents", 3, base[4 - 1 + 1])
    case("wrong proposer (engine hook)", n, next_prop, expected_proposer=0)
    case(
        "key order",
        n,
        next_prop.replace(b'{"author":2,', b'{"v":1,"author":2,').replace(b',"v":1}', b"}"),
    )
    case("whitespace", n, json.dumps(obj, sort_keys=True).encode())
    case("duplicate key", n, next_prop[:-1] + b',"v":1}')
    case("float in body", n, next_prop.replace(b'{"n":2}', b'{"n":2.0}'))
    case("int over 2^53-1 in body", n, next_prop.replace(b'{"n":2}', b'{"n":9007199254740993}'))
    case("wrong version", n, encode(mutate(next_prop, v=2)))
    case("unknown field", n, encode(mutate(next_prop, extra=1)))
    case("bad signature (body changed)", n, encode(mutate(next_prop, body={"n": 3})))
    donor = decode(base[-1])
    assert isinstance(donor, dict)
    case("reused signature of another entry", n, encode(mutate(next_prop, sig=donor["sig"])))
    sig = bytes.fromhex(str(decode(next_prop)["sig"]))  # type: ignore[index, call-overload]
    s_plus_l = int.from_bytes(sig[32:], "little") + 2**252 + 27742317777372353535851937790883648493
    malleated = (sig[:32] + s_plus_l.to_bytes(32, "little")).hex()
    case("malleated signature (S+L)", n, encode(mutate(next_prop, sig=malleated)))
    case("wrong game id", n, resign(ids[2], mutate(next_prop, game="ab" * 32)))
    case("unknown author seat", n, encode(mutate(next_prop, author=7)))
    prev = decode(next_prop)["prev"]  # type: ignore[index, call-overload]
    assert isinstance(prev, list)
    case(
        "bad prev (responses out of order)",
        n,
        resign(ids[2], mutate(next_prop, prev=[prev[0], prev[2], prev[1]])),
    )
    case("bad prev (a response left out)", n, resign(ids[2], mutate(next_prop, prev=prev[:2])))
    case("bad slot (proposer responds to itself)", n, resign(ids[1], mutate(base[-1], author=1)))
    twin = resign(ids[2], mutate(base[-1], body={"other": True}))
    case("equivocation (second response, same slot)", n, twin)
    fake_genesis_body = mutate(base[0])["body"]
    assert isinstance(fake_genesis_body, dict)
    case(
        "genesis: game id not derived from body", 0, resign(ids[0], mutate(base[0], game="00" * 32))
    )
    case(
        "genesis: a single player",
        0,
        resign(
            ids[0],
            mutate(
                base[0],
                body={**fake_genesis_body, "players": [roster[0].to_obj()]},
                game=hashlib.sha256(
                    GAME_ID_DOMAIN + encode({**fake_genesis_body, "players": [roster[0].to_obj()]})
                ).hexdigest(),
            ),
        ),
    )
    over = b'"' + b"x" * MAX_ENTRY_SIZE + b'"'  # the entry cap (64 KiB) is all padding
    case("oversized entry", n, next_prop[:-1].replace(b'{"n":2}', over))

    return {
        "description": (
            "Signed log entries: see protocol/spec.md. TEST-ONLY keys derived from public seeds: "
            'sign_sk = SHA-256("p2puno/v1/test-only-seed\\0" + "sign\\0" + seed), '
            'dh_sk = SHA-256("p2puno/v1/test-only-seed\\0" + "dh\\0" + seed).'
        ),
        "domains": {
            "entry_sig": SIG_DOMAIN.hex(),
            "entry_hash": HASH_DOMAIN.hex(),
            "game_id": GAME_ID_DOMAIN.hex(),
        },
        "players": [
            {
                "seat": i,
                "seed": SEEDS[i].decode(),
                "sign_pk": p.sign_pk.hex(),
                "dh_pk": p.dh_pk.hex(),
            }
            for i, p in enumerate(roster)
        ],
        "game_id": gid.hex(),
        "entries": entries,
        "cases": cases,
        "roles": [r.value for r in Role],
    }


def render() -> dict[str, str]:
    def dump(obj: Any) -> str:
        return json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=False) + "\n"

    return {"encoding.json": dump(encoding_vectors()), "log.json": dump(log_vectors())}


def main(argv: list[str]) -> int:
    files = render()
    if "--check" in argv:
        stale = [n for n, t in files.items() if (VECTORS / n).read_text("utf-8") != t]
        if stale:
            print(f"stale vectors: {stale}; run protocol/tools/gen_vectors.py", file=sys.stderr)
            return 1
        return 0
    VECTORS.mkdir(exist_ok=True)
    for name, text in files.items():
        (VECTORS / name).write_text(text, "utf-8")
        print(f"wrote {VECTORS / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
