"""A run's diff and regression verdict on generated histories: pairs of runs of a site of
generated pages, stored as the crawler stores them, analysed as the worker analyses them,
each with its expected diff and verdict written down. The sites are larger than an
issue's list of `checks.MAX_AFFECTED` pages, so a diff computed from display lists would
be wrong."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from sitelens.audits import analysis, checks
from sitelens.data import audits as stored_audits
from sitelens.data import batches
from sitelens.data.audits import PAGE
from sitelens.data.items import to_item

pytestmark = pytest.mark.usefixtures("aws_env")
ACCOUNT = "acct-history"
BASE = "https://shop.example"
PAGES = 1_050  # more than an issue lists


@dataclass
class Site:
    """A generated site's pages as a run stores them: home links to every page, every
    page home and to the next; `defects` maps a per-page report check to the paths that
    fail it."""

    paths: list[str]
    defects: dict[str, set[str]] = field(default_factory=dict)
    gone: dict[str, int] = field(default_factory=dict)  # path -> its status now (404, 301)
    many_links: set[str] = field(default_factory=set)
    same_title: set[str] = field(default_factory=set)  # paths sharing one title

    def items(self) -> list[dict[str, Any]]:
        found = []
        for n, path in enumerate(self.paths):
            url = BASE + path
            following = BASE + self.paths[(n + 1) % len(self.paths)]
            status = self.gone.get(path, 200)
            failed = sorted(key for key, paths in self.defects.items() if path in paths)
            item: dict[str, Any] = {"url": url, "state": "fetched", "status_code": status}
            if status == 301:
                item["redirect_to"] = BASE + "/"
            elif status == 200:
                item |= {
                    "title": "Same" if path in self.same_title else f"Page {path}",
                    "description": f"About {path}",
                    "noindex": False,
                    "links": json.dumps(
                        [BASE + p for p in self.paths[1:]]
                        if path == "/"
                        else [BASE + "/", following]
                    ),
                    "external_links": "[]",
                    "hreflang": "[]",
                    "mixed": "[]",
                    "simhash": str(n * 2654435761 % 2**64),
                    "words": 10,
                    "score": 100 - 10 * len(failed),
                    "failed_checks": json.dumps(failed),
                }
                if path in self.many_links:
                    item["links_found"] = 1_100
            found.append(item)
        return found


def paths(count: int, prefix: str = "/p") -> list[str]:
    return ["/", *(f"{prefix}{n}" for n in range(count - 1))]


def analysed(run: int, site: Site, **settings: Any) -> dict[str, Any]:
    """Store a run of audit 1 as its crawl leaves it, analyse it, and give its summary."""
    crawl = stored_audits.crawl_key(ACCOUNT, 1, run)
    state = {
        "crawl": crawl,
        "account": ACCOUNT,
        "audit": 1,
        "run": run,
        "status": "crawling",
        "url": BASE + "/",
        "include": "",
        "exclude": "",
        "started_at": "2026-11-20T08:00:00Z",
        "expires_at": 2_000_000_000,
        **{k: json.dumps(v) for k, v in settings.items()},
    }
    stored_audits.start(crawl, state)
    puts = [
        {"PutRequest": {"Item": to_item({"crawl": crawl, "key": PAGE + item["url"], **item})}}
        for item in site.items()
    ]
    batches.write(_table(), puts)  # as the crawler leaves them, 25 a request
    analysis.analyse(crawl)
    done = stored_audits.state(crawl)
    assert done is not None and done["status"] == "done", done
    summary: dict[str, Any] = json.loads(done["summary"])
    return summary


def _table() -> str:
    from sitelens.core.config import settings

    return settings().audit_crawls_table


def persisting(summary: dict[str, Any], code: str) -> dict[str, Any]:
    [found] = [i for i in summary["diff"]["persisting"] if i["code"] == code]
    return found


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_one_page_fixed_of_1050_is_one_fixed_and_no_regression():
    every = set(paths(PAGES))
    # a high report check and a cross-page check on every page; /p7 fixes both
    before = Site(paths(PAGES), {"title": set(every)}, same_title=set(every))
    after = Site(paths(PAGES), {"title": every - {"/p7"}}, same_title=every - {"/p7"})
    analysed(1, before)
    second = analysed(2, after)
    same = persisting(second, "duplicate_title")
    assert (same["pages"], same["new_pages"], same["fixed_pages"]) == (PAGES - 1, 0, 1)
    title = persisting(second, "page_title")
    assert (title["pages"], title["new_pages"], title["fixed_pages"]) == (PAGES - 1, 0, 1)
    assert (title["added_pages"], title["removed_pages"]) == (0, 0)
    assert second["regression"] is False
    issues = stored_audits.issues(stored_audits.crawl_key(ACCOUNT, 1, 2))
    [listed] = [i for i in issues if i["code"] == "page_title"]
    assert len(json.loads(listed["pages"])) == checks.MAX_AFFECTED  # the display list is cut


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_one_page_newly_failing_of_1050_is_a_regression():
    every = set(paths(PAGES))
    analysed(1, Site(paths(PAGES), {"title": every - {"/p9"}}))
    second = analysed(2, Site(paths(PAGES), {"title": set(every)}))
    title = persisting(second, "page_title")
    assert (title["new_pages"], title["fixed_pages"]) == (1, 0)
    assert second["regression"] is True


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_a_page_gone_404_or_redirected_is_removed_not_fixed():
    every = set(paths(PAGES))
    analysed(1, Site(paths(PAGES), {"title": set(every)}))
    after = Site(paths(PAGES), {"title": set(every)}, gone={"/p3": 404, "/p4": 301})
    second = analysed(2, Site(paths(PAGES)[:-1], after.defects, after.gone))  # /p1498 dropped
    title = persisting(second, "page_title")
    assert (title["fixed_pages"], title["removed_pages"], title["new_pages"]) == (0, 3, 0)
    assert second["diff"]["pages_removed"] == 3 and second["diff"]["pages_added"] == 0


def test_publishing_pages_that_share_a_site_wide_issue_is_not_a_regression():
    every = set(paths(60))
    analysed(1, Site(paths(60), {"title": set(every), "favicon": {"/p1", "/p2"}}))
    grown = paths(60 + 40)
    second = analysed(2, Site(grown, {"title": set(grown), "favicon": {"/p1"}}))
    title = persisting(second, "page_title")
    assert (title["new_pages"], title["added_pages"]) == (0, 40)
    assert second["diff"]["pages_added"] == 40
    assert second["diff"]["score_delta"] >= 0
    assert second["regression"] is False
    # ... unless the audit asks for pages added since to count
    analysed(3, Site(paths(60), {"title": set(every)}))
    regrown = paths(60 + 40)
    third = analysed(
        4, Site(regrown, {"title": set(regrown)}), regression={"high_on_added_pages": True}
    )
    assert third["regression"] is True


def test_a_new_high_issue_is_a_regression_even_on_added_pages_only():
    analysed(1, Site(paths(20)))
    second = analysed(2, Site(paths(22), {"title": {"/p19", "/p20"}}))
    [new] = second["diff"]["new"]
    assert (new["code"], new["added_pages"], new["new_pages"]) == ("page_title", 2, 0)
    assert second["regression"] is True


def test_a_muted_or_ignored_check_is_no_regression_and_no_score():
    every = set(paths(50))
    analysed(1, Site(paths(50)))
    muted = analysed(2, Site(paths(50), {"title": set(every)}), muted={"page_title": "muted"})
    assert muted["regression"] is False and muted["score"] == 100
    assert muted["issues"] == {"high": 0, "medium": 0, "low": 0}
    assert muted["diff"]["new"][0]["muted"] is True
    ignored = analysed(
        3,
        Site(paths(50), {"title": set(every)}),
        regression={"ignore": ["page_title"], "score_drop": 100},
    )
    assert ignored["regression"] is False


def test_a_re_graded_check_counts_at_its_new_severity():
    every = set(paths(50))
    analysed(1, Site(paths(50)))
    second = analysed(2, Site(paths(50), {"title": set(every)}), muted={"page_title": "low"})
    assert second["issues"]["low"] == 1 and second["issues"]["high"] == 0
    assert second["regression"] is False  # a low issue does not regress


def test_the_score_drop_is_configurable():
    every = set(paths(50))
    analysed(1, Site(paths(50)))
    second = analysed(2, Site(paths(50), {"favicon": set(every)}), regression={"score_drop": 3})
    assert second["diff"]["score_delta"] <= -3 and second["regression"] is True
    analysed(3, Site(paths(50)))
    fourth = analysed(4, Site(paths(50), {"favicon": set(every)}), regression={"score_drop": 50})
    assert fourth["regression"] is False


def test_a_page_with_more_links_than_kept_is_an_issue():
    summary = analysed(1, Site(paths(10), many_links={"/p2"}))
    assert summary["issues"]["low"] >= 1
    issues = stored_audits.issues(stored_audits.crawl_key(ACCOUNT, 1, 1))
    [many] = [i for i in issues if i["code"] == "too_many_links"]
    assert json.loads(many["pages"]) == [
        {"url": f"{BASE}/p2", "detail": "1100 internal links; the first 500 are kept"}
    ]
