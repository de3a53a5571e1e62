"""A website's annotations: listing, creating, changing and deleting them (404 for a
website or annotation that is not the account's; 422 for a bad field or one annotation
more than `rules.MAX_ANNOTATIONS`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors
from sitelens.data import annotations as stored_annotations
from sitelens.websites.annotations import rules
from sitelens.websites.records import stored, writable

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.websites.annotations.inputs import AnnotationCreate, AnnotationUpdate


def show(record: dict[str, Any]) -> dict[str, Any]:
    """An annotation as the API returns it."""
    return {
        "id": record["id"],
        "website_id": record["website_id"],
        "date": record["date"],
        "text": record["text"],
        "link": record.get("link") or None,
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def _in_order(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # a day sorts as its first moment, before that day's timed annotations
    return sorted(found, key=lambda record: (record["date"], record["id"]))


def list_all(account_id: str, website_id: int) -> list[dict[str, Any]]:
    """Every annotation of the website, by date; 404 when the website is not the account's."""
    stored(account_id, website_id)
    return [show(r) for r in _in_order(stored_annotations.of_website(account_id, website_id))]


def get(account_id: str, website_id: int, annotation_id: int) -> dict[str, Any]:
    stored(account_id, website_id)
    record = stored_annotations.get(account_id, website_id, annotation_id)
    if record is None:
        raise errors.NotFound()
    return show(record)


def create(account_id: str, website_id: int, fields: AnnotationCreate) -> dict[str, Any]:
    """A new annotation of the website. The bound is checked by counting first: two
    creates at once may pass it by one each, which the bound's margin allows."""
    writable(account_id, website_id)  # 409 once released
    if len(stored_annotations.of_website(account_id, website_id)) >= rules.MAX_ANNOTATIONS:
        raise errors.Invalid.field("annotations", rules.TOO_MANY)
    now = clock.now_iso()
    record = {
        "account": stored_annotations.partition(account_id, website_id),
        "id": stored_annotations.allocate_id(account_id, website_id),
        "website_id": website_id,
        "date": fields.date,
        "text": fields.text,
        "link": fields.link or "",
        "created_at": now,
        "updated_at": now,
    }
    return show(stored_annotations.create(record))


def update(
    account_id: str, website_id: int, annotation_id: int, fields: AnnotationUpdate
) -> dict[str, Any]:
    """Apply the fields that were sent, PUT and PATCH alike."""
    writable(account_id, website_id)
    sent = fields.model_dump(include={"date", "text", "link"}, exclude_none=True)

    def change(current: dict[str, Any]) -> dict[str, Any]:
        return {**current, **sent, "updated_at": clock.after(current["updated_at"])}

    record = stored_annotations.update(account_id, website_id, annotation_id, change)
    if record is None:
        raise errors.NotFound()
    return show(record)


def delete(account_id: str, website_id: int, annotation_id: int) -> None:
    writable(account_id, website_id)
    if stored_annotations.delete(account_id, website_id, annotation_id) is None:
        raise errors.NotFound()
