import pytest
from typer.testing import CliRunner

from p2puno import __version__
from p2puno.cli import app


def test_version() -> None:
    result = CliRunner().invoke(app, ["version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == __version__


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--name", ""], "a name is 1 to 32 printable characters"),
        (["--name", "x" * 33], "a name is 1 to 32 printable characters"),
        (["--name", "Ann "], "a name cannot start or end with a space"),
        (["--table", ""], "table name must be 1..40 bytes"),
        (["--port", "99999"], "65535"),
        (["--think", "-1"], "seconds from 0 to 60"),
    ],
)
def test_host_refuses_a_bad_option_before_anything_starts(args: list[str], says: str) -> None:
    """Found driving the CLI: an empty or overlong --name crashed the host with a traceback
    when the game started (the joiners saw only "the host went away"), --port 99999 gave a
    traceback, --think -1 was taken. Each is now a usage error that says why (exit 2)."""
    result = CliRunner().invoke(app, ["host", "--no-discovery", *args])
    assert result.exit_code == 2
    assert says in " ".join(result.output.replace("│", " ").split())  # (out of rich's box)
