"""helper-104's brief (a person's first evening with p2puno): the lines a person reads outside
the table's game (docs/ui.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from p2puno.cli import _finish_table
from p2puno.node.store import DataDir


@pytest.mark.parametrize(("host", "said"), [(True, "closed"), (False, "left")])
def test_leaving_the_lobby_says_whether_the_table_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], host: bool, said: str
) -> None:
    """A host who left its lobby read "you left the table before the game began", as a
    joiner does; its leaving closes the table, and it now says so."""
    with pytest.raises(typer.Exit) as e:
        _finish_table(None, False, DataDir(tmp_path), set(), host=host)
    assert e.value.exit_code == 0
    assert capsys.readouterr().out == f"you {said} the table before the game began\n"
