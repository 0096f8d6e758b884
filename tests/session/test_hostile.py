"""A hostile seat against the public Session API, over a network that reorders, delays,
duplicates and drops (issue 10, items 2-8). The cheater alters what it sends and re-signs it
with its own key; every honest node must name it, the same way, from evidence every node
holds, with no key or secret released before the check and the round void where it should be.

Rules cited: the rule sheets' scoring (002 · Scoring: "the first player to reach 500 points
wins") decides what a void round takes away; everything else here is the protocol
(protocol/spec.md section 10, docs/security.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from p2puno.crypto import KeyCommitment
from p2puno.crypto._group import encrypt_one
from p2puno.engine import Options, Phase
from p2puno.engine.game import HAND_SIZE
from p2puno.log import (
    Entry,
    Equivocation,
    Log,
    LogError,
    Role,
    Status,
    append_entry,
    entry_hash,
    make_genesis,
    sign_entry,
)
from p2puno.log.log import MAX_EVIDENCE_PER_AUTHOR
from p2puno.session import Session, SessionError
from p2puno.session.harness import LocalTable, quiet_after
from p2puno.session.replay import replay
from p2puno.session.session import shuffle_id
from p2puno.session.simnet import NetConfig, SimNet
from p2puno.session.words import outcome_words
from p2puno.wire import decode

NET = NetConfig(delay=(0, 30), duplicate=0.1, drop=0.05)


def hostile(tamper: Callable[[int, bytes], Any], seat: int) -> NetConfig:
    """The network, with ``seat`` sending what ``tamper`` makes of its entries and serving no
    requests (a cheater keeps its own versions to itself)."""
    return NetConfig(**{**NET.__dict__, "tamper": tamper, "hostile": {seat}})


def fields(raw: bytes) -> dict[str, Any]:
    obj = decode(raw)
    assert isinstance(obj, dict)
    return obj


def resign(table: LocalTable, raw: bytes, **changes: Any) -> bytes:
    """The author of ``raw`` signs an altered copy with its own key (a hostile seat)."""
    f = fields(raw)
    f.update(changes)
    e = Entry.from_obj(f)
    ident = table.sessions[e.author].identity
    assert ident is not None
    return sign_entry(
        ident,
        game=e.game,
        seq=e.seq,
        author=e.author,
        role=e.role,
        kind=e.kind,
        prev=e.prev,
        body=e.body,
    )


def play(
    options: Options,
    seed: str,
    tamper: Callable[[int, bytes], bytes | None] | None = None,
    **net: Any,
) -> LocalTable:
    table = LocalTable(options, seed=seed)
    config = NetConfig(**{**NET.__dict__, "tamper": tamper, **net})
    SimNet(table, seed, config).run()
    return table


def same_verdict(table: LocalTable, honest: list[int], seat: int, *words: str) -> None:
    """Every honest node names ``seat`` with the same verdict; never an honest seat."""
    outcomes = {table.sessions[i].outcome for i in honest}
    assert len(outcomes) == 1, outcomes
    (o,) = outcomes
    assert o.state == "cheat" and o.blame is not None, o
    assert o.blame.seat == seat, o
    for w in words:
        assert w in o.blame.reason, o


def honest_released(table: LocalTable, honest: list[int], sid: bytes, pos: int) -> list[int]:
    """Honest seats that published their key for ``(sid, pos)`` in any entry any node holds."""
    who = set()
    for i in honest:
        log = table.sessions[i].log
        for h in log.hashes():
            e = log.entry(h)
            body = e.body
            if e.author not in honest or not isinstance(body, dict):
                continue
            for rel in body.get("releases", []):
                if rel["shuffle_id"] == sid.hex() and rel["position"] == pos:
                    who.add(e.author)
    return sorted(who)


# ---------------------------------------------------------------------- item 2
@pytest.mark.parametrize("target", ["dealer-draw card", "start card", "dealt card"])
def test_a_corrupted_card_names_the_shuffler_never_nobody(target: str) -> None:
    """A shuffler swaps one final entry for a point that is no card: the card that does not
    open (in public, or in a hand) leads to the reveal, and the audit names the shuffler on
    every honest node. Before, a public card that did not open blamed seat -1."""
    n, cheat = 3, 0  # seat 0 makes the last phase-2 step: its output is the final deck
    options = Options(n, target=20)
    deck, pos = {
        "dealer-draw card": (1, 0),
        "start card": (2, HAND_SIZE * n),
        "dealt card": (2, 1),
    }[target]
    table = LocalTable(options, seed=f"corrupt/{target}")
    sid = shuffle_id(table.sessions[0].game_id, deck, 0).hex()
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes | None:
        f = fields(raw)
        step = f["body"].get("step") if isinstance(f["body"], dict) else None
        if sender != cheat or done or not step or step["shuffle_id"] != sid:
            return raw
        if step["phase"] != 2:
            return raw
        deck_hex = list(step["deck"])
        other = bytes.fromhex(deck_hex[pos + 1])
        deck_hex[pos] = encrypt_one(12345, other).hex()  # a curve point, but no card
        done.append(True)
        return resign(table, raw, body={**f["body"], "step": {**step, "deck": deck_hex}})

    SimNet(table, target, hostile(tamper, cheat)).run()
    assert done
    same_verdict(table, [1, 2], cheat, "audit: bad-shuffle")


def test_a_card_duplicated_into_two_hands_names_the_shuffler_and_nodes_agree() -> None:
    """The merged step (the last seat's) copies one card into two dealt positions under
    different keys (no equal ciphertexts to see). Each holder opens its copy privately; the
    clash is a private fault (a dispute), never a verdict of one node; the audit names the
    shuffler on every honest node. Before, the nodes diverged and one blamed an honest player."""
    n = 3
    cheat = n - 1
    options = Options(n, target=20)
    table = LocalTable(options, seed="duplicate")
    sid = shuffle_id(table.sessions[0].game_id, 2, 0)
    done: list[int] = []

    def tamper(sender: int, raw: bytes) -> bytes | None:
        f = fields(raw)
        step = f["body"].get("step") if isinstance(f["body"], dict) else None
        if sender != cheat or done or not step or step["shuffle_id"] != sid.hex():
            return raw
        if step["phase"] != 2:
            return raw
        sh = table.sessions[cheat].shuffles[-1]
        assert sh.mine is not None
        keys, perm = sh.mine._keys, sh.mine._perm
        deck_in = sh.view.deck  # what the cheater was handed (its step not yet applied)
        deck_hex = list(step["deck"])
        # positions 0 and 1 are dealt to two different seats: position 1 gets 0's card
        deck_hex[1] = encrypt_one(keys[1], deck_in[perm[0]]).hex()
        done.append(1)
        return resign(table, raw, body={**f["body"], "step": {**step, "deck": deck_hex}})

    SimNet(table, "dup", hostile(tamper, cheat)).run()
    assert done
    same_verdict(table, [0, 1], cheat, "audit: bad-shuffle")
    for i in (0, 1):
        assert table.sessions[i].dispute is not None  # the reveal came through a dispute


# ---------------------------------------------------------------------- item 3
def test_playing_the_top_of_the_draw_pile_gets_blame_never_a_key() -> None:
    """A seat 'plays' the slot on top of the draw pile (a Wild, always playable): every
    honest node refuses the proposal on arrival, names the seat, and no honest seat ever
    releases its key for that slot (before, the cheater saw its next card first)."""
    n, cheat = 3, 1
    table = LocalTable(Options(n, target=20), seed="draw-top")
    seen: list[tuple[bytes, int]] = []

    def tamper(sender: int, raw: bytes) -> bytes | None:
        f = fields(raw)
        if sender != cheat or seen or f["kind"] != "action" or f["role"] != "proposal":
            return raw
        s = table.sessions[cheat]
        g = s.engine
        if not g.draw or g.round_no < 1:
            return raw
        slot = g.draw[-1]
        ref = s._slot_ref(slot)
        if ref is None or ref[0].mine is None:
            return raw
        sh, pos = ref
        seen.append((sh.spec.shuffle_id, pos))
        body = dict(f["body"])
        body["action"] = f"{cheat} W#{slot}:r"
        body["releases"] = [*body["releases"], sh.mine.release(pos).to_obj()]
        return resign(table, raw, body=body)

    SimNet(table, "top", hostile(tamper, cheat)).run()
    assert seen
    honest = [0, 2]
    same_verdict(table, honest, cheat, "not in its hand")
    assert honest_released(table, honest, *seen[0]) == []


def test_a_bogus_reveal_mid_round_gets_blame_never_a_secret() -> None:
    """Seat 0 (who proposes reveals) proposes one mid-round in place of its action: refused
    on arrival by every node, which names it; no honest entry carries a secret."""
    table = LocalTable(Options(3, target=20), seed="bogus-reveal")
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes | None:
        f = fields(raw)
        if sender != 0 or done or f["kind"] != "action" or f["role"] != "proposal":
            return raw
        if table.sessions[0].engine.round_no < 1:
            return raw
        s = table.sessions[0]
        body = dict(f["body"])
        body.pop("action")
        body["secrets"] = [sh.mine.reveal().to_obj() for sh in s.shuffles if sh.mine]
        done.append(True)
        return resign(table, raw, kind="reveal", body=body)

    SimNet(table, "reveal", hostile(tamper, 0)).run()
    assert done
    same_verdict(table, [1, 2], 0, "proposed 'reveal' where 'action' was due")
    step = table.sessions[1].outcome.step
    for i in (1, 2):
        log = table.sessions[i].log
        for h in log.hashes():
            e = log.entry(h)
            if e.author in (1, 2) and e.seq >= step:
                assert isinstance(e.body, dict) and "secrets" not in e.body


# ---------------------------------------------------------------------- item 5
def test_a_round_whose_audit_names_a_cheater_is_void_and_has_no_winner() -> None:
    """002 · Scoring: the round's winner scores the others' cards, and reaching the target
    wins. The winner here lies in its end-of-round reveal: the audit names it, its points are
    not counted, and the game has no winner (before, the cheater stood as the winner)."""
    options = Options(2, target=20)
    honest = LocalTable(options, seed="void")
    honest.run()
    o = honest.sessions[0].outcome
    assert o.state == "finished" and o.winners
    winner = o.winners[0]
    table = LocalTable(options, seed="void")

    def tamper(sender: int, raw: bytes) -> bytes | None:
        f = fields(raw)
        body = f["body"]
        if sender != winner or not isinstance(body, dict) or "secrets" not in body:
            return raw
        if table.sessions[winner].engine.phase is not Phase.GAME_OVER:
            return raw  # its last reveal, once the game is won
        secrets = [dict(x) for x in body["secrets"]]
        keys = list(secrets[0]["keys"])
        keys[0], keys[1] = keys[1], keys[0]
        secrets[0]["keys"] = keys
        return resign(table, raw, body={**body, "secrets": secrets})

    SimNet(table, "void", hostile(tamper, winner)).run()
    other = 1 - winner
    same_verdict(table, [other], winner, "audit: bad-reveal")
    out = table.sessions[other].outcome
    assert out.winners == () and out.void
    assert out.scores == (0, 0)  # the only round was void: nothing counts
    assert table.sessions[other].engine.winners == (winner,)  # the engine alone would say so


# ---------------------------------------------------------------------- item 6
def test_an_old_genesis_and_an_old_signed_entry_never_count_in_a_new_game() -> None:
    """Every seat's nonce is in the genesis: a host that reuses an old genesis (same roster,
    options and nonces) gets no answer from a seat that gave it a fresh nonce, and an entry
    signed for an old game is refused in the new one (another game id), so no old signature
    can become 'equivocation' evidence against an honest seat."""
    options = Options(2, target=20)
    old = LocalTable(options, seed="old")
    old.run()
    genesis = old.entries[0]
    # the host replays the old genesis to seat 1, which drew a new nonce for this table
    log = Log()
    assert log.add(genesis).status is Status.ADDED
    me = old.sessions[1]
    with pytest.raises(ValueError, match="nonce"):
        Session(log, seat=1, identity=me.identity, nonce=b"\x01" * 32, decider=None)
    # a fresh game with the same roster and options: seat 1's old response is refused
    new = LocalTable(options, seed="old")
    host = new.sessions[0]
    assert host.identity is not None and me.identity is not None
    players = list(host.log.players)
    fresh = make_genesis(
        host.identity, 0, players, host.log.genesis.options, [b"\x07" * 32, b"\x08" * 32]
    )
    log2 = Log()
    log2.add(fresh)
    old_response = next(
        raw for raw in old.entries[1:] if fields(raw)["author"] == 1 and fields(raw)["seq"] == 0
    )
    with pytest.raises(Exception, match=r"wrong_game|another game"):
        log2.add(old_response)
    assert log2.evidence == ()


# ---------------------------------------------------------------------- item 7
def test_equivocation_over_a_relaying_network_ends_the_game_on_every_node() -> None:
    """Seat 2 signs two versions of one response and sends one to each peer; relaying brings
    both to everyone, and every honest node names seat 2 with the same outcome, whichever
    version it took first."""
    table = LocalTable(Options(3, target=20), seed="equiv-net")
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> Any:
        f = fields(raw)
        if sender != 2 or done or f["role"] != "response" or f["seq"] < 30:
            return raw
        other = resign(table, raw, body={**f["body"], "note": "the other version"})
        done.append(True)
        return [(raw, [0]), (other, [1])]

    SimNet(table, "equiv", hostile(tamper, 2)).run()
    assert done
    same_verdict(table, [0, 1], 2, "equivocation")
    for i in (0, 1):
        assert [ev.author for ev in table.sessions[i].log.evidence] == [2]


def test_an_equivocation_one_node_refuses_and_one_takes_ends_with_one_verdict() -> None:
    """helper-25 over TCP: seat 2 sent one peer a legal play and the other a play of a card
    it does not hold, both signed. The first named an equivocation, the second "not in its
    hand": one seat, one step, two reasons, two honest records that differ. The evidence
    spreads to every node and, for one seat at one step, equivocation is the verdict."""
    table = LocalTable(Options(3, target=20), seed="equiv-refused")
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> Any:
        f = fields(raw)
        if sender != 2 or done or f["role"] != "proposal" or f["kind"] != "action":
            return raw
        action = f["body"].get("action", "") if isinstance(f["body"], dict) else ""
        if " " not in action or "#" not in action:  # (a play: "2 r5#17")
            return raw
        seat, rest = action.split(" ", 1)
        face = rest.split("#", 1)[0]
        mine = set(table.sessions[2].engine.hands[2])
        bogus_slot = next(s for s in range(108) if s not in mine)
        bogus = resign(table, raw, body={**f["body"], "action": f"{seat} {face}#{bogus_slot}"})
        done.append(True)
        return [(raw, [0]), (bogus, [1])]

    SimNet(table, "equiv-refused", hostile(tamper, 2)).run()
    assert done
    same_verdict(table, [0, 1], 2, "equivocation")


def test_a_flood_of_resigned_versions_is_kept_and_relayed_a_bounded_number_of_times() -> None:
    """Seat 2 sends 200 signed versions of one response to every peer (each a valid
    equivocation). Every honest node names seat 2 as before, but keeps at most
    MAX_EVIDENCE_PER_AUTHOR of them in memory and in its log file, and relays no more: the
    flood grows neither memory nor traffic (the rest are SURPLUS, dropped unread)."""
    table = LocalTable(Options(3, target=20), seed="equiv-flood")
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> Any:
        f = fields(raw)
        if sender != 2 or done or f["role"] != "response" or f["seq"] < 30:
            return raw
        done.append(True)
        flood = [resign(table, raw, body={**f["body"], "n": k}) for k in range(200)]
        versions.update(flood)
        return [(v, [0, 1]) for v in [raw, *flood]]

    versions: set[bytes] = set()
    relayed = [0, 0]  # versions of seat 2's slot that honest nodes 0 and 1 send

    class Counting(SimNet):
        def _send(self, src: int, dst: int, data: bytes) -> None:
            if src in (0, 1) and data in versions:
                relayed[src] += 1
            super()._send(src, dst, data)

    Counting(table, "equiv-flood", hostile(tamper, 2)).run()
    assert done
    same_verdict(table, [0, 1], 2, "equivocation")
    for i in (0, 1):
        log = table.sessions[i].log
        assert 1 <= len(log.evidence) <= MAX_EVIDENCE_PER_AUTHOR
        assert {ev.author for ev in log.evidence} == {2}
        # each piece kept (both its versions) is relayed to the other two seats, and a few
        # are sent again to answer fetches: without the cap, 200 pieces and over 800 sends
        assert relayed[i] <= MAX_EVIDENCE_PER_AUTHOR * 2 * 2 + 8


def _first(kind: str, role: str | None = None, after: int = 0) -> Callable[[int, bytes], bool]:
    def when(seat: int, raw: bytes) -> bool:
        f = fields(raw)
        if f["seq"] < after or seat != 1:
            return False
        body = f["body"] if isinstance(f["body"], dict) else {}
        if kind == "commitment":
            return "commitment" in body
        if kind == "shuffle-step":
            return "step" in body
        if kind == "secrets":
            return "secrets" in body
        if kind == "claim":
            return "claim" in body
        if kind == "deal":  # a response carrying keys for dealt cards
            return bool(body.get("shows")) or bool(body.get("releases"))
        return f["kind"] == kind and (role is None or f["role"] == role)

    return when


@pytest.mark.parametrize(
    "what",
    [
        ("commitment", None, 0),
        ("shuffle-step", None, 0),
        ("deal", None, 20),
        ("action", "proposal", 20),
        ("claim", None, 20),
        ("sync", "proposal", 20),
        ("secrets", None, 0),
    ],
    ids=lambda w: w[0],
)
def test_a_seat_that_goes_silent_at_any_kind_of_step_is_named_and_never_hangs_the_table(
    what: tuple[str, str | None, int],
) -> None:
    """Seat 1 stops answering at the first step of a kind (its node crashed). The others'
    deadlines pass, they vote, and every node reaches the same stop naming seat 1 alone."""
    options = Options(3, target=100, jump_in=True, seven_o=True)
    table = LocalTable(options, seed=f"silent/{what[0]}")
    config = NetConfig(**{**NET.__dict__, "deadline": 3000, "silence": _first(*what)})
    net = SimNet(table, what[0], config)
    stats = net.run()
    assert 1 in net.silenced, "seat 1 never reached that kind of step"
    outcomes = {table.sessions[i].outcome for i in (0, 2)}
    assert len(outcomes) == 1, outcomes
    (o,) = outcomes
    assert o.state == "stopped" and o.silent == (1,), o
    assert stats.stops >= 1
    votes = table.sessions[0].log.votes()
    assert sorted(votes) == [0, 2]
    assert all(1 in e.body["waiting"] for _, e in votes.values())  # type: ignore[index]


@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    what=st.sampled_from(
        [
            ("commitment", None, 0),
            ("deal", None, 20),
            ("action", "proposal", 20),
            ("claim", None, 20),
        ]
    ),
    net_seed=st.integers(0, 2**16),
    defer=st.booleans(),
)
@example(what=("action", "proposal", 20), net_seed=7, defer=True)
def test_the_live_nodes_reach_one_stop_whether_they_join_at_once_or_once_their_input_is_in(
    what: tuple[str, str | None, int], net_seed: int, defer: bool
) -> None:
    """Spec 10.15 under any delivery order (SimNet: delays, duplicates, drops), whether a node
    joins a vote inside its processing or once its input is in (``defer_join``, the node
    layer's way: Session.join_votes at its next tick): seat 1 goes silent, and every live
    node ends with the same stop, seat 1 alone silent, every live seat a voter, no join left
    due. (Here both live seats wait for seat 1, so each one's own deadline would vote too:
    this holds the deferred join to the same end, it does not show the join is needed; the
    burst test above and tests/node/test_late_resume.py do.)"""
    options = Options(3, target=100, jump_in=True, seven_o=True)
    table = LocalTable(options, seed=f"silent/{what[0]}")
    config = NetConfig(
        **{**NET.__dict__, "deadline": 3000, "silence": _first(*what), "defer_join": defer}
    )
    net = SimNet(table, net_seed, config)
    net.run()
    assert 1 in net.silenced, "seat 1 never reached that kind of step"
    outcomes = {table.sessions[i].outcome for i in (0, 2)}
    assert len(outcomes) == 1, outcomes
    (o,) = outcomes
    assert o.state == "stopped" and o.silent == (1,) and o.voters == (0, 2), o
    assert not any(s.join_due for s in table.sessions)


def _gone_at_its_turn(seat: int, after: int) -> tuple[Callable[[int, bytes], bool], list[int]]:
    """A SimNet silence rule: ``seat`` goes silent at its first turn after step ``after``;
    the list gets that step."""
    gone_at: list[int] = []

    def silence(s: int, raw: bytes) -> bool:
        f = fields(raw)
        if s == seat and f["kind"] == "action" and f["role"] == "proposal" and f["seq"] > after:
            gone_at.append(f["seq"])
            return True
        return False

    return silence, gone_at


def test_a_seat_that_dies_while_nobody_waits_for_it_is_named_too() -> None:
    """Spec 10.15. Seat 1 goes silent at its turn, and seat 2's process dies in the same wait,
    when nobody waits for it (it owes nothing until seat 1 plays): it never votes. Seat 0's
    vote names seat 1, whom it waited for, and seat 2, to which it has no link (SimNet: a dead
    seat). The stop is decided: silent seats 1 and 2. (Seen with people: the vote named only
    the seat waited for, and the last player waited for seat 2's vote for ever, as a voter
    never votes again.)"""
    options = Options(3, target=100)
    table = LocalTable(options, seed="silent/two")
    at_turn, gone_at = _gone_at_its_turn(1, after=20)

    def silence(seat: int, raw: bytes) -> bool:
        if at_turn(seat, raw):
            return True
        return seat == 2 and bool(gone_at) and fields(raw)["seq"] >= gone_at[0] - 1

    config = NetConfig(**{**NET.__dict__, "deadline": 3000, "silence": silence})
    net = SimNet(table, "silent/two", config)
    net.run()
    assert set(net.silenced) == {1, 2}
    o = table.sessions[0].outcome
    assert o.state == "stopped" and o.silent == (1, 2), o
    votes = table.sessions[0].log.votes()
    assert sorted(votes) == [0]
    assert votes[0][1].body == {"waiting": [1, 2]}


def test_a_seat_that_can_be_reached_but_never_votes_is_named_in_an_amended_vote(
    tmp_path: Path,
) -> None:
    """Spec 10.15 (was its open point). Seat 1 goes silent at its turn; seat 2 stays linked
    but neither answers nor votes (a hostile node: it owes nothing until seat 1 plays, and it
    refuses to join the stop). Seat 0's vote names seat 1, whom it waited for; seat 2 can be
    reached, so it is left to join. It never does: once seat 0's deadline passes again, its
    amended vote (the same step, more seats named) names seat 2 too, and the stop is decided.
    Before amendments the last voter waited for seat 2 for ever."""
    options = Options(3, target=100)
    table = LocalTable(options, seed="silent/two")
    silence, gone_at = _gone_at_its_turn(1, after=20)
    refuser = table.sessions[2]
    refuser._vote = lambda waiting: False  # type: ignore[method-assign]
    config = NetConfig(**{**NET.__dict__, "deadline": 3000, "silence": silence})
    net = SimNet(table, "silent/refuser", config)
    net.run()
    assert set(net.silenced) == {1} and gone_at
    node = table.sessions[0]
    o = node.outcome
    assert o.state == "stopped" and o.silent == (1, 2), o
    assert node.log.votes()[0][1].body == {"waiting": [1, 2]}
    first, amended = (node.log.entry(h) for h in node.log.vote_hashes(0))
    assert first.body == {"waiting": [1]}
    assert (first.seq, first.prev) == (amended.seq, amended.prev)
    assert not node.log.evidence and node.blame is None  # an amendment is not equivocation
    assert refuser.outcome == o  # the refuser's node holds the same votes: the same outcome
    path = tmp_path / "node0.log"
    for h, _ in node.log:
        append_entry(path, node.log.raw(h), fsync=False)
    replayed = replay(path)  # offline, the log proves the same stop
    assert replayed.ok and replayed.outcome == o, replayed.error


@pytest.mark.parametrize(
    ("second", "amendment"),
    [
        ({"waiting": [1, 2]}, True),  # names more: an amendment
        ({"waiting": []}, True),  # names fewer: the first amends it (order does not matter)
        ({"waiting": [2]}, False),  # names others: two votes
        ({"waiting": [1], "also": 1}, False),  # the same seats, other bytes: two votes
        ({"waiting": [1, 10]}, False),  # 10 is no seat: the same seats (a chain is bounded)
    ],
)
def test_a_second_vote_is_an_amendment_only_if_it_names_more_or_fewer_seats(
    second: dict[str, Any], amendment: bool
) -> None:
    """Spec 7 and 10.15: a seat's votes must form a chain (each names strictly more seats
    than the one before, with the same step and parents); any other second vote is
    equivocation, whichever arrives first, and an amendment pair is refused as evidence."""
    table = LocalTable(Options(3, target=100), seed="amend")
    with pytest.raises(RuntimeError, match="did not end"):
        table.run(max_entries=40)  # a few steps in
    voter = table.sessions[0]
    assert voter.identity is not None
    first = voter.log.vote(voter.identity, 0, "stop", {"waiting": [1]})
    f = fields(first)
    variant = sign_entry(
        voter.identity,
        game=bytes.fromhex(f["game"]),
        seq=f["seq"],
        author=0,
        role=Role.VOTE,
        kind="stop",
        prev=[bytes.fromhex(p) for p in f["prev"]],
        body=second,
    )
    for one, two in ((first, variant), (variant, first)):
        log = Log()
        for h, _ in voter.log:
            log.add(voter.log.raw(h))
        assert log.add(one).status is Status.ADDED
        if amendment:
            assert log.add(two).status is Status.ADDED
            assert not log.evidence and len(log.vote_hashes(0)) == 2
            big = max((first, variant), key=lambda r: len(fields(r)["body"]["waiting"]))
            assert log.votes()[0][0] == entry_hash(big)  # the one naming the most counts
        else:
            with pytest.raises(LogError, match="second vote"):
                log.add(two)
            assert len(log.evidence) == 1
    eq = Equivocation(0, f["seq"], Role.VOTE, first, variant)
    if amendment:
        with pytest.raises(LogError, match="amendment"):
            eq.verify(voter.identity.sign_pk, bytes.fromhex(f["game"]))
    else:
        eq.verify(voter.identity.sign_pk, bytes.fromhex(f["game"]))


@pytest.mark.parametrize("who", ["loser", "winner"])
def test_a_round_played_to_its_end_counts_unless_its_winner_withholds_its_secrets(
    who: str,
) -> None:
    """002 · Scoring: the round's winner scores and reaching the target wins. A seat sees the
    result and never sends its last end-of-deck reveal. If it lost, the stop keeps the round
    (every card of it was opened in public already): a loser cannot undo a result. If it won,
    the round is void: a winner that keeps its secrets from the audit could be hiding a cheat."""
    options = Options(2, target=20)
    honest = LocalTable(options, seed="withhold")
    honest.run()
    o = honest.sessions[0].outcome
    assert o.state == "finished"
    winner = o.winners[0]
    silent = winner if who == "winner" else 1 - winner
    table = LocalTable(options, seed="withhold")

    def last_reveal(seat: int, raw: bytes) -> bool:
        over = table.sessions[seat].engine.phase is Phase.GAME_OVER
        return seat == silent and over and "secrets" in fields(raw)["body"]

    config = NetConfig(**{**NET.__dict__, "deadline": 3000, "silence": last_reveal})
    SimNet(table, "withhold", config).run()
    got = table.sessions[1 - silent].outcome
    assert got.state == "stopped" and got.silent == (silent,)
    if who == "loser":
        assert got.winners == o.winners and got.scores == o.scores and not got.void
    else:
        assert got.winners == () and got.scores == (0, 0) and got.void


@pytest.mark.parametrize("who", ["loser", "winner"])
def test_a_seat_silent_at_a_later_step_of_a_decks_reveal_is_judged_as_at_its_first(
    who: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As above, where the deck's secrets take several reveal steps (spec 10.10: at most
    REVEAL_SHUFFLES shuffles to a step; here one, and the last deck has three): a seat that
    sends its first part and withholds a later one keeps a loser's round counted and a
    winner's void, as at the first."""
    import p2puno.session.session as session_module

    monkeypatch.setattr(session_module, "REVEAL_SHUFFLES", 1)
    options = Options(2, target=20)
    honest = LocalTable(options, seed="r4", bots=["random", "random"])
    honest.run()
    o = honest.sessions[0].outcome
    assert o.state == "finished"
    winner = o.winners[0]
    silent = winner if who == "winner" else 1 - winner
    table = LocalTable(options, seed="r4", bots=["random", "random"])

    def later_reveal(seat: int, raw: bytes) -> bool:
        s, body = table.sessions[seat], fields(raw)["body"]
        if seat != silent or s.engine.phase is not Phase.GAME_OVER or not body.get("secrets"):
            return False
        return body["secrets"][0]["shuffle_id"] != s.shuffles[0].spec.shuffle_id.hex()

    config = NetConfig(**{**NET.__dict__, "deadline": 3000, "silence": later_reveal})
    SimNet(table, "withhold-later", config).run()
    got = table.sessions[1 - silent].outcome
    assert got.state == "stopped" and got.silent == (silent,)
    assert table.sessions[1 - silent]._reveal_from > 0  # (its first part was taken)
    if who == "loser":
        assert got.winners == o.winners and got.scores == o.scores and not got.void
    else:
        assert got.winners == () and got.scores == (0, 0) and got.void


