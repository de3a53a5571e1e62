"""Custom properties and revenue (issue 24, part 3): sent to POST /api/event (form and
JSON), refused beyond their bounds, queued, stored as the warehouse's columns, and asked as
`event:props:<key>` through POST /api/v1/query; files written before the columns existed
are read beside new ones by queries and compaction."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sitelens.analytics.hit import Hit
from sitelens.analytics.warehouse import compaction, query, rows, schema, summaries
from sitelens.core import properties
from tests.integration.analytics.test_warehouse import row
from tests.integration.test_tracking import create_website, hit, queued

duckdb = pytest.importorskip("duckdb")

NOW = datetime(2026, 11, 24, 12, tzinfo=UTC)
DAY = "2026-11-23"


def test_an_event_s_properties_and_revenue_are_queued(analytics):
    create_website(analytics)
    form = {
        "page": "https://example.com/checkout",
        "event[name]": "Purchase",
        "props": json.dumps({"plan": "pro", "seats": 3, "trial": False}),
        "revenue[amount]": "19.990",
        "revenue[currency]": "eur",
    }
    assert hit(analytics, form).status == 202
    nested = {
        "page": "https://example.com/",
        "props": {"author": "Ada"},  # a pageview's properties, as data-sitelens-* send them
    }
    assert hit(analytics, json_body=nested).status == 202
    event, pageview = queued()
    assert event["props"] == '{"plan":"pro","seats":"3","trial":"false"}'
    assert (event["revenue_amount"], event["revenue_currency"]) == ("19.990", "EUR")
    assert pageview["props"] == '{"author":"Ada"}'
    assert "revenue_amount" not in pageview


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"props": "not json"}, "props"),
        ({"props": "[1, 2]"}, "props"),
        ({"props": json.dumps({"nested": {"a": 1}})}, "props"),
        ({"props": json.dumps({f"k{n}": "v" for n in range(properties.MAX_PROPS + 1)})}, "props"),
        ({"props": json.dumps({"k" * (properties.MAX_KEY_LENGTH + 1): "v"})}, "props"),
        ({"props": json.dumps({"a key": "v"})}, "props"),
        ({"props": json.dumps({"k": "v" * (properties.MAX_VALUE_LENGTH + 1)})}, "props"),
        ({"props": json.dumps({"k": ""})}, "props"),
        ({"revenue[amount]": "ten", "revenue[currency]": "USD"}, "revenue"),
        ({"revenue[amount]": "-1", "revenue[currency]": "USD"}, "revenue"),
        ({"revenue[amount]": "1e13", "revenue[currency]": "USD"}, "revenue"),
        ({"revenue[amount]": "0.1234567", "revenue[currency]": "USD"}, "revenue"),
        ({"revenue[amount]": "10", "revenue[currency]": "dollars"}, "revenue"),
        ({"revenue[amount]": "10", "revenue[currency]": "XYZ"}, "revenue"),  # no ISO 4217 code
        ({"revenue[amount]": "10", "revenue[currency]": "xts"}, "revenue"),  # the testing code
        ({"revenue[amount]": "10"}, "revenue"),
    ],
)
def test_properties_and_revenue_beyond_their_bounds_are_422(analytics, fields, field):
    create_website(analytics)
    form = {"page": "https://example.com/", "event[name]": "Purchase", **fields}
    reply = hit(analytics, form)
    assert reply.status == 422, reply.body
    assert list(reply.body["message"]) == [field]
    assert queued() == []


def test_revenue_of_the_wrong_json_type_is_422(analytics):
    create_website(analytics)
    body = {"page": "https://example.com/", "event": {"name": "Purchase"}, "revenue": 10}
    reply = hit(analytics, json_body=body)
    assert reply.status == 422
    assert list(reply.body["message"]) == ["revenue"]


def stored(website_id: int, visitor: str, at: str, **fields: Any) -> dict[str, Any]:
    """A row as the aggregator writes it for a hit with these fields."""
    made = Hit(
        website_id=website_id,
        at=datetime.fromisoformat(f"{DAY}T{at}+00:00"),
        page=fields.pop("page", "/"),
        visit=True,
        visitor=visitor,
        id=f"{visitor}-{at}",
        **fields,
    )
    found = rows.row(made)
    assert found is not None
    return found


def test_event_props_as_a_dimension_and_a_filter(analytics, store):
    site = create_website(analytics)["id"]
    store.write(
        [
            stored(site, "a", "10:00:00", props='{"author":"Ada"}'),
            stored(site, "b", "10:00:00", props='{"author":"Ada"}'),
            stored(site, "c", "10:00:00", props='{"author":"Grace"}'),
            stored(site, "d", "10:00:00"),
            stored(
                site,
                "a",
                "10:01:00",
                event_parts=("Purchase", "", ""),
                props='{"plan":"pro"}',
                revenue_amount="19.99",
                revenue_currency="EUR",
            ),
        ]
    )
    body = {
        "site_id": site,
        "metrics": ["visitors", "pageviews"],
        "date_range": [DAY, DAY],
        "dimensions": ["event:props:author"],
    }
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [
        {"dimensions": [""], "metrics": [2, 1]},  # no author: the pageview of d, a's event
        {"dimensions": ["Ada"], "metrics": [2, 2]},
        {"dimensions": ["Grace"], "metrics": [1, 1]},
    ]
    filtered = {
        **body,
        "metrics": ["visitors", "visits", "bounce_rate"],
        "dimensions": [],
        "filters": [["is", "event:props:author", ["Ada"]]],
    }
    reply = analytics.post("/api/v1/query", json_body=filtered)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [{"dimensions": [], "metrics": [2, 2, 50.0]}]
    plan = {**filtered, "metrics": ["events"], "filters": [["is", "event:props:plan", ["pro"]]]}
    reply = analytics.post("/api/v1/query", json_body=plan)
    assert reply.body["results"] == [{"dimensions": [], "metrics": [1]}]


@pytest.mark.parametrize("dimension", ["event:props:a key", "event:props:", "event:prop:x"])
def test_a_property_no_hit_can_carry_is_422(analytics, store, dimension):
    site = create_website(analytics)["id"]
    body = {"site_id": site, "metrics": ["visitors"], "date_range": "7d"}
    reply = analytics.post("/api/v1/query", json_body={**body, "dimensions": [dimension]})
    assert reply.status == 422
    assert list(reply.body["message"]) == ["dimensions"]
    reply = analytics.post(
        "/api/v1/query", json_body={**body, "filters": [["is", dimension, ["x"]]]}
    )
    assert reply.status == 422
    assert list(reply.body["message"]) == ["filters"]


def test_queries_naming_properties_read_raw_rows():
    """Compaction's summaries know no properties: such a query is never answered by them."""
    for asked in (
        {"dimensions": ["event:props:plan"]},
        {"filters": [["is", "event:props:plan", ["pro"]]]},
        {"dimensions": ["visit:source"], "filters": [["is", "event:props:plan", ["pro"]]]},
        {"dimensions": ["event:page"], "filters": [["is", "event:props:plan", ["pro"]]]},
    ):
        body = {"site_id": 1, "metrics": ["visitors"], "date_range": [DAY, DAY], **asked}
        assert summaries.plan(query.parse(body, NOW)) is None


