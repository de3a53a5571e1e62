"""The client's retries, errors, idempotency keys and webhook checks, on a fake transport."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from standardwebhooks import Webhook

from sitelens.webhooks import signing
from sitelens_client import (
    AsyncSitelens,
    NotFound,
    RateLimited,
    Retries,
    ServerError,
    Sitelens,
    ValidationError,
)
from sitelens_client import webhooks as client_webhooks

SITE = {
    "id": 1, "domain": "example.com", "privacy": 0, "password": False, "email": 0,
    "exclude_bots": 1, "exclude_params": "", "exclude_ips": "", "timezone": "",
    "traffic_alerts": 0, "favorite": False, "favorited_at": None, "verified": False,
    "verified_at": None, "tracking_from": None, "released_at": None,
    "created_at": "2026-11-21T09:30:00.000000Z", "updated_at": "2026-11-21T09:30:00.000000Z",
}  # fmt: skip
FAST = Retries(max_retries=2, max_wait=10.0, backoff=0.0)


def client(handler, retries: Retries = FAST) -> Sitelens:
    http = httpx.Client(transport=httpx.MockTransport(handler))
    return Sitelens("sl_key", http=http, retries=retries)


def test_a_429_is_retried_after_its_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []
    waits: list[float] = []
    monkeypatch.setattr("sitelens_client._runner.time.sleep", waits.append)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(time.monotonic())
        if len(seen) == 1:
            return httpx.Response(
                429,
                json={"message": "Too many requests.", "status": 429},
                headers={"Retry-After": "7", "X-RateLimit-Remaining": "0"},
            )
        return httpx.Response(200, json={"data": SITE, "status": 200},
                              headers={"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "99",
                                       "X-RateLimit-Reset": "1900000000"})  # fmt: skip

    sitelens = client(handler)
    assert sitelens.websites.get(1).domain == "example.com"
    assert len(seen) == 2 and waits == [7.0]
    assert sitelens.rate_limit is not None and sitelens.rate_limit.remaining == 99


def test_without_retry_after_a_429_waits_until_the_buckets_reset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits: list[float] = []
    monkeypatch.setattr("sitelens_client._runner.time.sleep", waits.append)
    reset = str(int(time.time()) + 5)

    def handler(request: httpx.Request) -> httpx.Response:
        if not waits:
            return httpx.Response(
                429,
                json={"message": "Too many requests.", "status": 429},
                headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
            )
        return httpx.Response(200, json={"data": SITE, "status": 200})  # fmt: skip

    client(handler).websites.get(1)
    assert len(waits) == 1 and 3.5 < waits[0] <= 5


def test_retries_are_bounded_and_a_long_wait_is_not_waited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []
    waits: list[float] = []
    monkeypatch.setattr("sitelens_client._runner.time.sleep", waits.append)

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        assert len(calls) < 10, "retried without bound"
        return httpx.Response(429, json={"message": "Too many requests.", "status": 429},
                              headers={"Retry-After": "0"})  # fmt: skip

    with pytest.raises(RateLimited) as raised:
        client(handler).websites.get(1)
    assert len(calls) == 3 and raised.value.message == "Too many requests."
    calls.clear()

    def slow(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(429, json={"message": "Too many requests.", "status": 429},
                              headers={"Retry-After": "60"})  # fmt: skip

    with pytest.raises(RateLimited) as raised:
        client(slow).websites.get(1)
    assert len(calls) == 1 and raised.value.retry_after == 60 and waits == [0.0, 0.0]


def test_a_503_is_retried_on_reads_not_on_creates() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        return httpx.Response(
            503, json={"message": "Busy.", "status": 503}, headers={"Retry-After": "0"}
        )

    sitelens = client(handler)
    with pytest.raises(Exception, match="Busy"):
        sitelens.websites.get(1)
    assert calls == ["GET"] * 3
    calls.clear()
    with pytest.raises(Exception, match="Busy"):
        sitelens.websites.create(domain="example.com")
    assert calls == ["POST"]


def test_creates_carry_an_idempotency_key_kept_across_retries() -> None:
    keys: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers.get("idempotency-key"))
        if len(keys) == 1:
            return httpx.Response(
                429,
                json={"message": "Too many requests.", "status": 429},
                headers={"Retry-After": "0"},
            )
        return httpx.Response(201, json={"data": SITE, "status": 201})

    client(handler).websites.create(domain="example.com")
    assert keys[0] and keys[0] == keys[1]
    keys.clear()
    client(handler).websites.create(domain="example.com", idempotency_key="mine")
    assert keys == ["mine", "mine"]


def test_errors_carry_the_contracts_body_by_status() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/9"):
            return httpx.Response(404, json={"message": "Website not found.", "status": 404})
        return httpx.Response(422, json={"message": {"domain": "Required."}, "status": 422})

    sitelens = client(handler)
    with pytest.raises(NotFound) as missing:
        sitelens.websites.get(9)
    assert missing.value.message == "Website not found." and missing.value.status == 404
    with pytest.raises(ValidationError) as invalid:
        sitelens.websites.create()
    assert invalid.value.errors == {"domain": "Required."}


def test_an_error_page_that_is_not_json_is_an_error_with_its_text() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(502, text="Bad Gateway", headers={"Content-Type": "text/plain"})

    with pytest.raises(ServerError) as raised:
        client(handler).websites.get(1)
    assert raised.value.status == 502 and raised.value.message == "Bad Gateway"


def test_the_async_client_retries_the_same_way() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            return httpx.Response(
                429,
                json={"message": "Too many requests.", "status": 429},
                headers={"Retry-After": "0"},
            )
        return httpx.Response(200, json={"data": SITE, "status": 200})

    async def main() -> str:
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with AsyncSitelens("sl_key", http=http, retries=FAST) as sitelens:
            return (await sitelens.websites.get(1)).domain

    assert asyncio.run(main()) == "example.com" and len(calls) == 2


def test_webhook_verification_accepts_what_sitelens_signs_and_nothing_else() -> None:
    secret = signing.new_secret()
    body = json.dumps({"type": "goal.reached", "data": {"id": 1}}).encode()
    now = int(time.time())
    headers = signing.headers([secret], "msg_1", now, body)
    assert client_webhooks.verify(secret, body, headers) == json.loads(body)
    # the reference implementation agrees with the client's signature
    assert (
        client_webhooks.sign(secret, "msg_1", now, body) == headers["webhook-signature"].split()[0]
    )
    Webhook(secret).verify(body, headers)
    with pytest.raises(client_webhooks.InvalidSignature):
        client_webhooks.verify(secret, body + b" ", headers)
    with pytest.raises(client_webhooks.InvalidSignature):
        client_webhooks.verify(signing.new_secret(), body, headers)
    old = signing.headers([secret], "msg_1", now - 3600, body)
    with pytest.raises(client_webhooks.InvalidSignature, match="tolerance"):
        client_webhooks.verify(secret, body, old)
