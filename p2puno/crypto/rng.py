"""Randomness sources. The layer draws randomness only from an :class:`Rng` passed in."""

from __future__ import annotations

import hashlib
import secrets
from typing import Protocol, runtime_checkable

__all__ = ["DeterministicRng", "Rng", "SystemRng"]


@runtime_checkable
class Rng(Protocol):
    """What the layer needs from a randomness source."""

    def token_bytes(self, n: int) -> bytes:
        """``n`` uniformly random bytes."""
        ...

    def randbelow(self, n: int) -> int:
        """A uniformly random integer in ``[0, n)``, ``n >= 1``."""
        ...


class SystemRng:
    """The operating system's CSPRNG (:mod:`secrets`). The default everywhere."""

    def token_bytes(self, n: int) -> bytes:
        return secrets.token_bytes(n)

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)

    def __repr__(self) -> str:
        return "SystemRng()"


class DeterministicRng:
    """FOR TESTS AND TEST VECTORS ONLY: SHA-256 in counter mode from a seed.

    Anyone who knows the seed knows every key drawn from it. Never use it in a real game; it
    exists so a whole transcript can be reproduced byte for byte.
    """

    def __init__(self, seed: bytes) -> None:
        self._key = hashlib.sha256(b"p2puno/v1/test-only-rng\0" + seed).digest()
        self._counter = 0
        self._buf = b""

    def token_bytes(self, n: int) -> bytes:
        if n < 0:
            raise ValueError("n must be >= 0")
        chunks = [self._buf]
        have = len(self._buf)
        while have < n:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            chunks.append(block)
            have += len(block)
        data = b"".join(chunks)
        self._buf = data[n:]
        return data[:n]

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError("n must be >= 1")
        bits = (n - 1).bit_length()
        if bits == 0:
            return 0
        nbytes = (bits + 7) // 8
        while True:
            r = int.from_bytes(self.token_bytes(nbytes), "big") >> (8 * nbytes - bits)
            if r < n:
                return r

    def __repr__(self) -> str:
        return "DeterministicRng(<test only>)"
