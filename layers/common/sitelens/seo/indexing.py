"""Whether a page asks search engines not to index it: robots `<meta>` tags and the
`X-Robots-Tag` header, as Google documents them and Lighthouse's is-crawlable audit reads
them.

Each crawler of `robots.AGENTS` is asked on its own. Its own `<meta name="googlebot">`
(and so on) replaces the generic `<meta name="robots">`; a header applies to it when it
names no crawler (`X-Robots-Tag: noindex`) or names this one (`googlebot: noindex`), so
`otherbot: noindex` concerns no search engine here. `noindex` and `none` block, and so does
`unavailable_after: <date>` once the date has passed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final

from sitelens.seo.robots import AGENTS

BLOCKING: Final = frozenset({"noindex", "none"})  # "none" is noindex, nofollow
UNAVAILABLE_AFTER: Final = "unavailable_after"
# directives that take a value after a colon; any other "word:" names a crawler
_VALUED: Final = frozenset(
    {UNAVAILABLE_AFTER, "max-snippet", "max-image-preview", "max-video-preview"}
)
_SCOPE: Final = re.compile(r"^\s*([A-Za-z0-9._-]+)\s*:\s*(.*)$", re.DOTALL)


@dataclass(frozen=True)
class Directive:
    """One directive as found: for which crawler ("" for all) and where."""

    agent: str  # lower-case crawler name, "" when it names none
    value: str  # lower-case, e.g. "noindex" or "unavailable_after: 2020-01-01"
    source: str  # '<meta name="robots">' or 'X-Robots-Tag'


def meta_name(agent: str) -> str:
    """The `<meta name>` that addresses `agent` ("robots" for any crawler)."""
    return "robots" if agent == "*" else agent.lower()


def _tokens(text: str) -> list[str]:
    """The comma-separated directives of a tag or header line, stripped; the comma of an
    RFC 850 date ("unavailable_after: Friday, 25-Jun-10 15:00:00 GMT") does not split."""
    tokens: list[str] = []
    for part in text.split(","):
        if tokens and re.match(r"\s*\d", part) and UNAVAILABLE_AFTER in tokens[-1].lower():
            tokens[-1] = f"{tokens[-1]},{part}"
        elif part.strip():
            tokens.append(part.strip())
    return tokens


def header_directives(values: list[str]) -> list[Directive]:
    """The directives of `X-Robots-Tag` header lines, each with the crawler it names."""
    found = []
    for line in values:
        agent = ""
        for token in _tokens(line):
            scoped = _SCOPE.match(token)
            if scoped and scoped.group(1).lower() not in _VALUED:
                agent, token = scoped.group(1).lower(), scoped.group(2).strip()
            if token:
                found.append(Directive(agent, token.lower(), "X-Robots-Tag"))
    return found


def meta_directives(name: str, content: str) -> list[Directive]:
    """The directives of one robots `<meta>` tag."""
    agent = "" if name == "robots" else name
    source = f'<meta name="{name}">'
    return [Directive(agent, token.lower(), source) for token in _tokens(content)]


def blocks(value: str, now: datetime) -> bool:
    """Whether one directive keeps a page out of the index (now)."""
    if value in BLOCKING:
        return True
    name, _, date = value.partition(":")
    if name.strip() != UNAVAILABLE_AFTER:
        return False
    when = parse_date(date.strip())
    return when is not None and when <= now


def parse_date(text: str) -> datetime | None:
    """A date in one of the formats Google accepts for `unavailable_after` (RFC 822, RFC
    850, ISO 8601); UTC when it names no zone. None when it is none of them."""
    parsed: datetime | None
    try:
        parsed = parsedate_to_datetime(text)  # RFC 822 and 850, with zone names like PST
    except (TypeError, ValueError, IndexError):
        try:
            parsed = datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
        except ValueError:
            return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def blocked_agents(
    metas: dict[str, str], headers: list[str], now: datetime
) -> dict[str, list[str]]:
    """For each of `AGENTS`, the sources that keep it from indexing the page (empty when
    none does). `metas` maps a lower-case meta name to its first tag's content."""
    from_headers = header_directives(headers)
    found: dict[str, list[str]] = {}
    for agent in AGENTS:
        name = meta_name(agent)
        own = name if name in metas else "robots"
        directives = meta_directives(own, metas[own]) if own in metas else []
        scope = "" if agent == "*" else agent.lower()
        directives += [d for d in from_headers if d.agent in ("", scope)]
        found[agent] = list(
            dict.fromkeys(
                f"{d.source}: {d.value}" if d.source == "X-Robots-Tag" else d.source
                for d in directives
                if blocks(d.value, now)
            )
        )
    return found
