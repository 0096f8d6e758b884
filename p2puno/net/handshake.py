"""The link handshake and record layer (sans-IO: bytes in, bytes out; no clock, no sockets).

A SIGMA-I style three-message exchange, built only from pyca ``cryptography`` primitives:

    msg1  I -> R   hello: version, the context asked for (or none), ephemeral e_I, challenge n_I
    msg2  R -> I   e_R, n_R, and under a handshake key: context, R's identity, R's signature
    msg3  I -> R   under the other handshake key: I's identity, I's signature

Each side signs, with its roster identity (Ed25519), a transcript covering the protocol
version, the 32-byte context (game id or lobby id), both ephemerals, both challenges and its
own role (the initiator's also covers the responder's identity and signature), so a signature
cannot be replayed into another connection, game or role. Identities travel encrypted under
keys from the X25519 exchange, so a passive observer does not learn who connects, and the
initiator reveals its identity only after it has checked the responder's. The result is two
directional record ciphers (ChaCha20-Poly1305 with an implicit 64-bit counter), the peer's
signing key, the context and a channel-binding value. Byte-level spec, key schedule and
rationale: ``protocol/transport.md``; vectors: ``protocol/vectors/transport.json``.

Randomness comes from an injected ``rng(n) -> bytes`` (``os.urandom`` by default) so a whole
handshake can be reproduced from seeds. Traffic and handshake keys, and the identity's private
key, never appear in a ``repr``, ``str`` or exception message.
"""

from __future__ import annotations

import enum
import hashlib
import os
from collections.abc import Callable
from typing import Final, Protocol

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

from p2puno.log.identity import weak_ed25519
from p2puno.net.frames import DEFAULT_MAX_FRAME, TransportError, frame_header

__all__ = [
    "ALERT_SIZE",
    "CONTEXT_SIZE",
    "MAGIC",
    "MAX_HANDSHAKE_FRAME",
    "MSG1_SIZE",
    "MSG2_SIZE",
    "MSG3_SIZE",
    "TAG_SIZE",
    "VERSION",
    "Alert",
    "HandshakeError",
    "HandshakeErrorCode",
    "HandshakeResult",
    "Initiator",
    "RecordError",
    "RecordErrorCode",
    "RecordReceiver",
    "RecordSender",
    "Responder",
    "Rng",
    "Signer",
    "encode_alert",
]

VERSION: Final = 1
MAGIC: Final = b"P2PU"
_HDR: Final = 6  # magic, version, message number
KEY_SIZE: Final = 32
CONTEXT_SIZE: Final = 32
CHALLENGE_SIZE: Final = 32
SIG_SIZE: Final = 64
TAG_SIZE: Final = 16
MSG1_SIZE: Final = _HDR + 1 + CONTEXT_SIZE + KEY_SIZE + CHALLENGE_SIZE  # 103
MSG2_CLEAR: Final = _HDR + KEY_SIZE + CHALLENGE_SIZE  # 70
MSG2_SIZE: Final = MSG2_CLEAR + CONTEXT_SIZE + KEY_SIZE + SIG_SIZE + TAG_SIZE  # 214
MSG3_SIZE: Final = _HDR + KEY_SIZE + SIG_SIZE + TAG_SIZE  # 118
ALERT_SIZE: Final = _HDR + 1
MAX_HANDSHAKE_FRAME: Final = 256  # the frame cap while handshaking (the largest is 214)

_MSG1, _MSG2, _MSG3, _ALERT = 1, 2, 3, 0xFF
_FLAG_CONTEXT: Final = 0x01
_ZERO_NONCE: Final = bytes(12)
_NONCE_PREFIX: Final = bytes(4)
RECORD_LIMIT: Final = 2**64  # records per direction: the 64-bit counter never wraps

