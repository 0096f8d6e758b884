"""The game log: roster from the genesis step, steps of proposal + responses, equivocation.

Sans-IO: :meth:`Log.add` takes bytes from anywhere (a peer, a file) and either accepts them,
reports what is missing, or raises :class:`LogError`. A rejected entry never changes state,
except that a validly signed second entry for a taken slot is kept as equivocation evidence.

Step structure (see protocol/spec.md):

* seq 0 is the genesis step: the host's ``genesis`` proposal (roster + options + nonce; the
  game id is the hash of its body), then one ``accept`` response from every other seat.
* a proposal at seq n >= 1 has ``prev`` = [proposal n-1] + [the response n-1 of every seat
  other than proposer n-1, in seat order]; so step n-1 must be complete first.
* a response at seq n has ``prev`` = [proposal n], and its author is not the proposer.

Who may propose at seq n is the rules engine's business: pass ``expected_proposer``.
"""

from __future__ import annotations

import enum
import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2puno.log.entry import (
    ACCEPT_KIND,
    GENESIS_KIND,
    HASH_SIZE,
    MAX_ENTRY_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SIG_DOMAIN,
    Entry,
    LogError,
    Reason,
    Role,
    entry_hash,
    sign_entry,
)
from p2puno.log.identity import Identity, Player
from p2puno.wire import EncodingError, JSONValue, b2h, decode, encode, h2b

__all__ = [
    "GAME_ID_DOMAIN",
    "AddResult",
    "Equivocation",
    "Genesis",
    "Log",
    "Status",
    "make_genesis",
    "vote_waiting",
]

GAME_ID_DOMAIN: Final = b"p2puno/v1/game-id\x00"
NONCE_SIZE: Final = 32
# pruned entries still recognized by hash (a copy dropped unread, a peer's fetch served from
# the log file): about 2 MB, the last hundred steps or more of a ten-seat game
RECENT_GONE: Final = 16384
# Equivocation evidence kept per author: the first piece already proves the fault (and ends
# the game with a verdict); a seat that signs version after version of its slots only grows
# its peers' memory, log files and relaying. Further versions are SURPLUS: dropped unread.
MAX_EVIDENCE_PER_AUTHOR: Final = 16
# A vote's bytes at most (spec 10.15): ten seats' parents, a signature and a short body take
# about 1.2 KB; a bigger one is padding, which every SYNC answer would carry again
MAX_VOTE_SIZE: Final = 4096


@dataclass(frozen=True, slots=True)
class Genesis:
    """The body of the seq-0 proposal: who plays (seat order), the options, and one fresh
    nonce from every seat (``nonces[i]`` is seat i's), so that the game id is new to every
    seat that contributed: a node checks its own nonce is there before it accepts."""

    players: tuple[Player, ...]
    options: dict[str, JSONValue]
    nonces: tuple[bytes, ...]

    def to_obj(self) -> dict[str, JSONValue]:
        return {
            "players": [p.to_obj() for p in self.players],
            "options": self.options,
            "nonces": [b2h(n) for n in self.nonces],
        }

    @property
    def game_id(self) -> bytes:
        """SHA-256(domain + canonical genesis body): binds the id to roster, options, nonce."""
        return hashlib.sha256(GAME_ID_DOMAIN + encode(self.to_obj())).digest()

    @classmethod
    def from_obj(cls, obj: JSONValue) -> Genesis:
        """Strict parse; raises ValueError with a readable reason."""
        if type(obj) is not dict or obj.keys() != {"players", "options", "nonces"}:
            raise ValueError('genesis body must have exactly "players", "options", "nonces"')
        raw_players, options, raw_nonces = obj["players"], obj["options"], obj["nonces"]
        if type(raw_players) is not list or not MIN_PLAYERS <= len(raw_players) <= MAX_PLAYERS:
            raise ValueError(f"players must be a list of {MIN_PLAYERS}..{MAX_PLAYERS}")
        if type(options) is not dict:
            raise ValueError("options must be an object")
        if type(raw_nonces) is not list or len(raw_nonces) != len(raw_players):
            raise ValueError("nonces must be a list of one nonce per player")
        try:
            nonces = tuple(h2b(n, NONCE_SIZE) for n in raw_nonces)
        except EncodingError as e:
            raise ValueError(f"nonce: {e}") from None
        if len(set(nonces)) != len(nonces):
            raise ValueError("two seats gave the same nonce")
        players = tuple(Player.from_obj(p) for p in raw_players)
        if len({p.sign_pk for p in players}) != len(players):
            raise ValueError("two seats share a signing key")
        if len({p.dh_pk for p in players}) != len(players):
            raise ValueError("two seats share an X25519 key")
        if len({p.name for p in players}) != len(players):
            # (the lobby refuses look-alikes too; a genesis made by hand gave "Ann wins;
            # scores: Ann 135, Ann 0" in a review)
            raise ValueError("two seats share a name")
        for p in players:
            try:
                p.verifier()
            except ValueError:
                raise ValueError("a signing key is not a valid Ed25519 public key") from None
        return cls(players=players, options=options, nonces=nonces)


