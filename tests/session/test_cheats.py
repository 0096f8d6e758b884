"""Cheats against a live table (issue 5): each is detected and the right seat is named.

A cheat the log itself refuses (bad bytes, bad signature, wrong proposer, wrong prev,
equivocation) raises :class:`SessionError` from ``receive`` naming the signer when the
signature verified (``None`` when the bytes are not attributable: the fault is then the
sending peer's), and leaves the node's state untouched: delivering the genuine entry
afterwards lets the game finish normally. A cheat in a validly signed entry (an illegal
action, a key that breaks its commitment, a lie only one node can see) ends the game with
the same :class:`Blame` on every honest node.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from p2puno.crypto import DeterministicRng, KeyRelease, ShowMessage, ShuffleSecrets
from p2puno.engine import Options, Phase
from p2puno.log import Role, append_entry, entry_hash, sign_entry
from p2puno.session import Session, SessionError
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
from p2puno.wire import decode

# A hook sees every entry a node sends and returns what is delivered instead:
# (apparent sender, bytes) goes to every node but that sender; (sender, bytes, [seats]) to
# those seats only.
Delivery = tuple[int, bytes] | tuple[int, bytes, list[int]]
Hook = Callable[[int, bytes], Iterable[Delivery]]


def route(
    table: LocalTable, hook: Hook | None = None, limit: int = 20_000
) -> dict[int, list[SessionError]]:
    """Run the table like LocalTable.run, but collect each node's SessionErrors and go on."""
    n = len(table.sessions)
    errors: dict[int, list[SessionError]] = {i: [] for i in range(n)}
    queue: list[tuple[int, bytes]] = []
    for i, s in enumerate(table.sessions):
        s.start()
        queue.extend((i, raw) for raw in s.outbox)
        s.outbox.clear()
    sent = 0
    while queue:
        sender, raw = queue.pop(0)
        deliveries: Iterable[Delivery] = [(sender, raw)] if hook is None else hook(sender, raw)
        for d in deliveries:
            frm, data = d[0], d[1]
            targets = d[2] if len(d) == 3 else [i for i in range(n) if i != frm]
            for i in targets:
                s = table.sessions[i]
                try:
                    s.receive(data)
                except SessionError as e:
                    errors[i].append(e)
                queue.extend((i, r) for r in s.outbox)
                s.outbox.clear()
        sent += 1
        assert sent < limit, "the game did not end"
    return errors


def fields(raw: bytes) -> dict[str, Any]:
    obj: Any = decode(raw)
    assert isinstance(obj, dict)
    return obj


def resign(table: LocalTable, raw: bytes, *, signer: int | None = None, **changes: object) -> bytes:
    """A validly signed variant of ``raw`` (by its author, or ``signer``'s key if given)."""
    o = fields(raw)
    f: dict[str, Any] = {
        "game": bytes.fromhex(str(o["game"])),
        "seq": o["seq"],
        "author": o["author"],
        "role": Role(o["role"]),
        "kind": o["kind"],
        "prev": [bytes.fromhex(str(p)) for p in o["prev"]],
        "body": o["body"],
    }
    f.update(changes)
    who = f["author"] if signer is None else signer
    identity = table.sessions[int(who)].identity
    assert identity is not None
    return sign_entry(identity, **f)


def is_kind(raw: bytes, kind: str, role: str = "proposal") -> bool:
    o = fields(raw)
    return bool(o["kind"] == kind and o["role"] == role)


def finished_cleanly(table: LocalTable) -> None:
    for s in table.sessions:
        assert s.blame is None, s.blame
        assert s.engine.phase is Phase.GAME_OVER
    assert len({s.engine.digest() for s in table.sessions}) == 1
    assert len({s.log.head for s in table.sessions}) == 1


def blamed(sessions: Iterable[Session], seat: int, *words: str) -> None:
    for s in sessions:
        assert s.blame is not None, f"seat {s.seat} found nothing"
        assert s.blame.seat == seat, f"seat {s.seat}: {s.blame}"
        for w in words:
            assert w in s.blame.reason, f"seat {s.seat}: {s.blame}"


def small(players: int = 2) -> Options:
    return Options(players, target=60)


