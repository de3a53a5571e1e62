"""One registry of webhook events: emit takes only its events, with the reach each declares
and a payload its model accepts; endpoints subscribe only to its names; the documents'
`webhooks` section and the docs' table are written from it and match it."""

from __future__ import annotations

import dataclasses

import pytest

from sitelens.core import errors
from sitelens.local import openapi
from sitelens.webhooks import contract, events, inputs, registry


def test_every_event_has_a_name_a_payload_model_and_a_reach():
    for name, event in registry.EVENTS.items():
        assert event.name == name and name.count(".") == 1
        assert issubclass(event.payload, registry.BaseModel)
        assert event.reach in registry.Reach
    assert tuple(n for n in registry.EVENTS if n != "webhook.test") == inputs.EVENTS


def test_emit_takes_a_registered_event_only_and_its_reach():
    typo = dataclasses.replace(registry.WEBSITE_CREATED, name="website.craeted")
    with pytest.raises(ValueError, match="not an event"):
        events.emit("1", typo, {"id": 1}, website=1)
    twin = dataclasses.replace(registry.WEBSITE_CREATED)  # equal, but not the registry's
    with pytest.raises(ValueError, match="not an event"):
        events.emit("1", twin, {"id": 1}, website=1)
    with pytest.raises(ValueError, match="not an event"):
        events.emit("1", registry.WEBHOOK_TEST, {"endpoint": 1})
    with pytest.raises(ValueError, match="reaches website"):
        events.emit("1", registry.WEBSITE_DELETED, {"id": 1})
    with pytest.raises(ValueError, match="reaches account"):
        events.emit("1", registry.KEY_REVOKED, {"id": 1}, website=1)


def test_a_payload_not_its_model_s_is_counted_and_not_queued(monkeypatch):
    counted = []
    monkeypatch.setattr(events.metrics, "count", lambda name, **dims: counted.append(name))
    assert events.emit("1", registry.KEY_REVOKED, {"id": 1, "secret": "x"}) == 0
    assert counted == ["WebhookEventsNotQueued"]


def test_an_unknown_event_is_a_422_listing_the_valid_ones():
    with pytest.raises(errors.Invalid) as raised:
        inputs.EndpointCreate.parse({"url": "https://example.com/", "events": "website.craeted"})
    [sentence] = raised.value.message["events"]
    assert all(name in sentence for name in registry.SUBSCRIBABLE)


@pytest.mark.parametrize("api", openapi.APIS)
def test_the_documents_webhooks_are_the_registry_s(api):
    text = (openapi.SOURCES / f"{api}.yaml").read_text()
    assert openapi.refreshed(text) == text, "run make openapi"
    document = openapi.document(api)
    assert document["webhooks"] == contract.openapi_webhooks()
    assert list(document["webhooks"]) == list(registry.EVENTS)
    form = document["components"]["schemas"]["WebhookCreateForm"]["properties"]["events"]
    assert form["oneOf"][0]["items"]["enum"] == list(registry.SUBSCRIBABLE)


def test_the_docs_table_is_the_registry_s():
    text = openapi.DOCS_WITH_EVENTS.read_text()
    assert openapi.refreshed_docs(text) == text, "run make openapi"
    for name in registry.EVENTS:
        assert f"| `{name}` |" in text
