"""An audit's settings as a user changes them (`PUT`/`PATCH /api/v1/audits/{id}`), through
API Gateway events on moto: every field on create and on update, forms and JSON, the
crawl secret sealed and never shown or logged, what a run copies into its state, the
history and share id kept, and the 422s of values refused (nothing changed)."""

from __future__ import annotations

import io
import json
import time
from datetime import UTC, datetime, timedelta

import pytest

from sitelens.audits import codes, crawler
from sitelens.core import clock, config
from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.data import audits as stored_audits
from sitelens.data.clients import client
from sitelens.tokens import sealing
from tests.conftest import Client
from tests.integration.audits.test_audits import audit_site, crawlable
from tests.integration.test_openapi import DOCS, problems, schema_of

__all__ = ["audit_site", "crawlable"]  # fixtures this module uses

URL = "https://example.com/"
SECRETS = ("let-me-in-7f3a", "hunter22-basic", "sess=c00kie-9b1d")
SETTINGS = {
    "name": "Client site, staging",
    "user_agent": "googlebot_smartphone",
    "headers": {"X-Staging-Token": SECRETS[0]},
    "basic_auth": f"ann:{SECRETS[1]}",
    "cookie": SECRETS[2],
    "list_urls": [f"{URL}a", f"{URL}b"],
    "max_rate": 2.5,
    "regression": {"score_drop": 5, "high_on_added_pages": True, "ignore": ["orphan_page"]},
    "muted": {"page_image_format": "muted", "deep_page": "low"},
}


def drain() -> None:
    """Run the queued crawl steps through the worker until none is left."""
    sqs, url = client("sqs"), settings().audit_queue_url
    for _ in range(500):
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages")
        if not messages:
            return
        assert (
            crawler.handle([{"messageId": m["MessageId"], "body": m["Body"]} for m in messages])
            == []
        )
        for m in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    raise AssertionError("the crawl did not end")


def create(seo: Client, **fields) -> dict:
    reply = seo.request("POST", "/api/v1/audits", json_body={"url": URL, **fields})
    assert reply.status == 201, reply.body
    return reply.data


def record_of(account, audit_id: int) -> dict:
    return stored_audits.get(account.id, audit_id)


def state_of(account, audit: dict, run: int | None = None) -> dict:
    return stored_audits.state(
        stored_audits.crawl_key(account.id, audit["id"], run or audit["run"])
    )


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text


def test_create_takes_every_setting_and_the_run_copies_them(seo, account):
    created = create(seo, **SETTINGS)
    assert created["name"] == "Client site, staging"
    assert created["user_agent"] == "googlebot_smartphone"
    assert created["list_urls"] == f"{URL}a\n{URL}b"
    assert created["max_rate"] == 2.5
    assert created["regression"] == SETTINGS["regression"]
    assert created["muted"] == {"deep_page": "low", "page_image_format": "muted"}
    assert created["crawl_secret"] == {
        "headers": ["X-Staging-Token"],
        "basic_auth": True,
        "cookie": True,
    }
    assert created["scope_changed"] is False
    assert seo.get(f"/api/v1/audits/{created['id']}").data == created
    state = state_of(account, created)
    assert (state["user_agent"], state["list_urls"], state["max_rate"]) == (
        "googlebot_smartphone",
        f"{URL}a\n{URL}b",
        2.5,
    )
    assert json.loads(state["regression"]) == SETTINGS["regression"]
    assert json.loads(state["muted"]) == SETTINGS["muted"]
    assert state["scope_changed"] == 0
    assert json.loads(sealing.unseal(state["crawl_secret"])) == {
        "headers": {"X-Staging-Token": SECRETS[0]},
        "basic_auth": f"ann:{SECRETS[1]}",
        "cookie": SECRETS[2],
    }
    assert_no_secret(json.dumps(record_of(account, created["id"])), json.dumps(state))


def test_the_defaults(seo, account):
    created = create(seo)
    assert created["name"] is None and created["user_agent"] == "sitelens"
    assert created["list_urls"] == "" and created["max_rate"] is None
    assert created["regression"] == {"score_drop": 10, "high_on_added_pages": False, "ignore": []}
    assert created["muted"] == {}
    assert created["crawl_secret"] == {"headers": [], "basic_auth": False, "cookie": False}
    state = state_of(account, created)
    assert "crawl_secret" not in state and state["max_rate"] == 0


