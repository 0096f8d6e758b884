"""Generate (or --check) the cheat vectors: protocol/vectors/cheats/*.log and cheats.json.

Each vector is a log file: the genuine signed prefix of a small seeded 2-player game (every
key and every random draw comes from test-only seeds; never use them for a real game), then
the cheating entry or entries, sometimes followed by a few more entries. cheats.json says, for
each file, what `p2puno replay --verify` must find: the 0-based line it stops at
(ReplayResult.bad_entry), the seat it blames (ReplayResult.blame.seat) or, for a fault of the
log layer, the spec section 8 code it reports, and a reason substring. The generator checks
every vector against the reference replay (and, for the cheats played live, against the
verdict the honest nodes reached) before writing anything.

Three ways of making a vector, as in tests/session/test_cheats.py and test_hostile.py:
- log-layer faults (signature, chain, duplicates, equivocation, wrong proposer) edit the lines
  of one genuine game: the bad line replaces or follows a genuine one;
- session faults are played live on a LocalTable: the cheater's node signs altered bodies
  (cheat_writer), its bot cheats, or its secrets are altered, every node processes the entries
  and reaches the same verdict, and the log they all hold is the vector;
- stops are played on a simulated network (p2puno.session.simnet) whose clock runs the
  deadlines: a seat goes silent, the others vote, and the log of a node that voted is the
  vector.

    python protocol/tools/gen_cheat_vectors.py            # write the files
    python protocol/tools/gen_cheat_vectors.py --check    # exit 1 if they would change
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2puno.crypto import DeterministicRng, KeyRelease, ShowMessage, ShuffleSecrets
from p2puno.crypto._group import encrypt_one
from p2puno.engine import Options, Phase
from p2puno.engine.game import HAND_SIZE
from p2puno.log import Identity, LogFileError, Role, entry_hash, sign_entry, verify_log_file
from p2puno.session.harness import LocalTable
from p2puno.session.replay import replay
from p2puno.session.session import Session, shuffle_id
from p2puno.session.simnet import NetConfig, SimNet
from p2puno.session.testing import (
    AlwaysChallenges,
    Bluffer,
    FairWildFour,
    IllegalPlayer,
    LyingChallenger,
    Trusting,
)
from p2puno.wire import JSONValue, decode

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
FOLDER = "cheats"
INDEX = VECTORS / "cheats.json"
SEED = "p2puno cheat vectors (test keys only)"
OPTIONS = Options(2, target=20)


# ---------------------------------------------------------------------- entries
def fields(raw: bytes) -> dict[str, Any]:
    obj: Any = decode(raw)
    assert isinstance(obj, dict)
    return obj


def resign(table: LocalTable, raw: bytes, *, signer: int | None = None, **changes: Any) -> bytes:
    """A validly signed variant of ``raw``: by its author's key, or ``signer``'s if given."""
    o = fields(raw)
    f: dict[str, Any] = {
        "game": bytes.fromhex(o["game"]),
        "seq": o["seq"],
        "author": o["author"],
        "role": Role(o["role"]),
        "kind": o["kind"],
        "prev": [bytes.fromhex(p) for p in o["prev"]],
        "body": o["body"],
    }
    f.update(changes)
    identity = table.sessions[f["author"] if signer is None else signer].identity
    assert identity is not None
    return sign_entry(identity, **f)


def body_of(raw: bytes) -> dict[str, Any]:
    body = fields(raw)["body"]
    return dict(body) if isinstance(body, dict) else {}


def find(lines: list[bytes], pick: Callable[[dict[str, Any]], bool], after: int = 0) -> int:
    """The first line (index) from ``after`` on whose decoded entry satisfies ``pick``."""
    for i in range(after, len(lines)):
        if pick(fields(lines[i])):
            return i
    raise AssertionError("no such entry in the game: change the seed")


def log_lines(table: LocalTable, seat: int) -> list[bytes]:
    log = table.sessions[seat].log
    return [log.raw(h) for h, _ in log]


# ---------------------------------------------------------------------- vectors
@dataclass
class Vector:
    name: str
    description: str
    spec: list[str]
    lines: list[bytes]
    cheat_seat: int | None
    cheat_lines: list[int]
    expect: dict[str, Any]
    note: str | None = None

    def data(self) -> bytes:
        return b"".join(raw + b"\n" for raw in self.lines)

    def index_entry(self) -> dict[str, Any]:
        data = self.data()
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "log": f"{FOLDER}/{self.name}.log",
            "entries": len(self.lines),
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "spec": self.spec,
            "cheat": {"seat": self.cheat_seat, "lines": self.cheat_lines},
            "expect": self.expect,
        }
        if self.note:
            out["note"] = self.note
        return out


def _expect(
    *,
    ok: bool = False,
    line: int | None = None,
    layer: str | None = None,
    code: str | None = None,
    blame: int | None = None,
    step: int | None = None,
    reason: str | None = None,
    author: int | None = None,
    **more: Any,
) -> dict[str, Any]:
    return {
        "ok": ok,
        "line": line,
        "layer": layer,
        "code": code,
        "blame": blame,
        "step": step,
        "reason": reason,
        "author": author,
        **more,
    }


def log_fault(
    name: str,
    description: str,
    spec: list[str],
    lines: list[bytes],
    bad: int,
    code: str,
    reason: str,
    *,
    cheat_seat: int | None,
    author: int | None,
    cheat_lines: list[int] | None = None,
    note: str | None = None,
) -> Vector:
    """A file the log layer refuses at line ``bad`` (spec section 8), naming no seat in the
    replay; ``author`` is the seat section 8 holds to blame (None: the sending peer)."""
    return Vector(
        name,
        description,
        spec,
        lines,
        cheat_seat,
        [bad] if cheat_lines is None else cheat_lines,
        _expect(line=bad, layer="log", code=code, reason=reason, author=author),
        note,
    )


def session_fault(
    name: str,
    description: str,
    spec: list[str],
    table: LocalTable,
    cheats: Iterable[bytes],
    seat: int,
    reason: str,
    *,
    dispute: int | None = None,
    note: str | None = None,
) -> Vector:
    """A live game that ended in a blame: every node holds the same log and the same verdict,
    which the replay of that log must reach."""
    lines = log_lines(table, 0)
    blame = table.sessions[0].blame
    assert blame is not None, f"{name}: the game ended in no blame"
    assert blame.seat == seat and reason in blame.reason, f"{name}: {blame}"
    for s in table.sessions:
        assert s.blame == blame, f"{name}: seat {s.seat} found {s.blame}, not {blame}"
        assert [s.log.raw(h) for h, _ in s.log] == lines, f"{name}: the nodes' logs differ"
    hashes = {entry_hash(raw) for raw in cheats}
    cheat_lines = [i for i, raw in enumerate(lines) if entry_hash(raw) in hashes]
    assert cheat_lines, f"{name}: the cheat is not in the honest log"
    step_lines = [i for i, raw in enumerate(lines) if fields(raw)["seq"] == blame.step]
    more: dict[str, Any] = {}
    if dispute == -1:
        # a public dispute: written in no entry; the step that opened it is followed by the
        # reveal the schedule wants at once (spec 10.4 rule 1)
        assert not any(isinstance(body_of(r).get("dispute"), str) for r in lines), name
        events = [e.text for e in table.sessions[0].events if e.kind == "dispute"]
        assert len(events) == 1 and table.sessions[0].dispute == (-1, events[0]), name
        at = blame.step - 1
        assert fields(lines[find(lines, lambda o: o["seq"] == blame.step)])["kind"] == "reveal"
        last = max(i for i, raw in enumerate(lines) if fields(raw)["seq"] == at)
        more["dispute"] = {"seat": -1, "step": at, "line": last}
    elif dispute is not None:
        first = find(lines, lambda o: isinstance(o["body"].get("dispute"), str))
        assert fields(lines[first])["author"] == dispute, f"{name}: another seat disputed first"
        more["dispute"] = {"seat": dispute, "line": first}
    if len(step_lines) == 1:  # a proposal judged on arrival: nobody answered it (10.7.1)
        assert (
            fields(lines[step_lines[0]])["role"] == "proposal" and step_lines[0] == len(lines) - 1
        )
        more["unanswered"] = True
    expect = _expect(
        line=max(step_lines), layer="session", blame=seat, step=blame.step, reason=reason, **more
    )
    return Vector(name, description, spec, lines, seat, cheat_lines, expect, note)


# ---------------------------------------------------------------------- the base game
def base_game() -> tuple[LocalTable, list[bytes]]:
    table = LocalTable(OPTIONS, seed=f"{SEED}/base/22")  # the seed of a short game
    table.run()
    for s in table.sessions:
        assert s.blame is None and s.over
    return table, log_lines(table, 0)


def log_vectors(table: LocalTable, lines: list[bytes]) -> list[Vector]:
    out: list[Vector] = []

    def resp(seat: int, min_seq: int) -> Callable[[dict[str, Any]], bool]:
        return lambda o: o["role"] == "response" and o["author"] == seat and o["seq"] >= min_seq

    # The first response of seat 1 after its commitment, and its commitment (seq 1).
    r = find(lines, resp(1, 2))
    earlier = find(lines, resp(1, 1))
    raw = lines[r]
    o = fields(raw)
    tail = lines[r + 1 : r + 3]

    sig = o["sig"]
    flipped = sig[:7] + ("0" if sig[7] != "0" else "1") + sig[8:]
    out.append(
        log_fault(
            "forged-signature",
            "seat 1's response with one hex digit of its signature changed: the bytes no longer "
            "verify under seat 1's key; then the two genuine lines that followed it",
            ["4", "8 row 6"],
            [*lines[:r], raw.replace(sig.encode(), flipped.encode()), *tail],
            r,
            "bad_signature",
            "signature does not verify",
            cheat_seat=None,
            author=None,
            note="not attributable: anyone can write bad bytes in seat 1's name, so spec 8 "
            "blames the peer that sent them, and the replay names no seat",
        )
    )
    out.append(
        log_fault(
            "signature-by-another-seat",
            "seat 1's response, author still 1, validly signed with seat 0's key",
            ["4", "5", "8 row 6"],
            [*lines[:r], resign(table, raw, signer=0), *tail],
            r,
            "bad_signature",
            "signature does not verify",
            cheat_seat=None,
            author=None,
            note="entries verify under the key the roster lists for their author; the signer "
            "cannot be told from the signature, so nobody is named",
        )
    )
    old_sig = fields(lines[earlier])["sig"]
    out.append(
        log_fault(
            "reused-signature",
            f"seat 1's response carrying the signature of its earlier entry (line {earlier}): "
            "a valid signature, on other bytes",
            ["4", "8 row 6"],
            [*lines[:r], raw.replace(sig.encode(), old_sig.encode()), *tail],
            r,
            "bad_signature",
            "signature does not verify",
            cheat_seat=None,
            author=None,
        )
    )
    out.append(
        log_fault(
            "replayed-entry",
            f"seat 1's earlier entry (line {earlier}) written again, byte for byte, after line "
            f"{r}: a replayed entry",
            ["8 row 3", "9"],
            [*lines[: r + 1], lines[earlier], *tail],
            r + 1,
            "malformed",
            "the same entry twice",
            cheat_seat=None,
            author=None,
            note="a live node ignores an entry it holds (spec 8 row 3: duplicate); a log file "
            "holds each accepted entry once, so the reference refuses a repeated line",
        )
    )
    out.append(
        log_fault(
            "missing-parent",
            "seat 1's response, validly signed, naming a parent no one has (32 zero bytes)",
            ["6", "8 row 9", "9"],
            [*lines[:r], resign(table, raw, prev=[bytes(32)]), *tail],
            r,
            "missing_parents",
            "an entry before its parents",
            cheat_seat=1,
            author=None,
            note="a live node keeps it and asks for the parent; a file must hold parents "
            "before children, so the file is refused there, naming nobody",
        )
    )

    # Broken hash chain: a response naming an older proposal, a proposal with prev reordered.
    r2 = find(lines, resp(1, 3))
    o2 = fields(lines[r2])
    old = find(lines, lambda x: x["role"] == "proposal" and x["seq"] == o2["seq"] - 2)
    out.append(
        log_fault(
            "broken-chain-response",
            f"seat 1's response to step {o2['seq']}, validly signed, naming the proposal of "
            f"step {o2['seq'] - 2} (line {old}) instead",
            ["6", "8 row 10"],
            [
                *lines[:r2],
                resign(table, lines[r2], prev=[entry_hash(lines[old])]),
                *lines[r2 + 1 : r2 + 3],
            ],
            r2,
            "bad_prev",
            "answers the proposal of another seq",
            cheat_seat=1,
            author=1,
            note="the signature verified, so spec 8 blames the author (LogFileError.author); "
            "the replay reports the code and names no seat",
        )
    )
    p = find(lines, lambda x: x["role"] == "proposal" and x["author"] == 1 and x["seq"] >= 2)
    prev = [bytes.fromhex(h) for h in fields(lines[p])["prev"]]
    out.append(
        log_fault(
            "broken-chain-proposal",
            f"seat 1's proposal of step {fields(lines[p])['seq']}, validly signed, with its "
            "prev in the wrong order (the response first, then the proposal)",
            ["6", "8 row 10"],
            [*lines[:p], resign(table, lines[p], prev=prev[::-1]), *lines[p + 1 : p + 3]],
            p,
            "bad_prev",
            "prev[0] must be a proposal",
            cheat_seat=1,
            author=1,
        )
    )

    # Equivocation: a second, validly signed response of seat 1 in a window step (it claims
    # in one version, not in the other). Kept as evidence; a child of it is a fork.
    w = find(lines, lambda x: x["kind"] == "ack" and x["author"] == 1 and "claim" in x["body"])
    wbody = body_of(lines[w])
    other = resign(table, lines[w], body={**wbody, "claim": not wbody["claim"]})
    full = [*lines[: w + 1], other]
    seq_w = fields(lines[w])["seq"]
    last_of_step = max(i for i, raw in enumerate(lines) if fields(raw)["seq"] == seq_w)
    out.append(
        Vector(
            "equivocation",
            f"the game up to a second response of seat 1 to the window of step {seq_w} "
            f"(claim {json.dumps(not wbody['claim'])} instead of {json.dumps(wbody['claim'])}) "
            "right after the first: where every honest node stops",
            ["7", "9", "10.16"],
            full,
            1,
            [w + 1],
            _expect(
                line=last_of_step,
                layer="session",
                blame=1,
                step=seq_w,
                reason="equivocation",
                evidence=[{"line": w + 1, "author": 1, "seq": seq_w, "role": "response"}],
            ),
            "the second entry is kept as equivocation evidence beside the first "
            "(verify_log_file: VerifyReport.evidence == 1; Log.evidence[0] re-checks offline "
            "with seat 1's key), never enters the chain, and ends the game naming seat 1 at the "
            "step of the slot, whichever version a node took first (spec 7, 10.8)",
        )
    )
    # The fork: the next proposal builds on the second version (as a node that got only the
    # second one would), and the other seat answers it.
    nxt = find(lines, lambda x: x["role"] == "proposal" and x["seq"] == seq_w + 1)
    proposer = fields(lines[nxt])["author"]
    wprop = find(lines, lambda x: x["role"] == "proposal" and x["seq"] == seq_w)
    forked = resign(table, lines[nxt], prev=[entry_hash(lines[wprop]), entry_hash(other)])
    answer = find(lines, lambda x: x["role"] == "response" and x["seq"] == seq_w + 1)
    out.append(
        log_fault(
            "equivocation-fork",
            f"as equivocation, then seat {proposer}'s proposal of step {seq_w + 1} naming the "
            "second version of seat 1's response, and the answer to it",
            ["7", "8 row 9"],
            [
                *lines[: w + 1],
                other,
                forked,
                resign(table, lines[answer], prev=[entry_hash(forked)]),
            ],
            w + 2,
            "fork",
            "builds on an equivocated entry",
            cheat_seat=1,
            author=None,
            cheat_lines=[w + 1],
            note="the evidence line itself is accepted (as in equivocation); the entry that "
            "builds on it is refused as fork without blaming its author (spec 7)",
        )
    )

    # A proposal out of turn: seat 1 proposes where seat 0 was due.
    a = find(lines, lambda x: x["kind"] == "action" and x["author"] == 0)
    oa = fields(lines[a])
    wrong = resign(
        table,
        lines[a],
        author=1,
        body={"releases": [], "shows": [], "action": "1 draw"},
    )
    ack = sign_entry(
        table.sessions[0].identity,  # type: ignore[arg-type]
        game=bytes.fromhex(oa["game"]),
        seq=oa["seq"],
        author=0,
        role=Role.RESPONSE,
        kind="ack",
        prev=[entry_hash(wrong)],
        body={"releases": [], "shows": []},
    )
    out.append(
        Vector(
            "out-of-turn-proposal",
            f"seat 1 proposes the action of step {oa['seq']} ('1 draw') where seat 0 was due "
            "('" + str(oa["body"]["action"]) + "' in the genuine game), and seat 0's response",
            ["10.4", "8 row 8", "10.11"],
            [*lines[:a], wrong, ack],
            1,
            [a],
            _expect(
                line=a + 1,
                layer="session",
                blame=1,
                step=oa["seq"],
                reason="where seat 0 was due",
            ),
            "a live node refuses the proposal (wrong_proposer, seat 1 blamed, entry dropped), "
            "so no honest log holds it; seat 0's response is signed with its test key as by a "
            "node that skipped the check, to complete the step: the replay checks each step's "
            "proposer against the schedule when it processes the step, and names the step's "
            "last line. The proposal alone would be blamed the same way (a last proposal "
            "whose step never completed is judged too, spec 10.11)",
        )
    )

    # A log that stops in the middle of a step: a seat that never answered.
    out.append(
        Vector(
            "log-ends-mid-step",
            f"the genuine game cut after the proposal of step {fields(lines[r - 1])['seq']}, "
            "before seat 1's response: what a seat that stops answering leaves before anyone "
            "has voted",
            ["6", "10.11", "10.15"],
            lines[:r],
            1,
            [],
            _expect(line=r - 1, layer="incomplete", reason="the log ends before the game does"),
            "not a blame: a missing entry proves nothing about who withheld it; the replay "
            "rejects an unfinished log at its last line. Once the other seat's deadline passes "
            "it votes, and the log ends in a decided stop instead (stopped-silent-seat)",
        )
    )
    return out


# ---------------------------------------------------------------------- cheats played live
Edit = Callable[[str, Role, dict[str, Any]], dict[str, Any] | None]


def cheat_writer(table: LocalTable, seat: int, edit: Edit) -> list[bytes]:
    """Make ``seat``'s node cheat: every body it signs goes through ``edit(kind, role, body)``
    first (None keeps the body the honest code wrote). The node adds what it signed to its own
    log, so every node holds the same entries, as with a real cheater. Returns the list that
    collects the entries whose body was changed."""
    log = table.sessions[seat].log
    made: list[bytes] = []
    honest = {Role.PROPOSAL: log.propose, Role.RESPONSE: log.respond}

    def writer(role: Role) -> Callable[[Identity, int, str, JSONValue], bytes]:
        def write(identity: Identity, author: int, kind: str, body: JSONValue) -> bytes:
            changed = edit(kind, role, dict(body)) if isinstance(body, dict) else None
            raw = honest[role](identity, author, kind, body if changed is None else changed)
            if changed is not None:
                made.append(raw)
            return raw

        return write

    log.propose = writer(Role.PROPOSAL)  # type: ignore[method-assign,assignment]
    log.respond = writer(Role.RESPONSE)  # type: ignore[method-assign,assignment]
    return made


def once(edit: Edit) -> Edit:
    """``edit`` until it first changes a body; the honest bodies after that."""
    done: list[bool] = []

    def first(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        if done:
            return None
        changed = edit(kind, role, body)
        if changed is not None:
            done.append(True)
        return changed

    return first


def live_vectors() -> list[Vector]:
    out: list[Vector] = []

    # An action in another seat's name: seat 1's first action.
    table = LocalTable(OPTIONS, seed=f"{SEED}/name")

    def in_name(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        return {**body, "action": "0 draw"} if kind == "action" else None

    made = cheat_writer(table, 1, once(in_name))
    table.run()
    out.append(
        session_fault(
            "action-in-another-seats-name",
            "seat 1, on turn, proposes '0 draw': an action in the other seat's name",
            ["10.5.2", "10.8"],
            table,
            made,
            1,
            "an action in another seat's name",
        )
    )

    # An illegal card: a bot that plays a card of its hand that does not match.
    table = LocalTable(OPTIONS, seed=f"{SEED}/illegal")
    bot = IllegalPlayer("x")
    table.sessions[1].decider = bot
    table.run()
    assert bot.cheated
    out.append(
        session_fault(
            "illegal-card",
            "seat 1 plays a card of its hand that matches neither the color nor the rank of the "
            "pile (its own key for it released in the same entry, as for any play)",
            ["10.5.2", "10.8"],
            table,
            [r for r in log_lines(table, 0) if fields(r)["author"] == 1][-1:],
            1,
            "illegal action",
        )
    )

    # Keys for public cards (the draw for dealer): withheld, or one that breaks its commitment.
    def withhold(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        return {**body, "releases": []} if body.get("releases") else None

    def bad_key(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        if not body.get("releases"):
            return None
        rel = KeyRelease.from_obj(body["releases"][0])
        bad = KeyRelease(rel.shuffle_id, rel.owner, rel.position, rel.key % 1000 + 1, rel.salt)
        return {**body, "releases": [bad.to_obj(), *body["releases"][1:]]}

    for name, edit, what, reason in (
        ("withheld-key", withhold, "without its keys for them", "withheld its keys"),
        (
            "key-breaks-commitment",
            bad_key,
            "with a key for one of them that does not open its commitment",
            "key release refused",
        ),
    ):
        table = LocalTable(OPTIONS, seed=f"{SEED}/keys")
        made = cheat_writer(table, 1, once(edit))
        table.run()
        out.append(
            session_fault(
                name,
                "seat 1 answers the step in which every seat owes its keys for the public cards "
                f"of the draw for dealer {what}",
                ["10.6", "10.7", "10.8"],
                table,
                made,
                1,
                reason,
            )
        )

    # A false accusation: seat 1 disputes with nothing wrong, in every entry from its answer
    # to the step that carries the draw-for-dealer keys on (as an honest accuser would).
    table = LocalTable(OPTIONS, seed=f"{SEED}/accuse")
    started: list[bool] = []

    def accuse(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        if not started and not body.get("releases"):
            return None
        started.append(True)
        return {**body, "dispute": "seat 0 cheated (it did not)"}

    made = cheat_writer(table, 1, accuse)
    table.run()
    out.append(
        session_fault(
            "false-accusation",
            "seat 1 writes a dispute though nothing is wrong: every seat reveals its secrets "
            "and the audit finds nothing",
            ["10.3", "10.8", "10.10"],
            table,
            made,
            1,
            "false accusation",
            dispute=1,
        )
    )

    # Lies in the reveal at the end of the first deck: two keys, or two permutation entries.
    for name, member, what, reason in (
        ("reveal-lie-keys", "keys", "two per-position keys", "audit: bad-reveal"),
        (
            "reveal-lie-permutation",
            "permutation",
            "two entries of its permutation",
            "audit: bad-reveal: revealed phase-1 key, permutation or rekey key break the pledge",
        ),
    ):

        def lie(
            kind: str, role: Role, body: dict[str, Any], member: str = member
        ) -> dict[str, Any] | None:
            if "secrets" not in body:
                return None
            secrets = [dict(x) for x in body["secrets"]]
            values = list(secrets[0][member])
            values[3], values[4] = values[4], values[3]
            secrets[0][member] = values
            return {**body, "secrets": secrets}

        table = LocalTable(OPTIONS, seed=f"{SEED}/reveal")
        made = cheat_writer(table, 1, once(lie))
        table.run()
        out.append(
            session_fault(
                name,
                f"in the reveal at the end of the first deck, seat 1's secrets have {what} swapped",
                ["10.5.5", "10.10"],
                table,
                made,
                1,
                reason,
            )
        )

    # A wrong key shown to the challenger: seat 0 plays a legal Wild Draw Four, seat 1
    # challenges, and seat 0 shows it keys for its hand that break seat 0's commitments.
    table = LocalTable(OPTIONS, seed=f"{SEED}/show/56")  # a seed where it comes early
    table.sessions[0].decider = FairWildFour("w")
    table.sessions[1].decider = AlwaysChallenges("c")
    offender = table.sessions[0]

    def fake_show(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        if offender.engine.phase is not Phase.VERDICT or not body.get("shows"):
            return None
        shows = []
        for obj in body["shows"]:
            show = ShowMessage.from_obj(obj)
            if show.recipient == offender.engine.turn:
                sh = next(x for x in offender.shuffles if x.spec.shuffle_id == show.shuffle_id)
                assert sh.spec.parent is None
                fake = ShuffleSecrets.generate(sh.spec, 0, DeterministicRng(b"fake"))
                pub = sh.view.commitment(show.recipient).x25519_public
                show = fake.show(pub, show.recipient, show.positions)
            shows.append(show.to_obj())
        return {**body, "shows": shows}

    made = cheat_writer(table, 0, once(fake_show))
    table.run()
    out.append(
        session_fault(
            "wrong-key-shown-to-challenger",
            "seat 0 plays a legal Wild Draw Four; seat 1 challenges; seat 0 must show seat 1 "
            "its hand and sends keys (encrypted to seat 1) that do not open its commitments. "
            "Only seat 1 can see that: it writes a dispute, every seat reveals, and the audit "
            "of the shows names seat 0",
            ["10.6", "10.8", "10.10"],
            table,
            made,
            0,
            "audit: bad-show",
            dispute=1,
            note="the fault itself is private (only the challenger can decrypt the show); the "
            "log holds the encrypted show, the challenger's dispute (it could not see the hand, "
            "so its verdict was given blind) and the reveal whose audit proves the fault. Had "
            "the challenger kept quiet, the audit at the end of the deck would still name seat "
            "0, with the whole round in the log",
        )
    )

    # A false challenge verdict: seat 1 says guilty of a legal Wild Draw Four.
    table = LocalTable(OPTIONS, seed=f"{SEED}/verdict/51")  # a seed where it comes early
    table.sessions[0].decider = FairWildFour("w")
    liar = LyingChallenger("c")
    table.sessions[1].decider = liar

    def no_dispute(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        # the liar's own node (honest code) would dispute its lie: a cheater keeps quiet
        return {k: v for k, v in body.items() if k != "dispute"} if "dispute" in body else None

    cheat_writer(table, 1, no_dispute)
    table.run()
    assert liar.lied
    out.append(
        session_fault(
            "false-challenge-verdict",
            "seat 0 plays a legal Wild Draw Four; seat 1 challenges, sees the hand and says "
            "guilty. Only seats 0 and 1 see the hand: seat 0 disputes, every seat reveals, and "
            "the full-information audit names seat 1",
            ["10.5.2", "10.8", "10.10", "10.12"],
            table,
            [r for r in log_lines(table, 0) if "guilty" in str(body_of(r).get("action"))],
            1,
            "false verdict",
            dispute=0,
        )
    )
    return out


# ---------------------------------------------------------------------- issue 10: new verdicts
def arrival_and_pledge_vectors() -> list[Vector]:
    """A bogus proposal judged on arrival, a public card that does not open, a steered shuffle."""
    out: list[Vector] = []

    # Playing the card on top of the draw pile: refused on arrival, never answered.
    table = LocalTable(OPTIONS, seed=f"{SEED}/draw-top")
    cheater = table.sessions[1]

    def draw_top(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        g = cheater.engine
        if kind != "action" or role is not Role.PROPOSAL or g.round_no < 1 or not g.draw:
            return None
        slot = g.draw[-1]
        ref = cheater._slot_ref(slot)
        if ref is None or ref[0].mine is None:
            return None
        own = ref[0].mine.release(ref[1]).to_obj()
        return {**body, "action": f"1 W#{slot}:r", "releases": [*body["releases"], own]}

    made = cheat_writer(table, 1, once(draw_top))
    table.run()
    out.append(
        session_fault(
            "play-from-draw-pile",
            "seat 1, on turn, proposes to play the slot on top of the draw pile as a Wild, with "
            "its own key for that slot: every node refuses the proposal on arrival and names "
            "seat 1; nobody answers it, so no other seat's key for that slot is released",
            ["10.7.1", "10.8", "10.11"],
            table,
            made,
            1,
            "not in its hand",
            note="the proposal is the file's last line: a proposal is checked before anyone "
            "answers it, and the replay judges a last proposal whose step never completed as "
            "the live nodes did (Session.catch_up)",
        )
    )

    # A start card that does not open: seat 0's last phase-2 step (its output is the final
    # deck) puts a curve point that is no card at the start card's position.
    table = LocalTable(OPTIONS, seed=f"{SEED}/start-card")
    sid = shuffle_id(table.sessions[0].game_id, 2, 0).hex()  # the first round's deck
    start = HAND_SIZE * OPTIONS.players

    def corrupt(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        step = body.get("step")
        if not isinstance(step, dict) or step["shuffle_id"] != sid or step["phase"] != 2:
            return None
        deck = list(step["deck"])
        deck[start] = encrypt_one(12345, bytes.fromhex(deck[start + 1])).hex()
        return {**body, "step": {**step, "deck": deck}}

    made = cheat_writer(table, 0, once(corrupt))
    table.run()
    out.append(
        session_fault(
            "start-card-does-not-open",
            f"seat 0 makes the last step of the first round's shuffle with position {start}, "
            "the start card, replaced by a curve point that is no card. Every key opens its "
            "commitment, yet the start card opens to no card: a public dispute (accuser -1), "
            "every seat reveals at once, and the audit names seat 0",
            ["10.7.2", "10.8", "10.10"],
            table,
            made,
            0,
            "audit: bad-shuffle",
            dispute=-1,
            note="no entry carries a dispute: every node sees the start card fail at the same "
            "step, and the next step is the reveal (spec 10.4 rule 1). Before issue 10 this "
            "blamed seat -1. The same holds for a card drawn for dealer or a card of the hands "
            "shown at the end of a round",
        )
    )

    # Steering: the last shuffler permutes with a permutation other than the one it pledged
    # (two entries exchanged), and reveals the permutation it used.
    table = LocalTable(OPTIONS, seed=f"{SEED}/steer")
    shuffler = table.sessions[1]
    pledged: list[tuple[int, ...]] = []

    def steer(kind: str, role: Role, body: dict[str, Any]) -> dict[str, Any] | None:
        mine = shuffler.shuffles[-1].mine if shuffler.shuffles else None
        if "commitment" in body and not pledged and mine is not None:
            pledged.append(mine._perm)  # the commitment (and its pledge) is made already
            perm = list(mine._perm)
            perm[3], perm[4] = perm[4], perm[3]
            mine._perm = tuple(perm)
        return None

    cheat_writer(table, 1, steer)
    table.run()
    assert pledged
    lines = log_lines(table, 0)
    sid = shuffle_id(table.sessions[0].game_id, 1, 0).hex()
    steered = [
        raw
        for raw in lines
        if fields(raw)["author"] == 1
        and (
            body_of(raw).get("step", {}).get("shuffle_id") == sid
            or any(x["shuffle_id"] == sid for x in body_of(raw).get("secrets", []))
        )
    ]
    out.append(
        session_fault(
            "steered-shuffle",
            "seat 1, the last shuffler of the draw for dealer's deck, pledged its permutation "
            "in its commitment, then made its step with another one (two entries exchanged, as "
            "a seat that chose after seeing its input would), and revealed the permutation it "
            "used: the audit finds that it breaks the pledge",
            ["10.5.1", "10.10"],
            table,
            steered,
            1,
            "break the pledge",
            note="commit before seeing: every secret a seat uses in a shuffle is pledged before "
            "the first step. Had seat 1 revealed the pledged permutation instead, its step "
            "would not be what its revealed secrets produce: audit: bad-shuffle, seat 1",
        )
    )
    return out


# ---------------------------------------------------------------------- stops
def stopped_game(name: str, config: NetConfig, seed: str) -> tuple[LocalTable, int]:
    """Play a seeded game on a simulated network with a seat going silent; return the table and
    a seat whose node voted."""
    table = LocalTable(OPTIONS, seed=f"{SEED}/{seed}")
    SimNet(table, name, config).run()
    voters = [s for s in table.sessions if s.outcome.state == "stopped"]
    assert voters, f"{name}: no node decided a stop"
    assert len({s.outcome for s in voters}) == 1, f"{name}: the voters disagree"
    return table, voters[0].seat_or_fail()


def stop_expect(node: Session, lines: list[bytes], **more: Any) -> dict[str, Any]:
    o = node.outcome
    votes = [
        {"line": i, "seat": f["author"], "seq": f["seq"], "waiting": f["body"]["waiting"]}
        for i, raw in enumerate(lines)
        for f in [fields(raw)]
        if f["role"] == "vote"
    ]
    outcome = {
        "state": o.state,
        "silent": list(o.silent),
        "scores": list(o.scores),
        "winners": list(o.winners),
        "void": o.void,
        "step": o.step,
    }
    reason = f"stopped after step {o.step}"
    return _expect(ok=True, layer="stopped", reason=reason, outcome=outcome, votes=votes, **more)


def stop_vectors() -> list[Vector]:
    """Seat 1 goes silent while the draw for dealer's deck is shuffled; seat 0's deadline
    passes and it votes."""
    config = NetConfig(delay=(0, 0), deadline=1000, silent_after={1: 3})
    table, voter = stopped_game("silent-seat", config, "silent")
    node = table.sessions[voter]
    lines = log_lines(table, voter)
    return [
        Vector(
            "stopped-silent-seat",
            "seat 1 stops answering when its shuffle step of the draw for dealer's deck is due; "
            "seat 0's deadline passes and it signs a vote to stop naming seat 1: the stop is "
            "decided (every seat that did not vote is named), with seat 1 silent",
            ["6", "7", "10.15", "10.16"],
            lines,
            1,
            [],
            stop_expect(node, lines),
            "the last line is seat 0's vote (role vote, kind stop, seq = its last complete step, "
            "prev = that step's entries). A vote names; it does not prove: seat 1 is 'silent', "
            "not a cheat. No round was in play, so nothing is void and the scores are zeros",
        )
    ]


def withhold_and_vote_vectors() -> list[Vector]:
    """A loser withholding its last reveal, and two votes by one seat."""
    out: list[Vector] = []
    # A loser that withholds its last reveal: the round counts, the winner stands.
    seed = "withhold/10"  # a game that ends in its first round
    honest = LocalTable(OPTIONS, seed=f"{SEED}/{seed}")
    honest.run()
    winner = honest.sessions[0].outcome.winners[0]
    loser = 1 - winner
    table = LocalTable(OPTIONS, seed=f"{SEED}/{seed}")

    def last_reveal(seat: int, raw: bytes) -> bool:
        over = table.sessions[seat].engine.phase is Phase.GAME_OVER
        return seat == loser and over and "secrets" in body_of(raw)

    config = NetConfig(delay=(0, 0), deadline=1000, silence=last_reveal)
    SimNet(table, "withhold", config).run()
    node = table.sessions[winner]
    assert node.outcome.winners == (winner,), node.outcome
    lines = log_lines(table, winner)
    out.append(
        Vector(
            "loser-withholds-last-reveal",
            f"seat {loser} loses the game's last round and never sends its end-of-deck reveal; "
            f"seat {winner} votes: the round was played to its end and its winner is not "
            "silent, so it counts, and so does its winner",
            ["10.15", "10.16"],
            lines,
            loser,
            [],
            stop_expect(node, lines, digest=node.engine.digest().hex()),
            "a seat that sees it has lost cannot undo the result by withholding its secrets",
        )
    )
    # Two votes by one seat.
    config = NetConfig(delay=(0, 0), deadline=1000, silent_after={1: 3})
    table, voter = stopped_game("silent-seat", config, "silent")
    node = table.sessions[voter]
    lines = log_lines(table, voter)
    first = max(i for i, raw in enumerate(lines) if fields(raw)["role"] == "vote")
    waiting = fields(lines[first])["body"]["waiting"]
    second = resign(table, lines[first], body={"waiting": waiting, "again": True})
    vote_seq = fields(lines[first])["seq"]
    full = [*lines, second]
    out.append(
        Vector(
            "vote-equivocation",
            f"as stopped-silent-seat, then a second vote by seat {voter} for the same step "
            "with another body naming the same seats: two signed entries for one slot (a seat "
            "votes once per game; a second vote that names no more and no fewer seats is no "
            "amendment)",
            ["7", "10.15", "10.16"],
            full,
            voter,
            [len(lines)],
            _expect(
                line=first,
                layer="session",
                blame=voter,
                step=vote_seq,
                reason="equivocation",
                evidence=[{"line": len(lines), "author": voter, "seq": vote_seq, "role": "vote"}],
            ),
            "the second vote is kept as evidence and ends the game naming its author: a cheat "
            "wins over a stop",
        )
    )
    out.append(amended_vote_vector())
    return out


def amended_vote_vector() -> Vector:
    """Three seats: seat 1 goes silent at its turn, seat 2 stays linked but never votes (nor
    owes anything); seat 0's vote names seat 1, its amendment seats 1 and 2."""
    options = Options(3, target=20)
    table = LocalTable(options, seed=f"{SEED}/amend")

    def silence(seat: int, raw: bytes) -> bool:
        f = fields(raw)
        return seat == 1 and f["kind"] == "action" and f["role"] == "proposal" and f["seq"] > 12

    table.sessions[2]._vote = lambda waiting: False  # type: ignore[method-assign]
    SimNet(table, "amend", NetConfig(delay=(0, 0), deadline=1000, silence=silence)).run()
    node = table.sessions[0]
    assert node.outcome.state == "stopped" and node.outcome.silent == (1, 2), node.outcome
    assert len(node.log.vote_hashes(0)) == 2
    lines = log_lines(table, 0)
    return Vector(
        "vote-amended",
        "three seats: seat 1 stops answering at its turn; seat 2 can be reached but neither "
        "answers nor votes. Seat 0's vote names seat 1; once its deadline passes again, its "
        "amendment (the same step and parents, naming seats 1 and 2) names seat 2 too, and "
        "the stop is decided with seats 1 and 2 silent",
        ["7", "10.15", "10.16"],
        lines,
        2,
        [],
        stop_expect(node, lines),
        "an amendment names strictly more seats than the vote it amends: not equivocation. "
        "Without it, a seat that refuses to vote would keep the stop undecided for ever",
    )


