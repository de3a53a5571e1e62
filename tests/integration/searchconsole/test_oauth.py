"""The OAuth flow for people: GET .../search-console/authorize redirects to Google's consent
with a signed, expiring state; Google (the local one) redirects back to the public callback,
which exchanges the code and stores the refresh token as the website's connection."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import parse_qs, urlsplit

from sitelens.analytics.searchconsole import connections
from sitelens.tokens import signing
from tests.integration.searchconsole.conftest import run_tasks

CALLBACK = "/api/v1/search-console/callback"


class _Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the browser's next step is ours to take


def consent(url: str) -> dict[str, str]:
    """What Google's consent screen redirects back with (the query of its Location)."""
    opener = urllib.request.build_opener(_Stay)
    try:
        opener.open(url, timeout=5)
    except urllib.error.HTTPError as err:
        assert err.code == 302
        location = err.headers["Location"]
    else:  # pragma: no cover - the stand-in always redirects
        raise AssertionError("no redirect")
    parts = urlsplit(location)
    assert parts.path.endswith(CALLBACK)
    return {name: values[0] for name, values in parse_qs(parts.query).items()}


def test_a_person_connects_through_google_s_consent(analytics, gsc):
    website_id = analytics.post("/api/v1/websites", {"domain": "example.com"}).data["id"]
    reply = analytics.get(
        f"/api/v1/websites/{website_id}/search-console/authorize",
        query={"property": "sc-domain:example.com"},
    )
    assert reply.status == 302, reply.body
    location = reply.headers["Location"]
    assert location.startswith(gsc.url + "/o/oauth2/v2/auth?")
    asked = parse_qs(urlsplit(location).query)
    assert asked["access_type"] == ["offline"] and asked["redirect_uri"][0].endswith(CALLBACK)
    back = consent(location)

    done = analytics.get(CALLBACK, query=back, key=None)
    assert done.status == 200, done.body
    assert done.data["property"] == "sc-domain:example.com" and done.data["method"] == "oauth"
    run_tasks()
    shown = analytics.get(f"/api/v1/websites/{website_id}/search-console").data
    assert shown["last_import"]["status"] == "done" and shown["last_import"]["rows"] > 0

    # the code is used: the same redirect again is refused, as Google refuses it
    again = analytics.get(CALLBACK, query=back, key=None)
    assert again.status == 422 and "invalid_grant" in again.body["message"]["code"][0]


def test_a_bad_or_expired_state_is_422(analytics, account, gsc):
    website_id = analytics.post("/api/v1/websites", {"domain": "example.com"}).data["id"]
    data = {"a": account.id, "w": website_id, "p": "sc-domain:example.com"}
    expired = signing.sign(data, connections.STATE_PURPOSE, time.time() - 1)
    valid = signing.sign(data, connections.STATE_PURPOSE, time.time() + 60)
    for state in (expired, valid[:-2] + "xx", "", signing.sign(data, "share:x", time.time() + 60)):
        reply = analytics.get(CALLBACK, query={"state": state, "code": "4/x"}, key=None)
        assert reply.status == 422, state
        assert "state is invalid or expired" in reply.body["message"]["state"][0]
    denied = analytics.get(CALLBACK, query={"state": valid, "error": "access_denied"}, key=None)
    assert denied.status == 422 and "access_denied" in denied.body["message"]["code"][0]
    assert analytics.get(f"/api/v1/websites/{website_id}/search-console").status == 404


def test_authorize_refuses_another_domain_s_property(analytics, gsc):
    website_id = analytics.post("/api/v1/websites", {"domain": "example.com"}).data["id"]
    for site_property, sentence in (
        ("sc-domain:other.org", "example.com"),
        ("nonsense", "URL-prefix property"),
    ):
        reply = analytics.get(
            f"/api/v1/websites/{website_id}/search-console/authorize",
            query={"property": site_property},
        )
        assert reply.status == 422 and sentence in reply.body["message"]["property"][0]


def test_authorize_without_an_oauth_client_is_400(analytics, gsc, monkeypatch):
    monkeypatch.delenv("SITELENS_GOOGLE_CLIENT_ID")
    website_id = analytics.post("/api/v1/websites", {"domain": "example.com"}).data["id"]
    reply = analytics.get(
        f"/api/v1/websites/{website_id}/search-console/authorize",
        query={"property": "sc-domain:example.com"},
    )
    assert reply.status == 400 and "SITELENS_GOOGLE_CLIENT_ID" in reply.body["message"]
