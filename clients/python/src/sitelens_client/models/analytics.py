"""Models of openapi/analytics.yaml, written by
clients/python/scripts/generate_models.py: not by hand."""

from __future__ import annotations

from typing import Any, TypeAlias

from pydantic import Field

from sitelens_client.models.base import SitelensModel


class Workspace(SitelensModel):
    id: int
    name: str
    created_at: Timestamp


class WorkspaceEnvelope(SitelensModel):
    data: Workspace
    status: int


class WorkspaceListEnvelope(SitelensModel):
    data: list[Workspace]
    links: Links
    meta: Meta
    status: int


class Usage(SitelensModel):
    websites: int
    pageviews: int
    custom_events: int
    billable_events: int


class AccountUsage(SitelensModel):
    id: int
    name: str
    websites: int
    pageviews: int
    custom_events: int
    billable_events: int


class UsageEnvelope(SitelensModel):
    data: UsageEnvelopeData
    status: int


class UsageEnvelopeData(SitelensModel):
    month: str
    first_day: str
    last_day: str
    account: AccountUsage
    workspaces: list[AccountUsage]
    total: Usage


class WorkspaceCreateForm(SitelensModel):
    name: str


class Member(SitelensModel):
    id: int
    email: str | None
    role: Role
    created_at: Timestamp
    invited_by: int | None


class MemberEnvelope(SitelensModel):
    data: Member
    status: int


class MemberListEnvelope(SitelensModel):
    data: list[Member]
    links: Links
    meta: Meta
    status: int


class MemberJoinedEnvelope(SitelensModel):
    data: MemberJoinedEnvelopeData
    status: int


class MemberJoinedEnvelopeData(SitelensModel):
    id: int
    email: str
    role: Role
    created_at: Timestamp
    invited_by: int | None
    key: KeyCreated


class Invitation(SitelensModel):
    id: int
    object: str
    email: str
    role: Role
    invited_by: int | None
    created_at: Timestamp
    expires_at: Timestamp


class InvitationEnvelope(SitelensModel):
    data: Invitation
    status: int


class InvitationListEnvelope(SitelensModel):
    data: list[Invitation]
    links: Links
    meta: Meta
    status: int


class InvitationShownEnvelope(SitelensModel):
    data: InvitationShownEnvelopeData
    status: int


class InvitationShownEnvelopeData(SitelensModel):
    id: int
    object: str
    email: str
    role: Role
    invited_by: int | None
    created_at: Timestamp
    expires_at: Timestamp
    account: str


class MemberInviteForm(SitelensModel):
    email: str
    role: Role


class MemberUpdateForm(SitelensModel):
    role: Role


class InvitationTokenForm(SitelensModel):
    token: str | None = None


class AuditLogEntry(SitelensModel):
    at: Timestamp
    action: str
    actor: AuditLogEntryActor
    target: str


class AuditLogEntryActor(SitelensModel):
    member: int
    key: int
    agency: int | None


class AuditLogEnvelope(SitelensModel):
    data: list[AuditLogEntry]
    links: Links
    meta: Meta
    status: int


class RecipientForm(SitelensModel):
    email: str
    segment: int | str | None = None


class Recipient(SitelensModel):
    id: str
    object: str
    email: str
    confirmed: bool
    created_at: str
    confirmed_at: str | None
    segment: int | None


class RecipientEnvelope(SitelensModel):
    data: Recipient
    status: int


class RecipientList(SitelensModel):
    data: list[Recipient]
    status: int


class RecipientDeleted(SitelensModel):
    id: str
    object: str
    deleted: bool
    status: int


class Webhook(SitelensModel):
    id: int
    url: str
    description: str
    events: list[str]
    websites: list[int] | None
    projects: list[str] | None
    enabled: bool
    disabled_reason: str | None
    failing_since: Timestamp | None
    created_at: Timestamp
    updated_at: Timestamp
    secret_rotated_at: Timestamp | None
    previous_secret_expires_at: Timestamp | None


class WebhookCreated(SitelensModel):
    id: int
    url: str
    description: str
    events: list[str]
    websites: list[int] | None
    projects: list[str] | None
    enabled: bool
    disabled_reason: str | None
    failing_since: Timestamp | None
    created_at: Timestamp
    updated_at: Timestamp
    secret_rotated_at: Timestamp | None
    previous_secret_expires_at: Timestamp | None
    secret: str