def test_a_form_carries_every_setting(seo):
    form = {
        "url": URL,
        "name": "Shop",
        "user_agent": "googlebot_desktop",
        "headers": "X-One: 1\nX-Two: two words",
        "basic_auth": "ann:pw",
        "cookie": "a=b",
        "list_urls": f"{URL}x\n{URL}y",
        "max_rate": "0.5",
        "regression": json.dumps({"score_drop": 20}),
        "muted": json.dumps({"dead_end": "muted"}),
    }
    reply = seo.post("/api/v1/audits", form)
    assert reply.status == 201, reply.body
    shown = reply.data
    assert shown["crawl_secret"]["headers"] == ["X-One", "X-Two"]
    assert shown["max_rate"] == 0.5 and shown["user_agent"] == "googlebot_desktop"
    assert shown["regression"]["score_drop"] == 20 and shown["muted"] == {"dead_end": "muted"}
    assert shown["list_urls"] == f"{URL}x\n{URL}y"


@pytest.mark.parametrize(
    ("field", "value", "shown", "scope"),
    [
        ("name", "Renamed", "Renamed", False),
        ("url", "https://example.com/start", "https://example.com/start", True),
        ("max_pages", 50, 50, True),
        ("max_depth", 3, 3, True),
        ("include", "/blog", "/blog", True),
        ("exclude", "/cart\n?utm_source=", "/cart\n?utm_source=", True),
        ("respect_robots", 0, 0, True),
        ("list_urls", f"{URL}only", f"{URL}only", True),
        ("schedule", "weekly", "weekly", False),
        ("user_agent", "googlebot_desktop", "googlebot_desktop", False),
        ("max_rate", 1, 1.0, False),
        ("regression", {"ignore": ["dead_end"]}, None, False),
        ("muted", {"broken_external_link": "medium"}, {"broken_external_link": "medium"}, False),
        ("privacy", 1, 1, False),
    ],
)
@pytest.mark.parametrize("method", ["PATCH", "PUT"])
def test_each_setting_changes_alone(seo, account, method, field, value, shown, scope):
    created = create(seo)
    reply = seo.request(method, f"/api/v1/audits/{created['id']}", json_body={field: value})
    assert reply.status == 200, reply.body
    changed = reply.data
    if field == "regression":
        shown = {"score_drop": 10, "high_on_added_pages": False, "ignore": ["dead_end"]}
    assert changed[field] == shown
    assert changed["scope_changed"] is scope
    untouched = {
        k: v for k, v in created.items() if k not in (field, "scope_changed", "updated_at")
    }
    assert {k: changed[k] for k in untouched} == untouched
    assert changed["updated_at"] > created["updated_at"]
    assert seo.get(f"/api/v1/audits/{created['id']}").data == changed


def test_sending_a_scope_value_unchanged_is_no_scope_change(seo):
    created = create(seo, max_pages=40)
    changed = seo.patch(f"/api/v1/audits/{created['id']}", {"max_pages": "40", "name": "x"})
    assert changed.status == 200 and changed.data["scope_changed"] is False


def test_a_name_is_cleared_by_an_empty_one(seo):
    created = create(seo, name="Named")
    assert seo.patch(f"/api/v1/audits/{created['id']}", {"name": ""}).data["name"] is None


def test_crawl_secret_parts_change_alone_and_clear(seo, account):
    created = create(seo, headers={"X-A": "1"}, basic_auth="ann:pw")
    path = f"/api/v1/audits/{created['id']}"

    def sealed() -> dict:
        token = record_of(account, created["id"]).get("crawl_secret")
        return json.loads(sealing.unseal(token)) if token else {}

    changed = seo.patch(path, json_body={"cookie": "a=b"}).data
    assert changed["crawl_secret"] == {"headers": ["X-A"], "basic_auth": True, "cookie": True}
    assert sealed() == {"headers": {"X-A": "1"}, "basic_auth": "ann:pw", "cookie": "a=b"}
    changed = seo.patch(path, json_body={"headers": {}}).data
    assert changed["crawl_secret"] == {"headers": [], "basic_auth": True, "cookie": True}
    assert sealed() == {"headers": {}, "basic_auth": "ann:pw", "cookie": "a=b"}
    changed = seo.patch(path, {"basic_auth": "", "cookie": ""}).data
    assert changed["crawl_secret"] == {"headers": [], "basic_auth": False, "cookie": False}
    assert "crawl_secret" not in record_of(account, created["id"])


