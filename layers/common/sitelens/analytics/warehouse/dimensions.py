"""The dimensions a Stats API v2 query may group and filter by, and the columns behind them.

Only names: what a query may ask for lives here; how a query is checked lives in `query`.
"""

from __future__ import annotations

from typing import Any, Final

# dimension -> the column that holds it (visit dimensions: the visit's, from its first pageview)
EVENT_DIMENSIONS: Final = {"event:page": "page", "event:name": "name"}
VISIT_DIMENSIONS: Final = {
    "visit:entry_page": "entry_page",
    "visit:exit_page": "exit_page",
    "visit:source": "source",
    "visit:channel": "channel",
    "visit:referrer": "referrer",
    "visit:utm_source": "utm_source",
    "visit:utm_medium": "utm_medium",
    "visit:utm_campaign": "utm_campaign",
    "visit:utm_term": "utm_term",
    "visit:utm_content": "utm_content",
    "visit:browser": "browser",
    "visit:os": "os",
    "visit:device": "device",
    "visit:country": "country",
    "visit:language": "language",
    "visit:screen": "screen",
}
# Visit columns found from the others at query time, stored nowhere: the channel, from the
# source, referrer and UTM tags (`channels`)
DERIVED_VISIT_COLUMNS: Final = frozenset({"channel"})
# Visit dimensions that every row of a visitor's day shares: functions of the address and
# user agent the visitor hash is made of, so a visit's value is each of its rows' value and
# a query of rows alone reads them from the rows instead of finding the visits.
IDENTITY_DIMENSIONS: Final = frozenset(
    {"visit:country", "visit:browser", "visit:os", "visit:device"}
)
# Dimensions whose empty value (no referrer) is shown, and filtered, as `sources.NONE`
SOURCE_DIMENSIONS: Final = frozenset({"visit:source", "visit:referrer"})
TIME_DIMENSIONS: Final = ("time:hour", "time:day", "time:week", "time:month")
# Search Console's rows (`search`): the query searched, and the page's URL as Google gives it
SEARCH_DIMENSIONS: Final = ("search:query", "search:page")
# A website's goals (`goals`): each of its defined goals, by display name, page goals too
GOAL_DIMENSION: Final = "event:goal"
# Plausible's names that are another's here (none now: `event:goal` names goals)
ALIASES: Final[dict[str, str]] = {}


def canonical(name: Any) -> Any:
    """Our name for a dimension sent under Plausible's (anything else unchanged)."""
    return ALIASES.get(name, name) if isinstance(name, str) else name
