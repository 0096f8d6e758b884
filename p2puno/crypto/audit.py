"""Whole-shuffle verification and deterministic blame, from the public record plus reveals."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ._group import (
    ORDER,
    InvalidPointError,
    card_point,
    encrypt_all,
    encrypt_each,
    encrypt_one,
    inverse,
)
from .errors import CryptoStateError, Fault, Verdict
from .messages import (
    KeyCommitment,
    KeyRelease,
    SecretReveal,
    ShowMessage,
    ShuffleRecord,
    ShuffleStep,
    step_order,
)
from .shuffle import (
    _commitments,
    decrypt_show_with,
    pledge_digest,
    rekey_scalars,
    release_opens,
)

__all__ = ["Audit", "Parent", "audit"]

# (phase, scalar(s), input deck, permutation) -> expected output, or the bad input index
_Task = tuple[int, int | tuple[int, ...], tuple[bytes, ...], tuple[int, ...]]


def _replay(task: _Task) -> tuple[bytes, ...] | int:
    phase, scalars, deck, perm = task
    try:
        if phase == 1:
            assert isinstance(scalars, int)
            enc = encrypt_all(scalars, deck)
            return tuple(enc[j] for j in perm)
        assert isinstance(scalars, tuple)
        return tuple(encrypt_each(scalars, deck))
    except InvalidPointError as err:
        return err.index


def _composed(
    tasks: Sequence[_Task],
    initial: Sequence[bytes],
    m: int,
    executor: Executor | None = None,
    opened: Mapping[int, tuple[int, bytes, bytes]] | None = None,
) -> tuple[bytes, ...]:
    """The final deck the revealed secrets produce, with one layer per position.

    Layers commute and compose (``x(a*x(b*P)) == x(ab*P)``), so instead of replaying the
    ``2n-1`` steps one by one (``(2n-1)*m`` scalar multiplications) this follows each position
    back to its initial card point and multiplies its scalars: ``m`` multiplications. If the
    result equals the last published deck, the whole shuffle is what the revealed secrets
    produce, and the cards land where the revealed permutations put them. An intermediate deck
    off its author's secrets could only leave the final deck right if a later step undid the
    change, which takes knowing what every honest step in between did to it (its keys): a
    coalition can at most redistribute its own layers, which changes nothing anyone sees.
    Anything else fails here and the step-by-step replay names the author.

    ``opened``: position -> ``(k, x, f)`` where the caller computed ``x(k^-1 * f) == x`` (a
    card it opened, see :meth:`ShuffleView.openings`). Then ``k^-1 * f == +-x`` as points, so
    ``x(k * x) == f``: where the position's product is ``k``, its initial point ``x`` and the
    final entry ``f``, the result is ``f`` without multiplying again (anything else: multiply).
    """
    src = list(range(m))  # the initial entry each position holds
    acc = [1] * m  # and the product of the scalars put on it so far
    for phase, scalars, _deck, perm in tasks:
        if phase == 1:
            assert isinstance(scalars, int)
            src = [src[j] for j in perm]
            acc = [acc[j] * scalars % ORDER for j in perm]
            continue
        assert isinstance(scalars, tuple)
        if perm:  # the last seat's merged step: permute, then per-position keys
            src = [src[j] for j in perm]
            acc = [acc[j] for j in perm]
        acc = [a * k % ORDER for a, k in zip(acc, scalars, strict=True)]
    points = [initial[i] for i in src]
    out: list[bytes | None] = [None] * m
    todo = list(range(m))
    if opened:
        todo = []
        for i in range(m):
            known = opened.get(i)
            if known is not None and known[0] == acc[i] and known[1] == points[i]:
                out[i] = known[2]
            else:
                todo.append(i)
    ks, xs = [acc[i] for i in todo], [points[i] for i in todo]
    try:
        if executor is None or len(todo) < 2:
            done = encrypt_each(ks, xs)
        else:
            half = len(todo) // 2  # pyca releases the GIL in the EC work: two threads, two cores
            first = executor.submit(encrypt_each, ks[:half], xs[:half])
            second = encrypt_each(ks[half:], xs[half:])
            done = first.result() + second
    except InvalidPointError:
        return ()  # an initial entry that is no point: the step-by-step replay names who
    for i, x in zip(todo, done, strict=True):
        out[i] = x
    return tuple(x for x in out if x is not None)


def _spot_checks(
    tasks: Sequence[_Task], steps: Sequence[ShuffleStep], final: Sequence[bytes], m: int
) -> bool:
    """Each step, at one position, against its own published input.

    The composed check cannot see a lie about a layer that cancels out within one player's
    secrets (a false phase-1 key: it is removed again in phase 2); this can, with one scalar
    multiplication per step. The position is fixed by the shuffle's final deck.
    """
    start = int.from_bytes(hashlib.sha256(b"".join(final)).digest()[:8], "big")
    for i, ((phase, scalars, deck, perm), step) in enumerate(zip(tasks, steps, strict=True)):
        j = (start + i) % m
        if phase == 1:
            assert isinstance(scalars, int)
            k, x = scalars, deck[perm[j]]
        else:
            assert isinstance(scalars, tuple)
            k, x = scalars[j], deck[j]
        try:
            if encrypt_one(k, x) != step.deck[j]:
                return False
        except InvalidPointError:
            return False
    return True


_Opened = list[list[tuple[int, bytes]] | None]


def _open_shows(
    shows: Sequence[ShowMessage],
    keys: Mapping[int, tuple[X25519PrivateKey, bytes]],
    executor: Executor | None,
) -> _Opened:
    def run(part: Sequence[ShowMessage]) -> _Opened:
        return [decrypt_show_with(show, *keys[show.recipient]) for show in part]

    # loaded keys do not pickle: only a thread pool can take half of the shows
    if not isinstance(executor, ThreadPoolExecutor) or len(shows) < 8:
        return run(shows)
    half = len(shows) // 2
    first = executor.submit(run, shows[:half])
    second = run(shows[half:])
    return first.result() + second


@dataclass(frozen=True)
class Audit:
    """The outcome of :func:`audit`.

    ``faults`` lists every fault found, in a fixed order (public faults in protocol order, then
    reveals by seat, then shuffle steps in protocol order, then show-to-one messages); ``verdict``
    is the first. ``faces`` gives the card id at every final position when the shuffle is
    complete and clean, else ``None``.
    """

    faults: tuple[Verdict, ...]
    faces: tuple[int, ...] | None

    @property
    def verdict(self) -> Verdict | None:
        return self.faults[0] if self.faults else None

    @property
    def ok(self) -> bool:
        return not self.faults


def _check_reveal(
    record: ShuffleRecord, commitment: KeyCommitment | None, r: SecretReveal
) -> str | None:
    spec = record.spec
    if r.shuffle_id != spec.shuffle_id or len(r.keys) != spec.size:
        return "secrets do not fit the shuffle"
    if commitment is None or len(commitment.commitments) != spec.size:
        return None  # no usable commitment (never sent, or already blamed as malformed)
    bad = None
    # commitment_digest at every position, the common prefix hashed once
    digests = _commitments(spec.shuffle_id, r.player, r.keys, r.salts)
    for i, (digest, committed) in enumerate(zip(digests, commitment.commitments, strict=True)):
        if not hmac.compare_digest(digest, committed) and bad is None:
            bad = i
    if bad is not None:
        return f"revealed key for position {bad} does not open its commitment"
    try:
        pub = X25519PrivateKey.from_private_bytes(r.x25519_private).public_key()
    except ValueError:
        return "revealed X25519 key is invalid"
    if not hmac.compare_digest(pub.public_bytes_raw(), commitment.x25519_public):
        return "revealed X25519 key does not match the committed public key"
    pledge = pledge_digest(spec.shuffle_id, r.player, r.phase1_key, r.rekey_key, r.permutation)
    if not hmac.compare_digest(pledge, commitment.pledge):
        return "revealed phase-1 key, permutation or rekey key break the pledge"
    return None


@dataclass(frozen=True)
class Parent:
    """What :func:`audit` needs of the parent of a hidden reshuffle: its record, every player's
    reveal of it, and its audited faces."""

    record: ShuffleRecord
    reveals: Mapping[int, SecretReveal]
    faces: tuple[int, ...]


def audit(
    record: ShuffleRecord,
    reveals: Mapping[int, SecretReveal] | Sequence[SecretReveal],
    *,
    accuser: int | None = None,
    executor: Executor | None = None,
    parent: Parent | None = None,
    thorough: bool = False,
    opened: Mapping[int, tuple[int, bytes, bytes]] | None = None,
) -> Audit:
    """Verify one shuffle completely and name whoever is at fault, deterministically.

    Checks every step against its author's revealed secrets (each step judged only on its own
    public input and output, so an honest player is never blamed for another's step), every
    published key and every revealed key against the commitments, every show-to-one message
    (decrypted with the recipient's revealed X25519 key), and yields the face of every
    position. ``accuser``: the player who opened a dispute; blamed with
    ``FALSE_ACCUSATION`` if nothing is found. ``executor``: e.g. a ``ProcessPoolExecutor`` to
    replay the steps on several cores, or a ``ThreadPoolExecutor``: the composed check and the
    shows are then split in two halves, one run by the executor (which gains nothing with
    pyca 50: it holds the GIL through the EC and AEAD work; measured 2026-11-27).
    ``parent``: required for a hidden reshuffle (audit the parent first: its faces place the
    hidden cards). ``thorough``: replay every step even when the composed check (see
    :func:`_composed`) passes; by default the step-by-step replay runs only to find who is at
    fault. ``opened``: the openings the caller computed on this
    shuffle's final deck (:meth:`ShuffleView.openings`): the composed check does not multiply
    again where one already proves its result; the verdicts are the same with or without.
    """
    spec = record.spec
    n, m = spec.players, spec.size
    if not isinstance(reveals, Mapping):
        reveals = {r.player: r for r in reveals}
    initial = tuple(card_point(c) for c in spec.cards)
    initial_cards: tuple[int, ...] = spec.cards
    if spec.hidden:
        pspec = parent.record.spec if parent is not None else None
        if parent is None or pspec is None or pspec.shuffle_id != spec.parent:
            raise CryptoStateError("auditing a hidden reshuffle needs its parent")
        if len(parent.record.steps) != len(step_order(pspec.players, bool(pspec.hidden))):
            raise CryptoStateError("the parent shuffle is not complete")
        if len(parent.faces) != pspec.size or max(spec.hidden) >= pspec.size:
            raise CryptoStateError("parent faces do not fit")
        parent_deck = parent.record.steps[-1].deck
        initial = tuple(parent_deck[p] for p in spec.hidden) + initial
        initial_cards = tuple(parent.faces[p] for p in spec.hidden) + spec.cards
    faults: list[Verdict] = []
    commitments = {c.player: c for c in record.commitments}

    # 1. Public checks, in protocol order.
    for com in record.commitments:
        if len(com.commitments) != m:
            faults.append(Verdict(com.player, Fault.MALFORMED_MESSAGE, "commitment of wrong size"))
    steps = []
    for idx, step in enumerate(record.steps):
        if step.phase == 2 and len(commitments) != n:
            break  # phase 2 never legitimately started; nothing more to judge
        if len(step.deck) != m:
            faults.append(Verdict(step.player, Fault.MALFORMED_MESSAGE, f"step {idx}: wrong size"))
            break
        if len(set(step.deck)) != m:
            detail = f"step {idx} (phase {step.phase}) repeats an entry"
            faults.append(Verdict(step.player, Fault.MALFORMED_STEP, detail))
            break
        steps.append(step)
    for rel in record.releases:
        owner_c = commitments.get(rel.owner)
        if owner_c is None or not release_opens(owner_c, rel):
            detail = f"published key for position {rel.position} does not open its commitment"
            faults.append(Verdict(rel.owner, Fault.KEY_COMMITMENT, detail))

    # 2. Reveals, by seat.
    good: dict[int, SecretReveal] = {}
    for p in range(n):
        r = reveals.get(p)
        if r is None:
            faults.append(Verdict(p, Fault.MISSING_REVEAL, "no secrets revealed"))
            continue
        if r.player != p:
            faults.append(Verdict(p, Fault.BAD_REVEAL, "secrets of another seat"))
            continue
        problem = _check_reveal(record, commitments.get(p), r)
        if problem is None and (r.rekey_key is None) != (not spec.hidden):
            problem = "rekey key missing or unexpected"
        if problem is None and spec.hidden:
            assert parent is not None
            pr = parent.reveals.get(p)
            if pr is None or len(pr.keys) != parent.record.spec.size:
                problem = "no usable reveal of the parent shuffle"
        if problem is not None:
            faults.append(Verdict(p, Fault.BAD_REVEAL, problem))
        else:
            good[p] = r

    # 3. Replay every step whose author revealed, each on its own published input.
    tasks: list[_Task] = []
    judged: list[int] = []
    for idx, step in enumerate(steps):
        r = good.get(step.player)
        if r is None:
            continue
        deck = steps[idx - 1].deck if idx else initial
        w = 1 if r.rekey_key is None else r.rekey_key  # the player's layer on the input
        if step.phase == 0:
            assert parent is not None and r.rekey_key is not None
            pkeys = parent.reveals[step.player].keys
            scalars = rekey_scalars(r.rekey_key, [pkeys[p] for p in spec.hidden], len(spec.cards))
            tasks.append((2, tuple(scalars), deck, ()))
        elif step.phase == 1:
            tasks.append((1, r.phase1_key, deck, r.permutation))
        elif step.player == n - 1:  # the merged step: permute, then per-position keys
            inv = inverse(w)
            scalars = [k * inv % ORDER for k in r.keys]
            tasks.append((2, tuple(scalars), tuple(deck[j] for j in r.permutation), r.permutation))
        else:
            inv = inverse(r.phase1_key * w % ORDER)
            tasks.append((2, tuple(k * inv % ORDER for k in r.keys), deck, ()))
        judged.append(idx)
    results: list[tuple[bytes, ...] | int] | None = None
    if not thorough and len(judged) == len(steps) == len(step_order(n, bool(spec.hidden))):
        final = steps[-1].deck
        composed = _composed(tasks, initial, m, executor, opened)
        if composed == final and _spot_checks(tasks, steps, final, m):
            results = [step.deck for step in steps]  # see _composed
    if results is None:
        results = list(executor.map(_replay, tasks)) if executor else [_replay(t) for t in tasks]
    replay_ok = True
    for idx, result in zip(judged, results, strict=True):
        step = steps[idx]
        if isinstance(result, int):
            prev = steps[idx - 1]
            _, _, _, perm = tasks[judged.index(idx)]
            entry = perm[result] if step.phase == 2 and perm else result
            detail = f"step {idx - 1}: entry {entry} is not a curve point"
            faults.append(Verdict(prev.player, Fault.MALFORMED_STEP, detail))
            replay_ok = False
        elif result != step.deck:
            first = next(i for i in range(m) if result[i] != step.deck[i])
            detail = (
                f"step {idx} (phase {step.phase}) is not what its revealed secrets produce "
                f"(first at position {first}): a false shuffle or a false reveal"
            )
            faults.append(Verdict(step.player, Fault.BAD_SHUFFLE, detail))
            replay_ok = False

    # 4. Show-to-one messages, opened with the recipient's revealed X25519 key.
    loaded: dict[int, tuple[X25519PrivateKey, bytes]] = {}
    judged_shows = []
    for show in record.shows:
        rr = good.get(show.recipient)
        if rr is None:
            continue
        if show.recipient not in loaded:  # a good reveal's key is valid and committed (step 2)
            priv = X25519PrivateKey.from_private_bytes(rr.x25519_private)
            loaded[show.recipient] = (priv, priv.public_key().public_bytes_raw())
        judged_shows.append(show)
    decrypted = _open_shows(judged_shows, loaded, executor)
    for show, entries in zip(judged_shows, decrypted, strict=True):
        if entries is None:
            faults.append(Verdict(show.sender, Fault.BAD_SHOW, "show does not decrypt"))
            continue
        for pos, owner, (k, s) in zip(show.positions, show.owners, entries, strict=True):
            owner_c = commitments.get(owner)
            rel = KeyRelease(spec.shuffle_id, owner, pos, k, s)
            if pos >= m or owner_c is None or not release_opens(owner_c, rel):
                detail = (
                    f"show to player {show.recipient}: wrong key of player {owner} "
                    f"for position {pos}"
                )
                faults.append(Verdict(show.sender, Fault.BAD_SHOW, detail))
                break

    # 5. Faces: every step verified from the card points, so the permutations place the cards.
    faces = None
    order = step_order(n, bool(spec.hidden))
    if replay_ok and len(steps) == len(order) and len(good) == n:
        idx_map = list(range(m))
        for step in steps:  # the permuting steps: phase 1, and the last seat's merged step
            if step.phase == 1 or (step.phase == 2 and step.player == n - 1):
                perm = good[step.player].permutation
                idx_map = [idx_map[perm[j]] for j in range(m)]
        faces = tuple(initial_cards[i] for i in idx_map)

    if not faults and accuser is not None:
        faults.append(Verdict(accuser, Fault.FALSE_ACCUSATION, "no fault found"))
    return Audit(tuple(faults), faces)
