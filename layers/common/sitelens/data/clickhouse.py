"""The warehouse on ClickHouse (template parameter WarehouseEngine=clickhouse): statements
over HTTP(S) through `clickhouse-connect`, ClickHouse's own Python client, to ClickHouse
Cloud or a self-managed server. Its address and credentials are in a Secrets Manager
secret whose ARN the function is given (SITELENS_CLICKHOUSE_SECRET), read once a container.

Every statement runs under `QUERY_SETTINGS` (chDB's too), a query also under the bounds
its caller gives (`data.warehouse`: Athena's), the server stopping it beyond them
(`stopped_by_limits`). Landing files are read by the server itself, from S3 (`landing`).
Tests and `make serve` put chDB in the client's place (`use`, `local.clickhouse.Client`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any, Final

from sitelens.core.config import settings
from sitelens.data import secrets

Rows = Sequence[Sequence[Any]]
# What a query means by its words, as DuckDB and Athena read them: an outer join's missing
# side is NULL, a name in a SELECT is the column before an alias of the same name, times
# without a zone are UTC (and 64-bit numbers come back as JSON numbers, locally).
QUERY_SETTINGS: Final[dict[str, Any]] = {
    "join_use_nulls": 1,
    "prefer_column_name_to_alias": 1,
    "session_timezone": "UTC",
    "output_format_json_quote_64bit_integers": 0,
}
# ClickHouse's error codes of a query stopped by its limits: TIMEOUT_EXCEEDED,
# TOO_MANY_BYTES (the caller answers "too expensive")
LIMIT_CODES: Final = (159, 307)

_clients: list[Any] = []  # the container's client, made at its first statement


def _client() -> Any:
    if not _clients:
        import clickhouse_connect  # imported here: only a warehouse statement needs it

        found = json.loads(secrets.secret_string(settings().clickhouse_secret))
        _clients.append(
            clickhouse_connect.get_client(
                host=found["host"],
                port=int(found.get("port", 8443)),
                username=found.get("username", "default"),
                password=found.get("password", ""),
                database=found.get("database", "default"),
                secure=bool(found.get("secure", True)),
            )
        )
    return _clients[0]


def use(client: Any | None) -> None:
    """Send statements to `client` (clickhouse-connect's shape: `query`, `command`) instead
    of the secret's server: chDB in tests and `make serve`; None: forget it."""
    _clients.clear()
    if client is not None:
        _clients.append(client)


def run(sql: str, limits: dict[str, Any]) -> Rows:
    """The rows of a statement under `QUERY_SETTINGS` and `limits`."""
    return list(_client().query(sql, settings={**QUERY_SETTINGS, **limits}).result_rows)


def command(sql: str, extra: dict[str, Any] | None = None) -> None:
    """Run a statement that returns no rows (an insert of landing files, a table), under
    `QUERY_SETTINGS` and `extra` (settings that must hold before it is parsed, too)."""
    _client().command(sql, settings={**QUERY_SETTINGS, **(extra or {})})


def stopped_by_limits(error: Exception) -> bool:
    """Whether a statement failed because the server stopped it at `limits`."""
    return getattr(error, "code", None) in LIMIT_CODES or any(
        f"Code: {code}." in str(error) for code in LIMIT_CODES
    )


def landing(folder: str) -> str:
    """The s3(...) table function of a landing folder's Parquet files (`folder` relative to
    the events bucket), read by the server with the role the customer gave it for the
    bucket (SITELENS_CLICKHOUSE_S3_ROLE; none: the server's own access)."""
    return bucket_files(f"{folder}/*.parquet")


def bucket_files(pattern: str, structure: str = "") -> str:
    """The s3(...) table function of the events bucket's Parquet files whose keys match
    `pattern` (ClickHouse's globs: `*`, `{a,b}`), with the columns `structure` gives (none:
    inferred from the files), read as `landing` says."""
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
    url = f"https://{settings().events_bucket}.s3.{region}.amazonaws.com/{pattern}"
    role = settings().clickhouse_s3_role
    columns = f", '{structure}'" if structure else ""
    credentials = f", extra_credentials(role_arn = '{role}')" if role else ""
    return f"s3('{url}', 'Parquet'{columns}{credentials})"
