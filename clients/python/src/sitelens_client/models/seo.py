"""Models of openapi/seo.yaml, written by
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


class BrandForm(SitelensModel):
    name: str
    logo_url: str | None = None
    accent: str | None = None
    contact: str | None = None
    made_with: int | None = None
    frame_ancestors: str | None = None


class Brand(SitelensModel):
    object: str
    project: str | None
    name: str
    logo_url: str | None
    logo: str | None
    accent: str | None
    contact: str | None
    made_with: int
    frame_ancestors: list[str]
    updated_at: str


class BrandEnvelope(SitelensModel):
    data: Brand
    status: int


class BrandDeleted(SitelensModel):
    object: str
    project: str | None
    deleted: bool
    status: int


class Audit(SitelensModel):
    id: int
    name: str | None
    url: str
    list_urls: str
    user_agent: str
    crawl_secret: AuditCrawlSecret
    max_rate: float | None
    render: str
    regression: AuditRegression
    muted: AuditMuted
    near_duplicate_similarity: int
    scope_changed: bool
    share_id: str | None
    share_url: str | None
    max_pages: int
    max_depth: int
    include: str
    exclude: str
    respect_robots: int
    schedule: str
    privacy: int
    password: bool
    run: int
    status: str
    failure: str | None = None
    progress: AuditProgress
    score: int | None
    issues: AuditIssues
    created_at: Timestamp
    updated_at: Timestamp


class AuditCrawlSecret(SitelensModel):
    """What the crawl sends that is never shown back, as far as it is shown: the names of its
    request headers, and whether basic auth and a cookie are set. The values are sealed (the
    stack's KMS key, or its SSM-held key under CostProfile=lean) and reach only the crawler.
    """

    headers: list[str]
    basic_auth: bool
    cookie: bool


class AuditProgress(SitelensModel):
    discovered: int
    fetched: int
    external_links: int
    in_sitemaps: int


class AuditIssues(SitelensModel):
    """The last finished run's issues by severity."""

    high: int
    medium: int
    low: int


class AuditShared(SitelensModel):
    issue: AuditIssueView | None = None
    page: AuditPageIssues | None = None
    audit: AuditSharedAudit
    last_run: AuditSharedLastRun | None


class AuditSharedAudit(SitelensModel):
    """The audit's public fields: not its crawl settings, scope patterns, grading or password
    state, which only its owner reads.
    """

    id: int
    name: str | None
    url: str
    schedule: str
    share_id: str | None
    share_url: str | None
    run: int
    status: str
    failure: str | None
    progress: AuditSharedAuditProgress
    score: int | None
    issues: AuditSharedAuditIssues
    created_at: Timestamp
    updated_at: Timestamp


class AuditSharedAuditProgress(SitelensModel):
    discovered: int
    fetched: int
    external_links: int
    in_sitemaps: int


class AuditSharedAuditIssues(SitelensModel):
    """The last finished run's issues by severity."""

    high: int
    medium: int
    low: int


class AuditSharedLastRun(SitelensModel):
    """The last finished run; null before one finished."""

    run: int
    finished_at: str
    pages: int
    score: int
    severities: list[AuditSharedLastRunSeveritiesItem]
    diff: AuditSharedLastRunDiff | None
    regression_reasons: list[str] | None = None
    regression: bool


class AuditSharedLastRunSeveritiesItem(SitelensModel):
    severity: str
    issues: list[AuditSharedLastRunSeveritiesItemIssuesItem]


class AuditSharedLastRunSeveritiesItemIssuesItem(SitelensModel):
    code: str
    title: str
    fix: str
    learn_more: str
    count: int


class AuditSharedLastRunDiff(SitelensModel):
    """The change from the run before (null for the first run and before a run is done), on
    complete sets of pages, however many an issue lists: issues new, fixed, gone with their
    pages (`removed`) and persisting, each with the pages it gained (`new_pages`: pages the
    site had; `added_pages`: pages new to the site) and lost (`fixed_pages`: pages still
    served; `removed_pages`: pages gone, 404, 410, redirected away or no longer crawled);
    pages added and removed (served with a 200 in one run and not the other); the score's
    change.
    """

    new: list[AuditIssueChange]
    fixed: list[AuditIssueChange]
    removed: list[AuditIssueChange] | None = None
    persisting: list[AuditIssueChange]
    pages_added: int
    pages_removed: int
    score_delta: int | None


class AuditSharedEnvelope(SitelensModel):
    data: AuditShared
    status: int


class AuditEnvelope(SitelensModel):
    data: Audit
    status: int


class AuditList(SitelensModel):
    data: list[Audit]
    links: Links
    meta: Meta
    status: int


class AuditDeleted(SitelensModel):
    id: int
    object: str
    deleted: bool
    status: int


class AuditCreate(SitelensModel):
    url: str
    max_pages: int | None = None
    max_depth: int | None = None
    include: str | None = None
    exclude: str | None = None
    respect_robots: int | None = None
    schedule: str | None = None
    privacy: int | None = None
    password: str | None = None
    name: str | None = None
    list_urls: str | None = None
    user_agent: str | None = None
    headers: AuditHeaders | None = None
    basic_auth: str | None = None
    cookie: str | None = None
    max_rate: float | None = None
    render: str | None = None
    regression: AuditRegression | None = None
    muted: AuditMuted | None = None
    near_duplicate_similarity: int | None = None


class AuditUpdate(SitelensModel):
    """The settings to change; a field not sent stays as it is (`PUT` and `PATCH` alike). They
    apply from the audit's next run: a run going on keeps those it started with.
    """

    name: str | None = None
    url: str | None = None
    max_pages: int | None = None
    max_depth: int | None = None
    include: str | None = None
    exclude: str | None = None
    respect_robots: int | None = None
    list_urls: str | None = None
    schedule: str | None = None
    user_agent: str | None = None
    headers: AuditHeaders | None = None
    basic_auth: str | None = None
    cookie: str | None = None
    max_rate: float | None = None
    render: str | None = None
    regression: AuditRegression | None = None
    muted: AuditMuted | None = None
    near_duplicate_similarity: int | None = None
    privacy: int | None = None
    password: str | None = None


class AuditRegression(SitelensModel):
    """When a run counts as a regression (docs/audits.md, "Regressions"). A key left out takes
    its default; an update replaces the object whole. A form sends its JSON text.
    """

    score_drop: int | None = None
    high_on_added_pages: bool | None = None
    ignore: list[AuditIssueCode] | None = None


class AuditPage(SitelensModel):
    url: str
    status_code: int | None
    depth: int | None
    response_time_ms: int | None
    word_count: int | None
    inlinks: int | None
    link_score: int | None
    external: bool
    blocked: bool
    in_sitemap: bool
    redirect_to: str | None
    redirects: int
    error: str | None
    title: str | None
    description: str | None
    canonical: str | None
    noindex: bool
    links: int
    score: int | None
    failed_checks: list[str]
    reason: str | None = None
    where: str | None = None
    fix: str | None = None
    learn_more: str | None = None
    field_vitals: AuditPageFieldVitals1 | None
    search: SearchOfPage | None
    rendering: AuditPageRendering1 | None


class AuditPageFieldVitals1(SitelensModel):
    lcp: FieldVital
    inp: FieldVital
    cls: FieldVital
    fcp: FieldVital
    ttfb: FieldVital


class AuditPageRendering1(SitelensModel):
    mode: str
    app_shell: bool | None = None
    scripts: int | None = None
    error: str | None = None
    raw_links: int | None = None
    rendered_links: int | None = None
    links_only_rendered: int | None = None
    links_only_rendered_first: list[str] | None = None
    raw_words: int | None = None
    rendered_words: int | None = None
    words_only_rendered: int | None = None
    title_changed: bool | None = None
    canonical_changed: bool | None = None


class AuditPageList(SitelensModel):
    data: list[AuditPage]
    links: Links
    meta: Meta
    status: int


class AuditIssue(SitelensModel):
    code: str
    muted: bool | None = None
    severity: str
    title: str
    fix: str
    learn_more: str
    count: int
    pageviews: int | None
    clusters: list[AuditIssueClustersItem] | None = None
    pages: list[AuditIssuePagesItem]


class AuditIssueClustersItem(SitelensModel):
    original: str
    count: int
    pages: list[AuditIssueClustersItemPagesItem]


class AuditIssueClustersItemPagesItem(SitelensModel):
    url: str
    similarity: float
    added: str
    removed: str


class AuditIssuePagesItem(SitelensModel):
    url: str
    detail: str
    pageviews: int | None = None


class AuditReason(SitelensModel):
    """Why an issue lists a page, as a person reads it."""

    reason: str
    where: str
    fix: str
    learn_more: str


class AuditIssueView(SitelensModel):
    """An issue with one page of its listed pages (in URL order), each with its reason."""

    code: str
    severity: str
    title: str
    fix: str
    learn_more: str
    count: int
    page: int
    per_page: int
    last_page: int
    listed: int
    pages: list[AuditIssueViewPagesItem]


class AuditIssueViewPagesItem(SitelensModel):
    reason: str
    where: str
    fix: str
    learn_more: str
    url: str
    detail: str
    status_code: int | None
    title: str | None


class AuditIssueViewEnvelope(SitelensModel):
    data: AuditIssueView
    status: int


class AuditPageIssues(SitelensModel):
    """A crawled page with each issue of the run that lists it, most severe first."""

    url: str
    status_code: int | None
    title: str | None
    issues: list[AuditPageIssuesIssuesItem]


class AuditPageIssuesIssuesItem(SitelensModel):
    reason: str
    where: str
    fix: str
    learn_more: str
    code: str
    severity: str
    title: str
    muted: bool


class AuditPageIssuesEnvelope(SitelensModel):
    data: AuditPageIssues
    status: int


class AuditIssueList(SitelensModel):
    data: list[AuditIssue]
    status: int


class AuditRun(SitelensModel):
    diff: AuditRunDiff | None
    regression: bool
    regression_reasons: list[str] | None = None
    scope_changed: bool | None = None
    run: int
    status: str
    failure: str | None = None
    started_at: str | None
    finished_at: str | None
    pages: int
    score: int | None
    issues: AuditRunIssues | None


class AuditRunDiff(SitelensModel):
    """The change from the run before (null for the first run and before a run is done), on
    complete sets of pages, however many an issue lists: issues new, fixed, gone with their
    pages (`removed`) and persisting, each with the pages it gained (`new_pages`: pages the
    site had; `added_pages`: pages new to the site) and lost (`fixed_pages`: pages still
    served; `removed_pages`: pages gone, 404, 410, redirected away or no longer crawled);
    pages added and removed (served with a 200 in one run and not the other); the score's
    change.
    """

    new: list[AuditIssueChange]
    fixed: list[AuditIssueChange]
    removed: list[AuditIssueChange] | None = None
    persisting: list[AuditIssueChange]
    pages_added: int
    pages_removed: int
    score_delta: int | None


class AuditRunIssues(SitelensModel):
    high: int | None = None
    medium: int | None = None
    low: int | None = None


class AuditIssueChange(SitelensModel):
    """An issue's change between two runs. Runs finished before complete sets were compared carry
    only code, severity and pages (and new_pages, fixed_pages for persisting ones).
    """

    code: str
    severity: str
    pages: int
    new_pages: int | None = None
    added_pages: int | None = None
    fixed_pages: int | None = None
    removed_pages: int | None = None
    muted: bool | None = None


class AuditRunList(SitelensModel):
    data: list[AuditRun]
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


class ProjectDeleted(SitelensModel):
    id: str
    object: str
    deleted: bool
    reports: int
    status: int


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


class Report(SitelensModel):
    id: int
    url: str
    project: str
    result: str
    score: int
    privacy: int
    password: bool
    share_url: str | None
    results: ReportResults
    field_data: ReportFieldData | None
    generated_at: Timestamp
    created_at: Timestamp
    updated_at: Timestamp


class ReportFieldData(SitelensModel):
    """What real visits measured on the report's page over the last 28 days (its website's time
    zone, today included), read once when the report was generated and stored with it: the
    page's Core Web Vitals and its pageviews, visitors and bounce rate, as `POST
    /api/v1/query` answers them with an `event:page` filter. Only from a website of the
    report's account whose domain is the host (`www.` or not) and that the key may read.
    `status`: `measured`; `untracked` (no such website: `traffic` and `vitals` are null);
    `unavailable` (the warehouse failed or took over 5 s: null, the report is still made;
    generate it again).
    """

    status: str
    website_id: int | None
    page: str | None
    days: int
    period: list[str] | None
    min_samples: int
    traffic: ReportFieldDataTraffic | None
    search: SearchOfPage | None = None
    vitals: ReportFieldDataVitals | None
    note: str


class ReportFieldDataTraffic(SitelensModel):
    pageviews: int
    visitors: int
    bounce_rate: float | None


class ReportFieldDataVitals(SitelensModel):
    lcp: FieldVital
    inp: FieldVital
    cls: FieldVital
    fcp: FieldVital
    ttfb: FieldVital


class SearchOfPage(SitelensModel):
    """A page's Search Console figures (docs/search-console.md): its clicks and impressions over
    `days` days, and its `top_queries` (at most 5, the most clicked first), from the rows the
    website's import stored, matched on the page's path.
    """

    days: int
    clicks: int
    impressions: int
    top_queries: list[SearchOfPageTopQueriesItem]


class SearchOfPageTopQueriesItem(SitelensModel):
    query: str
    clicks: int
    impressions: int


class FieldVital(SitelensModel):
    """One Core Web Vital of the page's real visits: `samples` page views measured it; with at
    least `min_samples`, its 75th percentile (milliseconds; CLS a score), its rating by
    Google's thresholds at that percentile (LCP 2.5 s / 4 s, INP 200 / 500 ms, CLS 0.1 / 0.25,
    FCP 1.8 / 3 s, TTFB 0.8 / 1.8 s) and the percent of page views in each band; with fewer,
    those are null.
    """

    samples: int
    p75: float | None
    rating: str | None
    good: float | None
    needs_improvement: float | None
    poor: float | None


class ReportEnvelope(SitelensModel):
    data: Report
    status: int


class ReportList(SitelensModel):
    data: list[Report]
    links: Links
    meta: Meta
    status: int


class ReportCreate(SitelensModel):
    url: str
    privacy: int | None = None
    password: str | None = None


class ReportUpdate(SitelensModel):
    """Only the fields sent change."""

    privacy: int | None = None
    password: str | None = None
    results: int | None = None


class Project(SitelensModel):
    project: str
    reports: int
    score: int
    created_at: Timestamp


class ProjectList(SitelensModel):
    data: list[Project]
    links: Links
    meta: Meta
    status: int


class CheckResult(SitelensModel):
    """One check's result; `passed` exactly when `errors` is `null`."""

    passed: bool
    importance: str
    category: str
    value: Any
    errors: dict[str, str] | None
    source: str | None = None
    fix: str | None = None
    learn_more: str | None = None


class ReportResults(SitelensModel):
    """One entry per check, keyed by the check's name, in this order. A check's importance and
    category never change.
    """

    title: CheckResult
    meta_description: CheckResult
    headings: CheckResult
    content_keywords: CheckResult
    image_keywords: CheckResult
    seo_friendly_url: CheckResult
    n404_page: CheckResult = Field(alias="404_page")
    robots: CheckResult
    robots_txt: CheckResult
    noindex: CheckResult
    in_page_links: CheckResult
    language: CheckResult
    favicon: CheckResult
    canonical: CheckResult
    hreflang: CheckResult
    link_text: CheckResult
    crawlable_anchors: CheckResult
    http_status_code: CheckResult
    text_compression: CheckResult
    load_time: CheckResult
    page_size: CheckResult
    http_requests: CheckResult
    image_format: CheckResult
    defer_javascript: CheckResult
    dom_size: CheckResult
    https_encryption: CheckResult
    mixed_content: CheckResult
    server_signature: CheckResult
    unsafe_cross_origin_links: CheckResult
    plaintext_email: CheckResult
    structured_data: CheckResult
    rich_results: CheckResult
    meta_viewport: CheckResult
    charset: CheckResult
    sitemap: CheckResult
    social: CheckResult
    content_length: CheckResult
    text_html_ratio: CheckResult
    inline_css: CheckResult
    deprecated_html_tags: CheckResult
    interaction_to_next_paint: CheckResult | None = None
    cumulative_layout_shift: CheckResult | None = None


Role: TypeAlias = str


AuditHeaders: TypeAlias = dict[str, str]


AuditMuted: TypeAlias = dict[str, str]


AuditIssueCode: TypeAlias = str


Host: TypeAlias = str


HostList: TypeAlias = str


Timestamp: TypeAlias = str

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
BrandForm.model_rebuild()
Brand.model_rebuild()
BrandEnvelope.model_rebuild()
BrandDeleted.model_rebuild()
Audit.model_rebuild()
AuditCrawlSecret.model_rebuild()
AuditProgress.model_rebuild()
AuditIssues.model_rebuild()
AuditShared.model_rebuild()
AuditSharedAudit.model_rebuild()
AuditSharedAuditProgress.model_rebuild()
AuditSharedAuditIssues.model_rebuild()
AuditSharedLastRun.model_rebuild()
AuditSharedLastRunSeveritiesItem.model_rebuild()
AuditSharedLastRunSeveritiesItemIssuesItem.model_rebuild()
AuditSharedLastRunDiff.model_rebuild()
AuditSharedEnvelope.model_rebuild()
AuditEnvelope.model_rebuild()
AuditList.model_rebuild()
AuditDeleted.model_rebuild()
AuditCreate.model_rebuild()
AuditUpdate.model_rebuild()
AuditRegression.model_rebuild()
AuditPage.model_rebuild()
AuditPageFieldVitals1.model_rebuild()
AuditPageRendering1.model_rebuild()
AuditPageList.model_rebuild()
AuditIssue.model_rebuild()
AuditIssueClustersItem.model_rebuild()
AuditIssueClustersItemPagesItem.model_rebuild()
AuditIssuePagesItem.model_rebuild()
AuditReason.model_rebuild()
AuditIssueView.model_rebuild()
AuditIssueViewPagesItem.model_rebuild()
AuditIssueViewEnvelope.model_rebuild()
AuditPageIssues.model_rebuild()
AuditPageIssuesIssuesItem.model_rebuild()
AuditPageIssuesEnvelope.model_rebuild()
AuditIssueList.model_rebuild()
AuditRun.model_rebuild()
AuditRunDiff.model_rebuild()
AuditRunIssues.model_rebuild()
AuditIssueChange.model_rebuild()
AuditRunList.model_rebuild()
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
ProjectDeleted.model_rebuild()
Deleted.model_rebuild()
Account.model_rebuild()
AccountEnvelope.model_rebuild()
Report.model_rebuild()
ReportFieldData.model_rebuild()
ReportFieldDataTraffic.model_rebuild()
ReportFieldDataVitals.model_rebuild()
SearchOfPage.model_rebuild()
SearchOfPageTopQueriesItem.model_rebuild()
FieldVital.model_rebuild()
ReportEnvelope.model_rebuild()
ReportList.model_rebuild()
ReportCreate.model_rebuild()
ReportUpdate.model_rebuild()
Project.model_rebuild()
ProjectList.model_rebuild()
CheckResult.model_rebuild()
ReportResults.model_rebuild()
