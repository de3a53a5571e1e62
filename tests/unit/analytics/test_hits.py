"""Building hits from tracking requests, and what each hit counts."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from sitelens.analytics import datacenters, hits, visitors
from sitelens.analytics.hit import STAT_NAMES, Hit, counts
from sitelens.analytics.hits import ExcludedHit, InvalidHit, build_hit, excluded, page_host
from sitelens.core import config

NOW = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)
pytestmark = pytest.mark.usefixtures("fixed_salt")
CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
)

BOTS = [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like "
    "Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; "
    "+http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; "
    "+https://openai.com/gptbot)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ClaudeBot/1.0; "
    "+claudebot@anthropic.com",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
    "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
    "DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)",
    "Twitterbot/1.0",
    "Mozilla/5.0 (compatible; Applebot/0.1; +http://www.apple.com/go/applebot)",
    "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "HeadlessChrome/124.0.6367.60 Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/118.0.0.0 Safari/537.36 Chrome-Lighthouse",
    "curl/8.5.0",
    "Wget/1.21.4",
    "python-requests/2.32.3",
    "Python-urllib/3.11",
    "python-httpx/0.27.0",
    "Go-http-client/1.1",
    "Go-http-client/2.0",
    "HTTPie/3.2.2",
    "okhttp/4.12.0",
    "axios/1.7.2",
    "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
    "Java/17.0.2",
    "libwww-perl/6.72",
    "PostmanRuntime/7.39.0",
    "Apache-HttpClient/4.5.14 (Java/17.0.8)",
    "Scrapy/2.11.2 (+https://scrapy.org)",
    # Not recognised by crawlerdetect; covered by visitors._MORE_HTTP_CLIENTS.
    "Java-http-client/21.0.1",
    "insomnia/2023.5.8",
    "Deno/1.44.0",
    "Bun/1.1.12",
    "Ktor client",
    "",
]

BROWSERS = [
    (CHROME, "Chrome", "Windows", "desktop"),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        "Version/17.2 Safari/605.1.15",
        "Safari",
        "Mac OS X",
        "desktop",
    ),
    (
        "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
        "Firefox",
        "Linux",
        "desktop",
    ),
    (
        "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
        "Firefox",
        "Ubuntu",
        "desktop",
    ),
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0",
        "Edge",
        "Windows",
        "desktop",
    ),
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Safari/537.36 OPR/106.0.0.0",
        "Opera",
        "Windows",
        "desktop",
    ),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Safari/537.36",
        "Chrome",
        "Mac OS X",
        "desktop",
    ),
    (
        "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Safari/537.36",
        "Chrome",
        "Chrome OS",
        "desktop",
    ),
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
        "Firefox",
        "Windows",
        "desktop",
    ),
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
        "Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
        "Mobile Safari",
        "iOS",
        "mobile",
    ),
    (
        "Mozilla/5.0 (iPad; CPU OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        "Version/17.2 Mobile/15E148 Safari/604.1",
        "Mobile Safari",
        "iOS",
        "tablet",
    ),
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
        "Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1",
        "Chrome Mobile iOS",
        "iOS",
        "mobile",
    ),
    (
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.6099.144 Mobile Safari/537.36",
        "Chrome Mobile",
        "Android",
        "mobile",
    ),
    (
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Mobile Safari/537.36",
        "Chrome Mobile",
        "Android",
        "mobile",
    ),
    (
        "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Safari/537.36",
        "Chrome",
        "Android",
        "tablet",
    ),
    (
        "Mozilla/5.0 (Linux; Android 12; Lenovo TB-X606F) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Safari/537.36",
        "Chrome",
        "Android",
        "tablet",
    ),
    (
        "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
        "SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
        "Samsung Internet",
        "Android",
        "mobile",
    ),
    (
        "Mozilla/5.0 (Linux; Android 11; SM-T870) AppleWebKit/537.36 (KHTML, like Gecko) "
        "SamsungBrowser/23.0 Chrome/115.0.0.0 Safari/537.36",
        "Samsung Internet",
        "Android",
        "tablet",
    ),
    (
        "Mozilla/5.0 (Android 14; Mobile; rv:121.0) Gecko/121.0 Firefox/121.0",
        "Firefox Mobile",
        "Android",
        "mobile",
    ),
    (
        "Mozilla/5.0 (Linux; Android 13; SM-A536B) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Mobile Safari/537.36 EdgA/120.0.2210.115",
        "Edge Mobile",
        "Android",
        "mobile",
    ),
    (
        "Mozilla/5.0 (Linux; Android 9; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Silk/120.3.1 like Chrome/120.0.6099.230 Safari/537.36",
        "Amazon Silk",
        "Android",
        "tablet",
    ),
    (
        "Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) "
        "SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36",
        "Samsung Internet",
        "Tizen",
        "other",
    ),
]


@pytest.fixture(autouse=True)
def no_geoip(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Locations come from the shipped country data (tests/unit/analytics/test_location.py)."""
    monkeypatch.delenv("SITELENS_GEOIP_DB", raising=False)
    monkeypatch.delenv("SITELENS_BEHIND_CLOUDFRONT", raising=False)
    config.reset()
    yield
    config.reset()


