"""Plausible's event format, read as the fields of Sitelens' own (`tracking`): so that a
page keeps Plausible's script, or the Events API calls of its server, and points them at
`POST /api/event` (docs/api.md, "Plausible's format").

A body is in Plausible's format when it names no `page` and names the event (`n`, `name`)
or its URL (`u`, `url`). Each field is read as Plausible's ingestion reads it: short or
long name, props as an object or its JSON text with empty and nested values left out, the
site from `d` (a comma-separated list counts the event on each) or else from the URL's
host. What Sitelens then checks (the page, properties, revenue) it checks by its own rules.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from sitelens.core import errors

PAGEVIEW: Final = "pageview"
ENGAGEMENT: Final = "engagement"  # Plausible's time on a page (`e`) and scroll depth (`sd`)
MAX_DOMAINS: Final = 10  # sites one event may be counted on (`d`): each is a look-up


@dataclass(frozen=True)
class Sent:
    """A Plausible event as Sitelens reads it."""

    fields: dict[str, Any]  # Sitelens' fields: page, referrer, event, props, revenue...
    sites: tuple[str, ...]  # the hosts of `d`; () for the page's own
    flags: dict[str, str] = field(default_factory=dict)  # `hash_mode`, `interactive`


def is_plausible(fields: Mapping[str, Any]) -> bool:
    """Whether a tracking request is in Plausible's format rather than Sitelens' own."""
    return "page" not in fields and any(name in fields for name in ("n", "name", "u", "url"))


def read(fields: Mapping[str, Any]) -> Sent:
    """Sitelens' fields for a Plausible event; 422 on `name` or `domain` when Plausible
    would refuse them too (missing, blank, not text). `u` becomes `page`, which Sitelens
    checks as its own."""
    name = _first(fields, "n", "name")
    if isinstance(name, int) and not isinstance(name, bool):
        name = str(name)  # Plausible takes numbers (404 tracking) as their text
    if not isinstance(name, str) or not name.strip():
        raise errors.Invalid.field("name", "The name field is required, as text.")
    sent: dict[str, Any] = {}
    url = _first(fields, "u", "url")
    if url is not None:  # else Sitelens' own 422: the page is required
        sent["page"] = url
    referrer = _first(fields, "r", "referrer")
    if isinstance(referrer, str):  # Plausible's script sends null for none
        sent["referrer"] = referrer
    props = _props(_first(fields, "p", "props", "m", "meta"))
    if props:
        sent["props"] = props
    revenue = _first(fields, "$", "revenue")
    if revenue is not None:
        sent["revenue"] = revenue
    if name == ENGAGEMENT:
        sent.update(_engagement(fields))
    elif name != PAGEVIEW:
        sent["event"] = {"name": name}
    flags = {}
    if _first(fields, "h", "hashMode") in (1, True, "1"):
        flags["hash_mode"] = "1"
    if _first(fields, "i", "interactive") is False:
        flags["interactive"] = "false"
    return Sent(sent, _sites(_first(fields, "d", "domain")), flags)


def _first(fields: Mapping[str, Any], *names: str) -> Any:
    """The first of `names` sent, and not null (Plausible's `a || b`)."""
    return next((fields[name] for name in names if fields.get(name) is not None), None)


def _sites(domain: Any) -> tuple[str, ...]:
    if domain is None:
        return ()
    if not isinstance(domain, str):
        raise errors.Invalid.field("domain", "The domain field must be text.")
    sites = tuple(dict.fromkeys(part.strip().lower() for part in domain.split(",")))
    if not all(sites):
        raise errors.Invalid.field("domain", "The domain field must not have a blank domain.")
    if len(sites) > MAX_DOMAINS:
        raise errors.Invalid.field("domain", f"The domain field names at most {MAX_DOMAINS}.")
    return sites


def _props(value: Any) -> dict[str, Any]:
    """Plausible's props: an object or its JSON text, whose null, blank, list and object
    values Plausible leaves out; anything unreadable is no props, as there."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    if not isinstance(value, Mapping):
        return {}
    return {
        key: item
        for key, item in value.items()
        if item is not None
        and not isinstance(item, list | dict)
        and not (isinstance(item, str) and not item.strip())
    }


def _engagement(fields: Mapping[str, Any]) -> dict[str, Any]:
    """`e` (milliseconds on the page) and `sd` (percent scrolled, cut to 100) as Sitelens'
    `engagement_ms` and `scroll_depth`; Plausible needs one of them, and so does this."""
    engaged, depth = _whole(fields.get("e")), _whole(fields.get("sd"))
    if engaged is None and depth is None:
        raise errors.Invalid.field(
            "e", "An engagement needs e (milliseconds) or sd (a percent), a whole number."
        )
    found: dict[str, Any] = {"engagement_ms": engaged or 0}
    if depth is not None:
        found["scroll_depth"] = min(depth, 100)
    return found


def _whole(value: Any) -> int | None:
    """A whole number of at least 0, sent as a number or as its text; None otherwise."""
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None
