"""Reports: the SEO collection's records, each write together with its project's row."""

from __future__ import annotations

from sitelens.config import settings
from sitelens.data import projects, records
from sitelens.data.items import Item, Write
from sitelens.data.records import Collection, id_suffixed

COLLECTION = Collection(
    name="reports",
    table=lambda: settings().reports_table,
    orders={
        "generated_at": lambda r: id_suffixed(r["generated_at"], r),
        "url": lambda r: id_suffixed(r["url"], r),
        "result": lambda r: id_suffixed(f"{r['score']:03d}", r),
    },
    filters={"result": lambda r: r["result"], "project": lambda r: r["project"]},
)


def allocate_id() -> int:
    return records.allocate_id(COLLECTION)


def get(account: str, report_id: int) -> Item | None:
    return records.get(COLLECTION, account, report_id)


def create_with_project(record: Item) -> None:
    """Store a new report and count it (and its score) in its project, in one transaction."""
    joining = projects.change(
        record["account"], record["project"], 1, record["score"], record["created_at"]
    )
    records.create(COLLECTION, record, also=(joining,))


def update(current: Item, changes: Item, removed: tuple[str, ...] = ()) -> Item | None:
    """Change fields that no project counts (privacy); None when the report is gone."""
    return records.update(COLLECTION, current, changes, removed)


def update_and_move_project(
    current: Item, changes: Item, removed: tuple[str, ...] = ()
) -> Item | None:
    """Store a regenerated report and move its score (and, for a new host, the report) between
    project rows in one transaction; None when the report is gone or changed since `current`
    was read. A project left without reports is removed."""
    new = {**current, **changes}
    account, now = current["account"], changes["updated_at"]
    moves: tuple[Write, ...]
    if new["project"] == current["project"]:
        delta = new["score"] - current["score"]
        moves = (projects.change(account, current["project"], 0, delta, now),)
    else:
        moves = (
            projects.change(account, current["project"], -1, -current["score"], now),
            projects.change(account, new["project"], 1, new["score"], now),
        )
    record = records.update(COLLECTION, current, changes, removed, also=moves)
    if record is not None and record["project"] != current["project"]:
        projects.drop_if_empty(account, current["project"])
    return record


def delete_and_update_project(record: Item, now: str) -> bool:
    """Delete a report and take it out of its project's row together; False when it was not
    there. The project goes with its last report."""
    account = record["account"]
    leaving = projects.change(account, record["project"], -1, -record["score"], now)
    if not records.delete(COLLECTION, account, record["id"], also=(leaving,)):
        return False
    projects.drop_if_empty(account, record["project"])
    return True