@dataclass(frozen=True, slots=True)
class Equivocation:
    """Two validly signed, different entries by ``author`` for the same slot.

    Self-contained evidence: anyone holding the author's public key (from the genesis) can
    re-check it offline with :meth:`verify`.
    """

    author: int
    seq: int
    role: Role
    first: bytes  # raw canonical bytes of the entry accepted first
    second: bytes  # raw canonical bytes of the conflicting entry

    def slot_key(self) -> tuple[int, int, Role]:
        """The (seq, author, role) slot both entries claim."""
        return (self.seq, self.author, self.role)

    def to_obj(self) -> dict[str, JSONValue]:
        return {
            "author": self.author,
            "seq": self.seq,
            "role": self.role.value,
            "first": self.first.decode(),
            "second": self.second.decode(),
        }

    def verify(self, sign_pk: bytes, game: bytes) -> None:
        """Raise LogError unless this is sound evidence against the holder of ``sign_pk``."""
        if self.first == self.second:
            raise LogError(Reason.MALFORMED, "evidence: the two entries are identical")
        key = Ed25519PublicKey.from_public_bytes(sign_pk)
        both: list[Entry] = []
        for raw in (self.first, self.second):
            try:
                e = Entry.from_obj(decode(raw, max_size=MAX_ENTRY_SIZE))
            except EncodingError as err:
                raise LogError(Reason.ENCODING, f"evidence: {err}") from None
            both.append(e)
            if e.game != game:
                raise LogError(Reason.WRONG_GAME, "evidence: entry of another game")
            if e.slot != Entry(game, self.seq, self.author, self.role, "", (), None, b"").slot:
                raise LogError(Reason.MALFORMED, "evidence: entries are for different slots")
            try:
                key.verify(e.sig, e.signing_bytes())
            except InvalidSignature:
                raise LogError(Reason.BAD_SIGNATURE, "evidence: signature invalid") from None
        if amends(both[0], both[1]):
            raise LogError(Reason.MALFORMED, "evidence: a vote and its amendment (spec 10.15)")


def vote_waiting(entry: Entry) -> frozenset[int]:
    """The seats a vote names (the seat numbers, 0 to MAX_PLAYERS - 1, in its body's
    ``waiting`` list; anything else in it is ignored, spec 10.15): what the stop rule reads,
    and what tells an amended vote from equivocation (:func:`amends`). Bounded, so a seat
    can sign at most MAX_PLAYERS + 1 votes that amend one another."""
    body = entry.body
    waiting = body.get("waiting") if isinstance(body, dict) else None
    if not isinstance(waiting, list):
        return frozenset()
    return frozenset(s for s in waiting if type(s) is int and 0 <= s < MAX_PLAYERS)


def amends(a: Entry, b: Entry) -> bool:
    """Whether two different votes of one seat are one vote and its amendment (spec 7,
    10.15): the same step and parents, and one names strictly more seats than the other. A
    voter whose stop stays undecided because a seat it can reach neither answers nor votes
    names that seat in an amendment; any other second vote is equivocation."""
    if a.role is not Role.VOTE or b.role is not Role.VOTE:
        return False
    if (a.game, a.author, a.seq, a.kind, a.prev) != (b.game, b.author, b.seq, b.kind, b.prev):
        return False
    wa, wb = vote_waiting(a), vote_waiting(b)
    return wa < wb or wb < wa


class Status(enum.Enum):
    ADDED = "added"
    DUPLICATE = "duplicate"  # already held (in the chain or as evidence): nothing changed
    MISSING_PARENTS = "missing_parents"  # signature fine so far, parents unknown: ask for them
    FROZEN = "frozen"  # valid so far, but the log takes no new entries (Log.freeze)
    STALE = "stale"  # builds on a step pruned from memory: too old to matter here
    SURPLUS = "surplus"  # one more version of a taken slot from an author whose evidence is
    # full (MAX_EVIDENCE_PER_AUTHOR): dropped unread, nothing kept, nobody blamed again


@dataclass(frozen=True, slots=True)
class AddResult:
    status: Status
    hash: bytes
    entry: Entry
    missing: tuple[bytes, ...] = ()  # for MISSING_PARENTS: the unknown prev hashes


def _added(h: bytes, entry: Entry) -> AddResult:
    """``AddResult(Status.ADDED, h, entry)``, set field by field as its generated __init__
    does, without the call (once per entry taken)."""
    result = _new(AddResult)
    _set(result, "status", Status.ADDED)
    _set(result, "hash", h)
    _set(result, "entry", entry)
    _set(result, "missing", ())
    return result


