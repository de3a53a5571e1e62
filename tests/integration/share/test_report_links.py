"""Reports are shared by an unguessable share id, never by their id: `share_url` in the
record opens the page, its JSON and unlock routes without a key, as privacy allows; ids
walked from 1, guesses and other paths are the 404 of a report that does not exist; the
share id goes with the report; a report from before share ids gets one when updated."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from sitelens.core import clock, config
from sitelens.data import reports as stored_reports
from sitelens.sharing import links
from tests.conftest import Client, make_account
from tests.fixtures.site import Site

NOT_FOUND = {"message": "Resource not found.", "status": 404}
UNAUTHENTICATED = {"message": "Unauthenticated.", "status": 401}
SHARE_URL = re.compile(r"https://api\.test(/[A-Za-z0-9]+)?/share/reports/([A-Za-z0-9_-]{22})")


@pytest.fixture(autouse=True)
def generous_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Walks make many share requests from one address (test_share_limits tests the limit)."""
    monkeypatch.setenv("SITELENS_SHARE_RATE_LIMIT", "1000")
    monkeypatch.setenv("SITELENS_SHARE_RATE_BURST", "10000")
    config.reset()
    yield
    config.reset()


@pytest.fixture
def owner(seo: Client, monkeypatch: pytest.MonkeyPatch) -> Iterator[Client]:
    """The account's key on the SEO API, with reports of the local test site allowed."""
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    yield seo
    config.reset()


@pytest.fixture
def public(account: Any) -> Client:
    """A caller with no key."""
    return Client("SeoApi", None)


def create(owner: Client, site: Site, **fields: Any) -> dict[str, Any]:
    reply = owner.post("/api/v1/reports", {"url": site.url("/good"), **fields})
    assert reply.status == 201, reply.body
    data: dict[str, Any] = reply.data
    return data


def share_id(report: dict[str, Any]) -> str:
    found = SHARE_URL.fullmatch(report["share_url"])
    assert found, report["share_url"]
    return found.group(2)


def share_routes(token: str) -> list[tuple[str, str]]:
    """Every report share route (method, path) for a share id or anything in its place."""
    return [
        ("GET", f"/share/reports/{token}"),
        ("POST", f"/share/reports/{token}"),
        ("GET", f"/api/v1/share/reports/{token}"),
        ("POST", f"/api/v1/share/reports/{token}/unlock"),
    ]


def assert_not_found(public: Client, token: str) -> None:
    """Every share route answers `token` as a report that does not exist."""
    for method, path in share_routes(token):
        reply = public.request(method, path, form={"password": "correct-horse"})
        assert reply.status == 404, (method, path, reply.status)
        if path.startswith("/api/"):
            assert reply.body == NOT_FOUND
        else:
            assert "Resource not found." in reply.body


def test_a_report_shows_its_share_url_on_create_get_and_list(owner, site):
    first = create(owner, site)
    second = create(owner, site, privacy=2, password="correct-horse")
    assert share_id(first) != share_id(second)
    assert owner.get(f"/api/v1/reports/{first['id']}").data["share_url"] == first["share_url"]
    listed = {r["id"]: r["share_url"] for r in owner.get("/api/v1/reports").data}
    assert listed == {first["id"]: first["share_url"], second["id"]: second["share_url"]}
    updated = owner.put(f"/api/v1/reports/{first['id']}", {"privacy": 1}).data
    assert updated["share_url"] == first["share_url"]  # the link stays; privacy decides


def test_the_share_url_opens_the_page_the_json_and_unlock_without_a_key(owner, public, site):
    report = create(owner, site)
    page = public.get(f"/share/reports/{share_id(report)}")
    assert page.status == 200
    assert f'id="score">{report["score"]}<' in page.body
    shared = public.get(f"/api/v1/share/reports/{share_id(report)}")
    assert (shared.status, shared.data) == (200, report)
    unlocked = public.post(f"/api/v1/share/reports/{share_id(report)}/unlock", {"password": "x"})
    assert unlocked.status == 200 and set(unlocked.data) == {"token", "expires_at"}


def test_ids_walked_from_1_and_guesses_open_no_share_view(owner, public, site):
    reports = [create(owner, site) for _ in range(3)]
    taken = share_id(reports[0])
    near = ("A" if taken[0] != "A" else "B") + taken[1:]  # one character off
    guesses = [str(n) for n in range(1, 8)]
    guesses += [str(reports[0]["id"]), "0", "-1", "1.0", "01", near, taken[:21], taken + "A"]
    guesses += [taken.lower() if taken.lower() != taken else taken.upper(), links.new_share_id()]
    for guess in guesses:
        assert_not_found(public, guess)
    # and the real one still opens: the 404s above were no limit or lock
    assert public.get(f"/api/v1/share/reports/{taken}").status == 200


def test_other_paths_do_not_open_a_report_by_its_share_id(owner, public, account, site):
    report = create(owner, site)
    token = share_id(report)
    website_public = Client("AnalyticsApi", None)
    assert website_public.get(f"/share/{token}").status == 404
    stats = website_public.get(f"/api/v1/share/websites/{token}/stats", query={"name": "pageviews"})
    assert stats.body == NOT_FOUND
    assert public.get(f"/api/v1/reports/{token}").status == 401  # a keyed route, no key
    assert owner.get(f"/api/v1/reports/{token}").body == NOT_FOUND  # not an id
    assert public.get(f"/share/{token}").status == 404  # no website route on the SEO API


