"""An audit's share views without a key, by its unguessable share id: the JSON and page
show the last finished run's issues grouped by severity with their page counts and the
change from the run before; privacy 1 is the 404 of a missing audit, privacy 2 needs the
password (a token for JSON, a cookie for the page); the share id goes with the audit."""

from __future__ import annotations

import re
from typing import Any

import pytest

from sitelens.audits import analysis
from sitelens.audits.shared import PUBLIC_FIELDS
from sitelens.sharing import links
from tests.conftest import Client
from tests.integration.audits.test_audits import audit, audit_site, crawlable, drain, page
from tests.integration.share.test_report_links import NOT_FOUND, UNAUTHENTICATED, generous_limit

__all__ = ["audit_site", "crawlable", "generous_limit"]  # fixtures this module uses

SHARE_URL = re.compile(r"https://api\.test(/[A-Za-z0-9]+)?/share/audits/([A-Za-z0-9_-]{22})")


@pytest.fixture
def public(account: Any) -> Client:
    return Client("SeoApi", None)


def share_id(created: dict[str, Any]) -> str:
    found = SHARE_URL.fullmatch(created["share_url"])
    assert found, created["share_url"]
    assert found.group(2) == created["share_id"]
    return found.group(2)


def test_the_share_view_groups_the_last_runs_issues_and_its_diff(
    seo, public, audit_site, crawlable
):
    created = audit(seo, audit_site)
    token = share_id(created)
    before = public.get(f"/api/v1/share/audits/{token}")
    assert before.status == 200
    shown = {k: v for k, v in created.items() if k in PUBLIC_FIELDS}
    assert before.data == {"audit": shown | {"status": "queued"}, "last_run": None}
    assert "crawl_secret" not in before.data["audit"]  # the owner's settings stay the owner's
    assert "has not finished yet" in public.get(f"/share/audits/{token}").body
    drain()
    issues = seo.get(f"/api/v1/audits/{created['id']}/issues").data
    shared = public.get(f"/api/v1/share/audits/{token}").data
    owned = seo.get(f"/api/v1/audits/{created['id']}").data
    assert shared["audit"] == {k: v for k, v in owned.items() if k in PUBLIC_FIELDS}
    run = shared["last_run"]
    assert run["run"] == 1 and run["diff"] is None and run["regression"] is False
    assert run["score"] == shared["audit"]["score"]
    assert [g["severity"] for g in run["severities"]] == ["high", "medium", "low"]
    for group in run["severities"]:
        expected = [i for i in issues if i["severity"] == group["severity"]]
        assert [(i["code"], i["count"]) for i in group["issues"]] == [
            (i["code"], i["count"]) for i in expected
        ]
        assert all(
            set(i) == {"code", "title", "fix", "learn_more", "count"} for i in group["issues"]
        )
    html = public.get(f"/share/audits/{token}").body
    [broken] = [i for i in issues if i["code"] == "broken_internal_link"]
    assert 'id="issue-broken_internal_link"' in html
    assert f"{broken['count']} page" in html and "first run" in html

    saved = dict(audit_site.pages)
    html_type = {"Content-Type": "text/html; charset=utf-8"}
    try:
        audit_site.pages["/b"] = (200, html_type, page("Dead end B", ["/"]))  # fixes dead_end
        assert seo.post(f"/api/v1/audits/{created['id']}/runs").status == 201
        drain()
    finally:
        audit_site.pages = saved
    second = public.get(f"/api/v1/share/audits/{token}").data["last_run"]
    latest = seo.get(f"/api/v1/audits/{created['id']}/runs").data[0]
    assert second["run"] == 2
    assert (second["diff"], second["regression"]) == (latest["diff"], latest["regression"])
    assert "dead_end" in {i["code"] for i in second["diff"]["fixed"]}
    html = public.get(f"/share/audits/{token}").body
    dead_end = "Pages without links to other pages of the site"  # its title, not its code
    assert 'id="diff"' in html and f"Fixed: {dead_end} (low, 1 page)" in html


def test_guesses_ids_and_other_kinds_open_no_audit(seo, public):
    created = seo.post("/api/v1/audits", {"url": "https://example.com/"}).data
    token = share_id(created)
    for guess in (str(created["id"]), "1", links.new_share_id(), token[:21], token + "A"):
        assert public.get(f"/api/v1/share/audits/{guess}").body == NOT_FOUND
        assert public.get(f"/share/audits/{guess}").status == 404
    assert public.get(f"/api/v1/share/reports/{token}").body == NOT_FOUND  # not a report's
    assert public.get(f"/api/v1/share/audits/{token}").status == 200


def test_a_private_audit_is_a_missing_one_and_goes_with_the_audit(seo, public):
    private = seo.post("/api/v1/audits", {"url": "https://example.com/", "privacy": 1}).data
    assert public.get(f"/api/v1/share/audits/{share_id(private)}").body == NOT_FOUND
    opened = seo.post("/api/v1/audits", {"url": "https://example.com/"}).data
    assert seo.delete(f"/api/v1/audits/{opened['id']}").status == 200
    assert public.get(f"/api/v1/share/audits/{share_id(opened)}").body == NOT_FOUND


def test_a_password_audit_needs_its_password(seo, public):
    form = {"url": "https://example.com/", "privacy": 2, "password": "correct-horse"}
    created = seo.post("/api/v1/audits", form).data
    token = share_id(created)
    json_path = f"/api/v1/share/audits/{token}"
    assert public.get(json_path).body == UNAUTHENTICATED
    page_form = public.get(f"/share/audits/{token}")
    assert page_form.status == 401 and 'type="password"' in page_form.body
    assert public.post(f"{json_path}/unlock", {"password": "wrong-horse"}).body == UNAUTHENTICATED
    grant = public.post(f"{json_path}/unlock", {"password": "correct-horse"}).data["token"]
    opened = public.get(json_path, headers={"Authorization": f"Bearer {grant}"})
    assert opened.status == 200 and opened.data["audit"]["id"] == created["id"]
    posted = public.post(f"/share/audits/{token}", {"password": "correct-horse"})
    assert posted.status == 303
    cookie = posted.headers["Set-Cookie"].split(";")[0]
    assert public.get(f"/share/audits/{token}", headers={"Cookie": cookie}).status == 200
    # a token of this audit opens no other one
    other = seo.post("/api/v1/audits", form).data
    bearer = {"Authorization": f"Bearer {grant}"}
    assert public.get(f"/api/v1/share/audits/{share_id(other)}", headers=bearer).status == 401


def test_a_done_run_is_shown_with_its_score_before_its_record_has_it(
    seo, public, audit_site, crawlable, monkeypatch
):
    """The run's state is done, with its summary, in one write; the audit's record gets the
    summary in a second. A read between the two (or after a worker killed between them)
    shows the run done with its score, in every answer: no done run without a score."""
    monkeypatch.setattr(analysis, "_record_run", lambda state, summary: None)
    created = audit(seo, audit_site)
    drain()
    shown = seo.get(f"/api/v1/audits/{created['id']}").data
    assert shown["status"] == "done"
    assert isinstance(shown["score"], int) and sum(shown["issues"].values()) > 0
    [run] = seo.get(f"/api/v1/audits/{created['id']}/runs").data
    assert run["status"] == "done" and run["score"] == shown["score"]
    shared = public.get(f"/api/v1/share/audits/{share_id(created)}").data
    assert (
        shared["audit"] == {k: v for k, v in shown.items() if k in PUBLIC_FIELDS}
        and shared["last_run"]["score"] == shown["score"]
    )
