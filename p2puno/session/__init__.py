"""The sans-IO game session: engine + mental poker + signed log, one node's view."""

from p2puno.session.session import (
    Blame,
    Decider,
    Session,
    SessionError,
    SessionEvent,
    Timing,
    options_from_obj,
    options_to_obj,
)

__all__ = [
    "Blame",
    "Decider",
    "Session",
    "SessionError",
    "SessionEvent",
    "Timing",
    "options_from_obj",
    "options_to_obj",
]
