"""`make serve`: both APIs of the template on this machine, on an embedded DynamoDB.

Each HTTP request becomes the proxy event API Gateway would deliver for the template's
route and goes to the same handler function. Functions with SQS events are fed from the
same queues in a background worker, as Lambda's event source mapping would.
"""

from __future__ import annotations

import base64
import os
import secrets
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from sitelens import errors
from sitelens.edge import http
from sitelens.local import gateway, resources, template

HOST = "127.0.0.1"
# The embedded DynamoDB/SQS, where `sitelens keys --local` finds it.
LOCAL_AWS_PORT = int(os.environ.get("SITELENS_AWS_PORT", "3002"))
MAX_REQUEST_BYTES = 8 * 1024 * 1024  # far above the API's own 64 KiB limit, which it reports


def _request_handler(api: gateway.Gateway) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "sitelens-local"

        def _serve(self) -> None:
            path, _, query = self.path.partition("?")
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_REQUEST_BYTES:
                answer = http.error(errors.PayloadTooLarge()).to_event()
                self._reply(413, answer["headers"], answer["body"].encode())
                self.close_connection = True
                return
            body = self.rfile.read(length) if length else b""
            headers: dict[str, str] = {}
            for name, value in self.headers.items():
                headers[name] = f"{headers[name]},{value}" if name in headers else value
            # API Gateway tells the handler the scheme; links must point back at plain http.
            headers.setdefault("X-Forwarded-Proto", "http")
            event = gateway.proxy_event(
                self.command,
                path,
                "",
                query=query,
                headers=headers,
                body=body,
                source_ip=self.client_address[0],
            )
            answer = api.handle(event)
            raw = answer.get("body") or ""
            payload = base64.b64decode(raw) if answer.get("isBase64Encoded") else raw.encode()
            out = dict(answer.get("headers") or {})
            for name, values in (answer.get("multiValueHeaders") or {}).items():
                out[name] = ", ".join(values)
            self._reply(answer["statusCode"], out, payload)

        def _reply(self, status: int, headers: dict[str, str], payload: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


class LocalStack:
    """Embedded AWS services (unless the user points at others), tables, accounts."""

    def __init__(self) -> None:
        self.moto: Any = None
        self.spec = template.load()

    def start(self) -> None:
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        if not os.environ.get("AWS_ACCESS_KEY_ID"):
            # Any credentials do for the embedded services.
            os.environ["AWS_ACCESS_KEY_ID"] = os.environ["AWS_SECRET_ACCESS_KEY"] = "local"  # noqa: S105
        if not os.environ.get("AWS_ENDPOINT_URL_DYNAMODB") or not os.environ.get(
            "AWS_ENDPOINT_URL_SQS"
        ):
            import logging

            from moto.server import ThreadedMotoServer

            logging.getLogger("werkzeug").setLevel(logging.ERROR)

            self.moto = ThreadedMotoServer(ip_address=HOST, port=LOCAL_AWS_PORT, verbose=False)
            self.moto.start()
            host, port = self.moto.get_host_and_port()
            for service in ("DYNAMODB", "SQS"):
                os.environ.setdefault(f"AWS_ENDPOINT_URL_{service}", f"http://{host}:{port}")
        import boto3

        resources.create_tables(self.spec, boto3.client("dynamodb"))
        queues = resources.create_queues(self.spec, boto3.client("sqs"))
        resources.apply_environment(resources.function_environment(self.spec, queues))

    def stop(self) -> None:
        if self.moto is not None:
            self.moto.stop()


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
    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopping.set())
    stack = LocalStack()
    stack.start()
    keys = dev_accounts(os.environ.get("SITELENS_DEV_API_KEY", ""))
    routes = template.routes(stack.spec)
    ports = {
        "AnalyticsApi": int(os.environ.get("SITELENS_ANALYTICS_PORT", "3000")),
        "SeoApi": int(os.environ.get("SITELENS_SEO_PORT", "3001")),
    }
    servers = []
    for api, port in ports.items():
        http = ThreadingHTTPServer((HOST, port), _request_handler(gateway.Gateway(api, routes)))
        http.daemon_threads = True
        servers.append(http)
        threading.Thread(target=http.serve_forever, name=api, daemon=True).start()
    workers = _start_workers(stack.spec)

    print("Sitelens is running.", flush=True)
    print(f"  Analytics API: http://{HOST}:{ports['AnalyticsApi']}", flush=True)
    print(f"  SEO API:       http://{HOST}:{ports['SeoApi']}", flush=True)
    print(f"  DynamoDB/SQS:  {os.environ['AWS_ENDPOINT_URL_DYNAMODB']}", flush=True)
    for name, key in keys:
        print(f"  API key ({name}): {key}", flush=True)
    print("Press Ctrl-C to stop.", flush=True)

    stopping.wait()
    for worker in workers:
        worker.stop()
    for http in servers:
        threading.Thread(target=http.shutdown).start()
    for http in servers:
        http.server_close()
    stack.stop()
    print("Stopped.", flush=True)


def _start_workers(spec: dict[str, Any]) -> list[Any]:
    from sitelens.local import worker

    return worker.start_all(spec)


def main() -> None:
    # Local runs need a stable secret only for the life of the process.
    os.environ.setdefault("SITELENS_CURSOR_SECRET", secrets.token_hex(32))
    serve()


if __name__ == "__main__":
    main()
