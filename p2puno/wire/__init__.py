"""Wire-level building blocks: the canonical encoding (sans-IO, no sockets here)."""

from p2puno.wire.canonical import (
    DEFAULT_MAX_CONTAINERS,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_SIZE,
    MAX_SAFE_INT,
    Code,
    EncodingError,
    JSONValue,
    b2h,
    decode,
    encode,
    h2b,
)

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
