"""The HTTP edge: bodies, their types and sizes."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from sitelens import accounts
from sitelens.core import config, errors
from sitelens.edge.bodies import MAX_JSON_DEPTH, json_shape, parse_form
from sitelens.edge.forwarded import forwarded_client
from sitelens.edge.http import Request
from sitelens.local import gateway
from sitelens.local.gateway import proxy_event
from tests.fixtures.analytics import CHROME, receive

EVENTS_KEY = "sl_example_events_key_0123456789abcdefghijklmnopqrstuv"


def test_body_over_64_kib_is_413(analytics):
    body = b"domain=example.com&exclude_params=" + b"a" * (64 * 1024)
    reply = analytics.request(
        "POST",
        "/api/v1/websites",
        body=body,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert reply.status == 413
    assert reply.body == {"message": "Payload too large.", "status": 413}
    assert analytics.get("/api/v1/websites").data == []


def test_body_of_exactly_64_kib_is_accepted(analytics):
    prefix = b"domain=example.com&x="
    body = prefix + b"a" * (64 * 1024 - len(prefix))
    reply = analytics.request(
        "POST",
        "/api/v1/websites",
        body=body,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert reply.status == 201


@pytest.mark.parametrize(
    "content_type", ["text/plain", "multipart/form-data; boundary=x", "application/xml"]
)
def test_other_body_types_are_415(analytics, content_type):
    reply = analytics.request(
        "POST",
        "/api/v1/websites",
        body=b"domain=example.com",
        headers={"Content-Type": content_type},
    )
    assert reply.status == 415
    assert reply.body == {"message": "Unsupported media type.", "status": 415}


def test_form_with_charset_parameter(analytics):
    reply = analytics.request(
        "POST",
        "/api/v1/websites",
        body=b"domain=example.com",
        headers={"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"},
    )
    assert reply.status == 201


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'"text"'])
def test_invalid_json_is_422(analytics, body):
    reply = analytics.request(
        "POST", "/api/v1/websites", body=body, headers={"Content-Type": "application/json"}
    )
    assert reply.status == 422
    assert "body" in reply.body["message"]


def test_base64_encoded_body():
    event = proxy_event(
        "POST",
        "/api/v1/websites",
        "/api/v1/websites",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        body=b"domain=example.com",
    )
    event["body"] = base64.b64encode(b"domain=b64.example").decode()
    event["isBase64Encoded"] = True
    assert Request.from_event(event).form() == {"domain": "b64.example"}


def test_repeated_fields_and_plain_repeats():
    fields = parse_form(b"a[]=1&a[]=2&b=1&b=2&event%5Bname%5D=signup&empty=")
    assert fields == {"a": ["1", "2"], "b": "2", "event[name]": "signup", "empty": ""}


def test_non_utf8_form_is_422():
    with pytest.raises(errors.Invalid):
        parse_form(b"domain=%ff%fe")


def test_base_url_keeps_the_stage():
    event = proxy_event(
        "GET",
        "/api/v1/websites",
        "/api/v1/websites",
        headers={"Host": "abc.execute-api.eu-west-1.amazonaws.com"},
    )
    event["requestContext"]["path"] = "/v1/api/v1/websites"
    assert (
        Request.from_event(event).base_url == "https://abc.execute-api.eu-west-1.amazonaws.com/v1"
    )


def test_unexpected_errors_are_500_without_internals(analytics, monkeypatch):
    from sitelens import websites

    def broken(*args, **kwargs):
        raise RuntimeError("table xyz exploded at line 3")

    monkeypatch.setattr(websites, "list_page", broken)
    reply = analytics.get("/api/v1/websites")
    assert reply.status == 500
    assert reply.body == {"message": "Server error.", "status": 500}


# -- JSON nesting -------------------------------------------------------------------------

TOO_DEEP = {
    "message": {"body": [f"The body must not be nested more than {MAX_JSON_DEPTH} levels deep."]},
    "status": 422,
}


def nested_body(depth: int, **fields: str) -> bytes:
    """A JSON object of `fields` whose `extra` field makes it `depth` levels deep in all."""
    extra = "[" * (depth - 1) + "1" + "]" * (depth - 1)
    return json.dumps(fields)[:-1].encode() + b', "extra": ' + extra.encode() + b"}"


def test_json_as_deep_as_the_limit_is_accepted(analytics):
    body = nested_body(MAX_JSON_DEPTH, domain="example.com")
    assert json_shape(json.loads(body)) == (MAX_JSON_DEPTH, False)
    reply = analytics.request(
        "POST", "/api/v1/websites", body=body, headers={"Content-Type": "application/json"}
    )
    assert reply.status == 201


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 1_000, 30_000])  # 30,000: 60 KB
def test_deeper_json_is_422_and_nothing_is_stored(analytics, depth):
    reply = analytics.request(
        "POST",
        "/api/v1/websites",
        body=nested_body(depth, domain="example.com"),
        headers={"Content-Type": "application/json"},
    )
    assert (reply.status, reply.body) == (422, TOO_DEEP)
    assert analytics.get("/api/v1/websites").data == []


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 1_000, 30_000])
def test_deeper_json_is_422_on_the_keyless_event_route(analytics, depth):
    reply = analytics.request(
        "POST",
        "/api/event",
        body=nested_body(depth, page="https://example.com/"),
        headers={"Content-Type": "application/json"},
        key=None,
    )
    assert (reply.status, reply.body) == (422, TOO_DEEP)
    assert reply.headers["Access-Control-Allow-Origin"] == "*"


def test_json_too_deep_for_the_decoder_is_422_without_a_stack_trace(analytics, capsys):
    body = b'{"page": ' + b"[" * 60_000 + b"}"  # json.loads raises RecursionError on it
    reply = analytics.request(
        "POST", "/api/event", body=body, headers={"Content-Type": "application/json"}, key=None
    )
    assert (reply.status, reply.body) == (422, TOO_DEEP)
    logged = capsys.readouterr()
    assert "Traceback" not in logged.out + logged.err


# -- JSON text ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b'{"domain": "a\\ud800.example"}',  # half a pair in a value
        b'{"domain": "a.example", "\\udc00": 1}',  # ... in a key
        b'{"domain": "a.example", "x": [["\\udfff\\ud800"]]}',  # two halves, wrong order
    ],
)
def test_half_a_utf_16_pair_is_422_and_nothing_is_stored(analytics, body):
    """JSON may escape half a UTF-16 pair, which is no character: no answer or record could
    carry it as UTF-8 (an answer echoing it was a 500, or no answer at all)."""
    refused = (422, {"message": {"body": ["The body must be UTF-8 encoded."]}, "status": 422})
    json_type = {"Content-Type": "application/json"}
    reply = analytics.request("POST", "/api/v1/websites", body=body, headers=json_type)
    assert (reply.status, reply.body) == refused
    reply = analytics.request("POST", "/api/event", body=body, headers=json_type, key=None)
    assert (reply.status, reply.body) == refused
    assert analytics.get("/api/v1/websites").data == []


def test_a_whole_pair_is_the_character_it_spells(analytics):
    reply = analytics.request(
        "POST",
        "/api/v1/websites",
        body=b'{"domain": "a.example", "exclude_params": "\\ud83d\\ude00"}',
        headers={"Content-Type": "application/json"},
    )
    assert reply.status == 201, reply.body
    assert reply.body["data"]["exclude_params"] == "\U0001f600"


@pytest.mark.parametrize(
    ("value", "depth"),
    [("x", 0), ({}, 1), ([], 1), ({"a": [1, {"b": []}]}, 4), ([[[[]]], []], 4)],
)
def test_json_depth(value, depth):
    assert json_shape(value) == (depth, False)


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        ("\ud800", (0, True)),
        ({"a": [1, {"b": "x\udfff"}]}, (3, True)),  # a value, deep down
        ({"a": [{"\udc00": 1}]}, (3, True)),  # a key
        (json.loads('{"a": ["\\ud83d\\ude00"]}'), (2, False)),  # a whole pair: a character
    ],
)
def test_json_shape_finds_half_a_pair_in_any_text(value, shape):
    assert json_shape(value) == shape


def test_json_depth_needs_no_recursion():
    value: list = []
    for _ in range(100_000):
        value = [value]
    assert json_shape(value) == (100_001, False)


# -- HTTP API events (payload 2.0, HitPath=HttpApi) ---------------------------------------

HTTP_API_EVENT = gateway.ROOT / "events" / "event-httpapi.json"


def http_api_event(**changes: Any) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(HTTP_API_EVENT.read_text())
    event.update(changes)
    return event


def test_an_http_api_event_is_read_as_a_rest_api_event():
    request = Request.from_event(http_api_event(rawQueryString="a=1&a=2&b=&c=x%20y"))
    assert (request.method, request.path, request.resource) == ("POST", "/api/event", "/api/event")
    assert request.source_ip == "203.0.113.10"
    assert request.base_url == "https://f6g7h8i9j0.execute-api.us-east-1.amazonaws.com"
    assert request.query == {"a": "2", "b": "", "c": "x y"}  # the last of a repeat, as in 1.0
    assert request.headers["content-type"].startswith("application/x-www-form-urlencoded")
    assert request.form()["screen_resolution"] == "1920x1080"  # the body was base64


def test_an_http_api_event_of_a_named_stage_keeps_the_stage_in_the_base_url_only():
    event = http_api_event(rawPath="/v1/api/event")
    event["requestContext"]["stage"] = "v1"
    request = Request.from_event(event)
    assert request.path == "/api/event"
    assert request.base_url.endswith(".amazonaws.com/v1")


def handler_of(function: str) -> Any:
    return gateway.load_module(gateway.ROOT / f"functions/analytics/{function}/app.py").handler


@pytest.fixture
def tracked_site(aws_env: None) -> None:
    account = accounts.create_account("Events")
    accounts.add_key(account, "events", key=EVENTS_KEY)
    created = gateway.load_module(gateway.ROOT / "functions/websites/create/app.py").handler(
        json.loads((gateway.ROOT / "events" / "websites-create.json").read_text()),
        gateway.LambdaContext("CreateWebsiteFunction"),
    )
    assert created["statusCode"] == 201


FUNCTION_URL_EVENT = gateway.ROOT / "events" / "event-functionurl.json"


def function_url_event(**changes: Any) -> dict[str, Any]:
    """The event function's URL's event (HitPath=FunctionUrl): payload 2.0, route $default."""
    event: dict[str, Any] = json.loads(FUNCTION_URL_EVENT.read_text())
    event.update(changes)
    return event


def test_the_event_function_queues_the_same_hit_from_either_api_or_its_url(tracked_site):
    rest = json.loads((gateway.ROOT / "events" / "analytics-event.json").read_text())
    hits = []
    for event in (rest, http_api_event(), function_url_event()):
        answer = handler_of("event")(event, gateway.LambdaContext("EventFunction"))
        assert answer["statusCode"] == 202, answer["body"]
        assert answer["headers"]["Access-Control-Allow-Origin"] == "*"
        [record] = receive("HitsQueue")
        hits.append(json.loads(record["body"]))
    from_rest, from_http_api, from_url = hits
    # the same visitor (address and agent), page, campaign, referrer, browser and language
    same = ("visitor", "page", "campaign", "referrer", "browser", "language", "country")
    assert {k: from_http_api.get(k) for k in same} == {k: from_rest.get(k) for k in same}
    assert {k: from_url.get(k) for k in same} == {k: from_rest.get(k) for k in same}
    assert from_http_api["page"] == "/pricing?plan=pro"


def test_the_event_function_s_url_answers_other_paths_and_methods_as_the_apis_do(tracked_site):
    event = function_url_event(rawPath="/api/v1/websites")
    answer = handler_of("event")(event, gateway.LambdaContext("EventFunction"))
    assert (answer["statusCode"], json.loads(answer["body"])["status"]) == (404, 404)
    event = function_url_event(body=None, isBase64Encoded=False)
    event["requestContext"]["http"]["method"] = "GET"
    answer = handler_of("event")(event, gateway.LambdaContext("EventFunction"))
    assert (answer["statusCode"], answer["headers"]["Allow"]) == (405, "POST, OPTIONS")
    assert answer["headers"]["Access-Control-Allow-Origin"] == "*"  # the page may read it
    assert receive("HitsQueue") == []  # no hit from either


SCRIPT_URL_EVENT = gateway.ROOT / "events" / "script-functionurl.json"


def script_url_event(path: str = "/js/script.js", method: str = "GET") -> dict[str, Any]:
    """The script function's URL's event (HitPath=FunctionUrl): payload 2.0, route $default."""
    event: dict[str, Any] = json.loads(SCRIPT_URL_EVENT.read_text())
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["requestContext"]["http"]["method"] = method
    return event


def test_the_script_function_s_url_serves_the_script_as_the_apis_do(aws_env):
    rest = json.loads((gateway.ROOT / "events" / "analytics-script.json").read_text())
    script = handler_of("script")
    from_api = script(rest, gateway.LambdaContext("ScriptFunction"))
    for path in ("/js/script.js", "/js/script.outbound-links.js"):
        answer = script(script_url_event(path), gateway.LambdaContext("ScriptFunction"))
        assert answer["statusCode"] == 200, answer["body"]
        assert answer["headers"]["Cache-Control"] == from_api["headers"]["Cache-Control"]
        assert answer["headers"]["Content-Encoding"] == "br"  # as the browser asked
    plain = script_url_event()
    del plain["headers"]["accept-encoding"]
    same = script(plain, gateway.LambdaContext("ScriptFunction"))
    assert same["body"] == from_api["body"]
    assert same["headers"]["ETag"] == from_api["headers"]["ETag"]
    # any other path or method reaches the URL too: answered as the APIs answer them
    for path in ("/api/event", "/js/", "/js/a/script.js", "/js/nothing.js", "/"):
        answer = script(script_url_event(path), gateway.LambdaContext("ScriptFunction"))
        assert (answer["statusCode"], json.loads(answer["body"])["status"]) == (404, 404), path
    answer = script(script_url_event(method="POST"), gateway.LambdaContext("ScriptFunction"))
    assert (answer["statusCode"], answer["headers"]["Allow"]) == (405, "GET")


def test_a_hit_accepted_excluded_or_dropped_writes_no_line(tracked_site, capsys):
    """Log ingestion is billed by the byte: a hit accepted, excluded or dropped (the
    sender's setting) is a figure, which the event function does not write (core.metrics:
    losses are written as they happen)."""
    capsys.readouterr()
    answer = handler_of("event")(function_url_event(), gateway.LambdaContext("EventFunction"))
    assert answer["statusCode"] == 202
    assert capsys.readouterr().out.splitlines() == []
    bot = function_url_event()
    bot["headers"]["user-agent"] = bot["requestContext"]["http"]["userAgent"] = "curl/8.5.0"
    handler_of("event")(bot, gateway.LambdaContext("EventFunction"))  # excluded: not a loss
    assert capsys.readouterr().out.splitlines() == []
    sent = b'{"n":"pageview","u":"https://nobody.example/","d":"nobody.example"}'
    unknown = function_url_event(body=base64.b64encode(sent).decode())
    unknown["headers"]["content-type"] = "text/plain"  # Plausible's script's
    answer = handler_of("event")(unknown, gateway.LambdaContext("EventFunction"))
    assert answer["statusCode"] == 202  # as Plausible answers
    assert capsys.readouterr().out.splitlines() == []


def test_the_script_function_answers_an_http_api_event(aws_env):
    event = http_api_event(
        routeKey="GET /js/{file}",
        rawPath="/js/script.js",
        pathParameters={"file": "script.js"},
        body=None,
        isBase64Encoded=False,
    )
    event["requestContext"]["http"].update(method="GET", path="/js/script.js")
    answer = handler_of("script")(event, gateway.LambdaContext("ScriptFunction"))
    assert answer["statusCode"] == 200
    assert "/api/event" in answer["body"]
    event["headers"]["if-none-match"] = answer["headers"]["ETag"]
    again = handler_of("script")(event, gateway.LambdaContext("ScriptFunction"))
    assert (again["statusCode"], again["body"]) == (304, "")
    # compressed as the browser asks, in base64, which an HTTP API always decodes
    del event["headers"]["if-none-match"]
    event["headers"]["accept-encoding"] = "gzip, deflate, br"
    compressed = handler_of("script")(event, gateway.LambdaContext("ScriptFunction"))
    assert compressed["isBase64Encoded"] and compressed["headers"]["Content-Encoding"] == "br"


# -- raw bytes that are not UTF-8 -----------------------------------------------------------

NOT_UTF8 = (422, {"message": {"body": ["The body must be UTF-8 encoded."]}, "status": 422})
RAW = b"\xff\xfe"  # no UTF-8 sequence starts with either byte


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"domain=raw.example&" + RAW + b"=1", "application/x-www-form-urlencoded"),
        (b"domain=raw" + RAW + b".example", "application/x-www-form-urlencoded"),
        (b'{"domain": "raw.example", "' + RAW + b'": 1}', "application/json"),
        (b'{"domain": "raw' + RAW + b'.example"}', "application/json"),
    ],
    ids=["form-key", "form-value", "json-key", "json-value"],
)
def test_raw_bytes_that_are_not_utf8_are_422_and_nothing_is_stored(analytics, body, content_type):
    """API Gateway hands a text body to the function as a string, and make serve replaced
    each such byte with U+FFFD there: a key named "\\ufffd\\ufffd" was stored (201)."""
    headers = {"Content-Type": content_type}
    reply = analytics.request("POST", "/api/v1/websites", body=body, headers=headers)
    assert (reply.status, reply.body) == NOT_UTF8
    assert analytics.get("/api/v1/websites").data == []


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"page=https%3A%2F%2Fexample.com%2F&referrer=" + RAW, "application/x-www-form-urlencoded"),
        (b'{"page": "https://example.com/", "referrer": "' + RAW + b'"}', "application/json"),
        (b'{"n": "pageview", "u": "https://example.com/' + RAW + b'"}', "text/plain"),
        (b'{"n": "pageview", "u": "https://example.com/' + RAW + b'"}', None),
    ],
    ids=["form", "json", "plausible-text-plain", "plausible-no-type"],
)
def test_raw_bytes_that_are_not_utf8_are_422_on_the_event_route(analytics, body, content_type):
    analytics.post("/api/v1/websites", {"domain": "example.com"})
    headers = {"Content-Type": content_type} if content_type else {}
    reply = analytics.request("POST", "/api/event", body=body, headers=headers, key=None)
    assert (reply.status, reply.body) == NOT_UTF8
    assert reply.headers["Access-Control-Allow-Origin"] == "*"
    assert receive("HitsQueue") == []


def test_raw_bytes_delivered_as_base64_are_422_too():
    """An HTTP API (and a REST API for a type it reads as binary) hands the bytes over."""
    event = http_api_event(body=base64.b64encode(b"page=https://example.com/" + RAW).decode())
    with pytest.raises(errors.Invalid) as refused:
        Request.from_event(event).form()
    assert refused.value.message == NOT_UTF8[1]["message"]


def test_a_replacement_character_written_as_an_escape_is_a_character(analytics):
    """JSON's `\\ufffd` and a form's `%EF%BF%BD` say the character on purpose; only a raw
    one stands for bytes that were replaced on the way."""
    for body, content_type in (
        (b'{"domain": "a.example", "exclude_params": "\\ufffd"}', "application/json"),
        (b"domain=b.example&exclude_params=%EF%BF%BD", "application/x-www-form-urlencoded"),
    ):
        headers = {"Content-Type": content_type}
        reply = analytics.request("POST", "/api/v1/websites", body=body, headers=headers)
        assert reply.status == 201, reply.body
        assert reply.body["data"]["exclude_params"] == "\ufffd"


# -- the client's address behind a proxy -----------------------------------------------------

PROXY = "10.0.0.5"


@pytest.mark.parametrize(
    ("source_ip", "forwarded_for", "client"),
    [
        ("198.51.100.7", "", "198.51.100.7"),  # no proxy
        ("198.51.100.7", "81.2.69.142", "198.51.100.7"),  # an untrusted sender's claim
        (PROXY, "81.2.69.142", "81.2.69.142"),
        (PROXY, "81.2.69.142, 10.0.0.5", "81.2.69.142"),  # API Gateway appended the proxy
        (PROXY, "6.6.6.6, 81.2.69.142", "81.2.69.142"),  # what the visitor wrote is left
        (PROXY, "81.2.69.142, 10.0.0.9", "81.2.69.142"),  # two trusted proxies in a row
        (PROXY, "10.0.0.9", "10.0.0.9"),  # only proxies: the first of them
        (PROXY, "", PROXY),  # a trusted proxy that forwarded nothing
        (PROXY, "unknown, 81.2.69.142", "81.2.69.142"),
        (PROXY, "81.2.69.142, garbage", PROXY),  # the walk ends at what it cannot read
        (PROXY, "[2001:db8::1]:443", "2001:db8::1"),
        (PROXY, "81.2.69.142:5123", "81.2.69.142"),
        ("::ffff:10.0.0.5", "81.2.69.142", "81.2.69.142"),  # IPv4-mapped: the same proxy
    ],
)
def test_the_client_behind_trusted_proxies(source_ip, forwarded_for, client):
    from ipaddress import ip_network

    trusted = (ip_network("10.0.0.0/24"), ip_network("2001:db8:ffff::/48"))
    assert forwarded_client(source_ip, forwarded_for, trusted) == client


def test_forwarded_for_is_read_only_when_proxies_are_trusted(monkeypatch):
    event = proxy_event(
        "POST", "/api/event", "/api/event", headers={"X-Forwarded-For": "81.2.69.142"}
    )
    event["requestContext"]["identity"]["sourceIp"] = PROXY
    monkeypatch.delenv("SITELENS_TRUSTED_PROXIES", raising=False)
    config.reset()
    assert Request.from_event(event).client_ip() == PROXY
    monkeypatch.setenv("SITELENS_TRUSTED_PROXIES", "10.0.0.0/24, 192.0.2.1")
    config.reset()
    assert Request.from_event(event).client_ip() == "81.2.69.142"
    monkeypatch.setenv("SITELENS_TRUSTED_PROXIES", "10.0.0.0/33")
    config.reset()
    with pytest.raises(config.ConfigError, match="SITELENS_TRUSTED_PROXIES"):
        Request.from_event(event).client_ip()
    monkeypatch.delenv("SITELENS_TRUSTED_PROXIES")
    config.reset()


def test_a_hit_through_a_trusted_proxy_is_the_visitors(analytics, monkeypatch):
    """Located, hashed and excluded by the visitor's address, not the proxy's."""
    monkeypatch.setenv("SITELENS_TRUSTED_PROXIES", PROXY)
    config.reset()
    analytics.post("/api/v1/websites", {"domain": "example.com", "exclude_ips": "6.6.6.6"})
    agent = {"User-Agent": CHROME}

    def send(forwarded_for: str, source_ip: str = PROXY) -> int:
        headers = {**agent, "X-Forwarded-For": forwarded_for}
        form = {"page": "https://example.com/"}
        reply = analytics.request(
            "POST", "/api/event", form=form, headers=headers, key=None, source_ip=source_ip
        )
        return reply.status

    assert send("81.2.69.142") == 202  # a British address (RIPE)
    assert send("6.6.6.6") == 403  # excluded by the visitor's address
    assert send("6.6.6.6", source_ip="198.51.100.7") == 202  # a claim of an untrusted sender
    queued = [json.loads(record["body"]) for record in receive("HitsQueue")]
    located = [hit for hit in queued if not hit.get("excluded")]
    assert [hit.get("country") for hit in located] == ["GB", None]  # 198.51.100.0/24: none
    assert located[0]["visitor"] != located[1]["visitor"]
    monkeypatch.delenv("SITELENS_TRUSTED_PROXIES")
    config.reset()