# ---------------------------------------------------------------------- log-level cheats
def test_move_out_of_turn_is_refused_and_names_the_signer() -> None:
    table = LocalTable(small(3), seed="turn")
    done: list[int] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        if done or not is_kind(raw, "action") or fields(raw)["seq"] < 20:
            return [(sender, raw)]
        cheat = (sender + 1) % 3  # not on turn: a validly signed proposal for this step
        done.append(cheat)
        body = dict(fields(raw)["body"])
        body["action"] = f"{cheat} draw"
        forged = resign(table, raw, author=cheat, body=body)
        return [(cheat, forged), (sender, raw)]  # then the genuine one

    errors = route(table, hook)
    cheat = done[0]
    named = [e for errs in errors.values() for e in errs]
    assert len(named) == 2  # the two other nodes each refused it
    assert all(e.seat == cheat for e in named), named
    assert {e.reason.split(":")[0] for e in named} <= {"wrong_proposer", "bad_slot"}
    finished_cleanly(table)  # the refused entry left no trace


def test_action_in_another_seats_name_is_blamed_on_the_proposer() -> None:
    table = LocalTable(small(), seed="name")
    done: list[int] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        if done or not is_kind(raw, "action") or fields(raw)["seq"] < 20:
            return [(sender, raw)]
        done.append(sender)
        body = dict(fields(raw)["body"])
        body["action"] = f"{1 - sender} draw"
        return [(sender, resign(table, raw, body=body))]

    errors = route(table, hook)
    assert not any(errors.values())
    blamed([table.sessions[1 - done[0]]], done[0], "another seat's name")


def test_illegal_card_is_blamed_on_every_node() -> None:
    table = LocalTable(small(), seed="illegal")
    bot = IllegalPlayer("x")
    table.sessions[1].decider = bot
    errors = route(table)
    assert bot.cheated
    assert not any(errors.values())
    blamed(table.sessions, 1, "illegal action")
    assert len({s.blame for s in table.sessions}) == 1  # the same verdict, same step


def _nth_from(seat: int, n: int) -> Callable[[int, bytes], bool]:
    count = [0]

    def pick(sender: int, raw: bytes) -> bool:
        if sender != seat:
            return False
        count[0] += 1
        return count[0] == n

    return pick


def _flip_hex(text: str, at: int) -> str:
    c = text[at]
    return text[:at] + ("0" if c != "0" else "1") + text[at + 1 :]


@pytest.mark.parametrize("how", ["flipped", "other_key"])
def test_forged_signature_is_refused_without_trace(how: str) -> None:
    table = LocalTable(small(), seed="sig")
    pick = _nth_from(1, 25)
    before: list[tuple[bytes, int]] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        if not pick(sender, raw):
            return [(sender, raw)]
        s0 = table.sessions[0]
        before.append((s0.engine.digest(), len(s0.log)))
        if how == "flipped":
            o = fields(raw)
            forged = raw.replace(str(o["sig"]).encode(), _flip_hex(str(o["sig"]), 7).encode())
        else:  # signed by seat 0's key in seat 1's name
            forged = resign(table, raw, signer=0)
        return [(sender, forged), (sender, raw)]

    errors = route(table, hook)
    assert len(errors[0]) == 1
    e = errors[0][0]
    assert e.seat is None  # not attributable: the peer that sent the bytes is at fault
    assert e.reason.startswith("bad_signature")
    finished_cleanly(table)


def test_reused_signature_is_refused() -> None:
    table = LocalTable(small(), seed="reuse")
    seen: list[bytes] = []
    errs_at: list[int] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        if sender != 1:
            return [(sender, raw)]
        seen.append(raw)
        if len(seen) != 30:
            return [(sender, raw)]
        old_sig = str(fields(seen[10])["sig"])
        new_sig = str(fields(raw)["sig"])
        pasted = raw.replace(new_sig.encode(), old_sig.encode())
        errs_at.append(len(table.sessions[0].log))
        return [(sender, pasted), (sender, raw)]

    errors = route(table, hook)
    assert errs_at and [e.reason.split(":")[0] for e in errors[0]] == ["bad_signature"]
    assert errors[0][0].seat is None
    finished_cleanly(table)


