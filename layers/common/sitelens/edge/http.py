"""API Gateway proxy events in, JSON responses out: requests, bodies, the response
envelopes, and `api_handler`, which wraps every operation."""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from sitelens import initialized
from sitelens.core import config, errors, metrics, numbers, scopes
from sitelens.core.log import logger
from sitelens.edge.bodies import Form, parse_form, parse_json
from sitelens.edge.forwarded import forwarded_client
from sitelens.records.listing import Page

MAX_BODY_BYTES = 64 * 1024
FORM_TYPE = "application/x-www-form-urlencoded"
JSON_TYPE = "application/json"
PLAIN_TYPE = "text/plain"


@dataclass
class Request:
    """One API Gateway proxy request, with the account its key belongs to."""

    method: str
    path: str
    resource: str
    path_params: dict[str, str]
    query: dict[str, str]
    headers: dict[str, str]  # lower-cased names
    body: bytes
    source_ip: str
    base_url: str  # scheme://host[/stage], what links are built on
    stage_variables: dict[str, str] = field(default_factory=dict)
    account: Any = None  # sitelens.accounts.Account once authorized
    key_id: str = ""  # the id of the key it was authorized by (a backfill's dedupe scope)
    grant: Any = None  # sitelens.accounts.Grant once authorized: its key, member and role
    on_success: Any = None  # what a keyed request does after a 2xx: its audit log entry
    rate_headers: dict[str, str] = field(default_factory=dict)  # the account's rate limit
    # the proxy event itself: the MCP server hands it to its ASGI app (edge.mcp_server)
    event: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> Request:
        """A REST API proxy event (payload 1.0), or an HTTP API's (2.0, `HitPath=HttpApi`)."""
        if event.get("version") == "2.0":
            return cls._from_v2_event(event)
        headers = {k.lower(): v for k, v in (event.get("headers") or {}).items() if v is not None}
        context = event.get("requestContext") or {}
        multi = event.get("multiValueQueryStringParameters") or {}
        query = {k: v[-1] for k, v in multi.items() if v} or dict(
            event.get("queryStringParameters") or {}
        )
        return cls(
            method=(event.get("httpMethod") or "GET").upper(),
            path=event.get("path") or "/",
            resource=event.get("resource") or "",
            path_params=dict(event.get("pathParameters") or {}),
            query=query,
            headers=headers,
            body=_body(event),
            source_ip=(context.get("identity") or {}).get("sourceIp") or "",
            base_url=_base_url(event, headers, context),
            stage_variables=dict(event.get("stageVariables") or {}),
            event=event,
        )

    @classmethod
    def _from_v2_event(cls, event: dict[str, Any]) -> Request:
        # Payload 2.0: lower-case headers, the method and address under requestContext.http,
        # the route in routeKey ("POST /api/event"), a repeated query parameter joined by
        # commas (so read from rawQueryString, the last value winning as in 1.0), and on a
        # named stage (not $default) the stage in front of rawPath.
        headers = {k.lower(): v for k, v in (event.get("headers") or {}).items() if v is not None}
        context = event.get("requestContext") or {}
        http = context.get("http") or {}
        stage = context.get("stage") or "$default"
        prefix = "" if stage == "$default" else f"/{stage}"
        raw_path = event.get("rawPath") or http.get("path") or "/"
        path = raw_path[len(prefix) :] if prefix and raw_path.startswith(prefix + "/") else raw_path
        route = (event.get("routeKey") or context.get("routeKey") or "").partition(" ")[2]
        host = headers.get("host") or context.get("domainName") or "localhost"
        return cls(
            method=(http.get("method") or "GET").upper(),
            path=path,
            resource=route,
            path_params=dict(event.get("pathParameters") or {}),
            query=dict(parse_qsl(event.get("rawQueryString") or "", keep_blank_values=True)),
            headers=headers,
            body=_body(event),
            source_ip=http.get("sourceIp") or "",
            base_url=f"{headers.get('x-forwarded-proto', 'https')}://{host}{prefix}",
            stage_variables=dict(event.get("stageVariables") or {}),
            event=event,
        )

    def record_id(self, name: str = "id") -> int:
        """The path's `{id}` (or `{goal_id}`, ...); anything but a positive whole number
        names no record: 404."""
        found = numbers.record_id(self.path_params.get(name, ""))
        if found is None:
            raise errors.NotFound()
        return found

    def client_ip(self) -> str:
        """Whose request this is: `source_ip`, or, when that is a proxy the operator trusts
        (SITELENS_TRUSTED_PROXIES, docs/proxying.md), the address its X-Forwarded-For
        names (`forwarded_client`)."""
        trusted = config.settings().trusted_proxies
        if not trusted:
            return self.source_ip
        return forwarded_client(self.source_ip, self.headers.get("x-forwarded-for", ""), trusted)

    def form(self, plain_json: bool = False) -> Form:
        """The body as fields: form-urlencoded or JSON; `name[]` repeated gives a list.

        With `plain_json` (the tracking route), `text/plain` is JSON too, and so is a body
        without a content type that opens with `{`: what sendBeacon and Plausible's script
        send, as a page may post them without a CORS preflight. 413 over MAX_BODY_BYTES,
        415 for another type, 422 on `body` for bytes that are not UTF-8 (`body_text`).
        """
        if len(self.body) > MAX_BODY_BYTES:
            raise errors.PayloadTooLarge()
        if not self.body.strip():
            return {}
        sent = self.headers.get("content-type")
        media_type = (sent if sent is not None else FORM_TYPE).split(";")[0].strip().lower()
        if plain_json and (
            media_type == PLAIN_TYPE or (sent is None and self.body.lstrip().startswith(b"{"))
        ):
            media_type = JSON_TYPE
        if media_type == FORM_TYPE:
            return parse_form(self.body)
        if media_type == JSON_TYPE or media_type.endswith("+json"):
            return parse_json(self.body)
        raise errors.UnsupportedMediaType()