class WebhookEnvelope(SitelensModel):
    data: Webhook
    status: int


class WebhookCreatedEnvelope(SitelensModel):
    data: WebhookCreated
    status: int


class WebhookListEnvelope(SitelensModel):
    data: list[Webhook]
    status: int


class WebhookDelivery(SitelensModel):
    id: str
    event: str
    state: str
    attempts: int
    last_status: int | None
    last_error: str | None
    last_answer: str | None
    last_attempt_at: Timestamp | None
    next_attempt_at: Timestamp | None
    created_at: Timestamp
    payload: dict[str, Any]


class WebhookDeliveryEnvelope(SitelensModel):
    data: WebhookDelivery
    status: int


class WebhookDeliveryListEnvelope(SitelensModel):
    data: list[WebhookDelivery]
    links: Links
    meta: Meta
    status: int


class WebhookCreateForm(SitelensModel):
    url: str
    events: list[str] | str
    description: str | None = None
    websites: list[int] | str | None = None
    projects: list[Host] | HostList | None = None


class WebhookUpdateForm(SitelensModel):
    url: str | None = None
    events: list[str] | str | None = None
    description: str | None = None
    websites: list[int] | str | None = None
    projects: list[Host] | HostList | None = None
    enabled: int | None = None


class KeyScopes(SitelensModel):
    access: str
    websites: list[int] | None
    projects: list[str] | None


class Key(SitelensModel):
    id: int
    name: str
    prefix: str
    scopes: KeyScopes
    member: int
    rate_limit: int | None
    created_at: Timestamp
    last_used_at: Timestamp | None
    expires_at: Timestamp | None
    rotated_at: Timestamp | None
    previous_expires_at: Timestamp | None


class KeyCreated(SitelensModel):
    """A key as `Key` shows it, with its secret."""

    id: int
    name: str
    prefix: str
    scopes: KeyScopes
    member: int
    rate_limit: int | None
    created_at: Timestamp
    last_used_at: Timestamp | None
    expires_at: Timestamp | None
    rotated_at: Timestamp | None
    previous_expires_at: Timestamp | None
    key: str


class KeyEnvelope(SitelensModel):
    data: Key
    status: int


class KeyCreatedEnvelope(SitelensModel):
    data: KeyCreated
    status: int


class KeyListEnvelope(SitelensModel):
    data: list[Key]
    links: Links
    meta: Meta
    status: int


class GuestLink(SitelensModel):
    """A guest link of a read key (docs/guests.md), never with its token."""

    id: int
    key_id: int
    record: GuestLinkRecord
    created_at: Timestamp
    expires_at: Timestamp


class GuestLinkRecord(SitelensModel):
    """The share view the link opens first."""

    type: str
    id: int


class GuestLinkCreated(SitelensModel):
    """A new guest link, with its URL and token this once."""

    id: int
    key_id: int
    record: GuestLinkCreatedRecord
    created_at: Timestamp
    expires_at: Timestamp
    url: str
    token: str


class GuestLinkCreatedRecord(SitelensModel):
    """The share view the link opens first."""

    type: str
    id: int


class GuestLinkCreatedEnvelope(SitelensModel):
    data: GuestLinkCreated
    status: int


class GuestLinkListEnvelope(SitelensModel):
    data: list[GuestLink]
    links: Links
    meta: Meta
    status: int


class GuestLinkForm(SitelensModel):
    """Exactly one of `website`, `report` and `audit`, within the key's reach."""

    website: int | None = None
    report: int | None = None
    audit: int | None = None
    expires_at: str | None = None


class KeyCreateForm(SitelensModel):
    name: str
    access: str | None = None
    websites: list[int] | str | None = None
    projects: list[Host] | HostList | None = None
    expires_at: str | None = None
    rate_limit: int | None = None


class KeyRotateForm(SitelensModel):
    overlap: int | None = None


class ShareGrant(SitelensModel):
    token: str
    expires_at: Timestamp


class ShareGrantEnvelope(SitelensModel):
    data: ShareGrant
    status: int


class Unlock(SitelensModel):
    password: str


