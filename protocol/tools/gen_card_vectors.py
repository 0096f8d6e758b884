#!/usr/bin/env python3
"""Generate (or --check) protocol/vectors/cards.json: the card layer (protocol/cards.md).

    .venv/bin/python protocol/tools/gen_card_vectors.py          # rewrite the vector file
    .venv/bin/python protocol/tools/gen_card_vectors.py --check  # exit 1 if it would change

Deterministic: no clock, no OS randomness. Every secret comes from a public seed: from
DeterministicRng (SHA-256 in counter mode, cards.md section 12) with a seed the file gives, or
(show-wrong-key's ephemeral key) SHA-256 of a public string the file gives. So TEST ONLY: anyone
can recompute every key in the file. Never use these seeds, or DeterministicRng, in a real game.

Besides running p2puno.crypto, the generator recomputes every hash, KDF and AEAD input the way
protocol/cards.md spells it out (hashlib and pyca primitives only, see ``_independent``) and
asserts that both agree before it writes anything, so the text and the code cannot drift apart
unnoticed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2puno.crypto import (
    CryptoError,
    DeterministicRng,
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
    card_point,
    step_order,
)

OUT = Path(__file__).resolve().parent.parent / "vectors" / "cards.json"

FIELD_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
CURVE = ec.SECP256R1()

D_CARD = b"p2puno/v1/card-point\0"
D_COMMIT = b"p2puno/v1/key-commitment\0"
D_PLEDGE = b"p2puno/v1/shuffle-pledge\0"
D_SHOW = b"p2puno/v1/show\0"
D_RNG = b"p2puno/v1/test-only-rng\0"
D_SHUFFLE = b"p2puno/v1/shuffle\0"

N = 3
CARDS = (0, 1, 2, 3, 4, 5, 6, 7, 106, 107)
SEEDS = [f"p2puno card vector seat {p}".encode() for p in range(N)]
GAME_ID = hashlib.sha256(b"p2puno card vectors: a stand-in game id").digest()
HIDDEN_SEEDS = [s + b" reshuffle" for s in SEEDS]  # the hidden reshuffle's seats
SCALAR_SEED = b"p2puno card vector scalars"
BAD_EPHEMERAL_INPUT = b"p2puno card vector: bad show ephemeral"  # show-wrong-key: SHA256 of it


# -- independent recomputation, as protocol/cards.md spells it ----------------------------------


def _mul(k: int, x: bytes, prefix: bytes = b"\x02") -> bytes:
    """x(k * P), P the point with x-coordinate ``x`` (cards.md 3)."""
    point = ec.EllipticCurvePublicKey.from_encoded_point(CURVE, prefix + x)
    return ec.derive_private_key(k, CURVE).exchange(ec.ECDH(), point)


def _is_point(x: bytes) -> bool:
    if len(x) != 32 or int.from_bytes(x, "big") >= FIELD_P:
        return False
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(CURVE, b"\x02" + x)
    except ValueError:
        return False
    return True


def _card_point_trace(card: int) -> dict[str, Any]:
    rejected = []
    counter = 0
    while True:
        data = D_CARD + card.to_bytes(2, "big") + counter.to_bytes(4, "big")
        x = hashlib.sha256(data).digest()
        if _is_point(x):
            assert x == card_point(card), card
            return {
                "card": card,
                "counter": counter,
                "hash_input": data.hex(),
                "x": x.hex(),
                "rejected": rejected,
            }
        rejected.append({"counter": counter, "hash_input": data.hex(), "digest": x.hex()})
        counter += 1


def _commit_input(sid: bytes, owner: int, pos: int, salt: bytes, key: int) -> bytes:
    return D_COMMIT + sid + bytes([owner]) + pos.to_bytes(2, "big") + salt + key.to_bytes(32, "big")


def _pledge_input(sid: bytes, owner: int, a: int, u: int | None, perm: Sequence[int]) -> bytes:
    return (
        D_PLEDGE
        + sid
        + bytes([owner])
        + a.to_bytes(32, "big")
        + (u or 0).to_bytes(32, "big")
        + b"".join(i.to_bytes(2, "big") for i in perm)
    )


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _show_trace(
    eph_priv: bytes, recipient_pub: bytes, header: dict[str, Any], plain: bytes
) -> dict[str, Any]:
    eph = X25519PrivateKey.from_private_bytes(eph_priv)
    eph_pub = eph.public_key().public_bytes_raw()
    shared = eph.exchange(X25519PublicKey.from_public_bytes(recipient_pub))
    header_bytes = _canonical(header)
    info = D_SHOW + eph_pub + recipient_pub + hashlib.sha256(header_bytes).digest()
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)
    ct = ChaCha20Poly1305(key).encrypt(bytes(12), plain, header_bytes)
    return {
        "ephemeral_private": eph_priv.hex(),
        "ephemeral_public": eph_pub.hex(),
        "recipient_public": recipient_pub.hex(),
        "shared_secret": shared.hex(),
        "header_bytes": header_bytes.decode(),
        "header_sha256": hashlib.sha256(header_bytes).hexdigest(),
        "hkdf_salt": "",
        "hkdf_info": info.hex(),
        "aead_key": key.hex(),
        "nonce": bytes(12).hex(),
        "aad": header_bytes.hex(),
        "plaintext": plain.hex(),
        "ciphertext": ct.hex(),
    }


def _step_scalars(
    phase: int, player: int, r: SecretReveal, parent_keys: Sequence[int], public: int
) -> list[int] | int:
    """What step (phase, player) puts on its input, from the author's secrets (cards.md 6)."""
    u = r.rekey_key
    if phase == 0:
        assert u is not None
        return [u * pow(b, -1, ORDER) % ORDER for b in parent_keys] + [u] * public
    if phase == 1:
        return r.phase1_key
    if player == N - 1:  # merged
        inv = 1 if u is None else pow(u, -1, ORDER)
        return [k * inv % ORDER for k in r.keys]
    inv = pow(r.phase1_key * (1 if u is None else u) % ORDER, -1, ORDER)
    return [k * inv % ORDER for k in r.keys]


