"""Drawing a :class:`~p2puno.ui.model.TableView` as lines of styled text.

Pure: a view, a width and a height in, a list of lines out, each a list of ``(style, text)``
fragments (prompt-toolkit's formatted text is exactly that, so the app shows them as they are,
and tests read them as plain text). Every line is exactly ``width`` cells wide. Colors are only
ever a second channel: every card carries its color letter (r7, gS) and the color in play is
written in words, so a NO_COLOR terminal or a color-blind player loses nothing.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence

from p2puno.node.game import CHAT_MAX
from p2puno.ui.cells import cells, char_cells
from p2puno.ui.model import LOG_LEAD, REPLAY_LEAD, CardView, TableView, compact_end

Fragment = tuple[str, str]
Line = list[Fragment]


def screen_text(lines: list[Line]) -> list[Fragment]:
    """The lines of a screen as one run of fragments, a newline between lines (what a
    prompt-toolkit FormattedTextControl draws)."""
    out: list[Fragment] = []
    for i, line in enumerate(lines):
        out.extend(line)
        if i < len(lines) - 1:
            out.append(("", "\n"))
    return out


MIN_WIDTH, MIN_HEIGHT = 80, 24
# what the lobby's header says before (or instead of) a table: app.TableUI.lines
NO_TABLE, OPENING, REACHING = "(no table)", "(opening the table...)", "(reaching the host...)"
LOBBY_PLACEHOLDERS = frozenset({NO_TABLE, OPENING, REACHING})
NBSP = "\u00a0"  # a space a line is not broken at (the lobby's values), drawn as a space

HELP = [
    "p2puno — keys",
    "On your turn",
    "  ← → (or h l)    move along your hand (playable cards are marked *)",
    "  Enter / Space   play the selected card (Wild: then a color; Seven-O 7: seat)",
    "  d               draw a card;  then Enter plays the drawn card, k keeps it",
    "  u               call UNO with the card you play (with two cards in hand)",
    "  t / c           take a pending Draw Two or Four / challenge a Wild Draw Four",
    "  g / i / Enter   after a challenge: guilty / innocent, as the hand shown says",
    "  r y g b         name a color (a Wild, or a Wild turned up at the start)",
    "  0-9             the seat to swap hands with (Seven-O)",
    "  :               type a card or a word: r7  W:g  W+4:b!  g7>2  draw  keep  uno",
    "",
    "In a claim window (shown with its countdown)",
    "  u               call UNO (forgot it with your card? do it before a catch)",
    "  c               catch one who has one card and did not call UNO (+2 for them)",
    "  j               Jump-In: play a card identical to the one just played",
    "  Esc / p         let the window pass",
    "",
    "Anytime:  m say something to the table (a chat line, not a move) · ? this help",
    "          q leave the table (asks first) · Ctrl-L redraw",
    # (helper-104 read "One player leaving ends the game for everyone" here against the q
    # question, the README and `p2puno resume`, which all give a player who left time to
    # come back)
    "A player who leaves and is not back in time (p2puno resume) ends the game.",
]
# a spectator's ?: only what watching can do (helper-92's spectator read HELP: "On your turn",
# "m say something to the table", "q leave the table (asks first)"; docs/ui.md, watching)
SPECTATOR_HELP = [
    "p2puno — keys (watching)",
    "You are watching: no seat, no hand, no move to make. Every move and every",
    "deck is checked here as it comes (the header says how many decks passed).",
    "",
    "  ?               this help",
    "  q               stop watching (asks first; the game goes on without you)",
    "  Ctrl-L          redraw",
    "",
    "The chat is the players': a spectator neither sends nor sees it.",
]


width_of = cells  # (one rule for every screen: ui.cells)


def fit(text: str, width: int) -> str:
    """Cut or pad ``text`` to exactly ``width`` cells (a mark of no width stays with the
    character before it)."""
    out: list[str] = []
    used = 0
    for ch in text:
        w = char_cells(ch)
        if w == 0:
            if out:
                out.append(ch)  # (drawn over the character before it)
            continue  # (with none before it, it would sit on the row's border: dropped)
        if used + w > width:
            break  # (and the marks of the character cut with it)
        out.append(ch)
        used += w
    return "".join(out) + " " * (width - used)


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, ending in "…" when it did not fit (two long names
    that share a start must not look the same), padded to ``width``."""
    if width_of(text) <= width:
        return fit(text, width)
    return fit(fit(text, width - 1).rstrip(" ") + "…", width)


# what ends a name's last word ("Alexander-the-Great": "Great"), kept whole after a cut's "…"
_WORD_ENDS = " -_."


def _tail(text: str, width: int) -> str:
    """The end of ``text`` in at most ``width`` cells."""
    out: list[str] = []
    used = 0
    for ch in reversed(text):
        used += width_of(ch)
        if used > width:
            break
        out.append(ch)
    return "".join(reversed(out))


