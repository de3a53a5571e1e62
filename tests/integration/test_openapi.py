"""The OpenAPI documents (openapi/*.yaml) against the code: every route of template.yaml and
no other, every field of the input models with its allowed values and defaults, the
records' keys, the 38 checks, the error bodies; real answers of the handlers validate
against the documented schemas and statuses; both documents are valid OpenAPI 3.1, every
example is valid against its schema, and the components both documents repeat agree."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_spec
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from sitelens.accounts import limits, members
from sitelens.analytics.hit import STAT_NAMES, Hit
from sitelens.analytics.inputs import StatsQuery
from sitelens.core import config, errors
from sitelens.local import openapi, template
from sitelens.records.inputs import Input
from sitelens.reports.inputs import ProjectListQuery, ReportCreate, ReportListQuery, ReportUpdate
from sitelens.seo import analysis, checks
from sitelens.seo.guidance import advised
from sitelens.seo.page import Response, Site
from sitelens.websites.inputs import WebsiteCreate, WebsiteListQuery, WebsiteUpdate
from tests.fixtures import site as fixture_site
from tests.fixtures.analytics import CHROME, hit_record, run

ROOT = Path(__file__).resolve().parents[2]
FILES = {"AnalyticsApi": ROOT / "openapi/analytics.yaml", "SeoApi": ROOT / "openapi/seo.yaml"}
DOCS = {api: openapi.document(path.stem) for api, path in FILES.items()}
TEMPLATE = template.load()
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# Public routes both documents describe before template.yaml has them (issue 8). Delete an
# entry once its route is in the template; until then the route may be missing there.
PLANNED: set[tuple[str, str, str]] = set()

# Components each document repeats (they are served one at a time), which must agree.
SHARED = {
    "securitySchemes": ["bearer"],
    "parameters": ["Search", "Sort", "PerPage", "Cursor"],
    "headers": [
        "WWW-Authenticate",
        "Allow",
        "Retry-After",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
    ],
    "responses": [
        "Unauthenticated",
        "NotFound",
        "MethodNotAllowed",
        "Conflict",
        "PayloadTooLarge",
        "UnsupportedMediaType",
        "TooManyRequests",
        "ServerError",
    ],
    "schemas": [
        "Timestamp",
        "Error",
        "ValidationError",
        "Links",
        "Meta",
        "Deleted",
        "Account",
        "AccountEnvelope",
    ],
}

# (model, API, method, path, where its fields go, the least valid input)
MODELS: list[tuple[type[Input], str, str, str, str, dict[str, str]]] = [
    (WebsiteCreate, "AnalyticsApi", "POST", "/api/v1/websites", "body", {"domain": "example.com"}),
    (WebsiteUpdate, "AnalyticsApi", "PUT", "/api/v1/websites/{id}", "body", {}),
    (WebsiteUpdate, "AnalyticsApi", "PATCH", "/api/v1/websites/{id}", "body", {}),
    (WebsiteListQuery, "AnalyticsApi", "GET", "/api/v1/websites", "query", {}),
    (StatsQuery, "AnalyticsApi", "GET", "/api/v1/stats/{id}", "query", {"name": "page"}),
    (ReportCreate, "SeoApi", "POST", "/api/v1/reports", "body", {"url": "https://example.com/"}),
    (ReportUpdate, "SeoApi", "PUT", "/api/v1/reports/{id}", "body", {}),
    (ReportUpdate, "SeoApi", "PATCH", "/api/v1/reports/{id}", "body", {}),
    (ReportListQuery, "SeoApi", "GET", "/api/v1/reports", "query", {}),
    (ProjectListQuery, "SeoApi", "GET", "/api/v1/projects", "query", {}),
]
# Body fields the models leave None ("not sent") whose documented default is what the
# operation applies when they are absent; test_documented_defaults_are_applied checks each.
APPLIED_DEFAULTS = {
    ("WebsiteCreate", "privacy"),
    ("WebsiteCreate", "email"),
    ("WebsiteCreate", "exclude_bots"),
    ("WebsiteCreate", "timezone"),
    ("WebsiteCreate", "traffic_alerts"),
    ("ReportCreate", "privacy"),
    ("ReportUpdate", "results"),
}


# -- reading the documents ------------------------------------------------------------------


def pointer(*parts: str) -> str:
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)


def at(doc: dict[str, Any], location: str) -> Any:
    node: Any = doc
    for part in location.split("/")[1:]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def follow(doc: dict[str, Any], location: str) -> str:
    """The location of the object at `location`, following `$ref`s (responses, parameters,
    request bodies, examples)."""
    while "$ref" in (node := at(doc, location)):
        assert node["$ref"].startswith("#/"), node["$ref"]
        location = node["$ref"][1:]
    return location


def operations(api: str) -> dict[tuple[str, str], str]:
    """(METHOD, path) -> the operation's location."""
    return {
        (method.upper(), path): pointer("paths", path, method)
        for path, item in DOCS[api]["paths"].items()
        for method in item
        if method in METHODS
    }


