"""What a fetch brings back: the shapes shared by fetching and analysis."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Response:
    """One HTTP answer, after redirects were followed."""

    url: str  # the final URL, after redirects
    status: int
    headers: dict[str, str]  # lower-cased names; repeated headers joined with ", "
    body: bytes  # decoded from gzip/br/zstd, at most the body cap
    elapsed: float  # seconds from the first request to the last byte
    redirects: int = 0
    content_encoding: str = ""  # as sent by the server, before decoding ("gzip", "br", "")


@dataclass(frozen=True)
class Site:
    """The page with what the checks need from around it."""

    page: Response
    robots_txt: Response | None = None  # None when /robots.txt could not be fetched
    missing_page_status: int | None = None  # status of a random missing path, None on failure
