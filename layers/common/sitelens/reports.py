"""Reports: the rules of the SEO collection's records, and their projects."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sitelens import clock, errors, listing, privacy, store
from sitelens.config import settings
from sitelens.errors import FieldError

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.models import ProjectListQuery, ReportCreate, ReportListQuery, ReportUpdate

MAX_URL_LENGTH = 2048
RESULTS = ("good", "decent", "bad")

COLLECTION = store.Collection(
    name="reports",
    table=lambda: settings().reports_table,
    orders={
        "generated_at": lambda r: store.id_suffixed(r["generated_at"], r),
        "url": lambda r: store.id_suffixed(r["url"], r),
        "result": lambda r: store.id_suffixed(f"{r['score']:03d}", r),
    },
    filters={"result": lambda r: r["result"], "project": lambda r: r["project"]},
)

PROJECTS = store.Collection(
    name="projects",
    table=lambda: settings().projects_table,
    orders={"created_at": lambda p: store.project_created_sort(p["created_at"], p["project"])},
    key="project",
)


# -- field rules ------------------------------------------------------------------------


def check_url(value: Any) -> str:
    """A report URL: http or https with a host, at most 2,048 characters, trimmed."""
    if not isinstance(value, str):
        raise FieldError("The url field must be a string.")
    url = value.strip()
    if len(url) > MAX_URL_LENGTH:
        raise FieldError(f"The url field must not be greater than {MAX_URL_LENGTH} characters.")
    try:
        parts = urlsplit(url)
        valid = parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
        parts.port  # noqa: B018 - raises for a port out of range
    except ValueError:
        valid = False
    if not valid:
        raise FieldError("The url must be a valid http or https URL.")
    return url


def project_of_host(host: str) -> str:
    return host.strip().lower().removeprefix("www.")


def project_of(url: str) -> str:
    """A report's project: the final URL's host without `www.`."""
    return project_of_host(urlsplit(url).hostname or "")


# -- records ----------------------------------------------------------------------------


def show(record: dict[str, Any]) -> dict[str, Any]:
    """The record as the API returns it: the password only as whether one is set."""
    return {
        "id": record["id"],
        "url": record["url"],
        "project": record["project"],
        "result": record["result"],
        "score": record["score"],
        "privacy": record["privacy"],
        "password": bool(record.get("password_hash")),
        "results": json.loads(record["results"]),
        "generated_at": record["generated_at"],
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def generate(url: str) -> dict[str, Any]:
    """Fetch the page and analyse it: the report fields a generation sets."""
    from sitelens.seo import analysis, fetch

    try:
        site = fetch.fetch_site(url)
    except fetch.FetchError as err:
        raise errors.Invalid.field("url", str(err)) from None
    report = analysis.analyse(site)
    final_url = site.page.url
    return {
        "url": final_url,
        "search": final_url.lower(),
        "project": project_of(final_url),
        "results": json.dumps(report.results, separators=(",", ":")),
        "score": report.score,
        "result": report.result,
        "generated_at": clock.now_iso(),
    }


def create(account_id: str, fields: ReportCreate) -> dict[str, Any]:
    """Generate a report of the URL for the account."""
    password, _ = privacy.password_changes(None, fields.privacy, fields.password)
    generated = generate(fields.url)
    now = clock.now_iso()
    record = {
        "account": account_id,
        "id": store.allocate_id(COLLECTION),
        **generated,
        "privacy": fields.privacy or 0,
        "created_at": now,
        "updated_at": now,
        **password,
    }
    project = store.project_change(account_id, record["project"], 1, record["score"], now)
    store.create(COLLECTION, record, also=(project,))
    return show(record)


def stored(account_id: str, report_id: int) -> dict[str, Any]:
    """The stored report; 404 when it is not the account's."""
    record = store.get(COLLECTION, account_id, report_id)
    if record is None:
        raise errors.NotFound()
    return record


def get(account_id: str, report_id: int) -> dict[str, Any]:
    return show(stored(account_id, report_id))


def update(account_id: str, report_id: int, fields: ReportUpdate) -> dict[str, Any]:
    """Change privacy settings; with `results` = 1, also fetch and analyse the page again."""
    current = stored(account_id, report_id)
    changes, removed = privacy.password_changes(current, fields.privacy, fields.password)
    if fields.privacy is not None:
        changes["privacy"] = fields.privacy
    also: tuple[store.Write, ...] = ()
    if fields.results == 1:
        changes.update(generate(current["url"]))
        also = _project_moves(account_id, current, changes)
    changes["updated_at"] = clock.now_iso()
    record = store.update(COLLECTION, current, changes, removed, also=also)
    if record is None:
        raise errors.NotFound()
    if record["project"] != current["project"]:
        store.drop_empty_project(account_id, current["project"])
    return show(record)


def _project_moves(
    account_id: str, current: dict[str, Any], new: dict[str, Any]
) -> tuple[store.Write, ...]:
    now = clock.now_iso()
    if new["project"] == current["project"]:
        delta = new["score"] - current["score"]
        return (store.project_change(account_id, current["project"], 0, delta, now),)
    return (
        store.project_change(account_id, current["project"], -1, -current["score"], now),
        store.project_change(account_id, new["project"], 1, new["score"], now),
    )


def delete(account_id: str, report_id: int) -> None:
    """Delete the report; its project goes with its last report."""
    record = stored(account_id, report_id)
    leaving = store.project_change(
        account_id, record["project"], -1, -record["score"], clock.now_iso()
    )
    if not store.delete(COLLECTION, account_id, report_id, also=(leaving,)):
        raise errors.NotFound()
    store.drop_empty_project(account_id, record["project"])


def list_page(account_id: str, query: ReportListQuery) -> listing.Page:
    return listing.list_page(COLLECTION, account_id, query, query.sort_by, show)


def show_project(row: dict[str, Any]) -> dict[str, Any]:
    reports = max(int(row["reports"]), 0)
    return {
        "project": row["project"],
        "reports": reports,
        "score": round(row["score_total"] / reports) if reports else 0,
        "created_at": row["created_at"],
    }


def list_projects(account_id: str, query: ProjectListQuery) -> listing.Page:
    return listing.list_page(PROJECTS, account_id, query, query.sort_by, show_project)