@pytest.mark.parametrize("who", ["winner", "loser"])
def test_a_seat_that_votes_instead_of_sending_its_last_reveal_is_silent_all_the_same(
    who: str,
) -> None:
    """As above, but the seat signs a vote to stop where its reveal was due (helper-25's
    attack, over TCP): every other seat joined, nobody was named, and a winner kept its win
    with its deck never audited (spec 10.15: a winner that keeps its secrets from the audit
    might be hiding a cheat). A voter that owes its part of the reveal in progress is silent
    too: named, and a winner's round is void; a loser's still counts."""
    options = Options(3, target=20)
    honest = LocalTable(options, seed="vote-withhold")
    honest.run()
    o = honest.sessions[0].outcome
    assert o.state == "finished"
    winner = o.winners[0]
    cheat = winner if who == "winner" else (winner + 1) % 3
    table = LocalTable(options, seed="vote-withhold")
    voted: list[bytes] = []

    def tamper(seat: int, raw: bytes) -> bytes | None:
        over = table.sessions[seat].engine.phase is Phase.GAME_OVER
        if seat != cheat or not over or "secrets" not in fields(raw)["body"]:
            return raw
        me = table.sessions[seat]
        assert me.identity is not None and not voted
        voted.append(me.log.vote(me.identity, seat, "stop", {"waiting": []}))
        me._maybe_produce = lambda: False  # type: ignore[method-assign]  # (it writes no more)
        return voted[0]  # its vote, in place of its reveal

    SimNet(table, "vote-withhold", hostile(tamper, cheat)).run()
    assert voted
    outcomes = {table.sessions[i].outcome for i in range(3) if i != cheat}
    assert len(outcomes) == 1, outcomes
    (got,) = outcomes
    assert got.state == "stopped" and got.silent == (cheat,), got
    if who == "loser":
        assert got.winners == o.winners and got.scores == o.scores and not got.void
    else:
        assert got.winners == () and got.void


