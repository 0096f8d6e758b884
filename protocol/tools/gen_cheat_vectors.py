"""Generate (or --check) the cheat vectors: protocol/vectors/cheats/*.log and cheats.json.

Each vector is a log file: the genuine signed prefix of a small seeded 2-player game (every
key and every random draw comes from test-only seeds; never use them for a real game), then
the cheating entry or entries, sometimes followed by a few more entries. cheats.json says, for
each file, what `p2puno replay --verify` must find: the 0-based line it stops at
(ReplayResult.bad_entry), the seat it blames (ReplayResult.blame.seat) or, for a fault of the
log layer, the spec section 8 code it reports, and a reason substring. The generator checks
every vector against the reference replay (and, for the cheats played live, against the
verdict the honest nodes reached) before writing anything.

Two ways of making a vector, as in tests/session/test_cheats.py:
- log-layer faults (signature, chain, duplicates, equivocation, wrong proposer) edit the lines
  of one genuine game: the bad line replaces or follows a genuine one;
- session faults are played live on a LocalTable: the cheater's node signs altered bodies
  (cheat_writer) or its bot cheats, every node processes the entries and reaches the same
  verdict, and the log they all hold is the vector.

    python protocol/tools/gen_cheat_vectors.py          # write the files
    python protocol/tools/gen_cheat_vectors.py --check  # exit 1 if they would change
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
from p2puno.engine import Options, Phase
from p2puno.log import Identity, LogFileError, Role, entry_hash, sign_entry, verify_log_file
from p2puno.session.harness import LocalTable
from p2puno.session.replay import replay
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
    if dispute is not None:
        first = find(lines, lambda o: isinstance(o["body"].get("dispute"), str))
        assert fields(lines[first])["author"] == dispute, f"{name}: another seat disputed first"
        more["dispute"] = {"seat": dispute, "line": first}
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
            ["7", "9", "10.8"],
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
            "last line. The proposal alone would be 'the log ends before the game does'",
        )
    )

    # A log that stops in the middle of a step: a seat that never answered.
    out.append(
        Vector(
            "log-ends-mid-step",
            f"the genuine game cut after the proposal of step {fields(lines[r - 1])['seq']}, "
            "before seat 1's response: what a seat that stops answering leaves",
            ["6", "10.11", "10.12 open point 5"],
            lines[:r],
            1,
            [],
            _expect(line=r - 1, layer="incomplete", reason="the log ends before the game does"),
            "not a blame: a missing entry proves nothing about who withheld it (the transport "
            "owns timeouts); the replay rejects an unfinished log at its last line",
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
        "spec": ["7"],
        "reason": "a seat that sends one version to some nodes and another to the rest leaves "
        "each node's log with one version until the nodes compare; once they do, the file "
        "holds both, which is the vector equivocation",
    },
    {
        "name": "timing-and-collusion",
        "spec": ["10.9"],
        "reason": "how fast a seat answers a window, and seats sharing what they see off the "
        "log, leave no trace in any entry",
    },
]


def index(vectors: list[Vector]) -> dict[str, Any]:
    return {
        "description": "Logs holding cheats, and the verdict `p2puno replay --verify` (spec "
        "10.11) must reach on each: see protocol/spec.md 10.13. TEST-ONLY keys and randomness "
        "from public seeds (tools/gen_cheat_vectors.py); every game is 2 players, no house "
        f"rule, target {OPTIONS.target}.",
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
            "line; session: a complete step broke a session rule (spec 10) and a seat is "
            "blamed; incomplete: the log ends before the game does",
            "expect.code": "layer log: the spec 8 code; ReplayResult.error begins '<code>:'",
            "expect.blame": "layer session: the seat blamed (ReplayResult.blame.seat)",
            "expect.step": "layer session: the step (seq) of the blame (ReplayResult.blame.step)",
            "expect.reason": "a substring of ReplayResult.error",
            "expect.author": "layer log: the seat spec 8 blames, the author once its signature "
            "verified (LogFileError.author); null: the bytes are not attributable and the "
            "sending peer is at fault. The replay itself names no seat for a log-layer fault",
            "expect.dispute": "the seat whose dispute (spec 10.8) opened the reveal, and the "
            "first line carrying one",
            "expect.evidence": "equivocation evidence the file holds (VerifyReport.evidence, "
            "Log.evidence): the line of the second entry, its author and slot",
            "expect.bluffs, winners, scores": "when ok: ReplayResult.bluffs, winners, scores",
            "note": "what the vector shows beyond the verdict, or how it was made",
            "not_expressible": "cheats no log file can show, and why",
        },
        "vectors": [v.index_entry() for v in vectors],
        "not_expressible": NOT_EXPRESSIBLE,
    }


# ---------------------------------------------------------------------- checking
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
        log, report = verify_log_file(path)
        evidence = e.get("evidence", [])
        assert report.evidence == len(evidence), where
        for got, want in zip(log.evidence, evidence, strict=True):
            assert (got.author, got.seq, got.role.value) == (
                want["author"],
                want["seq"],
                want["role"],
            ), where
            assert got.second == v.lines[want["line"]], where
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


def build() -> dict[str, bytes]:
    """Every file, by path relative to protocol/vectors, each checked by the replay."""
    table, lines = base_game()
    vectors = [*log_vectors(table, lines), *live_vectors(), bluff_vector()]
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
