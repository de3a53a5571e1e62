"""Guest links (docs/guests.md): a read key limited to websites or projects opens its
client's share views of private and password-protected records through a signed link,
as a cookie session for pages and a bearer token for JSON; refused as a stranger is after
the link's expiry, after the key or the link is revoked, for a record the key does not
reach, for a tampered token; never for a write key or a key over the whole account."""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest

from sitelens.core import config
from sitelens.guests import links, sessions
from sitelens.tokens import signing
from tests.conftest import Client

NOT_FOUND = {"message": "Resource not found.", "status": 404}
UNAUTHENTICATED = {"message": "Unauthenticated.", "status": 401}


@pytest.fixture(autouse=True)
def generous_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """These tests make many share requests from one address (test_share_limits tests it)."""
    monkeypatch.setenv("SITELENS_SHARE_RATE_LIMIT", "1000")
    monkeypatch.setenv("SITELENS_SHARE_RATE_BURST", "10000")
    config.reset()
    yield
    config.reset()


@pytest.fixture
def public(account) -> Client:
    return Client("AnalyticsApi", None)


def website(analytics: Client, domain: str, **fields: Any) -> dict[str, Any]:
    reply = analytics.post("/api/v1/websites", {"domain": domain, **fields})
    assert reply.status == 201, reply.body
    return dict(reply.data)


def key(api: Client, **fields: Any) -> dict[str, Any]:
    reply = api.post("/api/v1/keys", {"name": "client", **fields})
    assert reply.status == 201, reply.body
    return dict(reply.data)


def link(api: Client, key_id: int, **fields: Any) -> dict[str, Any]:
    reply = api.post(f"/api/v1/keys/{key_id}/links", fields)
    assert reply.status == 201, reply.body
    return dict(reply.data)