def website(**overrides: Any) -> dict[str, Any]:
    record = {
        "id": 7,
        "domain": "example.com",
        "exclude_bots": 1,
        "exclude_ips": "",
        "exclude_params": "",
    }
    return record | overrides


def hit(
    page: str = "https://example.com/pricing",
    site: dict[str, Any] | None = None,
    ip: str = "198.51.100.20",
    ua: str = CHROME,
    **more: str,
) -> Hit:
    fields = {"page": page, **more}
    headers = {"user-agent": ua, "accept-language": "de-DE,de;q=0.9,en;q=0.8"}
    return build_hit(site or website(), fields, headers, ip, NOW)


def with_fields(fields: dict[str, str], headers: dict[str, str] | None = None) -> Hit:
    return build_hit(website(), fields, {"user-agent": CHROME} | (headers or {}), "192.0.2.1", NOW)


# Exclusions


@pytest.mark.parametrize("ua", BOTS)
def test_bots_are_excluded(ua: str) -> None:
    with pytest.raises(ExcludedHit) as excluded:
        hit(ua=ua)
    assert excluded.value.why == "bot"


@pytest.mark.parametrize("ua", BOTS)
def test_bots_are_counted_when_the_website_allows_them(ua: str) -> None:
    counted = hit(ua=ua, site=website(exclude_bots=0))
    assert counted.device == "other"


@pytest.mark.parametrize(("ua", "browser", "os", "device"), BROWSERS)
def test_browsers_are_counted(ua: str, browser: str, os: str, device: str) -> None:
    counted = hit(ua=ua)
    assert (counted.browser, counted.os, counted.device) == (browser, os, device)


def test_classify_says_what_the_parser_does_not_know() -> None:
    # isbot takes an agent without any browser's structure for a script
    assert visitors.classify("foo bar") == visitors.Agent("", "", "other", is_bot=True)
    unknown = visitors.classify("Mozilla/5.0 (Toaster; Model 3000) Gecko/20100101 Crumb/1.0")
    assert (unknown.os, unknown.device, unknown.is_bot) == ("", "other", False)


@pytest.mark.parametrize(
    ("ip", "rules"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("203.0.113.9", "192.0.2.1\n203.0.113.0/24\n"),
        ("2001:db8::1", "2001:DB8::1"),
        ("2001:db8:0:5::77", "10.0.0.0/8\n2001:db8::/48"),
        ("::ffff:203.0.113.9", "203.0.113.9"),
        ("::ffff:203.0.113.9", "203.0.113.0/25"),
        (" 203.0.113.9 ", "  203.0.113.9  \r\n"),
    ],
)
def test_excluded_addresses(ip: str, rules: str) -> None:
    with pytest.raises(ExcludedHit) as excluded:
        hit(ip=ip, site=website(exclude_ips=rules))
    assert excluded.value.why == "ip"


