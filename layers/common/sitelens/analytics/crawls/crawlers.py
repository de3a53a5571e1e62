"""Which crawler a user agent is: a bot by the maintained lists the script's filter uses
(`visitors.is_bot`: isbot's patterns and crawlerdetect), named and put in a family by
`crawlers.json` (each crawler's token, family, how its claim is verified, and the
operator's page saying so). A bot the file does not name keeps crawlerdetect's name for
it, or "Other bot", in the family "other"."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from typing import Any, Final

from sitelens.analytics import visitors

FAMILIES: Final = ("search", "ai-training", "ai-assistant", "seo-tool", "other")
OTHER_BOT: Final = "Other bot"


@dataclass(frozen=True)
class Crawler:
    """A named crawler: `verify` is None (its claim cannot be checked), {"method": "dns",
    "domains": [...]} or {"method": "ranges", "file": "<ranges/ file>"}."""

    name: str
    family: str
    verify: dict[str, Any] | None = field(default=None, compare=False, hash=False)


@cache
def known() -> tuple[tuple[re.Pattern[str], Crawler], ...]:
    """`crawlers.json`'s crawlers in its order, each with the pattern of its token."""
    text = resources.files("sitelens.analytics.crawls").joinpath("crawlers.json").read_text()
    listed = json.loads(text)["crawlers"]
    return tuple(
        (
            re.compile(r"(?<![A-Za-z0-9-])" + re.escape(item["token"]), re.IGNORECASE),
            Crawler(item["name"], item["family"], item.get("verify")),
        )
        for item in listed
    )


@lru_cache(maxsize=8192)  # a log repeats the same few hundred agents
def identify(agent: str) -> Crawler | None:
    """The crawler a user agent names, or None for a person's browser (not a bot)."""
    for pattern, crawler in known():
        if pattern.search(agent):
            return crawler
    if not agent.strip() or not visitors.is_bot(agent):
        return None  # no agent (Common's lines): nothing to name
    return Crawler(_other_name(agent), "other")


def _other_name(agent: str) -> str:
    from crawlerdetect import CrawlerDetect

    detector = CrawlerDetect()
    if detector.is_crawler(agent):
        found = (detector.get_matches() or "").strip()
        if found:
            return found[:64]
    return OTHER_BOT
