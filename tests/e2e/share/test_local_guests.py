"""Guests under `make serve`'s program, as a client meets them (docs/guests.md): a private
website, a read key limited to it and a guest link; the link opened with a cookie jar
(303, then the share page); another private website stays closed; the JSON share route
with the token as a Bearer; and the link closed at the next request once it is deleted,
its key revoked, or its expiry passed."""

from __future__ import annotations

import http.cookiejar
import re
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.error import HTTPError
from urllib.parse import urlencode

import pytest

from tests.e2e.test_local_server import OPENER, Server, call, start_server
from tests.fixtures.analytics import CHROME


@pytest.fixture(scope="module")
def served(server: Server, dev_key: str) -> tuple[Server, str]:
    """The e2e modules' shared server (tests/e2e/conftest.py) and an account of this
    module's own on it."""
    return server, dev_key


@pytest.fixture
def key_cached(worker_dynamodb: str | None) -> Iterator[tuple[Server, str]]:
    """A server of the test's own, with `make serve`'s default key cache: the shared one
    has none, so that a key revoked elsewhere fails at once."""
    key = "sl_guests_" + uuid.uuid4().hex
    running = start_server(dynamodb=worker_dynamodb, SITELENS_DEV_API_KEY=key)
    try:
        yield running, key
    finally:
        running.stop()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the test looks at the 303 itself


@dataclass
class Browser:
    """A client with a cookie jar that does not follow redirects on its own."""

    jar: http.cookiejar.CookieJar

    def get(self, url: str) -> tuple[int, dict[str, str], str]:
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}),
            urllib.request.HTTPCookieProcessor(self.jar),
            _NoRedirect(),
        )
        try:
            with opener.open(url, timeout=10) as response:
                return response.status, dict(response.headers), response.read().decode()
        except HTTPError as err:
            return err.code, dict(err.headers), err.read().decode()


def browser() -> Browser:
    return Browser(http.cookiejar.CookieJar())


def private_website(server: Server, key: str, label: str) -> dict[str, Any]:
    domain = f"{label}-{uuid.uuid4().hex[:10]}.example.com"
    reply = call(
        "POST", f"{server.analytics}/api/v1/websites", key, form={"domain": domain, "privacy": "1"}
    )
    assert reply.status == 201, reply.body
    record: dict[str, Any] = reply.body["data"]
    assert record["privacy"] == 1
    return record


def guest_key(server: Server, key: str, website: dict[str, Any]) -> dict[str, Any]:
    reply = call(
        "POST",
        f"{server.analytics}/api/v1/keys",
        key,
        form={"name": "Client", "access": "read", "websites": str(website["id"])},
    )
    assert reply.status == 201, reply.body
    created: dict[str, Any] = reply.body["data"]
    return created


def link(server: Server, key: str, key_id: int, **fields: str) -> dict[str, Any]:
    reply = call("POST", f"{server.analytics}/api/v1/keys/{key_id}/links", key, form=fields)
    assert reply.status == 201, reply.body
    made: dict[str, Any] = reply.body["data"]
    return made


def opened(server: Server, made: dict[str, Any], domain: str) -> Browser:
    """Open the link as a client does: 303 to the page without the token, then 200."""
    client = browser()
    page = f"{server.analytics}/share/{domain}"
    assert made["url"] == f"{page}?guest={made['token']}"
    status, headers, _ = client.get(made["url"])
    assert status == 303
    assert headers["Location"] == page
    assert "guest=" not in headers["Location"]
    assert [c.name for c in client.jar] == ["sitelens_guest"]
    status, _, body = client.get(page)
    assert status == 200, body
    assert domain in body
    return client


def stats(server: Server, domain: str, token: str) -> int:
    """The JSON share dashboard's status, with the token as a Bearer."""
    return call("GET", f"{server.analytics}/api/v1/share/websites/{domain}", token).status


def track(server: Server, domain: str, pages: list[str]) -> None:
    for page in pages:
        request = urllib.request.Request(
            f"{server.analytics}/api/event",
            data=urlencode({"page": f"https://{domain}{page}"}).encode(),
            headers={"User-Agent": CHROME},
        )
        with OPENER.open(request, timeout=10) as answer:
            assert answer.status == 202


def counted(server: Server, key: str, website_id: int, expected: int) -> None:
    """Wait until the query API (what the share page shows) has the pageviews: the share
    page keeps its dashboard a while, so it is opened after."""
    body = {"site_id": website_id, "metrics": ["pageviews"], "date_range": "30d"}
    deadline = time.monotonic() + 20
    while True:
        reply = call("POST", f"{server.analytics}/api/v1/query", key, json_body=body)
        assert reply.status == 200, reply.body
        rows = reply.body["results"]
        if rows and rows[0]["metrics"][0] >= expected:
            return
        assert time.monotonic() < deadline, "the hits were not counted within 20 s"
        time.sleep(0.2)