# ---------------------------------------------------------------------- item 1 (hostile)
def test_entries_with_parents_that_never_come_are_bounded_per_author_in_bytes() -> None:
    """A seat floods signed entries whose parents do not exist: they wait, within a budget
    per author in bytes; past it the author is named (SessionError), nothing else raises,
    and the node asks for the missing parents by hash."""
    table = LocalTable(Options(3, target=20), seed="flood")
    s = table.sessions[0]
    s.start()
    flooder = table.sessions[2]
    assert flooder.identity is not None
    big = {"pad": "x" * 60_000}  # (under the 64 KiB entry cap: 24 of them pass the budget)
    errors = []
    for k in range(24):
        raw = sign_entry(
            flooder.identity,
            game=s.game_id,
            seq=1,
            author=2,
            role=Role.RESPONSE,
            kind="ack",
            prev=[bytes([k]) * 32],
            body=big,
        )
        try:
            s.receive(raw)
        except SessionError as e:
            errors.append(e)
    assert errors and all(e.seat == 2 for e in errors)
    assert s._parked_bytes[2] <= s.park_budget
    assert len(s.missing()) == 24 - len(errors)
    assert bytes([0]) * 32 in s.missing()


def test_a_proposal_that_arrives_before_the_step_it_follows_is_complete_waits() -> None:
    """An honest proposal for step k+1 that beats the last response of step k waits and is
    taken once that response arrives (before, it was refused as out of turn, its honest
    author named)."""
    options = Options(3, target=20)
    table = LocalTable(options, seed="early")
    table.run()
    by_slot = {
        (e["seq"], e["author"], e["role"]): raw for raw in table.entries for e in [fields(raw)]
    }
    me = 2
    k = next(
        k
        for k in range(3, 200)
        if (k + 1, me, "proposal") not in by_slot
        and any((k, a, "response") in by_slot for a in range(3) if a != me)
    )
    held = next(
        by_slot[(k, a, "response")] for a in range(3) if (k, a, "response") in by_slot and a != me
    )
    s = LocalTable(options, seed="early").sessions[me]
    s.start()
    for raw in table.entries:
        f = fields(raw)
        if f["seq"] > k + 1:
            break
        if f["author"] != me and raw != held:
            s.receive(raw)
    assert s._done_seq == k - 1
    assert s.log.proposal(k + 1) is None  # it waits, it was not refused
    assert s.missing() == [entry_hash(held)]  # and the node asks for what it lacks
    s.receive(held)
    assert s._done_seq >= k and not s.missing()
    assert s.blame is None and not s.refused