def test_the_secret_is_never_in_an_answer_or_a_log_line(seo, account, monkeypatch):
    written = io.StringIO()  # every line the service's logger writes, at DEBUG
    monkeypatch.setattr(logger.registered_handler, "stream", written)
    level = logger.log_level
    logger.setLevel("DEBUG")
    try:
        created = create(seo, **SETTINGS)
        path = f"/api/v1/audits/{created['id']}"
        answers = [
            seo.get(path),
            seo.get("/api/v1/audits"),
            seo.get("/api/v1/audits", query={"format": "csv"}),
            seo.patch(path, json_body={"cookie": f"{SECRETS[2]}x", "headers": SETTINGS["headers"]}),
            seo.put(path, json_body={"basic_auth": f"ann:{SECRETS[1]}"}),
            # refused values are not repeated either
            seo.patch(path, json_body={"headers": {"X-Bad": f"{SECRETS[0]}\r\nX: y"}}),
            seo.patch(path, json_body={"basic_auth": SECRETS[1]}),
            seo.patch(path, json_body={"cookie": f"{SECRETS[2]}\n"}),
            seo.post(f"{path}/runs"),
            Client("SeoApi", None).get(f"/api/v1/share/audits/{created['share_id']}"),
        ]
    finally:
        logger.setLevel(level)
    assert [a.status for a in answers] == [200, 200, 200, 200, 200, 422, 422, 422, 409, 200]
    lines = written.getvalue()
    assert lines.count("\n") >= len(answers)  # a line for every request at least
    assert_no_secret(lines, *(json.dumps(a.body) for a in answers))


def test_privacy_and_password_change(seo):
    created = create(seo)
    path = f"/api/v1/audits/{created['id']}"
    refused = seo.patch(path, {"privacy": "2"})
    assert refused.status == 422 and "password" in refused.body["message"]
    guarded = seo.patch(path, {"privacy": "2", "password": "long enough"})
    assert guarded.status == 200 and guarded.data["password"] is True
    assert "long enough" not in json.dumps(guarded.body)
    assert seo.patch(path, {"name": "kept"}).data["password"] is True  # still guarded
    opened = seo.patch(path, {"privacy": "0"})
    assert opened.data["privacy"] == 0 and opened.data["password"] is False


def test_a_schedule_change_moves_the_due_index(seo, account):
    created = create(seo)
    path = f"/api/v1/audits/{created['id']}"
    far = clock.iso(datetime.now(UTC) + timedelta(days=400))

    def due() -> dict:
        return {s: stored_audits.due(s, far, 100) for s in ("daily", "weekly", "monthly")}

    assert due() == {"daily": [], "weekly": [], "monthly": []}
    seo.patch(path, {"schedule": "daily"})
    record = record_of(account, created["id"])
    next_run = datetime.fromisoformat(record["next_run_at"])
    assert timedelta(hours=23) < next_run - datetime.now(UTC) <= timedelta(days=1)
    assert due()["daily"] == [(account.id, created["id"])]
    seo.patch(path, {"schedule": "monthly"})
    assert due() == {"daily": [], "weekly": [], "monthly": [(account.id, created["id"])]}
    seo.patch(path, {"schedule": "none"})
    assert due() == {"daily": [], "weekly": [], "monthly": []}
    assert "next_run_at" not in record_of(account, created["id"])


def test_a_change_while_a_run_goes_on_applies_from_the_next_run(seo, account):
    created = create(seo, max_pages=20)
    changed = seo.patch(f"/api/v1/audits/{created['id']}", {"max_pages": "30", "name": "n"})
    assert changed.status == 200 and changed.data["status"] == "queued"
    assert state_of(account, created)["max_pages"] == 20  # the run goes on as it started


def test_another_account_s_audit_is_404_and_unchanged(seo, other_seo):
    created = create(seo)
    path = f"/api/v1/audits/{created['id']}"
    for method in ("PATCH", "PUT"):
        assert other_seo.request(method, path, json_body={"name": "mine"}).status == 404
        assert other_seo.request(method, "/api/v1/audits/999", json_body={}).status == 404
    assert seo.get(path).data == created


