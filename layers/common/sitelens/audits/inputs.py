"""What an audits request may carry: create, update, list, pages and issues inputs."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

from sitelens.audits import app_shells, codes, rules, urls
from sitelens.core import numbers
from sitelens.core.errors import FieldError
from sitelens.records.inputs import (
    Cursor,
    Exportable,
    Flag,
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
    """A run's pages in URL order: by issue, status code or depth; a page of them."""

    run: Annotated[int, number(1, 10**9)] | None = None
    issue: IssueCode | None = None
    status_code: Annotated[int, number(0, 599)] | None = None
    depth: Annotated[int, number(0, urls.MAX_DEPTH)] | None = None
    per_page: Annotated[int, choice(10, 25, 50, 100)] = 25
    cursor: Cursor | None = None


class AuditIssuesQuery(Exportable):
    run: Annotated[int, number(1, 10**9)] | None = None