def bluff_vector() -> Vector:
    """The positive control: a Wild Draw Four bluff nobody challenged stands (no fault)."""
    table = LocalTable(OPTIONS, seed=f"{SEED}/bluff/36")  # a seed of a short game
    bluffer = Bluffer("b")
    table.sessions[0].decider = bluffer
    table.sessions[1].decider = Trusting("t")
    table.run()
    assert bluffer.bluffed, "no bluff happened: change the seed"
    node = table.sessions[0]
    assert node.blame is None and node.over
    assert node.engine.stats.challenges_won + node.engine.stats.challenges_lost == 0
    assert node.bluffs == table.sessions[1].bluffs
    lines = log_lines(table, 0)
    bluffs = {str(a) for a in bluffer.bluffed}
    plays = [i for i, raw in enumerate(lines) if body_of(raw).get("action") in bluffs]
    assert len(plays) == len(bluffer.bluffed) == len(node.bluffs)
    return Vector(
        "unchallenged-bluff",
        "a whole game in which seat 0 plays a Wild Draw Four while holding the pile's color "
        "and seat 1 does not challenge: not a cheat (positive control)",
        ["10.5.2", "10.10"],
        lines,
        0,
        plays,
        _expect(
            ok=True,
            bluffs=list(node.bluffs),
            winners=list(node.engine.winners),
            scores=list(node.engine.scores),
        ),
        "the replay accepts the file and reports each bluff its end-of-deck audit found "
        "(ReplayResult.bluffs; docs/rules.md D18: a bluff stands)",
    )


