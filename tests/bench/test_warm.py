"""Warm overhead: microseconds per invocation of get, list and create website through the
real handlers with real API Gateway events, DynamoDB answered by a stub, against the same
routes on FastAPI + Mangum and on a Powertools resolver answered by the same stub.

Auth: all three look the bearer key up by its hash (two GetItems) on the first call and
then serve it from a 30-second in-container cache, so the timed calls pay the hash and the
cache lookup. Sitelens logs its one structured line per request at INFO (the deployed
level), written to /dev/null; the peers log nothing.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest

from sitelens.core import config
from sitelens.data import clients
from sitelens.edge import auth
from sitelens.local import gateway
from tests.bench import report, timing
from tests.bench.fake_dynamodb import KEY, FakeDynamoDB

ROOT = report.ROOT
HEADERS = {
    "Accept": "application/json",
    "Authorization": f"Bearer {KEY}",
    "Host": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
    "User-Agent": "curl/8.5.0",
    "X-Forwarded-For": "203.0.113.10",
    "X-Forwarded-Proto": "https",
}
CREATE_BODY = {
    "domain": "https://www.Example-Shop.com/",
    "privacy": 0,  # 2 would hash a password (scrypt): that is not handler overhead
    "email": 1,
    "exclude_bots": 1,
    "exclude_params": "utm_source\nfbclid",
    "exclude_ips": "203.0.113.7\n198.51.100.0/24",
}


def _get(website_id: int) -> dict[str, Any]:
    return gateway.proxy_event(
        "GET",
        f"/api/v1/websites/{website_id}",
        "/api/v1/websites/{id}",
        path_params={"id": str(website_id)},
        headers=HEADERS,
        stage="v1",
    )


def _create(number: int) -> dict[str, Any]:
    body = {**CREATE_BODY, "domain": f"https://www.{WORDS[number % len(WORDS)]}-shop{number}.com/"}
    return gateway.proxy_event(
        "POST",
        "/api/v1/websites",
        "/api/v1/websites",
        headers={**HEADERS, "Content-Type": "application/json"},
        body=json.dumps(body).encode(),
        stage="v1",
    )


WORDS = ("acme", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor")
# Distinct records and domains per call, so no cache sees the same input twice in a row.
EVENTS = {
    "get": [_get(website_id) for website_id in range(1, 101)],
    "list": [
        gateway.proxy_event(
            "GET",
            "/api/v1/websites",
            "/api/v1/websites",
            query="sort_by=id&sort=desc&per_page=10",
            headers=HEADERS,
            stage="v1",
        )
    ],
    "create": [_create(number) for number in range(1, 1001)],
}
FUNCTIONS = {
    "get": ("functions/websites/get/app.py", "GetWebsiteFunction"),
    "list": ("functions/websites/list/app.py", "ListWebsitesFunction"),
    "create": ("functions/websites/create/app.py", "CreateWebsiteFunction"),
}
EXPECTED_STATUS = {"get": 200, "list": 200, "create": 201}

Invoke = Callable[[dict[str, Any], Any], dict[str, Any]]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDynamoDB]:
    """The stub, served by `sitelens.data.clients.client` and by the peers' module-scope client."""
    from tests.bench.peers import websites as peer_websites

    # the stub answers whatever the table or queue is called; the webhooks table is set for
    # every function in template.yaml's Globals (a create looks up the account's endpoints)
    for entry in (*config.REQUIRED, "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL"):
        name = entry if isinstance(entry, str) else entry[0]  # a tuple: any one of them
        monkeypatch.setenv(config.PREFIX + name, f"bench-{name.lower()}")
    stub = FakeDynamoDB()
    clients.reset()
    auth.forget()
    config.reset()
    with mock.patch("boto3.client", return_value=stub):
        assert clients.client("dynamodb") is stub
    saved_client = peer_websites.dynamodb
    peer_websites.dynamodb = stub
    peer_websites._keys.clear()
    try:
        yield stub
    finally:
        peer_websites.dynamodb = saved_client
        clients.reset()
        auth.forget()


def check(op: str, answer: dict[str, Any]) -> None:
    """The answer is the real one: status, and a full page for the list."""
    assert answer["statusCode"] == EXPECTED_STATUS[op], answer
    body = json.loads(answer["body"])
    if op == "list":
        assert len(body["data"]) == 10 and body["meta"]["next_cursor"], body
    else:
        assert body["data"]["domain"], body


def _invalid_requests() -> dict[str, list[tuple[dict[str, Any], int]]]:
    """Requests each implementation must refuse, by the operation they go to."""
    bad_domain = json.dumps({**CREATE_BODY, "domain": "not a domain"}).encode()
    no_key = {k: v for k, v in HEADERS.items() if k != "Authorization"}
    list_event = EVENTS["list"][0]
    return {
        "create": [
            (
                gateway.proxy_event(
                    "POST",
                    "/api/v1/websites",
                    "/api/v1/websites",
                    headers={**HEADERS, "Content-Type": "application/json"},
                    body=bad_domain,
                    stage="v1",
                ),
                422,
            )
        ],
        "list": [
            (
                {
                    **list_event,
                    "queryStringParameters": {"per_page": "7"},
                    "multiValueQueryStringParameters": {"per_page": ["7"]},
                },
                422,
            ),
            ({**list_event, "headers": no_key, "multiValueHeaders": None}, 401),
        ],
    }


def test_warm_overhead(fake: FakeDynamoDB, deployed_logging: None) -> None:
    from tests.bench.peers import fastapi_app, powertools_app

    subjects: dict[str, Callable[[], float]] = {}
    invalid = _invalid_requests()
    for op, (path, function) in FUNCTIONS.items():
        context = gateway.LambdaContext(function)
        peer_context = gateway.LambdaContext("Peer")
        implementations: dict[str, Invoke] = {
            "sitelens": gateway.load_module(ROOT / path).handler,
            "fastapi_mangum": fastapi_app.handler,
            "powertools": powertools_app.handler,
        }
        for name, invoke in implementations.items():
            for event, status in invalid.get(op, []):  # the same validation, the same auth
                answer = invoke(event, context if name == "sitelens" else peer_context)
                assert answer["statusCode"] == status, (name, answer)
            events = EVENTS[op]
            ctx = context if name == "sitelens" else peer_context
            check(op, invoke(events[0], ctx))  # also the first call: it fills the key cache
            subjects[f"{name}_{op}"] = timing.per_call_us(
                lambda invoke=invoke, events=itertools.cycle(events), ctx=ctx: invoke(
                    next(events), ctx
                )
            )
    calls_before = dict(fake.calls)
    with timing.own_garbage_only():
        medians = timing.interleaved(subjects)
    report.RESULTS["warm_us"] = {
        f"{name}_{op}": round(medians[f"{name}_{op}"], 1)
        for name in ("sitelens", "fastapi_mangum", "powertools")
        for op in ("get", "list", "create")
    }
    report.CONTEXT["warm"] = {
        "stub": "FakeDynamoDB in tests/bench/fake_dynamodb.py (list: a page of 10 websites)",
        "auth": "hash + 30 s in-container cache in all three (two GetItems on a miss)",
        "logging": "sitelens: one JSON line per request at INFO to /dev/null; peers: none",
        "fastapi_endpoints": "async def (no thread-pool hop)",
        "create_body": "JSON, privacy 0",
        "stub_calls": {k: v - calls_before.get(k, 0) for k, v in fake.calls.items()},
    }
