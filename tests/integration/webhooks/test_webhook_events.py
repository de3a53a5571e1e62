"""The webhooks API's events in events/ replayed as `sam local invoke` would, in order:
create (hooks.example.com resolves nowhere here, so private addresses are allowed and DNS
is answered), list, show, update, ping, rotate, the log, a redelivery of an unknown
delivery (404), delete."""

from __future__ import annotations

import pytest

from sitelens.core import config
from sitelens.webhooks import sending
from tests.integration.test_events import event, events_account, invoke

__all__ = ["events_account"]  # the fixture, used by name


@pytest.fixture
def reachable(monkeypatch):
    monkeypatch.setattr(sending, "check_url", lambda url: None)
    config.reset()


def test_the_webhooks_events_in_order(events_account, reachable) -> None:
    status, _, body = invoke(event("webhooks-create"))
    assert status == 201 and body["data"]["secret"].startswith("whsec_"), body
    assert body["data"]["events"] == ["report.completed", "website.created"]
    for name, expected in (
        ("webhooks-list", 200),
        ("webhooks-get", 200),
        ("webhooks-update", 200),
        ("webhooks-test", 202),
        ("webhooks-rotate", 200),
        ("webhooks-deliveries", 200),
        ("webhooks-redeliver", 404),
        ("webhooks-delete", 200),
    ):
        status, _, body = invoke(event(name))
        assert status == expected, (name, body)
    assert body == {"id": 1, "object": "webhook", "deleted": True, "status": 200}
