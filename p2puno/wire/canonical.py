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
type, and the work is bounded by the size cap (linear parse, no recursion past the depth cap).
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable
from itertools import accumulate
from typing import Final, TypeAlias, cast

__all__ = [
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

_MAX_INT_DIGITS: Final = len(str(MAX_SAFE_INT))  # 16
_escape: Final = json.encoder.encode_basestring


class Code(enum.Enum):
    """Why an input was rejected: stable codes, used by the protocol's test vectors."""

    TYPE = "type"  # a Python value outside the value model (encode) / not bytes (decode)
    SIZE = "size"  # over the size cap
    DEPTH = "depth"  # nested deeper than the cap
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


def _parse_int(s: str) -> int:
    # Called by json with the literal text; check length before int() so work stays linear.
    digits = len(s) - (s[0] == "-")
    if digits > _MAX_INT_DIGITS:
        raise _Reject(Code.INT_RANGE, "integer outside +-(2**53-1)")
    n = int(s)  # json hands over only literals of its grammar: -?(0|[1-9][0-9]*)
    if not -MAX_SAFE_INT <= n <= MAX_SAFE_INT:
        raise _Reject(Code.INT_RANGE, "integer outside +-(2**53-1)")
    if s == "-0":
        raise _Reject(Code.NON_CANONICAL, "-0 is not canonical")
    return n


def _parse_float(s: str) -> object:
    raise _Reject(Code.FLOAT, "fractions and exponents are not allowed")


def _parse_constant(s: str) -> object:
    raise _Reject(Code.FLOAT, f"{s} is not allowed")


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _Reject(Code.DUPLICATE_KEY, f"duplicate key {k[:40]!r}")
            seen.add(k)
    return d


class _Unsorted(Exception):
    """Keys out of order: not canonical, but left to the exact path to say precisely why."""


def _sorted_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # (the fast path's hook, once per object: a duplicate key is left to the exact path too,
    # which words it; strictly increasing keys have none)
    d = dict(pairs)
    if len(d) != len(pairs) or list(d) != sorted(d):  # code-point order: UTF-16 order for
        raise _Unsorted  # the ASCII keys it sees
    return d


_decoder: Final = json.JSONDecoder(
    object_pairs_hook=_pairs,
    parse_float=_parse_float,
    parse_int=_parse_int,
    parse_constant=_parse_constant,
    strict=True,
)
_sorting_decoder: Final = json.JSONDecoder(  # integers by the C scanner: see below
    object_pairs_hook=_sorted_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
    strict=True,
)
# the C scanner itself, without raw_decode's Python wrapper (which only turns its
# StopIteration into a JSONDecodeError: the fast path treats both alike)
# (an attribute JSONDecoder.__init__ sets, which typeshed does not declare)
_ScanOnce: TypeAlias = Callable[[str, int], tuple[object, int]]
_scan_sorted: Final[_ScanOnce] = _sorting_decoder.scan_once  # type: ignore[attr-defined]
# Integers the fast path leaves to the exact one: 16 digits or more (the safe range ends at
# 9007199254740991; this pattern) and -0 (found by `in`). Checked on the text outside strings,
# so no hook runs per integer.
_LONG_INT_RE: Final = re.compile(r"[0-9]{16}")


def decode(
    data: bytes, *, max_size: int = DEFAULT_MAX_SIZE, max_depth: int = DEFAULT_MAX_DEPTH
) -> JSONValue:
    """Parse canonical bytes; raise EncodingError for anything else.

    Rejects: non-bytes input, more than ``max_size`` bytes, non-UTF-8 (including encoded
    surrogates), invalid JSON (a leading BOM too: it decodes to U+FEFF, which is not JSON
    outside a string, so it is ``syntax``), duplicate keys, floats/exponents/NaN/Infinity,
    integers outside the safe range, escaped lone surrogates, nesting deeper than
    ``max_depth``, and any input that is not byte-for-byte the canonical encoding of its
    value (whitespace, key order, optional escapes, ``-0``...).
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
    if data.isascii() and b"\\" not in data:
        fast = _decode_plain_ascii(text, max_depth)
        if fast is not _NOT_SURE:
            return cast(JSONValue, fast)
    try:
        value, end = _decoder.raw_decode(text)
    except _Reject as e:
        raise EncodingError(e.code, str(e)) from None
    except RecursionError:
        raise EncodingError(Code.DEPTH, "nesting too deep") from None
    except ValueError as e:  # json.JSONDecodeError and friends
        if text[:1].isspace():
            raise EncodingError(Code.NON_CANONICAL, "leading whitespace") from None
        raise EncodingError(Code.SYNTAX, f"invalid JSON: {str(e)[:80]}") from None
    if end != len(text):
        if text[end:].isspace():
            raise EncodingError(Code.NON_CANONICAL, "trailing whitespace")
        raise EncodingError(Code.SYNTAX, f"extra data at character {end}")
    result: JSONValue = value
    if data.isascii():
        if not _depth_within(text, max_depth):  # (what encode would find, walking the value)
            raise EncodingError(Code.DEPTH, f"nesting deeper than {max_depth}")
        if _fast_canonical(result, text):
            return result
    again = encode(result, max_depth=max_depth)  # DEPTH / UTF8 (lone surrogate) raise here
    if again != data:
        raise EncodingError(Code.NON_CANONICAL, _first_difference(data, again))
    return result


_NOT_SURE: Final = object()


def _decode_plain_ascii(text: str, max_depth: int) -> object:
    """Accept-only fast path for ASCII text without a backslash: the value, or ``_NOT_SURE``
    (or the DEPTH error: no spelling of a value nested too deep is canonical).

    Such text is canonical exactly when no JSON whitespace stands outside its strings and
    every object's keys are in order: with no backslash no string holds an escape (and json
    refuses raw control characters in strings), ``true``/``false``/``null`` have one spelling,
    the parse refuses every other spelling of a number (floats by the hook, leading zeros by
    the grammar; -0 and long integers go to the exact path). So no re-encoding is needed; any
    doubt goes to the exact path, which also words the error.
    """
    try:
        value, end = _scan_sorted(text, 0)
    except (_Reject, _Unsorted, RecursionError, ValueError, StopIteration):
        return _NOT_SURE
    if end != len(text):
        return _NOT_SURE
    outside = "".join(text.split('"')[::2])  # no backslash: every quote opens or closes a string
    # JSON's whitespace, then the integers left to the exact path (spelt out: a generator
    # over the four and one alternation for the integers cost a tenth of a decode)
    if (
        " " in outside
        or "\n" in outside
        or "\r" in outside
        or "\t" in outside
        or "-0" in outside
        or _LONG_INT_RE.search(outside)
    ):
        return _NOT_SURE
    if not _nesting_within(outside, max_depth):  # (valid JSON: so is its value)
        raise EncodingError(Code.DEPTH, f"nesting deeper than {max_depth}")
    return value


def _fast_canonical(value: JSONValue, text: str) -> bool:
    """Accept-only fast path for ASCII input (where code-point order is UTF-16 order) nested
    within the cap.

    The value came from our own parser (types and integer range already checked), so the C
    encoder with sorted keys reproduces the canonical form. Any mismatch falls back to the
    exact Python encoder, which also picks the precise error code.
    """
    try:
        again = _fast_dumps(value)
    except (ValueError, RecursionError):
        return False
    return again == text


_STRING_RE: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')


def _depth_within(text: str, limit: int) -> bool:
    """Whether valid JSON ``text`` nests objects and arrays at most ``limit`` deep.

    Works on the text with C-speed scans instead of walking the parsed value: drop the
    strings (their brackets are not structure), then peel the innermost brackets one level
    per pass.
    """
    if text.count("[") + text.count("{") <= limit:  # counts string contents too: an upper bound
        return True
    return _nesting_within(_STRING_RE.sub("", text), limit)


def _nesting_within(t: str, limit: int) -> bool:
    """:func:`_depth_within` for text already without strings: one pass over its brackets
    (the depth after each is a running sum; C-speed scans). Peeling the innermost level per
    pass took up to ``limit`` passes: a crafted 256 KiB entry cost 36 times a plain decode (a
    code review), ahead of its signature check."""
    if t.count("[") + t.count("{") <= limit:
        return True
    brackets = _NOT_BRACKET_RE.sub("", t)
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) <= limit


_NOT_BRACKET_RE: Final = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


_fast_dumps: Final = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
).encode


def _first_difference(got: bytes, canonical: bytes) -> str:
    i = 0
    for a, b in zip(got, canonical, strict=False):
        if a != b:
            break
        i += 1
    return f"not the canonical encoding (first difference at byte {i})"


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