def test_history_and_share_id_are_kept_and_a_scope_change_is_noted_on_the_next_run(
    seo, account, audit_site, crawlable
):
    created = create(seo, url=audit_site.url("/"), max_pages=5)
    drain()
    path = f"/api/v1/audits/{created['id']}"
    [first] = seo.get(f"{path}/runs").data
    assert first["status"] == "done"
    changed = seo.patch(
        path,
        json_body={
            "max_pages": 4,
            "name": "Edited",
            "privacy": 1,
            "user_agent": "googlebot_desktop",
        },
    ).data
    assert changed["share_id"] == created["share_id"]
    assert changed["share_url"] == created["share_url"]
    assert changed["scope_changed"] is True and changed["run"] == 1
    assert seo.get(f"{path}/runs").data == [first]
    assert changed["score"] == first["score"]
    again = seo.post(f"{path}/runs")
    assert again.status == 201 and again.data["scope_changed"] is False  # cleared by the start
    state = state_of(account, again.data)
    assert state["scope_changed"] == 1 and state["max_pages"] == 4
    assert state["user_agent"] == "googlebot_desktop"
    drain()
    runs = seo.get(f"{path}/runs").data
    assert [r["run"] for r in runs] == [2, 1] and runs[1] == first
    third = seo.post(f"{path}/runs").data  # no change since: nothing to note
    assert state_of(account, third)["scope_changed"] == 0
    shared = Client("SeoApi", None).get(f"/api/v1/share/audits/{created['share_id']}")
    assert shared.status == 404  # privacy 1 now: the same share id, closed


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "x" * 121),
        ("name", "   "),
        ("url", "https://ann:pw@example.com/"),
        ("url", "https://ann@example.com/"),
        ("url", "http://127.0.0.1/"),
        ("url", "http://localhost/"),
        ("url", "http://[::1]/"),
        ("url", "http://169.254.169.254/latest/meta-data/"),
        ("url", "http://10.0.0.7/"),
        ("url", "ftp://example.com/"),
        ("user_agent", "curl"),
        ("headers", {"Bad Name": "1"}),
        ("headers", {"X-A\r\nX-B": "1"}),
        ("headers", {"Host": "other.example"}),
        ("headers", {"authorization": "Bearer x"}),
        ("headers", {"Cookie": "a=b"}),
        ("headers", {"Content-Length": "1"}),
        ("headers", {"X-A": "1\r\nX-Injected: 2"}),
        ("headers", {"X-A": "v" * 1025}),
        ("headers", {f"X-{n}": "1" for n in range(21)}),
        ("headers", "X-A 1"),
        ("headers", ["X-A: 1", "x-a: 2"]),
        ("basic_auth", "no-colon"),
        ("basic_auth", ":pw"),
        ("basic_auth", "ann:pw\nX: y"),
        ("cookie", "a=b\r\nX: y"),
        ("cookie", "a" * 4097),
        ("list_urls", "/relative"),
        ("list_urls", "https://other.example/a"),
        ("list_urls", "ftp://example.com/a"),
        ("list_urls", "\n".join(f"{URL}{n}" for n in range(3)) + "\n"),  # max_pages 2, below
        ("max_rate", 0.05),
        ("max_rate", 21),
        ("max_rate", "fast"),
        ("max_rate", True),
        ("regression", {"score_drop": 0}),
        ("regression", {"score_drop": 101}),
        ("regression", {"ignore": ["no_such_check"]}),
        ("regression", {"ignore": "dead_end"}),
        ("regression", {"unknown": 1}),
        ("regression", {"high_on_added_pages": 1}),
        ("regression", "not json"),
        ("muted", {"no_such_check": "muted"}),
        ("muted", {"dead_end": "critical"}),
        ("muted", {f"page_{n}": "muted" for n in range(101)}),
        ("muted", ["dead_end"]),
        ("schedule", "hourly"),
    ],
)
def test_values_refused_are_422_and_change_nothing(seo, account, field, value):
    created = create(seo, max_pages=2)
    path = f"/api/v1/audits/{created['id']}"
    refused = seo.patch(path, json_body={field: value})
    assert refused.status == 422 and field in refused.body["message"], refused.body
    assert seo.get(path).data == created
    sent = {"url": URL, "max_pages": 2, field: value}
    assert seo.request("POST", "/api/v1/audits", json_body=sent).status == 422
    assert [a["id"] for a in seo.get("/api/v1/audits").data] == [created["id"]]


