"""Rows Firehose could not convert to Parquet, back into the warehouse before each compaction.

Firehose writes a record it cannot convert (a row that does not fit the landing table's
schema, or a schema it could not read from Glue at that moment) under
`landing-errors/<error output type>/<YYYY-MM-DD>/`, one JSON document per record:
`{"attemptsMade", "arrivalTimestamp", "errorCode", "errorMessage", "rawData", ...}`, where
`rawData` is the record as sent, base64-encoded: the rows `warehouse.pack` put in it, JSON
lines one after another (a whole record fails or converts). Every compaction first reads
these files (`reingest_folder` under `make serve`, `reingest_bucket` deployed):

- each row of a record (`warehouse.documents`) is sorted on its own:
- a row that fits the landing schema (`landing_row`) goes into a landing file of the hour
  (`landing/hour=<now>/part-reingested-<digest of the error file>.parquet`), compacted with the
  others and so kept once per hit id: a row whose hit is in the warehouse already, or a file
  written again after a crash, adds nothing;
- a row that still does not fit is parked, with Firehose's error and ours (`rawData`: that
  row's bytes when the record held others), under
  `landing-parked/website_id=<id>/` (`unreadable/` when not even its site can be read), kept
  as long as raw events (EventRetentionDays), counted as RowsParked (alarmed), never dropped.

The error file is deleted only once its rows are in landing and parked: a crash leaves it to
be read again.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import shutil
import uuid
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from sitelens.analytics.warehouse import layout, schema
from sitelens.core import clock, metrics
from sitelens.core.log import logger
from sitelens.data import warehouse

ERRORS: Final = layout.ERRORS
PARKED: Final = layout.PARKED
UNREADABLE: Final = "unreadable"  # parked rows whose site could not be read
CONVERSION_FAILED: Final = "format-conversion-failed"  # Firehose's error output type
MAX_ERROR_FILES: Final = 500  # per run; the rest wait for the next (counted in `left`)
_DAY: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
_BIGINT: Final = (-(2**63), 2**63 - 1)
_REQUIRED: Final = ("website_id", "day", "hit_id", "ts", "name")
_NOT_JSON: Final = "not a JSON row"


class Unfit(ValueError):
    """A row that does not fit the landing schema, saying why."""


def error_document(line: bytes, code: str, message: str, at: datetime) -> dict[str, Any]:
    """Firehose's error record of one record it could not convert (`make serve` writes
    these as Firehose does; tests build them)."""
    millis = int(at.timestamp() * 1000)
    return {
        "attemptsMade": 1,
        "arrivalTimestamp": millis,
        "errorCode": code,
        "errorMessage": message,
        "attemptEndingTimestamp": millis,
        "rawData": base64.b64encode(line).decode(),
    }


def error_file(day: str, name: str) -> str:
    """Where an error file of a day lands, relative to the warehouse's root."""
    return f"{ERRORS}/{CONVERSION_FAILED}/{day}/{name}"


def documents(data: bytes) -> Iterator[dict[str, Any]]:
    """The error documents of a file: JSON objects one after another (newlines or not)."""
    found, rest = warehouse.documents(data)
    for document, _ in found:
        yield document if isinstance(document, dict) else {"rawData": "", "unreadable": document}
    if rest:
        yield {"rawData": "", "unreadable": rest.decode()}  # the rest, parked as it is


def _timestamp(value: Any) -> datetime:
    if not isinstance(value, str):
        raise Unfit("ts is not text")
    try:
        found = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise Unfit("ts is no timestamp") from None
    if found.tzinfo is not None:  # the files' timestamps are UTC, without a zone
        found = found.astimezone(UTC).replace(tzinfo=None)
    return found.replace(microsecond=found.microsecond // 1000 * 1000)


def _typed(name: str, kind: schema.ColumnType, value: Any) -> Any:
    if value is None:
        return None
    if kind == "timestamp":
        return _timestamp(value)
    if kind == "string":
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise Unfit(f"{name} is not text")
        return str(value)
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if value in ("true", "false"):
            return value == "true"
        raise Unfit(f"{name} is not a boolean")
    if isinstance(value, bool):
        raise Unfit(f"{name} is not a whole number")
    try:
        number = int(value) if isinstance(value, int | str) else None
    except ValueError:
        number = None
    if number is None or not _BIGINT[0] <= number <= _BIGINT[1]:
        raise Unfit(f"{name} is not a whole number of 64 bits")
    return number


def landing_row(raw: Any) -> dict[str, Any]:
    """The landing row a record stands for, each value of its column's type; Unfit, saying
    why, when it has none (not an object, a value of another type, a key column missing)."""
    if not isinstance(raw, Mapping):
        raise Unfit("not a JSON object")
    row = {
        name: _typed(name, kind, raw.get(name))
        for name, kind in (*schema.PARTITIONS, *schema.COLUMNS)
    }
    missing = [name for name in _REQUIRED if row[name] in (None, "")]
    if missing:
        raise Unfit(f"{', '.join(missing)} missing")
    if not _DAY.fullmatch(row["day"]) or row["day"] != row["ts"].strftime("%Y-%m-%d"):
        raise Unfit("day is not the UTC day of ts")
    if row["website_id"] <= 0:
        raise Unfit("website_id is not an id")
    return row


def _site_of(raw: Any) -> str:
    site = raw.get("website_id") if isinstance(raw, Mapping) else None
    if isinstance(site, int) and not isinstance(site, bool) and site > 0:
        return f"website_id={site}"
    return UNREADABLE


def sort_out(
    data: bytes, deleted: Collection[int] = ()
) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """An error file's rows that fit the landing schema, and the documents of those that do
    not, by the parked folder of their site (each with `reason`, why it is parked). Those of
    `deleted` websites are not parked: their site's files are removed (`deletions`)."""
    fit: list[dict[str, Any]] = []
    parked: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for document in documents(data):
        for raw, kept, why in _rows_of(document):
            if why is None:
                fit.append(raw)  # a deleted website's: dropped at compaction
                continue
            site = _site_of(raw)
            if site != UNREADABLE and int(site.split("=", 1)[1]) in deleted:
                continue
            parked[site].append({**kept, "reason": why})
    return fit, dict(parked)


def _rows_of(
    document: dict[str, Any],
) -> Iterator[tuple[Any, dict[str, Any], str | None]]:
    """Each row of an error document's record: the landing row and None when it fits, else
    what it is, the document to park (that row's own `rawData` when the record held
    others) and why."""
    try:
        record = base64.b64decode(document.get("rawData") or "", validate=True)
    except (ValueError, binascii.Error):
        record = b""
    found, rest = warehouse.documents(record)
    alone = len(found) == 1 and not rest
    for raw, line in found:
        try:
            yield landing_row(raw), document, None
        except Unfit as err:
            own = document if alone else {**document, "rawData": base64.b64encode(line).decode()}
            yield raw, own, str(err)
    if rest or not found:  # not JSON from there on: parked as it is
        own = document if not found else {**document, "rawData": base64.b64encode(rest).decode()}
        yield None, own, _NOT_JSON


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:32]


