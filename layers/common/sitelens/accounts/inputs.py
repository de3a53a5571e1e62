"""What a keys request may carry: a new key's name and scopes, a rotation's overlap; and a
members request: an invitation, a role, the audit log's filters."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo

from sitelens.accounts import roles
from sitelens.core import clock, hosts, numbers, scopes
from sitelens.core.errors import FieldError
from sitelens.records.inputs import Cursor, Input, PerPage, checked_text, choice, expiry, text

MAX_NAME_LENGTH = 100
MAX_LIFETIME_DAYS = 3 * 366  # a key that expires expires within three years
MAX_KEY_RATE = 1_000  # requests a second a key may be limited to (its account's still apply)
MAX_OVERLAP_SECONDS = 7 * 86_400  # a rotated key's old secret works at most a week longer
DEFAULT_OVERLAP_SECONDS = 3_600


def _items(value: Any, name: str) -> list[Any]:
    """A list field: repeated `name[]` form fields, a JSON array, or comma-separated text."""
    if isinstance(value, str):
        value = [part for part in (p.strip() for p in value.split(",")) if part]
    if not isinstance(value, list):
        raise FieldError(f"The {name} field must be a list.")
    if len(value) > scopes.MAX_LISTED:
        raise FieldError(f"The {name} field must not have more than {scopes.MAX_LISTED} items.")
    return value


def _website_ids(value: Any, info: ValidationInfo) -> list[int]:
    ids = []
    for item in _items(value, "websites"):
        number = numbers.whole(item)
        if number is None:
            raise FieldError("The websites field must list website ids.")
        ids.append(number)
    return sorted(set(ids))


def _projects(value: Any, info: ValidationInfo) -> list[str]:
    names = []
    for item in _items(value, "projects"):
        try:
            if not isinstance(item, str):
                raise TypeError(item)
            names.append(hosts.parse(item).site_name)
        except (hosts.InvalidHost, TypeError):
            raise FieldError("The projects field must list projects (hosts).") from None
    return sorted(set(names))


def overlap_seconds(value: Any, info: ValidationInfo) -> int:
    """Seconds a replaced secret keeps working: 0 to `MAX_OVERLAP_SECONDS`."""
    sentence = (
        f"The overlap field must be a whole number of seconds from 0 to {MAX_OVERLAP_SECONDS}."
    )
    number = numbers.whole(value)
    if number is None or number > MAX_OVERLAP_SECONDS:
        raise FieldError(sentence)
    return number


# Lists of what a key (or a webhook endpoint) is limited to.
WebsiteIds = Annotated[list[int], BeforeValidator(_website_ids)]
Projects = Annotated[list[str], BeforeValidator(_projects)]


def _rate(value: Any, info: ValidationInfo) -> int:
    """Requests a second the key may make on its own, within its account's limit."""
    sentence = f"The rate limit field must be a whole number from 1 to {MAX_KEY_RATE}."
    number = numbers.whole(value)
    if number is None or not 1 <= number <= MAX_KEY_RATE:
        raise FieldError(sentence)
    return number


class KeyCreate(Input):
    """A new key: `access` read or write (default read); `websites` and `projects` limit
    it to those (absent: all of the account's); `expires_at` ends it (absent: never);
    `rate_limit` gives it a bucket of its own, requests a second (absent: its account's)."""

    name: Annotated[str, text(MAX_NAME_LENGTH, min_length=1)]
    access: Annotated[str, choice(*scopes.ACCESS)] = "read"
    websites: WebsiteIds | None = None
    projects: Projects | None = None
    expires_at: Annotated[int, expiry(MAX_LIFETIME_DAYS, "three years")] | None = None
    rate_limit: Annotated[int, BeforeValidator(_rate)] | None = None


class KeyRotate(Input):
    """How many seconds the old secret keeps working beside the new one (0: none)."""

    overlap: Annotated[int, BeforeValidator(overlap_seconds)] = DEFAULT_OVERLAP_SECONDS


MAX_ACTION_LENGTH = 64  # the longest action is far shorter


def _email(value: str) -> str:
    from sitelens.accounts.keys import check_email

    try:
        return check_email(value).lower()  # one member per address, whatever its case
    except ValueError:
        raise FieldError("The email must be a valid email address.") from None


def _actor(value: Any, info: ValidationInfo) -> int:
    number = numbers.record_id(str(value))
    if number is None:
        raise FieldError("The actor field must be a member id.")
    return number


class MemberInvite(Input):
    """An invitation: the address it is mailed to and the role it gives."""

    email: Annotated[str, checked_text(_email)]
    role: Annotated[str, choice(*roles.ROLES)]


class MemberUpdate(Input):
    """A member's new role."""

    role: Annotated[str, choice(*roles.ROLES)]


class InvitationToken(Input):
    """The invitation link's token (its query, or a POST's field)."""

    token: Annotated[str, text(2_000, min_length=1)]


class AuditLogQuery(Input):
    """A page of the audit log: `per_page`, `cursor`, and the filters `actor` (a member id)
    and `action` (`key.created`, ...)."""

    per_page: PerPage = 25
    cursor: Cursor | None = None
    actor: Annotated[int, BeforeValidator(_actor)] | None = None
    action: Annotated[str, text(MAX_ACTION_LENGTH, min_length=1)] | None = None

    def params(self) -> dict[str, Any]:
        return self.model_dump(exclude={"cursor"}, exclude_none=True)


class WorkspaceCreate(Input):
    """A new workspace: its name (a client's, say)."""

    name: Annotated[str, text(MAX_NAME_LENGTH, min_length=1)]


def _month(value: Any, info: ValidationInfo) -> str:
    sentence = f"The month field must be a month in the format YYYY-MM, {clock.YEARS}."
    text_value = value.strip() if isinstance(value, str) else ""
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", text_value):
        raise FieldError(sentence)
    if not clock.in_calendar(date(int(text_value[:4]), int(text_value[5:]), 1)):
        raise FieldError(sentence)
    return text_value


class UsageQuery(Input):
    """The month whose usage is asked (`YYYY-MM`; absent: this month, UTC)."""

    month: Annotated[str, BeforeValidator(_month)] | None = None
