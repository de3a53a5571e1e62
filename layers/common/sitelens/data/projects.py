"""Projects: a row per account and host with how many reports it has and their score total,
kept in the same transaction as every report write (see `data.reports`)."""

from __future__ import annotations

import contextlib

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data import transactions
from sitelens.data.clients import client
from sitelens.data.items import Write
from sitelens.data.records import Collection


def created_sort(created_at: str, project: str) -> str:
    """The projects' `created_at` order: by date, then by name (project names are short)."""
    return f"{created_at}#{project}"


COLLECTION = Collection(
    name="projects",
    table=lambda: settings().projects_table,
    orders={"created_at": lambda p: created_sort(p["created_at"], p["project"])},
    key="project",
)


def change(account: str, project: str, reports: int, score: int, now: str) -> Write:
    """A transaction entry adding `reports` and `score` to a project (created if new)."""
    return {
        "Update": {
            "TableName": settings().projects_table,
            "Key": {"account": {"S": account}, "project": {"S": project}},
            "UpdateExpression": (
                "ADD reports :r, score_total :s "
                "SET created_at = if_not_exists(created_at, :now), "
                "created_at_sort = if_not_exists(created_at_sort, :sort), "
                "#search = :project"
            ),
            "ExpressionAttributeNames": {"#search": "search"},
            "ExpressionAttributeValues": {
                ":r": {"N": str(reports)},
                ":s": {"N": str(score)},
                ":now": {"S": now},
                ":sort": {"S": created_sort(now, project)},
                ":project": {"S": project},
            },
        }
    }


def leave(account: str, project: str, reports: int, score: int, now: str) -> Write:
    """A transaction entry taking `reports` reports and their `score` out of a project: the
    row's deletion when they are all it has, else `change`, each on the condition that the
    row still says so (read now, consistently). When another write changed the row in
    between, the transaction fails its condition and the caller reads again: the row
    never stays behind empty, and never goes while it has reports."""
    key = {"account": {"S": account}, "project": {"S": project}}
    row = (
        client("dynamodb")
        .get_item(TableName=settings().projects_table, Key=key, ConsistentRead=True)
        .get("Item")
    )
    held = int(row["reports"]["N"]) if row and "reports" in row else 0
    if held <= reports:
        return {
            "Delete": {
                "TableName": settings().projects_table,
                "Key": key,
                "ConditionExpression": "attribute_not_exists(reports) OR reports <= :n",
                "ExpressionAttributeValues": {":n": {"N": str(reports)}},
            }
        }
    entry = change(account, project, -reports, -score, now)
    entry["Update"]["ConditionExpression"] = "reports > :n"
    entry["Update"]["ExpressionAttributeValues"][":n"] = {"N": str(reports)}
    return entry


def exists(account: str, project: str) -> bool:
    """Whether the account has the project (with reports), within the scope."""
    if not scopes.admits("projects", {"project": project}):
        return False
    answer = client("dynamodb").get_item(
        TableName=settings().projects_table,
        Key={"account": {"S": account}, "project": {"S": project}},
        ConsistentRead=True,
    )
    return "Item" in answer


def drop_if_empty(account: str, project: str) -> None:
    """Remove a project row left with no reports (nothing happens while it has reports);
    report writes take a row out with their last report (`leave`), so only a row without
    reports from before that needs this."""
    # a report transaction holding the row (a TransactionConflict) is retried by `write`
    delete: Write = {
        "Delete": {
            "TableName": settings().projects_table,
            "Key": {"account": {"S": account}, "project": {"S": project}},
            "ConditionExpression": "reports <= :zero",
            "ExpressionAttributeValues": {":zero": {"N": "0"}},
        }
    }
    with contextlib.suppress(transactions.ConditionFailed):  # it has reports: kept
        transactions.write([delete])
