"""`make serve`: both APIs of the template on this machine, on AWS's DynamoDB Local.

Each HTTP request becomes the proxy event API Gateway would deliver for the template's
route and goes to the same handler function (`local.front`). Functions with SQS events
are fed from the same queues in a background worker, as Lambda's event source mapping
would. DynamoDB is DynamoDB Local (a Java subprocess) with its data on disk; without Java,
moto's embedded one, with handler calls one at a time. SQS is an in-memory one of our own
(`local.sqs`), whose calls cost the same however many messages are queued.
"""

from __future__ import annotations

import os
import secrets
import signal
import socketserver
import tempfile
import threading
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from sitelens.core.log import logger
from sitelens.data import clients
from sitelens.local import (
    STOP_POLL_SECONDS,
    dynamodb_local,
    front,
    gateway,
    resources,
    sqs,
    template,
)

HOST = "127.0.0.1"
# DynamoDB, where `sitelens keys --local` finds it.
LOCAL_AWS_PORT = int(os.environ.get("SITELENS_AWS_PORT", "3002"))
LOCAL_DB_MODES = ("disk", "memory", "moto")
WAREHOUSE_DIR = Path(".sitelens-warehouse")
LOCAL_LIMITS = {  # make serve's fair share per site and rates per account and client
    "SITELENS_SITE_HITS_PER_SECOND": "1000",  # address, unless the environment says
    "SITELENS_SITE_HITS_BURST": "5000",
    "SITELENS_ACCOUNT_RATE_LIMIT": "1000",  # a developer's scripts and tests are not held
    "SITELENS_ACCOUNT_RATE_BURST": "10000",
    "SITELENS_SHARE_RATE_LIMIT": "1000",  # every local client is one address, 127.0.0.1
    "SITELENS_SHARE_RATE_BURST": "10000",
    "SITELENS_AUDIT_RATE": "200",  # a local site's audit is not held to a public site's pace
    "SITELENS_AUDIT_HOST_CONCURRENCY": "16",
    "SITELENS_AUDIT_ACCOUNT_RATE": "1000",  # a developer's audits share the worker with no one
    "SITELENS_GOAL_GRACE_SECONDS": "5",  # the aggregator batches for 1 s here, not 60
    "SITELENS_GOAL_CACHE_SECONDS": "1",  # a new goal.converted endpoint or goal counts at once
}  # raw events of `make serve`, git-ignored
SECRET_FILE = Path(".sitelens-secret")  # make serve's signing keyring, git-ignored
# The emails `make serve` sends (digests) land here as .eml files, git-ignored.
OUTBOX = Path(".outbox")
ANALYTICS_PORT = int(os.environ.get("SITELENS_ANALYTICS_PORT", "3000"))
TRIM_MOTO_SECONDS = 10.0


