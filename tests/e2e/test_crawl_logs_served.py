"""Access logs under `make serve`, as a client sends them (docs/crawlers.md's example): a
combined log with a real and a spoofed Googlebot (answered by a stub name server,
SITELENS_DNS_NAMESERVER: nothing reaches the network), a GPTBot inside and one outside the
shipped OpenAI ranges (verified, and unverified: the shipped lists are seeds until `make
crawler-ranges` fetches them whole, and outside a seed proves nothing), a person's line
and a malformed one; then the crawls queried."""

from __future__ import annotations

import gzip
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from tests.e2e.test_local_server import Server, call
from tests.fixtures.dns_stub import StubDns

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
GPTBOT = (
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; "
    "+https://openai.com/gptbot)"
)
CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0"


@pytest.fixture(scope="module")
def served(server: Server, dev_key: str, stub_dns: StubDns) -> tuple[Server, str]:
    """The shared make serve, an account of it, and its name server's crawler records."""
    stub_dns.more[("1.66.249.66.in-addr.arpa", "PTR")] = ["crawl-66-249-66-1.googlebot.com."]
    stub_dns.more[("9.113.0.203.in-addr.arpa", "PTR")] = ["crawl-66-249-66-1.googlebot.com."]
    stub_dns.more[("crawl-66-249-66-1.googlebot.com", "A")] = ["66.249.66.1"]
    return server, dev_key


def line(ip: str, agent: str, page: str, status: int = 200) -> str:
    at = (datetime.now(UTC) - timedelta(hours=2)).strftime("%d/%b/%Y:%H:%M:%S +0000")
    return f'{ip} - - [{at}] "GET {page} HTTP/1.1" {status} 512 "-" "{agent}"'


def test_a_log_sent_as_a_client_sends_it_counts_its_crawlers(served):
    server, key = served
    domain = f"crawled-{uuid.uuid4().hex[:8]}.example"
    site = call("POST", f"{server.analytics}/api/v1/websites", key, form={"domain": domain})
    assert site.status == 201, site.body
    url = f"{server.analytics}/api/v1/websites/{site.body['data']['id']}/logs"
    log = "\n".join(
        [
            line("66.249.66.1", GOOGLEBOT, "/"),
            line("203.0.113.9", GOOGLEBOT, "/"),
            line("20.171.206.7", GPTBOT, "/docs", 404),
            line("198.51.100.7", GPTBOT, "/docs"),
            line("198.51.100.8", CHROME, "/"),
            "not a log line",
        ]
    )
    sent = call("POST", url, key, data=gzip.compress(log.encode()), content_type="application/gzip")
    assert sent.status == 200, sent.body
    assert sent.body["data"]["verification"] == {"spoofed": 1, "unverified": 1, "verified": 2}
    assert (sent.body["data"]["humans"], sent.body["data"]["malformed"]) == (1, 1)
    again = call(
        "POST", url, key, data=gzip.compress(log.encode()), content_type="application/gzip"
    )
    assert again.status == 200
    answer = call(
        "POST",
        f"{server.analytics}/api/v1/query",
        key,
        json_body={
            "site_id": site.body["data"]["id"],
            "metrics": ["crawls"],
            "date_range": "7d",
            "dimensions": ["crawl:bot", "crawl:verification"],
        },
    )
    assert answer.status == 200, answer.body
    assert [r["dimensions"] + r["metrics"] for r in answer.body["results"]] == [
        ["GPTBot", "unverified", 1],
        ["GPTBot", "verified", 1],
        ["Googlebot", "spoofed", 1],
        ["Googlebot", "verified", 1],
    ]
    assert call("POST", url, key, data=b"<html></html>", content_type="text/plain").status == 400