@pytest.mark.parametrize(
    ("ip", "rules"),
    [
        ("203.0.113.9", "203.0.113.10\n203.0.113.128/25"),
        ("2001:db8:1::1", "2001:db8::/48"),
        ("203.0.113.9", "::ffff:0:0/96"),  # mapped clients are compared as IPv4
        ("203.0.113.9", "not an address\n"),
        ("", "203.0.113.9"),
    ],
)
def test_other_addresses_are_counted(ip: str, rules: str) -> None:
    assert hit(ip=ip, site=website(exclude_ips=rules)).page == "/pricing"


def test_ip_exclusion_comes_before_the_bot_check() -> None:
    with pytest.raises(ExcludedHit) as excluded:
        hit(ip="192.0.2.1", ua="curl/8.5.0", site=website(exclude_ips="192.0.2.1"))
    assert excluded.value.why == "ip"


# Page and parameters


@pytest.mark.parametrize(
    ("page", "params", "expected"),
    [
        ("https://example.com/pricing?id=3", "", "/pricing?id=3"),
        ("https://example.com/pricing?id=3&ref=mail", "ref", "/pricing?id=3"),
        ("https://example.com/p?fbclid=x&a=1&gclid=y&b=2&c=3", "fbclid\ngclid\nc", "/p?a=1&b=2"),
        ("https://example.com/p?b=2&a=1", "x", "/p?b=2&a=1"),
        ("https://example.com/p?a=1&b=2", "&", "/p"),
        ("https://example.com/p?a=1&b=2", "b\n&", "/p"),
        ("https://example.com/p?ref=1", "ref", "/p"),
        ("https://example.com/p?q=a%20b&utm+source=x", "utm source", "/p?q=a%20b"),
        ("https://example.com/p?a=1&&b", "", "/p?a=1&b"),
        ("https://example.com", "", "/"),
        ("https://example.com/docs/#install", "", "/docs/"),
        # the path as people read it (Plausible's pages); the query as sent
        ("https://example.com/%C3%BCber?q=%C3%BC", "", "/über?q=%C3%BC"),
        ("https://example.com/caf%c3%a9/a%20b", "", "/café/a%20b"),  # white space stays
        ("https://example.com/%E3%83%96%E3%83%AD%E3%82%B0", "", "/ブログ"),
        ("https://example.com/café", "", "/café"),  # sent unescaped: the same page
        ("https://example.com/100%25", "", "/100%"),
        ("https://example.com/a%3Fb%23c", "", "/a%3Fb%23c"),  # not a query or a fragment
        ("https://example.com/a%00b%0A", "", "/a%00b%0A"),  # control characters stay escaped
        ("https://example.com/%FF%C3", "", "/%FF%C3"),  # no UTF-8: as sent
    ],
)
def test_page_is_the_path_and_the_remaining_query(page: str, params: str, expected: str) -> None:
    assert hit(page=page, site=website(exclude_params=params)).page == expected


@pytest.mark.parametrize(
    ("page", "host"),
    [
        ("https://example.com/", "example.com"),
        ("http://WWW.Example.COM:8080/a", "example.com"),
        ("https://www.bücher.de/", "xn--bcher-kva.de"),
        ("https://blog.example.com./", "blog.example.com"),
        ("https://wwwexample.com/", "wwwexample.com"),
        ("http://192.0.2.1/", "192.0.2.1"),
        ("http://[2001:DB8::1]:8080/", "[2001:db8::1]"),
    ],
)
def test_page_host(page: str, host: str) -> None:
    assert page_host(page) == host


@pytest.mark.parametrize("page", ["", "   "])
def test_page_is_required(page: str) -> None:
    with pytest.raises(InvalidHit) as invalid:
        page_host(page)
    assert str(invalid.value) == "The page field is required."


