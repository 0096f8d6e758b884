"""The one canonical encoding of everything p2puno signs or hashes.

RFC 8785 (JSON Canonicalization Scheme, "JCS") restricted to a small value model:

* ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, ``bool`` and ``None``;
* no floats at all (no fraction, no exponent, no NaN/Infinity);
* integers bounded to the I-JSON safe range ``|n| <= 2**53 - 1``;
* bytes travel as lowercase hex strings (:func:`b2h` / :func:`h2b`).

Within that model JCS is simply: object members sorted by the UTF-16 code units of their
names, no insignificant whitespace, integers in plain decimal, strings in UTF-8 with only
``"``, ``\\`` and the C0 controls escaped (``\\b \\t \\n \\f \\r`` short forms, others as
``\\u00xx`` with lowercase hex).

:func:`decode` accepts exactly the bytes :func:`encode` produces and nothing else: every
failure is an :class:`EncodingError` with a stable :class:`Code`, never another exception
type, and the work is bounded by the caps: size (linear parse), depth (no recursion past it)
and containers (the objects and arrays one value may hold, counted on the text before any
parse: the hooks run per object, so without it 180 KB of ``[{},{},...]`` cost 107 ms).
"""

from __future__ import annotations

import enum
import json
import operator
import re
import threading
from collections.abc import Callable
from itertools import accumulate
from typing import Final, TypeAlias, cast

__all__ = [
    "DEFAULT_MAX_CONTAINERS",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_SIZE",
    "MAX_SAFE_INT",
    "Code",
    "EncodingError",
    "JSONValue",
    "b2h",
    "decode",
    "encode",
    "h2b",
]

JSONValue: TypeAlias = "bool | int | str | list[JSONValue] | dict[str, JSONValue] | None"

MAX_SAFE_INT: Final = 2**53 - 1
"""Largest integer magnitude allowed (I-JSON / RFC 7493 safe range)."""

DEFAULT_MAX_SIZE: Final = 256 * 1024
"""Default cap on one encoded value, in bytes (one log entry, one message)."""

DEFAULT_MAX_DEPTH: Final = 32
"""Default cap on nesting: at most this many lists/objects inside one another."""

DEFAULT_MAX_CONTAINERS: Final = 1024
"""Default cap on the objects and arrays one value holds (itself included), counted outside
strings. Honest entries hold at most 58 (long 10-seat games, every house rule; 2 seats: 26):
docs/encoding.md says why 1024."""

_escape: Final = json.encoder.encode_basestring


class Code(enum.Enum):
    """Why an input was rejected: stable codes, used by the protocol's test vectors."""

    TYPE = "type"  # a Python value outside the value model (encode) / not bytes (decode)
    SIZE = "size"  # over the size cap
    DEPTH = "depth"  # nested deeper than the cap
    CONTAINERS = "containers"  # more objects and arrays than the cap (checked before parsing)
    UTF8 = "utf8"  # not valid UTF-8 (or a lone surrogate)
    SYNTAX = "syntax"  # not JSON at all
    DUPLICATE_KEY = "duplicate_key"
    FLOAT = "float"  # fraction, exponent, NaN or Infinity
    INT_RANGE = "int_range"  # |n| > 2**53 - 1
    NON_CANONICAL = "non_canonical"  # valid JSON, but not the canonical bytes of its value
    HEX = "hex"  # a hex string that is not lowercase, even-length hex (h2b)


class EncodingError(ValueError):
    """The only exception :func:`encode`, :func:`decode` and :func:`h2b` raise."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code


class _Reject(Exception):
    """Raised inside json's hooks; turned into EncodingError by decode()."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code


def _utf16_key(s: str) -> bytes:
    return s.encode("utf-16-be", "surrogatepass")