def write_old_file(path: Path, rows_of: list[dict[str, Any]], partitioned: bool) -> None:
    """A Parquet file as written before the properties' columns existed."""
    old = [
        name
        for name in schema.COLUMN_NAMES
        if name not in ("props", "revenue_amount", "revenue_currency", "scroll_depth")
        and not name.startswith("vital_")
    ]
    keep = (["website_id", "day"] if partitioned else []) + old
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = duckdb.connect()
    connection.execute("SET TimeZone = 'UTC'")
    lines = path.with_suffix(".json")
    lines.write_text("\n".join(json.dumps({k: r[k] for k in keep}, default=str) for r in rows_of))
    kinds = dict((*schema.PARTITIONS, *schema.COLUMNS))
    columns = ", ".join(f"'{k}': '{schema.DUCKDB_TYPES[kinds[k]]}'" for k in keep)
    connection.execute(
        f"COPY (SELECT * FROM read_json('{lines}', format = 'newline_delimited', "
        f"columns = {{{columns}}})) TO '{path}' (FORMAT parquet)"
    )
    lines.unlink()


def test_files_written_before_the_columns_are_read_beside_new_ones(analytics, store):
    site = create_website(analytics)["id"]
    root = store.root
    before = [row(site, "a", "09:00:00", page="/"), row(site, "b", "09:00:00", page="/")]
    # a compacted file and a landing file of the old layout, then rows of the new one
    write_old_file(root / compaction.compacted_file(site, DAY), before[:1], partitioned=False)
    write_old_file(
        root / compaction.landing_folder("2026-11-23-09") / "part-old.parquet",
        before[1:],
        partitioned=True,
    )
    store.write([stored(site, "c", "10:00:00", props='{"author":"Ada"}')])
    store.defined = False
    body = {
        "site_id": site,
        "metrics": ["visitors"],
        "date_range": [DAY, DAY],
        "dimensions": ["event:props:author"],
    }

    def answer() -> Any:
        reply = analytics.post("/api/v1/query", json_body=body)
        assert reply.status == 200, reply.body
        return reply.body["results"]

    expected = [
        {"dimensions": [""], "metrics": [2]},
        {"dimensions": ["Ada"], "metrics": [1]},
    ]
    assert answer() == expected
    store.compact()  # the old compacted file, the old landing file and a new one, merged
    assert answer() == expected
    assert not list((root / compaction.LANDING).glob("hour=*/*.parquet"))
