"""Every cheat is detected, and the deterministic verdict names the right player."""

from __future__ import annotations

import dataclasses

import pytest

from p2puno.crypto import (
    DeterministicRng,
    Fault,
    KeyRelease,
    ShuffleSecrets,
    ShuffleStep,
    Verdict,
    VerificationError,
    card_point,
)
from p2puno.crypto._group import ORDER, encrypt_one, inverse
from tests.crypto.crypto_table import Table, audit

N = 4
CARDS = range(16)
CHEAT = 2  # the cheating seat in every test


def _table(seed: bytes) -> Table:
    return Table(N, cards=CARDS, seed=seed)


def _with(step: ShuffleStep, position: int, x: bytes) -> ShuffleStep:
    deck = list(step.deck)
    deck[position] = x
    return dataclasses.replace(step, deck=tuple(deck))


def _dispute(table: Table, accuser: int) -> Verdict | None:
    """Everyone reveals; any node judges from its record."""
    verdicts = {audit(v.record(), table.reveals(), accuser=accuser).verdict for v in table.views}
    assert len(verdicts) == 1  # every node reaches the same verdict
    return verdicts.pop()


def _reveal_until_failure(table: Table) -> int:
    for pos in range(len(CARDS)):
        try:
            table.reveal(pos)
        except VerificationError as err:
            assert err.verdict is None  # needs a dispute to tell who
            return pos
    raise AssertionError("the cheat went unnoticed")


def test_shuffler_duplicating_a_card_is_caught_at_once() -> None:
    table = _table(b"dup")
    table.commit()

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        return _with(step, 0, step.deck[1]) if (step.phase, step.player) == (1, CHEAT) else step

    with pytest.raises(VerificationError) as exc:
        table.shuffle(tamper)
    assert exc.value.verdict == Verdict(CHEAT, Fault.MALFORMED_STEP, str(exc.value))
    assert audit(table.views[0].record(), table.reveals()).verdict is None  # rejected, not logged


@pytest.mark.parametrize("phase", [1, 2])
def test_shuffler_dropping_a_card_is_caught_and_named(phase: int) -> None:
    """Drop card at one slot by re-encrypting another slot under a fresh key (no exact dup)."""
    table = _table(b"drop%d" % phase)
    k1 = table.secrets[CHEAT].reveal().phase1_key

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        if (step.phase, step.player) != (phase, CHEAT):
            return step
        return _with(step, 5, encrypt_one(k1 * 7 % ORDER, deck_in[3]))

    table.setup(tamper)
    _reveal_until_failure(table)
    verdict = _dispute(table, accuser=0)
    assert verdict is not None
    assert (verdict.player, verdict.fault) == (CHEAT, Fault.BAD_SHUFFLE)


def test_substituting_a_point_that_is_no_card() -> None:
    table = _table(b"subst")

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        return _with(step, 4, card_point(9999)) if step.player == CHEAT else step

    table.setup(tamper)
    _reveal_until_failure(table)
    verdict = _dispute(table, accuser=1)
    assert verdict is not None and (verdict.player, verdict.fault) == (CHEAT, Fault.BAD_SHUFFLE)


def test_off_curve_value_is_blamed_on_its_author_by_the_next_shuffler() -> None:
    table = _table(b"offcurve")
    table.commit()
    bad = next(
        x
        for i in range(1000)
        if not __import__("p2puno.crypto._group", fromlist=["is_point"]).is_point(
            x := i.to_bytes(32, "big")
        )
    )

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        return _with(step, 2, bad) if (step.phase, step.player) == (1, CHEAT) else step

    with pytest.raises(VerificationError) as exc:
        table.shuffle(tamper)
    assert exc.value.verdict is not None
    assert (exc.value.verdict.player, exc.value.verdict.fault) == (CHEAT, Fault.MALFORMED_STEP)
    # the same value is caught on arrival when a node asks for point checks
    table2 = _table(b"offcurve")
    table2.commit()
    with pytest.raises(VerificationError) as exc2:
        table2.shuffle(tamper, check_points=True)
    assert exc2.value.verdict is not None and exc2.value.verdict.player == CHEAT


