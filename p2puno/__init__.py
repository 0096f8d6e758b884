"""p2puno: UNO for the terminal, peer to peer, with no server anyone has to trust.

Layers, each knowing nothing of the ones above it:

- ``p2puno.engine``  cards, actions and the deterministic rules state machine (sans-IO)
- ``p2puno.bots``    players that choose among the engine's legal actions
- ``p2puno.sim``     the simulator: whole games of bots, full information
- ``p2puno.crypto``  mental poker: joint shuffle, dealing and revealing without a dealer
- ``p2puno.wire``    the canonical encoding of everything signed or hashed
- ``p2puno.log``     the signed, hash-chained game log
- ``p2puno.cli``     the command line (typer)
"""

__version__ = "0.1.0"
