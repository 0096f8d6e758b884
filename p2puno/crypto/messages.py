"""Messages and transcript objects of the card layer.

Each is a frozen dataclass with ``to_obj()`` (a JSON value: dicts with str keys, lists, str, int,
bool, None; no floats; bytes as lowercase hex), a strict ``from_obj()`` that raises only
:class:`CryptoFormatError`, and ``canonical_bytes()`` (sorted keys, no whitespace), which for this
value model equals the RFC 8785 form the session signs. Fields that hold secrets are left out of
``repr``.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from ._codec import get_hex, get_int, get_list, hex_list, want_dict, want_hex, want_int
from ._group import FIELD_P, MAX_CARD_ID, ORDER
from .errors import CryptoFormatError

__all__ = [
    "MAX_CARDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "KeyCommitment",
    "KeyRelease",
    "SecretReveal",
    "ShowMessage",
    "ShuffleRecord",
    "ShuffleSpec",
    "ShuffleStep",
]

MIN_PLAYERS = 2
MAX_PLAYERS = 10
MAX_CARDS = 512
ID_LEN = 32
SALT_LEN = 16
KEY_LEN = 32
SHOW_ENTRY_LEN = KEY_LEN + SALT_LEN
AEAD_TAG_LEN = 16

_M = TypeVar("_M", bound="_Message")
_T = TypeVar("_T")


def step_order(players: int, rekey: bool = False) -> list[tuple[int, int]]:
    """``(phase, seat)`` of every shuffle step, in protocol order.

    For a hidden reshuffle (``rekey``), phase 0 by seats ``0..n-1`` first. Then phase 1 by
    seats ``0..n-2``; then the last seat's merged step (phase 2: it permutes and puts on its
    per-position keys in one pass, no key of its own is needed in between); then phase 2 by
    seats ``n-2..0``.
    """
    n = players
    zero = [(0, p) for p in range(n)] if rekey else []
    return zero + [(1, p) for p in range(n - 1)] + [(2, p) for p in range(n - 1, -1, -1)]


def _canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class _Message:
    TYPE: ClassVar[str]

    def to_obj(self) -> dict[str, Any]:
        raise NotImplementedError

    def canonical_bytes(self) -> bytes:
        """The canonical byte form: ``json.dumps(to_obj(), sort_keys, compact)``, UTF-8."""
        return _canonical(self.to_obj())

    @classmethod
    def from_obj(cls: type[_M], obj: object) -> _M:
        try:
            return cls._from_obj(obj)
        except CryptoFormatError:
            raise
        except Exception:  # defensive: a hostile message must never crash the caller
            raise CryptoFormatError(f"malformed {cls.TYPE}") from None

    @classmethod
    def _from_obj(cls: type[_M], obj: object) -> _M:
        raise NotImplementedError

    @classmethod
    def from_bytes(cls: type[_M], data: bytes) -> _M:
        """Decode canonical bytes; rejects anything that does not re-encode identically."""
        try:
            obj = json.loads(data.decode("utf-8"), parse_float=_no_float, parse_constant=_no_float)
        except CryptoFormatError:
            raise
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise CryptoFormatError(f"malformed {cls.TYPE}: not JSON") from None
        msg = cls.from_obj(obj)
        if msg.canonical_bytes() != data:
            raise CryptoFormatError(f"malformed {cls.TYPE}: not canonical")
        return msg


def unchecked(cls: type[_T], **values: Any) -> _T:
    """Build a frozen message from values valid by construction, skipping ``__post_init__``.

    Only for this package's own hot paths (secrets generation, key releases)."""
    obj = object.__new__(cls)
    obj.__dict__.update(values)
    return obj


def _no_float(_: str) -> Any:
    raise CryptoFormatError("floats are not allowed")


def _point_hex(x: bytes) -> str:
    return x.hex()