def _replay_step(
    phase: int, player: int, r: SecretReveal, deck: Sequence[bytes], scalars: list[int] | int
) -> tuple[bytes, ...]:
    if phase == 1:
        assert isinstance(scalars, int)
        enc = [_mul(scalars, x) for x in deck]
        return tuple(enc[j] for j in r.permutation)
    assert isinstance(scalars, list)
    src = [deck[j] for j in r.permutation] if phase == 2 and player == N - 1 else list(deck)
    return tuple(_mul(k, x) for k, x in zip(scalars, src, strict=True))


# -- helpers -----------------------------------------------------------------------------------


class RecordingRng(DeterministicRng):
    """DeterministicRng that remembers every ``token_bytes`` draw (the last one of a show is its
    ephemeral X25519 private key)."""

    def __init__(self, seed: bytes) -> None:
        super().__init__(seed)
        self.draws: list[bytes] = []

    def token_bytes(self, n: int) -> bytes:
        out = super().token_bytes(n)
        self.draws.append(out)
        return out


def _h(k: int) -> str:
    return k.to_bytes(32, "big").hex()


def _error(fn: Callable[[], object]) -> dict[str, Any]:
    try:
        fn()
    except VerificationError as e:
        v = None if e.verdict is None else e.verdict.to_obj()
        return {"error": "VerificationError", "message": str(e), "verdict": v}
    except CryptoError as e:
        return {"error": type(e).__name__, "message": str(e)}
    raise AssertionError("no error")


def _audit_obj(result: Any) -> dict[str, Any]:
    return {
        "faults": [v.to_obj() for v in result.faults],
        "faces": None if result.faces is None else list(result.faces),
    }


@dataclasses.dataclass
class Run:
    spec: ShuffleSpec
    rngs: list[RecordingRng]
    secrets: list[ShuffleSecrets]
    view: ShuffleView  # an observer's view: no seat, no secrets
    seat_views: list[ShuffleView]


def _run(
    spec: ShuffleSpec,
    seeds: Sequence[bytes],
    parent: Run | None = None,
    tamper: Callable[[int, ShuffleStep, tuple[bytes, ...]], ShuffleStep] | None = None,
) -> Run:
    rngs = [RecordingRng(s) for s in seeds]
    secrets = [
        ShuffleSecrets.generate(spec, p, rngs[p], None if parent is None else parent.secrets[p])
        for p in range(N)
    ]
    view = ShuffleView(spec, None if parent is None else parent.view)
    seat_views = [
        ShuffleView(spec, None if parent is None else parent.seat_views[p]) for p in range(N)
    ]
    views = [view, *seat_views]
    for s in secrets:
        for v in views:
            v.add_commitment(s.commitment())
    idx = 0
    while (nxt := view.next_step) is not None:
        deck_in = view.deck
        step = secrets[nxt[1]].step(view)
        if tamper is not None:
            step = tamper(idx, step, deck_in)
        for v in views:
            v.add_step(step, check_points=True)
        idx += 1
    return Run(spec, rngs, secrets, view, seat_views)


