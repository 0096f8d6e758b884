"""The joint shuffle: per-player secrets and a node's view of one shuffle.

Scheme (SRA-style commutative encryption on P-256, see docs/security.md):

* input: the points of the public cards, in ``spec.cards`` order;
* every player commits to one key ``b_{j,i}`` per position (hiding, binding);
* phase 1, seats ``0..n-2`` in turn: encrypt every entry with one key ``a_j`` and permute;
* the last seat permutes and puts on its per-position keys ``b_{n-1,i}`` in one pass;
* phase 2, seats ``n-2..0``: remove ``a_j`` and put on ``b_{j,i}`` (one layer with scalar
  ``b_{j,i} / a_j``);
* position ``i`` then holds ``(prod_j b_{j,i}) * P_card``: whoever holds every ``b_{j,i}``
  strips all layers with one multiplication by the inverse of their product.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ._group import (
    ORDER,
    InvalidPointError,
    card_point,
    card_table,
    encrypt_all,
    encrypt_each,
    encrypt_one,
    inverse,
    is_point,
    random_scalar,
)
from .errors import CryptoFormatError, CryptoStateError, Fault, Verdict, VerificationError
from .messages import (
    KEY_LEN,
    SALT_LEN,
    SHOW_ENTRY_LEN,
    KeyCommitment,
    KeyRelease,
    SecretReveal,
    ShowMessage,
    ShuffleRecord,
    ShuffleSpec,
    ShuffleStep,
    step_order,
    unchecked,
)
from .rng import Rng, SystemRng

__all__ = ["ShuffleSecrets", "ShuffleView", "commitment_digest", "pledge_digest"]

_COMMIT_DOMAIN = b"p2puno/v1/key-commitment\0"
_PLEDGE_DOMAIN = b"p2puno/v1/shuffle-pledge\0"
_SHOW_DOMAIN = b"p2puno/v1/show\0"
_WIDE = 48  # bytes drawn per per-position key (384 bits for a 256-bit order)
_NONCE = bytes(12)  # every show uses a fresh ephemeral key, hence a fresh AEAD key


def commitment_digest(shuffle_id: bytes, owner: int, position: int, key: int, salt: bytes) -> bytes:
    """SHA-256 commitment to a per-position key: hiding (random 16-byte salt), binding."""
    return hashlib.sha256(
        _COMMIT_DOMAIN
        + shuffle_id
        + bytes([owner])
        + position.to_bytes(2, "big")
        + salt
        + key.to_bytes(KEY_LEN, "big")
    ).digest()


def pledge_digest(
    shuffle_id: bytes, owner: int, phase1_key: int, rekey_key: int | None, perm: Sequence[int]
) -> bytes:
    """SHA-256 commitment to the rest of a player's shuffle secrets: the phase-1 key, the
    rekey key (zeros when there is none) and the permutation. Published in the
    :class:`KeyCommitment` before any step, so a player's whole shuffle is fixed before it sees
    its input. Hiding: the phase-1 key is a uniform secret 256-bit scalar (the last seat, which
    never uses it, still draws one). Binding: SHA-256."""
    return hashlib.sha256(
        _PLEDGE_DOMAIN
        + shuffle_id
        + bytes([owner])
        + phase1_key.to_bytes(KEY_LEN, "big")
        + (rekey_key or 0).to_bytes(KEY_LEN, "big")
        + b"".join(i.to_bytes(2, "big") for i in perm)
    ).digest()


def release_opens(commitment: KeyCommitment, release: KeyRelease) -> bool:
    """Constant-time check that ``release`` opens ``commitment`` at its position."""
    if release.position >= len(commitment.commitments) or release.owner != commitment.player:
        return False
    digest = commitment_digest(
        release.shuffle_id, release.owner, release.position, release.key, release.salt
    )
    ok = hmac.compare_digest(digest, commitment.commitments[release.position])
    return ok and release.shuffle_id == commitment.shuffle_id


def _show_aead(shared: bytes, ephemeral: bytes, recipient_public: bytes, header: bytes) -> bytes:
    info = _SHOW_DOMAIN + ephemeral + recipient_public + hashlib.sha256(header).digest()
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)


_PROBE = X25519PrivateKey.from_private_bytes(bytes(range(1, 33)))  # public: only a probe


def weak_x25519(public: bytes) -> bool:
    """Whether an exchange with ``public`` gives the all-zero secret (a point of small order:
    its shared secret is zero with every private key, the probe's included, as X25519 clamps
    every scalar to a multiple of the cofactor), which pyca refuses with a ValueError."""
    try:
        _PROBE.exchange(X25519PublicKey.from_public_bytes(public))
    except ValueError:
        return True
    return False


def decrypt_show(show: ShowMessage, x25519_private: bytes) -> list[tuple[int, bytes]] | None:
    """``[(key, salt)]`` for the show's entries, or ``None`` if it does not decrypt."""
    try:
        priv = X25519PrivateKey.from_private_bytes(x25519_private)
    except ValueError:
        return None
    return decrypt_show_with(show, priv, priv.public_key().public_bytes_raw())


