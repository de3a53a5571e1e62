"""What the service logs at its most talkative (DEBUG): a line for every request, and
never a key, a password, a share token or cookie, an Authorization header or a body."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest

from sitelens.core import config
from sitelens.core.log import logger
from tests.conftest import Account, Client
from tests.fixtures.analytics import receive, run
from tests.fixtures.site import Site

SITE_PASSWORD = "site-password-9d41c"
REPORT_PASSWORD = "report-password-5e07a"
WRONG_KEY = "sl_wrong_key_3f9be0c1d2a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0"
HIT_PAGE = "https://example.com/hit-body-7c2d?from=newsletter"


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The lines the service's logger writes (its own and its modules' loggers), at DEBUG
    whatever POWERTOOLS_LOG_LEVEL the tests run with."""
    stream = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", stream)
    level = logger.log_level
    logger.setLevel("DEBUG")
    yield stream
    logger.setLevel(level)


@pytest.fixture
def site(site: Site, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    """The fixture site, fetchable by reports (a private address)."""
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    yield site
    config.reset()


def test_every_request_is_logged_at_debug_without_keys_passwords_or_bodies(
    account: Account,
    site: Site,
    written: io.StringIO,
    capsys: pytest.CaptureFixture[str],
) -> None:
    analytics = Client("AnalyticsApi", account.key)
    seo = Client("SeoApi", account.key)
    public = Client("AnalyticsApi", None)
    replies = []

    def sent(reply: Any, status: int) -> Any:
        assert reply.status == status, reply.body
        replies.append(reply)
        return reply

    form = {"domain": "example.com", "privacy": "2", "password": SITE_PASSWORD}
    website = sent(analytics.post("/api/v1/websites", form), 201).data
    sent(analytics.get(f"/api/v1/websites/{website['id']}"), 200)
    sent(analytics.get("/api/v1/websites", key=WRONG_KEY), 401)
    # the password, given to the JSON route and to the page's form
    unlock = "/api/v1/share/websites/example.com/unlock"
    sent(public.post(unlock, json_body={"password": "not-" + SITE_PASSWORD}), 401)
    token = sent(public.post(unlock, json_body={"password": SITE_PASSWORD}), 200).data["token"]
    stats = "/api/v1/share/websites/example.com/stats"
    shown = {"Authorization": f"Bearer {token}"}
    sent(public.get(stats, query={"name": "pageviews"}, headers=shown), 200)
    page = sent(public.post("/share/example.com", {"password": SITE_PASSWORD}), 303)
    cookie = page.headers["Set-Cookie"].split(";")[0]
    sent(public.get("/share/example.com", headers={"Cookie": cookie}), 200)
    # a report, fetched and analysed
    report_url = site.url("/good?from=report-body-41aa")
    report = {"url": report_url, "privacy": "2", "password": REPORT_PASSWORD}
    sent(seo.post("/api/v1/reports", report), 201)
    # a hit, with its body as JSON, then counted by the aggregator
    hit = {"page": HIT_PAGE, "referrer": "https://referrer.example/body-0b51"}
    headers = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0"}
    sent(public.post("/api/event", json_body=hit, headers=headers), 202)
    assert run("HitsQueue", receive("HitsQueue")) == {"batchItemFailures": []}

    lines = written.getvalue().splitlines()
    logged = [json.loads(line) for line in lines]
    requests = [line for line in logged if line["message"] == "request"]
    assert len(requests) == len(replies)  # one line a request: logging is on
    assert [line["status"] for line in requests] == [reply.status for reply in replies]
    assert any(line["message"] == "aggregated" for line in logged)
    printed = capsys.readouterr()
    everything = "\n".join([*lines, printed.out, printed.err])
    secrets = {
        "the API key": account.key,
        "a wrong API key": WRONG_KEY,
        "the website's password": SITE_PASSWORD,
        "the report's password": REPORT_PASSWORD,
        "the share token": token,
        "the share cookie": cookie,
        "an Authorization header": "Bearer ",
        "a form body": "password=",
        "a JSON body": '"password"',
        "the hit's page": "hit-body-7c2d",
        "the hit's referrer": "body-0b51",
        "the report's URL": "report-body-41aa",
    }
    leaked = {what for what, text in secrets.items() if text.lower() in everything.lower()}
    assert not leaked
