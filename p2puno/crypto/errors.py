"""Exceptions, faults and verdicts of the card layer.

No exception message or ``repr`` here ever carries a secret: details name players, positions and
step numbers, which are public.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CryptoError",
    "CryptoFormatError",
    "CryptoStateError",
    "Fault",
    "Verdict",
    "VerificationError",
]


class CryptoError(Exception):
    """Base class of every error this layer raises."""


class CryptoFormatError(CryptoError, ValueError):
    """A message or transcript object is malformed (wrong type, length, range, encoding)."""


class CryptoStateError(CryptoError):
    """The API was used out of order (e.g. opening a position before its keys arrived)."""


class Fault(enum.Enum):
    """Why a player is blamed. The value is the stable name used in logs."""

    MALFORMED_MESSAGE = "malformed-message"
    """A commitment or step does not fit the shuffle (wrong player, order or size)."""
    MALFORMED_STEP = "malformed-step"
    """A shuffle step holds a duplicate entry or a value that is not a curve point."""
    BAD_SHUFFLE = "bad-shuffle"
    """A shuffle step is not what the author's revealed secrets produce from its input."""
    KEY_COMMITMENT = "key-commitment"
    """A released per-position key does not open its owner's commitment."""
    BAD_REVEAL = "bad-reveal"
    """End-of-round secrets contradict the author's own commitments or are malformed."""
    BAD_SHOW = "bad-show"
    """A show-to-one message does not decrypt, or carries keys that break commitments."""
    MISSING_REVEAL = "missing-reveal"
    """A player did not reveal its secrets when the round ended or a dispute was opened."""
    FALSE_ACCUSATION = "false-accusation"
    """A dispute was raised but the full transcript and secrets show no fault."""


@dataclass(frozen=True)
class Verdict:
    """A deterministic finding: ``player`` (seat index) is at fault for ``fault``.

    ``detail`` is a short public explanation (step, position), never a secret.
    """

    player: int
    fault: Fault
    detail: str

    def to_obj(self) -> dict[str, Any]:
        return {"player": self.player, "fault": self.fault.value, "detail": self.detail}

    def canonical_bytes(self) -> bytes:
        """Sorted-key compact JSON of :meth:`to_obj`, UTF-8 (the form the session signs)."""
        import json

        return json.dumps(
            self.to_obj(), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode()

    @classmethod
    def from_obj(cls, obj: object) -> Verdict:
        from ._codec import get_int, get_str, want_dict

        d = want_dict(obj, {"player", "fault", "detail"})
        try:
            fault = Fault(get_str(d, "fault", 64))
        except ValueError:
            raise CryptoFormatError("verdict: unknown fault") from None
        return cls(get_int(d, "player", 0, 9), fault, get_str(d, "detail", 512))


class VerificationError(CryptoError):
    """A check failed.

    ``verdict`` is set when the public transcript alone proves who is at fault (a key that breaks
    its commitment, a malformed step); it is ``None`` when only a dispute (everyone reveals, then
    :func:`p2puno.crypto.audit`) can tell, e.g. a dealt card that decrypts to no card.
    """

    def __init__(self, detail: str, verdict: Verdict | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.verdict = verdict
