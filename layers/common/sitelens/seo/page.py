"""What a fetch brings back: the shapes shared by fetching and analysis."""

from __future__ import annotations

from dataclasses import dataclass, field


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
    # each line of the headers whose lines mean something apart (`LINE_HEADERS`)
    header_lines: dict[str, list[str]] = field(default_factory=dict)

    def lines(self, name: str) -> list[str]:
        """The lines of a header, each as sent (the joined value when lines were not kept)."""
        if name in self.header_lines:
            return self.header_lines[name]
        return [self.headers[name]] if name in self.headers else []


# An X-Robots-Tag line may name a crawler for all its directives; a Link line's commas
# separate links: joined with ", " they would run into each other.
LINE_HEADERS = ("x-robots-tag", "link")


@dataclass(frozen=True)
class FieldVital:
    """A Core Web Vital measured on real visits of the page (a report's field data), rated
    where Google's thresholds live (`analytics.warehouse.vitals`), so the checks need none."""

    p75: float  # the 75th percentile: milliseconds, CLS a score
    rating: str  # "good", "needs_improvement" or "poor"
    good_up_to: float  # Google's "good" threshold, in the unit of `p75`
    samples: int  # page views that measured it
    days: int  # over the last this many days


@dataclass(frozen=True)
class Site:
    """The page with what the checks need from around it."""

    page: Response
    robots_txt: Response | None = None  # None when /robots.txt was not or could not be fetched
    robots_error: str | None = None  # why it could not be fetched (a `FetchError` sentence)
    missing_page_status: int | None = None  # status of a random missing path, None on failure
    # the vitals ("lcp", "inp", "cls") real visits measured often enough to judge the page by
    field_vitals: dict[str, FieldVital] = field(default_factory=dict)
