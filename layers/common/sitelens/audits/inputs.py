"""What an audits request may carry: create, update, list, pages and issues inputs."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

from sitelens.audits import app_shells, codes, duplicates, rules, sorts, urls
from sitelens.core import numbers
from sitelens.core.errors import FieldError
from sitelens.records.inputs import (
    Cursor,
    Exportable,
    Flag,
    Input,
    ListQuery,
    PrivacyFields,
    WebUrl,
    checked_text,
    choice,
    label,
    lines,
)

Url = WebUrl
SCHEDULES = ("none", "daily", "weekly", "monthly")


def number(low: int, high: int) -> BeforeValidator:
    """A whole number from `low` to `high` (a form's digits or a JSON integer)."""

    def check(value: Any, info: Any) -> int:
        number = numbers.whole(value)
        if number is None or not low <= number <= high:
            name = label(info.field_name or "")
            raise FieldError(f"The {name} field must be a whole number from {low} to {high}.")
        return number

    return BeforeValidator(check)


Patterns = Annotated[str, lines(urls.pattern_problem, max_lines=urls.MAX_PATTERNS)]
MaxPages = Annotated[int, number(1, urls.MAX_PAGES)]
MaxDepth = Annotated[int, number(0, urls.MAX_DEPTH)]
Schedule = Annotated[str, choice(*SCHEDULES)]
Name = Annotated[str, checked_text(rules.check_name)]
UserAgent = Annotated[str, BeforeValidator(rules.check_user_agent)]
Headers = Annotated[dict[str, str], BeforeValidator(rules.check_headers)]
BasicAuth = Annotated[str, checked_text(rules.check_basic_auth)]
Cookie = Annotated[str, checked_text(rules.check_cookie)]
ListUrls = Annotated[str, lines(rules.list_url_problem, max_lines=rules.MAX_LIST_URLS)]
MaxRate = Annotated[float, BeforeValidator(rules.check_max_rate)]
Regression = Annotated[dict[str, Any], BeforeValidator(rules.check_regression)]
Muted = Annotated[dict[str, str], BeforeValidator(rules.check_muted)]
Render = Annotated[str, choice(*app_shells.MODES)]
IssueCode = Annotated[str, BeforeValidator(codes.check)]
Similarity = Annotated[int, number(duplicates.MIN_SIMILARITY, 100)]
MAX_PAGE_NUMBER = 1_000  # of an issue's listed pages (at most checks.MAX_AFFECTED of them)

# What an audit's crawl sends that is never shown back: sealed together (`records`).
SECRET_FIELDS = ("headers", "basic_auth", "cookie")


class AuditSettings(PrivacyFields):
    """Every field an update may change, each None when not sent: the rest stays."""

    name: Name | None = None
    url: Url | None = None
    max_pages: MaxPages | None = None
    max_depth: MaxDepth | None = None
    include: Patterns | None = None
    exclude: Patterns | None = None
    respect_robots: Flag | None = None
    list_urls: ListUrls | None = None
    schedule: Schedule | None = None
    user_agent: UserAgent | None = None
    headers: Headers | None = None
    basic_auth: BasicAuth | None = None
    cookie: Cookie | None = None
    max_rate: MaxRate | None = None
    regression: Regression | None = None
    muted: Muted | None = None
    near_duplicate_similarity: Similarity | None = None
    render: Render | None = None


class AuditCreate(AuditSettings):
    """A new audit: `url` is required, the scope and schedule have defaults."""

    url: Url
    max_pages: MaxPages = urls.DEFAULT_MAX_PAGES
    max_depth: MaxDepth = urls.MAX_DEPTH
    include: Patterns = ""
    exclude: Patterns = ""
    respect_robots: Flag = 1
    schedule: Schedule = "none"


class AuditUpdate(AuditSettings):
    """`PUT` and `PATCH /api/v1/audits/{id}`: only the fields sent change."""


class AuditListQuery(ListQuery, Exportable):
    search_by: Annotated[str, choice("url")] = "url"
    sort_by: Annotated[str, choice("id")] = "id"


class AuditPagesQuery(Exportable):
    """A run's pages in URL order, or sorted by a column once the run is done: by issue,
    status code or depth; a page of them."""

    run: Annotated[int, number(1, 10**9)] | None = None
    issue: IssueCode | None = None
    status_code: Annotated[int, number(0, 599)] | None = None
    depth: Annotated[int, number(0, urls.MAX_DEPTH)] | None = None
    sort: Annotated[str, choice(*sorts.NAMES)] | None = None
    per_page: Annotated[int, choice(10, 25, 50, 100)] = 25
    cursor: Cursor | None = None
    url: Url | None = None  # the one page, with each issue that lists it and why


class AuditIssuesQuery(Exportable):
    """A run's issues; with `code`, that issue with a page of its pages and their reasons."""

    run: Annotated[int, number(1, 10**9)] | None = None
    code: IssueCode | None = None
    page: Annotated[int, number(1, MAX_PAGE_NUMBER)] = 1
    per_page: Annotated[int, choice(10, 25, 50, 100)] = 25


class AuditShareQuery(Input):
    """What an audit's share view may ask for besides the audit: an issue's pages (a page
    number of them) or a page's issues, of its last finished run."""

    issue: IssueCode | None = None
    url: Url | None = None
    page: Annotated[int, number(1, MAX_PAGE_NUMBER)] = 1
    per_page: Annotated[int, choice(10, 25, 50, 100)] = 25


class AuditChangesQuery(Input):
    """A run's change list: compared with the run before it, or with run `against`."""

    against: Annotated[int, number(1, 10**9)] | None = None