def stats(client: Client, domain: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return client.get(
        f"/api/v1/share/websites/{domain}/stats", query={"name": "pageviews"}, headers=headers
    )


@pytest.fixture
def sites(analytics: Client) -> dict[str, dict[str, Any]]:
    return {
        "private": website(analytics, "client-a.example", privacy=1),
        "locked": website(analytics, "client-b.example", privacy=2, password="correct-horse"),
        "other": website(analytics, "agency.example", privacy=1),
    }


@pytest.fixture
def guest(analytics: Client, sites) -> dict[str, Any]:
    """A read key limited to the private and the locked website, and a link of it."""
    made = key(analytics, websites=f"{sites['private']['id']},{sites['locked']['id']}")
    return {"key": made, "link": link(analytics, made["id"], website=sites["private"]["id"])}


def opened_page(public: Client, url: str) -> tuple[str, str]:
    """Open a link's URL as a browser: (the page's location after the redirect, the cookie)."""
    parts = urlsplit(url)
    landing = public.get(parts.path, query=parts.query)
    assert landing.status == 303, landing.body
    return landing.headers["Location"], landing.headers["Set-Cookie"]


def test_a_link_opens_a_cookie_session_for_the_key_s_websites(public, guest, sites):
    made = guest["link"]
    assert set(made) == {"id", "key_id", "record", "created_at", "expires_at", "url", "token"}
    assert made["record"] == {"type": "website", "id": sites["private"]["id"]}
    assert made["url"].startswith("https://api.test/share/client-a.example?guest=")
    assert parse_qs(urlsplit(made["url"]).query)["guest"] == [made["token"]]
    assert public.get("/share/client-a.example").status == 404  # a stranger
    location, cookie = opened_page(public, made["url"])
    assert location == "https://api.test/share/client-a.example"  # the token out of sight
    for part in ("sitelens_guest=", "HttpOnly", "Secure", "SameSite=Lax", "Path=/share"):
        assert part in cookie
    assert 0 < int(cookie.split("Max-Age=")[1].split(";")[0]) <= 7 * 86_400
    session = {"Cookie": cookie.split(";")[0]}
    page = public.get("/share/client-a.example", headers=session)
    assert page.status == 200 and "client-a.example" in page.body
    # the session browses every share page the key reaches, the password one included
    assert public.get("/share/client-b.example", headers=session).status == 200
    # and no other: the agency's own private website is a 404 page, as to a stranger
    assert public.get("/share/agency.example", headers=session).status == 404
    # programs send the token as a bearer token to the JSON views
    assert stats(public, "client-a.example", made["token"]).status == 200
    assert stats(public, "client-b.example", made["token"]).status == 200
    assert stats(public, "agency.example", made["token"]).body == NOT_FOUND
    assert stats(public, "client-a.example", None).body == NOT_FOUND
    assert stats(public, "client-b.example", None).body == UNAUTHENTICATED


def test_the_token_carries_ids_and_never_the_key_s_secret(guest):
    token = guest["link"]["token"]
    assert guest["key"]["key"] not in token and guest["key"]["prefix"] not in token
    items = boto3.client("dynamodb").scan(TableName="AccountsTable")["Items"]
    assert token not in str(items)


def test_a_token_opens_its_link_only_with_the_link_s_random_grant(analytics, public, guest):
    """Ids are counters: a token made with the signing keys for a counted id and no grant,
    or another grant (as before grants, or by whoever holds the keys), opens nothing."""
    made = guest["link"]
    claims = signing.verify(made["token"], sessions.PURPOSE)
    assert set(claims) == {"a", "k", "l", "g"} and len(claims["g"]) == 22  # 128 random bits
    listed = analytics.get(f"/api/v1/keys/{guest['key']['id']}/links").data
    assert claims["g"] not in str(listed)
    expires = time.time() + 3600
    for grant in ({}, {"g": ""}, {"g": "A" * 22}, {"g": 7}, {"g": claims["g"][:-1] + "é"}):
        forged = signing.sign(
            {**claims, **grant} if grant else {k: v for k, v in claims.items() if k != "g"},
            "guest",
            expires,
        )
        assert stats(public, "client-a.example", forged).body == NOT_FOUND
    assert stats(public, "client-a.example", made["token"]).status == 200
    # a link stored before grants (none kept) opens to no token, its own or a forged one
    boto3.client("dynamodb").update_item(
        TableName="AccountsTable",
        Key={"pk": {"S": f"GUESTS#{claims['a']}#{claims['k']}"}, "sk": {"S": claims["l"]}},
        UpdateExpression="REMOVE #g",
        ExpressionAttributeNames={"#g": "grant"},
    )
    for token in (made["token"], signing.sign({**claims, "g": ""}, "guest", expires)):
        assert stats(public, "client-a.example", token).body == NOT_FOUND


def test_revoking_the_link_or_the_key_closes_the_session_at_once(analytics, public, guest):
    made, key_id = guest["link"], guest["key"]["id"]
    _, cookie = opened_page(public, made["url"])
    session = {"Cookie": cookie.split(";")[0]}
    second = link(analytics, key_id, website=guest["link"]["record"]["id"])
    listed = analytics.get(f"/api/v1/keys/{key_id}/links").data
    assert [k["id"] for k in listed] == [second["id"], made["id"]]
    assert all("token" not in k and "url" not in k for k in listed)
    reply = analytics.delete(f"/api/v1/keys/{key_id}/links/{made['id']}")
    assert reply.body == {"id": made["id"], "object": "guest_link", "deleted": True, "status": 200}
    assert public.get("/share/client-a.example", headers=session).status == 404
    assert stats(public, "client-a.example", made["token"]).body == NOT_FOUND
    assert stats(public, "client-b.example", made["token"]).body == UNAUTHENTICATED
    assert analytics.delete(f"/api/v1/keys/{key_id}/links/{made['id']}").body == NOT_FOUND
    # the other link works until its key is revoked
    assert stats(public, "client-a.example", second["token"]).status == 200
    assert analytics.delete(f"/api/v1/keys/{key_id}").status == 200
    assert stats(public, "client-a.example", second["token"]).body == NOT_FOUND
    landing = urlsplit(second["url"])
    assert public.get(landing.path, query=landing.query).status == 404  # no cookie set


def test_an_expired_link_opens_nothing(analytics, public, guest, monkeypatch):
    made = guest["link"]
    assert stats(public, "client-a.example", made["token"]).status == 200
    later = SimpleNamespace(time=lambda: time.time() + 7 * 86_400 + 1)
    monkeypatch.setattr(sessions, "time", later)  # the link's clock, and the token's
    monkeypatch.setattr(signing, "time", later)
    assert stats(public, "client-a.example", made["token"]).body == NOT_FOUND
    landing = urlsplit(made["url"])
    assert public.get(landing.path, query=landing.query).status == 404
    assert public.get("/share/client-b.example", query=landing.query).status == 401  # the form


def test_a_link_ends_by_its_expiry_and_never_after_its_key(analytics, sites):
    soon = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    made = key(analytics, websites=str(sites["private"]["id"]), expires_at=soon)
    later = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 30 * 86_400))
    ends = link(analytics, made["id"], website=sites["private"]["id"], expires_at=later)
    assert ends["expires_at"].startswith(soon[:19])


def test_a_tampered_or_foreign_token_opens_nothing(analytics, public, guest, sites):
    token = guest["link"]["token"]
    payload, signature = token.split(".")
    flipped = signature[:-2] + ("A" if signature[-2] != "A" else "B") + signature[-1]
    for bad in (f"{payload}.{flipped}", token[:-3], "x" * 60, "a.b", "x" * 500):
        assert stats(public, "client-a.example", bad).body == NOT_FOUND
        reply = public.get("/share/client-a.example", query={"guest": bad})
        assert reply.status == 404 and "Set-Cookie" not in reply.headers
        assert (
            public.get(
                "/share/client-a.example", headers={"Cookie": f"sitelens_guest={bad}"}
            ).status
            == 404
        )
    # a password proof for one record is no guest token, and a guest token no proof
    proof = public.post(
        "/api/v1/share/websites/client-b.example/unlock", {"password": "correct-horse"}
    )
    assert stats(public, "client-a.example", proof.data["token"]).body == NOT_FOUND


