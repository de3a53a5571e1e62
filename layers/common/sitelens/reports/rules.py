"""The rules of a report's fields: its URL, its project and its result bands."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from sitelens.core import hosts
from sitelens.core.errors import FieldError

MAX_URL_LENGTH = 2048
RESULTS = ("good", "decent", "bad")


def check_url(value: Any) -> str:
    """A report URL: http or https with a host, at most 2,048 characters, trimmed."""
    if not isinstance(value, str):
        raise FieldError("The url field must be a string.")
    url = value.strip()
    if len(url) > MAX_URL_LENGTH:
        raise FieldError(f"The url field must not be greater than {MAX_URL_LENGTH} characters.")
    parts = hosts.split_url(url)
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise FieldError("The url must be a valid http or https URL.")
    return url


def project_name(host: str) -> str:
    """A project is a site as people read it (`www.Bücher.de` -> `bücher.de`); text that is
    not a host (a search typed by a user) is only trimmed and lower-cased."""
    try:
        return hosts.parse(host).site_name
    except hosts.InvalidHost:
        return host.strip().lower()


def project_of(url: str) -> str:
    """A report's project: the final URL's site."""
    return project_name(urlsplit(url).hostname or "")
