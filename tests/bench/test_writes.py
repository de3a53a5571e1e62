"""Write units of a report, as DynamoDB bills them, for the index projections of
template.yaml against the earlier all-attribute projections: a create (one transaction
with the project row) and a settings change (privacy).

DynamoDB bills a write ceil(bytes / 1 KB) per item written, for the table and for each
GSI whose entry is written, and twice that inside a transaction; an index entry is written
when the item has the index's keys and a projected attribute changes. Sizes come from a
real analysis of a generated page (`tests/bench/pages.py`)."""

from __future__ import annotations

import json
import math
from typing import Any

from sitelens.data import reports
from sitelens.data.items import to_item
from sitelens.data.transactions import item_size
from sitelens.local import template
from sitelens.reports.rules import project_of
from sitelens.seo.analysis import analyse, band
from tests.bench import pages, report

KEYS = ("account", "id")


def _indexes() -> list[dict[str, Any]]:
    indexes: list[dict[str, Any]] = template.tables(template.load())["ReportsTable"][
        "GlobalSecondaryIndexes"
    ]
    return indexes


def _entry(item: dict[str, Any], index: dict[str, Any], projection: str) -> dict[str, Any]:
    if projection == "ALL":
        return item
    keep = {*KEYS, *(k["AttributeName"] for k in index["KeySchema"])}
    keep |= set(index["Projection"].get("NonKeyAttributes", []))
    return {name: value for name, value in item.items() if name in keep}


def _units(size: int) -> int:
    return math.ceil(size / 1024)


def write_units(before: dict[str, Any] | None, after: dict[str, Any], projection: str) -> int:
    """Units for writing `after` over `before` (None: a new item), outside a transaction."""
    old, new = (
        to_item(reports.COLLECTION.with_index_keys(r)) if r else None for r in (before, after)
    )
    assert new is not None
    units = _units(max(item_size(new), item_size(old) if old else 0))
    for index in _indexes():
        keys = [k["AttributeName"] for k in index["KeySchema"]]
        if not all(k in new for k in keys):
            continue
        entry = _entry(new, index, projection)
        if old is None or entry != _entry(old, index, projection):
            units += _units(item_size(entry))
    return units


def sample_report() -> dict[str, Any]:
    """A stored report of a 60 KB page, as the generation writes it (also costed by
    test_zz_cost)."""
    analysed = analyse(pages.site(60_000, seed=3))
    url = "https://www.example.com/pricing"
    return {
        "account": "1",
        "id": 42,
        "url": url,
        "search": url,
        "project": project_of(url),
        "results": json.dumps(analysed.results, separators=(",", ":")),
        "score": analysed.score,
        "result": band(analysed.score),
        "privacy": 0,
        "generated_at": "2026-11-22T10:00:00.000000Z",
        "created_at": "2026-11-22T10:00:00.000000Z",
        "updated_at": "2026-11-22T10:00:00.000000Z",
        "version": 1,
        "write_id": "0" * 32,
    }


def test_report_write_units() -> None:
    record = sample_report()
    changed = {**record, "privacy": 1, "updated_at": "2026-11-22T10:05:00.000000Z", "version": 2}
    project_row = 1  # a few hundred bytes
    found = {}
    for projection in ("ALL", "INCLUDE"):
        # A create is a transaction (report + project row): twice the units.
        found[projection] = {
            "create": 2 * (write_units(None, record, projection) + project_row),
            "settings_update": write_units(record, changed, projection),
        }
    report.RESULTS["report_write_units"] = {
        "item_bytes": item_size(to_item(reports.COLLECTION.with_index_keys(record))),
        "indexes": len(_indexes()),
        "before_all_projection": found["ALL"],
        "after_slim_projection": found["INCLUDE"],
    }
    assert found["INCLUDE"]["create"] < found["ALL"]["create"] / 3