def _want_point(v: object, what: str) -> bytes:
    x = want_hex(v, 32, what)
    if int.from_bytes(x, "big") >= FIELD_P:
        raise CryptoFormatError(f"{what}: not a field element")
    return x


def _want_scalar(v: object, what: str) -> int:
    k = int.from_bytes(want_hex(v, KEY_LEN, what), "big")
    if not 1 <= k < ORDER:
        raise CryptoFormatError(f"{what}: scalar out of range")
    return k


_P_HEX = f"{FIELD_P:064x}"
_ORDER_HEX = f"{ORDER:064x}"


def _points(v: list[Any], what: str) -> tuple[bytes, ...]:
    """``_want_point`` on every entry; a whole 108-card deck at once when it is all fine."""
    fast = hex_list(v, 32, _P_HEX)
    if fast is not None:
        return tuple(fast)
    return tuple(_want_point(x, what) for x in v)


def _scalars(v: list[Any], what: str) -> tuple[int, ...]:
    """``_want_scalar`` on every entry; all at once when they are all fine."""
    fast = hex_list(v, KEY_LEN, _ORDER_HEX)
    if fast is not None:
        keys = tuple(int.from_bytes(b, "big") for b in fast)
        if 0 not in keys:
            return keys
    return tuple(_want_scalar(k, what) for k in v)


def _hexes(v: list[Any], nbytes: int, what: str) -> tuple[bytes, ...]:
    """``want_hex`` on every entry; all at once when they are all fine."""
    fast = hex_list(v, nbytes)
    if fast is not None:
        return tuple(fast)
    return tuple(want_hex(x, nbytes, what) for x in v)


def _scalar_hex(k: int) -> str:
    return k.to_bytes(KEY_LEN, "big").hex()


def _check_id(shuffle_id: bytes) -> None:
    if not isinstance(shuffle_id, bytes) or len(shuffle_id) != ID_LEN:
        raise CryptoFormatError("shuffle_id must be 32 bytes")


def _check_player(p: int, what: str = "player") -> None:
    want_int(p, 0, MAX_PLAYERS - 1, what)


@dataclass(frozen=True)
class ShuffleSpec(_Message):
    """Public parameters of one joint shuffle.

    ``shuffle_id`` (32 bytes, chosen by the session, unique per shuffle in a game) separates the
    domains of commitments and show-to-one messages; ``players`` is the number of seats;
    ``cards`` lists the distinct public card ids to shuffle.

    A *hidden reshuffle* also takes still-hidden positions of a finished shuffle: ``parent`` is
    that shuffle's id and ``hidden`` its positions (e.g. the undealt deck, to put back a Wild
    Draw Four turned up at the start). The input is then the ``hidden`` entries, in that order,
    followed by the ``cards``; a re-key pass (phase 0) first swaps every player's per-position
    keys of the parent for one key per player, so nobody learns which card went where.
    """

    TYPE: ClassVar[str] = "shuffle-spec"
    shuffle_id: bytes
    players: int
    cards: tuple[int, ...]
    parent: bytes | None = None
    hidden: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _check_id(self.shuffle_id)
        want_int(self.players, MIN_PLAYERS, MAX_PLAYERS, "players")
        if not isinstance(self.cards, tuple) or not isinstance(self.hidden, tuple):
            raise CryptoFormatError("cards and hidden must be tuples")
        if not 1 <= len(self.cards) + len(self.hidden) <= MAX_CARDS:
            raise CryptoFormatError("cards: wrong number of entries")
        for c in self.cards:
            want_int(c, 0, MAX_CARD_ID, "card")
        if len(set(self.cards)) != len(self.cards):
            raise CryptoFormatError("cards: duplicate card id")
        for p in self.hidden:
            want_int(p, 0, MAX_CARDS - 1, "hidden position")
        if len(set(self.hidden)) != len(self.hidden):
            raise CryptoFormatError("hidden: duplicate position")
        if (self.parent is None) != (not self.hidden):
            raise CryptoFormatError("a parent goes with hidden positions, and only with them")
        if self.parent is not None:
            _check_id(self.parent)
            if self.parent == self.shuffle_id:
                raise CryptoFormatError("a shuffle cannot be its own parent")

    @property
    def size(self) -> int:
        return len(self.hidden) + len(self.cards)

    def to_obj(self) -> dict[str, Any]:
        return {
            "type": self.TYPE,
            "shuffle_id": self.shuffle_id.hex(),
            "players": self.players,
            "cards": list(self.cards),
            "parent": None if self.parent is None else self.parent.hex(),
            "hidden": list(self.hidden),
        }

    @classmethod
    def _from_obj(cls, obj: object) -> ShuffleSpec:
        d = want_dict(obj, {"shuffle_id", "players", "cards", "parent", "hidden"}, cls.TYPE)
        return cls(
            get_hex(d, "shuffle_id", ID_LEN),
            get_int(d, "players", MIN_PLAYERS, MAX_PLAYERS),
            tuple(want_int(c, 0, MAX_CARD_ID, "card") for c in get_list(d, "cards", 0, MAX_CARDS)),
            None if d["parent"] is None else get_hex(d, "parent", ID_LEN),
            tuple(
                want_int(p, 0, MAX_CARDS - 1, "hidden position")
                for p in get_list(d, "hidden", 0, MAX_CARDS)
            ),
        )


