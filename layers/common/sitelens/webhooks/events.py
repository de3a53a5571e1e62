"""Sending an event to the endpoints that want it: those of the account, enabled,
subscribed to its type, and reaching its website or project (an event of neither, about
the account's keys, goes only to endpoints over the whole account)."""

from __future__ import annotations

from typing import Any

from sitelens.core import metrics, scopes
from sitelens.core.log import logger
from sitelens.data import webhooks as stored
from sitelens.webhooks import endpoints, outbox, registry
from sitelens.webhooks.registry import EventType, Reach


def emit(
    account_id: str,
    event: EventType,
    data: dict[str, Any],
    website: int | None = None,
    project: str | None = None,
) -> int:
    """Queue a delivery of a registered event to each endpoint that wants it; how many.
    Its reach says what it is about: a website's event takes `website`, a project's
    `project` (None: the account's endpoints over all projects), an account's neither.
    Never fails the request that caused the event: a failure (a payload not its model's
    among them) is logged and counted, and the event is lost."""
    if registry.EVENTS.get(event.name) is not event or event.reach is Reach.ENDPOINT:
        raise ValueError(f"{event.name} is not an event emit sends")
    if (website is not None) != (event.reach is Reach.WEBSITE) or (
        project is not None and event.reach is not Reach.PROJECT
    ):
        raise ValueError(f"{event.name} reaches {event.reach}: website={website} project={project}")
    event_type = event.name
    try:
        event.check(data)
        queued = 0
        body = None
        for endpoint in stored.endpoints(account_id):
            if not endpoint.get("enabled") or event_type not in endpoint["events"].split(","):
                continue
            reach = endpoints.reach(endpoint)
            if website is not None:
                wanted = reach.sees_website(website)
            elif project is not None:
                wanted = reach.sees_project(project)
            else:
                wanted = not reach.limited
            if wanted:
                body = body or outbox.body_of(event_type, data)
                outbox.queue(account_id, str(endpoint["id"]), event_type, body)
                queued += 1
        return queued
    except Exception:
        logger.exception("webhook event not queued", extra={"event": event_type})
        metrics.count("WebhookEventsNotQueued")
        return 0


REPORT_FIELDS = ("id", "url", "project", "result", "score", "generated_at")  # not its results


def report_completed(account_id: str, report: dict[str, Any]) -> int:
    """`report.completed` for a report generated (created, or generated again)."""
    data = {name: report.get(name) for name in REPORT_FIELDS}
    return emit(account_id, registry.REPORT_COMPLETED, data, project=report.get("project"))


def audit_finished(account_id: str, audit: dict[str, Any], summary: dict[str, Any]) -> int:
    """`audit.completed` for a run that finished, and `audit.regressed` too when the run
    regressed (`audits.history.regression`); to endpoints reaching the project of the
    audit's URL, as a report's. How many deliveries were queued."""
    url = str(audit.get("url", ""))
    data = {
        "id": int(audit["audit"]) if "audit" in audit else audit.get("id"),
        "url": url,
        **{name: summary.get(name) for name in AUDIT_RUN_FIELDS},
    }
    project = scopes.project_of(url)
    queued = emit(account_id, registry.AUDIT_COMPLETED, data, project=project)
    if summary.get("regression"):
        queued += emit(account_id, registry.AUDIT_REGRESSED, data, project=project)
    return queued


# A finished run's summary as sent: its issue counts by severity and the change from the
# run before (None for the first run), not its pages or issues (the API has them).
AUDIT_RUN_FIELDS = (
    "run",
    "status",
    "started_at",
    "finished_at",
    "pages",
    "score",
    "issues",
    "diff",
    "regression",
    "regression_reasons",
)
