"""Shared fixtures: moto-backed tables from template.yaml, the same tables on DynamoDB Local
(`storage_backend` runs a test on both), accounts, and an API client that sends real API
Gateway proxy events through the template's routes."""

from __future__ import annotations

import copy
import gc
import json
import os
import socket
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_SESSION_TOKEN="testing",
    AWS_DEFAULT_REGION="us-east-1",
    SITELENS_SIGNING_KEYS="test-signing-key",
    SITELENS_ACCOUNT_RATE_LIMIT="0",  # tests make requests quickly; test_limits.py sets one
    SITELENS_AUDIT_ACCOUNT_RATE="0",  # crawls on moto run quickly; test_fair_share.py sets one
    SITELENS_FETCH_PORTS="1-65535",  # test sites listen on free ports; test_fetch checks 80/443
    POWERTOOLS_LOG_LEVEL="WARNING",
    # Real SQS allows one PurgeQueue a minute (and so does moto by default); the tests
    # purge the session's queues before every test that uses them.
    MOTO_SQS_ENFORCE_STRICT_QUEUE_PURGE_BEHAVIOUR="false",
    # DuckDB's threads: a test's query reads a few rows, and a second thread only adds
    # work; each test process already keeps a core busy (tests/bench measures DuckDB's own)
    SITELENS_LOCAL_WAREHOUSE_THREADS="1",
)
for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS"):
    os.environ.pop(name, None)

import boto3  # noqa: E402
import botocore.endpoint  # noqa: E402
from botocore import UNSIGNED  # noqa: E402
from botocore.config import Config  # noqa: E402
from moto import mock_aws  # noqa: E402
from moto.core import DEFAULT_ACCOUNT_ID as MOTO_ACCOUNT  # noqa: E402
from moto.core.model_instances import reset_model_data  # noqa: E402
from moto.core.models import botocore_stubber, responses_mock  # noqa: E402
from moto.dynamodb import models as moto_dynamodb  # noqa: E402
from moto.sqs import models as moto_sqs  # noqa: E402

from sitelens import accounts, initialized  # noqa: E402
from sitelens.analytics import converted, counting, fairshare, tracking  # noqa: E402
from sitelens.audits import externals  # noqa: E402
from sitelens.core import config, metrics, scopes  # noqa: E402
from sitelens.data import clients, limits, queues, salts, warehouse  # noqa: E402
from sitelens.edge import auth  # noqa: E402
from sitelens.local import (  # noqa: E402
    dynamodb_local,
    gateway,
    resources,
    template,
)
from sitelens.records import privacy  # noqa: E402
from sitelens.tokens import sealing, signing_keys  # noqa: E402
from tests.fixtures import (  # noqa: E402
    browsers,
    moto_dispatch,
    moto_expressions,
    moto_queries,
    moto_responses,
    moto_transactions,
)
from tests.fixtures import site as fixture_site  # noqa: E402

chromium = browsers.chromium  # the Playwright browser fixture every browser test may name
initialized()  # tests run with the usual garbage collection, not a cold start's
# ... but fewer full collections: each visits the whole heap of a test process (moto's models,
# the labelled agents, every collected test), 150-180 ms apiece, and Python's default (one
# every 10 of the middle generation) ran about 50 of them in the integration tests, 9 s.
gc.set_threshold(700, 10, 100)


class _BotocoreRetryWait:
    """The `time` botocore's retries see: no wait between attempts. Tests inject throttling
    to check what is retried and with which token, and botocore waited out its real backoff
    each time (5 s in the write-fault tests alone)."""

    @staticmethod
    def sleep(seconds: float) -> None:
        pass


botocore.endpoint.time = _BotocoreRetryWait  # type: ignore[assignment]
# fixtures every test module may name: `local_warehouse` (or `store`), the DuckDB warehouse
pytest_plugins = ["tests.fixtures.local_warehouse", "tests.fixtures.clickhouse"]
moto_transactions.install()  # its transactions copy the items they name, its writes one at a time
moto_queries.install()  # its Queries read one partition, not the whole table sorted
moto_responses.install()  # its answers' attribute values copied, not walked through the model
moto_dispatch.install()  # its handlers and action methods found once, not once a call
moto_expressions.install()  # its update expressions parsed once a text
# CI (.ci/run) sets SITELENS_REQUIRE_ALL=1: a test skipped there for want of Java, Chromium,
# npm's packages or a Python package did not run, so it fails, saying why.
REQUIRE_ALL = os.environ.get("SITELENS_REQUIRE_ALL", "") not in ("", "0")
REGION = os.environ["AWS_DEFAULT_REGION"]
TESTS = Path(__file__).resolve().parent
KINDS = ("unit", "integration", "e2e")
_load_template = template.load
_PARSED_TEMPLATE = _load_template()


