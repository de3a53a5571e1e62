"""The data-access seam on moto and on DynamoDB Local: every write's stored effect (records,
claims, project rows) and list pages in every order, read back from the tables."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from sitelens.core.config import settings
from sitelens.data import audits, frontier, records, reports, websites
from sitelens.data import pages as data_pages
from sitelens.data.items import from_item

ACCOUNT = "1"
NOW = "2026-01-02T03:04:05.000000Z"
LATER = "2026-01-02T04:00:00.000000Z"

pytestmark = pytest.mark.usefixtures("storage_backend")


def table_items(table: str) -> list[dict[str, Any]]:
    dynamodb = boto3.client("dynamodb")
    found = []
    for page in dynamodb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
        found.extend(from_item(item) for item in page["Items"])
    return found


def as_written(stored: dict[str, Any] | None) -> dict[str, Any]:
    """A stored record without what data access adds to every write (version, writer)."""
    assert stored is not None and stored["version"] >= 1 and stored["write_id"]
    return {k: v for k, v in stored.items() if k not in ("version", "write_id")}


def claims() -> dict[str, dict[str, Any]]:
    """Domain claims by site key, as stored."""
    prefix = records.CLAIM_PARTITION_PREFIX
    return {
        item["account"].removeprefix(prefix): item
        for item in table_items(settings().websites_table)
        if item["account"].startswith(prefix)
    }


def stored_projects() -> dict[str, tuple[int, int]]:
    """(reports, score total) by project of the account."""
    return {
        p["project"]: (p["reports"], p["score_total"])
        for p in table_items(settings().projects_table)
        if p["account"] == ACCOUNT
    }


def website(domain: str, **fields: Any) -> dict[str, Any]:
    return {
        "account": ACCOUNT,
        "id": websites.allocate_id(),
        "domain": domain,
        "search": domain,
        "privacy": 0,
        "email": 0,
        "exclude_bots": 1,
        "exclude_params": "",
        "exclude_ips": "",
        "favorite": False,
        "favorited_at": None,
        "created_at": NOW,
        "updated_at": NOW,
        **fields,
    }


def report(url: str, project: str, score: int, **fields: Any) -> dict[str, Any]:
    return {
        "account": ACCOUNT,
        "id": reports.allocate_id(),
        "url": url,
        "search": url.lower(),
        "project": project,
        "results": json.dumps({}),
        "score": score,
        "result": "good" if score >= 80 else "decent" if score >= 50 else "bad",
        "generated_at": NOW,
        "privacy": 0,
        "created_at": NOW,
        "updated_at": NOW,
        **fields,
    }


def every_page(
    collection: records.Collection, listing: data_pages.Listing, per_page: int
) -> list[list[int]]:
    """The ids of each page, following positions as cursors do."""
    pages: list[list[int]] = []
    after = None
    while True:
        read = data_pages.page(collection, ACCOUNT, listing, after, per_page + 1)
        assert read.cost["requests"] >= 1
        found = read.records
        pages.append([r["id"] for r in found[:per_page]])
        if len(found) <= per_page:
            return pages
        after = data_pages.position(collection, listing, found[per_page - 1])


def test_website_created_with_its_claim() -> None:
    record = website("example.com")
    websites.create_with_claim(record, "example.com")

    assert as_written(websites.get(ACCOUNT, record["id"])) == websites.COLLECTION.with_index_keys(
        record
    )
    assert claims() == {
        "example.com": {
            "account": "#claim:example.com",
            "id": 0,
            "owner": ACCOUNT,
            "record_id": record["id"],
        }
    }


def test_a_taken_domain_writes_nothing() -> None:
    first = website("example.com")
    websites.create_with_claim(first, "example.com")
    second = website("www.example.com", account="2")
    with pytest.raises(websites.DomainTaken):
        websites.create_with_claim(second, "example.com")

    assert websites.get("2", second["id"]) is None
    assert claims()["example.com"]["owner"] == ACCOUNT


def test_website_update_rewrites_fields_and_index_keys() -> None:
    record = website("example.com", password_hash="x")
    websites.create_with_claim(record, "example.com")
    changes = {"favorite": True, "favorited_at": LATER, "privacy": 1, "updated_at": LATER}

    updated = websites.update(
        ACCOUNT,
        record["id"],
        lambda current: {
            **{k: v for k, v in current.items() if k != "password_hash"},
            **changes,
        },
        "example.com",
    )

    stored = websites.get(ACCOUNT, record["id"])
    assert updated is not None and stored is not None
    assert {k: stored[k] for k in changes} == changes
    assert "password_hash" not in stored and stored["version"] == 2 == updated["version"]
    assert stored["favorite_key"] == f"{ACCOUNT}#1"
    favorites = data_pages.Listing(order="id", ascending=True, filters={"favorite": "1"})
    assert every_page(websites.COLLECTION, favorites, 10) == [[record["id"]]]


def test_update_of_a_deleted_website_is_none() -> None:
    record = website("example.com")
    websites.create_with_claim(record, "example.com")
    assert websites.delete_with_claim(ACCOUNT, record["id"], "example.com")

    change = lambda current: {**current, "privacy": 1}  # noqa: E731
    assert websites.update(ACCOUNT, record["id"], change, "example.com") is None
    assert websites.get(ACCOUNT, record["id"]) is None


def test_website_deleted_with_its_claim() -> None:
    kept = website("kept.example")
    gone = website("example.com")
    websites.create_with_claim(kept, "kept.example")
    websites.create_with_claim(gone, "example.com")

    assert websites.delete_with_claim(ACCOUNT, gone["id"], "example.com") is not None
    assert websites.get(ACCOUNT, gone["id"]) is None
    assert set(claims()) == {"kept.example"}
    assert websites.delete_with_claim(ACCOUNT, gone["id"], "example.com") is None
    # The domain is free again.
    websites.create_with_claim(website("example.com"), "example.com")
    assert set(claims()) == {"kept.example", "example.com"}


def test_report_created_in_its_project() -> None:
    first = report("https://a.example/", "a.example", 80)
    second = report("https://a.example/pricing", "a.example", 40)
    reports.create_with_project(first)
    reports.create_with_project(second)

    stored = reports.get(ACCOUNT, first["id"])
    assert stored is not None and stored["version"] == 1
    written = {k: v for k, v in stored.items() if k not in ("version", "write_id")}
    assert written == reports.COLLECTION.with_index_keys(first)
    assert stored_projects() == {"a.example": (2, 120)}


def test_regenerated_report_moves_its_score_within_its_project() -> None:
    record = report("https://a.example/", "a.example", 80)
    reports.create_with_project(record)
    changes = {"score": 50, "result": "decent", "generated_at": LATER, "updated_at": LATER}

    assert reports.update_with_project(ACCOUNT, record["id"], lambda c: {**c, **changes})

    stored = reports.get(ACCOUNT, record["id"])
    assert stored is not None
    assert (stored["score"], stored["result_sort"]) == (50, f"050#{record['id']:012d}")
    assert stored_projects() == {"a.example": (1, 50)}


def test_report_moved_to_another_project_leaves_no_empty_one() -> None:
    record = report("https://a.example/", "a.example", 80)
    reports.create_with_project(record)
    changes = {
        "url": "https://b.example/",
        "search": "https://b.example/",
        "project": "b.example",
        "score": 60,
        "updated_at": LATER,
    }

    assert reports.update_with_project(ACCOUNT, record["id"], lambda c: {**c, **changes})

    assert stored_projects() == {"b.example": (1, 60)}
    stored = reports.get(ACCOUNT, record["id"])
    assert stored is not None and stored["project_key"] == f"{ACCOUNT}#b.example"


def test_a_change_is_applied_to_the_version_it_is_written_over() -> None:
    """A regeneration computed while another write landed is applied to that write's
    version: both are kept, and the project counts the score written last."""
    record = report("https://a.example/", "a.example", 80)
    reports.create_with_project(record)
    seen: list[int] = []

    def regeneration(current: dict[str, Any]) -> dict[str, Any]:
        seen.append(current["version"])
        if len(seen) == 1:  # another request's write lands between read and write
            assert reports.update_with_project(ACCOUNT, record["id"], lambda c: {**c, "privacy": 1})
        return {**current, "score": 10, "updated_at": LATER}

    assert reports.update_with_project(ACCOUNT, record["id"], regeneration) is not None
    assert seen == [1, 2]
    assert stored_projects() == {"a.example": (1, 10)}
    stored = reports.get(ACCOUNT, record["id"])
    assert stored is not None and (stored["score"], stored["privacy"], stored["version"]) == (
        10,
        1,
        3,
    )


def test_report_deleted_and_taken_out_of_its_project() -> None:
    first = report("https://a.example/", "a.example", 80)
    second = report("https://a.example/about", "a.example", 30)
    reports.create_with_project(first)
    reports.create_with_project(second)

    assert reports.delete_with_project(ACCOUNT, first["id"], LATER) is not None
    assert stored_projects() == {"a.example": (1, 30)}
    assert reports.delete_with_project(ACCOUNT, second["id"], LATER) is not None
    assert stored_projects() == {}
    assert reports.delete_with_project(ACCOUNT, second["id"], LATER) is None
    assert reports.get(ACCOUNT, first["id"]) is None


def test_website_pages_in_every_order() -> None:
    domains = ["delta.example", "alpha.example", "echo.example", "bravo.example", "charlie.ex"]
    made = {}
    for domain in domains:
        record = website(domain, favorite=domain < "c")
        websites.create_with_claim(record, domain)
        made[domain] = record["id"]
    other = website("other-account.example", account="2")
    websites.create_with_claim(other, "other-account.example")
    by_domain = [made[d] for d in sorted(domains)]

    listing = data_pages.Listing(order="domain", ascending=True, filters={})
    assert every_page(websites.COLLECTION, listing, 2) == [
        by_domain[0:2],
        by_domain[2:4],
        by_domain[4:],
    ]
    listing = data_pages.Listing(order="id", ascending=False, filters={})
    assert every_page(websites.COLLECTION, listing, 3) == [
        sorted(made.values(), reverse=True)[:3],
        sorted(made.values(), reverse=True)[3:],
    ]
    favorites = data_pages.Listing(order="domain", ascending=False, filters={"favorite": "1"})
    assert every_page(websites.COLLECTION, favorites, 10) == [
        [made["bravo.example"], made["alpha.example"]]
    ]
    searched = data_pages.Listing(order="id", ascending=True, filters={}, search="ar")
    assert every_page(websites.COLLECTION, searched, 10) == [[made["charlie.ex"]]]


def test_report_pages_by_result_within_a_project() -> None:
    scores = [90, 20, 55, 20, 70, 95]
    made = []
    for n, score in enumerate(scores):
        record = report(f"https://a.example/{n}", "a.example", score)
        reports.create_with_project(record)
        made.append(record)
    reports.create_with_project(report("https://b.example/", "b.example", 10))
    ordered = sorted(made, key=lambda r: (r["score"], r["id"]))

    listing = data_pages.Listing(order="result", ascending=True, filters={"project": "a.example"})
    found = every_page(reports.COLLECTION, listing, 4)
    assert found == [[r["id"] for r in ordered[:4]], [r["id"] for r in ordered[4:]]]

    good = data_pages.Listing(
        order="url", ascending=False, filters={"result": "good", "project": "a.example"}
    )
    urls = sorted((r["url"], r["id"]) for r in made if r["score"] >= 80)
    assert every_page(reports.COLLECTION, good, 10) == [[i for _, i in reversed(urls)]]


def test_a_run_s_step_counted_with_an_ending_counts_once() -> None:
    """The start of an audit's run is counted as it removes `seeding`, in one write: a
    second count of it (its step redelivered) changes nothing."""
    crawl = "acc-1#1#1"
    audits.start(crawl, {"status": "crawling", "pending": 3, "seeding": 1})
    counted = audits.count(crawl, ending="seeding", pending=-1)
    assert counted is not None
    assert (counted["pending"], "seeding" in counted, "progressed_at" in counted) == (
        2,
        False,
        True,
    )
    assert audits.count(crawl, ending="seeding", pending=-1) is None
    assert audits.state(crawl) == counted
    assert audits.count(crawl, pending=-2)["pending"] == 0  # without an ending, every time


def test_a_fetch_step_s_page_is_stored_and_counted_once() -> None:
    """A fetch step's findings and its count are one write: a step that comes again (or a
    copy of it) stores and counts nothing more, and a URL the run never claimed neither."""
    crawl = "acc-1#1#2"
    audits.start(crawl, {"status": "crawling", "pending": 1, "fetched": 0})
    urls = ["https://a.example/", "https://a.example/b"]
    for url in urls:
        assert frontier.claim_page(crawl, {"url": url, "state": "queued"}, 10, 0)
    first = {"state": "fetched", "status_code": 200, "links": ["https://a.example/b"]}
    assert frontier.finish_pages(crawl, [(urls[0], first, 1)]) == 1
    again = {"state": "fetched", "status_code": 500}
    assert frontier.finish_pages(crawl, [(urls[0], again, 1), (urls[1], first, 1)]) == 1
    state = audits.state(crawl)
    assert (state["pending"], state["fetched"], state["discovered"]) == (1, 2, 2)
    pages = {page["url"]: page for page in audits.every_page(crawl)}
    assert pages[urls[0]]["status_code"] == 200  # the first delivery's findings
    assert frontier.finish_pages(crawl, [("https://a.example/never", first, 1)]) == 0
    assert audits.state(crawl) == state


def test_claims_and_finished_steps_at_once_all_count() -> None:
    """Claims (a plain update of the run's state) and fetch steps' transactions on the same
    state at once: every claim and every step is counted, none lost to a conflict."""
    from concurrent.futures import ThreadPoolExecutor

    crawl = "acc-1#1#3"
    audits.start(crawl, {"status": "crawling", "pending": 1, "fetched": 0})
    first = [f"https://a.example/{n}" for n in range(20)]
    for url in first:
        frontier.claim_page(crawl, {"url": url, "state": "queued"}, 100, 0)
    fetched = {"state": "fetched", "status_code": 200}

    def work(n: int) -> Any:
        if n % 2:
            return frontier.claim_page(crawl, {"url": f"https://b.example/{n}"}, 100, 0)
        return frontier.finish_pages(
            crawl, [(first[n // 2], fetched, 1), (first[10 + n // 2], fetched, 1)]
        )

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(20)))
    assert results == [2, frontier.Claim.NEW] * 10
    state = audits.state(crawl)
    assert (state["pending"], state["fetched"], state["discovered"]) == (11, 20, 30)


def test_copies_of_a_step_in_one_batch_count_once() -> None:
    """A step and its copy queued again can land in one batch: one transaction may name a
    page once, so they are one page and one count."""
    crawl = "acc-1#1#4"
    audits.start(crawl, {"status": "crawling", "pending": 1, "fetched": 0})
    url = "https://a.example/"
    assert frontier.claim_page(crawl, {"url": url, "state": "queued"}, 10, 0)
    fetched = {"state": "fetched", "status_code": 200}
    assert frontier.finish_pages(crawl, [(url, fetched, 1), (url, {**fetched, "x": 1}, 1)]) == 1
    state = audits.state(crawl)
    assert (state["pending"], state["fetched"]) == (1, 1)
