"""A run's recorded regression in the account's email digest: the digest of the week the
run finished lists it (the audit, the run, the score's change, the new high-severity
issues, its share page), the next week's does not, and an account with no website to
report still gets a digest for it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from sitelens import accounts
from sitelens.audits.runs import RUNS_KEPT
from sitelens.core import config
from sitelens.data import audits as stored_audits
from tests.integration.audits.test_audits import audit, audit_site, crawlable, drain, page
from tests.integration.test_digests import MONDAY, at, digest_queue, emails, outbox, parts, run_day

__all__ = ["audit_site", "crawlable", "outbox"]  # fixtures this module uses

HTML = {"Content-Type": "text/html; charset=utf-8"}


@pytest.fixture
def seo_links(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITELENS_SEO_BASE_URL", "https://seo.test")
    config.reset()


def regressed(seo, audit_site, monkeypatch, when: datetime) -> dict:
    """An audit whose second run, finished at `when`, regressed (/a now links to a 404)."""
    at(monkeypatch, when - timedelta(hours=1))
    created = audit(seo, audit_site)
    drain()
    saved = dict(audit_site.pages)
    try:
        audit_site.pages["/a"] = (200, HTML, page("Page A", ["/", "/deep1", "/missing"]))
        at(monkeypatch, when)
        assert seo.post(f"/api/v1/audits/{created['id']}/runs").status == 201
        drain()
    finally:
        audit_site.pages = saved
    [second, _] = seo.get(f"/api/v1/audits/{created['id']}/runs").data
    assert second["regression"] is True and second["finished_at"].startswith("2026-11-18")
    return created


def test_a_regression_appears_in_the_digest_of_its_week(
    seo, account, audit_site, crawlable, seo_links, outbox, monkeypatch
):
    created = regressed(seo, audit_site, monkeypatch, datetime(2026, 11, 18, 10, tzinfo=UTC))
    queue = digest_queue(monkeypatch)  # after the crawls: it takes SQS over
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    run_day(monkeypatch, queue, MONDAY)
    [message] = emails(outbox)  # no website asks for a digest: the regression does
    text, html = parts(message)
    assert "Audits that regressed" in text and "Audits that regressed" in html
    assert f"{audit_site.url('/')} (audit {created['id']}, run 2, 2026-11-18)" in text
    assert (
        "High-severity issues on more pages: Internal links to pages that fail (4xx, 5xx or "
        "unreachable)" in text
    )
    assert f"Audit page: https://seo.test/share/audits/{created['share_id']}" in text
    assert f'href="https://seo.test/share/audits/{created["share_id"]}"' in html

    # the next week's digest does not list it again
    run_day(monkeypatch, queue, MONDAY + timedelta(days=7))
    assert len(emails(outbox)) == 1


def test_a_private_audit_s_regression_has_no_share_link(
    seo, account, audit_site, crawlable, seo_links, outbox, monkeypatch
):
    created = regressed(seo, audit_site, monkeypatch, datetime(2026, 11, 18, 10, tzinfo=UTC))
    queue = digest_queue(monkeypatch)
    # audits have no update route: privacy 1 set in the record, as a created one has it
    stored_audits.update(account.id, created["id"], lambda found: {**found, "privacy": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    run_day(monkeypatch, queue, MONDAY)
    [message] = emails(outbox)
    text, _ = parts(message)
    assert "run 2, 2026-11-18" in text and "/share/audits/" not in text


def test_a_regression_more_runs_ago_than_the_record_keeps_is_still_in_its_digest(
    seo, account, audit_site, crawlable, seo_links, outbox, monkeypatch
):
    """A daily audit (and reruns) can finish more runs in a digest's period than its record
    summarises: the regression is kept apart for the digests."""
    created = regressed(seo, audit_site, monkeypatch, datetime(2026, 11, 18, 10, tzinfo=UTC))
    later = [
        {"run": n, "status": "done", "score": 90, "regression": False,
         "finished_at": f"2026-11-{19 + n % 4}T0{n % 10}:00:00.000000Z"}
        for n in range(3, 3 + RUNS_KEPT)
    ]  # fmt: skip
    stored_audits.update(
        account.id, created["id"], lambda found: {**found, "runs": json.dumps(later)}
    )
    queue = digest_queue(monkeypatch)
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    run_day(monkeypatch, queue, MONDAY)
    [message] = emails(outbox)
    text, _ = parts(message)
    assert f"{audit_site.url('/')} (audit {created['id']}, run 2, 2026-11-18)" in text
    assert (
        "High-severity issues on more pages: Internal links to pages that fail (4xx, 5xx or "
        "unreachable)" in text
    )
