"""A website's saved segments: listing, creating, changing and deleting them (404 for a
website or segment that is not the account's; 422 for filters the query API refuses, a
name the website has already, or one segment more than `rules.MAX_SEGMENTS`), and putting
a saved segment's filters in place of `["is", "segment", [id]]` in a query (`expanded`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sitelens.analytics.segments import rules
from sitelens.analytics.warehouse import filters, query
from sitelens.core import clock, errors, hosts
from sitelens.data import segments as stored_segments
from sitelens.data import websites as stored_websites

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.analytics.segments.inputs import SegmentCreate, SegmentUpdate

__all__ = ["create", "delete", "expanded", "get", "list_all", "named", "show", "update"]


def show(segment: dict[str, Any], website_id: int) -> dict[str, Any]:
    """A segment as the API returns it."""
    return {
        "id": segment["id"],
        "website_id": website_id,
        "name": segment["name"],
        "filters": segment["filters"],
        "created_at": segment["created_at"],
        "updated_at": segment["updated_at"],
    }


def _stored(account_id: str, website_id: int) -> dict[str, Any]:
    website = stored_websites.get(account_id, website_id)
    if website is None:
        raise errors.NotFound()
    return website


def list_all(account_id: str, website_id: int) -> list[dict[str, Any]]:
    """Every segment of the website, in id order; 404 when the website is not the account's."""
    website = _stored(account_id, website_id)
    return [show(segment, website_id) for segment in stored_segments.of(website)]


def get(account_id: str, website_id: int, segment_id: int) -> dict[str, Any]:
    for segment in stored_segments.of(_stored(account_id, website_id)):
        if segment["id"] == segment_id:
            return show(segment, website_id)
    raise errors.NotFound()


def _check_unique(segments: stored_segments.Segments, segment: dict[str, Any]) -> None:
    if any(other["id"] != segment["id"] and other["name"] == segment["name"] for other in segments):
        raise errors.Invalid.field("name", rules.NAME_TAKEN)


def _write(account_id: str, website: dict[str, Any], apply: Any) -> None:
    # at most MAX_SEGMENTS x MAX_FILTERS_BYTES: the item stays far under DynamoDB's 400 KB
    site = hosts.site(website["domain"])
    if stored_segments.change(account_id, int(website["id"]), site, apply) is None:
        raise errors.NotFound()


def create(account_id: str, website_id: int, fields: SegmentCreate) -> dict[str, Any]:
    """A new segment of the website."""
    website = _stored(account_id, website_id)
    now = clock.now_iso()
    made: list[dict[str, Any]] = []

    def add(segments: stored_segments.Segments, next_id: int) -> stored_segments.Segments:
        if len(segments) >= rules.MAX_SEGMENTS:
            raise errors.Invalid.field("segments", rules.TOO_MANY)
        segment = {
            "id": next_id,
            "name": fields.name,
            "filters": fields.filters,
            "created_at": now,
            "updated_at": now,
        }
        _check_unique(segments, segment)
        made[:] = [segment]
        return [*segments, segment]

    _write(account_id, website, add)
    return show(made[0], website_id)


def update(
    account_id: str, website_id: int, segment_id: int, fields: SegmentUpdate
) -> dict[str, Any]:
    """The segment with its new name and/or filters."""
    if fields.name is None and fields.filters is None:
        raise errors.Invalid.field("name", rules.NOTHING)
    website = _stored(account_id, website_id)
    changed: list[dict[str, Any]] = []

    def change(segments: stored_segments.Segments, _: int) -> stored_segments.Segments:
        found = [segment for segment in segments if segment["id"] == segment_id]
        if not found:
            raise errors.NotFound()
        segment = {
            **found[0],
            **({"name": fields.name} if fields.name is not None else {}),
            **({"filters": fields.filters} if fields.filters is not None else {}),
            "updated_at": clock.after(found[0]["updated_at"]),
        }
        _check_unique(segments, segment)
        changed[:] = [segment]
        return [segment if other["id"] == segment_id else other for other in segments]

    _write(account_id, website, change)
    return show(changed[0], website_id)


def delete(account_id: str, website_id: int, segment_id: int) -> None:
    """Remove the segment; 404 when the website has none of this id."""

    def remove(segments: stored_segments.Segments, _: int) -> stored_segments.Segments:
        if all(segment["id"] != segment_id for segment in segments):
            raise errors.NotFound()
        return [segment for segment in segments if segment["id"] != segment_id]

    _write(account_id, _stored(account_id, website_id), remove)


def named(website: dict[str, Any], segment_id: int) -> dict[str, Any]:
    """One of the stored website's saved segments; 422 on `segment` when it has none of
    that id (a share page's view, a recipient's digest)."""
    for segment in stored_segments.of(website):
        if segment["id"] == segment_id:
            return segment
    raise errors.Invalid.field("segment", rules.NOT_A_SEGMENT)


def expanded(account_id: str, body: Any) -> Any:
    """The query body with each top-level `["is", "segment", [id]]` replaced by the saved
    segment's filters, for the query to be checked whole again (bounds included); the body
    as it is when it names no segment (or is not a query: its checks say why). 422 for a
    segment that is not one of the query's websites' (another website's, another account's,
    or deleted), 404 for a website that is not the account's."""
    if not isinstance(body, dict) or not isinstance(body.get("filters"), list):
        return body
    wanted = filters.segment_ids(filters.parse(body["filters"]))
    if not wanted:
        return body
    websites = [_stored(account_id, site) for site in query.site_ids_of(body.get("site_id"))]
    saved = {
        int(segment["id"]): segment["filters"]
        for website in websites
        for segment in stored_segments.of(website)
    }
    for segment_id in wanted:
        if segment_id not in saved:
            raise errors.Invalid.field("filters", rules.NOT_SAVED.format(id=segment_id))
    spliced: list[Any] = []
    for item in body["filters"]:
        if isinstance(item, list) and len(item) == 3 and item[1] == filters.SEGMENT:
            spliced.extend(saved[filters.segment_ids(filters.parse([item]))[0]])
        else:
            spliced.append(item)
    return {**body, "filters": spliced}
