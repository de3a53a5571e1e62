"""POST /api/v1/websites/{id}/events, a timestamped backfill, end to end: real API Gateway
events through the template's route, the hits counted by the aggregator, read back through
the stats API and the query API; a batch sent twice counts once; every refusal is a 422
with nothing queued."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sitelens.analytics import backfill, counting
from sitelens.data import salts
from tests.conftest import Client, make_account
from tests.fixtures.analytics import CHROME, receive, run


def ago(days: float, hour: int = 10) -> datetime:
    day = datetime.now(UTC).replace(hour=hour, minute=0, second=0, microsecond=0)
    return day - timedelta(days=days)


def when(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


DAY = ago(3)
EVENTS = [
    # visitor u1: home from Google, then pricing, then signs up
    {"id": "e1", "timestamp": when(DAY), "page": "https://example.com/",
     "referrer": "https://www.google.com/", "visitor": "u1", "user_agent": CHROME},
    {"id": "e2", "timestamp": when(DAY + timedelta(minutes=1)),
     "page": "https://example.com/pricing", "visitor": "u1", "user_agent": CHROME},
    {"id": "e3", "timestamp": when(DAY + timedelta(minutes=2)),
     "page": "https://example.com/pricing", "name": "Signup", "visitor": "u1",
     "props": {"plan": "pro"}},
    # no visitor: a visitor of its own
    {"id": "e4", "timestamp": when(DAY + timedelta(hours=1)),
     "page": "https://example.com/pricing"},
]  # fmt: skip


@pytest.fixture
def website(analytics: Client) -> dict[str, Any]:
    reply = analytics.post("/api/v1/websites", {"domain": "example.com"})
    assert reply.status == 201, reply.body
    return dict(reply.data)


def send(client: Client, website_id: int, events: list[dict[str, Any]]) -> Any:
    return client.post(f"/api/v1/websites/{website_id}/events", json_body={"events": events})


def count_all() -> int:
    records = receive("HitsQueue")
    assert run("HitsQueue", records) == {"batchItemFailures": []}
    return len(records)


def stat(client: Client, website_id: int, name: str) -> list[dict[str, Any]]:
    day = DAY.date().isoformat()
    reply = client.get(f"/api/v1/stats/{website_id}", query={"name": name, "from": day, "to": day})
    assert reply.status == 200, reply.body
    return list(reply.data)


def asked(client: Client, website_id: int, **body: Any) -> list[dict[str, Any]]:
    day = DAY.date().isoformat()
    body = {"site_id": website_id, "date_range": [day, day], **body}
    reply = client.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    return list(reply.body["results"])


def test_a_batch_sent_twice_counts_once(analytics, website, store, monkeypatch):
    for sending in range(2):
        reply = send(analytics, website["id"], EVENTS)
        assert reply.status == 202, reply.body
        assert reply.data == {"accepted": 4, "excluded": 0}
        if sending:  # a resend comes after the first batch has ended, not within its run
            monkeypatch.setattr(counting, "RUNNING_SECONDS", 0)
        assert count_all() == 4
    assert stat(analytics, website["id"], "pageviews") == [
        {"value": DAY.date().isoformat(), "count": 3}
    ]
    assert stat(analytics, website["id"], "visitors")[0]["count"] == 2  # u1 and e4's
    assert stat(analytics, website["id"], "event") == [{"value": "Signup::", "count": 1}]
    assert stat(analytics, website["id"], "referrer") == [{"value": "google.com", "count": 1}]
    totals = asked(analytics, website["id"], metrics=["visitors", "visits", "pageviews", "events"])
    assert totals == [{"dimensions": [], "metrics": [2, 2, 3, 4]}]
    pages = asked(analytics, website["id"], metrics=["visitors"], dimensions=["event:page"])
    assert pages == [
        {"dimensions": ["/pricing"], "metrics": [2]},
        {"dimensions": ["/"], "metrics": [1]},
    ]


def test_the_hits_keep_their_time_a_derived_id_and_no_salted_visitor(analytics, website):
    assert send(analytics, website["id"], EVENTS[:2]).status == 202
    queued = [json.loads(r["body"]) for r in receive("HitsQueue")]
    assert [datetime.fromisoformat(h["at"]) for h in queued] == [DAY, DAY + timedelta(minutes=1)]
    caller = key_id(analytics)
    assert [h["id"] for h in queued] == [
        backfill.hit_id(DAY, website["id"], caller, "e1"),
        backfill.hit_id(DAY + timedelta(minutes=1), website["id"], caller, "e2"),
    ]
    assert queued[0]["visitor"] == queued[1]["visitor"] != "u1"
    assert [h["visit"] for h in queued] == [True, False]  # u1's visit goes on
    # no salt of the past day was made again: it is destroyed and stays so
    assert DAY.date().isoformat() not in salts._cache


def key_id(client: Client) -> str:
    keys = client.get("/api/v1/keys")
    assert keys.status == 200, keys.body
    return str(keys.data[0]["id"])


def test_another_key_of_the_account_is_another_caller(analytics, website):
    other_key = analytics.post("/api/v1/keys", {"name": "importer", "access": "write"})
    assert other_key.status == 201, other_key.body
    second = Client("AnalyticsApi", other_key.data["key"])
    assert send(analytics, website["id"], EVENTS[:1]).status == 202
    assert send(second, website["id"], EVENTS[:1]).status == 202
    ids = {json.loads(r["body"])["id"] for r in receive("HitsQueue")}
    assert len(ids) == 2


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"timestamp": when(datetime.now(UTC) + timedelta(hours=1))}, "events[1].timestamp",
         "future"),
        ({"timestamp": when(ago(backfill.MAX_AGE_SECONDS / 86_400 + 0.5))},
         "events[1].timestamp", "18 days"),
        ({"id": "e1"}, "events[1].id", "twice"),
        ({"page": "https://other.com/"}, "events[1].page", "website's domain"),
        ({"page": "ftp://example.com/"}, "events[1].page", "http"),
        ({"timestamp": "2026-11-20T10:00:00"}, "events[1].timestamp", "timezone"),
        ({"id": ""}, "events[1].id", "invalid"),
    ],
)  # fmt: skip
def test_an_event_out_of_bounds_refuses_the_batch(analytics, website, change, field, words):
    events = [EVENTS[0], {**EVENTS[1], **change}]
    reply = send(analytics, website["id"], events)
    assert reply.status == 422, reply.body
    assert field in reply.body["message"], reply.body
    assert words in " ".join(reply.body["message"][field])
    assert receive("HitsQueue") == []


def test_a_batch_over_the_bound_is_refused(analytics, website):
    events = [{**EVENTS[3], "id": f"n{n}"} for n in range(backfill.MAX_EVENTS + 1)]
    reply = send(analytics, website["id"], events)
    assert reply.status == 422
    assert "at most 100 events" in reply.body["message"]["events"][0]
    assert send(analytics, website["id"], []).status == 422
    assert receive("HitsQueue") == []


def test_bots_are_left_out_when_the_website_excludes_them(analytics, website):
    analytics.patch(f"/api/v1/websites/{website['id']}", {"exclude_bots": 1})
    bot = {**EVENTS[3], "user_agent": "curl/8.5.0"}
    reply = send(analytics, website["id"], [EVENTS[0], bot])
    assert reply.data == {"accepted": 1, "excluded": 1}
    assert len(receive("HitsQueue")) == 1


def test_another_accounts_website_is_404_and_a_read_key_is_403(analytics, website):
    stranger = Client("AnalyticsApi", make_account("Other").key)
    assert send(stranger, website["id"], EVENTS).status == 404
    reader = analytics.post("/api/v1/keys", {"name": "dashboard"})
    assert send(Client("AnalyticsApi", reader.data["key"]), website["id"], EVENTS).status == 403
    assert receive("HitsQueue") == []


def test_the_events_file_backfills_as_sam_local_invoke_runs_it(aws_env):
    from sitelens import accounts
    from tests.integration.test_events import KEY, event, invoke

    accounts.add_key(accounts.create_account("Events"), "events", key=KEY)
    assert invoke(event("websites-create"))[0] == 201
    sent = event("events-backfill")
    body = json.loads(sent["body"])
    for place, item in enumerate(body["events"]):  # the file's day is long past: move it
        item["timestamp"] = when(DAY + timedelta(minutes=place))
    status, _, answer = invoke({**sent, "body": json.dumps(body)})
    assert (status, answer["data"]) == (202, {"accepted": 2, "excluded": 0}), answer
    assert len(receive("HitsQueue")) == 2
