"""Time as the contract writes it: ISO-8601 UTC with microseconds."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """`2026-11-21T09:30:00.000000Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now_iso() -> str:
    return iso(now())