class LocalStack:
    """DynamoDB Local (moto's DynamoDB without Java) and the local SQS, unless the user
    points at others with AWS_ENDPOINT_URL_DYNAMODB / _SQS; then the template's tables and
    queues."""

    def __init__(self) -> None:
        self.spec = template.load()
        self.dynamodb_local: dynamodb_local.DynamoDBLocal | None = None
        self.moto: Any = None
        self.sqs: sqs.LocalSqs | None = None
        self.warehouse: Any = None
        self.scratch: tempfile.TemporaryDirectory[str] | None = None
        self.dynamodb = "yours, from AWS_ENDPOINT_URL_DYNAMODB"  # what serves it, for the banner
        # On moto, handler calls go one at a time: it rolls a failed transaction back by
        # restoring a deep copy of the tables taken without a lock, which would undo other
        # requests' writes made meanwhile.
        self.lock: AbstractContextManager[Any] | None = None
        self.stopping = threading.Event()

    def start(self) -> None:
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        if not os.environ.get("AWS_ACCESS_KEY_ID"):
            # Any credentials do for the local services.
            os.environ["AWS_ACCESS_KEY_ID"] = os.environ["AWS_SECRET_ACCESS_KEY"] = "local"  # noqa: S105
        if not os.environ.get("AWS_ENDPOINT_URL_DYNAMODB"):
            self._start_dynamodb()
        if not os.environ.get("AWS_ENDPOINT_URL_SQS"):
            # SITELENS_AWS_PORT, unless DynamoDB Local or moto took it
            taken = self.dynamodb_local is not None or self.moto is not None
            self.sqs = sqs.LocalSqs(HOST, 0 if taken else LOCAL_AWS_PORT)
            self.sqs.start()
            os.environ["AWS_ENDPOINT_URL_SQS"] = self.sqs.endpoint
            clients.use("sqs", self.sqs.client)
        if self.moto is not None:
            threading.Thread(target=self._trim_moto, name="moto-trim", daemon=True).start()
        import boto3

        self._start_warehouse()
        resources.create_tables(self.spec, boto3.client("dynamodb"))
        queues = resources.create_queues(self.spec, clients.client("sqs"))
        given = {name: os.environ.get(name) for name in LOCAL_LIMITS}
        resources.apply_environment(resources.function_environment(self.spec, queues))
        # One process serves every site here, where Lambda runs many containers: each site
        # gets the whole deployment's target (1,000 hits/s, bursts of 5,000), not one
        # container's share, so a flooding site is held and the others still counted; and
        # each account and client address a generous rate (the template's is for callers
        # on the internet).
        for name, default in LOCAL_LIMITS.items():
            os.environ[name] = given[name] or default

    def _start_warehouse(self) -> None:
        """Raw events as Parquet on disk (kept with DynamoDB Local's data, or in a temporary
        folder when that is in memory), queried by DuckDB, instead of Firehose and Athena."""
        from sitelens.data import warehouse
        from sitelens.local.warehouse import LocalWarehouse

        given = os.environ.get("SITELENS_LOCAL_WAREHOUSE_DIR")
        if given:
            folder = Path(given)
        elif (os.environ.get("SITELENS_LOCAL_DB") or "disk") == "disk":
            folder = WAREHOUSE_DIR
        else:
            self.scratch = tempfile.TemporaryDirectory(prefix="sitelens-warehouse-")
            folder = Path(self.scratch.name)
        self.warehouse = LocalWarehouse(folder)
        warehouse.use(
            warehouse.LocalEngine(
                "duckdb",
                self.warehouse.run,
                self.warehouse.write,
                self.warehouse.compact,
                self.warehouse.mark_deleted,
                self.warehouse.receive,
                self.warehouse.merge,
                self.warehouse.root,
                self.warehouse.place,
            )
        )

    def _start_dynamodb(self) -> None:
        mode = os.environ.get("SITELENS_LOCAL_DB") or "disk"
        if mode not in LOCAL_DB_MODES:
            raise SystemExit(
                f"SITELENS_LOCAL_DB is {mode!r}: use one of {', '.join(LOCAL_DB_MODES)}."
            )
        if not dynamodb_local.port_is_free(LOCAL_AWS_PORT):
            raise SystemExit(
                f"Port {LOCAL_AWS_PORT} is in use (is another make serve running?); "
                "set SITELENS_AWS_PORT to another."
            )
        if mode != "moto":
            data = None
            if mode == "disk":
                data = Path(os.environ.get("SITELENS_LOCAL_DB_DIR") or dynamodb_local.DATA_DIR)
            try:
                self.dynamodb_local = dynamodb_local.start(LOCAL_AWS_PORT, data)
            except dynamodb_local.Unavailable as err:
                print(f"DynamoDB Local cannot run: {err}", flush=True)
                print(
                    "Using moto's embedded DynamoDB instead: requests are served one at a "
                    "time and the data lasts as long as the process.",
                    flush=True,
                )
            else:
                os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = self.dynamodb_local.endpoint
                self.dynamodb = f"DynamoDB Local, {f'data in {data}' if data else 'in memory'}"
                return
        moto = self._start_moto(LOCAL_AWS_PORT)
        host, port = moto.get_host_and_port()
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = f"http://{host}:{port}"
        self.dynamodb = "moto, one request at a time"
        self.lock = threading.Lock()

    def _start_moto(self, port: int) -> Any:
        import logging

        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.moto = ThreadedMotoServer(ip_address=HOST, port=port, verbose=False)
        self.moto.start()
        return self.moto

    def _trim_moto(self) -> None:
        """moto keeps every object it ever made (items; for its dashboard): a long run would
        grow without end. Nothing here reads them."""
        from moto.core.model_instances import reset_model_data

        while not self.stopping.wait(TRIM_MOTO_SECONDS):
            reset_model_data()

    def stop(self) -> None:
        self.stopping.set()
        if self.warehouse is not None:
            self.warehouse.close()
        if self.scratch is not None:
            self.scratch.cleanup()
        if self.sqs is not None:
            self.sqs.stop()
        if self.moto is not None:
            self.moto.stop()
        if self.dynamodb_local is not None:
            self.dynamodb_local.stop()


def dev_accounts(keys_setting: str) -> list[tuple[str, str]]:
    """(account name, key) for each key in SITELENS_DEV_API_KEY, or one new random key."""
    from sitelens import accounts

    keys = [k.strip() for k in keys_setting.split(",") if k.strip()] or [accounts.new_key()]
    made = []
    for n, key in enumerate(keys, start=1):
        existing = accounts.account_for_key(key)
        if existing is None:
            account = accounts.create_account(f"Developer {n}")
            accounts.add_key(account, "make serve", key=key)
        made.append((existing.name if existing else f"Developer {n}", key))
    return made


def serve() -> None:
    gateway.log_keys_per_thread(logger)  # every function's lines name that function
    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopping.set())
    stack = LocalStack()
    try:
        stack.start()
        run(stack, stopping)
    finally:
        stack.stop()  # DynamoDB Local too, also when starting failed half way
    print("Stopped.", flush=True)