def _release(run: Run, owner: int, pos: int) -> KeyRelease:
    rel = run.secrets[owner].release(pos)
    for v in [run.view, *run.seat_views]:
        v.add_release(rel)
    return rel


# -- sections ----------------------------------------------------------------------------------


def constants() -> dict[str, Any]:
    return {
        "curve": "P-256 (secp256r1)",
        "field_prime": f"{FIELD_P:064x}",
        "order": f"{ORDER:064x}",
        "domains": {
            "card_point": D_CARD.hex(),
            "key_commitment": D_COMMIT.hex(),
            "shuffle_pledge": D_PLEDGE.hex(),
            "show": D_SHOW.hex(),
            "test_only_rng": D_RNG.hex(),
            "session_shuffle_id": D_SHUFFLE.hex(),
        },
        "sizes": {
            "shuffle_id": 32,
            "point": 32,
            "scalar": 32,
            "salt": 16,
            "x25519_key": 32,
            "show_entry": 48,
            "aead_tag": 16,
            "max_cards": 512,
            "players": [2, 10],
            "card_id": [0, 65535],
        },
    }


def card_points() -> list[dict[str, Any]]:
    out = [_card_point_trace(c) for c in (0, 1, 107, 108, 65535)]
    assert any(v["rejected"] for v in out), "pick ids with a rejected candidate"
    return out


def rng_vectors() -> dict[str, Any]:
    seed = b"p2puno card vector rng"
    rng = DeterministicRng(seed)
    key = hashlib.sha256(D_RNG + seed).digest()
    blocks = [hashlib.sha256(key + i.to_bytes(8, "big")).digest() for i in range(3)]
    first = rng.token_bytes(40)
    assert first == b"".join(blocks)[:40]
    nxt = rng.token_bytes(8)
    assert nxt == b"".join(blocks)[40:48]
    rb = DeterministicRng(seed)
    below = [rb.randbelow(n) for n in (1, 10, 108, ORDER - 1)]
    return {
        "seed": seed.decode(),
        "key": key.hex(),
        "blocks": [b.hex() for b in blocks],
        "token_bytes_40": first.hex(),
        "then_token_bytes_8": nxt.hex(),
        "fresh_randbelow": [
            {"n": str(n), "value": str(v)}
            for n, v in zip((1, 10, 108, ORDER - 1), below, strict=True)
        ],
    }


def scalar_vectors() -> dict[str, Any]:
    rng = DeterministicRng(SCALAR_SEED)
    a = 1 + rng.randbelow(ORDER - 1)
    b = 1 + rng.randbelow(ORDER - 1)
    x = card_point(0)
    ax = _mul(a, x)
    bax = _mul(b, ax)
    ab = a * b % ORDER
    assert _mul(ab, x) == bax == _mul(a, _mul(b, x))
    assert _mul(a, x, b"\x03") == ax  # the sign of y does not matter
    a_inv = pow(a, -1, ORDER)
    assert _mul(a_inv, ax) == x
    ab_inv = pow(ab, -1, ORDER)
    assert _mul(ab_inv, bax) == x
    return {
        "seed": SCALAR_SEED.decode(),
        "point": x.hex(),
        "a": _h(a),
        "b": _h(b),
        "a_times_b": _h(ab),
        "a_inverse": _h(a_inv),
        "a_times_b_inverse": _h(ab_inv),
        "x(a*P)": ax.hex(),
        "x(b*x(a*P))": bax.hex(),
        "x(ab*P)": _mul(ab, x).hex(),
        "x(a*P) with y odd": _mul(a, x, b"\x03").hex(),
        "x(a^-1*x(a*P))": _mul(a_inv, ax).hex(),
        "x((ab)^-1*x(b*x(a*P)))": _mul(ab_inv, bax).hex(),
    }


def _shuffle_id_input(deck: int, index: int) -> bytes:
    """spec.md 10.5.1: D_SHUFFLE || game_id || be(deck, 4) || be(index, 4)."""
    return D_SHUFFLE + GAME_ID + deck.to_bytes(4, "big") + index.to_bytes(4, "big")


def _shuffle_id(deck: int, index: int) -> bytes:
    return hashlib.sha256(_shuffle_id_input(deck, index)).digest()


