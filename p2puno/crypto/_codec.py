"""Strict decoding helpers for the JSON value model (no floats, bytes as lowercase hex)."""

from __future__ import annotations

from typing import Any

from .errors import CryptoFormatError


def want_dict(obj: object, keys: set[str], type_tag: str | None = None) -> dict[str, Any]:
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