# ---------------------------------------------------------------------- the index
NOT_EXPRESSIBLE = [
    {
        "name": "equivocation-split",
        "spec": ["7", "10.14"],
        "reason": "a seat that sends one version to some nodes and another to the rest leaves "
        "each node's log with one version until a node relays the other; once it does, the "
        "file holds both, which is the vector equivocation",
    },
    {
        "name": "timing-peeking-and-tracking",
        "spec": ["10.9", "10.17"],
        "reason": "when a seat sends its window entry (the timing rule), a seat that holds "
        "back its entry to read the others' claims first, a colluder that tracks a marked card "
        "through its own step, and seats sharing what they see off the log leave no trace in "
        "any entry (docs/security.md); the mark itself is a cheat the audit names",
    },
    {
        "name": "stale-genesis",
        "spec": ["5"],
        "reason": "a genesis reused from an old game is a valid genesis of that old game: only "
        "a seat knows the nonce it drew for this table, so it is refused by the seat's node "
        "before it accepts (no session, no entry), never in a file; an entry of another game "
        "is wrong_game",
    },
    {
        "name": "parking-flood",
        "spec": ["8"],
        "reason": "entries whose parents never come wait within a budget per author and are "
        "refused past it, or dropped when too far ahead; a node never writes them to its "
        "file, which holds parents before children",
    },
]


