"""What a goals request may carry: a custom event's name or a page path pattern, and the
name the goal is shown by (Plausible's `display_name`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo

from sitelens.core.errors import FieldError
from sitelens.records.inputs import Input, label
from sitelens.websites.goals import rules


def _checked(check: Any) -> BeforeValidator:
    def run(value: Any, info: ValidationInfo) -> str:
        if not isinstance(value, str):
            raise FieldError(f"The {label(info.field_name or '')} field must be a string.")
        return str(check(value))

    return BeforeValidator(run)


EventName = Annotated[str, _checked(rules.check_event_name)]
PagePath = Annotated[str, _checked(rules.check_page_path)]
DisplayName = Annotated[str, _checked(rules.check_display_name)]
Currency = Annotated[str, _checked(rules.check_currency)]
CustomProps = Annotated[dict[str, str], BeforeValidator(rules.check_custom_props)]


class GoalCreate(Input):
    """Exactly one of `event_name` and `page_path` (`records.create` refuses others);
    `display_name` defaults from it; `custom_props` and `currency` with `event_name` only."""

    event_name: EventName | None = None
    page_path: PagePath | None = None
    display_name: DisplayName | None = None
    custom_props: CustomProps | None = None  # an event goal: its properties must match
    currency: Currency | None = None  # a revenue goal: its events' amounts in this currency


class GoalUpdate(Input):
    """A goal's new display name (what it matches is its identity: make another goal)."""

    display_name: DisplayName
