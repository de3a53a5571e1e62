"""Bearer keys: who may call, and the account they act for."""

from __future__ import annotations

import pytest

from sitelens import accounts
from sitelens.edge import auth

UNAUTHENTICATED = {"message": "Unauthenticated.", "status": 401}


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "Token abc",
        "Bearer a b",
        "Bearer sl_unknown",
        "Bearer " + "x" * 500,
    ],
)
def test_missing_malformed_or_unknown_key_is_401(analytics, header):
    headers = {} if header is None else {"Authorization": header}
    for method, path in (
        ("GET", "/api/v1/websites"),
        ("POST", "/api/v1/websites"),
        ("GET", "/api/v1/websites/1"),
        ("PUT", "/api/v1/websites/1"),
        ("DELETE", "/api/v1/websites/1"),
        ("GET", "/api/v1/account"),
    ):
        reply = analytics.request(method, path, key=None, headers=headers)
        assert reply.status == 401
        assert reply.body == UNAUTHENTICATED
        assert reply.headers["WWW-Authenticate"] == "Bearer"


def test_scheme_is_case_insensitive(analytics, account):
    reply = analytics.get(
        "/api/v1/account", key=None, headers={"authorization": f"bearer {account.key}"}
    )
    assert reply.status == 200


def test_revoked_key_is_401(analytics, account):
    assert analytics.get("/api/v1/websites").status == 200
    [row] = [k for k in accounts.list_keys() if k["account"] == account.id]
    assert accounts.revoke_key(row["id"])
    auth.forget()  # the warm-container cache would otherwise keep it for a few seconds
    reply = analytics.get("/api/v1/websites")
    assert reply.status == 401 and reply.body == UNAUTHENTICATED


def test_keys_are_stored_only_as_hashes(aws_env):
    import boto3

    account = accounts.create_account("Hashy")
    _, key = accounts.add_key(account, "k")
    items = boto3.client("dynamodb").query(
        TableName="AccountsTable",
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "KEYS"}},
    )["Items"]
    assert key not in str(items)
    assert accounts.key_hash(key) in str(items)
    assert len(key) >= 43 and key.startswith("sl_")


def test_account_on_both_apis(analytics, seo, account):
    for client in (analytics, seo):
        reply = client.get("/api/v1/account")
        assert reply.status == 200
        assert reply.body["status"] == 200
        data = reply.data
        assert data["id"] == int(account.id) and data["name"] == "Acme"
        assert set(data) == {"id", "name", "email", "digest", "created_at"}
        assert (data["email"], data["digest"]) == (None, "weekly")


def test_a_second_key_acts_for_the_same_account(analytics, account):
    existing = accounts.get_account(account.id)
    _, second = accounts.add_key(existing, "second")
    created = analytics.post("/api/v1/websites", {"domain": "example.com"}).data
    reply = analytics.get(f"/api/v1/websites/{created['id']}", key=second)
    assert reply.status == 200


def test_a_revoked_key_stops_working_within_the_cache_time(analytics, account, monkeypatch):
    """A warm container that saw the key trusts it for SITELENS_KEY_CACHE_SECONDS (5)."""
    now = [1000.0]
    monkeypatch.setattr(auth.time, "monotonic", lambda: now[0])
    assert analytics.get("/api/v1/account").status == 200
    [row] = [k for k in accounts.list_keys() if k["account"] == account.id]
    assert accounts.revoke_key(row["id"])
    now[0] += 4.9
    assert analytics.get("/api/v1/account").status == 200  # still cached: the documented bound
    now[0] += 0.2
    reply = analytics.get("/api/v1/account")
    assert reply.status == 401 and reply.headers["WWW-Authenticate"] == "Bearer"