_new: Final = object.__new__
_set: Final = object.__setattr__  # (AddResult is frozen: its own __setattr__ refuses)


# A signature check to run now or later: (entry index in a batch, key, sig, message).
SigCheck = tuple[int, Ed25519PublicKey, bytes, bytes]
ExpectedProposer = int | None | Callable[[Entry], int | None]


class Log:
    """One game's verified log (sans-IO). See the module docstring for the step rules."""

    def __init__(self, *, game_id: bytes | None = None, max_entry_size: int = MAX_ENTRY_SIZE):
        if game_id is not None and len(game_id) != HASH_SIZE:
            raise ValueError("game id must be 32 bytes")
        self._pinned_game = game_id
        self._max_size = max_entry_size
        self.genesis: Genesis | None = None
        self.game_id: bytes | None = None
        self._keys: tuple[Ed25519PublicKey, ...] = ()
        self._raw: dict[bytes, bytes] = {}  # chain: hash -> bytes
        self._entries: dict[bytes, Entry] = {}  # chain: hash -> entry
        # Steps from ``_base`` on are held in memory (see prune): the lists below are indexed
        # by seq - _base, and _order holds the chain hashes in acceptance order from index
        # _order_base on (its older part went with the steps pruned).
        self._base = 0
        self._order_base = 0
        self._order: list[bytes] = []
        self._proposals: list[bytes] = []  # index seq - _base -> proposal hash
        self._responses: list[dict[int, bytes]] = []  # index seq - _base -> {author: hash}
        self._genesis_hash: bytes | None = None
        self._genesis_raw: bytes | None = None
        self._evidence: list[Equivocation] = []
        self._evidence_raw: dict[bytes, bytes] = {}  # hash -> bytes of evidence-only entries
        self._evidence_by: dict[int, int] = {}  # author -> pieces of evidence held against it
        self._votes: dict[int, bytes] = {}  # author -> hash of its vote (its largest, 10.15)
        self._all_votes: dict[int, list[bytes]] = {}  # author -> its vote and amendments
        self.frozen = False  # see freeze()
        self._proposer: list[int] = []  # index seq - _base -> author of its proposal
        # the hashes of the latest RECENT_GONE entries pruned, still recognized as known,
        # each with its step's seq (where to look for it in the file)
        self._gone: dict[bytes, int] = {}
        self._gone_order: deque[bytes] = deque()
        # where pruned entries can be read again (a node's log file): (hash, seq) -> bytes
        # or None
        self.loader: Callable[[bytes, int], bytes | None] | None = None

    # ------------------------------------------------------------------ queries

    @property
    def players(self) -> tuple[Player, ...]:
        return self.genesis.players if self.genesis else ()

    @property
    def head(self) -> int:
        """Seq of the latest proposal (-1 for an empty log)."""
        return self._base + len(self._proposals) - 1

    @property
    def genesis_hash(self) -> bytes | None:
        """The hash of the genesis proposal (kept when its step is pruned)."""
        return self._genesis_hash

    @property
    def genesis_raw(self) -> bytes | None:
        """The bytes of the genesis proposal (kept when its step is pruned)."""
        return self._genesis_raw

    @property
    def pruned_before(self) -> int:
        """Steps before this one were pruned from memory (see :meth:`prune`)."""
        return self._base

    @property
    def memory_start(self) -> int:
        """The index (in acceptance order, as :meth:`hashes` counts) of the oldest entry
        still in memory."""
        return self._order_base

    @property
    def evidence(self) -> tuple[Equivocation, ...]:
        return tuple(self._evidence)

    def __len__(self) -> int:
        """How many entries the chain (and the votes) took, pruned ones included."""
        return self._order_base + len(self._order)

    def __iter__(self) -> Iterator[tuple[bytes, Entry]]:
        """(hash, entry) of the chain, in acceptance order (entries pruned from memory are
        left out: see :meth:`prune`)."""
        for h in self._order:
            e = self._entries.get(h)
            if e is not None:
                yield h, e

    def hashes(self, start: int = 0) -> list[bytes]:
        """Hashes of the chain (and votes) in acceptance order, from index ``start``: what a
        node took since it last looked (e.g. to relay it). Indexes count every entry taken;
        those of pruned steps are no longer held, so the list starts at
        ``max(start, memory_start)``."""
        return self._order[max(0, start - self._order_base) :]

    def entry_of(self, raw: bytes) -> Entry | None:
        """The decoded entry of bytes this log holds (chain, vote or evidence), else None."""
        h = entry_hash(raw)
        if h in self._entries:
            return self._entries[h]
        if h in self._evidence_raw:
            return Entry.from_obj(decode(raw, max_size=self._max_size))
        return None

    def entry_raw_in_memory(self, h: bytes) -> bytes:
        """The bytes of an entry held in memory (KeyError if pruned or unknown)."""
        if h in self._raw:
            return self._raw[h]
        return self._evidence_raw[h]

    def entry(self, h: bytes) -> Entry:
        """The decoded chain entry (or vote) with hash ``h`` (KeyError if unknown)."""
        return self._entries[h]

    def raw(self, h: bytes) -> bytes:
        """The exact bytes of a chain or evidence entry (KeyError if unknown)."""
        if h in self._raw:
            return self._raw[h]
        if h in self._evidence_raw:
            return self._evidence_raw[h]
        seq = self._gone.get(h)
        if self.loader is not None and seq is not None:
            raw = self.loader(h, seq)
            if raw is not None:
                return raw
        raise KeyError(h)

    def knows(self, h: bytes) -> bool:
        return h in self._raw or h in self._evidence_raw or h in self._gone

    def prune(self, before: int) -> int:
        """Drop the complete steps before ``before`` from memory, all of them: bytes, decoded
        entries, hashes and structure (the votes and the genesis hash stay). A node's memory
        must not grow with the length of the game, and these live in its log file
        (:attr:`loader` reads the latest :data:`RECENT_GONE` back for a peer that asks). The
        session never reads a step it has processed. Later, an entry of a pruned step is
        :attr:`Status.STALE` unread (a duplicate, or a second version no one can use: every
        seat answered the step, so which version counts is settled). Returns how many entries
        went."""
        gone = 0
        end = min(before, self.head - 1)  # the last two steps stay (a vote may name either)
        k = 0  # steps going
        while self._base + k < end and not self.missing_responders(self._base + k):
            seq = self._base + k  # (one int for the step's entries in the ring)
            for h in (self._proposals[k], *self._responses[k].values()):
                if h in self._raw:
                    del self._raw[h]
                    del self._entries[h]
                    self._remember_gone(h, seq)
                    gone += 1
            k += 1
        if k:
            del self._proposals[:k], self._proposer[:k], self._responses[:k]
            self._base += k
        drop = 0  # the oldest part of the order, up to the first entry still held (or vote)
        for h in self._order:
            if h in self._raw:
                break
            drop += 1
        if drop:
            del self._order[:drop]
            self._order_base += drop
        return gone

    def _remember_gone(self, h: bytes, seq: int) -> None:
        self._gone[h] = seq
        self._gone_order.append(h)
        if len(self._gone_order) > RECENT_GONE:
            self._gone.pop(self._gone_order.popleft(), None)

    def proposal(self, seq: int) -> tuple[bytes, Entry] | None:
        """None also for a step pruned from memory."""
        i = seq - self._base
        if not 0 <= i < len(self._proposals):
            return None
        h = self._proposals[i]
        e = self._entries.get(h)
        return None if e is None else (h, e)

    def votes(self) -> dict[int, tuple[bytes, Entry]]:
        """Each seat's vote to stop the game, if it cast one: {author: (hash, entry)}; of a
        vote and its amendments, the one that names the most seats (spec 10.15)."""
        return {a: (h, self._entries[h]) for a, h in sorted(self._votes.items())}

    def named_by_votes(self) -> set[int]:
        """The seats the counted votes name (spec 10.15: who may be decided silent)."""
        return set().union(*(vote_waiting(self._entries[h]) for h in self._votes.values()))

    def vote_hashes(self, author: int | None = None) -> list[bytes]:
        """Every vote held (of ``author``, if given), amended ones too, by author then
        arrival: what a peer that asks for the whole game is sent, so that every node comes
        to hold the same entries."""
        if author is not None:
            return list(self._all_votes.get(author, ()))
        return [h for _, hs in sorted(self._all_votes.items()) for h in hs]

    def ends(self) -> list[bytes]:
        """The entries every other entry held is a parent of, by way of others: the latest
        step's proposal and responses, and every vote (a proposal names the previous one
        and all of its step's responses, a vote a proposal). A peer takes an entry only once
        it holds its parents, so a peer that holds these holds the whole chain."""
        head = self.head
        ends = [] if head < self._base else [self._proposals[head - self._base]]
        if ends:
            ends += [h for _, h in sorted(self._responses[head - self._base].items())]
        return ends + self.vote_hashes()

    def freeze(self) -> None:
        """Take no more entries into the chain (the game has a verdict). A frozen log still
        recognizes what it holds and still keeps equivocation evidence, so a node can go on
        receiving and relaying; anything new is reported :attr:`Status.FROZEN` and dropped."""
        self.frozen = True

    def responses(self, seq: int) -> dict[int, tuple[bytes, Entry]]:
        """Empty also for a step pruned from memory."""
        i = seq - self._base
        if not 0 <= i < len(self._responses):
            return {}
        return {
            a: (h, self._entries[h])
            for a, h in sorted(self._responses[i].items())
            if h in self._entries
        }

    def missing_responders(self, seq: int) -> list[int]:
        """Seats whose response to step ``seq`` has not arrived (all but the proposer)."""
        i = seq - self._base
        if not 0 <= i < len(self._proposals):
            return []
        got, author = self._responses[i], self._proposer[i]
        return [s for s in range(len(self.players)) if s != author and s not in got]

    def step_complete(self, seq: int) -> bool:
        """True also for a pruned step (only complete steps are pruned)."""
        if 0 <= seq < self._base:
            return True
        return 0 <= seq <= self.head and not self.missing_responders(seq)

    def next_prev(self) -> list[bytes]:
        """The ``prev`` of the next proposal; ValueError while the current step is open."""
        seq = self.head
        if seq < 0 or not self.step_complete(seq):
            raise ValueError("the current step is not complete")
        return self._prev_after(self._entries[self._proposals[seq - self._base]])

    def next_prev_of(self, seq: int) -> list[bytes]:
        """The ``prev`` of a proposal (or a vote) that follows the complete step ``seq``."""
        if not self.step_complete(seq) or seq < self._base:
            raise ValueError(f"step {seq} is not complete, or was pruned")
        return self._prev_after(self._entries[self._proposals[seq - self._base]])

    def _prev_after(self, p: Entry) -> list[bytes]:
        """The ``prev`` of the proposal after ``p`` (a proposal whose step is complete)."""
        i = p.seq - self._base
        rs = self._responses[i]
        return [self._proposals[i]] + [rs[s] for s in range(len(self.players)) if s != p.author]

    # ------------------------------------------------------------------ making entries

    def propose(self, identity: Identity, author: int, kind: str, body: JSONValue) -> bytes:
        """Sign the next step's proposal (not added: pass the bytes to :meth:`add`)."""
        if self.game_id is None:
            raise ValueError("no genesis yet")
        return sign_entry(
            identity,
            game=self.game_id,
            seq=self.head + 1,
            author=author,
            role=Role.PROPOSAL,
            kind=kind,
            prev=self.next_prev(),
            body=body,
        )

    def respond(self, identity: Identity, author: int, kind: str, body: JSONValue) -> bytes:
        """Sign a response to the current proposal (not added: pass the bytes to :meth:`add`)."""
        if self.game_id is None:
            raise ValueError("no genesis yet")
        seq = self.head
        return sign_entry(
            identity,
            game=self.game_id,
            seq=seq,
            author=author,
            role=Role.RESPONSE,
            kind=kind,
            prev=[self._proposals[seq - self._base]],
            body=body,
        )

    def vote(self, identity: Identity, author: int, kind: str, body: JSONValue) -> bytes:
        """Sign this seat's vote to stop the game (not added: pass the bytes to :meth:`add`).

        It names the last step complete here (``seq``; ``prev`` is that step's proposal and
        every response, as the next proposal's would be), so whoever holds it knows, and can
        fetch, how far the game had come for the voter."""
        if self.game_id is None:
            raise ValueError("no genesis yet")
        seq = self.head
        if not self.step_complete(seq):
            seq -= 1
        if seq < 0:
            # the genesis step never completed (a seat never accepted): the vote names the
            # genesis alone, and stops a game that never began
            prev = [self._genesis_hash] if self._genesis_hash is not None else []
            seq = 0
        else:
            prev = self._prev_after(self._entries[self._proposals[seq - self._base]])
        return sign_entry(
            identity,
            game=self.game_id,
            seq=seq,
            author=author,
            role=Role.VOTE,
            kind=kind,
            prev=prev,
            body=body,
        )

    def amend_vote(self, identity: Identity, author: int, body: JSONValue) -> bytes:
        """Sign an amendment of this seat's vote (not added: pass the bytes to :meth:`add`):
        its step, kind and parents, with ``body`` (which must name strictly more seats, or
        the log takes it as equivocation). ValueError if the seat has not voted."""
        h = self._votes.get(author)
        if h is None or self.game_id is None:
            raise ValueError("no vote of this seat to amend")
        e = self._entries[h]
        return sign_entry(
            identity,
            game=self.game_id,
            seq=e.seq,
            author=author,
            role=Role.VOTE,
            kind=e.kind,
            prev=list(e.prev),
            body=body,
        )

    # ------------------------------------------------------------------ adding

    def add(
        self, data: bytes, *, expected_proposer: ExpectedProposer = None, own: bool = False
    ) -> AddResult:
        """Verify ``data`` and add it; see the module docstring. Raises LogError.

        ``expected_proposer``: the seat whose proposal this must be, or a function of the
        decoded entry giving it (so a caller need not decode the bytes twice to ask).
        ``own``: bytes this process has just signed itself (a session's own entry, signed by
        the roster's key of its seat, which the session checks when it starts): every check
        is made but the signature's, a tenth of a millisecond per entry, on every node's path
        of every step. Never for bytes that came from anywhere else.
        """
        return self._add(data, expected_proposer, None, 0, own=own)

    def _add(
        self,
        data: bytes,
        expected_proposer: ExpectedProposer,
        deferred: list[SigCheck] | None,
        index: int,
        *,
        own: bool = False,
    ) -> AddResult:
        # 1. Bytes: size cap and canonical decoding.
        if not isinstance(data, bytes):
            raise LogError(Reason.ENCODING, "entry must be bytes")
        if len(data) > self._max_size:
            raise LogError(
                Reason.ENCODING, f"{len(data)} bytes is over the entry cap", detail="size"
            )
        h = entry_hash(data)
        known = self._entries.get(h)
        if known is not None and h in self._raw:  # the same bytes again: decoded once already
            return AddResult(Status.DUPLICATE, h, known)
        try:
            obj = decode(data, max_size=self._max_size)
        except EncodingError as e:
            raise LogError(Reason.ENCODING, str(e), detail=e.code.value) from None
        entry = Entry.from_obj(obj)  # MALFORMED / BAD_VERSION
        if h in self._raw or h in self._evidence_raw or h in self._gone:
            return AddResult(Status.DUPLICATE, h, entry)
        if entry.seq < self._base and entry.game == self.game_id:
            return AddResult(Status.STALE, h, entry)  # a pruned step's: unread (see prune)

        # 2. Game, roster, signature. Until the signature checks out, blame nobody.
        if self.genesis is None:
            if not (entry.seq == 0 and entry.role is Role.PROPOSAL and not entry.prev):
                missing = entry.prev
                if not missing:
                    raise LogError(Reason.BAD_PREV, "only the genesis proposal has no parents")
                return AddResult(Status.MISSING_PARENTS, h, entry, missing)
            genesis = self._check_genesis(entry)
            keys = tuple(p.verifier() for p in genesis.players)
        else:
            genesis = None
            keys = self._keys
            if entry.game != self.game_id:
                raise LogError(Reason.WRONG_GAME, f"entry of game {b2h(entry.game)[:16]}...")
        if entry.author >= len(keys):
            raise LogError(Reason.UNKNOWN_AUTHOR, f"no seat {entry.author} in this game")
        if (
            genesis is None
            and self._evidence_by.get(entry.author, 0) >= MAX_EVIDENCE_PER_AUTHOR
            and self._slot(entry) is not None
        ):
            return AddResult(Status.SURPLUS, h, entry)  # before the costly signature check
        if not own:  # (own: signed here a moment ago, see add)
            check = (index, keys[entry.author], entry.sig, _signing_bytes(data, entry))
            if deferred is None:
                _verify_now(check)
            else:
                deferred.append(check)
        a = entry.author

        if genesis is not None:
            self._install_genesis(genesis, keys, entry, h, data)
            return AddResult(Status.ADDED, h, entry)

        # 3. Equivocation: this signed slot already holds a different entry (a vote: one of
        # its author's votes seen here that it neither amends nor is amended by, spec 10.15;
        # those a frozen log saw count too, or whether a vote is evidence would depend on
        # when it came).
        if entry.role is Role.VOTE:
            if len(data) > MAX_VOTE_SIZE:  # (a vote is small: no padding to relay again)
                raise LogError(
                    Reason.MALFORMED, f"a vote is at most {MAX_VOTE_SIZE} bytes", author=a
                )
            taken = next(
                (v for v in self._all_votes.get(a, ()) if not amends(self._entries[v], entry)),
                None,
            )
        else:
            taken = self._slot(entry)
        if taken is not None:
            eq = Equivocation(a, entry.seq, entry.role, self.raw(taken), data)
            self._evidence.append(eq)
            self._evidence_raw[h] = data
            self._evidence_by[a] = self._evidence_by.get(a, 0) + 1
            raise LogError(
                Reason.EQUIVOCATION,
                f"second {entry.role.value} for seq {entry.seq}",
                author=a,
                evidence=eq,
            )

        # 4. Slot rules that need no parents.
        if self.frozen:
            if entry.role is Role.VOTE:  # seen, for the chain test above (not in the chain)
                self._raw[h], self._entries[h] = data, entry
                self._all_votes.setdefault(a, []).append(h)
            return AddResult(Status.FROZEN, h, entry)
        if callable(expected_proposer):
            expected_proposer = expected_proposer(entry)
        self._check_slot(entry, expected_proposer)

        # 5. Parents.
        if self._evidence_raw:  # (none in an honest game: nothing to look up then)
            for p in entry.prev:
                if p in self._evidence_raw:
                    raise LogError(Reason.FORK, "builds on an equivocated entry", detail=b2h(p))
        held = self._raw
        missing = tuple([p for p in entry.prev if p not in held])
        if missing:
            if any(p in self._gone for p in missing):
                return AddResult(Status.STALE, h, entry)
            return AddResult(Status.MISSING_PARENTS, h, entry, missing)
        self._check_prev(entry)

        # 6. Accept.
        self._store(entry, h, data)
        return _added(h, entry)

    def _check_genesis(self, entry: Entry) -> Genesis:
        if entry.kind != GENESIS_KIND:
            raise LogError(Reason.BAD_GENESIS, f'the seq-0 proposal must be "{GENESIS_KIND}"')
        try:
            genesis = Genesis.from_obj(entry.body)
        except ValueError as e:
            raise LogError(Reason.BAD_GENESIS, str(e)) from None
        if genesis.game_id != entry.game:
            raise LogError(Reason.BAD_GENESIS, "game id is not the hash of the genesis body")
        if self._pinned_game is not None and entry.game != self._pinned_game:
            raise LogError(Reason.WRONG_GAME, "genesis of another game")
        return genesis

    def _install_genesis(
        self,
        genesis: Genesis,
        keys: tuple[Ed25519PublicKey, ...],
        entry: Entry,
        h: bytes,
        data: bytes,
    ) -> None:
        self.genesis = genesis
        self.game_id = entry.game
        self._keys = keys
        self._store(entry, h, data)

    def _slot(self, entry: Entry) -> bytes | None:
        if entry.role is Role.VOTE:
            return self._votes.get(entry.author)
        i = entry.seq - self._base  # >= 0: an entry of a pruned step is STALE before this
        if entry.role is Role.PROPOSAL:
            if i < len(self._proposals):
                h = self._proposals[i]
                if self._proposer[i] == entry.author:
                    return h
            return None
        if i < len(self._responses):
            return self._responses[i].get(entry.author)
        return None

    def _check_slot(self, entry: Entry, expected_proposer: int | None) -> None:
        a, seq = entry.author, entry.seq
        if entry.role is Role.VOTE:
            if entry.kind in (GENESIS_KIND, ACCEPT_KIND):
                raise LogError(Reason.BAD_SLOT, "genesis/accept only in step 0", author=a)
            if len(entry.prev) != len(self.players) and not (seq == 0 and len(entry.prev) == 1):
                raise LogError(
                    Reason.BAD_PREV,
                    "a vote names a complete step (its proposal and every response), "
                    "or the genesis alone",
                    author=a,
                )
            return
        if entry.role is Role.PROPOSAL:
            if seq == 0 or entry.kind in (GENESIS_KIND, ACCEPT_KIND):
                raise LogError(Reason.BAD_SLOT, "genesis/accept only in step 0", author=a)
            if seq <= self.head:
                raise LogError(Reason.BAD_SLOT, f"seq {seq} already has a proposal", author=a)
            if expected_proposer is not None and a != expected_proposer:
                raise LogError(
                    Reason.WRONG_PROPOSER,
                    f"seq {seq} is seat {expected_proposer}'s to propose",
                    author=a,
                )
            if len(entry.prev) != len(self.players):
                raise LogError(
                    Reason.BAD_PREV,
                    "a proposal names the previous proposal and every response to it",
                    author=a,
                )
        else:
            if (seq == 0) != (entry.kind == ACCEPT_KIND) or entry.kind == GENESIS_KIND:
                raise LogError(Reason.BAD_SLOT, '"accept" is the response of step 0', author=a)
            if len(entry.prev) != 1:
                raise LogError(Reason.BAD_PREV, "a response names exactly its proposal", author=a)
            if self._base <= seq <= self.head and self._proposer[seq - self._base] == a:
                raise LogError(Reason.BAD_SLOT, "the proposer does not respond", author=a)

    def _check_prev(self, entry: Entry) -> None:
        a = entry.author
        parent = self._entries[entry.prev[0]]
        if parent.role is not Role.PROPOSAL:
            raise LogError(Reason.BAD_PREV, "prev[0] must be a proposal", author=a)
        if entry.role is Role.VOTE:
            if len(entry.prev) == 1 and parent.seq == entry.seq == 0:
                return  # the genesis alone: a game that never began
            if (
                parent.seq != entry.seq
                or not self.step_complete(parent.seq)  # (a vote names a complete step)
                or list(entry.prev) != self._prev_after(parent)
            ):
                raise LogError(
                    Reason.BAD_PREV,
                    "a vote names the proposal of its seq then every response in seat order",
                    author=a,
                )
            return
        if entry.role is Role.RESPONSE:
            if parent.seq != entry.seq:
                raise LogError(Reason.BAD_PREV, "answers the proposal of another seq", author=a)
            if parent.author == a:
                raise LogError(Reason.BAD_SLOT, "the proposer does not respond", author=a)
            return
        if parent.seq != entry.seq - 1:
            raise LogError(Reason.BAD_PREV, "prev[0] is not the previous proposal", author=a)
        # parent.seq is the head (a proposal for a taken seq was refused in _check_slot)
        if not self.step_complete(parent.seq) or list(entry.prev) != self._prev_after(parent):
            raise LogError(
                Reason.BAD_PREV,
                "prev must be the previous proposal then every response in seat order",
                author=a,
            )

    @property
    def max_entry_size(self) -> int:
        """The largest entry this log takes, in bytes: ``MAX_ENTRY_SIZE`` (64 KiB) for a node
        and its own files; the offline replay reads earlier builds' files with more."""
        return self._max_size

    def check_signature(self, data: bytes) -> None:
        """Check that ``data`` is an entry of this game signed by the seat it names, without
        adding it. For an entry the log no longer reads (STALE: of a step pruned from memory)
        where it must still be genuine: a line of the node's own log file being rebuilt.
        Raises LogError."""
        try:
            entry = Entry.from_obj(decode(data, max_size=self._max_size))
        except EncodingError as e:
            raise LogError(Reason.ENCODING, str(e), detail=e.code.value) from None
        if entry.game != self.game_id:
            raise LogError(Reason.WRONG_GAME, f"entry of game {b2h(entry.game)[:16]}...")
        if not 0 <= entry.author < len(self._keys):
            raise LogError(Reason.UNKNOWN_AUTHOR, f"no seat {entry.author} in this game")
        _verify_now((0, self._keys[entry.author], entry.sig, _signing_bytes(data, entry)))

    def _store(self, entry: Entry, h: bytes, data: bytes) -> None:
        self._raw[h] = data
        self._entries[h] = entry
        self._order.append(h)
        if entry.role is Role.VOTE:
            a = entry.author
            self._all_votes.setdefault(a, []).append(h)
            held = self._votes.get(a)  # (every vote of a seat held is in a chain: amends)
            if held is None or vote_waiting(self._entries[held]) < vote_waiting(entry):
                self._votes[a] = h
        elif entry.role is Role.PROPOSAL:
            if entry.seq == 0:
                self._genesis_hash, self._genesis_raw = h, data
            self._proposals.append(h)
            self._proposer.append(entry.author)
            self._responses.append({})
        else:
            self._responses[entry.seq - self._base][entry.author] = h