class Error(SitelensModel):
    message: str
    status: int


class ValidationError(SitelensModel):
    message: dict[str, list[str]]
    status: int


class Links(SitelensModel):
    """Complete URLs of the pages before and after this one, repeating every list parameter;
    `null` where there is none. `first` and `last` are always `null`.
    """

    first: None
    last: None
    prev: str | None
    next: str | None


class Meta(SitelensModel):
    path: str
    per_page: int
    next_cursor: str | None
    prev_cursor: str | None


class Deleted(SitelensModel):
    id: int
    object: str
    deleted: bool
    status: int


class Account(SitelensModel):
    id: int
    name: str
    email: str | None
    digest: str
    created_at: Timestamp


class AccountEnvelope(SitelensModel):
    data: Account
    status: int


class Website(SitelensModel):
    id: int
    domain: str
    privacy: int
    password: bool
    email: int
    exclude_bots: int
    exclude_params: str
    exclude_ips: str
    timezone: str
    traffic_alerts: int
    favorite: bool
    favorited_at: Timestamp | None
    verified: bool
    verified_at: Timestamp | None
    tracking_from: Timestamp | None
    released_at: Timestamp | None
    created_at: Timestamp
    updated_at: Timestamp


class DomainVerification(SitelensModel):
    domain: str


class DomainCheck(SitelensModel):
    domain: str
    url: str | None = None
    method: str | None = None


class DomainInstructions(SitelensModel):
    domain: str
    token: str
    dns: DomainInstructionsDns
    file: DomainInstructionsFile
    meta: DomainInstructionsMeta
    created_at: Timestamp


class DomainInstructionsDns(SitelensModel):
    type: str
    names: list[str]
    value: str


class DomainInstructionsFile(SitelensModel):
    url: str
    content: str


class DomainInstructionsMeta(SitelensModel):
    tag: str


class DomainInstructionsEnvelope(SitelensModel):
    data: DomainInstructions
    status: int


class WebsiteEnvelope(SitelensModel):
    data: Website
    status: int


class WebsiteList(SitelensModel):
    data: list[Website]
    links: Links
    meta: Meta
    status: int


class WebsiteCreate(SitelensModel):
    domain: str
    privacy: int | None = None
    password: str | None = None
    email: int | None = None
    exclude_bots: int | None = None
    exclude_params: str | None = None
    exclude_ips: str | None = None
    timezone: TimeZone | None = None
    traffic_alerts: int | None = None


class WebsiteUpdate(SitelensModel):
    """Only the fields sent change."""

    domain: str | None = None
    privacy: int | None = None
    password: str | None = None
    email: int | None = None
    exclude_bots: int | None = None
    exclude_params: str | None = None
    exclude_ips: str | None = None
    timezone: TimeZone | None = None
    traffic_alerts: int | None = None
    favorite: int | None = None


class Annotation(SitelensModel):
    id: int
    website_id: int
    date: str
    text: str
    link: str | None
    created_at: Timestamp
    updated_at: Timestamp


class AnnotationMark(SitelensModel):
    id: int
    website_id: int
    date: str
    text: str
    link: str | None
    bucket: str


class AnnotationEnvelope(SitelensModel):
    data: Annotation
    status: int


class AnnotationList(SitelensModel):
    data: list[Annotation]
    status: int


class AnnotationCreate(SitelensModel):
    """422 also for a day or time that does not exist (or of a year before 1970), a text of white
    space only, and a link without a host.
    """

    date: str
    text: str
    link: str | None = None


class AnnotationUpdate(SitelensModel):
    date: str | None = None
    text: str | None = None
    link: str | None = None


class AnnotationDeleted(SitelensModel):
    id: int
    object: str
    deleted: bool
    status: int


class Goal(SitelensModel):
    id: int
    website_id: int
    goal_type: str
    event_name: str | None
    page_path: str | None
    display_name: str
    custom_props: dict[str, str] | None = None
    currency: str | None = None
    created_at: Timestamp
    updated_at: Timestamp


class BackfillBatch(SitelensModel):
    events: list[BackfillBatchEventsItem]


class BackfillBatchEventsItem(SitelensModel):
    id: str
    timestamp: str
    page: str
    referrer: str | None = None
    name: str | None = None
    props: dict[str, Any] | None = None
    visitor: str | None = None
    user_agent: str | None = None
    screen_resolution: str | None = None


