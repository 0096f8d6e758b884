#!/usr/bin/env python3
"""Generate (or --check) protocol/vectors/engine.json: the rules engine (protocol/engine.md).

    .venv/bin/python protocol/tools/gen_engine_vectors.py          # rewrite the vector file
    .venv/bin/python protocol/tools/gen_engine_vectors.py --check  # exit 1 if it would change

Deterministic: no clock, no OS randomness. Every deck order and every choice comes from
``random.Random`` seeded with a public string, so TEST ONLY.

Each game is played through the engine's public API (``Game``, ``Game.shuffle``,
``Game.reveal``, ``Game.apply``, ``Game.legal_actions``) twice at once:

- a **full-information** engine, told every deck order (what the end-of-deck audit runs,
  spec.md 10.10 step 3): it chooses the actions and answers the legal-action queries;
- a **verifier** engine, told no order (``shuffle(None)``) and only the public cards (the
  played card before its action, the slots of every ``reveal`` need after each input),
  which is what every node knows (spec.md 10.1).

After every input both public-state digests must be equal (engine.md section 14); the
generator asserts it, and that the digest is SHA-256 of the domain and the canonical
encoding (``p2puno.wire.encode``, spec.md section 2) of ``public_state()``, before it writes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

from p2puno.engine import Game, IllegalAction, NotationError, Options, Phase, parse_action
from p2puno.engine.actions import Action, Kind, catch, choose_color, play, simple
from p2puno.engine.cards import CARD_COLOR, CARD_POINTS, CARD_RANK, CARD_TEXT, DECK_SIZE
from p2puno.wire import encode

OUT = Path(__file__).resolve().parent.parent / "vectors" / "engine.json"
SEED = "p2puno engine vectors (test only)"
STATE_DOMAIN = b"p2puno/v1/state\x00"
MAX_INPUTS = 3000  # per game: a bug guard, no game comes near it

# Event kinds worth a checkpoint (legal actions listed) right after them.
NOTABLE = {
    "dealer",
    "start",
    "returned",
    "skip",
    "reverse",
    "stack",
    "challenge",
    "guilty",
    "innocent",
    "swap",
    "rotate",
    "jump",
    "caught",
    "uno",
    "reshuffle",
    "pass",
    "blocked",
    "round-over",
    "game-over",
}

# (name, options, policy, forced start cards by round, forced dealer-draw prefix, what it shows)
GAMES: list[dict[str, Any]] = [
    {
        "name": "2p-plain-standard",
        "options": Options(2, target=40),
        "policy": "random",
        "seed": "6",
        "starts": ["W+4"],
        "dealer_draw": ["r9", "y9"],
        "about": "2 players, no house rule, standard scoring: dealer-draw tie (D1), a Wild "
        "Draw Four turned up and returned by a reshuffle (D3), Reverse as a Skip with 2 "
        "players (D5), challenges, UNO calls and catches",
    },
    {
        "name": "3p-progressive-lowest",
        "options": Options(3, progressive=True, scoring="lowest", target=60),
        "policy": "random",
        "starts": ["g+2"],
        "about": "3 players, Progressive, lowest scoring: Draw Two as start card stacked on "
        "(D12), stacks, challenges under stacking (D4), joint or single lowest winner (D16)",
    },
    {
        "name": "4p-seven-o-standard",
        "options": Options(4, seven_o=True, target=30),
        "policy": "random",
        "starts": ["W"],
        "about": "4 players, Seven-O: 7 swaps and 0 rotations (001 SEVEN-O), Wild as start "
        "card (color named), Skip as start card",
    },
    {
        "name": "3p-jump-in-standard",
        "options": Options(3, jump_in=True, target=30),
        "policy": "random",
        "starts": ["r5"],
        "about": "3 players, Jump-In: jump-ins cancelling Skip/Reverse/Draw Two/Wild Draw Four "
        "(001 JUMP-IN 2, D11)",
    },
    {
        "name": "2p-all-house-lowest",
        "options": Options(2, True, True, True, scoring="lowest", target=50),
        "policy": "random",
        "starts": ["yR"],
        "about": "2 players, every house rule, lowest scoring: Reverse as start card with 2 "
        "players (the dealer starts, D5), the combinations of docs/rules.md section 14",
    },
    {
        "name": "3p-all-house-eager",
        "options": Options(3, True, True, True, target=30),
        "policy": "eager",
        "seed": "6",
        "starts": ["b1"],
        "hands": {
            0: ["r+2", "W+4", "g7", "bS", "y0"],
            1: ["r+2", "W+4", "g7", "bS", "W+4"],
            2: ["W+4", "y+2", "y+2", "b5"],
        },
        "about": "3 players, every house rule, players who prefer action cards and jump in "
        "whenever they can: Wild Draw Four stacks and their challenge (D4), jumps on stacks "
        "(D13), jumped 7s (docs/rules.md R14.2)",
    },
    {
        "name": "5p-progressive-jump-in",
        "options": Options(5, progressive=True, jump_in=True, target=25),
        "policy": "random",
        "starts": ["bS"],
        "about": "5 players, Progressive + Jump-In: a jumped Draw Two keeps the stack total (D13)",
    },
    {
        "name": "10p-blocked-lowest",
        "options": Options(10, scoring="lowest", target=20),
        "policy": "draw",
        "starts": ["r3"],
        "about": "10 players who only draw: the draw pile runs out with one card on the "
        "discard pile, every seat passes, the round is blocked (D6) and lowest scoring ends "
        "the game",
    },
    {
        "name": "10p-progressive-slow",
        "options": Options(10, progressive=True, target=1),
        "policy": "slow",
        "play": 0.6,
        "seed": "55",
        "about": "10 players, Progressive, who often draw instead of playing: a turn draw finds "
        "the draw pile empty and the discard pile reshuffled, then draws from the new pile "
        "(engine.md 12.2, 12.4)",
    },
    {
        "name": "2p-progressive-out-on-a-stack",
        "options": Options(2, progressive=True, target=1),
        "policy": "slow",
        "play": 0.7,
        "seed": "12",
        "about": "2 players, Progressive: a player goes out by stacking a Draw Two / Wild Draw "
        "Four on the pending one; the next player draws the whole stack (D8)",
    },
]


# ---------------------------------------------------------------------------- helpers
def face_id(face: str, avoid: set[int]) -> int:
    for c in range(DECK_SIZE):
        if CARD_TEXT[c] == face and c not in avoid:
            return c
    raise ValueError(face)


def digest_of(g: Game) -> str:
    """The digest as engine.md section 14 spells it, checked against ``Game.digest``."""
    body = encode(g.public_state())
    assert json.dumps(g.public_state(), sort_keys=True, separators=(",", ":")).encode() == body
    d = hashlib.sha256(STATE_DOMAIN + body).hexdigest()
    assert d == g.digest().hex()
    return d


def options_obj(o: Options) -> dict[str, Any]:
    """The genesis ``options`` (schemas/session-options.json) for these Options."""
    return {"players": o.players, "house": list(o.house), "scoring": o.scoring, "target": o.target}


def template(reason: str) -> str:
    """A refusal reason with its numbers and faces blanked, to keep one example of each."""
    return re.sub(r"\b[rygb]?(\d+|S|R|\+2)\b|W\+4|\bW\b", "#", reason)


# ---------------------------------------------------------------------------- one game
class Run:
    def __init__(self, spec: dict[str, Any], seen: set[str]) -> None:
        self.spec = spec
        self.options: Options = spec["options"]
        self.rng = random.Random(f"{SEED}:{spec['name']}:{spec.get('seed', '')}")
        self.full = Game(self.options)
        self.view = Game(self.options)  # the verifier: public cards only
        self.inputs: list[dict[str, Any]] = []
        self.decks = 0
        self.last_actor = 0
        self.seen = seen  # refusal templates already in the file (one example each)
        self.events: set[str] = set()
        self.bodies: list[dict[str, Any]] = []
        self.view_events: list[Any] = []
        self.seen_situations: set[str] = set()

    # -- inputs
    def shuffle(self) -> dict[str, Any]:
        need = self.full.need
        assert need is not None and need.kind == "shuffle"
        if not need.sources:
            order = list(range(DECK_SIZE))
            self.rng.shuffle(order)
            self.decks += 1
            if self.decks == 1:
                self._force(order, 0, self.spec.get("dealer_draw", []))
            else:
                starts = self.spec.get("starts", [])
                if self.decks - 2 < len(starts):
                    self._force(order, 7 * self.options.players, [starts[self.decks - 2]])
                if self.decks == 2:
                    self._deal_hands(order, self.spec.get("hands", {}))
        else:
            order = [self.full.faces[s] for s in need.sources]
            self.rng.shuffle(order)
            if self.full.owed and self.full.owed[0][1] > 1:
                self.seen_situations.add("reshuffle-during-a-penalty")
        events = self.full.shuffle(order)
        self.view_events = self.view.shuffle(None)
        return self._record({"shuffle": order}, events)

    @staticmethod
    def _force(order: list[int], at: int, faces: list[str]) -> None:
        """Put a card of each face at positions at, at+1, ... (swapping)."""
        for i, face in enumerate(faces):
            c = face_id(face, set(order[at : at + i]))
            j = order.index(c)
            order[at + i], order[j] = order[j], order[at + i]

    def _deal_hands(self, order: list[int], hands: dict[int, list[str]]) -> None:
        """Put these faces into these seats' first dealt positions (002 Setup 2: the k-th
        card dealt goes to seat dealer + 1 + k)."""
        n = self.options.players
        first = (self.full.dealer + 1) % n
        fixed = {7 * n}  # the start card
        for seat, faces in sorted(hands.items()):
            for j, face in enumerate(faces):
                at = (seat - first) % n + j * n
                c = face_id(face, {order[i] for i in fixed})
                k = order.index(c)
                order[at], order[k] = order[k], order[at]
                fixed.add(at)

    def act(self, a: Action) -> dict[str, Any]:
        rec: dict[str, Any] = {"action": str(a)}
        if a.kind in (Kind.PLAY, Kind.JUMP):
            card = self.full.faces[a.slot]
            rec["card"] = card
            self.view.reveal(a.slot, card, public=True)
        assert parse_action(str(a)) == a
        self._situations(a)
        events = self.full.apply(a)
        self.view_events = self.view.apply(a)
        self.last_actor = a.seat  # the author of the last accepted action (spec.md 10.1)
        return self._record(rec, events)

    def _record(self, rec: dict[str, Any], events: list[Any]) -> dict[str, Any]:
        reveals = self._sync()
        # the verifier saw the same events, in the same order, once its reveals came
        assert [e.kind for e in events] == [e.kind for e in self.view_events], rec
        if reveals:
            rec["reveals"] = reveals
        kinds = [e.kind for e in events]
        self.events.update(kinds)
        for e in events:
            if e.kind == "play" and e.bluff:
                self.seen_situations.add("wild-draw-four-bluff")
            if e.kind in ("start", "returned"):
                self.seen_situations.add("start-" + CARD_TEXT[e.card].lstrip("rygb"))
            if e.kind == "penalty" and "out" in kinds:
                self.seen_situations.add("out-on-draw-card")
        rec["events"] = kinds
        d = digest_of(self.full)
        assert digest_of(self.view) == d, f"views differ after {rec}"
        rec["digest"] = d
        self.inputs.append(rec)
        return rec

    def _sync(self) -> list[list[int]]:
        """Answer the verifier's reveal needs with the public cards (full engine's faces)."""
        out: list[list[int]] = []
        while self.view.need is not None and self.view.need.kind == "reveal":
            for s in self.view.need.slots:
                out.append([s, self.full.faces[s]])
                self.view_events += self.view.reveal(s, self.full.faces[s], public=True)
        return out

    def _situations(self, a: Action) -> None:
        """Note the rule situations this action exercises (build() asserts the list)."""
        g, o, add = self.full, self.options, self.seen_situations.add
        top = CARD_RANK[g.top] if g.discard else -1
        rank = CARD_RANK[g.faces[a.slot]] if a.slot >= 0 else -1
        if a.kind is Kind.JUMP:
            add("jump")
            if top in (10, 11, 12, 14):
                add("jump-cancels-" + ("S", "R", "+2", "", "W+4")[top - 10])
            if o.progressive and top in (12, 14) and g.pending > (2 if top == 12 else 4):
                add("jump-on-a-stack")
            if rank == 7 and o.seven_o and a.target >= 0:
                add("jump-seven")
            if a.seat == self.last_actor:
                add("jump-by-the-player-who-just-played")
        if a.kind is Kind.PLAY:
            if g.phase is Phase.DRAWN:
                add("play-drawn-card")
            if g.phase is Phase.PENALTY:
                add("stack-" + ("+2" if rank == 12 else "W+4"))
            if rank == 11 and o.players == 2:
                add("reverse-with-2-players")
            if rank == 0 and o.seven_o and len(g.hands[a.seat]) > 1:
                add("seven-o-rotate")
            if a.uno:
                add("uno-with-the-play")
        if a.kind is Kind.CHALLENGE and g.pending > 4:
            add("challenge-a-stack")
        if a.kind is Kind.UNO:
            add("uno-called-late")
        if a.kind is Kind.TAKE and g.pending_rank == 14:
            add("take-wild-draw-four")
        if a.kind is Kind.DRAW and not g.draw and len(g.discard) >= 2:
            add("turn-draw-reshuffle")
        if a.kind is Kind.PLAY and g.phase is Phase.PENALTY and len(g.hands[a.seat]) == 1:
            add("out-on-a-stack")

    # -- choices
    def choose(self) -> Action:
        g, rng = self.full, self.rng
        n = self.options.players
        if self.spec["policy"] == "draw":
            acts = g.turn_actions(g.turn)
            for kind in (Kind.DRAW, Kind.KEEP, Kind.TAKE, Kind.COLOR):
                for a in acts:
                    if a.kind is kind:
                        return a
            return acts[0]
        if self.spec["policy"] == "slow" and not g.window:  # draw often, stack always
            acts = g.turn_actions(g.turn)
            plays = [a for a in acts if a.kind is Kind.PLAY]
            by = {a.kind: a for a in acts}
            p = self.spec["play"]
            if g.phase is Phase.TURN:
                return rng.choice(plays) if plays and rng.random() < p else by[Kind.DRAW]
            if g.phase is Phase.DRAWN:
                return rng.choice(plays) if plays and rng.random() < p else by[Kind.KEEP]
            if g.phase is Phase.PENALTY:
                return rng.choice(plays) if plays else by[Kind.TAKE]
        if g.window:  # claimants in seat order after the last actor, itself last (10.5.3)
            for i in range(1, n + 1):
                seat = (self.last_actor + i) % n
                reacts = g.reactions(seat)
                if reacts and rng.random() < 0.6:
                    jumps = [a for a in reacts if a.kind is Kind.JUMP]
                    if jumps and self.spec["policy"] == "eager":
                        return rng.choice(jumps)
                    return rng.choice(reacts)
        acts = g.turn_actions(g.turn)
        plays = [a for a in acts if a.kind is Kind.PLAY]
        by = {a.kind: a for a in acts}
        if self.spec["policy"] == "eager" and plays:  # action cards and 7s first
            keen = [a for a in plays if a.rank >= 10 or a.rank == 7]
            if keen and rng.random() < 0.8:
                plays = keen
        if g.phase is Phase.TURN:
            return rng.choice(plays) if plays and rng.random() < 0.93 else by[Kind.DRAW]
        if g.phase is Phase.DRAWN:
            return rng.choice(plays) if plays and rng.random() < 0.8 else by[Kind.KEEP]
        if g.phase is Phase.PENALTY:
            if plays and rng.random() < 0.7:
                return rng.choice(plays)
            if Kind.CHALLENGE in by and rng.random() < 0.5:
                return by[Kind.CHALLENGE]
            return by[Kind.TAKE]
        return rng.choice(acts)  # START_COLOR: a color; VERDICT: the true verdict

    # -- checkpoints
    def checkpoint(self, rec: dict[str, Any]) -> None:
        g = self.full
        if g.need is not None or g.phase is Phase.GAME_OVER:
            return
        rec["turn"] = g.turn
        rec["legal"] = sorted(str(a) for a in g.turn_actions(g.turn))
        reacts = {
            str(s): sorted(str(a) for a in g.reactions(s))
            for s in range(self.options.players)
            if g.reactions(s)
        }
        if reacts:
            rec["reactions"] = reacts
        illegal = [p for p in (self._probe(a) for a in self._candidates()) if p is not None]
        if illegal:
            rec["illegal"] = illegal

    def _candidates(self) -> list[Action]:
        """Actions likely to be refused here, one of each sort."""
        g = self.full
        n = self.options.players
        t = g.turn
        other = (t + 1) % n
        hand = g.hands[t]
        out: list[Action] = [
            simple(other, Kind.DRAW),
            simple(min(n, 9), Kind.DRAW),  # no such seat (if n < 10)
            simple(t, Kind.DRAW),
            simple(t, Kind.KEEP),
            simple(t, Kind.TAKE),
            simple(t, Kind.CHALLENGE),
            simple(t, Kind.GUILTY),
            simple(t, Kind.INNOCENT),
            simple(other, Kind.UNO),
            catch(t, other),
            choose_color(t, 0),
        ]
        legal = set(g.legal_actions(t))
        for slot in hand:
            c = g.faces[slot]
            col, rank = CARD_COLOR[c], CARD_RANK[c]
            wild = col < 0
            base = play(t, slot, col, rank, choose=0 if wild else -1)
            out.append(base)
            out.append(play(t, slot, (col + 1) % 4 if not wild else 0, rank))  # wrong face
            out.append(base._replace(uno=True))
            out.append(base._replace(target=t))
            if rank == 7:
                out.append(base._replace(target=-1))
            out.append(base._replace(kind=Kind.JUMP))
        if g.draw:
            s = g.draw[-1]
            c = g.faces[s]
            out.append(
                play(t, s, CARD_COLOR[c], CARD_RANK[c], choose=0 if CARD_COLOR[c] < 0 else -1)
            )
        if g.hands[other]:
            s = g.hands[other][0]
            c = g.faces[s]
            out.append(
                play(other, s, CARD_COLOR[c], CARD_RANK[c], choose=0 if CARD_COLOR[c] < 0 else -1)
            )
        return [a for a in out if a not in legal]

    def _probe(self, a: Action) -> dict[str, Any] | None:
        try:
            self.full.check(a)
        except IllegalAction as e:
            key = template(e.reason)
            if key in self.seen:
                return None
            self.seen.add(key)
            view_reason = self._view_check(a)
            out: dict[str, Any] = {"action": str(a), "blame": e.seat, "reason": e.reason}
            if a.kind in (Kind.PLAY, Kind.JUMP) and 0 <= a.slot < len(self.full.faces):
                out["card"] = self.full.faces[a.slot]  # what opening the slot would show
            if view_reason != e.reason:
                out["full_info_only"] = True
                assert view_reason is None, (a, view_reason, e.reason)
            return out
        return None

    def _probe_into(self, rec: dict[str, Any], a: Action) -> None:
        p = self._probe(a)
        if p is not None:
            rec.setdefault("illegal", []).append(p)

    def _view_check(self, a: Action) -> str | None:
        """The verifier's answer (None: accepted). A play's card is opened first, as the
        session opens it (spec.md 10.5.2)."""
        v = self.view
        if a.kind in (Kind.PLAY, Kind.JUMP) and 0 <= a.slot < len(v.faces):
            v = copy.deepcopy(v)
            if v.faces[a.slot] < 0:
                v.reveal(a.slot, self.full.faces[a.slot], public=True)
        try:
            v.check(a)
        except IllegalAction as e:
            return e.reason
        return None

    # -- the game
    def run(self) -> dict[str, Any]:
        g = self.full
        step = 0
        while g.phase is not Phase.GAME_OVER:
            assert len(self.inputs) < MAX_INPUTS, self.spec["name"]
            if g.need is not None:
                if self.inputs:  # nobody may act while the engine waits for a shuffle
                    self._probe_into(self.inputs[-1], simple(max(g.turn, 0), Kind.DRAW))
                rec = self.shuffle()
            else:
                if g.phase is Phase.VERDICT:  # probe the false verdict before the true one
                    truth = g.turn_actions(g.turn)[0].kind
                    false = Kind.INNOCENT if truth is Kind.GUILTY else Kind.GUILTY
                    self._probe_into(self.inputs[-1], simple(g.turn, false))
                rec = self.act(self.choose())
            step += 1
            if step % 12 == 1 or NOTABLE.intersection(rec["events"]):
                self.checkpoint(rec)
            if not self.bodies and g.phase is Phase.TURN and g.need is None:
                self.bodies.append(
                    {"after_input": len(self.inputs) - 1, "text": encode(g.public_state()).decode()}
                )
        self.bodies.append(
            {"after_input": len(self.inputs) - 1, "text": encode(g.public_state()).decode()}
        )
        self._probe_into(self.inputs[-1], simple(0, Kind.DRAW))  # the game is over
        return {
            "name": self.spec["name"],
            "about": self.spec["about"],
            "options": options_obj(self.options),
            "inputs": self.inputs,
            "state_bodies": self.bodies,
            "final": {
                "rounds": g.round_no,
                "scores": list(g.scores),
                "winners": list(g.winners),
                "digest": g.digest().hex(),
            },
        }


# ---------------------------------------------------------------------------- notation
NOTATION_OK = [
    "0 r7#45",
    "0 W#3:g",
    "2 W+4#3:b!",
    "1 g7#9>2",
    "1 jump g7#9",
    "1 jump y7#9>0!",
    "0 b+2#107",
    "3 yS#0",
    "4 gR#12",
    "0 draw",
    "0 keep",
    "0 take",
    "1 challenge",
    "1 guilty",
    "1 innocent",
    "2 uno",
    "3 catch 2",
    "1 color g",
]
NOTATION_BAD = [
    "0 r7",
    "0 r7#045",
    "10 draw",
    "0 W#3",
    "0 r7#3:g",
    "0 r7#3!>2",
    "0 x7#3",
    "0  draw",
    "0 draw ",
    "0 jump",
    "0 catch",
    "0 color p",
    "0 r7#65536",
    "00 draw",
    "0 R#1",
]


def notation() -> dict[str, Any]:
    ok = []
    for text in NOTATION_OK:
        a = parse_action(text)
        assert str(a) == text
        ok.append(
            {
                "text": text,
                "seat": a.seat,
                "kind": a.kind.value,
                "slot": a.slot,
                "color": a.color,
                "rank": a.rank,
                "choose": a.choose,
                "target": a.target,
                "uno": a.uno,
            }
        )
    bad = []
    for text in NOTATION_BAD:
        try:
            parse_action(text)
        except NotationError as e:
            bad.append({"text": text, "error": str(e)})
        else:
            raise AssertionError(f"{text!r} parsed")
    return {"valid": ok, "invalid": bad}


# ---------------------------------------------------------------------------- the file
REQUIRED_EVENTS = {
    "dealer-card",
    "dealer",
    "round",
    "start",
    "returned",
    "play",
    "jump",
    "color",
    "draw",
    "keep",
    "pass",
    "skip",
    "reverse",
    "penalty",
    "stack",
    "uno",
    "caught",
    "challenge",
    "guilty",
    "innocent",
    "swap",
    "rotate",
    "reshuffle",
    "out",
    "blocked",
    "round-over",
    "game-over",
}


# Rule situations the games must go through (see Run._situations).
REQUIRED_SITUATIONS = {
    "start-W+4",  # returned (D3)
    "start-W",
    "start-S",
    "start-R",
    "start-+2",
    "play-drawn-card",
    "reverse-with-2-players",
    "uno-with-the-play",
    "uno-called-late",
    "out-on-draw-card",
    "take-wild-draw-four",
    "wild-draw-four-bluff",
    "stack-+2",
    "stack-W+4",
    "challenge-a-stack",
    "seven-o-rotate",
    "jump",
    "jump-by-the-player-who-just-played",
    "jump-cancels-S",
    "jump-cancels-R",
    "jump-cancels-+2",
    "jump-cancels-W+4",
    "jump-on-a-stack",
    "jump-seven",
    "reshuffle-during-a-penalty",
    "turn-draw-reshuffle",  # a turn draw finds the draw pile empty, 2+ discards (12.2, 12.4)
    "out-on-a-stack",  # going out on a +2 / W+4 stacked under Progressive (10.1.4, D8)
}


def build() -> dict[str, Any]:
    seen: set[str] = set()
    games = []
    events: set[str] = set()
    situations: set[str] = set()
    for spec in GAMES:
        run = Run(spec, seen)
        games.append(run.run())
        events |= run.events
        situations |= run.seen_situations
    missing = REQUIRED_EVENTS - events
    assert not missing, f"the games no longer show: {sorted(missing)}"
    missing = REQUIRED_SITUATIONS - situations
    assert not missing, f"the games no longer show: {sorted(missing)}"
    return {
        "description": "rules-engine conformance vectors (protocol/engine.md): whole games as "
        "inputs (shuffle orders and actions) with the public-state digest after each, the "
        "legal actions at checkpoints, refused actions with their reasons, and the action "
        "notation. TEST ONLY: seeded, not random.",
        "generator": "protocol/tools/gen_engine_vectors.py (--check compares)",
        "fields": {
            "deck": "faces[id] and points[id] for card ids 0..107 (engine.md section 1)",
            "notation": "valid action texts with their fields, invalid ones with the "
            "reference's NotationError text (engine.md section 4)",
            "games[].options": "the genesis options (schemas/session-options.json)",
            "games[].inputs[]": "in order: {shuffle: card ids, first dealt first} answers the "
            "engine's shuffle need with full information; {action: text, card: id of the "
            "card played (plays and jump-ins)} is applied. reveals: the [slot, card] pairs a "
            "verifier without the orders must be told publicly after this input (reveal "
            "needs). events: the reference's event kinds (informative). digest: SHA-256 of "
            "the public state after the input and its reveals (engine.md section 14), the "
            "same with or without the orders",
            "games[].inputs[].turn/legal/reactions": "at checkpoints: the seat on turn and "
            "its legal turn actions only (engine.md section 9); reactions: every seat with "
            "out-of-turn actions (the seat on turn included) and those actions (all sorted as "
            "text; the engine's list order is not normative)",
            "games[].inputs[].illegal": "actions the engine must refuse in the state after "
            "this input: blamed seat and the reference's reason (engine.md section 11); card: "
            "the card in the slot a play names (a verifier opens it first, as the session "
            "does); full_info_only: refused only where the challenged hand is known (the "
            "audit), accepted by a verifier",
            "games[].state_bodies": "the canonical public-state text after the given input "
            "(the bytes hashed after the domain), to debug a digest mismatch",
            "games[].final": "rounds, scores, winners and digest at game over",
        },
        "state_domain_hex": STATE_DOMAIN.hex(),
        "deck": {
            "faces": list(CARD_TEXT),
            "points": list(CARD_POINTS),
        },
        "notation": notation(),
        "games": games,
    }


def render(doc: dict[str, Any]) -> str:
    """Pretty JSON with every input, body and notation case on one line."""
    c = {"separators": (",", ":"), "sort_keys": True}

    def lines(items: list[Any], indent: str) -> str:
        return (
            "[\n"
            + ",\n".join(indent + json.dumps(x, **c) for x in items)
            + "\n"
            + indent[:-2]
            + "]"
        )

    out = ["{"]
    keys = sorted(doc)
    for i, k in enumerate(keys):
        v = doc[k]
        end = "," if i < len(keys) - 1 else ""
        if k == "games":
            parts = []
            for gm in v:
                gk = sorted(gm)
                fields = []
                for key in gk:
                    val = gm[key]
                    if key in ("inputs", "state_bodies"):
                        fields.append(f'      "{key}": ' + lines(val, " " * 8))
                    else:
                        fields.append(f'      "{key}": ' + json.dumps(val, **c))
                parts.append("    {\n" + ",\n".join(fields) + "\n    }")
            out.append(f'  "{k}": [\n' + ",\n".join(parts) + "\n  ]" + end)
        elif k == "notation":
            inner = ",\n".join(f'    "{nk}": ' + lines(v[nk], " " * 6) for nk in sorted(v))
            out.append(f'  "{k}": {{\n' + inner + "\n  }" + end)
        else:
            out.append(f'  "{k}": ' + json.dumps(v, **c) + end)
    out.append("}")
    text = "\n".join(out) + "\n"
    assert json.loads(text) == doc
    return text


def main() -> int:
    text = render(build())
    if "--check" in sys.argv:
        same = OUT.exists() and OUT.read_text("utf-8") == text
        print("engine vectors up to date" if same else "engine vectors differ from the generator")
        return 0 if same else 1
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT} ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