def decrypt_show_with(
    show: ShowMessage, priv: X25519PrivateKey, own_public: bytes
) -> list[tuple[int, bytes]] | None:
    """:func:`decrypt_show` with the recipient's key already loaded (an audit opens hundreds
    of shows to the same few recipients; loading a key costs as much as the exchange)."""
    try:
        shared = priv.exchange(X25519PublicKey.from_public_bytes(show.ephemeral))
        header = show.header_bytes()
        key = _show_aead(shared, show.ephemeral, own_public, header)
        plain = ChaCha20Poly1305(key).decrypt(_NONCE, show.ciphertext, header)
    except (InvalidTag, ValueError):
        return None
    out = []
    for i in range(len(show.positions)):
        entry = plain[i * SHOW_ENTRY_LEN : (i + 1) * SHOW_ENTRY_LEN]
        k = int.from_bytes(entry[:KEY_LEN], "big")
        if not 1 <= k < ORDER:
            return None
        out.append((k, entry[KEY_LEN:]))
    return out


def rekey_scalars(u: int, parent_keys: Sequence[int], public: int) -> list[int]:
    """Phase-0 scalars: ``u / b_parent`` on each hidden entry, ``u`` on each public card."""
    return [u * inverse(b) % ORDER for b in parent_keys] + [u] * public


def _permutation(rng: Rng, m: int) -> tuple[int, ...]:
    """A uniform permutation of ``range(m)`` (Fisher-Yates).

    One RNG draw for all swaps: each index is a 64-bit number mod ``i + 1`` (``i < 2**10``), so
    each step is off uniform by less than ``2**-54``.
    """
    blob = rng.token_bytes(8 * m)
    perm = list(range(m))
    for i in range(m - 1, 0, -1):
        j = int.from_bytes(blob[8 * i : 8 * i + 8], "big") % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)


def _commitments(
    shuffle_id: bytes, owner: int, keys: Sequence[int], salts: Sequence[bytes]
) -> tuple[bytes, ...]:
    """``commitment_digest`` for every position, sharing the hash of the common prefix."""
    base = hashlib.sha256(_COMMIT_DOMAIN + shuffle_id + bytes([owner]))
    out = []
    for i, (k, s) in enumerate(zip(keys, salts, strict=True)):
        h = base.copy()
        h.update(i.to_bytes(2, "big") + s + k.to_bytes(KEY_LEN, "big"))
        out.append(h.digest())
    return tuple(out)