class ExportCreate(SitelensModel):
    from_: str = Field(alias="from")
    to: str
    format: str | None = None
    delivery: ExportCreateDelivery | None = None


class ExportCreateDelivery(SitelensModel):
    role_arn: str
    bucket: str
    prefix: str | None = None


class Export(SitelensModel):
    id: int
    website_id: int
    from_: str = Field(alias="from")
    to: str
    format: str
    status: str
    progress: float
    rows: int
    schema_version: int
    url: str | None
    path: str | None
    error: str | None
    delivery: ExportDelivery | None = None
    created_at: str
    updated_at: str


class ExportDelivery(SitelensModel):
    role_arn: str | None = None
    bucket: str | None = None
    prefix: str | None = None
    external_id: str | None = None
    key: str | None = None


class SearchConsoleConnect(SitelensModel):
    """`property` and exactly one of `refresh_token` or `service_account_key`."""

    property: str
    refresh_token: str | None = None
    service_account_key: SearchConsoleConnectServiceAccountKey | str | None = None


class SearchConsoleConnectServiceAccountKey(SitelensModel):
    type: str
    client_email: str
    private_key: str


class SearchConsole(SitelensModel):
    website_id: int
    property: str
    method: str
    client_email: str | None
    connected_at: Timestamp
    last_import: SearchConsoleLastImport


class SearchConsoleLastImport(SitelensModel):
    status: str
    error: str | None
    requested_at: str | None
    finished_at: str | None
    resume_after: str | None
    imported_through: str | None
    rows: int
    days: int


class SearchConsoleEnvelope(SitelensModel):
    data: SearchConsole
    status: int


class LogSource(SitelensModel):
    role_arn: str
    bucket: str
    prefix: str | None = None
    format: str | None = None
    fields_: str | None = Field(None, alias="fields")


class LogUploadEnvelope(SitelensModel):
    data: LogUploadEnvelopeData
    status: int


class LogUploadEnvelopeData(SitelensModel):
    lines: int
    crawls: int
    humans: int
    other_hosts: int
    malformed: int
    verification: dict[str, int]
    families: dict[str, int]


class ExportEnvelope(SitelensModel):
    data: Export
    status: int


class ImportCreate(SitelensModel):
    format: str | None = None
    source: ImportCreateSource | None = None


class ImportCreateSource(SitelensModel):
    role_arn: str
    bucket: str
    key: str


class Import(SitelensModel):
    id: int
    website_id: int
    format: str | None
    status: str
    progress: float
    rows: int
    from_: str | None = Field(alias="from")
    to: str | None
    tables: list[str]
    filename: str | None
    source: ImportSource | None
    error: str | None
    created_at: str
    updated_at: str


class ImportSource(SitelensModel):
    role_arn: str | None = None
    bucket: str | None = None
    key: str | None = None
    external_id: str | None = None


class ImportEnvelope(SitelensModel):
    data: Import
    status: int


class ImportList(SitelensModel):
    data: list[Import]
    status: int


class ImportDeleted(SitelensModel):
    id: int
    object: str
    deleted: bool
    status: int


class GoalEnvelope(SitelensModel):
    data: Goal
    status: int


class GoalList(SitelensModel):
    data: list[Goal]
    status: int


class GoalCreate(SitelensModel):
    """Exactly one of `event_name` and `page_path`. 422 also for a name of white space only, and
    for an event name, page path or display name another goal of the website has.
    """

    event_name: str | None = None
    page_path: str | None = None
    display_name: str | None = None
    custom_props: dict[str, str] | None = None
    currency: Currency | None = None


class GoalUpdate(SitelensModel):
    display_name: str


class GoalDeleted(SitelensModel):
    id: int
    object: str
    deleted: bool
    status: int


class Funnel(SitelensModel):
    id: int
    website_id: int
    name: str
    steps: list[int]
    created_at: Timestamp
    updated_at: Timestamp


class FunnelEnvelope(SitelensModel):
    data: Funnel
    status: int


class FunnelList(SitelensModel):
    data: list[Funnel]
    status: int


class FunnelCreate(SitelensModel):
    name: str
    steps: list[int] | str


