"""One `make serve` for the e2e modules that need no setting of their own: started by the
first module that asks for it, stopped at the session's end, so once per pytest-xdist worker
(each worker is a session) instead of once per module (DynamoDB Local's JVM takes 2.5-3 s
to start and the program 1.5-3.5 s to stop).

Its settings are ones every module on it can live with: a pool of dev keys, each its own
account ("Developer N"); private addresses fetched (the fixture sites and the webhook
catcher are on 127.0.0.1; the tests' environment fetches every port); no key cache, so a
revoked key fails at once; the webhook catcher on a free port, so two workers do not
collide; DynamoDB Local in memory. Each module takes an account of its own from the pool
(`dev_key`, or `shared_serve.take()` for more than one), so modules do not see each
other's records. Websites' domains are claimed across accounts: a module on this server
makes its domains unique, or is the only one to claim a fixed one (`127.0.0.1` is
test_report_field_served's; the docs' `example.com`, `shop.example.org` and `localhost`
are test_doc_examples', which deletes them after each page).

A module keeps a server of its own (tests.e2e.test_local_server.start_server) when it reads
the server's logs, restarts or kills it, needs a setting the others must not get, or counts
things server-wide; docs/development.md lists which and why."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.e2e.test_local_server import Server, free_ports, start_server
from tests.e2e.webhooks import receivers
from tests.e2e.webhooks.receivers import (  # noqa: F401 - fixtures, by name
    converting,
    failing,
    receiving,
    stalled,
)
from tests.fixtures.dns_stub import StubDns

# Accounts of the shared server: one or two a module, about a dozen modules, and with
# worksteal either worker may run any of them. Each costs a few writes at start.
POOL_SIZE = 24


@dataclass(frozen=True)
class DevAccount:
    name: str  # as make serve names the account of the Nth key of SITELENS_DEV_API_KEY
    key: str


@dataclass
class SharedServe:
    server: Server
    keys: list[str]  # SITELENS_DEV_API_KEY, in order
    catcher_port: int  # SITELENS_WEBHOOK_CATCHER_PORT
    taken: int = 0  # accounts handed out so far

    def take(self) -> DevAccount:
        """An account no other module of this session has had."""
        if self.server.process.poll() is not None:
            pytest.fail(f"the shared make serve exited:\n{self.server.output}")
        if self.taken == len(self.keys):
            pytest.fail(f"all {len(self.keys)} accounts of the shared make serve are taken")
        self.taken += 1
        return DevAccount(f"Developer {self.taken}", self.keys[self.taken - 1])


@pytest.fixture(scope="session")
def worker_dynamodb(request: pytest.FixtureRequest) -> str | None:
    """The worker's DynamoDB Local (tests/conftest.py), shared by the make serve programs that
    do not test their own (`start_server(dynamodb=...)`), each in tables of its own; None
    where it cannot run: they then start their own, and make serve falls back to moto."""
    try:
        return str(request.getfixturevalue("dynamodb_local_endpoint"))
    except pytest.skip.Exception:
        return None


@pytest.fixture(scope="session")
def stub_dns() -> Iterator[StubDns]:
    """The shared server's name server (SITELENS_DNS_NAMESERVER): crawler verification asks
    it, never the network; a test adds the records it needs (`more`)."""
    server = StubDns()
    yield server
    server.close()


@pytest.fixture(scope="session")
def shared_serve(worker_dynamodb: str | None, stub_dns: StubDns) -> Iterator[SharedServe]:
    keys = [f"sl_test_shared_{n}_{uuid.uuid4().hex}" for n in range(1, POOL_SIZE + 1)]
    [catcher] = free_ports(1)
    server = start_server(
        dynamodb=worker_dynamodb,
        SITELENS_DNS_NAMESERVER=stub_dns.address,
        SITELENS_DEV_API_KEY=",".join(keys),
        SITELENS_ALLOW_PRIVATE_URLS="1",
        SITELENS_KEY_CACHE_SECONDS="0",
        SITELENS_WEBHOOK_CATCHER_PORT=str(catcher),
        SITELENS_LOCAL_DB="memory",
    )
    try:
        yield SharedServe(server, keys, catcher)
    finally:
        if server.process.poll() is None:
            server.stop()


@pytest.fixture(scope="session")
def server(shared_serve: SharedServe) -> Server:
    """The shared server; a module that starts its own names its own fixture so."""
    return shared_serve.server


@pytest.fixture(scope="module")
def dev_key(shared_serve: SharedServe) -> str:
    """The key of an account of the shared server, the module's own."""
    return shared_serve.take().key


@pytest.fixture(scope="session", autouse=True)
def clocks_started(request: pytest.FixtureRequest) -> None:
    """What the webhook tests wait on (a minute's end, a 10 s deadline, eight failed
    attempts) is started at the session's first e2e test when the session is to run them
    (`receivers.STARTED_EARLY`), and ends while other tests run instead of while a worker
    waits. A session of other e2e tests starts nothing more."""
    names = {item.name for item in request.session.items}
    for test, fixture in receivers.STARTED_EARLY.items():
        if test in names:
            request.getfixturevalue(fixture)
