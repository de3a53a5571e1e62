"""The rules of an annotation's fields, and the bounds of a website's annotations.

Each rule is the document's (`openapi/analytics.yaml`, AnnotationCreate), so that what the
schema allows the server takes as it is, with the rules no schema states: a day or time
that does not exist, a text of white space only, a link without a host.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Final
from urllib.parse import urlsplit

from sitelens.core import clock
from sitelens.core.errors import FieldError

# A website's annotations are one Query, read whole with every time series that asks for
# them: 1,000 of the largest (2.7 KB) are under three 1 MB pages. A deploy a working day
# for four years.
MAX_ANNOTATIONS: Final = 1_000
MAX_TEXT_LENGTH: Final = 500
MAX_LINK_LENGTH: Final = 2_048
TOO_MANY: Final = f"A website has at most {MAX_ANNOTATIONS} annotations: delete old ones."
# a day, or a moment with an offset (seconds and their fraction optional)
DATE_PATTERN: Final = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$"
)
# http or https, then no white space or control character; empty: no link
LINK_PATTERN: Final = r"^([Hh][Tt][Tt][Pp][Ss]?://[^\x00-\x20\x7f]+)?$"
INVALID_DATE: Final = (
    "The date field must be a day (YYYY-MM-DD, in the website's time zone) or a date and"
    f" time with an offset (2026-11-25T14:03:00Z), {clock.YEARS}."
)
INVALID_LINK: Final = (
    f"The link field must be an http or https URL with a host, of at most {MAX_LINK_LENGTH}"
    " characters, without white space."
)
_DATE: Final = re.compile(DATE_PATTERN)
_LINK: Final = re.compile(LINK_PATTERN)


def check_date(value: str) -> str:
    """`YYYY-MM-DD` as it is, or a moment as UTC `YYYY-MM-DDTHH:MM:SSZ`."""
    if not _DATE.match(value):
        raise FieldError(INVALID_DATE)
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            if not clock.in_calendar(day):
                raise ValueError(value)
            return day.isoformat()
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if not clock.in_calendar(moment):
            raise ValueError(value)
    except ValueError:
        raise FieldError(INVALID_DATE) from None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_text(value: str) -> str:
    if not 0 < len(value) <= MAX_TEXT_LENGTH:
        raise FieldError(f"The text field must have 1 to {MAX_TEXT_LENGTH} characters.")
    if not value.strip():
        raise FieldError("The text field must not be only white space.")
    return value


def check_link(value: str) -> str:
    """An http or https URL (shown as a link, never fetched); empty: none."""
    if len(value) > MAX_LINK_LENGTH or not _LINK.match(value):
        raise FieldError(INVALID_LINK)
    if value:
        try:
            host = urlsplit(value).hostname
        except ValueError:  # a bracketed host that is no IPv6 address, say
            host = None
        if not host:
            raise FieldError(INVALID_LINK)
    return value