def short_names(names: Sequence[str], widths: Sequence[int]) -> list[str]:
    """Each name in at most its ``widths`` cells: whole where it fits, else its start and
    "…"; and where that start is another's too (at 80 columns "Alexander-the-Great" and
    "Alexander-the-Grey" both read "Alexander-the…"), its start, "…" and as much of its end
    as tells it from the others: its last word where that takes at most half the cells
    ("Alexande…Great", "Alexander…Grey"), else at least its last three cells
    ("Maximilian…ame", "Maximilian…ome"). A name's skeleton is unique at a table
    (node.names), its start need not be."""
    shown = [
        n if width_of(n) <= w else cut(n, w).rstrip(" ") for n, w in zip(names, widths, strict=True)
    ]
    for i, (name, w) in enumerate(zip(names, widths, strict=True)):
        start = shown[i].removesuffix("…")
        if shown[i] == name or w < 5:
            continue
        # (the others it could be read as: "Alexander-the-Gre…" is Grey's start too)
        others = [o for j, o in enumerate(names) if j != i and o.startswith(start)]
        if not others:
            continue
        least = next(
            (t for t in range(1, w - 1) if all(_tail(o, t) != _tail(name, t) for o in others)),
            None,
        )
        if least is None:  # (alike to their last cells: the start and "…" stay)
            continue
        ends = max(name.rfind(c) for c in _WORD_ENDS)
        word = width_of(name[ends + 1 :]) if ends > 0 else w
        # (its last word where that fits half the cells, else three cells at least: the
        # start is what a person knows a name by; "…t" and "…y" said little)
        tail = _tail(name, min(w - 2, max(least, word if word <= w // 2 else min(3, w // 2))))
        shown[i] = fit(name, w - 1 - width_of(tail)).rstrip(" ") + "…" + tail
    return shown


def fit_line(line: Line, width: int, fill: str = "") -> Line:
    out: Line = []
    used = 0
    for style, text in line:
        if used >= width:
            break
        w = width_of(text)
        if used + w > width:
            text = fit(text, width - used).rstrip(" ") if False else fit(text, width - used)
            w = width - used
        out.append((style, text))
        used += w
    if used < width:
        out.append((fill, " " * (width - used)))
    return out


# a number and its unit are held together ("6 s", "(2 left)", "3 cards"): helper-54 read "3"
# at a line's end and "s" under it in the moves
_UNIT = re.compile(r"(\d|\bm?s) (?=(?:s|ms|left|cards?|points?|pts)\b)")


# what a keys line gives up first when it does not fit (a footer cut at 80 columns under a
# round's end box, helper-71's brief): the colors' names (their letters stay), the round's
# number in the box's own key, then keys the person has other ways to learn (: type, m say:
# the help lists them)
_KEYS_SHORTER: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"r red · y yellow · g green · b blue"), "r / y / g / b: the color"),
    (re.compile(r"Esc: close round \d+'s end only"), "Esc: close the box only"),
    (re.compile(r" · : type\b"), ""),
    (re.compile(r" · m say\b"), ""),
    (re.compile(r"←/→ (choose|look at your hand) · "), ""),
]


def keys_fit(text: str, width: int) -> str:
    """A keys line in ``width`` cells: shortened as _KEYS_SHORTER says, then cut with "…"."""
    for pattern, short in _KEYS_SHORTER:
        if width_of(text) <= width:
            return text
        text = pattern.sub(short, text)
    return text if width_of(text) <= width else cut(text, width).rstrip(" ")


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """Break ``text`` into lines of at most ``width`` cells (at spaces when it can, never
    between a number and its unit). A word wider than a line (a path) is broken after a "/"
    where it has one (the replay's moves cut a path mid-name: helper-77's and helper-83's
    reviews), else after a "-", else where the line ends."""
    out: list[str] = []
    text = _UNIT.sub("\\1" + NBSP, text)
    while width_of(text) > width and width > len(indent) + 8:
        cut = text.rfind(" ", 0, width + 1)
        word = text[cut + 1 :].split(" ", 1)[0] if cut > len(indent) else ""
        if cut <= len(indent) or width_of(indent + word) > width:
            # no space to break at, or the next word fits no line: after its "/", else at the
            # space; a word wider than the line alone: after a "-", else where the line ends
            slash = text.rfind("/", len(indent), width)
            dash = text.rfind("-", len(indent), width)
            if slash > max(cut, len(indent)):
                cut = slash + 1
            elif cut <= len(indent):
                cut = dash + 1 if dash > len(indent) else width
        out.append(text[:cut].rstrip().replace(NBSP, " "))
        text = indent + text[cut:].lstrip()
    out.append(text.replace(NBSP, " "))
    return out


def plain(lines: list[Line]) -> list[str]:
    return ["".join(t for _, t in line) for line in lines]


def card_style(c: CardView) -> str:
    letter = "rygb"[c.color] if 0 <= c.color < 4 else ("w" if c.card >= 0 else "x")
    return f"class:card.{letter}"


def status_text(view: TableView, width: int = 0) -> str:
    """The status line and its countdown: on the table, the help page and a small screen;
    given a ``width``, in the fewest words that fit it (``view.status_shorter``: a wait on
    three bots wrapped to two lines at 80 columns, helper-71's brief), else in full."""
    count = "" if view.deadline is None else f" · {max(0.0, view.deadline):.0f} s left"
    if width > 0 and width_of(view.status + count) > width:
        for short in view.status_shorter:
            if width_of(short + count) <= width:
                return short + count
    return view.status + count


_LARGER = "Make it larger (it redraws at once); until then only q acts, to leave."


