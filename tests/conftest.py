"""Shared fixtures: moto-backed tables from template.yaml, the same tables on DynamoDB Local
(`storage_backend` runs a test on both), accounts, and an API client that sends real API
Gateway proxy events through the template's routes."""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import pytest

os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_SESSION_TOKEN="testing",
    AWS_DEFAULT_REGION="us-east-1",
    SITELENS_CURSOR_SECRET="test-cursor-secret",
    SITELENS_ACCOUNT_RATE_LIMIT="0",  # tests make requests quickly; tests/test_limits.py sets one
    POWERTOOLS_LOG_LEVEL="WARNING",
)
for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS"):
    os.environ.pop(name, None)

from moto import mock_aws  # noqa: E402

from sitelens import accounts, config, initialized  # noqa: E402
from sitelens.data import clients, limits, secrets  # noqa: E402
from sitelens.edge import auth  # noqa: E402
from sitelens.local import (  # noqa: E402
    dynamodb_local,
    gateway,
    resources,
    template,
)

initialized()  # tests run with the usual garbage collection, not a cold start's
TEMPLATE = template.load()
ROUTES = template.routes(TEMPLATE)
GATEWAYS = {api: gateway.Gateway(api, ROUTES) for api in ("AnalyticsApi", "SeoApi")}


def reset_caches() -> None:
    clients.reset()
    auth.forget()
    config.reset()
    limits.forget()
    secrets.forget()


@pytest.fixture
def aws_env() -> Iterator[None]:
    """Fresh moto DynamoDB/SQS with the template's tables, and handlers pointed at them."""
    with mock_aws():
        reset_caches()
        import boto3

        resources.create_tables(TEMPLATE, boto3.client("dynamodb"))
        queues = resources.create_queues(TEMPLATE, boto3.client("sqs"))
        env = resources.function_environment(TEMPLATE, queues)
        # Set above, for every test: the secret itself, and no rate limit.
        for name in ("SITELENS_CURSOR_SECRET_ARN", "SITELENS_ACCOUNT_RATE_LIMIT"):
            env.pop(name, None)
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        reset_caches()
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            reset_caches()


@pytest.fixture(scope="session")
def dynamodb_local_endpoint() -> Iterator[str]:
    """One in-memory DynamoDB Local for the whole session (a JVM takes seconds to start);
    skipped, saying why, without Java or the jar the Makefile installs."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    try:
        server = dynamodb_local.start(port)
    except dynamodb_local.NotInstalled as err:
        pytest.skip(f"DynamoDB Local cannot run: {err}")
    except dynamodb_local.Unavailable as err:
        pytest.fail(f"DynamoDB Local did not start: {err}")
    try:
        yield server.endpoint
    finally:
        server.stop()


@pytest.fixture
def dynamodb_local_env(
    dynamodb_local_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """The template's tables on the session's DynamoDB Local, under names of this test's
    own (creating five is faster than emptying them), and the layer pointed at them."""
    import boto3

    dynamodb = boto3.client("dynamodb", endpoint_url=dynamodb_local_endpoint)
    names = resources.create_tables(TEMPLATE, dynamodb, suffix=f"-{uuid.uuid4().hex[:12]}")
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamodb_local_endpoint)
    for key, value in resources.function_environment(TEMPLATE, names).items():
        if key.endswith("_TABLE"):
            monkeypatch.setenv(key, value)
    reset_caches()
    yield
    reset_caches()


@pytest.fixture(params=["moto", "dynamodb-local"])
def storage_backend(request: pytest.FixtureRequest) -> str:
    """Runs the test once on moto and once on DynamoDB Local; the backend's name."""
    request.getfixturevalue("aws_env" if request.param == "moto" else "dynamodb_local_env")
    return str(request.param)


@dataclass
class Account:
    id: str
    key: str


def make_account(name: str) -> Account:
    account = accounts.create_account(name)
    _, key = accounts.add_key(account, f"{name} key")
    return Account(account.id, key)


@pytest.fixture
def account(aws_env: None) -> Account:
    return make_account("Acme")


@pytest.fixture
def other_account(aws_env: None) -> Account:
    return make_account("Other")


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: Any

    @property
    def data(self) -> Any:
        return self.body["data"]


class Client:
    """Calls an API of the template the way API Gateway would."""

    def __init__(self, api: str, key: str | None) -> None:
        self.gateway = GATEWAYS[api]
        self.key = key

    def request(
        self,
        method: str,
        path: str,
        form: dict[str, Any] | list[tuple[str, str]] | None = None,
        json_body: Any = None,
        query: dict[str, Any] | str | None = None,
        headers: dict[str, str] | None = None,
        key: str | None = "default",
        body: bytes | None = None,
        source_ip: str = "198.51.100.20",
    ) -> Reply:
        sent = {"Host": "api.test", "X-Forwarded-Proto": "https"}
        key = self.key if key == "default" else key
        if key is not None:
            sent["Authorization"] = f"Bearer {key}"
        if form is not None:
            body = urlencode(form, doseq=True).encode()
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        elif json_body is not None:
            body = json.dumps(json_body).encode()
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        query_text = query if isinstance(query, str) else urlencode(query or {}, doseq=True)
        event = gateway.proxy_event(
            method,
            path,
            "",
            query=query_text,
            headers=sent,
            body=body or b"",
            source_ip=source_ip,
        )
        answer = self.gateway.handle(event)
        text = answer.get("body") or ""
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = text
        return Reply(answer["statusCode"], answer.get("headers") or {}, parsed)

    def get(self, path: str, **kw: Any) -> Reply:
        return self.request("GET", path, **kw)

    def post(self, path: str, form: Any = None, **kw: Any) -> Reply:
        return self.request("POST", path, form=form, **kw)

    def put(self, path: str, form: Any = None, **kw: Any) -> Reply:
        return self.request("PUT", path, form=form, **kw)

    def patch(self, path: str, form: Any = None, **kw: Any) -> Reply:
        return self.request("PATCH", path, form=form, **kw)

    def delete(self, path: str, **kw: Any) -> Reply:
        return self.request("DELETE", path, **kw)


@pytest.fixture
def analytics(account: Account) -> Client:
    return Client("AnalyticsApi", account.key)


@pytest.fixture
def seo(account: Account) -> Client:
    return Client("SeoApi", account.key)


@pytest.fixture
def other_analytics(other_account: Account) -> Client:
    return Client("AnalyticsApi", other_account.key)


@pytest.fixture
def other_seo(other_account: Account) -> Client:
    return Client("SeoApi", other_account.key)


@pytest.fixture(autouse=True)
def fresh_website_caches() -> Iterator[None]:
    """The tracking code caches websites per container; no test sees another's."""
    from sitelens.data import websites as stored_websites

    stored_websites.forget_all()
    yield
    stored_websites.forget_all()
