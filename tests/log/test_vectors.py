"""protocol/vectors/*.json re-checked against this implementation, so they cannot rot."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2puno.log import HASH_DOMAIN, SIG_DOMAIN, Entry, Log, LogError, entry_hash
from p2puno.wire import EncodingError, decode, encode

ROOT = Path(__file__).resolve().parents[2] / "protocol"
ENCODING = json.loads((ROOT / "vectors" / "encoding.json").read_text("utf-8"))
CAP = ENCODING["limits"]["max_size"]  # the entry cap (spec 2): 64 KiB since helper-78
LOG = json.loads((ROOT / "vectors" / "log.json").read_text("utf-8"))


def _bytes(v: dict[str, Any]) -> bytes:
    if "hex" in v:
        return bytes.fromhex(v["hex"])
    p = v["pattern"]
    return (
        bytes.fromhex(p["prefix"])
        + bytes.fromhex(p["repeat"]) * p["times"]
        + (bytes.fromhex(p["suffix"]))
    )


def test_vectors_are_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen_vectors", ROOT / "tools" / "gen_vectors.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for name, text in gen.render().items():
        assert (ROOT / "vectors" / name).read_text("utf-8") == text, f"{name} is stale"


@pytest.mark.parametrize("v", ENCODING["valid"], ids=lambda v: v["name"])
def test_encoding_valid(v: dict[str, Any]) -> None:
    data = bytes.fromhex(v["hex"])
    assert data == v["text"].encode()
    assert decode(data, max_size=CAP) == v["value"]
    assert encode(v["value"]) == data


@pytest.mark.parametrize("v", ENCODING["invalid"], ids=lambda v: v["name"])
def test_encoding_invalid(v: dict[str, Any]) -> None:
    with pytest.raises(EncodingError) as e:
        decode(_bytes(v), max_size=CAP)
    assert e.value.code.value == v["error"]


def test_log_entries() -> None:
    assert bytes.fromhex(LOG["domains"]["entry_sig"]) == SIG_DOMAIN
    assert bytes.fromhex(LOG["domains"]["entry_hash"]) == HASH_DOMAIN
    log = Log()
    for v in LOG["entries"]:
        raw = v["text"].encode()
        assert decode(raw) == v["decoded"]
        assert entry_hash(raw).hex() == v["hash"]
        msg = bytes.fromhex(v["signed_message_hex"])
        e = Entry.from_obj(decode(raw))
        assert msg == e.signing_bytes()
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(v["signer"])).verify(e.sig, msg)
        assert v["signer"] == LOG["players"][e.author]["sign_pk"]
        log.add(raw)
    assert log.game_id is not None and log.game_id.hex() == LOG["game_id"]


@pytest.mark.parametrize("c", LOG["cases"], ids=lambda c: c["name"])
def test_log_cases(c: dict[str, Any]) -> None:
    log = Log()
    for v in LOG["entries"][: c["after"]]:
        log.add(v["text"].encode())
    try:
        r = log.add(_bytes(c), expected_proposer=c.get("expected_proposer"))
    except LogError as e:
        got = (e.reason.value, e.author, e.detail)
    else:
        got = (r.status.value, None, None)
    assert got == (c["expect"], c["blame"], c["detail"])
