"""The checks of an audit's settings that need more than the request holds: the start URL
through the fetcher's guard, list mode's URLs against the audit's host, and the crawl's
headers, basic auth and cookie sealed together (`tokens.sealing`), never shown back."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from sitelens.audits import urls
from sitelens.core import errors
from sitelens.core.errors import echoed
from sitelens.tokens import sealing

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.audits.inputs import AuditSettings

SECRET_FIELDS = ("headers", "basic_auth", "cookie")  # sealed together, never shown
NO_SECRET = {"headers": [], "basic_auth": False, "cookie": False}  # as shown


def check_start(url: str) -> None:
    """A start URL the report fetcher's guard (`seo.fetch`) lets through, as a report's or
    a webhook's: http or https, no user name or password, an allowed port and, once its
    host resolves, only public addresses (unless the service allows private ones). A host
    that does not resolve now is left to the run, which fails saying so. 422 on `url`."""
    # Imported here: the fetcher brings urllib3 (about 70 ms of a cold start), which only
    # a new start URL needs.
    from sitelens.seo import fetch
    from sitelens.seo.connections import Session

    try:
        target = fetch.target_of(url)
    except fetch.FetchError as err:
        raise errors.Invalid.field("url", str(err)) from None
    session = Session()
    try:
        fetch.checked_addresses(session, target, time.monotonic() + fetch.DEADLINE)
    except fetch.FetchError as err:
        if str(err) != fetch.UNREACHABLE:
            raise errors.Invalid.field("url", str(err)) from None
    finally:
        session.close()


def check_list(url: str, list_urls: str, max_pages: int) -> None:
    """List mode's URLs: at most `max_pages` of them, each on the start URL's host."""
    listed = [line for line in list_urls.split("\n") if line]
    if len(listed) > max_pages:
        raise errors.Invalid.field(
            "list_urls",
            f"The list urls field must not have more URLs than max pages ({max_pages}).",
        )
    host = urls.origin(urls.normalise(url) or url)
    for line in listed:
        if urls.origin(urls.normalise(line) or line) != host:
            raise errors.Invalid.field(
                "list_urls",
                f"Each URL of the list must be on the audit's host, {host}: {echoed(line)}",
            )


def sealed_fields(secret: dict[str, Any], sent: AuditSettings) -> dict[str, Any]:
    """The record's fields of a crawl secret (`headers`, `basic_auth`, `cookie`): sealed
    together, and what an answer shows of it; none when all are empty. 422 on the first of
    them sent when they are larger together than one seal takes."""
    headers, basic_auth, cookie = (secret.get(name) for name in SECRET_FIELDS)
    if not (headers or basic_auth or cookie):
        return {}
    plain = json.dumps(
        {"headers": headers or {}, "basic_auth": basic_auth or None, "cookie": cookie or None},
        separators=(",", ":"),
    )
    if len(plain.encode()) > sealing.MAX_PLAINTEXT_BYTES:
        field = next(name for name in SECRET_FIELDS if getattr(sent, name) is not None)
        raise errors.Invalid.field(
            field,
            f"The headers, basic auth and cookie must not be longer than "
            f"{sealing.MAX_PLAINTEXT_BYTES} bytes together.",
        )
    shown = {
        "headers": sorted(headers or {}),
        "basic_auth": bool(basic_auth),
        "cookie": bool(cookie),
    }
    return {"crawl_secret": sealing.seal(plain), "crawl_secret_shown": json.dumps(shown)}


def secret_change(sent: AuditSettings) -> Any:
    """The crawl secret's new record fields given the stored record (None when the request
    sends none of its parts; an empty dict when it clears them all). A part not sent is
    kept from the stored secret, unsealed (once for each stored secret met)."""
    parts = {name: getattr(sent, name) for name in SECRET_FIELDS}
    made: dict[str, dict[str, Any]] = {}

    def sealed(found: dict[str, Any]) -> dict[str, Any] | None:
        if all(value is None for value in parts.values()):
            return None
        stored_token = found.get("crawl_secret") or ""
        if stored_token not in made:
            kept: dict[str, Any] = {}
            if stored_token and any(value is None for value in parts.values()):
                try:
                    kept = json.loads(sealing.unseal(stored_token))
                except sealing.BadSeal:  # sealed under a key this stack no longer has
                    field = next(name for name, value in parts.items() if value is not None)
                    raise errors.Invalid.field(
                        field,
                        "The stored headers, basic auth and cookie cannot be read; send "
                        "all three again.",
                    ) from None
            merged = {
                name: kept.get(name) if value is None else value for name, value in parts.items()
            }
            made[stored_token] = sealed_fields(merged, sent)
        return made[stored_token]

    return sealed