def index(vectors: list[Vector]) -> dict[str, Any]:
    return {
        "description": "Logs holding cheats, and the verdict `p2puno replay --verify` (spec "
        "10.11) must reach on each: see protocol/spec.md 10.13. TEST-ONLY keys and randomness "
        "from public seeds (tools/gen_cheat_vectors.py); every game is 2 players, no house "
        f"rule, target {OPTIONS.target}, but vote-amended, which has 3 players (a seat gone and "
        "a seat that can be reached but never votes, beside the voter).",
        "fields": {
            "log": "the log file, relative to this index (spec 9: one canonical entry a line)",
            "entries, bytes, sha256": "lines, size and SHA-256 of that file",
            "spec": "the sections of protocol/spec.md the vector exercises",
            "cheat": "the seat that cheated (null when the bytes are not attributable to "
            "one) and the 0-based lines of its cheating entries",
            "expect.ok": "whether the replay accepts the file (ReplayResult.ok)",
            "expect.line": "0-based line where the replay stops (ReplayResult.bad_entry); "
            "null when ok",
            "expect.layer": "log: the file fails the log layer's checks (spec 8, 9) at that "
            "line; session: a step broke a session rule (spec 10) or a seat equivocated, and "
            "a seat is blamed (outcome cheat, spec 10.16); stopped: the file is accepted and "
            "its outcome is a stop decided by votes (spec 10.15); incomplete: the log ends "
            "before the game does; null: accepted, the game finished",
            "expect.code": "layer log: the spec 8 code; ReplayResult.error begins '<code>:'",
            "expect.blame": "layer session: the seat blamed (ReplayResult.blame.seat)",
            "expect.step": "layer session: the step (seq) of the blame (ReplayResult.blame.step)",
            "expect.reason": "a substring of ReplayResult.error; layer stopped: of "
            "str(ReplayResult.outcome)",
            "expect.author": "layer log: the seat spec 8 blames, the author once its signature "
            "verified (LogFileError.author); null: the bytes are not attributable and the "
            "sending peer is at fault. The replay itself names no seat for a log-layer fault",
            "expect.dispute": "the seat whose dispute (spec 10.8) opened the reveal, and the "
            "first line carrying one; seat -1: a public dispute (a public card that does not "
            "open), carried by no entry, opened when step `step` was processed (its last "
            "line: `line`), so that the next step is the reveal",
            "expect.unanswered": "the faulty step is its proposal alone, the file's last "
            "line: it was judged on arrival (spec 10.7.1) and nobody answered it",
            "expect.evidence": "equivocation evidence the file holds (VerifyReport.evidence, "
            "Log.evidence): the line of the second entry, its author and slot",
            "expect.bluffs, winners, scores": "when ok: ReplayResult.bluffs, winners, scores",
            "expect.outcome": "layer stopped: ReplayResult.outcome (spec 10.16): state, the "
            "silent seats, scores, winners, whether the round in play is void, and the step "
            "after which the game stopped (the highest vote seq)",
            "expect.votes": "layer stopped: each vote in the file: its line, seat, seq and "
            "the seats its body names as waited for",
            "note": "what the vector shows beyond the verdict, or how it was made",
            "not_expressible": "cheats no log file can show, and why",
        },
        "vectors": [v.index_entry() for v in vectors],
        "not_expressible": NOT_EXPRESSIBLE,
    }