def render(view: TableView, width: int, height: int) -> list[Line]:
    """The whole screen as ``height`` lines of ``width`` cells."""
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        # (wrapped, as the lobby's: helper-101 read "The table needs 80x24; this terminal is"
        # at 40x15, the size and "q to leave" cut off)
        size_words = f"The table needs {MIN_WIDTH}x{MIN_HEIGHT}; this terminal is {width}x{height}."
        msg = [
            *([("class:alert", w)] for w in textwrap.wrap(size_words, max(10, width))),
            *([("", w)] for w in textwrap.wrap(_LARGER, max(10, width))),
            [],
        ]
        # what is going on, and its clock, stay in view (a review: a turn ran out unseen);
        # so does the question q asks (it was asked unseen, a y away from leaving)
        status = status_text(view, max(10, width))
        msg += [[("", line)] for line in textwrap.wrap(status, max(10, width))]
        if view.mode == "quit":  # (wrapped: a review found its first line cut at 70 columns;
            # its command whole, or where to find it: helper-77's brief)
            msg += [
                [("class:choice", part)]
                for c in view.choice_lines
                for part in _said(c, max(10, width), view.commands, "")
            ]
            msg.append([("class:help", view.help_line)])
        lines = [fit_line(m, width) for m in msg[:height]]
        return lines + [[("", " " * width)] for _ in range(height - len(lines))]
    if view.mode == "help":  # (the status and its clock stay: a turn runs on meanwhile)
        status = status_text(view, width - 1)
        return _help(width, height, status, view.status_kind == "you", view.watch, view.spectator)
    top: list[Line] = []
    header = f" {view.title} · {view.round_info}"
    right = f"{view.verification} "
    if view.watchers:  # (how many: their names are a peer's words, said in the moves; in
        # the header they pushed the table code out, and one read "table code AAAA-BBBB;")
        right = f"{view.watchers} watching · " + right
    room = width - width_of(right) - 2  # (two spaces at least between the two)
    if width_of(header) > room:  # the title gives way first: the status on the right stays,
        # and so does the table code (the one thing players compare: a review found it cut),
        # and the round and its target ("to 5…" with one watching, helper-71's brief)
        header, right = _header_fit(view.title, view.round_info, right, width)
        room = width - width_of(right) - 2
        if width_of(header) > room:
            header = fit(header, max(0, room - 1)).rstrip(" ") + "…"
    pad = max(2, width - width_of(header) - width_of(right))
    vstyle = "class:alert" if view.verification.startswith(("✗", "!")) else "class:ok"
    top.append([("class:header", header + " " * pad), ("class:header " + vstyle, right)])
    # middle: seats and the table on the left, the log on the right
    # (14 cells for a name: an 8-character name and its "(you)" fit; they read "Annabe…
    # (you)" at a 4-seat table, helper-64's brief; the count's column gives its spare cell.
    # Past 80 columns the column widens to a long name's whole, up to 32 characters and its
    # tag: names were cut at 13 at any width; the moves keep their 29 cells of 80 columns)
    tags = [(" (you)" if r.you else "") + (" ·bot" if r.kind == "bot" else "") for r in view.seats]
    need = max(
        (width_of(r.name) + len(t) for r, t in zip(view.seats, tags, strict=True)), default=0
    )
    name_w = 14 + max(0, min(need - 14, width - MIN_WIDTH))
    left_w = 50 + name_w - 14
    right_w = width - left_w - 1
    names = short_names([r.name for r in view.seats], [name_w - len(t) for t in tags])
    left: list[Line] = [[("class:dim", f"   # {fit('player', name_w)}cards UNO  score")]]
    for r, tag, short in zip(view.seats, tags, names, strict=True):
        mark = "▶" if r.on_turn else " "
        name = short + tag
        style = "class:you" if r.you else ""
        if r.on_turn:
            style += " class:turn"
        uno_style = "class:alert" if r.uno == "open!" else "class:ok" if r.uno else ""
        left.append(
            [
                (style, f" {mark} {r.seat} {fit(name, name_w)}{r.cards:>4} "),
                (uno_style, fit(r.uno, 5)),
                (style, f" {r.score:>4} "),
                ("class:dim", r.note),
            ]
        )
    left.append([])
    if view.top is not None:
        left.append(
            [
                ("", " top  "),
                (card_style(view.top) + " class:chip", f" {view.top.text} "),
                ("", "   color in play: "),
                (
                    f"class:card.{'rygb'[view.color_code]}" if 0 <= view.color_code < 4 else "",
                    view.color.upper(),
                ),
            ]
        )
    else:
        left.append([("class:dim", " no card on the table yet")])
    left.append([("", f" turns pass {view.direction}")])
    if view.pending:
        left.append([("class:alert", f" {view.pending}")])
    log_lines: list[Line] = [[("class:dim", " moves")]]
    # bottom: status, hand, choices, message, keys
    bottom: list[Line] = []
    st_style = {"you": "class:status.you", "over": "class:ok"}.get(view.status_kind, "")
    # (two lines at most: helper-54 read a wait on two seats cut at 80 columns, its
    # countdown gone with it)
    for part in wrap(status_text(view, width - 1), width - 1, indent=" ")[:2]:
        bottom.append([(st_style, " " + part)])
    if view.progress:  # (two lines at most: what a seat gone for good does is a sentence)
        for part in wrap(view.progress, width - 1, indent=" ")[:2]:
            bottom.append([("class:dim", " " + part)])
    if view.shown:
        bottom.append(
            [("", " shown to you: ")]
            + [
                f
                for c in view.shown
                for f in ((card_style(c) + " class:chip", f" {c.text} "), ("", " "))
            ]
        )
    hands_at = len(bottom)
    bottom.extend(_all_hands(view, width) if view.all_hands else _hand(view, width))
    hands_to = len(bottom)
    # (four lines of choices at most; leaving the table may take a fifth: what stops with it)
    if view.mode == "quit":  # (wrapped, not cut: the resume command, past 77 columns, lost
        # its path's end with no sign of it, helper-70; 7 lines at most). Each sentence is
        # wrapped at the width, its lines as full as they go, and the command stands whole on
        # a line of its own (helper-77's brief: it was split, and the lines after it uneven)
        parts = [p for c in view.choice_lines[:5] for p in _said(c, width - 1, view.commands, "")]
        bottom.extend([("class:choice", " " + p)] for p in parts[:7])
    else:
        for c in view.choice_lines[:4]:
            bottom.append([("class:choice", " " + c)])
    if view.mode == "type":
        bottom.append([("class:input", " : " + view.typed + "▏")])
    if view.mode == "say":  # (the end of a long line stays in view as it is typed)
        said = view.typed[-max(1, width - 9) :]
        bottom.append([("class:input", " say: " + said + "▏")])
    if view.message:  # (two lines at most: "... nor a word (draw, ..., catc" was cut)
        for part in wrap(view.message, width - 1)[:2]:
            bottom.append([("class:alert", " " + part)])
    bottom.append([("class:help", " " + keys_fit(view.help_line, width - 1))])
    if len(view.all_hands) > 1 and height - len(top) - len(bottom) < len(left):
        # every hand face up, two to a row, where one to a row leaves the seats and the top
        # card no room (helper-101: a ten-seat replay at 80x24 hid the top card)
        bottom[hands_at:hands_to] = _all_hands(view, width, per_row=2)
    middle_h = height - len(top) - len(bottom)
    # an end's box goes under the seats and the last moves, which stay in view above it (a
    # review: the box hid the moves that ended the game, never seen on any screen)
    box = _end_box(view, width, middle_h) if view.end else []
    cols_h = max(0, middle_h - len(box))
    n_log = cols_h - 1
    # The game's end box on a narrow screen leaves a few rows: the moves then take the whole
    # width (the box has the scores), else the last moves, wrapped in a narrow column, were
    # audit lines only and the plays that ended the game showed on no screen (helper-30)
    whole = bool(box) and width < 110 and view.status_kind == "over"  # (the game's end box)
    log_w = width - 1 if whole else right_w
    wrapped: list[str] = []
    for t in view.log[-n_log:] if n_log > 0 else []:
        wrapped.extend(wrap(t, log_w - 1, indent="   "))
    log_lines += [[("", " " + t)] for t in wrapped[-n_log:]] if n_log > 0 else []
    middle = []
    for i in range(cols_h):
        lft = left[i] if i < len(left) else []
        rgt = log_lines[i] if i < len(log_lines) else []
        if whole:
            middle.append(fit_line(rgt, width))
        else:
            middle.append([*fit_line(lft, left_w), ("class:dim", "│"), *fit_line(rgt, right_w)])
    middle += box
    middle = middle[:middle_h]
    while len(middle) < middle_h:
        middle.append([("", " " * width)])
    lines = [fit_line(line, width) for line in top] + middle
    lines += [
        fit_line(line, width, "class:help" if i == len(bottom) - 1 else "")
        for i, line in enumerate(bottom)
    ]
    return lines[:height]


