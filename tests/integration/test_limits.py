"""The per-account rate limit: a token bucket per account on the keyed routes, shared by
every container through one item per account and reserved from in blocks, so most requests
write nothing; answered 429 like the gateway's throttling, with the X-RateLimit headers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace

import boto3
import pytest

from sitelens.accounts import limits
from sitelens.core import config, errors, metrics
from sitelens.data import buckets
from sitelens.local import template
from tests.fixtures.faults import FaultPlan, injected

SECOND = 1_900_000_000
TOO_MANY = {"message": "Too Many Attempts.", "status": 429}


@pytest.fixture
def clock(monkeypatch):
    """A clock the test moves (`clock.now`), and each test's containers start afresh."""
    moved = SimpleNamespace(now=SECOND + 0.25)
    monkeypatch.setattr("sitelens.accounts.limits.time", SimpleNamespace(time=lambda: moved.now))
    limits.forget()
    yield moved
    limits.forget()
    config.reset()


@pytest.fixture
def limit(aws_env, clock, monkeypatch):
    """Three requests a second, five at most at once."""
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_LIMIT", "3")
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_BURST", "5")
    config.reset()
    return clock


@pytest.fixture
def defaults(aws_env, clock, monkeypatch):
    """The deployment's defaults (20 a second, bursts of 100)."""
    monkeypatch.delenv("SITELENS_ACCOUNT_RATE_LIMIT")
    config.reset()
    assert (config.settings().account_rate_limit, config.settings().account_rate_burst) == (
        20,
        100,
    )
    return clock


def bucket_items() -> list[dict]:
    table = config.settings().accounts_table
    items = boto3.client("dynamodb").scan(TableName=table)["Items"]
    return [item for item in items if item["pk"]["S"].startswith("BUCKET#")]


@contextmanager
def container() -> Iterator[None]:
    """Run the block as another warm container: blocks and guesses of its own."""
    saved = (dict(limits._blocks), dict(buckets._seen))
    limits.forget()
    try:
        yield
    finally:
        limits._blocks.clear()
        limits._blocks.update(saved[0])
        buckets._seen.clear()
        buckets._seen.update(saved[1])


def test_a_script_creating_30_websites_in_a_loop_is_never_held(defaults, analytics):
    for n in range(30):
        reply = analytics.post("/api/v1/websites", {"domain": f"site{n}.example"})
        assert reply.status == 201, (n, reply.body)
        defaults.now += 0.01  # a create takes about 10 ms
    assert reply.headers["X-RateLimit-Limit"] == "100"
    # 30 spent, 6 earned back in 0.3 s, and what this container holds counted once
    assert 70 <= int(reply.headers["X-RateLimit-Remaining"]) <= 80


def test_a_burst_beyond_the_bucket_is_429_with_retry_after_and_the_headers(
    limit, analytics, capsys
):
    for left in (4, 3, 2, 1, 0):
        reply = analytics.get("/api/v1/account")
        assert reply.status == 200
        assert reply.headers["X-RateLimit-Limit"] == "5"
        assert reply.headers["X-RateLimit-Remaining"] == str(left)
    metrics.flush()
    reply = analytics.get("/api/v1/websites")  # one bucket for all the account's routes
    assert reply.status == 429
    assert "RequestsThrottled" in capsys.readouterr().out  # a loss is data
    assert reply.body == TOO_MANY
    assert reply.headers["Retry-After"] == "1"
    assert reply.headers["X-RateLimit-Remaining"] == "0"
    # full again once the 5 tokens are earned back at 3 a second: 5/3 s after they went
    assert reply.headers["X-RateLimit-Reset"] == str(SECOND + 2)
    limit.now += 0.34  # one token earned back
    assert analytics.get("/api/v1/account").status == 200
    assert analytics.get("/api/v1/account").status == 429
    limit.now += 5
    replies = [analytics.get("/api/v1/account") for _ in range(6)]
    assert [reply.status for reply in replies] == [200] * 5 + [429]


def test_retry_after_counts_the_seconds_to_the_next_token(aws_env, clock, monkeypatch, analytics):
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_LIMIT", "1")
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_BURST", "1")
    config.reset()
    assert analytics.get("/api/v1/account").status == 200
    clock.now += 0.1
    reply = analytics.get("/api/v1/account")
    assert (reply.status, reply.headers["Retry-After"]) == (429, "1")


def test_each_account_has_its_own_bucket(limit, analytics, other_analytics, seo):
    for _ in range(5):
        assert analytics.get("/api/v1/account").status == 200
    assert seo.get("/api/v1/account").status == 429  # both APIs count for the account
    assert other_analytics.get("/api/v1/account").status == 200


