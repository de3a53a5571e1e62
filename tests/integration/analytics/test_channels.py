"""`visit:channel`: GA4's default channel group plus AI Assistants, found at query time from
a visit's source, referrer and UTM tags. The rules run as the engines run them: DuckDB (make
serve), ClickHouse (chDB) and, rendered, Athena's SQL; and through the query API, as a
breakdown and as a filter."""

from __future__ import annotations

from typing import Any

import pytest

from sitelens.analytics import sources
from sitelens.analytics.warehouse import channels, raw
from tests.integration.analytics.test_warehouse import DAY, row

duckdb = pytest.importorskip("duckdb")

# (source, referrer, utm_source, utm_medium, utm_campaign) -> channel
CASES: list[tuple[tuple[str, str, str, str, str], str]] = [
    (("", "", "", "", ""), "Direct"),
    (("Google", "google.com/", "", "", ""), "Organic Search"),
    (("", "", "google", "cpc", ""), "Paid Search"),
    (("", "", "google", "cpc", "summer cross-network"), "Cross-network"),
    (("", "", "google", "display", ""), "Display"),
    (("Facebook", "facebook.com/", "", "paid_social", ""), "Paid Social"),
    (("", "", "amazon", "ppc", ""), "Paid Shopping"),
    (("", "", "youtube", "cpv", ""), "Paid Video"),
    (("", "", "podcast", "paid", ""), "Paid Other"),
    (("ChatGPT", "chatgpt.com/", "", "", ""), "AI Assistants"),
    (("", "", "chatgpt.com", "", ""), "AI Assistants"),  # the tag ChatGPT adds to links
    (("Gemini", "gemini.google.com/app", "", "", ""), "AI Assistants"),
    (("perplexity.ai", "perplexity.ai/search", "", "", ""), "AI Assistants"),  # older rows
    (("", "", "perplexity", "cpc", ""), "Paid Other"),  # paid wins
    (("etsy.com", "etsy.com/listing", "", "", ""), "Organic Shopping"),
    (("", "", "", "", "black-friday-shopping"), "Organic Shopping"),
    (("Reddit", "reddit.com/r/x", "", "", ""), "Organic Social"),
    (("", "", "mastodon", "social", ""), "Organic Social"),
    (("YouTube", "youtube.com/watch", "", "", ""), "Organic Video"),
    (("", "", "bing", "organic", ""), "Organic Search"),
    (("", "", "newsletter", "", ""), "Email"),
    (("", "", "acme", "e-mail", ""), "Email"),
    (("", "", "partner", "affiliate", ""), "Affiliates"),
    (("", "", "spotify", "audio", ""), "Audio"),
    (("", "", "sms", "", ""), "SMS"),
    (("", "", "app", "push", ""), "Mobile Push Notifications"),
    (("example.com", "example.com/post", "", "", ""), "Referral"),
    (("", "", "", "referral", ""), "Referral"),
]
COLUMNS = ("source", "referrer", "utm_source", "utm_medium", "utm_campaign")


def _values() -> str:
    rows = ", ".join(
        f"({n}, " + ", ".join(f"'{value}'" for value in found) + ")"
        for n, (found, _) in enumerate(CASES)
    )
    return f"(VALUES {rows}) AS e(n, {', '.join('v_' + c for c in COLUMNS)})"


def test_the_rules_on_duckdb():
    connection = duckdb.connect()
    found = connection.execute(f"SELECT {channels.sql()} FROM {_values()} ORDER BY n").fetchall()
    assert [name for (name,) in found] == [expected for _, expected in CASES]


def test_the_rules_on_clickhouse_and_in_athenas_words(clickhouse_db):
    statement = f"SELECT {channels.sql()} AS channel FROM {_values()} ORDER BY n"
    found = clickhouse_db.run(raw.rendered(statement, "clickhouse"))
    assert [name for (name,) in found] == [expected for _, expected in CASES]
    assert "CASE" in raw.rendered(statement, "athena")  # Athena's SQL renders it too


def test_every_channel_has_a_rule_and_ai_assistants_are_named_sources():
    rules = channels.sql()
    assert all(f"'{name}'" in rules for name in channels.NAMES)
    for host, name in [("gemini.google.com", "Gemini"), ("claude.ai", "Claude")]:
        assert sources.source(host) == name
        assert name.lower() in channels.categories()["ai"]


@pytest.fixture
def visits(analytics: Any, local_warehouse: Any) -> int:
    website = analytics.post("/api/v1/websites", {"domain": "ai.example"}).data["id"]
    rows = [
        row(website, "a", "10:00:00", page="/", source="ChatGPT", referrer="chatgpt.com/"),
        row(website, "a", "10:01:00", page="/pricing", source="ChatGPT"),
        row(website, "b", "10:00:00", page="/", utm_source="chatgpt.com"),
        row(website, "c", "10:00:00", page="/", source="Google", referrer="google.com/"),
        row(website, "d", "10:00:00", page="/"),
    ]
    local_warehouse.write(rows)
    return website


def _query(analytics: Any, website: int, **body: Any) -> list[dict[str, Any]]:
    reply = analytics.post(
        "/api/v1/query",
        json_body={"site_id": website, "date_range": [DAY, DAY], "metrics": ["visitors"], **body},
    )
    assert reply.status == 200, reply.body
    return list(reply.body["results"])


def test_the_query_api_breaks_visits_down_and_filters_by_channel(analytics, visits):
    found = _query(analytics, visits, dimensions=["visit:channel"])
    assert {tuple(r["dimensions"]): r["metrics"] for r in found} == {
        ("AI Assistants",): [2],
        ("Organic Search",): [1],
        ("Direct",): [1],
    }
    filtered = _query(analytics, visits, filters=[["is", "visit:channel", ["AI Assistants"]]])
    assert filtered == [{"dimensions": [], "metrics": [2]}]


def test_no_source_is_named_and_filtered_as_plausible_names_it(analytics, visits):
    found = _query(analytics, visits, dimensions=["visit:source"])
    assert {tuple(r["dimensions"]): r["metrics"] for r in found} == {
        ("ChatGPT",): [1],
        ("Google",): [1],
        ("Direct / None",): [2],  # b came by a tag alone: no referrer
    }
    direct = _query(analytics, visits, filters=[["is", "visit:source", ["Direct / None"]]])
    assert direct == [{"dimensions": [], "metrics": [2]}]
    others = _query(analytics, visits, filters=[["is_not", "visit:referrer", ["Direct / None"]]])
    assert others == [{"dimensions": [], "metrics": [2]}]
