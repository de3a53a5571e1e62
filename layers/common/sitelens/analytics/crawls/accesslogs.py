"""Access-log lines in the formats servers and CDNs write, read into `LogLine`s.

- `combined` / `common`: Apache's mod_log_config formats, `%h %l %u %t "%r" %>s %b` and,
  for combined, `"%{Referer}i" "%{User-agent}i"` after them (nginx's default `combined` is
  the same). A line of the Common format has no user agent, so no crawler can be named.
- `cloudfront`: CloudFront's standard logs (W3C extended: `#Version`/`#Fields` headers, then
  tab-separated values in the order `#Fields` names; user agents URL-encoded).
- `cloudfront-realtime`: CloudFront's real-time logs: tab-separated, no header, the fields
  the configuration chose in CloudFront's order (`REALTIME_FIELDS`, its documented order).
- `jsonl`: one JSON object a line with the keys `JSON_KEYS` documents.

The formats are fixed and small: a regular expression and a split each, after their specs,
rather than a parser package in the layer (docs/crawlers.md says which were weighed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Final
from urllib.parse import unquote

FORMATS: Final = ("auto", "combined", "common", "cloudfront", "cloudfront-realtime", "jsonl")

# CloudFront's real-time log fields, in the order its documentation lists them (and a
# record holds the chosen ones in): "Real-time logs" > "Fields".
REALTIME_FIELDS: Final = (
    "timestamp", "c-ip", "time-to-first-byte", "sc-status", "sc-bytes", "cs-method",
    "cs-protocol", "cs-host", "cs-uri-stem", "cs-bytes", "x-edge-location",
    "x-edge-request-id", "x-host-header", "time-taken", "cs-protocol-version", "c-ip-version",
    "cs-user-agent", "cs-referer", "cs-cookie", "cs-uri-query", "x-edge-response-result-type",
    "x-forwarded-for", "ssl-protocol", "ssl-cipher", "x-edge-result-type",
    "fle-encrypted-fields", "fle-status", "sc-content-type", "sc-content-len",
    "sc-range-start", "sc-range-end", "c-port", "x-edge-detailed-result-type", "c-country",
    "cs-accept-encoding", "cs-accept", "cache-behavior-path-pattern", "cs-headers",
    "cs-header-names", "cs-headers-count", "primary-distribution-id",
    "primary-distribution-dns-name", "origin-fbl", "origin-lbl", "asn",
)  # fmt: skip
# JSON lines: the key each fact is read from, the first one present
JSON_KEYS: Final = {
    "time": ("time", "timestamp", "ts"),  # ISO 8601 with an offset, or epoch seconds
    "host": ("host",),  # optional: the website's host when absent
    "path": ("path", "uri", "url"),  # path and query, or a whole URL
    "status": ("status",),
    "user_agent": ("user_agent", "ua", "http_user_agent"),
    "ip": ("ip", "remote_addr", "client_ip"),
}

_APACHE = re.compile(
    r'^(?P<ip>\S+) \S+ \S+ \[(?P<time>[^\]]+)\] "(?P<request>[^"\\]*(?:\\.[^"\\]*)*)" '
    r"(?P<status>\d{3}) \S+"
    r'(?: "(?P<referer>[^"\\]*(?:\\.[^"\\]*)*)" "(?P<agent>[^"\\]*(?:\\.[^"\\]*)*)")?'
)


class NotALog(ValueError):
    """The body is no access log of the format asked (nor of any, for `auto`)."""


@dataclass(frozen=True)
class LogLine:
    """What a crawl row is made of: when, which host and page, the answer, who asked."""

    at: datetime  # UTC
    host: str  # "" when the format does not say (the website's host is meant)
    page: str  # path and query, as requested
    status: int
    agent: str  # "" when the format has none (Common)
    ip: str


def detect(lines: Sequence[str]) -> str:
    """The format of a body's first non-empty lines; NotALog when none fits."""
    for line in lines[:20]:
        text = line.strip()
        if not text:
            continue
        if text.startswith(("#Version", "#Fields")):
            return "cloudfront"
        if text.startswith("{"):
            return "jsonl"
        found = _APACHE.match(text)
        if found:
            return "combined" if found.group("agent") is not None else "common"
    raise NotALog("The body is no access log: say its format with `format`.")


