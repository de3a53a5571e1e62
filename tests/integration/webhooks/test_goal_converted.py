"""`goal.converted` on moto: the aggregator counts each converting hit once per goal in its
minute (a hit delivered again adds nothing), only for accounts subscribed to the event;
the minutely pass sends one signed delivery per website and minute listing each goal's
conversions and a revenue goal's sum by currency, never twice, and a conversion counted
after its minute was sent goes in the next minute's delivery."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import boto3
import pytest
from standardwebhooks import Webhook

from sitelens.analytics import converted
from sitelens.analytics.hit import Hit
from sitelens.local import gateway
from sitelens.webhooks import goals
from tests.fixtures.analytics import hit_record, run
from tests.integration.webhooks.test_webhooks import deliver_queued, make

MINUTE = datetime(2026, 11, 26, 14, 20, 30, tzinfo=UTC)


@pytest.fixture
def at(monkeypatch) -> list[datetime]:
    """The aggregator's clock: the first item of the list, which a test may change."""
    moment = [MINUTE]
    monkeypatch.setattr(converted, "clock", SimpleNamespace(now=lambda: moment[0]))
    converted.forget()
    yield moment
    converted.forget()


@pytest.fixture
def shop(analytics) -> dict[str, Any]:
    """A website with an event goal (with a property), a page goal and a revenue goal."""
    website = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    path = f"/api/v1/websites/{website['id']}/goals"
    made = [
        analytics.post(path, json_body=fields).data
        for fields in (
            {"event_name": "Signup", "custom_props": {"plan": "pro"}},
            {"page_path": "/pricing/**"},
            {"event_name": "Purchase", "currency": "EUR", "display_name": "Sale"},
        )
    ]
    assert all(goal and "id" in goal for goal in made), made
    return {**website, "goals": made}


def hits(website_id: int) -> list[Hit]:
    now = datetime.now(UTC)
    event = {"website_id": website_id, "at": now, "page": "/", "visit": False}
    return [
        Hit(**event, event_parts=("Signup", "", ""), props='{"plan":"pro"}'),
        Hit(**event, event_parts=("Signup", "", ""), props='{"plan":"free"}'),  # not the goal's
        Hit(website_id=website_id, at=now, page="/pricing/team?ref=x", visit=True),
        Hit(website_id=website_id, at=now, page="/pricing", visit=True),  # not under /pricing/
        Hit(
            **event,
            event_parts=("Purchase", "", ""),
            revenue_amount="19.99",
            revenue_currency="EUR",
        ),
        Hit(
            **event, event_parts=("Purchase", "", ""), revenue_amount="5.01", revenue_currency="EUR"
        ),
        Hit(**event, event_parts=("Purchase", "", ""), revenue_amount="7", revenue_currency="USD"),
        Hit(**event, engaged_ms=3000),
    ]


def aggregate(account_id: str, batch: list[Hit], first: int = 0) -> list[dict[str, Any]]:
    records = [hit_record(hit, account_id, first + n) for n, hit in enumerate(batch)]
    assert run("HitsQueue", records) == {"batchItemFailures": []}
    return records


def stored_items() -> list[dict[str, Any]]:
    return boto3.client("dynamodb").scan(TableName="WebhooksTable")["Items"]


def test_one_delivery_per_website_and_minute_counts_each_conversion_once(
    analytics, account, shop, receiver, at
):
    endpoint = make(analytics, receiver.url(), events="goal.converted")
    records = aggregate(account.id, hits(shop["id"]))
    # a later delivery of the same hits (the aggregator notes every hit it finds counted)
    again = [Hit.from_json(r["body"]) for r in records]
    assert converted.note([(account.id, h.id, h) for h in again]) == set()
    assert goals.run(MINUTE + timedelta(seconds=30)).sent == 0  # the minute has not ended
    assert goals.run(MINUTE + timedelta(minutes=2)).sent == 1
    assert goals.run(MINUTE + timedelta(minutes=3)).sent == 0  # sent once
    deliver_queued()
    [got] = receiver.received
    body = Webhook(endpoint["secret"]).verify(got.body, got.headers)
    assert body["type"] == "goal.converted"
    signup, pricing, sale = (goal["id"] for goal in shop["goals"])
    assert body["data"] == {
        "website_id": shop["id"],
        "domain": "shop.example",
        "minute": "2026-11-26T14:20:00Z",
        "goals": [
            {"id": signup, "name": "Signup", "conversions": 1, "revenue": None},
            {"id": pricing, "name": "Visit /pricing/**", "conversions": 1, "revenue": None},
            # the USD purchase converts, its amount is not in the goal's currency
            {"id": sale, "name": "Sale", "conversions": 3, "revenue": {"EUR": 25.0}},
        ],
    }