def _header_fit(title: str, round_info: str, right: str, width: int) -> tuple[str, str]:
    """The header's left and right parts in ``width`` cells, shortened in this order: "p2puno
    · ", then "(resumed)", then the table's name to 10 cells, then the right's words
    ("verifying every move" to "verifying", "2 decks verified" to "2 verified"), then the
    name below 10 cells, or gone. The table code, the round and its target, how many watch
    and the verification stay whole (helper-71's brief read "round 3 · to 5…")."""
    name, sep, code = title.partition(" · code ")
    part, rnd = f"{sep}{code}", f" · {round_info}"

    def spare(right: str) -> int:  # (the cells the name may take)
        return width - width_of(right) - 2 - 1 - width_of(part) - width_of(rnd)

    if width_of(name) > spare(right):  # ("p2puno · " first: the table's name says more)
        name = name.removeprefix("p2puno · ")
    if width_of(name) > spare(right):  # (then "(resumed)": it read "Annabel1's table
        # (res…" at a 4-seat table, helper-64's brief)
        name = name.removesuffix(" (resumed)")
    if width_of(name) > spare(right) and spare(right) < 10:
        short = right.replace("verifying every move", "verifying")
        right = re.sub(r"(\d+) decks? verified", r"\1 verified", short)
    room = spare(right)
    if width_of(name) > room:
        if room >= 5:
            name = cut(name, room).rstrip(" ")
        else:  # (a name in 4 cells says nothing: the code and the round say more)
            name, part = "", part.removeprefix(" · ")
            rnd = rnd if part else rnd.removeprefix(" · ")
    return " " + name + part + rnd, right


def _hand(view: TableView, width: int) -> list[Line]:
    if not view.hand:
        return [
            [
                (
                    "class:dim",
                    f" ({view.no_seat})"
                    if not view.seats or not any(r.you for r in view.seats)
                    else " your hand is empty",
                )
            ]
        ]
    head = f" your hand ({len(view.hand)}): "
    rows: list[Line] = []
    marks: list[Line] = []
    line: Line = [("class:dim", head)]
    mark: Line = [("", " " * width_of(head))]
    used = width_of(head)
    for c in view.hand:
        chip = f" {c.text} "
        w = width_of(chip) + 1
        if used + w > width:
            rows.append(line)
            marks.append(mark)
            line, mark, used = (
                [("", " " * width_of(head))],
                [("", " " * width_of(head))],
                width_of(head),
            )
        style = card_style(c) + " class:chip"
        if c.playable:
            style += " class:playable"
        if c.selected:
            style += " class:selected"
        line.append((style, chip))
        line.append(("", " "))
        sign = "^" if c.selected else ""
        sign += "new" if c.drawn else ("*" if c.playable else "")
        mark.append(("class:selected" if c.selected else "class:dim", fit(sign, w)))
        used += w
    rows.append(line)
    marks.append(mark)
    out: list[Line] = []
    for r, m in zip(rows, marks, strict=True):
        out += [r, m]
    return out


def _all_hands(view: TableView, width: int, per_row: int = 1) -> list[Line]:
    """Every hand face up, one line a seat (a replay of an audited deck), or ``per_row``
    seats to a line, each in its share of the width (the cards past it said as "+N")."""
    cell = width // per_row
    out: list[Line] = []
    for name, cards in view.all_hands:
        line: Line = [("class:dim", f" {fit(name, 10)} {len(cards):>2}: ")]
        used = 16
        for i, c in enumerate(cards):
            chip = f"{c.text}{'(new)' if c.drawn else ''}"
            rest = len(cards) - i
            if used + width_of(chip) + 1 > cell - 4 and rest > 1:
                line.append(("class:dim", f"+{rest}"))
                break
            line.append((card_style(c), chip))
            line.append(("", " "))
            used += width_of(chip) + 1
        out.append(line)
    if per_row == 1:
        return out
    return [
        [f for line in out[i : i + per_row] for f in fit_line(line, cell)]
        for i in range(0, len(out), per_row)
    ]


def _end_box(view: TableView, width: int, room: int) -> list[Line]:
    """The end's box in ``room`` rows where it can: as it is, else each hand's row cut to its
    name and points (:func:`compact_end`), else its last rows given up for a row that says
    so; its borders always drawn (helper-101: ten seats' box at 80x24 lost its last hands
    and its bottom border, with no sign of them)."""
    text = view.end or []
    box = _box(text, width, view.box_note, view.commands)
    if len(box) <= room:
        return box
    text = compact_end(text)
    box = _box(text, width, view.box_note, view.commands)
    while len(box) > room and text:
        text = text[:-1]
        box = _box(
            [*text, "  … (the rest: the replay shows it)"], width, view.box_note, view.commands
        )
    return box


def _box(
    text: list[str], width: int, note: str = "", commands: Sequence[tuple[str, str]] = ()
) -> list[Line]:
    """``text`` in a box as wide as the screen, a space inside each border (the words
    touched the right one: "...you were│"); ``note`` on its top border. A line that is one
    of ``commands`` stands whole, or says where it is (:func:`_said`); the log's path is cut
    only after a "/" (:func:`_path_lines`); the replay command, wider than the box's text
    but not the screen, whole on a row of its own across the borders (:func:`_wide_command`)."""
    inner = width - 4
    top: Line = [("class:box", " ┌" + "─" * inner + "┐ ")]
    if note and width_of(note) <= inner - 6:
        rest = inner - 3 - width_of(note)
        top = [
            ("class:box", " ┌─ "),
            ("class:status.you", note),
            ("class:box", " " + "─" * rest + "┐ "),
        ]
    out: list[Line] = [top]
    shown = True  # (the log's path is in the box: not when it is wider than a line of it)
    for t in text:
        path = _path_lines(t, inner - 2)
        shown = shown and not (path and path[0] != LOG_LEAD.rstrip())
        wide = _wide_command(t, inner - 2, width)
        if wide:
            out.append(
                [
                    ("class:box", " │ "),
                    ("class:boxtext", fit(REPLAY_LEAD.strip(), inner - 2)),
                    ("class:box", " │ "),
                ]
            )
            out.append([("class:boxtext", fit(" " + wide, width))])
            continue
        wide = _wide_known(t, inner - 2, width, commands)
        if wide:  # (the stop box's resume command, as the replay's above: helper-98's brief)
            out.append([("class:boxtext", fit(" " + wide, width))])
            continue
        parts = _command_lines(t, inner - 2, shown) or path
        for part in parts or _said(t, inner - 2, commands, "    "):
            out.append(
                [
                    ("class:box", " │ "),
                    ("class:boxtext", fit(part, inner - 2)),
                    ("class:box", " │ "),
                ]
            )
    out.append([("class:box", " └" + "─" * inner + "┘ ")])
    return out


