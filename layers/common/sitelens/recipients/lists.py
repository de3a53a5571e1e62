"""A website's or an audit's recipients: added unconfirmed (a confirmation mailed), listed,
removed; the confirmed ones a digest goes to."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sitelens.analytics import segments
from sitelens.core import clock, errors
from sitelens.data import audits as stored_audits
from sitelens.data import recipients as stored
from sitelens.data import websites as stored_websites

# Recipients a website or an audit may have: a client's team, not a mailing list (each
# address costs a confirmation mail and a digest a period).
MAX_RECIPIENTS = 10
TOO_MANY = f"A website or an audit has at most {MAX_RECIPIENTS} recipients."


@dataclass(frozen=True)
class Target:
    """What recipients follow: a website (`website`) or an audit (`audit`) of an account."""

    account: str
    kind: str
    record_id: int

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.record_id}"

    def record(self) -> dict[str, Any]:
        """The website or audit, read within the key's scope; 404 when there is none."""
        read = stored_websites.get if self.kind == "website" else stored_audits.get
        found = read(self.account, self.record_id)
        if found is None:
            raise errors.NotFound()
        return found

    def name(self) -> str:
        found = self.record()
        return str(found.get("domain") or found.get("url"))


def address_id(email: str) -> str:
    """A recipient's id: the address's hash, so that links never carry the address."""
    return hashlib.sha256(email.lower().encode()).hexdigest()[:32]


def public(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": entry["id"],
        "object": "recipient",
        "email": entry["email"],
        "confirmed": bool(entry.get("confirmed")),
        "segment": entry.get("segment"),
        "created_at": entry["created_at"],
        "confirmed_at": entry.get("confirmed_at"),
    }


def listing(target: Target) -> list[dict[str, Any]]:
    """A target's recipients; 404 for a target the key does not reach."""
    target.record()
    return [
        public(entry) for entry in stored.of_target(target.account, target.key, MAX_RECIPIENTS + 1)
    ]


def add(
    target: Target, email: str, base_url: str, segment: int | None = None
) -> tuple[dict[str, Any], bool]:
    """Add an address, unconfirmed, and mail it a confirmation link; (the recipient, whether
    it is new). An address already there is answered as it is, and mailed nothing again.
    A website's recipient may take one of its saved segments: its digest shows the figures
    under it. 422 past `MAX_RECIPIENTS`, and on `segment` for an audit's recipient or an id
    the website has no segment of."""
    # Imported here: only adding mails (and loads the email package).
    from sitelens.recipients import mails

    if segment is not None:
        if target.kind != "website":
            raise errors.Invalid.field("segment", "Only a website's recipients take a segment.")
        segments.named(target.record(), segment)
    name = target.name()
    key = address_id(email)
    existing = stored.get(target.account, target.key, key)
    if existing is not None:
        return public(existing), False
    if len(stored.of_target(target.account, target.key, MAX_RECIPIENTS + 1)) >= MAX_RECIPIENTS:
        raise errors.Invalid.field("email", TOO_MANY)
    now = clock.now_iso()
    entry = {"id": key, "email": email, "confirmed": False, "created_at": now, "segment": segment}
    if not stored.add(target.account, target.key, key, email, now, segment):  # added in between
        found = stored.get(target.account, target.key, key)
        return public(found or entry), False
    mails.send_confirmation(target.account, target.key, name, key, email, base_url)
    return public(entry), True


def remove(target: Target, recipient_id: str) -> None:
    """Remove a recipient; 404 when the target has none of that id."""
    target.record()
    if len(recipient_id) != 32 or not stored.remove(target.account, target.key, recipient_id):
        raise errors.NotFound()


def confirmed(account: str, limit: int = 1000) -> dict[str, list[dict[str, Any]]]:
    """The account's confirmed recipients by target key (`website:<id>`, `audit:<id>`):
    what its digests go to besides the account's own address."""
    found: dict[str, list[dict[str, Any]]] = {}
    for entry in stored.of_account(account, limit):
        if entry.get("confirmed"):
            found.setdefault(str(entry["target"]), []).append(entry)
    return found
