"""The node: a seat's session run over the network with the clock and the disk.

``lobby`` (seats, table, genesis), ``game`` (the mesh, relaying, deadlines, timing), ``store``
(the data directory), ``players`` (bots and people), ``run`` (`p2puno host`, `join`, `bot`).
"""
