"""The person at the table: the node's :class:`~p2puno.node.players.Player` for the UI."""

from __future__ import annotations

from typing import Any

from p2puno.engine.actions import Action
from p2puno.session.session import Prompt
from p2puno.ui.app import TableUI


class TablePlayer:
    """Answers each prompt through the table: the decision is a future the keys resolve, so
    the node keeps relaying and answering while the person thinks; the node's deadline
    cancels it (and its bot plays the turn, or the claim is declined)."""

    kind = "person"

    def __init__(self, name: str, ui: TableUI) -> None:
        self.name = name
        self.ui = ui
        self.asked = 0

    async def decide(self, prompt: Prompt) -> Action | None:
        self.asked += 1
        return await self.ui.ask(prompt)

    async def confirm(self, table: dict[str, Any]) -> bool:
        """The final table, on the lobby screen: Enter plays at it (q leaves the table)."""
        return await self.ui.confirm(table)
