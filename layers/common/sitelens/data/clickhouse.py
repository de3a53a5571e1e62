"""The warehouse on ClickHouse: the settings every statement runs under (`QUERY_SETTINGS`,
chDB's too), and the client the deployed functions are to use: statements over HTTP(S)
through `clickhouse-connect`, ClickHouse's own Python client, to ClickHouse Cloud or a
self-managed server, its URL and credentials in a Secrets Manager secret whose ARN the
function is given (SITELENS_CLICKHOUSE_SECRET), read once a container.

Not wired yet: no handler reaches `run` until the template grants the query functions the
secret (docs/pipeline.md, ClickHouse). Queries are to run under Athena's bounds
(`max_execution_time`, `max_bytes_to_read`), the server stopping them beyond.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import cache
from typing import Any, Final

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


@cache
def _client() -> Any:
    import clickhouse_connect  # imported here: only a warehouse statement needs it

    found = json.loads(secrets.secret_string(os.environ["SITELENS_CLICKHOUSE_SECRET"]))
    return clickhouse_connect.get_client(
        host=found["host"],
        port=int(found.get("port", 8443)),
        username=found.get("username", "default"),
        password=found.get("password", ""),
        database=found.get("database", "default"),
        secure=bool(found.get("secure", True)),
    )


def run(sql: str, limits: dict[str, Any]) -> Rows:
    """The rows of a statement under `QUERY_SETTINGS` and `limits`."""
    return list(_client().query(sql, settings={**QUERY_SETTINGS, **limits}).result_rows)


def command(sql: str) -> None:
    """Run a statement that returns no rows (an insert of landing files, a table)."""
    _client().command(sql, settings=QUERY_SETTINGS)


def stopped_by_limits(error: Exception) -> bool:
    """Whether a statement failed because the server stopped it at `limits`."""
    return getattr(error, "code", None) in LIMIT_CODES or any(
        f"Code: {code}." in str(error) for code in LIMIT_CODES
    )