def test_phase2_key_other_than_the_committed_one() -> None:
    table = _table(b"otherkey")
    r = table.secrets[CHEAT].reveal()

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        if (step.phase, step.player) != (2, CHEAT):
            return step
        other = (r.keys[6] + 1) % ORDER
        return _with(step, 6, encrypt_one(other * inverse(r.phase1_key) % ORDER, deck_in[6]))

    table.setup(tamper)
    # dealt to player 0: it decrypts to no card
    for q in range(1, N):
        table.release(q, 6)
    with pytest.raises(VerificationError) as exc:
        table.views[0].open(6, table.secrets[0])
    assert exc.value.verdict is None
    verdict = _dispute(table, accuser=0)
    assert verdict is not None and (verdict.player, verdict.fault) == (CHEAT, Fault.BAD_SHUFFLE)


def test_wrong_key_released_for_a_deal_is_caught_the_moment_it_arrives() -> None:
    table = _table(b"badrelease")
    table.setup()
    honest = table.secrets[CHEAT].release(3)
    other = table.secrets[CHEAT].release(4)
    for bad in (
        dataclasses.replace(honest, key=honest.key + 1),
        dataclasses.replace(honest, salt=bytes(16)),
        dataclasses.replace(honest, position=4),  # right key, claimed for another position
        dataclasses.replace(other, position=3),  # a real key of another position
    ):
        with pytest.raises(VerificationError) as exc:
            table.views[0].add_release(bad)
        assert exc.value.verdict is not None
        assert (exc.value.verdict.player, exc.value.verdict.fault) == (CHEAT, Fault.KEY_COMMITMENT)
    table.views[0].add_release(honest)
    # and in the audit of a record holding such a key
    record = dataclasses.replace(
        table.views[0].record(), releases=(dataclasses.replace(honest, key=honest.key + 1),)
    )
    assert audit(record, table.reveals()).verdict == Verdict(
        CHEAT, Fault.KEY_COMMITMENT, "published key for position 3 does not open its commitment"
    )


def test_wrong_key_in_a_show_to_one() -> None:
    table = _table(b"badshow")
    table.setup()
    for pos in (0, 1, 2):
        table.deal(pos, CHEAT)
    true = table.secrets[CHEAT].reveal()
    liar = dataclasses.replace(
        true, keys=(true.keys[0], (true.keys[1] + 5) % ORDER, *true.keys[2:])
    )
    table.replace_secrets(CHEAT, liar)
    show = table.show(CHEAT, 0, [0, 1, 2])
    with pytest.raises(VerificationError) as exc:
        table.views[0].open_show(show, table.secrets[0])
    assert exc.value.verdict is None  # only the recipient can see it: dispute
    table.replace_secrets(CHEAT, true)  # in the dispute the cheater reveals its real keys ...
    verdict = _dispute(table, accuser=0)
    assert verdict is not None and (verdict.player, verdict.fault) == (CHEAT, Fault.BAD_SHOW)
    table.replace_secrets(CHEAT, liar)  # ... or the fake ones, which break the commitments
    verdict = _dispute(table, accuser=0)
    assert verdict is not None and (verdict.player, verdict.fault) == (CHEAT, Fault.BAD_REVEAL)


def test_garbage_show_and_recipient_cannot_frame_the_sender() -> None:
    table = _table(b"garbageshow")
    table.setup()
    table.deal(0, CHEAT)
    show = table.show(CHEAT, 1, [0])
    forged = dataclasses.replace(show, ciphertext=bytes(len(show.ciphertext)))
    table.broadcast(forged, lambda v, m: v.add_show(m))
    with pytest.raises(VerificationError):
        table.views[1].open_show(forged, table.secrets[1])
    verdict = _dispute(table, accuser=1)
    assert verdict == Verdict(CHEAT, Fault.BAD_SHOW, "show does not decrypt")
    # the recipient lying about its X25519 key is blamed itself, never the sender
    table2 = _table(b"goodshow")
    table2.setup()
    table2.deal(0, CHEAT)
    good = table2.show(CHEAT, 1, [0])
    assert table2.views[1].open_show(good, table2.secrets[1]) == {0: table2.views[CHEAT].faces[0]}
    reveals = table2.reveals()
    reveals[1] = dataclasses.replace(reveals[1], x25519_private=bytes(range(32)))
    result = audit(table2.views[0].record(), reveals, accuser=1)
    assert [(v.player, v.fault) for v in result.faults] == [(1, Fault.BAD_REVEAL)]


