"""A website's saved segments, kept on the website's own item as its goals and funnels are
(one JSON attribute, `segments`, ids from `segment_last_id`, never reused): reading the
website reads them, deleting it deletes them. The list is written by `data.goals.change`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sitelens.data import goals
from sitelens.data.items import Item

Segments = list[dict[str, Any]]
SEGMENTS_ATTRIBUTE = "segments"
LAST_ID_ATTRIBUTE = "segment_last_id"


def of(website: Item) -> Segments:
    """The saved segments of a stored website, in id order."""
    return goals.of(website, SEGMENTS_ATTRIBUTE)


def change(
    account: str, website_id: int, site: str, apply: Callable[[Segments, int], Segments]
) -> Segments | None:
    """Replace the website's segments by `apply(segments, next_id)` (`goals.change`)."""
    return goals.change(account, website_id, site, apply, SEGMENTS_ATTRIBUTE, LAST_ID_ATTRIBUTE)
