"""The rules of a goal's fields, and the bounds of a website's goals."""

from __future__ import annotations

import re
from typing import Final

from sitelens.core.errors import FieldError

# Every goal is one branch of a query's SQL: 100 keep a statement small for both engines.
MAX_GOALS: Final = 100
MAX_NAME_LENGTH: Final = 120  # an event's name, as the tracking script may send it
MAX_PATH_LENGTH: Final = 300  # a page path pattern
ONE_KIND: Final = "A goal has either an event name or a page path, not both and not neither."
NAME_TAKEN: Final = "The display name has already been taken by another goal of the website."
SAME_GOAL: Final = "The website already has a goal for this event name or page path."
TOO_MANY: Final = f"A website has at most {MAX_GOALS} goals."
TOO_LARGE: Final = (
    "The website's goals and exclusion lists are too large together: remove goals, or"
    " excluded parameters or addresses."
)
# a path pattern: a path of printable characters without a query or fragment; `*` stands
# for the characters of one segment, `**` for any characters
_PATH: Final = re.compile(r"/[^\s?#]*")


def check_event_name(value: str) -> str:
    name = value.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise FieldError(f"The event name field must have 1 to {MAX_NAME_LENGTH} characters.")
    if name in ("pageview", "engagement"):
        raise FieldError("The event name field must name a custom event: use page_path for pages.")
    return name


def check_page_path(value: str) -> str:
    path = value.strip()
    if len(path) > MAX_PATH_LENGTH or not _PATH.fullmatch(path) or "***" in path:
        raise FieldError(
            f"The page path field must be a path starting with / of at most {MAX_PATH_LENGTH}"
            " characters, without ? or #; * matches within a segment, ** across segments."
        )
    return path


def check_display_name(value: str) -> str:
    name = value.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise FieldError(f"The display name field must have 1 to {MAX_NAME_LENGTH} characters.")
    return name


def default_display_name(event_name: str | None, page_path: str | None) -> str:
    """Plausible's: the event's name, or `Visit <path>`."""
    return event_name if event_name is not None else f"Visit {page_path}"
