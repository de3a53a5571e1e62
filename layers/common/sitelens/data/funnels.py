"""A website's saved funnels, kept on the website's own item as its goals are (one JSON
attribute, `funnels`, ids from `funnel_last_id`, never reused): reading the website reads
them, deleting it deletes them. The list is written by `data.goals.change`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from sitelens.data import goals
from sitelens.data.items import Item

Funnels = list[dict[str, Any]]
FUNNELS_ATTRIBUTE = "funnels"
LAST_ID_ATTRIBUTE = "funnel_last_id"
# A funnel's steps, saved or asked of `POST /api/v1/funnels/query`: Plausible's bounds;
# each step is one join over its goal's rows (`analytics.warehouse.funnels`)
MIN_STEPS: Final = 2
MAX_STEPS: Final = 8


def of(website: Item) -> Funnels:
    """The saved funnels of a stored website, in id order."""
    return goals.of(website, FUNNELS_ATTRIBUTE)


def change(
    account: str, website_id: int, site: str, apply: Callable[[Funnels, int], Funnels]
) -> Funnels | None:
    """Replace the website's funnels by `apply(funnels, next_id)` (`goals.change`)."""
    return goals.change(account, website_id, site, apply, FUNNELS_ATTRIBUTE, LAST_ID_ATTRIBUTE)