def test_a_counted_round_stays_counted_when_the_withheld_reveal_arrives_late() -> None:
    """002 · Scoring. The loser of round 1 (not the last) withholds its reveal; the stop counts
    the round. Its reveal then arrives after all: the step completes, the audit passes, and the
    outcome is unchanged (before, a late honest reveal took the round's points away)."""
    options = Options(2, target=300)
    table = LocalTable(options, seed="late-reveal")
    silent: list[int] = []

    def first_round_reveal(seat: int, raw: bytes) -> bool:
        s = table.sessions[seat]
        f = fields(raw)
        if silent or "secrets" not in f["body"] or s.deck_no < 2 or s.engine.round_no < 2:
            return False
        if s.engine.out == seat:
            return False  # the winner reveals; the loser is the one that withholds
        silent.append(seat)
        return True

    config = NetConfig(**{**NET.__dict__, "deadline": 3000, "silence": first_round_reveal})
    SimNet(table, "late", config).run()
    assert silent
    loser = silent[0]
    node = table.sessions[1 - loser]
    before = node.outcome
    assert before.state == "stopped" and not before.void and max(before.scores) > 0, before
    late = [
        table.sessions[loser].log.raw(h)
        for h in table.sessions[loser].log.hashes()
        if table.sessions[loser].log.entry(h).author == loser
        and not node.log.knows(h)
        and table.sessions[loser].log.entry(h).role is not Role.VOTE
    ]
    assert late
    for raw in late:
        node.receive(raw)
    assert node.processed > before.step  # the late reveal completed its step, audited
    # the same outcome, stopped after the step the late reveal completed: K is the furthest
    # step complete in the log (spec 10.15, "What it gives")
    assert node.outcome == dataclasses.replace(before, step=node.processed)


