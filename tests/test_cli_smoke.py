from typer.testing import CliRunner

from p2puno import __version__
from p2puno.cli import app


def test_version() -> None:
    result = CliRunner().invoke(app, ["version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == __version__
