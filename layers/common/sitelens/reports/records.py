"""Reports: generating, reading, changing and deleting the SEO collection's records."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors
from sitelens.data import reports as stored_reports
from sitelens.data.transactions import ItemTooLarge
from sitelens.records import listing, privacy
from sitelens.reports.rules import project_of
from sitelens.seo.guidance import advised
from sitelens.sharing.links import new_share_id, report_url

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.reports.inputs import ReportCreate, ReportListQuery, ReportUpdate


def show(record: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The record as the API at `base_url` returns it: the password only as whether one is
    set; its share page's URL (null for a report from before share ids, until updated);
    each failed check with its fix and learn-more link."""
    share_id = record.get("share_id")
    return {
        "id": record["id"],
        "url": record["url"],
        "project": record["project"],
        "result": record["result"],
        "score": record["score"],
        "privacy": record["privacy"],
        "password": bool(record.get("password_hash")),
        "share_url": report_url(base_url, share_id) if share_id else None,
        "results": advised(json.loads(record["results"])),
        # real visits of the page when it was generated (`reports.field`); null before them
        "field_data": json.loads(record["field_data"]) if record.get("field_data") else None,
        "generated_at": record["generated_at"],
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def failed_checks(report: dict[str, Any]) -> str:
    """The keys of a shown report's failed checks, space-separated (for exports)."""
    return " ".join(key for key, result in report["results"].items() if not result["passed"])


def generate(url: str, account_id: str | None = None) -> dict[str, Any]:
    """Fetch the page, read the account's field data of it (`reports.field`: real visits,
    when the account tracks its host; none without an account) and analyse it with them:
    the report fields a generation sets."""
    # Imported here: only the operations that generate load the fetcher, the parser and
    # the warehouse's query code.
    from sitelens.reports import field
    from sitelens.seo import analysis, fetch

    try:
        site = fetch.fetch_site(url)
    except fetch.FetchError as err:
        raise errors.Invalid.field("url", str(err)) from None
    final_url = site.page.url
    field_data = field.gather(account_id, final_url) if account_id else None
    if field_data is not None:
        site = replace(site, field_vitals=field.judged(field_data))
    report = analysis.analyse(site)
    return {
        "url": final_url,
        "search": final_url.lower(),
        "project": project_of(final_url),
        "results": json.dumps(report.results, separators=(",", ":")),
        **({"field_data": json.dumps(field_data, separators=(",", ":"))} if field_data else {}),
        "score": report.score,
        "result": report.result,
        "generated_at": clock.now_iso(),
    }


def create(account_id: str, fields: ReportCreate, base_url: str) -> dict[str, Any]:
    """Generate a report of the URL for the account, with a share id of its own."""
    password, _ = privacy.PasswordRule(fields.privacy, fields.password).changes(None)
    generated = generate(fields.url, account_id)
    now = clock.now_iso()
    record = {
        "account": account_id,
        "id": stored_reports.allocate_id(),
        "share_id": new_share_id(),
        **generated,
        "privacy": fields.privacy or 0,
        "created_at": now,
        "updated_at": now,
        **password,
    }
    try:
        record = stored_reports.create_with_project(record)
    except ItemTooLarge:
        raise errors.Invalid.field("url", "The page's report is too large to store.") from None
    return show(record, base_url)


def stored(account_id: str, report_id: int) -> dict[str, Any]:
    """The stored report; 404 when it is not the account's."""
    record = stored_reports.get(account_id, report_id)
    if record is None:
        raise errors.NotFound()
    return record


def get(account_id: str, report_id: int, base_url: str) -> dict[str, Any]:
    return show(stored(account_id, report_id), base_url)


def update(account_id: str, report_id: int, fields: ReportUpdate, base_url: str) -> dict[str, Any]:
    """Change privacy settings; with `results` = 1, also fetch and analyse the page again.
    A report from before share ids gets one.

    The change is applied to the stored report as it is when written (a concurrent update
    or regeneration never mixes with this one); 404 when the report is not the account's.
    """
    current = stored(account_id, report_id)
    rule = privacy.PasswordRule(fields.privacy, fields.password)
    rule.changes(current)  # a refused password is refused before the page is fetched
    generated = generate(current["url"], account_id) if fields.results == 1 else {}

    def change(current: dict[str, Any]) -> dict[str, Any]:
        password, removed = rule.changes(current)
        record = {k: v for k, v in current.items() if k not in removed}
        record.update(generated, **password)
        record.setdefault("share_id", new_share_id())
        if fields.privacy is not None:
            record["privacy"] = fields.privacy
        record["updated_at"] = clock.after(current["updated_at"])
        return record

    record = stored_reports.update_with_project(account_id, report_id, change)
    if record is None:
        raise errors.NotFound()
    return show(record, base_url)


def delete(account_id: str, report_id: int) -> None:
    """Delete the report; its project goes with its last report."""
    if stored_reports.delete_with_project(account_id, report_id, clock.now_iso()) is None:
        raise errors.NotFound()


def list_page(account_id: str, query: ReportListQuery, base_url: str) -> listing.Page:
    return listing.list_page(
        stored_reports.COLLECTION,
        account_id,
        query,
        query.sort_by,
        lambda record: show(record, base_url),
    )


def every_record(
    account_id: str, query: ReportListQuery, base_url: str
) -> Iterator[dict[str, Any]]:
    """Every report of the list, in its order and with its filters (an export)."""
    return listing.every_record(
        lambda token: list_page(
            account_id,
            query.model_copy(update={"cursor": token, "per_page": listing.EXPORT_PAGE}),
            base_url,
        )
    )
