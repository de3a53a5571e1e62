"""The keys list, a key's guest links and a webhook endpoint's delivery log are cursor-paged
as every other list is: the same envelope, signed cursors bound to the list, its account
and its parameters, and 422 for a cursor of anything else."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Client
from tests.integration.test_reports import private_urls

__all__ = ["private_urls"]  # the fixture, used by name


def walk(api: Client, path: str, **query: Any) -> list[list[Any]]:
    """The ids of every page, following `next` from the first."""
    pages, cursor = [], None
    while True:
        reply = api.get(path, query={**query, **({"cursor": cursor} if cursor else {})})
        assert reply.status == 200, reply.body
        assert set(reply.body) == {"data", "links", "meta", "status"}
        pages.append([row["id"] for row in reply.body["data"]])
        cursor = reply.body["meta"]["next_cursor"]
        if cursor is None:
            return pages


def test_keys_are_listed_by_pages(analytics, other_analytics):
    made = [analytics.post("/api/v1/keys", {"name": f"k{n}"}).data["id"] for n in range(11)]
    pages = walk(analytics, "/api/v1/keys")
    assert [len(p) for p in pages] == [10, 2]  # and the account's first key
    assert pages[0] == sorted(made, reverse=True)[:10]
    assert walk(analytics, "/api/v1/keys", sort="asc", per_page=25)[0][-11:] == made
    first = analytics.get("/api/v1/keys").body
    back = analytics.get("/api/v1/keys", query={"cursor": first["meta"]["next_cursor"]}).body
    previous = analytics.get("/api/v1/keys", query={"cursor": back["meta"]["prev_cursor"]})
    assert previous.body["data"] == first["data"]
    cursor = first["meta"]["next_cursor"]
    for bad in ({"cursor": cursor + "x"}, {"cursor": cursor, "per_page": 25}, {"per_page": 7}):
        assert analytics.get("/api/v1/keys", query=bad).status == 422
    # another account's cursor continues nothing here
    assert other_analytics.get("/api/v1/keys", query={"cursor": cursor}).status == 422


def test_the_delivery_log_is_listed_by_pages(analytics, private_urls):
    endpoint = analytics.post(
        "/api/v1/webhooks", {"url": "http://127.0.0.1:9/hook", "events": "website.created"}
    ).data
    path = f"/api/v1/webhooks/{endpoint['id']}/deliveries"
    sent = [analytics.post(f"/api/v1/webhooks/{endpoint['id']}/test").data for _ in range(12)]
    pages = walk(analytics, path)
    assert [len(p) for p in pages] == [10, 2]
    assert pages[0] + pages[1] == sorted((d["id"] for d in sent), reverse=True)
    cursor = analytics.get(path).body["meta"]["next_cursor"]
    assert analytics.get("/api/v1/keys", query={"cursor": cursor}).status == 422


@pytest.mark.parametrize("api", ["AnalyticsApi", "SeoApi"])
def test_both_bases_page_alike(api, account):
    client = Client(api, account.key)
    reply = client.get("/api/v1/keys", query={"per_page": 10})
    assert reply.status == 200 and reply.body["meta"]["per_page"] == 10
