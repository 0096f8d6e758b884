"""Actions and their text notation (what the signed log and the replay show).

Every action names its actor's seat first, since some actions are taken out of turn::

    0 r7#45        play the card in slot 45, a red 7
    0 W#3:g        play a Wild, naming green
    2 W+4#3:b!     play a Wild Draw Four naming blue, and call UNO with it
    1 g7#9>2       Seven-O: play a 7 and swap hands with seat 2
    1 jump g7#9    Jump-In: play an identical card out of turn
    0 draw         draw a card
    0 keep         keep the drawn card, ending the turn
    0 take         accept a pending penalty (draw it and lose the turn)
    1 challenge    challenge a Wild Draw Four
    1 guilty       the challenger's verdict after seeing the hand (or ``innocent``)
    2 uno          call UNO after the play, while the window is open
    3 catch 2      catch seat 2, who did not call UNO
    1 color g      name the color when a Wild is the start card

A slot is a position in the round's jointly shuffled deck; the face written with it is the
actor's claim, checked against the card once it is revealed. ``parse_action(str(a)) == a``.
"""

from __future__ import annotations

from enum import Enum
from typing import Final, NamedTuple

from p2puno.engine.cards import (
    COLORS,
    WILD,
    WILD_CARD,
    NotationError,
    face_text,
    parse_color,
    parse_face,
)


class Kind(Enum):
    PLAY = "play"
    JUMP = "jump"
    DRAW = "draw"
    KEEP = "keep"
    TAKE = "take"
    CHALLENGE = "challenge"
    GUILTY = "guilty"
    INNOCENT = "innocent"
    UNO = "uno"
    CATCH = "catch"
    COLOR = "color"


_BARE = {k.value: k for k in (Kind.DRAW, Kind.KEEP, Kind.TAKE, Kind.CHALLENGE, Kind.UNO)}
_BARE.update({Kind.GUILTY.value: Kind.GUILTY, Kind.INNOCENT.value: Kind.INNOCENT})

MAX_SEATS: Final = 10


class Action(NamedTuple):
    """One player's action. Build with the helpers below or :func:`parse_action`.

    ``color``/``rank`` are the face claimed for a played card; ``choose`` the color named for
    a Wild (or by ``color``); ``target`` the seat swapped with (Seven-O) or caught.
    A NamedTuple: immutable, hashable, and cheap to build in the engine's hot paths.
    """

    seat: int
    kind: Kind
    slot: int = -1
    color: int = WILD
    rank: int = -1
    choose: int = -1
    target: int = -1
    uno: bool = False

    def __str__(self) -> str:  # the log's notation: "2 r7#45", "0 W#12:g", "1 draw"
        return f"{self.seat} {self.choice_text(True)}"

    def choice_text(self, slot: bool = False) -> str:
        """The action without its seat, as a person types it: ``r7``, ``W:g`` (a Wild naming
        green), ``y7>0`` (a Seven-O swapping with seat 0), ``r7!`` (calling UNO), ``jump g7``,
        ``draw``, ``catch 1``, ``color g``; ``slot``: the card's deck slot too (``r7#45``), as
        the log writes it."""
        k = self.kind
        if k is Kind.PLAY or k is Kind.JUMP:
            body = face_text(self.color, self.rank)
            if slot:
                body += f"#{self.slot}"
            if self.choose >= 0:
                body += ":" + COLORS[self.choose]
            if self.target >= 0:
                body += f">{self.target}"
            if self.uno:
                body += "!"
            return f"jump {body}" if k is Kind.JUMP else body
        if k is Kind.CATCH:
            return f"catch {self.target}"
        if k is Kind.COLOR:
            return f"color {COLORS[self.choose]}"
        return str(k.value)


def play(
    seat: int,
    slot: int,
    color: int,
    rank: int,
    *,
    choose: int = -1,
    target: int = -1,
    uno: bool = False,
    jump: bool = False,
) -> Action:
    return Action(seat, Kind.JUMP if jump else Kind.PLAY, slot, color, rank, choose, target, uno)


_SIMPLE = {(seat, kind): Action(seat, kind) for seat in range(MAX_SEATS) for kind in Kind}


def simple(seat: int, kind: Kind) -> Action:
    """An action with no card (draw, keep, take, challenge, a verdict, uno): built once."""
    return _SIMPLE.get((seat, kind)) or Action(seat, kind)


def catch(seat: int, target: int) -> Action:
    return Action(seat, Kind.CATCH, target=target)


def choose_color(seat: int, color: int) -> Action:
    return Action(seat, Kind.COLOR, choose=color)


def _parse_int(text: str, what: str, limit: int) -> int:
    # (ASCII only: str.isdigit takes "²" and "١", which int() refuses or reads as 1)
    if not (text.isascii() and text.isdigit()) or (len(text) > 1 and text[0] == "0"):
        raise NotationError(f"bad {what}: {text!r}")
    if int(text) >= limit:
        raise NotationError(f"bad {what}: {text!r}")
    return int(text)


def _parse_play(seat: int, body: str, jump: bool) -> Action:
    uno = body.endswith("!")
    if uno:
        body = body[:-1]
    target = -1
    if ">" in body:
        body, _, t = body.partition(">")
        target = _parse_int(t, "seat", MAX_SEATS)
    choose = -1
    if ":" in body:
        body, _, c = body.partition(":")
        choose = parse_color(c)
    face, sep, s = body.partition("#")
    if not sep:
        raise NotationError(f"a played card needs its slot, e.g. r7#45: {body!r}")
    color, rank = parse_face(face)
    slot = _parse_int(s, "slot", 1 << 16)
    if (rank >= WILD_CARD) != (choose >= 0):
        raise NotationError("a Wild names a color (W#3:g); other cards do not")
    return play(seat, slot, color, rank, choose=choose, target=target, uno=uno, jump=jump)


def parse_action(text: str) -> Action:
    """Parse the notation above; raise NotationError with the reason on anything else."""
    if not isinstance(text, str):
        raise NotationError("an action is text")
    parts = text.split(" ")
    if len(parts) < 2 or len(parts) > 3:
        raise NotationError(f"not an action: {text!r} (expected e.g. '0 r7#45' or '1 draw')")
    seat = _parse_int(parts[0], "seat", MAX_SEATS)
    word = parts[1]
    if len(parts) == 3:
        if word == "jump":
            return _parse_play(seat, parts[2], jump=True)
        if word == "catch":
            return catch(seat, _parse_int(parts[2], "seat", MAX_SEATS))
        if word == "color":
            return choose_color(seat, parse_color(parts[2]))
        raise NotationError(f"not an action: {text!r}")
    kind = _BARE.get(word)
    if kind is not None:
        return simple(seat, kind)
    return _parse_play(seat, word, jump=False)
