"""The list fast paths of the strict decoders accept exactly what the per-entry path accepts."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from p2puno.crypto._codec import hex_list, want_dict, want_hex
from p2puno.crypto.errors import CryptoFormatError
from p2puno.crypto.messages import _ORDER_HEX, _P_HEX, _hexes, _points, _scalars

_ENTRY = st.one_of(
    st.binary(min_size=4, max_size=4).map(bytes.hex),  # right
    st.binary(min_size=4, max_size=4).map(lambda b: b.hex().upper()),  # uppercase
    st.binary(min_size=3, max_size=5).map(bytes.hex),  # wrong length
    st.text(alphabet="0123456789abcdef xg", min_size=7, max_size=9),  # odd, spaces, not hex
    st.integers(),
    st.none(),
)


def _exact(v: list[Any], nbytes: int) -> list[bytes] | None:
    try:
        return [want_hex(x, nbytes, "x") for x in v]
    except CryptoFormatError:
        return None


@given(st.lists(_ENTRY, min_size=1, max_size=6))
def test_hex_list_accepts_exactly_what_want_hex_accepts(v: list[Any]) -> None:
    fast = hex_list(v, 4)
    assert fast is None or fast == _exact(v, 4)
    if all(type(x) is str and len(x) == 8 and x == x.lower() for x in v):
        assert fast == _exact(v, 4)  # the fast path takes every list of good entries


_BIG = st.one_of(
    st.integers(0, 2**256 - 1).map(lambda k: f"{k:064x}"),
    st.sampled_from(["0" * 64, _P_HEX, _ORDER_HEX, f"{int(_ORDER_HEX, 16) - 1:064x}"]),
    st.sampled_from([f"{int(_P_HEX, 16) - 1:064x}", "f" * 64, "F" * 64, "1" * 63]),
)


def _outcome(f: Any, *args: Any) -> object:
    try:
        return f(*args)
    except CryptoFormatError as e:
        return str(e)


@given(st.lists(_BIG, min_size=1, max_size=5))
def test_points_scalars_and_hexes_as_one_entry_at_a_time(v: list[str]) -> None:
    from p2puno.crypto.messages import _want_point, _want_scalar

    assert _outcome(_points, v, "p") == _outcome(lambda: tuple(_want_point(x, "p") for x in v))
    assert _outcome(_scalars, v, "k") == _outcome(lambda: tuple(_want_scalar(x, "k") for x in v))
    assert _outcome(_hexes, v, 32, "h") == _outcome(lambda: tuple(want_hex(x, 32, "h") for x in v))


@given(
    st.one_of(
        st.dictionaries(st.sampled_from(["a", "b", "type", "c"]), st.sampled_from(["t", "u", 1])),
        st.lists(st.none()),
    )
)
def test_want_dict_fast_path_agrees(obj: Any) -> None:
    def slow() -> object:
        # the exact checks, without the fast path in front
        if not isinstance(obj, dict) or set(obj) != {"a", "b", "type"} or obj["type"] != "t":
            return None
        return obj

    got = _outcome(want_dict, obj, {"a", "b"}, "t")
    assert (got if isinstance(got, dict) else None) == slow()
