"""A timestamped backfill: a keyed caller's past events of one website, counted as hits
of their own time (`POST /api/v1/websites/{id}/events`, docs/backfill.md).

A batch is checked whole before anything is queued: one bad event refuses the batch, and
nothing of it is stored. Each event becomes a `Hit` through the tracker's own rules
(`hits.backfilled_hit`) and travels the same queue to the aggregator, so it is counted and
written to the warehouse exactly as a live hit is, with two differences:

- Its id is derived, not random (`hit_id`): a UUIDv7 of the event's millisecond and a
  hash of the website, the caller's key id and the caller's event id. A batch sent again
  (after a timeout, a 5xx) is the same hits, which counting adds once by id (`counting`)
  and the warehouse keeps once by id (`warehouse.raw`).
- Its visitor is not the daily salted hash: a past day's salt is destroyed, and must stay
  so. An event's `visitor` (the caller's pseudonym) is hashed with a key drawn for this
  request and forgotten after it, so events of one visitor in one batch are one visitor,
  and nothing kept can link them to another batch, day or the caller's pseudonym. Without
  a `visitor`, each event is a visitor of its own.

Age. The aggregator parks a hit older than `counting.COUNTABLE_SECONDS` (22 days: the
longest path a message can take, after which its dedupe records may be gone), and counts
nothing of it. A backfilled event must be countable after waiting its queue's whole
retention (`queues.HITS_RETENTION_SECONDS`, 4 days), so MAX_AGE_SECONDS is the difference:
18 days. A resend of an accepted event comes within that age, while the records of its
first counting are kept 23 days from then (`counting.RECORDS_KEPT_SECONDS`): it always
finds them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Annotated, Any, Self

from pydantic import AwareDatetime, Field, ValidationError

from sitelens.analytics import counting, hits
from sitelens.analytics.hit import Hit
from sitelens.core import clock, errors, hosts, metrics, properties
from sitelens.data import queues
from sitelens.data import websites as stored_websites
from sitelens.records.inputs import Input

MAX_EVENTS = 100  # a batch: a few seconds of queueing, well inside the function's timeout
MAX_AGE_SECONDS = counting.COUNTABLE_SECONDS - queues.HITS_RETENTION_SECONDS  # 18 days
MAX_AHEAD_SECONDS = 300  # a caller's clock may run a little ahead of ours: no further
MAX_ID_LENGTH = 128

Text = Annotated[str, Field(max_length=hits.MAX_URL_LENGTH)]
CallerId = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH, pattern=r"^[!-~]+$")]


class BackfillEvent(Input):
    """One past pageview, or custom event when `name` is given."""

    id: CallerId  # the caller's id of the event: its identity for dedupe
    timestamp: AwareDatetime  # with its offset (`Z` or `+02:00`)
    page: Text
    referrer: Text = ""
    name: Annotated[str, Field(max_length=hits.MAX_EVENT_PART_LENGTH)] = ""
    props: dict[str, Any] | None = None
    visitor: CallerId | None = None  # the caller's pseudonym: hashed, never stored
    user_agent: Annotated[str, Field(max_length=1024)] = ""
    screen_resolution: Annotated[str, Field(max_length=16)] = ""


class BackfillBatch(Input):
    events: Annotated[list[BackfillEvent], Field(min_length=1)]

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Self:
        """The batch, or 422 naming each bad field as `events[<i>].<field>`; a batch of
        more than MAX_EVENTS is refused before any event is read."""
        events = data.get("events")
        if isinstance(events, list) and len(events) > MAX_EVENTS:
            raise errors.Invalid.field(
                "events", f"A batch holds at most {MAX_EVENTS} events; send the rest in another."
            )
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise errors.Invalid(_messages(exc)) from None


def _messages(exc: ValidationError) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for problem in exc.errors():
        where = "events"
        loc = problem["loc"]
        if len(loc) >= 2 and isinstance(loc[1], int):
            where = f"events[{loc[1]}]" + (f".{loc[2]}" if len(loc) > 2 else "")
        if problem["type"] == "missing":
            sentence = f"The {where} field is required."
        else:
            sentence = f"The {where} field is invalid: {problem['msg']}."
        found.setdefault(where, []).append(sentence)
    return found


def hit_id(at: datetime, website_id: int, key_id: str, event_id: str) -> str:
    """A UUIDv7 of `at`'s millisecond whose other 74 bits hash what the caller named: the
    same event sent again is the same hit."""
    millis = int(at.timestamp() * 1000) & ((1 << 48) - 1)
    seed = f"{website_id}\0{key_id}\0{event_id}".encode()
    bits = int.from_bytes(hashlib.blake2b(seed, digest_size=10).digest(), "big")
    value = (millis << 80) | (0x7 << 76) | ((bits >> 62) & 0xFFF) << 64
    value |= (0b10 << 62) | (bits & ((1 << 62) - 1))
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def record(account: str, key_id: str, website_id: int, batch: BackfillBatch) -> dict[str, int]:
    """Check the batch whole, then queue its hits; 404 for a website not the account's,
    422 naming the first event out of bounds (future, too old, another site's page, an id
    twice), with nothing queued. The events the website excludes (bots, with
    `exclude_bots`) are counted in `excluded`, not queued."""
    website = stored_websites.get(account, website_id)
    if website is None:
        raise errors.NotFound()
    now = clock.now()
    _check_bounds(batch, now, hosts.site(str(website["domain"])))
    visitor_key = secrets.token_bytes(32)  # this request's only: forgotten when it ends
    built: list[Hit] = []
    excluded = 0
    for place, event in enumerate(batch.events):
        try:
            built.append(_hit(website, key_id, event, visitor_key))
        except hits.ExcludedHit as exclusion:
            metrics.count("HitsExcluded", reason=exclusion.why)
            excluded += 1
        except hits.InvalidHit as invalid:
            raise errors.Invalid.field(f"events[{place}].{invalid.field}", str(invalid)) from None
    for hit in _visits(built):
        queues.send_hit(account, hit.to_json(), hit.id)
    metrics.count("HitsBackfilled", len(built))
    return {"accepted": len(built), "excluded": excluded}


def _check_bounds(batch: BackfillBatch, now: datetime, site: str) -> None:
    oldest = now - timedelta(seconds=MAX_AGE_SECONDS)
    latest = now + timedelta(seconds=MAX_AHEAD_SECONDS)
    seen: set[str] = set()
    for place, event in enumerate(batch.events):
        if event.id in seen:
            raise errors.Invalid.field(
                f"events[{place}].id", f"The id {event.id!r} is sent twice in this batch."
            )
        seen.add(event.id)
        if event.timestamp > latest:
            raise errors.Invalid.field(
                f"events[{place}].timestamp", "The timestamp must not be in the future."
            )
        if event.timestamp < oldest:
            days = MAX_AGE_SECONDS // 86_400
            raise errors.Invalid.field(
                f"events[{place}].timestamp",
                f"The timestamp must be at most {days} days old: older events can no longer "
                "be counted exactly once.",
            )
        try:
            page_site = hits.page_host(event.page)
        except hits.InvalidHit as invalid:
            raise errors.Invalid.field(f"events[{place}].page", str(invalid)) from None
        if page_site != site:
            raise errors.Invalid.field(
                f"events[{place}].page", "The page must be on the website's domain."
            )


def _hit(website: Mapping[str, Any], key_id: str, event: BackfillEvent, key: bytes) -> Hit:
    website_id = int(website["id"])
    the_id = hit_id(event.timestamp, website_id, key_id, event.id)
    who = event.visitor if event.visitor is not None else "\0" + the_id
    visitor = hashlib.blake2b(f"{website_id}\0{who}".encode(), key=key, digest_size=16)
    fields = {
        "page": event.page,
        "referrer": event.referrer,
        "screen_resolution": event.screen_resolution,
    }
    if event.name:
        fields["event[name]"] = event.name
    if event.props:
        try:
            fields["props"] = properties.props_text(event.props)
        except properties.InvalidProperties as invalid:
            raise hits.InvalidHit(str(invalid), "props") from None
    headers = {"user-agent": event.user_agent}
    if not event.user_agent:  # no agent to judge: the keyed caller vouches for its events
        website = {**website, "exclude_bots": 0}
    return hits.backfilled_hit(
        website, fields, headers, event.timestamp, visitor.hexdigest(), the_id
    )


def _visits(built: list[Hit]) -> list[Hit]:
    """The hits with `visit` set as the warehouse sees them: a visitor's first pageview of
    a UTC day in the batch starts its visit, the others continue it (the live tracker reads
    it from the referrer, which a backfill's caller may not have sent)."""
    started: set[tuple[str, str]] = set()
    marked = []
    for hit in sorted(built, key=lambda h: h.at):
        if hit.event or hit.excluded:
            marked.append(hit)
            continue
        day = (hit.visitor, hit.at.strftime("%Y-%m-%d"))
        marked.append(dataclasses.replace(hit, visit=day not in started))
        started.add(day)
    return marked