class FunnelUpdate(SitelensModel):
    name: str | None = None
    steps: list[int] | str | None = None


class FunnelDeleted(SitelensModel):
    id: int
    object: str
    deleted: bool
    status: int


class FunnelQuery(SitelensModel):
    """Either `steps` or `funnel_id` (a saved funnel of the one website asked)."""

    site_id: int | list[int]
    date_range: DateRange
    timezone: TimeZone | None = None
    filters: list[Any] | None = None
    steps: list[str] | None = None
    funnel_id: int | None = None


class FunnelStep(SitelensModel):
    step: int
    goal: str
    visitors: int
    conversion_rate: float
    conversion_rate_step: float
    dropoff: int
    dropoff_percentage: float


class FunnelAnswer(SitelensModel):
    steps: list[FunnelStep]
    meta: FunnelAnswerMeta
    query: dict[str, Any]


class FunnelAnswerMeta(SitelensModel):
    all_visitors: int
    entering_visitors: int
    entering_visitors_percentage: float
    never_entering_visitors: int
    conversion_rate: float


class Segment(SitelensModel):
    id: int
    website_id: int
    name: str
    filters: list[list[Any]]
    created_at: Timestamp
    updated_at: Timestamp


class SegmentEnvelope(SitelensModel):
    data: Segment
    status: int


class SegmentList(SitelensModel):
    data: list[Segment]
    status: int


class SegmentCreate(SitelensModel):
    name: str
    filters: list[list[Any]] | str


class SegmentUpdate(SitelensModel):
    name: str | None = None
    filters: list[list[Any]] | str | None = None


class SegmentDeleted(SitelensModel):
    id: int
    object: str
    deleted: bool
    status: int


class JourneyQuery(SitelensModel):
    site_id: int | list[int]
    date_range: DateRange
    timezone: TimeZone | None = None
    filters: list[Any] | None = None
    journey: str
    page: str | None = None
    steps: int | None = None
    limit: int | None = None


class JourneyRow(SitelensModel):
    next_page: str | None = None
    transitions: int | None = None
    path: list[str] | None = None
    truncated: bool | None = None
    visitors: int
    visits: int
    percentage: float


class JourneyAnswer(SitelensModel):
    results: list[JourneyRow]
    meta: JourneyAnswerMeta
    query: dict[str, Any]


class JourneyAnswerMeta(SitelensModel):
    total_rows: int


class StatRow(SitelensModel):
    value: str
    count: int


class DashboardFigure(SitelensModel):
    value: float
    previous: float
    change: float | None


class DashboardRow(SitelensModel):
    value: str
    visitors: int
    pageviews: int | None = None
    percentage: float


class ShareDashboardEnvelope(SitelensModel):
    status: int
    data: ShareDashboardEnvelopeData


class ShareDashboardEnvelopeData(SitelensModel):
    date_range: list[str]
    timezone: str
    comparison_date_range: list[str] | None
    totals: ShareDashboardEnvelopeDataTotals
    series: ShareDashboardEnvelopeDataSeries
    annotations: list[AnnotationMark]
    sources: list[DashboardRow]
    pages: list[DashboardRow]
    entry_pages: list[DashboardRow]
    exit_pages: list[DashboardRow]
    countries: list[DashboardRow]
    devices: list[DashboardRow]
    browsers: list[DashboardRow]
    operating_systems: list[DashboardRow]
    events: list[ShareDashboardEnvelopeDataEventsItem]
    goals: list[ShareDashboardEnvelopeDataGoalsItem] | None
    funnels: list[ShareDashboardEnvelopeDataFunnelsItem] | None
    vitals: dict[str, Any] | None
    segment: ShareDashboardEnvelopeDataSegment | None = None
    realtime: ShareDashboardEnvelopeDataRealtime
    computed_at: str


class ShareDashboardEnvelopeDataTotals(SitelensModel):
    visitors: DashboardFigure
    visits: DashboardFigure
    pageviews: DashboardFigure
    views_per_visit: DashboardFigure
    bounce_rate: DashboardFigure
    visit_duration: DashboardFigure


class ShareDashboardEnvelopeDataSeries(SitelensModel):
    days: list[str]
    visitors: list[int]
    visits: list[int]
    pageviews: list[int]