def parse(
    lines: Sequence[str], form: str, realtime_fields: Sequence[str] = REALTIME_FIELDS
) -> Iterator[tuple[str, LogLine | None]]:
    """Each log line with its `LogLine`, or None when it is not one (malformed), in order;
    blank lines and `#` lines (CloudFront's headers) are no log lines."""
    fields: Sequence[str] = ()
    for line in lines:
        if line.startswith("#Fields:"):
            fields = line[len("#Fields:") :].split()
        if not line.strip() or line.startswith("#"):
            continue
        if form == "jsonl":
            yield line, _json_line(line)
        elif form in ("combined", "common"):
            yield line, _apache_line(line)
        elif form == "cloudfront-realtime":
            yield line, _tabbed(line, realtime_fields, _epoch)
        else:
            yield line, _tabbed(line, fields, _w3c_time) if fields else None


def _apache_line(line: str) -> LogLine | None:
    found = _APACHE.match(line.strip())
    if found is None:
        return None
    request = found.group("request").split(" ")
    at = _apache_time(found.group("time"))
    if at is None:
        return None
    if len(request) < 2:
        return None  # "-" or a bare garbage request: no page
    agent = (found.group("agent") or "").replace('\\"', '"')
    return LogLine(at, "", request[1], int(found.group("status")), agent, found.group("ip"))


_MONTHS: Final = {
    name: n
    for n, name in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}


@lru_cache(maxsize=4096)  # a log's lines come a few to the second
def _apache_time(text: str) -> datetime | None:
    """`%t`, `27/Nov/2026:10:00:00 +0100`, as UTC; read by slicing (strptime took 70 % of
    an upload's time)."""
    try:
        if len(text) != 26 or text[2] + text[6] + text[11] + text[20] != "//: ":
            raise ValueError(text)
        offset = (int(text[22:24]) * 60 + int(text[24:26])) * (-1 if text[21] == "-" else 1)
        at = datetime(
            int(text[7:11]), _MONTHS[text[3:6]], int(text[0:2]),
            int(text[12:14]), int(text[15:17]), int(text[18:20]), tzinfo=UTC,
        )  # fmt: skip
    except (ValueError, KeyError):
        return None
    return at - timedelta(minutes=offset)


def _epoch(values: dict[str, str]) -> datetime:
    return datetime.fromtimestamp(float(values["timestamp"]), UTC)


def _w3c_time(values: dict[str, str]) -> datetime:
    return datetime.fromisoformat(f"{values['date']}T{values['time']}").replace(tzinfo=UTC)


def _tabbed(line: str, fields: Sequence[str], when: object) -> LogLine | None:
    cells = line.rstrip("\r\n").split("\t")
    if len(cells) != len(fields):
        return None
    values = dict(zip(fields, cells, strict=True))
    try:
        at = when(values)  # type: ignore[operator]
        status = int(values["sc-status"])
        path = values.get("cs-uri-stem", "")
        query = values.get("cs-uri-query", "-")
        agent = values.get("cs(User-Agent)", values.get("cs-user-agent", "-"))
        # the Host the viewer sent (an alternate domain name); cs(Host) is the distribution's
        host = next(
            (values[f] for f in ("x-host-header", "cs-host") if values.get(f, "-") != "-"), "-"
        )
        ip = values["c-ip"]
    except (KeyError, ValueError, OverflowError):
        return None
    if not path.startswith("/"):
        return None
    page = path if query in ("-", "") else f"{path}?{query}"
    return LogLine(at, "" if host == "-" else host, page, status, _dash(unquote(agent)), ip)


def _dash(value: str) -> str:
    return "" if value == "-" else value


def _json_line(line: str) -> LogLine | None:
    try:
        found = json.loads(line)
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None

    def first(fact: str) -> object:
        return next((found[key] for key in JSON_KEYS[fact] if key in found), None)

    when, path, status = first("time"), first("path"), first("status")
    try:
        if isinstance(when, int | float) and not isinstance(when, bool):
            at = datetime.fromtimestamp(when, UTC)
        elif isinstance(when, str):
            at = datetime.fromisoformat(when.replace("Z", "+00:00"))
            if at.tzinfo is None:
                return None  # a time without its offset is no time
            at = at.astimezone(UTC)
        else:
            return None
        code = int(status) if isinstance(status, int | str) and not isinstance(status, bool) else 0
    except (ValueError, OverflowError, OSError):
        return None
    if not isinstance(path, str) or not 100 <= code <= 599:
        return None
    host = first("host")
    if path.startswith(("http://", "https://")):
        scheme_less = path.split("://", 1)[1]
        host = host or scheme_less.split("/", 1)[0]
        path = "/" + scheme_less.split("/", 1)[1] if "/" in scheme_less else "/"
    if not path.startswith("/"):
        return None
    agent, ip = first("user_agent"), first("ip")
    return LogLine(
        at,
        host if isinstance(host, str) else "",
        path,
        code,
        agent if isinstance(agent, str) else "",
        ip if isinstance(ip, str) else "",
    )
