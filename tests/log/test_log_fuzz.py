"""Hostile input to Log.add: never a crash, never a hang, never a state change on rejection."""

from __future__ import annotations

import copy
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2puno.log import Log, LogError, Reason, Status
from p2puno.log.testing import build_game
from p2puno.wire import JSONValue, decode, encode

_GAME = build_game(3, 2)
# The log holds everything but the last step; candidates are the held-back entries.
_PREFIX = _GAME.entries[:-3]
_CANDIDATES = _GAME.entries[-3:] + _GAME.entries[:2]


def _fresh_log() -> Log:
    log = Log()
    for raw in _PREFIX:
        log.add(raw)
    return log


_BASE_LOG = _fresh_log()


def _snapshot(log: Log) -> object:
    return (list(log), log.head, log.evidence, [log.responses(s) for s in range(log.head + 1)])


def _copy(base: Log) -> Log:
    # A private copy of the mutable parts (the Log is not designed to be copied).
    log = copy.copy(base)
    log._raw = dict(base._raw)
    log._entries = dict(base._entries)
    log._order = list(base._order)
    log._proposals = list(base._proposals)
    log._responses = [dict(r) for r in base._responses]
    log._evidence = list(base._evidence)
    log._evidence_raw = dict(base._evidence_raw)
    return log


def _try(data: bytes) -> None:
    log = _copy(_BASE_LOG)
    before = _snapshot(log)
    start = time.thread_time()  # (CPU: a wait for a core under load is not the add's cost)
    try:
        result = log.add(data)
    except LogError as e:
        assert isinstance(e.reason, Reason)
        if e.reason is not Reason.EQUIVOCATION:
            assert _snapshot(log) == before
        else:
            raise AssertionError("a mutation cannot forge a second signed entry") from e
    else:
        if result.status is not Status.ADDED:
            assert _snapshot(log) == before
        else:
            # Only an untouched held-back entry can be added.
            assert data in _CANDIDATES
    assert time.thread_time() - start < 1.0


@st.composite
def byte_mutations(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(_CANDIDATES)))
    for _ in range(draw(st.integers(0, 3))):
        pos = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(["set", "xor", "delete", "insert"]))
        if op == "set":
            data[pos] = draw(st.integers(0, 255))
        elif op == "xor":
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "delete":
            del data[pos]
        else:
            data[pos:pos] = draw(st.binary(min_size=1, max_size=4))
    return bytes(data)


_FIELD_VALUES: list[JSONValue] = [
    None,
    True,
    0,
    1,
    2,
    -1,
    3,
    9,
    10,
    2**53 - 1,
    "",
    "proposal",
    "response",
    "genesis",
    "accept",
    "ack",
    "00" * 32,
    "00" * 64,
    [],
    ["00" * 32],
    {},
    {"a": 1},
]


@st.composite
def field_mutations(draw: st.DrawFn) -> bytes:
    obj = decode(draw(st.sampled_from(_CANDIDATES)))
    assert isinstance(obj, dict)
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from([*sorted(obj), "extra"]))
        action = draw(st.sampled_from(["replace", "delete", "swap"]))
        if action == "delete" and key in obj:
            del obj[key]
        elif action == "swap":
            donor = decode(draw(st.sampled_from(_GAME.entries)))
            assert isinstance(donor, dict)
            if key in donor:
                obj[key] = donor[key]
        else:
            obj[key] = draw(st.sampled_from(_FIELD_VALUES))
    return encode(obj)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(byte_mutations())
def test_byte_mutated_entries(data: bytes) -> None:
    _try(data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field_mutations())
def test_field_mutated_entries(data: bytes) -> None:
    _try(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes(data: bytes) -> None:
    _try(data)


def test_oversized_entry() -> None:
    _try(b"[" + b"0," * 200_000 + b"0]")
