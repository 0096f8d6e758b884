"""The rules engine: pure, deterministic, sans-IO. Nodes, bots, simulator, audit and replay
all call it; no rule is written anywhere else.

- :mod:`p2puno.engine.cards`   the deck, card ids, face notation
- :mod:`p2puno.engine.actions` actions and their text notation
- :mod:`p2puno.engine.options` rule options (house rules, scoring, target)
- :mod:`p2puno.engine.game`    the state machine (``Game``, ``legal_actions``, ``apply``)
"""

from p2puno.engine.actions import Action, Kind, parse_action
from p2puno.engine.cards import NotationError, card_text, parse_face
from p2puno.engine.game import Event, Game, IllegalAction, InputError, Need, Phase
from p2puno.engine.options import Options, parse_house

__all__ = [
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
