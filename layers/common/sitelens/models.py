"""Input models: what a request may carry, with the contract's 422 sentences.

Form fields arrive as strings, JSON fields as their own types; both are accepted.
Every sentence names the field and, for a choice, the allowed values. The rules of a
field's value live with its collection (`websites.normalize_domain`, ...); this module
only imports pydantic, so the handlers that parse no input never load it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from sitelens import clock, errors, reports, websites
from sitelens.analytics.hits import STAT_NAMES
from sitelens.errors import FieldError


def label(field: str) -> str:
    return field.replace("_", " ")


def choice(*allowed: Any) -> BeforeValidator:
    """A value from `allowed`; form strings are compared to the allowed values' text."""
    texts = {str(value): value for value in allowed}
    names = ", ".join(texts)

    def pick(value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, str | int) and str(value).strip() in texts:
            return texts[str(value).strip()]
        raise FieldError(f"The {label(info.field_name or '')} field must be one of: {names}.")

    return BeforeValidator(pick)


def text(max_length: int, min_length: int = 0) -> BeforeValidator:
    def check(value: Any, info: ValidationInfo) -> str:
        name = label(info.field_name or "")
        if not isinstance(value, str):
            raise FieldError(f"The {name} field must be a string.")
        if len(value) > max_length:
            raise FieldError(f"The {name} field must not be greater than {max_length} characters.")
        if len(value) < min_length:
            raise FieldError(f"The {name} field must be at least {min_length} characters.")
        return value

    return BeforeValidator(check)


def lines(check_line: Callable[[str], str | None], max_lines: int = 1000) -> BeforeValidator:
    """A list given as one entry per line (or as repeated `name[]` fields / a JSON array),
    normalized to trimmed, non-empty, `\\n`-joined lines. `check_line` returns an error
    sentence for a bad line, or None."""

    def check(value: Any, info: ValidationInfo) -> str:
        name = label(info.field_name or "")
        if isinstance(value, list):
            if not all(isinstance(v, str) for v in value):
                raise FieldError(f"The {name} field must be a list of strings.")
            value = "\n".join(value)
        if not isinstance(value, str):
            raise FieldError(f"The {name} field must be a string.")
        entries = [line.strip() for line in value.replace("\r", "\n").split("\n")]
        entries = [line for line in entries if line]
        if len(entries) > max_lines:
            raise FieldError(f"The {name} field must not have more than {max_lines} lines.")
        for line in entries:
            problem = check_line(line)
            if problem:
                raise FieldError(problem)
        return "\n".join(entries)

    return BeforeValidator(check)


Flag = Annotated[int, choice(0, 1)]
Privacy = Annotated[int, choice(0, 1, 2)]
Sort = Annotated[str, choice("desc", "asc")]
PerPage = Annotated[int, choice(10, 25, 50, 100)]
Password = Annotated[str, text(128, min_length=1)]
SearchText = Annotated[str, text(255)]


class Input(BaseModel):
    """Base of every input model: unknown fields are ignored, never stored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Self:
        """The model of `data`, or 422 with every field's sentences."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise errors.Invalid(_messages(exc)) from None


def _messages(exc: ValidationError) -> dict[str, list[str]]:
    messages: dict[str, list[str]] = {}
    for problem in exc.errors():
        field = str(problem["loc"][0]) if problem["loc"] else "body"
        cause = (problem.get("ctx") or {}).get("error")
        if problem["type"] == "missing":
            sentence = f"The {label(field)} field is required."
        elif isinstance(cause, FieldError):
            sentence = str(cause)
        else:
            sentence = f"The {label(field)} field is invalid."
        messages.setdefault(field, []).append(sentence)
    return messages


class PrivacyFields(Input):
    """`privacy` and `password`, as every record type takes them; None means "not sent"."""

    privacy: Privacy | None = None
    password: Password | None = None


class ListQuery(Input):
    """What every list accepts: search, order, page size and cursor."""

    search: SearchText | None = None
    sort: Sort = "desc"
    per_page: PerPage = 10
    cursor: Annotated[str, text(4096)] | None = None

    # Filters that select an index, in the order they are preferred.
    filter_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Self:
        """An empty parameter (`?favorite=&sort_by=`) is no parameter, as in query builders."""
        return super().parse({name: value for name, value in data.items() if value != ""})

    def filters(self) -> dict[str, str]:
        """The filters in use, as the values the indexes are keyed on."""
        values = {name: getattr(self, name) for name in self.filter_fields}
        return {name: str(value) for name, value in values.items() if value is not None}

    def params(self) -> dict[str, Any]:
        """Every list parameter the caller set or defaulted, except the cursor."""
        return self.model_dump(exclude={"cursor"}, exclude_none=True)


