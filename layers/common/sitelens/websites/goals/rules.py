"""The rules of a goal's fields, and the bounds of a website's goals.

Each rule is the document's (`openapi/analytics.yaml`, GoalCreate) so that what the
schema allows the server takes as it is, with two that no schema states: a name of white
space only, and a goal or name the website has already.
"""

from __future__ import annotations

import re
from typing import Final

from sitelens.core import currencies, properties
from sitelens.core.errors import FieldError

# Every goal is one branch of a query's SQL: 100 keep a statement small for both engines.
MAX_GOALS: Final = 100
MAX_NAME_LENGTH: Final = 120  # an event's name, as the tracking script may send it
MAX_PATH_LENGTH: Final = 300  # a page path pattern
RESERVED_NAMES: Final = ("pageview", "engagement")  # rows that are no custom event
MAX_GOAL_PROPS: Final = 3  # property matches of one goal: each is a condition of its SQL
EVENT_ONLY: Final = "Only a custom event's goal matches properties or counts revenue."
ONE_KIND: Final = "A goal has either an event name or a page path, not both and not neither."
NAME_TAKEN: Final = "The display name has already been taken by another goal of the website."
SAME_GOAL: Final = "The website already has a goal for this event name or page path."
TOO_MANY: Final = f"A website has at most {MAX_GOALS} goals."
TOO_LARGE: Final = (
    "The website's goals and exclusion lists are too large together: remove goals, or"
    " excluded parameters or addresses."
)
# a path pattern: a path without white space, a query or a fragment; `*` stands for the
# characters of one segment, `**` for any (three in a row mean nothing)
PATH_PATTERN: Final = r"^(?!.*\*\*\*)/[^\s?#]*$"
_PATH: Final = re.compile(PATH_PATTERN)


def _name(value: str, field: str) -> str:
    if not 0 < len(value) <= MAX_NAME_LENGTH:
        raise FieldError(f"The {field} field must have 1 to {MAX_NAME_LENGTH} characters.")
    if not value.strip():
        raise FieldError(f"The {field} field must not be only white space.")
    return value


def check_event_name(value: str) -> str:
    if value in RESERVED_NAMES:
        raise FieldError("The event name field must name a custom event: use page_path for pages.")
    return _name(value, "event name")


def check_page_path(value: str) -> str:
    if len(value) > MAX_PATH_LENGTH or not _PATH.match(value):
        raise FieldError(
            f"The page path field must be a path starting with / of at most {MAX_PATH_LENGTH}"
            " characters, without white space, ? or #; * matches within a segment, ** across"
            " segments."
        )
    return value


def check_display_name(value: str) -> str:
    return _name(value, "display name")


def default_display_name(event_name: str | None, page_path: str | None) -> str:
    """Plausible's: the event's name, or `Visit <path>`."""
    return event_name if event_name is not None else f"Visit {page_path}"


def check_custom_props(value: object) -> dict[str, str]:
    """A goal's property match: 1 to `MAX_GOAL_PROPS` keys the ingest accepts, each with
    the text its value must equal (`core.properties`' bounds)."""
    if not isinstance(value, dict) or not 0 < len(value) <= MAX_GOAL_PROPS:
        raise FieldError(
            f"The custom props field must be an object of 1 to {MAX_GOAL_PROPS} properties."
        )
    for key, item in value.items():
        if not properties.KEY_PATTERN.match(key):
            raise FieldError(
                f"A property key has 1 to {properties.MAX_KEY_LENGTH} letters, digits, '_',"
                " '-', '.' or ':'."
            )
        if not isinstance(item, str) or not 0 < len(item) <= properties.MAX_VALUE_LENGTH:
            raise FieldError(
                f"A property's value is text of 1 to {properties.MAX_VALUE_LENGTH} characters."
            )
    return dict(sorted(value.items()))


def check_currency(value: str) -> str:
    """A revenue goal's currency: the ISO 4217 code whose amounts it sums (`core.currencies`,
    as an event's revenue)."""
    if not currencies.known(value):
        raise FieldError("The currency field must be an ISO 4217 code in capitals (EUR, USD).")
    return value
