"""What a goals request may carry: a custom event's name or a page path pattern, and the
name the goal is shown by (Plausible's `display_name`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator

from sitelens.records.inputs import Input, checked_text
from sitelens.websites.goals import rules

EventName = Annotated[str, checked_text(rules.check_event_name)]
PagePath = Annotated[str, checked_text(rules.check_page_path)]
DisplayName = Annotated[str, checked_text(rules.check_display_name)]
Currency = Annotated[str, checked_text(rules.check_currency)]
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
