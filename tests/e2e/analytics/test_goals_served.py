"""Goals, funnels and annotations under `make serve` (the real program over HTTP, DuckDB
over its local warehouse): hits sent to /api/event, goals made through the API, then
asked through POST /api/v1/query and POST /api/v1/funnels/query."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.test_local_analytics import send
from tests.e2e.test_local_server import call, unique_domain
from tests.fixtures.analytics import CHROME


def until(ask: Any, expected: Any, seconds: float = 30) -> Any:
    """`ask()` once it answers `expected` (hits are counted in batches), or its last answer."""
    deadline = time.monotonic() + seconds
    while True:
        answer = ask()
        if answer == expected or time.monotonic() > deadline:
            return answer
        time.sleep(0.3)


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_goals_funnels_and_annotations_as_served(server, dev_key):
    domain = unique_domain("goals")
    created = call("POST", f"{server.analytics}/api/v1/websites", dev_key, form={"domain": domain})
    assert created.status == 201, created.body
    site = created.body["data"]["id"]
    goals = f"{server.analytics}/api/v1/websites/{site}/goals"
    pricing = call(
        "POST", goals, dev_key, form={"page_path": "/pricing", "display_name": "Pricing"}
    )
    assert pricing.status == 201, pricing.body
    assert call("POST", goals, dev_key, form={"event_name": "signup"}).status == 201
    # three visitors (three browsers): home, pricing, sign-up; home, pricing; home
    for visitor, steps in ((1, ["/", "/pricing", "signup"]), (2, ["/", "/pricing"]), (3, ["/"])):
        agent = CHROME.replace("Chrome/", f"Chrome/{visitor}")
        for step in steps:
            form = {"page": f"https://{domain}{step if step != 'signup' else '/pricing'}"}
            if step == "signup":
                form["event[name]"] = "signup"
            status, _ = send(f"{server.analytics}/api/event", form, **{"User-Agent": agent})
            assert status == 202
    query = {
        "site_id": site,
        "metrics": ["visitors", "events", "conversion_rate"],
        "date_range": "day",
        "dimensions": ["event:goal"],
    }

    def results() -> Any:
        reply = call("POST", f"{server.analytics}/api/v1/query", dev_key, json_body=query)
        assert reply.status == 200, reply.body
        return reply.body["results"]

    expected = [
        {"dimensions": ["Pricing"], "metrics": [2, 2, 66.7]},
        {"dimensions": ["signup"], "metrics": [1, 1, 33.3]},
    ]
    assert until(results, expected) == expected
    funnel = call(
        "POST",
        f"{server.analytics}/api/v1/funnels/query",
        dev_key,
        json_body={"site_id": site, "date_range": "day", "steps": ["Pricing", "signup"]},
    )
    assert funnel.status == 200, funnel.body
    assert [step["visitors"] for step in funnel.body["steps"]] == [2, 1]
    assert funnel.body["steps"][1]["conversion_rate_step"] == 50.0
    assert funnel.body["meta"]["all_visitors"] == 3
    today = time.strftime("%Y-%m-%d", time.gmtime())
    marked = call(
        "POST",
        f"{server.analytics}/api/v1/websites/{site}/annotations",
        dev_key,
        form={"date": today, "text": "Deploy 4f2c9e1"},
    )
    assert marked.status == 201, marked.body
    series = call(
        "POST",
        f"{server.analytics}/api/v1/query",
        dev_key,
        json_body={
            "site_id": site,
            "metrics": ["visitors"],
            "date_range": "day",
            "dimensions": ["time:day"],
            "include": {"annotations": True},
        },
    )
    assert series.status == 200, series.body
    assert [(m["text"], m["bucket"]) for m in series.body["meta"]["annotations"]] == [
        ("Deploy 4f2c9e1", today)
    ]