def _signing_bytes(data: bytes, entry: Entry) -> bytes:
    """The signed message: the canonical encoding without "sig", taken from ``data``.

    ``data`` is canonical and its keys sorted, so it ends ``,"sig":"<128 hex>","v":1}`` and
    dropping that member gives exactly ``encode(entry.unsigned_obj())`` without re-encoding
    the body (checked against the slow path in tests/log).
    """
    tail = b',"sig":"' + entry.sig.hex().encode() + b'","v":1}'
    if entry.v == 1 and data.endswith(tail):
        return SIG_DOMAIN + data[: -len(tail)] + b',"v":1}'
    return entry.signing_bytes()  # unreachable for canonical v1 entries; kept for safety


def _verify_now(check: SigCheck) -> None:
    _, key, sig, msg = check
    try:
        key.verify(sig, msg)
    except InvalidSignature:
        raise LogError(Reason.BAD_SIGNATURE, "signature does not verify") from None


def verify_batch(
    checks: list[SigCheck],
    map_fn: Callable[[Callable[[SigCheck], bool], list[SigCheck]], Iterable[bool]] = map,
) -> int | None:
    """Run deferred signature checks; return the smallest failing index, or None."""

    def ok(c: SigCheck) -> bool:
        try:
            c[1].verify(c[2], c[3])
        except InvalidSignature:
            return False
        return True

    for c, good in zip(checks, map_fn(ok, checks), strict=True):
        if not good:
            return c[0]
    return None


def make_genesis(
    identity: Identity,
    author: int,
    players: list[Player] | tuple[Player, ...],
    options: dict[str, JSONValue],
    nonces: list[bytes] | tuple[bytes, ...],
) -> bytes:
    """The signed genesis proposal (seq 0) by the host at seat ``author``.

    ``nonces``: one per seat, in seat order, each 32 fresh random bytes drawn by that seat's
    own node (``os.urandom(32)``) and sent to the host in the lobby: every seat then knows the
    game id is new, since it hashes a nonce the seat drew for this table alone.
    """
    genesis = Genesis(players=tuple(players), options=options, nonces=tuple(nonces))
    Genesis.from_obj(genesis.to_obj())  # same checks a receiver makes
    if players[author].sign_pk != identity.sign_pk:
        raise ValueError("the host's identity is not the player at its seat")
    return sign_entry(
        identity,
        game=genesis.game_id,
        seq=0,
        author=author,
        role=Role.PROPOSAL,
        kind=GENESIS_KIND,
        prev=[],
        body=genesis.to_obj(),
    )
