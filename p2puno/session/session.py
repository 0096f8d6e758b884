"""The game session: the protocol state machine. This file owns it.

Sans-IO, like h11's Connection: signed entries (bytes) come in through :meth:`Session.receive`,
entries to broadcast go out through :attr:`Session.outbox`, and :attr:`Session.events` tells a
UI what happened. It joins the three layers below it and knows nothing above it (no socket, no
clock, no randomness but the injected one):

- the rules engine (one partial-information :class:`~p2puno.engine.Game` per node),
- the mental-poker layer (a :class:`~p2puno.crypto.ShuffleView` per joint shuffle),
- the signed log (a :class:`~p2puno.log.Log`: who may propose at each step is decided here).

The game is a sequence of steps. Each step is one proposal by one seat and a response from
every other seat; every node processes a step only once it is complete, in the same order,
with the same code, so every node reaches the same state. What is proposed, and by whom, is a
function of the state (:meth:`Session._schedule`):

1. a joint shuffle in progress: commitments (all seats in one step), then each shuffle pass by
   the seat whose turn it is in the crypto schedule;
2. after a played card, a *window* step proposed by the player who acted: every response says
   whether its author claims the window (call UNO, catch, jump in). Every seat answers every
   proposal, claim or not, so the answer itself leaks nothing; claimants then act one by one
   in seat order after the last actor (a deterministic winner);
3. keys owed (a card dealt, drawn, passed or shown to a challenger; a card made public): a
   *sync* step in which every owing seat includes them;
4. the end of a deck (a round, the draw for dealer) or a dispute: a *reveal* step in which
   every seat publishes its secrets, and every node audits the deck with full information;
5. otherwise the player on turn, by the engine, proposes its action.

Delivery does not matter: an entry that arrives before its parents waits (bounded per author,
in bytes) and :meth:`Session.missing` names what to fetch; a proposal is judged only once the
step before it is processed. A proposal is checked on arrival against the schedule and the
public state (:meth:`Session._precheck`) before this node answers it, so no key or secret ever
leaves in answer to a bogus proposal: a proposal that fails is a public fault of its author,
found alike by every node that receives it.

Verdicts (:attr:`Session.outcome`), each reached from evidence every node holds:

- a *cheat* (a public fault, an audit verdict, two signed versions of one entry): the seat is
  named, the round in play is void, the game ends; the scores are those of the last audited
  round before the cheat;
- a *stop*: the node layer, which has the clock, calls :meth:`Session.stop` when a seat it
  waits for has missed the table's deadline; the node signs a vote and writes nothing more; a
  node that sees a vote joins it; the stop is decided once every seat has voted or is named
  silent by a vote. The round in play is void (its cards cannot be opened without the silent
  seat's keys), except that a round already played to its end counts unless its winner is
  silent; the scores are the last audited ones;
- *finished*: the game reached its target and its last deck was audited.

A fault only one node can see (a show that decrypts to garbage, a false challenge verdict seen
by the offender, a card it holds showing up in public) is announced as a dispute; every seat
then reveals its secrets and the audit names the cheater, or the accuser if there was nothing
to find. See protocol/spec.md section 10 and the failure table there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from p2puno.bots.view import SeatView
from p2puno.crypto import (
    CryptoError,
    Fault,
    KeyCommitment,
    KeyRelease,
    Parent,
    Rng,
    SecretReveal,
    ShowMessage,
    ShuffleSecrets,
    ShuffleSpec,
    ShuffleStep,
    ShuffleView,
    SystemRng,
    VerificationError,
    audit,
)
from p2puno.engine import Event, Game, IllegalAction, InputError, Options, Phase, parse_action
from p2puno.engine.actions import Action, Kind
from p2puno.engine.cards import CARD_COLOR, CARD_RANK, DECK_SIZE, UNKNOWN_CARD, NotationError
from p2puno.log import (
    ACCEPT_KIND,
    GENESIS_KIND,
    AddResult,
    Entry,
    Equivocation,
    Identity,
    Log,
    LogError,
    Reason,
    Role,
    Status,
    vote_waiting,
)
from p2puno.sim.words import COLOR_NAMES
from p2puno.wire import JSONValue

SHUFFLE_DOMAIN = b"p2puno/v1/shuffle\x00"
REACTIONS = (Kind.UNO, Kind.CATCH, Kind.JUMP)
# Entries that arrived before their parents wait, up to this many bytes per author. An honest
# author is at most a step or two ahead of a receiver (the lock-step), i.e. a few entries.
PARK_BUDGET: Final = 1 << 20
# Entries more than this many steps past the receiver's newest proposal are not kept: an honest
# author cannot be there unless the receiver is behind, and then it syncs by step.
PARK_AHEAD: Final = 2
STOP_KIND: Final = "stop"
MAX_REASON: Final = 160  # characters of a notation error kept in a blame (see _parse_action)
# the members a body of each kind may hold (spec 10.3 and 10.5, protocol/schemas/session-*.json),
# besides those every body may: a member of no kind's is a fault of its author. They were
# ignored and kept: helper-37 padded each of its entries with 200 KB of junk, and every node
# stored and relayed 46 MB of it in a game to 100, naming nobody.
BODY_COMMON: Final = frozenset({"releases", "shows", "dispute"})
MAX_DISPUTE: Final = 1000  # characters of a dispute's words (a node writes a line)
BODY_MEMBERS: Final = {
    "action": frozenset({"action"}),
    "pass": frozenset(),
    "reveal": frozenset({"secrets"}),
    "shuffle": frozenset({"commitment", "step"}),
    "sync": frozenset(),
    "window": frozenset({"claim"}),
    "ack": frozenset({"claim", "commitment", "secrets"}),  # (every response)
}


class Decider(Protocol):
    """Who chooses for the local seat at once: a bot. (A person answers a :class:`Prompt`.)"""

    def act(self, view: Any, actions: list[Action]) -> Action: ...

    def react(self, view: Any, actions: list[Action]) -> Action | None: ...


@dataclass(frozen=True)
class Blame:
    """A finding that ends the game: ``seat`` is at fault."""

    seat: int
    reason: str
    step: int

    def __str__(self) -> str:
        return f"step {self.step}: seat {self.seat} is at fault: {self.reason}"


class SessionError(ValueError):
    """Input this node refuses. ``seat`` is the sender to blame (None if unknown)."""

    def __init__(self, seat: int | None, reason: str) -> None:
        super().__init__(f"seat {seat}: {reason}" if seat is not None else reason)
        self.seat = seat
        self.reason = reason


@dataclass(frozen=True)
class SessionEvent:
    # "engine", "blame", "dispute", "audit", "bluff", "over", "evidence", "vote", "refused"
    kind: str
    text: str
    seat: int = -1
    event: Event | None = None  # the engine's own event, for "engine"


@dataclass(frozen=True)
class Prompt:
    """A decision this node's seat owes now. Answer it with :meth:`Session.decide`.

    ``kind``: "turn" (one of ``actions``, on turn), "claim" (in a window: the reaction to
    claim, or None), "react" (at the head of the claim queue: a reaction, or None to pass).
    """

    kind: str
    seq: int
    actions: tuple[Action, ...]
    view: SeatView


@dataclass(frozen=True)
class Waiting:
    """Whom this node waits for now and what they owe (for the node layer's deadlines)."""

    step: int  # the step in progress
    kind: str  # its kind ("stop" while votes are being collected)
    seats: tuple[int, ...]  # the seats whose entry (or vote) this node waits for
    owed: dict[int, str] = field(default_factory=dict)  # seat -> what it owes, in words


@dataclass(frozen=True)
class Outcome:
    """The game's result as this node knows it; the same on every node holding the same
    entries (see the module docstring)."""

    state: str  # "playing", "stopping", "finished", "cheat", "stopped"
    scores: tuple[int, ...]
    winners: tuple[int, ...] = ()
    blame: Blame | None = None
    silent: tuple[int, ...] = ()  # seats named silent by a stop
    void: bool = False  # the round in play when the game ended does not count
    step: int = -1  # the step the verdict is about
    # the seats whose votes decided a stop: a vote is a signed claim, not a proof, and the
    # words say whose claim it is (helper-32: one seat's file, cut short and ending on its
    # lone vote, read "Host and Bot-2 silent past the deadline" as a fact)
    voters: tuple[int, ...] = ()
    # of a stop, whom each seat's vote named (by seat; () for a seat that did not vote): when
    # every seat voted nobody is silent, and a seat that stalled and then voted too named the
    # seat that waited for it (helper-37); the words say who waited for whom
    waited: tuple[tuple[int, ...], ...] = ()

    @property
    def over(self) -> bool:
        return self.state in ("finished", "cheat", "stopped")

    def __str__(self) -> str:
        scores = list(self.scores)
        if self.state == "finished":
            return f"finished: winners {list(self.winners)}; scores {scores}"
        if self.state == "cheat":
            void = "; the round in play is void" if self.void else ""
            return f"cheat: {self.blame}{void}; scores {scores}"
        if self.state == "stopped":
            who = f"seats {list(self.silent)} silent" if self.silent else "by every seat's vote"
            void = "; the round in play is void" if self.void else ""
            won = f"; winners {list(self.winners)}" if self.winners else ""
            return f"stopped after step {self.step}: {who}{void}{won}; scores {scores}"
        return f"{self.state}; scores {scores}"


@dataclass
class _Shuffle:
    """One joint shuffle of the current deck: its spec, the public view, my secrets."""

    spec: ShuffleSpec
    view: ShuffleView
    mine: ShuffleSecrets | None
    base: int  # engine slot of position 0
    parent: int | None = None  # index of the parent shuffle of a hidden reshuffle
    committed: bool = False

    def slot_range(self) -> range:
        return range(self.base, self.base + self.spec.size)


@dataclass
class _Step:
    kind: str
    proposer: int


@dataclass
class _Parked:
    raw: bytes
    author: int
    seq: int
    missing: set[bytes]


def shuffle_id(game_id: bytes, deck: int, index: int) -> bytes:
    data = SHUFFLE_DOMAIN + game_id + deck.to_bytes(4, "big") + index.to_bytes(4, "big")
    return hashlib.sha256(data).digest()


class Session:
    """One node's view of one game. ``seat=None`` makes an observer (the offline replay)."""

    def __init__(
        self,
        log: Log,
        *,
        seat: int | None = None,
        identity: Identity | None = None,
        nonce: bytes | None = None,
        decider: Decider | None = None,
        rng: Rng | None = None,
        on_entry: Callable[[bytes], None] | None = None,
        on_secrets: Callable[[list[SecretReveal]], None] | None = None,
        saved_secrets: list[SecretReveal] | None = None,
        audit_executor: Executor | None = None,
        thorough_audit: bool = False,
        park_budget: int = PARK_BUDGET,
    ) -> None:
        """``seat``/``identity``: this node's seat and keys (checked against the roster);
        ``nonce``: the 32 bytes this node drew for this table and gave the host (required with
        a seat: the genesis must carry it at this seat, so the game is new to this node).
        ``saved_secrets``: the shuffle secrets this node committed to before a crash (its
        secrets file): a shuffle whose id is among them uses them, never fresh ones, so a
        resumed node opens what was shown to it and answers as it would have.
        ``decider``: a bot that answers at once; without one, every decision is a
        :attr:`prompt` answered later through :meth:`decide`.
        ``audit_executor``: an executor the end-of-deck audit may share its work with (see
        :func:`p2puno.crypto.audit`); the verdict is the same without one.
        ``thorough_audit``: the audit recomputes every shuffle step, so every intermediate deck
        in the log is checked too, not only what the composed check proves ((2n-1)x the EC
        work; see docs/security.md)."""
        if log.game_id is None or len(log) == 0 or log.genesis is None:
            raise ValueError("the log must hold the genesis first")
        genesis = log.proposal(0)
        assert genesis is not None
        self.options = options_from_obj(log.genesis.options)
        self.timing = timing_from_obj(log.genesis.options)
        # the most shuffles a reveal step may carry (genesis options' `reveal`, spec 10.10);
        # None: a table of an earlier build, which set none (its reveals carried a whole deck)
        self.reveal_max = reveal_from_obj(log.genesis.options)
        if self.options.players != len(log.players):
            raise ValueError("the options and the roster disagree on the number of players")
        if seat is not None:
            if identity is None or not 0 <= seat < len(log.players):
                raise ValueError("a seat needs its identity")
            player = log.players[seat]
            if (player.sign_pk, player.dh_pk) != (identity.sign_pk, identity.dh_pk):
                raise ValueError(f"this node's keys are not the roster's keys at seat {seat}")
            if nonce is None or log.genesis.nonces[seat] != nonce:
                raise ValueError(
                    f"the genesis does not carry this node's nonce at seat {seat}: "
                    "an old or foreign game, not the table this node joined"
                )
        self.log = log
        self.audit_executor = audit_executor
        self.thorough_audit = thorough_audit
        self.park_budget = park_budget
        self.game_id: bytes = log.game_id
        self.n = self.options.players
        self.seat = seat
        self.identity = identity
        self.decider = decider
        self.rng = rng if rng is not None else SystemRng()
        self.on_entry = on_entry
        self.on_secrets = on_secrets
        self._saved = {r.shuffle_id: r for r in saved_secrets or []}
        self.engine = Game(self.options)
        self.outbox: list[bytes] = []
        self.events: list[SessionEvent] = []
        self.shuffles: list[_Shuffle] = []
        # the deck's reveal so far (REVEAL_SHUFFLES at a step): the next shuffle whose secrets
        # are due, the step its reveal began after, and the reveal entries taken
        self._reveal_from = 0
        self._reveal_at = -1
        self._revealed: list[tuple[Entry, list[SecretReveal]]] = []
        self.deck_no = 0
        self.shown: dict[tuple[int, int], set[tuple[int, int]]] = {}  # (sender, to) -> slots
        self.last_actor = 0
        self.window_due = False
        self.claim_queue: list[int] = []
        self.my_claim: Action | None = None
        self._claim_seq = -1  # the window step my_claim was decided for
        self.dispute: tuple[int, str] | None = None  # (accuser, reason)
        self.my_dispute: str | None = None
        self.blame: Blame | None = None  # the cheat verdict, if any (see outcome)
        # what still counts after a cheat that changed nothing played: (scores, void, winners)
        # (see _counted_after); None: the round in play at the verdict's step is void
        self._blame_counted: tuple[tuple[int, ...], bool, tuple[int, ...]] | None = None
        self._dispute_at = -1  # the step whose entries raised the dispute
        self._evidence_said: set[tuple[int, str]] = set()  # (author, what) told as evidence
        self.audited_rounds = 0
        self.bluffs: list[str] = []
        # Refusals of entries that had waited for their parents (the sender is long gone).
        self.refused: list[SessionError] = []
        # The inputs of the current deck, for the full-information audit at its end.
        self.deck_inputs: list[tuple[str, Any]] = []
        self.shadow = Game(self.options)  # full information, one deck behind
        self.audited_deck = 0
        self.prompt: Prompt | None = None
        self._answer: tuple[int, str, Action | None] | None = None
        self._finished = False
        self._voted = False
        # A node that takes its input in bursts sets defer_join: a vote it takes then marks
        # its join due (join_due) instead of joining inside the vote's processing, and the
        # node calls join_votes() once the burst is in (see join_votes)
        self.defer_join = False
        self.join_due = False
        self._quiet = False  # replay_known: process what the log holds, write nothing
        self._stop: Outcome | None = None  # the stop as decided by the votes held, if any
        # (step after which it was audited, scores): the standings of every audited deck
        self._standings: list[tuple[int, tuple[int, ...]]] = [(0, tuple(self.engine.scores))]
        # step of a round's last play -> (scores, who went out, the game's winners if it
        # ended the game): each as it stood then (see _due_reveal)
        self._round_ends: dict[int, tuple[tuple[int, ...], int, tuple[int, ...]]] = {}
        # the same for a round whose last play raised a dispute (its reveal is the dispute's):
        # what a false accusation there, or its accuser's silence at its reveal, counts
        self._disputed_ends: dict[int, tuple[tuple[int, ...], int, tuple[int, ...]]] = {}
        self._done_seq = -1
        self._prechecked = 0  # the last seq whose proposal passed the arrival checks
        self._parked: dict[bytes, _Parked] = {}  # entries that arrived before their parents
        self._waiting_on: dict[bytes, set[bytes]] = {}  # missing parent -> parked children
        self._parked_bytes = [0] * self.n
        self.behind = -1  # the highest seq seen too far ahead to keep (sync from there)
        self._opened: set[int] = set()  # slots of this deck whose every key is public
        self._settled: set[tuple[int, int]] = set()  # (seat, slot): every key it may see, it has
        self._owed_cache: dict[tuple[int, int | None], _Owed] = {}
        self.step = _Step("genesis", genesis[1].author)
        self.seq = 0

    # ------------------------------------------------------------------ state
    @property
    def processed(self) -> int:
        """The last step this node has processed (-1 before the genesis step is complete)."""
        return self._done_seq

    @property
    def over(self) -> bool:
        """True once the game has a final verdict: nothing more is written."""
        return self.blame is not None or self._finished or self._stop is not None

    @property
    def outcome(self) -> Outcome:
        """The game's result from what this node holds (see the module docstring)."""
        if self.blame is not None:
            scores = self._scores_before(self.blame.step)
            winners: tuple[int, ...] = ()
            void = self.deck_no >= 2
            if self._blame_counted is not None:  # (a cheat that changed nothing played)
                scores, void, winners = self._blame_counted
            return Outcome(
                "cheat",
                scores,
                winners,
                blame=self.blame,
                void=void,
                step=self.blame.step,
            )
        g = self.engine
        if self._finished:
            return Outcome("finished", tuple(g.scores), tuple(g.winners), step=self._done_seq)
        if self._stop is not None:
            return self._stop
        if self._voted or self.log.votes():
            return Outcome("stopping", self._standings[-1][1], step=self._done_seq)
        return Outcome("playing", tuple(g.scores), step=self._done_seq)

    def _scores_before(self, step: int) -> tuple[int, ...]:
        return next(s for at, s in reversed(self._standings) if at < step or at == 0)

    def waiting(self) -> Waiting:
        """Whom this node waits for at this moment, and what they owe: the node layer runs a
        deadline on it and calls :meth:`stop` when it passes. Empty once the game is over,
        and while this node's own seat owes the next entry (see :attr:`prompt`)."""
        seq = self._done_seq + 1
        if self.blame is not None or self._finished or self._stop is not None:
            return Waiting(seq, "over", ())
        votes = self.log.votes()
        if self._voted or votes:
            seats = tuple(s for s in range(self.n) if s not in votes and s != self.seat)
            return Waiting(seq, STOP_KIND, seats, {s: "its vote" for s in seats})
        proposal = self.log.proposal(seq)
        if proposal is None:
            p = self.step.proposer
            what = f"its {self.step.kind} proposal"
            seats = () if p == self.seat else (p,)
            return Waiting(seq, self.step.kind, seats, {p: what} if seats else {})
        kind = proposal[1].kind
        seats = tuple(s for s in self.log.missing_responders(seq) if s != self.seat)
        return Waiting(seq, kind, seats, {s: f"its response to the {kind}" for s in seats})

    def claimable(self) -> bool:
        """Whether, by public facts alone, some seat could claim the window in progress (a
        seat that may call UNO or be caught, or Jump-In after a played card). It sets how long
        every node holds its entry of a window step (spec 10.9: the same delay for every seat,
        whatever it decides, and none when nothing can be claimed)."""
        seats, jump = self.claims_open()
        return bool(seats) or jump

    def claims_open(self) -> tuple[tuple[int, ...], bool]:
        """What may be claimed in the window in progress, by public facts alone: the seats
        that may call UNO or be caught, and whether a Jump-In may be made after the played
        card; ``((), False)`` when nothing can be (see :meth:`claimable`)."""
        g = self.engine
        if not (self.step.kind == "window" and g.window and g.need is None):
            return (), False
        return tuple(sorted(g.vulnerable)), bool(self.options.jump_in and g.top_played)

    def round_played_out(self) -> bool:
        """A round of this deck has been played to its end and the deck not yet replaced (the
        game is over, or a fresh deck is wanted): a stop decided now counts that round unless
        its winner is silent (spec 10.15, "What it gives")."""
        return self._round_over()

    def missing(self) -> list[bytes]:
        """Hashes of entries this node lacks: parents of entries that arrived before them.
        The transport fetches these from any peer."""
        return sorted(
            h for h in self._waiting_on if not self.log.knows(h) and h not in self._parked
        )

    # ------------------------------------------------------------------ inputs
    def receive(self, raw: bytes) -> None:
        """An entry from a peer (or from our own outbox, echoed back: both are fine).

        Raises only :class:`SessionError`, naming the seat to blame when the entry was signed
        by it (``None``: the bytes prove nothing; the fault is the sending peer's)."""
        try:
            result = self.log.add(raw, expected_proposer=self._expected)
        except LogError as e:
            if e.reason is Reason.EQUIVOCATION and isinstance(e.evidence, Equivocation):
                self._on_evidence(e.evidence)
                return
            if e.reason is Reason.FORK:
                return  # built on the other version of an equivocated entry: not its fault
            raise SessionError(e.author, f"{e.reason.value}: {e.message}") from None
        if result.status is Status.MISSING_PARENTS:
            self._park(raw, result)
        elif result.status is Status.ADDED:
            self._accepted(raw, result)

    def forget_ahead(self) -> None:
        """The entries seen far ahead (:attr:`behind`) are given up: the node asked its peers
        for the steps up to them, and none came. (A seat can sign an entry for a step that
        will never exist; it must not keep every node asking for it.)"""
        self.behind = -1

    def _expected(self, entry: Entry) -> int | None:
        """The seat that must have proposed ``entry``, once the step before it is processed.
        (A proposal for a later step waits for its parents and is checked then.)"""
        if (
            entry.role is Role.PROPOSAL
            and entry.seq == self._done_seq + 1
            and self.blame is None
            and not self._finished
        ):
            return self.step.proposer
        return None

    def _park(self, raw: bytes, result: AddResult) -> None:
        e = result.entry
        if result.hash in self._parked:
            return
        if e.seq > self.log.head + PARK_AHEAD:
            self.behind = max(self.behind, e.seq)  # we are behind: sync by step, not by parent
            return
        a = e.author
        if self._parked_bytes[a] + len(raw) > self.park_budget:
            raise SessionError(
                a, f"more than {self.park_budget} bytes of its entries wait for parents"
            )
        self._parked[result.hash] = _Parked(raw, a, e.seq, set(result.missing))
        self._parked_bytes[a] += len(raw)
        for m in result.missing:
            self._waiting_on.setdefault(m, set()).add(result.hash)

    def _unpark(self, h: bytes) -> _Parked | None:
        p = self._parked.pop(h, None)
        if p is not None:
            self._parked_bytes[p.author] -= len(p.raw)
            for m in p.missing:
                children = self._waiting_on.get(m)
                if children is not None:
                    children.discard(h)
                    if not children:
                        del self._waiting_on[m]
        return p

    def _accepted(self, raw: bytes, result: AddResult) -> None:
        """An entry was added: act on it, then retry every entry that waited for it (a
        worklist, not recursion: each retry either adds an entry or leaves it waiting)."""
        # on_entry is told of each entry the moment it joins the log, before anything is
        # processed (processing may write our next entry): so a log file always holds an
        # entry's parents before it, also when several waiting entries come in at once
        if self.on_entry is not None:
            self.on_entry(raw)
        work = [(raw, result)]
        while work:
            raw, result = work.pop()
            if result.entry.role is Role.VOTE:
                self._on_vote(result.entry)
            self._advance()
            if self._stop is not None:
                self._decide_stop()  # (a reveal part owed may have come: silent no more)
            for child in sorted(self._waiting_on.pop(result.hash, ())):  # none waits on it now
                parked = self._parked.get(child)
                if parked is None:
                    continue
                parked.missing.discard(result.hash)
                if parked.missing:
                    continue
                self._unpark(child)
                try:
                    again = self.log.add(parked.raw, expected_proposer=self._expected)
                except LogError as e:
                    if e.reason is Reason.EQUIVOCATION and isinstance(e.evidence, Equivocation):
                        self._on_evidence(e.evidence)
                    elif e.reason is not Reason.FORK:
                        err = SessionError(e.author, f"{e.reason.value}: {e.message}")
                        self.refused.append(err)
                        who = e.author if e.author is not None else -1
                        self.events.append(SessionEvent("refused", str(err), who))
                    continue
                if again.status is Status.MISSING_PARENTS:
                    self._park(parked.raw, again)
                elif again.status is Status.ADDED:
                    if self.on_entry is not None:
                        self.on_entry(parked.raw)
                    work.append((parked.raw, again))

    def _purge_parked(self) -> None:
        """Drop waiting entries two steps behind the game: no honest entry can still be
        missing its parents there (they name another chain, or nothing that exists)."""
        stale = [h for h, p in self._parked.items() if p.seq < self._done_seq - 1]
        for h in stale:
            self._unpark(h)

    def prune_memory(self, keep: int) -> bool:
        """Drop from memory the steps older than the last ``keep`` processed, once twice that
        many have piled up (:meth:`Log.prune`; a node keeps the rest in its log file). What
        every node, spectator and in-process table does as it plays: one policy, here. True
        if it pruned."""
        if self.processed - self.log.pruned_before <= 2 * keep:
            return False
        self.log.prune(self.processed - keep)
        return True

    def catch_up(self, max_steps: int | None = None) -> int | None:
        """Process the complete steps already in the log, in order (the offline replay, whose
        log was verified entry by entry beforehand), at most ``max_steps``. Returns the seq of a
        step whose proposer was not the one the schedule expected, else None. Once no complete
        step is left, a dangling proposal (its step never completed) is still judged: a log
        whose last proposal was bogus ends with its author named, as on the live nodes."""
        done = 0
        while self.blame is None and not self._finished:
            if max_steps is not None and done >= max_steps:
                return None
            done += 1
            seq = self._done_seq + 1
            proposal = self.log.proposal(seq)
            if proposal is None:
                break
            if proposal[1].author != self.step.proposer:
                self._set_blame(
                    proposal[1].author,
                    f"proposed at step {seq} where seat {self.step.proposer} was due",
                    seq,
                )
                return seq
            self.seq = seq
            if not self.log.step_complete(seq):
                # a dangling proposal is judged as the live nodes judged it on arrival,
                # shuffle points included (which the replay otherwise leaves to the audit)
                self._precheck_ok(seq, points=True)
                break
            if not self._precheck_ok(seq):
                return None
            self._process(seq)
            self._after_step(seq)
        self._decide_stop()
        return None

    def replay_known(self) -> None:
        """Process the complete steps the log holds, as :meth:`start` does, but write and
        decide nothing. A rebuild streams its own log file through this a step at a time: its
        own entries of a step are in the log before that step is due, so it never signs one
        again, and it can prune as it goes. :meth:`start` then goes on from there."""
        self._quiet = True
        try:
            self._advance()
        finally:
            self._quiet = False

    def start(self) -> None:
        """Produce this node's first entries (the accept of the genesis, if not yet sent)."""
        self._advance()

    def take_up_log(self) -> None:
        """After a rebuild (:meth:`replay_known` over the node's own log file, which adds the
        lines to the log without receiving them): take up what the file holds beyond the
        steps, as the node did when each of those entries arrived. This seat's own vote: it
        writes nothing more (and never a second vote, which would be an equivocation of its
        own). The equivocation evidence the file kept: its author is named again, and the two
        entries go out again so every node holds the proof. Other seats' votes: joined, as on
        arrival (the vote goes out at start). Then the stop, once every seat has voted or been
        named silent. Writes through the hooks: call it once they are in place."""
        votes = self.log.votes()
        if self.seat is not None and self.seat in votes:
            self._voted = True
            self.prompt = None
        for eq in self.log.evidence:
            self.outbox.extend([eq.first, eq.second])
            self.note_evidence(eq)
        self.join_due = False  # (the file holds every vote taken: the join names the rest)
        if votes and self._may_join():
            self._vote(self._non_voters())
        self._decide_stop()

    def join_votes(self) -> None:
        """Join the votes taken since :attr:`defer_join` marked the join due (spec 10.15: a
        node that takes a vote and has not voted joins at once; its vote names every seat
        that has not voted). A node sets ``defer_join`` and calls this once the input in hand
        is in: a SYNC's answer brings the step, then every vote held, one entry at a time,
        and a join inside the first vote's processing named the seats whose votes came next
        as silent (helper-97: a late seat's signed vote read "Bob waited for Cy", Cy had
        voted). The stop is not decided while the join is due (:meth:`_decide_stop`): this
        node's vote is part of it."""
        if not self.join_due:
            return
        self.join_due = False
        if self._may_join():
            self._vote(self._non_voters())
        self._decide_stop()

    def _may_join(self) -> bool:
        return (
            self.seat is not None
            and self.identity is not None
            and not self._voted
            and self.blame is None
            and not self._finished
        )

    def decide(self, choice: Action | None) -> None:
        """Answer the current :attr:`prompt` (a person's choice, or a bot's taken later).

        ``None`` declines (a claim) or passes (a reaction); a turn needs an action. Raises
        ``ValueError`` for a choice that was not offered: nothing is sent then."""
        p = self.prompt
        if p is None:
            raise ValueError("nothing to decide now")
        if choice is None and p.kind == "turn":
            raise ValueError("an action is needed on turn")
        if choice is not None and choice not in p.actions:
            raise ValueError(f"{choice} is not one of the actions offered")
        self._answer = (p.seq, p.kind, choice)
        self.prompt = None
        self._advance()

    def stop(self, unreachable: Iterable[int] = ()) -> bool:
        """The node's deadline passed while it waited for :meth:`waiting`'s seats: vote to
        stop the game (a signed entry in :attr:`outbox`) and write nothing more in it.
        Returns False if there is nothing to stop or nothing to add to this node's vote.

        The vote names the seats waited for and, with them, the ``unreachable`` ones (seats
        the node has no link to: the node layer knows, the session has no network) that have
        not voted: a seat whose process died between two of its answers is waited for by
        nobody, and unnamed it would keep the stop undecided (spec 10.15). A seat that can be
        reached is left to join, as it does at once.

        Called again once this node has voted (its deadline passed again while it waited
        for votes), it amends its vote to name the seats that have neither voted nor been
        named by any vote held: a seat that can be reached but refuses to vote would
        otherwise keep the stop undecided for ever (spec 10.15)."""
        if self.seat is None or self.identity is None:
            return False
        if self.blame is not None or self._finished:
            return False
        if self._voted:
            return self._amend_vote()
        w = self.waiting()
        if w.kind == STOP_KIND:
            return self._vote(self._non_voters())
        if not w.seats:
            return False
        gone = set(unreachable) & set(self._non_voters())
        return self._vote(tuple(sorted(set(w.seats) | gone)))

    @property
    def voted(self) -> bool:
        """Whether this node has voted to stop its game (it writes nothing more in it)."""
        return self._voted

    # ------------------------------------------------------------------ the step loop
    def _advance(self) -> None:
        while self.blame is None and not self._finished:
            seq = self._done_seq + 1
            if self.log.proposal(seq) is not None:
                self.seq = seq
                if not self._precheck_ok(seq):
                    return
                if self.log.step_complete(seq):
                    self._process(seq)
                    self._after_step(seq)
                    continue
            if self._quiet:
                return
            if self._maybe_produce():
                continue
            if (
                self.step.kind == "window"
                and self.seat is not None
                and self.identity is not None
                and not self._voted
                and not self.over
                and self._claim_seq != seq
            ):
                self._decide_claim()  # a responder decides while the proposal is on its way
            return

    def _precheck_ok(self, seq: int, *, points: bool = False) -> bool:
        if seq <= self._prechecked or seq == 0:
            return True
        proposal = self.log.proposal(seq)
        assert proposal is not None
        try:
            self._precheck(proposal[1], points=points or self.seat is not None)
        except _Fault as f:
            self._set_blame(f.seat, f.reason, seq)
            return False
        self._prechecked = seq
        return True

    def _maybe_produce(self) -> bool:
        """Write our entry for the current step if it is due. True if something was made.

        A voter writes nothing more in the chain but its part of a reveal (spec 10.15): a
        reveal needs no decision, so an honest seat always sends it, and a voter that owes
        one and withholds it is silent (_decide_stop)."""
        if self.seat is None or self.identity is None or self.blame is not None:
            return False
        if self._finished or (
            (self._voted or self._stop is not None) and self.step.kind != "reveal"
        ):
            return False
        seq = self._done_seq + 1
        proposal = self.log.proposal(seq)
        raw: bytes | None
        if proposal is None:
            if self.step.proposer != self.seat:
                return False
            raw = self._make_proposal()
        else:
            if proposal[1].author == self.seat or self.seat in self.log.responses(seq):
                return False
            raw = self._make_response(proposal[1])
        if raw is None:
            return False  # a decision is pending (see prompt)
        self._emit(raw)
        return True

    def _emit(self, raw: bytes) -> None:
        result = self.log.add(raw, own=True)  # (first: nothing leaves that the log refused)
        self.outbox.append(raw)
        if result.status is Status.ADDED and self.on_entry is not None:
            self.on_entry(raw)

    # ------------------------------------------------------------------ decisions
    def _decision(self, kind: str, actions: list[Action]) -> tuple[bool, Action | None]:
        """(ready, choice) for a decision of ``kind`` among ``actions`` in the current step:
        from the synchronous decider, from an answer to the prompt, or not yet (a prompt is
        raised for the node to answer)."""
        me = self.seat_or_fail()
        seq = self._done_seq + 1
        if self.decider is not None:
            view = SeatView(self.engine, me)
            if kind == "turn":
                return True, self.decider.act(view, actions)
            return True, self.decider.react(view, actions)
        answer = self._answer
        if answer is not None and answer[0] == seq and answer[1] == kind:
            self._answer = None
            return True, answer[2]
        self.prompt = Prompt(kind, seq, tuple(actions), SeatView(self.engine, me))
        return False, None

    # ------------------------------------------------------------------ making entries
    def _base_body(self, pending_play: int | None = None) -> dict[str, JSONValue]:
        releases, shows = self._owed_by(self.seat_or_fail(), pending_play)
        body: dict[str, JSONValue] = {
            "releases": [r.to_obj() for r in releases],
            "shows": [s.to_obj() for s in shows],
        }
        if self.my_dispute is not None:
            body["dispute"] = self.my_dispute
        return body

    def seat_or_fail(self) -> int:
        if self.seat is None:
            raise ValueError("an observer writes nothing")
        return self.seat

    def _make_proposal(self) -> bytes | None:
        assert self.identity is not None
        me = self.seat_or_fail()
        kind = self.step.kind
        extra: dict[str, JSONValue] = {}
        pending_play: int | None = None
        if kind == "shuffle":
            sh = self.shuffles[-1]
            assert sh.mine is not None
            if not sh.committed:
                extra["commitment"] = sh.mine.commitment().to_obj()
            else:
                extra["step"] = sh.mine.step(sh.view).to_obj()
        elif kind == "action":
            ready, action = self._choose_action()
            if not ready:
                return None
            if action is None:
                kind = "pass"
            else:
                if action.kind in (Kind.PLAY, Kind.JUMP):
                    pending_play = action.slot
                extra["action"] = str(action)
        elif kind == "reveal":
            extra["secrets"] = self._my_secrets(self._reveal_default())
        elif kind == "window":
            ready, claim = self._decide_claim()
            if not ready:
                return None
            extra["claim"] = claim
        body = self._base_body(pending_play)
        if pending_play is not None:
            # our own key for the card we play: it becomes public in this step
            rel = self._mine_for(pending_play)
            releases = body["releases"]
            assert isinstance(releases, list)
            if rel is not None and rel.to_obj() not in releases:
                releases.append(rel.to_obj())
        body.update(extra)
        return self.log.propose(self.identity, me, kind, body)

    def _make_response(self, proposal: Entry) -> bytes | None:
        """Our answer to a proposal that passed :meth:`_precheck` (only such a proposal gets
        an answer: no key or secret leaves before it is checked)."""
        assert self.identity is not None
        me = self.seat_or_fail()
        if proposal.kind == GENESIS_KIND:
            return self.log.respond(self.identity, me, ACCEPT_KIND, {})
        body_p = proposal.body
        assert isinstance(body_p, dict)
        extra: dict[str, JSONValue] = {}
        if proposal.kind == "window":
            ready, claim = self._decide_claim()
            if not ready:
                return None
            extra["claim"] = claim
        elif proposal.kind == "shuffle" and "commitment" in body_p:
            sh = self.shuffles[-1]
            assert sh.mine is not None and not sh.committed
            extra["commitment"] = sh.mine.commitment().to_obj()
        elif proposal.kind == "reveal":
            try:
                part = self._reveal_part(proposal)[0]
            except _Fault:  # (its author's, said when the step is taken: ours go all the same)
                part = self._reveal_default()
            extra["secrets"] = self._my_secrets(part)
        body = self._base_body(self._played_slot(proposal))
        body.update(extra)
        return self.log.respond(self.identity, me, "ack", body)

    def _decide_claim(self) -> tuple[bool, bool]:
        """(ready, claim) for the window step in progress, decided once per window: asked as
        soon as the window is scheduled (see _advance), so that every seat has the same time
        to decide, whether or not the window's proposal has arrived yet."""
        me = self.seat_or_fail()
        seq = self._done_seq + 1
        if self._claim_seq == seq:
            return True, self.my_claim is not None
        options = self.engine.reactions(me)
        if not options:
            choice = None
        else:
            ready, choice = self._decision("claim", options)
            if not ready:
                return False, False
        self.my_claim = choice
        self._claim_seq = seq
        return True, choice is not None

    def _choose_action(self) -> tuple[bool, Action | None]:
        me = self.seat_or_fail()
        g = self.engine
        if self._claiming():
            options = g.reactions(me)
            if self.my_claim is not None and self.my_claim in options:
                return True, self.my_claim
            if not options:
                return True, None
            return self._decision("react", options)
        return self._decision("turn", g.turn_actions(me))

    def _claiming(self) -> bool:
        return bool(self.claim_queue) and self.claim_queue[0] == self.seat

    # ------------------------------------------------------------------ votes and evidence
    def _non_voters(self) -> tuple[int, ...]:
        votes = self.log.votes()
        return tuple(s for s in range(self.n) if s not in votes and s != self.seat)

    def _vote(self, waiting: tuple[int, ...]) -> bool:
        assert self.identity is not None and self.seat is not None
        try:
            raw = self.log.vote(self.identity, self.seat, STOP_KIND, {"waiting": list(waiting)})
        except ValueError:
            return False  # no complete step yet: the game never started (the lobby's business)
        self._voted = True
        self.join_due = False  # (this vote is the join)
        self.prompt = None
        result = self.log.add(raw, own=True)  # (first: nothing leaves that the log refused)
        self.outbox.append(raw)
        if result.status is Status.ADDED:
            self._accepted(raw, result)
        return True

    def _amend_vote(self) -> bool:
        """Name, in an amendment of this node's vote, the seats that neither voted nor are
        named by any vote held (see :meth:`stop`). False if there are none (or the stop is
        decided)."""
        assert self.identity is not None and self.seat is not None
        votes = self.log.votes()
        if self._stop is not None or self.seat not in votes:
            return False
        named = self.log.named_by_votes()
        unnamed = {s for s in self._non_voters() if s not in named}
        if not unnamed:
            return False
        mine = {s for s in vote_waiting(votes[self.seat][1]) if 0 <= s < self.n}
        seats: list[JSONValue] = [*sorted(mine | unnamed)]
        body: JSONValue = {"waiting": seats}
        raw = self.log.amend_vote(self.identity, self.seat, body)
        result = self.log.add(raw, own=True)  # (first: nothing leaves that the log refused)
        if result.status is not Status.ADDED:
            return False
        self.outbox.append(raw)
        self._accepted(raw, result)
        return True

    def _on_vote(self, entry: Entry) -> None:
        body = entry.body
        waiting = body.get("waiting") if isinstance(body, dict) else None
        what = "votes"
        if len(self.log.vote_hashes(entry.author)) > 1:  # (they may come in any order)
            counted = self.log.votes().get(entry.author)
            amended = counted is not None and counted[1] == entry
            what = "amends its vote" if amended else "had voted (an amended vote came first)"
        if isinstance(waiting, list) and all(type(w) is int for w in waiting):
            # (named by the words: Bob, Cy; an empty list read "waiting for )"). A seat named
            # that has voted here too is one whose vote crossed this one on the way (a review
            # read "Bot-1 votes to stop (waiting for Host)" on the host's screen as blame).
            # Each seat once, and only seats (helper-47: [0] * 1800 made a 9,000-character
            # line on every terminal)
            # (helper-92 read "waiting for seat 0 (voted too: the votes crossed), seat 2" as
            # still waiting for seat 2's vote and hard to follow: the crossed ones said apart)
            voted = self.log.votes()
            seats = sorted({w for w in waiting if type(w) is int and 0 <= w < self.n})
            waits = ", ".join(f"seat {w}" for w in seats if w not in voted)
            crossed = ", ".join(f"seat {w}" for w in seats if w in voted)
            if not crossed:
                waiting = waits or "no one"
            elif waits:
                waiting = f"{waits}; {crossed} voted too: the votes crossed"
            else:
                waiting = f"{crossed}, who voted too: the votes crossed"
        else:  # (any JSON a voter signed: shown short and printable, as a dispute's words)
            waiting = "".join(c if c.isprintable() else "?" for c in str(waiting)[:80])
        self.events.append(
            SessionEvent(
                "vote", f"seat {entry.author} {what} to stop (waiting for {waiting})", entry.author
            )
        )
        if self._may_join():  # the voter writes nothing more: join it
            if self.defer_join:
                self.join_due = True  # (once the input in hand is in: join_votes)
            else:
                self._vote(self._non_voters())
        self._decide_stop()

    def _decide_stop(self) -> None:
        """The stop, once every seat has voted or is named silent by a vote held here."""
        votes = self.log.votes()
        if not votes or self.blame is not None or self._finished or self.join_due:
            return
        named = self.log.named_by_votes()
        silent = tuple(s for s in range(self.n) if s not in votes)
        if any(s not in named for s in silent):
            return  # a seat neither voted nor was named: wait
        k = max(e.seq for _, e in votes.values())
        if k > max(self._done_seq, 0):
            # not yet processed up to the voters' step (a replay holds the votes from its
            # first step on): the standings at K are not known here yet. A vote's parents are
            # step K's entries, so this node gets there, and decides then (_after_step)
            return
        # K is the furthest step complete here, not a voter's word for it: a vote's seq is a
        # claim its author signs, and one dated back (helper-39: the host's vote at the step
        # before a round's reveal, its own entries of the six steps after it in the same
        # file) voided a round audited since. Every step complete here is signed by every
        # seat, so it is a fact on every node that holds it (spec 10.15, "What it gives").
        k = max(k, self._done_seq)
        # A voter that owes its part of the reveal after K is silent too: every seat sends
        # its part of a reveal, voter or not (_maybe_produce), so one that signed a vote
        # instead is keeping its secrets from the audit (helper-25: a winner kept an
        # unaudited win, and a cheat its false dispute, that way, naming no one)
        withheld = self._reveal_owed(k) & set(votes)
        silent = tuple(sorted({*silent, *withheld}))
        scores = next(s for at, s in reversed(self._standings) if at <= k)
        winners: tuple[int, ...] = ()
        # a round was in play (deck 1 is the draw for dealer), unless step K is a deck's
        # audit: then the next round had not begun (its shuffle is the step after)
        void = self.deck_no >= 2 and self._standings[-1][0] != k
        end = self._round_ends.get(k)
        if end is None and self.dispute is not None and self.dispute[0] in silent:
            # the accuser silent at its own dispute's reveal (raised at the round's last play):
            # as a false accusation there would, the round counts (helper-47: a loser's
            # dispute, then silence, took the win away)
            end = self._disputed_ends.get(k)
        if end is not None and end[1] not in silent and not set(end[2]) & set(silent):
            # The round was played to its end before the stop (only its deck's reveal was
            # missing): it counts, unless its winner is silent (who might be keeping a cheat
            # from the audit), or the game's (the lowest score wins it, helper-41). So a
            # seat that sees it has lost cannot undo the result.
            scores, void, winners = end[0], False, end[2]
        previous = self._stop
        voters = tuple(sorted(set(votes) - set(silent)))
        waited = tuple(
            tuple(sorted(x for x in vote_waiting(votes[s][1]) if x < self.n and x != s))
            if s in votes
            else ()
            for s in range(self.n)
        )
        self._stop = Outcome(
            "stopped",
            scores,
            winners,
            silent=silent,
            void=void,
            step=k,
            voters=voters,
            waited=waited,
        )
        if previous != self._stop:
            self.events.append(SessionEvent("over", str(self._stop)))

    def _reveal_owed(self, k: int) -> set[int]:
        """The seats that owe their part of step K + 1 if it is a reveal still in progress:
        its proposer while its proposal is missing, else the responders missing."""
        if self._done_seq != k or self.step.kind != "reveal":
            return set()
        if self.log.proposal(k + 1) is None:
            return {self.step.proposer}
        return set(self.log.missing_responders(k + 1))

    def note_evidence(self, eq: Equivocation) -> None:
        """Equivocation evidence found outside :meth:`receive` (a log file being replayed):
        the author is named as if the two entries had arrived here. Two votes may name
        different steps: the earlier one is the step of the verdict, whichever came first."""
        step = eq.seq
        if eq.role is Role.VOTE:
            step = min(_seq_of(eq.first), _seq_of(eq.second))
            what = "vote"
        else:
            what = f"{eq.role.value} at step {eq.seq}"
        # Two votes are no entry of a step, and an entry of a step this node went past (a
        # later step is complete here: every seat signed it over one version) changed
        # nothing played: the game's result as this node holds it stands, as a stop here
        # would count it, and the cheat never wins (helper-47: a loser signed a second
        # version of its old accept, or two votes, after losing, and wiped the result)
        settled = eq.role is Role.VOTE or eq.seq < self._done_seq
        self._set_blame(
            eq.author, f"equivocation: two signed versions of its {what}", step, settled=settled
        )

    def _on_evidence(self, eq: Equivocation) -> None:
        """Two signed entries from one seat for one slot: keep and relay both, name it."""
        if self.on_entry is not None:
            self.on_entry(eq.second)  # the log file keeps the evidence
        self.outbox.extend([eq.first, eq.second])  # so that every node holds the proof
        what = "votes" if eq.role is Role.VOTE else f"{eq.role.value}s at step {eq.seq}"
        said = (eq.author, what)
        if said not in self._evidence_said:  # (helper-37 read it twice: a third version)
            self._evidence_said.add(said)
            self.events.append(
                SessionEvent("evidence", f"seat {eq.author} signed two {what}", eq.author)
            )
        self.note_evidence(eq)

    # ------------------------------------------------------------------ keys owed
    def _slot_ref(self, slot: int) -> tuple[_Shuffle, int] | None:
        """The shuffle and position behind an engine slot (None while that deck is shuffled)."""
        for sh in reversed(self.shuffles):
            if not sh.view.complete:
                if sh.base == 0:
                    return None  # a new deck: the engine's slots still name the old one
                continue
            if slot >= sh.base:
                if slot - sh.base < sh.spec.size:
                    return sh, slot - sh.base
                return None
        return None

    def _mine_for(self, slot: int) -> KeyRelease | None:
        ref = self._slot_ref(slot)
        if ref is None or ref[0].mine is None:
            return None
        return ref[0].mine.release(ref[1])

    def _public_slots(self) -> set[int]:
        g = self.engine
        slots = set(g.discard)
        if g.phase is Phase.DEALER_DRAW:
            slots |= set(g.dd_slots)
        if g.need is not None and g.need.kind == "reveal":
            slots |= set(g.need.slots)
        return slots

    def _owed(self, pending_play: int | None = None) -> _Owed:
        """:meth:`_owed_now`, cached until the state changes (a step is processed)."""
        key = (self._done_seq, pending_play)
        hit = self._owed_cache.get(key)
        if hit is None:
            hit = self._owed_cache[key] = self._owed_now(pending_play)
        return hit

    def _owed_now(
        self, pending_play: int | None = None
    ) -> dict[int, tuple[list[int], dict[int, list[int]]]]:
        """For every seat: slots whose key it must publish, and slots to show to each seat."""
        g = self.engine
        public = self._public_slots()
        if pending_play is not None:
            public.add(pending_play)
        owed: dict[int, tuple[list[int], dict[int, list[int]]]] = {
            q: ([], {}) for q in range(self.n)
        }
        opened = self._opened  # slots whose every key is public: nothing more is owed
        for slot in sorted(public - opened):  # (the discard pile is almost all opened)
            ref = self._slot_ref(slot)
            if ref is None:
                continue
            sh, pos = ref
            done = sh.view.released(pos)
            if len(done) == self.n:
                opened.add(slot)
                continue
            for q in range(self.n):
                if q not in done:
                    owed[q][0].append(slot)
        # Keys only ever get released or shown, never taken back, so a (seat, slot) with
        # nothing owed stays so for the rest of the deck (slot numbers restart with a new deck).
        settled, shown, none = self._settled, self.shown, frozenset[tuple[int, int]]()
        for p in range(self.n):
            for slot in g.private_to(p):  # visible_to(p) less the public slots handled above
                if slot in public or slot in opened or (p, slot) in settled:
                    continue
                ref = self._slot_ref(slot)
                if ref is None:
                    continue
                sh, pos = ref
                done = sh.view.released(pos)
                owes = False
                for q in range(self.n):
                    if q == p or q in done or (slot, pos) in shown.get((q, p), none):
                        continue
                    owed[q][1].setdefault(p, []).append(slot)
                    owes = True
                if not owes:
                    settled.add((p, slot))
        return owed

    def _owed_by(
        self, q: int, pending_play: int | None = None
    ) -> tuple[list[KeyRelease], list[ShowMessage]]:
        releases_slots, shows_slots = self._owed(pending_play)[q]
        releases = []
        for slot in releases_slots:
            rel = self._mine_for(slot)
            if rel is not None:
                releases.append(rel)
        shows = []
        for p, slots in sorted(shows_slots.items()):
            by_shuffle: dict[int, list[int]] = {}
            for slot in slots:
                ref = self._slot_ref(slot)
                assert ref is not None
                by_shuffle.setdefault(self.shuffles.index(ref[0]), []).append(ref[1])
            for idx, positions in sorted(by_shuffle.items()):
                sh = self.shuffles[idx]
                assert sh.mine is not None
                pub = sh.view.commitment(p).x25519_public
                shows.append(sh.mine.show(pub, p, sorted(positions)))
        return releases, shows

    # ------------------------------------------------------------------ checking a proposal
    def _precheck(self, p: Entry, *, points: bool = True) -> None:
        """Everything about a proposal that depends only on the proposal itself and the state
        after the previous step: the same on every node, so a failure is a public fault of
        its author, found before anyone answers (and releases a key or a secret).

        The kind must be the one the schedule wants; the body an object whose releases and
        shows parse, are the author's own and open their commitments; a shuffle step must be
        the right one for this shuffle; an action must parse, be the author's, fit the claim
        queue and be legal on the public state with the card it names, whose slot must be in
        the author's hand and whose key the author must release."""
        body = p.body
        if not isinstance(body, dict):
            raise _Fault(p.author, "an entry body must be an object")
        _check_members(p)
        kind = p.kind
        if kind != self.step.kind and not (kind == "pass" and self.step.kind == "action"):
            raise _Fault(p.author, f"proposed {kind!r} where {self.step.kind!r} was due")
        rels, _ = self._keys(p, keep=False)
        if kind == "shuffle":
            sh = self.shuffles[-1]
            if not sh.committed:
                if "step" in body:  # (the other way round is refused below; helper-47)
                    raise _Fault(p.author, "a commitment step that also carries a shuffle step")
                self._parse_commitment(p, sh)
            else:
                if "commitment" in body:  # a pass carries its step only
                    raise _Fault(p.author, "a shuffle step that also carries a commitment")
                step = _parse(ShuffleStep, body.get("step"), p.author)
                try:
                    # a live node checks every point now; the replay leaves it to the audit
                    # (but for a dangling proposal, see catch_up)
                    sh.view.check_step(step, check_points=points)
                except CryptoError as err:
                    raise _Fault(p.author, f"shuffle step refused: {err}") from None
        elif kind == "action":
            action = self._parse_action(p)
            if action.kind in (Kind.PLAY, Kind.JUMP):
                self._precheck_play(action, rels)
            elif action.kind in (Kind.GUILTY, Kind.INNOCENT):
                self._with_hidden_hand(lambda: self._legal(action))
            else:
                self._legal(action)
        elif kind == "pass" and not (self.claim_queue and self.claim_queue[0] == p.author):
            raise _Fault(p.author, "only a claimant may pass")
        elif kind == "reveal":
            # its shuffles' count and order, on arrival (spec 10.7.1): judged only once every
            # seat answered, one silent seat turned the proposer's provable fault into a stop
            # naming that seat, and the honest seats had answered with their secrets (helper-82)
            self._reveal_part(p)

    def _legal(self, action: Action) -> None:
        """The engine's own refusal of ``action`` on the public state, as a public fault."""
        try:
            self.engine.check(action)
        except IllegalAction as e:
            raise _Fault(action.seat, f"illegal action {action}: {e.reason}") from None

    def _parse_action(self, p: Entry) -> Action:
        body = p.body
        assert isinstance(body, dict)
        text = body.get("action")
        try:
            action = parse_action(str(text))
        except NotationError as e:
            # (the notation's error quotes the text: a 200 KB action made a 200 KB blame on
            # every screen, in node.json and in the replay, helper-38)
            why = str(e) if len(str(e)) <= MAX_REASON else str(e)[: MAX_REASON - 1] + "…"
            raise _Fault(p.author, f"bad action: {why}") from None
        if action.seat != p.author:
            raise _Fault(p.author, "an action in another seat's name")
        claiming = bool(self.claim_queue) and self.claim_queue[0] == p.author
        if claiming and action.kind not in REACTIONS:
            raise _Fault(p.author, "a claimant may only call UNO, catch or jump in")
        if not claiming and action.kind in REACTIONS:
            raise _Fault(p.author, "reactions are made after claiming a window")
        return action

    def _precheck_play(self, action: Action, rels: list[KeyRelease]) -> None:
        """A played card, before its keys are released: a slot of a complete shuffle of this
        deck, in the author's hand, the author's own key for it in the proposal, and a legal
        play if the card is what the action names (checked with a stand-in of that face on
        a node that does not know the card: what every node can judge alike)."""
        g, seat, slot = self.engine, action.seat, action.slot
        if slot not in g.hands[seat]:
            raise _Fault(seat, f"slot {slot} is not in its hand")
        ref = self._slot_ref(slot)
        if ref is None:
            raise _Fault(seat, f"slot {slot} is not a card of this deck")
        sh, pos = ref
        own = any(
            r.shuffle_id == sh.spec.shuffle_id and r.position == pos and r.owner == seat
            for r in rels
        )
        if not own and seat not in sh.view.released(pos):
            raise _Fault(seat, f"played slot {slot} without its own key")
        face = g.faces[slot] if slot in g.public else UNKNOWN_CARD
        stand_in = face if face != UNKNOWN_CARD else _card_of(action.color, action.rank)
        if stand_in is None:
            raise _Fault(seat, f"illegal action {action}: no such card")
        known = g.faces[slot]
        g.faces[slot] = stand_in
        try:
            self._legal(action)
        finally:
            g.faces[slot] = known

    def _with_hidden_hand(self, check: Callable[[], None]) -> None:
        """``check()`` on the public state: the challenged hand's faces hidden, as on a node
        that cannot see it (every node must judge a verdict alike)."""
        g = self.engine
        seen = [(s, g.faces[s]) for s in g.wd4_hand]
        for s, _ in seen:
            g.faces[s] = UNKNOWN_CARD
        try:
            check()
        finally:
            for s, c in seen:
                g.faces[s] = c

    def _parse_keys(self, e: Entry) -> tuple[list[KeyRelease], list[ShowMessage]]:
        body = e.body
        if not isinstance(body, dict):
            raise _Fault(e.author, "an entry body must be an object")
        rels = body.get("releases", [])
        shows = body.get("shows", [])
        if not isinstance(rels, list) or not isinstance(shows, list):
            raise _Fault(e.author, "releases and shows must be lists")
        out_r: list[KeyRelease] = _parse_own(
            KeyRelease, rels, e.author, "owner", "released a key that is not its own"
        )
        out_s: list[ShowMessage] = _parse_own(
            ShowMessage, shows, e.author, "sender", "a show must come from its sender"
        )
        return out_r, out_s

    def _parse_commitment(self, e: Entry, sh: _Shuffle) -> KeyCommitment:
        body = e.body
        assert isinstance(body, dict)
        c: KeyCommitment = _parse(KeyCommitment, body.get("commitment"), e.author)
        if c.player != e.author or c.shuffle_id != sh.spec.shuffle_id:
            raise _Fault(e.author, "commitment for another seat or shuffle")
        if len(c.commitments) != sh.spec.size:
            raise _Fault(e.author, "commitment refused: wrong size")
        return c

    # ------------------------------------------------------------------ processing a step
    def _process(self, seq: int) -> None:
        proposal = self.log.proposal(seq)
        assert proposal is not None
        p = proposal[1]
        # What was owed in the state the last step left: the schedule has usually computed
        # it already (nothing changes a session's state between two steps but a new deck,
        # which clears the cache), so this is a cache hit unless a card is played now.
        owed_before = None if p.kind == GENESIS_KIND else self._owed(self._played_slot(p))
        self._done_seq = seq
        self._owed_cache.clear()
        responses = self.log.responses(seq)
        entries = [p] + [responses[s][1] for s in sorted(responses)]
        if owed_before is None:
            for e in entries[1:]:  # (its body is not read: it holds nothing, spec 10.2)
                if e.body != {}:  # (helper-47: an accept padded, never looked at)
                    self._set_blame(e.author, "an accept's body is empty: {}", seq)
                    return
            return
        try:
            self._take_keys(entries)
            self._apply_proposal(p, [e for e in entries[1:]])
            self._check_owed(owed_before, seq)
        except _Fault as f:
            self._set_blame(f.seat, f.reason, seq, play=f.play, accusation=f.accusation)
            return
        except _PublicDispute as d:
            self._open_public_dispute(d.reason)
            return
        for e in entries:
            body = e.body
            if isinstance(body, dict) and isinstance(body.get("dispute"), str) and not self.dispute:
                self.dispute = (e.author, str(body["dispute"]))
                self._dispute_at = seq
                # a seat's own words, shown on every terminal: printable, and not a page long
                said = str(body["dispute"])[:200]
                shown = "".join(c if c.isprintable() else "?" for c in said)
                if e.author != self.seat:  # (its own was said when found: helper-37 read it twice)
                    self.events.append(
                        SessionEvent("dispute", f"seat {e.author}: {shown}", e.author)
                    )
        if self.dispute is not None and self._dispute_at == seq and self._standings[-1][0] == seq:
            # raised in the very reveal whose audit has just passed: that audit had every
            # secret, every show and the rules of the deck, so the accusation is judged now,
            # not by a second reveal its accuser could stay silent at (helper-47: a loser's
            # dispute in the game's last reveal, then silence, and nobody won)
            accuser = self.dispute[0]
            reason = "false accusation: the audit found nothing"
            self._set_blame(accuser, reason, seq, accusation=True)
            return
        self._learn()

    def _open_public_dispute(self, reason: str) -> None:
        """A failure every node sees, whose author only the secrets can name: every seat
        reveals and the audit names whoever it was (accuser -1: nobody accused)."""
        if self.dispute is None:
            self.dispute = (-1, reason)
            self.events.append(SessionEvent("dispute", reason, -1))

    def _private_dispute(self, reason: str) -> None:
        """A fault only this node can see: it goes into every entry we write from now on."""
        if self.my_dispute is None:
            self.my_dispute = reason
            self.events.append(SessionEvent("dispute", f"this node: {reason}", self.seat or -1))

    def _played_slot(self, p: Entry) -> int | None:
        if p.kind != "action" or not isinstance(p.body, dict):
            return None
        try:
            a = parse_action(str(p.body.get("action", "")))
        except NotationError:
            return None
        return a.slot if a.kind in (Kind.PLAY, Kind.JUMP) else None

    def _keys(self, e: Entry, *, keep: bool) -> tuple[list[KeyRelease], list[ShowMessage]]:
        """The releases and shows of an entry, each checked against its shuffle (a release
        against its owner's commitment); ``keep``: and recorded in the views."""
        rels, shows = self._parse_keys(e)
        for rel in rels:
            view = self._shuffle_by_id(rel.shuffle_id, e.author).view
            try:
                view.add_release(rel) if keep else view.check_release(rel)
            except CryptoError as err:
                raise _Fault(e.author, f"key release refused: {err}") from None
        for show in shows:
            sh = self._shuffle_by_id(show.shuffle_id, e.author)
            if not sh.committed:
                # keys shown before every seat's commitment is in cannot be checked against
                # them (the recipient could not open the show): public, so every node agrees
                raise _Fault(e.author, "show refused: its shuffle's commitments are not all in")
            view = sh.view
            try:
                view.add_show(show) if keep else view.check_show(show)
            except CryptoError as err:
                raise _Fault(e.author, f"show refused: {err}") from None
        return rels, shows

    def _take_keys(self, entries: list[Entry]) -> None:
        for e in entries:
            _check_members(e, entries[0])
            _, shows = self._keys(e, keep=True)
            for show in shows:
                sh = self._shuffle_by_id(show.shuffle_id, e.author)
                for pos, owner in zip(show.positions, show.owners, strict=True):
                    self.shown.setdefault((owner, show.recipient), set()).add((sh.base + pos, pos))
                if show.recipient == self.seat and sh.mine is not None:
                    try:
                        sh.view.open_show(show, sh.mine)
                    except VerificationError as err:
                        self._private_dispute(f"show from seat {e.author}: {err}")

    def _shuffle_by_id(self, sid: bytes, author: int) -> _Shuffle:
        for sh in self.shuffles:
            if sh.spec.shuffle_id == sid:
                return sh
        raise _Fault(author, "refers to an unknown shuffle")

    def _apply_proposal(self, p: Entry, responses: list[Entry]) -> None:
        """Apply a complete step whose proposal passed :meth:`_precheck` (every node, the
        replay too, runs it first: see _precheck_ok)."""
        body = p.body
        assert isinstance(body, dict)
        kind = p.kind
        if kind == "shuffle":
            sh = self.shuffles[-1]
            if not sh.committed:
                for e in [p, *responses]:
                    c = self._parse_commitment(e, sh)
                    try:
                        sh.view.add_commitment(c)
                    except CryptoError as err:
                        raise _Fault(e.author, f"commitment refused: {err}") from None
                sh.committed = True
            else:
                step = _parse(ShuffleStep, body.get("step"), p.author)
                try:
                    sh.view.add_step(step)  # its points were checked on arrival
                except CryptoError as err:
                    raise _Fault(p.author, f"shuffle step refused: {err}") from None
                if sh.view.complete:
                    self._shuffle_done(sh)
        elif kind == "action":
            action = self._parse_action(p)
            claiming = bool(self.claim_queue) and self.claim_queue[0] == p.author
            if action.kind in (Kind.PLAY, Kind.JUMP):
                self._reveal_public(action.slot, p.author)
            try:
                if action.kind in (Kind.GUILTY, Kind.INNOCENT):
                    events = self._apply_verdict(action)
                else:
                    events = self.engine.apply(action)
            except IllegalAction as e:
                raise _Fault(p.author, f"illegal action {action}: {e.reason}") from None
            self.deck_inputs.append(("action", action))
            for ev in events:
                self.events.append(SessionEvent("engine", str(ev), ev.seat, ev))
            self.last_actor = p.author
            if claiming:
                self.claim_queue.pop(0)
            self.window_due = self.engine.window
            if self.window_due:
                self.claim_queue = []
        elif kind == "pass":
            self.claim_queue.pop(0)
        elif kind == "window":
            self.window_due = False
            claims = [
                r.author
                for r in [p, *responses]
                if isinstance(r.body, dict) and r.body.get("claim") is True
            ]
            order = [(self.last_actor + i) % self.n for i in range(1, self.n + 1)]
            self.claim_queue = [s for s in order if s in claims]
        elif kind == "reveal":
            part, given = self._reveal_part(p)
            taken = [(p, given)]
            for r in responses:
                # (more of the deck is taken: an earlier build's answer revealed all of it)
                got = self._reveals_of(r)
                if any(0 <= _sid_index(self.shuffles, x.shuffle_id) < part.start for x in got):
                    raise _Fault(r.author, "revealed again a shuffle an earlier step revealed")
                taken.append((r, got))
            self._revealed += taken
            self._reveal_from = part.stop
            # a proposal that reveals nothing ends the deck's reveal: the audit finds its
            # author missing (as an earlier build's single step did), whatever was owed after
            if not given or part.stop >= len(self.shuffles):
                entries, self._revealed, self._reveal_from = self._revealed, [], 0
                self._audit(entries)
        elif kind == "sync":
            pass
        else:
            raise _Fault(p.author, f"unknown proposal kind {kind!r}")

    def _apply_verdict(self, action: Action) -> list[Event]:
        """A challenge verdict, judged on public facts alone, as every node can judge it.

        Only the offender and the challenger see the challenged hand. Refusing a false verdict
        here would end the game on those nodes only, while the others, which cannot check it,
        wait for them forever (and a replay could never tell why). So a node that sees the
        hand applies the verdict as a node that does not would, and announces a dispute if
        the hand contradicts it: every seat then reveals and the full-information audit names
        the liar on every node, with the proof in the log.
        """
        g = self.engine
        seen = [(s, g.faces[s]) for s in g.wd4_hand]
        for s, _ in seen:
            g.faces[s] = UNKNOWN_CARD
        try:
            events = g.apply(action)  # public preconditions only: IllegalAction is a fault
        finally:
            for s, c in seen:
                g.faces[s] = c
        if UNKNOWN_CARD not in (c for _, c in seen) and self.seat is not None:
            illegal = any(CARD_COLOR[c] == g.claims[-1].color for _, c in seen)
            if illegal != (action.kind is Kind.GUILTY):
                self._private_dispute(
                    f"seat {action.seat} gave a false verdict: the hand shows "
                    f"{'guilty' if illegal else 'innocent'}"
                )
        return events

    def _reveal_public(self, slot: int, author: int) -> None:
        ref = self._slot_ref(slot)
        if ref is None:
            raise _Fault(author, f"no slot {slot}")
        sh, pos = ref
        missing = sorted(set(range(self.n)) - set(sh.view.released(pos)))
        if missing:
            # Everyone saw which card was played in the proposal, so everyone owed its key.
            raise _Fault(missing[0], f"withheld its key for the played card (slot {slot})")
        try:
            card = sh.view.reveal(pos)
        except VerificationError as err:
            # Every key opened its commitment, yet no card (or a card seen twice): a shuffle
            # pass was bad. Only the secrets can tell whose: a dispute, opened by nobody.
            raise _PublicDispute(f"the played card at slot {slot} does not open: {err}") from None
        except CryptoError as err:
            raise _Fault(author, f"the played card cannot be opened: {err}") from None
        self._tell_engine(slot, card, sh, pos)

    def _tell_engine(self, slot: int, card: int, sh: _Shuffle, pos: int) -> list[Event]:
        """A public card, now known to every node alike: give it to the engine.

        If this node alone has seen that card somewhere else (in its hand, say), that is a
        private fault: it disputes, and forgets what it saw, so that its engine goes on in
        step with everyone else's until the dispute's reveal. A clash with another public
        card is everyone's to see: a public dispute."""
        g = self.engine
        clash = sh.view.clash(card, pos)
        if clash is not None:
            self._private_dispute(clash)
        other = g.card_slot[card]
        if other not in (UNKNOWN_CARD, slot):
            if other in g.public:
                raise _PublicDispute(f"card {card} is public at slots {other} and {slot}")
            self._private_dispute(f"card {card} at public slot {slot} is also at slot {other}")
            g.faces[other] = UNKNOWN_CARD
            g.card_slot[card] = UNKNOWN_CARD
        known = g.faces[slot]
        if known not in (UNKNOWN_CARD, card):  # (one position, one set of keys: one card)
            self._private_dispute(f"slot {slot} opened to another card here")
            g.card_slot[known] = UNKNOWN_CARD
            g.faces[slot] = UNKNOWN_CARD
        try:
            return g.reveal(slot, card, public=True)
        except InputError as err:  # not reachable after the above; never a verdict
            raise AssertionError(f"the engine refused a public card: {err}") from None

    def _check_owed(
        self, before: dict[int, tuple[list[int], dict[int, list[int]]]], seq: int
    ) -> None:
        if self.dispute is not None:
            return
        if not any(releases or shows for releases, shows in before.values()):
            return  # nothing was owed: nothing can have been withheld
        now = self._owed_now()
        for q in range(self.n):
            still = set(before[q][0]) & set(now[q][0])
            if still:
                raise _Fault(q, f"withheld its keys for slots {sorted(still)}")
            for p, slots in before[q][1].items():
                left = set(slots) & set(now[q][1].get(p, []))
                if left:
                    raise _Fault(q, f"did not show slots {sorted(left)} to seat {p}")

    def _learn(self) -> None:
        """Open every slot this node may now see, and every public one; feed the engine."""
        g = self.engine
        public = self._public_slots()
        want = set(public)
        if self.seat is not None:
            want |= set(g.visible_to(self.seat))
        for slot in sorted(want):
            if (
                slot < len(g.faces)
                and g.faces[slot] >= 0
                and (slot not in public or slot in g.public)
            ):
                continue
            ref = self._slot_ref(slot)
            if ref is None:
                continue
            sh, pos = ref
            try:
                if slot in public:
                    card = sh.view.reveal(pos)
                elif sh.mine is not None:
                    card = sh.view.open(pos, sh.mine)
                else:
                    continue
            except VerificationError as err:
                if slot in public:
                    # every key opened its commitment, yet no card: a bad shuffle, whose
                    # author only the secrets can name (as for a played card)
                    self._open_public_dispute(f"public card at slot {slot} does not open: {err}")
                    return
                self._private_dispute(f"my card at slot {slot}: {err}")
                continue
            except CryptoError:
                continue  # keys not all here yet
            if slot in public:
                try:
                    events = self._tell_engine(slot, card, sh, pos)
                except _PublicDispute as d:
                    self._open_public_dispute(d.reason)
                    return
            else:
                try:
                    events = g.reveal(slot, card, public=False)
                except InputError as err:
                    self._private_dispute(f"slot {slot}: {err}")
                    continue
            for ev in events:
                self.events.append(SessionEvent("engine", str(ev), ev.seat, ev))

    # ------------------------------------------------------------------ shuffles
    def _start_shuffle(self) -> None:
        g = self.engine
        need = g.need
        assert need is not None and need.kind == "shuffle"
        self._owed_cache.clear()  # a new shuffle: other slots, nothing opened or settled
        if not need.sources:
            cards: tuple[int, ...] = tuple(range(DECK_SIZE))
            self.deck_no += 1
            self.shuffles = []
            self._reveal_from, self._revealed = 0, []
            self.shown = {}
            self._opened = set()
            self._settled = set()
            self.deck_inputs = []
            base = 0
        else:
            base = len(g.faces)
            public = [s for s in need.sources if s in g.public]
            hidden = [s for s in need.sources if s not in g.public]
            cards = tuple(g.faces[s] for s in public)
            if hidden:
                # A Wild Draw Four turned up at the start goes back into the undealt deck: a
                # hidden reshuffle re-keys the parent's unopened positions (docs/security.md).
                # The engine's hidden sources are always the undealt part of one shuffle.
                refs = [self._slot_ref(s) for s in hidden]
                parents = {id(r[0]) for r in refs if r is not None}
                assert None not in refs and len(parents) == 1, "hidden cards of one shuffle"
                parent = refs[0][0]  # type: ignore[index]
                positions = tuple(r[1] for r in refs)  # type: ignore[index]
                sid = shuffle_id(self.game_id, self.deck_no, len(self.shuffles))
                spec = ShuffleSpec(sid, self.n, cards, parent.spec.shuffle_id, positions)
                mine = None
                if self.seat is not None:
                    mine = self._secrets_for(spec, parent.mine)
                view = ShuffleView(spec, parent=parent.view)
                self.shuffles.append(
                    _Shuffle(spec, view, mine, base, parent=self.shuffles.index(parent))
                )
                self._secrets_changed()
                return
        sid = shuffle_id(self.game_id, self.deck_no, len(self.shuffles))
        spec = ShuffleSpec(sid, self.n, cards)
        mine = self._secrets_for(spec, None) if self.seat is not None else None
        self.shuffles.append(_Shuffle(spec, ShuffleView(spec), mine, base))
        self._secrets_changed()

    def _secrets_for(self, spec: ShuffleSpec, parent: ShuffleSecrets | None) -> ShuffleSecrets:
        """This seat's secrets for a new shuffle: the ones it saved if it had already made
        them (a resumed node), else fresh ones."""
        seat = self.seat_or_fail()
        saved = self._saved.get(spec.shuffle_id)
        if saved is not None and saved.player == seat:
            return ShuffleSecrets.from_reveal(spec, saved, self.rng, parent)
        return ShuffleSecrets.generate(spec, seat, self.rng, parent=parent)

    def _secrets_changed(self) -> None:
        if self.seat is not None and self.on_secrets is not None:
            self.on_secrets([s.mine.reveal() for s in self.shuffles if s.mine is not None])

    def _shuffle_done(self, sh: _Shuffle) -> None:
        self.deck_inputs.append(("shuffle", sh))
        for ev in self.engine.shuffle(None):
            self.events.append(SessionEvent("engine", str(ev), ev.seat, ev))

    # ------------------------------------------------------------------ audit
    def _reveal_default(self) -> range:
        """The shuffles (indexes in the deck) whose secrets the next reveal step carries:
        the next REVEAL_SHUFFLES of the deck not revealed yet."""
        start = self._reveal_from
        step = self.reveal_max or REVEAL_SHUFFLES
        return range(start, min(start + step, len(self.shuffles)))

    def _reveal_part(self, proposal: Entry) -> tuple[range, list[SecretReveal]]:
        """The shuffles a reveal step carries, and the proposal's secrets: those it reveals,
        which must be the deck's next ones in order (a log of an earlier build revealed every
        shuffle of the deck in one step: it still verifies), or, where the proposal reveals
        none, the next REVEAL_SHUFFLES (what its responders reveal; the deck's reveal ends
        there, and the audit finds the proposal's author missing)."""
        given = self._reveals_of(proposal)
        if not given:
            return self._reveal_default(), given
        if self.reveal_max is not None and len(given) > self.reveal_max:
            # (helper-78: a proposal of more shuffles made each responder reveal as many, and
            # with the keys a dispute's reveal also owes, an honest response could outgrow the
            # entry cap: its own log refused it and its node stopped, nobody named)
            raise _Fault(
                proposal.author,
                f"its reveal carries {len(given)} shuffles: at most {self.reveal_max} to a step",
            )
        start = self._reveal_from
        part = range(start, start + len(given))
        if [_sid_index(self.shuffles, r.shuffle_id) for r in given] != list(part):
            raise _Fault(proposal.author, "its reveal names the deck's shuffles out of order")
        return part, given

    def _reveals_of(self, e: Entry) -> list[SecretReveal]:
        """The secrets an entry of a reveal step gives (a malformed one, or another seat's,
        is its author's fault)."""
        b = e.body
        secrets = b.get("secrets") if isinstance(b, dict) else None
        if not isinstance(secrets, list):
            raise _Fault(e.author, "a reveal entry must carry its secrets")
        out: list[SecretReveal] = _parse_own(
            SecretReveal, secrets, e.author, "player", "revealed another seat's secrets"
        )
        return out

    def _my_secrets(self, part: range) -> list[JSONValue]:
        """This seat's secrets for the shuffles of ``part`` (its reveal step's body)."""
        mine = (self.shuffles[i].mine for i in part)
        return [m.reveal().to_obj() for m in mine if m is not None]

    def _audit(self, taken: list[tuple[Entry, list[SecretReveal]]]) -> None:
        """Every shuffle of the deck against every seat's secrets (``taken``: the entries of
        the deck's reveal steps, each with the secrets it gave), then its rules."""
        reveals: dict[int, dict[int, SecretReveal]] = {}
        for e, gave in taken:
            for r in gave:
                reveals.setdefault(e.author, {})[_sid_index(self.shuffles, r.shuffle_id)] = r
        faces_by_shuffle: list[tuple[int, ...]] = []
        given: list[dict[int, SecretReveal]] = []
        for idx, sh in enumerate(self.shuffles):
            per = {p: reveals.get(p, {}).get(idx) for p in range(self.n)}
            mine = {p: r for p, r in per.items() if r is not None}
            given.append(mine)
            parent = None
            if sh.parent is not None:
                parent = Parent(
                    self.shuffles[sh.parent].view.record(),
                    given[sh.parent],
                    faces_by_shuffle[sh.parent],
                )
            # No accuser here: a dispute may be about the rules (a false verdict), which the
            # crypto audit cannot see; a false accusation is blamed below, after both audits.
            # the cards opened in this deck need no second multiplication (see audit)
            result = audit(
                sh.view.record(),
                mine,
                parent=parent,
                executor=self.audit_executor,
                opened=sh.view.openings(),
                thorough=self.thorough_audit,
            )
            if not result.ok:
                v = result.verdict
                assert v is not None
                raise _Fault(
                    v.player,
                    f"audit: {v.fault.value}: {v.detail}",
                    play=v.fault not in (Fault.MISSING_REVEAL, Fault.BAD_REVEAL),
                )
            if result.faces is None:
                # a dispute's reveal in the middle of a shuffle: that shuffle's steps so far
                # were checked, and no card of it was dealt; the rules are replayed up to it
                assert self.dispute is not None and not sh.view.complete
                break
            faces_by_shuffle.append(result.faces)
        self._audit_rules(faces_by_shuffle)
        if self.dispute is not None:
            if self._round_over():
                # the round's end, reached by this audit (the dispute came at its last play)
                self._disputed_ends.setdefault(self._dispute_at, self._round_result())
            accuser = self.dispute[0]
            if accuser < 0:  # a public dispute the audit could not explain: cannot happen
                raise AssertionError("a public card failed to open, yet the audit found nothing")
            raise _Fault(accuser, "false accusation: the audit found nothing", accusation=True)
        self.audited_rounds += 1
        self.audited_deck = self.deck_no
        self._standings.append((self._done_seq, tuple(self.engine.scores)))
        # (which round's: helper-104 read "deck 4 verified" under "round 4", deck 1 being the
        # draw for dealer and each round dealing from a deck of its own, audited once the
        # next one has begun; a reshuffle of the discards stays in its round's deck)
        which = "the draw for dealer" if self.deck_no == 1 else f"round {self.deck_no - 1}'s"
        deck = f"deck {self.deck_no} ({which})"
        self.events.append(SessionEvent("audit", f"{deck} verified", -1))

    def _audit_rules(self, faces_by_shuffle: list[tuple[int, ...]]) -> None:
        """Replay this deck's inputs on the full-information shadow engine."""
        shadow = self.shadow
        index = {id(sh): i for i, sh in enumerate(self.shuffles)}
        # the deck's bluffs no challenge caught (a review: a caught one was told as
        # "unchallenged" too), each with its round and the color it was played on (a person
        # asked which Wild Draw Four)
        bluffs: list[tuple[Event, int, int]] = []
        for what, value in self.deck_inputs:
            if what == "shuffle":
                if index[id(value)] >= len(faces_by_shuffle):
                    return  # a dispute mid-shuffle: nothing past it was played
                shadow.shuffle(list(faces_by_shuffle[index[id(value)]]))
            else:
                try:
                    events = shadow.apply(value)
                except IllegalAction as e:
                    raise _Fault(e.seat, f"audit: {e.reason}", play=True) from None
                for ev in events:
                    if ev.kind in ("play", "jump") and ev.bluff:
                        bluffs.append((ev, shadow.round_no, shadow.wd4_color))
                    elif ev.kind == "guilty" and bluffs and bluffs[-1][0].seat == ev.other:
                        bluffs.pop()  # (caught: the challenge won; not a bluff that stands)
        for ev, round_no, color in bluffs:
            on = COLOR_NAMES[color] if 0 <= color < len(COLOR_NAMES) else "no color"
            where = f"in round {round_no}, played on {on} while holding a {on} card"
            self.bluffs.append(f"seat {ev.seat} bluffed a Wild Draw Four {where}")
            self.events.append(SessionEvent("bluff", where, ev.seat))
        g = self.engine
        if g.need is not None and g.need.kind == "reveal":
            # a dispute's reveal came before the cards the engine waits on were shown (a
            # dispute raised at a round's last play, before the hands' sync: helper-49 saw
            # the digests differ and every node stop on an internal error): the audit has
            # every face now, public to every node alike
            for slot in g.need.slots:
                ref = self._slot_ref(slot)
                if ref is None or index[id(ref[0])] >= len(faces_by_shuffle):
                    continue
                card = faces_by_shuffle[index[id(ref[0])]][ref[1]]
                for ev in g.reveal(slot, card, public=True):
                    self.events.append(SessionEvent("engine", str(ev), ev.seat, ev))
        # Every public fact the game went by was checked on its own: the shuffles, every key
        # against its commitment, every action against the rules. The two engines then hold
        # the same public state; a difference would be a bug of the engine, not a cheat.
        if shadow.digest() != self.engine.digest():
            raise AssertionError("the full-information replay disagrees with the game")
        self.deck_inputs = []

    # ------------------------------------------------------------------ scheduling
    def _after_step(self, seq: int) -> None:
        self._done_seq = seq
        self._owed_cache.clear()
        self._purge_parked()
        if self.blame is not None:
            return
        self._schedule()
        if self._finished:
            self.log.freeze()
        if self.log.votes():
            self._decide_stop()

    def _schedule(self) -> None:
        g = self.engine
        if self.dispute is not None:
            if (
                self._dispute_at == self._done_seq
                and self.audited_deck != self.deck_no
                and self._round_over()
            ):
                # raised at a round's last play: its reveal is the dispute's (helper-47)
                self._disputed_ends[self._done_seq] = self._round_result()
            self._reveal_step()
            return
        if self.shuffles and not self.shuffles[-1].view.complete:
            sh = self.shuffles[-1]
            if not sh.committed:
                self.step = _Step("shuffle", 0)
            else:
                nxt = sh.view.next_step
                assert nxt is not None
                self.step = _Step("shuffle", nxt[1])
            return
        if self.window_due:
            self.step = _Step("window", self.last_actor)
            return
        owed = self._owed()
        owing = [q for q in range(self.n) if owed[q][0] or owed[q][1]]
        if owing:
            self.step = _Step("sync", owing[0])
            return
        if self.claim_queue:
            self.step = _Step("action", self.claim_queue[0])
            return
        if g.need is not None and g.need.kind == "shuffle":
            if self.shuffles and self.audited_deck != self.deck_no and not g.need.sources:
                self._due_reveal()
                return
            self._start_shuffle()
            self.step = _Step("shuffle", 0)
            return
        if g.phase is Phase.GAME_OVER:
            if self.shuffles and self.audited_deck != self.deck_no:
                self._due_reveal()
                return
            self._finished = True
            self.events.append(SessionEvent("over", str(self.outcome)))
            return
        self.step = _Step("action", g.turn)

    def _reveal_step(self) -> None:
        """The next step is a reveal (of the deck's next REVEAL_SHUFFLES). A round's end
        known when the deck's reveal began (see stop) holds at each of its steps: a seat
        silent at the second keeps the round from the audit as at the first."""
        if self._reveal_from == 0:
            self._reveal_at = self._done_seq
        else:
            for ends in (self._round_ends, self._disputed_ends):
                if self._reveal_at in ends:
                    ends.setdefault(self._done_seq, ends[self._reveal_at])
        self.step = _Step("reveal", 0)

    def _due_reveal(self) -> None:
        """The end of a deck: everyone reveals. If a round was played to its end in it (every
        deck but the draw for dealer's), remember where and how it ended (see stop)."""
        self._reveal_step()
        if self.deck_no >= 2 and not self.dispute:
            self._round_ends[self._done_seq] = self._round_result()

    def _round_over(self) -> bool:
        """A round of this deck has been played to its end (the draw for dealer is none):
        the game is over, or a fresh deck is wanted."""
        g = self.engine
        fresh = g.need is not None and g.need.kind == "shuffle" and not g.need.sources
        return self.deck_no >= 2 and (g.phase is Phase.GAME_OVER or fresh)

    def _round_result(self) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
        g = self.engine
        won = tuple(g.winners) if g.phase is Phase.GAME_OVER else ()
        return tuple(g.scores), g.out, won

    def _set_blame(
        self,
        seat: int,
        reason: str,
        seq: int,
        *,
        play: bool = False,
        accusation: bool = False,
        settled: bool = False,
    ) -> None:
        """A cheat: the earliest one found is the verdict (every node ends with the same).
        ``play``, ``accusation``: see _Fault; ``settled``: see note_evidence (they say what
        still counts: _counted_after)."""
        blame = Blame(seat, reason, seq)
        old = self.blame
        if old is not None and (old.step, old.seat) <= (seq, seat):
            # (one seat, one step, two faults: equivocation wins, whichever came first. An
            # equivocator may send one node a version it refuses and another the other one:
            # each named it, for different reasons, until the evidence, which spreads to
            # every node, decided it; a review saw two honest records differ so)
            equivocation = reason.startswith("equivocation")
            if not ((old.step, old.seat) == (seq, seat) and equivocation):
                return
            if old.reason.startswith("equivocation"):
                return
        self.blame = blame
        self._blame_counted = None if play else self._counted_after(seat, seq, accusation, settled)
        self.prompt = None
        self.log.freeze()
        self.events.append(SessionEvent("blame", str(blame), seat))

    def _counted_after(
        self, seat: int, seq: int, accusation: bool, settled: bool
    ) -> tuple[tuple[int, ...], bool, tuple[int, ...]] | None:
        """What still counts after a cheat that changed nothing played (spec 10.16): (scores,
        void, winners), or None (the round in play at the verdict's step is void). A cheat
        never wins.

        - A seat's fault in its own entry of the end-of-deck reveal of a round played to its
          end, or a false accusation raised at that round's last play or in its reveal: it
          kept its secrets from the audit, as a seat that goes silent there does, and the
          round counts as it stood at its end (spec 10.15, "What it gives"). helper-37: a
          loser who sent its last reveal without secrets took the winner's win away;
          helper-47: a false dispute one step earlier, at the round's last play, did.
        - Equivocation over a step settled here, or over votes (``settled``): the result as
          this node holds it, as a stop at its last complete step would count it."""
        if settled:
            g = self.engine
            if self._finished:
                if seat not in g.winners:
                    return tuple(g.scores), False, tuple(g.winners)
                # the cheat won: its winning round is void (the standings before its audit)
                return self._scores_before(self._standings[-1][0]), True, ()
            k = max(self._done_seq, 0)  # (two votes before the genesis step: helper-49)
            scores = next(s for at, s in reversed(self._standings) if at <= k)
            void = self.deck_no >= 2 and self._standings[-1][0] != k
            stop = self._stop
            if stop is not None:
                # a stop decided already: what it counted (a silent winner's round void:
                # helper-49 saw a colluder's second vote give that win back), the cheat's
                # own win never
                if seat in stop.winners:
                    return scores, void, ()
                return stop.scores, stop.void, stop.winners
            end = self._round_ends.get(k)
            if end is not None and end[1] != seat and seat not in end[2]:
                return end[0], False, end[2]
            return scores, void, ()
        at = self._dispute_at if accusation else seq
        end = self._round_ends.get(at - 1)
        if end is None and accusation:
            end = self._disputed_ends.get(at)
        if end is not None and end[1] != seat and seat not in end[2]:
            return end[0], False, end[2]
        return None


_Owed = dict[int, tuple[list[int], dict[int, list[int]]]]


class _PublicDispute(Exception):
    """A failure every node sees, whose author only the revealed secrets can name."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Fault(Exception):
    """A seat broke a rule. ``play``: the audit found it in the deck's play (a bad shuffle, a
    bad show, a false verdict): the round was not played fairly. Any other fault found at a
    round's end-of-deck reveal is one of its author's own entry there: it kept its secrets
    from the audit, as a seat that goes silent does (see Session.outcome). ``accusation``: a
    false accusation, judged by the dispute's reveal (see _set_blame)."""

    def __init__(
        self, seat: int, reason: str, *, play: bool = False, accusation: bool = False
    ) -> None:
        super().__init__(reason)
        self.seat = seat
        self.reason = reason
        self.play = play
        self.accusation = accusation