def _wide_command(text: str, inner: int, width: int) -> str:
    """The end box's replay command where it is wider than the box's text (``inner`` cells,
    indented) but fits a row of the screen (``width``), else "". A command to copy whole
    beats the box's right border: "replay LOG --table (LOG: the log's path above)" had a
    person put the command together (helper-92's brief; a command broken over lines does not
    run, helper-71's)."""
    if not text.startswith(REPLAY_LEAD):
        return ""
    cmd = text[len(REPLAY_LEAD) :]
    if width_of(text) <= inner or width_of("    " + cmd) <= inner:
        return ""
    return cmd if width_of(" " + cmd) <= width else ""


def _wide_known(text: str, inner: int, width: int, commands: Sequence[tuple[str, str]]) -> str:
    """One of ``commands`` (the stop box's resume command, with its ``--data-dir``) where it
    is wider than the box's text (``inner`` cells) but fits a row of the screen (``width``),
    else "": whole on a row of its own across the borders, as :func:`_wide_command` puts the
    replay's. Before, one a few cells wider than the box was said in words (helper-98's
    brief: a command a person types is never broken where it fits the screen)."""
    cmd = text.strip()
    if not any(cmd == known for known, _ in commands) or width_of(cmd) <= inner:
        return ""
    return cmd if width_of(" " + cmd) <= width else ""


def _command_lines(text: str, width: int, shown: bool = True) -> list[str]:
    """The end box's replay line in ``width`` cells, the command whole on one line of its own
    (a command to copy split over two lines does not run: helper-71's brief), or, when it is
    wider than that, the command with LOG for the log's path and what LOG is (``shown``: the
    box shows the path above); [] for any other line."""
    if not text.startswith(REPLAY_LEAD) or width_of(text) <= width:
        return []
    cmd = text[len(REPLAY_LEAD) :]
    head = REPLAY_LEAD.rstrip()
    if width_of("    " + cmd) <= width:
        return [head, "    " + cmd]
    # the command with LOG for its path, and what LOG is (helper-86's brief: "then the log's
    # path above, then --table (the whole command is ...)" was hard to follow)
    prog = cmd.partition(" replay ")[0]
    short = f"    {prog} replay LOG --table"
    where = (
        "the log's path above" if shown else "the log's path, in the terminal once the table closes"
    )
    if width_of(short) <= width:
        return [head, short, *wrap(f"    (LOG: {where})", width, indent="     ")]
    return wrap(f"{head} {prog} replay LOG --table, LOG: {where}", width, indent="    ")


def _said(text: str, width: int, commands: Sequence[tuple[str, str]], indent: str) -> list[str]:
    """``text`` in lines of ``width`` cells: wrapped at spaces (a line after the first begins
    with ``indent``), unless it is one of ``commands`` (its leading spaces aside), which is
    never broken (a command typed from two lines does not run, helper-77's brief): whole on
    one line, indented as given when that fits, else at the margin, else the words said for
    it instead. A command inside a sentence, between backquotes, is held together where it
    fits a line."""
    cmd = text.strip()
    for known, words in commands:
        if cmd != known:
            continue
        for line in (text, cmd):
            if width_of(line) <= width:
                return [line]
        lead = text[: len(text) - len(text.lstrip())]
        return wrap(lead + words, width, indent=lead + "  ")
    held = re.sub(
        r"`[^`]+`",
        lambda m: (
            m.group(0).replace(" ", NBSP) if width_of(m.group(0)) <= width - 8 else m.group(0)
        ),
        text,
    )
    return wrap(held, width, indent=indent)


def _path_lines(text: str, width: int) -> list[str]:
    """The end box's log line in ``width`` cells: as it is where it fits; else "log:" and the
    path under it on lines of its own, each cut only after a "/" (helper-77's brief read
    ".../p2" and "puno-demo.log"), or, with a part of it wider than a line, where the path is
    said; [] for any other line."""
    if not text.startswith(LOG_LEAD) or width_of(text) <= width:
        return []
    path = text[len(LOG_LEAD) :]
    indent = "    "
    room = width - len(indent)
    parts = re.findall(r"[^/]*/|[^/]+$", path)
    if any(width_of(p) > room for p in parts):
        return wrap(
            f"{LOG_LEAD}its path is wider than this screen: the terminal shows it when the "
            "table closes",
            width,
            indent=indent,
        )
    out = [LOG_LEAD.rstrip()]
    line = ""
    for p in parts:
        if line and width_of(line + p) > room:
            out.append(indent + line)
            line = ""
        line += p
    out.append(indent + line)
    return out