def _enc(value: object, out: list[str], depth: int, max_depth: int) -> None:
    # bool before int: bool is a subclass of int.
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif type(value) is str:
        out.append(_escape(value))
    elif type(value) is int:
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise EncodingError(Code.INT_RANGE, "integer outside +-(2**53-1)")
        out.append(str(value))
    elif type(value) is dict:
        if depth >= max_depth:
            raise EncodingError(Code.DEPTH, f"nesting deeper than {max_depth}")
        for k in value:
            if type(k) is not str:
                raise EncodingError(Code.TYPE, f"object key of type {type(k).__name__}")
        out.append("{")
        first = True
        # Code-point order equals UTF-16 order unless non-ASCII keys are involved.
        keys = sorted(value) if "".join(value).isascii() else sorted(value, key=_utf16_key)
        for k in keys:
            if not first:
                out.append(",")
            first = False
            out.append(_escape(k))
            out.append(":")
            _enc(value[k], out, depth + 1, max_depth)
        out.append("}")
    elif type(value) is list:
        if depth >= max_depth:
            raise EncodingError(Code.DEPTH, f"nesting deeper than {max_depth}")
        out.append("[")
        first = True
        for item in value:
            if not first:
                out.append(",")
            first = False
            _enc(item, out, depth + 1, max_depth)
        out.append("]")
    elif isinstance(value, float):
        raise EncodingError(Code.FLOAT, "floats are not allowed")
    else:
        raise EncodingError(Code.TYPE, f"value of type {type(value).__name__} is not encodable")


def encode(value: JSONValue, *, max_depth: int = DEFAULT_MAX_DEPTH) -> bytes:
    """The canonical (RFC 8785) bytes of ``value``; raises EncodingError outside the model.

    Only exact ``dict``/``list``/``str``/``int``/``bool``/``None`` are accepted (no tuples,
    no subclasses, no floats), so a value that encodes also round-trips through decode.
    """
    out: list[str] = []
    try:
        _enc(value, out, 0, max_depth)
        return "".join(out).encode("utf-8")
    except UnicodeEncodeError:
        raise EncodingError(Code.UTF8, "string contains a lone surrogate") from None
    except RecursionError:
        raise EncodingError(Code.DEPTH, "nesting too deep") from None


def _parse_float(s: str) -> object:
    raise _Reject(Code.FLOAT, "fractions and exponents are not allowed")


def _parse_constant(s: str) -> object:
    raise _Reject(Code.FLOAT, f"{s} is not allowed")


def _key_order(keys: list[str]) -> list[str]:
    """``keys`` in canonical order: by UTF-16 code units (RFC 8785 section 3.2.3). That is
    code-point order unless the keys hold both a character above U+FFFF and one in
    U+D800..U+FFFF (only those two ranges compare differently), so the key function, a
    Python call per key, runs only then (5,000 keys with an e-acute sorted by it cost more
    than the rest of their decode, helper-73)."""
    joined = "".join(keys)
    if joined.isascii() or not (_ASTRAL_RE.search(joined) and _HIGH_BMP_RE.search(joined)):
        return sorted(keys)
    return sorted(keys, key=_utf16_key)


_ASTRAL_RE: Final = re.compile("[\U00010000-\U0010ffff]")
_HIGH_BMP_RE: Final = re.compile("[\ud800-\uffff]")


class _Misorders(threading.local):
    """How many objects with keys out of order this thread's fast parses have met. The fast
    path's hooks count such an object and the parse goes on, so one parse finds it, and the
    faults the parser would find after it still come first (stopping there and parsing again
    to word the error cost two parses and a sort: 256 KiB of shuffled keys, 100-177 ms,
    helper-69). Per thread, as a node decodes in a thread pool; and a count that nothing
    resets, so a decode never misses its own: another decode run inside its parse (none is)
    could only make it refuse its text, never take it. (A decoder made per call for a hook
    of its own cost about 4 us: a third of a small entry's decode.)"""

    n = 0


_misorders: Final = _Misorders()


def _duplicate(pairs: list[tuple[str, object]]) -> _Reject:
    seen: set[str] = set()
    for k, _ in pairs:
        if k in seen:
            break
        seen.add(k)
    return _Reject(Code.DUPLICATE_KEY, f"duplicate key {k[:40]!r}")


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # (the plain parse's hook, where there is no C scanner: the object with its members in
    # canonical order, so that the C encoder, which keeps the order it is given, writes the
    # canonical bytes of the value)
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _duplicate(pairs)
    keys = list(d)
    order = _key_order(keys)
    return d if order == keys else {k: d[k] for k in order}