def _steps_trace(run: Run, parent: Run | None) -> list[dict[str, Any]]:
    spec = run.spec
    reveals = [s.reveal() for s in run.secrets]
    deck = tuple(card_point(c) for c in spec.cards)
    if parent is not None:
        deck = tuple(parent.view.deck[p] for p in spec.hidden) + deck
    out = []
    for (phase, player), step in zip(step_order(N, bool(spec.hidden)), run.view.steps, strict=True):
        r = reveals[player]
        pkeys = (
            [] if parent is None else [parent.secrets[player].reveal().keys[p] for p in spec.hidden]
        )
        scalars = _step_scalars(phase, player, r, pkeys, len(spec.cards))
        got = _replay_step(phase, player, r, deck, scalars)
        assert got == step.deck, (phase, player)
        permutes = phase == 1 or (phase == 2 and player == N - 1)
        out.append(
            {
                "phase": phase,
                "player": player,
                "permutes": permutes,
                "scalars": _h(scalars) if isinstance(scalars, int) else [_h(k) for k in scalars],
                "step": step.to_obj(),
            }
        )
        deck = step.deck
    return out


def _commitment_trace(run: Run, player: int, pos: int) -> dict[str, Any]:
    r = run.secrets[player].reveal()
    sid = run.spec.shuffle_id
    ci = _commit_input(sid, player, pos, r.salts[pos], r.keys[pos])
    pi = _pledge_input(sid, player, r.phase1_key, r.rekey_key, r.permutation)
    c = run.secrets[player].commitment()
    assert hashlib.sha256(ci).digest() == c.commitments[pos]
    assert hashlib.sha256(pi).digest() == c.pledge
    xpub = X25519PrivateKey.from_private_bytes(r.x25519_private).public_key().public_bytes_raw()
    assert xpub == c.x25519_public
    return {
        "player": player,
        "position": pos,
        "commitment_input": ci.hex(),
        "commitment": c.commitments[pos].hex(),
        "pledge_input": pi.hex(),
        "pledge": c.pledge.hex(),
        "x25519_private": r.x25519_private.hex(),
        "x25519_public": xpub.hex(),
    }


def _keygen_trace(run: Run, player: int) -> dict[str, Any]:
    """How generate() turned the seat's RNG output into its secrets (cards.md 12)."""
    draws = run.rngs[player].draws
    r = run.secrets[player].reveal()
    m = run.spec.size
    # randbelow(ORDER - 1) draws 32 bytes per try; then 8m, 64m, 32 (and 32 per rekey try)
    i = 0
    tries = []
    while True:
        tries.append(draws[i].hex())
        v = int.from_bytes(draws[i], "big")
        i += 1
        if v < ORDER - 1:
            assert 1 + v == r.phase1_key
            break
    perm_blob, key_blob, x_priv = draws[i], draws[i + 1], draws[i + 2]
    assert len(perm_blob) == 8 * m and len(key_blob) == 64 * m and x_priv == r.x25519_private
    return {
        "player": player,
        "seed": SEEDS[player].decode() if run.spec.parent is None else None,
        "phase1_key_draws": tries,
        "permutation_blob": perm_blob.hex(),
        "keys_and_salts_blob": key_blob.hex(),
        "x25519_private": x_priv.hex(),
    }


