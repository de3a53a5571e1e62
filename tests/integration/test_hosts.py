"""One host normalisation: the same host is the same text for websites, hits, projects and
the fetcher, however it is spelled."""

from __future__ import annotations

from typing import Any

import pytest

from sitelens.analytics.hits import page_host
from sitelens.core import hosts
from sitelens.reports.rules import project_of
from sitelens.seo import fetch
from tests.fixtures.analytics import CHROME

IPV6_SPELLINGS = [
    "2001:db8::1",
    "[2001:db8::1]",
    "2001:0db8:0::1",
    "2001:DB8:0:0:0:0:0:1",
    "[2001:0DB8::0001]",
]


@pytest.mark.parametrize(
    ("text", "ascii", "site"),
    [
        ("Example.COM", "example.com", "example.com"),
        ("www.example.com", "www.example.com", "example.com"),
        ("example.com.", "example.com", "example.com"),
        ("WWW.Example.com.", "www.example.com", "example.com"),
        ("bücher.de", "xn--bcher-kva.de", "bücher.de".encode("idna").decode()),
        ("BÜCHER.de", "xn--bcher-kva.de", "xn--bcher-kva.de"),
        ("xn--bcher-kva.de", "xn--bcher-kva.de", "xn--bcher-kva.de"),
        ("www.bücher.de", "www.xn--bcher-kva.de", "xn--bcher-kva.de"),
        ("faß.de", "xn--fa-hia.de", "xn--fa-hia.de"),  # UTS 46 non-transitional
        (
            "\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com",
            "example.com",
            "example.com",
        ),  # full-width, mapped
        ("203.0.113.9", "203.0.113.9", "203.0.113.9"),
        ("[203.0.113.9]", "203.0.113.9", "203.0.113.9"),
        ("localhost", "localhost", "localhost"),
        ("my_host.example.com", "my_host.example.com", "my_host.example.com"),
    ],
)
def test_names_and_addresses(text, ascii, site):
    host = hosts.parse(text)
    assert (host.ascii, host.site) == (ascii, site)
    assert hosts.site(text) == site


@pytest.mark.parametrize("text", IPV6_SPELLINGS)
def test_every_ipv6_spelling_is_one_host(text):
    host = hosts.parse(text)
    assert host.ip and host.ascii == "2001:db8::1"
    assert host.authority == host.site == "[2001:db8::1]"


def test_unicode_names_are_shown_in_unicode():
    assert hosts.parse("xn--bcher-kva.de").site_name == "bücher.de"
    assert hosts.parse("www.BÜCHER.de").site_name == "bücher.de"
    assert hosts.parse("[2001:db8::1]").site_name == "[2001:db8::1]"


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        ".",
        "a..b",
        "-a.com",
        "a-.com",
        "ex ample.com",
        "a/b",
        "[example.com]",
        "2001:db8::1::2",
        "[2001:db8::1",
        "a" * 64 + ".com",
        ("a" * 60 + ".") * 5 + "com",
        "exa<mple.com",
        "xn--zz.com",
    ],
)
def test_what_is_not_a_host(text):
    with pytest.raises(hosts.InvalidHost):
        hosts.parse(text)


def test_hits_projects_and_the_fetcher_agree():
    for url in ("https://WWW.Example.com./x", "http://example.com:8080/"):
        assert page_host(url) == "example.com"
        assert project_of(url) == "example.com"
    assert page_host("http://[2001:0db8::1]:8080/") == "[2001:db8::1]"
    assert project_of("http://[2001:0db8::1]/") == "[2001:db8::1]"
    assert page_host("https://bücher.de/") == "xn--bcher-kva.de"
    assert project_of("https://xn--bcher-kva.de/") == project_of("https://Bücher.de/")
    target = fetch.target_of("https://BÜCHER.de./a?b")
    assert (target.host, target.authority, target.path) == (
        "xn--bcher-kva.de",
        "xn--bcher-kva.de",
        "/a?b",
    )
    target = fetch.target_of("http://[2001:0db8::1]:8080/")
    assert (target.host, target.authority) == ("2001:db8::1", "[2001:db8::1]:8080")


# -- through the API ------------------------------------------------------------------------


def create(analytics: Any, domain: str) -> Any:
    return analytics.post("/api/v1/websites", {"domain": domain})


def hit(analytics: Any, page: str) -> Any:
    return analytics.post(
        "/api/event",
        {"page": page},
        key=None,
        headers={"User-Agent": CHROME},
        source_ip="192.0.2.1",
    )


def test_every_ipv6_spelling_is_one_website_and_hits_find_it(analytics):
    first = create(analytics, IPV6_SPELLINGS[0])
    assert first.status == 201 and first.data["domain"] == "[2001:db8::1]"
    for spelling in IPV6_SPELLINGS[1:]:
        again = create(analytics, spelling)
        assert again.status == 422, spelling
        assert again.body["message"] == {"domain": ["The domain has already been taken."]}
    assert hit(analytics, "http://[2001:db8::1]/").status == 202
    assert hit(analytics, "http://[2001:0DB8:0::1]:8080/x").status == 202


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("https://example.com:8443/", "example.com"),
        ("example.com.", "example.com"),
        ("http://[2001:db8::2]:8080/", "[2001:db8::2]"),
        ("WWW.bücher.de", "bücher.de"),
    ],
)
def test_ports_trailing_dots_and_www_are_not_part_of_a_domain(analytics, sent, kept):
    reply = create(analytics, sent)
    assert reply.status == 201, reply.body
    assert reply.data["domain"] == kept


@pytest.mark.parametrize("sent", ["example.com:http", "[2001:db8::1]x", "exa_mple.com", "intranet"])
def test_what_is_not_a_website_domain(analytics, sent):
    reply = create(analytics, sent)
    assert reply.status == 422
    assert reply.body["message"] == {"domain": ["Invalid domain name."]}


def test_a_unicode_website_counts_hits_sent_in_punycode(analytics):
    assert create(analytics, "Bücher.de").status == 201
    assert create(analytics, "xn--bcher-kva.de").status == 422
    assert hit(analytics, "https://www.xn--bcher-kva.de/").status == 202
    assert hit(analytics, "https://bücher.de./").status == 202


def test_a_website_stored_before_normalisation_can_still_be_deleted(analytics, account):
    """An IPv6 website from before kept its claim under the unbracketed spelling."""
    from sitelens.data import records
    from sitelens.data import websites as stored_websites

    reply = create(analytics, "2001:db8::5")
    record = stored_websites.get(account.id, reply.data["id"])
    # Move the claim to where the old code put it, and the domain to its old spelling.
    stored_websites.delete_with_claim(account.id, record["id"], "[2001:db8::5]")
    legacy = {**record, "domain": "2001:db8::5", "search": "2001:db8::5"}
    records.create(stored_websites.COLLECTION, legacy, claim="2001:db8::5")
    assert analytics.get(f"/api/v1/websites/{record['id']}").data["domain"] == "2001:db8::5"
    assert analytics.delete(f"/api/v1/websites/{record['id']}").status == 200
    assert analytics.get(f"/api/v1/websites/{record['id']}").status == 404


@pytest.mark.parametrize(
    ("url", "splits"),
    [
        ("https://example.com:8443/a", True),
        ("http://[::1]/", True),
        ("https://example.com:99999/", False),  # out of range
        ("https://example.com:port/", False),  # not a number
        ("http://[::1/", False),  # unclosed bracket
    ],
)
def test_split_url_refuses_what_urlsplit_finds_only_on_reading_the_port(url, splits):
    assert (hosts.split_url(url) is not None) is splits
