"""Cards and notation. Sheet 002 · Contents lists the deck."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2puno.engine import NotationError, parse_action, parse_face
from p2puno.engine.actions import Kind
from p2puno.engine.cards import CARD_POINTS, CARD_TEXT, DECK_SIZE, cards_with_face


def test_deck_matches_002_contents() -> None:
    # 002 · Contents: "108 cards as follows: 19 Blue cards - 0 to 9 ... 8 Draw Two cards - 2 each
    # in blue, green, red and yellow ... 4 Wild cards, 4 Wild Draw Four cards"
    assert DECK_SIZE == 108
    faces = Counter(CARD_TEXT)
    for color in "rygb":
        assert sum(faces[f"{color}{n}"] for n in range(10)) == 19
        assert faces[f"{color}0"] == 1
        for sym in ("S", "R", "+2"):
            assert faces[color + sym] == 2
    assert faces["W"] == 4
    assert faces["W+4"] == 4


def test_points_match_002_scoring() -> None:
    # 002 · Scoring: "All number cards (0-9) Face Value; Draw Two 20; Reverse 20; Skip 20;
    # Wild 50; Wild Draw Four 50"
    for c in range(DECK_SIZE):
        text = CARD_TEXT[c]
        if text.startswith("W"):
            assert CARD_POINTS[c] == 50
        elif text[1:] in ("S", "R", "+2"):
            assert CARD_POINTS[c] == 20
        else:
            assert CARD_POINTS[c] == int(text[1:])


@pytest.mark.parametrize("face", sorted(set(CARD_TEXT)))
def test_face_round_trip(face: str) -> None:
    color, rank = parse_face(face)
    assert all(CARD_TEXT[c] == face for c in cards_with_face(color, rank))


@pytest.mark.parametrize("bad", ["", "r", "x7", "r10", "R7", "w", "W+2", "r+4", "g+", " r7", "r7 "])
def test_bad_faces_are_refused(bad: str) -> None:
    with pytest.raises(NotationError):
        parse_face(bad)


ACTIONS = [
    "0 r7#45",
    "0 W#3:g",
    "2 W+4#3:b!",
    "1 g7#9>2",
    "1 jump g7#9>2!",
    "3 jump W#100:r",
    "0 draw",
    "0 keep",
    "0 take",
    "1 challenge",
    "1 guilty",
    "1 innocent",
    "2 uno",
    "3 catch 2",
    "1 color g",
    "9 b+2#107!",
]


@pytest.mark.parametrize("text", ACTIONS)
def test_action_round_trip(text: str) -> None:
    a = parse_action(text)
    assert str(a) == text
    assert parse_action(str(a)) == a


def test_action_fields() -> None:
    a = parse_action("2 W+4#3:b!")
    assert (a.seat, a.kind, a.slot, a.choose, a.uno) == (2, Kind.PLAY, 3, 3, True)
    assert parse_action("3 catch 2").target == 2


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "draw",
        "0",
        "x draw",
        "10 draw",
        "01 draw",
        "0 dance",
        "0 r7",  # no slot
        "0 r7#",
        "0 r7#x",
        "0 r7#007",
        "0 W#3",  # a Wild must name a color
        "0 r7#3:g",  # only a Wild names a color
        "0 W#3:x",
        "0 catch",
        "0 catch x",
        "0 color",
        "0 color gg",
        "0  draw",
        "0 draw extra",
        "0 jump draw",
        "0 r7#3>",
        "0 r7#3>10",
        "² draw",  # Unicode digits: "²" passes str.isdigit, then int() raised ValueError
        "١ draw",  # ... and "١" (Arabic-Indic one) was read as seat 1: a second spelling
        "0 r7#١",
        "0 catch ٢",
    ],
)
def test_bad_actions_are_refused_with_a_reason(bad: str) -> None:
    with pytest.raises(NotationError) as e:
        parse_action(bad)
    assert str(e.value)


@settings(max_examples=2000, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("0123456789 #:!>rgbyWSR+2468dawkjucth²١٢\u0660")))
    | st.text(max_size=20)
)
def test_any_text_is_an_action_or_a_notation_error_and_reads_back_the_same(text: str) -> None:
    """What a seat signs as its action is parsed by every node: any text either gives the one
    action it spells (written back byte for byte: one spelling per action) or a NotationError,
    never another exception (a code review: "²" raised ValueError in every node)."""
    try:
        a = parse_action(text)
    except NotationError:
        return
    assert str(a) == text