def main_shuffle() -> tuple[dict[str, Any], Run]:
    spec = ShuffleSpec(_shuffle_id(1, 0), N, CARDS)
    run = _run(spec, SEEDS)
    steps = _steps_trace(run, None)
    m = spec.size
    # dealing: two cards each, round robin from position 0; reveal position 6 to all
    deals = []
    for pos in range(2 * N):
        to = pos % N
        rels = [_release(run, q, pos) for q in range(N) if q != to]
        card = run.seat_views[to].open(pos, run.secrets[to])
        product = 1
        for q in range(N):
            product = product * run.secrets[q].reveal().keys[pos] % ORDER
        entry = run.view.deck[pos]
        assert card_point(card) == _mul(pow(product, -1, ORDER), entry)
        deals.append(
            {
                "position": pos,
                "recipient": to,
                "releases": [r.to_obj() for r in rels],
                "key_product": _h(product),
                "key_product_inverse": _h(pow(product, -1, ORDER)),
                "final_entry": entry.hex(),
                "opened_point": card_point(card).hex(),
                "card": card,
            }
        )
    rels = [_release(run, q, 6) for q in range(N)]
    faces = {run.view.reveal(6)} | {v.reveal(6) for v in run.seat_views}
    assert len(faces) == 1
    revealed = {"position": 6, "releases": [r.to_obj() for r in rels], "card": faces.pop()}

    # a show: seat 0 shows its keys for its hand (positions 0 and 3) to seat 1
    sender, recipient, positions = 0, 1, [0, 3]
    pub = run.view.commitment(recipient).x25519_public
    before = len(run.rngs[sender].draws)
    show = run.secrets[sender].show(pub, recipient, positions)
    assert len(run.rngs[sender].draws) == before + 1
    eph_priv = run.rngs[sender].draws[-1]
    r0 = run.secrets[sender].reveal()
    plain = b"".join(r0.keys[p].to_bytes(32, "big") + r0.salts[p] for p in positions)
    trace = _show_trace(eph_priv, pub, show.header(), plain)
    assert trace["ciphertext"] == show.ciphertext.hex()
    assert trace["ephemeral_public"] == show.ephemeral.hex()
    run.view.add_show(show)
    for p, v in enumerate(run.seat_views):
        if p != recipient:
            v.add_show(show)
    opened = run.seat_views[recipient].open_show(show, run.secrets[recipient])
    show_vec = {
        "sender": sender,
        "recipient": recipient,
        "positions": positions,
        "note": "the sender's rng draws the ephemeral private key: the 32 bytes after its "
        "generate() draws",
        **trace,
        "message": show.to_obj(),
        "recipient_x25519_private": run.secrets[recipient].reveal().x25519_private.hex(),
        "opened_entries": [
            {"position": p, "owner": sender, "key": _h(r0.keys[p]), "salt": r0.salts[p].hex()}
            for p in positions
        ],
        "opened_cards": {str(k): v for k, v in sorted(opened.items())},
    }

    record = run.view.record()
    reveals = [s.reveal() for s in run.secrets]
    result = audit(record, reveals)
    assert result.ok and audit(record, reveals, thorough=True) == result
    final = record.steps[-1].deck
    start = int.from_bytes(hashlib.sha256(b"".join(final)).digest()[:8], "big")
    spot = [(start + i) % m for i in range(len(record.steps))]
    vec = {
        "spec": spec.to_obj(),
        "shuffle_id_input": _shuffle_id_input(1, 0).hex(),
        "secrets_from_rng": [_keygen_trace(run, p) for p in range(N)],
        "commitment_example": _commitment_trace(run, 1, 2),
        "steps": steps,
        "deals": deals,
        "reveal_to_all": revealed,
        "show": show_vec,
        "reveals": [r.to_obj() for r in reveals],
        "record": record.to_obj(),
        "audit": {
            "spot_check_start": str(start),
            "spot_check_positions": spot,
            **_audit_obj(result),
        },
    }
    return vec, run


def hidden_reshuffle(parent: Run) -> dict[str, Any]:
    """The undealt positions 7..9 of the main shuffle plus the revealed card of position 6 go
    back into a hidden reshuffle (as when a Wild Draw Four is turned up at the start)."""
    face6 = parent.view.faces[6]
    spec = ShuffleSpec(_shuffle_id(1, 1), N, (face6,), parent.spec.shuffle_id, (7, 8, 9))
    run = _run(spec, HIDDEN_SEEDS, parent)
    steps = _steps_trace(run, parent)
    rels = [_release(run, q, 0) for q in range(N)]
    card = run.view.reveal(0)
    record = run.view.record()
    reveals = [s.reveal() for s in run.secrets]
    prec = parent.view.record()
    preveals = {p: s.reveal() for p, s in enumerate(parent.secrets)}
    pfaces = audit(prec, preveals).faces
    assert pfaces is not None
    par = Parent(prec, preveals, pfaces)
    result = audit(record, reveals, parent=par)
    assert result.ok and audit(record, reveals, parent=par, thorough=True) == result
    assert result.faces is not None and result.faces[0] == card
    return {
        "spec": spec.to_obj(),
        "shuffle_id_input": _shuffle_id_input(1, 1).hex(),
        "seeds": [s.decode() for s in HIDDEN_SEEDS],
        "parent_entries": [parent.view.deck[p].hex() for p in spec.hidden],
        "parent_faces": [pfaces[p] for p in spec.hidden],
        "rekey_keys": [_h(r.rekey_key or 0) for r in reveals],
        "steps": steps,
        "reveal_to_all": {"position": 0, "releases": [r.to_obj() for r in rels], "card": card},
        "reveals": [r.to_obj() for r in reveals],
        "record": record.to_obj(),
        "audit": _audit_obj(result),
    }


