"""A node's secrets file holds every shuffle secret of the current deck (what it needs to
resume), about 12 KB a whole shuffle, so a round of many reshuffles
makes it larger than the wire's 256 KiB default (a game of two `random` bots to 100 wrote
181,868 bytes; helper-73's seed `rb/b` dealt some 40 shuffles in one deck). It is read back
whatever its length: the entry cap is for what peers send (helper-78)."""

from __future__ import annotations

from pathlib import Path

from p2puno.log import Identity, NodeSecrets, read_secrets, write_secrets
from p2puno.wire import JSONValue


def test_a_secrets_file_over_256_kib_is_read_back(tmp_path: Path) -> None:
    identity = Identity.from_test_seed(b"h78 secrets")
    # 30 shuffles' worth of hex (the shape does not matter to the file: "extra" is opaque)
    shuffles: list[JSONValue] = [{"keys": ["ab" * 32] * 108 + ["cd" * 16] * 108}] * 30
    secrets = NodeSecrets(identity, b"\x01" * 32, 1, {"shuffles": shuffles})
    path = tmp_path / "node.secrets"
    write_secrets(path, secrets)
    assert path.stat().st_size > 256 * 1024
    back = read_secrets(path)
    assert back.extra == secrets.extra and back.seat == 1 and back.game_id == b"\x01" * 32
    assert back.identity.sign_pk == identity.sign_pk
