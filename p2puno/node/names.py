"""What a name at a table may be, and what it looks like (a join's, a spectator's): shared by
the lobby and the game node, which each show names to a person."""

from __future__ import annotations

import unicodedata

# Characters drawn like Latin ones (the common ones of Unicode's confusables, TR39): "Ноѕt"
# in Cyrillic beside "Host" read as one player in a review's blame lines. Capitals are read
# before case folding (Greek Η folds to η, drawn otherwise), small letters after it.
_CAPITALS = {
    "A": "АΑᎪⲀꓮ", "B": "ВΒᏴⲂꓐ", "C": "СᏟꓚ", "D": "ꓓ", "E": "ЕΕᎬⲈꓰ", "F": "ꓝ", "G": "Ꮐꓖ",
    "H": "НΗᎻⲎꓧ", "I": "ІΙꓲ", "J": "ЈᎫꓙ", "K": "КΚᏦⲔꓗ", "L": "ꓡ", "M": "МΜᎷⲘꓟ", "N": "ΝⲚꓠ",
    "O": "ОΟⲞꓳ", "P": "РΡᏢⲢꓑ", "R": "ꓣ", "S": "ЅᏚꓢ", "T": "ТΤᎢⲦꓔ", "U": "ꓴ", "V": "ꓦ",
    "W": "Ꮃꓪ", "X": "ХΧⲬꓫ", "Y": "ҮΥꓬ", "Z": "ΖᏃꓜ",
    "l": "I1|",  # (an ASCII capital I, a one, a bar: "EviI" for "Evil", "Hl" for "H1")
    "o": "0",
}  # fmt: skip
_SMALL = {
    "a": "аα", "b": "ʙ", "c": "сᴄ", "d": "ԁᴅ", "e": "еᴇ", "g": "ɢց", "h": "һհʜ", "i": "іιɪ",
    "j": "јᴊ", "k": "κᴋ", "l": "ӏʟוןl", "m": "ᴍ", "n": "ɴո", "o": "оοօᴏס", "p": "рρᴘ", "q": "ԛ",
    "r": "ʀ", "s": "ѕꜱ", "t": "ᴛ", "u": "սᴜ", "v": "νᴠ", "w": "ԝᴡ", "x": "х", "y": "уʏ",
    "z": "ᴢ",
}  # fmt: skip
_AS_CAPITAL = str.maketrans({c: latin for latin, cs in _CAPITALS.items() for c in cs})
_AS_SMALL = str.maketrans({c: latin for latin, cs in _SMALL.items() for c in cs})
# drawn as nothing: blanks that are letters or symbols, not spaces (Braille, Hangul fillers,
# Khmer's invisible vowels); marks and format characters are dropped by category
_BLANKS = frozenset("\u2800\u3164\uffa0\u115f\u1160\u17b4\u17b5")


def name_skeleton(name: str) -> str:
    """What a name looks like: compatibility forms folded (NFKC: fullwidth, bold math
    letters, ligatures), marks, format characters and blank letters dropped, case folded, and
    characters drawn like Latin letters read as those. Two names with one skeleton are one
    name at a table (check_join). A blocklist of the common look-alikes, not Unicode's whole
    table: the seat number beside every name a verdict gives is the other half."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(
        c for c in text if c not in _BLANKS and unicodedata.category(c) not in ("Mn", "Me", "Cf")
    )
    return text.translate(_AS_CAPITAL).casefold().translate(_AS_SMALL)


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's name (None: it can): 1 to 32 printable characters,
    no space at either end (a blank name, or "Ann " beside "Ann", would look like another),
    no "…" (the mark of a shortened name), no double quotation marks (an apostrophe is fine:
    "O'Hara").
    Two names that differ only in case are one name at a table (check_join)."""
    if not isinstance(name, str) or not 1 <= len(name) <= 32 or not name.isprintable():
        return "a name is 1 to 32 printable characters"
    if name != name.strip():
        return "a name cannot start or end with a space"
    if "…" in name or "⋯" in name:
        # (the table marks a name it shortens with "…": "Alexande…Great" as a name of its own
        # looked like the shortened "Alexander-the-Great" beside it, helper-94)
        return 'a name cannot hold "…": the table marks a shortened name with it'
    if has_double_quote(name):
        # (the table writes names and chat lines in quotes: 'Pat says: “hi”' under a name
        # holding ' says: “...”' read as a line someone said; helper-62)
        return 'a name cannot hold quotation marks (" “ ”): the table quotes names and chat'
    return None


def has_double_quote(name: str) -> bool:
    """Whether ``name`` holds something drawn as a double quotation mark: a character Unicode
    names a double quotation mark, a double (or triple) prime, a double apostrophe or acute,
    a gershayim or a ditto mark, or two single marks side by side, in the name as typed or in
    its compatibility form (NFKC: a fullwidth ＂ is "). One single mark or apostrophe is a
    letter of names ("O'Hara", "O’Hara"). helper-66 seated ＂hi＂, ″hi″, „hi‟, «hi» and 〝hi〞
    past a list of three; helper-69 ״hi״, 〃, ˝, ˮ, ‴ and ''hi'' past the next."""
    single = False  # (the character before was a single mark)
    for c in name + " " + unicodedata.normalize("NFKC", name):
        what = unicodedata.name(c, "")
        if any(w in what for w in _DOUBLES) or ("QUOTATION MARK" in what and "SINGLE" not in what):
            return True
        mark = "APOSTROPHE" in what or "QUOTATION MARK" in what or what in _SINGLES
        if mark and single:
            return True
        single = mark
    return False


_DOUBLES = ("DOUBLE PRIME", "TRIPLE PRIME", "QUADRUPLE PRIME", "DOUBLE APOSTROPHE",
            "DOUBLE ACUTE", "GERSHAYIM", "DITTO MARK")  # fmt: skip
_SINGLES = frozenset(
    {"GRAVE ACCENT", "ACUTE ACCENT", "PRIME", "REVERSED PRIME", "MODIFIER LETTER PRIME"}
)