def _help(
    width: int,
    height: int,
    status: str = "",
    running: bool = False,
    watch: str = "",
    spectator: bool = False,
) -> list[Line]:
    """The keys, the status under them (two lines at most: a claim's keys and its count),
    and, while the person owes a decision, that its clock runs on (a timed table cannot
    pause: helper-54 read the help while their turn ran out). ``watch``: this node's address
    for `p2puno watch`, said last (the node says it once, in the moves, where it scrolls
    out: helper-77's brief), on one line where it fits, else its command on a line of its
    own; a blank line of the help gives way for it where the screen is short. ``spectator``:
    the keys of watching (SPECTATOR_HELP), not a player's."""
    said = wrap(status, width - 1, indent=" ")[:2]
    text = list(SPECTATOR_HELP if spectator else HELP)
    if watch:
        cmd = f"p2puno watch {watch}"
        one = f"Others can watch this game with:  {cmd}"
        text += (
            [one]
            if width_of(" " + one) <= width
            else ["Others can watch this game with:", f"  {cmd}"]
        )
        room = height - 1 - len(said)
        while len(text) > room and "" in text:  # (the last blank line first)
            del text[len(text) - 1 - text[::-1].index("")]
    lines = [
        fit_line([("class:header" if i == 0 else "", " " + t)], width) for i, t in enumerate(text)
    ]
    lines = lines[: height - 1 - len(said)]
    while len(lines) < height - 1 - len(said):
        lines.append([("", " " * width)])
    lines += [fit_line([("class:status.you", " " + part)], width) for part in said]
    back = " any key: back to the table"
    if running:
        back += " · your clock runs on while this help is up"
    lines.append(fit_line([("class:help", back)], width, "class:help"))
    return lines


def _lobby_help(
    opts: dict[str, object],
    timing: dict[str, object],
    host: bool,
    spectator: bool,
    words: Callable[[str, str], list[Line]],
) -> list[list[Line]]:
    """The lobby's ``?``: what each key does, what to compare aloud and why, what the table's
    options mean, and what one player leaving does; in paragraphs, which a page never splits
    (_help_pages) unless one alone is longer than a page."""
    out: list[list[Line]] = []
    if spectator:
        keys = ["q: stop watching (the game goes on without you)"]  # (the keys line says
        # "any key: back to the lobby": it said so twice, helper-71's brief)
    else:
        keys = (
            [
                "s: start now with the seats taken (each person who joined confirms it first)",
                "b: seat a bot this machine runs (marked *: this machine could see its hand)",
                "x, then a seat's number: give that seat up (its player is told)",
            ]
            if host
            else ["Enter: play at the table shown, once it is final (you are asked)"]
        )
        keys.append("m: say something to every player (Enter sends it, Esc drops it)")
        keys.append("q: leave the lobby (asks first)")
    out.append([line for k in keys for line in words("", "  " + k)])
    out.append(
        words(
            "",
            "Table code: once the game starts, every screen shows one in its header (code "
            "ABCD-EFGH). Compare it aloud with every player: a different code means someone "
            "is in the middle.",
        )
    )
    out.append(
        words(
            "",
            "Key (compare aloud): each seat's key, in short. Read your own row's key out: "
            "every screen must show the same key for your seat.",
        )
    )
    if timing:
        window = int(str(timing.get("window_ms", 0))) / 1000
        out.append(
            words(
                "",
                f"Deadlines: {timing.get('turn_s')} s for a person to decide (then their own "
                f"node's bot plays); a claim window of {window:.1f} s after each card, the same "
                f"for every seat (UNO calls, catches, jump-ins); {timing.get('step_s')} s for "
                "a machine to answer.",
            )
        )
    if opts:
        # (this table's house rules only: three lines on rules not in play took the row
        # that left a second page with one line, helper-71's brief)
        meaning = {
            "progressive": "Progressive: a Draw Two or Wild Draw Four may be stacked on",
            "seven-o": "Seven-O: a 7 swaps hands, a 0 passes every hand on",
            "jump-in": "Jump-In: an identical card may be played out of turn",
        }
        house = opts.get("house")
        named = [meaning.get(str(h), str(h)) for h in house] if isinstance(house, list) else []
        out.append(
            words(
                "",
                "House rules: "
                + ("; ".join(named) if named else "none (the official rules)")
                + ".",
            )
        )
        target = opts.get("target", 500)
        out.append(
            words(
                "",
                f"Scoring, to {target} points: standard, the winner of a round scores the cards "
                "left in the others' hands; lowest, each adds their own hand and the lowest "
                "total wins.",
            )
        )
    out.append(
        words(
            "",
            # (002 · Setup 1; docs/rules.md D1: a tie draws again; engine: dealer_draw_value)
            "Who deals first: each player draws a card, the highest number deals (S, R, +2, W "
            "and W+4 count as 0; a tie draws again).",
        )
    )
    back = f"within {timing.get('step_s')} s " if timing else "in time "
    out.append(
        words(
            "",
            f"Leaving: a player who leaves and is not back {back}(p2puno resume) ends the game "
            "for everyone, since nobody else can play their seat.",
        )
    )
    return out


def _help_pages(paragraphs: list[list[Line]], room: int) -> list[list[Line]]:
    """``paragraphs`` packed into pages of ``room`` lines at most, a paragraph never split
    across two pages unless it is longer than a page by itself, the pages as even as their
    number allows."""

    def pack(room: int) -> list[list[Line]]:
        pages: list[list[Line]] = [[]]
        for para in paragraphs:
            if pages[-1] and len(pages[-1]) + len(para) > room:
                pages.append([])
            for line in para:
                if len(pages[-1]) >= room:
                    pages.append([])
                pages[-1].append(line)
        return pages

    # as even as the same number of pages allows (a last page of one line read as a page
    # left over, helper-71's brief)
    room = max(1, room)
    pages = pack(room)
    while room > 1 and len(pack(room - 1)) == len(pages):
        room -= 1
    return pack(room)