def test_a_dispute_in_the_middle_of_a_shuffle_is_audited_as_far_as_it_went() -> None:
    """A seat accuses falsely while a deck is being shuffled: every seat reveals, the audit
    checks the shuffle's steps so far (no card of it was dealt) and names the accuser; before,
    auditing an unfinished shuffle crashed the node."""
    accuse_mid_shuffle("I do not like this deck")


def accuse_mid_shuffle(words: str, events: list[str] | None = None) -> None:
    """Seat 1 accuses with ``words`` in its commitment of the second deck: every honest node
    names it for a false accusation (``events``: the dispute texts nodes 0 and 2 showed)."""
    table = LocalTable(Options(3, target=20), seed="mid-shuffle")
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes | None:
        f = fields(raw)
        body = f["body"]
        s = table.sessions[1]
        if sender != 1 or done or s.deck_no < 2 or not isinstance(body, dict):
            return raw
        if "commitment" not in body:
            return raw
        done.append(True)
        return resign(table, raw, body={**body, "dispute": words})

    if events is not None:
        for i in (0, 2):
            table.sessions[i].events = _Recorder(events)
    SimNet(table, "mid", hostile(tamper, 1)).run()
    assert done
    same_verdict(table, [0, 2], 1, "false accusation")


# ------------------------------------------------ found by an attack on the node (2026-11-26)
def test_a_show_in_the_commitment_step_names_its_sender_on_every_node() -> None:
    """The last responder of a shuffle's commitment step adds a show of its keys to the
    proposer (whose public key it takes from the proposal): the commitments are not all in,
    so no one can check it. Before, the recipient's show opening raised, its state went half
    past the step, and it named the next proposer (an honest seat) at fault; now every honest
    node names the sender, publicly and the same way."""
    n, cheat = 3, 2
    table = LocalTable(Options(n, target=20), seed="show-early")
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes | None:
        f = fields(raw)
        body = f["body"]
        if sender != cheat or done or f["role"] != "response" or not isinstance(body, dict):
            return raw
        if "commitment" not in body:
            return raw
        me = table.sessions[cheat]
        proposal = me.log.proposal(f["seq"])
        mine = me.shuffles[-1].mine
        assert proposal is not None and mine is not None and isinstance(proposal[1].body, dict)
        target = proposal[1].author
        pub = KeyCommitment.from_obj(proposal[1].body["commitment"]).x25519_public
        done.append(True)
        show = mine.show(pub, target, [0])
        return resign(table, raw, body={**body, "shows": [show.to_obj()]})

    SimNet(table, "show-early", hostile(tamper, cheat)).run()
    assert done
    same_verdict(table, [0, 1], cheat, "commitments are not all in")


def test_a_shuffle_pass_that_also_carries_a_commitment_names_its_proposer() -> None:
    """A shuffle pass (after the commitments) whose body also carries a commitment: refused
    at once and its proposer named (before, every honest responder failed an internal check
    making its response and the table stalled until the stop vote, naming no one)."""
    n, cheat = 3, 1
    table = LocalTable(Options(n, target=20), seed="pass-commit")
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes | None:
        f = fields(raw)
        body = f["body"]
        if sender != cheat or done or f["role"] != "proposal" or not isinstance(body, dict):
            return raw
        if f["kind"] != "shuffle" or "step" not in body:
            return raw
        done.append(True)
        return resign(table, raw, body={**body, "commitment": {"x": 1}})

    SimNet(table, "pass-commit", hostile(tamper, cheat)).run()
    assert done
    same_verdict(table, [0, 2], cheat, "also carries a commitment")


def test_a_dispute_text_reaches_the_terminals_printable_and_short() -> None:
    """A seat's dispute words are shown on every player's terminal: terminal escape codes
    and a page of text are not passed on as they are (a hostile seat could redraw another
    player's screen); the verdict is the same as for any false accusation."""
    words = "\x1b[2J\x1b[31mYOU LOST\x1b[0m " + "x" * 500
    events: list[str] = []
    accuse_mid_shuffle(words, events)
    shown = [t for t in events if t.startswith("seat 1: ")]
    assert shown and all(t.isprintable() and len(t) <= 220 for t in shown), shown


class _Recorder(list):  # type: ignore[type-arg]
    """A session's event list that also keeps the text of every dispute event."""

    def __init__(self, into: list[str]) -> None:
        super().__init__()
        self.into = into

    def append(self, ev: Any) -> None:
        if ev.kind == "dispute":
            self.into.append(ev.text)
        super().append(ev)


@pytest.mark.parametrize(
    "point",
    [
        "00" * 32,  # the identity
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",  # order 8
    ],
)
def test_a_commitment_to_a_weak_x25519_key_names_its_seat_never_crashes_a_node(
    point: str,
) -> None:
    """A seat commits to a point of small order as the key its cards are shown to: every
    exchange with it gives the all-zero secret, which pyca refuses with a ValueError. Before,
    that error came out of every honest node the first time it had to show that seat a card
    (a code review: every node stopped with an internal error, no one named, and a resume
    replayed into the same crash); now the commitment is refused and its seat named."""
    n, cheat = 3, 1
    table = LocalTable(Options(n, target=20), seed="weak-x25519")
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes | None:
        f = fields(raw)
        body = f["body"]
        if sender != cheat or not isinstance(body, dict) or "commitment" not in body:
            return raw
        done.append(True)
        weak = {**body["commitment"], "x25519_public": point}
        return resign(table, raw, body={**body, "commitment": weak})

    SimNet(table, "weak-x25519", hostile(tamper, cheat)).run()
    assert done
    same_verdict(table, [0, 2], cheat, "weak X25519 key")


def test_a_votes_words_reach_the_terminals_printable_and_short() -> None:
    """helper-25: a seat signed a vote naming 3 KB of text with terminal escapes as the seats
    it waited for, and every honest screen printed it whole; an empty list read "waiting for
    )". The vote still counts (spec 10.15: members that are not seat numbers are ignored).
    helper-47: [0] * 1800 (under the 4 KB cap) made a 9,000-character line: each seat is said
    once, and only seats."""
    junk = "\x1b[2J\x1b[31mAnn is at fault\u202e" + "X" * 3000
    said: list[str] = []
    for waiting in ([junk], [], [0] * 1800 + [7]):
        table = LocalTable(Options(2, target=20), seed="vote-words", tamper=quiet_after(40))
        table.run()
        ann, evil = table.sessions
        assert evil.identity is not None
        for h in evil.log.hashes():  # (what it holds, so that its vote's parents are there)
            ann.receive(evil.log.raw(h))
        ann.receive(evil.log.vote(evil.identity, 1, "stop", {"waiting": waiting}))
        said += [ev.text for ev in ann.events if ev.kind == "vote" and "seat 1" in ev.text[:6]]
    assert len(said) == 3 and all(t.isprintable() and len(t) <= 140 for t in said), said
    assert said[1].endswith("(waiting for no one)")
    assert said[2] == "seat 1 votes to stop (waiting for seat 0)", said


