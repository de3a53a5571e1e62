"""The keys API's events in events/ replayed as `sam local invoke` would: list, create,
show, rotate and revoke, in that order, with the events' key (the account's first)."""

from __future__ import annotations

from tests.integration.test_events import event, events_account, invoke

__all__ = ["events_account"]  # the fixture, used by name


def test_the_keys_events_in_order(events_account) -> None:
    status, _, body = invoke(event("keys-list"))
    assert status == 200 and [k["id"] for k in body["data"]] == [1], body
    status, _, body = invoke(event("keys-create"))
    assert status == 201, body
    assert body["data"]["scopes"] == {
        "access": "read",
        "websites": None,
        "projects": ["example.com"],
    }
    status, _, body = invoke(event("keys-get"))
    assert status == 200 and body["data"]["name"] == "events", body
    status, _, body = invoke(event("keys-rotate"))
    assert status == 200 and body["data"]["key"].startswith("sl_"), body
    status, _, body = invoke(event("keys-revoke"))  # the old secret, within its overlap
    assert status == 200, body
    assert body == {"id": 1, "object": "key", "deleted": True, "status": 200}
    status, _, _ = invoke(event("keys-list"))
    assert status == 401