def test_a_password_report_needs_its_password_by_share_id(owner, public, site):
    report = create(owner, site, privacy=2, password="correct-horse")
    token = share_id(report)
    json_path = f"/api/v1/share/reports/{token}"
    unlock_path = f"{json_path}/unlock"
    assert public.get(json_path).body == UNAUTHENTICATED
    form = public.get(f"/share/reports/{token}")
    assert form.status == 401 and 'type="password"' in form.body
    assert public.post(unlock_path, {"password": "wrong-horse"}).body == UNAUTHENTICATED
    grant = public.post(unlock_path, {"password": "correct-horse"}).data["token"]
    opened = public.get(json_path, headers={"Authorization": f"Bearer {grant}"})
    assert (opened.status, opened.data) == (200, report)
    posted = public.post(f"/share/reports/{token}", {"password": "correct-horse"})
    assert posted.status == 303
    cookie = posted.headers["Set-Cookie"].split(";")[0]
    assert public.get(f"/share/reports/{token}", headers={"Cookie": cookie}).status == 200
    # a token of this report opens no other report, by share id or by id
    other = create(owner, site, privacy=2, password="correct-horse")
    bearer = {"Authorization": f"Bearer {grant}"}
    assert public.get(f"/api/v1/share/reports/{share_id(other)}", headers=bearer).status == 401


def test_a_private_report_is_a_missing_one_by_share_id(owner, public, site):
    report = create(owner, site, privacy=1)
    assert_not_found(public, share_id(report))
    owner.put(f"/api/v1/reports/{report['id']}", {"privacy": 0})
    assert public.get(f"/api/v1/share/reports/{share_id(report)}").status == 200


def test_accounts_stay_apart(owner, public, site):
    report = create(owner, site, privacy=2, password="correct-horse")
    other = Client("SeoApi", make_account("Other").key)
    assert other.get(f"/api/v1/reports/{report['id']}").body == NOT_FOUND
    assert other.get("/api/v1/reports").data == []
    assert other.put(f"/api/v1/reports/{report['id']}", {"privacy": 0}).body == NOT_FOUND
    assert other.delete(f"/api/v1/reports/{report['id']}").body == NOT_FOUND
    # another account's key is no share token: the report is as locked as before
    shared = f"/api/v1/share/reports/{share_id(report)}"
    assert other.get(shared).body == UNAUTHENTICATED
    assert owner.get(shared).body == UNAUTHENTICATED  # nor is the owner's own key


def claim_items() -> list[dict[str, Any]]:
    items = boto3.client("dynamodb").scan(TableName=config.settings().reports_table)["Items"]
    return [item for item in items if item["account"]["S"].startswith("#claim:share:")]


def test_the_share_link_goes_with_its_report(owner, public, site):
    kept, deleted = create(owner, site), create(owner, site)
    assert len(claim_items()) == 2
    assert owner.delete(f"/api/v1/reports/{deleted['id']}").status == 200
    assert_not_found(public, share_id(deleted))
    assert [c["account"]["S"] for c in claim_items()] == [f"#claim:share:{share_id(kept)}"]
    project = kept["project"]
    assert owner.delete(f"/api/v1/projects/{project}").status == 200
    assert_not_found(public, share_id(kept))
    assert claim_items() == []


def test_a_report_from_before_share_ids_gets_one_at_its_next_update(owner, public, account):
    now = clock.now_iso()
    record = {
        "account": account.id,
        "id": stored_reports.allocate_id(),
        "url": "https://example.com/old",
        "search": "https://example.com/old",
        "project": "example.com",
        "results": json.dumps({}),
        "score": 70,
        "result": "decent",
        "generated_at": now,
        "privacy": 0,
        "created_at": now,
        "updated_at": now,
    }
    stored_reports.create_with_project(record)  # as stored before share ids, none
    path = f"/api/v1/reports/{record['id']}"
    assert owner.get(path).data["share_url"] is None
    assert_not_found(public, str(record["id"]))
    given = owner.put(path, {}).data["share_url"]
    assert SHARE_URL.fullmatch(given)
    assert owner.get(path).data["share_url"] == given
    assert owner.put(path, {"privacy": 0}).data["share_url"] == given  # given once
    shared = public.get(f"/api/v1/share/reports/{given.rsplit('/', 1)[1]}")
    assert shared.status == 200 and shared.data["id"] == record["id"]


def test_share_ids_are_128_random_bits_in_22_url_safe_characters():
    minted = {links.new_share_id() for _ in range(1000)}
    assert len(minted) == 1000
    assert all(links.is_share_id(token) for token in minted)
    assert links.SHARE_ID_BYTES * 8 >= 128
    for other in ("", "1", "12345", "a" * 21, "a" * 23, "a" * 21 + "=", "a" * 21 + "/"):
        assert not links.is_share_id(other)
