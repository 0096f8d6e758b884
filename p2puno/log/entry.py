"""The signed entry envelope, its signature and hash, and the errors of the log layer."""

from __future__ import annotations

import enum
import hashlib
import re
from dataclasses import dataclass, replace
from typing import Final

from p2puno.log.identity import Identity
from p2puno.wire import (
    MAX_SAFE_INT,
    EncodingError,
    JSONValue,
    b2h,
    encode,
    h2b,
)

__all__ = [
    "ACCEPT_KIND",
    "GENESIS_KIND",
    "HASH_DOMAIN",
    "HASH_SIZE",
    "MAX_ENTRY_SIZE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PROTOCOL_VERSION",
    "SIG_DOMAIN",
    "SIG_SIZE",
    "Entry",
    "LogError",
    "Reason",
    "Role",
    "entry_hash",
    "sign_entry",
]

PROTOCOL_VERSION: Final = 1
SIG_DOMAIN: Final = b"p2puno/v1/entry-sig\x00"
HASH_DOMAIN: Final = b"p2puno/v1/entry-hash\x00"
# The cap on an entry a node takes (from the network, and so in its own log file and store).
# 64 KiB since helper-78 (it was 256 KiB): an honest entry is at most two shuffles' secrets
# or a step's owed keys, about 23-28 KB in play and under 64 KiB by construction, and the
# cap bounds what one peer's entry can cost to decode (docs/encoding.md "Entry size cap").
# The offline replay reads a file's entries up to REPLAY_MAX_ENTRY_SIZE (p2puno.session.replay).
MAX_ENTRY_SIZE: Final = 64 * 1024
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 10
HASH_SIZE: Final = 32
SIG_SIZE: Final = 64
GENESIS_KIND: Final = "genesis"
ACCEPT_KIND: Final = "accept"
_KIND_RE: Final = re.compile(r"[a-z][a-z0-9_.-]{0,31}", re.ASCII)
_FIELDS: Final = frozenset({"v", "game", "seq", "author", "role", "kind", "prev", "body", "sig"})
# the kinds p2puno writes (each matches _KIND_RE): checked by a set lookup, not the regex
_COMMON_KINDS: Final = frozenset(
    {"genesis", "accept", "ack", "shuffle", "action", "pass", "window", "sync", "reveal", "stop"}
)


class Role(enum.Enum):
    """An entry either proposes a step or responds to the step's proposal, or is a seat's
    vote to stop the game (when a seat has stayed silent past the table's deadline)."""

    PROPOSAL = "proposal"
    RESPONSE = "response"
    VOTE = "vote"


_ROLES: Final = {r.value: r for r in Role}


class Reason(enum.Enum):
    """Why the log refused an entry: stable codes, used by the protocol's test vectors."""

    ENCODING = "encoding"  # not canonical bytes (see EncodingError.code), or over the cap
    MALFORMED = "malformed"  # canonical JSON, but not a well-formed envelope
    BAD_VERSION = "bad_version"  # "v" is not 1
    BAD_GENESIS = "bad_genesis"  # genesis body invalid, or game id not derived from it
    WRONG_GAME = "wrong_game"  # "game" is not this log's game id
    UNKNOWN_AUTHOR = "unknown_author"  # "author" is not a seat of the roster
    BAD_SIGNATURE = "bad_signature"  # signature does not verify under the author's key
    BAD_SLOT = "bad_slot"  # role/kind/seq combination not allowed here
    WRONG_PROPOSER = "wrong_proposer"  # the rules engine expected another proposer
    BAD_PREV = "bad_prev"  # "prev" is not exactly what the step structure requires
    FORK = "fork"  # builds on an entry held only as equivocation evidence
    EQUIVOCATION = "equivocation"  # a second, different signed entry for a taken slot
    MISSING_PARENTS = "missing_parents"  # (files only) an entry whose parents never came


class LogError(ValueError):
    """The one error of the log layer.

    ``author`` is the seat to blame, set only when the entry's signature verified under that
    seat's key (so the blame is provable from the entry itself); ``None`` means the bytes
    are not attributable and the fault lies with whichever peer sent them.
    """

    def __init__(
        self,
        reason: Reason,
        message: str,
        *,
        author: int | None = None,
        detail: str | None = None,
        evidence: object | None = None,
    ) -> None:
        who = f" (seat {author})" if author is not None else ""
        super().__init__(f"{reason.value}{who}: {message}")
        self.reason = reason
        self.message = message
        self.author = author
        self.detail = detail  # e.g. the EncodingError code
        self.evidence = evidence  # an Equivocation for Reason.EQUIVOCATION


def entry_hash(raw: bytes) -> bytes:
    """SHA-256 over the domain prefix and the canonical bytes of the full signed entry."""
    return hashlib.sha256(HASH_DOMAIN + raw).digest()