def run(stack: LocalStack, stopping: threading.Event) -> None:
    """Serve both APIs and the queue workers until `stopping` is set."""
    keys = dev_accounts(os.environ.get("SITELENS_DEV_API_KEY", ""))
    routes = template.routes(stack.spec)
    ports = {
        "AnalyticsApi": ANALYTICS_PORT,
        "SeoApi": int(os.environ.get("SITELENS_SEO_PORT", "3001")),
    }
    servers = []
    compression = int(
        (stack.spec.get("Globals") or {}).get("Api", {}).get("MinimumCompressionSize", -1)
    )
    for api, port in ports.items():
        handler = front.request_handler(gateway.Gateway(api, routes, stack.lock), compression)
        server = front.LocalHTTPServer((HOST, port), handler)
        servers.append(server)
        threading.Thread(
            target=server.serve_forever, args=(STOP_POLL_SECONDS,), name=api, daemon=True
        ).start()
    workers = _start_workers(stack.spec, stack.lock)
    resume_cleanups(stack.lock)
    from sitelens.local import webhook_catcher

    catcher = webhook_catcher.start(HOST)
    from sitelens.local import google

    gsc = google.start_for_stack(HOST)

    print("Sitelens is running.", flush=True)
    print(f"  Analytics API: http://{HOST}:{ports['AnalyticsApi']}", flush=True)
    print(f"  SEO API:       http://{HOST}:{ports['SeoApi']}", flush=True)
    print(
        f"  DynamoDB:      {os.environ['AWS_ENDPOINT_URL_DYNAMODB']} ({stack.dynamodb})", flush=True
    )
    print(f"  SQS:           {os.environ['AWS_ENDPOINT_URL_SQS']}", flush=True)
    if stack.warehouse is not None:
        print(f"  Warehouse:     {stack.warehouse.root} (Parquet, queried by DuckDB)", flush=True)
    print(
        f"  Emails:        {os.environ.get('SITELENS_MAIL_OUTBOX') or OUTBOX}/ (caught, not sent; "
        "`python -m sitelens.cli --local digests send|outbox`)",
        flush=True,
    )
    if catcher is not None:
        print(
            f"  Webhooks:      http://{HOST}:{webhook_catcher.port()}/ catches deliveries into "
            f"{webhook_catcher.FOLDER}/",
            flush=True,
        )
    if gsc is not None:
        print(
            f"  Google:        {gsc.url} stands in for Search Console (refresh token "
            f"{google.DEVELOPER_TOKEN}; docs/search-console.md)",
            flush=True,
        )
    for name, key in keys:
        print(f"  API key ({name}): {key}", flush=True)
    print("Press Ctrl-C to stop.", flush=True)

    stopping.wait()
    # All at once: each part takes up to half a second to notice (a poll, a long poll).
    listening: list[socketserver.BaseServer] = [
        *servers,
        *([catcher] if catcher else []),
        *([gsc] if gsc else []),
    ]
    closing = [threading.Thread(target=listener.shutdown) for listener in listening]
    for worker in workers:
        worker.stopping.set()
    if stack.sqs is not None:
        stack.sqs.broker.close()
    for thread in closing:
        thread.start()
    for worker in workers:
        worker.stop()
    for thread in closing:
        thread.join(timeout=5)
    for listener in listening:
        listener.server_close()


def resume_cleanups(lock: AbstractContextManager[Any] | None) -> int:
    """Queue again the statistics removals left unfinished when the server last stopped:
    their messages went with this process's in-memory queue (SQS would have kept them),
    their progress is in DynamoDB, so each carries on where it stopped. How many."""
    from sitelens.data import cleanups, queues

    with lock or nullcontext():
        unfinished = cleanups.pending()
    for website_id in unfinished:
        queues.send_cleanup(website_id, delayed=False)
    return len(unfinished)


def _start_workers(spec: dict[str, Any], lock: AbstractContextManager[Any] | None) -> list[Any]:
    from sitelens.local import worker

    return worker.start_all(spec, lock)


def local_keys_file() -> str:
    """The file of the keyring `make serve` signs cursors and links with (one new key the
    first time), git-ignored, so that `sitelens --local` (digests' unsubscribe links, a
    rotation) signs alike."""
    if not SECRET_FILE.exists():
        SECRET_FILE.touch(mode=0o600)
        SECRET_FILE.write_text(secrets.token_hex(32))
    return str(SECRET_FILE.resolve())


def main() -> None:
    os.environ.setdefault("SITELENS_SIGNING_KEYS_FILE", local_keys_file())
    os.environ.setdefault("SITELENS_MAIL_OUTBOX", str(OUTBOX))
    os.environ.setdefault("SITELENS_ANALYTICS_BASE_URL", f"http://{HOST}:{ANALYTICS_PORT}")
    seo_port = os.environ.get("SITELENS_SEO_PORT", "3001")
    os.environ.setdefault("SITELENS_SEO_BASE_URL", f"http://{HOST}:{seo_port}")
    serve()


if __name__ == "__main__":
    main()
