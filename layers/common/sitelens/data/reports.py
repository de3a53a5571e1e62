"""Reports: the SEO collection's records, each write together with its project's row.

Every report write (create, regeneration, delete) and the change it makes to its
project's row (report count, score total) are one transaction, conditional on the report's
version; so under any interleaving the rows equal the sums over the reports that exist.
The project row is a hot item shared by its reports: concurrent transactions on it are
cancelled with `TransactionConflict` and retried with jitter (`transactions.write`), which
keeps the row exact without a stream or a recomputation, at the price of a retry when two
reports of one host are written in the same few milliseconds.

A report's share id (`sitelens.sharing.links`) is claimed in the table, in the same
transaction as the report (`#claim:share:<share id>` names its account and id), so that
a share view finds it with two strongly consistent reads and no index; the claim goes
with the report. A report stored before share ids has none until its next update.
"""

from __future__ import annotations

from sitelens.core.config import settings
from sitelens.data import projects, records, transactions
from sitelens.data.clients import client
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
    slim_indexes=True,  # a report's results are kilobytes: indexes keep keys, not copies
)


def allocate_id() -> int:
    return records.allocate_id(COLLECTION)


def get(account: str, report_id: int) -> Item | None:
    return records.get(COLLECTION, account, report_id)


def by_share_id(share_id: str) -> Item | None:
    """The report with this share id, whichever account it belongs to: its account and id
    from its claim, then the record itself (the one that still has this share id)."""
    claim = records.get_claim(COLLECTION, _share_claim(share_id), consistent=True)
    if claim is None:
        return None
    found = get(claim["owner"], int(claim["record_id"]))
    return found if found is not None and found.get("share_id") == share_id else None


def _share_claim(share_id: str) -> str:
    return f"share:{share_id}"


def _share_claims(current: Item | None, new: Item) -> tuple[Write, ...]:
    """The claim of a share id `new` has and `current` (None: a new report) had not."""
    share_id = new.get("share_id")
    if not share_id or (current is not None and current.get("share_id") == share_id):
        return ()
    return (records.claim_entry(COLLECTION, _share_claim(share_id), new),)


def _share_release(current: Item) -> tuple[Write, ...]:
    share_id = current.get("share_id")
    return (records.release_entry(COLLECTION, _share_claim(share_id), current),) if share_id else ()


def create_with_project(record: Item) -> Item:
    """Store a new report with its share id's claim, and count it (and its score) in its
    project, in one transaction."""
    joining = projects.change(
        record["account"], record["project"], 1, record["score"], record["created_at"]
    )
    return records.create(COLLECTION, record, also=(*_share_claims(None, record), joining))


def update_with_project(account: str, report_id: int, change: records.Change) -> Item | None:
    """Apply `change` to the stored report (again if another write came first) and move its
    score, and for a new host the report, between project rows in the same transaction; a
    project left empty goes in it too, and the claim of a share id the change gives. The
    report written, or None when there is none."""
    for _ in records.version_attempts():
        try:
            return records.update(COLLECTION, account, report_id, change, also=_effects)
        except transactions.ConditionFailed:
            pass  # a project row changed between its read and the write: read all again
    raise records.Busy()


def _effects(current: Item, new: Item) -> tuple[Write, ...]:
    return (*_share_claims(current, new), *_project_moves(current, new))


def _project_moves(current: Item, new: Item) -> tuple[Write, ...]:
    account, now = current["account"], new["updated_at"]
    if new["project"] == current["project"]:
        delta = new["score"] - current["score"]
        return (projects.change(account, current["project"], 0, delta, now),) if delta else ()
    return (
        projects.leave(account, current["project"], 1, current["score"], now),
        projects.change(account, new["project"], 1, new["score"], now),
    )


def delete_with_project(account: str, report_id: int, now: str) -> Item | None:
    """Delete a report and take it out of its project's row, or the row with its last
    report, in one transaction: nothing is left to do after it commits, so an answer
    never reports a failure of a change that was made. The report deleted, or None when
    there was none; Busy when other writes kept coming first."""
    for _ in records.version_attempts():
        current = get(account, report_id)
        if current is None:
            return None
        leaving = projects.leave(account, current["project"], 1, current["score"], now)
        entry = records.delete_entry(COLLECTION, current)
        try:
            transactions.write([entry, *_share_release(current), leaving])
            return current
        except transactions.ConditionFailed:
            pass  # the report or its project's row changed since read: read both again
        except transactions.Contended:
            raise records.Busy() from None
    raise records.Busy()


# A transaction holds at most 100 writes: 49 reports, their share ids' claims, and their
# project's row.
PROJECT_CHUNK = 49


def delete_project_chunk(
    account: str, project: str, now: str, most: int = PROJECT_CHUNK
) -> int | None:
    """Delete up to `most` (at most PROJECT_CHUNK) of the account's reports of `project`
    and take them out of its row (the row too with the last of them), all in one
    transaction, each on the condition that it is still the version read (a report
    regenerated meanwhile is read again next time). How many were deleted; None when the
    project has no reports left."""
    answer = client("dynamodb").query(
        TableName=settings().reports_table,
        IndexName="project_by_id",
        KeyConditionExpression="project_key = :key",
        ExpressionAttributeValues={":key": {"S": f"{account}#{project}"}},
        ProjectionExpression="id",
        Limit=min(most, PROJECT_CHUNK),
    )
    if not answer["Items"]:
        return None
    found = [get(account, int(item["id"]["N"])) for item in answer["Items"]]
    # the index lags the table: a report deleted a moment ago may still be listed
    chunk = [record for record in found if record is not None and record["project"] == project]
    if not chunk:
        return 0
    writes = [records.delete_entry(COLLECTION, record) for record in chunk]
    writes += [release for record in chunk for release in _share_release(record)]
    score = sum(record["score"] for record in chunk)
    writes.append(projects.leave(account, project, len(chunk), score, now))
    try:
        transactions.write(writes)
    except transactions.ConditionFailed:
        return 0  # one of them changed: read again
    except transactions.Contended:
        raise records.Busy() from None
    return len(chunk)