@dataclass(frozen=True, slots=True)
class Entry:
    """One signed log entry. ``body`` is opaque to this layer (a canonical JSON value)."""

    game: bytes
    seq: int
    author: int
    role: Role
    kind: str
    prev: tuple[bytes, ...]
    body: JSONValue
    sig: bytes
    v: int = PROTOCOL_VERSION

    @property
    def slot(self) -> tuple[int, int, Role]:
        """(seq, author, role): two different signed entries here prove equivocation. A seat
        votes once per game: every vote has the slot (-1, author, vote)."""
        return (-1 if self.role is Role.VOTE else self.seq, self.author, self.role)

    def unsigned_obj(self) -> dict[str, JSONValue]:
        return {
            "v": self.v,
            "game": b2h(self.game),
            "seq": self.seq,
            "author": self.author,
            "role": self.role.value,
            "kind": self.kind,
            "prev": [b2h(p) for p in self.prev],
            "body": self.body,
        }

    def to_obj(self) -> dict[str, JSONValue]:
        obj = self.unsigned_obj()
        obj["sig"] = b2h(self.sig)
        return obj

    def signing_bytes(self) -> bytes:
        """What the author signs: the signature domain prefix + canonical entry without sig."""
        return SIG_DOMAIN + encode(self.unsigned_obj())

    def encode(self) -> bytes:
        return encode(self.to_obj())

    @classmethod
    def from_obj(cls, obj: JSONValue) -> Entry:
        """Strict envelope parse; raises LogError (MALFORMED or BAD_VERSION), author unset."""
        if type(obj) is not dict:
            raise LogError(Reason.MALFORMED, "an entry must be a JSON object")
        # the type first: true == 1 in Python, and "v":true must not pass for version 1
        if "v" in obj and (type(obj["v"]) is not int or obj["v"] != PROTOCOL_VERSION):
            raise LogError(Reason.BAD_VERSION, f"unsupported protocol version {obj['v']!r:.20}")
        if obj.keys() != _FIELDS:
            missing = sorted(_FIELDS - obj.keys())
            extra = sorted(obj.keys() - _FIELDS)
            raise LogError(
                Reason.MALFORMED, f"fields: missing {missing[:9]}, unexpected {extra[:3]!r:.80}"
            )
        seq, author, role, kind, prev = (
            obj["seq"],
            obj["author"],
            obj["role"],
            obj["kind"],
            obj["prev"],
        )
        if type(seq) is not int or not 0 <= seq <= MAX_SAFE_INT:
            raise LogError(Reason.MALFORMED, "seq must be an integer >= 0")
        if type(author) is not int or not 0 <= author < MAX_PLAYERS:
            raise LogError(Reason.MALFORMED, f"author must be a seat index 0..{MAX_PLAYERS - 1}")
        the_role = _ROLES.get(role) if type(role) is str else None
        if the_role is None:
            raise LogError(Reason.MALFORMED, 'role must be "proposal", "response" or "vote"')
        if type(kind) is not str or (kind not in _COMMON_KINDS and not _KIND_RE.fullmatch(kind)):
            raise LogError(Reason.MALFORMED, "kind must match [a-z][a-z0-9_.-]{0,31}")
        if type(prev) is not list or len(prev) > MAX_PLAYERS:
            raise LogError(Reason.MALFORMED, f"prev must be a list of at most {MAX_PLAYERS}")
        try:
            game = _game_bytes(obj["game"])
            parents = _hashes(prev)
            sig = h2b(obj["sig"], SIG_SIZE)
        except EncodingError as e:
            raise LogError(Reason.MALFORMED, f"game/prev/sig: {e}") from None
        if len(parents) > 1 and len(set(parents)) != len(parents):
            raise LogError(Reason.MALFORMED, "prev lists a hash twice")
        # every field checked above: set as the generated __init__ does (it would set v to
        # its default, PROTOCOL_VERSION, checked above too), without its call (every entry
        # read goes through here)
        entry = _new(cls)
        _set(entry, "game", game)
        _set(entry, "seq", seq)
        _set(entry, "author", author)
        _set(entry, "role", the_role)
        _set(entry, "kind", kind)
        _set(entry, "prev", parents)
        _set(entry, "body", obj["body"])
        _set(entry, "sig", sig)
        _set(entry, "v", PROTOCOL_VERSION)
        return entry


_new: Final = object.__new__
_set: Final = object.__setattr__  # (Entry is frozen: its own __setattr__ refuses)


# The last game id parsed, as (text, bytes). Starts with no text at all: a str there (even "")
# would let that text through unchecked in a fresh process.
_last_game: tuple[object, bytes] = (None, b"")


def _game_bytes(text: object) -> bytes:
    """``h2b(text, HASH_SIZE)``, remembering the last game id (a log has one)."""
    global _last_game
    last = _last_game
    if type(text) is str and text == last[0]:
        return last[1]
    game = h2b(text, HASH_SIZE)
    _last_game = (text, game)
    return game


def _hashes(texts: list[JSONValue]) -> tuple[bytes, ...]:
    """``tuple(h2b(t, HASH_SIZE) for t in texts)``: one round trip for the whole list when
    every entry is a str of the right length (the joined text is then lowercase hex exactly
    when each entry is); the entry-by-entry path otherwise, which raises the same error."""
    width = 2 * HASH_SIZE
    if len(texts) == 1:  # one parent: a response's (a proposal names one per seat)
        return (h2b(texts[0], HASH_SIZE),)
    if len(texts) > 1 and all(type(t) is str and len(t) == width for t in texts):
        joined = "".join(texts)  # type: ignore[arg-type]
        try:
            data = bytes.fromhex(joined)
        except ValueError:
            data = b""
        if data.hex() == joined:
            return tuple(data[i : i + HASH_SIZE] for i in range(0, len(data), HASH_SIZE))
    return tuple(h2b(t, HASH_SIZE) for t in texts)


def sign_entry(
    identity: Identity,
    *,
    game: bytes,
    seq: int,
    author: int,
    role: Role,
    kind: str,
    prev: list[bytes] | tuple[bytes, ...],
    body: JSONValue,
) -> bytes:
    """Build, sign and canonically encode one entry (does not add it to any log)."""
    unsigned = Entry(
        game=game,
        seq=seq,
        author=author,
        role=role,
        kind=kind,
        prev=tuple(prev),
        body=body,
        sig=b"",
    )
    entry = replace(unsigned, sig=identity.sign(unsigned.signing_bytes()))
    return entry.encode()
