"""The SEO API's operations as tools: page reports (create, get, list) and site audits (start,
read, their issues and the change list between runs). Each calls what its route's handler
calls and answers with that route's body."""

from __future__ import annotations

from typing import Any, Literal

from sitelens import reports
from sitelens.audits import changes, results
from sitelens.audits import records as audits
from sitelens.audits.inputs import AuditChangesQuery, AuditCreate, AuditIssuesQuery
from sitelens.edge.mcp_server.calls import RecordId, Route, Tool, caller, page_of, shown
from sitelens.records import listing
from sitelens.records.inputs import Cursor, Input, PerPage
from sitelens.reports.inputs import ReportCreate, ReportListQuery
from sitelens.webhooks import events


class OfReport(Input):
    report_id: RecordId


class OfAudit(Input):
    audit_id: RecordId


class ListReports(ReportListQuery):
    """`GET /api/v1/reports`'s query: a page of reports, then `cursor` for the next."""

    format: Literal["json"] = "json"  # CSV is a file for people, not an answer for tools


class AuditIssues(AuditIssuesQuery, OfAudit):
    """A run's issues (the last run by default); with `code`, that issue and a page of its
    pages with their reasons."""

    format: Literal["json"] = "json"


class AuditDiff(AuditChangesQuery, OfAudit):
    """The pages that changed in run `run`, against the run before (or run `against`), in
    URL order, a page at a time."""

    run: RecordId
    per_page: PerPage = 50
    cursor: Cursor | None = None


def _audit(fields: OfAudit) -> dict[str, str]:
    return {"id": str(fields.audit_id)}


REPORTS = Route("GET", "/api/v1/reports")
NEW_REPORT = Route("POST", "/api/v1/reports")
REPORT = Route("GET", "/api/v1/reports/{id}")
NEW_AUDIT = Route("POST", "/api/v1/audits")
AUDIT = Route("GET", "/api/v1/audits/{id}")
ISSUES = Route("GET", "/api/v1/audits/{id}/issues")
CHANGES = Route("GET", "/api/v1/audits/{id}/runs/{run}/changes.csv")


def create_report(fields: ReportCreate) -> dict[str, Any]:
    NEW_REPORT.permit({})
    account = caller().account_id
    record = reports.create(account, fields, caller().base_url)
    events.report_completed(account, record)
    return shown(record, 201)


def get_report(fields: OfReport) -> dict[str, Any]:
    REPORT.permit({"id": str(fields.report_id)})
    return shown(reports.get(caller().account_id, fields.report_id, caller().base_url))


def list_reports(fields: ListReports) -> dict[str, Any]:
    REPORTS.permit({}, fields.filters())
    page = reports.list_page(caller().account_id, fields, caller().base_url)
    return page_of(REPORTS, {}, page)


def start_audit(fields: AuditCreate) -> dict[str, Any]:
    NEW_AUDIT.permit({})
    return shown(audits.create(caller().account_id, fields, caller().base_url), 201)


def get_audit(fields: OfAudit) -> dict[str, Any]:
    AUDIT.permit(_audit(fields))
    return shown(audits.get(caller().account_id, fields.audit_id, caller().base_url))


def audit_issues(fields: AuditIssues) -> dict[str, Any]:
    ISSUES.permit(_audit(fields))
    if fields.code is not None:
        return shown(results.issue_pages(caller().account_id, fields.audit_id, fields))
    return shown(results.issues(caller().account_id, fields.audit_id, fields))


def audit_diff(fields: AuditDiff) -> dict[str, Any]:
    path = {**_audit(fields), "run": str(fields.run)}
    CHANGES.permit(path)
    account = caller().account_id
    rows = list(changes.between(account, fields.audit_id, fields.run, fields.against))
    params = {"run": fields.run, "against": fields.against, "per_page": fields.per_page}
    bound_to = listing.binding(account, f"audit-changes#{fields.audit_id}", params)
    page = listing.rows_page(
        rows, lambda row: [row["url"]], False, fields.per_page, fields.cursor, bound_to, params, {}
    )
    return page_of(CHANGES, path, page)


READ_ONLY = {"readOnlyHint": True}
# Fetching a page or a site reaches the open web.
OUTWARD = {"readOnlyHint": False, "openWorldHint": True}
TOOLS = (
    Tool(
        "create_report",
        "Fetch a page and check its SEO now (title, description, headings, links, "
        "structured data...): the report with its score and every check's result.",
        NEW_REPORT,
        ReportCreate,
        create_report,
        "Create a page report",
        OUTWARD,
    ),
    Tool("get_report", "One page report.", REPORT, OfReport, get_report, "Get a report", READ_ONLY),
    Tool(
        "list_reports",
        "A page of the account's page reports; pass `meta.next_cursor` back as `cursor`.",
        REPORTS,
        ListReports,
        list_reports,
        "List reports",
        READ_ONLY,
    ),
    Tool(
        "start_audit",
        "Start a site audit: crawl a site from `url` and check every page; read its progress "
        "with `get_audit`, then its issues with `audit_issues`.",
        NEW_AUDIT,
        AuditCreate,
        start_audit,
        "Start an audit",
        OUTWARD,
    ),
    Tool(
        "get_audit",
        "An audit: its settings, its run's status and progress, its last score and issues.",
        AUDIT,
        OfAudit,
        get_audit,
        "Get an audit",
        READ_ONLY,
    ),
    Tool(
        "audit_issues",
        "A run's issues, most severe first, with the pages each affects.",
        ISSUES,
        AuditIssues,
        audit_issues,
        "Audit issues",
        READ_ONLY,
    ),
    Tool(
        "audit_diff",
        "What changed in a run against the run before: pages added, removed, or whose status, "
        "title, canonical, indexability, word count or depth changed.",
        CHANGES,
        AuditDiff,
        audit_diff,
        "Audit changes",
        READ_ONLY,
    ),
)
