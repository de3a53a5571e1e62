"""A website's saved funnels: listing, creating, changing and deleting them (404 for a
website or funnel that is not the account's; 422 for a step that is not a goal of the
website, a name the website has already, or one funnel more than `rules.MAX_FUNNELS`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors
from sitelens.data import funnels as stored_funnels
from sitelens.data import goals as stored_goals
from sitelens.websites.funnels import rules
from sitelens.websites.records import site_of, stored

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.websites.funnels.inputs import FunnelCreate, FunnelUpdate

__all__ = ["create", "delete", "get", "list_all", "show", "update"]


def show(funnel: dict[str, Any], website_id: int) -> dict[str, Any]:
    """A funnel as the API returns it."""
    return {
        "id": funnel["id"],
        "website_id": website_id,
        "name": funnel["name"],
        "steps": list(funnel["steps"]),
        "created_at": funnel["created_at"],
        "updated_at": funnel["updated_at"],
    }


def list_all(account_id: str, website_id: int) -> list[dict[str, Any]]:
    """Every funnel of the website, in id order; 404 when the website is not the account's."""
    website = stored(account_id, website_id)
    return [show(funnel, website_id) for funnel in stored_funnels.of(website)]


def get(account_id: str, website_id: int, funnel_id: int) -> dict[str, Any]:
    for funnel in stored_funnels.of(stored(account_id, website_id)):
        if funnel["id"] == funnel_id:
            return show(funnel, website_id)
    raise errors.NotFound()


def _check_steps(website: dict[str, Any], steps: list[int]) -> None:
    goal_ids = {int(goal["id"]) for goal in stored_goals.of(website)}
    for number, goal_id in enumerate(steps, start=1):
        if goal_id not in goal_ids:
            raise errors.Invalid.field("steps", rules.NOT_A_GOAL.format(step=number))


def _check_unique(funnels: stored_funnels.Funnels, funnel: dict[str, Any]) -> None:
    if any(other["id"] != funnel["id"] and other["name"] == funnel["name"] for other in funnels):
        raise errors.Invalid.field("name", rules.NAME_TAKEN)


def _write(account_id: str, website: dict[str, Any], apply: Any) -> None:
    # the funnels are small (at most 10 x 8 ids): they never make the item too large
    if stored_funnels.change(account_id, int(website["id"]), site_of(website), apply) is None:
        raise errors.NotFound()


def create(account_id: str, website_id: int, fields: FunnelCreate) -> dict[str, Any]:
    """A new funnel of the website's goals."""
    website = stored(account_id, website_id)
    _check_steps(website, fields.steps)
    now = clock.now_iso()
    made: list[dict[str, Any]] = []

    def add(funnels: stored_funnels.Funnels, next_id: int) -> stored_funnels.Funnels:
        if len(funnels) >= rules.MAX_FUNNELS:
            raise errors.Invalid.field("funnels", rules.TOO_MANY)
        funnel = {
            "id": next_id,
            "name": fields.name,
            "steps": fields.steps,
            "created_at": now,
            "updated_at": now,
        }
        _check_unique(funnels, funnel)
        made[:] = [funnel]
        return [*funnels, funnel]

    _write(account_id, website, add)
    return show(made[0], website_id)


def update(
    account_id: str, website_id: int, funnel_id: int, fields: FunnelUpdate
) -> dict[str, Any]:
    """The funnel with its new name and/or steps."""
    if fields.name is None and fields.steps is None:
        raise errors.Invalid.field("name", rules.NOTHING)
    website = stored(account_id, website_id)
    if fields.steps is not None:
        _check_steps(website, fields.steps)
    changed: list[dict[str, Any]] = []

    def change(funnels: stored_funnels.Funnels, _: int) -> stored_funnels.Funnels:
        found = [funnel for funnel in funnels if funnel["id"] == funnel_id]
        if not found:
            raise errors.NotFound()
        funnel = {
            **found[0],
            **({"name": fields.name} if fields.name is not None else {}),
            **({"steps": fields.steps} if fields.steps is not None else {}),
            "updated_at": clock.after(found[0]["updated_at"]),
        }
        _check_unique(funnels, funnel)
        changed[:] = [funnel]
        return [funnel if other["id"] == funnel_id else other for other in funnels]

    _write(account_id, website, change)
    return show(changed[0], website_id)


def delete(account_id: str, website_id: int, funnel_id: int) -> None:
    """Remove the funnel; 404 when the website has none of this id."""

    def remove(funnels: stored_funnels.Funnels, _: int) -> stored_funnels.Funnels:
        if all(funnel["id"] != funnel_id for funnel in funnels):
            raise errors.NotFound()
        return [funnel for funnel in funnels if funnel["id"] != funnel_id]

    _write(account_id, stored(account_id, website_id), remove)