@pytest.mark.parametrize(
    "page",
    [
        "example.com/pricing",
        "/pricing",
        "ftp://example.com/file",
        "javascript:alert(1)",
        "https://",
        "https://exa mple.com/",
        "http://example.com:99999/",
        "http://[::1/",
        "https://example.com/" + "a" * 2048,
    ],
)
def test_page_must_be_a_web_url(page: str) -> None:
    with pytest.raises(InvalidHit) as invalid:
        page_host(page)
    assert str(invalid.value) == "The page must be a valid http or https URL."


def test_build_hit_validates_the_page_first() -> None:
    with pytest.raises(InvalidHit):
        hit(page="", ua="curl/8.5.0", site=website(exclude_ips="198.51.100.20"))


# Referrers and visits


@pytest.mark.parametrize(
    ("referrer", "expected", "visit"),
    [
        ("", "", True),
        ("https://news.example.org/story?id=1", "news.example.org", True),
        ("https://www.Google.com/", "google.com", True),
        ("android-app://com.google.android.gm/", "com.google.android.gm", True),
        ("https://example.com/blog", "", False),
        ("https://www.example.com/", "", False),
        ("http://EXAMPLE.com:8080/x", "", False),
        ("https://blog.example.com/", "blog.example.com", True),
        ("not a url", "", True),
    ],
)
def test_referrer_and_visit(referrer: str, expected: str, visit: bool) -> None:
    counted = hit(referrer=referrer)
    assert (counted.referrer, counted.visit) == (expected, visit)


def test_referrer_from_the_same_site_on_www() -> None:
    counted = hit(page="https://www.example.com/", referrer="https://example.com/a")
    assert (counted.referrer, counted.visit) == ("", False)


# Custom events


def test_custom_event() -> None:
    counted = with_fields(
        {
            "page": "https://example.com/signup?plan=pro",
            "referrer": "https://news.example.org/",
            "event[name]": "signup",
            "event[value]": "pro",
            "event[unit]": "plan",
        }
    )
    assert counted.event == "signup:pro:plan"
    assert counted.page == "/signup?plan=pro"
    assert not counted.visit
    assert counts(counted) == [("event", "signup:pro:plan", "2026-11-21")]


def test_custom_event_with_only_a_name() -> None:
    assert with_fields({"page": "https://example.com/", "event[name]": " download "}).event == (
        "download::"
    )


def test_custom_event_parts_are_capped() -> None:
    long = "x" * 500
    event = with_fields({"page": "https://example.com/", "event[name]": long}).event
    assert event == "x" * hits.MAX_EVENT_PART_LENGTH + "::"


def test_empty_event_name_is_a_pageview() -> None:
    counted = with_fields({"page": "https://example.com/", "event[name]": " "})
    assert counted.event == ""
    assert counted.visit


def test_bots_cannot_send_events() -> None:
    with pytest.raises(ExcludedHit):
        with_fields(
            {"page": "https://example.com/", "event[name]": "signup"}, {"user-agent": "curl/8.5.0"}
        )


# Visitor details


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-US", "en"),
        ("EN", "en"),
        ("fr-CH, fr;q=0.9", "fr"),
        ("zh-Hant-TW,zh;q=0.8", "zh"),
        ("pt_BR", "pt"),
        ("en;q=0.5", "en"),
        ("*", ""),
        ("*;q=0.5, de", ""),
        ("", ""),
        ("12-34", ""),
    ],
)
def test_language(header: str, expected: str) -> None:
    assert visitors.language(header) == expected


def test_language_header_is_optional() -> None:
    assert with_fields({"page": "https://example.com/"}).language == ""


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ("1920x1080", "1920x1080"),
        ("390x844", "390x844"),
        (" 1280x720 ", "1280x720"),
        ("10000x10000", "10000x10000"),
        ("1920X1080", ""),
        ("1920x", ""),
        ("x1080", ""),
        ("1x1", ""),
        ("123456x1", ""),
        ("1920x1080x2", ""),
        ("\uff11\uff19\uff12\uff10x1080", ""),  # full-width digits
        ("<script>", ""),
        ("", ""),
    ],
)
def test_resolution(sent: str, expected: str) -> None:
    fields = {"page": "https://example.com/", "screen_resolution": sent}
    assert with_fields(fields).resolution == expected


