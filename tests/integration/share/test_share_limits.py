"""Each client address has a token bucket on the share routes (websites and reports, JSON
and pages, found or not): past it, 429 with `Retry-After` in the contract's shape (a page
for pages), counted as RequestsThrottled[share_address]; other addresses are not held,
an IPv6 client is one /64, the assets are not counted, and a limit of 0 turns it off."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from sitelens.core import config, metrics
from sitelens.data import buckets
from sitelens.local import template
from sitelens.sharing import limits, links
from tests.conftest import Client

SECOND = 1_900_000_000
TOO_MANY = {"message": "Too Many Attempts.", "status": 429}
NOT_FOUND = {"message": "Resource not found.", "status": 404}
MISSING_REPORT = f"/api/v1/share/reports/{links.new_share_id()}"


@pytest.fixture
def clock(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """Two requests a second, three at most at once, on a clock the test moves."""
    moved = SimpleNamespace(now=SECOND + 0.25)
    monkeypatch.setattr("sitelens.sharing.limits.time", SimpleNamespace(time=lambda: moved.now))
    monkeypatch.setenv("SITELENS_SHARE_RATE_LIMIT", "2")
    monkeypatch.setenv("SITELENS_SHARE_RATE_BURST", "3")
    config.reset()
    buckets.forget()
    yield moved
    buckets.forget()
    config.reset()


@pytest.fixture
def seo_public(account: Any) -> Client:
    return Client("SeoApi", None)


@pytest.fixture
def analytics_public(account: Any) -> Client:
    return Client("AnalyticsApi", None)


def test_an_address_past_its_bucket_is_429_with_retry_after(clock, seo_public, capsys):
    for _ in range(3):  # misses cost a token like hits
        assert seo_public.get(MISSING_REPORT).body == NOT_FOUND
    metrics.flush()
    capsys.readouterr()
    throttled = seo_public.get(MISSING_REPORT)
    assert (throttled.status, throttled.body) == (429, TOO_MANY)
    assert throttled.headers["Retry-After"] == "1"
    metrics.flush()
    out = capsys.readouterr().out
    assert "RequestsThrottled" in out and "share_address" in out  # a loss is data
    unlock = seo_public.post(f"{MISSING_REPORT}/unlock", {"password": "correct-horse"})
    assert (unlock.status, unlock.body) == (429, TOO_MANY)
    page = seo_public.get(MISSING_REPORT.replace("/api/v1", ""))
    assert page.status == 429 and "Too Many Attempts." in page.body
    assert page.headers["Retry-After"] == "1"
    assert page.headers["Content-Type"].startswith("text/html")
    clock.now += 0.5  # one token earned back at 2 a second
    assert seo_public.get(MISSING_REPORT).status == 404
    assert seo_public.get(MISSING_REPORT).status == 429


def test_retry_after_counts_whole_seconds_to_the_next_token(clock, seo_public, monkeypatch):
    monkeypatch.setenv("SITELENS_SHARE_RATE_LIMIT", "1")
    monkeypatch.setenv("SITELENS_SHARE_RATE_BURST", "1")
    config.reset()
    assert seo_public.get(MISSING_REPORT).status == 404
    clock.now += 0.1
    reply = seo_public.get(MISSING_REPORT)
    assert (reply.status, reply.headers["Retry-After"]) == (429, "1")
    clock.now += 0.9
    assert seo_public.get(MISSING_REPORT).status == 404


def test_one_bucket_for_every_share_route_of_both_apis(clock, seo_public, analytics_public):
    assert seo_public.get(MISSING_REPORT).status == 404
    assert analytics_public.get("/share/missing.example").status == 404
    stats = "/api/v1/share/websites/missing.example/stats"
    assert analytics_public.get(stats, query={"name": "pageviews"}).status == 404
    assert analytics_public.post("/api/v1/share/websites/missing.example/unlock").status == 429
    assert analytics_public.get("/share/missing.example").status == 429
    assert analytics_public.get("/share/assets/share.css").status == 200  # assets: no limit


def test_other_addresses_are_not_held(clock, seo_public):
    for _ in range(3):
        seo_public.get(MISSING_REPORT, source_ip="198.51.100.7")
    assert seo_public.get(MISSING_REPORT, source_ip="198.51.100.7").status == 429
    assert seo_public.get(MISSING_REPORT, source_ip="198.51.100.8").status == 404
    assert seo_public.get(MISSING_REPORT, source_ip="2001:db8:1:2::1").status == 404


def test_an_ipv6_client_is_its_64(clock, seo_public):
    for host in ("::1", "::2", "::ffff:1"):  # three addresses of one /64
        assert seo_public.get(MISSING_REPORT, source_ip=f"2001:db8:1:2{host}").status == 404
    assert seo_public.get(MISSING_REPORT, source_ip="2001:db8:1:2:abcd::9").status == 429
    assert seo_public.get(MISSING_REPORT, source_ip="2001:db8:1:3::1").status == 404
    assert limits.client_key("::ffff:198.51.100.7") == limits.client_key("198.51.100.7")


def test_a_limit_of_0_turns_it_off(clock, seo_public, monkeypatch):
    monkeypatch.setenv("SITELENS_SHARE_RATE_LIMIT", "0")
    config.reset()
    assert {seo_public.get(MISSING_REPORT).status for _ in range(10)} == {404}


def test_the_template_sets_the_share_functions_and_make_serve_is_generous():
    spec = template.load()
    params = spec["Parameters"]
    assert (params["ShareRateLimit"]["Default"], params["ShareRateBurst"]["Default"]) == (
        config.DEFAULT_SHARE_RATE_LIMIT,
        config.DEFAULT_SHARE_RATE_BURST,
    )
    for function in ("ShareWebsiteFunction", "ShareReportFunction"):
        variables = spec["Resources"][function]["Properties"]["Environment"]["Variables"]
        # (the website's also names the warehouse its dashboard asks)
        assert (
            variables.items()
            >= {
                "SITELENS_SHARE_RATE_LIMIT": {"Ref": "ShareRateLimit"},
                "SITELENS_SHARE_RATE_BURST": {"Ref": "ShareRateBurst"},
            }.items()
        )
    from sitelens.local import server

    assert int(server.LOCAL_LIMITS["SITELENS_SHARE_RATE_LIMIT"]) >= 1000
    assert int(server.LOCAL_LIMITS["SITELENS_SHARE_RATE_BURST"]) >= 10_000
