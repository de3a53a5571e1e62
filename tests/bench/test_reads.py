"""DynamoDB reads per list page: 1,000 websites and 1,000 reports of one account in moto
(tables from template.yaml), every `sort_by` x `sort` with no filter, each single filter,
and `search`, first page and the page after it (through the cursor), at per_page=10.

Items read is DynamoDB's ScannedCount summed over the page's requests (`Page.cost`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from sitelens import reports, websites
from sitelens.data import projects as stored_projects
from sitelens.data import reports as stored_reports
from sitelens.data import websites as stored_websites
from sitelens.data.clients import client
from sitelens.data.items import to_item
from sitelens.records import listing
from sitelens.reports.inputs import ProjectListQuery, ReportListQuery
from sitelens.reports.rules import RESULTS, project_of
from sitelens.seo.analysis import analyse, band
from sitelens.websites.inputs import WebsiteListQuery
from tests.bench import pages, report, timing
from tests.bench.fake_dynamodb import website_records

ACCOUNT = "1"
PER_PAGE = report.PER_PAGE
RECORDS = 80 if timing.QUICK else 1000  # quick: pages may be short
_KINDS = ("shop", "blog", "news", "docs")
_NAMES = (  # noqa: SIM905 - a word list reads better as words
    "acme alpine amber atlas beacon birch canyon cedar cobalt delta ember falcon fjord garnet "
    "harbor"
).split()
HOSTS = [f"{name}-{kind}.example" for name in _NAMES for kind in _KINDS]  # 60 projects
SEARCH = {"websites": "shop", "reports": "blog", "projects": "shop"}


def _write(table: str, items: list[dict[str, Any]]) -> None:
    for start in range(0, len(items), 25):
        pending: dict[str, Any] = {
            table: [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
        }
        while pending:
            pending = client("dynamodb").batch_write_item(RequestItems=pending)["UnprocessedItems"]


def _report_records(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """1,000 reports over 60 projects with varied results, and the projects' rows."""
    # Real analyses of a few different pages, so that results are the real JSON shape.
    analysed = [analyse(pages.site(20_000 + 5_000 * n, seed=n)) for n in range(4)]
    records, projects = [], {}
    for number in range(1, RECORDS + 1):
        host = rng.choice(HOSTS)
        path = "/".join(rng.sample(_NAMES, rng.randint(1, 3)))
        url = f"https://{'www.' if rng.random() < 0.5 else ''}{host}/{path}"
        score = rng.randint(15, 100)
        generated = (
            f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T"
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00.000000Z"
        )
        records.append(
            {
                "account": ACCOUNT,
                "id": number,
                "url": url,
                "search": url.lower(),
                "project": project_of(url),
                "results": json.dumps(rng.choice(analysed).results, separators=(",", ":")),
                "score": score,
                "result": band(score),
                "privacy": rng.choice((0, 0, 1, 2)),
                "generated_at": generated,
                "created_at": generated,
                "updated_at": generated,
            }
        )
        row = projects.setdefault(
            host,
            {"account": ACCOUNT, "project": host, "reports": 0, "score_total": 0},
        )
        row["reports"] += 1
        row["score_total"] += score
        row["created_at"] = min(row.get("created_at", generated), generated)
        row["search"] = host
    return records, list(projects.values())


def populate() -> None:
    rng = random.Random(5)
    sites = website_records(RECORDS, account=ACCOUNT)
    report_rows, project_rows = _report_records(rng)
    _write(
        stored_websites.COLLECTION.table(),
        [to_item(stored_websites.COLLECTION.with_index_keys(r)) for r in sites],
    )
    _write(
        stored_reports.COLLECTION.table(),
        [to_item(stored_reports.COLLECTION.with_index_keys(r)) for r in report_rows],
    )
    _write(
        stored_projects.COLLECTION.table(),
        [to_item(stored_projects.COLLECTION.with_index_keys(r)) for r in project_rows],
    )


def combinations() -> list[tuple[str, dict[str, str]]]:
    """(collection, list parameters) for every order, single filter and search."""
    found: list[tuple[str, dict[str, str]]] = []
    lists: dict[str, tuple[tuple[str, ...], list[dict[str, str]]]] = {
        "websites": (("id", "domain"), [{}, {"favorite": "0"}, {"favorite": "1"}]),
        "reports": (
            ("id", "generated_at", "url", "result"),
            [{}, *({"result": r} for r in RESULTS), {"project": HOSTS[7]}],
        ),
        "projects": (("project", "created_at"), [{}]),
    }
    for kind, (orders, filters) in lists.items():
        for sort_by in orders:
            for sort in ("desc", "asc"):
                base = {"sort_by": sort_by, "sort": sort}
                found += [(kind, {**base, **f}) for f in filters]
                found.append((kind, {**base, "search": SEARCH[kind]}))
    return found


LISTS: dict[str, tuple[Callable[[str, Any], listing.Page], Any]] = {
    "websites": (websites.list_page, WebsiteListQuery),
    "reports": (
        lambda account, query: reports.list_page(account, query, "https://api.test"),
        ReportListQuery,
    ),
    "projects": (reports.projects.list_page, ProjectListQuery),
}


def key(kind: str, params: dict[str, str], page: int) -> str:
    """`websites:sort_by=id:sort=desc[:filter=value][:search=term]:per_page=10[:page=2]`."""
    parts = [kind, f"sort_by={params['sort_by']}", f"sort={params['sort']}"]
    parts += [f"{k}={v}" for k, v in params.items() if k not in ("sort_by", "sort")]
    parts.append(f"per_page={PER_PAGE}")
    if page > 1:
        parts.append(f"page={page}")
    return ":".join(parts)


def test_reads_per_page(aws_env: None) -> None:
    populate()
    reads: dict[str, int] = {}
    requests: dict[str, int] = {}
    for kind, params in combinations():
        list_page, query_model = LISTS[kind]
        query = {**params, "per_page": str(PER_PAGE)}
        first = list_page(ACCOUNT, query_model.parse(query))
        assert len(first.records) == PER_PAGE or timing.QUICK, (kind, params)
        pages_read = [(1, first)]
        if first.next_cursor:
            second = list_page(ACCOUNT, query_model.parse({**query, "cursor": first.next_cursor}))
            assert second.records and second.records[0] != first.records[0]
            pages_read.append((2, second))
        for number, page in pages_read:
            _check(kind, params, page)
            reads[key(kind, params, number)] = page.cost["items_read"]
            requests[key(kind, params, number)] = page.cost["requests"]
    report.RESULTS["reads_per_page"] = reads
    report.RESULTS["requests_per_page"] = requests
    over = {k: v for k, v in reads.items() if ":search=" not in k and v > PER_PAGE + 1}
    report.CONTEXT["reads"] = {
        "records": {"websites": RECORDS, "reports": RECORDS, "projects": len(HOSTS)},
        "search_terms": SEARCH,
        "over_per_page_plus_one_without_search": over,
    }
    for name, value in over.items():
        report.NOTES.append(f"reads: {name} read {value} items (> {PER_PAGE + 1})")


def _check(kind: str, params: dict[str, str], page: listing.Page) -> None:
    """The page holds what was asked for: the filter's records, the search's matches."""
    for record in page.records:
        if "favorite" in params:
            assert record["favorite"] == (params["favorite"] == "1")
        if "result" in params:
            assert record["result"] == params["result"]
        if "project" in params:
            assert record["project"] == params["project"]
        if "search" in params:
            field = {"websites": "domain", "reports": "url", "projects": "project"}[kind]
            assert params["search"] in record[field].lower()
