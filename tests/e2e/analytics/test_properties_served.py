"""Properties, revenue goals, automatic events, scroll depth and vitals under `make serve`
(the real program over HTTP: hits through /api/event, the queue worker, the aggregator's
rows in the local warehouse, asked through POST /api/v1/query)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.analytics.test_goals_served import until
from tests.e2e.test_local_analytics import send
from tests.e2e.test_local_server import call, unique_domain
from tests.fixtures.analytics import CHROME


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_properties_revenue_scroll_and_vitals_as_served(server, dev_key):
    domain = unique_domain("props")
    created = call("POST", f"{server.analytics}/api/v1/websites", dev_key, form={"domain": domain})
    assert created.status == 201, created.body
    site = created.body["data"]["id"]
    goal = call(
        "POST",
        f"{server.analytics}/api/v1/websites/{site}/goals",
        dev_key,
        json_body={"event_name": "Purchase", "currency": "EUR"},
    )
    assert goal.status == 201, goal.body
    page = f"https://{domain}/pricing"
    for visitor, amount in ((1, "19.99"), (2, "5.01")):
        agent = {"User-Agent": CHROME.replace("Chrome/", f"Chrome/{visitor}")}
        forms: list[dict[str, str]] = [
            {"page": page, "props": json.dumps({"author": "Ada"})},
            {
                "page": page,
                "event[name]": "Purchase",
                "props": json.dumps({"plan": "pro"}),
                "revenue[amount]": amount,
                "revenue[currency]": "EUR",
            },
            {
                "page": page,
                "engagement_ms": "4000",
                "scroll_depth": str(40 * visitor),
                "lcp": str(1000 * visitor),
                "cls": "0.05",
            },
        ]
        for form in forms:
            status, _ = send(f"{server.analytics}/api/event", form, **agent)
            assert status == 202

    def ask(body: dict[str, Any]) -> Any:
        query = {"site_id": site, "date_range": "day", **body}
        reply = call("POST", f"{server.analytics}/api/v1/query", dev_key, json_body=query)
        assert reply.status == 200, reply.body
        return reply.body["results"]

    by_author = {"metrics": ["visitors"], "dimensions": ["event:props:author"]}
    # the events carry no author: theirs is ""
    expected = [{"dimensions": [""], "metrics": [2]}, {"dimensions": ["Ada"], "metrics": [2]}]
    assert until(lambda: ask(by_author), expected) == expected
    revenue = {"metrics": ["events", "total_revenue"], "dimensions": ["event:goal"]}
    assert ask(revenue) == [
        {"dimensions": ["Purchase"], "metrics": [2, {"value": 25.0, "currency": "EUR"}]}
    ]
    scroll = {"metrics": ["scroll_depth"], "dimensions": ["event:page"]}
    assert ask(scroll) == [{"dimensions": ["/pricing"], "metrics": [60]}]
    vitals = {"metrics": ["p75_lcp", "p75_cls", "lcp_good"], "dimensions": ["event:page"]}
    assert ask(vitals) == [{"dimensions": ["/pricing"], "metrics": [1750, 0.05, 100.0]}]
