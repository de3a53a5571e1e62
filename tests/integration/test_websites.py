"""The websites operations, through the template's routes, as API.md describes them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

import pytest

from sitelens.data import records
from sitelens.data import websites as stored_websites
from sitelens.data.items import from_item

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
RECORD_FIELDS = {
    "id",
    "domain",
    "privacy",
    "password",
    "email",
    "exclude_bots",
    "exclude_params",
    "exclude_ips",
    "timezone",
    "traffic_alerts",
    "favorite",
    "favorited_at",
    "verified",
    "verified_at",
    "tracking_from",
    "released_at",
    "created_at",
    "updated_at",
}


def create(client, **fields):
    reply = client.post("/api/v1/websites", fields)
    assert reply.status == 201, reply.body
    return reply.data


def stored_items(account_id):
    import boto3

    answer = boto3.client("dynamodb").query(
        TableName="WebsitesTable",
        KeyConditionExpression="account = :a",
        ExpressionAttributeValues={":a": {"S": account_id}},
    )
    return [from_item(item) for item in answer["Items"]]


# -- create -----------------------------------------------------------------------------


def test_create_applies_defaults_and_returns_the_record(analytics):
    reply = analytics.post("/api/v1/websites", {"domain": "example.com"})
    assert reply.status == 201
    assert reply.body["status"] == 201
    record = reply.data
    assert set(record) == RECORD_FIELDS
    assert record["domain"] == "example.com"
    assert (record["privacy"], record["email"], record["exclude_bots"]) == (0, 0, 1)
    assert record["password"] is False
    assert record["exclude_params"] == "" and record["exclude_ips"] == ""
    assert record["favorite"] is False and record["favorited_at"] is None
    assert ISO.match(record["created_at"]) and record["created_at"] == record["updated_at"]
    assert isinstance(record["id"], int) and record["id"] > 0


def test_ids_increase_in_creation_order(analytics):
    ids = [create(analytics, domain=f"site{n}.com")["id"] for n in range(3)]
    assert ids == sorted(ids) and len(set(ids)) == 3


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("https://www.Example.COM/", "example.com"),
        ("http://blog.example.org", "blog.example.org"),
        ("  www.example.net  ", "example.net"),
        ("bücher.de", "bücher.de"),
        ("203.0.113.9", "203.0.113.9"),
        ("xn--bcher-kva.ch", "xn--bcher-kva.ch"),
    ],
)
def test_domain_is_normalized(analytics, sent, kept):
    assert create(analytics, domain=sent)["domain"] == kept


@pytest.mark.parametrize(
    "domain",
    [
        "",
        "   ",
        "not a domain",
        "example",
        "exa mple.com",
        "-bad.com",
        "bad-.com",
        "example.com/path",
        "http://",
        "a" * 250 + ".com",
        "exam_ple.com",
        "example.123",
    ],
)
def test_invalid_domains_are_refused(analytics, domain):
    reply = analytics.post("/api/v1/websites", {"domain": domain})
    assert reply.status == 422
    assert reply.body["status"] == 422
    assert reply.body["message"]["domain"] in (
        ["Invalid domain name."],
        ["The domain field is required."],
    )
    assert analytics.get("/api/v1/websites").data == []


def test_domain_is_required(analytics):
    reply = analytics.post("/api/v1/websites", {"privacy": "0"})
    assert reply.status == 422
    assert reply.body["message"] == {"domain": ["The domain field is required."]}


def test_domain_is_unique_across_accounts(analytics, other_analytics):
    create(analytics, domain="example.com")
    for client, domain in ((analytics, "www.example.com"), (other_analytics, "EXAMPLE.com")):
        reply = client.post("/api/v1/websites", {"domain": domain})
        assert reply.status == 422
        assert reply.body["message"] == {"domain": ["The domain has already been taken."]}
    assert other_analytics.get("/api/v1/websites").data == []


def test_idn_and_punycode_forms_are_the_same_domain(analytics):
    create(analytics, domain="bücher.de")
    reply = analytics.post("/api/v1/websites", {"domain": "xn--bcher-kva.de"})
    assert reply.status == 422


@pytest.mark.parametrize(
    ("field", "value", "sentence"),
    [
        ("privacy", "3", "The privacy field must be one of: 0, 1, 2."),
        ("privacy", "public", "The privacy field must be one of: 0, 1, 2."),
        ("email", "2", "The email field must be one of: 0, 1."),
        ("exclude_bots", "yes", "The exclude bots field must be one of: 0, 1."),
        ("exclude_bots", "", "The exclude bots field must be one of: 0, 1."),
    ],
)
def test_choice_fields_name_the_allowed_values(analytics, field, value, sentence):
    reply = analytics.post("/api/v1/websites", {"domain": "example.com", field: value})
    assert reply.status == 422
    assert reply.body["message"] == {field: [sentence]}
    assert stored_items(analytics_account_id(analytics)) == []


def analytics_account_id(client):
    return str(client.get("/api/v1/account").data["id"])


def test_all_fields_on_create(analytics, account):
    record = create(
        analytics,
        domain="example.com",
        privacy="2",
        password="s3cret-horse",
        email="1",
        exclude_bots="0",
        exclude_params=" utm_source \r\n\nfbclid\n",
        exclude_ips="203.0.113.7\n198.51.100.0/24\n2001:db8::/32\n::1",
        favorite="1",  # not a create field: ignored
        id="99",
    )
    assert record["privacy"] == 2 and record["password"] is True
    assert record["email"] == 1 and record["exclude_bots"] == 0
    assert record["exclude_params"] == "utm_source\nfbclid"
    assert record["exclude_ips"] == "203.0.113.7\n198.51.100.0/24\n2001:db8::/32\n::1"
    assert record["favorite"] is False and record["id"] != 99
    [item] = [i for i in stored_items(account.id) if i["id"] == record["id"]]
    assert "s3cret" not in str(item)
    assert item["password_hash"].startswith("scrypt$")
    assert "password" not in item and "favorite_key" in item


def test_password_required_when_privacy_is_2(analytics):
    reply = analytics.post("/api/v1/websites", {"domain": "example.com", "privacy": "2"})
    assert reply.status == 422
    assert reply.body["message"] == {
        "password": ["The password field is required when privacy is 2."]
    }


@pytest.mark.parametrize("password", ["", "x" * 7, "x" * 129])
def test_password_length(analytics, password):
    reply = analytics.post(
        "/api/v1/websites", {"domain": "example.com", "privacy": "2", "password": password}
    )
    assert reply.status == 422
    assert "password" in reply.body["message"]


def test_a_password_has_8_characters_at_least_on_create_and_update(analytics):
    short = {"message": {"password": ["The password field must be at least 8 characters."]}}
    reply = analytics.post(
        "/api/v1/websites", {"domain": "example.com", "privacy": "2", "password": "1234567"}
    )
    assert (reply.status, reply.body) == (422, {**short, "status": 422})
    record = create(analytics, domain="example.com", privacy="2", password="12345678")
    reply = analytics.put(f"/api/v1/websites/{record['id']}", {"password": "1234567"})
    assert (reply.status, reply.body) == (422, {**short, "status": 422})


def test_password_ignored_unless_privacy_is_2(analytics, account):
    record = create(analytics, domain="example.com", privacy="1", password="secret-horse")
    assert record["password"] is False
    assert "password_hash" not in stored_items(account.id)[0]


def test_exclude_lists_accept_repeated_fields(analytics):
    reply = analytics.post(
        "/api/v1/websites",
        [
            ("domain", "example.com"),
            ("exclude_ips[]", "203.0.113.7"),
            ("exclude_ips[]", "10.0.0.0/8"),
            ("exclude_params[]", "ref"),
            ("exclude_params[]", "&"),
        ],
    )
    assert reply.status == 201
    assert reply.data["exclude_ips"] == "203.0.113.7\n10.0.0.0/8"
    assert reply.data["exclude_params"] == "ref\n&"


@pytest.mark.parametrize("ips", ["203.0.113.300", "example.com", "10.0.0.0/33", "1.2.3.4 5.6.7.8"])
def test_invalid_exclude_ips(analytics, ips):
    reply = analytics.post("/api/v1/websites", {"domain": "example.com", "exclude_ips": ips})
    assert reply.status == 422
    assert list(reply.body["message"]) == ["exclude_ips"]


@pytest.mark.parametrize("params", ["utm source", "a=b", "x&y", "#frag"])
def test_invalid_exclude_params(analytics, params):
    reply = analytics.post("/api/v1/websites", {"domain": "example.com", "exclude_params": params})
    assert reply.status == 422
    assert list(reply.body["message"]) == ["exclude_params"]


def test_several_invalid_fields_are_reported_together(analytics):
    reply = analytics.post("/api/v1/websites", {"privacy": "9", "email": "x"})
    assert reply.status == 422
    assert set(reply.body["message"]) == {"domain", "privacy", "email"}


def test_json_body_is_accepted(analytics):
    reply = analytics.request(
        "POST",
        "/api/v1/websites",
        json_body={"domain": "example.com", "privacy": 1, "exclude_ips": ["203.0.113.7"]},
    )
    assert reply.status == 201
    assert reply.data["privacy"] == 1 and reply.data["exclude_ips"] == "203.0.113.7"


# -- get --------------------------------------------------------------------------------


def test_get_returns_the_record(analytics):
    record = create(analytics, domain="example.com")
    reply = analytics.get(f"/api/v1/websites/{record['id']}")
    assert reply.status == 200
    assert reply.body == {"data": record, "status": 200}


@pytest.mark.parametrize("website_id", ["999", "0", "-1", "abc", "1.5", "99999999999999999999"])
def test_get_unknown_id_is_404(analytics, website_id):
    reply = analytics.get(f"/api/v1/websites/{website_id}")
    assert reply.status == 404
    assert reply.body == {"message": "Resource not found.", "status": 404}


# -- update -----------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_update_changes_only_sent_fields(analytics, method):
    record = create(analytics, domain="example.com", email="1", exclude_ips="203.0.113.7")
    reply = analytics.request(
        method,
        f"/api/v1/websites/{record['id']}",
        form={"exclude_bots": "0", "created_at": "x"},
    )
    assert reply.status == 200 and reply.body["status"] == 200
    updated = reply.data
    assert updated["exclude_bots"] == 0
    assert updated["domain"] == "example.com"  # a new one renames: test_website_rename.py
    assert updated["email"] == 1 and updated["exclude_ips"] == "203.0.113.7"
    assert updated["created_at"] == record["created_at"]
    assert updated["updated_at"] > record["updated_at"]
    assert analytics.get(f"/api/v1/websites/{record['id']}").data == updated


def test_update_can_clear_lists(analytics):
    record = create(analytics, domain="example.com", exclude_params="ref")
    reply = analytics.put(f"/api/v1/websites/{record['id']}", {"exclude_params": ""})
    assert reply.data["exclude_params"] == ""


def test_favorite_sets_and_clears_favorited_at(analytics):
    record = create(analytics, domain="example.com")
    marked = analytics.put(f"/api/v1/websites/{record['id']}", {"favorite": "1"}).data
    assert marked["favorite"] is True and ISO.match(marked["favorited_at"])
    again = analytics.put(f"/api/v1/websites/{record['id']}", {"favorite": "1"}).data
    assert again["favorited_at"] == marked["favorited_at"]
    cleared = analytics.put(f"/api/v1/websites/{record['id']}", {"favorite": "0"}).data
    assert cleared["favorite"] is False and cleared["favorited_at"] is None
    bad = analytics.put(f"/api/v1/websites/{record['id']}", {"favorite": "2"})
    assert bad.status == 422
    assert bad.body["message"] == {"favorite": ["The favorite field must be one of: 0, 1."]}


def test_privacy_2_needs_a_password_unless_one_is_stored(analytics, account):
    record = create(analytics, domain="example.com")
    path = f"/api/v1/websites/{record['id']}"
    refused = analytics.put(path, {"privacy": "2"})
    assert refused.status == 422 and "password" in refused.body["message"]
    assert analytics.get(path).data["privacy"] == 0
    protected = analytics.put(path, {"privacy": "2", "password": "first-horse"}).data
    assert protected["password"] is True
    first_hash = stored_items(account.id)[0]["password_hash"]
    # Stored password kept when privacy stays 2 without a new one.
    assert analytics.put(path, {"email": "1"}).data["password"] is True
    assert analytics.put(path, {"privacy": "2"}).status == 200
    assert stored_items(account.id)[0]["password_hash"] == first_hash
    analytics.put(path, {"password": "second-horse"})
    assert stored_items(account.id)[0]["password_hash"] != first_hash
    # Leaving privacy 2 removes the password.
    opened = analytics.put(path, {"privacy": "1"}).data
    assert opened["password"] is False
    assert "password_hash" not in stored_items(account.id)[0]


def test_invalid_update_changes_nothing(analytics):
    record = create(analytics, domain="example.com")
    path = f"/api/v1/websites/{record['id']}"
    reply = analytics.put(path, {"email": "1", "exclude_ips": "nope"})
    assert reply.status == 422
    assert analytics.get(path).data == record


def test_update_unknown_id_is_404(analytics):
    reply = analytics.put("/api/v1/websites/12345", {"email": "1"})
    assert reply.status == 404


# -- delete -----------------------------------------------------------------------------


def test_delete_removes_record_and_domain_claim(analytics, other_analytics, account):
    record = create(analytics, domain="example.com")
    reply = analytics.delete(f"/api/v1/websites/{record['id']}")
    assert reply.status == 200
    assert reply.body == {"id": record["id"], "object": "website", "deleted": True, "status": 200}
    assert analytics.get(f"/api/v1/websites/{record['id']}").status == 404
    assert analytics.delete(f"/api/v1/websites/{record['id']}").status == 404
    assert records.get_claim(stored_websites.COLLECTION, "example.com") is None
    # The domain is free again, for anyone.
    assert other_analytics.post("/api/v1/websites", {"domain": "example.com"}).status == 201


# -- isolation --------------------------------------------------------------------------


def test_other_accounts_records_are_invisible(analytics, other_analytics):
    record = create(analytics, domain="example.com")
    path = f"/api/v1/websites/{record['id']}"
    assert other_analytics.get(path).status == 404
    assert other_analytics.put(path, {"email": "1"}).status == 404
    assert other_analytics.patch(path, {"favorite": "1"}).status == 404
    assert other_analytics.delete(path).status == 404
    assert other_analytics.get("/api/v1/websites").data == []
    assert other_analytics.get("/api/v1/websites", query={"search": "example"}).data == []
    assert analytics.get(path).data == record


# -- routes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/api/v1/websites", "GET, POST"),
        ("DELETE", "/api/v1/websites", "GET, POST"),
        ("POST", "/api/v1/websites/1", "DELETE, GET, PATCH, PUT"),
        ("POST", "/api/v1/account", "GET"),
    ],
)
def test_wrong_method_is_405_with_allow(analytics, method, path, allow):
    reply = analytics.request(method, path)
    assert reply.status == 405
    assert reply.headers["Allow"] == allow
    assert reply.body == {"message": "Method not allowed.", "status": 405}


@pytest.mark.parametrize(
    "path", ["/", "/api/v1", "/api/v1/nothing", "/api/v1/websites/1/x", "/api/v1/reports"]
)
def test_unknown_route_is_404(analytics, path):
    reply = analytics.get(path)
    assert reply.status == 404
    assert reply.body == {"message": "Resource not found.", "status": 404}


def test_unknown_route_needs_no_key(analytics):
    assert analytics.get("/nothing", key=None).status == 404


@pytest.mark.full_scrypt
def test_the_stored_hash_is_of_the_password(analytics, account):
    create(analytics, domain="example.com", privacy="2", password="correct-horse")
    stored_hash = stored_items(account.id)[0]["password_hash"]
    assert scrypt_matches("correct-horse", stored_hash)
    assert not scrypt_matches("wrong-horse", stored_hash)


def scrypt_matches(password: str, stored_hash: str) -> bool:
    """Whether a stored `scrypt$n$r$p$salt$digest` hash is of `password`."""
    scheme, n, r, p, salt, digest = stored_hash.split("$")
    assert scheme == "scrypt" and int(n) >= 2**17  # OWASP's minimum
    expected = base64.b64decode(digest)
    actual = hashlib.scrypt(
        password.encode(),
        salt=base64.b64decode(salt),
        n=int(n),
        r=int(r),
        p=int(p),
        dklen=32,
        maxmem=256 * 1024 * 1024,
    )
    return hmac.compare_digest(actual, expected)


def test_json_null_and_booleans_are_refused(analytics):
    reply = analytics.post(
        "/api/v1/websites", json_body={"domain": "example.com", "exclude_ips": None, "email": True}
    )
    assert reply.status == 422
    assert reply.body["message"] == {"exclude_ips": ["The exclude ips field must not be null."]}
    reply = analytics.post("/api/v1/websites", json_body={"domain": "example.com", "email": True})
    assert reply.body["message"] == {"email": ["The email field must be one of: 0, 1."]}
    assert analytics.get("/api/v1/websites").data == []


def test_a_website_has_a_time_zone(analytics):
    created = create(analytics, domain="zone.example")
    assert created["timezone"] == "UTC"
    berlin = create(analytics, domain="berlin.example", timezone="Europe/Berlin")
    assert berlin["timezone"] == "Europe/Berlin"
    reply = analytics.put(f"/api/v1/websites/{created['id']}", {"timezone": "America/New_York"})
    assert reply.status == 200 and reply.data["timezone"] == "America/New_York"
    # "localtime": this machine's zone file, no name of the tzdata list (core.timezones)
    for bad in ("Mars/Olympus", "europe/berlin", "../etc/passwd", "x" * 100, "localtime"):
        refused = analytics.put(f"/api/v1/websites/{created['id']}", {"timezone": bad})
        assert refused.status == 422, bad
        assert list(refused.body["message"]) == ["timezone"]
    assert analytics.get(f"/api/v1/websites/{created['id']}").data["timezone"] == "America/New_York"


def test_an_empty_time_zone_is_utc(analytics):
    """An empty `timezone`, which the document allows, is none: the default, UTC."""
    created = create(analytics, domain="empty-zone.example", timezone="")
    assert created["timezone"] == "UTC"
    analytics.put(f"/api/v1/websites/{created['id']}", {"timezone": "Europe/Berlin"})
    reply = analytics.put(f"/api/v1/websites/{created['id']}", {"timezone": " "})
    assert reply.status == 200 and reply.data["timezone"] == "UTC"