# Every label is domain-separated under p2puno/v1/link/ (protocol/transport.md, section 4).
_L: Final = b"p2puno/v1/link/"
LABEL_H1: Final = _L + b"h1\x00"
LABEL_H2: Final = _L + b"h2\x00"
LABEL_H3: Final = _L + b"h3\x00"
LABEL_H4: Final = _L + b"h4\x00"
LABEL_SIG_R: Final = _L + b"sig/responder\x00"
LABEL_SIG_I: Final = _L + b"sig/initiator\x00"
LABEL_KEY_HS_R: Final = _L + b"key/hs-responder"
LABEL_KEY_HS_I: Final = _L + b"key/hs-initiator"
LABEL_KEY_I2R: Final = _L + b"key/initiator-to-responder\x00"
LABEL_KEY_R2I: Final = _L + b"key/responder-to-initiator\x00"
LABEL_BINDING: Final = _L + b"binding\x00"

Rng = Callable[[int], bytes]


class Signer(Protocol):
    """What the handshake needs of an identity (``p2puno.log.Identity`` is one)."""

    @property
    def sign_pk(self) -> bytes: ...

    def sign(self, message: bytes, /) -> bytes: ...


class HandshakeErrorCode(enum.StrEnum):
    BAD_VERSION = "bad_version"  # another protocol version
    OTHER_CONTEXT = "other_context"  # a handshake for another game or lobby
    BAD_SIGNATURE = "bad_signature"  # the peer's signature does not verify over this transcript
    AUTH_FAILED = "auth_failed"  # an encrypted part does not decrypt: tampered or replayed
    UNEXPECTED_IDENTITY = "unexpected_identity"  # not the key asked for / not on the allow list
    WEAK_KEY = "weak_key"  # an ephemeral giving an all-zero secret, or a signing key of small order
    MALFORMED = "malformed"  # not a handshake message of this protocol, wrong size, truncated
    OUT_OF_ORDER = "out_of_order"  # the wrong message now, or a call after the end or a failure
    BUSY = "busy"  # (alert only) the responder has too many handshakes in progress


class HandshakeError(TransportError):
    """A failed handshake. Fatal: the state machine refuses everything after it."""

    def __init__(self, code: HandshakeErrorCode, message: str) -> None:
        super().__init__(code, message)


class RecordErrorCode(enum.StrEnum):
    AUTH_FAILED = "auth_failed"  # tampered, replayed, dropped, reordered, or not a record
    EXHAUSTED = "exhausted"  # the 64-bit record counter is used up
    TOO_LARGE = "too_large"  # (sender) the record would exceed the frame cap


class RecordError(TransportError):
    """A record that cannot be sealed or opened. ``auth_failed`` is fatal for the receiver."""

    def __init__(self, code: RecordErrorCode, message: str) -> None:
        super().__init__(code, message)


class Alert(enum.IntEnum):
    """Plaintext refusals a responder may send instead of msg2 (unauthenticated, advisory)."""

    BAD_VERSION = 1
    OTHER_CONTEXT = 2
    BUSY = 3
    MALFORMED = 4


_ALERT_CODES: Final = {
    Alert.BAD_VERSION: HandshakeErrorCode.BAD_VERSION,
    Alert.OTHER_CONTEXT: HandshakeErrorCode.OTHER_CONTEXT,
    Alert.BUSY: HandshakeErrorCode.BUSY,
    Alert.MALFORMED: HandshakeErrorCode.MALFORMED,
}
_CODE_ALERTS: Final[dict[str, Alert]] = {v.value: k for k, v in _ALERT_CODES.items()}


def encode_alert(code: HandshakeErrorCode | str) -> bytes | None:
    """The alert a responder sends for a refusal of msg1 with this code, or None if none."""
    alert = _CODE_ALERTS.get(str(code))
    if alert is None:
        return None
    return MAGIC + bytes((VERSION, _ALERT, alert))


# ---------------------------------------------------------------- primitives


