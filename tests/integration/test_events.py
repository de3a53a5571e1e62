"""The events in events/ replayed the way `sam local invoke <Function> -e <file>` runs
them: the template's function for the event's route, its handler called with the event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sitelens import accounts
from sitelens.local import gateway, template
from tests.integration.test_websites import RECORD_FIELDS  # a website record's fields

EVENTS = Path(__file__).resolve().parents[2] / "events"
# API Gateway events; the SQS events (`{"Records": [...]}`) are replayed in
# tests/integration/test_analytics_events.py.
EVENT_FILES = sorted(p for p in EVENTS.glob("*.json") if "httpMethod" in json.loads(p.read_text()))
ROUTES = template.routes(template.load())
KEY = "sl_example_events_key_0123456789abcdefghijklmnopqrstuv"


def load(path: Path) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(path.read_text())
    return event


def route_for(event: dict[str, Any]) -> template.Route:
    """The template route API Gateway picks: a specific method before ANY on a resource."""
    on_resource = [r for r in ROUTES if r.path == event["resource"]]
    for method in (event["httpMethod"], "ANY"):
        functions = {r.function for r in on_resource if r.method == method}
        assert len(functions) <= 1, f"{method} {event['resource']} is routed to {functions}"
        if functions:
            return next(r for r in on_resource if r.method == method)
    raise AssertionError(
        f"no function in template.yaml for {event['httpMethod']} {event['resource']}"
    )


def invoke(event: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
    route = route_for(event)
    module_name, _, function = route.handler.rpartition(".")
    module = gateway.load_module(gateway.ROOT / route.code_uri / f"{module_name}.py")
    answer = getattr(module, function)(event, gateway.LambdaContext(route.function))
    headers = answer.get("headers") or {}
    body = answer["body"]
    if headers.get("Content-Type", "").startswith("application/json"):
        body = json.loads(body)
    return answer["statusCode"], headers, body


def event(name: str) -> dict[str, Any]:
    return load(EVENTS / f"{name}.json")


@pytest.fixture
def events_account(aws_env: None) -> accounts.Account:
    account = accounts.create_account("Events")
    accounts.add_key(account, "events", key=KEY)
    return account


@pytest.fixture
def website(events_account: accounts.Account) -> dict[str, Any]:
    status, _, body = invoke(event("websites-create"))
    assert status == 201, body
    assert body["data"]["id"] == 1
    record: dict[str, Any] = body["data"]
    return record


def test_there_are_events() -> None:
    assert len(EVENT_FILES) >= 9


@pytest.mark.parametrize("path", EVENT_FILES, ids=lambda p: p.stem)
def test_event_has_the_proxy_event_shape(path: Path) -> None:
    loaded = load(path)
    made = gateway.proxy_event(loaded["httpMethod"], loaded["path"], loaded["resource"])
    assert loaded.keys() == made.keys()
    assert loaded["requestContext"].keys() == made["requestContext"].keys()
    assert loaded["requestContext"]["identity"]["sourceIp"]
    assert loaded["requestContext"]["resourcePath"] == loaded["resource"]
    assert loaded["requestContext"]["httpMethod"] == loaded["httpMethod"]
    public = ("/api/v1/openapi.json", "/api/v1/docs", "/api/v1/docs/redoc.js")
    keyless = (
        loaded["resource"] in public
        or loaded["resource"].startswith("/api/v1/share/")
        or loaded["resource"] == "/api/v1/unsubscribe"
        or loaded["resource"] == "/api/v1/search-console/callback"  # Google's redirect back
        or loaded["resource"].startswith("/api/v1/recipients/")
        or loaded["resource"] == "/api/v1/members/accept"
    )
    if loaded["resource"].startswith("/api/v1/") and not keyless:
        assert loaded["headers"]["Authorization"] == f"Bearer {KEY}"
    assert loaded["multiValueHeaders"] == {k: [v] for k, v in loaded["headers"].items()}
    query = loaded["queryStringParameters"]
    multi = loaded["multiValueQueryStringParameters"]
    assert (query is None) == (multi is None)
    if multi:
        assert query == {k: v[-1] for k, v in multi.items()}
    if "{id}" in loaded["resource"]:
        inner = {
            name: "1"
            for name in (
                "goal_id",
                "funnel_id",
                "segment_id",
                "annotation_id",
                "delivery_id",
                "link_id",
                "run",
                "export_id",
                "import_id",
            )
            if f"{{{name}}}" in loaded["resource"]
        }
        assert loaded["pathParameters"] == {"id": "1", **inner}
    assert loaded["isBase64Encoded"] is False
    route_for(loaded)


def test_every_api_function_has_an_event() -> None:
    covered = {route_for(load(path)).function for path in EVENT_FILES}
    api_functions = {route.function for route in ROUTES}
    assert api_functions - covered == set(), "functions with an Api event but no events/ file"


def test_websites_create(events_account: accounts.Account) -> None:
    status, headers, body = invoke(event("websites-create"))
    assert status == 201, body
    assert headers["Content-Type"] == "application/json"
    assert body["status"] == 201
    assert body["data"].keys() == RECORD_FIELDS
    assert body["data"]["id"] == 1
    assert body["data"]["domain"] == "example.com"
    assert body["data"]["email"] == 1
    assert body["data"]["exclude_params"] == "utm_source\nfbclid"
    assert body["data"]["exclude_ips"] == "203.0.113.7\n198.51.100.0/24"


def test_share_website_stats_and_page(website: dict[str, Any]) -> None:
    status, _, body = invoke(event("share-website-stats"))  # the website is public
    assert status == 200, body
    assert body["data"] == [] and body["meta"]["per_page"] == 10
    status, headers, page = invoke(event("share-website-page"))
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert "example.com" in page
    status, _, body = invoke(event("share-website-unlock"))  # public: any password opens it
    assert status == 200 and set(body["data"]) == {"token", "expires_at"}
    status, _, body = invoke(event("share-website-dashboard"))  # the query API's figures
    assert status == 200, body
    assert body["data"]["totals"]["visitors"]["value"] == 0 and body["data"]["goals"] is None


def test_share_report_routes_answer_404_for_a_missing_report(events_account) -> None:
    for name in ("share-report", "share-report-unlock"):
        status, _, body = invoke(event(name))
        assert (status, body) == (404, {"message": "Resource not found.", "status": 404})
    status, _, page = invoke(event("share-report-page"))
    assert status == 404 and "Resource not found." in page


def test_share_audit_routes_answer_404_for_a_missing_audit(events_account) -> None:
    for name in ("share-audit", "share-audit-unlock"):
        status, _, body = invoke(event(name))
        assert (status, body) == (404, {"message": "Resource not found.", "status": 404})
    status, _, page = invoke(event("share-audit-page"))
    assert status == 404 and "Resource not found." in page


def test_export_routes_answer_404_for_a_missing_audit_or_report(events_account) -> None:
    for name in ("audits-export", "audits-changes", "reports-export"):
        status, _, body = invoke(event(name))
        assert (status, body) == (404, {"message": "Resource not found.", "status": 404})


def test_unsubscribe_with_a_bad_link_changes_nothing(website: dict[str, Any]) -> None:
    status, headers, page = invoke(event("unsubscribe"))
    assert status == 422 and "invalid or has expired" in page
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    status, _, body = invoke(event("unsubscribe-one-click"))
    assert (status, body["message"]) == (422, {"token": ["The link is invalid or has expired."]})


def with_token(replayed: dict[str, Any], token: str) -> dict[str, Any]:
    replayed["queryStringParameters"] = {"token": token}
    replayed["multiValueQueryStringParameters"] = {"token": [token]}
    return replayed


def test_unsubscribe_asks_on_get_and_stops_on_the_one_click_post(
    events_account: accounts.Account, website: dict[str, Any]
) -> None:
    from sitelens import digests

    token = digests.unsubscribe_token(events_account.id, [website["id"]])
    # a GET (a mail scanner's, say) only shows the page and its form
    status, _, page = invoke(with_token(event("unsubscribe"), token))
    assert status == 200 and 'method="post"' in page and "example.com" in page
    assert invoke(event("websites-get"))[2]["data"]["email"] == 1
    status, _, body = invoke(with_token(event("unsubscribe-one-click"), token))
    assert (status, body["data"]) == (200, {"unsubscribed": ["example.com"]})
    assert invoke(event("websites-get"))[2]["data"]["email"] == 0


def test_websites_list(website: dict[str, Any]) -> None:
    status, _, body = invoke(event("websites-list"))
    assert status == 200, body
    assert body.keys() == {"data", "links", "meta", "status"}
    assert body["status"] == 200
    assert body["data"] == [website]
    assert body["links"].keys() == {"first", "last", "prev", "next"}
    assert body["links"]["next"] is None
    assert body["meta"]["per_page"] == 25
    base = "https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/v1"
    assert body["meta"]["path"] == f"{base}/api/v1/websites"


def test_websites_get(website: dict[str, Any]) -> None:
    status, _, body = invoke(event("websites-get"))
    assert status == 200, body
    assert body == {"data": website, "status": 200}


def test_websites_update(website: dict[str, Any]) -> None:
    status, _, body = invoke(event("websites-update"))
    assert status == 200, body
    assert body["status"] == 200
    assert body["data"].keys() == RECORD_FIELDS
    changed = {k: body["data"][k] for k in ("privacy", "email", "exclude_bots", "exclude_params")}
    assert changed == {"privacy": 1, "email": 0, "exclude_bots": 0, "exclude_params": "&"}
    assert body["data"]["domain"] == website["domain"]


def test_websites_patch(website: dict[str, Any]) -> None:
    status, _, body = invoke(event("websites-patch"))
    assert status == 200, body
    assert body["status"] == 200
    assert body["data"].keys() == RECORD_FIELDS
    assert body["data"]["favorite"] is True
    assert body["data"]["favorited_at"] is not None


def test_websites_delete(website: dict[str, Any]) -> None:
    status, _, body = invoke(event("websites-delete"))
    assert status == 200, body
    assert body == {"id": 1, "object": "website", "deleted": True, "status": 200}
    status, _, body = invoke(event("websites-get"))
    assert status == 404, body


def test_account_get(events_account: accounts.Account) -> None:
    status, _, body = invoke(event("account-get"))
    assert status == 200, body
    assert body == {"data": events_account.public(), "status": 200}


def test_fallback_method_not_allowed(events_account: accounts.Account) -> None:
    status, headers, body = invoke(event("fallback-method-not-allowed"))
    assert status == 405
    assert body == {"message": "Method not allowed.", "status": 405}
    assert headers["Allow"] == "GET, POST"


def test_fallback_not_found(events_account: accounts.Account) -> None:
    status, _, body = invoke(event("fallback-not-found"))
    assert status == 404
    assert body == {"message": "Resource not found.", "status": 404}


def test_events_need_the_key(aws_env: None) -> None:
    status, headers, body = invoke(event("websites-list"))
    assert status == 401
    assert body == {"message": "Unauthenticated.", "status": 401}
    assert headers["WWW-Authenticate"] == "Bearer"