def _sorted_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # (the fast path's hook for ASCII text without escapes, once per object, whose keys are
    # ASCII: there code-point order is UTF-16 order)
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _duplicate(pairs)
    if len(d) <= 16:  # (an honest object: its sort costs less than the scan below)
        if list(d) != sorted(d):
            _misorders.n += 1
    elif not _increasing(list(d)):
        _misorders.n += 1
    return d


def _utf16_sorted_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # (the same for other text)
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _duplicate(pairs)
    keys = list(d)
    joined = "".join(keys)
    if joined.isascii() or not (_ASTRAL_RE.search(joined) and _HIGH_BMP_RE.search(joined)):
        if not _increasing(keys):  # (code-point order is UTF-16 order here: _key_order)
            _misorders.n += 1
    elif not _increasing(list(map(_utf16_key, keys))):
        _misorders.n += 1
    return d


def _increasing(keys: list[str] | list[bytes]) -> bool:
    """Whether distinct ``keys`` are in order: one C-speed pass that stops at the first pair
    out of order (sorting 5,000 shuffled keys to compare cost 1-2 ms, helper-73)."""
    return all(map(_lt, keys, keys[1:]))


_lt: Final = operator.lt


# Integers are parsed by the C scanner (no hook per integer: 256 KiB of `0,` cost 50-100 ms
# through one) and checked on the text instead (_check_ints, _TOO_LONG_INT_RE).
_decoder: Final = json.JSONDecoder(  # the plain parse's, where there is no C scanner
    object_pairs_hook=_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
    strict=True,
)
_sorting_decoder: Final = json.JSONDecoder(  # the fast path's, for ASCII text without escapes
    object_pairs_hook=_sorted_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
    strict=True,
)
_utf16_sorting_decoder: Final = json.JSONDecoder(  # the fast path's, for other text
    object_pairs_hook=_utf16_sorted_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
    strict=True,
)
# the C scanner itself, without raw_decode's Python wrapper (which only turns its
# StopIteration into a JSONDecodeError: done here as it does)
# (an attribute JSONDecoder.__init__ sets, which typeshed does not declare)
_ScanOnce: TypeAlias = Callable[[str, int], tuple[object, int]]
_scan_sorted: Final[_ScanOnce] = _sorting_decoder.scan_once  # type: ignore[attr-defined]
_scan_utf16_sorted: Final[_ScanOnce] = _utf16_sorting_decoder.scan_once  # type: ignore[attr-defined]
# Integers out of the model: -0 (found by `in`) and those past the safe range (which ends at
# 9007199254740991: 16 digits; the runs of 16 or more are found by this pattern and compared
# as text). Checked on the text outside strings, so no hook runs per integer.
_LONG_INT_RE: Final = re.compile(r"[0-9]{16,}")
_LONGER_INT_RE: Final = re.compile(r"[0-9]{17}")
_DIGITS_AS_ZERO: Final = str.maketrans("123456789", "000000000")


def _digit_run(outside: str) -> int:
    """0 if ``outside`` holds no run of 16 digits or more, else 16, or 17 if one has 17 or
    more: for long ASCII text (JSON's outside its strings), every digit made 0 and runs of
    zeros searched (C-speed: a tenth of the cost of a pattern, which tries a match at every
    digit, 1 ms on 64 KiB of `0,`)."""
    if len(outside) > 256 and outside.isascii():  # (shorter: the pattern costs less)
        zeros = outside.translate(_DIGITS_AS_ZERO)
        return 0 if "0" * 16 not in zeros else 17 if "0" * 17 in zeros else 16
    m = _LONG_INT_RE.search(outside)
    return 0 if m is None else 17 if _LONGER_INT_RE.search(outside, m.start()) else 16


_MAX_SAFE_TEXT: Final = str(MAX_SAFE_INT)
_BAD_INT_RE: Final = re.compile(r"-0|[0-9]{16,}")


# An integer of 17 digits or more, refused on the text before the parse, so that int() never
# converts one (it is quadratic in the digits: with PYTHONINTMAXSTRDIGITS=0 a node took
# seconds on one long literal; with Python's 4,300-digit limit each still cost up to 0.25 ms,
# helper-73). A run of digits not glued to a letter, a digit, "." or "+", nor after "e-", and
# not followed by a fraction or an exponent: the digits the parser would read as an integer
# (a fraction's or an exponent's digits, and those of a number with one, are a float).
_TOO_LONG_INT_RE: Final = re.compile(
    r"(?<![0-9A-Za-z.+])(?<![eE]-)[0-9]{17,}(?![0-9]|\.[0-9]|[eE][-+]?[0-9])"
)


