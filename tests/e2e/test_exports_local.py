"""Exports under `make serve` (issue 46, part 5), as a client makes one: hits through
/api/event, an export of today asked for, its status read until done, and the file it
names read back with a Parquet reader (pyarrow), one row per hit."""

from __future__ import annotations

import time

import pyarrow.parquet as pq
import pytest

from sitelens.core import clock
from tests.e2e.analytics.test_goals_served import until
from tests.e2e.test_local_analytics import send
from tests.e2e.test_local_server import call, unique_domain
from tests.fixtures.analytics import CHROME


@pytest.mark.slow  # waits for a batch and the tasks queue: make test-slow (CI)
def test_an_export_is_read_back_with_a_parquet_reader(server, dev_key):
    domain = unique_domain("export")
    created = call("POST", f"{server.analytics}/api/v1/websites", dev_key, form={"domain": domain})
    assert created.status == 201, created.body
    site = created.body["data"]["id"]
    for path in ("/", "/pricing", "/pricing"):
        status, _ = send(
            f"{server.analytics}/api/event",
            {"page": f"https://{domain}{path}"},
            **{"User-Agent": CHROME},
        )
        assert status == 202

    def pageviews() -> object:
        query = {"site_id": site, "date_range": "day", "metrics": ["pageviews"]}
        reply = call("POST", f"{server.analytics}/api/v1/query", dev_key, json_body=query)
        return reply.body.get("results")

    assert until(pageviews, [{"dimensions": [], "metrics": [3]}]) == [
        {"dimensions": [], "metrics": [3]}
    ]
    today = clock.now().date().isoformat()
    exports = f"{server.analytics}/api/v1/websites/{site}/exports"
    started = call("POST", exports, dev_key, json_body={"from": today, "to": today})
    assert started.status == 202, started.body
    export = started.body["data"]
    deadline = time.monotonic() + 60
    while export["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, export
        time.sleep(0.3)
        reply = call("GET", f"{exports}/{export['id']}", dev_key)
        assert reply.status == 200, reply.body
        export = reply.body["data"]
    assert export["status"] == "done", export
    assert export["rows"] == 3 and export["url"].startswith("file://")
    rows = pq.read_table(export["path"]).to_pylist()
    assert sorted(row["page"] for row in rows) == ["/", "/pricing", "/pricing"]
    assert {row["schema_version"] for row in rows} == {1}
    # another website's id does not reach this export
    elsewhere = f"{server.analytics}/api/v1/websites/{site + 10_000}/exports/{export['id']}"
    assert call("GET", elsewhere, dev_key).status == 404