def test_a_vote_that_crossed_anothers_says_so() -> None:
    """helper-26: the host read "Bot-1 votes to stop (waiting for Host)" as blame, though the
    host had voted too: the two votes crossed on the way (spec 10.15: a voter names every seat
    it holds no vote of). A seat named that has voted here is said to have voted too."""
    table = LocalTable(Options(3, target=20), seed="crossed-votes", tamper=quiet_after(60))
    table.run()
    host, bot, _gone = table.sessions
    assert bot.identity is not None
    for h in bot.log.hashes():
        host.receive(bot.log.raw(h))
    assert host.stop([2])  # (its deadline passed: it names seat 2)
    host.receive(bot.log.vote(bot.identity, 1, "stop", {"waiting": [0, 2]}))
    said = [ev.text for ev in host.events if ev.kind == "vote" and ev.seat == 1]
    # (each vote's event carries its author's seat, which the words tell "You vote" by)
    assert {ev.seat for ev in host.events if ev.kind == "vote"} == {0, 1}
    # (no brackets in brackets: helper-92 read "waiting for seat 0 (voted too: the votes
    # crossed), seat 2" as hard to follow)
    assert said == [
        "seat 1 votes to stop (waiting for seat 2; seat 0 voted too: the votes crossed)"
    ]
    # a vote that waited only for seats that voted too
    host.receive(bot.log.vote(bot.identity, 1, "stop", {"waiting": [0]}))
    said = [ev.text for ev in host.events if ev.kind == "vote" and ev.text.startswith("seat 1")]
    assert said[-1].endswith(" to stop (waiting for seat 0, who voted too: the votes crossed)")


def test_a_node_that_takes_its_input_in_bursts_joins_the_votes_once_the_burst_is_in() -> None:
    """Spec 10.15: a node that takes a vote joins, naming every seat that has not voted. A
    SYNC's answer brings a late seat the step, then every vote held, one entry at a time:
    joined inside the first vote's processing, its signed vote named the seat whose vote came
    next (helper-97: "Host and Cy waited for Bob; Bob waited for Cy", Cy had voted). A node
    sets ``defer_join`` and joins by ``join_votes`` once its input is in; the stop waits for
    that join (this seat's vote is part of it)."""
    table = LocalTable(Options(3, target=20), seed="late-join", tamper=quiet_after(60))
    table.run()
    host, cy, bob = table.sessions  # Bob, seat 2, is the one away
    for h in cy.log.hashes():
        host.receive(cy.log.raw(h))
    assert host.stop([2])  # (its deadline passed while it waited for Bob)
    for h in host.log.hashes():
        cy.receive(host.log.raw(h))  # Cy joins at once (its input: one vote), naming Bob
    cy_vote = cy.log.raw(cy.log.vote_hashes(1)[0])
    bob.defer_join = True
    for h in host.log.hashes():
        if host.log.entry(h).role.value != "vote":
            bob.receive(host.log.raw(h))  # the step, then every vote held
    bob.receive(host.log.raw(host.log.vote_hashes(0)[0]))
    assert bob.join_due and not bob.voted  # (not inside the first vote: Cy's is next)
    bob.receive(cy_vote)
    assert bob.outcome.state == "stopping"  # (its own vote is part of the stop)
    bob.join_votes()
    assert bob.voted and not bob.join_due
    mine = bob.log.votes()[2][1]
    assert mine.body == {"waiting": []}  # (both others voted: it waited for nobody)
    o = bob.outcome
    assert o.state == "stopped" and o.silent == () and o.waited[2] == (), o
    said = outcome_words(o, ["Host", "Cy", "Bob"])
    assert "by every seat's vote (" in said and "Bob waited" not in said, said


@pytest.mark.parametrize(
    "how", ["no secrets", "two versions", "junk member", "bad releases", "bad shows", "dispute"]
)
def test_a_loser_who_spoils_the_last_reveal_is_named_and_the_win_stands(how: str) -> None:
    """002 · Scoring, spec 10.15 "What it gives" and 10.16. helper-37: the loser of the last
    round sent its part of the game's last reveal without its secrets (or signed two of it):
    named a cheat, and the round void, the winner's win taken away, where going silent would
    have left it standing. A seat's fault in its own part of a round's end-of-deck reveal now
    counts the round as silence there does: the cheat is named, the round and the win stand
    (unless the cheat is the round's winner)."""
    options = Options(2, target=25)
    honest = LocalTable(options, seed="sore-loser")
    honest.run()
    fair = honest.sessions[0].outcome
    assert fair.state == "finished" and len(fair.winners) == 1
    loser = 1 - fair.winners[0]
    table = LocalTable(options, seed="sore-loser")
    spoiled: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes | list[tuple[bytes, list[int]]]:
        s, f = table.sessions[sender], fields(raw)
        body = f["body"]
        if spoiled or s.engine.phase is not Phase.GAME_OVER or "secrets" not in body:
            return raw
        spoiled.append(True)
        if how == "no secrets":
            return resign(table, raw, body={k: v for k, v in body.items() if k != "secrets"})
        if how == "two versions":
            other = resign(table, raw, body={**body, "secrets": body["secrets"][:-1]})
            return [(raw, [0, 1]), (other, [0, 1])]
        # (helper-41: any other fault of its own reveal entry voided the round all the same)
        spoil = {
            "junk member": {"note": "gg"},
            "bad releases": {"releases": [{"type": "nonsense"}]},
            "bad shows": {"shows": 7},
            "dispute": {"dispute": "my hand was wrong"},  # (a false accusation)
        }[how]
        return resign(table, raw, body={**body, **spoil})

    config = NetConfig(delay=(0, 20), tamper=tamper, hostile={loser})
    SimNet(table, "sore-loser", config).run()
    assert spoiled
    same = {table.sessions[i].outcome for i in range(2)}
    assert len(same) == 1, same
    (o,) = same
    assert o.state == "cheat" and o.blame is not None and o.blame.seat == loser, o
    assert o.winners == fair.winners and o.scores == fair.scores and not o.void, o
    names = [p.name for p in table.sessions[0].log.players]
    said = outcome_words(o, names)
    assert "cheated" in said and f"{names[fair.winners[0]]} wins" in said, said


@pytest.mark.parametrize("pad", ["junk", "ack secrets", "dispute"])
def test_a_body_padded_with_a_member_of_no_kind_names_its_author(pad: str) -> None:
    """spec 10.3 (helper-37, helper-41): a seat padded every entry it signed with junk: a
    member of no body, a "secrets" in an answer to a step that asks for none, a "dispute"
    that is not text; each was ignored and kept, and every node stored and relayed 46 MB of
    it in a game to 100, naming nobody. Each is now its author's fault."""
    n, cheat = 3, 1
    table = LocalTable(Options(n, target=50), seed="padded")
    padded: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes:
        f = fields(raw)
        body = f["body"]
        if sender != cheat or f["seq"] < 30 or padded or not isinstance(body, dict):
            return raw
        if pad == "ack secrets" and (f["role"] != "response" or "secrets" in body):
            return raw
        padded.append(True)
        extra = {
            "junk": {"junk": "x" * 1000},
            "ack secrets": {"secrets": []},
            "dispute": {"dispute": 7},
        }
        return resign(table, raw, body={**body, **extra[pad]})

    SimNet(table, "padded", hostile(tamper, cheat)).run()
    assert padded
    words = {
        "junk": ("has no use for", "'junk'"),
        "ack secrets": ("has no use for", "'secrets'"),
        "dispute": ("a dispute is a line of text",),
    }[pad]
    same_verdict(table, [0, 2], cheat, *words)


def test_the_members_a_body_may_hold_are_the_schemas() -> None:
    """spec 10.3: the members each kind's body may hold, as the session checks them, are the
    ones protocol/schemas/session-<kind>.json lists (and it allows no other)."""
    import json

    from p2puno.session.session import BODY_COMMON, BODY_MEMBERS

    schemas = Path(__file__).resolve().parents[2] / "protocol" / "schemas"
    for kind, members in BODY_MEMBERS.items():
        schema = json.loads((schemas / f"session-{kind}.json").read_text())
        assert set(schema["properties"]) == BODY_COMMON | members, kind
        assert schema["additionalProperties"] is False, kind


def test_a_winner_who_spoils_an_old_reveal_after_the_end_never_wins() -> None:
    """spec 10.16 (helper-41): the game's winner signed a second version of its part of the
    reveal of an earlier round it had lost, after the game was over. The verdict moves to that
    step; the round counted there, with the winners taken from the engine as it stood at the
    end: the cheat was named and declared the winner. A spoiled reveal's round counts as it
    stood at its own end (no winner then), and a cheat never wins."""
    options = Options(3, target=100)
    table = LocalTable(options, seed="old-reveal-5")
    table.run(prune_keep=100)
    first = table.sessions[0]
    fair = first.outcome
    assert fair.state == "finished" and len(fair.winners) == 1
    w = fair.winners[0]
    lost = [r for r, e in sorted(first._round_ends.items()) if e[1] != w]
    assert lost
    log = table.sessions[w].log
    mine = [
        h for h in log.hashes() if log.entry(h).seq == lost[-1] + 1 and log.entry(h).author == w
    ]
    assert mine, "the reveal was pruned: pick another seed"
    body = log.entry(mine[0]).body
    assert isinstance(body, dict)
    second = resign(table, log.raw(mine[0]), body={**body, "dispute": "x"})
    outcomes = set()
    for s in table.sessions:
        if s.seat != w:
            with contextlib.suppress(SessionError):
                s.receive(second)
            outcomes.add(s.outcome)
    assert len(outcomes) == 1, outcomes
    (o,) = outcomes
    assert o.state == "cheat" and o.blame is not None and o.blame.seat == w, o
    assert w not in o.winners, o