def decode(
    data: bytes,
    *,
    max_size: int = DEFAULT_MAX_SIZE,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_containers: int = DEFAULT_MAX_CONTAINERS,
) -> JSONValue:
    """Parse canonical bytes; raise EncodingError for anything else.

    Rejects: non-bytes input, more than ``max_size`` bytes, non-UTF-8 (including encoded
    surrogates), more than ``max_containers`` objects and arrays, an integer of 17 digits or
    more (in this order, all before any parse), invalid JSON (a leading BOM too: it decodes
    to U+FEFF, which is not JSON outside a string, so it is ``syntax``), duplicate keys,
    floats/exponents/NaN/Infinity, integers outside the safe range, escaped lone surrogates,
    nesting deeper than ``max_depth``, and any input that is not byte-for-byte the canonical
    encoding of its value (whitespace, key order, optional escapes, ``-0``...).
    """
    if type(data) is not bytes:  # (bytes, the common case, is taken as it is)
        if not isinstance(data, bytes | bytearray | memoryview):
            raise EncodingError(Code.TYPE, f"expected bytes, got {type(data).__name__}")
        data = bytes(data)
    if len(data) > max_size:
        raise EncodingError(Code.SIZE, f"{len(data)} bytes is over the cap of {max_size}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise EncodingError(Code.UTF8, f"invalid UTF-8 at byte {e.start}") from None
    if not _containers_within(text, max_containers):
        raise EncodingError(Code.CONTAINERS, f"more than {max_containers} objects and arrays")
    # (the C scanner reads ASCII digits only; the pure-Python one, where there is no C one,
    # took `1` and U+0661 for 11: helper-69. Its parse is the plain one, checked by the
    # re-encoding below.)
    parsed = (
        _decode_fast(text, max_depth, data.isascii()) if _C_SCANNER else _parse(text, max_depth)
    )
    if type(parsed) is not _Misspelt:
        return cast(JSONValue, parsed)
    result = parsed.value  # (its keys in order, its integers fine, not too deep)
    # The value's objects are in canonical key order (the hook) and its integers in range, so
    # the C encoder, which escapes strings with the very function encode uses, writes exactly
    # what encode would (a lone surrogate fails as it does there).
    try:
        again = _dumps(result).encode("utf-8")
    except UnicodeEncodeError:
        raise EncodingError(Code.UTF8, "string contains a lone surrogate") from None
    if again != data:
        raise EncodingError(Code.NON_CANONICAL, _first_difference(data, again))
    return result


_C_SCANNER: Final = json.scanner.c_make_scanner is not None  # type: ignore[attr-defined]


class _Misspelt:
    """What the parse gave, keys in order and integers fine, but its text may not be canonical
    (whitespace, escapes; in the plain parse, keys its hook put in order): the re-encoding
    settles it."""

    __slots__ = ("value",)

    def __init__(self, value: JSONValue) -> None:
        self.value = value


def _parse_error(text: str, e: ValueError) -> EncodingError:
    if text[:1].isspace():
        return EncodingError(Code.NON_CANONICAL, "leading whitespace")
    return EncodingError(Code.SYNTAX, f"invalid JSON: {str(e)[:80]}")


def _after_parse(text: str, outside: str, end: int, max_depth: int) -> None:
    """The checks after a parse that took ``text[:end]``, in their order: the first integer
    fault in what the parse took (``outside``: the whole text's, without strings), then what
    follows it, then the nesting."""
    if end != len(text):
        outside = _outside_strings(text[:end], "\\" in text)
        _check_ints(outside)
        if text[end:].isspace():
            raise EncodingError(Code.NON_CANONICAL, "trailing whitespace")
        raise EncodingError(Code.SYNTAX, f"extra data at character {end}")
    _check_ints(outside)
    if not _nesting_within(outside, max_depth):  # (what encode would find, walking it)
        raise EncodingError(Code.DEPTH, f"nesting deeper than {max_depth}")


def _parse(text: str, max_depth: int) -> _Misspelt:
    """The plain parse, where there is no C scanner: everything it takes is re-encoded."""
    outside = _outside_strings(text, "\\" in text)
    if _TOO_LONG_INT_RE.search(outside):
        raise EncodingError(Code.INT_RANGE, "integer outside +-(2**53-1)")
    try:
        value, end = _decoder.raw_decode(text)
    except _Reject as e:
        raise EncodingError(e.code, str(e)) from None
    except RecursionError:
        raise EncodingError(Code.DEPTH, "nesting too deep") from None
    except json.JSONDecodeError as e:
        raise _parse_error(text, e) from None
    except ValueError:  # int() past its digit limit
        raise EncodingError(Code.INT_RANGE, "integer outside +-(2**53-1)") from None
    _after_parse(text, outside, end, max_depth)
    return _Misspelt(cast(JSONValue, value))


def _decode_fast(text: str, max_depth: int, is_ascii: bool = False) -> object:
    """The one parse, with the C scanner (C-speed but for one hook per object): the value of
    canonical ``text``, else a :class:`_Misspelt` where only its spelling may be wrong, else
    the error, in the order ``decode`` gives: an integer of 17 digits or more (on the text,
    before the parse), the parser's first fault, the first integer fault (-0, past the safe
    range), what follows the value, the nesting. It takes every canonical text.

    Text without a backslash is canonical exactly when no JSON whitespace stands outside its
    strings and every object's keys are in canonical order (the hook): no string holds an
    escape (and json refuses raw control characters in strings; every other character is
    literal in canonical form), ``true``/``false``/``null`` have one spelling, the parse
    refuses every other spelling of a number (floats by the hook, leading zeros by the
    grammar; -0 and integers past the safe range by the checks on the text). Text with one
    also needs its escapes canonical: the C encoder, keeping the text's key order, must give
    the text back.
    """
    escaped = "\\" in text
    # (inline, as below: this runs for every entry of a replay)
    outside = _outside_strings(text) if escaped else '"'.join(text.split('"')[::2])
    long_ints = _digit_run(outside)  # (0 for an honest entry)
    if long_ints == 17 and _TOO_LONG_INT_RE.search(outside):
        raise EncodingError(Code.INT_RANGE, "integer outside +-(2**53-1)")
    # (keys are ASCII in ASCII text without escapes: there code-point order is UTF-16 order)
    scan = _scan_sorted if is_ascii and not escaped else _scan_utf16_sorted
    misorders = _misorders.n
    try:
        value, end = scan(text, 0)
    except _Reject as e:
        raise EncodingError(e.code, str(e)) from None
    except RecursionError:
        raise EncodingError(Code.DEPTH, "nesting too deep") from None
    except StopIteration as e:  # (no value where one must start: as raw_decode words it)
        raise _parse_error(text, json.JSONDecodeError("Expecting value", text, e.value)) from None
    except json.JSONDecodeError as e:
        raise _parse_error(text, e) from None
    except ValueError:  # int() past its digit limit (the check above leaves it none)
        raise EncodingError(Code.INT_RANGE, "integer outside +-(2**53-1)") from None
    if end != len(text) or long_ints or "-0" in outside:
        _after_parse(text, outside, end, max_depth)
    elif not _nesting_within(outside, max_depth):  # (valid JSON: so is its value)
        raise EncodingError(Code.DEPTH, f"nesting deeper than {max_depth}")
    if _misorders.n != misorders:  # (an object's keys out of order)
        if escaped:  # (a lone surrogate, escaped, comes first: as the re-encoding finds it)
            try:
                _dumps(value).encode("utf-8")
            except UnicodeEncodeError:
                raise EncodingError(Code.UTF8, "string contains a lone surrogate") from None
        raise EncodingError(Code.NON_CANONICAL, "an object's keys are not in canonical order")
    # JSON's whitespace (spelt out: a generator over the four cost a tenth of a decode)
    if " " in outside or "\n" in outside or "\r" in outside or "\t" in outside:
        return _Misspelt(cast(JSONValue, value))
    if escaped and _dumps(value) != text:
        return _Misspelt(cast(JSONValue, value))
    return value


def _check_ints(outside: str) -> None:
    """Refuse the first integer out of the model in ``outside``, JSON text without its strings
    (so every run of digits there is an integer, and "-0" is one: -01 does not parse)."""
    if "-0" in outside or _digit_run(outside):
        if "-0" not in outside:  # (all fine? C-speed: a loop over 256 KiB of valid ones, 5 ms)
            runs = _LONG_INT_RE.findall(outside)
            if max(map(len, runs)) == len(_MAX_SAFE_TEXT) and max(runs) <= _MAX_SAFE_TEXT:
                return
        for m in _BAD_INT_RE.finditer(outside):  # (the first fault, in text order)
            if m[0] == "-0":
                raise EncodingError(Code.NON_CANONICAL, "-0 is not canonical")
            if len(m[0]) > len(_MAX_SAFE_TEXT) or m[0] > _MAX_SAFE_TEXT:
                raise EncodingError(Code.INT_RANGE, "integer outside +-(2**53-1)")


def _outside_strings(text: str, escaped: bool = True) -> str:
    """The characters of ``text`` outside its strings (for JSON text), at C speed: drop each
    escaped backslash, then each escaped quote (left to right, so ``\\\\\\"`` is both),
    and every other piece between quotes is a string, each left as one quote (so that digits
    either side of a string never read as one run: helper-74's `[1234567890"x"1234567]` was
    an integer of 17 digits). Linear on any text. (Not a string
    regex: on text that is not JSON, a quote followed only by escaped quotes makes it retry
    at each of them, quadratic.)"""
    if escaped:
        text = text.replace("\\\\", "").replace('\\"', "")
    return '"'.join(text.split('"')[::2])


def _containers_within(text: str, limit: int) -> bool:
    """Whether ``text`` holds at most ``limit`` of ``{`` and ``[`` outside strings: for JSON,
    its objects and arrays. Any text, before the parse, in linear time at C speed: the count
    of the whole text first (an upper bound, enough for every honest entry), and only over the
    limit the exact one (:func:`_outside_strings`)."""
    if len(text) <= limit or text.count("{") + text.count("[") <= limit:
        return True
    outside = _outside_strings(text, "\\" in text)
    return outside.count("{") + outside.count("[") <= limit


def _nesting_within(t: str, limit: int) -> bool:
    """Whether valid JSON text already without its strings (:func:`_outside_strings`) nests
    objects and arrays at most ``limit`` deep, on the text instead of walking the parsed
    value: one pass over its brackets (the depth after each is a running sum; C-speed scans).
    Peeling the innermost level per pass took up to ``limit`` passes: a crafted 256 KiB entry
    cost 36 times a plain decode (a code review), ahead of its signature check."""
    if t.count("[") + t.count("{") <= limit:
        return True
    brackets = _NOT_BRACKET_RE.sub("", t)
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) <= limit