def test_campaign_is_read_before_parameters_are_removed() -> None:
    counted = hit(
        page="https://example.com/?utm_source=mail&utm_campaign=black%20friday&id=3",
        site=website(exclude_params="utm_source\nutm_campaign"),
    )
    assert (counted.campaign, counted.page) == ("black friday", "/?id=3")


def test_no_campaign() -> None:
    assert hit(page="https://example.com/?utm_campaign=").campaign == ""


def test_no_location() -> None:
    headers = {"cloudfront-viewer-country": "BR"}  # not trusted without CloudFront declared
    counted = with_fields({"page": "https://example.com/"}, headers)
    assert (counted.country, counted.continent, counted.city) == ("", "", "")


def test_time_is_utc() -> None:
    local = datetime(2026, 11, 21, 1, 30, tzinfo=timezone(timedelta(hours=5)))
    counted = build_hit(
        website(), {"page": "https://example.com/"}, {"user-agent": CHROME}, "", local
    )
    assert counted.at == datetime(2026, 11, 20, 20, 30, tzinfo=UTC)
    assert counted.at.tzinfo == UTC


# Counts


def test_counts_for_a_visit() -> None:
    counted = hit(
        page="https://example.com/pricing?id=3&utm_campaign=launch",
        referrer="https://www.news.example.org/a",
        screen_resolution="1920x1080",
        site=website(exclude_params="utm_campaign"),
    )
    day = "2026-11-21"
    assert counts(counted) == [
        ("pageviews", day, day),
        ("pageviews_hour", "09", day),
        ("page", "/pricing?id=3", day),
        ("visitors", day, day),
        ("visitors_hour", "09", day),
        ("landing_page", "/pricing?id=3", day),
        ("referrer", "news.example.org", day),
        ("browser", "Chrome", day),
        ("os", "Windows", day),
        ("device", "desktop", day),
        ("language", "de", day),
        ("resolution", "1920x1080", day),
        ("campaign", "launch", day),
    ]


def test_counts_for_a_pageview_within_a_visit() -> None:
    counted = hit(referrer="https://example.com/")
    day = "2026-11-21"
    assert counts(counted) == [
        ("pageviews", day, day),
        ("pageviews_hour", "09", day),
        ("page", "/pricing", day),
    ]


def test_counts_use_known_names_only() -> None:
    full = Hit(
        website_id=1,
        at=NOW,
        page="/",
        visit=True,
        referrer="r",
        browser="b",
        os="o",
        device="mobile",
        language="en",
        resolution="1x1",
        country="GB",
        continent="EU",
        city="London",
        campaign="c",
        utm_source="s",
        utm_medium="m",
        utm_term="t",
        utm_content="x",
    )
    names = [name for name, _, _ in counts(full)]
    event = Hit(website_id=1, at=NOW, page="/", visit=False, event="a:b:c")
    excluded = Hit(website_id=1, at=NOW, page="", visit=False, excluded="bot")
    assert set(names) | {"event", "excluded"} == set(STAT_NAMES)
    assert [name for name, _, _ in counts(event)] == ["event"]
    assert counts(excluded) == [("excluded", "bot", NOW.strftime("%Y-%m-%d"))]
    assert len(STAT_NAMES) == 22


@pytest.mark.parametrize(
    "query",
    [
        "gclid=abc",
        "fbclid=IwAR1",
        "msclkid=x&utm_source=news",
        "utm_source=a&utm_medium=b&utm_campaign=c&utm_term=d&utm_content=e&utm_id=f",
        "_hsenc=p2&_hsmi=9&mc_cid=1&mc_eid=2",
        "ttclid=1&twclid=2&li_fat_id=3&igshid=4&yclid=5&gbraid=6&wbraid=7&dclid=8",
    ],
)
def test_click_ids_and_campaign_parameters_leave_the_counted_page(query: str) -> None:
    assert hit(page=f"https://example.com/landing?{query}").page == "/landing"
    kept = hit(page=f"https://example.com/landing?id=3&{query}&ref=mail")
    assert kept.page == "/landing?id=3&ref=mail"