@pytest.mark.parametrize("how", ["response_to_old_proposal", "proposal_prev_reordered"])
def test_broken_hash_chain_is_refused_and_named(how: str) -> None:
    table = LocalTable(small(), seed="chain")
    done: list[int] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        o = fields(raw)
        if done or sender != 1 or int(o["seq"]) < 15:
            return [(sender, raw)]
        prev = [bytes.fromhex(str(p)) for p in o["prev"]]
        if how == "response_to_old_proposal" and o["role"] == "response":
            old = table.sessions[0].log.proposal(int(o["seq"]) - 2)
            assert old is not None
            forged = resign(table, raw, prev=[old[0]])
        elif how == "proposal_prev_reordered" and o["role"] == "proposal":
            forged = resign(table, raw, prev=prev[::-1])
        else:
            return [(sender, raw)]
        done.append(1)
        return [(sender, forged), (sender, raw)]

    errors = route(table, hook)
    assert done
    assert [(e.seat, e.reason.split(":")[0]) for e in errors[0]] == [(1, "bad_prev")]
    finished_cleanly(table)


def test_unknown_parent_is_not_taken() -> None:
    """A prev naming an entry nobody has: not added, nothing changes (no blame possible yet:
    the missing parents are the transport's to fetch)."""
    table = LocalTable(small(), seed="orphan")
    done: list[bool] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        o = fields(raw)
        if done or sender != 1 or o["role"] != "response" or int(o["seq"]) < 15:
            return [(sender, raw)]
        done.append(True)
        s0 = table.sessions[0]
        head, digest, size = s0.log.head, s0.engine.digest(), len(s0.log)
        s0.receive(resign(table, raw, prev=[bytes(32)]))
        assert (s0.log.head, s0.engine.digest(), len(s0.log)) == (head, digest, size)
        assert not s0.outbox
        return [(sender, raw)]

    errors = route(table, hook)
    assert done and not any(errors.values())
    finished_cleanly(table)


def test_equivocation_ends_the_game_naming_the_seat() -> None:
    """spec 7, 10.8: two signed versions of one entry are kept as evidence, relayed, and end
    the game naming their author at the step of the slot (issue 10, item 7)."""
    table = LocalTable(small(), seed="equiv")
    first: list[bytes] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        o = fields(raw)
        if first or sender != 1 or o["role"] != "response" or int(o["seq"]) < 15:
            return [(sender, raw)]
        body = dict(o["body"])
        body["dispute"] = "a second opinion"
        other = resign(table, raw, body=body)
        first.extend([raw, other])
        return [(sender, raw), (sender, other)]

    errors = route(table, hook)
    assert not errors[0]  # not the sending peer's fault: an outcome, not a refusal
    s0 = table.sessions[0]
    log = s0.log
    assert len(log.evidence) == 1
    ev = log.evidence[0]
    assert (ev.author, ev.first, ev.second) == (1, first[0], first[1])
    assert log.game_id is not None
    ev.verify(log.players[1].sign_pk, log.game_id)  # provable to anyone offline
    assert log.knows(entry_hash(first[1]))
    blamed([s0], 1, "equivocation")
    seq = int(fields(first[0])["seq"])
    assert s0.blame is not None and s0.blame.step == seq
    assert s0.outcome.state == "cheat" and s0.outcome.void and not s0.outcome.winners


def test_equivocation_split_between_nodes_is_caught_when_they_compare() -> None:
    """Seat 2 sends one version to seat 0 and another to seat 1. Once the nodes exchange
    what they hold (gossip), each finds two signed entries for one slot and names seat 2,
    with the same verdict whichever version it took first."""
    table = LocalTable(small(3), seed="split")
    versions: list[bytes] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        o = fields(raw)
        if versions or sender != 2 or o["role"] != "response" or int(o["seq"]) < 15:
            return [(sender, raw)]
        body = dict(o["body"])
        body["note"] = "for seat 1 only"
        other = resign(table, raw, body=body)
        versions.extend([raw, other])
        return [(sender, raw, [0]), (sender, other, [1]), (sender, other, [0]), (sender, raw, [1])]

    errors = route(table, hook)
    assert not errors[0] and not errors[1]
    for seat in (0, 1):
        assert [ev.author for ev in table.sessions[seat].log.evidence] == [2]
    blamed(table.sessions[:2], 2, "equivocation")
    assert table.sessions[0].outcome == table.sessions[1].outcome