class ShuffleSecrets:
    """One player's secrets for one shuffle. Never printed, never in an exception message.

    Make one with :meth:`generate` (fresh, from an injected RNG) or :meth:`from_reveal`
    (resuming from the node's private store).
    """

    __slots__ = (
        "_commitment",
        "_k1",
        "_keys",
        "_parent_keys",
        "_perm",
        "_player",
        "_rng",
        "_salts",
        "_spec",
        "_u",
        "_x25519",
    )
    _commitment: KeyCommitment
    _k1: int
    _keys: tuple[int, ...]
    _parent_keys: tuple[int, ...]
    _perm: tuple[int, ...]
    _player: int
    _rng: Rng
    _salts: tuple[bytes, ...]
    _spec: ShuffleSpec
    _u: int | None
    _x25519: bytes

    def __init__(
        self,
        spec: ShuffleSpec,
        reveal: SecretReveal,
        rng: Rng | None = None,
        parent: ShuffleSecrets | None = None,
    ) -> None:
        """Prefer :meth:`generate` and :meth:`from_reveal`; this checks that all fits."""
        if reveal.shuffle_id != spec.shuffle_id:
            raise CryptoFormatError("secrets are for another shuffle")
        if reveal.player >= spec.players or len(reveal.keys) != spec.size:
            raise CryptoFormatError("secrets do not fit the shuffle")
        if (reveal.rekey_key is None) != (not spec.hidden):
            raise CryptoFormatError("a hidden reshuffle needs a rekey key, and only it")
        self._setup(spec, reveal, SystemRng() if rng is None else rng, parent)

    def _setup(
        self, spec: ShuffleSpec, reveal: SecretReveal, rng: Rng, parent: ShuffleSecrets | None
    ) -> None:
        if spec.hidden:
            if (
                parent is None
                or parent._spec.shuffle_id != spec.parent
                or parent._player != reveal.player
                or max(spec.hidden) >= parent._spec.size
            ):
                raise CryptoStateError("a hidden reshuffle needs this player's parent secrets")
            self._parent_keys = tuple(parent._keys[p] for p in spec.hidden)
        else:
            self._parent_keys = ()
        self._spec = spec
        self._player = reveal.player
        self._k1 = reveal.phase1_key
        self._u = reveal.rekey_key
        self._perm = reveal.permutation
        self._keys = reveal.keys
        self._salts = reveal.salts
        self._rng = rng
        self._x25519 = reveal.x25519_private
        x_pub = X25519PrivateKey.from_private_bytes(self._x25519).public_key().public_bytes_raw()
        self._commitment = KeyCommitment(
            spec.shuffle_id,
            self._player,
            x_pub,
            _commitments(spec.shuffle_id, self._player, self._keys, self._salts),
            pledge_digest(spec.shuffle_id, self._player, self._k1, self._u, self._perm),
        )

    @classmethod
    def generate(
        cls,
        spec: ShuffleSpec,
        player: int,
        rng: Rng | None = None,
        parent: ShuffleSecrets | None = None,
    ) -> ShuffleSecrets:
        """Fresh secrets for seat ``player``; all randomness from ``rng`` (default: the OS).

        ``parent``: for a hidden reshuffle, this player's secrets of the parent shuffle.
        """
        rng = SystemRng() if rng is None else rng
        if not 0 <= player < spec.players:
            raise CryptoStateError("player out of range")
        m = spec.size
        k1 = random_scalar(rng)
        perm = _permutation(rng, m)
        # One draw for all per-position keys and salts: each key is 1 + (a 384-bit number mod
        # ORDER - 1), a bias below 2**-128; far fewer calls into the RNG than m randbelow.
        blob = rng.token_bytes(m * (_WIDE + SALT_LEN))
        step = _WIDE + SALT_LEN
        keys = tuple(
            1 + int.from_bytes(blob[at : at + _WIDE], "big") % (ORDER - 1)
            for at in range(0, m * step, step)
        )
        salts = tuple(blob[at + _WIDE : at + step] for at in range(0, m * step, step))
        x_priv = rng.token_bytes(32)
        u = random_scalar(rng) if spec.hidden else None
        reveal = unchecked(  # valid by construction
            SecretReveal,
            shuffle_id=spec.shuffle_id,
            player=player,
            phase1_key=k1,
            permutation=perm,
            keys=keys,
            salts=salts,
            x25519_private=x_priv,
            rekey_key=u,
        )
        secrets = object.__new__(cls)
        secrets._setup(spec, reveal, rng, parent)
        return secrets

    @classmethod
    def from_reveal(
        cls,
        spec: ShuffleSpec,
        reveal: SecretReveal,
        rng: Rng | None = None,
        parent: ShuffleSecrets | None = None,
    ) -> ShuffleSecrets:
        """Rebuild from the :class:`SecretReveal` form (e.g. the node's own secrets file)."""
        return cls(spec, reveal, rng, parent)

    def __repr__(self) -> str:
        return f"<ShuffleSecrets player={self._player} shuffle={self._spec.shuffle_id.hex()[:16]}>"

    __str__ = __repr__

    def __reduce__(self) -> str | tuple[object, ...]:
        raise TypeError("ShuffleSecrets cannot be pickled; persist reveal() instead")

    @property
    def player(self) -> int:
        return self._player

    @property
    def spec(self) -> ShuffleSpec:
        return self._spec

    def commitment(self) -> KeyCommitment:
        """The public commitment message (publish before any shuffle step)."""
        return self._commitment

    def step(self, view: ShuffleView) -> ShuffleStep:
        """This player's next shuffle step on the view's current deck.

        Phase 1 (seats ``0..n-2``): encrypt every entry with one key, then permute. Phase 2:
        swap that key for the per-position keys; the last seat does both at once (permute, then
        one per-position key on each entry). Every input entry is checked to be a curve point
        on the way (a failure is blamed on the previous step's author).
        """
        if view.spec != self._spec:
            raise CryptoStateError("view is for another shuffle")
        nxt = view.next_step
        if nxt is None or nxt[1] != self._player:
            raise CryptoStateError(f"not player {self._player}'s turn to shuffle")
        phase = nxt[0]
        deck = view.deck
        merged = phase == 2 and self._player == self._spec.players - 1
        try:
            if phase == 0:
                out = tuple(encrypt_each(self._rekey_scalars(), deck))
            elif phase == 1:
                enc = encrypt_all(self._k1, deck)
                out = tuple(enc[j] for j in self._perm)
            elif merged:
                inv = 1 if self._u is None else inverse(self._u)
                scalars = self._keys if inv == 1 else [k * inv % ORDER for k in self._keys]
                out = tuple(encrypt_each(scalars, [deck[j] for j in self._perm]))
            else:
                inv = inverse(self._k1 if self._u is None else self._k1 * self._u % ORDER)
                out = tuple(encrypt_each([k * inv % ORDER for k in self._keys], deck))
        except InvalidPointError as err:
            index = self._perm[err.index] if merged else err.index
            prev = view.steps[-1].player if view.steps else -1
            detail = f"entry {index} of the last step is not a curve point"
            raise VerificationError(detail, Verdict(prev, Fault.MALFORMED_STEP, detail)) from None
        return ShuffleStep(self._spec.shuffle_id, self._player, phase, out)

    def _rekey_scalars(self) -> list[int]:
        assert self._u is not None
        return rekey_scalars(self._u, self._parent_keys, len(self._spec.cards))

    def release(self, position: int) -> KeyRelease:
        """The public release of this player's key for ``position`` (deal or reveal)."""
        if type(position) is not int or not 0 <= position < self._spec.size:
            raise CryptoStateError("position out of range")
        return unchecked(  # valid by construction
            KeyRelease,
            shuffle_id=self._spec.shuffle_id,
            owner=self._player,
            position=position,
            key=self._keys[position],
            salt=self._salts[position],
        )

    def show(
        self,
        recipient_public: bytes,
        recipient: int,
        positions: Iterable[int],
        forward: Iterable[KeyRelease] = (),
    ) -> ShowMessage:
        """Encrypt this player's keys for ``positions`` to ``recipient`` alone.

        ``recipient_public`` is the X25519 key from the recipient's :class:`KeyCommitment`.
        ``forward``: keys of other players this one was shown (``ShuffleView.shown_release``),
        passed on too, e.g. a Seven-O hand holding cards first dealt to someone else.
        """
        if not 0 <= recipient < self._spec.players or recipient == self._player:
            raise CryptoStateError("bad recipient")
        entries: dict[tuple[int, int], tuple[int, bytes]] = {}
        for p in positions:
            if not 0 <= p < self._spec.size:
                raise CryptoStateError("positions out of range")
            entries[(p, self._player)] = (self._keys[p], self._salts[p])
        for rel in forward:
            if rel.shuffle_id != self._spec.shuffle_id or rel.position >= self._spec.size:
                raise CryptoStateError("forwarded key from another shuffle")
            if rel.owner == recipient:
                continue  # the recipient holds its own keys
            entries[(rel.position, rel.owner)] = (rel.key, rel.salt)
        if not entries:
            raise CryptoStateError("nothing to show")
        order = sorted(entries)
        eph_priv = X25519PrivateKey.from_private_bytes(self._rng.token_bytes(32))
        eph = eph_priv.public_key().public_bytes_raw()
        shared = eph_priv.exchange(X25519PublicKey.from_public_bytes(recipient_public))
        placeholder = ShowMessage(
            self._spec.shuffle_id,
            self._player,
            recipient,
            tuple(p for p, _ in order),
            tuple(o for _, o in order),
            eph,
            bytes(SHOW_ENTRY_LEN * len(order) + 16),
        )
        header = placeholder.header_bytes()
        aead = ChaCha20Poly1305(_show_aead(shared, eph, recipient_public, header))
        plain = b"".join(entries[e][0].to_bytes(KEY_LEN, "big") + entries[e][1] for e in order)
        return dataclasses.replace(placeholder, ciphertext=aead.encrypt(_NONCE, plain, header))

    def reveal(self) -> SecretReveal:
        """Every secret of this shuffle, for the end of the round or a dispute."""
        return SecretReveal(
            self._spec.shuffle_id,
            self._player,
            self._k1,
            self._perm,
            self._keys,
            self._salts,
            self._x25519,
            self._u,
        )

    def _open_show(self, show: ShowMessage) -> list[tuple[int, bytes]] | None:
        return decrypt_show(show, self._x25519)


