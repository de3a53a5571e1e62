"""Projects: the hosts an account has reports of, with their mean score."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors
from sitelens.data import projects as stored_projects
from sitelens.data import reports as stored_reports
from sitelens.records import listing
from sitelens.reports import rules

if TYPE_CHECKING:
    from sitelens.reports.inputs import ProjectListQuery


def show(row: dict[str, Any]) -> dict[str, Any]:
    reports = max(int(row["reports"]), 0)
    return {
        "project": row["project"],
        "reports": reports,
        "score": round(row["score_total"] / reports) if reports else 0,
        "created_at": row["created_at"],
    }


def list_page(account_id: str, query: ProjectListQuery) -> listing.Page:
    return listing.list_page(stored_projects.COLLECTION, account_id, query, query.sort_by, show)


def every_row(account_id: str, query: ProjectListQuery) -> Iterator[dict[str, Any]]:
    """Every project of the list, in its order (an export)."""
    return listing.every_record(
        lambda token: list_page(
            account_id, query.model_copy(update={"cursor": token, "per_page": listing.EXPORT_PAGE})
        )
    )


# One request deletes at most this many of a project's reports (a few seconds, in
# transactions of up to data.reports.PROJECT_CHUNK); a project with more answers 202 and is
# finished by sending the DELETE again, which carries on where the last one stopped.
MAX_DELETED_REPORTS = 500
# ... and stops sooner after this long, should DynamoDB be slow (throttled, retried): well
# within the function's 30 s timeout.
DELETE_SECONDS = 20.0
MAX_PROJECT_LENGTH = 255  # characters: a host, as the report list's `project` filter takes
_INDEX_LAG_PAUSE = 0.05  # seconds: the index still lists reports deleted a moment ago


@dataclass(frozen=True)
class Deletion:
    """What deleting a project did: how many reports went, and whether all of them did."""

    project: str
    reports: int
    finished: bool


def delete(account_id: str, project: str) -> Deletion:
    """Delete the reports of the account's `project`, a chunk to a transaction with the
    project's row (so the row's counts stay true at every step, and a request stopped
    midway leaves a smaller project), the row with the last of them: all of them, or
    MAX_DELETED_REPORTS (not `finished`); 404 for a project the account does not have."""
    name = rules.project_name(project)
    # a name no project can have (empty, longer than any host) is looked up nowhere
    if not name or len(name) > MAX_PROJECT_LENGTH or not stored_projects.exists(account_id, name):
        raise errors.NotFound()
    deadline = time.monotonic() + DELETE_SECONDS
    deleted = 0
    while deleted < MAX_DELETED_REPORTS:
        most = MAX_DELETED_REPORTS - deleted
        done = stored_reports.delete_project_chunk(account_id, name, clock.now_iso(), most)
        if done is None:  # no report left
            if not deleted:  # the last chunk took the row; a row without reports goes here
                stored_projects.drop_if_empty(account_id, name)
            return Deletion(name, deleted, finished=True)
        deleted += done
        if time.monotonic() > deadline:
            break
        if done == 0:
            time.sleep(_INDEX_LAG_PAUSE)
    # the chunk that took the last reports took the row: then it is done
    return Deletion(name, deleted, finished=not stored_projects.exists(account_id, name))