def _seq_of(raw: bytes) -> int:
    from p2puno.wire import decode

    return Entry.from_obj(decode(raw)).seq


def _card_of(color: int, rank: int) -> int | None:
    """A card id of the given face (a stand-in for a card that is named but not yet seen)."""
    for c in range(DECK_SIZE):
        if CARD_COLOR[c] == color and CARD_RANK[c] == rank:
            return c
    return None


# shuffles whose secrets one reveal step carries, at most (spec 10.10): a deck's secrets in one
# entry grew with every reshuffle, past the entry cap (helper-73: two random bots' round of
# many reshuffles signed a 286,583-byte reveal its own log refused, and the game stopped)
REVEAL_SHUFFLES = 2


def _sid_index(shuffles: list[_Shuffle], sid: bytes) -> int:
    for i, sh in enumerate(shuffles):
        if sh.spec.shuffle_id == sid:
            return i
    return -1


def _check_members(e: Entry, proposal: Entry | None = None) -> None:
    """A body holds only the members its kind may (BODY_MEMBERS), a response only those of
    an answer to its ``proposal`` (a claim to a window, a commitment to a shuffle's commitment
    step, secrets to a reveal), and a dispute is a line of text: else its author's fault."""
    body = e.body
    if e.role is Role.RESPONSE and e.kind != "ack":
        # (helper-47: a response of another kind had its members looked at by nobody)
        raise _Fault(e.author, f'a response to a step is an "ack", not "{e.kind}"')
    if not isinstance(body, dict):
        return  # (said by whoever reads the body: "an entry body must be an object")
    allowed = BODY_MEMBERS.get(e.kind)
    if allowed is None:
        return  # (an unknown kind is its own fault, found where the kind is read)
    if e.role is Role.RESPONSE and proposal is not None:
        # (helper-41 padded every ack with a "secrets" or a "claim" no step of its asked for)
        asked = proposal.body if isinstance(proposal.body, dict) else {}
        allowed = frozenset(
            k
            for k, wanted in (
                ("claim", proposal.kind == "window"),
                ("commitment", proposal.kind == "shuffle" and "commitment" in asked),
                ("secrets", proposal.kind == "reveal"),
            )
            if wanted
        )
    extra = [k for k in body if k not in BODY_COMMON and k not in allowed]
    if extra:
        shown = ", ".join(repr(k[:20]) for k in sorted(extra)[:3])
        what = f"an answer to a {proposal.kind}" if e.role is Role.RESPONSE and proposal else None
        raise _Fault(
            e.author, f"{what or f'a {e.kind} body'} holds a member it has no use for ({shown})"
        )
    claim = body.get("claim")
    if claim is not None and type(claim) is not bool:  # (helper-47 padded a claim)
        raise _Fault(e.author, "a claim is true or false")
    dispute = body.get("dispute")
    if dispute is not None and not (isinstance(dispute, str) and len(dispute) <= MAX_DISPUTE):
        # (it was ignored, whatever it was, and kept: helper-41 padded bodies with it)
        raise _Fault(e.author, f"a dispute is a line of text of at most {MAX_DISPUTE} characters")