def test_100_requests_cost_a_handful_of_writes(defaults, analytics):
    writes = FaultPlan("UpdateItem")  # no faults: it only counts
    with injected(writes):
        for _ in range(100):
            assert analytics.get("/api/v1/account").status == 200
            defaults.now += 0.002
    # blocks of 4, 8, 16, then 25: 103 tokens (and the key's last use, noted once a minute)
    reserved = [r for r in writes.requests if r["Key"]["pk"]["S"].startswith("BUCKET#")]
    assert len(reserved) == 6 and len(writes.requests) == 7
    [item] = bucket_items()  # one item for the account, nothing piles up
    assert "expires_at" in item


def test_requests_at_the_sustained_rate_go_on_for_ever(limit, analytics):
    for _ in range(60):  # a minute at 3 a second, after the burst is spent
        for _ in range(3):
            assert analytics.get("/api/v1/account").status == 200
        limit.now += 1
    assert len(bucket_items()) == 1


def test_two_containers_share_the_bucket(limit, analytics):
    """Their blocks come from the one bucket: at one moment no more than its five."""
    statuses = []
    for n in range(12):
        if n % 2:
            with container():
                statuses.append(analytics.get("/api/v1/account").status)
        else:
            statuses.append(analytics.get("/api/v1/account").status)
    assert statuses.count(200) <= 5
    assert statuses.count(200) >= 3  # the second container's first block lapsed unspent
    limit.now += 1.5  # blocks lapse; the bucket is earning back
    with container():
        assert analytics.get("/api/v1/account").status == 200


def test_concurrent_containers_never_reserve_past_the_bucket(dynamodb_local_env):
    """Eight threads reserving at one moment on DynamoDB Local: exactly the burst."""
    granted = []

    def reserve() -> None:
        for _ in range(20):
            granted.append(buckets.reserve("7", 3, 10, 50, SECOND).granted)

    threads = [threading.Thread(target=reserve) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(granted) == 50
    assert buckets.reserve("7", 1, 10, 50, SECOND + 0.1).granted == 1  # one earned back
    assert buckets.reserve("7", 1, 10, 50, SECOND + 0.1).granted == 0


def test_public_routes_and_a_limit_of_zero_count_nothing(limit, analytics, monkeypatch):
    for _ in range(5):
        reply = analytics.get("/js/script.js", key=None)
        assert reply.status == 200 and "X-RateLimit-Limit" not in reply.headers
    assert bucket_items() == []
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_LIMIT", "0")
    config.reset()
    for _ in range(8):
        reply = analytics.get("/api/v1/account")
        assert reply.status == 200 and "X-RateLimit-Limit" not in reply.headers
    assert bucket_items() == []


def test_the_limit_answers_like_the_gateway_s_throttling():
    spec = template.load()
    for api in ("AnalyticsApi", "SeoApi"):
        throttled = spec["Resources"][api]["Properties"]["GatewayResponses"]["THROTTLED"]
        body = json.loads(throttled["ResponseTemplates"]["application/json"])
        assert body == errors.TooManyRequests(retry_after=1).body() == TOO_MANY
        assert throttled["StatusCode"] == errors.TooManyRequests.status
        assert "Retry-After" in throttled["ResponseParameters"]["Headers"]
        assert "Retry-After" in errors.TooManyRequests(retry_after=1).headers


def test_the_template_sets_both_and_make_serve_is_generous():
    spec = template.load()
    params = spec["Parameters"]
    assert (params["AccountRateLimit"]["Default"], params["AccountRateBurst"]["Default"]) == (
        20,
        100,
    )
    variables = spec["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["SITELENS_ACCOUNT_RATE_BURST"] == {"Ref": "AccountRateBurst"}
    from sitelens.local import server

    assert int(server.LOCAL_LIMITS["SITELENS_ACCOUNT_RATE_LIMIT"]) >= 1000


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("SITELENS_ACCOUNT_RATE_LIMIT", "-1"),
        ("SITELENS_ACCOUNT_RATE_LIMIT", "ten"),
        ("SITELENS_ACCOUNT_RATE_LIMIT", "10001"),
        ("SITELENS_ACCOUNT_RATE_LIMIT", "1.5"),
        ("SITELENS_ACCOUNT_RATE_BURST", "0"),
        ("SITELENS_ACCOUNT_RATE_BURST", "100001"),
    ],
)
def test_a_malformed_limit_is_refused_by_name(monkeypatch, name, raw):
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_LIMIT", "20")
    monkeypatch.setenv(name, raw)
    config.reset()
    try:
        with pytest.raises(config.ConfigError, match=name):
            config.settings()
    finally:
        monkeypatch.undo()
        config.reset()
