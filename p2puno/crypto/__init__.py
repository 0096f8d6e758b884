"""p2puno.crypto: the mental-poker card layer.

The deck is shuffled and dealt by all players together so that no node, the host included,
learns the undealt deck or another player's hand. Commutative (SRA / Pohlig-Hellman style)
encryption on P-256 through pyca's x-only ECDH; two-phase shuffle; per-position keys with
hiding, binding commitments; show-to-one messages with X25519 + HKDF-SHA256 +
ChaCha20Poly1305. See docs/security.md for the scheme, threat model and limits.

Sans-IO: plain objects in, plain objects out; no sockets, no clock; randomness only from an
injected :class:`Rng`. Depends on nothing else in p2puno.

Public API
----------
Parameters and messages (frozen dataclasses; ``to_obj()`` / strict ``from_obj()`` /
``canonical_bytes()`` / ``from_bytes()``; secret fields are kept out of ``repr``):

* :class:`ShuffleSpec`: shuffle id (32 bytes), number of players (2..10), public card ids,
  and for a hidden reshuffle the parent shuffle's id and still-hidden positions.
* :class:`KeyCommitment`: a player's commitments to its per-position keys + X25519 public key.
* :class:`ShuffleStep`: one player's output deck for phase 0, 1 or 2 (order: :func:`step_order`).
* :class:`KeyRelease`: one per-position key and its salt (opens one commitment).
* :class:`ShowMessage`: per-position keys (the sender's, or passed on), encrypted to one player.
* :class:`SecretReveal`: all of a player's secrets for a shuffle (round end, dispute, storage).
* :class:`ShuffleRecord`: the public transcript of one shuffle.

Actors:

* :class:`ShuffleSecrets`: one player's secrets for one shuffle (``generate``,
  ``from_reveal``, ``commitment``, ``step``, ``release``, ``show``, ``reveal``).
* :class:`ShuffleView`: one node's view of a shuffle; checks each message on arrival
  (``add_commitment``, ``add_step``, ``add_release``, ``add_show``), opens positions
  (``open`` for a card dealt to you, ``reveal`` for a card shown to all, ``open_show``),
  keeps keys shown to it (``shown_release``) and gives the public ``record()``.
* :func:`audit`: verify a whole shuffle from its record and every player's reveal; returns an
  :class:`Audit` (``faults``, ``verdict``, ``faces``). Deterministic; takes an executor to
  use several cores, and a :class:`Parent` for a hidden reshuffle.

Hidden reshuffle (e.g. a Wild Draw Four turned up at the start goes back into the undealt
deck): a :class:`ShuffleSpec` with ``parent`` and ``hidden`` positions; players pass their
parent :class:`ShuffleSecrets` to ``generate``, nodes their parent :class:`ShuffleView`.

Cards: :func:`card_point` (a card id's own point), :func:`card_of_point`.
Randomness: :class:`Rng` (protocol), :class:`SystemRng` (default), :class:`DeterministicRng`
(tests and vectors only). Errors: :class:`CryptoError`, :class:`CryptoFormatError`,
:class:`CryptoStateError`, :class:`VerificationError` (``.verdict``); :class:`Verdict`,
:class:`Fault`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._group import card_point, card_table
from .audit import Audit, Parent, audit
from .errors import (
    CryptoError,
    CryptoFormatError,
    CryptoStateError,
    Fault,
    Verdict,
    VerificationError,
)
from .messages import (
    MAX_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    KeyCommitment,
    KeyRelease,
    SecretReveal,
    ShowMessage,
    ShuffleRecord,
    ShuffleSpec,
    ShuffleStep,
    step_order,
)
from .rng import DeterministicRng, Rng, SystemRng
from .shuffle import ShuffleSecrets, ShuffleView

__all__ = [
    "MAX_CARDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Audit",
    "CryptoError",
    "CryptoFormatError",
    "CryptoStateError",
    "DeterministicRng",
    "Fault",
    "KeyCommitment",
    "KeyRelease",
    "Parent",
    "Rng",
    "SecretReveal",
    "ShowMessage",
    "ShuffleRecord",
    "ShuffleSecrets",
    "ShuffleSpec",
    "ShuffleStep",
    "ShuffleView",
    "SystemRng",
    "Verdict",
    "VerificationError",
    "audit",
    "card_of_point",
    "card_point",
    "step_order",
]


def card_of_point(x: bytes, cards: Sequence[int] = range(108)) -> int | None:
    """The card id among ``cards`` whose point has x-coordinate ``x``, or ``None``."""
    return card_table(tuple(cards)).get(x)
