"""Renaming a website's domain (PATCH /api/v1/websites/{id} with `domain`) through the
template's routes: the claims moved in one transaction (409 for a domain another website
holds), the statistics, goals and share settings kept by the website's id, the old
domain's hits counted for RENAMED_TRACKED_SECONDS, and its share URLs redirected (308)
for RENAMED_REDIRECT_SECONDS; parallel renames on DynamoDB Local."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitelens.data import websites as stored_websites
from sitelens.websites import records as website_records
from tests.conftest import Client, make_account
from tests.fixtures.analytics import CHROME, receive, run
from tests.integration.storage.test_concurrency import in_parallel

DOMAIN_TAKEN = {"message": "The domain has already been taken.", "status": 409}


@pytest.fixture
def public(account) -> Client:
    return Client("AnalyticsApi", None)


def create(client: Client, domain: str, **fields: Any) -> dict[str, Any]:
    reply = client.post("/api/v1/websites", {"domain": domain, **fields})
    assert reply.status == 201, reply.body
    return dict(reply.data)


def rename(client: Client, website_id: int, domain: str) -> Any:
    return client.patch(f"/api/v1/websites/{website_id}", {"domain": domain})


def track(client: Client, page: str) -> Any:
    return client.request(
        "POST", "/api/event", form={"page": page}, key=None,
        headers={"User-Agent": CHROME}, source_ip="192.0.2.44",
    )  # fmt: skip


def count_queued() -> list[dict[str, Any]]:
    records = receive("HitsQueue")
    assert run("HitsQueue", records) == {"batchItemFailures": []}
    return [json.loads(record["body"]) for record in records]


def pageviews(client: Client, website_id: int) -> int:
    reply = client.get(f"/api/v1/stats/{website_id}", query={"name": "pageviews"})
    return sum(row["count"] for row in reply.data)


def test_a_rename_keeps_the_website_s_data_and_moves_its_claim(analytics, public):
    website = create(analytics, "old.example", privacy=0)
    goal = analytics.post(f"/api/v1/websites/{website['id']}/goals", {"event_name": "Signup"})
    assert goal.status == 201, goal.body
    assert track(public, "https://old.example/").status == 202
    count_queued()
    reply = rename(analytics, website["id"], "New.Example")
    assert reply.status == 200, reply.body
    assert (reply.data["id"], reply.data["domain"]) == (website["id"], "new.example")
    assert analytics.get(f"/api/v1/websites/{website['id']}").data["domain"] == "new.example"
    # kept by the website's id: its statistics and goals, its share settings
    assert pageviews(analytics, website["id"]) == 1
    goals = analytics.get(f"/api/v1/websites/{website['id']}/goals").data
    assert [g["id"] for g in goals] == [goal.data["id"]]
    assert public.get("/api/v1/share/websites/new.example/stats", query={"name": "pageviews"}
                      ).status == 200  # fmt: skip
    # the new domain's hits count to it; the old claim is free for anyone to take
    assert track(public, "https://new.example/pricing").status == 202
    assert [hit["website_id"] for hit in count_queued()] == [website["id"]]
    assert pageviews(analytics, website["id"]) == 2
    other = Client("AnalyticsApi", make_account("Other").key)
    taken = create(other, "old.example")
    assert taken["id"] != website["id"]


def test_a_domain_another_website_holds_is_409_and_nothing_changes(analytics, public):
    website = create(analytics, "old.example")
    create(Client("AnalyticsApi", make_account("Other").key), "held.example")
    assert rename(analytics, website["id"], "held.example").body == DOMAIN_TAKEN
    assert analytics.get(f"/api/v1/websites/{website['id']}").data["domain"] == "old.example"
    assert stored_websites.renamed_note("old.example") is None
    stored_websites.forget_all()
    assert track(public, "https://old.example/").status == 202  # still its claim
    assert analytics.post("/api/v1/websites", {"domain": "old.example"}).status == 422


def test_the_old_domain_s_hits_count_for_the_grace_period_only(analytics, public, monkeypatch):
    website = create(analytics, "old.example")
    assert rename(analytics, website["id"], "new.example").status == 200
    stored_websites.forget_all()
    assert track(public, "https://old.example/a").status == 202
    assert [hit["website_id"] for hit in count_queued()] == [website["id"]]
    assert pageviews(analytics, website["id"]) == 1
    # renamed again, its grace over at once: the old domain is no website's any more
    monkeypatch.setattr(website_records, "RENAMED_TRACKED_SECONDS", 0)
    assert rename(analytics, website["id"], "newer.example").status == 200
    stored_websites.forget_all()
    assert track(public, "https://new.example/").status == 404
    assert receive("HitsQueue") == []


def test_share_urls_of_the_old_domain_redirect_to_the_new_one(analytics, public, monkeypatch):
    website = create(analytics, "old.example", privacy=0)
    assert rename(analytics, website["id"], "new.example").status == 200
    page = public.get("/share/old.example")
    assert page.status == 308
    assert page.headers["Location"].endswith("/share/new.example")
    stats = public.get("/api/v1/share/websites/old.example/stats", query={"name": "page"})
    assert stats.status == 308
    assert stats.headers["Location"].endswith("/api/v1/share/websites/new.example/stats?name=page")
    # renamed again: the first domain redirects to the latest
    monkeypatch.setattr(website_records, "RENAMED_REDIRECT_SECONDS", 0)
    assert rename(analytics, website["id"], "newer.example").status == 200
    assert public.get("/share/old.example").headers["Location"].endswith("/share/newer.example")
    assert public.get("/share/new.example").status == 404  # its redirect is over at once


def test_an_old_domain_claimed_again_is_its_new_holder_s(analytics, public):
    website = create(analytics, "old.example", privacy=0)
    assert rename(analytics, website["id"], "new.example").status == 200
    other = Client("AnalyticsApi", make_account("Other").key)
    theirs = create(other, "old.example", privacy=0)
    stored_websites.forget_all()
    assert public.get("/share/old.example").status == 200  # theirs: no redirect
    assert track(public, "https://old.example/").status == 202
    assert [hit["website_id"] for hit in count_queued()] == [theirs["id"]]


def test_a_rename_to_the_same_site_changes_only_the_spelling(analytics):
    website = create(analytics, "example.com")
    reply = rename(analytics, website["id"], "https://EXAMPLE.com/")
    assert reply.status == 200
    assert stored_websites.renamed_note("example.com") is None
    assert rename(analytics, website["id"], "not a domain").status == 422


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
@pytest.mark.usefixtures("dynamodb_local_env", "queue_settings")
def test_parallel_renames_to_one_domain_give_it_to_one(dynamodb_local_env):
    client = Client("AnalyticsApi", make_account("Acme").key)
    ids = [create(client, f"site{n}.example")["id"] for n in range(6)]
    replies = in_parallel([lambda i=i: rename(client, i, "wanted.example") for i in ids])
    statuses = sorted(reply.status for reply in replies)
    assert statuses == [200] + [409] * 5, [r.body for r in replies]
    domains = [client.get(f"/api/v1/websites/{i}").data["domain"] for i in ids]
    assert domains.count("wanted.example") == 1
    # the losers kept their domains and claims; the winner's old one is free
    winner = domains.index("wanted.example")
    for n, domain in enumerate(domains):
        if n != winner:
            assert domain == f"site{n}.example"
            assert stored_websites.get_claim(domain) is not None
    assert stored_websites.get_claim(f"site{winner}.example") is None


@pytest.fixture
def queue_settings(monkeypatch) -> None:
    from sitelens.core import config

    for name in ("HITS_QUEUE_URL", "TASK_QUEUE_URL"):
        monkeypatch.setenv(f"SITELENS_{name}", f"http://127.0.0.1:9/{name.lower()}")
    config.reset()


def test_a_rename_forgets_the_old_domain_s_proof_and_waits_for_a_move(analytics):
    import boto3

    from sitelens.core import config
    from sitelens.data import records

    website = create(analytics, "old.example")
    table = config.settings().websites_table
    dynamodb = boto3.client("dynamodb")
    key = {"account": {"S": website_account(analytics)}, "id": {"N": str(website["id"])}}
    dynamodb.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET verified_at = :at",
        ExpressionAttributeValues={":at": {"S": "2026-11-01T00:00:00.000000Z"}},
    )
    assert analytics.get(f"/api/v1/websites/{website['id']}").data["verified"] is True
    dynamodb.update_item(  # a proof's move, still in its grace period
        TableName=table,
        Key=records.claim_key("old.example"),
        UpdateExpression="SET moves_at = :at",
        ExpressionAttributeValues={":at": {"S": "2999-01-01T00:00:00.000000Z"}},
    )
    pending = rename(analytics, website["id"], "new.example")
    assert pending.status == 409 and "moving" in pending.body["message"]
    dynamodb.update_item(
        TableName=table, Key=records.claim_key("old.example"), UpdateExpression="REMOVE moves_at"
    )
    renamed = rename(analytics, website["id"], "new.example")
    assert renamed.status == 200 and renamed.data["verified"] is False


def website_account(client: Client) -> str:
    return str(client.get("/api/v1/account").data["id"])
