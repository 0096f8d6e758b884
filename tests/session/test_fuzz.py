"""A hostile peer feeds a live session random and mutated entries.

The session may only ever raise :class:`SessionError`; it must answer at once (a time bound
per input); input that is refused (junk, unsigned or mis-signed bytes) must leave its log,
engine state and outbox exactly as they were; and validly signed garbage from a real seat
may end the game, but only with a blame on that seat.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2puno.engine import Options
from p2puno.log import Role, sign_entry
from p2puno.session import Session, SessionError
from p2puno.session.harness import LocalTable
from p2puno.wire import decode, encode

HOSTILE = 1
VICTIM = 0
SECONDS = 5  # per input: far above the normal cost of one entry


@contextmanager
def time_bound(seconds: int = SECONDS) -> Iterator[None]:
    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"the session did not answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def frozen(sends: int, seed: str = "fuzz") -> tuple[LocalTable, list[bytes]]:
    """A 2-player table stopped mid-game after ``sends`` entries were delivered; also every
    entry delivered so far (the material a hostile peer mutates)."""
    table = LocalTable(Options(2, target=60), seed=seed)
    seen: list[bytes] = []
    queue: list[tuple[int, bytes]] = []
    for i, s in enumerate(table.sessions):
        s.start()
        queue.extend((i, r) for r in s.outbox)
        s.outbox.clear()
    while queue and len(seen) < sends:
        sender, raw = queue.pop(0)
        seen.append(raw)
        for i, s in enumerate(table.sessions):
            if i != sender:
                s.receive(raw)
                queue.extend((i, r) for r in s.outbox)
                s.outbox.clear()
    for s in table.sessions:
        s.outbox.clear()
    return table, seen


def snapshot(s: Session) -> tuple[object, ...]:
    return (
        s.log.head,
        len(s.log),
        len(s.log.evidence),
        s.engine.digest(),
        s.blame,
        s.dispute,
        s.my_dispute,
        len(s.outbox),
        len(s.events),
    )


def feed_junk(s: Session, raw: bytes) -> None:
    """Refused or ignored input: only SessionError, and nothing changes."""
    before = snapshot(s)
    with time_bound(), suppress(SessionError):
        s.receive(raw)
    assert snapshot(s) == before


# Freeze points: inside the first joint shuffle, after the deal, and well into the round.
POINTS = [5, 30, 90]
TABLES = {k: frozen(k) for k in POINTS}


def mutate(rng: random.Random, raw: bytes) -> bytes:
    data = bytearray(raw)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        at = rng.randrange(len(data))
        if op == 0:
            data[at] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[at] = rng.randrange(256)
        elif op == 2:
            del data[at]
        elif op == 3:
            data.insert(at, rng.choice(b'{}[]",:0123456789abcdef-. \\\x00\xff'))
        else:
            end = min(len(data), at + rng.randint(1, 40))
            data[at:end] = data[at:end][::-1]
    return bytes(data)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@pytest.mark.parametrize("point", POINTS)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=600))
def test_random_bytes_change_nothing(point: int, data: bytes) -> None:
    feed_junk(TABLES[point][0].sessions[VICTIM], data)


@pytest.mark.parametrize("point", POINTS)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(value=json_values)
def test_random_json_changes_nothing(point: int, value: Any) -> None:
    feed_junk(TABLES[point][0].sessions[VICTIM], encode(value))


@pytest.mark.parametrize("point", POINTS)
def test_mutated_entries_change_nothing(point: int) -> None:
    table, seen = TABLES[point]
    rng = random.Random(point)
    victim = table.sessions[VICTIM]
    for _ in range(400):
        feed_junk(victim, mutate(rng, rng.choice(seen)))
    # and past entries again, unchanged: duplicates, ignored
    for raw in seen[-5:]:
        feed_junk(victim, raw)


@pytest.mark.parametrize("point", POINTS)
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    field=st.sampled_from(["v", "game", "seq", "author", "role", "kind", "prev", "body", "sig"]),
    value=json_values,
)
def test_envelope_field_swapped_changes_nothing(point: int, field: str, value: Any) -> None:
    """A real entry with one field replaced, not re-signed: refused, nothing changes."""
    table, seen = TABLES[point]
    obj = decode(seen[-1])
    assert isinstance(obj, dict)
    if obj.get(field) == value:
        return
    feed_junk(table.sessions[VICTIM], encode({**obj, field: value}))


KINDS = ["shuffle", "action", "pass", "window", "reveal", "sync", "ack", "accept", "genesis", "zz"]


def body_strategy() -> st.SearchStrategy[Any]:
    keys = ["releases", "shows", "action", "claim", "commitment", "step", "secrets", "dispute"]
    structured = st.dictionaries(st.sampled_from(keys), json_values, max_size=5)
    actions = st.builds(
        lambda text, extra: {"releases": [], "shows": [], "action": text, **extra},
        st.sampled_from(
            [
                "1 draw",
                "1 keep",
                "1 take",
                "1 challenge",
                "1 guilty",
                "1 uno",
                "1 catch 0",
                "0 draw",
                "1 color g",
                "1 r7#3",
                "1 W#50:g",
                "1 jump b2#9",
                "x",
                "",
            ]
        ),
        st.dictionaries(st.sampled_from(["claim", "dispute"]), json_values, max_size=1),
    )
    return structured | actions | json_values


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    point=st.sampled_from(POINTS),
    kind=st.sampled_from(KINDS) | st.from_regex(r"[a-z][a-z0-9_.-]{0,31}", fullmatch=True),
    body=body_strategy(),
    role=st.sampled_from([None, Role.PROPOSAL, Role.RESPONSE]),
)
def test_signed_garbage_from_a_real_seat_blames_only_that_seat(
    point: int, kind: str, body: Any, role: Role | None
) -> None:
    table, _ = frozen(point)
    victim, hostile = table.sessions[VICTIM], table.sessions[HOSTILE]
    assert hostile.identity is not None and victim.game_id is not None
    log = victim.log
    head = log.head
    # Aim at the slot the victim waits for (or the role hypothesis picked).
    if role is None:
        role = Role.PROPOSAL if log.step_complete(head) else Role.RESPONSE
    if role is Role.PROPOSAL:
        seq = head + 1 if log.step_complete(head) else head
        prev = log.next_prev() if log.step_complete(head) else [log.proposal(head)[0]]  # type: ignore[index]
    else:
        seq, prev = head, [log.proposal(head)[0]]  # type: ignore[index]
    raw = sign_entry(
        hostile.identity,
        game=victim.game_id,
        seq=seq,
        author=HOSTILE,
        role=role,
        kind=kind,
        prev=prev,
        body=body,
    )
    before = snapshot(victim)
    refused = False
    with time_bound():
        try:
            victim.receive(raw)
        except SessionError as e:
            refused = True
            assert e.seat in (HOSTILE, None), e
    if refused:
        after = snapshot(victim)
        # only equivocation evidence may be kept from a refused entry
        assert after[:2] == before[:2] and after[3:] == before[3:]
    if victim.blame is not None:
        assert victim.blame.seat == HOSTILE, victim.blame


def test_a_huge_bad_action_gets_a_blame_of_bounded_length() -> None:
    """helper-38: the notation's error quotes the action, and a seat's 200 KB action made a
    200 KB blame reason (on every screen, in node.json, in the replay). The reason keeps the
    error's start: the seat is still named, for a bad action."""
    from types import SimpleNamespace

    from p2puno.session.session import MAX_REASON, _Fault

    session = LocalTable(Options(2, target=25), seed="long-action").sessions[0]
    entry = SimpleNamespace(author=1, body={"action": "1 " + "x" * 200_000})
    with pytest.raises(_Fault) as e:
        session._parse_action(entry)  # type: ignore[arg-type]
    assert e.value.seat == 1 and e.value.reason.startswith("bad action: ")
    assert len(e.value.reason) <= len("bad action: ") + MAX_REASON