_NOT_BRACKET_RE: Final = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


# Keeps each object's key order: the text's in the fast path, the canonical one in the
# exact path (its hook puts it so).
_dumps: Final = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), sort_keys=False, allow_nan=False
).encode


def _first_difference(got: bytes, canonical: bytes) -> str:
    # the longest common prefix, by halving (C-speed compares; a loop over 256 KiB took 15 ms)
    lo, hi = 0, min(len(got), len(canonical))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if got[:mid] == canonical[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return f"not the canonical encoding (first difference at byte {lo})"


def b2h(data: bytes) -> str:
    """Bytes as lowercase hex: the one text form of bytes in the value model."""
    return bytes(data).hex()


def h2b(text: object, length: int | None = None) -> bytes:
    """Lowercase, even-length hex back to bytes (of exactly ``length`` bytes if given).

    Stricter than :meth:`bytes.fromhex`: no uppercase, no whitespace, no ``0x``.
    """
    if type(text) is not str:
        raise EncodingError(Code.HEX, f"expected a hex string, got {type(text).__name__}")
    if length is not None and len(text) != 2 * length and not len(text) % 2:
        raise EncodingError(Code.HEX, f"expected {length} bytes, got {len(text) // 2}")
    try:
        data = bytes.fromhex(text)
    except ValueError:
        data = None
    # fromhex also takes uppercase and spaces: only the round trip proves the one text form
    if data is None or data.hex() != text:
        raise EncodingError(Code.HEX, "not lowercase, even-length hex")
    return data
