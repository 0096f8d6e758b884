"""Player identities: an Ed25519 signing key and an X25519 key for private messages.

Public halves travel as lowercase hex of their raw 32 bytes. Secret halves never appear in
``repr``/``str`` or in any exception message; the only way out is :meth:`Identity.export_secrets`,
used by the 0600 secrets file.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Final

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2puno.wire import EncodingError, JSONValue, b2h, h2b

__all__ = ["KEY_SIZE", "Identity", "Player", "weak_ed25519"]

KEY_SIZE: Final = 32
_RAW = (serialization.Encoding.Raw, serialization.PublicFormat.Raw)
_TEST_SEED_DOMAIN: Final = b"p2puno/v1/test-only-seed\x00"
MAX_NAME_CHARS: Final = 32


# Ed25519's curve (RFC 8032 5.1): -x^2 + y^2 = 1 + d x^2 y^2 over GF(p); L the order of the base
_P: Final = 2**255 - 19
_D: Final = -121665 * pow(121666, -1, _P) % _P
_L: Final = 2**252 + 27742317777372353535851937790883648493
_SQRT_M1: Final = pow(2, (_P - 1) // 4, _P)
_Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z


def _add(a: _Point, b: _Point) -> _Point:  # (RFC 8032 5.1.4)
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % _P
    bb = (y1 + x1) * (y2 + x2) % _P
    cc = 2 * t1 * t2 * _D % _P
    dd = 2 * z1 * z2 % _P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


@functools.lru_cache(maxsize=256)
def weak_ed25519(public: bytes) -> str | None:
    """Why ``public`` may not be a seat's signing key, or None if it may.

    A key must be the canonical encoding of a point of the prime-order group other than the
    neutral point (RFC 8032 5.1.3, and [L]A the neutral point). A point of small order signs
    for anyone: with the neutral point as its key, the signature (R = the neutral point,
    S = 0) verifies over every message, and OpenSSL accepts it (helper-31 forged a seat's
    entries, and proof of its equivocation, with no secret). A mixed-order point is no key a
    generated one can be. Honest keys (A = aB) always pass. About 3 ms, once per key (cached):
    a genesis, a handshake."""
    if len(public) != KEY_SIZE:
        return f"a signing key is {KEY_SIZE} bytes"
    y = int.from_bytes(public, "little") & ((1 << 255) - 1)
    sign = public[31] >> 7
    if y >= _P:
        return "the signing key's encoding is not canonical"
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if v * x * x % _P != u:
        x = x * _SQRT_M1 % _P
        if v * x * x % _P != u:
            return "the signing key is not a point of the curve"
    if x == 0 and sign:
        return "the signing key's encoding is not canonical"
    if x == 0 and y == 1:
        return "the signing key is the neutral point (anyone could sign for it)"
    if x & 1 != sign:
        x = _P - x
    point: _Point = (x, y, 1, x * y % _P)
    acc: _Point = (0, 1, 1, 0)  # the neutral point
    for bit in bin(_L)[2:]:
        acc = _add(acc, acc)
        if bit == "1":
            acc = _add(acc, point)
    if acc[0] % _P != 0 or (acc[1] - acc[2]) % _P != 0:
        return "the signing key is of small order (anyone could sign for it)"
    return None


def _public_raw(key: Ed25519PrivateKey | X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(*_RAW)


def _private_raw(key: Ed25519PrivateKey | X25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )


class Identity:
    """A node's own keys. Holds secrets: never printed, never in an exception message."""

    __slots__ = ("_dh", "_sign", "dh_pk", "sign_pk")

    def __init__(self, sign_key: Ed25519PrivateKey, dh_key: X25519PrivateKey) -> None:
        self._sign = sign_key
        self._dh = dh_key
        self.sign_pk: bytes = _public_raw(sign_key)
        self.dh_pk: bytes = _public_raw(dh_key)

    @classmethod
    def generate(cls) -> Identity:
        """Fresh random keys (the normal way)."""
        return cls(Ed25519PrivateKey.generate(), X25519PrivateKey.generate())

    @classmethod
    def from_secret_bytes(cls, sign_sk: bytes, dh_sk: bytes) -> Identity:
        """Rebuild from raw 32-byte private keys (the secrets file)."""
        if len(sign_sk) != KEY_SIZE or len(dh_sk) != KEY_SIZE:
            raise ValueError("private keys must be 32 bytes each")
        return cls(
            Ed25519PrivateKey.from_private_bytes(sign_sk),
            X25519PrivateKey.from_private_bytes(dh_sk),
        )

    @classmethod
    def from_test_seed(cls, seed: bytes) -> Identity:
        """TEST ONLY: deterministic keys from a public seed (protocol vectors, tests, bench).

        Anyone who knows the seed has the keys; never use for a real game.
        """
        sign_sk = hashlib.sha256(_TEST_SEED_DOMAIN + b"sign\x00" + seed).digest()
        dh_sk = hashlib.sha256(_TEST_SEED_DOMAIN + b"dh\x00" + seed).digest()
        return cls.from_secret_bytes(sign_sk, dh_sk)

    def sign(self, message: bytes) -> bytes:
        """Ed25519 signature (64 bytes) over ``message`` (already domain-separated)."""
        return self._sign.sign(message)

    @property
    def dh_private_key(self) -> X25519PrivateKey:
        """The X25519 private key object, for the crypto layer's private messages."""
        return self._dh

    def export_secrets(self) -> dict[str, str]:
        """The raw private keys as hex. Only for the 0600 secrets file: never print this."""
        return {"sign_sk": b2h(_private_raw(self._sign)), "dh_sk": b2h(_private_raw(self._dh))}

    def player(self, name: str) -> Player:
        """The public record of this identity for a roster."""
        return Player(name=name, sign_pk=self.sign_pk, dh_pk=self.dh_pk)

    def __repr__(self) -> str:
        return f"Identity(sign_pk={self.sign_pk.hex()[:16]}..., <secrets hidden>)"

    __str__ = __repr__

    def __reduce__(self) -> str:  # no accidental pickling of secrets
        raise TypeError("Identity holds secrets and cannot be pickled")


@dataclass(frozen=True, slots=True)
class Player:
    """One seat of the roster: display name and public keys (raw bytes)."""

    name: str
    sign_pk: bytes
    dh_pk: bytes

    def to_obj(self) -> dict[str, JSONValue]:
        return {"name": self.name, "sign": b2h(self.sign_pk), "dh": b2h(self.dh_pk)}

    @classmethod
    def from_obj(cls, obj: JSONValue) -> Player:
        """Strict parse; raises ValueError with a readable reason."""
        if type(obj) is not dict or set(obj) != {"name", "sign", "dh"}:
            raise ValueError('a player must be an object with exactly "name", "sign", "dh"')
        name = obj["name"]
        if type(name) is not str or not 1 <= len(name) <= MAX_NAME_CHARS:
            raise ValueError(f"player name must be a string of 1..{MAX_NAME_CHARS} characters")
        if not name.isprintable():
            raise ValueError("player name must be printable")
        try:
            sign_pk = h2b(obj["sign"], KEY_SIZE)
            dh_pk = h2b(obj["dh"], KEY_SIZE)
        except EncodingError as e:
            raise ValueError(f"player key: {e}") from None
        weak = weak_ed25519(sign_pk)
        if weak is not None:
            raise ValueError(f'player "{name}": {weak}')
        return cls(name=name, sign_pk=sign_pk, dh_pk=dh_pk)

    def verifier(self) -> Ed25519PublicKey:
        """The pyca public key object for signature checks."""
        return Ed25519PublicKey.from_public_bytes(self.sign_pk)
