"""What decoding the worst inputs a peer can send costs (docs/encoding.md, "Cost now";
docs/security.md, "The CPU one peer can cost"), counted in parses, scans and re-encodings,
never timed (a shared box's timings are noise: scripts/bench_decode.py measures them)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from p2puno.wire import Code, EncodingError, decode
from p2puno.wire.canonical import DEFAULT_MAX_SIZE
from p2puno.wire.testing import keys_object

CAP = DEFAULT_MAX_SIZE


def _object(order: str, prefix: str = "k") -> bytes:
    """One object of as many keys as the cap holds: "in order" (canonical), "shuffled" or
    "swapped" (the last two keys)."""
    return keys_object(CAP, "last two swapped" if order == "swapped" else order, prefix)


def _list(item: bytes, tail: bytes = b"]") -> bytes:
    n = (CAP - 1 - len(tail) + 1) // (len(item) + 1)
    data = b"[" + b",".join([item] * n) + tail
    assert len(data) <= CAP
    return data


def _cost(data: bytes) -> tuple[float, Code | None]:
    # (this thread's CPU: a wait for a core on a loaded machine is not the decoder's cost)
    start = time.thread_time()
    code = None
    try:
        decode(data)
    except EncodingError as e:
        code = e.code
    return time.thread_time() - start, code


def _parses(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[Code | None, int, int, int]:
    """Decode ``data`` counting its work: the error code (None: taken), the fast path's scans,
    the exact path's parses (json's raw_decode) and the re-encodings to compare. Counted, not
    timed: a timing on a shared box is noise (the figures are scripts/bench_decode.py's)."""
    import json

    from p2puno.wire import canonical

    counts = [0, 0, 0]

    def counting(k: int, f: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            counts[k] += 1
            return f(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(canonical, "_scan_sorted", counting(0, canonical._scan_sorted))
    monkeypatch.setattr(canonical, "_scan_utf16_sorted", counting(0, canonical._scan_utf16_sorted))
    monkeypatch.setattr(json.JSONDecoder, "raw_decode", counting(1, json.JSONDecoder.raw_decode))
    monkeypatch.setattr(canonical, "_dumps", counting(2, canonical._dumps))
    code = _cost(data)[1]
    return code, counts[0], counts[1], counts[2]


@pytest.mark.parametrize(
    "data",
    [_object("shuffled"), _object("swapped"), _object("shuffled", "\u00e9")],
    ids=["shuffled", "last two swapped", "e-acute keys shuffled"],
)
def test_keys_out_of_order_cost_about_what_keys_in_order_do(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/encoding.md "Cost now": one object of many keys out of order cost 3 to 4 times the
    same keys in order (helper-69: 100-177 ms per 256 KiB): the parse stopped at the object,
    then the exact path parsed it all again, sorted its keys and re-encoded it to word the
    error; e-acute keys were sorted by a Python call per key. Now one parse counts the
    object as out of order (spec 2: `non_canonical`) and nothing is parsed again or
    re-encoded."""
    assert _parses(data, monkeypatch) == (Code.NON_CANONICAL, 1, 0, 0)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (_list(b"0", b"]x"), Code.SYNTAX),
        (_list(b"0", b"] "), Code.NON_CANONICAL),
        (_list(b"0", b",1.5]"), Code.FLOAT),
        (_object("swapped"), Code.NON_CANONICAL),
        (b"{" + b'"a":0,' * 40_000 + b'"a":0}', Code.DUPLICATE_KEY),
    ],
    ids=["then x", "then a space", "then a float", "keys swapped", "a key repeated"],
)
def test_a_fault_is_worded_by_the_one_parse(
    data: bytes, code: Code, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/encoding.md "Performance note": a fault found in or after the parse (here after
    256 KiB of `0,` or of keys) sent the text to the exact path, which parsed it all again
    with json's raw_decode to word the error (1.5 to 4 times the cost of the text without the
    fault); now the one parse words it, with the same code (spec 2). Counted, not timed."""
    import json

    calls: list[int] = []
    raw_decode = json.JSONDecoder.raw_decode

    def counted(self: json.JSONDecoder, s: str, idx: int = 0) -> tuple[object, int]:
        calls.append(idx)
        return raw_decode(self, s, idx)

    monkeypatch.setattr(json.JSONDecoder, "raw_decode", counted)
    assert _cost(data)[1] is code
    assert calls == []


@contextlib.contextmanager
def _int_digits(limit: int) -> Iterator[None]:
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(limit)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def test_a_long_integer_never_reaches_int(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/security.md "The CPU one peer can cost": with PYTHONINTMAXSTRDIGITS=0 a node
    converted a long integer literal in quadratic time (0.5-1.8 s for 256 KiB of digits,
    650 times a C scan of the same bytes). Now a run of 17 digits or more is refused on the
    text before the parse (spec 2: `int_range`): nothing parses it."""
    with _int_digits(0):
        got = _parses(b"[" + b"1" * (CAP - 2) + b"]", monkeypatch)
    assert got == (Code.INT_RANGE, 0, 0, 0)


def test_integers_under_the_digit_limit_are_not_converted(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/encoding.md "What decode rejects": under Python's 4,300-digit limit int() still
    converted each run (10 times a C scan of the same bytes for 256 KiB of 4,300-digit
    integers, each refused only after the parse); now refused before it (`int_range`)."""
    assert _parses(_list(b"1" * 4300), monkeypatch) == (Code.INT_RANGE, 0, 0, 0)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"[1.5,12345678901234567]", Code.INT_RANGE),  # the long integer first, then the float
        (b'[12345678901234567,"a":1]', Code.INT_RANGE),
        (b"[1.5,1234567890123456789012]", Code.INT_RANGE),
        # one fault each: the digits of a float are not an integer's, nor those glued to a word
        (b"[1,12345678901234567.5]", Code.FLOAT),
        (b"[1.12345678901234567]", Code.FLOAT),
        (b"[1e12345678901234567]", Code.FLOAT),
        (b"[1E-12345678901234567]", Code.FLOAT),
        (b"[12345678901234567e+5]", Code.FLOAT),
        (b"[null12345678901234567]", Code.SYNTAX),
        (b'["12345678901234567"]', None),
        (b'[1234567890"x"1234567]', Code.SYNTAX),  # (helper-74: no run of 17 digits here)
        (b"[9007199254740992,1.5]", Code.FLOAT),  # 16 digits: the parser's fault first
    ],
)
def test_an_integer_of_17_digits_is_refused_before_the_parse(
    data: bytes, code: Code | None
) -> None:
    """docs/encoding.md "Which code, for text with several faults": an integer of 17 digits or
    more is `int_range` before any parse fault (the parser's first fault came first before:
    `[1.5,12345678901234567]` was `float`); a float's long digits are still `float`."""
    assert _cost(data)[1] is code