@dataclass(frozen=True)
class KeyCommitment(_Message):
    """Player ``player``'s commitments to its per-position keys, one per position, plus the
    X25519 public key that show-to-one messages for this shuffle are encrypted to, and its
    ``pledge``: a hash binding the phase-1 key, the permutation and the rekey key (see
    :func:`p2puno.crypto.shuffle.pledge_digest`). Sent before any shuffle step, so every secret
    a player will use is fixed before it sees its input: no seat can choose its permutation
    after looking at the deck it is handed."""

    TYPE: ClassVar[str] = "key-commitment"
    shuffle_id: bytes
    player: int
    x25519_public: bytes
    commitments: tuple[bytes, ...]
    pledge: bytes

    def __post_init__(self) -> None:
        _check_id(self.shuffle_id)
        _check_player(self.player)
        if not isinstance(self.x25519_public, bytes) or len(self.x25519_public) != 32:
            raise CryptoFormatError("x25519_public must be 32 bytes")
        if not isinstance(self.commitments, tuple) or not 1 <= len(self.commitments) <= MAX_CARDS:
            raise CryptoFormatError("commitments: wrong number of entries")
        if not all(isinstance(c, bytes) and len(c) == 32 for c in self.commitments):
            raise CryptoFormatError("commitments: entries must be 32 bytes")
        if not isinstance(self.pledge, bytes) or len(self.pledge) != 32:
            raise CryptoFormatError("pledge must be 32 bytes")

    def to_obj(self) -> dict[str, Any]:
        return {
            "type": self.TYPE,
            "shuffle_id": self.shuffle_id.hex(),
            "player": self.player,
            "x25519_public": self.x25519_public.hex(),
            "commitments": [c.hex() for c in self.commitments],
            "pledge": self.pledge.hex(),
        }

    @classmethod
    def _from_obj(cls, obj: object) -> KeyCommitment:
        d = want_dict(
            obj, {"shuffle_id", "player", "x25519_public", "commitments", "pledge"}, cls.TYPE
        )
        # every field checked here exactly as __post_init__ would: skip checking twice
        return unchecked(
            cls,
            shuffle_id=get_hex(d, "shuffle_id", ID_LEN),
            player=get_int(d, "player", 0, MAX_PLAYERS - 1),
            x25519_public=get_hex(d, "x25519_public", 32),
            commitments=_hexes(get_list(d, "commitments", 1, MAX_CARDS), 32, "commitment"),
            pledge=get_hex(d, "pledge", 32),
        )


