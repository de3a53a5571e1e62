"""The keys API on both bases: create (the secret once), list, show, revoke, rotate with an
overlap, expiry; secrets stored only as hashes; the CLI's first key keeps working."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import boto3
import pytest

from sitelens import accounts
from sitelens.accounts import keyring
from sitelens.edge import auth
from tests.conftest import Client

SHOWN = {
    "id",
    "member",
    "name",
    "prefix",
    "scopes",
    "rate_limit",
    "created_at",
    "last_used_at",
    "expires_at",
    "rotated_at",
    "previous_expires_at",
}


@pytest.fixture(params=["AnalyticsApi", "SeoApi"])
def api(request, account) -> Client:
    return Client(request.param, account.key)


def new_key(api: Client, **fields) -> dict:
    reply = api.post("/api/v1/keys", {"name": "client", **fields})
    assert reply.status == 201, reply.body
    return reply.data


def test_create_shows_the_secret_once_and_stores_only_its_hash(api, account):
    created = new_key(api, access="write")
    secret = created.pop("key")
    assert secret.startswith("sl_") and len(secret) >= 43
    assert set(created) == SHOWN
    assert created["prefix"] == secret[:11]
    assert created["scopes"] == {"access": "write", "websites": None, "projects": None}
    assert created["expires_at"] is None
    shown = api.get(f"/api/v1/keys/{created['id']}")
    assert shown.status == 200 and shown.data == created and "key" not in shown.data
    listed = api.get("/api/v1/keys").data
    assert listed[0]["id"] == created["id"] and len(listed) == 2  # and the first
    items = boto3.client("dynamodb").scan(TableName="AccountsTable")["Items"]
    assert secret not in str(items) and accounts.key_hash(secret) in str(items)
    assert Client(api.gateway.api, secret).get("/api/v1/account").data["id"] == int(account.id)


def test_a_new_key_reads_by_default(analytics):
    created = new_key(analytics)
    assert created["scopes"]["access"] == "read"
    reader = Client("AnalyticsApi", created["key"])
    assert reader.get("/api/v1/websites").status == 200
    reply = reader.post("/api/v1/websites", {"domain": "example.com"})
    assert reply.status == 403 and reply.body == {"message": "Forbidden.", "status": 403}
    assert analytics.get("/api/v1/websites").data == []


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"name": "k", "access": "admin"}, "access"),
        ({"name": "k", "websites": "abc"}, "websites"),
        ({"name": "k", "websites": "999"}, "websites"),  # not the account's
        ({"name": "k", "websites": ",".join(str(n) for n in range(1, 52))}, "websites"),
        ({"name": "k", "projects": "not a host!"}, "projects"),
        ({"name": "k", "expires_at": "yesterday"}, "expires_at"),
        ({"name": "k", "expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
        ({"name": "k", "expires_at": "2999-01-01T00:00:00Z"}, "expires_at"),
        ({"name": "k", "expires_at": "0001-01-01T00:00:00+01:00"}, "expires_at"),
        ({"name": "k", "expires_at": "9999-12-31T23:59:59-01:00"}, "expires_at"),
    ],
)
def test_bad_input_is_422_and_makes_no_key(analytics, fields, field):
    before = analytics.get("/api/v1/keys").data
    reply = analytics.request("POST", "/api/v1/keys", form=fields)
    assert reply.status == 422 and field in reply.body["message"], reply.body
    assert analytics.get("/api/v1/keys").data == before


def test_another_account_s_key_is_404(analytics, other_analytics):
    created = new_key(analytics)
    for method in ("GET", "DELETE"):
        assert other_analytics.request(method, f"/api/v1/keys/{created['id']}").status == 404
    assert other_analytics.post(f"/api/v1/keys/{created['id']}/rotate").status == 404
    assert created["id"] not in [k["id"] for k in other_analytics.get("/api/v1/keys").data]
    assert Client("AnalyticsApi", created["key"]).get("/api/v1/account").status == 200


def test_revoke_stops_the_key_everywhere_within_the_cache_time(api, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(auth.time, "monotonic", lambda: now[0])
    created = new_key(api)
    other_base = Client("SeoApi" if api.gateway.api == "AnalyticsApi" else "AnalyticsApi", None)
    assert Client(api.gateway.api, created["key"]).get("/api/v1/account").status == 200
    reply = api.delete(f"/api/v1/keys/{created['id']}")
    assert reply.status == 200
    assert reply.body == {"id": created["id"], "object": "key", "deleted": True, "status": 200}
    # this container forgot it at once; another one trusts its copy at most the cache time
    assert other_base.get("/api/v1/account", key=created["key"]).status == 401
    assert api.get(f"/api/v1/keys/{created['id']}").status == 404
    assert api.delete(f"/api/v1/keys/{created['id']}").status == 404
    row = next(k for k in accounts.list_keys() if k["id"] == str(created["id"]))
    assert row["revoked_at"]  # the CLI's listing keeps it, revoked


def test_a_cached_key_lasts_no_longer_than_the_cache_time(analytics, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(auth.time, "monotonic", lambda: now[0])
    created = new_key(analytics)
    user = Client("AnalyticsApi", created["key"])
    assert user.get("/api/v1/account").status == 200
    assert keyring.revoke_key(str(created["id"]))  # elsewhere: this container still has it
    now[0] += 4.9
    assert user.get("/api/v1/account").status == 200
    now[0] += 0.2
    assert user.get("/api/v1/account").status == 401


def test_rotation_gives_a_new_secret_and_the_old_one_works_for_the_overlap(api, monkeypatch):
    created = new_key(api)
    old = created["key"]
    reply = api.post(f"/api/v1/keys/{created['id']}/rotate", {"overlap": "60"})
    assert reply.status == 200, reply.body
    rotated = reply.data
    assert rotated["id"] == created["id"] and rotated["key"] != old
    assert rotated["prefix"] == rotated["key"][:11] and rotated["rotated_at"]
    assert rotated["previous_expires_at"] is not None
    for secret in (old, rotated["key"]):
        assert Client(api.gateway.api, secret).get("/api/v1/account").status == 200
    auth.forget()
    later = auth.time.time() + 61
    monkeypatch.setattr(keyring.time, "time", lambda: later)
    assert Client(api.gateway.api, old).get("/api/v1/account").status == 401
    assert Client(api.gateway.api, rotated["key"]).get("/api/v1/account").status == 200


def test_rotation_without_overlap_ends_the_old_secret_now_and_revoke_ends_both(analytics):
    created = new_key(analytics)
    first = analytics.post(f"/api/v1/keys/{created['id']}/rotate", {"overlap": "3600"}).data
    second = analytics.post(f"/api/v1/keys/{created['id']}/rotate", {"overlap": "0"}).data
    auth.forget()
    assert second["previous_expires_at"] is None
    for gone in (created["key"], first["key"]):
        assert Client("AnalyticsApi", gone).get("/api/v1/account").status == 401
    assert Client("AnalyticsApi", second["key"]).get("/api/v1/account").status == 200
    third = analytics.post(f"/api/v1/keys/{created['id']}/rotate", {"overlap": "3600"}).data
    assert analytics.delete(f"/api/v1/keys/{created['id']}").status == 200
    for gone in (second["key"], third["key"]):
        assert Client("AnalyticsApi", gone).get("/api/v1/account").status == 401


def test_a_json_number_without_a_fraction_is_a_whole_number(analytics):
    """JSON Schema counts 60.0 as an integer, so the documents allow it (schemathesis sent
    one); 60.5 is no whole number of seconds."""
    site = analytics.post("/api/v1/websites", {"domain": "whole.example"}).data
    reply = analytics.post(
        "/api/v1/keys",
        json_body={"name": "k", "rate_limit": 2.0, "websites": [float(site["id"])]},
    )
    assert reply.status == 201, reply.body
    assert (reply.data["rate_limit"], reply.data["scopes"]["websites"]) == (2, [site["id"]])
    path = f"/api/v1/keys/{reply.data['id']}/rotate"
    assert analytics.post(path, json_body={"overlap": 60.5}).status == 422
    assert analytics.get(f"/api/v1/keys/{reply.data['id']}").data["rotated_at"] is None
    rotated = analytics.post(path, json_body={"overlap": 60.0})
    assert rotated.status == 200, rotated.body
    assert rotated.data["previous_expires_at"] is not None


@pytest.mark.parametrize("overlap", ["-1", "604801", "soon", "1.5"])
def test_a_bad_overlap_is_422_and_rotates_nothing(analytics, overlap):
    created = new_key(analytics)
    reply = analytics.post(f"/api/v1/keys/{created['id']}/rotate", {"overlap": overlap})
    assert reply.status == 422 and "overlap" in reply.body["message"]
    assert Client("AnalyticsApi", created["key"]).get("/api/v1/account").status == 200
    assert analytics.get(f"/api/v1/keys/{created['id']}").data["rotated_at"] is None


def test_an_expiry_in_rfc_3339_s_lower_case_is_taken(analytics):
    soon = datetime.now(UTC) + timedelta(days=2)
    created = new_key(analytics, expires_at=soon.strftime("%Y-%m-%dt%H:%M:%Sz"))
    assert created["expires_at"] == soon.strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def test_an_expired_key_is_401(analytics, monkeypatch):
    soon = datetime.now(UTC) + timedelta(hours=1)
    created = new_key(analytics, expires_at=soon.isoformat())
    assert created["expires_at"].startswith(soon.strftime("%Y-%m-%dT%H:%M:%S"))
    user = Client("AnalyticsApi", created["key"])
    assert user.get("/api/v1/account").status == 200
    later = soon.timestamp() + 1
    monkeypatch.setattr(keyring.time, "time", lambda: later)
    monkeypatch.setattr(auth.time, "time", lambda: later)
    assert user.get("/api/v1/account").status == 401


def test_last_used_is_noted(analytics):
    created = new_key(analytics)
    assert created["last_used_at"] is None
    assert Client("AnalyticsApi", created["key"]).get("/api/v1/account").status == 200
    assert analytics.get(f"/api/v1/keys/{created['id']}").data["last_used_at"]


def test_only_a_key_over_the_whole_account_manages_keys(analytics):
    website = analytics.post("/api/v1/websites", {"domain": "example.com"}).data
    limited = new_key(analytics, access="write", websites=str(website["id"]))
    reader = new_key(analytics)
    for secret in (limited["key"], reader["key"]):
        reply = Client("AnalyticsApi", secret).post("/api/v1/keys", {"name": "more"})
        assert reply.status == 403
    assert Client("AnalyticsApi", limited["key"]).get("/api/v1/keys").status == 403
    assert Client("AnalyticsApi", reader["key"]).get("/api/v1/keys").status == 200
    assert len(analytics.get("/api/v1/keys").data) == 3


def test_the_cli_s_first_key_has_every_right(analytics, account):
    """Keys made by `sitelens keys create` (and before scopes) read and write everything."""
    [entry] = analytics.get("/api/v1/keys").data
    assert entry["scopes"] == {"access": "write", "websites": None, "projects": None}
    assert analytics.post("/api/v1/websites", {"domain": "example.com"}).status == 201


@pytest.mark.parametrize("rate", ["0", "1001", "fast", "1.5"])
def test_a_bad_rate_limit_is_422(analytics, rate):
    reply = analytics.post("/api/v1/keys", {"name": "k", "rate_limit": rate})
    assert reply.status == 422 and "rate_limit" in reply.body["message"]


def test_a_key_with_a_rate_limit_has_a_bucket_of_its_own(analytics, monkeypatch):
    from sitelens.accounts import limits

    now = [1_900_000_000.0]  # the buckets' clock, held still: no token comes back meanwhile
    monkeypatch.setattr(limits.time, "time", lambda: now[0])
    created = new_key(analytics, rate_limit="2")
    assert created["rate_limit"] == 2
    limited = Client("AnalyticsApi", created["key"])
    answers = [limited.get("/api/v1/account") for _ in range(12)]
    statuses = [a.status for a in answers]
    burst = 2 * limits.KEY_BURST_SECONDS
    assert statuses == [200] * burst + [429] * (12 - burst)
    assert answers[0].headers["X-RateLimit-Limit"] == str(burst)
    assert answers[-1].headers["X-RateLimit-Remaining"] == "0"
    assert int(answers[-1].headers["Retry-After"]) >= 1
    assert analytics.get("/api/v1/account").status == 200  # the account's other keys go on
    now[0] += 1.0
    assert limited.get("/api/v1/account").status == 200  # its tokens come back at its rate


@pytest.mark.parametrize("projects", [[None], [1], [""], ["not a host!"]])
def test_projects_must_be_hosts(analytics, projects):
    reply = analytics.request("POST", "/api/v1/keys", json_body={"name": "k", "projects": projects})
    assert reply.status == 422 and "projects" in reply.body["message"]


def test_a_key_from_before_the_keys_api_is_listed_from_its_first_use(analytics, account):
    """Keys stored before the keys API have no entry among their account's keys."""
    import boto3

    [entry] = analytics.get("/api/v1/keys").data
    boto3.client("dynamodb").delete_item(
        TableName="AccountsTable",
        Key={"pk": {"S": f"KEYS#{account.id}"}, "sk": {"S": str(entry["id"])}},
    )
    keyring.forget()
    auth.forget()
    [adopted] = analytics.get("/api/v1/keys").data  # this very request made it
    assert (adopted["id"], adopted["name"], adopted["prefix"]) == (
        entry["id"],
        entry["name"],
        account.key[:11],
    )
    assert adopted["scopes"] == entry["scopes"] and adopted["created_at"] == entry["created_at"]
    assert adopted["last_used_at"]
    assert analytics.delete(f"/api/v1/keys/{entry['id']}").status == 200
    assert analytics.get("/api/v1/account").status == 401
