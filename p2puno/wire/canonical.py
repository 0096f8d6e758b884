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
import re
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
    """``keys`` in canonical order: by UTF-16 code units, which is code-point order unless
    a key holds a character above U+FFFF (RFC 8785 section 3.2.3)."""
    return sorted(keys) if "".join(keys).isascii() else sorted(keys, key=_utf16_key)


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # (the exact path's hook: the object with its members in canonical order, so that the C
    # encoder, which keeps the order it is given, writes the canonical bytes of the value)
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _Reject(Code.DUPLICATE_KEY, f"duplicate key {k[:40]!r}")
            seen.add(k)
    keys = list(d)
    order = _key_order(keys)
    return d if order == keys else {k: d[k] for k in order}


class _Unsorted(Exception):
    """Keys out of order: not canonical, but left to the exact path to say precisely why."""


def _sorted_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # (the fast path's hook for ASCII text without escapes, once per object: a duplicate key
    # is left to the exact path too, which words it; strictly increasing keys have none)
    d = dict(pairs)
    if len(d) != len(pairs) or list(d) != sorted(d):  # code-point order: UTF-16 order for
        raise _Unsorted  # the ASCII keys it sees
    return d


def _utf16_sorted_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # (the same for other text)
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _Unsorted
    keys = list(d)
    if keys != _key_order(keys):
        raise _Unsorted
    return d


# Integers are parsed by the C scanner in both decoders (no hook per integer: 256 KiB of `0,`
# cost 50-100 ms through one) and checked on the text instead (_check_ints).
_decoder: Final = json.JSONDecoder(  # the exact path's
    object_pairs_hook=_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
    strict=True,
)
_sorting_decoder: Final = json.JSONDecoder(  # integers by the C scanner: see below
    object_pairs_hook=_sorted_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
    strict=True,
)
_utf16_sorting_decoder: Final = json.JSONDecoder(
    object_pairs_hook=_utf16_sorted_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
    strict=True,
)
# the C scanner itself, without raw_decode's Python wrapper (which only turns its
# StopIteration into a JSONDecodeError: the fast path treats both alike)
# (an attribute JSONDecoder.__init__ sets, which typeshed does not declare)
_ScanOnce: TypeAlias = Callable[[str, int], tuple[object, int]]
_scan_sorted: Final[_ScanOnce] = _sorting_decoder.scan_once  # type: ignore[attr-defined]
_scan_utf16_sorted: Final[_ScanOnce] = _utf16_sorting_decoder.scan_once  # type: ignore[attr-defined]
# Integers the fast path leaves to the exact one: -0 (found by `in`) and those past the safe
# range (which ends at 9007199254740991: 16 digits; the runs of 16 or more are found by this
# pattern and compared as text). Checked on the text outside strings, so no hook runs per
# integer.
_LONG_INT_RE: Final = re.compile(r"[0-9]{16,}")
_MAX_SAFE_TEXT: Final = str(MAX_SAFE_INT)
_BAD_INT_RE: Final = re.compile(r"-0|[0-9]{16,}")


