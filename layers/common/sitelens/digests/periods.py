"""The periods digests report: the last complete ISO week (Monday to Sunday) or calendar
month, and the period before it. Chosen by the UTC date the planner runs on, at 12:00 UTC
(template.yaml), when that period has ended in every time zone: its days are read in each
website's own (`queries`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

CADENCES = ("weekly", "monthly")
_WEEK = re.compile(r"(\d{4})-W(\d{2})")
_MONTH = re.compile(r"(\d{4})-(\d{2})")


@dataclass(frozen=True)
class Period:
    cadence: str  # "weekly" or "monthly"
    label: str  # "2026-W47", "2026-10": one digest per account and label
    first: date
    last: date
    before_first: date
    before_last: date


def last_complete(cadence: str, today: date) -> Period:
    """The last period of the cadence that ended before today, and the one before it."""
    if cadence == "weekly":
        return _week(today - timedelta(days=today.weekday() + 7))
    last = today.replace(day=1) - timedelta(days=1)
    return _month(last.replace(day=1))


def current(today: date) -> dict[str, Period]:
    """The period each cadence's digests report today: its last complete one. Every day,
    not only on Mondays and the 1st, so a digest missed on its day is sent the next."""
    return {cadence: last_complete(cadence, today) for cadence in CADENCES}


def of_label(label: str) -> Period:
    """The period a label names ("2026-W47", "2026-11"); ValueError for any other text."""
    if found := _WEEK.fullmatch(label):
        return _week(date.fromisocalendar(int(found[1]), int(found[2]), 1))
    if found := _MONTH.fullmatch(label):
        return _month(date(int(found[1]), int(found[2]), 1))
    raise ValueError(f"not a digest period: {label!r}")


def _week(first: date) -> Period:
    year, week, _ = first.isocalendar()
    return Period(
        "weekly",
        f"{year}-W{week:02d}",
        first,
        first + timedelta(days=6),
        first - timedelta(days=7),
        first - timedelta(days=1),
    )


def _month(first: date) -> Period:
    last = (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    before_last = first - timedelta(days=1)
    return Period("monthly", f"{first:%Y-%m}", first, last, before_last.replace(day=1), before_last)
