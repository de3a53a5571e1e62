"""A hit as it travels from the event function to the aggregator, and what it counts.

This is the queue's contract: the event function builds hits (`hits.build_hit`), the
aggregator counts them (`counts`), the stats reader and the cleanup worker know the stat
names. A hit carries its identity from the edge on (`id`, a UUIDv7 minted when the hit
was accepted), so that counting is idempotent by what the hit is, never by how it was
delivered: a redrive, a duplicate or a replay of the same body counts nothing twice.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

STAT_NAMES = (
    "pageviews",
    "pageviews_hour",
    "visitors",
    "visitors_hour",
    "page",
    "landing_page",
    "referrer",
    "browser",
    "os",
    "device",
    "language",
    "resolution",
    "country",
    "continent",
    "city",
    "campaign",
    "event",
    "utm_source",
    "utm_medium",
    "utm_term",
    "utm_content",
    "excluded",
)
# Month roll-ups: every daily stat but the hourly ones is also summed per month, under
# `<stat>@month` with the month (`YYYY-MM`) in place of the day, by a daily job once the
# month has closed (`months`), so that a long period is read a month per item instead of
# a day per item.
MONTH_SUFFIX = "@month"
MONTHLY_NAMES = tuple(
    name for name in STAT_NAMES if name not in ("pageviews_hour", "visitors_hour")
)
# Every series of counters, for readers that remove or list them all.
SERIES_NAMES = STAT_NAMES + tuple(name + MONTH_SUFFIX for name in MONTHLY_NAMES)

# Values a visit counts under the name of the same Hit attribute, besides the visitor counts.
_VISIT_NAMES = (
    "referrer",
    "browser",
    "os",
    "device",
    "language",
    "resolution",
    "country",
    "continent",
    "city",
    "campaign",
    "utm_source",
    "utm_medium",
    "utm_term",
    "utm_content",
)


def new_id(at: datetime) -> str:
    """A UUIDv7 (RFC 9562) for a hit accepted at `at`: 48 bits of Unix milliseconds, then
    74 random bits, so ids sort by time and never repeat in practice."""
    millis = int(at.timestamp() * 1000) & ((1 << 48) - 1)
    value = (millis << 80) | (0x7 << 76) | (secrets.randbits(12) << 64)
    value |= (0b10 << 62) | secrets.randbits(62)
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


@dataclass(frozen=True)
class Hit:
    """A pageview or custom event ready to be counted; `event` is "" for a pageview."""

    website_id: int
    at: datetime  # UTC
    page: str  # readable path plus the remaining query: /pricing?id=3 (`hits.counted_page`)
    visit: bool
    referrer: str = ""
    browser: str = ""
    os: str = ""
    device: str = ""
    language: str = ""
    resolution: str = ""
    country: str = ""
    continent: str = ""
    city: str = ""
    campaign: str = ""
    utm_source: str = ""
    utm_medium: str = ""
    utm_term: str = ""
    utm_content: str = ""
    event: str = ""  # name:value:unit
    excluded: str = ""  # why the website excluded the hit: only counted under `excluded`
    # for the warehouse's rows only, never counted:
    visitor: str = ""  # the day's salted hash of website, address and agent (`visitors`)
    event_parts: tuple[str, str, str] | None = None  # a custom event's name, value, unit
    interactive: bool | None = None  # False: a custom event that leaves a visit a bounce
    engaged_ms: int | None = None  # an engagement: the page was hidden or left after this
    props: str = ""  # custom properties, JSON of a flat text map (`properties`)
    revenue_amount: str = ""  # a custom event's revenue: a decimal as text
    revenue_currency: str = ""  # ISO 4217, the currency it came in
    scroll_depth: int | None = None  # an engagement: the deepest percent of the page seen
    vitals: dict[str, int] | None = None  # an engagement: Core Web Vitals (`vitals`)
    # The hit's identity (`new_id`); "" only in messages queued before ids existed, which
    # the aggregator then knows by their SQS message id.
    id: str = ""
    # How many hits this one stands for: an excluded tally sums a second's exclusions of a
    # website in one message (the event function does not queue each excluded hit).
    weight: int = 1

    def to_json(self) -> str:
        """Compact JSON for the queue; empty values (and a weight of 1) are left out."""
        # Shallow: asdict deep-copies every hit (about 5% of `make serve` under load).
        data = {
            name: value
            for name in _FIELD_NAMES
            if (value := getattr(self, name)) is not None and value != ""
        }
        if self.weight == 1:
            del data["weight"]
        data["at"] = self.at.isoformat()
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Hit:
        """The hit `to_json` wrote; keys this version does not know are ignored."""
        data = json.loads(text)
        values: dict[str, Any] = {k: v for k, v in data.items() if k in _FIELD_NAMES}
        values.setdefault("page", "")  # left out when empty, as an excluded tally's is
        values["at"] = datetime.fromisoformat(values["at"]).astimezone(UTC)
        if values.get("event_parts") is not None:
            values["event_parts"] = tuple(values["event_parts"])
        weight = values.get("weight", 1)
        if not isinstance(weight, int) or isinstance(weight, bool) or weight < 1:
            raise ValueError("a hit's weight is a whole number of at least 1")
        return cls(**values)


_FIELD_NAMES = tuple(field.name for field in dataclasses.fields(Hit))


def counts(hit: Hit) -> list[tuple[str, str, str]]:
    """The (name, value, day) daily stats this hit adds to; the day is `YYYY-MM-DD`, UTC."""
    day = hit.at.strftime("%Y-%m-%d")
    if hit.engaged_ms is not None:
        return []  # time on a page: the warehouse's, not a counter's
    if hit.excluded:
        return [("excluded", hit.excluded, day)]
    if hit.event:
        return [("event", hit.event, day)]
    hour = hit.at.strftime("%H")
    found = [("pageviews", day, day), ("pageviews_hour", hour, day), ("page", hit.page, day)]
    if hit.visit:
        found += [
            ("visitors", day, day),
            ("visitors_hour", hour, day),
            ("landing_page", hit.page, day),
        ]
        found += [(name, value, day) for name in _VISIT_NAMES if (value := getattr(hit, name))]
    return found
