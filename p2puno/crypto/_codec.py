"""Strict decoding helpers for the JSON value model (no floats, bytes as lowercase hex)."""

from __future__ import annotations

from typing import Any

from .errors import CryptoFormatError


def want_dict(obj: object, keys: set[str], type_tag: str | None = None) -> dict[str, Any]:
    if (  # the common case, accepted at once: exactly ``keys`` and the right "type"
        type(obj) is dict
        and type_tag is not None
        and len(obj) == len(keys) + 1
        and obj.get("type") == type_tag
        and obj.keys() >= keys
    ):
        return obj
    if not isinstance(obj, dict):
        raise CryptoFormatError("expected an object")
    if not all(isinstance(k, str) for k in obj):
        raise CryptoFormatError("object keys must be strings")
    expected = set(keys) | ({"type"} if type_tag is not None else set())
    if set(obj) != expected:
        raise CryptoFormatError("unexpected fields" if set(obj) - expected else "missing fields")
    if type_tag is not None and obj["type"] != type_tag:
        raise CryptoFormatError(f"expected type {type_tag!r}")
    return obj


def get_int(d: dict[str, Any], key: str, lo: int, hi: int) -> int:
    return want_int(d[key], lo, hi, key)


def want_int(v: object, lo: int, hi: int, what: str) -> int:
    if type(v) is not int:
        raise CryptoFormatError(f"{what}: expected an integer")
    if not lo <= v <= hi:
        raise CryptoFormatError(f"{what}: out of range")
    return v


def get_str(d: dict[str, Any], key: str, max_len: int) -> str:
    v = d[key]
    if not isinstance(v, str) or len(v) > max_len:
        raise CryptoFormatError(f"{key}: expected a short string")
    return v


def want_hex(v: object, nbytes: int | None, what: str, max_bytes: int = 1 << 20) -> bytes:
    if not isinstance(v, str):
        raise CryptoFormatError(f"{what}: expected a hex string")
    if nbytes is not None and len(v) != 2 * nbytes:
        raise CryptoFormatError(f"{what}: wrong length")
    if len(v) % 2 or len(v) > 2 * max_bytes:
        raise CryptoFormatError(f"{what}: not lowercase hex")
    try:
        data = bytes.fromhex(v)
    except ValueError:
        data = None
    if data is None or data.hex() != v:  # fromhex takes uppercase and spaces too
        raise CryptoFormatError(f"{what}: not lowercase hex")
    return data


def get_hex(d: dict[str, Any], key: str, nbytes: int | None, max_bytes: int = 1 << 20) -> bytes:
    return want_hex(d[key], nbytes, key, max_bytes)


def get_list(d: dict[str, Any], key: str, lo: int, hi: int) -> list[Any]:
    v = d[key]
    if not isinstance(v, list):
        raise CryptoFormatError(f"{key}: expected a list")
    if not lo <= len(v) <= hi:
        raise CryptoFormatError(f"{key}: wrong number of entries")
    return v


def hex_list(v: object, nbytes: int, below: str | None = None) -> list[bytes] | None:
    """Accept-only fast path for a list of hex fields: each entry as :func:`want_hex` with
    ``nbytes`` would return it (and, with ``below``, a lowercase hex string of that length,
    each under it), or ``None``, and the caller takes the exact path (which words the error).

    One join and one round trip for the whole list: the join is lowercase hex exactly when
    every entry is, since every entry has the same even length.
    """
    if type(v) is not list or not v:
        return None
    width = 2 * nbytes
    try:
        joined = "".join(v)
    except TypeError:
        return None
    if len(joined) != width * len(v) or set(map(len, v)) != {width}:
        return None
    if below is not None and max(v) >= below:  # lowercase hex of one length: text order is
        return None  # numeric order
    try:
        data = bytes.fromhex(joined)
    except ValueError:
        return None
    if data.hex() != joined:
        return None
    return [data[i : i + nbytes] for i in range(0, len(data), nbytes)]
