"""An API Gateway stand-in: routes from the template, proxy events, handler calls."""

from __future__ import annotations

import base64
import importlib.util
import re
import threading
import uuid
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl

from sitelens.core import errors
from sitelens.edge import http
from sitelens.local import template

ROOT = template.DEFAULT_PATH.parent
_TEXT_TYPES = ("text/", "application/json", "application/x-www-form-urlencoded", "+json", "+xml")


def proxy_event(
    method: str,
    path: str,
    resource: str,
    path_params: dict[str, str] | None = None,
    query: str = "",
    headers: dict[str, str] | None = None,
    body: bytes = b"",
    source_ip: str = "127.0.0.1",
    stage: str | None = None,
) -> dict[str, Any]:
    """The REST API (v1) proxy event API Gateway delivers for this request.

    With a `stage`, the request came through the stage's URL (`/<stage>/api/...`), as
    on execute-api hosts; without, through a host of its own (like `make serve`).
    """
    headers = dict(headers or {})
    pairs = parse_qsl(query, keep_blank_values=True)
    multi: dict[str, list[str]] = {}
    for name, value in pairs:
        multi.setdefault(name, []).append(value)
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    binary = bool(body) and not any(t in content_type.lower() for t in _TEXT_TYPES)
    if binary:
        encoded_body: str | None = base64.b64encode(body).decode()
    else:
        encoded_body = body.decode("utf-8", "replace") if body else None
    multi_headers: dict[str, list[str]] = {k: [v] for k, v in headers.items()}
    now = datetime.now(UTC)
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method.upper(),
        "headers": headers or None,
        "multiValueHeaders": multi_headers or None,
        "queryStringParameters": {k: v[-1] for k, v in multi.items()} or None,
        "multiValueQueryStringParameters": multi or None,
        "pathParameters": path_params or None,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": resource,
            "httpMethod": method.upper(),
            "path": f"/{stage}{path}" if stage else path,
            "stage": stage or "local",
            "requestId": str(uuid.uuid4()),
            "requestTimeEpoch": int(now.timestamp() * 1000),
            "identity": {"sourceIp": source_ip, "userAgent": headers.get("User-Agent")},
            "protocol": "HTTP/1.1",
        },
        "body": encoded_body,
        "isBase64Encoded": binary,
    }


@dataclass(frozen=True)
class Endpoint:
    route: template.Route
    pattern: re.Pattern[str]
    params: tuple[str, ...]
    specificity: tuple[int, int]  # literal segments first, greedy proxies last


def _compile(path: str) -> tuple[re.Pattern[str], tuple[str, ...], tuple[int, int]]:
    regex, params, literals, greedy = "", [], 0, 0
    for segment in path.strip("/").split("/"):
        if not segment:
            continue
        if segment.startswith("{") and segment.endswith("+}"):
            params.append(segment[1:-2])
            regex += f"/(?P<{segment[1:-2]}>.+)"
            greedy += 1
        elif segment.startswith("{"):
            params.append(segment[1:-1])
            regex += f"/(?P<{segment[1:-1]}>[^/]+)"
        else:
            regex += "/" + re.escape(segment)
            literals += 1
    return re.compile(f"^{regex or '/'}/?$"), tuple(params), (-greedy, literals)


class Gateway:
    """One REST API of the template: finds the route of a request as API Gateway would.

    `lock`, when given, is held around every handler call (one request at a time).
    """

    def __init__(
        self,
        api: str,
        routes: list[template.Route],
        lock: AbstractContextManager[Any] | None = None,
    ) -> None:
        self.api = api
        self.lock = lock or nullcontext()
        self.endpoints = []
        for route in routes:
            if route.api == api:
                pattern, params, specificity = _compile(route.path)
                self.endpoints.append(Endpoint(route, pattern, params, specificity))
        # More literal segments win; a method beats ANY on the same path.
        self.endpoints.sort(key=lambda e: (e.specificity, e.route.method != "ANY"), reverse=True)
        self._modules: dict[str, ModuleType] = {}

    def match(self, method: str, path: str) -> tuple[template.Route, dict[str, str]] | None:
        for endpoint in self.endpoints:
            found = endpoint.pattern.match(path)
            if found and endpoint.route.method in (method.upper(), "ANY"):
                return endpoint.route, found.groupdict()
        return None

    def handle(self, event: dict[str, Any]) -> dict[str, Any]:
        """Run the event through the route's handler, as Lambda would."""
        found = self.match(event["httpMethod"], event["path"])
        if found is None:  # as API Gateway's MISSING_AUTHENTICATION_TOKEN response does
            return http.error(errors.NotFound()).to_event()
        route, params = found
        event = {**event, "resource": route.path, "pathParameters": params or None}
        event["stageVariables"] = route.stage_variables or None
        event["requestContext"] = {**event["requestContext"], "resourcePath": route.path}
        with self.lock:
            answer: dict[str, Any] = self.handler(route)(event, LambdaContext(route.function))
        return answer

    def handler(self, route: template.Route) -> Any:
        module_name, _, function = route.handler.rpartition(".")
        key = f"{route.code_uri}:{module_name}"
        if key not in self._modules:
            self._modules[key] = load_module(ROOT / route.code_uri / f"{module_name}.py")
        return getattr(self._modules[key], function)


def load_module(path: Path) -> ModuleType:
    """Import a handler file under a unique name (every handler is an `app.py`)."""
    name = "handler_" + re.sub(r"\W", "_", str(path.relative_to(ROOT).with_suffix("")))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class LambdaContext:
    """What handlers read of Lambda's context object."""

    def __init__(self, function_name: str) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:local:000000000000:function:{function_name}"
        self.memory_limit_in_mb = 512
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "local"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000


def log_keys_per_thread(logger: Any) -> None:
    """Give each thread its own copy of the logger's keys. Lambda runs one function a process,
    so Powertools keeps the keys `inject_lambda_context` appends (function_name, request id)
    in one dict; `make serve` runs every function in threads of one process, where one
    function's keys would be printed on another's lines. A thread starts with the keys set
    before this call; threads a handler starts print without its function's."""
    formatter = logger.registered_formatter
    shared = dict(formatter.__dict__.pop("log_format"))
    slot = threading.local()

    def keys(_: Any) -> dict[str, Any]:
        if not hasattr(slot, "keys"):
            slot.keys = dict(shared)
        return slot.keys

    def replace(_: Any, value: dict[str, Any]) -> None:
        slot.keys = value

    per_thread = {"log_format": property(keys, replace)}
    formatter.__class__ = type("PerThreadKeys", (type(formatter),), per_thread)
