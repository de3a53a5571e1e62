"""What a domain-verification request may carry: the domain, and for a check the page to
look at and the one way of proof to look for."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

from sitelens.core import hosts
from sitelens.core.errors import FieldError
from sitelens.records.inputs import Input, choice
from sitelens.websites.inputs import Domain

METHODS = ("dns", "file", "meta")
MAX_URL_LENGTH = 2048
INVALID_URL = "The url must be a valid http or https URL."


def _url(value: Any) -> str:
    """An http or https URL with a host (the domain's: checked with the domain); trimmed."""
    if not isinstance(value, str):
        raise FieldError("The url field must be a string.")
    url = value.strip()
    if len(url) > MAX_URL_LENGTH:
        raise FieldError(f"The url field must not be greater than {MAX_URL_LENGTH} characters.")
    parts = hosts.split_url(url)
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise FieldError(INVALID_URL)
    return url


class DomainVerification(Input):
    domain: Domain


class DomainCheck(DomainVerification):
    # the site's home page, on the domain (another port for a local site under make serve);
    # by default https://<domain>/
    url: Annotated[str, BeforeValidator(_url)] | None = None
    method: Annotated[str, choice(*METHODS)] | None = None  # None: each way, in this order