class ShuffleView:
    """What one node knows of one shuffle; checks every message the moment it arrives.

    Sans-IO: feed it the messages (its own included) in protocol order; it raises
    :class:`VerificationError` when a check fails (with a ``verdict`` when the public messages
    alone prove who is at fault, else ``None``: open a dispute and :func:`audit`) and
    :class:`CryptoStateError` when used out of order. The session must make sure each message
    was signed by the player it names (``player``/``owner``/``sender``).
    """

    _consumed: frozenset[int]

    def __init__(self, spec: ShuffleSpec, parent: ShuffleView | None = None) -> None:
        """``parent``: for a hidden reshuffle, this node's view of the parent shuffle (complete);
        its ``hidden`` positions are then consumed there and can no longer be opened."""
        self._spec = spec
        self._parent = parent
        self._consumed: frozenset[int] = frozenset()
        self._table = card_table(spec.cards)
        self._initial = tuple(card_point(c) for c in spec.cards)
        if spec.hidden:
            if parent is None or parent.spec.shuffle_id != spec.parent or not parent.complete:
                raise CryptoStateError("a hidden reshuffle needs the complete parent view")
            if max(spec.hidden) >= parent.spec.size:
                raise CryptoStateError("hidden position out of the parent's range")
            if any(p in parent._faces for p in spec.hidden):
                raise CryptoStateError("a hidden position has already been opened")
            self._table = {**parent._table, **self._table}
            self._initial = tuple(parent.deck[p] for p in spec.hidden) + self._initial
            parent._consumed = parent._consumed | frozenset(spec.hidden)
        self._order = step_order(spec.players, bool(spec.hidden))
        self._commitments: dict[int, KeyCommitment] = {}
        self._steps: list[ShuffleStep] = []
        self._releases: dict[tuple[int, int], KeyRelease] = {}
        self._released_by: dict[int, set[int]] = {}  # position -> owners (released() is hot)
        self._shows: list[ShowMessage] = []
        self._show_set: set[ShowMessage] = set()
        self._shown: dict[tuple[int, int], KeyRelease] = {}
        self._faces: dict[int, int] = {}
        self._where: dict[int, int] = {}  # card -> position, for every position opened here
        # card -> position for the positions revealed to all: what every node knows alike
        self._where_public: dict[int, int] = {}
        # position -> (key product k, card point x, final entry f) with x(k^-1 * f) == x checked
        self._openings: dict[int, tuple[int, bytes, bytes]] = {}

    def __repr__(self) -> str:
        return (
            f"<ShuffleView shuffle={self._spec.shuffle_id.hex()[:16]} "
            f"steps={len(self._steps)}/{len(self._order)}>"
        )

    # -- state -----------------------------------------------------------------------------

    @property
    def spec(self) -> ShuffleSpec:
        return self._spec

    @property
    def steps(self) -> tuple[ShuffleStep, ...]:
        return tuple(self._steps)

    @property
    def deck(self) -> tuple[bytes, ...]:
        """The current deck: the last step's output (the card points before any step)."""
        return self._steps[-1].deck if self._steps else self._initial

    @property
    def next_step(self) -> tuple[int, int] | None:
        """``(phase, player)`` of the step expected next, or ``None`` once shuffled."""
        i = len(self._steps)
        return self._order[i] if i < len(self._order) else None

    @property
    def complete(self) -> bool:
        return self.next_step is None

    def commitment(self, player: int) -> KeyCommitment:
        try:
            return self._commitments[player]
        except KeyError:
            raise CryptoStateError(f"no commitment from player {player} yet") from None

    def released(self, position: int) -> frozenset[int]:
        """Owners whose key for ``position`` has been published."""
        return frozenset(self._released_by.get(position, ()))

    @property
    def faces(self) -> Mapping[int, int]:
        """Position -> card id, for every position this node has opened or seen revealed."""
        return dict(self._faces)

    def openings(self) -> Mapping[int, tuple[int, bytes, bytes]]:
        """Position -> ``(k, x, f)`` for every position this node has opened: ``f`` the final
        deck's entry, ``k`` the product of every key on it, ``x`` the card point, and
        ``x(k^-1 * f) == x`` computed here. So ``x(k * x) == f``: :func:`audit` takes these as
        proven instead of multiplying again (``opened``)."""
        return dict(self._openings)

    def record(self) -> ShuffleRecord:
        """The public transcript so far (what :func:`audit` verifies)."""
        return ShuffleRecord(
            self._spec,
            tuple(self._commitments[p] for p in sorted(self._commitments)),
            tuple(self._steps),
            tuple(self._releases[k] for k in sorted(self._releases)),
            tuple(self._shows),
        )

    # -- incoming messages -----------------------------------------------------------------

    def _malformed(self, player: int, detail: str, fault: Fault = Fault.MALFORMED_MESSAGE) -> None:
        raise VerificationError(detail, Verdict(player, fault, detail))

    def add_commitment(self, c: KeyCommitment) -> None:
        spec = self._spec
        if c.shuffle_id != spec.shuffle_id or c.player >= spec.players:
            self._malformed(c.player, f"commitment of player {c.player} does not fit the shuffle")
        if len(c.commitments) != spec.size:
            self._malformed(c.player, f"commitment of player {c.player} has the wrong size")
        if weak_x25519(c.x25519_public):
            # (every card shown to it would fail the exchange: a seat could stop every honest
            # node at the first card it must be shown)
            self._malformed(c.player, f"player {c.player} committed to a weak X25519 key")
        old = self._commitments.get(c.player)
        if old is not None and old != c:
            self._malformed(c.player, f"player {c.player} sent two different commitments")
        self._commitments[c.player] = c

    def add_step(self, step: ShuffleStep, *, check_points: bool = False) -> None:
        """Structural checks of a step: its turn, its size, no duplicate entry.

        Whether each entry is a curve point is checked by the next shuffler as it works (and for
        the final deck when a position is opened); ``check_points=True`` checks it here too.
        """
        self.check_step(step, check_points=check_points)
        self._steps.append(step)

    def check_step(self, step: ShuffleStep, *, check_points: bool = False) -> None:
        """The checks of :meth:`add_step`, without adding the step (raise, or return None)."""
        spec = self._spec
        if step.shuffle_id != spec.shuffle_id:
            self._malformed(step.player, f"step of player {step.player} is for another shuffle")
        if self.next_step != (step.phase, step.player):
            self._malformed(step.player, f"step of player {step.player} out of turn")
        # every commitment before any step, not only before phase 2: each player's pledge binds
        # its phase-1 key and permutation too, which it must not choose after seeing a deck
        # (the session's commitment step gives this; the layer holds it for any other user)
        if len(self._commitments) != spec.players:
            raise CryptoStateError("a shuffle step needs every player's commitment first")
        if len(step.deck) != spec.size:
            self._malformed(step.player, f"step of player {step.player} has the wrong size")
        if len(set(step.deck)) != len(step.deck):
            self._malformed(
                step.player, f"step of player {step.player} repeats an entry", Fault.MALFORMED_STEP
            )
        if check_points:
            for i, x in enumerate(step.deck):
                if not is_point(x):
                    self._malformed(
                        step.player,
                        f"entry {i} of player {step.player}'s step is not a curve point",
                        Fault.MALFORMED_STEP,
                    )

    def add_release(self, release: KeyRelease) -> None:
        """Accept a published key after checking it against its owner's commitment."""
        self.check_release(release)
        self._releases[(release.position, release.owner)] = release
        self._released_by.setdefault(release.position, set()).add(release.owner)

    def check_release(self, release: KeyRelease) -> None:
        """The checks of :meth:`add_release`, without keeping the key."""
        if len(self._steps) != len(self._order):
            raise CryptoStateError("keys are released only after the shuffle")
        spec = self._spec
        if release.shuffle_id != spec.shuffle_id or release.owner >= spec.players:
            self._malformed(release.owner, f"key of player {release.owner} does not fit")
        commitment = self._commitments.get(release.owner)
        if commitment is None:
            raise CryptoStateError(f"no commitment from player {release.owner} yet")
        if not release_opens(commitment, release):
            detail = (
                f"key of player {release.owner} for position {release.position} "
                "does not open its commitment"
            )
            raise VerificationError(detail, Verdict(release.owner, Fault.KEY_COMMITMENT, detail))

    def add_show(self, show: ShowMessage) -> None:
        """Record a show-to-one message (every node logs it; only the recipient can open it)."""
        self.check_show(show)
        if show not in self._show_set:  # a set beside the list: shows pile up over a round
            self._show_set.add(show)
            self._shows.append(show)

    def check_show(self, show: ShowMessage) -> None:
        """The checks of :meth:`add_show` (it fits this shuffle), without recording it."""
        spec = self._spec
        if (
            show.shuffle_id != spec.shuffle_id
            or max(show.sender, show.recipient, *show.owners) >= spec.players
            or show.positions[-1] >= spec.size
        ):
            self._malformed(show.sender, f"show of player {show.sender} does not fit")

    # -- opening ---------------------------------------------------------------------------

    def _key(self, position: int, owner: int, me: ShuffleSecrets | None) -> int:
        if me is not None and owner == me.player:
            return me._keys[position]
        rel = self._releases.get((position, owner)) or self._shown.get((position, owner))
        if rel is None:
            raise CryptoStateError(f"key of player {owner} for position {position} not known")
        return rel.key

    def _open(self, position: int, me: ShuffleSecrets | None) -> int:
        if not self.complete:
            raise CryptoStateError("the shuffle is not complete")
        if not 0 <= position < self._spec.size:
            raise CryptoStateError("position out of range")
        if position in self._consumed:
            raise CryptoStateError("this position went into a hidden reshuffle")
        product = 1
        for owner in range(self._spec.players):
            product = product * self._key(position, owner, me) % ORDER
        final = self._steps[-1]
        entry = final.deck[position]
        try:
            x = encrypt_one(inverse(product), entry)
        except InvalidPointError:
            detail = f"entry {position} of the final deck is not a curve point"
            raise VerificationError(
                detail, Verdict(final.player, Fault.MALFORMED_STEP, detail)
            ) from None
        card = self._table.get(x)
        if card is None:
            raise VerificationError(f"position {position} decrypts to no card")
        # A public opening is judged on public openings only, so that every node reaches the
        # same verdict; a clash with a card only this node has seen is the caller's to raise
        # as its own dispute (see :meth:`where`). A private opening is judged on everything.
        public = me is None
        other = (self._where_public if public else self._where).get(card)
        if other is not None and other != position:
            raise VerificationError(f"position {position} repeats the card at position {other}")
        node = self  # a hidden reshuffle holds no card still seen in its parent's other places
        while node._parent is not None and card not in node._spec.cards:
            ancestor = node._parent
            seen = (ancestor._where_public if public else ancestor._where).get(card)
            if seen is not None and seen not in ancestor._consumed:
                raise VerificationError(
                    f"position {position} repeats a card seen in shuffle "
                    f"{ancestor.spec.shuffle_id.hex()[:16]}"
                )
            node = ancestor
        self._faces[position] = card
        self._where.setdefault(card, position)  # a private sighting elsewhere stays (clash)
        if public:
            self._where_public[card] = position
        self._openings[position] = (product, x, entry)
        return card

    def clash(self, card: int, position: int) -> str | None:
        """Whether this node has opened ``card`` somewhere other than ``position`` (here, or
        still live in the parent of a hidden reshuffle), e.g. in its own hand.

        A public reveal (:meth:`reveal`) is judged only on what every node knows; call this
        after one to learn whether it contradicts what only this node knows: a private fault,
        to be raised as this node's dispute, never as a verdict of its own."""
        node = self
        while True:
            other = node._where.get(card)
            here = node is self
            if other is not None and (other != position if here else other not in node._consumed):
                where = "" if here else f" of shuffle {node.spec.shuffle_id.hex()[:16]}"
                return f"card {card} at position {position} was opened at {other}{where}"
            if node._parent is None or card in node._spec.cards:
                return None
            node = node._parent

    def open(self, position: int, me: ShuffleSecrets) -> int:
        """Privately open a position dealt to ``me``: every other key must have been released.

        All layers come off at once, with the inverse of the product of the keys.
        """
        return self._open(position, me)

    def reveal(self, position: int) -> int:
        """Open a position revealed to all: every player's key must have been released."""
        return self._open(position, None)

    def open_show(self, show: ShowMessage, me: ShuffleSecrets) -> dict[int, int]:
        """As the recipient, decrypt a show-to-one and check each key against its commitment.

        Returns position -> card for every shown position whose other keys are known. The keys
        stay with this node (see :meth:`shown_release`), never in the public record.
        """
        if show.recipient != me.player:
            raise CryptoStateError("this show is for another player")
        self.add_show(show)
        entries = me._open_show(show)
        if entries is None:
            raise VerificationError(f"show from player {show.sender} does not decrypt")
        got = []
        for pos, owner, (key, salt) in zip(show.positions, show.owners, entries, strict=True):
            rel = KeyRelease(self._spec.shuffle_id, owner, pos, key, salt)
            if not release_opens(self.commitment(owner), rel):
                raise VerificationError(
                    f"show from player {show.sender}: key of player {owner} for position {pos} "
                    "does not open its commitment"
                )
            got.append(rel)
        for rel in got:
            self._shown[(rel.position, rel.owner)] = rel
        cards = {}
        for pos in sorted(set(show.positions)):
            try:
                cards[pos] = self._open(pos, me)
            except CryptoStateError:
                continue
        return cards

    def shown_release(self, position: int, owner: int) -> KeyRelease:
        """A key this node learned from a show-to-one, to publish later (e.g. Seven-O)."""
        try:
            return self._shown[(position, owner)]
        except KeyError:
            raise CryptoStateError("no such shown key") from None