class ShareDashboardEnvelopeDataEventsItem(SitelensModel):
    name: str
    visitors: int
    events: int


class ShareDashboardEnvelopeDataGoalsItem(SitelensModel):
    goal: str
    visitors: int
    events: int
    conversion_rate: float
    total_revenue: MetricValue | None = None
    average_revenue: MetricValue | None = None


class ShareDashboardEnvelopeDataFunnelsItem(SitelensModel):
    id: int
    name: str
    steps: list[FunnelStep]
    all_visitors: int
    entering_visitors: int
    entering_visitors_percentage: float
    never_entering_visitors: int
    conversion_rate: float


class ShareDashboardEnvelopeDataSegment(SitelensModel):
    """Under `?segment=`, the saved segment shown (never its filters)."""

    id: int
    name: str


class ShareDashboardEnvelopeDataRealtime(SitelensModel):
    visitors: int


class RealtimeEnvelope(SitelensModel):
    data: RealtimeEnvelopeData
    status: int


class RealtimeEnvelopeData(SitelensModel):
    visitors: int
    pages: list[StatRow]
    sources: list[StatRow]


class StatList(SitelensModel):
    data: list[StatRow]
    links: Links
    meta: Meta
    status: int


class Query(SitelensModel):
    site_id: int | list[int]
    metrics: list[str]
    date_range: DateRange
    dimensions: list[str] | None = None
    filters: list[list[Any]] | None = None
    order_by: list[list[str]] | None = None
    include: QueryInclude | None = None
    pagination: QueryPagination | None = None
    timezone: TimeZone | None = None


class QueryInclude(SitelensModel):
    total_rows: bool | None = None
    time_labels: bool | None = None
    annotations: bool | None = None
    imports: bool | None = None
    comparisons: QueryIncludeComparisons | None = None


class QueryIncludeComparisons(SitelensModel):
    mode: str


class QueryPagination(SitelensModel):
    limit: int | None = None
    offset: int | None = None


class QueryAnswer(SitelensModel):
    results: list[QueryAnswerResultsItem]
    meta: QueryAnswerMeta
    query: dict[str, Any]


class QueryAnswerResultsItem(SitelensModel):
    dimensions: list[str]
    metrics: list[MetricValue]
    comparison: QueryAnswerResultsItemComparison | None = None


class QueryAnswerResultsItemComparison(SitelensModel):
    dimensions: list[str]
    metrics: list[MetricValue]
    change: list[float | None]


class QueryAnswerMeta(SitelensModel):
    total_rows: int | None = None
    time_labels: list[str] | None = None
    comparison_date_range: list[str] | None = None
    imports_included: bool | None = None
    imports_skip_reason: str | None = None
    imports_warning: str | None = None
    annotations: list[AnnotationMark] | None = None


class MetricValue1(SitelensModel):
    value: float
    currency: str


class EventForm(SitelensModel):
    page: str
    referrer: str | None = None
    screen_resolution: str | None = None
    engagement_ms: str | None = None
    event_name_: str | None = Field(None, alias="event[name]")
    event_value_: str | None = Field(None, alias="event[value]")
    event_unit_: str | None = Field(None, alias="event[unit]")
    props: str | None = None
    revenue_amount_: str | None = Field(None, alias="revenue[amount]")
    revenue_currency_: Currency | str | None = Field(None, alias="revenue[currency]")
    scroll_depth: str | None = None
    lcp: str | None = None
    inp: str | None = None
    fcp: str | None = None
    ttfb: str | None = None
    cls: str | None = None


class EventJson(SitelensModel):
    page: str
    referrer: str | None = None
    screen_resolution: str | None = None
    engagement_ms: str | int | None = None
    event: EventJsonEvent | None = None
    props: str | dict[str, Any] | None = None
    lcp: str | float | None = None
    inp: str | float | None = None
    cls: str | float | None = None
    fcp: str | float | None = None
    ttfb: str | float | None = None
    scroll_depth: str | int | None = None
    revenue: EventJsonRevenue | None = None


class EventJsonEvent(SitelensModel):
    """A custom event, counted as `name:value:unit` (each part cut to 100 characters); without a
    `name` the hit is a pageview.
    """

    name: str | float | None = None
    value: str | float | None = None
    unit: str | float | None = None


