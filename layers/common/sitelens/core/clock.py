"""Time as the contract writes it: ISO-8601 UTC with microseconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """`2026-11-21T09:30:00.000000Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now_iso() -> str:
    return iso(now())


def after(previous: str) -> str:
    """Now, or just after `previous` when this container's clock is behind the one that
    wrote it: a record's `updated_at` never goes backwards."""
    current = now()
    last = datetime.fromisoformat(previous)  # as `iso` writes it, Z and all
    return iso(max(current, last + timedelta(microseconds=1)))