def test_the_game_winner_who_did_not_go_out_cannot_spoil_its_last_reveal_and_win() -> None:
    """003 · Lowest score (house scoring) with spec 10.16 (helper-41): the game's winner had
    not gone out in the last round (the lowest score wins the game); it spoiled its part of the
    last reveal and, not being "the round's winner", kept the win. A seat that won the round
    or the game spoils its reveal to no profit: the round is void."""
    options = Options(3, target=30, scoring="lowest")
    honest = LocalTable(options, seed="low9")
    honest.run()
    fair = honest.sessions[0].outcome
    (w,) = fair.winners
    assert honest.sessions[0]._round_ends[max(honest.sessions[0]._round_ends)][1] != w
    table = LocalTable(options, seed="low9")
    spoiled: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes:
        s, f = table.sessions[sender], fields(raw)
        body = f["body"]
        if spoiled or s.engine.phase is not Phase.GAME_OVER or "secrets" not in body:
            return raw
        spoiled.append(True)
        return resign(table, raw, body={k: v for k, v in body.items() if k != "secrets"})

    SimNet(table, "low9", NetConfig(delay=(0, 20), tamper=tamper, hostile={w})).run()
    assert spoiled
    same_verdict(table, [s for s in range(3) if s != w], w, "must carry its secrets")
    o = table.sessions[(w + 1) % 3].outcome
    assert o.void and o.winners == (), o


@pytest.mark.parametrize("which", ["accept", "last play"])
def test_a_loser_who_signs_a_second_version_of_an_old_entry_leaves_the_result(which: str) -> None:
    """002 · Scoring with spec 10.16 (helper-47): after losing, even after the game was over,
    a seat signed a second version of one of its old entries (its accept of the genesis, or
    its answer to the step that ended the last round). The verdict was dated at that step and
    every round after it was void: no winner, scores back to zero. The chain was built on one
    version (every seat signed a later step over it), so nothing played changed: the cheat is
    named and the result stands."""
    table = LocalTable(Options(2, target=300), seed="a1")
    table.run()
    winner_node = table.sessions[0]
    fair = winner_node.outcome
    assert fair.state == "finished" and len(fair.winners) == 1
    (w,) = fair.winners
    loser = 1 - w
    log = table.sessions[loser].log
    seq = 0 if which == "accept" else max(winner_node._round_ends)
    (h,) = [h for h in log.hashes() if log.entry(h).seq == seq and log.entry(h).author == loser]
    body = log.entry(h).body
    assert isinstance(body, dict)
    second = resign(table, log.raw(h), body={**body, "dispute": "x"})
    with contextlib.suppress(SessionError):
        table.sessions[w].receive(second)
    o = table.sessions[w].outcome
    assert o.state == "cheat" and o.blame is not None and o.blame.seat == loser, o
    assert "equivocation" in o.blame.reason and o.blame.step == seq, o
    assert o.winners == fair.winners and o.scores == fair.scores and not o.void, o


def test_a_loser_who_signs_two_votes_at_the_last_reveal_leaves_the_win() -> None:
    """002 · Scoring with spec 10.15-10.16 (helper-47): at the game's last reveal the loser
    signed two votes that do not amend one another instead of its part: two votes are
    evidence, and the round was void, though the loser's silence there (or a spoiled reveal)
    leaves the win standing. Votes are no entry of a step: the win stands."""
    options = Options(2, target=25)
    table = LocalTable(options, seed="sore-loser")
    w, loser = 0, 1
    done: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes | list[tuple[bytes, list[int]]]:
        s, body = table.sessions[sender], fields(raw)["body"]
        if done or "secrets" not in body or s.engine.phase is not Phase.GAME_OVER:
            return raw
        done.append(True)
        me = table.sessions[sender]
        assert me.identity is not None
        me._maybe_produce = lambda: False  # type: ignore[method-assign]
        a = me.log.vote(me.identity, sender, "stop", {"waiting": [0]})
        b = me.log.vote(me.identity, sender, "stop", {"waiting": [5]})
        return [(a, [w]), (b, [w])]

    SimNet(table, "a1b", NetConfig(delay=(0, 20), tamper=tamper, hostile={loser})).run()
    assert done
    o = table.sessions[w].outcome
    assert o.state == "cheat" and o.blame is not None and o.blame.seat == loser, o
    assert o.winners == (w,) and not o.void, o


@pytest.mark.parametrize("where", ["its last play", "the reveal, then silence", "the reveal"])
def test_a_false_dispute_at_the_end_of_a_lost_game_leaves_the_win(where: str) -> None:
    """002 · Scoring with spec 10.8, 10.10 and 10.16 (helper-47): the loser put a dispute in
    its entry of the step that ended the game's last round, or in its part of that round's
    reveal and then went silent at the second reveal the dispute asked for. The round was
    void (nobody won) where the same dispute in the reveal, answered, left it standing. A
    dispute raised in a reveal whose audit has just passed is judged at once (that audit had
    every secret); one raised at the round's last play is judged by the reveal, and either
    way the round counts as it stood at its end: the accuser is named and the win stands."""
    options = Options(2, target=25)
    honest = LocalTable(options, seed="sore-loser")
    honest.run()
    fair = honest.sessions[0].outcome
    (w,) = fair.winners
    loser = 1 - w
    last_play = max(honest.sessions[0]._round_ends)
    table = LocalTable(options, seed="sore-loser")
    state = {"disputed": False, "gone": False}

    def tamper(sender: int, raw: bytes) -> bytes:
        s, f = table.sessions[sender], fields(raw)
        body = f["body"]
        if where == "its last play":
            if state["disputed"] or f["seq"] != last_play:
                return raw
        elif "secrets" not in body or s.engine.phase is not Phase.GAME_OVER:
            return raw
        if state["disputed"]:
            state["gone"] = True  # (its part of the dispute's own reveal: withheld)
            return raw
        state["disputed"] = True
        return resign(table, raw, body={**body, "dispute": "my hand was wrong"})

    def silence(seat: int, raw: bytes) -> bool:
        return where == "the reveal, then silence" and seat == loser and state["gone"]

    config = NetConfig(delay=(0, 20), tamper=tamper, hostile={loser}, silence=silence)
    SimNet(table, "a5", config).run()
    assert state["disputed"]
    o = table.sessions[w].outcome
    assert o.state == "cheat" and o.blame is not None and o.blame.seat == loser, o
    assert "false accusation" in o.blame.reason, o
    assert o.winners == fair.winners and o.scores == fair.scores and not o.void, o


@pytest.mark.parametrize("pad", ["response kind", "claim", "step in a commitment"])
def test_members_no_check_looked_at_name_their_author(pad: str) -> None:
    """spec 10.2-10.3 (helper-47): padding that got past the strict bodies: a response of a
    kind other than "ack" (its members were looked at by nobody), a claim that is no boolean
    (200 KB of text), a shuffle step carried in a commitment step (nothing read it)."""
    n = 3
    cheat = 0 if pad == "step in a commitment" else 1
    table = LocalTable(Options(n, target=20), seed="a2")
    padded: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes:
        f = fields(raw)
        body = f["body"]
        if sender != cheat or padded or not isinstance(body, dict):
            return raw
        if pad == "response kind" and f["role"] == "response" and f["seq"] > 0:
            padded.append(True)
            return resign(table, raw, kind="zz", body={**body, "junk": "x" * 1000})
        if pad == "claim" and "claim" in body and body["claim"] is not True:
            padded.append(True)
            return resign(table, raw, body={**body, "claim": "x" * 1000})
        if pad == "step in a commitment" and f["role"] == "proposal" and "commitment" in body:
            padded.append(True)
            return resign(table, raw, body={**body, "step": {"junk": "x" * 1000}})
        return raw

    SimNet(table, "a2", NetConfig(delay=(0, 20), tamper=tamper, hostile={cheat})).run()
    assert padded
    words = {
        "response kind": 'is an "ack", not "zz"',
        "claim": "a claim is true or false",
        "step in a commitment": "also carries a shuffle step",
    }[pad]
    same_verdict(table, [s for s in range(n) if s != cheat], cheat, words)