class EventJsonRevenue(SitelensModel):
    """As `revenue[amount]` and `revenue[currency]` of the form."""

    amount: str | float | None = None
    currency: Currency | str | None = None


class Accepted(SitelensModel):
    message: str
    status: int


class PlausibleEvent(SitelensModel):
    """Plausible's event format (its script's and its Events API's), each field by its short or
    long name; other fields (`v`, `w`) are ignored. Read as Sitelens' fields: `u` is `page`,
    `r` is `referrer`, `p` is `props`, `$` is `revenue`, and errors name those.
    """

    n: str | int
    u: str
    d: str | None = None
    r: str | None = None
    p: dict[str, Any] | str | None = None
    dollar: PlausibleEventDollar | None = Field(None, alias="$")
    i: bool | None = None
    h: bool | int | None = None
    e: int | str | None = None
    sd: int | str | None = None


class PlausibleEventDollar(SitelensModel):
    """A custom event's revenue (also `revenue`): `{amount, currency}`."""

    amount: str | float | None = None
    currency: str | None = None


Role: TypeAlias = str


Host: TypeAlias = str


HostList: TypeAlias = str


Timestamp: TypeAlias = str


TimeZone: TypeAlias = str


Currency: TypeAlias = str


DateRange: TypeAlias = str | list[str]


MetricValue: TypeAlias = float | MetricValue1 | None

