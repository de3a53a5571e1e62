"""What a statistics request may carry: `GET /api/v1/stats/{id}`'s query."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Annotated, Any, ClassVar
from zoneinfo import ZoneInfo

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator

from sitelens.analytics.hit import STAT_NAMES
from sitelens.core import clock, errors
from sitelens.core.errors import FieldError
from sitelens.records.inputs import Exportable, Input, ListQuery, choice

DEFAULT_DAYS = 30
MAX_DAYS = 366


def _day(field: str) -> BeforeValidator:
    def check(value: Any, info: ValidationInfo) -> date:
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
            try:
                day = date.fromisoformat(value.strip())
            except ValueError:
                pass
            else:
                if not clock.in_calendar(day):
                    raise FieldError(f"The {field} field must be a day {clock.YEARS}.")
                return day
        raise FieldError(f"The {field} field must be a date in the format YYYY-MM-DD.")

    return BeforeValidator(check)


def check_period(first: date, last: date) -> None:
    """422 unless the days `first` to `last` are a period the statistics show: in order,
    and at most MAX_DAYS of them."""
    if first > last:
        raise errors.Invalid.field("from", "The from field must be a date before or equal to to.")
    if (last - first).days + 1 > MAX_DAYS:
        raise errors.Invalid.field("to", f"The period must not be longer than {MAX_DAYS} days.")


class StatsQuery(ListQuery, Exportable):
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
        check_period(*self.period())
        return self

    def period(self) -> tuple[date, date]:
        """The first and last day counted."""
        last = self.to or clock.now().date()
        return self.from_ or last - timedelta(days=DEFAULT_DAYS - 1), last

    def params(self) -> dict[str, Any]:
        """Every parameter, with the period's days made explicit, so that links and
        cursors keep meaning the same days after midnight."""
        first, last = self.period()
        params = self.model_dump(exclude={"cursor", "format", "from_", "to"}, exclude_none=True)
        return {**params, "from": first.isoformat(), "to": last.isoformat()}


# The share page's period picker: presets, or any `from`/`to` the stats API takes.
PERIODS = {
    "7d": "Last 7 days",
    "30d": "Last 30 days",
    "month": "This month",
    "last_month": "Last month",
    "12mo": "Last 12 months",
}


class SharePeriod(Input):
    """A share page's `?period=` (a preset, default `30d`) or `?from=&to=` (days of the
    website's zone, in the stats API's format; they win over a preset). Only `days`, which
    knows the zone, checks that they make a period: checked in UTC here, a period of the
    website's days could be refused wrongly."""

    period: Annotated[str, choice(*PERIODS)] = "30d"
    from_: Annotated[date, _day("from")] | None = Field(None, alias="from")
    to: Annotated[date, _day("to")] | None = None

    @classmethod
    def parse(cls, data: dict[str, Any]) -> SharePeriod:
        return super().parse({name: value for name, value in data.items() if value != ""})

    @property
    def custom(self) -> bool:
        return self.from_ is not None or self.to is not None

    def days(self, timezone: str) -> tuple[date, date]:
        """The first and last day shown; presets (and a period without `to`) end today in
        the website's `timezone`, whose days the dashboard's questions read. 422 unless
        they are a period (`check_period`)."""
        today = clock.now().astimezone(ZoneInfo(timezone)).date()
        if self.custom:
            last = self.to or today
            first = self.from_ or last - timedelta(days=DEFAULT_DAYS - 1)
        elif self.period == "month":
            first, last = today.replace(day=1), today
        elif self.period == "last_month":
            last = today.replace(day=1) - timedelta(days=1)
            first = last.replace(day=1)
        else:
            last = today
            first = today - timedelta(days={"7d": 7, "30d": 30, "12mo": 365}[self.period] - 1)
        check_period(first, last)
        return first, last