def decode(
    data: bytes,
    *,
    max_size: int = DEFAULT_MAX_SIZE,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_containers: int = DEFAULT_MAX_CONTAINERS,
) -> JSONValue:
    """Parse canonical bytes; raise EncodingError for anything else.

    Rejects: non-bytes input, more than ``max_size`` bytes, non-UTF-8 (including encoded
    surrogates), more than ``max_containers`` objects and arrays (in this order, all before
    any parse), invalid JSON (a leading BOM too: it decodes to U+FEFF, which is not JSON
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
    if not _containers_within(text, max_containers):
        raise EncodingError(Code.CONTAINERS, f"more than {max_containers} objects and arrays")
    # (the fast path takes what the C scanner takes, which reads ASCII digits only; the
    # pure-Python one, where there is no C one, took `1` and U+0661 for 11: helper-69)
    fast = _decode_fast(text, max_depth, data.isascii()) if _C_SCANNER else _NOT_SURE
    if type(fast) is _Misspelt:
        result: JSONValue = fast.value  # (its keys in order, its integers fine, not too deep)
    elif fast is not _NOT_SURE:
        return cast(JSONValue, fast)
    else:
        # The exact parse, for text the C parser refused (or whose keys are out of order), to
        # word its error: the parser's first (a hook per object, the container cap bounds
        # them), then the first integer fault, then the rest.
        try:
            value, end = _decoder.raw_decode(text)
        except _Reject as e:
            raise EncodingError(e.code, str(e)) from None
        except RecursionError:
            raise EncodingError(Code.DEPTH, "nesting too deep") from None
        except json.JSONDecodeError as e:
            if text[:1].isspace():
                raise EncodingError(Code.NON_CANONICAL, "leading whitespace") from None
            raise EncodingError(Code.SYNTAX, f"invalid JSON: {str(e)[:80]}") from None
        except ValueError:  # int() past its 4,300 digits
            raise EncodingError(Code.INT_RANGE, "integer outside +-(2**53-1)") from None
        outside = _outside_strings(text[:end], "\\" in text)
        _check_ints(outside)  # (what the parse took: before what follows it)
        if end != len(text):
            if text[end:].isspace():
                raise EncodingError(Code.NON_CANONICAL, "trailing whitespace")
            raise EncodingError(Code.SYNTAX, f"extra data at character {end}")
        result = value
        if not _nesting_within(outside, max_depth):  # (what encode would find, walking it)
            raise EncodingError(Code.DEPTH, f"nesting deeper than {max_depth}")
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


_NOT_SURE: Final = object()
_C_SCANNER: Final = json.scanner.c_make_scanner is not None  # type: ignore[attr-defined]


class _Misspelt:
    """What the fast path parsed, keys in order and integers fine, but not canonically spelt
    (whitespace, escapes): only the position of the first wrong byte is left to find."""

    __slots__ = ("value",)

    def __init__(self, value: JSONValue) -> None:
        self.value = value


def _decode_fast(text: str, max_depth: int, is_ascii: bool = False) -> object:
    """The fast path, C-speed but for one hook per object: the value of canonical ``text``;
    else ``_NOT_SURE`` where the C parser refused it (or its keys are out of order), or a
    :class:`_Misspelt` where only its spelling is wrong, or the error for an integer (-0, past
    the safe range: the first, as the exact parse would) or for nesting too deep.
    It takes every canonical text, so the exact path only words errors.

    Text without a backslash is canonical exactly when no JSON whitespace stands outside its
    strings and every object's keys are in canonical order (the hook): no string holds an
    escape (and json refuses raw control characters in strings; every other character is
    literal in canonical form), ``true``/``false``/``null`` have one spelling, the parse
    refuses every other spelling of a number (floats by the hook, leading zeros by the
    grammar; -0 and integers past the safe range go to the exact path). Text with one also
    needs its escapes canonical: the C encoder, keeping the text's key order, must give the
    text back.
    """
    escaped = "\\" in text
    # (keys are ASCII in ASCII text without escapes: there code-point order is UTF-16 order)
    scan = _scan_sorted if is_ascii and not escaped else _scan_utf16_sorted
    try:
        value, end = scan(text, 0)
    except (_Reject, _Unsorted, RecursionError, ValueError, StopIteration):
        return _NOT_SURE
    if end != len(text):
        return _NOT_SURE
    # (inline, as below: this runs for every entry of a replay)
    outside = _outside_strings(text) if escaped else "".join(text.split('"')[::2])
    if "-0" in outside or _LONG_INT_RE.search(outside):
        _check_ints(outside)
    if not _nesting_within(outside, max_depth):  # (valid JSON: so is its value)
        raise EncodingError(Code.DEPTH, f"nesting deeper than {max_depth}")
    # JSON's whitespace (spelt out: a generator over the four cost a tenth of a decode)
    if " " in outside or "\n" in outside or "\r" in outside or "\t" in outside:
        return _Misspelt(cast(JSONValue, value))
    if escaped and _dumps(value) != text:
        return _Misspelt(cast(JSONValue, value))
    return value


def _check_ints(outside: str) -> None:
    """Refuse the first integer out of the model in ``outside``, JSON text without its strings
    (so every run of digits there is an integer, and "-0" is one: -01 does not parse)."""
    if "-0" in outside or _LONG_INT_RE.search(outside):
        for m in _BAD_INT_RE.finditer(outside):  # (Python per long integer only)
            if m[0] == "-0":
                raise EncodingError(Code.NON_CANONICAL, "-0 is not canonical")
            if len(m[0]) > len(_MAX_SAFE_TEXT) or m[0] > _MAX_SAFE_TEXT:
                raise EncodingError(Code.INT_RANGE, "integer outside +-(2**53-1)")


def _outside_strings(text: str, escaped: bool = True) -> str:
    """The characters of ``text`` outside its strings (for JSON text), at C speed: drop each
    escaped backslash, then each escaped quote (left to right, so ``\\\\\\"`` is both),
    and every other piece between quotes is a string. Linear on any text. (Not a string
    regex: on text that is not JSON, a quote followed only by escaped quotes makes it retry
    at each of them, quadratic.)"""
    if escaped:
        text = text.replace("\\\\", "").replace('\\"', "")
    return "".join(text.split('"')[::2])


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
