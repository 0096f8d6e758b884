"""Opening the table for `p2puno host`, `join` and `lobby` (and the terminal demo).

Each runs the node's own flow (:func:`~p2puno.node.run.host_game` or
:func:`~p2puno.node.run.join_game`) with the table's hooks and a :class:`TablePlayer` for the
person, beside the full-screen app in the same loop (:func:`~p2puno.ui.app.run_table`). The
layers' log records go to the table's move list while the screen is up, never to the terminal.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from p2puno.node.game import with_command
from p2puno.node.run import Result, host_game, join_game, resume_game, unfinished_games
from p2puno.node.store import DataDir, resume_command
from p2puno.node.watch import WatchResult, watch_game
from p2puno.ui.app import TableUI, run_table
from p2puno.ui.player import TablePlayer


class _ToTable(logging.Handler):
    def __init__(self, ui: TableUI) -> None:
        super().__init__(logging.WARNING)
        self.ui = ui

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):  # a log record must never break the table
            self.ui.log.append(f"({record.name}: {record.getMessage()})")


@contextmanager
def logs_to(ui: TableUI) -> Iterator[None]:
    """While the screen is up, log records go to the table (printing would garble it)."""
    root = logging.getLogger()
    saved = root.handlers[:]
    root.handlers = [_ToTable(ui)]
    try:
        yield
    finally:
        root.handlers = saved


def _hint(ui: TableUI, data: object) -> None:
    """The resume command the leave question names (with --data-dir when not the default)."""
    if isinstance(data, DataDir):
        ui.resume_hint = with_command(resume_command(data.root))


async def host_table(
    *,
    table: str,
    name: str,
    input: Input | None = None,
    output: Output | None = None,
    ui: TableUI | None = None,
    save_log: str | None = None,
    **kwargs: Any,
) -> Result | None:
    """`p2puno host` with the table: the lobby (start key: s), then the game. None: the
    person left. ``ui``: a table built by the caller (tests, the demo). ``save_log``: the
    game's log is copied there at the end, and the end screen names that copy."""
    if ui is None:
        ui = TableUI(name=name, host=True, title=f"p2puno · {table}", input=input, output=output)
    ui.save_log = save_log
    _hint(ui, kwargs.get("data"))
    player = TablePlayer(name, ui)

    async def game() -> Result:
        result = await host_game(
            table=table,
            name=name,
            player=player,
            say=ui.say,
            on_table=ui.on_table,
            on_game=ui.on_game,
            start=ui.start,
            on_lobby=ui.on_lobby,
            save_log=save_log,  # (copied by the node at the end, also after a resume)
            **kwargs,
        )
        ui.log_path = str(result.log_path)  # (the copy, or the data directory's if it failed)
        return result

    with logs_to(ui):
        return await run_table(ui, game())


async def join_table(
    host: str,
    port: int,
    *,
    name: str,
    input: Input | None = None,
    output: Output | None = None,
    ui: TableUI | None = None,
    **kwargs: Any,
) -> Result | None:
    """`p2puno join` (and `lobby`) with the table."""
    if ui is None:
        ui = TableUI(name=name, address=f"{host}:{port}", input=input, output=output)
    _hint(ui, kwargs.get("data"))
    player = TablePlayer(name, ui)
    with logs_to(ui):
        return await run_table(
            ui,
            join_game(
                host,
                port,
                name=name,
                player=player,
                say=ui.say,
                on_table=ui.on_table,
                on_game=ui.on_game,
                chat=ui.lobby_chat,  # (the lobby's chat: m, before the game)
                **kwargs,
            ),
        )


async def watch_table(
    host: str,
    port: int,
    *,
    name: str,
    input: Input | None = None,
    output: Output | None = None,
    ui: TableUI | None = None,
    **kwargs: Any,
) -> WatchResult | None:
    """`p2puno watch` (and `lobby --watch`) with the table: the public game, no hand."""
    if ui is None:
        ui = TableUI(
            name=name,
            address=f"{host}:{port}",
            title=f"p2puno · watching as {name}",
            input=input,
            output=output,
            spectator=True,
        )
    with logs_to(ui):
        return await run_table(
            ui,
            watch_game(
                host,
                port,
                name=name,
                say=ui.say,
                on_table=ui.on_table,
                on_game=ui.on_watch,
                **kwargs,
            ),
        )


async def resume_table(
    data: DataDir,
    game: str | None,
    *,
    input: Input | None = None,
    output: Output | None = None,
    ui: TableUI | None = None,
) -> Result | None:
    """`p2puno resume` for a person at a terminal: back at the table, where the game is."""
    if ui is None:
        ui = TableUI(name="you", title="p2puno · resumed", input=input, output=output)
    _hint(ui, data)
    games = [m for m in unfinished_games(data) if str(m.get("game", "")).startswith(game or "")]
    if games and isinstance(games[0].get("view"), dict):
        ui.on_table(games[0]["view"])  # who is a bot, and which machine runs it
    if games and isinstance(games[0].get("save_log"), str):
        ui.save_log = games[0]["save_log"]  # (the host's --save-log: the end screen names it)
    player = TablePlayer("you", ui)
    with logs_to(ui):
        return await run_table(
            ui, resume_game(data, game, player=player, say=ui.say, on_game=ui.on_game)
        )
