"""The warehouse on ClickHouse, fed in batches: each closed landing hour inserted once
(`run`, the scheduled ClickHouseIngestFunction; WarehouseEngine=clickhouse only).

Under that engine Firehose writes the landing Parquet files under `PREFIX`
(`clickhouse-landing/hour=<YYYY-MM-DD-HH>/`) rather than `landing/`, which compaction
takes and deletes whatever their hour: these stay for the server to read, as raw events
kept as long as the bucket keeps events (EventRetentionDays). A run inserts, in order,
the hours after its checkpoint (`data.checkpoints`, one item of the stats table) that
are closed (`closed`: Firehose's last buffer of the hour delivered), each with one
`INSERT ... SELECT ... FROM s3(...)` the server runs itself (`clickhouse.insert_statement`
over `data.clickhouse.landing`), and moves the checkpoint past each hour once its insert
returned. So:

- run twice, or a run killed after an insert but before its checkpoint: the hour goes in
  again, and the `ReplacingMergeTree` (read `FINAL`) keeps one row per hit id;
- a failed insert stops the run there (`HourNotInserted`, counted as
  `ClickHouseHoursFailed`): the hour and those after it wait for the next try (Lambda's
  two retries of the run, then the next hour's), never skipped;
- a backlog (a day of failures, a first run over older files) goes in `MAX_HOURS` a run;
- the UTC days an hour closes, or gives late rows, are summarised (`clickhouse_days`)
  before the checkpoint moves past it: marked not summarised before its rows go in, their
  summaries replaced, then marked summarised again. A run that fails in between leaves
  them to raw rows (right, only slower) until the hour goes in again.

A DynamoDB item rather than an object of the bucket holds the checkpoint: it is read
consistently and written on a condition (only forward), so two runs at once cannot move
it back, with the table and grant the compaction's lease already has.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final

from sitelens.analytics.warehouse import clickhouse as sql
from sitelens.analytics.warehouse import clickhouse_days
from sitelens.core import metrics
from sitelens.core.log import logger
from sitelens.data import checkpoints, clickhouse, warehouse

PREFIX: Final = "clickhouse-landing"  # Firehose's prefix under WarehouseEngine=clickhouse
JOB: Final = "clickhouse"  # the checkpoint's name
HOUR_FORMAT: Final = "%Y-%m-%d-%H"  # Firehose's !{timestamp:yyyy-MM-dd-HH}
MAX_HOURS: Final = 24  # per run: a day behind catches up in one run
# keys listed a run: Firehose writes a file each 300 s buffer (or 128 MB), so 24 hours are
# a few hundred to a few thousand
MAX_KEYS: Final = 20_000
# an hour is closed once Firehose's last 300 s buffer of it is delivered, with room to spare
CLOSED_AFTER: Final = timedelta(minutes=10)


class HourNotInserted(RuntimeError):
    """An hour's insert failed: the run stops there, and the hour is tried again."""


def folder(hour: str) -> str:
    """An hour's landing folder under `PREFIX`, relative to the events bucket."""
    return f"{PREFIX}/hour={hour}"


def closed(hour: str, now: datetime) -> bool:
    """Whether every file of the landing hour has been delivered by `now`."""
    start = datetime.strptime(hour, HOUR_FORMAT).replace(tzinfo=UTC)
    return now >= start + timedelta(hours=1) + CLOSED_AFTER


def pending(after: str | None, now: datetime) -> list[str]:
    """The closed landing hours with files after the hour `after` (all, when None), oldest
    first, at most `MAX_HOURS`."""
    # `~` sorts after every file name of the hour `after`, before the next hour's folder
    start = f"{folder(after)}/~" if after else ""
    hours: list[str] = []
    for key in warehouse.object_keys(f"{PREFIX}/hour=", MAX_KEYS, start):
        hour = key.split("/")[1].removeprefix("hour=")
        if not closed(hour, now):
            break  # keys are in time order: the rest are open too
        if not hours or hours[-1] != hour:
            hours.append(hour)
    return hours[:MAX_HOURS]


def run(now: datetime | None = None) -> dict[str, int]:
    """Insert the closed hours after the checkpoint (creating the tables at the first run);
    how many hours went in. HourNotInserted when one failed (the hours before it are in)."""
    now = now or datetime.now(UTC)
    last = checkpoints.last(JOB)
    if last is None:  # the first run: the tables, where missing
        for statement in [*sql.create_statements(), *clickhouse_days.create_statements()]:
            clickhouse.command(statement)
    inserted = 0
    for hour in pending(last, now):
        try:
            _insert(hour, last)
        except Exception as err:
            metrics.count("ClickHouseHoursFailed")
            logger.exception("landing hour not inserted", extra={"hour": hour})
            raise HourNotInserted(f"landing hour {hour} not inserted") from err
        checkpoints.advance(JOB, hour)
        metrics.count("ClickHouseHoursInserted")
        inserted += 1
        last = hour
    return {"hours": inserted}


def _insert(hour: str, previous: str | None) -> None:
    """Insert the landing hour, and summarise the days it closes or gives late rows."""
    source = clickhouse.landing(folder(hour))
    touched = [str(day) for (day,) in clickhouse.run(clickhouse_days.days_statement(source), {})]
    days = clickhouse_days.closed_days(previous, hour, touched)
    late = [day for day in days if day in touched]
    if late:  # their stored summaries would lack the rows: raw rows answer them meanwhile
        clickhouse.command(clickhouse_days.mark_statement(late, summarised=False))
    clickhouse.command(sql.insert_statement(source))
    for day in days:
        for statement in clickhouse_days.summary_statements(day):
            clickhouse.command(statement)
    if days:
        clickhouse.command(clickhouse_days.mark_statement(days, summarised=True))
