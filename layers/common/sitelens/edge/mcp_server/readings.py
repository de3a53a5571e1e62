"""What the server offers besides tools: resources to read (a website's dashboard summary,
an audit's latest run) and prompts that set an assistant to work with the tools."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sitelens import websites
from sitelens.analytics import dashboard
from sitelens.analytics.inputs import SharePeriod
from sitelens.audits import records as audits
from sitelens.core import errors
from sitelens.edge.mcp_server.calls import Route, caller

WEBSITE = Route("GET", "/api/v1/websites/{id}")
AUDIT = Route("GET", "/api/v1/audits/{id}")


@dataclass(frozen=True)
class Reading:
    """A resource template: its URI's pattern, a name, what it holds, and how it is read."""

    uri_template: str
    name: str
    description: str

    @property
    def pattern(self) -> re.Pattern[str]:
        ids = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[0-9]{1,15})", re.escape(self.uri_template))
        return re.compile(f"^{ids}$")


DASHBOARD = Reading(
    "sitelens://websites/{website_id}/dashboard",
    "Website dashboard",
    "A website's dashboard of the last 30 days, as its share page shows it: totals, a daily "
    "series, top sources, pages, countries and devices, goals, and visitors now.",
)
LATEST_RUN = Reading(
    "sitelens://audits/{audit_id}/latest-run",
    "Audit's latest run",
    "An audit with its latest run: status, progress, score, issue counts and the runs before.",
)
READINGS = (DASHBOARD, LATEST_RUN)


def read(uri: str) -> dict[str, Any]:
    """The resource at `uri`; 404 for a URI no template matches, or a record out of reach."""
    for reading in READINGS:
        found = reading.pattern.match(uri)
        if found is None:
            continue
        record_id = int(next(iter(found.groupdict().values())))
        if reading is DASHBOARD:
            return _dashboard(record_id)
        return _latest_run(record_id)
    raise errors.NotFound()


def _dashboard(website_id: int) -> dict[str, Any]:
    WEBSITE.permit({"id": str(website_id)})
    record = websites.stored(caller().account_id, website_id)
    first, last = SharePeriod.parse({}).days(record.get("timezone") or "UTC")
    figures = dashboard.of_website(caller().account_id, record, first, last)
    summary = {"website": websites.show(record), "from": str(first), "to": str(last)}
    return {**summary, **figures}


def _latest_run(audit_id: int) -> dict[str, Any]:
    AUDIT.permit({"id": str(audit_id)})
    account = caller().account_id
    audit = audits.get(account, audit_id, caller().base_url)
    runs = audits.runs(account, audit_id)
    return {"audit": audit, "latest_run": runs[0] if runs else None, "runs": runs[1:]}


@dataclass(frozen=True)
class Prompt:
    name: str
    title: str
    description: str
    argument: str  # the one argument: the id of what it is about
    argument_description: str
    text: str  # with `{id}` where the argument goes


PROMPTS = (
    Prompt(
        "weekly_traffic_review",
        "Weekly traffic review",
        "Review a website's last 7 days against the 7 before: what moved, and why.",
        "website_id",
        "The website's id (list_websites lists them).",
        "Review the traffic of website {id} for the last 7 days.\n"
        "1. Call query_stats with site_id {id}, metrics visitors, visits, pageviews, "
        'bounce_rate and visit_duration, date_range "7d" and include '
        '{{"comparisons": {{"mode": "previous_period"}}}}: the totals and their change.\n'
        '2. Call query_stats again with dimensions ["visit:source"] and then '
        '["event:page"] (order_by [["visitors", "desc"]], pagination limit 10): '
        "where visitors came from and what they read.\n"
        "3. Call list_goals and, if it has any, query_stats with metrics events and "
        'conversion_rate and dimensions ["event:goal"].\n'
        "4. Call list_annotations for what happened on the site in the week.\n"
        "Write a short review: the headline numbers and their change, the sources and pages "
        "that explain it, goals, and one or two things worth doing next.",
    ),
    Prompt(
        "what_broke_since_last_audit",
        "What broke since the last audit",
        "Compare an audit's latest run with the run before: new issues, regressions, and the "
        "pages that changed.",
        "audit_id",
        "The audit's id.",
        "Find what broke on the site of audit {id} since its previous run.\n"
        "1. Read the resource sitelens://audits/{id}/latest-run (or call get_audit {id}): "
        "the latest run's number, status, score and issue counts, and the runs before.\n"
        "2. If the latest run is done and has a run before it, call audit_diff with audit_id "
        "{id} and that run: pages added, removed, or whose status, title, canonical or "
        "indexability changed (follow meta.next_cursor for more).\n"
        "3. Call audit_issues with audit_id {id} for the latest run's issues, and compare with "
        "the previous run's (audit_issues with its run number).\n"
        "Report what got worse: new or grown issues with their pages, pages that now fail or "
        "stopped being indexable, and the score's change; then what got better, briefly.",
    ),
)


def prompt(name: str, arguments: dict[str, str]) -> tuple[Prompt, str]:
    """A prompt's text for its argument; 404 for an unknown prompt, 422 without its id."""
    found = next((p for p in PROMPTS if p.name == name), None)
    if found is None:
        raise errors.NotFound()
    value = str(arguments.get(found.argument, "")).strip()
    if not value.isdigit() or int(value) < 1:
        sentence = f"The {found.argument.replace('_', ' ')} field must be a record id."
        raise errors.Invalid.field(found.argument, sentence)
    return found, found.text.format(id=int(value))