def test_an_accept_holds_nothing() -> None:
    """spec 10.2 (helper-47): the genesis step's accept has an empty body, which nobody read:
    a seat could pad it. It is its author's fault now."""
    table = LocalTable(Options(2, target=20), seed="accept")
    padded: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes:
        f = fields(raw)
        if sender != 1 or f["kind"] != "accept":
            return raw
        padded.append(True)
        return resign(table, raw, body={"junk": "x" * 1000})

    SimNet(table, "accept", NetConfig(delay=(0, 20), tamper=tamper, hostile={1})).run()
    assert padded
    same_verdict(table, [0], 1, "an accept's body is empty")


def test_two_votes_before_the_game_begins_name_their_author() -> None:
    """spec section 7 and 10.15 (helper-49): a seat signed two votes at step 0, before every
    seat had accepted; the session raised StopIteration out of receive (and `p2puno replay`
    of the file died), where it names the seat."""
    table = LocalTable(Options(3, target=25), seed="e6")
    s0, s1, _ = table.sessions
    assert s1.identity is not None and s0.processed == -1
    for waiting in ([2], [0]):  # (neither amends the other)
        s0.receive(s1.log.vote(s1.identity, 1, "stop", {"waiting": waiting}))
    o = s0.outcome
    assert o.state == "cheat" and o.blame is not None and o.blame.seat == 1, o
    assert o.scores == (0, 0, 0) and o.winners == (), o


def test_a_false_dispute_at_the_last_play_before_the_hands_are_shown_leaves_the_win() -> None:
    """002 · Scoring with spec 10.10 and 10.16 (helper-49): the loser put a dispute in its
    answer to the round's real last play, one step before the sync that shows every hand. The
    dispute's reveal came with the hands still unshown, the full-information audit's engine
    had scored the round and the game's had not: every node stopped on an internal error (the
    replay too). The audit now shows the game's engine the faces it waits on; the accusation
    is false and the round counts."""
    options = Options(2, target=25)
    honest = LocalTable(options, seed="sore-loser")
    honest.run()
    first = honest.sessions[0]
    fair = first.outcome
    end = max(first._round_ends)
    proposals = {e.seq: e for _, e in first.log if e.role is Role.PROPOSAL}
    last_play = max(q for q in proposals if q <= end and proposals[q].kind == "action")
    assert last_play < end  # (the hands' sync comes between)
    (w,) = fair.winners
    loser = 1 - w
    table = LocalTable(options, seed="sore-loser")
    disputed: list[bool] = []

    def tamper(sender: int, raw: bytes) -> bytes:
        f = fields(raw)
        if disputed or f["seq"] != last_play:
            return raw
        disputed.append(True)
        return resign(table, raw, body={**f["body"], "dispute": "my hand was wrong"})

    SimNet(table, "e3", NetConfig(delay=(0, 20), tamper=tamper, hostile={loser})).run()
    assert disputed
    o = table.sessions[w].outcome
    assert o.state == "cheat" and o.blame is not None and o.blame.seat == loser, o
    assert "false accusation" in o.blame.reason, o
    assert o.winners == fair.winners and o.scores == fair.scores and not o.void, o


def test_a_colluders_second_vote_does_not_undo_a_stop_that_voided_a_silent_winners_round() -> None:
    """spec 10.15-10.16 (helper-49): the round's winner kept its secrets from the game's last
    reveal, and the stop voided its round; its colluder then signed a second vote, and the
    equivocation counted the round as it stood at its end: the silent winner won, unaudited.
    A stop already decided is what counts (the cheat named)."""
    options = Options(3, target=25)
    table = LocalTable(options, seed="sore-loser")
    honest_run = LocalTable(options, seed="sore-loser")
    honest_run.run()
    (w,) = honest_run.sessions[0].outcome.winners
    others = [s for s in range(3) if s != w]
    colluder, honest = others[-1], others[0]

    def silence(seat: int, raw: bytes) -> bool:
        body = fields(raw)["body"]
        phase = table.sessions[seat].engine.phase
        reveal = isinstance(body, dict) and "secrets" in body
        return seat == w and reveal and phase is Phase.GAME_OVER

    SimNet(table, "e5", NetConfig(delay=(0, 20), deadline=3000, silence=silence)).run()
    h = table.sessions[honest]
    assert h.outcome.state == "stopped" and h.outcome.void and h.outcome.winners == ()
    c = table.sessions[colluder]
    (vote,) = c.log.vote_hashes(colluder)
    second = resign(table, c.log.raw(vote), body={"waiting": [honest]})
    with contextlib.suppress(SessionError):
        h.receive(second)
    o = h.outcome
    assert o.state == "cheat" and o.blame is not None and o.blame.seat == colluder, o
    assert o.winners == () and o.void, o


def test_an_earlier_builds_log_whose_proposer_kept_its_secrets_names_the_proposer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """spec 10.10 (helper-75): a log of the build that revealed a whole deck in one step, in
    which seat 0 proposed the deck's reveal with no secrets: that build named seat 0
    (`missing-reveal`); read by this one, the honest responder, which revealed the whole deck,
    was named instead ("outside this step's") and the round went void. A response may reveal
    more of the deck, and a proposal that reveals nothing ends the deck's reveal there."""
    import p2puno.session.session as session_module
    from p2puno.log import append_entry

    monkeypatch.setattr(session_module, "REVEAL_SHUFFLES", 1000)  # (the earlier build's step)
    table = LocalTable(Options(2, target=20), seed="r4", bots=["random", "random"])

    def keep_secrets(sender: int, raw: bytes) -> bytes:
        f = fields(raw)
        if sender != 0 or f["kind"] != "reveal" or table.sessions[0].deck_no < 2:
            return raw
        return resign(table, raw, body={**f["body"], "secrets": []})

    table.tamper = keep_secrets
    table.run()
    live = table.sessions[1].outcome
    assert live.state == "cheat" and table.sessions[1].blame is not None
    assert table.sessions[1].blame.seat == 0 and "missing-reveal" in table.sessions[1].blame.reason
    path = tmp_path / "earlier.log"
    for raw in table.entries:
        append_entry(path, raw, fsync=False)
    monkeypatch.setattr(session_module, "REVEAL_SHUFFLES", 2)  # (this build's)
    result = replay(path)
    assert str(result.outcome) == str(live), (result.outcome, live)


def test_a_reveal_of_more_shuffles_than_the_table_allows_is_its_authors_fault(
    tmp_path: Path,
) -> None:
    """spec 10.10 (helper-78): a reveal step's responders reveal the shuffles its proposal
    reveals, so a proposer revealing many made every honest responder sign as many (with the
    keys a dispute's reveal also owes, over the entry cap: its own log refused it and its node
    stopped, nobody named). A table's genesis options set `reveal`, the most a step carries:
    seat 0 revealing two where the table allows one is named on the proposal's arrival, and
    the honest seat does not answer it; the replay says the same. A log with no `reveal` (an earlier
    build's) still takes any number."""
    from p2puno.log import append_entry

    def two_at_once(table: LocalTable) -> Callable[[int, bytes], bytes]:
        def tamper(sender: int, raw: bytes) -> bytes:
            f = fields(raw)
            s = table.sessions[0]
            if sender != 0 or f["kind"] != "reveal" or f["role"] != "proposal":
                return raw
            part = range(s._reveal_from, s._reveal_from + 2)
            if part.stop > len(s.shuffles):
                return raw  # (a deck of one shuffle: nothing more to reveal)
            return resign(table, raw, body={**f["body"], "secrets": s._my_secrets(part)})

        return tamper

    table = LocalTable(Options(2, target=20), seed="r4", bots=["random", "random"], reveal=1)
    table.tamper = two_at_once(table)
    table.run()
    live = table.sessions[1].outcome
    blame = table.sessions[1].blame
    assert live.state == "cheat" and blame is not None and blame.seat == 0, live
    assert "its reveal carries 2 shuffles: at most 1 to a step" in blame.reason, blame
    # found on arrival (spec 10.7.1): the honest seat released nothing in answer (helper-82:
    # judged when the step was taken, one silent seat made the proposer's fault a stop)
    entries = [fields(raw) for raw in table.entries]
    assert [f["kind"] for f in entries if f["seq"] == blame.step] == ["reveal"], blame
    path = tmp_path / "two.log"
    for raw in table.entries:
        append_entry(path, raw, fsync=False)
    assert str(replay(path).outcome) == str(live)
    # the same play at a table that set no `reveal`: taken as a larger part, no fault
    legacy = LocalTable(Options(2, target=20), seed="r4", bots=["random", "random"])
    legacy.tamper = two_at_once(legacy)
    legacy.run()
    assert legacy.sessions[1].outcome.state == "finished", legacy.sessions[1].outcome