def reingested_file(source: str) -> str:
    """The landing file an error file's rows go to: named after the error file, so a run
    redone after a crash writes the same rows again (kept once, by hit id)."""
    hour = clock.now().strftime("%Y-%m-%d-%H")
    return f"{layout.landing_folder(hour)}/part-reingested-{_digest(source)}.parquet"


def parked_file(site: str, source: str) -> str:
    """Where an error file's rows of one site that still do not fit are kept."""
    return f"{PARKED}/{site}/{clock.now().strftime('%Y-%m-%d')}/{_digest(source)}.jsonl"


def _parked_lines(found: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(document) + "\n" for document in found).encode()


def _count(reingested: int, parked: dict[str, list[dict[str, Any]]]) -> None:
    metrics.count("RowsReingested", reingested)
    for documents_of_site in parked.values():
        for why, total in _reasons(documents_of_site).items():
            metrics.count("RowsParked", total, reason=why)


def _reasons(found: list[dict[str, Any]]) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for document in found:
        totals["unreadable" if document["reason"] == _NOT_JSON else "unfit"] += 1
    return dict(totals)


def reingest_folder(connection: Any, root: Path, deleted: Collection[int] = ()) -> dict[str, int]:
    """`make serve`'s error files (under `root`) re-ingested or parked, then removed."""
    done = {"error_files": 0, "reingested": 0, "parked": 0}
    for path in sorted(p for p in (root / ERRORS).glob("**/*") if p.is_file()):
        source = str(path.relative_to(root))
        fit, parked = sort_out(path.read_bytes(), deleted)
        if fit:
            layout.land_file(connection, fit, root / reingested_file(source))
        for site, found in parked.items():
            target = root / parked_file(site, source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(_parked_lines(found))
        path.unlink()  # only once its rows are in landing or parked
        _note(done, source, fit, parked)
    return done


def reingest_bucket(
    connection: Any, scratch: Path, deleted: Collection[int] = ()
) -> dict[str, int]:
    """The bucket's error files (up to MAX_ERROR_FILES a run) re-ingested or parked, then
    deleted; `scratch` is a folder of the run's own."""
    done = {"error_files": 0, "reingested": 0, "parked": 0}
    keys = warehouse.object_keys(ERRORS + "/", MAX_ERROR_FILES)
    for key in keys:
        local = scratch / f"error-{uuid.uuid4().hex}"
        if not warehouse.download(key, local):
            continue  # gone since it was listed: another run read it
        fit, parked = sort_out(local.read_bytes(), deleted)
        if fit:
            landed = scratch / f"reingested-{uuid.uuid4().hex}.parquet"
            layout.land_file(connection, fit, landed)
            warehouse.upload(landed, reingested_file(key))
        for site, found in parked.items():
            path = scratch / f"parked-{uuid.uuid4().hex}.jsonl"
            path.write_bytes(_parked_lines(found))
            warehouse.upload(path, parked_file(site, key))
        warehouse.delete([key])  # only once its rows are in landing or parked
        _note(done, key, fit, parked)
    shutil.rmtree(scratch, ignore_errors=True)
    return done


def _note(done: dict[str, int], source: str, fit: list[Any], parked: dict[str, list[Any]]) -> None:
    kept = sum(len(found) for found in parked.values())
    done["error_files"] += 1
    done["reingested"] += len(fit)
    done["parked"] += kept
    _count(len(fit), parked)
    if kept:  # the documents hold rows: their sites and reasons only
        logger.warning(
            "warehouse rows parked",
            extra={"file": source, "rows": kept, "sites": sorted(parked)},
        )
