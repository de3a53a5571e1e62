"""A website's goals, stored on the website's own item as one JSON attribute (`goals`),
so that reading the website (as the query API does) reads its goals with it, and deleting
it deletes them. Goal ids come from the item's `goal_last_id`: never reused.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sitelens.data import websites
from sitelens.data.items import Item

Goals = list[dict[str, Any]]
GOALS_ATTRIBUTE = "goals"
LAST_ID_ATTRIBUTE = "goal_last_id"


def of(website: Item, attribute: str = GOALS_ATTRIBUTE) -> Goals:
    """The goals of a stored website, in id order (or its list under `attribute`)."""
    return list(json.loads(website.get(attribute) or "[]"))


def change(
    account: str,
    website_id: int,
    site: str,
    apply: Callable[[Goals, int], Goals],
    attribute: str = GOALS_ATTRIBUTE,
    last_id_attribute: str = LAST_ID_ATTRIBUTE,
) -> Goals | None:
    """Replace the website's goals by `apply(goals, next_id)`, versioned as every website
    write (`websites.update`: computed again from the stored ones if another write came
    first); the goals written, or None when there is no such website. An exception from
    `apply` writes nothing. Another list kept on the website the same way (its saved
    funnels: `data.funnels`) names its own `attribute` and `last_id_attribute`."""
    written: list[Goals] = []

    def with_goals(current: Item) -> Item:
        last_id = int(current.get(last_id_attribute) or 0)
        goals = apply(of(current, attribute), last_id + 1)
        written[:] = [goals]
        top = max([last_id, *(int(goal["id"]) for goal in goals)])
        encoded = json.dumps(goals, separators=(",", ":"), ensure_ascii=False)
        return {**current, attribute: encoded, last_id_attribute: top}

    if websites.update(account, website_id, with_goals, site) is None:
        return None
    return written[0]