@dataclass(frozen=True)
class ShuffleStep(_Message):
    """One player's output deck for one phase (0: re-key a hidden reshuffle's input; 1: encrypt
    and permute; 2: re-key per position; the last seat's phase-2 step also permutes, see
    :func:`step_order`).

    ``deck`` holds 32-byte x-coordinates. Only the range of each value is checked on decoding;
    whether it is on the curve is checked where it is used (and blamed on the author).
    """

    TYPE: ClassVar[str] = "shuffle-step"
    shuffle_id: bytes
    player: int
    phase: int
    deck: tuple[bytes, ...]

    def __post_init__(self) -> None:
        _check_id(self.shuffle_id)
        _check_player(self.player)
        want_int(self.phase, 0, 2, "phase")
        if not isinstance(self.deck, tuple) or not 1 <= len(self.deck) <= MAX_CARDS:
            raise CryptoFormatError("deck: wrong number of entries")
        for x in self.deck:
            if not isinstance(x, bytes) or len(x) != 32 or int.from_bytes(x, "big") >= FIELD_P:
                raise CryptoFormatError("deck: entries must be 32-byte field elements")

    def to_obj(self) -> dict[str, Any]:
        return {
            "type": self.TYPE,
            "shuffle_id": self.shuffle_id.hex(),
            "player": self.player,
            "phase": self.phase,
            "deck": [_point_hex(x) for x in self.deck],
        }

    @classmethod
    def _from_obj(cls, obj: object) -> ShuffleStep:
        d = want_dict(obj, {"shuffle_id", "player", "phase", "deck"}, cls.TYPE)
        # every field checked here exactly as __post_init__ would: skip checking twice
        return unchecked(
            cls,
            shuffle_id=get_hex(d, "shuffle_id", ID_LEN),
            player=get_int(d, "player", 0, MAX_PLAYERS - 1),
            phase=get_int(d, "phase", 0, 2),
            deck=_points(get_list(d, "deck", 1, MAX_CARDS), "deck entry"),
        )


@dataclass(frozen=True)
class KeyRelease(_Message):
    """The opening of ``owner``'s commitment for ``position``: its per-position key and salt.

    Public once sent (dealing, revealing); held privately by the recipient of a show-to-one.
    """

    TYPE: ClassVar[str] = "key-release"
    shuffle_id: bytes
    owner: int
    position: int
    key: int = field(repr=False)
    salt: bytes = field(repr=False)

    def __post_init__(self) -> None:
        _check_id(self.shuffle_id)
        _check_player(self.owner, "owner")
        want_int(self.position, 0, MAX_CARDS - 1, "position")
        if type(self.key) is not int or not 1 <= self.key < ORDER:
            raise CryptoFormatError("key out of range")
        if not isinstance(self.salt, bytes) or len(self.salt) != SALT_LEN:
            raise CryptoFormatError("salt must be 16 bytes")

    def to_obj(self) -> dict[str, Any]:
        return {
            "type": self.TYPE,
            "shuffle_id": self.shuffle_id.hex(),
            "owner": self.owner,
            "position": self.position,
            "key": _scalar_hex(self.key),
            "salt": self.salt.hex(),
        }

    @classmethod
    def _from_obj(cls, obj: object) -> KeyRelease:
        d = want_dict(obj, {"shuffle_id", "owner", "position", "key", "salt"}, cls.TYPE)
        # every field checked here exactly as __post_init__ would: skip checking twice (the
        # messages a replay parses most)
        return unchecked(
            cls,
            shuffle_id=get_hex(d, "shuffle_id", ID_LEN),
            owner=get_int(d, "owner", 0, MAX_PLAYERS - 1),
            position=get_int(d, "position", 0, MAX_CARDS - 1),
            key=_want_scalar(d["key"], "key"),
            salt=get_hex(d, "salt", SALT_LEN),
        )