@pytest.mark.parametrize("lie", ["key", "salt", "phase1", "permutation", "x25519"])
def test_lying_in_the_end_of_round_reveal(lie: str) -> None:
    table = _table(b"lie-" + lie.encode())
    table.setup()
    table.deal_hands(2)
    for pos in range(2 * N, len(CARDS)):
        table.reveal(pos)
    reveals = table.reveals()
    r = reveals[CHEAT]
    if lie == "key":
        r = dataclasses.replace(r, keys=((r.keys[0] + 1) % ORDER, *r.keys[1:]))
    elif lie == "salt":
        r = dataclasses.replace(r, salts=(bytes(16), *r.salts[1:]))
    elif lie == "phase1":
        r = dataclasses.replace(r, phase1_key=r.phase1_key * 3 % ORDER)
    elif lie == "permutation":
        r = dataclasses.replace(
            r, permutation=(r.permutation[1], r.permutation[0], *r.permutation[2:])
        )
    else:
        r = dataclasses.replace(r, x25519_private=DeterministicRng(b"x").token_bytes(32))
    reveals[CHEAT] = r
    result = audit(table.views[0].record(), reveals)
    assert result.faults and {v.player for v in result.faults} == {CHEAT}
    # every secret is committed before the first step (the phase-1 key, the permutation and
    # the rekey key by the pledge), so any lie in the reveal breaks a commitment
    assert result.verdict is not None and result.verdict.fault == Fault.BAD_REVEAL
    assert result.faces is None