# -- websites ---------------------------------------------------------------------------


def _domain(value: Any, info: ValidationInfo) -> str:
    if not isinstance(value, str):
        raise FieldError(websites.INVALID_DOMAIN)
    return websites.normalize_domain(value)


Domain = Annotated[str, BeforeValidator(_domain)]
ExcludeIps = Annotated[str, lines(websites.check_ip_line)]
ExcludeParams = Annotated[str, lines(websites.check_param_line)]


class WebsiteSettings(PrivacyFields):
    """Fields shared by create and update; None means "not sent"."""

    email: Flag | None = None
    exclude_bots: Flag | None = None
    exclude_params: ExcludeParams | None = None
    exclude_ips: ExcludeIps | None = None


class WebsiteCreate(WebsiteSettings):
    domain: Domain


class WebsiteUpdate(WebsiteSettings):
    favorite: Flag | None = None


class WebsiteListQuery(ListQuery):
    search_by: Annotated[str, choice("domain")] = "domain"
    favorite: Flag | None = None
    sort_by: Annotated[str, choice("id", "domain")] = "id"

    filter_fields: ClassVar[tuple[str, ...]] = ("favorite",)


# -- reports ----------------------------------------------------------------------------

Url = Annotated[str, BeforeValidator(reports.check_url)]


class ReportCreate(PrivacyFields):
    url: Url


class ReportUpdate(PrivacyFields):
    results: Flag | None = None


class ReportListQuery(ListQuery):
    search_by: Annotated[str, choice("url")] = "url"
    result: Annotated[str, choice(*reports.RESULTS)] | None = None
    project: SearchText | None = None
    sort_by: Annotated[str, choice("id", "generated_at", "url", "result")] = "id"

    # `result` first: its index is the denser of the two when both are given.
    filter_fields: ClassVar[tuple[str, ...]] = ("result", "project")

    def filters(self) -> dict[str, str]:
        found = super().filters()
        if "project" in found:
            found["project"] = reports.project_of_host(found["project"])
        return found


class ProjectListQuery(ListQuery):
    search_by: Annotated[str, choice("project")] = "project"
    sort_by: Annotated[str, choice("project", "created_at")] = "created_at"


# -- statistics -------------------------------------------------------------------------

DEFAULT_DAYS = 30
MAX_DAYS = 366


def _day(field: str) -> BeforeValidator:
    def check(value: Any, info: ValidationInfo) -> date:
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
            try:
                return date.fromisoformat(value.strip())
            except ValueError:
                pass
        raise FieldError(f"The {field} field must be a date in the format YYYY-MM-DD.")

    return BeforeValidator(check)


class StatsQuery(ListQuery):
    """`GET /api/v1/stats/{id}`: one statistic's rows over a period of days (UTC).

    Without `to` the period ends today; without `from` it is the 30 days up to `to`.
    """

    name: Annotated[str, choice(*STAT_NAMES)]
    from_: Annotated[date, _day("from")] | None = Field(None, alias="from")
    to: Annotated[date, _day("to")] | None = None
    sort_by: Annotated[str, choice("count", "value")] = "count"

    filter_fields: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _period_is_valid(self) -> StatsQuery:
        first, last = self.period()
        if first > last:
            raise errors.Invalid.field(
                "from", "The from field must be a date before or equal to to."
            )
        if (last - first).days + 1 > MAX_DAYS:
            raise errors.Invalid.field("to", f"The period must not be longer than {MAX_DAYS} days.")
        return self

    def period(self) -> tuple[date, date]:
        """The first and last day counted."""
        last = self.to or clock.now().date()
        return self.from_ or last - timedelta(days=DEFAULT_DAYS - 1), last

    def params(self) -> dict[str, Any]:
        """Every parameter, with the period's days made explicit, so that links and
        cursors keep meaning the same days after midnight."""
        first, last = self.period()
        params = self.model_dump(exclude={"cursor", "from_", "to"}, exclude_none=True)
        return {**params, "from": first.isoformat(), "to": last.isoformat()}
