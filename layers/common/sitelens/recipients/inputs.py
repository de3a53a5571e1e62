"""What adding a recipient may carry: one email address, and for a website's recipient one of
its saved segments, the figures its digest shows."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator

from sitelens.analytics import segments
from sitelens.core import numbers
from sitelens.core.errors import FieldError
from sitelens.records.inputs import Input, checked_text

MAX_EMAIL = 254  # RFC 5321's path limit
# one address, no display name, no comments: what a person types in a form
_EMAIL = re.compile(
    r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+"
)


def email_address(value: str) -> str:
    """An address as mail goes to it: trimmed, its domain lower-cased."""
    address = value.strip()
    if len(address) > MAX_EMAIL or not _EMAIL.fullmatch(address):
        raise FieldError("The email must be a valid email address.")
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}"


def segment_id(value: object) -> int:
    """A saved segment's id, as a form's digits or a JSON integer (the website holds it:
    `recipients.add` checks)."""
    found = numbers.record_id(str(value))
    if found is None:
        raise FieldError(segments.rules.NOT_A_SEGMENT)
    return found


class RecipientAdd(Input):
    email: Annotated[str, checked_text(email_address)]
    segment: Annotated[int, BeforeValidator(segment_id)] | None = None