def _body(event: dict[str, Any]) -> bytes:
    raw = event.get("body") or ""
    return base64.b64decode(raw) if event.get("isBase64Encoded") else raw.encode()


def _base_url(event: dict[str, Any], headers: dict[str, str], context: dict[str, Any]) -> str:
    host = headers.get("host") or context.get("domainName") or "localhost"
    scheme = headers.get("x-forwarded-proto", "https")
    # requestContext.path carries the stage (or base path mapping) in front of the route.
    full_path = context.get("path") or event.get("path") or ""
    path = event.get("path") or ""
    prefix = full_path[: -len(path)] if path and full_path.endswith(path) else ""
    return f"{scheme}://{host}{prefix}"


@dataclass
class Response:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = JSON_TYPE

    def to_event(self) -> dict[str, Any]:
        if isinstance(self.body, bytes):  # sent as they are (the REST API's binaryMediaTypes)
            body, binary = base64.b64encode(self.body).decode(), True
        else:
            body = self.body if isinstance(self.body, str) else _dumps(self.body)
            binary = False
        return {
            "statusCode": self.status,
            "headers": {"Content-Type": self.content_type, **self.headers},
            "body": body,
            "isBase64Encoded": binary,
        }


def _dumps(body: Any) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def ok(data: Any, status: int = 200) -> Response:
    """`{"data": ..., "status": ...}`, the envelope of show, create and update."""
    return Response(status, {"data": data, "status": status})


def deleted(record_id: int, kind: str) -> Response:
    return Response(200, {"id": record_id, "object": kind, "deleted": True, "status": 200})


def accepted() -> Response:
    """202: taken on, to be done later (a hit on its way to the aggregator)."""
    return Response(202, {"message": "Accepted.", "status": 202})


def plausible_accepted(dropped: int = 0) -> Response:
    """202 `ok` in plain text, Plausible's answer to an event in its format; with
    `X-Plausible-Dropped` when sites did not take it (unknown, excluded), as Plausible says."""
    headers = {"X-Plausible-Dropped": str(dropped)} if dropped else {}
    return Response(202, "ok", headers, "text/plain; charset=utf-8")


def no_content(headers: dict[str, str]) -> Response:
    return Response(204, "", headers)


def cacheable(
    request: Request, body: str | bytes, etag: str, content_type: str, cache_control: str
) -> Response:
    """A static body with its validator: 304 without the body when the caller's copy
    (`If-None-Match`) is current. Open to every origin, as public assets are."""
    headers = {"Cache-Control": cache_control, "ETag": etag, "Access-Control-Allow-Origin": "*"}
    known = {
        tag.strip().removeprefix("W/")
        for tag in request.headers.get("if-none-match", "").split(",")
    }
    if etag in known or "*" in known:
        return Response(304, "", headers, content_type)
    return Response(200, body, headers, content_type)


