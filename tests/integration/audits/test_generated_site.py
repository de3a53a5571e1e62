"""The bench's generated site (tests/bench/audit_site.py) crawled through the worker on
moto, small: every cross-page check lists exactly the pages its known answers name, so the
precision and recall `make bench` measures at scale rest on answers that are right."""

from __future__ import annotations

import pytest

from tests.bench.audit_site import GeneratedSite
from tests.integration.audits.test_audits import crawlable, drain, failing_once

__all__ = ["crawlable"]  # fixtures this module uses


@pytest.mark.slow  # over 2 s: make test-slow
def test_the_generated_site_s_known_answers(seo, crawlable):
    site = GeneratedSite(pages=90, groups=2)
    try:
        created = seo.post("/api/v1/audits", {"url": site.url("/"), "max_pages": "500"}).data
        drain(2_000)
    finally:
        site.close()
    audit = seo.get(f"/api/v1/audits/{created['id']}").data
    assert audit["status"] == "done" and audit["progress"]["fetched"] >= 90
    issues = {i["code"]: i for i in seo.get(f"/api/v1/audits/{created['id']}/issues").data}
    for check, paths in site.expected.items():
        found = issues.get(check, {"pages": []})["pages"]
        assert {p["url"].removeprefix(site.base) for p in found} == paths, check


@pytest.mark.slow  # over 2 s: make test-slow
def test_a_start_url_that_redirects_to_another_host_crawls_that_host(seo, crawlable):
    site = GeneratedSite(pages=90, groups=2)
    other = site.base.replace("127.0.0.1", "localhost")  # another host, the same server
    site.pages["/moved"] = (301, site.url("/"), "")
    try:
        created = seo.post("/api/v1/audits", {"url": f"{other}/moved"}).data
        drain(2_000)
    finally:
        site.close()
    audit = seo.get(f"/api/v1/audits/{created['id']}").data
    assert audit["status"] == "done" and audit["progress"]["fetched"] >= 90
    issues = {i["code"]: i for i in seo.get(f"/api/v1/audits/{created['id']}/issues").data}
    for check, paths in site.expected.items():
        found = issues.get(check, {"pages": []})["pages"]
        assert {p["url"].removeprefix(site.base) for p in found} == paths, check
    first = seo.get(f"/api/v1/audits/{created['id']}/pages", query={"depth": "0"}).data
    assert {(p["url"], p["redirect_to"]) for p in first} == {
        (f"{other}/moved", site.url("/")),
        (site.url("/"), None),
    }


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_a_move_to_another_host_whose_steps_were_not_queued_is_queued_when_it_comes_again(
    seo, crawlable, monkeypatch
):
    """The step that finds the start URL moved to another host claims the new start, then
    queueing fails: when it comes again the run has moved already, and it queues the new
    start it had claimed, so the crawl goes on there and ends."""
    from sitelens.data import audits as stored_audits

    site = GeneratedSite(pages=20, groups=1)
    other = site.base.replace("127.0.0.1", "localhost")
    site.pages["/moved"] = (301, site.url("/"), "")
    fetches = lambda messages: any(m["kind"] == "fetch" for m in messages)  # noqa: E731
    failing_once(monkeypatch, stored_audits, "send", fetches, nth=2)  # 1: the start's seeds
    try:
        created = seo.post("/api/v1/audits", {"url": f"{other}/moved"}).data
        drain(2_000, redeliver=True)
    finally:
        site.close()
    audit = seo.get(f"/api/v1/audits/{created['id']}").data
    assert audit["status"] == "done" and audit["progress"]["fetched"] >= 20, audit["progress"]
