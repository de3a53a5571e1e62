"""What an audits request may carry: create, list, pages and issues inputs."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

from sitelens.audits import urls
from sitelens.core import numbers
from sitelens.core.errors import FieldError
from sitelens.records.inputs import (
    Cursor,
    Exportable,
    Flag,
    ListQuery,
    PrivacyFields,
    choice,
    label,
    lines,
)
from sitelens.reports import rules as report_rules

Url = Annotated[str, BeforeValidator(report_rules.check_url)]
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


class AuditCreate(PrivacyFields):
    url: Url
    max_pages: Annotated[int, number(1, urls.MAX_PAGES)] = urls.DEFAULT_MAX_PAGES
    max_depth: Annotated[int, number(0, urls.MAX_DEPTH)] = urls.MAX_DEPTH
    include: Patterns = ""
    exclude: Patterns = ""
    respect_robots: Flag = 1
    schedule: Annotated[str, choice(*SCHEDULES)] = "none"


class AuditListQuery(ListQuery, Exportable):
    search_by: Annotated[str, choice("url")] = "url"
    sort_by: Annotated[str, choice("id")] = "id"


class AuditPagesQuery(Exportable):
    """A run's pages in URL order: by issue, status code or depth; a page of them."""

    run: Annotated[int, number(1, 10**9)] | None = None
    issue: Annotated[str, BeforeValidator(urls.issue_code)] | None = None
    status_code: Annotated[int, number(0, 599)] | None = None
    depth: Annotated[int, number(0, urls.MAX_DEPTH)] | None = None
    per_page: Annotated[int, choice(10, 25, 50, 100)] = 25
    cursor: Cursor | None = None


class AuditIssuesQuery(Exportable):
    run: Annotated[int, number(1, 10**9)] | None = None