Workspace.model_rebuild()
WorkspaceEnvelope.model_rebuild()
WorkspaceListEnvelope.model_rebuild()
Usage.model_rebuild()
AccountUsage.model_rebuild()
UsageEnvelope.model_rebuild()
UsageEnvelopeData.model_rebuild()
WorkspaceCreateForm.model_rebuild()
Member.model_rebuild()
MemberEnvelope.model_rebuild()
MemberListEnvelope.model_rebuild()
MemberJoinedEnvelope.model_rebuild()
MemberJoinedEnvelopeData.model_rebuild()
Invitation.model_rebuild()
InvitationEnvelope.model_rebuild()
InvitationListEnvelope.model_rebuild()
InvitationShownEnvelope.model_rebuild()
InvitationShownEnvelopeData.model_rebuild()
MemberInviteForm.model_rebuild()
MemberUpdateForm.model_rebuild()
InvitationTokenForm.model_rebuild()
AuditLogEntry.model_rebuild()
AuditLogEntryActor.model_rebuild()
AuditLogEnvelope.model_rebuild()
RecipientForm.model_rebuild()
Recipient.model_rebuild()
RecipientEnvelope.model_rebuild()
RecipientList.model_rebuild()
RecipientDeleted.model_rebuild()
Webhook.model_rebuild()
WebhookCreated.model_rebuild()
WebhookEnvelope.model_rebuild()
WebhookCreatedEnvelope.model_rebuild()
WebhookListEnvelope.model_rebuild()
WebhookDelivery.model_rebuild()
WebhookDeliveryEnvelope.model_rebuild()
WebhookDeliveryListEnvelope.model_rebuild()
WebhookCreateForm.model_rebuild()
WebhookUpdateForm.model_rebuild()
KeyScopes.model_rebuild()
Key.model_rebuild()
KeyCreated.model_rebuild()
KeyEnvelope.model_rebuild()
KeyCreatedEnvelope.model_rebuild()
KeyListEnvelope.model_rebuild()
GuestLink.model_rebuild()
GuestLinkRecord.model_rebuild()
GuestLinkCreated.model_rebuild()
GuestLinkCreatedRecord.model_rebuild()
GuestLinkCreatedEnvelope.model_rebuild()
GuestLinkListEnvelope.model_rebuild()
GuestLinkForm.model_rebuild()
KeyCreateForm.model_rebuild()
KeyRotateForm.model_rebuild()
ShareGrant.model_rebuild()
ShareGrantEnvelope.model_rebuild()
Unlock.model_rebuild()
Error.model_rebuild()
ValidationError.model_rebuild()
Links.model_rebuild()
Meta.model_rebuild()
Deleted.model_rebuild()
Account.model_rebuild()
AccountEnvelope.model_rebuild()
Website.model_rebuild()
DomainVerification.model_rebuild()
DomainCheck.model_rebuild()
DomainInstructions.model_rebuild()
DomainInstructionsDns.model_rebuild()
DomainInstructionsFile.model_rebuild()
DomainInstructionsMeta.model_rebuild()
DomainInstructionsEnvelope.model_rebuild()
WebsiteEnvelope.model_rebuild()
WebsiteList.model_rebuild()
WebsiteCreate.model_rebuild()
WebsiteUpdate.model_rebuild()
Annotation.model_rebuild()
AnnotationMark.model_rebuild()
AnnotationEnvelope.model_rebuild()
AnnotationList.model_rebuild()
AnnotationCreate.model_rebuild()
AnnotationUpdate.model_rebuild()
AnnotationDeleted.model_rebuild()
Goal.model_rebuild()
BackfillBatch.model_rebuild()
BackfillBatchEventsItem.model_rebuild()
ExportCreate.model_rebuild()
ExportCreateDelivery.model_rebuild()
Export.model_rebuild()
ExportDelivery.model_rebuild()
SearchConsoleConnect.model_rebuild()
SearchConsoleConnectServiceAccountKey.model_rebuild()
SearchConsole.model_rebuild()
SearchConsoleLastImport.model_rebuild()
SearchConsoleEnvelope.model_rebuild()
LogSource.model_rebuild()
LogUploadEnvelope.model_rebuild()
LogUploadEnvelopeData.model_rebuild()
ExportEnvelope.model_rebuild()
ImportCreate.model_rebuild()
ImportCreateSource.model_rebuild()
Import.model_rebuild()
ImportSource.model_rebuild()
ImportEnvelope.model_rebuild()
ImportList.model_rebuild()
ImportDeleted.model_rebuild()
GoalEnvelope.model_rebuild()
GoalList.model_rebuild()
GoalCreate.model_rebuild()
GoalUpdate.model_rebuild()
GoalDeleted.model_rebuild()
Funnel.model_rebuild()
FunnelEnvelope.model_rebuild()
FunnelList.model_rebuild()
FunnelCreate.model_rebuild()
FunnelUpdate.model_rebuild()
FunnelDeleted.model_rebuild()
FunnelQuery.model_rebuild()
FunnelStep.model_rebuild()
FunnelAnswer.model_rebuild()
FunnelAnswerMeta.model_rebuild()
Segment.model_rebuild()
SegmentEnvelope.model_rebuild()
SegmentList.model_rebuild()
SegmentCreate.model_rebuild()
SegmentUpdate.model_rebuild()
SegmentDeleted.model_rebuild()
JourneyQuery.model_rebuild()
JourneyRow.model_rebuild()
JourneyAnswer.model_rebuild()
JourneyAnswerMeta.model_rebuild()
StatRow.model_rebuild()
DashboardFigure.model_rebuild()
DashboardRow.model_rebuild()
ShareDashboardEnvelope.model_rebuild()
ShareDashboardEnvelopeData.model_rebuild()
ShareDashboardEnvelopeDataTotals.model_rebuild()
ShareDashboardEnvelopeDataSeries.model_rebuild()
ShareDashboardEnvelopeDataEventsItem.model_rebuild()
ShareDashboardEnvelopeDataGoalsItem.model_rebuild()
ShareDashboardEnvelopeDataFunnelsItem.model_rebuild()
ShareDashboardEnvelopeDataSegment.model_rebuild()
ShareDashboardEnvelopeDataRealtime.model_rebuild()
RealtimeEnvelope.model_rebuild()
RealtimeEnvelopeData.model_rebuild()
StatList.model_rebuild()
Query.model_rebuild()
QueryInclude.model_rebuild()
QueryIncludeComparisons.model_rebuild()
QueryPagination.model_rebuild()
QueryAnswer.model_rebuild()
QueryAnswerResultsItem.model_rebuild()
QueryAnswerResultsItemComparison.model_rebuild()
QueryAnswerMeta.model_rebuild()
MetricValue1.model_rebuild()
EventForm.model_rebuild()
EventJson.model_rebuild()
EventJsonEvent.model_rebuild()
EventJsonRevenue.model_rebuild()
Accepted.model_rebuild()
PlausibleEvent.model_rebuild()
PlausibleEventDollar.model_rebuild()
