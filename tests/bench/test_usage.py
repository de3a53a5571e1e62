"""An agency's bill, `GET /api/v1/usage`, through its handler on moto: an agency with
WORKSPACES workspaces of WEBSITES websites each, every website with a month of daily
pageviews and custom event counters. What one answer reads (DynamoDB requests, items) and
its wall time on moto, and what the bound (usage.MAX_WEBSITES websites) reads, derived
from the requests a website costs."""

from __future__ import annotations

import time
from typing import Any

from sitelens.accounts import usage
from sitelens.core import clock
from sitelens.data import stats
from sitelens.data.clients import client
from tests.bench import report, timing
from tests.conftest import Client

WORKSPACES = 2 if timing.QUICK else 10
WEBSITES = 3 if timing.QUICK else 20  # a workspace's
EVENT_NAMES = ("Signup", "Download", "Purchase")


def _counters(website_id: int, days: list[str]) -> list[dict[str, Any]]:
    items = [stats.counter_item(website_id, "pageviews", day, day, 40) for day in days]
    for name in EVENT_NAMES:
        items += [stats.counter_item(website_id, "event", day, name, 3) for day in days]
    return [{"PutRequest": {"Item": item}} for item in items]


def test_usage_reads(analytics: Client) -> None:
    today = clock.now().date()
    days = [today.replace(day=d).isoformat() for d in range(1, today.day + 1)]
    made = [analytics.post("/api/v1/workspaces", {"name": f"C{n}"}) for n in range(WORKSPACES)]
    workspaces = [reply.data for reply in made]
    for workspace in workspaces:
        inside = {"Sitelens-Workspace": str(workspace["id"])}
        for n in range(WEBSITES):
            made = analytics.post(
                "/api/v1/websites", {"domain": f"s{n}-{workspace['id']}.example"}, headers=inside
            )
            stats.write_batch(_counters(int(made.data["id"]), days))
    requests: list[str] = []
    dynamodb = client("dynamodb")
    dynamodb.meta.events.register(
        "before-call.dynamodb", lambda model, **_: requests.append(model.name)
    )
    started = time.perf_counter()
    answer = analytics.get("/api/v1/usage")
    seconds = time.perf_counter() - started
    assert answer.status == 200, answer.body
    websites = WORKSPACES * WEBSITES
    per_website = 40 + 3 * len(EVENT_NAMES)
    assert answer.data["total"]["billable_events"] == websites * len(days) * per_website
    queries = requests.count("Query")
    report.RESULTS["usage"] = {
        "websites": websites,
        "workspaces": WORKSPACES,
        "days": len(days),
        "requests": len(requests),
        "queries": queries,
        "seconds_moto": round(seconds, 3),
        # each website: its pageviews and its events Query; the rest: the account's and each
        # workspace's website list, the workspaces' list, the key and the rate limit
        "requests_at_bound": usage.MAX_WEBSITES * 2 + (len(requests) - 2 * websites),
    }
    report.CONTEXT["usage"] = {
        "data": f"{WORKSPACES} workspaces of {WEBSITES} websites, {len(days)} days of counters",
        "store": "moto (in process): requests and items are the design's; time is moto's",
    }