def _sha(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.digest()


def _extract(salt: bytes, ikm: bytes) -> bytes:
    """HKDF-Extract (RFC 5869) with SHA-256: HMAC(salt, ikm)."""
    mac = hmac.HMAC(salt, hashes.SHA256())
    mac.update(ikm)
    return mac.finalize()


def _expand(prk: bytes, info: bytes) -> bytes:
    return HKDFExpand(algorithm=hashes.SHA256(), length=32, info=info).derive(prk)


def _fail(code: HandshakeErrorCode, message: str) -> HandshakeError:
    return HandshakeError(code, message)


def _dh(private: X25519PrivateKey, peer_public: bytes) -> bytes:
    try:
        return private.exchange(X25519PublicKey.from_public_bytes(peer_public))
    except ValueError:
        raise _fail(
            HandshakeErrorCode.WEAK_KEY, "the peer's ephemeral gives an all-zero secret"
        ) from None


def _verify(sign_pk: bytes, signature: bytes, message: bytes, who: str) -> None:
    weak = weak_ed25519(sign_pk)
    if weak is not None:  # (a key of small order verifies a forged signature: helper-31)
        raise _fail(HandshakeErrorCode.WEAK_KEY, f"the {who}'s key: {weak}")
    try:
        Ed25519PublicKey.from_public_bytes(sign_pk).verify(signature, message)
    except (InvalidSignature, ValueError):
        raise _fail(
            HandshakeErrorCode.BAD_SIGNATURE,
            f"the {who}'s signature does not verify over this handshake "
            f"(key {sign_pk.hex()[:16]}...)",
        ) from None


def _draw(rng: Rng, n: int) -> bytes:
    data = rng(n)
    if type(data) is not bytes or len(data) != n:
        raise ValueError(f"rng({n}) must return {n} bytes")
    return data


def _header(data: bytes, expect: int, size: int, *, alerts: bool = False) -> None:
    """Check a handshake message's header and size; an alert becomes its HandshakeError."""
    if len(data) < _HDR or data[:4] != MAGIC:
        raise _fail(HandshakeErrorCode.MALFORMED, "not a p2puno link handshake message")
    number = data[5]
    if number == _ALERT:
        if not alerts:
            raise _fail(HandshakeErrorCode.OUT_OF_ORDER, "an alert where a handshake was due")
        if len(data) != ALERT_SIZE or data[6] not in _ALERT_CODES:
            raise _fail(HandshakeErrorCode.MALFORMED, "a malformed alert")
        code = _ALERT_CODES[Alert(data[6])]
        raise _fail(code, f"the responder refused: {code} (unauthenticated alert)")
    if data[4] != VERSION:
        raise _fail(
            HandshakeErrorCode.BAD_VERSION,
            f"protocol version {data[4]}, this node speaks {VERSION}",
        )
    if number not in (_MSG1, _MSG2, _MSG3):
        raise _fail(HandshakeErrorCode.MALFORMED, f"handshake message number {number}")
    if number != expect:
        raise _fail(
            HandshakeErrorCode.OUT_OF_ORDER,
            f"handshake message {number} where message {expect} was due",
        )
    if len(data) != size:
        what = "truncated" if len(data) < size else "trailing bytes"
        raise _fail(
            HandshakeErrorCode.MALFORMED,
            f"message {number} is {len(data)} bytes, not {size} ({what})",
        )


def _msg_header(number: int) -> bytes:
    return MAGIC + bytes((VERSION, number))


class _Schedule:
    """Keys of one handshake from the shared secret and transcript hash H2. Holds secrets."""

    __slots__ = ("_prk", "hs_i", "hs_r")

    def __init__(self, dh: bytes, h2: bytes) -> None:
        self._prk = _extract(h2, dh)
        self.hs_r = ChaCha20Poly1305(_expand(self._prk, LABEL_KEY_HS_R))
        self.hs_i = ChaCha20Poly1305(_expand(self._prk, LABEL_KEY_HS_I))

    def traffic(self, h4: bytes) -> tuple[bytes, bytes, bytes]:
        """(initiator-to-responder key, responder-to-initiator key, channel binding)."""
        return (
            _expand(self._prk, LABEL_KEY_I2R + h4),
            _expand(self._prk, LABEL_KEY_R2I + h4),
            _expand(self._prk, LABEL_BINDING + h4),
        )

    def __repr__(self) -> str:
        return "_Schedule(<secrets hidden>)"


def _responder_signed(h2: bytes, context: bytes, pk_r: bytes) -> bytes:
    return LABEL_SIG_R + h2 + context + pk_r


def _initiator_signed(h2: bytes, context: bytes, pk_r: bytes, sig_r: bytes, pk_i: bytes) -> bytes:
    return LABEL_SIG_I + h2 + context + pk_r + sig_r + pk_i


# ---------------------------------------------------------------- records


def _nonce(counter: int) -> bytes:
    return _NONCE_PREFIX + counter.to_bytes(8, "big")


class RecordSender:
    """Seals messages into frames for one direction: ChaCha20-Poly1305, nonce = 32 zero bits
    and the 64-bit record counter, AAD = the frame's 4-byte length header. Holds a key."""

    __slots__ = ("_aead", "_counter", "limit", "max_frame")

    def __init__(
        self, key: bytes, *, max_frame: int = DEFAULT_MAX_FRAME, limit: int = RECORD_LIMIT
    ) -> None:
        if len(key) != 32:
            raise ValueError("a record key is 32 bytes")
        self._aead = ChaCha20Poly1305(key)
        self._counter = 0
        self.max_frame = max_frame
        self.limit = limit  # records this key may seal (lower only in tests)

    @property
    def counter(self) -> int:
        """Records sealed so far (the next record's nonce counter)."""
        return self._counter

    def seal(self, plaintext: bytes) -> bytes:
        """The whole frame (header + ciphertext) carrying ``plaintext`` as the next record."""
        if self._counter >= self.limit:
            raise RecordError(RecordErrorCode.EXHAUSTED, "the record counter is used up")
        size = len(plaintext) + TAG_SIZE
        if size > self.max_frame:
            raise RecordError(
                RecordErrorCode.TOO_LARGE,
                f"a record of {size} bytes is over the frame cap of {self.max_frame}",
            )
        header = frame_header(size)
        body = self._aead.encrypt(_nonce(self._counter), plaintext, header)
        self._counter += 1
        return header + body

    def __repr__(self) -> str:
        return f"RecordSender(counter={self._counter}, <key hidden>)"


class RecordReceiver:
    """Opens the records of one direction in order. The counter is implicit, so a replayed,
    dropped or reordered record fails authentication; any failure is final. Holds a key."""

    __slots__ = ("_aead", "_counter", "_dead", "limit")

    def __init__(self, key: bytes, *, limit: int = RECORD_LIMIT) -> None:
        if len(key) != 32:
            raise ValueError("a record key is 32 bytes")
        self._aead = ChaCha20Poly1305(key)
        self._counter = 0
        self._dead = False
        self.limit = limit

    @property
    def counter(self) -> int:
        """Records opened so far."""
        return self._counter

    def open(self, body: bytes) -> bytes:
        """The plaintext of the next record, given its frame body (the ciphertext)."""
        if self._dead:
            raise RecordError(RecordErrorCode.AUTH_FAILED, "the link already failed to decrypt")
        if self._counter >= self.limit:
            raise RecordError(RecordErrorCode.EXHAUSTED, "the record counter is used up")
        if len(body) < TAG_SIZE:
            self._dead = True
            raise RecordError(
                RecordErrorCode.AUTH_FAILED, f"a record of {len(body)} bytes is shorter than a tag"
            )
        try:
            plaintext = self._aead.decrypt(
                _nonce(self._counter), bytes(body), frame_header(len(body))
            )
        except InvalidTag:
            self._dead = True
            raise RecordError(
                RecordErrorCode.AUTH_FAILED,
                f"record {self._counter} does not authenticate "
                "(tampered, replayed, dropped or reordered)",
            ) from None
        self._counter += 1
        return plaintext

    def __repr__(self) -> str:
        return f"RecordReceiver(counter={self._counter}, dead={self._dead}, <key hidden>)"


class HandshakeResult:
    """A finished handshake: who the peer is, in which context, and the two record ciphers."""

    __slots__ = ("channel_binding", "context", "peer_sign_pk", "receiver", "role", "sender")

    def __init__(
        self,
        *,
        role: str,
        peer_sign_pk: bytes,
        context: bytes,
        channel_binding: bytes,
        sender: RecordSender,
        receiver: RecordReceiver,
    ) -> None:
        self.role = role  # "initiator" or "responder": this side's role
        self.peer_sign_pk = peer_sign_pk
        self.context = context
        self.channel_binding = channel_binding  # equal on both ends, unique to the connection
        self.sender = sender
        self.receiver = receiver

    def __repr__(self) -> str:
        return (
            f"HandshakeResult(role={self.role}, peer={self.peer_sign_pk.hex()[:16]}..., "
            f"context={self.context.hex()[:16]}..., <keys hidden>)"
        )


def _result(
    role: str,
    schedule: _Schedule,
    h4: bytes,
    peer: bytes,
    context: bytes,
    max_frame: int,
) -> HandshakeResult:
    k_i2r, k_r2i, binding = schedule.traffic(h4)
    send, recv = (k_i2r, k_r2i) if role == "initiator" else (k_r2i, k_i2r)
    return HandshakeResult(
        role=role,
        peer_sign_pk=peer,
        context=context,
        channel_binding=binding,
        sender=RecordSender(send, max_frame=max_frame),
        receiver=RecordReceiver(recv),
    )


# ---------------------------------------------------------------- the two roles


class _Machine:
    __slots__ = ("_state",)

    def __init__(self) -> None:
        self._state = 0  # 0 new, 1 waiting for the peer's message, 2 done, -1 failed

    def _enter(self, state: int, what: str) -> None:
        if self._state != state:
            why = "failed" if self._state == -1 else "finished" if self._state == 2 else "not there"
            raise _fail(HandshakeErrorCode.OUT_OF_ORDER, f"{what}: the handshake is {why}")


class Initiator(_Machine):
    """The side that connects. ``context=None`` learns the responder's context from msg2
    (joining by address); ``expect`` requires the responder's signing key, else any key is
    accepted and reported as ``peer_sign_pk``. Holds an ephemeral secret until it finishes.

        init = Initiator(identity, game_id, expect=peer_pk)
        send(init.start()); msg3, result = init.finish(receive()); send(msg3)
    """

    __slots__ = ("_ctx", "_eph", "_expect", "_id", "_max_frame", "_msg1", "_rng")

    def __init__(
        self,
        identity: Signer,
        context: bytes | None,
        *,
        expect: bytes | None = None,
        rng: Rng = os.urandom,
        max_frame: int = DEFAULT_MAX_FRAME,
    ) -> None:
        super().__init__()
        if context is not None and (type(context) is not bytes or len(context) != CONTEXT_SIZE):
            raise ValueError(f"a context is {CONTEXT_SIZE} bytes or None")
        if expect is not None and (type(expect) is not bytes or len(expect) != KEY_SIZE):
            raise ValueError(f"expect is a {KEY_SIZE}-byte signing key or None")
        self._id = identity
        self._ctx = context
        self._expect = expect
        self._rng = rng
        self._max_frame = max_frame
        self._eph: X25519PrivateKey | None = None
        self._msg1 = b""

    def start(self) -> bytes:
        """msg1: header, flags, context (or zeros), e_I, n_I."""
        self._enter(0, "start")
        self._eph = X25519PrivateKey.from_private_bytes(_draw(self._rng, KEY_SIZE))
        challenge = _draw(self._rng, CHALLENGE_SIZE)
        flags = _FLAG_CONTEXT if self._ctx is not None else 0
        self._msg1 = (
            _msg_header(_MSG1)
            + bytes((flags,))
            + (self._ctx or bytes(CONTEXT_SIZE))
            + self._eph.public_key().public_bytes_raw()
            + challenge
        )
        self._state = 1
        return self._msg1

    def finish(self, msg2: bytes) -> tuple[bytes, HandshakeResult]:
        """Check msg2 (or a responder's alert); return msg3 and the result."""
        self._enter(1, "msg2")
        try:
            out = self._finish(bytes(msg2))
        except BaseException:
            self._state = -1
            self._eph = None
            raise
        self._state = 2
        self._eph = None
        return out

    def _finish(self, msg2: bytes) -> tuple[bytes, HandshakeResult]:
        _header(msg2, _MSG2, MSG2_SIZE, alerts=True)
        assert self._eph is not None
        e_r = msg2[_HDR : _HDR + KEY_SIZE]
        dh = _dh(self._eph, e_r)
        h1 = _sha(LABEL_H1, self._msg1)
        h2 = _sha(LABEL_H2, h1, msg2[:MSG2_CLEAR])
        keys = _Schedule(dh, h2)
        c2 = msg2[MSG2_CLEAR:]
        try:
            inner = keys.hs_r.decrypt(_ZERO_NONCE, c2, h2)
        except InvalidTag:
            raise _fail(
                HandshakeErrorCode.AUTH_FAILED,
                "msg2 does not decrypt (tampered, or from another handshake)",
            ) from None
        context = inner[:CONTEXT_SIZE]
        pk_r = inner[CONTEXT_SIZE : CONTEXT_SIZE + KEY_SIZE]
        sig_r = inner[CONTEXT_SIZE + KEY_SIZE :]
        if self._ctx is not None and context != self._ctx:
            raise _fail(
                HandshakeErrorCode.OTHER_CONTEXT,
                f"the responder is in context {context.hex()[:16]}..., "
                f"not {self._ctx.hex()[:16]}...",
            )
        if self._expect is not None and pk_r != self._expect:
            raise _fail(
                HandshakeErrorCode.UNEXPECTED_IDENTITY,
                f"the responder is {pk_r.hex()[:16]}..., not {self._expect.hex()[:16]}...",
            )
        _verify(pk_r, sig_r, _responder_signed(h2, context, pk_r), "responder")
        pk_i = self._id.sign_pk
        sig_i = self._id.sign(_initiator_signed(h2, context, pk_r, sig_r, pk_i))
        h3 = _sha(LABEL_H3, h2, c2)
        c3 = keys.hs_i.encrypt(_ZERO_NONCE, pk_i + sig_i, h3)
        h4 = _sha(LABEL_H4, h3, c3)
        msg3 = _msg_header(_MSG3) + c3
        return msg3, _result("initiator", keys, h4, pk_r, context, self._max_frame)

    def __repr__(self) -> str:
        return f"Initiator(state={self._state}, <secrets hidden>)"


ContextResolver = Callable[[bytes | None], bytes | None]


class Responder(_Machine):
    """The side that accepts. ``context`` is this node's context, or a resolver called with
    the context the initiator asked for (None if it asked for none) that returns the context
    to use, or None to refuse (``other_context``). ``accept`` (optional) decides whether the
    initiator's key is welcome (``unexpected_identity`` if not); without it the caller checks
    ``result.peer_sign_pk``.

        resp = Responder(identity, game_id, accept=roster_keys.__contains__)
        send(resp.hello(receive())); result = resp.finish(receive())
    """

    __slots__ = (
        "_accept",
        "_c2",
        "_ctx",
        "_h2",
        "_id",
        "_keys",
        "_max_frame",
        "_rng",
        "_sig_r",
        "context",
    )

    def __init__(
        self,
        identity: Signer,
        context: bytes | ContextResolver,
        *,
        accept: Callable[[bytes], bool] | None = None,
        rng: Rng = os.urandom,
        max_frame: int = DEFAULT_MAX_FRAME,
    ) -> None:
        super().__init__()
        if isinstance(context, bytes) and len(context) != CONTEXT_SIZE:
            raise ValueError(f"a context is {CONTEXT_SIZE} bytes")
        self._id = identity
        self._ctx = context
        self._accept = accept
        self._rng = rng
        self._max_frame = max_frame
        self._keys: _Schedule | None = None
        self._h2 = b""
        self._c2 = b""
        self._sig_r = b""
        self.context: bytes | None = None  # the context agreed, once msg1 is accepted

    def _resolve(self, asked: bytes | None) -> bytes | None:
        ctx = self._ctx
        if isinstance(ctx, bytes):
            return ctx if asked is None or asked == ctx else None
        got = ctx(asked)
        if got is not None and (type(got) is not bytes or len(got) != CONTEXT_SIZE):
            raise ValueError(f"the context resolver must return {CONTEXT_SIZE} bytes or None")
        return got

    def hello(self, msg1: bytes) -> bytes:
        """Check msg1; return msg2. A refusal here may be answered with :func:`encode_alert`."""
        self._enter(0, "msg1")
        try:
            out = self._hello(bytes(msg1))
        except BaseException:
            self._state = -1
            raise
        self._state = 1
        return out

    def _hello(self, msg1: bytes) -> bytes:
        _header(msg1, _MSG1, MSG1_SIZE)
        flags = msg1[_HDR]
        asked_raw = msg1[_HDR + 1 : _HDR + 1 + CONTEXT_SIZE]
        if flags & ~_FLAG_CONTEXT:
            raise _fail(HandshakeErrorCode.MALFORMED, f"unknown msg1 flags 0x{flags:02x}")
        if not flags & _FLAG_CONTEXT and asked_raw != bytes(CONTEXT_SIZE):
            raise _fail(HandshakeErrorCode.MALFORMED, "msg1 has a context but no context flag")
        asked = asked_raw if flags & _FLAG_CONTEXT else None
        context = self._resolve(asked)
        if context is None:
            what = f"context {asked.hex()[:16]}..." if asked is not None else "no context"
            raise _fail(HandshakeErrorCode.OTHER_CONTEXT, f"the initiator asked for {what}")
        e_i = msg1[_HDR + 1 + CONTEXT_SIZE : _HDR + 1 + CONTEXT_SIZE + KEY_SIZE]
        eph = X25519PrivateKey.from_private_bytes(_draw(self._rng, KEY_SIZE))
        challenge = _draw(self._rng, CHALLENGE_SIZE)
        dh = _dh(eph, e_i)
        clear = _msg_header(_MSG2) + eph.public_key().public_bytes_raw() + challenge
        h1 = _sha(LABEL_H1, msg1)
        h2 = _sha(LABEL_H2, h1, clear)
        keys = _Schedule(dh, h2)
        pk_r = self._id.sign_pk
        sig_r = self._id.sign(_responder_signed(h2, context, pk_r))
        c2 = keys.hs_r.encrypt(_ZERO_NONCE, context + pk_r + sig_r, h2)
        self._keys, self._h2, self._c2, self._sig_r = keys, h2, c2, sig_r
        self.context = context
        return clear + c2

    def finish(self, msg3: bytes) -> HandshakeResult:
        """Check msg3; return the result (after ``accept``, if one was given)."""
        self._enter(1, "msg3")
        try:
            out = self._finish(bytes(msg3))
        except BaseException:
            self._state = -1
            raise
        finally:
            self._keys = None
        self._state = 2
        return out

    def _finish(self, msg3: bytes) -> HandshakeResult:
        _header(msg3, _MSG3, MSG3_SIZE)
        keys, h2, c2, context = self._keys, self._h2, self._c2, self.context
        assert keys is not None and context is not None
        h3 = _sha(LABEL_H3, h2, c2)
        c3 = msg3[_HDR:]
        try:
            inner = keys.hs_i.decrypt(_ZERO_NONCE, c3, h3)
        except InvalidTag:
            raise _fail(
                HandshakeErrorCode.AUTH_FAILED,
                "msg3 does not decrypt (tampered, or replayed from another handshake)",
            ) from None
        pk_i, sig_i = inner[:KEY_SIZE], inner[KEY_SIZE:]
        pk_r = self._id.sign_pk
        sig_r = self._sig_r
        _verify(pk_i, sig_i, _initiator_signed(h2, context, pk_r, sig_r, pk_i), "initiator")
        if self._accept is not None and not self._accept(pk_i):
            raise _fail(
                HandshakeErrorCode.UNEXPECTED_IDENTITY,
                f"the initiator {pk_i.hex()[:16]}... is not welcome here",
            )
        h4 = _sha(LABEL_H4, h3, c3)
        return _result("responder", keys, h4, pk_i, context, self._max_frame)

    def __repr__(self) -> str:
        return f"Responder(state={self._state}, <secrets hidden>)"
