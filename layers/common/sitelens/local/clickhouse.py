"""The warehouse on ClickHouse in process (chDB, ClickHouse's own embedded build): the
deployed table and statements (`analytics.warehouse.clickhouse`), for tests and the bench;
and `Client`, chDB in clickhouse-connect's place (`data.clickhouse.use`), so that the
deployed path (SITELENS_WAREHOUSE_ENGINE=clickhouse) runs on the real engine in tests.

Landing Parquet files go in as deployed (`insert_statement`), read with file(...) where
the deployment reads s3(...); queries run the SQL `warehouse.sql` renders for the
"clickhouse" dialect.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from sitelens.analytics.warehouse import clickhouse, clickhouse_days
from sitelens.data import clickhouse_counts
from sitelens.data.clickhouse import QUERY_SETTINGS


def _settings_sql(limits: dict[str, Any] | None = None) -> str:
    """`QUERY_SETTINGS` (and `limits`) as a SETTINGS clause's list (numbers, plain words)."""
    found = {**QUERY_SETTINGS, **(limits or {})}
    return ", ".join(f"{name} = {value!r}" for name, value in found.items())


_SESSION: list[Any] = []  # chDB runs one embedded server a process: one session, shared
_LOCK = threading.Lock()


def _session() -> Any:
    from chdb import session

    if not _SESSION:
        _SESSION.append(session.Session())
    return _SESSION[0]


class LocalClickHouse:
    """A database of its own in the process's chDB session (the embedded server is one a
    process); one statement at a time."""

    def __init__(self) -> None:
        self.database = f"sitelens_{uuid.uuid4().hex}"
        self._query(f"CREATE DATABASE {self.database}", use=False)
        for statement in [
            *clickhouse.create_statements(),
            *clickhouse_days.create_statements(),
            *clickhouse_counts.create_statements(),
        ]:
            self._query(statement)

    def _query(self, sql: str, fmt: str = "CSV", use: bool = True) -> Any:
        with _LOCK:
            session = _session()
            if use:
                session.query(f"USE {self.database}")
            return session.query(sql, fmt)

    def load(self, files: Sequence[Path]) -> int:
        """Insert the rows of landing (or compacted) Parquet files, as deployed ingest does;
        how many rows the table has now, copies not merged yet counted."""
        for path in files:  # file() takes one path or a glob: one insert a file
            # the paths are ours, not a request's
            self._query(clickhouse.insert_statement(f"file('{path}', Parquet)"))
        found = self.run(f"SELECT COUNT(*) FROM {clickhouse.TABLE}")  # noqa: S608
        return int(found[0][0])

    def command(self, sql: str) -> None:
        """Run a statement that returns no rows (an insert, with settings of its own)."""
        self._query(sql)

    def summarise(self, days: Sequence[str]) -> None:
        """Store the UTC days' summaries and mark them summarised, as the ingest does."""
        for day in days:
            for statement in clickhouse_days.summary_statements(day):
                self._query(statement)
        if days:
            self._query(clickhouse_days.mark_statement(days, summarised=True))

    def stop_merges(self) -> None:
        """Keep every inserted part as it is (copies of a hit stay until read FINAL)."""
        self._query(f"SYSTEM STOP MERGES {clickhouse.TABLE}")

    def merge(self) -> None:
        """Merge every part now (`OPTIMIZE ... FINAL`), as ClickHouse does some time later."""
        self._query(f"OPTIMIZE TABLE {clickhouse.TABLE} FINAL")

    def run(self, sql: str, limits: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """The rows of a statement, with the settings every query runs under (and `limits`,
        as the server's bounds)."""
        result = self._query(
            f"{sql.rstrip().rstrip(';')}\nSETTINGS {_settings_sql(limits)}", "JSONCompact"
        )
        text = result.bytes()
        if not text:
            return []
        return [tuple(found) for found in json.loads(text)["data"]]

    def close(self) -> None:
        """Drop the database."""
        self._query(f"DROP DATABASE IF EXISTS {self.database}", use=False)


# s3('https://<bucket>.s3.<region>.amazonaws.com/<key glob>', 'Parquet'[, '<structure>']
#    [, credentials])
_S3: Final = re.compile(
    r"s3\('https://[^/']+/([^']+)', 'Parquet'(, '[^']*')?(?:, extra_credentials\([^)]*\))?\)"
)


class Client:
    """chDB in clickhouse-connect's place (its `query` and `command`), on a database of its
    own: statements as the deployed functions send them, with their settings. The bucket's
    objects are read from `bucket` on disk (its keys as paths) where the server reads S3."""

    def __init__(self, local: LocalClickHouse, bucket: Path | None = None) -> None:
        self.local = local
        self.bucket = bucket

    def query(self, sql: str, settings: dict[str, Any] | None = None) -> Any:
        """An answer with clickhouse-connect's `result_rows` (of the bucket's files too)."""
        rows = self.local.run(self._on_disk(sql), settings)
        return type("QueryResult", (), {"result_rows": rows})()

    def command(self, sql: str, settings: dict[str, Any] | None = None) -> None:
        """A statement without rows (an insert reading the bucket, a table), after its
        settings (as the server takes them before it parses the statement)."""
        for name, value in (settings or {}).items():
            if name not in QUERY_SETTINGS:  # those the statements carry where they matter
                self.local.command(f"SET {name} = {value!r}")
        self.local.command(self._on_disk(sql))

    def _on_disk(self, sql: str) -> str:
        if self.bucket is None:
            return sql
        return _S3.sub(
            lambda found: f"file('{self.bucket}/{found[1]}', Parquet{found[2] or ''})", sql
        )
