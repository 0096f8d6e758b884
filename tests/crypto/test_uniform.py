"""The order is uniform as long as one player is honest (chi-square, seeded, deterministic)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from p2puno.crypto import DeterministicRng
from p2puno.crypto.shuffle import _permutation
from tests.crypto.crypto_table import Table

Z_999 = 3.090  # one-sided z for p = 0.001


def _critical(dof: int) -> float:
    """Chi-square critical value at p = 0.001 (Wilson-Hilferty)."""
    h = 2 / (9 * dof)
    return dof * (1 - h + Z_999 * math.sqrt(h)) ** 3


def _chi_square(counts: list[list[int]], trials: int) -> float:
    m = len(counts)
    expected = trials / m
    return sum((c - expected) ** 2 / expected for row in counts for c in row)


def _positions(trials: int, honest: set[int], m: int, n: int) -> list[list[int]]:
    counts = [[0] * m for _ in range(m)]  # counts[card][position]
    for t in range(trials):
        table = Table(n, cards=range(m), seed=b"uniform-%d" % t)
        for p in range(n):
            if p not in honest:  # cheater: keys as usual, identity permutation
                r = table.secrets[p].reveal()
                table.replace_secrets(p, dataclasses.replace(r, permutation=tuple(range(m))))
        table.setup()
        for pos in range(m):
            for q in range(n):
                table.release(q, pos)
            counts[table.views[0].reveal(pos)][pos] += 1
    return counts


@pytest.mark.parametrize("honest", [0, 2])  # a phase-1 shuffler; the last seat's merged step
def test_one_honest_player_among_identity_cheaters_gives_a_uniform_order(honest: int) -> None:
    m, n, trials = 6, 3, 480
    counts = _positions(trials, honest={honest}, m=m, n=n)
    stat = _chi_square(counts, trials)
    assert stat < _critical((m - 1) ** 2), (stat, counts)
    assert all(sum(row) == trials for row in counts)


def test_the_chi_square_test_has_power() -> None:
    m, n, trials = 6, 3, 20
    counts = _positions(trials, honest=set(), m=m, n=n)
    assert counts == [[trials if i == j else 0 for j in range(m)] for i in range(m)]
    assert _chi_square(counts, trials) > _critical((m - 1) ** 2)


def test_permutation_sampler_is_uniform() -> None:
    m, trials = 10, 20000
    rng = DeterministicRng(b"fisher-yates")
    counts = [[0] * m for _ in range(m)]
    for _ in range(trials):
        perm = _permutation(rng, m)
        for out_pos, src in enumerate(perm):
            counts[src][out_pos] += 1
    assert _chi_square(counts, trials) < _critical((m - 1) ** 2)
