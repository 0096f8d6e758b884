"""protocol/vectors/cards.json re-checked against p2puno.crypto, so it cannot rot.

Each section of the file is recomputed here from what the file itself gives (seeds, objects,
inputs) through the reference implementation; ``test_generator_check`` runs the generator's
``--check`` so the file also cannot drift from protocol/tools/gen_card_vectors.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from p2puno.crypto import (
    CryptoError,
    DeterministicRng,
    KeyCommitment,
    KeyRelease,
    Parent,
    SecretReveal,
    ShowMessage,
    ShuffleRecord,
    ShuffleSecrets,
    ShuffleSpec,
    ShuffleStep,
    ShuffleView,
    VerificationError,
    audit,
    card_of_point,
    card_point,
    step_order,
)
from p2puno.crypto._group import FIELD_P, ORDER, encrypt_one, is_point
from p2puno.crypto.shuffle import _show_aead, commitment_digest, decrypt_show, pledge_digest

ROOT = Path(__file__).resolve().parents[2] / "protocol"
V = json.loads((ROOT / "vectors" / "cards.json").read_text("utf-8"))
MAIN = V["shuffle"]
HIDDEN = V["hidden_reshuffle"]


def _k(h: str) -> int:
    return int.from_bytes(bytes.fromhex(h), "big")


def _b(h: str) -> bytes:
    return bytes.fromhex(h)


def test_generator_check() -> None:
    gen = ROOT / "tools" / "gen_card_vectors.py"
    done = subprocess.run(
        [sys.executable, str(gen), "--check"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_constants() -> None:
    c = V["constants"]
    assert _k(c["field_prime"]) == FIELD_P and _k(c["order"]) == ORDER
    domains = {k: _b(v) for k, v in c["domains"].items()}
    assert domains["card_point"] == b"p2puno/v1/card-point\0"
    assert domains["key_commitment"] == b"p2puno/v1/key-commitment\0"
    assert domains["shuffle_pledge"] == b"p2puno/v1/shuffle-pledge\0"
    assert domains["show"] == b"p2puno/v1/show\0"
    assert domains["test_only_rng"] == b"p2puno/v1/test-only-rng\0"
    assert domains["session_shuffle_id"] == b"p2puno/v1/shuffle\0"


@pytest.mark.parametrize("v", V["card_points"], ids=lambda v: str(v["card"]))
def test_card_points(v: dict[str, Any]) -> None:
    card = v["card"]
    data = _b(v["hash_input"])
    assert data == b"p2puno/v1/card-point\0" + card.to_bytes(2, "big") + v["counter"].to_bytes(
        4, "big"
    )
    assert hashlib.sha256(data).hexdigest() == v["x"] == card_point(card).hex()
    assert is_point(_b(v["x"]))
    assert len(v["rejected"]) == v["counter"]
    for i, r in enumerate(v["rejected"]):
        assert r["counter"] == i
        assert hashlib.sha256(_b(r["hash_input"])).hexdigest() == r["digest"]
        assert not is_point(_b(r["digest"]))
    assert card_of_point(_b(v["x"]), [card]) == card


def test_rng() -> None:
    r = V["rng"]
    seed = r["seed"].encode()
    key = hashlib.sha256(b"p2puno/v1/test-only-rng\0" + seed).digest()
    assert key.hex() == r["key"]
    blocks = [hashlib.sha256(key + i.to_bytes(8, "big")).hexdigest() for i in range(3)]
    assert blocks == r["blocks"]
    rng = DeterministicRng(seed)
    assert rng.token_bytes(40).hex() == r["token_bytes_40"]
    assert rng.token_bytes(8).hex() == r["then_token_bytes_8"]
    rng = DeterministicRng(seed)  # one new rng with the same seed, drawn in order
    for item in r["fresh_randbelow"]:
        assert rng.randbelow(int(item["n"])) == int(item["value"])


def test_scalars() -> None:
    s = V["scalars"]
    a, b, x = _k(s["a"]), _k(s["b"]), _b(s["point"])
    rng = DeterministicRng(s["seed"].encode())
    assert (1 + rng.randbelow(ORDER - 1), 1 + rng.randbelow(ORDER - 1)) == (a, b)
    assert x == card_point(0)
    assert _k(s["a_times_b"]) == a * b % ORDER
    assert _k(s["a_inverse"]) * a % ORDER == 1
    assert _k(s["a_times_b_inverse"]) * a * b % ORDER == 1
    ax = encrypt_one(a, x)
    assert ax.hex() == s["x(a*P)"] == s["x(a*P) with y odd"]
    assert encrypt_one(b, ax).hex() == s["x(b*x(a*P))"] == s["x(ab*P)"]
    assert encrypt_one(a * b % ORDER, x).hex() == s["x(ab*P)"]
    assert encrypt_one(_k(s["a_inverse"]), ax) == x == _b(s["x(a^-1*x(a*P))"])
    assert encrypt_one(_k(s["a_times_b_inverse"]), _b(s["x(b*x(a*P))"])) == x


def _secrets(spec: ShuffleSpec, reveals: list[Any], parent: list[Any] | None = None) -> list[Any]:
    return [
        ShuffleSecrets.from_reveal(
            spec, SecretReveal.from_obj(r), DeterministicRng(b"unused"), parent and parent[p]
        )
        for p, r in enumerate(reveals)
    ]


def test_shuffle_secrets_from_seeds() -> None:
    spec = ShuffleSpec.from_obj(MAIN["spec"])
    sid = hashlib.sha256(_b(MAIN["shuffle_id_input"])).digest()
    assert sid == spec.shuffle_id
    assert _b(MAIN["shuffle_id_input"]) == (
        b"p2puno/v1/shuffle\0" + _b(V["game_id"]) + (1).to_bytes(4, "big") + bytes(4)
    )
    for p, t in enumerate(MAIN["secrets_from_rng"]):
        secrets = ShuffleSecrets.generate(spec, p, DeterministicRng(t["seed"].encode()))
        assert secrets.reveal().to_obj() == MAIN["reveals"][p]
        assert secrets.commitment().to_obj() == MAIN["record"]["commitments"][p]
        r = secrets.reveal()
        m = spec.size
        # the documented derivation of the secrets from the RNG blobs (cards.md 12)
        assert 1 + _k(t["phase1_key_draws"][-1]) == r.phase1_key
        blob = _b(t["permutation_blob"])
        perm = list(range(m))
        for i in range(m - 1, 0, -1):
            j = int.from_bytes(blob[8 * i : 8 * i + 8], "big") % (i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        assert tuple(perm) == r.permutation
        kb = _b(t["keys_and_salts_blob"])
        keys = [1 + int.from_bytes(kb[64 * i : 64 * i + 48], "big") % (ORDER - 1) for i in range(m)]
        assert tuple(keys) == r.keys
        assert tuple(kb[64 * i + 48 : 64 * i + 64] for i in range(m)) == r.salts
        assert _b(t["x25519_private"]) == r.x25519_private


def test_commitment_and_pledge() -> None:
    c = MAIN["commitment_example"]
    spec = ShuffleSpec.from_obj(MAIN["spec"])
    r = SecretReveal.from_obj(MAIN["reveals"][c["player"]])
    com = KeyCommitment.from_obj(MAIN["record"]["commitments"][c["player"]])
    pos = c["position"]
    sid = spec.shuffle_id
    assert _b(c["commitment_input"]) == (
        b"p2puno/v1/key-commitment\0"
        + sid
        + bytes([c["player"]])
        + pos.to_bytes(2, "big")
        + r.salts[pos]
        + r.keys[pos].to_bytes(32, "big")
    )
    digest = commitment_digest(sid, c["player"], pos, r.keys[pos], r.salts[pos])
    assert digest == hashlib.sha256(_b(c["commitment_input"])).digest() == com.commitments[pos]
    pledge = pledge_digest(sid, c["player"], r.phase1_key, r.rekey_key, r.permutation)
    assert pledge == hashlib.sha256(_b(c["pledge_input"])).digest() == com.pledge
    assert c["x25519_public"] == com.x25519_public.hex()


def _replay(entry: dict[str, Any], deck: tuple[bytes, ...], reveal: SecretReveal, n: int) -> Any:
    phase, player = entry["phase"], entry["player"]
    if phase == 1:
        enc = [encrypt_one(_k(entry["scalars"]), x) for x in deck]
        return tuple(enc[j] for j in reveal.permutation)
    src = [deck[j] for j in reveal.permutation] if phase == 2 and player == n - 1 else deck
    return tuple(encrypt_one(_k(k), x) for k, x in zip(entry["scalars"], src, strict=True))


def _check_steps(vec: dict[str, Any], initial: tuple[bytes, ...], parent_keys: Any) -> None:
    spec = ShuffleSpec.from_obj(vec["spec"])
    n = spec.players
    reveals = [SecretReveal.from_obj(r) for r in vec["reveals"]]
    order = step_order(n, bool(spec.hidden))
    assert [(s["phase"], s["player"]) for s in vec["steps"]] == order
    deck = initial
    for entry in vec["steps"]:
        phase, player = entry["phase"], entry["player"]
        r = reveals[player]
        u = r.rekey_key
        # the scalars the file gives follow from the author's secrets (cards.md 6)
        if phase == 0:
            assert u is not None
            want: Any = [u * pow(b, -1, ORDER) % ORDER for b in parent_keys[player]] + [u] * len(
                spec.cards
            )
        elif phase == 1:
            want = r.phase1_key
        elif player == n - 1:
            want = [k * pow(u or 1, -1, ORDER) % ORDER for k in r.keys]
        else:
            want = [k * pow(r.phase1_key * (u or 1), -1, ORDER) % ORDER for k in r.keys]
        got = _k(entry["scalars"]) if phase == 1 else [_k(k) for k in entry["scalars"]]
        assert got == want
        assert entry["permutes"] == (phase == 1 or (phase == 2 and player == n - 1))
        step = ShuffleStep.from_obj(entry["step"])
        assert _replay(entry, deck, r, n) == step.deck
        deck = step.deck
    assert [s["step"] for s in vec["steps"]] == vec["record"]["steps"]


def test_shuffle_steps() -> None:
    spec = ShuffleSpec.from_obj(MAIN["spec"])
    _check_steps(MAIN, tuple(card_point(c) for c in spec.cards), None)


def _record_view(vec: dict[str, Any], parent: ShuffleView | None = None) -> ShuffleView:
    record = ShuffleRecord.from_obj(vec["record"])
    view = ShuffleView(record.spec, parent)
    for c in record.commitments:
        view.add_commitment(c)
    for s in record.steps:
        view.add_step(s, check_points=True)
    return view


def test_deals_and_reveal() -> None:
    spec = ShuffleSpec.from_obj(MAIN["spec"])
    secrets = _secrets(spec, MAIN["reveals"])
    view = _record_view(MAIN)
    for d in MAIN["deals"]:
        keys = []
        for obj in d["releases"]:
            rel = KeyRelease.from_obj(obj)
            view.add_release(rel)
            keys.append(rel.key)
        to = d["recipient"]
        keys.append(secrets[to].release(d["position"]).key)
        product = 1
        for k in keys:
            product = product * k % ORDER
        assert product == _k(d["key_product"])
        assert product * _k(d["key_product_inverse"]) % ORDER == 1
        entry = _b(d["final_entry"])
        assert entry == view.deck[d["position"]]
        assert encrypt_one(_k(d["key_product_inverse"]), entry).hex() == d["opened_point"]
        assert card_point(d["card"]).hex() == d["opened_point"]
        assert view.open(d["position"], secrets[to]) == d["card"]
    rev = MAIN["reveal_to_all"]
    for obj in rev["releases"]:
        view.add_release(KeyRelease.from_obj(obj))
    assert view.reveal(rev["position"]) == rev["card"]


def test_show() -> None:
    s = MAIN["show"]
    spec = ShuffleSpec.from_obj(MAIN["spec"])
    show = ShowMessage.from_obj(s["message"])
    assert (
        show.canonical_bytes()
        == json.dumps(s["message"], sort_keys=True, separators=(",", ":")).encode()
    )
    assert show.header_bytes().decode() == s["header_bytes"]
    assert _b(s["aad"]) == show.header_bytes()
    assert hashlib.sha256(show.header_bytes()).hexdigest() == s["header_sha256"]
    assert _b(s["hkdf_info"]) == (
        b"p2puno/v1/show\0"
        + _b(s["ephemeral_public"])
        + _b(s["recipient_public"])
        + _b(s["header_sha256"])
    )
    assert s["hkdf_salt"] == "" and s["nonce"] == "00" * 12
    key = _show_aead(
        _b(s["shared_secret"]), show.ephemeral, _b(s["recipient_public"]), show.header_bytes()
    )
    assert key.hex() == s["aead_key"]
    assert (
        show.ephemeral.hex() == s["ephemeral_public"] and show.ciphertext.hex() == s["ciphertext"]
    )
    entries = decrypt_show(show, _b(s["recipient_x25519_private"]))
    assert entries is not None
    assert [(k, salt.hex()) for k, salt in entries] == [
        (_k(e["key"]), e["salt"]) for e in s["opened_entries"]
    ]
    plain = b"".join(_b(e["key"]) + _b(e["salt"]) for e in s["opened_entries"])
    assert plain.hex() == s["plaintext"]
    # the recipient opens the shown positions (the other seat's keys were released in the deal)
    view = _record_view(MAIN)
    for d in MAIN["deals"]:
        for obj in d["releases"]:
            view.add_release(KeyRelease.from_obj(obj))
    recipient = _secrets(spec, MAIN["reveals"])[s["recipient"]]
    opened = view.open_show(show, recipient)
    assert {str(k): v for k, v in opened.items()} == s["opened_cards"]
    # the sender's RNG, after its generate() draws, gives the ephemeral key
    rng = DeterministicRng(MAIN["secrets_from_rng"][s["sender"]]["seed"].encode())
    ShuffleSecrets.generate(spec, s["sender"], rng)
    assert rng.token_bytes(32).hex() == s["ephemeral_private"]


def test_record_and_audit() -> None:
    record = ShuffleRecord.from_obj(MAIN["record"])
    assert record.to_obj() == MAIN["record"]
    reveals = [SecretReveal.from_obj(r) for r in MAIN["reveals"]]
    result = audit(record, reveals)
    a = MAIN["audit"]
    assert [v.to_obj() for v in result.faults] == a["faults"] == []
    assert list(result.faces or ()) == a["faces"]
    final = record.steps[-1].deck
    start = int.from_bytes(hashlib.sha256(b"".join(final)).digest()[:8], "big")
    assert str(start) == a["spot_check_start"]
    assert a["spot_check_positions"] == [
        (start + i) % record.spec.size for i in range(len(record.steps))
    ]


def _parent() -> Parent:
    record = ShuffleRecord.from_obj(MAIN["record"])
    reveals = {p: SecretReveal.from_obj(r) for p, r in enumerate(MAIN["reveals"])}
    return Parent(record, reveals, tuple(MAIN["audit"]["faces"]))


def test_hidden_reshuffle() -> None:
    spec = ShuffleSpec.from_obj(HIDDEN["spec"])
    parent = _parent()
    assert spec.parent == parent.record.spec.shuffle_id
    # spec.md 10.5.1 with deck 1, index 1 (the main shuffle is index 0)
    assert _b(HIDDEN["shuffle_id_input"]) == (
        b"p2puno/v1/shuffle\0" + _b(V["game_id"]) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")
    )
    assert hashlib.sha256(_b(HIDDEN["shuffle_id_input"])).digest() == spec.shuffle_id
    # every seat's secrets from its public seed (cards.md 12)
    psecrets = _secrets(parent.record.spec, MAIN["reveals"])
    for p, seed in enumerate(HIDDEN["seeds"]):
        s = ShuffleSecrets.generate(spec, p, DeterministicRng(seed.encode()), psecrets[p])
        assert s.reveal().to_obj() == HIDDEN["reveals"][p]
    final = parent.record.steps[-1].deck
    assert [final[p].hex() for p in spec.hidden] == HIDDEN["parent_entries"]
    assert [parent.faces[p] for p in spec.hidden] == HIDDEN["parent_faces"]
    initial = tuple(final[p] for p in spec.hidden) + tuple(card_point(c) for c in spec.cards)
    pkeys = {p: [r.keys[h] for h in spec.hidden] for p, r in parent.reveals.items()}
    _check_steps(HIDDEN, initial, pkeys)
    reveals = [SecretReveal.from_obj(r) for r in HIDDEN["reveals"]]
    assert [_k(h) for h in HIDDEN["rekey_keys"]] == [r.rekey_key for r in reveals]
    record = ShuffleRecord.from_obj(HIDDEN["record"])
    result = audit(record, reveals, parent=parent)
    assert {"faults": [v.to_obj() for v in result.faults], "faces": list(result.faces or ())} == (
        HIDDEN["audit"]
    )
    # an observer: the parent's view (its deals and reveal), then the child's
    pview = _record_view(MAIN)
    for d in [*MAIN["deals"], MAIN["reveal_to_all"]]:
        for obj in d["releases"]:
            pview.add_release(KeyRelease.from_obj(obj))
    pview.reveal(MAIN["reveal_to_all"]["position"])
    view = _record_view(HIDDEN, pview)
    for obj in HIDDEN["reveal_to_all"]["releases"]:
        view.add_release(KeyRelease.from_obj(obj))
    assert view.reveal(0) == HIDDEN["reveal_to_all"]["card"]


def _error(fn: Any) -> dict[str, Any]:
    try:
        fn()
    except VerificationError as e:
        return {
            "error": "VerificationError",
            "message": str(e),
            "verdict": None if e.verdict is None else e.verdict.to_obj(),
        }
    except CryptoError as e:
        return {"error": type(e).__name__, "message": str(e)}
    raise AssertionError("no error")


def _audit(record: ShuffleRecord, reveals: Any, **kw: Any) -> dict[str, Any]:
    res = audit(record, reveals, **kw)
    return {
        "faults": [v.to_obj() for v in res.faults],
        "faces": None if res.faces is None else list(res.faces),
    }


BAD = {c["name"]: c for c in V["bad"]}


def _want(c: dict[str, Any]) -> dict[str, Any]:
    return {k: c[k] for k in ("error", "message", "verdict") if k in c}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad(name: str) -> None:
    c = BAD[name]
    spec = ShuffleSpec.from_obj(MAIN["spec"])
    record = ShuffleRecord.from_obj(MAIN["record"])
    reveals = [SecretReveal.from_obj(r) for r in MAIN["reveals"]]
    secrets = _secrets(spec, MAIN["reveals"])
    obj = c.get("object")
    if name.startswith("release-key-"):
        assert _error(lambda: KeyRelease.from_obj(obj)) == _want(c)
    elif name.startswith("release-"):
        rel = KeyRelease.from_obj(obj)
        assert _error(lambda: _record_view(MAIN).check_release(rel)) == _want(c)
        if "audit_with_it" in c:
            rec = dataclasses.replace(record, releases=(*record.releases, rel))
            assert _audit(rec, reveals) == c["audit_with_it"]
    elif name in ("show-does-not-decrypt", "show-wrong-key"):
        show = ShowMessage.from_obj(obj)
        if "ephemeral_private_is_sha256_of" in c:
            eph = hashlib.sha256(c["ephemeral_private_is_sha256_of"].encode()).digest()
            assert eph.hex() == c["ephemeral_private"]
        assert _error(lambda: _record_view(MAIN).open_show(show, secrets[1])) == _want(c)
        rec = dataclasses.replace(record, shows=(show,))
        assert _audit(rec, reveals) == c["audit_with_it"]
    elif name.startswith("show-"):
        assert _error(lambda: ShowMessage.from_obj(obj)) == _want(c)
    elif name == "step-entry-not-a-field-element":
        assert _error(lambda: ShuffleStep.from_obj(obj)) == _want(c)
    elif name.startswith("step-"):
        view = ShuffleView(spec)
        for com in record.commitments:
            view.add_commitment(com)
        step = ShuffleStep.from_obj(obj)
        if name.endswith("next-shuffler"):
            view.add_step(step)
            assert _error(lambda: secrets[1].step(view)) == _want(c)
        else:
            points = name == "step-entry-not-a-point"
            assert _error(lambda: view.check_step(step, check_points=points)) == _want(c)
    elif name == "commitment-weak-x25519":
        com = KeyCommitment.from_obj(obj)
        assert _error(lambda: ShuffleView(spec).add_commitment(com)) == _want(c)
    elif name.startswith("reveal-"):
        bad = SecretReveal.from_obj(obj)
        assert _audit(record, [reveals[0], reveals[1], bad]) == c["audit_with_it"]
    elif name == "missing-reveal":
        assert _audit(record, {0: reveals[0], 2: reveals[2]}) == c["audit_with_it"]
    elif name == "false-accusation":
        assert _audit(record, reveals, accuser=2) == c["audit_with_it"]
    elif name in ("false-shuffle-step", "spot-check-gap", "audit-step-entry-not-a-point"):
        steps = tuple(ShuffleStep.from_obj(s) for s in c["steps"])
        if name == "audit-step-entry-not-a-point":
            assert c["steps"][0] == BAD["step-entry-not-a-point"]["object"]
            assert steps[1] == record.steps[1]
        rec = ShuffleRecord(spec, record.commitments, steps)
        assert _audit(rec, reveals) == c["audit_with_it"]
        if "thorough_audit" in c:
            assert _audit(rec, reveals, thorough=True) == c["thorough_audit"]
            assert steps[-1].deck == record.steps[-1].deck
    else:
        raise AssertionError(f"no check for {name}")
