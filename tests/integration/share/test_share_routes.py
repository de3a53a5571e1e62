"""Share views without a key, through the template's routes: privacy 0 open, 1 the same
404 as a missing record, 2 behind the password (tokens for JSON, a cookie for pages),
tokens bound to one record and one password, and password attempts limited."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from sitelens import sharing
from sitelens.analytics import months
from sitelens.analytics.hit import Hit
from sitelens.core import clock
from tests.conftest import Client
from tests.fixtures.analytics import hit_record, run
from tests.fixtures.local_warehouse import local_warehouse  # noqa: F401

NOT_FOUND = {"message": "Resource not found.", "status": 404}
UNAUTHENTICATED = {"message": "Unauthenticated.", "status": 401}


@pytest.fixture
def public(account) -> Client:
    """A caller with no key."""
    return Client("AnalyticsApi", None)


@pytest.fixture
def public_seo(account) -> Client:
    return Client("SeoApi", None)


def website(analytics: Client, domain: str, **fields: Any) -> dict[str, Any]:
    reply = analytics.post("/api/v1/websites", {"domain": domain, **fields})
    assert reply.status == 201, reply.body
    data: dict[str, Any] = reply.data
    return data


def count_views(account_id: str, website_id: int, days: dict[str, int]) -> None:
    """`days[day]` pageviews of one new visitor each, counted as the aggregator does."""
    hits = []
    for day, views in days.items():
        when = datetime.fromisoformat(day).replace(hour=9, tzinfo=UTC)
        hits += [
            Hit(website_id=website_id, at=when, page=f"/p{n % 3}", visit=True, country="DE")
            for n in range(views)
        ]
    batch = [hit_record(hit, account_id, n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}


def stats(client: Client, domain: str, token: str | None = None, **query: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return client.get(f"/api/v1/share/websites/{domain}/stats", query=query, headers=headers)


def unlock(client: Client, domain: str, password: str, **kw: Any) -> Any:
    return client.post(f"/api/v1/share/websites/{domain}/unlock", {"password": password}, **kw)


@pytest.fixture
def today(monkeypatch):
    moment = datetime(2026, 11, 20, 12, tzinfo=UTC)
    monkeypatch.setattr(clock, "now", lambda: moment)
    return moment


# -- websites, JSON ----------------------------------------------------------------------


def test_a_public_websites_stats_are_open_to_anyone(analytics, public, account, today):
    site = website(analytics, "open.example")
    count_views(account.id, site["id"], {"2026-11-18": 3, "2026-11-19": 2})
    shared = stats(public, "open.example", name="pageviews", sort_by="value", sort="asc")
    owned = analytics.get(
        f"/api/v1/stats/{site['id']}",
        query={"name": "pageviews", "sort_by": "value", "sort": "asc"},
    )
    assert shared.status == owned.status == 200
    assert (
        shared.data
        == owned.data
        == [
            {"value": "2026-11-18", "count": 3},
            {"value": "2026-11-19", "count": 2},
        ]
    )
    assert shared.body["meta"]["path"].endswith("/api/v1/share/websites/open.example/stats")


def test_the_share_stats_validate_as_the_stats_api_does(analytics, public):
    website(analytics, "open.example")
    reply = stats(public, "open.example")
    assert reply.status == 422
    assert reply.body["message"] == {"name": ["The name field is required."]}


def test_a_private_website_is_answered_as_a_missing_one(analytics, public):
    website(analytics, "private.example", privacy=1)
    for domain in ("private.example", "missing.example", "not a domain"):
        assert stats(public, domain, name="pageviews").body == NOT_FOUND
        assert unlock(public, domain, "anything").body == NOT_FOUND
        page = public.get(f"/share/{domain}")
        assert page.status == 404
        assert "Resource not found." in page.body


def test_a_password_website_needs_the_token_of_its_password(analytics, public):
    site = website(analytics, "locked.example", privacy=2, password="correct-horse")
    assert stats(public, "locked.example", name="pageviews").body == UNAUTHENTICATED
    wrong = unlock(public, "locked.example", "wrong-horse")
    assert (wrong.status, wrong.body) == (401, UNAUTHENTICATED)
    right = unlock(public, "locked.example", "correct-horse")
    assert right.status == 200
    token = right.data["token"]
    assert set(right.data) == {"token", "expires_at"}
    assert stats(public, "locked.example", token, name="pageviews").status == 200
    # a JSON body is taken too
    by_json = public.request(
        "POST",
        "/api/v1/share/websites/locked.example/unlock",
        json_body={"password": "correct-horse"},
    )
    assert by_json.status == 200
    # the owner reads through the API whatever the privacy; a token is no API key
    assert analytics.get(f"/api/v1/websites/{site['id']}").status == 200
    assert public.get(f"/api/v1/websites/{site['id']}", key=token).status == 401
    # and an API key is no token
    key = analytics.key
    assert stats(public, "locked.example", key, name="pageviews").status == 401


def test_a_token_expires_within_a_day(analytics, public):
    website(analytics, "locked.example", privacy=2, password="correct-horse")
    granted = unlock(public, "locked.example", "correct-horse").data
    expires = datetime.strptime(granted["expires_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert 0 < (expires - datetime.now(UTC)).total_seconds() <= sharing.TOKEN_SECONDS


def test_a_token_is_for_one_record(analytics, public):
    website(analytics, "one.example", privacy=2, password="same-password")
    website(analytics, "two.example", privacy=2, password="same-password")
    token = unlock(public, "one.example", "same-password").data["token"]
    assert stats(public, "two.example", token, name="pageviews").status == 401


def test_a_password_or_privacy_change_ends_the_tokens(analytics, public):
    site = website(analytics, "locked.example", privacy=2, password="correct-horse")
    token = unlock(public, "locked.example", "correct-horse").data["token"]
    # the same words again are a new password: earlier proofs end
    assert (
        analytics.put(f"/api/v1/websites/{site['id']}", {"password": "correct-horse"}).status == 200
    )
    assert stats(public, "locked.example", token, name="pageviews").status == 401
    token = unlock(public, "locked.example", "correct-horse").data["token"]
    assert analytics.put(f"/api/v1/websites/{site['id']}", {"privacy": 1}).status == 200
    assert stats(public, "locked.example", token, name="pageviews").body == NOT_FOUND
    reply = analytics.put(
        f"/api/v1/websites/{site['id']}", {"privacy": 2, "password": "correct-horse"}
    )
    assert reply.status == 200
    assert stats(public, "locked.example", token, name="pageviews").status == 401
    # made public, anyone reads it; an unrelated change keeps the tokens of a password
    assert analytics.put(f"/api/v1/websites/{site['id']}", {"privacy": 0}).status == 200
    assert stats(public, "locked.example", name="pageviews").status == 200


def test_unrelated_changes_keep_the_token(analytics, public):
    site = website(analytics, "locked.example", privacy=2, password="correct-horse")
    token = unlock(public, "locked.example", "correct-horse").data["token"]
    assert analytics.put(f"/api/v1/websites/{site['id']}", {"favorite": 1}).status == 200
    assert stats(public, "locked.example", token, name="pageviews").status == 200


def test_many_addresses_guessing_cannot_lock_out_the_right_password(
    analytics, public, monkeypatch, capsys
):
    monkeypatch.setattr("sitelens.sharing.access.ATTEMPTS_PER_CLIENT", 3)
    monkeypatch.setattr("sitelens.sharing.access.ATTEMPTS_PER_RECORD", 5)
    monkeypatch.setattr(
        "sitelens.records.privacy.verify_password", lambda password, stored: password == "p"
    )
    website(analytics, "locked.example", privacy=2, password="correct-horse")
    for n in range(10):  # ten addresses use up their own allowance and the record's
        for _ in range(3):
            assert (
                unlock(public, "locked.example", "guess", source_ip=f"203.0.113.{n}").status == 401
            )
        assert unlock(public, "locked.example", "guess", source_ip=f"203.0.113.{n}").status == 429
    # the reader with the right password, from an address of its own, still gets in
    for _ in range(2):
        assert unlock(public, "locked.example", "p", source_ip="198.51.100.1").status == 200
    # a wrong guess from a fresh address is still only a 401, checked and counted
    assert unlock(public, "locked.example", "guess", source_ip="198.51.100.2").status == 401
    # each request's metrics are flushed as EMF lines
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    counted = Counter(line["reason"] for line in lines if "PasswordGuesses" in line)
    assert counted["many_clients"] >= 25 and counted["client_window"] == 10


def test_one_address_guessing_is_held_longer_and_longer(analytics, public, monkeypatch):
    monkeypatch.setattr(
        "sitelens.records.privacy.verify_password", lambda password, stored: password == "p"
    )
    now = [1_800_000_000]
    monkeypatch.setattr("sitelens.sharing.access.time.time", lambda: now[0])
    website(analytics, "locked.example", privacy=2, password="correct-horse")
    for _ in range(sharing.FREE_FAILURES - 1):  # typos cost no wait
        assert unlock(public, "locked.example", "guess").status == 401
    holds = []
    for _ in range(4):
        assert unlock(public, "locked.example", "guess").status == 401
        refused = unlock(public, "locked.example", "p")  # held: even the right one waits
        assert refused.status == 429
        assert refused.body == {"message": "Too Many Attempts.", "status": 429}
        holds.append(int(refused.headers["Retry-After"]))
        now[0] += holds[-1]
    assert holds == [2, 4, 8, 16]
    # another address is not held, and the right password ends this one's hold and failures
    assert unlock(public, "locked.example", "p", source_ip="203.0.113.9").status == 200
    assert unlock(public, "locked.example", "p").status == 200
    assert unlock(public, "locked.example", "guess").status == 401  # a typo again: no hold
    assert unlock(public, "locked.example", "p").status == 200


def test_right_passwords_use_no_attempts(analytics, public, monkeypatch):
    monkeypatch.setattr("sitelens.sharing.access.ATTEMPTS_PER_CLIENT", 3)
    monkeypatch.setattr(
        "sitelens.records.privacy.verify_password", lambda password, stored: password == "p"
    )
    website(analytics, "locked.example", privacy=2, password="correct-horse")
    for _ in range(10):  # a reader unlocking again and again is no guesser
        assert unlock(public, "locked.example", "p").status == 200
    for _ in range(3):
        assert unlock(public, "locked.example", "guess").status == 401
    refused = unlock(public, "locked.example", "p")  # this client's own window is used up
    assert refused.status == 429
    assert 0 < int(refused.headers["Retry-After"]) <= sharing.ATTEMPT_WINDOW_SECONDS


def test_no_client_address_is_stored(analytics, public, moto_backend):
    website(analytics, "locked.example", privacy=2, password="correct-horse")
    unlock(public, "locked.example", "wrong", source_ip="203.0.113.77")
    import boto3

    from sitelens.core import config

    items = boto3.client("dynamodb").scan(TableName=config.settings().accounts_table)["Items"]
    assert "203.0.113.77" not in repr(items)
    limits = [i for i in items if i["pk"]["S"].startswith("LIMIT#unlock:website:")]
    # the client's window and hold, the record's window
    assert len(limits) == 3 and all("expires_at" in i for i in limits)


def test_an_unlock_without_a_password_is_422(analytics, public):
    website(analytics, "locked.example", privacy=2, password="correct-horse")
    reply = public.post("/api/v1/share/websites/locked.example/unlock", {})
    assert (reply.status, reply.body["message"]) == (
        422,
        {"password": ["The password field is required."]},
    )


# -- websites, pages ---------------------------------------------------------------------


@pytest.mark.usefixtures("local_warehouse")
def test_the_website_page_shows_the_periods_numbers(analytics, public, account, today):
    site = website(analytics, "open.example")
    count_views(account.id, site["id"], {"2026-11-18": 3, "2026-11-19": 2})
    page = public.get("/share/open.example", query={"period": "7d"})
    assert page.status == 200
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert re.search(r'id="total-pageviews">5<', page.body)
    # the query API's figures (tests/integration/share/test_share_dashboard.py)
    [row] = analytics.post(
        "/api/v1/query",
        json_body={"site_id": site["id"], "metrics": ["visitors"], "date_range": "7d"},
    ).body["results"]
    assert re.search(rf'id="total-visitors">{row["metrics"][0]}<', page.body)
    assert '"days": ["2026-11-14"' in page.body
    assert re.search(
        r'<th scope="row">2026-11-18</th><td>\d+</td><td>\d+</td><td>3</td>', page.body
    )
    assert "Germany" in page.body or "DE" in page.body
    assert "<script>" not in page.body  # no inline script: only the JSON data block


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_the_website_page_reads_whole_months_by_month(analytics, account, today, monkeypatch):
    """A quarter of daily views: the last 12 months read July to September from their
    month roll-ups, in as few items as there are values a month, and show what the days
    show."""
    from sitelens.analytics import stats as analytics_stats

    site = website(analytics, "open.example")
    first = date(2026, 7, 1)
    days = [(first + timedelta(days=n)).isoformat() for n in range(92)]
    count_views(account.id, site["id"], dict.fromkeys(days, 1))
    for month in ("2026-07", "2026-08", "2026-09"):  # closed: the daily job rolls them up
        assert months.roll_up(account.id, site["id"], month)
    period = date(2025, 11, 21), date(2026, 11, 20)

    by_month = analytics_stats.overview(site["id"], *period)
    monkeypatch.setattr(analytics_stats, "BY_MONTH", frozenset())
    by_day = analytics_stats.overview(site["id"], *period)
    assert by_month == by_day
    assert by_month.total_pageviews == 92
    assert by_month.ranked["country"] == [{"value": "DE", "count": 92, "share": 100.0}]
    # pages, landing pages and countries (one value each): an item a day (3 x 92) against
    # an item a month (3 x 3)
    assert by_day.cost["items_read"] - by_month.cost["items_read"] == 3 * 92 - 3 * 3
    # first the days' pageviews and visitors and the months' pageviews, then each ranked
    # statistic's months (Dec to Oct) and the days at either edge of the period
    assert by_month.cost["requests"] == 3 + len(analytics_stats.RANKED) * 3


def test_the_website_page_refuses_a_bad_period(analytics, public):
    website(analytics, "open.example")
    page = public.get("/share/open.example", query={"from": "2026-12-01", "to": "2026-11-01"})
    assert page.status == 422
    assert "The from field must be a date before or equal to to." in page.body


@pytest.mark.usefixtures("local_warehouse")
def test_the_password_form_sets_a_cookie_for_that_page(analytics, public, account, today):
    site = website(analytics, "locked.example", privacy=2, password="correct-horse")
    count_views(account.id, site["id"], {"2026-11-19": 4})
    form = public.get("/share/locked.example")
    assert form.status == 401
    assert 'type="password"' in form.body and "4" not in re.sub(r"<[^>]+>", "", form.body)
    wrong = public.post("/share/locked.example", {"password": "nope"})
    assert wrong.status == 401 and "not right" in wrong.body
    right = public.post("/share/locked.example", {"password": "correct-horse"})
    assert right.status == 303
    cookie = right.headers["Set-Cookie"]
    for part in ("HttpOnly", "Secure", "SameSite=Lax", "Path=/share/locked.example"):
        assert part in cookie
    assert right.headers["Location"] == "https://api.test/share/locked.example"
    value = cookie.split(";")[0]
    page = public.get("/share/locked.example", headers={"Cookie": value})
    assert page.status == 200 and 'id="total-pageviews">4<' in page.body
    # the cookie opens no other record's page, and ends with the password
    website(analytics, "other.example", privacy=2, password="correct-horse")
    assert public.get("/share/other.example", headers={"Cookie": value}).status == 401
    analytics.put(f"/api/v1/websites/{site['id']}", {"password": "battery-staple"})
    assert public.get("/share/locked.example", headers={"Cookie": value}).status == 401


def test_assets_are_served_with_validators(public):
    for name in ("share.js", "share.css", "uplot.min.js", "uplot.min.css"):
        reply = public.get(f"/share/assets/{name}")
        assert reply.status == 200, name
        assert "ETag" in reply.headers
    assert public.get("/share/assets/nothing.js").status == 404
    assert public.get("/share/assets/..%2Fpages.py").status == 404


# -- reports -------------------------------------------------------------------------------


@pytest.fixture
def seo_owner(seo, monkeypatch):
    from sitelens.core import config

    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    yield seo
    config.reset()


def report(seo: Client, url: str, **fields: Any) -> dict[str, Any]:
    reply = seo.post("/api/v1/reports", {"url": url, **fields})
    assert reply.status == 201, reply.body
    data: dict[str, Any] = reply.data
    return data


def share_id(record: dict[str, Any]) -> str:
    """The share id of a report's `share_url` (`.../share/reports/<share id>`)."""
    return str(record["share_url"]).rsplit("/share/reports/", 1)[1]


