"""The imported tables: Plausible's `imported_*` tables, a row per site, day and value, with
the columns Plausible's CSV export writes (its importer's input structures), less those no
query here reads (scroll depth, time on page). Every import is stored as these tables
whatever its format, so one query reads them all (`queried`)."""

from __future__ import annotations

from typing import Final

# table: (its text columns, its counts), after `date`
TABLES: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "imported_visitors": ((), ("visitors", "pageviews", "bounces", "visits", "visit_duration")),
    "imported_sources": (
        (
            "source",
            "referrer",
            "utm_source",
            "utm_medium",
            "utm_campaign",
            "utm_content",
            "utm_term",
        ),
        ("pageviews", "visitors", "visits", "visit_duration", "bounces"),
    ),
    "imported_pages": (("hostname", "page"), ("visits", "visitors", "pageviews")),
    "imported_entry_pages": (
        ("entry_page",),
        ("visitors", "entrances", "visit_duration", "bounces", "pageviews"),
    ),
    "imported_exit_pages": (
        ("exit_page",),
        ("visitors", "visit_duration", "exits", "bounces", "pageviews"),
    ),
    "imported_locations": (
        ("country", "region", "city"),
        ("visitors", "visits", "visit_duration", "bounces", "pageviews"),
    ),
    "imported_devices": (
        ("device",),
        ("visitors", "visits", "visit_duration", "bounces", "pageviews"),
    ),
    "imported_browsers": (
        ("browser", "browser_version"),
        ("visitors", "visits", "visit_duration", "bounces", "pageviews"),
    ),
    "imported_operating_systems": (
        ("operating_system", "operating_system_version"),
        ("visitors", "visits", "visit_duration", "bounces", "pageviews"),
    ),
    "imported_custom_events": (("name", "link_url", "path"), ("visitors", "events")),
}
# What a table needs to be read at all: its date, its first text column and visitors.
REQUIRED: Final = ("date", "visitors")


def columns(table: str) -> tuple[str, ...]:
    texts, counts = TABLES[table]
    return ("date", *texts, *counts)


def create_sql(table: str) -> str:
    """The empty table in DuckDB (a job's working copy)."""
    texts, counts = TABLES[table]
    typed = [
        "date DATE",
        *(f"{name} VARCHAR" for name in texts),
        *(f"{name} BIGINT" for name in counts),
    ]
    return f"CREATE TABLE {table} ({', '.join(typed)})"
