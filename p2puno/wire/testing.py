"""TEST ONLY: the inputs a hostile peer can send the decoder, as large as a cap lets them be
(tests/wire/test_cost.py counts their cost, scripts/bench_decode.py times it)."""

from __future__ import annotations

import random

__all__ = ["keys_object"]


def keys_object(cap: int, order: str, prefix: str = "k") -> bytes:
    """One JSON object of as many keys ``"<prefix>000000":0, ...`` as ``cap`` bytes hold:
    ``order`` "in order" (canonical), "shuffled" (a fixed shuffle) or "last two swapped"."""
    members: list[bytes] = []
    size = 2
    while True:
        m = f'"{prefix}{len(members):06d}":0'.encode()
        if size + len(m) + 1 > cap:
            break
        members.append(m)
        size += len(m) + 1
    if order == "shuffled":
        random.Random(0).shuffle(members)
    elif order == "last two swapped":
        members[-1], members[-2] = members[-2], members[-1]
    elif order != "in order":
        raise ValueError(f"no order {order!r}")
    return b"{" + b",".join(members) + b"}"