def error(err: errors.ApiError) -> Response:
    return Response(err.status, err.body(), dict(err.headers))


def url_with(base: str, params: dict[str, Any]) -> str:
    present = {k: v for k, v in params.items() if v is not None}
    return f"{base}?{urlencode(present)}" if present else base


def listed(request: Request, page: Page) -> Response:
    """A list in Laravel's cursor-paginator envelope; `links` repeat every list parameter."""
    path = f"{request.base_url}{request.path}"

    def link(token: str | None) -> str | None:
        return url_with(path, {**page.params, "cursor": token}) if token else None

    return Response(
        200,
        {
            "data": page.records,
            "links": {
                "first": None,
                "last": None,
                "prev": link(page.prev_cursor),
                "next": link(page.next_cursor),
            },
            "meta": {
                "path": path,
                "per_page": page.params["per_page"],
                "next_cursor": page.next_cursor,
                "prev_cursor": page.prev_cursor,
            },
            "status": 200,
        },
    )


Handler = Callable[[Request], Response]


def authorize(request: Request) -> scopes.Scope:
    """Set the account of the request's key (401 without a valid one; with
    `Sitelens-Workspace`, the agency's workspace it names: `accounts.workspaces.enter`),
    count the request against the key's account's rate limit (429 over it), and hold it to
    its member's role and the key's scope (403,
    404; `edge.auth.permit`, then `core.scopes` wherever records are read): the scope the
    operation runs under."""
    # Imported here: public operations (tracking, the script) never load accounts.
    from sitelens import accounts
    from sitelens.accounts import workspaces
    from sitelens.edge import auth

    grant = auth.authorize(request.headers)
    request.rate_headers = accounts.admit_request(grant.account.id, grant.key_id, grant.rate_limit)
    if request.headers.get(workspaces.HEADER):  # an agency key, in one of its workspaces
        grant = workspaces.enter(grant, request.headers[workspaces.HEADER])
    request.account, request.grant, request.key_id = grant.account, grant, grant.key_id
    request.on_success = _log_change
    auth.permit(grant, request.method, request.resource, request.path_params, request.query)
    return grant.scope


def _log_change(request: Request, response: Response) -> None:
    """The audit log's entry of a change the request made, if its route is logged."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    from sitelens.accounts import audit_log

    audit_log.note(
        request.grant, request.method, request.resource, request.path_params, response.body
    )


def api_handler(
    fn: Handler | None = None, *, public: bool = False, headers: dict[str, str] | None = None
) -> Any:
    """Wrap an operation: parse the event, authorize the key and count the request against
    the account's rate limit (unless `public`), run the operation within the key's scope
    (a `public` one: `scopes.SYSTEM`, keyless), map every error to JSON.

    `headers` go on every response of the operation, errors included (CORS, say).
    Logs faults; a line per request (method, resource, status) at DEBUG only, since the
    APIs' access logs (template.yaml) have it for free. Never headers, keys or bodies.
    """

    def wrap(operation: Handler) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        config.require_all()  # at cold start: a missing setting fails the init, by name

        @functools.wraps(operation)
        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            context_ids = event.get("requestContext") or {}
            logger.set_correlation_id(context_ids.get("requestId"))
            request = None
            try:
                request = Request.from_event(event)
                with scopes.within(scopes.SYSTEM if public else authorize(request)):
                    response = operation(request)
                if request.on_success is not None and response.status < 300:
                    request.on_success(request, response)
            except errors.ApiError as err:
                response = error(err)
            except Exception:
                logger.exception("Unhandled error")
                response = error(errors.ApiError())
            if request is not None and request.rate_headers:
                response.headers = {**request.rate_headers, **response.headers}
            logger.debug(
                "request",
                extra={
                    "method": event.get("httpMethod"),
                    "resource": event.get("resource") or event.get("routeKey"),
                    "status": response.status,
                },
            )
            if headers:
                response.headers = {**headers, **response.headers}
            # what the request lost (hits throttled): its figures (hits accepted, excluded)
            # are not logged, a line per hit would bill log ingestion per hit; the API's
            # Count and the aggregator's HitsCounted are the hit path's throughput
            metrics.flush(figures=False)
            initialized()
            return response.to_event()

        handler.scope = "system" if public else "key"  # type: ignore[attr-defined]
        return handler

    return wrap(fn) if fn is not None else wrap
