"""The command line: thin wrappers that parse arguments and call the layers below."""

from __future__ import annotations

import typer

from p2puno import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True, help="UNO, peer to peer.")


@app.callback()
def _root() -> None:
    """UNO for the terminal, peer to peer over a LAN, with no server to trust."""


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


def main() -> None:
    app()
