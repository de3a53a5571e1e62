"""An account's webhook endpoints: made with a URL that passes the network guard, the
events they want and optionally the websites and projects they hear about; listed, shown,
changed, paused or enabled again, deleted; their signing secret rotated with an overlap.
A secret is shown when it is made, never again."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sitelens.accounts import keyring
from sitelens.core import clock, errors, scopes
from sitelens.data import webhooks as stored
from sitelens.webhooks import signing

if TYPE_CHECKING:
    from sitelens.webhooks.inputs import EndpointCreate, EndpointUpdate, SecretRotate

MAX_ENDPOINTS = 20  # an account's: each event is one Query and at most this many deliveries


def reach(endpoint: dict[str, Any]) -> scopes.Scope:
    """The websites and projects an endpoint hears about (as a read scope)."""
    websites, projects = endpoint.get("websites"), endpoint.get("projects")
    return scopes.Scope(
        access="read",
        websites=None if not websites else frozenset(int(w) for w in websites.split(",")),
        projects=None if not projects else frozenset(projects.split(",")),
    )


def iso_of(seconds: Any) -> str | None:
    """Unix seconds as the contract writes time; None for None."""
    return None if seconds is None else clock.iso(datetime.fromtimestamp(float(seconds), UTC))


def show(endpoint: dict[str, Any]) -> dict[str, Any]:
    """An endpoint as the API shows it: never its secrets."""
    shown = reach(endpoint).public()
    return {
        "id": int(endpoint["id"]),
        "url": endpoint["url"],
        "description": endpoint.get("description") or "",
        "events": endpoint["events"].split(","),
        "websites": shown["websites"],
        "projects": shown["projects"],
        "enabled": bool(endpoint.get("enabled")),
        "disabled_reason": endpoint.get("disabled_reason"),
        "failing_since": endpoint.get("failing_since"),
        "created_at": endpoint["created_at"],
        "updated_at": endpoint["updated_at"],
        "secret_rotated_at": endpoint.get("rotated_at"),
        "previous_secret_expires_at": iso_of(endpoint.get("previous_expires_at")),
    }


def _check_url(url: str) -> None:
    # Imported here: the sender brings urllib3 and the fetcher's guard (about 40 ms of a cold
    # start), which only a new URL needs, not listing, reading or deleting endpoints.
    from sitelens.webhooks import sending

    problem = sending.check_url(url)
    if problem:
        raise errors.Invalid.field("url", problem)


def _joined(values: list[Any] | None) -> str | None:
    return ",".join(str(v) for v in values) if values else None


def create(account_id: str, fields: EndpointCreate) -> dict[str, Any]:
    """A new endpoint, enabled, with its secret shown this once."""
    _check_url(fields.url)
    keyring.check_websites(account_id, fields.websites)
    now = clock.now_iso()
    endpoint = {
        "id": str(stored.next_endpoint_id()),
        "url": fields.url,
        "description": fields.description,
        "events": ",".join(fields.events),
        "websites": _joined(fields.websites),
        "projects": _joined(fields.projects),
        "enabled": True,
        "secret": signing.new_secret(),
        "created_at": now,
        "updated_at": now,
    }
    if not stored.add_endpoint(account_id, endpoint, MAX_ENDPOINTS):
        raise errors.Invalid.field("url", f"An account may have at most {MAX_ENDPOINTS} endpoints.")
    return {**show(endpoint), "secret": endpoint["secret"]}


def stored_endpoint(account_id: str, endpoint_id: int) -> dict[str, Any]:
    """The account's endpoint; 404 when it has none of this id."""
    endpoint = stored.get_endpoint(account_id, str(endpoint_id))
    if endpoint is None:
        raise errors.NotFound()
    return endpoint


def list_all(account_id: str) -> list[dict[str, Any]]:
    """The account's endpoints, newest first."""
    return sorted((show(e) for e in stored.endpoints(account_id)), key=lambda e: -e["id"])


def get(account_id: str, endpoint_id: int) -> dict[str, Any]:
    return show(stored_endpoint(account_id, endpoint_id))


def update(account_id: str, endpoint_id: int, fields: EndpointUpdate) -> dict[str, Any]:
    """Change what was sent; enabling again clears why it was disabled."""
    endpoint = stored_endpoint(account_id, endpoint_id)
    if fields.url is not None:
        _check_url(fields.url)
        endpoint["url"] = fields.url
    if fields.events is not None:
        endpoint["events"] = ",".join(fields.events)
    if fields.description is not None:
        endpoint["description"] = fields.description
    if fields.websites is not None:
        keyring.check_websites(account_id, fields.websites)
        endpoint["websites"] = _joined(fields.websites)
    if fields.projects is not None:
        endpoint["projects"] = _joined(fields.projects)
    if fields.enabled is not None:
        endpoint["enabled"] = bool(fields.enabled)
        endpoint["disabled_reason"] = None if fields.enabled else "Paused through the API."
        endpoint["failing_since"] = None
    endpoint["updated_at"] = clock.after(endpoint["updated_at"])
    if not stored.put_endpoint(account_id, endpoint):
        raise errors.NotFound()
    return show(endpoint)


def delete(account_id: str, endpoint_id: int) -> None:
    if not stored.delete_endpoint(account_id, str(endpoint_id)):
        raise errors.NotFound()


def rotate_secret(account_id: str, endpoint_id: int, fields: SecretRotate) -> dict[str, Any]:
    """A new signing secret, shown this once; deliveries are signed with the old one too
    (a second `v1,` signature) for `fields.overlap` seconds."""
    endpoint = stored_endpoint(account_id, endpoint_id)
    endpoint["previous_secret"] = endpoint["secret"] if fields.overlap else None
    endpoint["previous_expires_at"] = int(time.time()) + fields.overlap if fields.overlap else None
    endpoint["secret"] = signing.new_secret()
    endpoint["rotated_at"] = clock.now_iso()
    endpoint["updated_at"] = clock.after(endpoint["updated_at"])
    if not stored.put_endpoint(account_id, endpoint):
        raise errors.NotFound()
    return {**show(endpoint), "secret": endpoint["secret"]}


def secrets_now(endpoint: dict[str, Any], now: float) -> list[str]:
    """The secrets a delivery is signed with now: the current one, and the previous one
    while its overlap lasts."""
    found = [endpoint["secret"]]
    until = endpoint.get("previous_expires_at")
    if endpoint.get("previous_secret") and until is not None and now < float(until):
        found.append(endpoint["previous_secret"])
    return found