# ---------------------------------------------------------------------- crypto cheats
def _bad_release(rel: KeyRelease) -> KeyRelease:
    return KeyRelease(rel.shuffle_id, rel.owner, rel.position, rel.key % 1000 + 1, rel.salt)


def test_key_that_breaks_its_commitment_is_blamed_everywhere() -> None:
    table = LocalTable(small(), seed="key")
    cheat = table.sessions[1]
    honest_mine_for = cheat._mine_for
    used: list[int] = []

    def mine_for(slot: int) -> KeyRelease | None:
        rel = honest_mine_for(slot)
        if rel is None or cheat.deck_no < 2:
            return rel
        used.append(slot)
        return _bad_release(rel)

    cheat._mine_for = mine_for  # type: ignore[method-assign]
    errors = route(table)
    assert used and not any(errors.values())
    blamed(table.sessions, 1, "key release refused")


def test_wrong_key_shown_to_one_is_disputed_and_the_audit_names_the_sender() -> None:
    table = LocalTable(small(), seed="show")
    cheat = table.sessions[1]
    honest_owed_by = cheat._owed_by
    bad: list[int] = []

    def owed_by(
        q: int, pending_play: int | None = None
    ) -> tuple[list[KeyRelease], list[ShowMessage]]:
        releases, shows = honest_owed_by(q, pending_play)
        if cheat.deck_no < 2 or not shows or bad:
            return releases, shows
        out = []
        for show in shows:
            sh = next(s for s in cheat.shuffles if s.spec.shuffle_id == show.shuffle_id)
            fake = ShuffleSecrets.generate(sh.spec, 1, DeterministicRng(b"fake"))
            pub = sh.view.commitment(show.recipient).x25519_public
            out.append(fake.show(pub, show.recipient, show.positions))
            bad.append(show.recipient)
        return releases, out

    cheat._owed_by = owed_by  # type: ignore[method-assign]
    errors = route(table)
    assert bad == [0] and not any(errors.values())
    assert table.sessions[0].dispute is not None and table.sessions[0].dispute[0] == 0
    blamed(table.sessions, 1, "bad-show")


@pytest.mark.parametrize("players", [2, 3])
def test_false_challenge_verdict_is_disputed_and_named_everywhere(
    tmp_path: Path, players: int
) -> None:
    """Only the offender and the challenger see the hand: the offender disputes, every seat
    reveals, and the full-information audit names the challenger on every node (with three
    players the third node cannot check the verdict itself), and in the replay of the log."""
    seed = {2: "verdict2/0", 3: "verdict3/3"}[players]
    table = LocalTable(small(players), seed=seed)
    table.sessions[0].decider = FairWildFour("w")
    liar = LyingChallenger("c")
    table.sessions[1].decider = liar
    for s in table.sessions[2:]:
        s.decider = LyingChallenger("c2")
    errors = route(table)
    assert liar.lied, "no legal Wild Draw Four was challenged: pick another seed"
    assert not any(errors.values())
    blamed(table.sessions, 1, "false verdict")
    assert len({s.blame for s in table.sessions}) == 1
    assert all(s.dispute is not None for s in table.sessions)
    path = tmp_path / "verdict.log"
    for h, _ in table.sessions[0].log:
        append_entry(path, table.sessions[0].log.raw(h), fsync=False)
    result = replay(path)
    assert not result.ok and result.error is not None
    assert "seat 1 is at fault" in result.error and "false verdict" in result.error


def test_lie_in_the_end_of_round_reveal_is_named_by_the_audit() -> None:
    table = LocalTable(small(), seed="reveal")
    lies: list[str] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        o = fields(raw)
        body = o["body"]
        if sender != 1 or lies or not isinstance(body, dict) or "secrets" not in body:
            return [(sender, raw)]
        secrets = [dict(s) for s in body["secrets"]]
        keys = list(secrets[0]["keys"])
        keys[3], keys[4] = keys[4], keys[3]
        secrets[0]["keys"] = keys
        lies.append("keys")
        return [(sender, resign(table, raw, body={**body, "secrets": secrets}))]

    errors = route(table, hook)
    assert lies and not any(errors.values())
    blamed([table.sessions[0]], 1, "bad-reveal")


