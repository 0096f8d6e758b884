"""The JSON Schemas agree with the implementation's field set (no jsonschema dependency)."""

from __future__ import annotations

import json
from pathlib import Path

from p2puno.log import Entry, Genesis
from p2puno.log.testing import build_game
from p2puno.wire import decode

SCHEMAS = Path(__file__).resolve().parents[2] / "protocol" / "schemas"


def test_schemas_parse_and_match_fields() -> None:
    entry = json.loads((SCHEMAS / "entry.schema.json").read_text())
    genesis = json.loads((SCHEMAS / "genesis.schema.json").read_text())
    json.loads((SCHEMAS / "value.schema.json").read_text())
    g = build_game(2, 1)
    obj = decode(g.entries[0])
    assert isinstance(obj, dict)
    assert set(entry["required"]) == set(entry["properties"]) == set(obj)
    assert Entry.from_obj(obj).kind == "genesis"
    body = obj["body"]
    assert isinstance(body, dict)
    assert set(genesis["required"]) == set(genesis["properties"]) == set(body)
    player = genesis["properties"]["players"]["items"]
    assert isinstance(body["players"], list) and isinstance(body["players"][0], dict)
    assert set(player["required"]) == set(body["players"][0])
    Genesis.from_obj(body)
