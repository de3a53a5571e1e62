"""An account's at most 20 webhook endpoints hold under creates at once (the contract
fuzzing's two runs raced to 21 when the cap was a count read before the write): each create
and delete changes the account's count in its own transaction, on moto and DynamoDB Local."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import boto3

from sitelens.core import config
from sitelens.data import webhooks as stored
from sitelens.webhooks.endpoints import MAX_ENDPOINTS
from tests.integration.test_reports import private_urls

__all__ = ["private_urls"]  # the fixture, used by name
ACCOUNT = "7"


def endpoint(endpoint_id: int) -> dict[str, object]:
    return {
        "id": str(endpoint_id),
        "url": f"https://hooks.example.com/{endpoint_id}",
        "events": "website.created",
        "enabled": True,
        "secret": "whsec_test",
        "created_at": "2026-11-26T09:00:00.000000Z",
        "updated_at": "2026-11-26T09:00:00.000000Z",
    }


def test_creates_at_once_never_pass_the_cap_and_deletes_free_places(storage_backend):
    with ThreadPoolExecutor(8) as pool:
        made = list(
            pool.map(
                lambda n: stored.add_endpoint(ACCOUNT, endpoint(n), MAX_ENDPOINTS), range(1, 31)
            )
        )
    assert made.count(True) == MAX_ENDPOINTS and made.count(False) == 30 - MAX_ENDPOINTS
    kept = sorted(int(e["id"]) for e in stored.endpoints(ACCOUNT))
    assert kept == [n for n, ok in zip(range(1, 31), made, strict=True) if ok]
    # two deletes free two places, and a delete of one that is gone frees none
    assert stored.delete_endpoint(ACCOUNT, str(kept[0]))
    assert stored.delete_endpoint(ACCOUNT, str(kept[1]))
    assert not stored.delete_endpoint(ACCOUNT, str(kept[1]))
    with ThreadPoolExecutor(4) as pool:
        again = list(
            pool.map(
                lambda n: stored.add_endpoint(ACCOUNT, endpoint(n), MAX_ENDPOINTS), range(41, 45)
            )
        )
    assert again.count(True) == 2
    assert len(stored.endpoints(ACCOUNT)) == MAX_ENDPOINTS
    # other accounts have places of their own
    assert stored.add_endpoint("8", endpoint(99), MAX_ENDPOINTS)


def test_endpoints_made_before_the_count_are_counted_once(storage_backend):
    """An account whose endpoints were written without a count (before it existed)."""
    dynamodb = boto3.client("dynamodb")
    table = config.settings().webhooks_table
    for n in range(1, MAX_ENDPOINTS):  # 19, as the old code wrote them
        dynamodb.put_item(
            TableName=table,
            Item={
                "pk": {"S": f"ENDPOINT#{ACCOUNT}"},
                "sk": {"S": str(n)},
                "url": {"S": f"https://hooks.example.com/{n}"},
            },
        )
    # a delete while there is no count yet leaves none
    assert stored.delete_endpoint(ACCOUNT, "19")
    assert "Item" not in dynamodb.get_item(
        TableName=table, Key={"pk": {"S": f"ENDPOINTS#{ACCOUNT}"}, "sk": {"S": "count"}}
    )
    with ThreadPoolExecutor(4) as pool:
        made = list(
            pool.map(
                lambda n: stored.add_endpoint(ACCOUNT, endpoint(n), MAX_ENDPOINTS), range(30, 34)
            )
        )
    assert made.count(True) == 2  # 18 made before, 2 places left
    assert len(stored.endpoints(ACCOUNT)) == MAX_ENDPOINTS


def test_the_api_refuses_the_21st_endpoint_and_takes_one_after_a_delete(analytics, private_urls):
    for n in range(MAX_ENDPOINTS):
        reply = analytics.post(
            "/api/v1/webhooks", {"url": f"https://127.0.0.1/{n}", "events": "website.created"}
        )
        assert reply.status == 201, reply.body
    refused = analytics.post(
        "/api/v1/webhooks", {"url": "https://127.0.0.1/x", "events": "website.created"}
    )
    assert refused.status == 422
    assert refused.body["message"]["url"] == [
        f"An account may have at most {MAX_ENDPOINTS} endpoints."
    ]
    first = analytics.get("/api/v1/webhooks").data[-1]["id"]
    assert analytics.delete(f"/api/v1/webhooks/{first}").status in (200, 204)
    again = analytics.post(
        "/api/v1/webhooks", {"url": "https://127.0.0.1/y", "events": "website.created"}
    )
    assert again.status == 201, again.body
    assert len(analytics.get("/api/v1/webhooks").data) == MAX_ENDPOINTS
