"""``python -m p2puno``: the same as the ``p2puno`` command."""

from p2puno.cli import main

main()
