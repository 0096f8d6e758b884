"""A node's memory does not grow with the length of the game (issue: play over the network,
"Memory"): ``Log.prune`` drops every processed step but the last few, structure and hashes
included, and a pruned session plays on exactly as one that keeps everything.

protocol/spec.md 4 (steps: a proposal, then one response from every other seat): a pruned step
is complete, so a later copy of one of its entries is a duplicate or a second version that no
seat can use; both are dropped unread (docs/architecture.md, "Pruned steps leave memory entirely").
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import p2puno.log.log as log_module
from p2puno.engine import Options
from p2puno.log import Identity, Role, Status
from p2puno.log.entry import Entry, entry_hash, sign_entry
from p2puno.session.harness import LocalTable
from p2puno.wire import decode


def _played(players: int, target: int, seed: str, keep: int | None) -> LocalTable:
    table = LocalTable(Options(players, True, True, True, target=target), seed=seed)
    table.run(prune_keep=keep)
    return table


def _state(table: LocalTable) -> list[tuple[bytes, str, int]]:
    return [(s.engine.digest(), str(s.outcome), len(s.log)) for s in table.sessions]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keep=st.integers(min_value=2, max_value=40), seed=st.sampled_from(["p1", "p2", "p3"]))
def test_a_pruned_table_plays_the_same_game(keep: int, seed: str) -> None:
    """Same seed, same entries in the same order, same engine digest and verdict on every
    seat, whether the sessions prune or not (the session never reads a processed step)."""
    entries, state = _unpruned(seed)
    pruned = _played(3, 60, seed, keep)
    assert pruned.entries == entries
    assert _state(pruned) == state
    for s in pruned.sessions:
        assert s.log.pruned_before > 0
        assert s.log.genesis_raw == entries[0]


@functools.cache
def _unpruned(seed: str) -> tuple[list[bytes], list[tuple[bytes, str, int]]]:
    """The game of ``seed`` played without pruning (once per seed: the examples share it)."""
    whole = _played(3, 60, seed, None)
    return list(whole.entries), _state(whole)


def test_memory_held_is_bounded_by_the_window_not_the_game() -> None:
    """What a pruned log holds in memory stays under a bound set by the window (and the
    recent-hash ring), however long the game runs; the count of entries taken still counts
    them all."""
    keep = 10
    table = LocalTable(Options(4, True, True, True, target=150), seed="bounded")
    peak = {"raw": 0, "order": 0, "steps": 0}
    original = table.sessions[0].log.prune

    def watch(before: int) -> int:
        gone = original(before)
        log = table.sessions[0].log
        peak["raw"] = max(peak["raw"], len(log._raw))
        peak["order"] = max(peak["order"], len(log._order))
        peak["steps"] = max(peak["steps"], len(log._proposals))
        return gone

    table.sessions[0].log.prune = watch  # type: ignore[method-assign]
    table.run(prune_keep=keep)
    log = table.sessions[0].log
    assert len(log) == len(table.entries)  # every entry routed, pruned ones included
    steps = log.head + 1
    assert steps > 40 * keep  # a long game against the window
    # at most 2*keep+2 steps of 4 entries each are held, after a prune
    assert peak["steps"] <= 2 * keep + 2
    assert peak["raw"] <= (2 * keep + 2) * 4 + 4  # (+ the votes, at most one a seat)
    assert peak["order"] <= peak["raw"]
    assert len(log._gone) <= log_module.RECENT_GONE


@pytest.fixture
def small_ring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_module, "RECENT_GONE", 8)


def test_an_old_copy_is_a_duplicate_or_stale_and_a_second_version_blames_nobody(
    small_ring: None,
) -> None:
    """protocol/spec.md 4: a copy of a recently pruned entry is a DUPLICATE (still known by
    hash); an older one is STALE; a re-signed second version of a pruned step's response is
    STALE too (no evidence, no verdict: the step was settled by every seat's answer), and the
    session takes it without error."""
    table = _played(3, 40, "old", 5)
    s = table.sessions[1]
    log = s.log
    assert log.pruned_before > 20
    recent = [raw for raw in table.entries if entry_hash(raw) in log._gone]
    assert recent and len(recent) <= 8
    assert log.add(recent[-1]).status is Status.DUPLICATE
    old = next(
        raw
        for raw in table.entries[1:]
        if Entry.from_obj(decode(raw)).seq < log.pruned_before - 5
        and Entry.from_obj(decode(raw)).role is Role.RESPONSE
        and not log.knows(entry_hash(raw))
    )
    assert log.add(old).status is Status.STALE
    e = Entry.from_obj(decode(old))
    other = Identity.from_test_seed(f"old/id/{e.author}".encode())
    second = sign_entry(
        other,
        game=e.game,
        seq=e.seq,
        author=e.author,
        role=e.role,
        kind=e.kind,
        prev=list(e.prev),
        body={"releases": [], "shows": [], "note": "a second version"},
    )
    assert second != old
    before = (len(log.evidence), s.outcome)
    assert log.add(second).status is Status.STALE
    s.receive(second)  # the session takes it without error
    assert (len(log.evidence), s.outcome) == before


def test_what_stays_after_pruning() -> None:
    """The genesis, the votes, the count of entries, and the acceptance-order index."""
    table = _played(3, 30, "stays", 4)
    log = table.sessions[2].log
    assert log.pruned_before > 0
    assert log.proposal(0) is None and log.responses(0) == {}
    assert log.step_complete(0) and log.step_complete(log.pruned_before - 1)
    assert log.genesis_raw == table.entries[0]
    assert log.genesis_hash == entry_hash(table.entries[0])
    # every index counts every entry taken; only those still held are listed
    assert log.memory_start > 0
    assert log.hashes(0) == log.hashes(log.memory_start)
    assert len(log.hashes(0)) == len(log) - log.memory_start
    # a vote after pruning names a step still held
    s = table.sessions[2]
    assert s.identity is not None
    vote = log.vote(s.identity, 2, "stop", {})
    assert Entry.from_obj(decode(vote)).seq >= log.pruned_before
