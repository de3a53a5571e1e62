"""What a brand request may carry: `PUT /api/v1/projects/{project}/brand` and
`PUT /api/v1/account/brand` replace the brand whole."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo

from sitelens.core import hosts
from sitelens.core.config import settings
from sitelens.core.errors import FieldError
from sitelens.records.inputs import Flag, Input, checked_text, label, lines

MAX_NAME = 80  # characters: a header line, a PDF's title and an email's sender name
MAX_CONTACT = 200  # one line under the pages: a phone number, an address, a website
MAX_URL = 2048
MAX_FRAME_ANCESTORS = 10  # origins that may embed the share pages; a CSP header stays short
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_accent(value: str) -> str:
    """`#rgb` or `#rrggbb`, as `#rrggbb` in lower case (it goes into a style sheet)."""
    colour = value.strip()
    if not _HEX.fullmatch(colour):
        raise FieldError("The accent field must be a hex colour such as #1d4ed8.")
    if len(colour) == 4:
        colour = "#" + "".join(c * 2 for c in colour[1:])
    return colour.lower()


def one_line(max_length: int, min_length: int = 0) -> BeforeValidator:
    """Text of one line (no control characters), trimmed, at most `max_length` long."""

    def check(value: Any, info: ValidationInfo) -> str:
        name = label(info.field_name or "")
        if not isinstance(value, str) or _CONTROL.search(value):
            raise FieldError(f"The {name} field must be one line of text.")
        trimmed = value.strip()
        if len(trimmed) > max_length:
            raise FieldError(f"The {name} field must not be greater than {max_length} characters.")
        if len(trimmed) < min_length:
            raise FieldError(f"The {name} field is required.")
        return trimmed

    return BeforeValidator(check)


def check_logo_url(value: str) -> str:
    """An https URL with a host and no credentials (the logo is fetched once, by us); http
    too where the operator lets fetches reach private addresses (local development)."""
    url = value.strip()
    schemes = ("https", "http") if settings().allow_private_urls else ("https",)
    if len(url) > MAX_URL:
        raise FieldError(f"The logo url field must not be greater than {MAX_URL} characters.")
    parts = hosts.split_url(url)
    if parts is None or parts.scheme.lower() not in schemes or not parts.hostname:
        raise FieldError("The logo url must be a valid https URL.")
    if parts.username is not None or parts.password is not None:
        raise FieldError("The logo url must not carry a user name or password.")
    return url


def frame_ancestor(line: str) -> str | None:
    """The sentence refusing an origin that may embed share pages, or None: `https://` and
    a host (a leading `*.` for its subdomains), an optional port, nothing else."""
    problem = f"{line[:100]!r} is not an https origin such as https://client.example."
    scheme, sep, rest = line.partition("://")
    if scheme != "https" or not sep or not rest or any(c in rest for c in "/?#@ ;,'\""):
        return problem
    host, _, port = rest.partition(":")
    if port and (not port.isdigit() or not 0 < int(port) < 65536):
        return problem
    bare = host.removeprefix("*.")  # any other `*` is no host (hosts.parse)
    try:
        parsed = hosts.parse(bare)
    except hosts.InvalidHost:
        return problem
    if parsed.ascii != bare.lower() or "." not in bare:
        return problem  # punycode it, and a single label (localhost) is nobody's site
    return None


class BrandFields(Input):
    """A brand: `name` required; the rest optional (`made_with` 1 unless sent as 0)."""

    name: Annotated[str, one_line(MAX_NAME, min_length=1)]
    logo_url: Annotated[str, checked_text(check_logo_url)] | None = None
    accent: Annotated[str, checked_text(check_accent)] | None = None
    contact: Annotated[str, one_line(MAX_CONTACT)] | None = None
    made_with: Flag = 1
    frame_ancestors: Annotated[str, lines(frame_ancestor, MAX_FRAME_ANCESTORS)] | None = None