def test_another_account_s_link_opens_nothing_of_this_one(
    analytics, other_analytics, public, sites
):
    theirs = website(other_analytics, "theirs.example", privacy=1)
    their_key = key(other_analytics, websites=str(theirs["id"]))
    token = link(other_analytics, their_key["id"], website=theirs["id"])["token"]
    assert stats(public, "theirs.example", token).status == 200
    for site in ("client-a.example", "agency.example"):
        assert stats(public, site, token).body == NOT_FOUND
    # nor may they make links of this account's keys
    mine = key(analytics, websites=str(sites["private"]["id"]))
    reply = other_analytics.post(f"/api/v1/keys/{mine['id']}/links", {"website": theirs["id"]})
    assert reply.body == NOT_FOUND
    assert other_analytics.get(f"/api/v1/keys/{mine['id']}/links").body == NOT_FOUND


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"access": "write"}, "key"),  # only read keys may be guests
        ({}, "key"),  # a key over the whole account is a staff key, not a client's
    ],
)
def test_only_limited_read_keys_have_links(analytics, sites, fields, field):
    made = key(analytics, **fields)
    reply = analytics.post(f"/api/v1/keys/{made['id']}/links", {"website": sites["private"]["id"]})
    assert reply.status == 422 and field in reply.body["message"]
    assert analytics.get(f"/api/v1/keys/{made['id']}/links").data == []


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({}, "website"),
        ({"website": "abc"}, "website"),
        ({"website": "999"}, "website"),  # not the account's
        ({"website": "OTHER"}, "website"),  # the account's, out of the key's reach
        ({"report": "1"}, "report"),
        ({"website": "MINE", "report": "1"}, "website"),
        ({"website": "MINE", "expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
        ({"website": "MINE", "expires_at": "2999-01-01T00:00:00Z"}, "expires_at"),
        ({"website": "MINE", "expires_at": "0001-01-01T00:00:00+01:00"}, "expires_at"),
    ],
)
def test_invalid_links_are_422_and_make_nothing(analytics, sites, fields, field):
    made = key(analytics, websites=str(sites["private"]["id"]))
    ids = {"MINE": str(sites["private"]["id"]), "OTHER": str(sites["other"]["id"])}
    sent = {name: ids.get(value, value) for name, value in fields.items()}
    reply = analytics.post(f"/api/v1/keys/{made['id']}/links", sent)
    assert reply.status == 422 and field in reply.body["message"], reply.body
    assert analytics.get(f"/api/v1/keys/{made['id']}/links").data == []


def test_a_limited_or_read_key_cannot_make_links(analytics, guest, sites):
    reader = Client("AnalyticsApi", guest["key"]["key"])
    reply = reader.post(
        f"/api/v1/keys/{guest['key']['id']}/links", {"website": sites["private"]["id"]}
    )
    assert reply.status == 403
    assert reader.get(f"/api/v1/keys/{guest['key']['id']}/links").status == 403


def test_a_key_has_at_most_so_many_live_links(analytics, guest, sites, monkeypatch):
    monkeypatch.setattr(links, "MAX_LINKS_PER_KEY", 2)
    key_id, site_id = guest["key"]["id"], sites["private"]["id"]
    link(analytics, key_id, website=site_id)
    reply = analytics.post(f"/api/v1/keys/{key_id}/links", {"website": site_id})
    assert reply.status == 422 and "key" in reply.body["message"]


@pytest.fixture
def reports_owner(seo: Client, monkeypatch: pytest.MonkeyPatch) -> Iterator[Client]:
    """The account's key on the SEO API, with reports of the local test site allowed."""
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    yield seo
    config.reset()


def test_a_private_report_opens_for_a_guest_of_its_project(reports_owner, site):
    report = reports_owner.post("/api/v1/reports", {"url": site.url("/good"), "privacy": 1}).data
    public = Client("SeoApi", None)
    page_path = urlsplit(report["share_url"]).path
    assert public.get(page_path).status == 404
    made = key(reports_owner, projects=report["project"])
    made_link = link(reports_owner, made["id"], report=report["id"])
    assert made_link["url"].startswith(f"https://api.test{page_path}?guest=")
    location, cookie = opened_page(public, made_link["url"])
    assert location == f"https://api.test{page_path}"
    assert public.get(page_path, headers={"Cookie": cookie.split(";")[0]}).status == 200
    json_path = page_path.replace("/share/", "/api/v1/share/")
    bearer = {"Authorization": f"Bearer {made_link['token']}"}
    assert public.get(json_path, headers=bearer).data["id"] == report["id"]
    # a guest of another project is a stranger here, and may not be given this report
    elsewhere = key(reports_owner, projects="elsewhere.example")
    reply = reports_owner.post(f"/api/v1/keys/{elsewhere['id']}/links", {"report": report["id"]})
    assert reply.status == 422 and "report" in reply.body["message"]