@dataclass(frozen=True)
class ShowMessage(_Message):
    """Per-position keys for some positions, encrypted to ``recipient`` alone.

    Entry ``i`` carries the key of player ``owners[i]`` for position ``positions[i]``: the
    sender's own keys, or keys it was shown and now passes on (Seven-O hands go round). Entries
    are sorted by (position, owner). X25519 (ephemeral key from the sender's RNG) + HKDF-SHA256
    + ChaCha20Poly1305; the header (shuffle id, sender, recipient, positions, owners) is the
    associated data.
    """

    TYPE: ClassVar[str] = "show"
    shuffle_id: bytes
    sender: int
    recipient: int
    positions: tuple[int, ...]
    owners: tuple[int, ...]
    ephemeral: bytes
    ciphertext: bytes

    def __post_init__(self) -> None:
        _check_id(self.shuffle_id)
        _check_player(self.sender, "sender")
        _check_player(self.recipient, "recipient")
        if self.sender == self.recipient:
            raise CryptoFormatError("show: sender is the recipient")
        if not isinstance(self.positions, tuple) or not 1 <= len(self.positions) <= MAX_CARDS:
            raise CryptoFormatError("positions: wrong number of entries")
        if not isinstance(self.owners, tuple) or len(self.owners) != len(self.positions):
            raise CryptoFormatError("owners: one per position")
        for p in self.positions:
            want_int(p, 0, MAX_CARDS - 1, "position")
        for o in self.owners:
            want_int(o, 0, MAX_PLAYERS - 1, "owner")
        pairs = list(zip(self.positions, self.owners, strict=True))
        if any(a >= b for a, b in itertools.pairwise(pairs)):
            raise CryptoFormatError("entries must be strictly increasing by (position, owner)")
        if self.recipient in self.owners:
            raise CryptoFormatError("show: the recipient's own key")
        if not isinstance(self.ephemeral, bytes) or len(self.ephemeral) != 32:
            raise CryptoFormatError("ephemeral must be 32 bytes")
        want = SHOW_ENTRY_LEN * len(self.positions) + AEAD_TAG_LEN
        if not isinstance(self.ciphertext, bytes) or len(self.ciphertext) != want:
            raise CryptoFormatError("ciphertext has the wrong length")

    def header(self) -> dict[str, Any]:
        return {
            "type": self.TYPE,
            "shuffle_id": self.shuffle_id.hex(),
            "sender": self.sender,
            "recipient": self.recipient,
            "positions": list(self.positions),
            "owners": list(self.owners),
        }

    def header_bytes(self) -> bytes:
        return _canonical(self.header())

    def to_obj(self) -> dict[str, Any]:
        obj = self.header()
        obj["ephemeral"] = self.ephemeral.hex()
        obj["ciphertext"] = self.ciphertext.hex()
        return obj

    @classmethod
    def _from_obj(cls, obj: object) -> ShowMessage:
        d = want_dict(
            obj,
            {"shuffle_id", "sender", "recipient", "positions", "owners", "ephemeral", "ciphertext"},
            cls.TYPE,
        )
        positions = tuple(
            want_int(p, 0, MAX_CARDS - 1, "position")
            for p in get_list(d, "positions", 1, MAX_CARDS)
        )
        owners = tuple(
            want_int(o, 0, MAX_PLAYERS - 1, "owner")
            for o in get_list(d, "owners", len(positions), len(positions))
        )
        show = unchecked(
            cls,
            shuffle_id=get_hex(d, "shuffle_id", ID_LEN),
            sender=get_int(d, "sender", 0, MAX_PLAYERS - 1),
            recipient=get_int(d, "recipient", 0, MAX_PLAYERS - 1),
            positions=positions,
            owners=owners,
            ephemeral=get_hex(d, "ephemeral", 32),
            ciphertext=get_hex(d, "ciphertext", SHOW_ENTRY_LEN * len(positions) + AEAD_TAG_LEN),
        )
        show._relations()  # every other check of __post_init__ is made above, field by field
        return show

    def _relations(self) -> None:
        """The checks of __post_init__ that relate fields (in its order)."""
        if self.sender == self.recipient:
            raise CryptoFormatError("show: sender is the recipient")
        pairs = list(zip(self.positions, self.owners, strict=True))
        if any(a >= b for a, b in itertools.pairwise(pairs)):
            raise CryptoFormatError("entries must be strictly increasing by (position, owner)")
        if self.recipient in self.owners:
            raise CryptoFormatError("show: the recipient's own key")


