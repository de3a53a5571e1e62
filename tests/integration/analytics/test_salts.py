"""The visitors' daily salts: kept in a table of their own that no backup or restore
reaches, destroyed once their day is over everywhere, never in the accounts table; and the
128-bit visitor hash they key."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import boto3
import pytest

from sitelens.analytics import visitors
from sitelens.core import clock, config
from sitelens.data import salts
from sitelens.local import template

SPEC = template.load()
CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)


def items(table: str) -> list[dict]:
    return list(boto3.client("dynamodb").scan(TableName=table)["Items"])


def test_a_hit_keeps_its_days_salt_in_the_salts_table_only(analytics, monkeypatch):
    moment = datetime(2026, 11, 21, 23, 50, tzinfo=UTC)
    monkeypatch.setattr(clock, "now", lambda: moment)
    analytics.post("/api/v1/websites", {"domain": "shop.example"})
    reply = analytics.request(
        "POST",
        "/api/event",
        form={"page": "https://shop.example/"},
        key=None,
        headers={"User-Agent": CHROME},
        source_ip="198.51.100.7",
    )
    assert reply.status == 202
    [salt] = items(config.settings().salts_table)
    assert salt["pk"] == {"S": "2026-11-21"} and len(salt["salt"]["B"]) == 32
    # destroyed once the day is over in UTC-12, and no later than the end of the next day
    expires = int(salt["expires_at"]["N"])
    over_everywhere = datetime(2026, 11, 23, 0, 0, tzinfo=UTC) - timedelta(hours=12)
    end_of_next_day = datetime(2026, 11, 23, 0, 0, tzinfo=UTC)
    assert over_everywhere.timestamp() <= expires <= end_of_next_day.timestamp()
    accounts = items(config.settings().accounts_table)
    assert not [i for i in accounts if "salt" in i or i["pk"]["S"].startswith("SALT")]


def test_a_days_first_salt_destroys_one_long_expired(aws_env, monkeypatch):
    old = date(2026, 11, 18)
    monkeypatch.setattr(clock, "now", lambda: datetime(2026, 11, 18, 12, tzinfo=UTC))
    salts.for_day(old)
    monkeypatch.setattr(clock, "now", lambda: datetime(2026, 11, 20, 10, tzinfo=UTC))
    salts.for_day(date(2026, 11, 21))  # UTC+14's 21st begins
    assert [i["pk"]["S"] for i in items(config.settings().salts_table)] == ["2026-11-21"]


def test_a_container_forgets_a_salt_at_its_expiry(aws_env, monkeypatch):
    day = date(2026, 11, 21)
    monkeypatch.setattr(clock, "now", lambda: datetime(2026, 11, 21, 9, tzinfo=UTC))
    first = salts.for_day(day)
    assert salts.for_day(day) == first  # kept while the day lasts somewhere
    ended = datetime.fromtimestamp(salts.expires_at(day), UTC)
    monkeypatch.setattr(clock, "now", lambda: ended)
    boto3.client("dynamodb").delete_item(
        TableName=config.settings().salts_table, Key={"pk": {"S": day.isoformat()}}
    )
    assert salts.for_day(day) != first  # not in memory either: a new one is made


def test_the_salts_table_has_no_recovery_and_expires_its_items():
    table = SPEC["Resources"]["SaltsTable"]
    props = table["Properties"]
    recovery = props.get("PointInTimeRecoverySpecification") or {}
    assert recovery.get("PointInTimeRecoveryEnabled") is not True
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert table["DeletionPolicy"] == table["UpdateReplacePolicy"] == "Delete"
    # no backup plan of the stack selects it
    assert not [r for r in SPEC["Resources"].values() if r["Type"].startswith("AWS::Backup::")]
    # and only the event function reads or writes it
    granted = [
        name
        for name, r in SPEC["Resources"].items()
        if r["Type"] == "AWS::Serverless::Function" and "SaltsTable" in str(r["Properties"])
    ]
    assert granted == ["EventFunction"]


def test_the_visitor_hash_is_128_bits_for_one_day_and_website(monkeypatch):
    keys = {date(2026, 11, 21): b"a" * 32, date(2026, 11, 22): b"b" * 32}
    monkeypatch.setattr(salts, "for_day", keys.__getitem__)
    one = visitors.visitor_id(1, "198.51.100.7", CHROME, date(2026, 11, 21))
    assert re.fullmatch(r"[0-9a-f]{32}", one)
    assert visitors.visitor_id(1, "::ffff:198.51.100.7", CHROME, date(2026, 11, 21)) == one
    assert visitors.visitor_id(2, "198.51.100.7", CHROME, date(2026, 11, 21)) != one
    assert visitors.visitor_id(1, "198.51.100.7", CHROME, date(2026, 11, 22)) != one


def test_a_handler_needs_the_salts_table(aws_env, monkeypatch):
    monkeypatch.delenv("SITELENS_SALTS_TABLE")
    config.reset()
    with pytest.raises(config.ConfigError, match="SITELENS_SALTS_TABLE"):
        config.require_all()
    config.reset()
