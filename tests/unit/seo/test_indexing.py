"""noindex as Google documents it and Lighthouse's is-crawlable audit reads it: robots
meta tags per crawler, X-Robots-Tag lines scoped to a crawler, unavailable_after."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sitelens.seo import indexing

NOW = datetime(2026, 11, 24, tzinfo=UTC)
ENGINES = ("Googlebot", "Bingbot", "DuckDuckBot", "archive.org_bot")


def blocked(metas: dict[str, str] | None = None, headers: list[str] | None = None) -> set[str]:
    found = indexing.blocked_agents(metas or {}, headers or [], NOW)
    return {agent for agent, sources in found.items() if sources}


def test_a_generic_noindex_blocks_every_crawler() -> None:
    assert blocked({"robots": "noindex"}) == {"*", *ENGINES}
    assert blocked(headers=["noindex, nofollow"]) == {"*", *ENGINES}
    assert blocked(headers=["none"]) == {"*", *ENGINES}


def test_a_crawler_s_own_meta_replaces_the_generic_one() -> None:
    assert blocked({"robots": "noindex", "googlebot": "index, follow"}) == {
        "*",
        "Bingbot",
        "DuckDuckBot",
        "archive.org_bot",
    }
    assert blocked({"bingbot": "noindex"}) == {"Bingbot"}


def test_a_header_for_another_crawler_blocks_no_search_engine() -> None:
    assert blocked(headers=["otherbot: noindex, nofollow"]) == set()
    assert blocked(headers=["googlebot: noindex"]) == {"Googlebot"}
    assert blocked(headers=["googlebot: nofollow", "bingbot: none"]) == {"Bingbot"}
    # one line joining scopes, as some servers send them
    assert blocked(headers=["googlebot: noarchive, bingbot: noindex"]) == {"Bingbot"}


@pytest.mark.parametrize(
    ("value", "blocks"),
    [
        ("unavailable_after: 25 Jun 2010 15:00:00 PST", True),
        ("unavailable_after: Friday, 25-Jun-10 15:00:00 GMT", True),
        ("unavailable_after: 2020-01-01", True),
        ("unavailable_after: 2020-01-01T00:00:00+00:00", True),
        ("unavailable_after: 2999-01-01", False),
        ("unavailable_after: someday", False),
        ("max-snippet: 20, max-image-preview: large", False),
    ],
)
def test_unavailable_after_blocks_once_passed(value: str, blocks: bool) -> None:
    assert (blocked(headers=[value]) == {"*", *ENGINES}) is blocks
    assert (blocked({"robots": value}) == {"*", *ENGINES}) is blocks