def test_false_permutation_in_the_reveal_is_named_by_the_audit() -> None:
    table = LocalTable(small(), seed="perm")
    lies: list[str] = []

    def hook(sender: int, raw: bytes) -> list[Delivery]:
        o = fields(raw)
        body = o["body"]
        if sender != 1 or lies or not isinstance(body, dict) or "secrets" not in body:
            return [(sender, raw)]
        secrets = [dict(s) for s in body["secrets"]]
        perm = list(secrets[0]["permutation"])
        perm[0], perm[1] = perm[1], perm[0]
        secrets[0]["permutation"] = perm
        lies.append("perm")
        return [(sender, resign(table, raw, body={**body, "secrets": secrets}))]

    errors = route(table, hook)
    assert lies and not any(errors.values())
    blamed([table.sessions[0]], 1, "bad-reveal", "pledge")


# ---------------------------------------------------------------------- not a cheat
def _bluffed(seed: str, other: Any) -> tuple[LocalTable, Bluffer]:
    """A 2-seat game where seat 0 bluffs every Wild Draw Four it can, played to its end."""
    table = LocalTable(small(), seed=seed)
    bluffer = Bluffer("b")
    table.sessions[0].decider = bluffer
    table.sessions[1].decider = other
    errors = route(table)
    assert bluffer.bluffed, "no bluff happened: pick another seed"
    assert not any(errors.values())
    finished_cleanly(table)
    return table, bluffer


def _replayed(table: LocalTable, path: Path) -> Any:
    for h, _ in table.sessions[0].log:
        append_entry(path, table.sessions[0].log.raw(h), fsync=False)
    return replay(path)


def test_unchallenged_bluff_is_not_a_cheat(tmp_path: Path) -> None:
    table, bluffer = _bluffed("bluff/1", Trusting("t"))
    for s in table.sessions:
        assert s.engine.stats.challenges_won + s.engine.stats.challenges_lost == 0
        assert sum("seat 0 bluffed" in b for b in s.bluffs) == len(bluffer.bluffed)
        assert s.bluffs == table.sessions[0].bluffs
    result = _replayed(table, tmp_path / "bluff.log")
    assert result.ok, result.error
    assert result.bluffs == table.sessions[0].bluffs


def test_a_bluff_a_challenge_caught_is_not_told_as_one_that_stands(tmp_path: Path) -> None:
    """A review: "audit: Ann's Wild Draw Four was a bluff (unchallenged bluffs stand)" for a
    Wild Draw Four that Bot-1 had challenged and won (000_75a4854712b36470.txt, Functions of
    Action Cards, Wild Draw Four: "If guilty, the challenged player must draw the 4 cards").
    The audit lists only the bluffs that stand: none, when every one is challenged."""
    table, _ = _bluffed("bluff/3", AlwaysChallenges("c"))
    for s in table.sessions:
        assert s.engine.stats.challenges_won >= 1
        assert s.bluffs == []  # (each one was caught)
    result = _replayed(table, tmp_path / "caught.log")
    assert result.ok and result.bluffs == [], (result.error, result.bluffs)


# ---------------------------------------------------------------------- the log file
def test_tampered_log_file_is_rejected_at_the_flipped_line(tmp_path: Path) -> None:
    table = LocalTable(small(), seed="file")
    table.run()
    log = table.sessions[0].log
    path = tmp_path / "game.log"
    for h, _ in log:
        append_entry(path, log.raw(h), fsync=False)
    data = path.read_bytes()
    assert replay(path).ok
    starts = [0, *[i + 1 for i, b in enumerate(data) if b == 0x0A][:-1]]
    rng = random.Random(5)
    positions = set(rng.sample(range(len(data)), 60))
    for line in [*rng.sample(range(len(starts)), 6), 0, 1, len(starts) - 1]:
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(data) - 1
        positions |= {starts[line], starts[line] + 1, end - 1, end}
    bad = tmp_path / "bad.log"
    for pos in sorted(positions):
        flipped = bytearray(data)
        flipped[pos] ^= 0x01
        bad.write_bytes(bytes(flipped))
        result = replay(bad)
        line = data.count(b"\n", 0, pos)
        assert not result.ok, f"byte {pos} (line {line}) flipped, yet the replay accepted it"
        assert result.bad_entry == line, (pos, line, result.bad_entry, result.error)
