"""The suite's order: its longest tests first.

`scripts/test` runs pytest on every core (pytest-xdist, ``--dist worksteal``). A long test that
starts last keeps one core busy alone at the end (a 50-100 s tail was seen with the ten-node
game collected late); started first, the other workers take the short tests meanwhile. The
list names test functions, longest first (``pytest --durations=30``); any other test keeps
its place after them.
"""

from __future__ import annotations

import pytest

LONGEST_FIRST = (
    "test_ten_nodes",
    "test_ten_players_to_250",
    "test_hostile_connections_are_refused_and_named_and_the_game_goes_on",
    "test_a_game_survives_kills_and_a_cut",
    "test_ten_seats_agree_with_the_in_order_run",
    "test_demo_plays_a_whole_game_between_node_processes_and_verifies_every_log",
    "test_a_pruned_table_plays_the_same_game",
    "test_a_seat_rebuilt_at_many_steps_plays_on_to_the_same_end",
    "test_a_seat_that_dies_or_freezes_is_voted_out_within_the_deadline",
    "test_a_node_whose_every_link_is_lost_does_not_vote_alone",
    "test_a_game_over_links_split_delayed_and_cut_mid_frame",
    "test_a_resumed_host_still_saves_the_log_it_was_asked_to",
    "test_four_seats_agree_with_the_in_order_run",
    "test_views_agree_every_house_rule_combination",
)
_RANK = {name: i for i, name in enumerate(LONGEST_FIRST)}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: _RANK.get(getattr(item, "originalname", item.name), len(_RANK)))
