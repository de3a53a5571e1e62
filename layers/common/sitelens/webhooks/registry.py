"""The webhook events, one registry: each event's name, the model of its `data`, when it is
sent and its reach (which endpoints may receive it). `events.emit` takes only these, an
endpoint subscribes only to these (`inputs`), and `make openapi` writes the documents'
`webhooks` section and the docs' table of events from them (`catalog`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict


class Reach(StrEnum):
    """Which endpoints an event may go to, beside being enabled and subscribed to it."""

    WEBSITE = "website"  # those whose websites include the event's (or all of them)
    PROJECT = "project"  # those whose projects include the event's (or all of them)
    ACCOUNT = "account"  # those over the whole account only (no `websites`, no `projects`)
    ENDPOINT = "endpoint"  # the one endpoint it is about, whatever it subscribes to


REACH_SENTENCES = {
    Reach.WEBSITE: "the website",
    Reach.PROJECT: "its project",
    Reach.ACCOUNT: "the whole account (no `websites`/`projects`)",
    Reach.ENDPOINT: "that endpoint only",
}


# Each model's validator is built when first used, not at import: a handler that only reads
# the event names (webhooks.inputs) does not pay for every payload's schema at cold start.
class Payload(BaseModel):
    """An event's `data`: exactly these fields."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class Shown(BaseModel):
    """A record as the API shows it (`id` and its other fields)."""

    model_config = ConfigDict(extra="allow", defer_build=True)
    id: int


class WebsiteShown(Shown):
    """The website, as `GET /api/v1/websites/{id}` shows it."""


class KeyShown(Shown):
    """The key as `GET /api/v1/keys` shows it, never its secret."""


class Deleted(Payload):
    """The id of what is gone."""

    id: int


class ReportCompleted(Payload):
    """A generated report's summary, not its results (the API has them)."""

    id: int
    url: str
    project: str | None
    result: str | None
    score: int | float | None
    generated_at: str | None


class TrafficChanged(Payload):
    """An hour's pageviews against its baseline (docs/traffic-alerts.md)."""

    website_id: int
    domain: str | None
    hour: str
    pageviews: int
    baseline: float
    threshold: float


class AuditRun(Payload):
    """A finished run of an audit: its issue counts by severity and the change from the run
    before (null for the first run), not its pages or issues (the API has them)."""

    id: int | None
    url: str
    run: int | None
    status: str | None
    started_at: str | None
    finished_at: str | None
    pages: int | None
    score: int | float | None
    issues: dict[str, Any] | None
    diff: dict[str, Any] | None
    regression: bool | None
    regression_reasons: list[Any] | None = None


class GoalConversions(BaseModel):
    """One goal's conversions in the minute; `revenue` by currency for a revenue goal."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    id: int
    name: str | None
    conversions: int
    revenue: dict[str, float] | None


class GoalConverted(Payload):
    """A website's goals that converted in one minute (UTC)."""

    website_id: int
    domain: str
    minute: str
    goals: list[GoalConversions]


class EndpointPinged(Payload):
    endpoint: int


class EndpointDisabled(Payload):
    """An endpoint of the account disabled because every delivery failed for over a day."""

    endpoint: int
    url: str
    disabled_reason: str
    failing_since: str
    disabled_at: str


@dataclass(frozen=True)
class EventType:
    """A registered event: `emit` and the generated contract read only these."""

    name: str
    payload: type[BaseModel]
    reach: Reach
    when: str  # a sentence of the docs' table: when it is sent
    subscribable: bool = True  # `webhook.test` is sent on request only

    def check(self, data: dict[str, Any]) -> None:
        """Raise pydantic's ValidationError when `data` is not this event's payload."""
        self.payload.model_validate(data)


WEBSITE_CREATED = EventType("website.created", WebsiteShown, Reach.WEBSITE, "a website is created")
WEBSITE_DELETED = EventType("website.deleted", Deleted, Reach.WEBSITE, "a website is deleted")
KEY_CREATED = EventType("key.created", KeyShown, Reach.ACCOUNT, "a key is created through the API")
KEY_REVOKED = EventType("key.revoked", Deleted, Reach.ACCOUNT, "a key is revoked through the API")
REPORT_COMPLETED = EventType(
    "report.completed",
    ReportCompleted,
    Reach.PROJECT,
    "a report is generated (created, or updated with `results=1`)",
)
TRAFFIC_SPIKE = EventType(
    "traffic.spike",
    TrafficChanged,
    Reach.WEBSITE,
    "the first hour of a spike of a website's pageviews ([traffic-alerts.md](traffic-alerts.md))",
)
TRAFFIC_DROP = EventType(
    "traffic.drop",
    TrafficChanged,
    Reach.WEBSITE,
    "the first hour of a drop of a website's pageviews ([traffic-alerts.md](traffic-alerts.md))",
)
AUDIT_COMPLETED = EventType(
    "audit.completed",
    AuditRun,
    Reach.PROJECT,
    "a site audit's run finishes ([audits.md](audits.md)); the project is its URL's",
)
AUDIT_REGRESSED = EventType(
    "audit.regressed",
    AuditRun,
    Reach.PROJECT,
    "a run that regressed under the audit's `regression` settings "
    "([audits.md](audits.md#regressions)), with `regression_reasons`; after its "
    "`audit.completed`",
)
GOAL_CONVERTED = EventType(
    "goal.converted",
    GoalConverted,
    Reach.WEBSITE,
    "a website's goals converted in a minute (UTC): at most one delivery per website and "
    "minute, about 1 to 2 minutes after it ends ([below](#goalconverted-batched-per-minute))",
)
WEBHOOK_DISABLED = EventType(
    "webhook.disabled",
    EndpointDisabled,
    Reach.ACCOUNT,
    "another endpoint of the account is disabled, every delivery to it failed for over 24 "
    "hours ([below](#delivery-retries-and-disabling))",
)
WEBHOOK_TEST = EventType(
    "webhook.test", EndpointPinged, Reach.ENDPOINT, "`POST .../test`", subscribable=False
)

EVENTS: dict[str, EventType] = {
    event.name: event
    for event in (
        WEBSITE_CREATED,
        WEBSITE_DELETED,
        KEY_CREATED,
        KEY_REVOKED,
        REPORT_COMPLETED,
        TRAFFIC_SPIKE,
        TRAFFIC_DROP,
        AUDIT_COMPLETED,
        AUDIT_REGRESSED,
        GOAL_CONVERTED,
        WEBHOOK_DISABLED,
        WEBHOOK_TEST,
    )
}
SUBSCRIBABLE = tuple(name for name, event in EVENTS.items() if event.subscribable)
