"""PUT, GET and DELETE /api/v1/websites/{id}/search-console, POST .../imports, and the
import job on the tasks queue, against a local Google (sitelens.local.google): the rows
stored are the known ones, once; the secret is sealed and never shown; Google's refusals
and quota answers are shown in GET's `last_import`."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from typing import Any

import boto3
import pyarrow.parquet as pq
import pytest

from sitelens.analytics.searchconsole import imports
from sitelens.core import clock, config
from sitelens.data import search_console as stored
from sitelens.data.clients import client
from sitelens.local import google
from tests.integration.searchconsole.conftest import run_tasks

TODAY = date.today()
LAST = TODAY - timedelta(days=imports.DELAY_DAYS)
# the stub's 8 days of history end the day before; the import stops 3 days ago
DAYS = [(TODAY - timedelta(days=n)).isoformat() for n in range(8, imports.DELAY_DAYS - 1, -1)]


def site(analytics: Any, domain: str = "example.com") -> int:
    return int(analytics.post("/api/v1/websites", {"domain": domain}).data["id"])


def stored_rows(website_id: int) -> list[dict[str, Any]]:
    """The site's imported rows as the warehouse's bucket holds them (moto's S3)."""
    s3 = boto3.client("s3")
    bucket = config.settings().events_bucket
    found = []
    for key in stored.local_files([]) or [
        item["Key"]
        for item in s3.list_objects_v2(Bucket=bucket, Prefix=stored.site_folder(website_id)).get(
            "Contents", []
        )
    ]:
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        import io

        found += pq.read_table(io.BytesIO(body)).to_pylist()
    return found


def expected(site_property: str, per_day: int = 40) -> list[tuple[Any, ...]]:
    return sorted(
        row[1:5] + row[5:7]
        for day in DAYS
        for row in google.known_rows(site_property, day, per_day)
    )


def test_a_refresh_token_connects_backfills_the_known_rows_and_is_never_shown(
    analytics, account, gsc
):
    website_id = site(analytics)
    token = gsc.stub.refresh_token("sc-domain:example.com")
    form = {"property": "sc-domain:example.com", "refresh_token": token}
    reply = analytics.put(f"/api/v1/websites/{website_id}/search-console", form)
    assert reply.status == 200, reply.body
    assert reply.data["property"] == "sc-domain:example.com"
    assert reply.data["method"] == "oauth"
    assert reply.data["last_import"]["status"] == "queued"
    assert token not in json.dumps(reply.body)
    record = _record(account.id, website_id)
    assert record["secret"].startswith("local1.") and token not in json.dumps(record)

    run_tasks()
    shown = analytics.get(f"/api/v1/websites/{website_id}/search-console")
    assert shown.status == 200 and token not in json.dumps(shown.body)
    last = shown.data["last_import"]
    assert last["status"] == "done", last
    assert last["imported_through"] == LAST.isoformat()
    assert last["days"] == len(DAYS) and last["rows"] == 40 * len(DAYS)
    rows = stored_rows(website_id)
    got = sorted(
        (r["page"], r["query"], r["country"], r["device"], r["clicks"], r["impressions"])
        for r in rows
    )
    assert got == expected("sc-domain:example.com")
    assert {r["date"].isoformat() for r in rows} == set(DAYS)

    # again: the days are replaced, never added to
    assert analytics.post(f"/api/v1/websites/{website_id}/search-console/imports").status == 202
    run_tasks()
    assert len(stored_rows(website_id)) == 40 * len(DAYS)
    # paging: every day was read by pages of rowLimit from startRow 0
    assert {q["rowLimit"] for q in gsc.stub.queries if q["dimensions"] != ["date"]} == {25_000}


def _record(account: str, website_id: int) -> dict[str, Any]:
    from sitelens.core import scopes

    with scopes.within(scopes.SYSTEM):
        found = stored.get(account, website_id)
    assert found is not None
    return found


def test_a_service_account_key_connects_sealed_with_kms(analytics, account, gsc, monkeypatch):
    key_id = client("kms").create_key(Description="seal")["KeyMetadata"]["KeyId"]
    monkeypatch.setenv("SITELENS_SEAL_KEY_ID", key_id)
    config.reset()
    website_id = site(analytics, "www.shop.example")
    key = gsc.stub.service_account("https://www.shop.example/")
    form = {"property": "https://www.shop.example/", "service_account_key": key}
    reply = analytics.put(f"/api/v1/websites/{website_id}/search-console", json_body=form)
    assert reply.status == 200, reply.body
    assert reply.data["method"] == "service_account"
    assert reply.data["client_email"] == key["client_email"]
    assert "PRIVATE KEY" not in json.dumps(reply.body)
    record = _record(account.id, website_id)
    assert record["secret"].startswith("kms1.") and "PRIVATE KEY" not in json.dumps(record)
    run_tasks()
    last = analytics.get(f"/api/v1/websites/{website_id}/search-console").data["last_import"]
    assert last["status"] == "done" and last["rows"] == 40 * len(DAYS)


@pytest.mark.parametrize(
    ("form", "field", "sentence"),
    [
        ({"property": "example.com", "refresh_token": "t"}, "property", "URL-prefix property"),
        ({"property": "https://example.com", "refresh_token": "t"}, "property", "ends with"),
        ({"property": "https://other.org/", "refresh_token": "t"}, "property", "example.com"),
        ({"property": "sc-domain:other.org", "refresh_token": "t"}, "property", "example.com"),
        ({"property": "sc-domain:example.com"}, "refresh_token", "exactly one"),
        (
            {
                "property": "sc-domain:example.com",
                "refresh_token": "t",
                "service_account_key": "{}",
            },
            "service_account_key",
            "service_account",
        ),
        (
            {"property": "sc-domain:example.com", "service_account_key": '{"type": "user"}'},
            "service_account_key",
            "service_account",
        ),
    ],
)
def test_a_bad_connection_is_422_and_stores_nothing(analytics, gsc, form, field, sentence):
    website_id = site(analytics)
    reply = analytics.put(f"/api/v1/websites/{website_id}/search-console", form)
    assert reply.status == 422, reply.body
    assert sentence in " ".join(reply.body["message"][field])
    assert analytics.get(f"/api/v1/websites/{website_id}/search-console").status == 404


def test_both_secrets_are_422(analytics, gsc):
    website_id = site(analytics)
    key = gsc.stub.service_account("sc-domain:example.com")
    form = {"property": "sc-domain:example.com", "refresh_token": "t", "service_account_key": key}
    reply = analytics.put(f"/api/v1/websites/{website_id}/search-console", json_body=form)
    assert reply.status == 422
    assert reply.body["message"] == {
        "refresh_token": ["Give exactly one of refresh_token or service_account_key."]
    }


def test_another_account_s_website_is_404(analytics, other_analytics, gsc):
    website_id = site(analytics)
    form = {"property": "sc-domain:example.com", "refresh_token": "t"}
    assert other_analytics.put(f"/api/v1/websites/{website_id}/search-console", form).status == 404
    assert other_analytics.get(f"/api/v1/websites/{website_id}/search-console").status == 404


def test_a_revoked_grant_fails_the_import_and_get_says_so(analytics, gsc):
    website_id = site(analytics)
    token = gsc.stub.refresh_token("sc-domain:example.com")
    form = {"property": "sc-domain:example.com", "refresh_token": token}
    analytics.put(f"/api/v1/websites/{website_id}/search-console", form)
    gsc.stub.revoke(token)
    run_tasks()
    last = analytics.get(f"/api/v1/websites/{website_id}/search-console").data["last_import"]
    assert last["status"] == "failed"
    assert "invalid_grant" in last["error"] and "connect the website again" in last["error"]


def test_a_property_not_granted_fails_with_google_s_403(analytics, gsc):
    website_id = site(analytics)
    token = gsc.stub.refresh_token("sc-domain:elsewhere.org")
    form = {"property": "sc-domain:example.com", "refresh_token": token}
    analytics.put(f"/api/v1/websites/{website_id}/search-console", form)
    run_tasks()
    last = analytics.get(f"/api/v1/websites/{website_id}/search-console").data["last_import"]
    assert last["status"] == "failed" and "403 PERMISSION_DENIED" in last["error"]


def test_a_429_waits_and_resumes_from_the_checkpoint(analytics, account, gsc, monkeypatch):
    website_id = site(analytics)
    token = gsc.stub.refresh_token("sc-domain:example.com")
    form = {"property": "sc-domain:example.com", "refresh_token": token}
    analytics.put(f"/api/v1/websites/{website_id}/search-console", form)
    # the dates query and two days pass, then the quota runs out
    original = gsc.stub.query
    calls = {"n": 0}

    def limited(*args: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 4:
            gsc.stub.quota_failures = 1
        return original(*args)

    monkeypatch.setattr(gsc.stub, "query", limited)
    run_tasks()
    last = analytics.get(f"/api/v1/websites/{website_id}/search-console").data["last_import"]
    assert last["status"] == "waiting" and "quota" in last["error"]
    assert last["imported_through"] == DAYS[1] and last["resume_after"]
    # before its time, an import asked for waits; after it, it resumes from the checkpoint
    assert imports.run(account.id, website_id) == "waiting"
    later = datetime.now(UTC) + timedelta(seconds=imports.BACKOFF_SECONDS + 1)
    monkeypatch.setattr(clock, "now", lambda: later)
    asked_before = len(gsc.stub.queries)
    assert imports.run(account.id, website_id) == "done"
    dated = [q for q in gsc.stub.queries[asked_before:] if q["dimensions"] == ["date"]]
    assert dated[0]["startDate"] == DAYS[2]  # from the checkpoint on
    last = analytics.get(f"/api/v1/websites/{website_id}/search-console").data["last_import"]
    assert last["status"] == "done" and last["error"] is None
    assert len(stored_rows(website_id)) == 40 * len(DAYS)


def test_delete_disconnects_and_deletes_the_rows(analytics, gsc):
    website_id = site(analytics)
    token = gsc.stub.refresh_token("sc-domain:example.com")
    form = {"property": "sc-domain:example.com", "refresh_token": token}
    analytics.put(f"/api/v1/websites/{website_id}/search-console", form)
    run_tasks()
    assert stored_rows(website_id)
    reply = analytics.delete(f"/api/v1/websites/{website_id}/search-console")
    assert reply.status == 200 and reply.body["deleted"] is True
    assert stored_rows(website_id) == []
    assert analytics.get(f"/api/v1/websites/{website_id}/search-console").status == 404
    assert analytics.delete(f"/api/v1/websites/{website_id}/search-console").status == 404
    assert analytics.post(f"/api/v1/websites/{website_id}/search-console/imports").status == 404


def test_google_s_401_on_a_revoked_access_token_fails_the_import(analytics, gsc, monkeypatch):
    """Revoked between the token's exchange and the query: the API answers 401."""
    from sitelens.analytics.searchconsole import google as google_api

    website_id = site(analytics)
    token = gsc.stub.refresh_token("sc-domain:example.com")
    form = {"property": "sc-domain:example.com", "refresh_token": token}
    analytics.put(f"/api/v1/websites/{website_id}/search-console", form)
    exchanged = google_api.access_token

    def revoked_at_once(*args: Any, **kwargs: Any) -> str:
        access = exchanged(*args, **kwargs)
        gsc.stub.revoke(token)
        return access

    monkeypatch.setattr(google_api, "access_token", revoked_at_once)
    run_tasks()
    last = analytics.get(f"/api/v1/websites/{website_id}/search-console").data["last_import"]
    assert last["status"] == "failed"
    assert "401 UNAUTHENTICATED" in last["error"] and "connect the website again" in last["error"]
