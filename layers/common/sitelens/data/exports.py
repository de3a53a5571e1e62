"""Exports of a website's raw events: their records (WebsitesTable, in the account's own
partition `#export:<account>`, so a key reads only its account's) and their files.

Files are read from the warehouse's folders the domain names (`analytics.warehouse.layout`):
deployed, the site's own objects of the events bucket are downloaded to the function's
/tmp; under `make serve`, its folder is read in place. A finished file goes under `exports/` of the
events bucket (a presigned URL downloads it) or, under `make serve`, into a local folder
(a `file://` URL); with a delivery, into the customer's bucket too, through the role they
grant (`sts:AssumeRole` with the ExternalId docs/exports.md gives them).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Final

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data import warehouse
from sitelens.data.clients import client
from sitelens.data.items import Item, from_item, is_condition_failure, to_item

PARTITION_PREFIX: Final = "#export:"
FOLDER: Final = "exports"  # exports/website_id=<id>/<export_id>/events.<format>
URL_SECONDS: Final = 3600  # a download URL is signed when read, valid an hour
LOCAL_FOLDER_ENV: Final = "SITELENS_LOCAL_EXPORTS_DIR"
LOCAL_FOLDER: Final = Path(".sitelens-exports")  # make serve's, git-ignored


def _key(account: str, export_id: int) -> dict[str, Any]:
    return {"account": {"S": f"{PARTITION_PREFIX}{account}"}, "id": {"N": str(export_id)}}


def create(record: Item) -> None:
    """Store a new export record (its id is new: the condition only guards a retry)."""
    client("dynamodb").put_item(
        TableName=settings().websites_table,
        Item={**to_item(record), **_key(record["account"], record["id"])},
        ConditionExpression="attribute_not_exists(id)",
    )


def get(account: str, export_id: int) -> Item | None:
    """The account's export, or None (another account's, or a website the key may not see,
    is None too: `core.scopes`)."""
    scope = scopes.current()
    answer = client("dynamodb").get_item(
        TableName=settings().websites_table, Key=_key(account, export_id), ConsistentRead=True
    )
    if "Item" not in answer:
        return None
    record = from_item(answer["Item"])
    record["account"] = account
    website = {"account": account, "id": record["website_id"]}
    return record if scope.admits("websites", website) else None


def set_fields(account: str, export_id: int, fields: Item, unless_done: bool = True) -> bool:
    """Write `fields` onto the export, unless it is already done (a redelivered task's
    late write); whether written."""
    names = {f"#f{n}": name for n, name in enumerate(fields)}
    values = {f":v{n}": value for n, value in enumerate(fields.values())}
    condition = "attribute_exists(id)"
    if unless_done:
        condition += " AND #status <> :done"
        names["#status"] = "status"
        values[":done"] = "done"
    try:
        client("dynamodb").update_item(
            TableName=settings().websites_table,
            Key=_key(account, export_id),
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


# -- files ------------------------------------------------------------------------------


def _local_root() -> Path | None:
    local = warehouse.local_engine()
    return local.root if local is not None else None


def site_files(folders: list[str], landing: str, workdir: Path) -> list[Path]:
    """The Parquet files of these folders of the warehouse (a site's day files and parts)
    and of its `landing` folder (rows of the last hour, any site's). Deployed they are
    downloaded into `workdir`; under `make serve` read where they are."""
    root = _local_root()
    if root is not None:
        found = [path for folder in folders for path in sorted((root / folder).glob("*.parquet"))]
        return found + sorted((root / landing).glob("hour=*/*.parquet"))
    keys = [key for folder in folders for key in warehouse.object_keys(f"{folder}/", 10_000)]
    keys += warehouse.object_keys(f"{landing}/", 2_000)
    files = []
    for n, key in enumerate(keys):
        path = workdir / f"{n:06d}.parquet"
        if key.endswith(".parquet") and warehouse.download(key, path):
            files.append(path)
    return files


def object_key(website_id: int, export_id: int, file_format: str) -> str:
    """Where an export's file goes: the same key however often its task runs."""
    return f"{FOLDER}/website_id={int(website_id)}/{int(export_id)}/events.{file_format}"


def _local_folder() -> Path:
    return Path(os.environ.get(LOCAL_FOLDER_ENV) or LOCAL_FOLDER).resolve()


def store(path: Path, key: str) -> None:
    """Put the finished file where its download URL points (replacing it whole)."""
    if _local_root() is not None:
        target = _local_folder() / key
        target.parent.mkdir(parents=True, exist_ok=True)
        aside = target.with_name(f".{target.name}.{os.getpid()}")
        shutil.copyfile(path, aside)
        os.replace(aside, target)
        return
    client("s3").upload_file(str(path), settings().events_bucket, key)


def download_url(key: str) -> str:
    """A URL the file can be fetched from: presigned for an hour, or a local file's."""
    if _local_root() is not None:
        return (_local_folder() / key).as_uri()
    return str(
        client("s3").generate_presigned_url(
            "get_object",
            Params={"Bucket": settings().events_bucket, "Key": key},
            ExpiresIn=URL_SECONDS,
        )
    )


def local_path(key: str) -> str | None:
    """Under `make serve`, the file's path on this machine (its URL is a `file://` one)."""
    return str(_local_folder() / key) if _local_root() is not None else None