# ---------------------------------------------------------------------- checking
def check_evidence(v: Vector, path: Path) -> None:
    """The file's equivocation evidence is the vector's, and re-checks offline (spec 7)."""
    log, report = verify_log_file(path)
    evidence = v.expect.get("evidence", [])
    assert report.evidence == len(evidence), v.name
    assert log.game_id is not None
    for got, want in zip(log.evidence, evidence, strict=True):
        slot = (got.author, got.seq, got.role.value)
        assert slot == (want["author"], want["seq"], want["role"]), v.name
        assert got.second == v.lines[want["line"]], v.name
        got.verify(log.players[got.author].sign_pk, log.game_id)


def check_vector(v: Vector, path: Path) -> None:
    """The reference replay must reach exactly what the vector says."""
    e = v.expect
    result = replay(path)
    where = f"{v.name}: {result.error}"
    assert result.ok is e["ok"], where
    if e["ok"]:
        assert result.blame is None and result.bad_entry is None, where
        if "bluffs" in e:
            assert result.bluffs == e["bluffs"], where
            assert list(result.winners) == e["winners"] and result.scores == e["scores"], where
        if e["layer"] == "stopped":
            o = result.outcome
            assert o is not None and e["reason"] in str(o), (v.name, o)
            got = {
                "state": o.state,
                "silent": list(o.silent),
                "scores": list(o.scores),
                "winners": list(o.winners),
                "void": o.void,
                "step": o.step,
            }
            assert got == e["outcome"], (v.name, got, e["outcome"])
            if "digest" in e:
                assert result.digest.hex() == e["digest"], (v.name, "digest")
        check_evidence(v, path)
        return
    assert result.bad_entry == e["line"], (where, result.bad_entry, e["line"])
    assert result.error is not None and e["reason"] in result.error, where
    if e["layer"] == "log":
        assert result.blame is None and result.error.startswith(f"{e['code']}:"), where
        try:
            verify_log_file(path)
        except LogFileError as err:
            found = (err.index, err.reason.value, err.author)
            assert found == (e["line"], e["code"], e["author"]), (where, found)
        else:
            raise AssertionError(f"{v.name}: the log layer accepted the file")
    elif e["blame"] is None:
        assert result.blame is None, where
    else:
        assert result.blame is not None, where
        assert (result.blame.seat, result.blame.step) == (e["blame"], e["step"]), where
        check_evidence(v, path)


