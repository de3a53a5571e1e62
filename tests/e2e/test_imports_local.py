"""Imports under `make serve` (issue 46, part 4), as a client makes them: a Plausible CSV
export zip and a GA4 report uploaded as multipart over HTTP, their jobs run by the server's
own tasks worker, the imports read until done, and `include.imports` answering their known
totals through POST /api/v1/query."""

from __future__ import annotations

import time

import pytest

from tests.e2e.test_local_server import call, unique_domain
from tests.integration.imports import files
from tests.integration.imports.test_imports import FIRST, JANUARY


def imported(server, key: str, site: int, body: bytes, name: str) -> dict:
    sent, content_type = files.multipart(body, name)
    imports = f"{server.analytics}/api/v1/websites/{site}/imports"
    started = call("POST", imports, key, data=sent, content_type=content_type)
    assert started.status == 202, started.body
    found = started.body["data"]
    deadline = time.monotonic() + 60
    while found["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, found
        time.sleep(0.3)
        found = call("GET", f"{imports}/{found['id']}", key).body["data"]
    return found


@pytest.mark.slow  # waits for the tasks queue twice: make test-slow (CI)
def test_a_plausible_zip_and_a_ga4_report_are_answered_with_include_imports(server, dev_key):
    totals = {"date_range": JANUARY, "metrics": ["visitors", "pageviews"]}
    for body, name, expected in (
        (files.plausible_zip(FIRST), "plausible-export.zip", [35, 85]),
        (files.ga4_report(FIRST), "ga4-report.json", [10, 30]),
    ):
        domain = unique_domain("import")
        created = call(
            "POST", f"{server.analytics}/api/v1/websites", dev_key, form={"domain": domain}
        )
        site = created.body["data"]["id"]
        done = imported(server, dev_key, site, body, name)
        assert done["status"] == "done" and done["error"] is None, done
        asked = {"site_id": site, "include": {"imports": True}, **totals}
        reply = call("POST", f"{server.analytics}/api/v1/query", dev_key, json_body=asked)
        assert reply.status == 200 and reply.body["meta"]["imports_included"] is True, reply.body
        assert reply.body["results"] == [{"dimensions": [], "metrics": expected}]
        without = {"site_id": site, **totals}
        native = call("POST", f"{server.analytics}/api/v1/query", dev_key, json_body=without)
        assert native.body["results"] == [{"dimensions": [], "metrics": [0, 0]}]
