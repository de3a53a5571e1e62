"""Imports of a website's history: their records (WebsitesTable, in the account's own
partition `#import:<account>`, so a key reads only its account's), the uploaded file
waiting for its job, and the imported tables the job writes (per-site daily aggregates,
Plausible's `imported_*` tables, one Parquet file per table and import).

Files go under the events bucket deployed (`imports/uploads/...` until the job has read
them, `imported/website_id=<id>/import_id=<id>/<table>/data.parquet` for good: a folder a
table, as Athena reads every file of a partition's folder, its Glue table `<table>`
finding the partitions by projection) and, under `make serve`, under the local
warehouse's folder in the same layout. ClickHouse reads them in place (`clickhouse_files`).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Final

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data import clickhouse, warehouse
from sitelens.data.clients import client
from sitelens.data.items import Item, from_item, is_condition_failure, to_item

PARTITION_PREFIX: Final = "#import:"
UPLOADS: Final = "imports/uploads"  # imports/uploads/website_id=<id>/<import_id>/upload
TABLES: Final = "imported"  # imported/website_id=<id>/import_id=<id>/<table>/data.parquet
FILE: Final = "data.parquet"  # the one file of a table's folder
MAX_LISTED: Final = 1_000  # an account's imports read to list one website's


def _key(account: str, import_id: int) -> dict[str, Any]:
    return {"account": {"S": f"{PARTITION_PREFIX}{account}"}, "id": {"N": str(import_id)}}


def create(record: Item) -> None:
    """Store a new import record (its id is new: the condition only guards a retry)."""
    client("dynamodb").put_item(
        TableName=settings().websites_table,
        Item={**to_item(record), **_key(record["account"], record["id"])},
        ConditionExpression="attribute_not_exists(id)",
    )


def _admitted(account: str, item: dict[str, Any]) -> Item | None:
    record = from_item(item)
    record["account"] = account
    website = {"account": account, "id": record["website_id"]}
    return record if scopes.current().admits("websites", website) else None


def get(account: str, import_id: int) -> Item | None:
    """The account's import, or None (another account's, or one of a website the key may
    not see: `core.scopes`)."""
    scopes.current()  # a read outside any scope is a mistake, even of nothing
    answer = client("dynamodb").get_item(
        TableName=settings().websites_table, Key=_key(account, import_id), ConsistentRead=True
    )
    return _admitted(account, answer["Item"]) if "Item" in answer else None


def of_website(account: str, website_id: int) -> list[Item]:
    """The account's imports of this website, newest first (a Query of the account's
    `#import:` partition, at most MAX_LISTED read)."""
    scopes.current()
    found: list[Item] = []
    start: dict[str, Any] | None = None
    read = 0
    while read < MAX_LISTED:
        params: dict[str, Any] = {
            "TableName": settings().websites_table,
            "KeyConditionExpression": "account = :a",
            "ExpressionAttributeValues": {":a": {"S": f"{PARTITION_PREFIX}{account}"}},
            "ScanIndexForward": False,
            "ConsistentRead": True,
        }
        if start:
            params["ExclusiveStartKey"] = start
        page = client("dynamodb").query(**params)
        read += len(page.get("Items", []))
        for item in page.get("Items", []):
            record = _admitted(account, item)
            if record is not None and int(record["website_id"]) == int(website_id):
                found.append(record)
        start = page.get("LastEvaluatedKey")
        if not start:
            break
    return found


def set_fields(account: str, import_id: int, fields: Item, unless_finished: bool = True) -> bool:
    """Write `fields` onto the import, unless it is already done or failed (a redelivered
    task's late write); whether written."""
    names = {f"#f{n}": name for n, name in enumerate(fields)}
    values = {f":v{n}": value for n, value in enumerate(fields.values())}
    condition = "attribute_exists(id)"
    if unless_finished:
        condition += " AND NOT #status IN (:done, :failed)"
        names["#status"] = "status"
        values[":done"], values[":failed"] = "done", "failed"
    try:
        client("dynamodb").update_item(
            TableName=settings().websites_table,
            Key=_key(account, import_id),
            UpdateExpression="SET " + ", ".join(f"#f{n} = :v{n}" for n in range(len(fields))),
            ConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=to_item(values),
        )
    except Exception as err:
        if is_condition_failure(err):
            return False
        raise
    return True


def remove(account: str, import_id: int) -> None:
    """Delete the import's record (its files first: `drop_tables`)."""
    client("dynamodb").delete_item(
        TableName=settings().websites_table, Key=_key(account, import_id)
    )


# -- files ------------------------------------------------------------------------------


def local_root() -> Path | None:
    """Under `make serve`, the warehouse's folder the files go under; None deployed."""
    local = warehouse.local_engine()
    return local.root if local is not None else None


def upload_key(website_id: int, import_id: int) -> str:
    return f"{UPLOADS}/website_id={int(website_id)}/{int(import_id)}/upload"


def put_upload(key: str, body: bytes) -> None:
    """Keep an uploaded file until its job has read it."""
    root = local_root()
    if root is not None:
        target = root / key
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        return
    client("s3").put_object(Bucket=settings().events_bucket, Key=key, Body=body)


def fetch_upload(key: str, path: Path) -> bool:
    """Copy the uploaded file to `path`; False when it is gone."""
    root = local_root()
    if root is not None:
        if not (root / key).is_file():
            return False
        shutil.copyfile(root / key, path)
        return True
    return warehouse.download(key, path)


def drop_upload(key: str) -> None:
    root = local_root()
    if root is not None:
        (root / key).unlink(missing_ok=True)
        return
    warehouse.delete([key])


def _tables_folder(website_id: int, import_id: int) -> str:
    return f"{TABLES}/website_id={int(website_id)}/import_id={int(import_id)}"


def table_key(website_id: int, import_id: int, table: str) -> str:
    """The key of one imported table's file (its Glue table's partition folder, one file)."""
    return f"{_tables_folder(website_id, import_id)}/{table}/{FILE}"


def store_table(path: Path, website_id: int, import_id: int, table: str) -> None:
    """Put one imported table's file in place (the same key however often the job runs)."""
    key = table_key(website_id, import_id, table)
    root = local_root()
    if root is not None:
        target = root / key
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        return
    warehouse.upload(path, key)


def table_files(website_id: int, import_ids: list[int], table: str) -> list[Path]:
    """The files of one imported table of these imports (under `make serve`: in place)."""
    root = local_root()
    if root is None:
        return []
    found = (root / table_key(website_id, i, table) for i in import_ids)
    return [path for path in found if path.is_file()]


def clickhouse_files(website_id: int, import_ids: list[int], table: str, structure: str) -> str:
    """The table function ClickHouse reads these imports' files of one table with, in
    place (a glob of their keys: a file gone, its import deleted meanwhile, reads as no
    rows, `structure` saying the columns where there is no file to infer them from)."""
    ids = ",".join(str(int(i)) for i in import_ids)
    pattern = table_key(website_id, 0, table).replace("import_id=0", f"import_id={{{ids}}}")
    return clickhouse.bucket_files(pattern, structure)


def drop_tables(website_id: int, import_id: int) -> None:
    """Remove every table file of the import."""
    folder = _tables_folder(website_id, import_id)
    root = local_root()
    if root is not None:
        shutil.rmtree(root / folder, ignore_errors=True)
        return
    keys = warehouse.object_keys(f"{folder}/", 100)
    if keys:
        warehouse.delete(keys)