@dataclass(frozen=True)
class SecretReveal(_Message):
    """All of one player's secrets for one shuffle, published at round end or in a dispute.

    ``permutation[j]`` is the input index that the player's permuting step's output ``j`` came
    from. The last seat never uses ``phase1_key`` (its single step is the merged phase 2).
    ``rekey_key`` is the player's phase-0 key in a hidden reshuffle, else ``None``.
    Also the form in which a node persists its own secrets (keep that file private).
    """

    TYPE: ClassVar[str] = "secret-reveal"
    shuffle_id: bytes
    player: int
    phase1_key: int = field(repr=False)
    permutation: tuple[int, ...] = field(repr=False)
    keys: tuple[int, ...] = field(repr=False)
    salts: tuple[bytes, ...] = field(repr=False)
    x25519_private: bytes = field(repr=False)
    rekey_key: int | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        _check_id(self.shuffle_id)
        _check_player(self.player)
        if self.rekey_key is not None and (
            type(self.rekey_key) is not int or not 1 <= self.rekey_key < ORDER
        ):
            raise CryptoFormatError("rekey_key out of range")
        m = len(self.permutation) if isinstance(self.permutation, tuple) else -1
        if not 1 <= m <= MAX_CARDS:
            raise CryptoFormatError("permutation: wrong number of entries")
        if not all(type(i) is int for i in self.permutation) or sorted(self.permutation) != list(
            range(m)
        ):
            raise CryptoFormatError("permutation is not a permutation")
        if not isinstance(self.keys, tuple) or len(self.keys) != m:
            raise CryptoFormatError("keys: wrong number of entries")
        if not isinstance(self.salts, tuple) or len(self.salts) != m:
            raise CryptoFormatError("salts: wrong number of entries")
        for k in (self.phase1_key, *self.keys):
            if type(k) is not int or not 1 <= k < ORDER:
                raise CryptoFormatError("key out of range")
        if not all(isinstance(s, bytes) and len(s) == SALT_LEN for s in self.salts):
            raise CryptoFormatError("salts must be 16 bytes")
        if not isinstance(self.x25519_private, bytes) or len(self.x25519_private) != 32:
            raise CryptoFormatError("x25519_private must be 32 bytes")

    def to_obj(self) -> dict[str, Any]:
        return {
            "type": self.TYPE,
            "shuffle_id": self.shuffle_id.hex(),
            "player": self.player,
            "phase1_key": _scalar_hex(self.phase1_key),
            "permutation": list(self.permutation),
            "keys": [_scalar_hex(k) for k in self.keys],
            "salts": [s.hex() for s in self.salts],
            "x25519_private": self.x25519_private.hex(),
            "rekey_key": None if self.rekey_key is None else _scalar_hex(self.rekey_key),
        }

    @classmethod
    def _from_obj(cls, obj: object) -> SecretReveal:
        d = want_dict(
            obj,
            {
                "shuffle_id",
                "player",
                "phase1_key",
                "permutation",
                "keys",
                "salts",
                "x25519_private",
                "rekey_key",
            },
            cls.TYPE,
        )
        return cls(
            get_hex(d, "shuffle_id", ID_LEN),
            get_int(d, "player", 0, MAX_PLAYERS - 1),
            _want_scalar(d["phase1_key"], "phase1_key"),
            tuple(
                want_int(i, 0, MAX_CARDS - 1, "permutation entry")
                for i in get_list(d, "permutation", 1, MAX_CARDS)
            ),
            _scalars(get_list(d, "keys", 1, MAX_CARDS), "key"),
            _hexes(get_list(d, "salts", 1, MAX_CARDS), SALT_LEN, "salt"),
            get_hex(d, "x25519_private", 32),
            None if d["rekey_key"] is None else _want_scalar(d["rekey_key"], "rekey_key"),
        )


