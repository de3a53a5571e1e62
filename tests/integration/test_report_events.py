"""The reports and projects events in events/, replayed through their handlers as
`sam local invoke` would, with the page fetched from the local fixture site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitelens import accounts
from sitelens.core import config
from sitelens.local import gateway, template
from sitelens.seo import fetch
from tests.fixtures.site import Site

EVENTS = Path(__file__).resolve().parents[2] / "events"
KEY = "sl_example_events_key_0123456789abcdefghijklmnopqrstuv"
ROUTES = template.routes(template.load())


def replay(name: str) -> tuple[int, dict]:
    event = json.loads((EVENTS / f"{name}.json").read_text())
    [route] = [r for r in ROUTES if r.path == event["resource"] and r.method == event["httpMethod"]]
    handler = gateway.load_module(gateway.ROOT / route.code_uri / "app.py").handler
    answer = handler(event, gateway.LambdaContext(route.function))
    return answer["statusCode"], json.loads(answer["body"])


@pytest.fixture
def report_world(aws_env, monkeypatch):
    site = Site()
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    real = fetch.fetch_site
    # The events name example.com; the fixture site stands in for it.
    monkeypatch.setattr(fetch, "fetch_site", lambda url: real(site.url("/good")))
    account = accounts.create_account("Events")
    accounts.add_key(account, "events", key=KEY)
    yield site
    site.close()
    config.reset()


def test_report_events_in_order(report_world):
    status, body = replay("reports-create")
    assert status == 201 and body["data"]["id"] == 1 and body["data"]["result"] == "good"
    status, body = replay("reports-get")
    assert status == 200 and body["data"]["url"] == report_world.url("/good")
    status, body = replay("reports-list")
    assert status == 200 and [r["id"] for r in body["data"]] == [1]
    assert body["meta"]["path"].endswith("/v1/api/v1/reports")
    status, body = replay("projects-list")
    assert status == 200 and body["data"][0]["project"] == "127.0.0.1"
    status, body = replay("reports-update")
    assert status == 200 and body["data"]["privacy"] == 2 and body["data"]["password"] is True
    generated = body["data"]["generated_at"]
    status, body = replay("reports-patch")
    assert status == 200 and body["data"]["generated_at"] > generated
    status, body = replay("reports-delete")
    assert status == 200 and body == {"id": 1, "object": "report", "deleted": True, "status": 200}
    assert replay("projects-list")[1]["data"] == []
    assert replay("reports-get")[0] == 404
