"""A website's goals: listing, creating, renaming and deleting them (404 for a website or
goal that is not the account's; 422 for a goal the website has already, by what it
matches or by its display name, or one more than `rules.MAX_GOALS`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors
from sitelens.data import goals as stored_goals
from sitelens.data.transactions import ItemTooLarge
from sitelens.websites.goals import rules
from sitelens.websites.records import site_of, stored

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.websites.goals.inputs import GoalCreate, GoalUpdate


def show(goal: dict[str, Any], website_id: int) -> dict[str, Any]:
    """A goal as the API returns it."""
    return {
        "id": goal["id"],
        "website_id": website_id,
        "goal_type": "event" if goal.get("event_name") is not None else "page",
        "event_name": goal.get("event_name"),
        "page_path": goal.get("page_path"),
        "display_name": goal["display_name"],
        "custom_props": goal.get("custom_props") or {},
        "currency": goal.get("currency"),
        "created_at": goal["created_at"],
        "updated_at": goal["updated_at"],
    }


def list_all(account_id: str, website_id: int) -> list[dict[str, Any]]:
    """Every goal of the website, in id order; 404 when the website is not the account's."""
    return [show(goal, website_id) for goal in stored_goals.of(stored(account_id, website_id))]


def get(account_id: str, website_id: int, goal_id: int) -> dict[str, Any]:
    for goal in stored_goals.of(stored(account_id, website_id)):
        if goal["id"] == goal_id:
            return show(goal, website_id)
    raise errors.NotFound()


def _check_unique(goals: stored_goals.Goals, goal: dict[str, Any]) -> None:
    for other in goals:
        if other["id"] == goal["id"]:
            continue
        if other["display_name"] == goal["display_name"]:
            raise errors.Invalid.field("display_name", rules.NAME_TAKEN)
        same_event = (
            goal.get("event_name") is not None
            and other.get("event_name") == goal.get("event_name")
            and (other.get("custom_props") or {}) == (goal.get("custom_props") or {})
        )
        same_page = goal.get("page_path") is not None and other.get("page_path") == goal.get(
            "page_path"
        )
        if same_event or same_page:
            field = "event_name" if same_event else "page_path"
            raise errors.Invalid.field(field, rules.SAME_GOAL)


def _write(account_id: str, website_id: int, apply: Any) -> stored_goals.Goals:
    site = site_of(stored(account_id, website_id))
    try:
        written = stored_goals.change(account_id, website_id, site, apply)
    except ItemTooLarge:  # goals share the website's item with its exclusion lists
        raise errors.Invalid.field("goals", rules.TOO_LARGE) from None
    if written is None:
        raise errors.NotFound()
    return written


def create(account_id: str, website_id: int, fields: GoalCreate) -> dict[str, Any]:
    """A new goal of the website."""
    if (fields.event_name is None) == (fields.page_path is None):
        raise errors.Invalid.field("event_name", rules.ONE_KIND)
    if fields.page_path is not None and (fields.custom_props or fields.currency):
        raise errors.Invalid.field(
            "custom_props" if fields.custom_props else "currency", rules.EVENT_ONLY
        )
    now = clock.now_iso()
    made: list[dict[str, Any]] = []

    def add(goals: stored_goals.Goals, next_id: int) -> stored_goals.Goals:
        if len(goals) >= rules.MAX_GOALS:
            raise errors.Invalid.field("goals", rules.TOO_MANY)
        goal = {
            "id": next_id,
            "event_name": fields.event_name,
            "page_path": fields.page_path,
            "display_name": fields.display_name
            or rules.default_display_name(fields.event_name, fields.page_path),
            "created_at": now,
            "updated_at": now,
            **({"custom_props": fields.custom_props} if fields.custom_props else {}),
            **({"currency": fields.currency} if fields.currency else {}),
        }
        _check_unique(goals, goal)
        made[:] = [goal]
        return [*goals, goal]

    _write(account_id, website_id, add)
    return show(made[0], website_id)


def update(account_id: str, website_id: int, goal_id: int, fields: GoalUpdate) -> dict[str, Any]:
    """The goal with its new display name."""
    changed: list[dict[str, Any]] = []

    def rename(goals: stored_goals.Goals, _: int) -> stored_goals.Goals:
        found = [goal for goal in goals if goal["id"] == goal_id]
        if not found:
            raise errors.NotFound()
        goal = {
            **found[0],
            "display_name": fields.display_name,
            "updated_at": clock.after(found[0]["updated_at"]),
        }
        _check_unique(goals, goal)
        changed[:] = [goal]
        return [goal if other["id"] == goal_id else other for other in goals]

    _write(account_id, website_id, rename)
    return show(changed[0], website_id)


def delete(account_id: str, website_id: int, goal_id: int) -> None:
    """Remove the goal; 404 when the website has none of this id."""

    def remove(goals: stored_goals.Goals, _: int) -> stored_goals.Goals:
        if all(goal["id"] != goal_id for goal in goals):
            raise errors.NotFound()
        return [goal for goal in goals if goal["id"] != goal_id]

    _write(account_id, website_id, remove)