@dataclass(frozen=True)
class ShuffleRecord(_Message):
    """The public transcript of one shuffle: what every node holds, in order.

    ``steps`` are in protocol order (:func:`step_order`) and may stop early (a dispute in
    mid-shuffle). ``releases`` are sorted by (position, owner).
    """

    TYPE: ClassVar[str] = "shuffle-record"
    spec: ShuffleSpec
    commitments: tuple[KeyCommitment, ...]
    steps: tuple[ShuffleStep, ...]
    releases: tuple[KeyRelease, ...] = ()
    shows: tuple[ShowMessage, ...] = ()

    def __post_init__(self) -> None:
        spec = self.spec
        if not isinstance(spec, ShuffleSpec):
            raise CryptoFormatError("record: spec")
        order = step_order(spec.players, bool(spec.hidden))
        if len(self.commitments) > spec.players or len(self.steps) > len(order):
            raise CryptoFormatError("record: too many entries")
        players = [c.player for c in self.commitments]
        if any(a >= b for a, b in itertools.pairwise(players)):
            raise CryptoFormatError("record: commitments not sorted by player")
        for c in self.commitments:
            if c.player >= spec.players or c.shuffle_id != spec.shuffle_id:
                raise CryptoFormatError("record: commitment does not fit the shuffle")
        for i, s in enumerate(self.steps):
            if (s.phase, s.player) != order[i]:
                raise CryptoFormatError("record: steps out of order")
            if s.shuffle_id != spec.shuffle_id:
                raise CryptoFormatError("record: step from another shuffle")
        rel_order = [(r.position, r.owner) for r in self.releases]
        if any(a >= b for a, b in itertools.pairwise(rel_order)):
            raise CryptoFormatError("record: releases not sorted and unique")
        for r in self.releases:
            if r.shuffle_id != spec.shuffle_id or r.owner >= spec.players:
                raise CryptoFormatError("record: release does not fit the shuffle")
            if r.position >= spec.size:
                raise CryptoFormatError("record: release does not fit the shuffle")
        for sh in self.shows:
            if (
                sh.shuffle_id != spec.shuffle_id
                or max(sh.sender, sh.recipient, *sh.owners) >= spec.players
                or sh.positions[-1] >= spec.size
            ):
                raise CryptoFormatError("record: show does not fit the shuffle")

    def to_obj(self) -> dict[str, Any]:
        return {
            "type": self.TYPE,
            "spec": self.spec.to_obj(),
            "commitments": [c.to_obj() for c in self.commitments],
            "steps": [s.to_obj() for s in self.steps],
            "releases": [r.to_obj() for r in self.releases],
            "shows": [s.to_obj() for s in self.shows],
        }

    @classmethod
    def _from_obj(cls, obj: object) -> ShuffleRecord:
        d = want_dict(obj, {"spec", "commitments", "steps", "releases", "shows"}, cls.TYPE)
        limit = MAX_CARDS * MAX_PLAYERS
        return cls(
            ShuffleSpec.from_obj(d["spec"]),
            tuple(KeyCommitment.from_obj(c) for c in get_list(d, "commitments", 0, MAX_PLAYERS)),
            tuple(ShuffleStep.from_obj(s) for s in get_list(d, "steps", 0, 3 * MAX_PLAYERS)),
            tuple(KeyRelease.from_obj(r) for r in get_list(d, "releases", 0, limit)),
            tuple(ShowMessage.from_obj(s) for s in get_list(d, "shows", 0, limit)),
        )