def build() -> dict[str, bytes]:
    """Every file, by path relative to protocol/vectors, each checked by the replay."""
    table, lines = base_game()
    vectors = [
        *log_vectors(table, lines),
        *live_vectors(),
        *arrival_and_pledge_vectors(),
        *stop_vectors(),
        *withhold_and_vote_vectors(),
        bluff_vector(),
    ]
    assert len({v.name for v in vectors}) == len(vectors)
    files: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for v in vectors:
            path = Path(tmp) / f"{v.name}.log"
            path.write_bytes(v.data())
            check_vector(v, path)
            files[f"{FOLDER}/{v.name}.log"] = v.data()
    files[INDEX.name] = (json.dumps(index(vectors), indent=2) + "\n").encode()
    return files


def main() -> int:
    files = build()
    on_disk = {f"{FOLDER}/{p.name}" for p in (VECTORS / FOLDER).glob("*.log")}
    stale = sorted(on_disk - set(files))
    if "--check" in sys.argv:
        differ = [
            name
            for name, data in files.items()
            if not (VECTORS / name).is_file() or (VECTORS / name).read_bytes() != data
        ]
        for name in differ + stale:
            print(f"differs from the generator: protocol/vectors/{name}")
        if differ or stale:
            return 1
        print(f"cheat vectors up to date ({len(files) - 1} logs)")
        return 0
    (VECTORS / FOLDER).mkdir(exist_ok=True)
    for name in stale:
        (VECTORS / name).unlink()
    for name, data in files.items():
        (VECTORS / name).write_bytes(data)
    total = sum(len(d) for d in files.values())
    print(f"wrote {len(files) - 1} logs and {INDEX.name} ({total} bytes) under {VECTORS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
