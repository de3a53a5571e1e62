"""The rules of an annotation's fields, and the bounds of a website's annotations."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Final
from urllib.parse import urlsplit

from sitelens.core.errors import FieldError

# A website's annotations are one Query, read whole with every time series that asks for
# them: 1,000 of the largest (2.7 KB) are under three 1 MB pages. A deploy a working day
# for four years.
MAX_ANNOTATIONS: Final = 1_000
MAX_TEXT_LENGTH: Final = 500
MAX_LINK_LENGTH: Final = 2_048
TOO_MANY: Final = f"A website has at most {MAX_ANNOTATIONS} annotations: delete old ones."
INVALID_DATE: Final = (
    "The date field must be a date (YYYY-MM-DD, a day in the website's time zone) or an"
    " ISO 8601 date and time with an offset (2026-11-25T14:03:00Z)."
)


def check_date(value: str) -> str:
    """`YYYY-MM-DD` as it is, or a moment as UTC `YYYY-MM-DDTHH:MM:SSZ`."""
    text = value.strip()
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise FieldError(INVALID_DATE) from None
    if moment.tzinfo is None or not 1970 <= moment.year <= 9998:
        raise FieldError(INVALID_DATE)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_text(value: str) -> str:
    text = value.strip()
    if not text or len(text) > MAX_TEXT_LENGTH:
        raise FieldError(f"The text field must have 1 to {MAX_TEXT_LENGTH} characters.")
    return text


def check_link(value: str) -> str:
    """An http or https URL (shown as a link, never fetched); empty: none."""
    link = value.strip()
    if not link:
        return ""
    parts = urlsplit(link)
    if (
        len(link) > MAX_LINK_LENGTH
        or parts.scheme.lower() not in ("http", "https")
        or not parts.netloc
    ):
        raise FieldError(
            f"The link field must be an http or https URL of at most {MAX_LINK_LENGTH} characters."
        )
    if any(ord(char) < 33 for char in link):
        raise FieldError("The link field must not contain spaces or control characters.")
    return link
