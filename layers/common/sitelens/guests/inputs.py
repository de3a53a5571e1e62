"""What a guest link request may carry: the record it opens first, and when it ends."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo

from sitelens.core import errors, numbers
from sitelens.core.errors import FieldError
from sitelens.records.inputs import Input, expiry

MAX_LINK_DAYS = 90  # a guest link ends within a quarter; make a new one for a longer engagement


def _record_id(value: Any, info: ValidationInfo) -> int:
    number = numbers.whole(value)
    if number is None:
        raise FieldError(f"The {info.field_name} field must be a {info.field_name}'s id.")
    return number


KINDS = ("website", "report", "audit")
ONE_RECORD = "Name exactly one of website, report and audit: the share view the link opens."
RecordId = Annotated[int, BeforeValidator(_record_id)]


class LinkCreate(Input):
    """Exactly one of `website`, `report` and `audit` (an id of the account's, within the
    key's reach): the share view the link opens first; `expires_at` ends it (default: in
    `guests.links.DEFAULT_SECONDS`, never past the key's own expiry)."""

    website: RecordId | None = None
    report: RecordId | None = None
    audit: RecordId | None = None
    expires_at: Annotated[int, expiry(MAX_LINK_DAYS, f"{MAX_LINK_DAYS} days")] | None = None

    def target(self) -> tuple[str, int]:
        """(kind, id) of the record the link opens first; 422 on `website` unless exactly
        one is named."""
        named = [(k, getattr(self, k)) for k in KINDS if getattr(self, k) is not None]
        if len(named) != 1:
            raise errors.Invalid.field("website", ONE_RECORD)
        kind, record_id = named[0]
        return kind, int(record_id)