def test_a_conversion_counted_after_its_minute_was_sent_goes_in_the_next(
    analytics, account, shop, receiver, at
):
    make(analytics, receiver.url(), events="goal.converted")
    aggregate(account.id, hits(shop["id"])[:1])
    assert goals.run(MINUTE + timedelta(minutes=2)).sent == 1
    # a late batch still stamped with the sent minute
    aggregate(account.id, hits(shop["id"])[:1], first=100)
    at[0] = MINUTE + timedelta(minutes=2)
    assert goals.run(MINUTE + timedelta(minutes=5)).sent == 1
    deliver_queued()
    sent = [json.loads(r.body)["data"] for r in receiver.received]
    assert [d["minute"] for d in sent] == ["2026-11-26T14:20:00Z", "2026-11-26T14:21:00Z"]
    assert [d["goals"][0]["conversions"] for d in sent] == [1, 1]


def test_accounts_without_the_subscription_write_nothing(analytics, account, shop, receiver, at):
    make(analytics, receiver.url(), events="website.created")
    aggregate(account.id, hits(shop["id"]))
    assert not [i for i in stored_items() if i["pk"]["S"].startswith(("CONVERSIONS", "CONVERTED"))]
    assert goals.run(MINUTE + timedelta(minutes=2)).sent == 0


def test_an_endpoint_reaching_another_website_hears_nothing(analytics, account, shop, receiver, at):
    other = analytics.post("/api/v1/websites", {"domain": "other.example"}).data
    make(analytics, receiver.url(), events="goal.converted", websites=str(other["id"]))
    aggregate(account.id, hits(shop["id"]))
    assert goals.run(MINUTE + timedelta(minutes=2)).sent == 1  # claimed; no endpoint wants it
    assert deliver_queued() == 0 and receiver.received == []


def test_page_goals_match_paths_as_the_warehouse_does():
    stored = [{"id": 1, "display_name": "Docs", "page_path": "/docs/*/intro"}]

    def page(path: str) -> Hit:
        return Hit(website_id=1, at=MINUTE, page=path, visit=True)

    assert converted.matches(stored, page("/docs/v2/intro?x=1"))
    assert not converted.matches(stored, page("/docs/v2/more/intro"))
    assert not converted.matches(
        stored,
        Hit(
            website_id=1,
            at=MINUTE,
            page="/docs/a/intro",
            visit=False,
            event_parts=("Click", "", ""),
        ),
    )


def test_the_scheduled_function_runs_a_pass(aws_env):
    module = gateway.load_module(gateway.ROOT / "functions/webhooks/goals/app.py")
    assert module.handler({}, gateway.LambdaContext("goals-test")) == {"sent": 0, "failed": 0}


def test_a_big_batch_is_counted_in_chunks_and_a_partial_redelivery_adds_only_the_new(
    analytics, account, shop, receiver, at
):
    """150 conversions of one website are two transactions of at most 98 hits, not 150
    writes to one item; delivered again with 10 new ones, only the 10 are added."""
    make(analytics, receiver.url(), events="goal.converted")
    now = datetime.now(UTC)
    views = [
        Hit(website_id=shop["id"], at=now, page=f"/pricing/{n}", visit=True, id=f"view-{n}")
        for n in range(160)
    ]
    counted = [(account.id, hit.id, hit) for hit in views]
    assert converted.note(counted[:150]) == set()
    assert converted.note(counted) == set()  # the first 150 again, and 10 new
    assert goals.run(MINUTE + timedelta(minutes=2)).sent == 1
    deliver_queued()
    [got] = receiver.received
    [pricing] = [g for g in json.loads(got.body)["data"]["goals"] if g["name"].startswith("Visit")]
    assert pricing["conversions"] == 160
