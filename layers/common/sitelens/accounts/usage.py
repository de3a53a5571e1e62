"""What an account used in a month, and an agency's bill: its own usage, each workspace's,
and their total (docs/teams.md#usage).

The unit is Plausible's billable event: a pageview or a custom event that was counted (an
excluded hit, a bot or a filtered address, is not). Both are read from the daily counters
the aggregator writes (`pageviews` and `event`, `data.stats`): two Queries a website, at
most `stats.READERS` at once, never a scan. A month's counters are whole once its last
day has ended (UTC); the current month's run to today.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from typing import Any

from sitelens.accounts.keys import Account
from sitelens.core import clock, errors
from sitelens.data import stats
from sitelens.data import websites as stored_websites
from sitelens.data import workspaces as stored_workspaces

# Websites one answer reads (the agency's and its workspaces' together): two Queries each,
# about 2,000 Queries and a second or two at the most.
MAX_WEBSITES = 1_000


class TooManyWebsites(errors.Conflict):
    message = (
        f"The account and its workspaces have more than {MAX_WEBSITES} websites: ask for "
        "each workspace's usage with the Sitelens-Workspace header."
    )


@dataclass(frozen=True)
class Month:
    """The days of a month that have counters: from its first to its last, or to today."""

    name: str  # YYYY-MM
    first: date
    last: date

    @classmethod
    def of(cls, name: str | None, today: date) -> Month:
        if name is None:
            name = today.strftime("%Y-%m")
        year, month = (int(part) for part in name.split("-"))
        first = date(year, month, 1)
        if first > today:
            raise errors.Invalid.field("month", "The month field must not be a future month.")
        last = date(year, month, calendar.monthrange(year, month)[1])
        return cls(name, first, min(last, today))


def of_month(account: Account, month_name: str | None) -> dict[str, Any]:
    """The account's usage in the month, each of its workspaces' (an agency's: a workspace
    has none), and their total; 409 past MAX_WEBSITES websites."""
    month = Month.of(month_name, clock.now().date())
    listed = sorted(stored_workspaces.of_agency(account.id), key=lambda w: int(w["id"]))
    accounts = [account.id, *(str(w["id"]) for w in listed)]
    websites = {a: [int(w["id"]) for w in stored_websites.of_account(a)] for a in accounts}
    if sum(len(ids) for ids in websites.values()) > MAX_WEBSITES:
        raise TooManyWebsites()
    used = _used(websites, month)
    workspaces = [{"id": int(w["id"]), "name": w["name"], **used[str(w["id"])]} for w in listed]
    total = {
        field: sum(u[field] for u in used.values())
        for field in ("websites", "pageviews", "custom_events", "billable_events")
    }
    return {
        "month": month.name,
        "first_day": month.first.isoformat(),
        "last_day": month.last.isoformat(),
        "account": {"id": int(account.id), "name": account.name, **used[account.id]},
        "workspaces": workspaces,
        "total": total,
    }


def _used(websites: dict[str, list[int]], month: Month) -> dict[str, dict[str, int]]:
    """Each account's websites, pageviews, custom events and billable events in the month."""
    first, last = month.first.isoformat(), month.last.isoformat()
    spans = [
        stats.Span(website_id, name, first, last)
        for ids in websites.values()
        for website_id in ids
        for name in ("pageviews", "event")
    ]
    found, _ = stats.many_counts(spans)
    counted = {
        (span.website_id, span.name): sum(count for _, _, count in counters)
        for span, counters in zip(spans, found, strict=True)
    }
    used = {}
    for account_id, ids in websites.items():
        pageviews = sum(counted[(website_id, "pageviews")] for website_id in ids)
        custom_events = sum(counted[(website_id, "event")] for website_id in ids)
        used[account_id] = {
            "websites": len(ids),
            "pageviews": pageviews,
            "custom_events": custom_events,
            "billable_events": pageviews + custom_events,
        }
    return used
