"""An upload of access-log lines (`POST /api/v1/websites/{id}/logs`, or one object of a
pull from the customer's S3 prefix) turned into crawl rows, stored once.

Counted: lines of the website's host (a line without a host is the website's) whose user
agent is a bot (`crawlers.identify`), with the crawler's name, family and verification.
Not counted: people's lines, as the tracking script counts people (a log's human lines
would count them twice), lines of other hosts, and lines that are not log lines
(malformed), each counted in the answer.

Idempotent by identity: each counted line's `line_id` is the SHA-256 of the website id,
the line's text and its occurrence of that text in the upload (the 2nd identical line is
another request), and the rows of an upload go to files named by the upload's digest
(`warehouse.crawls.file_key`): the same upload sent twice writes the same files, and a
query counts distinct line ids.
"""

from __future__ import annotations

import hashlib
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sitelens.analytics.crawls import accesslogs, crawlers, verification
from sitelens.analytics.warehouse import crawls
from sitelens.core import errors, hosts, metrics, scopes
from sitelens.data import crawls as stored_crawls
from sitelens.data import websites as stored_websites

MAX_BODY_BYTES: Final = 4 * 1024**2  # as sent: within Lambda's 6 MB, base64 included
MAX_TEXT_BYTES: Final = 64 * 1024**2  # a gzip body's text: about 250,000 lines of 250 bytes
MAX_LINES: Final = 200_000  # an upload's lines: parsed, verified and stored in ~5 s
_LOOKUPS: Final = 16  # DNS verifications at once (each waits on the network)


class NotALog(errors.BadRequest):
    """400: the body holds no line of an access log."""

    def __init__(self, sentence: str) -> None:
        super().__init__()
        self.message = sentence


@dataclass
class Tally:
    """What an upload held: its lines by what became of them."""

    lines: int = 0
    crawls: int = 0
    humans: int = 0
    other_hosts: int = 0
    malformed: int = 0
    by_verification: Counter[str] = field(default_factory=Counter)
    by_family: Counter[str] = field(default_factory=Counter)

    def shown(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "crawls": self.crawls,
            "humans": self.humans,
            "other_hosts": self.other_hosts,
            "malformed": self.malformed,
            "verification": dict(sorted(self.by_verification.items())),
            "families": dict(sorted(self.by_family.items())),
        }


def text_of(body: bytes) -> str:
    """The body's text: gzip inflated (bounded), UTF-8 (other bytes replaced); 413 over
    the bounds."""
    if len(body) > MAX_BODY_BYTES:
        raise errors.PayloadTooLarge()
    if body[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(wbits=31)
        try:
            body = inflater.decompress(body, MAX_TEXT_BYTES + 1)
        except zlib.error as err:
            raise NotALog("The body is gzip that does not inflate.") from err
        if len(body) > MAX_TEXT_BYTES:
            raise errors.PayloadTooLarge()
    return body.decode("utf-8", errors="replace")


def line_id(website_id: int, line: str, occurrence: int) -> str:
    """A line's identity: the same line of the same log is the same crawl, wherever sent."""
    text = f"{int(website_id)}\n{occurrence}\n{line.rstrip(chr(13))}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def read(
    website_id: int,
    site: str,
    lines: Sequence[str],
    form: str,
    realtime_fields: Sequence[str] = accesslogs.REALTIME_FIELDS,
) -> tuple[Tally, list[dict[str, Any]]]:
    """The tally and crawl rows of an upload's lines for the website whose host is `site`.
    NotALog when no line is one of the format's (or of any, for `auto`)."""
    if form == "auto":
        try:
            form = accesslogs.detect(lines)
        except accesslogs.NotALog as err:
            raise NotALog(str(err)) from err
    tally = Tally()
    seen: Counter[str] = Counter()
    claims: list[tuple[accesslogs.LogLine, crawlers.Crawler, str]] = []
    for text, found in accesslogs.parse(lines, form, realtime_fields):
        tally.lines += 1
        seen[text] += 1
        if found is None:
            tally.malformed += 1
            continue
        if found.host and _site(found.host) != site:
            tally.other_hosts += 1
            continue
        crawler = crawlers.identify(found.agent)
        if crawler is None:
            tally.humans += 1
            continue
        claims.append((found, crawler, line_id(website_id, text, seen[text])))
    if tally.lines and tally.malformed == tally.lines:
        raise NotALog(f"No line of the body is an access log of the format {form}.")
    verdicts = _verified({(c, line.ip) for line, c, _ in claims if c.verify})
    rows = []
    for line, crawler, identity in claims:
        verdict = verdicts.get((crawler.name, line.ip), verification.UNVERIFIED)
        tally.crawls += 1
        tally.by_verification[verdict] += 1
        tally.by_family[crawler.family] += 1
        rows.append(
            {
                "line_id": identity,
                "ts": line.at.replace(tzinfo=None),
                "page": line.page[:2048],
                "status": line.status,
                "bot": crawler.name,
                "family": crawler.family,
                "verification": verdict,
            }
        )
    return tally, rows


def _site(host: str) -> str:
    try:
        return hosts.site(host.split(":")[0] if host.count(":") == 1 else host)
    except hosts.InvalidHost:
        return ""


def _verified(claims: set[tuple[crawlers.Crawler, str]]) -> dict[tuple[str, str], str]:
    """Each (crawler's name, address)'s verification, the DNS ones a few at once."""
    ordered = sorted(claims, key=lambda pair: (pair[0].name, pair[1]))
    if not ordered:
        return {}
    with scopes.ThreadPool(max_workers=min(_LOOKUPS, len(ordered))) as pool:
        found = list(pool.map(lambda pair: verification.verify(*pair), ordered))
    return {(c.name, ip): verdict for (c, ip), verdict in zip(ordered, found, strict=True)}


def upload(
    account: str,
    website_id: int,
    body: bytes,
    form: str = "auto",
    realtime_fields: Sequence[str] = accesslogs.REALTIME_FIELDS,
) -> dict[str, Any]:
    """Read and store an upload for the account's website: its tally. 404 for a website not
    the account's, 413 over the bounds, 400 for a body that is no log."""
    website = stored_websites.get(account, website_id)
    if website is None:
        raise errors.NotFound()
    return store(website_id, str(website["domain"]), body, form, realtime_fields)


def store(
    website_id: int,
    domain: str,
    body: bytes,
    form: str = "auto",
    realtime_fields: Sequence[str] = accesslogs.REALTIME_FIELDS,
) -> dict[str, Any]:
    """Read a body of log lines of the website (`domain`) and store its crawl rows."""
    text = text_of(body)
    if not text.strip():
        raise NotALog("The body is empty: send access-log lines.")
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise errors.Invalid.field("body", f"At most {MAX_LINES} lines an upload: split it.")
    tally, rows = read(website_id, _site(domain), lines, form, realtime_fields)
    named = "\t".join([str(website_id), form, *realtime_fields]) + "\n"
    digest = hashlib.sha256(named.encode() + body).hexdigest()[:32]
    by_day: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_day.setdefault(row["ts"].strftime("%Y-%m-%d"), []).append(row)
    files = {crawls.file_key(website_id, day, digest): found for day, found in by_day.items()}
    stored_crawls.put(files, crawls.DUCKDB_COLUMNS)
    for verdict, count in tally.by_verification.items():
        metrics.count("CrawlsStored", count, verification=verdict)
    for reason in ("humans", "other_hosts", "malformed"):
        metrics.count("CrawlLinesSkipped", getattr(tally, reason), reason=reason)
    return tally.shown()
