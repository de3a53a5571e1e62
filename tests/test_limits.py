"""The per-account rate limit: requests a second per account on the keyed routes, counted
across containers in one item per account, answered 429 like the gateway's throttling."""

from __future__ import annotations

import json
from types import SimpleNamespace

import boto3
import pytest

from sitelens import config, errors
from sitelens.data import limits
from sitelens.local import template

SECOND = 1_900_000_000
TOO_MANY = {"message": "Too Many Attempts.", "status": 429}


@pytest.fixture
def limit(aws_env, monkeypatch):
    """Three requests a second, at a clock the test moves (`clock.now`)."""
    clock = SimpleNamespace(now=SECOND + 0.25)
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_LIMIT", "3")
    monkeypatch.setattr("sitelens.accounts.limits.time", SimpleNamespace(time=lambda: clock.now))
    config.reset()
    yield clock
    config.reset()


def limit_items() -> list[dict]:
    table = config.settings().accounts_table
    items = boto3.client("dynamodb").scan(TableName=table)["Items"]
    return [item for item in items if item["pk"]["S"].startswith("LIMIT#")]


def test_over_the_limit_is_429_until_the_next_second(limit, analytics):
    for _ in range(3):
        assert analytics.get("/api/v1/account").status == 200
    reply = analytics.get("/api/v1/websites")  # one count for all the account's routes
    assert reply.status == 429
    assert reply.body == TOO_MANY
    assert reply.headers["Retry-After"] == "1"
    limit.now += 1
    assert analytics.get("/api/v1/account").status == 200


def test_each_account_has_its_own_limit(limit, analytics, other_analytics, seo):
    for _ in range(3):
        assert analytics.get("/api/v1/account").status == 200
    assert seo.get("/api/v1/account").status == 429  # both APIs count for the account
    assert other_analytics.get("/api/v1/account").status == 200


def test_a_refused_request_is_not_counted_and_nothing_piles_up(limit, analytics):
    for _ in range(5):
        analytics.get("/api/v1/account")
    [item] = limit_items()
    assert (item["window"]["N"], item["count"]["N"]) == (str(SECOND), "3")
    for _ in range(3):
        limit.now += 7
        assert analytics.get("/api/v1/account").status == 200
    [item] = limit_items()  # still one item for the account, now on the latest second
    assert (item["window"]["N"], item["count"]["N"]) == (str(SECOND + 21), "1")


def test_public_routes_and_a_limit_of_zero_count_nothing(limit, analytics, monkeypatch):
    for _ in range(5):
        assert analytics.get("/js/script.js", key=None).status == 200
    assert limit_items() == []
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_LIMIT", "0")
    config.reset()
    for _ in range(5):
        assert analytics.get("/api/v1/account").status == 200
    assert limit_items() == []


def test_containers_share_the_count(aws_env):
    """Each `forget` is another container, whose guess of the stored second is wrong."""
    assert limits.take("7", 2, SECOND, SECOND + 60)
    limits.forget()
    assert limits.take("7", 2, SECOND, SECOND + 60)  # starts, finds the second started: adds
    limits.forget()
    assert not limits.take("7", 2, SECOND, SECOND + 60)
    assert limits.take("7", 2, SECOND + 1, SECOND + 61)  # this container's guess: a new second
    assert limits.take("7", 2, SECOND + 1, SECOND + 61)  # and now the same second
    assert not limits.take("7", 2, SECOND + 1, SECOND + 61)


def test_a_count_given_back_frees_its_place_in_that_window_only(aws_env):
    assert limits.take("9", 1, SECOND, SECOND + 60)
    limits.give_back("9", SECOND)
    assert limits.take("9", 1, SECOND, SECOND + 60)
    assert not limits.take("9", 1, SECOND, SECOND + 60)
    limits.give_back("9", SECOND - 1)  # a window that is over: nothing changes
    assert not limits.take("9", 1, SECOND, SECOND + 60)
    limits.give_back("9", SECOND)
    limits.give_back("9", SECOND)  # never below zero
    assert limits.take("9", 1, SECOND, SECOND + 60)
    assert not limits.take("9", 1, SECOND, SECOND + 60)
    limits.give_back("unknown", SECOND)  # nothing counted: nothing to give back


def test_a_wrong_guess_or_a_clock_behind_still_counts(aws_env):
    assert limits.take("8", 2, SECOND + 5, 0)
    assert limits.take("8", 2, SECOND, 0)  # a clock behind counts in the stored second
    assert not limits.take("8", 2, SECOND + 5, 0)
    table = config.settings().accounts_table
    boto3.client("dynamodb").delete_item(
        TableName=table, Key={"pk": {"S": "LIMIT#8"}, "sk": {"S": "LIMIT"}}
    )
    assert limits.take("8", 2, SECOND + 5, 0)  # guessed "same second", found none: starts


def test_the_limit_answers_like_the_gateway_s_throttling():
    spec = template.load()
    for api in ("AnalyticsApi", "SeoApi"):
        throttled = spec["Resources"][api]["Properties"]["GatewayResponses"]["THROTTLED"]
        body = json.loads(throttled["ResponseTemplates"]["application/json"])
        assert body == errors.TooManyRequests(retry_after=1).body() == TOO_MANY
        assert throttled["StatusCode"] == errors.TooManyRequests.status
        assert "Retry-After" in throttled["ResponseParameters"]["Headers"]
        assert "Retry-After" in errors.TooManyRequests(retry_after=1).headers


@pytest.mark.parametrize("raw", ["-1", "ten", "10001", "1.5"])
def test_a_malformed_limit_is_refused_by_name(monkeypatch, raw):
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_LIMIT", raw)
    config.reset()
    try:
        with pytest.raises(config.ConfigError, match="SITELENS_ACCOUNT_RATE_LIMIT"):
            config.settings()
    finally:
        monkeypatch.undo()
        config.reset()