@pytest.mark.parametrize("shows", ["pledged", "used"])
@pytest.mark.parametrize("last", [False, True])
def test_a_shuffler_cannot_pick_its_permutation_after_seeing_its_input(
    shows: str, last: bool
) -> None:
    """The steering attack: a seat looks at the deck it is handed and chooses how to permute
    it (e.g. to put marked cards where a colluder is dealt). Its permutation was pledged in
    its commitment before any step, so the step it really made cannot be revealed without
    breaking the pledge (BAD_REVEAL), and the pledged secrets do not produce it (BAD_SHUFFLE):
    the audit names it either way."""
    table = _table(b"steer-" + shows.encode() + bytes([last]))
    cheat = table.n - 1 if last else CHEAT
    table.commit()
    pledged = table.secrets[cheat].reveal()
    chosen = dataclasses.replace(pledged, permutation=tuple(reversed(pledged.permutation)))
    used = ShuffleSecrets.from_reveal(table.spec, chosen, DeterministicRng(b"steer"))

    def steer(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        permuting = step.phase == 1 or (step.phase == 2 and step.player == table.n - 1)
        if step.player != cheat or not permuting:
            return step
        return used.step(table.views[0])  # chosen after seeing deck_in

    table.shuffle(steer)
    reveals = table.reveals()
    if shows == "used":
        reveals[cheat] = chosen
    result = audit(table.views[0].record(), reveals)
    expected = Fault.BAD_REVEAL if shows == "used" else Fault.BAD_SHUFFLE
    assert result.verdict is not None
    assert (result.verdict.player, result.verdict.fault) == (cheat, expected)


def test_missing_reveal_and_false_accusation() -> None:
    table = _table(b"honest")
    table.setup()
    record = table.views[0].record()
    reveals = table.reveals()
    assert audit(record, reveals).ok
    assert audit(record, reveals, accuser=3).verdict == Verdict(
        3, Fault.FALSE_ACCUSATION, "no fault found"
    )
    del reveals[1]
    assert audit(record, reveals, accuser=3).verdict == Verdict(
        1, Fault.MISSING_REVEAL, "no secrets revealed"
    )


def test_step_out_of_turn_or_wrong_size_is_named() -> None:
    table = _table(b"order")
    table.commit()
    s1 = table.secrets[0].step(table.views[0])
    wrong_turn = dataclasses.replace(s1, player=1)
    with pytest.raises(VerificationError) as exc:
        table.views[0].add_step(wrong_turn)
    assert exc.value.verdict is not None and exc.value.verdict.player == 1
    short = dataclasses.replace(s1, deck=s1.deck[:-1])
    with pytest.raises(VerificationError) as exc:
        table.views[0].add_step(short)
    assert exc.value.verdict == Verdict(
        0, Fault.MALFORMED_MESSAGE, "step of player 0 has the wrong size"
    )


def test_dispute_mid_shuffle_judges_the_steps_so_far() -> None:
    table = _table(b"mid")
    k1 = table.secrets[1].reveal().phase1_key

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        return _with(step, 0, encrypt_one(k1, card_point(200))) if step.player == 1 else step

    table.commit()
    table.shuffle(tamper)
    record = table.views[3].record()
    short = dataclasses.replace(record, steps=record.steps[:3])
    result = audit(short, table.reveals(), accuser=2)
    assert result.verdict is not None and result.verdict.player == 1
    assert result.faces is None


def test_release_for_unknown_position_or_before_the_shuffle() -> None:
    from p2puno.crypto import CryptoStateError

    table = _table(b"early")
    table.commit()
    rel: KeyRelease = table.secrets[0].release(0)
    with pytest.raises(CryptoStateError):
        table.views[1].add_release(rel)
    with pytest.raises(CryptoStateError):
        table.secrets[0].release(len(CARDS))


def test_last_seat_merged_step_cheat_is_named() -> None:
    """The last seat permutes and re-keys in one step; a substitution there is its fault."""
    table = _table(b"lastseat")
    last = N - 1

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        return _with(step, 1, step.deck[0][:31] + b"\x00") if step.player == last else step

    table.commit()
    try:
        table.shuffle(tamper)
    except VerificationError as err:  # the value happened not to be a point: caught at once
        assert err.verdict is not None and err.verdict.player == last
        return
    _reveal_until_failure(table)
    verdict = _dispute(table, accuser=0)
    assert verdict is not None and verdict.player == last


@pytest.mark.parametrize("seat", [CHEAT, N - 1])
def test_phase2_copy_of_another_card_is_seen_twice_and_named(seat: int) -> None:
    """Re-keying another position's input (no exact duplicate). From the last seat, whose input
    is under uniform keys only, the card appears twice; later, it decrypts to no card."""
    table = _table(b"copy%d" % seat)
    r = table.secrets[seat].reveal()

    def tamper(step: ShuffleStep, deck_in: tuple[bytes, ...]) -> ShuffleStep:
        if (step.phase, step.player) != (2, seat):
            return step
        if seat == N - 1:  # merged step: the entry for position 7 comes from input perm[8]
            return _with(step, 7, encrypt_one(r.keys[7], deck_in[r.permutation[8]]))
        return _with(step, 7, encrypt_one(r.keys[7] * inverse(r.phase1_key) % ORDER, deck_in[8]))

    table.setup(tamper)
    faces = [table.reveal(8)[0]]
    message = "repeats the card at position 8" if seat == N - 1 else "decrypts to no card"
    with pytest.raises(VerificationError, match=message):
        faces.append(table.reveal(7)[0])
    verdict = _dispute(table, accuser=0)
    assert verdict is not None and (verdict.player, verdict.fault) == (seat, Fault.BAD_SHUFFLE)


def test_audit_of_a_malformed_record_names_the_author_and_never_crashes() -> None:
    table = _table(b"malformed-record")
    table.setup()
    table.deal(0, 1)
    record = table.views[0].record()
    short = dataclasses.replace(
        record.commitments[2], commitments=record.commitments[2].commitments[:-1]
    )
    bad = dataclasses.replace(
        record, commitments=(*record.commitments[:2], short, *record.commitments[3:])
    )
    result = audit(bad, table.reveals())
    assert result.verdict is not None
    assert (result.verdict.player, result.verdict.fault) == (2, Fault.MALFORMED_MESSAGE)
    truncated = dataclasses.replace(
        record,
        steps=(
            *record.steps[:3],
            dataclasses.replace(record.steps[3], deck=record.steps[3].deck[:-1]),
        ),
    )
    result = audit(truncated, table.reveals())
    assert result.verdict is not None and result.verdict.player == record.steps[3].player
    assert result.faces is None
