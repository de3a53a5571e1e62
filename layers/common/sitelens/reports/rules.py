"""The rules of a report's fields: its URL, its project and its result bands."""

from __future__ import annotations

from urllib.parse import urlsplit

from sitelens.core import hosts

RESULTS = ("good", "decent", "bad")


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