def _parse_own(cls: Any, objs: list[Any], author: int, field: str, why: str) -> list[Any]:
    """Each of ``objs`` parsed as ``cls`` (a malformed one is ``author``'s fault), each of
    ``author``'s own by its ``field`` (else ``why``, its fault), in order."""
    out = []
    for obj in objs:
        x = _parse(cls, obj, author)
        if getattr(x, field) != author:
            raise _Fault(author, why)
        out.append(x)
    return out


def _parse(cls: Any, obj: object, author: int) -> Any:
    try:
        return cls.from_obj(obj)
    except (CryptoError, ValueError, TypeError) as e:
        raise _Fault(author, f"malformed {getattr(cls, 'TYPE', cls.__name__)}: {e}") from None


def options_to_obj(
    o: Options, timing: Timing | None = None, reveal: int | None = None
) -> dict[str, JSONValue]:
    """The genesis options (spec 10.1): ``timing``, the table's deadlines, and ``reveal``, the
    most shuffles a reveal step may carry (REVEAL_SHUFFLES: every node's table sets it; a log
    without it is an earlier build's, whose reveal steps carried any number)."""
    obj: dict[str, JSONValue] = {
        "players": o.players,
        "house": list(o.house),
        "scoring": o.scoring,
        "target": o.target,
    }
    if timing is not None:
        obj["timing"] = timing.to_obj()
    if reveal is not None:
        obj["reveal"] = reveal
    return obj


