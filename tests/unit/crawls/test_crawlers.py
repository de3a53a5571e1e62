"""The crawlers' data and the code that reads access logs: formats line by line, crawler
names and families (against crawler-user-agents' labelled agents where installed), the
verification rules with a fake resolver, the range files and their refresh script's
reader, and the crawl query's SQL on Athena."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path

import pytest

from sitelens.analytics.crawls import accesslogs, crawlers, verification
from sitelens.analytics.warehouse import crawls

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
COLLECTIONS = Path(__file__).resolve().parents[3] / ".ua-collections/node_modules"


def listed() -> list[dict]:
    text = resources.files("sitelens.analytics.crawls").joinpath("crawlers.json").read_text()
    return json.loads(text)["crawlers"]


def test_every_crawler_has_a_family_sources_and_a_verification_that_exists():
    names = [item["name"] for item in listed()]
    assert len(names) == len(set(names))
    for item in listed():
        assert item["family"] in crawlers.FAMILIES, item
        assert item["sources"] and all(s.startswith("http") for s in item["sources"]), item
        check = item.get("verify")
        if check and check["method"] == "ranges":
            assert verification.ranges(check["file"]), item
        elif check:
            assert check["method"] == "dns" and check["domains"], item
    named = {item["name"] for item in listed()}
    asked = {"GPTBot", "OAI-SearchBot", "ChatGPT-User", "ClaudeBot", "Claude-User",
             "Claude-SearchBot", "PerplexityBot", "Perplexity-User", "Googlebot", "Bingbot",
             "Google-Extended", "Applebot", "AhrefsBot", "SemrushBot"}  # fmt: skip
    assert asked <= named


def test_every_range_file_names_its_source_and_parses():
    folder = resources.files("sitelens.analytics.crawls").joinpath("ranges")
    for entry in folder.iterdir():
        shipped = json.loads(entry.read_text())
        assert shipped["source"].startswith("https://")
        assert verification.ranges(entry.name)


@pytest.mark.parametrize(
    ("agent", "name", "family"),
    [
        (GOOGLEBOT, "Googlebot", "search"),
        ("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "Bingbot",
         "search"),
        ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; "
         "+https://openai.com/bot)", "ChatGPT-User", "ai-assistant"),
        ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; "
         "+Claude-User@anthropic.com)", "Claude-User", "ai-assistant"),
        ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; "
         "+https://perplexity.ai/perplexitybot)", "PerplexityBot", "ai-assistant"),
        ("Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
         "SemrushBot", "seo-tool"),
        ("curl/8.5.0", "curl", "other"),
    ],
)  # fmt: skip
def test_crawlers_are_named_and_put_in_their_family(agent, name, family):
    found = crawlers.identify(agent)
    assert found is not None
    assert (found.name, found.family) == (name, family)


def test_a_person_s_browser_and_no_agent_are_no_crawler():
    chrome = (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
    )
    assert crawlers.identify(chrome) is None
    assert crawlers.identify("") is None


def test_the_labelled_crawlers_of_crawler_user_agents_are_crawlers_with_our_names():
    path = COLLECTIONS / "crawler-user-agents/crawler-user-agents.json"
    if not path.exists():
        pytest.skip("crawler-user-agents not installed (make test installs it with npm)")
    patterns = json.loads(path.read_text())
    ours = {item["token"].lower(): item["name"] for item in listed()}
    checked = named = 0
    for pattern in patterns:
        for agent in pattern.get("instances", []):
            found = crawlers.identify(agent)
            checked += 1
            named += found is not None
            token = pattern["pattern"].replace("\\", "").lower()
            if token in ours:  # ours, by our name
                assert found is not None and found.name == ours[token], agent
    # the maintained lists miss a few labelled agents that look like browsers (Datanyze)
    assert named / checked > 0.95, f"{named} of {checked}"


class Fake:
    def __init__(self, ptr: dict[str, list[str]], a: dict[str, list[str]]) -> None:
        self.ptr, self.a, self.asked = ptr, a, 0

    def reverse(self, ip: str) -> list[str]:
        self.asked += 1
        return self.ptr.get(ip, [])

    def forward(self, name: str) -> list[str]:
        return self.a.get(name, [])


@pytest.fixture
def resolver():
    def use(ptr, a):
        fake = Fake(ptr, a)
        verification.use(fake)
        return fake

    yield use
    verification.use(None)


def test_googlebot_is_verified_by_forward_confirmed_reverse_dns(resolver):
    google = crawlers.identify(GOOGLEBOT)
    assert google is not None
    fake = resolver(
        {"66.249.66.1": ["crawl-66-249-66-1.googlebot.com."],
         "203.0.113.1": ["crawl-66-249-66-1.googlebot.com"],
         "203.0.113.2": ["googlebot.com.evil.example"]},
        {"crawl-66-249-66-1.googlebot.com": ["66.249.66.1"]},
    )  # fmt: skip
    assert verification.verify(google, "66.249.66.1") == "verified"
    assert verification.verify(google, "203.0.113.1") == "spoofed"  # PTR lies, A does not
    assert verification.verify(google, "203.0.113.2") == "spoofed"  # not under the domain
    assert verification.verify(google, "not an address") == "spoofed"
    verification.verify(google, "66.249.66.1")
    assert fake.asked == 4  # the first answer was kept


def test_published_ranges_verify_openai_and_others_are_unverified(resolver, monkeypatch):
    resolver({}, {})
    gpt = crawlers.identify("Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)")
    assert gpt is not None
    assert verification.verify(gpt, "20.171.206.7") == "verified"
    # outside a list never fetched whole (the shipped seed): no verdict, not "spoofed"
    assert verification.verify(gpt, "198.51.100.1") == "unverified"
    monkeypatch.setattr(verification, "fetched", lambda file: True)  # `make crawler-ranges` ran
    assert verification.verify(gpt, "198.51.100.1") == "spoofed"
    ahrefs = crawlers.identify("Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)")
    assert ahrefs is not None
    assert verification.verify(ahrefs, "198.51.100.1") == "unverified"


def test_combined_and_common_lines():
    combined = (
        '66.249.66.1 - - [27/Nov/2026:11:00:00 +0100] "GET /a?b=1 HTTP/1.1" 301 0 '
        f'"https://x.example/" "{GOOGLEBOT}"'
    )
    common = '66.249.66.1 - frank [27/Nov/2026:10:00:00 +0000] "GET /c HTTP/1.0" 200 2326'
    bad = [
        '66.249.66.1 - - [27/Nov/2026:10:00:00 +0000] "-" 408 0 "-" "-"',
        '66.249.66.1 - - [32/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 0 "-" "-"',
    ]
    found = dict(accesslogs.parse([combined, common, *bad, "", "#x"], "combined"))
    line = found[combined]
    assert line is not None
    assert (line.at, line.page, line.status, line.agent, line.ip) == (
        datetime(2026, 11, 27, 10, tzinfo=UTC), "/a?b=1", 301, GOOGLEBOT, "66.249.66.1"
    )  # fmt: skip
    assert found[common] is not None and found[common].agent == ""
    assert [found[b] for b in bad] == [None, None]
    assert len(found) == 4
    assert accesslogs.detect(["", common]) == "common"
    assert accesslogs.detect([combined]) == "combined"
    assert accesslogs.detect(['{"a": 1}']) == "jsonl"
    assert accesslogs.detect(["#Version: 1.0"]) == "cloudfront"
    with pytest.raises(accesslogs.NotALog):
        accesslogs.detect(["<html>"])


def test_realtime_fields_default_to_cloudfront_s_documented_order():
    assert accesslogs.REALTIME_FIELDS[:4] == ("timestamp", "c-ip", "time-to-first-byte",
                                              "sc-status")  # fmt: skip
    assert len(accesslogs.REALTIME_FIELDS) == len(set(accesslogs.REALTIME_FIELDS))
    cells = {name: "-" for name in accesslogs.REALTIME_FIELDS}
    cells.update(
        {"timestamp": "1764237600.123", "c-ip": "20.171.206.7", "sc-status": "200",
         "cs-uri-stem": "/x", "cs-user-agent": "GPTBot/1.2", "cs-host": "a.example"}
    )  # fmt: skip
    line = "\t".join(cells[name] for name in accesslogs.REALTIME_FIELDS)
    [(_, found)] = list(accesslogs.parse([line], "cloudfront-realtime"))
    assert found is not None
    assert (found.page, found.host, found.agent) == ("/x", "a.example", "GPTBot/1.2")


def test_the_refresh_script_reads_json_lists_and_pages():
    import importlib.util

    path = Path(__file__).resolve().parents[3] / "scripts/make_crawler_ranges.py"
    spec = importlib.util.spec_from_file_location("make_crawler_ranges", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    listed_json = (
        b'{"prefixes": [{"ipv4Prefix": "20.171.206.0/24"}, {"ipv6Prefix": "2001:db8::/32"}]}'
    )
    assert script.prefixes(listed_json) == ["20.171.206.0/24", "2001:db8::/32"]
    page = b"<td>160.79.104.0/23</td><td>2607:6bc0::/48</td> 999.1.1.1/8"
    assert script.prefixes(page) == ["160.79.104.0/23", "2607:6bc0::/48"]


def test_the_crawl_query_renders_for_athena():
    query = crawls.CrawlQuery(
        (1, 2), datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 8, tzinfo=UTC),
        date(2026, 11, 1), date(2026, 11, 7), ("crawl:bot", "crawl:status"),
        (("is", "crawl:family", ("ai-training",)), ("is_not", "crawl:status", ("404",))), 100,
    )  # fmt: skip
    sql = crawls.statement(query, "athena")
    assert "FROM crawls" in sql
    assert "'2026-10-31'" in sql and "'2026-11-08'" in sql  # a day either side, by partition
    assert "NOT status IN (404)" in sql
    assert "COUNT(*) OVER ()" in sql