def bad_cases(run: Run) -> list[dict[str, Any]]:
    spec = run.spec
    record = run.view.record()
    reveals = [s.reveal() for s in run.secrets]
    cases: list[dict[str, Any]] = []

    def audit_case(name: str, rec: ShuffleRecord, revs: Any, **kw: Any) -> dict[str, Any]:
        res = audit(rec, revs, **kw)
        assert audit(rec, revs, thorough=True, **kw) == res, name
        return _audit_obj(res)

    # 1. a release that breaks its commitment (the salt of another position)
    good = run.secrets[1].release(8)
    bad = dataclasses.replace(good, salt=run.secrets[1].reveal().salts[9])
    cases.append(
        {
            "name": "release-breaks-commitment",
            "what": "seat 1's key for position 8 with the salt of position 9",
            "check": "add_release",
            "object": bad.to_obj(),
            **_error(lambda: run.view.check_release(bad)),
            "audit_with_it": audit_case(
                "rel", dataclasses.replace(record, releases=(*record.releases, bad)), reveals
            ),
        }
    )
    # 2. a release for another shuffle id
    other = dataclasses.replace(good, shuffle_id=bytes(32))
    cases.append(
        {
            "name": "release-other-shuffle",
            "check": "add_release",
            "object": other.to_obj(),
            **_error(lambda: run.view.check_release(other)),
        }
    )
    # 3-6. malformed shows (decoding)
    show = record.shows[0].to_obj()
    for name, mutate in (
        ("show-ciphertext-short", lambda o: {**o, "ciphertext": o["ciphertext"][:-2]}),
        ("show-positions-unsorted", lambda o: {**o, "positions": o["positions"][::-1]}),
        ("show-recipient-among-owners", lambda o: {**o, "owners": [o["recipient"]] * 2}),
        ("show-uppercase-hex", lambda o: {**o, "ephemeral": o["ephemeral"].upper()}),
        ("show-extra-member", lambda o: {**o, "nonce": "00" * 12}),
        ("show-sender-is-recipient", lambda o: {**o, "sender": o["recipient"]}),
    ):
        obj = mutate(dict(show))
        cases.append(
            {
                "name": name,
                "check": "ShowMessage.from_obj",
                "object": obj,
                **_error(lambda obj=obj: ShowMessage.from_obj(obj)),
            }
        )
    # 7. a show whose ciphertext is altered: does not decrypt
    sh = record.shows[0]
    flipped = dataclasses.replace(
        sh, ciphertext=sh.ciphertext[:-1] + bytes([sh.ciphertext[-1] ^ 1])
    )
    rec2 = dataclasses.replace(record, shows=(flipped,))
    cases.append(
        {
            "name": "show-does-not-decrypt",
            "what": "the last byte of the tag flipped",
            "check": "open_show by the recipient; audit",
            "object": flipped.to_obj(),
            **_error(lambda: ShuffleView(spec).open_show(flipped, run.secrets[1])),
            "audit_with_it": audit_case("nodec", rec2, reveals),
        }
    )
    # 8. a well-formed show that carries a key breaking its commitment (built by hand)
    r0 = reveals[0]
    wrong = (r0.keys[3] + 1) % ORDER
    plain = r0.keys[0].to_bytes(32, "big") + r0.salts[0] + wrong.to_bytes(32, "big") + r0.salts[3]
    eph = hashlib.sha256(BAD_EPHEMERAL_INPUT).digest()
    header = sh.header()
    tr = _show_trace(eph, run.view.commitment(1).x25519_public, header, plain)
    lying = ShowMessage(
        sh.shuffle_id,
        sh.sender,
        sh.recipient,
        sh.positions,
        sh.owners,
        bytes.fromhex(tr["ephemeral_public"]),
        bytes.fromhex(tr["ciphertext"]),
    )
    fresh = ShuffleView(spec)
    for c in record.commitments:
        fresh.add_commitment(c)
    for s in record.steps:
        fresh.add_step(s)
    cases.append(
        {
            "name": "show-wrong-key",
            "what": "seat 0 shows positions 0 and 3 to seat 1, the key for 3 plus one",
            "check": "open_show by the recipient; audit",
            "object": lying.to_obj(),
            "ephemeral_private": eph.hex(),
            "ephemeral_private_is_sha256_of": BAD_EPHEMERAL_INPUT.decode(),
            "plaintext": plain.hex(),
            **_error(lambda: fresh.open_show(lying, run.secrets[1])),
            "audit_with_it": audit_case(
                "wrongkey", dataclasses.replace(record, shows=(lying,)), reveals
            ),
        }
    )
    # 9-10. steps: a repeated entry, a value that is no curve point
    view = ShuffleView(spec)
    for c in record.commitments:
        view.add_commitment(c)
    first = record.steps[0]
    dup = dataclasses.replace(first, deck=(first.deck[1], *first.deck[1:]))
    cases.append(
        {
            "name": "step-repeats-entry",
            "check": "add_step",
            "object": dup.to_obj(),
            **_error(lambda: view.check_step(dup)),
        }
    )
    x = 0
    while _is_point(x.to_bytes(32, "big")):
        x += 1
    nonpoint = dataclasses.replace(first, deck=(x.to_bytes(32, "big"), *first.deck[1:]))
    cases.append(
        {
            "name": "step-entry-not-a-point",
            "check": "add_step with check_points",
            "object": nonpoint.to_obj(),
            **_error(lambda: view.check_step(nonpoint, check_points=True)),
        }
    )
    # the audit of a record holding that step and the honest step 1 (made on the honest input):
    # step 0 is replayed first (bad-shuffle), then step 1's input check (malformed-step)
    np_steps = (nonpoint, record.steps[1])
    cases.append(
        {
            "name": "audit-step-entry-not-a-point",
            "what": "the record of step-entry-not-a-point: the clean commitments, steps [that "
            "step, the clean step 1], no releases, no shows; the honest reveals",
            "check": "audit",
            "steps": [s.to_obj() for s in np_steps],
            "audit_with_it": audit_case(
                "nonpoint", ShuffleRecord(spec, record.commitments, np_steps), reveals
            ),
        }
    )
    view.add_step(nonpoint)
    cases.append(
        {
            "name": "step-entry-not-a-point-next-shuffler",
            "check": "the next shuffler's step() on that input",
            "object": nonpoint.to_obj(),
            **_error(lambda: run.secrets[1].step(view)),
        }
    )
    # 11. malformed step objects: a field element too big, a scalar of 0 in a release
    big = {**first.to_obj(), "deck": [f"{FIELD_P:064x}", *first.to_obj()["deck"][1:]]}
    cases.append(
        {
            "name": "step-entry-not-a-field-element",
            "check": "ShuffleStep.from_obj",
            "object": big,
            **_error(lambda: ShuffleStep.from_obj(big)),
        }
    )
    zero = {**good.to_obj(), "key": "00" * 32}
    cases.append(
        {
            "name": "release-key-zero",
            "check": "KeyRelease.from_obj",
            "object": zero,
            **_error(lambda: KeyRelease.from_obj(zero)),
        }
    )
    order = {**good.to_obj(), "key": f"{ORDER:064x}"}
    cases.append(
        {
            "name": "release-key-order",
            "check": "KeyRelease.from_obj",
            "object": order,
            **_error(lambda: KeyRelease.from_obj(order)),
        }
    )
    # 12. a commitment with a weak X25519 key (the all-zero u-coordinate: small order)
    weak = dataclasses.replace(record.commitments[2], x25519_public=bytes(32))
    cases.append(
        {
            "name": "commitment-weak-x25519",
            "check": "add_commitment",
            "object": weak.to_obj(),
            **_error(lambda: ShuffleView(spec).add_commitment(weak)),
        }
    )
    # 13-15. reveals that lie
    r2 = reveals[2]
    swapped = dataclasses.replace(
        r2, permutation=(r2.permutation[1], r2.permutation[0], *r2.permutation[2:])
    )
    cases.append(
        {
            "name": "reveal-breaks-pledge",
            "what": "seat 2 reveals its permutation with the first two entries swapped",
            "check": "audit",
            "object": swapped.to_obj(),
            "audit_with_it": audit_case("pledge", record, [reveals[0], reveals[1], swapped]),
        }
    )
    k_lie = dataclasses.replace(r2, keys=(r2.keys[0] + 1, *r2.keys[1:]))
    cases.append(
        {
            "name": "reveal-key-breaks-commitment",
            "what": "seat 2 reveals its key for position 0 plus one",
            "check": "audit",
            "object": k_lie.to_obj(),
            "audit_with_it": audit_case("keylie", record, [reveals[0], reveals[1], k_lie]),
        }
    )
    cases.append(
        {
            "name": "missing-reveal",
            "what": "seat 1 reveals nothing",
            "check": "audit",
            "audit_with_it": audit_case("missing", record, {0: reveals[0], 2: reveals[2]}),
        }
    )
    cases.append(
        {
            "name": "false-accusation",
            "what": "seat 2 opened a dispute; everything is in order",
            "check": "audit with accuser 2",
            "audit_with_it": audit_case("accuse", record, reveals, accuser=2),
        }
    )

    # 16. a false shuffle: seat 1 permutes with another permutation than the pledged one
    def steer(idx: int, step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        if idx != 1:
            return step
        return dataclasses.replace(step, deck=(step.deck[1], step.deck[0], *step.deck[2:]))

    steered = _run(spec, SEEDS, tamper=steer)
    srec = steered.view.record()
    cases.append(
        {
            "name": "false-shuffle-step",
            "what": "seat 1's phase-1 output with its first two entries swapped; the later "
            "seats shuffle honestly on it",
            "check": "audit (the record holds every step; reveals are the honest ones)",
            "steps": [s.to_obj() for s in srec.steps],
            "audit_with_it": audit_case("steer", srec, [s.reveal() for s in steered.secrets]),
        }
    )
    cases.append(spot_check_gap(run))
    return cases


def spot_check_gap(run: Run) -> dict[str, Any]:
    """Seat 0 puts a*r instead of a on one entry in phase 1 and removes it again in its phase-2
    step: the final deck is the honest one, so the composed check passes; the two spot checks
    fall elsewhere (their positions come from the final deck), so the default audit accepts,
    and the thorough one names seat 0. Pins the spot-check positions (cards.md 11.3)."""
    spec, m = run.spec, run.spec.size
    honest = run.view.record()
    final = honest.steps[-1].deck
    start = int.from_bytes(hashlib.sha256(b"".join(final)).digest()[:8], "big")
    order = step_order(N)
    j_first, j_last = start % m, (start + len(order) - 1) % m
    r0 = run.secrets[0].reveal()
    r_mark = 5
    # the entry of seat 0's phase-1 output at q ends at final position f: follow the perms
    q = next(i for i in range(m) if i != j_first)
    pos = q
    for p in range(1, N):  # later permutations: phase 1 of seats 1..n-2, the merged step
        pos = run.secrets[p].reveal().permutation.index(pos)
    f = pos
    if f == j_last:  # pick another q
        q = next(i for i in range(m) if i not in (j_first, q))
        pos = q
        for p in range(1, N):
            pos = run.secrets[p].reveal().permutation.index(pos)
        f = pos
    assert f != j_last

    def tamper(idx: int, step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        if idx == 0:
            deck = list(step.deck)
            deck[q] = _mul(r_mark, deck[q])
            return dataclasses.replace(step, deck=tuple(deck))
        if idx == len(order) - 1:
            deck = list(step.deck)
            inv = pow(r0.phase1_key * r_mark % ORDER, -1, ORDER)
            deck[f] = _mul(r0.keys[f] * inv % ORDER, deck_in[f])
            return dataclasses.replace(step, deck=tuple(deck))
        return step

    cheat = _run(spec, SEEDS, tamper=tamper)
    rec = cheat.view.record()
    assert rec.steps[-1].deck == final
    revs = [s.reveal() for s in cheat.secrets]
    fast = audit(rec, revs)
    thorough = audit(rec, revs, thorough=True)
    assert fast.ok and not thorough.ok
    return {
        "name": "spot-check-gap",
        "what": f"seat 0 multiplies entry {q} of its phase-1 output by {r_mark} more and divides "
        f"it out again at final position {f} in its phase-2 step; the final deck is the honest "
        "one, and the spot checks fall at "
        f"{j_first} (step 0) and {j_last} (step {len(order) - 1})",
        "check": "audit, default and thorough",
        "steps": [s.to_obj() for s in rec.steps],
        "spot_check_start": str(start),
        "audit_with_it": _audit_obj(fast),
        "thorough_audit": _audit_obj(thorough),
    }


def vectors() -> dict[str, Any]:
    main, run = main_shuffle()
    hidden = hidden_reshuffle(run)
    # the bad cases start from the clean record as the file gives it (shuffle.record)
    assert run.view.record().to_obj() == main["record"]
    return {
        "description": "p2puno card layer v1 (protocol/cards.md): card points, scalar "
        "arithmetic, one joint shuffle of 10 cards among 3 seats with every step's scalars, "
        "a deal, a reveal to all, a show to one with every KDF/AEAD input, the end reveal and "
        "the audit; a hidden reshuffle (phase 0); and bad objects with the error or audit "
        "verdict each must get. TEST ONLY: every secret comes from a public seed the file "
        "gives (DeterministicRng, cards.md 12; show-wrong-key's ephemeral key is SHA-256 of a "
        "public string), so anyone can recompute it. Scalars, points, salts and "
        "keys are 32/16-byte big-endian lowercase hex; large integers written as decimal "
        "strings where marked. Made by protocol/tools/gen_card_vectors.py.",
        "constants": constants(),
        "card_points": card_points(),
        "rng": rng_vectors(),
        "scalars": scalar_vectors(),
        "game_id": GAME_ID.hex(),
        "shuffle": main,
        "hidden_reshuffle": hidden,
        "bad": bad_cases(run),
    }


def render() -> str:
    return json.dumps(vectors(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text("utf-8") != text:
            print(f"stale {OUT}: run protocol/tools/gen_card_vectors.py", file=sys.stderr)
            return 1
        print(f"{OUT.name} is up to date")
        return 0
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