@dataclass(frozen=True)
class Timing:
    """The table's deadlines, agreed before the first card (signed in the genesis options).

    The session has no clock: these are for the node layer, which runs them (spec 10.9, 10.15).
    ``step_s``: a seat's node must answer a step it owes (its machine's work: an ack, a
    shuffle pass, keys, a reveal) within this, or the others vote to stop; ``turn_s``: a person
    decides within this, after which that person's own node plays for them (only it holds their
    keys) until they press a key; the table waits ``turn_s + step_s`` for a decision before it
    votes; ``window_ms``: how long every node holds its entry of a window step in which
    something can be claimed, whatever it decides (0: nothing is held)."""

    step_s: int = 20
    turn_s: int = 60
    window_ms: int = 2500

    def to_obj(self) -> dict[str, JSONValue]:
        return {"step_s": self.step_s, "turn_s": self.turn_s, "window_ms": self.window_ms}

    @classmethod
    def from_obj(cls, obj: JSONValue) -> Timing:
        if not isinstance(obj, dict) or set(obj) != {"step_s", "turn_s", "window_ms"}:
            raise ValueError("timing must have step_s, turn_s, window_ms")
        step_s, turn_s, window_ms = obj["step_s"], obj["turn_s"], obj["window_ms"]
        if not (type(step_s) is int and type(turn_s) is int and type(window_ms) is int):
            raise ValueError("timing values must be integers")
        if not (1 <= step_s <= 3600 and 1 <= turn_s <= 3600 and 0 <= window_ms <= 60_000):
            raise ValueError("timing out of range (1-3600 s; window 0-60000 ms)")
        return cls(step_s, turn_s, window_ms)


