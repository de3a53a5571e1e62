"""Caps on an owner's items hold when adds come at once (`sitelens.data.caps`): an
account's 20 webhook endpoints and 100 keys, a key's 20 live guest links. The contract
fuzzing's two runs once raced an account to 21 endpoints when a cap was a count read
before the write. On moto and on DynamoDB Local."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from sitelens.data import guests as stored_guests
from sitelens.data import keys as stored_keys
from sitelens.data import webhooks as stored_webhooks
from sitelens.webhooks.endpoints import MAX_ENDPOINTS
from tests.integration.test_reports import private_urls

__all__ = ["private_urls"]  # the fixture, used by name
ACCOUNT = "7"
WHEN = "2026-11-26T09:00:00.000000Z"
CAP = 8  # the caps are 20 and 100: the same rule with fewer adds (the API test uses the real 20)


def at_once(add: Callable[[int], bool], ids: range) -> list[bool]:
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(add, ids))


def endpoint(n: int) -> bool:
    fields = {
        "id": str(n),
        "url": f"https://hooks.example.com/{n}",
        "events": "website.created",
        "enabled": True,
        "secret": "whsec_test",
        "created_at": WHEN,
        "updated_at": WHEN,
    }
    return stored_webhooks.add_endpoint(ACCOUNT, fields, CAP)


def test_endpoints_added_at_once_stop_at_the_cap_and_deletes_free_places(storage_backend):
    made = at_once(endpoint, range(1, CAP + 7))
    assert made.count(True) == CAP
    kept = sorted(int(e["id"]) for e in stored_webhooks.endpoints(ACCOUNT))
    assert kept == [n for n, ok in zip(range(1, CAP + 7), made, strict=True) if ok]
    assert stored_webhooks.delete_endpoint(ACCOUNT, str(kept[0]))
    assert stored_webhooks.delete_endpoint(ACCOUNT, str(kept[1]))
    assert at_once(endpoint, range(100, 104)).count(True) == 2
    assert len(stored_webhooks.endpoints(ACCOUNT)) == CAP


def key(n: int, account: str = ACCOUNT, limit: int | None = CAP) -> bool:
    details = {"name": f"k{n}", "prefix": "sl_x", "scope": None, "created_at": WHEN}
    return stored_keys.put(account, str(n), f"hash{n}", details, limit)


def test_keys_added_at_once_stop_at_the_cap(storage_backend):
    made = at_once(key, range(1, CAP + 9))
    assert made.count(True) == CAP
    assert len(stored_keys.of_account(ACCOUNT)) == CAP
    assert stored_keys.revoke(str(made.index(True) + 1), WHEN, ACCOUNT)
    assert at_once(key, range(500, 503)).count(True) == 1
    # another account has places of its own, and a key made without a cap is not held
    assert key(900, account="8")
    assert key(901, limit=None)
    assert len(stored_keys.of_account(ACCOUNT)) == CAP + 1


def test_live_guest_links_added_at_once_stop_at_the_cap(storage_backend):
    now = time.time()
    # two expired links take no place
    for n in (1, 2):
        details = {"record": "{}", "created_at": WHEN, "expires_at": int(now) - 60}
        assert stored_guests.add(ACCOUNT, "5", str(n), details, CAP, now)

    def link(n: int) -> bool:
        details = {"record": "{}", "created_at": WHEN, "expires_at": int(now) + 3600}
        return stored_guests.add(ACCOUNT, "5", str(n), details, CAP, now)

    made = at_once(link, range(10, CAP + 16))
    assert made.count(True) == CAP
    live = [g for g in stored_guests.of_key(ACCOUNT, "5") if g["expires_at"] > now]
    assert len(live) == CAP


def test_the_api_refuses_the_21st_endpoint_and_takes_one_after_a_delete(analytics, private_urls):
    def create(path: str) -> int:
        form = {"url": f"https://127.0.0.1/{path}", "events": "website.created"}
        return analytics.post("/api/v1/webhooks", form).status

    assert [create(str(n)) for n in range(MAX_ENDPOINTS)] == [201] * MAX_ENDPOINTS
    refused = analytics.post(
        "/api/v1/webhooks", {"url": "https://127.0.0.1/x", "events": "website.created"}
    )
    assert refused.status == 422
    expected = [f"An account may have at most {MAX_ENDPOINTS} endpoints."]
    assert refused.body["message"]["url"] == expected
    oldest = analytics.get("/api/v1/webhooks").data[-1]["id"]
    assert analytics.delete(f"/api/v1/webhooks/{oldest}").status in (200, 204)
    assert create("y") == 201
    assert len(analytics.get("/api/v1/webhooks").data) == MAX_ENDPOINTS
