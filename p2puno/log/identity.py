"""Player identities: an Ed25519 signing key and an X25519 key for private messages.

Public halves travel as lowercase hex of their raw 32 bytes. Secret halves never appear in
``repr``/``str`` or in any exception message; the only way out is :meth:`Identity.export_secrets`,
used by the 0600 secrets file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2puno.wire import EncodingError, JSONValue, b2h, h2b

__all__ = ["KEY_SIZE", "Identity", "Player"]

KEY_SIZE: Final = 32
_RAW = (serialization.Encoding.Raw, serialization.PublicFormat.Raw)
_TEST_SEED_DOMAIN: Final = b"p2puno/v1/test-only-seed\x00"
MAX_NAME_CHARS: Final = 32


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
        return cls(name=name, sign_pk=sign_pk, dh_pk=dh_pk)

    def verifier(self) -> Ed25519PublicKey:
        """The pyca public key object for signature checks."""
        return Ed25519PublicKey.from_public_bytes(self.sign_pk)