def timing_from_obj(obj: JSONValue) -> Timing:
    """The genesis options' ``timing`` (the defaults if the table set none)."""
    if isinstance(obj, dict) and "timing" in obj:
        return Timing.from_obj(obj["timing"])
    return Timing()


REVEAL_MAX = 16  # the most a table may set as its options' `reveal`


def reveal_from_obj(obj: JSONValue) -> int | None:
    """The genesis options' ``reveal`` (None if the table set none: an earlier build's)."""
    if not isinstance(obj, dict) or "reveal" not in obj:
        return None
    reveal = obj["reveal"]
    if type(reveal) is not int or not 1 <= reveal <= REVEAL_MAX:
        raise ValueError(f"reveal must be an integer from 1 to {REVEAL_MAX}")
    return reveal


def options_from_obj(obj: JSONValue) -> Options:
    if not isinstance(obj, dict) or set(obj) - {"timing", "reveal"} != {
        "players",
        "house",
        "scoring",
        "target",
    }:
        raise ValueError("options must have players, house, scoring, target (and timing, reveal)")
    timing_from_obj(obj)  # strict, like the rest
    reveal_from_obj(obj)
    house = obj["house"]
    if not isinstance(house, list) or not all(isinstance(h, str) for h in house):
        raise ValueError("house must be a list of names")
    from p2puno.engine.options import parse_house

    players, target, scoring = obj["players"], obj["target"], obj["scoring"]
    if (
        type(players) is not int  # not isinstance: true and false are ints in Python
        or type(target) is not int
        or scoring not in ("standard", "lowest")
    ):
        raise ValueError("bad options")
    rules = parse_house(",".join(str(h) for h in house))
    options = Options(players=players, target=target, scoring=scoring, **rules)  # type: ignore[arg-type]
    if list(options.house) != house:
        # one spelling per table (the game id hashes it): each name once, in the order of
        # HOUSE_RULES; parse_house alone took " seven-o", a repeat, or "progressive,seven-o"
        raise ValueError(f"house must be {list(options.house)} for these rules, in that order")
    return options