def test_a_guest_link_opens_its_private_website_and_nothing_else(served) -> None:
    server, key = served
    mine, other = private_website(server, key, "mine"), private_website(server, key, "other")
    created = guest_key(server, key, mine)
    made = link(server, key, created["id"], website=str(mine["id"]))
    assert made["record"] == {"type": "website", "id": mine["id"]}
    stranger = browser()
    assert stranger.get(f"{server.analytics}/share/{mine['domain']}")[0] == 404
    track(server, mine["domain"], ["/", "/pricing", "/"])
    counted(server, key, mine["id"], 3)
    client = opened(server, made, mine["domain"])
    _, _, body = client.get(f"{server.analytics}/share/{mine['domain']}")
    assert re.search(r'id="total-pageviews">3<', body), body  # the website's figures
    # The other private website stays closed to the guest, as to a stranger.
    assert client.get(f"{server.analytics}/share/{other['domain']}")[0] == 404
    other_link = f"{server.analytics}/share/{other['domain']}?guest={made['token']}"
    status, headers, _ = browser().get(other_link)
    assert status == 404 and "Set-Cookie" not in headers
    # The JSON share route takes the token as a Bearer, with the same rule.
    assert stats(server, mine["domain"], made["token"]) == 200
    assert stats(server, other["domain"], made["token"]) == 404
    assert stats(server, mine["domain"], made["token"][:-2] + "xx") == 404
    # The token is no API key.
    assert call("GET", f"{server.analytics}/api/v1/websites", made["token"]).status == 401


def test_deleting_the_link_closes_it_at_the_next_request(served) -> None:
    server, key = served
    mine = private_website(server, key, "deleted")
    created = guest_key(server, key, mine)
    made = link(server, key, created["id"], website=str(mine["id"]))
    client = opened(server, made, mine["domain"])
    gone = call("DELETE", f"{server.analytics}/api/v1/keys/{created['id']}/links/{made['id']}", key)
    assert gone.status == 200, gone.body
    assert client.get(f"{server.analytics}/share/{mine['domain']}")[0] == 404
    assert stats(server, mine["domain"], made["token"]) == 404
    assert browser().get(made["url"])[0] == 404


def test_revoking_the_key_closes_its_links_at_the_next_request(served) -> None:
    server, key = served
    mine = private_website(server, key, "revoked")
    created = guest_key(server, key, mine)
    made = link(server, key, created["id"], website=str(mine["id"]))
    client = opened(server, made, mine["domain"])
    assert call("DELETE", f"{server.analytics}/api/v1/keys/{created['id']}", key).status == 200
    assert client.get(f"{server.analytics}/share/{mine['domain']}")[0] == 404
    assert stats(server, mine["domain"], made["token"]) == 404


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_an_expired_link_is_closed(served) -> None:
    server, key = served
    mine = private_website(server, key, "expiring")
    created = guest_key(server, key, mine)
    ends = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=3)
    made = link(
        server,
        key,
        created["id"],
        website=str(mine["id"]),
        expires_at=ends.strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    assert stats(server, mine["domain"], made["token"]) == 200
    deadline = time.monotonic() + 10
    while stats(server, mine["domain"], made["token"]) == 200:
        assert time.monotonic() < deadline, "the link did not end at its expiry"
        time.sleep(0.2)
    assert datetime.now(UTC) >= ends
    assert browser().get(made["url"])[0] == 404


def test_a_revoked_key_is_refused_at_the_next_request_on_both_bases(key_cached) -> None:
    """With `make serve`'s default key cache (5 s): the server that revokes a key stops
    trusting it at once, on both base URLs, even right after a request warmed the cache."""
    server, key = key_cached
    mine = private_website(server, key, "cached")
    created = guest_key(server, key, mine)
    for base in (server.analytics, server.seo):
        assert call("GET", f"{base}/api/v1/account", created["key"]).status == 200
    assert call("DELETE", f"{server.analytics}/api/v1/keys/{created['id']}", key).status == 200
    for base in (server.analytics, server.seo):
        assert call("GET", f"{base}/api/v1/account", created["key"]).status == 401
    assert call("GET", f"{server.analytics}/api/v1/keys/{created['id']}", key).status == 404


def test_a_guest_opens_a_password_website_without_its_password(served) -> None:
    server, key = served
    domain = f"locked-{uuid.uuid4().hex[:10]}.example.com"
    form = {"domain": domain, "privacy": "2", "password": "correct horse battery"}
    locked = call("POST", f"{server.analytics}/api/v1/websites", key, form=form)
    assert locked.status == 201, locked.body
    website = locked.body["data"]
    made = link(server, key, guest_key(server, key, website)["id"], website=str(website["id"]))
    assert browser().get(f"{server.analytics}/share/{domain}")[0] == 401  # the password form
    opened(server, made, domain)
    assert stats(server, domain, made["token"]) == 200
    assert stats(server, domain, "not-a-token") == 401
