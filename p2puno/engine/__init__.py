"""The rules engine: pure, deterministic, sans-IO. Nodes, bots, simulator, audit and replay
all call it; no rule is written anywhere else.

- :mod:`p2puno.engine.cards`   the deck, card ids, face notation
- :mod:`p2puno.engine.actions` actions and their text notation
- :mod:`p2puno.engine.options` rule options (house rules, scoring, target)
- :mod:`p2puno.engine.game`    the state machine (``Game``, ``legal_actions``, ``apply``)

An optional compiled build of those four modules (mypyc, ``python -m p2puno.engine.build_native``)
is used when it exists and matches these sources; otherwise the pure-Python modules are (see
:mod:`p2puno.engine.native`; ``P2PUNO_ENGINE=pure`` forces them, ``=native`` requires the
build). ``NATIVE`` says which is loaded.
"""

from p2puno.engine.native import select as _select

NATIVE: bool = _select(__path__)

from p2puno.engine.actions import Action, Kind, parse_action  # noqa: E402
from p2puno.engine.cards import NotationError, card_text, parse_face  # noqa: E402
from p2puno.engine.game import Event, Game, IllegalAction, InputError, Need, Phase  # noqa: E402
from p2puno.engine.options import Options, parse_house  # noqa: E402

__all__ = [
    "NATIVE",
    "Action",
    "Event",
    "Game",
    "IllegalAction",
    "InputError",
    "Kind",
    "Need",
    "NotationError",
    "Options",
    "Phase",
    "card_text",
    "parse_action",
    "parse_face",
    "parse_house",
]