def _template_copy(path: Path = template.DEFAULT_PATH) -> dict[str, Any]:
    """template.yaml parsed once a process: 20 test modules read it as they are imported, at
    a quarter of a second of PyYAML each; every caller still gets a copy of its own."""
    if path != template.DEFAULT_PATH:
        return _load_template(path)
    return copy.deepcopy(_PARSED_TEMPLATE)


template.load = _template_copy  # type: ignore[assignment]
TEMPLATE = template.load()
ROUTES = template.routes(TEMPLATE)
GATEWAYS = {api: gateway.Gateway(api, ROUTES) for api in ("AnalyticsApi", "SeoApi")}
TABLE_KEYS = {
    name: [key["AttributeName"] for key in props["KeySchema"]]
    for name, props in template.tables(TEMPLATE).items()
}


def _no_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    """Turn a skip (not an expected failure) into a failure when all must run."""
    if REQUIRE_ALL and report.skipped and not hasattr(report, "wasxfail"):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        report.outcome = "failed"
        report.longrepr = f"Skipped, and SITELENS_REQUIRE_ALL=1 allows no skip: {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    _no_skip(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    report = yield
    _no_skip(report)
    return report


@pytest.fixture(autouse=True)
def cheap_scrypt(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Passwords hashed at OWASP's cost take half a second each; tests that are not about the
    hash's strength use 2^10 (the cost is stored in each hash, so verifying is unchanged).
    A test marked `full_scrypt` hashes at full strength."""
    if "full_scrypt" not in request.keywords:
        monkeypatch.setattr(privacy, "_N", 2**10)


@pytest.fixture(autouse=True)
def system_scope() -> Iterator[None]:
    """Tests call workers' and the domain's functions directly, as a keyless entry point
    does: their own thread reads `within(scopes.SYSTEM)`. Handlers still declare their own
    (tests/unit/test_entry_scopes.py checks each), and threads still start with none, so a
    pool that does not carry its scope fails here as it would deployed."""
    with scopes.within(scopes.SYSTEM):
        yield


@pytest.fixture
def fixed_salt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hits built without a table to keep the visitors' daily salts in get a fixed one."""
    monkeypatch.setattr(salts, "for_day", lambda day: b"s" * 32)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test is marked with its kind, the folder it is in (`pytest -m unit`). A test
    marked `browser` is skipped where there is no Chromium: the one place that rule lives."""
    for item in items:
        kind = item.path.relative_to(TESTS).parts[0]
        if kind in KINDS:
            item.add_marker(kind)
        if browsers.CHROMIUM is None and item.get_closest_marker(browsers.MARKER):
            item.add_marker(pytest.mark.skip(reason=browsers.MISSING))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """Chromium is handed only to a test that carries the `browser` marker."""
    browsers.running_marked = item.get_closest_marker(browsers.MARKER) is not None
    try:
        return (yield)
    finally:
        browsers.running_marked = False


def reset_caches() -> None:
    clients.reset()
    auth.forget()
    config.reset()
    limits.forget()
    salts.forget()
    signing_keys.forget()
    sealing.forget()
    tracking.EXCLUDED.forget()
    fairshare.reset()
    converted.forget()
    externals.forget()


class MotoBackend:
    """One moto backend for the whole session. The tables and queues outlive each test
    (creating 5 tables with 16 GSIs for every test was most of the suite's time); `empty`
    clears them for the next. The mock is switched on only while a test that uses `aws_env`
    runs, so other tests see no mock, as before."""

    def __init__(self) -> None:
        # One boto3 default session too: a new one per test loads the service models again.
        self.mock = mock_aws(config={"core": {"reset_boto3_session": False}})
        # Unsigned: moto checks no signature, and signing was 5% of a call's time.
        unsigned = Config(signature_version=UNSIGNED)
        self.dynamodb = boto3.client("dynamodb", config=unsigned)
        self.sqs = boto3.client("sqs", config=unsigned)
        self.queues: dict[str, str] = {}  # URLs by logical id

    def start(self) -> None:
        """Switch the mock on, keeping the data."""
        if responses_mock.registered():
            # moto's `responses` mock already holds its 1,288 URL patterns (4 ms to add
            # again each test): only switch it and the botocore stub on
            self.mock._enable_patching = self._switch_on  # type: ignore[method-assign]
        else:
            self.mock.__dict__.pop("_enable_patching", None)  # moto's own, adding them
        self.mock.start(reset=False)

    @staticmethod
    def _switch_on(reset: bool = True) -> None:
        botocore_stubber.enabled = True
        responses_mock.start()

    def stop(self) -> None:
        """Switch the mock off, keeping the data and only the data."""
        self.mock.stop(remove_data=False)
        # What moto clears with the data: its references to every model instance it made,
        # each Item read included. Kept, they pile up test after test, and garbage
        # collection slows down. (Its URL patterns stay for the next start: a start of
        # moto's own clears them before adding them again.)
        reset_model_data()

    def empty(self) -> None:
        """The template's tables and queues, empty: counters too, so ids start at 1 again.

        Emptied in moto's own models rather than through its API: a scan and deletes per
        table and a purge per queue, each a serialised request, were a third of a test."""
        tables = moto_dynamodb.dynamodb_backends[MOTO_ACCOUNT][REGION].tables
        if not self.queues or not set(tables) >= set(TABLE_KEYS):
            # The first test, or a test's own `mock_aws()` reset moto: create everything.
            resources.create_tables(TEMPLATE, self.dynamodb)
            self.queues = resources.create_queues(TEMPLATE, self.sqs)
        for table in TABLE_KEYS:
            tables[table].items.clear()
        queues = moto_sqs.sqs_backends[MOTO_ACCOUNT][REGION]
        for url in self.queues.values():
            queues.purge_queue(url.rsplit("/", 1)[1])


@pytest.fixture(autouse=True)
def hits_of_any_age(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's hits carry fixed dates, which age: the aggregator counts them whatever
    their age here (deployed, it parks a hit older than its message's longest path,
    `analytics.aggregation`; tests/integration/analytics/test_redrive_window.py sets it back)."""
    monkeypatch.setattr(counting, "COUNTABLE_SECONDS", 10**12)


@pytest.fixture(autouse=True)
def no_pending_counts() -> None:
    """Figures an API call left pending (its flush writes losses only) belong to no later
    test: each starts with none."""
    metrics._pending.clear()


@pytest.fixture(autouse=True)
def cleanups_at_once(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cleanup task waits 120 s deployed (`queues.CLEANUP_DELAY_SECONDS`, a delay of its own
    on the shared tasks queue); here it is received at once, unless the test is about it."""
    if "cleanup_delay" not in request.keywords:
        monkeypatch.setattr(queues, "CLEANUP_DELAY_SECONDS", 0)


@pytest.fixture(scope="session")
def moto_backend() -> Iterator[MotoBackend]:
    """The session's moto; tests use it through `aws_env`."""
    backend = MotoBackend()
    yield backend
    backend.mock.reset()


def _keep_rows(rows: Any) -> int:
    found = list(rows)
    ROWS.extend(found)
    return len(found)


ROWS: list[dict[str, Any]] = []  # the rows the aggregator sent in this test (aws_env)


@pytest.fixture
def warehouse_rows(aws_env: None) -> list[dict[str, Any]]:
    """The warehouse rows the aggregator sent during the test, in order."""
    return ROWS


@pytest.fixture
def aws_env(moto_backend: MotoBackend) -> Iterator[None]:
    """moto DynamoDB/SQS with the template's tables and queues, empty, and handlers pointed
    at them."""
    moto_backend.start()
    try:
        reset_caches()
        moto_backend.empty()
        env = resources.function_environment(TEMPLATE, moto_backend.queues)
        # Set above, for every test: the secret itself, and no rate limit.
        for name in ("SITELENS_SIGNING_KEYS", "SITELENS_SIGNING_KEYS_ARN"):
            env.pop(name, None)
        env.pop("SITELENS_ACCOUNT_RATE_LIMIT", None)
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        reset_caches()
        # The session's clients, rather than new ones each test (50 ms each to build); a test
        # that needs others (`AWS_MAX_ATTEMPTS`, a stand-in) resets or replaces them.
        clients.use("dynamodb", moto_backend.dynamodb)
        clients.use("sqs", moto_backend.sqs)
        # The aggregator's rows go to a list unless a test runs a warehouse engine of its own.
        ROWS.clear()
        warehouse.use(warehouse.LocalEngine("duckdb", lambda sql: [], _keep_rows))
        try:
            yield
        finally:
            warehouse.use(None)
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            reset_caches()
    finally:
        moto_backend.stop()


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
    for key, value in resources.table_environment(TEMPLATE, names).items():
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


@pytest.fixture(scope="module")
def site() -> Iterator[fixture_site.Site]:
    """The fixture site (tests/fixtures/site.py) on a port of its own, one per test module:
    a module may change its pages, no other sees it."""
    served = fixture_site.Site()
    yield served
    served.close()


@pytest.fixture(autouse=True)
def fresh_website_caches() -> Iterator[None]:
    """The tracking code caches websites per container; no test sees another's."""
    from sitelens.data import websites as stored_websites

    stored_websites.forget_all()
    yield
    stored_websites.forget_all()


@pytest.fixture(autouse=True)
def no_analysis_worker_outlives_its_test() -> Iterator[None]:
    """An analysis worker process keeps the code and settings it was forked with: none
    serves two tests, so that each sees its own monkeypatches."""
    yield
    timebox = sys.modules.get("sitelens.seo.timebox")
    if timebox is not None:
        timebox.stop_workers()