def operation(api: str, method: str, path: str) -> dict[str, Any]:
    return at(DOCS[api], operations(api)[(method, path)])


def absolute(schema: Any, base: str) -> Any:
    """`schema` with its local `$ref`s made to point into the document at `base`."""
    if isinstance(schema, dict):
        return {
            key: (
                base + value if key == "$ref" and value.startswith("#") else absolute(value, base)
            )
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [absolute(item, base) for item in schema]
    return schema


REGISTRY = Registry().with_resources(
    (f"urn:sitelens:{api}", DRAFT202012.create_resource(doc)) for api, doc in DOCS.items()
)


def validator(api: str, schema: Any) -> Draft202012Validator:
    return Draft202012Validator(
        absolute(schema, f"urn:sitelens:{api}"),
        registry=REGISTRY,
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def schema_of(api: str, name: str) -> dict[str, Any]:
    return DOCS[api]["components"]["schemas"][name]


def problems(api: str, schema: Any, value: Any) -> list[str]:
    found = validator(api, schema).iter_errors(value)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"[:300] for e in found]


def documented_fields(api: str, method: str, path: str, where: str) -> dict[str, dict[str, Any]]:
    """name -> {"schema", "required"} of an operation's query parameters or body fields."""
    doc = DOCS[api]
    location = operations(api)[(method, path)]
    if where == "query":
        path_item = at(doc, pointer("paths", path))
        listed = [*path_item.get("parameters", []), *at(doc, location).get("parameters", [])]
        fields = {}
        for entry in listed:
            param = entry if "$ref" not in entry else at(doc, entry["$ref"][1:])
            if param["in"] == "query":
                fields[param["name"]] = {
                    "schema": param["schema"],
                    "required": param.get("required", False),
                }
        return fields
    body = at(doc, follow(doc, location + "/requestBody"))
    schemas = []
    for media in body["content"].values():
        schema = media["schema"]
        schemas.append(at(doc, schema["$ref"][1:]) if "$ref" in schema else schema)
    assert all(s == schemas[0] for s in schemas), f"{method} {path}: media types differ"
    required = set(schemas[0].get("required", []))
    return {
        name: {"schema": schema, "required": name in required}
        for name, schema in schemas[0]["properties"].items()
    }


# -- the documents themselves -----------------------------------------------------------------


@pytest.mark.parametrize("api", FILES)
def test_the_document_is_valid_openapi_3_1(api):
    assert DOCS[api]["openapi"].startswith("3.1")
    validate_spec(DOCS[api])


@pytest.mark.parametrize("api", FILES)
def test_the_document_stands_alone_and_converts_to_json(api):
    """It is served as JSON by itself: plain JSON types only (no YAML dates), local refs."""
    text = json.dumps(DOCS[api])
    refs = re.findall(r'"\$ref": "([^"]*)"', text)
    assert refs and all(ref.startswith("#/") for ref in refs)
    for ref in set(refs):
        at(DOCS[api], ref[1:])  # resolves


def test_shared_components_agree():
    analytics, seo = (DOCS[api]["components"] for api in ("AnalyticsApi", "SeoApi"))
    for section, names in SHARED.items():
        for name in names:
            assert name in analytics[section] and name in seo[section], (section, name)
    for section in analytics.keys() & seo.keys():
        if section == "examples":
            continue
        for name in analytics[section].keys() & seo[section].keys():
            assert analytics[section][name] == seo[section][name], f"{section}/{name} differ"


def examples() -> Iterator[tuple[str, str, Any, Any]]:
    """(API, where, schema, value) of every example in the documents."""

    def walk(api: str, doc: Any, node: Any, location: str) -> Iterator[tuple[str, str, Any, Any]]:
        if isinstance(node, dict):
            schema = node.get("schema")
            if schema is not None and "example" in node:
                yield api, location + "/example", schema, node["example"]
            if schema is not None and isinstance(node.get("examples"), dict):
                for name, entry in node["examples"].items():
                    found = at(doc, follow(doc, location + pointer("examples", name)))
                    yield api, location + pointer("examples", name), schema, found["value"]
            if isinstance(node.get("examples"), list) and "type" in node:
                for number, value in enumerate(node["examples"]):
                    yield api, f"{location}/examples/{number}", node, value
            for key, value in node.items():
                yield from walk(api, doc, value, location + pointer(key))
        elif isinstance(node, list):
            for number, value in enumerate(node):
                yield from walk(api, doc, value, f"{location}/{number}")

    for api, doc in DOCS.items():
        yield from walk(api, doc, doc, "")


EXAMPLES = list(examples())


@pytest.mark.parametrize(
    ("api", "where", "schema", "value"), EXAMPLES, ids=[f"{a}{w}" for a, w, _, _ in EXAMPLES]
)
def test_every_example_is_valid_against_its_schema(api, where, schema, value):
    assert problems(api, schema, value) == []


def test_examples_cover_every_operation_s_answers():
    """Every documented JSON answer of an operation shows an example."""
    for api, doc in DOCS.items():
        for (method, path), location in operations(api).items():
            for status in at(doc, location)["responses"]:
                response = at(doc, follow(doc, f"{location}/responses/{status}"))
                media = (response.get("content") or {}).get("application/json")
                if media and "$ref" in media["schema"]:
                    assert "example" in media or "examples" in media, (method, path, status)


def test_report_examples_score_as_the_code_scores():
    reports = [
        value["data"]
        for api, _, _, value in EXAMPLES
        if api == "SeoApi" and isinstance(value, dict) and "results" in value.get("data", {})
    ]
    reports += [
        record
        for api, _, _, value in EXAMPLES
        if api == "SeoApi" and isinstance(value, dict) and isinstance(value.get("data"), list)
        for record in value["data"]
        if "results" in record
    ]
    assert reports
    for report in reports:
        assert report["score"] == analysis.weighted_score(report["results"])
        assert report["result"] == analysis.band(report["score"])


# -- routes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("api", FILES)
def test_every_route_is_documented_and_every_operation_routed(api):
    routed = {
        (route.method, route.path)
        for route in template.routes(TEMPLATE)
        if route.api == api and route.method != "ANY"  # ANY: the 404/405 fallbacks
    }
    documented = set(operations(api))
    planned = {(method, path) for name, method, path in PLANNED if name == api}
    assert routed - documented == set(), "routes missing from the document"
    assert documented - routed - planned == set(), "documented operations no route has"
    assert planned <= documented, "a planned route is not documented"


# POSTs that write no record (a query's body is too rich for a URL; an unlock only counts
# the attempt): no write can conflict.
READS = {
    ("POST", "/api/v1/query"),
    ("POST", "/api/v1/funnels/query"),
    ("POST", "/api/v1/journeys/query"),
    ("POST", "/api/v1/share/websites/{domain}/unlock"),
    ("POST", "/api/v1/share/reports/{share_id}/unlock"),
    ("POST", "/api/v1/share/audits/{share_id}/unlock"),
}


# JSON-RPC over one POST (the MCP server): what a message asks is in its body, and so are
# its errors (docs/mcp.md)
JSON_RPC = {"/mcp"}


def is_public(op: dict[str, Any]) -> bool:
    """Open without a key: no security, or an anonymous alternative (`{}`) beside a share
    proof, which may answer 401 (a password-protected record) but never asks for a key."""
    security = op.get("security")
    return security is not None and (security == [] or {} in security)


def needs_proof(op: dict[str, Any]) -> bool:
    """A share route: a record protected by a password answers 401 without its proof, or
    to a wrong password where one is checked."""
    proofs = any("shareToken" in need or "shareCookie" in need for need in op.get("security", []))
    return proofs or op["operationId"].startswith("unlock")


@pytest.mark.parametrize("api", FILES)
def test_operation_ids_are_unique_and_statuses_complete(api):
    ids = [at(DOCS[api], loc)["operationId"] for loc in operations(api).values()]
    assert len(ids) == len(set(ids))
    for (method, path), location in operations(api).items():
        op = at(DOCS[api], location)
        statuses = set(op["responses"])
        assert {"405", "429", "500"} <= statuses, (method, path)
        assert ("401" in statuses) == (not is_public(op) or needs_proof(op)), (method, path)
        if "requestBody" in op:
            # /mcp's invalid tool arguments are a tool's error result in a 200 (MCP), not a 422
            bad_input = {"413", "415"} if path in JSON_RPC else {"413", "415", "422"}
            assert bad_input <= statuses, (method, path)
        if "{id}" in path:
            assert "404" in statuses, (method, path)
        writes = (method, path) not in READS
        if method in ("POST", "PUT", "PATCH", "DELETE") and path.startswith("/api/v1/") and writes:
            assert "409" in statuses, (method, path)


def test_public_operations_are_exactly_those_that_need_no_key(analytics, seo):
    routed = {(r.api, r.method, r.path) for r in template.routes(TEMPLATE)}
    for api, client in (("AnalyticsApi", analytics), ("SeoApi", seo)):
        for (method, path), location in operations(api).items():
            if (api, method, path) not in routed:  # planned, not deployed yet
                continue
            reply = client.request(method, path.replace("{id}", "1"), key=None)
            public = is_public(at(DOCS[api], location))
            assert (reply.status == 401) != public, (api, method, path, reply.status)


# -- input models -------------------------------------------------------------------------------


def allowed_values(model: type[Input], name: str, least: dict[str, str]) -> list[str] | None:
    """The values a field allows, as its `choice(...)` 422 sentence names them; None when the
    field takes any value of its type."""
    try:
        model.parse({**least, name: "\x00not-a-choice"})
    except errors.Invalid as invalid:
        for sentence in invalid.message.get(name, []):
            found = re.search(r"must be one of: (.*)\.$", sentence)
            if found:
                return found.group(1).split(", ")
    return None


def attribute(model: type[Input], name: str) -> str:
    return next(
        field for field, info in model.model_fields.items() if (info.alias or field) == name
    )


@pytest.mark.parametrize(
    ("model", "api", "method", "path", "where", "least"),
    MODELS,
    ids=[f"{m.__name__}-{method}" for m, _, method, *_ in MODELS],
)
def test_each_model_field_is_documented_with_its_values_and_default(
    model, api, method, path, where, least
):
    documented = documented_fields(api, method, path, where)
    fields = {info.alias or name: info for name, info in model.model_fields.items()}
    assert set(documented) == set(fields), f"{model.__name__} vs {method} {path}"
    for name, info in fields.items():
        schema, required = documented[name]["schema"], documented[name]["required"]
        assert required == info.is_required(), name
        allowed = allowed_values(model, name, least)
        enum = schema.get("enum")
        assert (None if enum is None else [str(v) for v in enum]) == allowed, name
        for value in enum or ():
            for sent in (value, str(value)):  # JSON bodies and form fields
                parsed = model.parse({**least, name: sent})
                assert getattr(parsed, attribute(model, name)) == value, (name, sent)
        if "maxLength" in schema:
            with pytest.raises(errors.Invalid) as refused:
                model.parse({**least, name: "x" * (schema["maxLength"] + 1)})
            assert name in refused.value.message
        if not info.is_required() and info.default is not None:
            assert schema.get("default") == info.default, name
        elif "default" in schema:
            assert (model.__name__, name) in APPLIED_DEFAULTS, name


def documented_default(api: str, name: str, field: str) -> Any:
    return schema_of(api, name)["properties"][field]["default"]


def test_documented_defaults_are_applied(analytics, seo_private, site):
    website = analytics.post("/api/v1/websites", {"domain": "example.com"}).data
    for field in ("privacy", "email", "exclude_bots", "timezone"):
        assert website[field] == documented_default("AnalyticsApi", "WebsiteCreate", field)
    report = seo_private.post("/api/v1/reports", {"url": site.url("/good")}).data
    assert report["privacy"] == documented_default("SeoApi", "ReportCreate", "privacy")
    # Without `results` an update does what `results` = its default does: no new analysis.
    assert documented_default("SeoApi", "ReportUpdate", "results") == 0
    for form in ({}, {"results": 0}):
        again = seo_private.put(f"/api/v1/reports/{report['id']}", form).data
        assert again["generated_at"] == report["generated_at"]
    again = seo_private.put(f"/api/v1/reports/{report['id']}", {"results": 1}).data
    assert again["generated_at"] != report["generated_at"]


# -- records, checks and errors ----------------------------------------------------------------


def test_the_report_checks_are_the_code_s_checks():
    results = schema_of("SeoApi", "ReportResults")
    # the field-data checks come last, in reports with field data only
    assert list(results["properties"]) == [*checks.CHECKS, *checks.FIELD_CHECKS]
    assert results["required"] == list(checks.CHECKS)
    for key, check in {**checks.CHECKS, **checks.FIELD_CHECKS}.items():
        entry = results["properties"][key]["properties"]
        assert entry["importance"] == {"const": check.importance}, key
        assert entry["category"] == {"const": check.category}, key
    result = schema_of("SeoApi", "CheckResult")["properties"]
    assert result["importance"]["enum"] == list(analysis.WEIGHTS)


def page(html: str, url: str = "https://example.com/page", **headers: str) -> Site:
    response = Response(url, 200, {"content-type": "text/html", **headers}, html.encode(), 0.3)
    robots = Response(f"{url}/robots.txt", 200, {}, fixture_site.ROBOTS.encode(), 0.1)
    return Site(page=response, robots_txt=robots, missing_page_status=404)


@pytest.mark.parametrize(
    "site_",
    [
        page(fixture_site.GOOD),
        page(fixture_site.POOR, "http://example.com/Some_Page?a=1&b=2&c=3"),
        page(fixture_site.BAD, **{"x-robots-tag": "noindex", "server": "Apache/2.4.1"}),
        page(""),
        Site(page=Response("https://example.com/", 503, {}, b"<p>down</p>", 2.5)),
    ],
    ids=["good", "poor", "bad", "empty", "no-robots"],
)
def test_analysed_pages_have_the_documented_result_shapes(site_):
    report = analysis.analyse(site_)
    shown = advised(report.results)  # as the API shows them: failed checks with their fix
    assert problems("SeoApi", {"$ref": "#/components/schemas/ReportResults"}, shown) == []


def test_a_check_that_raises_still_has_the_documented_shape(monkeypatch):
    def broken(ctx):
        raise RuntimeError("boom")

    monkeypatch.setitem(checks.CHECKS, "robots", checks.Check("robots", "high", "seo", broken))
    report = analysis.analyse(page(fixture_site.GOOD))
    assert report.results["robots"]["errors"] == {
        "internal": "This check could not be run on this page."
    }
    shown = advised(report.results)
    assert problems("SeoApi", {"$ref": "#/components/schemas/ReportResults"}, shown) == []


def response_example(api: str, name: str) -> Any:
    return DOCS[api]["components"]["responses"][name]["content"]["application/json"]["example"]


def test_error_examples_are_the_code_s_error_bodies():
    bodies = {
        "Unauthenticated": errors.Unauthenticated().body(),
        "NotFound": errors.NotFound().body(),
        "MethodNotAllowed": errors.MethodNotAllowed(["GET"]).body(),
        "Conflict": errors.Conflict().body(),
        "PayloadTooLarge": errors.PayloadTooLarge().body(),
        "UnsupportedMediaType": errors.UnsupportedMediaType().body(),
        "ServerError": errors.ApiError().body(),
    }
    for name, body in bodies.items():
        assert response_example("AnalyticsApi", name) == body, name
    headers = DOCS["AnalyticsApi"]["components"]["headers"]
    assert headers["WWW-Authenticate"]["schema"]["const"] == "Bearer"
    assert errors.Unauthenticated.headers == {"WWW-Authenticate": "Bearer"}
    event = operation("AnalyticsApi", "POST", "/api/event")["responses"]
    assert event["403"]["content"]["application/json"]["example"] == errors.Forbidden().body()


def test_the_gateway_s_error_bodies_are_documented():
    """API Gateway answers some errors itself (template.yaml's GatewayResponses)."""
    examples = {
        401: "Unauthenticated",
        404: "NotFound",
        413: "PayloadTooLarge",
        415: "UnsupportedMediaType",
        429: "TooManyRequests",
        500: "ServerError",
    }
    for api in FILES:
        responses = TEMPLATE["Resources"][api]["Properties"]["GatewayResponses"]
        for kind, spec in responses.items():
            status = spec.get("StatusCode")  # none on DEFAULT_4XX: each keeps its own
            if status not in examples:
                continue
            body = json.loads(spec["ResponseTemplates"]["application/json"])
            documented = DOCS[api]["components"]["responses"][examples[status]]
            assert body == documented["content"]["application/json"]["example"], kind
            for header in (spec.get("ResponseParameters") or {}).get("Headers", {}):
                assert header in documented["headers"], (kind, header)
                raw = spec["ResponseParameters"]["Headers"][header].strip("'")
                value = int(raw) if raw.isdigit() else raw  # a mapping's static values
                described = documented["headers"][header]
                if "$ref" in described:
                    described = at(DOCS[api], described["$ref"][1:])
                assert problems(api, described["schema"], value) == []


# -- real answers against the documents ---------------------------------------------------------


@pytest.fixture(autouse=True)
def account_limit(monkeypatch):
    """The per-account limit on (generously), so that keyed answers carry its headers."""
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_LIMIT", "10000")
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_BURST", "100000")
    config.reset()
    limits.forget()
    yield
    limits.forget()
    config.reset()


def test_an_empty_bucket_answers_as_documented(analytics, monkeypatch):
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_LIMIT", "1")
    monkeypatch.setenv("SITELENS_ACCOUNT_RATE_BURST", "1")
    config.reset()
    check("AnalyticsApi", "GET", "/api/v1/account", analytics.get("/api/v1/account"))
    refused = analytics.get("/api/v1/websites")
    assert refused.status == 429
    for api in FILES:
        documented = DOCS[api]["components"]["responses"]["TooManyRequests"]
        assert refused.body == documented["content"]["application/json"]["example"]
        # the CORS headers are the event route's (a page's script reads its 429)
        for header in ("Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining"):
            assert header in documented["headers"], header
            assert refused.headers[header].isdigit(), header
        assert int(refused.headers["X-RateLimit-Reset"]) > 1_700_000_000


def check(api: str, method: str, path: str, reply: Any) -> None:
    """The reply's status is documented for the operation, with its body and headers."""
    doc = DOCS[api]
    found = operations(api)
    key = (method, path)
    if key not in found:  # a 405: every operation of the path documents it alike
        assert reply.status == 405, (method, path, reply.status)
        key = next(k for k in found if k[1] == path)
    location = found[key]
    responses = at(doc, location)["responses"]
    assert str(reply.status) in responses, f"{method} {path}: {reply.status} not documented"
    response = at(doc, follow(doc, f"{location}/responses/{reply.status}"))
    for header in response.get("headers") or {}:
        assert header in reply.headers, f"{method} {path} {reply.status}: no {header}"
    media = (response.get("content") or {}).get(reply.headers["Content-Type"].split(";")[0])
    if media is None:
        assert not reply.body, f"{method} {path} {reply.status}: a body not documented"
        return
    if isinstance(reply.body, dict):
        assert problems(api, media["schema"], reply.body) == [], (method, path, reply.status)


def test_website_answers_match_the_document(analytics, account):
    api = "AnalyticsApi"
    created = analytics.post(
        "/api/v1/websites",
        {
            "domain": "https://www.Example.com/",
            "exclude_ips": "203.0.113.7",
            "privacy": 2,
            "password": "correct-horse",
        },
    )
    assert created.status == 201
    record_keys = set(schema_of(api, "Website")["required"])
    assert set(created.data) == record_keys == set(schema_of(api, "Website")["properties"])
    website = f"/api/v1/websites/{created.data['id']}"
    calls = [
        ("POST", "/api/v1/websites", created),
        ("POST", "/api/v1/websites", analytics.post("/api/v1/websites", {"domain": "example.com"})),
        ("POST", "/api/v1/websites", analytics.post("/api/v1/websites", {"privacy": "9"})),
        (
            "POST",
            "/api/v1/websites",
            analytics.request(
                "POST",
                "/api/v1/websites",
                body=b"domain=a.example",
                headers={"Content-Type": "text/plain"},
            ),
        ),
        (
            "POST",
            "/api/v1/websites",
            analytics.request(
                "POST",
                "/api/v1/websites",
                body=b"domain=" + b"a" * 70_000,
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            ),
        ),
        (
            "POST",
            "/api/v1/websites",
            analytics.request(
                "POST", "/api/v1/websites", body=b"{", headers={"Content-Type": "application/json"}
            ),
        ),
        ("GET", "/api/v1/websites", analytics.get("/api/v1/websites", query={"per_page": 1})),
        ("GET", "/api/v1/websites", analytics.get("/api/v1/websites", query={"sort_by": "x"})),
        ("GET", "/api/v1/websites", analytics.get("/api/v1/websites", key=None)),
        ("GET", "/api/v1/websites/{id}", analytics.get(website)),
        ("GET", "/api/v1/websites/{id}", analytics.get("/api/v1/websites/999")),
        ("PUT", "/api/v1/websites/{id}", analytics.put(website, {"favorite": 1})),
        ("PATCH", "/api/v1/websites/{id}", analytics.patch(website, {"email": "2"})),
        ("POST", "/api/v1/websites/{id}", analytics.post(website, {})),
        ("GET", "/api/v1/account", analytics.get("/api/v1/account")),
        ("GET", "/api/v1/stats/{id}", analytics.get("/api/v1/stats/999", query={"name": "page"})),
        (
            "GET",
            "/api/v1/stats/{id}",
            analytics.get(
                f"/api/v1/stats/{created.data['id']}", query={"name": "page", "from": "2020-01-01"}
            ),
        ),
    ]
    for method, path, reply in calls:
        check(api, method, path, reply)
    statuses = {reply.status for _, _, reply in calls}
    assert statuses == {200, 201, 401, 404, 405, 413, 415, 422}
    assert set(analytics.get("/api/v1/account").data) == set(schema_of(api, "Account")["required"])
    deleted = analytics.delete(website)
    check(api, "DELETE", "/api/v1/websites/{id}", deleted)
    check(api, "DELETE", "/api/v1/websites/{id}", analytics.delete(website))


def test_tracking_and_statistics_answers_match_the_document(analytics, account):
    api = "AnalyticsApi"
    website = analytics.post("/api/v1/websites", {"domain": "example.com"}).data
    counted = Hit(
        website["id"], datetime.now(UTC), "/pricing", visit=True, referrer="news.example.org"
    )
    assert run("HitsQueue", [hit_record(counted, account.id, 1)]) == {"batchItemFailures": []}
    stats = analytics.get(f"/api/v1/stats/{website['id']}", query={"name": "page"})
    assert stats.data == [{"value": "/pricing", "count": 1}]
    assert set(stats.data[0]) == set(schema_of(api, "StatRow")["required"])
    browser = {"User-Agent": CHROME}
    event = "/api/event"
    calls = [
        ("GET", "/api/v1/stats/{id}", stats),
        (
            "POST",
            event,
            analytics.post(event, {"page": "https://example.com/a"}, key=None, headers=browser),
        ),
        (
            "POST",
            event,
            analytics.request(
                "POST",
                event,
                json_body={"page": "https://example.com/", "event": {"name": "signup"}},
                key=None,
                headers=browser,
            ),
        ),
        (
            "POST",
            event,
            analytics.post(
                event,
                {"page": "https://example.com/"},
                key=None,
                headers={"User-Agent": "curl/8.5.0"},
            ),
        ),
        ("POST", event, analytics.post(event, {"page": "https://nobody.example/"}, key=None)),
        ("POST", event, analytics.post(event, {}, key=None)),
        (
            "POST",
            event,
            analytics.request(
                "POST", event, body=b"<x/>", key=None, headers={"Content-Type": "application/xml"}
            ),
        ),
        (  # Plausible's format, as its script sends it: 202 "ok" in text
            "POST",
            event,
            analytics.request(
                "POST",
                event,
                body=b'{"n":"pageview","u":"https://example.com/","d":"example.com,nobody.example"}',
                key=None,
                headers={"Content-Type": "text/plain", **browser},
            ),
        ),
        (
            "POST",
            event,
            analytics.request(
                "POST", event, body=b"x", key=None, headers={"Content-Type": "text/plain"}
            ),
        ),
        ("OPTIONS", event, analytics.request("OPTIONS", event, key=None)),
        ("GET", event, analytics.get(event, key=None)),
    ]
    script = analytics.get("/js/script.js", key=None)
    calls += [
        ("GET", "/js/{file}", script),
        (
            "GET",
            "/js/{file}",
            analytics.get(
                "/js/script.js", key=None, headers={"If-None-Match": script.headers["ETag"]}
            ),
        ),
        ("GET", "/js/{file}", analytics.get("/js/script.hash.js", key=None)),
    ]
    for method, path, reply in calls:
        check(api, method, path, reply)
    statuses = {reply.status for _, _, reply in calls}
    assert statuses == {200, 202, 204, 304, 403, 404, 405, 415, 422}


@pytest.fixture
def seo_private(seo, monkeypatch):
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    yield seo
    config.reset()


def test_report_answers_match_the_document(seo_private, site):
    api, seo = "SeoApi", seo_private
    created = seo.post("/api/v1/reports", {"url": site.url("/good")})
    assert created.status == 201
    report = created.data
    assert set(report) == set(schema_of(api, "Report")["required"])
    assert set(report) == set(schema_of(api, "Report")["properties"])
    assert list(report["results"]) == list(checks.CHECKS)
    one = f"/api/v1/reports/{report['id']}"
    poor = seo.post("/api/v1/reports", {"url": site.url("/poor"), "privacy": 1})
    calls = [
        ("POST", "/api/v1/reports", created),
        ("POST", "/api/v1/reports", poor),
        ("POST", "/api/v1/reports", seo.post("/api/v1/reports", {"url": site.url("/data.json")})),
        ("POST", "/api/v1/reports", seo.post("/api/v1/reports", {"url": "ftp://example.com/"})),
        ("GET", "/api/v1/reports", seo.get("/api/v1/reports", query={"per_page": 1})),
        ("GET", "/api/v1/reports", seo.get("/api/v1/reports", query={"result": "great"})),
        ("GET", "/api/v1/reports/{id}", seo.get(one)),
        ("GET", "/api/v1/reports/{id}", seo.get("/api/v1/reports/0")),
        ("PUT", "/api/v1/reports/{id}", seo.put(one, {"results": 1, "privacy": 0})),
        ("PATCH", "/api/v1/reports/{id}", seo.patch(one, {"privacy": 2})),
        ("PUT", "/api/v1/reports/{id}", seo.put(one, {"results": "2"})),
        ("GET", "/api/v1/projects", seo.get("/api/v1/projects")),
        ("GET", "/api/v1/projects", seo.get("/api/v1/projects", query={"sort_by": "score"})),
        ("GET", "/api/v1/account", seo.get("/api/v1/account")),
        ("GET", "/api/v1/account", seo.get("/api/v1/account", key="sl_unknown")),
        ("DELETE", "/api/v1/projects", seo.delete("/api/v1/projects")),
        ("DELETE", "/api/v1/reports/{id}", seo.delete(f"/api/v1/reports/{poor.data['id']}")),
    ]
    for method, path, reply in calls:
        check(api, method, path, reply)
    statuses = {reply.status for _, _, reply in calls}
    assert statuses == {200, 201, 401, 404, 405, 422}
    projects = seo.get("/api/v1/projects").data
    assert set(projects[0]) == set(schema_of(api, "Project")["required"])


def test_links_repeat_only_documented_parameters(analytics, account):
    """Following `links.next` sends documented parameters only, the cursor among them."""
    for number in range(12):
        analytics.post("/api/v1/websites", {"domain": f"site{number}.example"})
    website = analytics.get("/api/v1/websites").data[0]
    now = datetime.now(UTC)
    hits = [Hit(website["id"], now, f"/p{n}", visit=False) for n in range(12)]
    run("HitsQueue", [hit_record(hit, account.id, n) for n, hit in enumerate(hits)])
    for path, query in [
        ("/api/v1/websites", {"search": "site", "sort_by": "domain", "favorite": "0"}),
        (f"/api/v1/stats/{website['id']}", {"name": "page", "search": "p"}),
    ]:
        reply = analytics.get(path, query=query)
        sent = dict(parse_qsl(urlsplit(reply.body["links"]["next"]).query))
        template_path = re.sub(r"/[0-9]+$", "/{id}", path)
        documented = documented_fields("AnalyticsApi", "GET", template_path, "query")
        assert "cursor" in sent and set(sent) <= set(documented), sent
        following = analytics.get(path, query=sent)
        check("AnalyticsApi", "GET", template_path, following)
        assert following.body["links"]["prev"] is not None


def test_cursors_have_the_documented_shape(analytics, account):
    """The cursors lists hand out match the pattern the documents state, and one of that
    shape we did not sign is the 422 on `cursor` the lists document."""
    for number in range(12):
        analytics.post("/api/v1/websites", {"domain": f"site{number}.example"})
    pattern = DOCS["AnalyticsApi"]["components"]["parameters"]["Cursor"]["schema"]["pattern"]
    token = analytics.get("/api/v1/websites").body["meta"]["next_cursor"]
    assert re.search(pattern, token), token
    forged = token.split(".")[0] + "." + "A" * 22
    assert re.search(pattern, forged)
    reply = analytics.get("/api/v1/websites", query={"cursor": forged})
    assert reply.body == {"message": {"cursor": ["The cursor is invalid."]}, "status": 422}
    check("AnalyticsApi", "GET", "/api/v1/websites", reply)


def test_a_required_query_parameter_is_never_empty():
    """The server counts an empty query parameter as absent, so a required one must not
    allow an empty value: `name=` on the statistics is the 422 of a missing name."""
    for api, doc in DOCS.items():
        for (method, path), location in operations(api).items():
            listed = [
                *at(doc, pointer("paths", path)).get("parameters", []),
                *at(doc, location).get("parameters", []),
            ]
            for entry in listed:
                param = entry if "$ref" not in entry else at(doc, entry["$ref"][1:])
                if param["in"] == "query" and param.get("required"):
                    assert not param.get("allowEmptyValue"), (api, method, path, param["name"])


# -- the prose reference (docs/) -----------------------------------------------------------------

DOCS_DIR = ROOT / "docs"


def anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    found = set()
    for heading in re.findall(r"^#+ (.*)$", markdown, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(slug)
    return found


@pytest.mark.parametrize("page", sorted(DOCS_DIR.glob("*.md")), ids=lambda p: p.name)
def test_doc_links_resolve(page):
    text = page.read_text()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://")):
            continue
        file, _, anchor = target.partition("#")
        linked = (page.parent / file).resolve() if file else page
        assert linked.exists(), target
        if anchor:
            assert anchor in anchors(linked.read_text()), target


def test_api_md_lists_the_checks_and_statistics_of_the_code():
    text = (DOCS_DIR / "api.md").read_text()
    rows = re.findall(r"^\| `([\w]+)` \| (\w+) \| (high|medium|low) \|", text, flags=re.MULTILINE)
    every = [*checks.CHECKS.values(), *checks.FIELD_CHECKS.values()]
    assert rows == [(c.key, c.category, c.importance) for c in every]
    names = re.search(r"^\| `name` \(required\) \| (.*) \|$", text, flags=re.MULTILINE)
    assert names and re.findall(r"`(\w+)`", names.group(1)) == list(STAT_NAMES)


def test_error_bodies_in_the_docs_are_the_code_s():
    known = {
        json.dumps(body, sort_keys=True)
        for body in (
            errors.Unauthenticated().body(),
            errors.Forbidden().body(),
            errors.NotFound().body(),
            errors.MethodNotAllowed(["GET"]).body(),
            errors.Conflict().body(),
            errors.PayloadTooLarge().body(),
            errors.UnsupportedMediaType().body(),
            errors.ApiError().body(),
            {"message": "Accepted.", "status": 202},
            errors.TooManyRequests(retry_after=1).body(),
            members.LastOwner().body(),
            *(
                json.loads(spec["ResponseTemplates"]["application/json"])
                for spec in TEMPLATE["Resources"]["AnalyticsApi"]["Properties"][
                    "GatewayResponses"
                ].values()
                if "StatusCode" in spec  # DEFAULT_4XX's is JSON only once substituted
            ),
        )
    }
    quoted = [
        (page.name, body)
        for page in DOCS_DIR.glob("*.md")
        for body in re.findall(r'\{"message": "[^"]*", "status": \d+\}', page.read_text())
    ]
    assert len(quoted) >= 10
    for name, body in quoted:
        assert json.dumps(json.loads(body), sort_keys=True) in known, (name, body)