def lobby_lines(
    table: dict[str, object],
    address: str,
    host: bool,
    width: int,
    height: int,
    message: str = "",
    mode: str = "",
    closed: bool = False,
    spectator: bool = False,
    asked: bool = False,
    confirmed: bool = False,
    asked_left: float | None = None,
    me: str = "",
    lost: bool = False,
    chat: Sequence[str] = (),
    typed: str = "",
    page: int = 0,
    info: dict[str, int] | None = None,
) -> list[Line]:
    """The lobby: the table's name, options and house rules in words, every seat, the address
    others join at, and (for the host) the start key. ``mode``: the question asked ("quit",
    "help"); ``closed``: the lobby ended (the host went away, no host there): any key
    closes. Before the host has said what its table is, no option is shown (none is known).
    Once the roster is final (the table's ``confirm``) every seat shows whether its player has
    confirmed it; ``asked``: this player is asked to (Enter), ``confirmed``: they have.
    ``me``: this player's name (their seat is marked "(you)"; names at a table are unique);
    ``lost``: the host gave that seat up (the roster is the last one this player was sent).
    ``chat``: the lobby's chat lines as said ("Bob says: “hi”"), newest last, below the table
    as far as there is room (none where the table fills the screen); ``typed``: the
    line being typed after ``m`` (``mode`` "say"), on the keys' line. ``page``: the help's
    page shown (``mode`` "help", from 0: the help is paged when the question and the
    words above it leave it too few rows); ``info``, if given, gets its number of "pages"."""
    if "options" not in table:
        table = {**table, "seats": table.get("seats", [])}
        address = ""
    opts = table.get("options")
    opts = opts if isinstance(opts, dict) else {}
    house = opts.get("house") if isinstance(opts.get("house"), list) else []
    assert isinstance(house, list)
    rules = {
        "progressive": "Progressive (a Draw Two or Wild Draw Four may be stacked on)",
        "seven-o": "Seven-O (a 7 swaps hands with a player you name, a 0 passes every hand on)",
        "jump-in": "Jump-In (play an identical card out of turn)",
    }
    timing = opts.get("timing") if isinstance(opts.get("timing"), dict) else {}
    assert isinstance(timing, dict)
    seats = table.get("seats") if isinstance(table.get("seats"), list) else []
    assert isinstance(seats, list)
    size = table.get("size", "?")
    final = table.get("confirm") is True
    waiting = [
        str(s.get("name", "?")) for s in seats if isinstance(s, dict) and s.get("ready") is False
    ]
    wrap = max(20, width - 2)

    def words(style: str, text: str, most: int = 99) -> list[Line]:
        # (a no-break space holds a value together: "claim window 2.5 s" was wrapped as
        # "claim window 2.5" and " s"; it is drawn as a space)
        parts = textwrap.wrap(text, wrap) or [""]
        if len(parts) > most:  # (cut, and said to be)
            parts = [*parts[: most - 1], parts[most - 1][: wrap - 3] + "..."]
        return [[(style, " " + part.replace(NBSP, " "))] for part in parts]

    # what is asked or awaited, and the last word, go first: a long table may not fit
    top: list[Line] = []
    if asked and not closed:
        within = f" within {timing.get('turn_s')} s" if timing.get("turn_s") else ""
        if asked_left is not None:  # (counted from the question: the host's count began then)
            within = f" within {max(0, int(asked_left + 0.999))} s"
        # (helper-62 typed a chat line as the question came: the first Enter sent the line)
        first = ""
        if mode == "say":
            first = " (Enter first sends the line you are typing; Esc drops it)"
        top += words(
            "class:status.you",
            f"The table is final: press Enter{within} to play at it (the cards are shuffled "
            f"once every player has), or q to leave; else your seat is given up.{first}",
        )
    elif final and waiting and not closed:
        who = "your table" if host else "the table"
        mine = "you confirmed; " if confirmed and not spectator else ""
        top += words("class:status.you", f"{mine}waiting for {', '.join(waiting)} to confirm {who}")
    elif final and not closed:
        top.append([("class:status.you", " starting: the genesis is being signed ...")])
    asked_top = list(top)  # (what the help keeps: the question and its clock, no passing word)
    # (the lobby's end says why in full; a passing word takes two lines at most)
    top += words("class:alert", message, 99 if closed else 2) if message else []
    scoring = opts.get("scoring", "standard")
    score_words = (
        "the winner of a round scores the cards left in the others' hands"
        if scoring == "standard"
        else "each player adds the points left in their own hand; the lowest total wins"
    )
    window_s = int(str(timing.get("window_ms", 0))) / 1000 if timing else 0.0

    def build(compact: bool) -> list[Line]:
        """Every part; ``compact``: the house rules named on one line, no blank lines, so a
        full table of 10 fits 80 x 24."""
        name = str(table.get("name", "?"))  # (quoted as everywhere: helper-42 saw '...')
        # (no table yet, or none: said in words, not as a table's name; helper-104 read
        # 'table "(no table)"' over the reason a join failed)
        head = name[1:-1] if name in LOBBY_PLACEHOLDERS else f'table "{name}"'
        out: list[Line] = [[("class:header", f" p2puno lobby · {head}")]]
        out += top
        gap: list[Line] = [] if compact else [[]]
        out += gap
        if opts:
            out += words("", f"game to {opts.get('target', 500)} points: {score_words}")
            named = ", ".join(rules.get(str(h), str(h)).split(" (")[0] for h in house)
            none = "none (the official rules)"
            out.append(
                [
                    (
                        "",
                        " house rules: "
                        + ((named if compact else "") or (none if not house else "")),
                    )
                ]
            )
            for h in [] if compact else house:
                out.append([("", f"   · {rules.get(str(h), str(h))}")])
        if timing:
            # each value held together: the line wraps between them, never inside one
            turn = f"{timing.get('turn_s')} s to decide".replace(" ", NBSP)
            window = f"claim window {window_s:.1f} s".replace(" ", NBSP)
            step = f"{timing.get('step_s')} s for a machine".replace(" ", NBSP)
            out += words(
                "",
                f"deadlines: {turn}"
                + (", " if spectator else " (then your own node's bot plays), ")
                + f"{window}, {step}; "
                # (how long a seat may be away, not only that it ends the game: helper-99
                # read "leaving ends the game", and was away a minute; as long, on a line)
                + f"a player not back {timing.get('step_s')} s after the game waits for them "
                + "ends the game for all",
            )
        if "options" not in table and not seats:  # (no table known: a refusal, or none yet)
            return out
        out += gap
        taken = f"final: {len(seats)} seated" if final else f"{len(seats)} of {size} seated"
        # "net": the seat's connection; "key": its signing key in short, which each player
        # reads aloud from their own row for the others to compare (helper-54 read the old
        # heading, "link key", as one puzzling word)
        head = f"{'#':>4}  {taken:16} {'who':6} {'runs on':16} {'net':4} key (compare aloud)"
        out.append([("class:dim", head)])  # (the last column, once final, says its words)
        warned = False
        for i, s in enumerate(seats):
            if not isinstance(s, dict):
                continue
            warn = s.get("runner") == "host" and s.get("kind") == "bot"
            warned = warned or warn
            runner = "its own machine" if s.get("runner") == "self" else "host's machine *"
            conn = "up" if s.get("connected", True) else "DOWN"
            name = str(s.get("name", "?"))
            if me and name == me:
                name = cut(name, 9).rstrip(" ") + (" (lost)" if lost else " (you)")
            name, kind = cut(name, 16), fit(str(s.get("kind", "?")), 6)
            row: Line = [
                ("", f"  {i:>2}  {name} {kind} "),
                ("class:alert" if warn else "", fit(runner, 16)),
                ("", f" {fit(conn, 4)} {fit(str(s.get('key', '')), 16)}"),
            ]
            # (no heading over it: "key (compare aloud)" takes its room at 80 columns)
            if final and "ready" in s:  # (a seat with a person to confirm it)
                ready = s.get("ready") is True
                row.append(("" if ready else "class:dim", "  confirmed" if ready else "  deciding"))
            elif final:  # (the host's own seat, and bots: nobody to ask)
                row.append(("class:dim", "  (host)" if i == 0 else "  (a bot)"))
            out.append(row)
        for i in range(len(seats), int(size) if isinstance(size, int) and not final else 0):
            out.append([("class:dim", f"  {i:>2}  (free)")])  # (none once the roster is final)
        if warned:
            note = " * a bot run by the host's machine: the host could see its hand"
            out.append([("class:dim", note)])
        if address and not final:
            out += gap
            out.append([("", f" others join with:  p2puno join {address}")])
        return out

    out = build(False)
    if len(out) > height - 1:
        out = build(True)
    if chat and not closed:  # the newest lines that fit, each wrapped (two rows at most)
        room = height - 1 - len(out) - 1  # (a blank line above them)
        rows: list[Line] = []
        for line in reversed(chat):
            part = words("class:dim", line, 2)  # (helper-61: cut at the edge, unsaid)
            if len(rows) + len(part) > room:
                break
            rows = part + rows
        if rows:  # (none where the table fills the screen: helper-62 saw a line pushed
            # above the seats push the note on the host's bots off it)
            out += [[], *rows]
    pages = 1
    if mode == "help" and not closed:  # (helper-54: the lobby's ? named four keys, no more)
        # paged, its heading on each page, what is asked (its clock) under it (helper-64's
        # brief: cut at 24 rows, with nothing to scroll); it covers the lobby, a passing word
        # too ("Bob joined seat 2" stood above its title, helper-71's brief)
        paged = _help_pages(
            _lobby_help(opts, timing, host, spectator, words), height - 2 - len(asked_top)
        )
        pages = len(paged)
        page = min(max(page, 0), pages - 1)
        head = " p2puno lobby — help" + (f" (page {page + 1} of {pages})" if pages > 1 else "")
        out = [[("class:header", head)], *asked_top, *paged[page]]
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        # too small for the seats' rows (a review at 60x20 read them cut mid-word): say so, as
        # the table does, and keep what is asked or awaited (its clock) and the keys in view
        pages = 1  # (no help drawn here: its keys line says no page)
        size_words = f"The lobby needs {MIN_WIDTH}x{MIN_HEIGHT}; this terminal is {width}x{height}."
        out = [
            *words("class:alert", size_words),
            *words("", "Make it larger (it redraws at once), or q to leave."),
            [],
            *top,
        ]
        if address and not final and not closed and address not in message:  # (the host
            # tells its friends this; its first word says it already)
            out += words("", f"others join with:  p2puno join {address}")
    if info is not None:
        info["pages"] = pages
    if closed:
        keys = " q: close"
    elif mode == "help":  # (every key goes back from the help: it named s, b, x and q here
        # as if they acted, and they only went back; Ctrl-C still asks to leave), but Enter
        # answers the question shown with it (helper-71's brief: it only went back)
        enter = "Enter: play at this table · " if asked else ""
        keys = f" {enter}any {'other ' if enter else ''}key: back to the lobby"
        if pages > 1:  # (no "next page" on the last: helper-71's brief read it there)
            turn = "Space / → next page" if page < pages - 1 else f"← page {page}"
            keys = f" page {page + 1} of {pages} · {turn} · {enter}any other key: back"
            if width_of(keys + " to the lobby") <= width:
                keys += " to the lobby"
    elif spectator:
        keys = (
            " Stop watching? y: leave · n / Esc: stay"
            if mode == "quit"
            else " waiting for the game to start · ? help · q leave"
        )
    elif mode == "quit":
        gone = "the table closes for everyone" if host else "your seat is given up"
        if final and not host:  # (a seat that leaves a table being confirmed: lobby.md 2)
            hold = timing.get("turn_s") or 60
            gone += f", and no seat from this address for {hold} s"
        keys = f" Leave the lobby ({gone}; no game has begun)? y: leave · n / Esc: stay"
        if width_of(keys) > width:  # (the keys must show: the question goes above them)
            out = [*words("class:status.you", keys.strip()), *out]
            keys = " Leave the lobby? y: leave · n / Esc: stay"
    elif mode == "say":  # (the end of a long line stays in view as it is typed)
        left = CHAT_MAX - len(typed)  # (as the table says it: helper-63)
        count = f" · {left} left" if left < 40 else ""
        tail = f"▏ · Enter send · Esc drop{count}"
        keys = " say: " + typed[-max(1, width - 7 - width_of(tail)) :] + tail
    elif mode == "unseat":
        keys = " Give up which seat? its number (the player is told) · any other key: back"
    elif asked:
        keys = " Enter play at this table · m chat · ? help · q leave"
    elif host and not final:
        keys = " s start with the seats taken · b add a bot · x give a seat up · m chat · ? help"
        keys += " · q leave"
        if width_of(keys) > width:
            keys = " s start now · b add a bot · x give a seat up · m chat · ? help · q leave"
        if width_of(keys) > width:  # (60 columns: every key still named)
            keys = " s start · b bot · x unseat · m chat · ? help · q leave"
    elif final:
        give = " · x give a seat up" if host else ""
        keys = f" the players are confirming the table{give} · m chat · ? help · q leave"
        if width_of(keys) > width:  # (helper-63: the host's was cut at 80 columns)
            keys = f" players confirming{give} · m chat · ? help · q leave"
    else:
        keys = " waiting for the host to start · m chat · ? help · q leave"
    lines = [fit_line(line, width) for line in out[: height - 1]]
    while len(lines) < height - 1:
        lines.append([("", " " * width)])
    lines.append(fit_line([("class:help", keys)], width, "class:help"))
    return lines