def test_reports_are_shared_as_their_privacy_says(seo_owner, public_seo, site):
    opened = report(seo_owner, site.url("/good"))
    private = report(seo_owner, site.url("/good"), privacy=1)
    locked = report(seo_owner, site.url("/good"), privacy=2, password="correct-horse")
    shared = public_seo.get(f"/api/v1/share/reports/{share_id(opened)}")
    assert shared.status == 200 and shared.data == opened
    assert public_seo.get(f"/api/v1/share/reports/{share_id(private)}").body == NOT_FOUND
    assert public_seo.get(f"/api/v1/share/reports/{opened['id']}").body == NOT_FOUND
    assert public_seo.get(f"/api/v1/share/reports/{share_id(locked)}").body == UNAUTHENTICATED
    path = f"/api/v1/share/reports/{share_id(locked)}/unlock"
    assert public_seo.post(path, {"password": "wrong"}).status == 401
    token = public_seo.post(path, {"password": "correct-horse"}).data["token"]
    reply = public_seo.get(
        f"/api/v1/share/reports/{share_id(locked)}", headers={"Authorization": f"Bearer {token}"}
    )
    assert reply.status == 200 and reply.data["id"] == locked["id"]


def test_the_report_page_shows_every_check_by_category(seo_owner, public_seo, site):
    opened = report(seo_owner, site.url("/good"))
    page = public_seo.get(f"/share/reports/{share_id(opened)}")
    assert page.status == 200
    assert f'id="score">{opened["score"]}<' in page.body
    assert f'id="band">{opened["result"].capitalize()}<' in page.body
    for key in opened["results"]:
        assert f'id="check-{key}"' in page.body
    assert "Search engines" in page.body and "Security" in page.body
    private = report(seo_owner, site.url("/good"), privacy=1)
    assert public_seo.get(f"/share/reports/{share_id(private)}").status == 404


def test_a_page_also_takes_the_token_and_the_json_the_cookie(analytics, public):
    website(analytics, "locked.example", privacy=2, password="correct-horse")
    token = unlock(public, "locked.example", "correct-horse").data["token"]
    page = public.get("/share/locked.example", headers={"Authorization": f"Bearer {token}"})
    assert page.status == 200
    cookie = public.post("/share/locked.example", {"password": "correct-horse"})
    value = cookie.headers["Set-Cookie"].split(";")[0]
    reply = public.get(
        "/api/v1/share/websites/locked.example/stats",
        query={"name": "pageviews"},
        headers={"Cookie": value},
    )
    assert reply.status == 200