def test_every_campaign_parameter_is_counted() -> None:
    page = (
        "https://example.com/?utm_source=Newsletter&utm_medium=email&utm_campaign=spring"
        "&utm_term=shoes&utm_content=header"
    )
    counted = {name: value for name, value, _ in counts(hit(page=page))}
    assert (counted["campaign"], counted["utm_source"], counted["utm_medium"]) == (
        "spring",
        "Newsletter",
        "email",
    )
    assert (counted["utm_term"], counted["utm_content"]) == ("shoes", "header")


# The queue message


def test_json_round_trip() -> None:
    counted = hit(
        page="https://example.com/ünïcode?q=1",
        referrer="https://news.example.org/",
        screen_resolution="390x844",
    )
    text = counted.to_json()
    assert Hit.from_json(text) == counted
    assert " " not in text.replace("Windows", "")
    assert "198.51.100.20" not in text


def test_json_leaves_out_empty_values() -> None:
    event = Hit(website_id=3, at=NOW, page="/", visit=False, event="a:b:c")
    assert event.to_json() == (
        '{"website_id":3,"at":"2026-11-21T09:30:00+00:00","page":"/","visit":false,"event":"a:b:c"}'
    )
    assert Hit.from_json(event.to_json()) == event


def test_an_excluded_tally_survives_the_queue() -> None:
    """A tally has no page: it is left out of the message, and read back as none."""
    tally = excluded({"id": 3}, "bot", NOW, weight=50)
    assert "page" not in tally.to_json()
    assert Hit.from_json(tally.to_json()) == tally


def test_json_from_a_newer_version_is_read() -> None:
    text = '{"website_id":3,"at":"2026-11-21T09:30:00+00:00","page":"/","visit":true,"new":1}'
    assert Hit.from_json(text) == Hit(website_id=3, at=NOW, page="/", visit=True)


# The optional data-centre rule


@pytest.fixture
def datacenter_ranges(tmp_path, monkeypatch):
    ranges = tmp_path / "ranges.txt"
    ranges.write_text(
        "# provider lists\n3.0.0.0/9 aws\n34.64.0.0/10 google-cloud\n2600:1f00::/24 aws\n"
        "not a range\n\n3.128.0.0/9 aws\n"
    )
    monkeypatch.setenv("SITELENS_DATACENTER_RANGES", str(ranges))
    config.reset()
    yield
    config.reset()


@pytest.mark.parametrize("ip", ["3.5.140.2", "3.250.0.1", "34.100.0.7", "2600:1f00::9"])
def test_browsers_from_data_centres_are_excluded_when_the_rule_is_on(datacenter_ranges, ip):
    with pytest.raises(ExcludedHit) as excluded:
        hit(ip=ip)
    assert excluded.value.why == "datacenter"
    assert hit(ip=ip, site=website(exclude_bots=0)).browser == "Chrome"  # the site's choice


@pytest.mark.parametrize("ip", ["2.255.255.255", "4.0.0.0", "198.51.100.20", "2001:db8::1"])
def test_addresses_outside_the_ranges_are_counted(datacenter_ranges, ip):
    assert hit(ip=ip).browser == "Chrome"


def test_without_ranges_the_rule_is_off():
    assert hit(ip="3.5.140.2").browser == "Chrome"


def test_ranges_are_merged_and_searched():
    ranges = datacenters.parse("10.0.0.0/24\n10.0.1.0/24\n10.0.0.128/25\n::/128\n")
    assert len(ranges) == 2  # the adjacent /24s merge, the /25 is inside them
    assert ipaddress.ip_address("10.0.1.255") in ranges
    assert ipaddress.ip_address("10.0.2.0") not in ranges
    assert ipaddress.ip_address("::") in ranges