def test_a_port_the_fetcher_does_not_reach_is_422(seo, monkeypatch):
    monkeypatch.setenv("SITELENS_FETCH_PORTS", "80,443")
    config.reset()
    refused = seo.post("/api/v1/audits", {"url": "https://example.com:8443/"})
    assert refused.status == 422 and "port" in refused.body["message"]["url"][0]
    assert seo.post("/api/v1/audits", {"url": "https://example.com:443/"}).status == 201


def test_private_addresses_are_allowed_when_the_service_allows_them(seo, crawlable):
    assert seo.post("/api/v1/audits", {"url": "http://127.0.0.1:8000/"}).status == 201


def test_secrets_larger_than_one_seal_are_422(seo):
    headers = {f"X-{n}": "v" * 1000 for n in range(5)}
    refused = seo.request("POST", "/api/v1/audits", json_body={"url": URL, "headers": headers})
    assert refused.status == 422 and "4096 bytes" in refused.body["message"]["headers"][0]
    assert seo.get("/api/v1/audits").data == []


@pytest.mark.parametrize("issue", ["no_such_check", "page_nope", "DEAD_END", "dead end"])
def test_an_unknown_issue_filter_is_422(seo, issue):
    created = create(seo)
    reply = seo.get(f"/api/v1/audits/{created['id']}/pages", query={"issue": issue})
    assert reply.status == 422 and "issue" in reply.body["message"], reply.body


@pytest.mark.parametrize("issue", ["dead_end", "too_many_links", "page_title", "page_canonical"])
def test_a_known_issue_filter_is_read(seo, issue):
    created = create(seo)
    reply = seo.get(f"/api/v1/audits/{created['id']}/pages", query={"issue": issue})
    assert reply.status == 200 and reply.data == []


@pytest.mark.parametrize("kind", ["kms1", "ssm1"])
def test_the_stack_s_key_seals_the_secret(seo, account, monkeypatch, kind):
    """kms1: the KMS key (CostProfile=standard); ssm1: the key in the stack's parameter
    (lean), made at the first seal."""
    if kind == "kms1":
        key_id = client("kms").create_key(Description="seal")["KeyMetadata"]["KeyId"]
        monkeypatch.setenv("SITELENS_SEAL_KEY_ID", key_id)
    else:
        monkeypatch.setenv("SITELENS_SEAL_KEY_PARAMETER", f"/stack{time.time_ns()}/seal-key")
    config.reset()
    try:
        created = create(seo, headers={"X-A": SECRETS[0]}, cookie=SECRETS[2])
        token = record_of(account, created["id"])["crawl_secret"]
        assert token.startswith(f"{kind}.") and state_of(account, created)["crawl_secret"] == token
        assert_no_secret(token)
        changed = seo.patch(f"/api/v1/audits/{created['id']}", json_body={"cookie": "c=d"})
        assert changed.data["crawl_secret"] == {
            "headers": ["X-A"],
            "basic_auth": False,
            "cookie": True,
        }
        resealed = record_of(account, created["id"])["crawl_secret"]
        assert json.loads(sealing.unseal(resealed)) == {
            "headers": {"X-A": SECRETS[0]},
            "basic_auth": None,
            "cookie": "c=d",
        }
        with pytest.raises(sealing.BadSeal):
            sealing.unseal(resealed[:-4] + ("AAAA" if not resealed.endswith("AAAA") else "BBBB"))
    finally:
        config.reset()


def test_answers_match_the_document(seo, account):
    created = seo.request("POST", "/api/v1/audits", json_body={"url": URL, **SETTINGS})
    path = f"/api/v1/audits/{created.data['id']}"
    for reply, schema in [
        (created, "AuditEnvelope"),
        (seo.get(path), "AuditEnvelope"),
        (seo.patch(path, json_body={"cookie": "", "max_rate": 0}), "AuditEnvelope"),
        (seo.put(path, {"name": "", "schedule": "daily"}), "AuditEnvelope"),
        (seo.get("/api/v1/audits"), "AuditList"),
        (seo.patch(path, json_body={"muted": {"nope": "muted"}}), "ValidationError"),
        (Client("SeoApi", None).get(f"/api/v1/share/audits/{created.data['share_id']}"), None),
    ]:
        assert (
            problems("SeoApi", schema_of("SeoApi", schema or "AuditSharedEnvelope"), reply.body)
            == []
        )
    documented = DOCS["SeoApi"]["components"]["schemas"]["AuditIssueCode"]["enum"]
    assert set(documented) == codes.known()  # the contract lists the codes the code knows
