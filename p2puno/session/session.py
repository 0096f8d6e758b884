"""The game session: the protocol state machine. This file owns it.

Sans-IO, like h11's Connection: signed entries (bytes) come in through :meth:`Session.receive`,
entries to broadcast go out through :attr:`Session.outbox`, and :attr:`Session.events` tells a
UI what happened. It joins the three layers below it and knows nothing above it:

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
4. the end of a round: a *reveal* step in which every seat publishes its secrets, and every
   node audits the round with full information (crypto and rules);
5. otherwise the player on turn, by the engine, proposes its action.

Every entry carries the key releases (public) and show-to-one messages (encrypted to one seat)
that its author owes; a seat that withholds keys past the step where they were due is blamed.
A fault every node can see (a bad signature, an illegal action, a key that breaks its
commitment, withheld keys) ends the game at once with the same verdict on every node. A fault
only one node can see (a show that decrypts to garbage, a false challenge verdict seen by the
offender) is announced as a dispute; every seat then reveals its secrets and the audit names
the cheater, or the accuser if there was nothing to find.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol

from p2puno.bots.view import SeatView
from p2puno.crypto import (
    CryptoError,
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
from p2puno.engine.cards import CARD_COLOR, DECK_SIZE, UNKNOWN_CARD, NotationError
from p2puno.log import ACCEPT_KIND, GENESIS_KIND, Entry, Identity, Log, LogError, Role, Status
from p2puno.wire import JSONValue

SHUFFLE_DOMAIN = b"p2puno/v1/shuffle\x00"
REACTIONS = (Kind.UNO, Kind.CATCH, Kind.JUMP)
MAX_EARLY = 256  # entries kept while their parents are missing


class Decider(Protocol):
    """Who chooses for the local seat: a bot, or a UI that asks a person."""

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
    kind: str  # "engine", "blame", "dispute", "audit", "bluff", "over"
    text: str
    seat: int = -1
    event: Event | None = None  # the engine's own event, for "engine"


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
        decider: Decider | None = None,
        rng: Rng | None = None,
        on_entry: Callable[[bytes], None] | None = None,
        on_secrets: Callable[[list[SecretReveal]], None] | None = None,
        audit_executor: Executor | None = None,
        thorough_audit: bool = False,
    ) -> None:
        """``audit_executor``: a thread pool the end-of-deck audit may share its EC work with
        (see :func:`p2puno.crypto.audit`); the verdict is the same without one.
        ``thorough_audit``: the audit recomputes every shuffle step, so every intermediate deck
        in the log is checked too, not only what the composed check proves ((2n-1)x the EC
        work; see docs/security.md)."""
        if log.game_id is None or len(log) == 0:
            raise ValueError("the log must hold the genesis first")
        genesis = log.proposal(0)
        assert genesis is not None
        opts = genesis[1].body
        assert isinstance(opts, dict)
        self.options = options_from_obj(opts["options"])
        if self.options.players != len(log.players):
            raise ValueError("the options and the roster disagree on the number of players")
        self.log = log
        self.audit_executor = audit_executor
        self.thorough_audit = thorough_audit
        self.game_id: bytes = log.game_id
        self.n = self.options.players
        self.seat = seat
        self.identity = identity
        self.decider = decider
        self.rng = rng if rng is not None else SystemRng()
        self.on_entry = on_entry
        self.on_secrets = on_secrets
        self.engine = Game(self.options)
        self.outbox: list[bytes] = []
        self.events: list[SessionEvent] = []
        self.shuffles: list[_Shuffle] = []
        self.deck_no = 0
        self.shown: dict[tuple[int, int], set[tuple[int, int]]] = {}  # (sender, to) -> slots
        self.last_actor = 0
        self.window_due = False
        self.claim_queue: list[int] = []
        self.my_claim: Action | None = None
        self.dispute: tuple[int, str] | None = None  # (accuser, reason)
        self.my_dispute: str | None = None
        self.blame: Blame | None = None
        self.over = False
        self.audited_rounds = 0
        self.bluffs: list[str] = []
        # The inputs of the current deck, for the full-information audit at its end.
        self.deck_inputs: list[tuple[str, Any]] = []
        self.shadow = Game(self.options)  # full information, one deck behind
        self.audited_deck = 0
        self._done_seq = -1
        self._early: list[bytes] = []  # entries that arrived before their parents
        self._opened: set[int] = set()  # slots of this deck whose every key is public
        self._settled: set[tuple[int, int]] = set()  # (seat, slot): every key it may see, it has
        self._owed_cache: dict[tuple[int, int | None], _Owed] = {}
        self.step = _Step("genesis", genesis[1].author)
        self.seq = 0

    # ------------------------------------------------------------------ inputs
    def receive(self, raw: bytes) -> None:
        """An entry from a peer (or from our own outbox, echoed back: both are fine)."""
        if self.over:
            return

        def expected(entry: Entry) -> int | None:
            if entry.role is Role.PROPOSAL and entry.seq == self.seq + 1:
                return self.step.proposer
            return None  # the log itself refuses a proposal for another seq

        try:
            result = self.log.add(raw, expected_proposer=expected)
        except LogError as e:
            raise SessionError(e.author, f"{e.reason.value}: {e.message}") from None
        if result.status is Status.MISSING_PARENTS:
            # Early: keep it (bounded) and try again whenever something new is added.
            if len(self._early) < MAX_EARLY and raw not in self._early:
                self._early.append(raw)
            return
        if result.status is not Status.ADDED:
            return
        if self.on_entry is not None:
            self.on_entry(raw)
        self._advance()
        self._retry_early()

    def _retry_early(self) -> None:
        progress = True
        while progress and self._early and not self.over:
            progress = False
            for raw in list(self._early):
                self._early.remove(raw)
                try:
                    self.receive(raw)
                except SessionError:
                    continue
                progress = True

    def catch_up(self, max_steps: int | None = None) -> int | None:
        """Process the complete steps already in the log, in order (the offline replay, whose
        log was verified entry by entry beforehand), at most ``max_steps``. Returns the seq of a
        step whose proposer was not the one the schedule expected, else None."""
        done = 0
        while not self.over and (max_steps is None or done < max_steps):
            done += 1
            seq = self._done_seq + 1
            if seq > self.log.head or not self.log.step_complete(seq):
                return None
            proposal = self.log.proposal(seq)
            assert proposal is not None
            if proposal[1].author != self.step.proposer:
                self._set_blame(
                    proposal[1].author,
                    f"proposed at step {seq} where seat {self.step.proposer} was due",
                    seq,
                )
                return seq
            self.seq = seq
            self._process(seq)
            self._after_step(seq)
        return None

    def start(self) -> None:
        """Produce this node's first entries (the accept of the genesis, if not yet sent)."""
        self._advance()

    # ------------------------------------------------------------------ the step loop
    def _advance(self) -> None:
        while not self.over:
            seq = self.log.head
            if seq > self.seq:
                # A new proposal for the next step has arrived; respond if we must.
                self.seq = seq
            if self.log.step_complete(seq) and seq == self.seq and not self._processed(seq):
                self._process(seq)
                self._after_step(seq)
                continue
            if self._maybe_produce():
                continue
            return

    def _processed(self, seq: int) -> bool:
        return seq <= self._done_seq

    def _maybe_produce(self) -> bool:
        """Write our entry for the current step if it is due. True if something was made."""
        if self.seat is None or self.identity is None:
            return False
        seq = self.log.head
        proposal = self.log.proposal(seq)
        if self._processed(seq):
            # the current step is done: propose the next one if it is ours
            if self.step.proposer != self.seat or self.over:
                return False
            raw = self._make_proposal()
            if raw is None:
                return False
            self._emit(raw)
            return True
        if proposal is None or proposal[1].author == self.seat:
            return False
        if self.seat in self.log.responses(seq):
            return False
        raw = self._make_response(proposal[1])
        self._emit(raw)
        return True

    def _emit(self, raw: bytes) -> None:
        self.outbox.append(raw)
        result = self.log.add(raw)
        if result.status is Status.ADDED and self.on_entry is not None:
            self.on_entry(raw)

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
        body = self._base_body()
        if kind == "shuffle":
            sh = self.shuffles[-1]
            assert sh.mine is not None
            if not sh.committed:
                body["commitment"] = sh.mine.commitment().to_obj()
            else:
                body["step"] = sh.mine.step(sh.view).to_obj()
        elif kind == "action":
            action = self._choose_action()
            if action is None:
                kind = "pass"
            else:
                body = self._base_body(
                    action.slot if action.kind in (Kind.PLAY, Kind.JUMP) else None
                )
                if action.kind in (Kind.PLAY, Kind.JUMP):
                    # our own key for the card we play: it becomes public in this step
                    rel = self._mine_for(action.slot)
                    if rel is not None and rel.to_obj() not in body["releases"]:  # type: ignore[operator]
                        body["releases"].append(rel.to_obj())  # type: ignore[union-attr]
                body["action"] = str(action)
        elif kind == "reveal":
            body["secrets"] = [s.mine.reveal().to_obj() for s in self.shuffles if s.mine]
        elif kind == "window":
            body["claim"] = self._decide_claim()
        return self.log.propose(self.identity, me, kind, body)

    def _make_response(self, proposal: Entry) -> bytes:
        assert self.identity is not None
        me = self.seat_or_fail()
        if proposal.kind == GENESIS_KIND:
            return self.log.respond(self.identity, me, ACCEPT_KIND, {})
        played: int | None = None
        body_p = proposal.body
        if proposal.kind == "action" and isinstance(body_p, dict):
            try:
                a = parse_action(str(body_p.get("action", "")))
                if a.kind in (Kind.PLAY, Kind.JUMP):
                    played = a.slot
            except NotationError:
                pass
        body = self._base_body(played)
        if proposal.kind == "shuffle" and isinstance(body_p, dict) and "commitment" in body_p:
            sh = self.shuffles[-1] if self.shuffles else None
            if sh is not None and sh.mine is not None and not sh.committed:
                body["commitment"] = sh.mine.commitment().to_obj()
        if proposal.kind == "reveal":
            body["secrets"] = [s.mine.reveal().to_obj() for s in self.shuffles if s.mine]
        if proposal.kind == "window":
            body["claim"] = self._decide_claim()
        return self.log.respond(self.identity, me, "ack", body)

    def _decide_claim(self) -> bool:
        self.my_claim = None
        me = self.seat_or_fail()
        options = self.engine.reactions(me)
        if options and self.decider is not None:
            self.my_claim = self.decider.react(SeatView(self.engine, me), options)
        return self.my_claim is not None

    def _choose_action(self) -> Action | None:
        me = self.seat_or_fail()
        g = self.engine
        if self._claiming():
            options = g.reactions(me)
            if self.my_claim is not None and self.my_claim in options:
                return self.my_claim
            if options and self.decider is not None:
                return self.decider.react(SeatView(g, me), options)
            return None
        assert self.decider is not None
        return self.decider.act(SeatView(g, me), g.turn_actions(me))

    def _claiming(self) -> bool:
        return bool(self.claim_queue) and self.claim_queue[0] == self.seat

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

    # ------------------------------------------------------------------ processing a step
    def _process(self, seq: int) -> None:
        proposal = self.log.proposal(seq)
        assert proposal is not None
        p = proposal[1]
        # What was owed in the state the last step left: the schedule has usually computed
        # it already (nothing changes a session's state between two steps but a new deck,
        # which clears the cache), so this is a cache hit unless a card is played now.
        owed_before = None if p.kind == "genesis" else self._owed(self._played_slot(p))
        self._done_seq = seq
        self._owed_cache.clear()
        responses = self.log.responses(seq)
        entries = [p] + [responses[s][1] for s in sorted(responses)]
        if owed_before is None:
            return
        try:
            self._take_keys(entries)
            self._apply_proposal(p, [e for e in entries[1:]])
            self._check_owed(owed_before, seq)
        except _Fault as f:
            self._set_blame(f.seat, f.reason, seq)
            return
        except _PublicDispute as d:
            if self.dispute is None:
                self.dispute = (-1, d.reason)
                self.events.append(SessionEvent("dispute", d.reason, -1))
            return
        for e in entries:
            body = e.body
            if isinstance(body, dict) and isinstance(body.get("dispute"), str) and not self.dispute:
                self.dispute = (e.author, str(body["dispute"]))
                self.events.append(
                    SessionEvent("dispute", f"seat {e.author}: {body['dispute']}", e.author)
                )
        self._learn()

    def _played_slot(self, p: Entry) -> int | None:
        if p.kind != "action" or not isinstance(p.body, dict):
            return None
        try:
            a = parse_action(str(p.body.get("action", "")))
        except NotationError:
            return None
        return a.slot if a.kind in (Kind.PLAY, Kind.JUMP) else None

    def _take_keys(self, entries: list[Entry]) -> None:
        for e in entries:
            body = e.body
            if not isinstance(body, dict):
                raise _Fault(e.author, "an entry body must be an object")
            rels = body.get("releases", [])
            shows = body.get("shows", [])
            if not isinstance(rels, list) or not isinstance(shows, list):
                raise _Fault(e.author, "releases and shows must be lists")
            for obj in rels:
                rel = _parse(KeyRelease, obj, e.author)
                if rel.owner != e.author:
                    raise _Fault(e.author, "released a key that is not its own")
                sh = self._shuffle_by_id(rel.shuffle_id, e.author)
                try:
                    sh.view.add_release(rel)
                except CryptoError as err:
                    raise _Fault(e.author, f"key release refused: {err}") from None
            for obj in shows:
                show = _parse(ShowMessage, obj, e.author)
                if show.sender != e.author:
                    raise _Fault(e.author, "a show must come from its sender")
                sh = self._shuffle_by_id(show.shuffle_id, e.author)
                try:
                    sh.view.add_show(show)
                except CryptoError as err:
                    raise _Fault(e.author, f"show refused: {err}") from None
                for pos, owner in zip(show.positions, show.owners, strict=True):
                    self.shown.setdefault((owner, show.recipient), set()).add((sh.base + pos, pos))
                if show.recipient == self.seat and sh.mine is not None:
                    try:
                        sh.view.open_show(show, sh.mine)
                    except VerificationError as err:
                        self.my_dispute = self.my_dispute or f"show from seat {e.author}: {err}"

    def _shuffle_by_id(self, sid: bytes, author: int) -> _Shuffle:
        for sh in self.shuffles:
            if sh.spec.shuffle_id == sid:
                return sh
        raise _Fault(author, "refers to an unknown shuffle")

    def _apply_proposal(self, p: Entry, responses: list[Entry]) -> None:
        body = p.body
        assert isinstance(body, dict)
        kind = p.kind
        if kind != self.step.kind and not (kind == "pass" and self.step.kind == "action"):
            raise _Fault(p.author, f"proposed {kind!r} where {self.step.kind!r} was due")
        if kind == "shuffle":
            sh = self.shuffles[-1]
            if not sh.committed:
                for e in [p, *responses]:
                    b = e.body
                    assert isinstance(b, dict)
                    c = _parse(KeyCommitment, b.get("commitment"), e.author)
                    if c.player != e.author or c.shuffle_id != sh.spec.shuffle_id:
                        raise _Fault(e.author, "commitment for another seat or shuffle")
                    try:
                        sh.view.add_commitment(c)
                    except CryptoError as err:
                        raise _Fault(e.author, f"commitment refused: {err}") from None
                sh.committed = True
            else:
                step = _parse(ShuffleStep, body.get("step"), p.author)
                try:
                    # a live node checks every point now; the replay leaves it to the audit
                    sh.view.add_step(step, check_points=self.seat is not None)
                except CryptoError as err:
                    raise _Fault(p.author, f"shuffle step refused: {err}") from None
                if sh.view.complete:
                    self._shuffle_done(sh)
        elif kind == "action":
            text = body.get("action")
            try:
                action = parse_action(str(text))
            except NotationError as e:
                raise _Fault(p.author, f"bad action: {e}") from None
            if action.seat != p.author:
                raise _Fault(p.author, "an action in another seat's name")
            claiming = bool(self.claim_queue) and self.claim_queue[0] == p.author
            if claiming and action.kind not in REACTIONS:
                raise _Fault(p.author, "a claimant may only call UNO, catch or jump in")
            if not claiming and action.kind in REACTIONS:
                raise _Fault(p.author, "reactions are made after claiming a window")
            if action.kind in (Kind.PLAY, Kind.JUMP):
                self._reveal_public(action.slot, p.author)
            try:
                if action.kind in (Kind.GUILTY, Kind.INNOCENT):
                    events = self._apply_verdict(action)
                else:
                    events = self.engine.apply(action)
            except IllegalAction as e:
                raise _Fault(p.author, f"illegal action {text}: {e.reason}") from None
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
            if self.claim_queue and self.claim_queue[0] == p.author:
                self.claim_queue.pop(0)
            else:
                raise _Fault(p.author, "only a claimant may pass")
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
            self._audit([p, *responses])
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
                self.my_dispute = self.my_dispute or (
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
        try:
            self.engine.reveal(slot, card, public=True)
        except InputError as err:
            raise _Fault(author, str(err)) from None

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
                    self._set_blame(
                        -1, f"public card at slot {slot} does not open: {err}", self.seq
                    )
                    return
                self.my_dispute = self.my_dispute or f"my card at slot {slot}: {err}"
                continue
            except CryptoError:
                continue  # keys not all here yet
            try:
                events = g.reveal(slot, card, public=slot in public)
            except InputError as err:
                self.my_dispute = self.my_dispute or f"slot {slot}: {err}"
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
                refs = [self._slot_ref(s) for s in hidden]
                parents = {id(r[0]) for r in refs if r is not None}
                if None in refs or len(parents) != 1:
                    raise _Fault(-1, "the cards to reshuffle span several shuffles")
                parent = refs[0][0]  # type: ignore[index]
                positions = tuple(r[1] for r in refs)  # type: ignore[index]
                sid = shuffle_id(self.game_id, self.deck_no, len(self.shuffles))
                spec = ShuffleSpec(sid, self.n, cards, parent.spec.shuffle_id, positions)
                mine = None
                if self.seat is not None:
                    mine = ShuffleSecrets.generate(spec, self.seat, self.rng, parent=parent.mine)
                view = ShuffleView(spec, parent=parent.view)
                self.shuffles.append(
                    _Shuffle(spec, view, mine, base, parent=self.shuffles.index(parent))
                )
                self._secrets_changed()
                return
        sid = shuffle_id(self.game_id, self.deck_no, len(self.shuffles))
        spec = ShuffleSpec(sid, self.n, cards)
        mine = ShuffleSecrets.generate(spec, self.seat, self.rng) if self.seat is not None else None
        self.shuffles.append(_Shuffle(spec, ShuffleView(spec), mine, base))
        self._secrets_changed()

    def _secrets_changed(self) -> None:
        if self.seat is not None and self.on_secrets is not None:
            self.on_secrets([s.mine.reveal() for s in self.shuffles if s.mine is not None])

    def _shuffle_done(self, sh: _Shuffle) -> None:
        self.deck_inputs.append(("shuffle", sh))
        for ev in self.engine.shuffle(None):
            self.events.append(SessionEvent("engine", str(ev), ev.seat, ev))

    # ------------------------------------------------------------------ audit
    def _audit(self, entries: list[Entry]) -> None:
        reveals: dict[int, dict[int, SecretReveal]] = {}
        for e in entries:
            b = e.body
            assert isinstance(b, dict)
            secrets = b.get("secrets")
            if not isinstance(secrets, list):
                raise _Fault(e.author, "a reveal entry must carry its secrets")
            for obj in secrets:
                r = _parse(SecretReveal, obj, e.author)
                if r.player != e.author:
                    raise _Fault(e.author, "revealed another seat's secrets")
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
                raise _Fault(v.player, f"audit: {v.fault.value}: {v.detail}")
            assert result.faces is not None
            faces_by_shuffle.append(result.faces)
        self._audit_rules(faces_by_shuffle)
        if self.dispute is not None:
            raise _Fault(self.dispute[0], "false accusation: the audit found nothing")
        self.audited_rounds += 1
        self.audited_deck = self.deck_no
        self.events.append(SessionEvent("audit", f"deck {self.deck_no} verified", -1))

    def _audit_rules(self, faces_by_shuffle: list[tuple[int, ...]]) -> None:
        """Replay this deck's inputs on the full-information shadow engine."""
        shadow = self.shadow
        index = {id(sh): i for i, sh in enumerate(self.shuffles)}
        for what, value in self.deck_inputs:
            if what == "shuffle":
                shadow.shuffle(list(faces_by_shuffle[index[id(value)]]))
            else:
                try:
                    events = shadow.apply(value)
                except IllegalAction as e:
                    raise _Fault(e.seat, f"audit: {e.reason}") from None
                for ev in events:
                    if ev.kind == "play" and ev.bluff:
                        self.bluffs.append(f"seat {ev.seat} bluffed a Wild Draw Four")
                        self.events.append(SessionEvent("bluff", str(ev), ev.seat))
        if shadow.digest() != self.engine.digest():
            raise _Fault(-1, "audit: the full-information replay disagrees with the game")
        self.deck_inputs = []

    # ------------------------------------------------------------------ scheduling
    def _after_step(self, seq: int) -> None:
        self._done_seq = seq
        self._owed_cache.clear()
        if self.blame is not None:
            return
        self._schedule()

    def _schedule(self) -> None:
        g = self.engine
        if self.dispute is not None:
            self.step = _Step("reveal", 0)
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
                self.step = _Step("reveal", 0)
                return
            try:
                self._start_shuffle()
            except _Fault as f:
                self._set_blame(f.seat, f.reason, self.seq)
                return
            self.step = _Step("shuffle", 0)
            return
        if g.phase is Phase.GAME_OVER:
            if self.shuffles and self.audited_deck != self.deck_no:
                self.step = _Step("reveal", 0)
                return
            self.over = True
            self.events.append(SessionEvent("over", f"game over: winners {list(g.winners)}"))
            return
        self.step = _Step("action", g.turn)

    def _set_blame(self, seat: int, reason: str, seq: int) -> None:
        self.blame = Blame(seat, reason, seq)
        self.over = True
        self.events.append(SessionEvent("blame", str(self.blame), seat))


_Owed = dict[int, tuple[list[int], dict[int, list[int]]]]


class _PublicDispute(Exception):
    """A failure every node sees, whose author only the revealed secrets can name."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Fault(Exception):
    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(reason)
        self.seat = seat
        self.reason = reason


def _sid_index(shuffles: list[_Shuffle], sid: bytes) -> int:
    for i, sh in enumerate(shuffles):
        if sh.spec.shuffle_id == sid:
            return i
    return -1


def _parse(cls: Any, obj: object, author: int) -> Any:
    try:
        return cls.from_obj(obj)
    except (CryptoError, ValueError, TypeError) as e:
        raise _Fault(author, f"malformed {getattr(cls, 'TYPE', cls.__name__)}: {e}") from None


def options_to_obj(o: Options) -> dict[str, JSONValue]:
    return {
        "players": o.players,
        "house": list(o.house),
        "scoring": o.scoring,
        "target": o.target,
    }


def options_from_obj(obj: JSONValue) -> Options:
    if not isinstance(obj, dict) or set(obj) != {"players", "house", "scoring", "target"}:
        raise ValueError("options must have players, house, scoring, target")
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
    return Options(players=players, target=target, scoring=scoring, **parse_house(",".join(house)))  # type: ignore[arg-type]
