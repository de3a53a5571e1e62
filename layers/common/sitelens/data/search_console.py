"""Search Console: each website's connection (WebsitesTable, in the account's own partition
`#searchconsole:<account>`, id = the website's id; its secret only ever sealed) and the
rows imported from it, a per-site table of the warehouse's bucket (or, under `make serve`,
its folder): `search_console/website_id=<id>/day=<YYYY-MM-DD>/data.parquet`, one file a
day, so that importing a day again replaces it whole (never adds to it).

The connections due for their daily import are found by a Query of the partition
`#searchconsole` (an entry per connected website, written and deleted with it), never a Scan.
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import Any, Final

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data import warehouse
from sitelens.data.clients import client
from sitelens.data.items import Item, from_item, to_item

PARTITION_PREFIX: Final = "#searchconsole:"
DUE_PARTITION: Final = "#searchconsole"  # every connection's entry: the daily run's list
FOLDER: Final = "search_console"
TABLE: Final = "search_console"  # the stack's Glue table over FOLDER (Athena)
COLUMNS: Final = (
    ("date", "DATE"),
    ("page", "VARCHAR"),
    ("query", "VARCHAR"),
    ("country", "VARCHAR"),
    ("device", "VARCHAR"),
    ("clicks", "BIGINT"),
    ("impressions", "BIGINT"),
    ("ctr", "DOUBLE"),
    ("position", "DOUBLE"),
)


def _key(account: str, website_id: int) -> dict[str, Any]:
    return {"account": {"S": f"{PARTITION_PREFIX}{account}"}, "id": {"N": str(website_id)}}


def _due_key(account: str, website_id: int) -> dict[str, Any]:
    # the sort key must be a number: the website's id is unique across accounts
    return {"account": {"S": DUE_PARTITION}, "id": {"N": str(website_id)}, "owner": {"S": account}}


def put(record: Item) -> None:
    """Store the website's connection whole (a new one replaces the old), and its entry in
    the daily run's list, in one transaction."""
    account, website_id = record["account"], int(record["website_id"])
    client("dynamodb").transact_write_items(
        TransactItems=[
            {
                "Put": {
                    "TableName": settings().websites_table,
                    "Item": {**to_item(record), **_key(account, website_id)},
                }
            },
            {
                "Put": {
                    "TableName": settings().websites_table,
                    "Item": _due_key(account, website_id),
                }
            },
        ]
    )


def get(account: str, website_id: int) -> Item | None:
    """The website's connection, or None (none, or a website the key may not see)."""
    scope = scopes.current()
    answer = client("dynamodb").get_item(
        TableName=settings().websites_table, Key=_key(account, website_id), ConsistentRead=True
    )
    if "Item" not in answer:
        return None
    record = from_item(answer["Item"])
    record["account"] = account
    return record if scope.admits("websites", {"account": account, "id": website_id}) else None


def set_fields(account: str, website_id: int, fields: Item) -> bool:
    """Write `fields` onto the connection if it is still there; whether written."""
    from sitelens.data.items import is_condition_failure

    names = {f"#f{n}": name for n, name in enumerate(fields)}
    values = {f":v{n}": value for n, value in enumerate(fields.values())}
    try:
        client("dynamodb").update_item(
            TableName=settings().websites_table,
            Key=_key(account, website_id),
            UpdateExpression="SET " + ", ".join(f"#f{n} = :v{n}" for n in range(len(fields))),
            ConditionExpression="attribute_exists(id)",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=to_item(values),
        )
    except Exception as err:
        if is_condition_failure(err):
            return False
        raise
    return True


def delete(account: str, website_id: int) -> None:
    """Remove the connection and its entry in the daily run's list."""
    table = settings().websites_table
    due = {k: v for k, v in _due_key(account, website_id).items() if k != "owner"}
    client("dynamodb").transact_write_items(
        TransactItems=[
            {"Delete": {"TableName": table, "Key": _key(account, website_id)}},
            {"Delete": {"TableName": table, "Key": due}},
        ]
    )


def connected() -> list[tuple[str, int]]:
    """(account, website id) of every connection: a Query of the daily run's list."""
    found: list[tuple[str, int]] = []
    request: dict[str, Any] = {
        "TableName": settings().websites_table,
        "KeyConditionExpression": "account = :due",
        "ExpressionAttributeValues": {":due": {"S": DUE_PARTITION}},
    }
    while True:
        page = client("dynamodb").query(**request)
        found += [(item["owner"]["S"], int(item["id"]["N"])) for item in page.get("Items", [])]
        if "LastEvaluatedKey" not in page:
            return found
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


# -- the rows -----------------------------------------------------------------------------


def site_folder(website_id: int) -> str:
    return f"{FOLDER}/website_id={int(website_id)}"


def day_key(website_id: int, day: str) -> str:
    return f"{site_folder(website_id)}/day={day}/data.parquet"


def _local_root() -> Path | None:
    local = warehouse.local_engine()
    return local.root if local is not None else None


def put_day(website_id: int, day: str, rows: Sequence[Sequence[Any]]) -> int:
    """Replace the site's rows of `day` (tuples in `COLUMNS`' order) with these: one Parquet
    file, written aside and put in place whole; how many rows. None: the day's file goes."""
    import duckdb

    with tempfile.TemporaryDirectory(prefix="sitelens-gsc-") as folder:
        # CSV in, which DuckDB reads typed and fast (JSON lines took three times as long)
        lines = Path(folder) / "rows.csv"
        with lines.open("w", newline="") as out:
            csv.writer(out, quoting=csv.QUOTE_NONNUMERIC).writerows(rows)  # "" stays text
        made = Path(folder) / "data.parquet"
        columns = ", ".join(f"'{name}': '{kind}'" for name, kind in COLUMNS)
        connection = duckdb.connect(":memory:")
        try:
            connection.execute(
                f"COPY (SELECT * FROM read_csv('{lines}', header = false, columns = {{{columns}}}, "  # noqa: S608
                f"quote = '\"', escape = '\"', allow_quoted_nulls = false) "
                f"ORDER BY page, query) TO '{made}' "
                "(FORMAT parquet, COMPRESSION zstd)"
            )
        finally:
            connection.close()
        root = _local_root()
        if root is None:
            warehouse.upload(made, day_key(website_id, day))
        else:
            target = root / day_key(website_id, day)
            target.parent.mkdir(parents=True, exist_ok=True)
            aside = target.with_name(f".{target.name}.{os.getpid()}")
            shutil.copyfile(made, aside)
            os.replace(aside, target)
    return len(rows)


def delete_rows(website_id: int) -> int:
    """Remove every imported row of the site; how many files went."""
    root = _local_root()
    if root is not None:
        files = list((root / site_folder(website_id)).glob("day=*/data.parquet"))
        shutil.rmtree(root / site_folder(website_id), ignore_errors=True)
        return len(files)
    keys = warehouse.object_keys(f"{site_folder(website_id)}/", 100_000)
    warehouse.delete(keys)
    return len(keys)


def local_files(
    website_ids: Iterable[int], first: date | None = None, last: date | None = None
) -> list[Path]:
    """Under `make serve`, the sites' day files of the range (the query reads them in place);
    [] deployed."""
    root = _local_root()
    if root is None:
        return []
    low, high = (first or date.min).isoformat(), (last or date.max).isoformat()
    return [
        path
        for website_id in website_ids
        for path in sorted((root / site_folder(website_id)).glob("day=*/data.parquet"))
        if low <= path.parent.name.removeprefix("day=") <= high
    ]
