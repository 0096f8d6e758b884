"""P-256 as a commutative cipher through pyca's x-only ECDH.

A card value is the 32-byte x-coordinate of a P-256 point. Encrypting ``x`` with scalar ``k`` is
``x(k*P)``, computed as ECDH between the private key ``k`` and the point decompressed from
``b"\\x02" + x``. ``x(k*P) == x(k*(-P))``, so the sign of ``y`` never matters and layers commute.
pyca exposes no raw point arithmetic, hence this route (pyca/cryptography#8370).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from .rng import Rng

CURVE = ec.SECP256R1()
FIELD_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
_ECDH = ec.ECDH()
_CARD_DOMAIN = b"p2puno/v1/card-point\0"
MAX_CARD_ID = 0xFFFF


class InvalidPointError(Exception):
    """Entry ``index`` of an input is not the x-coordinate of a P-256 point."""

    def __init__(self, index: int) -> None:
        super().__init__(f"entry {index} is not a curve point")
        self.index = index


def _public_api_load(curve: ec.EllipticCurve, data: bytes) -> ec.EllipticCurvePublicKey:
    return ec.EllipticCurvePublicKey.from_encoded_point(curve, data)


_load_point: Callable[[ec.EllipticCurve, bytes], ec.EllipticCurvePublicKey] = _public_api_load
_derive: Callable[[int, ec.EllipticCurve], ec.EllipticCurvePrivateKey] = ec.derive_private_key


def _use_rust_entry_points() -> None:
    """Call pyca's Rust functions behind ``from_encoded_point``/``derive_private_key`` directly.

    They skip only argument checks that this module already guarantees (bytes of the right
    form, a positive int) and save a few microseconds per layer. A self-check against the public
    API guards against another pyca version; on any doubt the public API stays in use.
    """
    global _load_point, _derive
    try:
        from cryptography.hazmat.bindings._rust import openssl as rust

        load = rust.ec.from_public_bytes
        derive = rust.ec.derive_private_key
        x = (
            derive(7, CURVE)
            .public_key()
            .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)
        )
        want = ec.derive_private_key(11, CURVE).exchange(_ECDH, _public_api_load(CURVE, x))
        if derive(11, CURVE).exchange(_ECDH, load(CURVE, x)) != want:
            return
    except Exception:  # pragma: no cover - another pyca layout: keep the public API
        return
    _load_point, _derive = load, derive


_use_rust_entry_points()


def scalar_key(k: int) -> ec.EllipticCurvePrivateKey:
    return _derive(k, CURVE)


def random_scalar(rng: Rng) -> int:
    """A uniform scalar in ``[1, ORDER)``."""
    return 1 + rng.randbelow(ORDER - 1)


def inverse(k: int) -> int:
    return pow(k, -1, ORDER)


def is_point(x: bytes) -> bool:
    if len(x) != 32 or int.from_bytes(x, "big") >= FIELD_P:
        return False
    try:
        _public_api_load(CURVE, b"\x02" + x)
    except ValueError:
        return False
    return True


def _first_invalid(xs: Sequence[bytes], err: ValueError) -> InvalidPointError:
    bad = next((i for i, x in enumerate(xs) if not is_point(x)), None)
    if bad is None:
        raise err  # not an input problem
    return InvalidPointError(bad)


# The 108 card points are loaded again and again (every deck's first shuffle step, every
# audit); loading one (a point decompression) costs about a third of a layer.
_LOADED_CARDS: dict[bytes, ec.EllipticCurvePublicKey] = {}


def encrypt_all(k: int, xs: Sequence[bytes]) -> list[bytes]:
    """``[x(k*P) for P in xs]`` with one key object; raises :class:`InvalidPointError`."""
    exchange = _derive(k, CURVE).exchange
    load, curve, ecdh, cards = _load_point, CURVE, _ECDH, _LOADED_CARDS
    try:
        return [exchange(ecdh, cards.get(x) or load(curve, b"\x02" + x)) for x in xs]
    except ValueError as err:
        raise _first_invalid(xs, err) from None


def encrypt_each(ks: Sequence[int], xs: Sequence[bytes]) -> list[bytes]:
    """``[x(k_i*P_i)]``, one scalar per entry; raises :class:`InvalidPointError`."""
    if len(ks) != len(xs):
        raise ValueError("one scalar per entry")
    load, derive, curve, ecdh, cards = _load_point, _derive, CURVE, _ECDH, _LOADED_CARDS
    try:
        return [
            derive(k, curve).exchange(ecdh, cards.get(x) or load(curve, b"\x02" + x))
            for k, x in zip(ks, xs, strict=True)
        ]
    except ValueError as err:
        raise _first_invalid(xs, err) from None


def encrypt_one(k: int, x: bytes) -> bytes:
    try:
        point = _load_point(CURVE, b"\x02" + x)
    except ValueError:
        raise InvalidPointError(0) from None
    return _derive(k, CURVE).exchange(_ECDH, point)


@functools.lru_cache(maxsize=4096)
def card_point(card: int) -> bytes:
    """The x-coordinate of card ``card``'s own point (hash-to-curve by trial, cached).

    Every card id gets a distinct point whose discrete log nobody knows.
    """
    if type(card) is not int or not 0 <= card <= MAX_CARD_ID:
        raise ValueError("card id out of range")
    counter = 0
    while True:
        x = hashlib.sha256(
            _CARD_DOMAIN + card.to_bytes(2, "big") + counter.to_bytes(4, "big")
        ).digest()
        if is_point(x):
            _LOADED_CARDS[x] = _load_point(CURVE, b"\x02" + x)
            return x
        counter += 1


def card_table(cards: Sequence[int]) -> dict[bytes, int]:
    """Point x-coordinate -> card id, for the given cards."""
    return {card_point(c): c for c in cards}
