"""DELETE /api/v1/projects/{project}: every report of the account's project goes, 49 to a
transaction with their share ids' claims and the project's row, then the row; other
projects and accounts stay; a request stopped midway leaves a consistent, smaller project
that a repeat finishes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitelens.core import clock, errors
from sitelens.data import projects as stored_projects
from sitelens.data import reports as stored_reports
from sitelens.data import transactions
from sitelens.reports import projects
from sitelens.sharing import links
from tests.fixtures import lists

CHUNK = stored_reports.PROJECT_CHUNK


def add_reports(account: str, project: str, count: int, score: int = 80) -> list[int]:
    """Reports stored as a generation stores them (no page fetched)."""
    ids = []
    for _ in range(count):
        now = clock.now_iso()
        record = {
            "account": account,
            "id": stored_reports.allocate_id(),
            "share_id": links.new_share_id(),
            "url": f"https://{project}/page",
            "search": f"https://{project}/page",
            "project": project,
            "results": json.dumps({}),
            "score": score,
            "result": "good",
            "generated_at": now,
            "privacy": 0,
            "created_at": now,
            "updated_at": now,
        }
        ids.append(stored_reports.create_with_project(record)["id"])
    return ids


def project_rows(seo: Any) -> dict[str, dict[str, Any]]:
    reply = seo.get("/api/v1/projects", query={"per_page": 100})
    assert reply.status == 200
    return {row["project"]: row for row in reply.data}


def report_count(seo: Any, project: str) -> int:
    total, cursor = 0, None
    while True:
        query = {"project": project, "per_page": 100, **({"cursor": cursor} if cursor else {})}
        reply = seo.get("/api/v1/reports", query=query)
        assert reply.status == 200
        total += len(reply.data)
        cursor = reply.body["meta"]["next_cursor"]
        if cursor is None:
            return total


def test_a_project_of_many_reports_is_deleted_whole(seo, account, other_account, other_seo):
    add_reports(account.id, "example.com", 150)
    add_reports(account.id, "keep.example", 3)
    add_reports(other_account.id, "example.com", 2)
    reply = seo.delete("/api/v1/projects/example.com")
    assert reply.status == 200
    assert reply.body == {
        "id": "example.com",
        "object": "project",
        "deleted": True,
        "reports": 150,
        "status": 200,
    }
    assert report_count(seo, "example.com") == 0
    rows = project_rows(seo)
    assert "example.com" not in rows
    assert rows["keep.example"]["reports"] == 3
    assert report_count(seo, "keep.example") == 3
    # another account's project of the same name is untouched
    assert project_rows(other_seo)["example.com"]["reports"] == 2
    assert seo.delete("/api/v1/projects/example.com").body == {
        "message": "Resource not found.",
        "status": 404,
    }


def test_a_project_the_account_does_not_have_is_404(seo, other_account):
    add_reports(other_account.id, "theirs.example", 1)
    for project in ("theirs.example", "nothing.example", "%20", "x" * 300, "%C2%91O%F1%BE" * 90):
        reply = seo.delete(f"/api/v1/projects/{project}")
        assert (reply.status, reply.body["message"]) == (404, "Resource not found.")


def test_the_project_is_named_as_lists_name_it(seo, account):
    add_reports(account.id, "example.com", 2)
    assert seo.delete("/api/v1/projects/WWW.Example.COM").status == 200
    assert "example.com" not in project_rows(seo)


def test_a_large_project_is_finished_by_repeating_the_delete(seo, account, monkeypatch):
    monkeypatch.setattr(projects, "DELETE_SECONDS", 0.0)  # one transaction per request
    add_reports(account.id, "example.com", CHUNK + 40, score=70)
    first = seo.delete("/api/v1/projects/example.com")
    assert (first.status, first.body["deleted"], first.body["reports"]) == (202, False, CHUNK)
    row = project_rows(seo)["example.com"]
    assert (row["reports"], row["score"]) == (40, 70)  # the row counts what is left
    second = seo.delete("/api/v1/projects/example.com")
    # out of time again, but the last 40 took the row with them: finished
    assert (second.status, second.body["deleted"], second.body["reports"]) == (200, True, 40)
    assert "example.com" not in project_rows(seo)
    assert seo.delete("/api/v1/projects/example.com").status == 404


@pytest.fixture
def transactions_written(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each transaction written from now on."""
    real_write = transactions.write
    written: list[int] = []

    def counted(writes: Any) -> None:
        real_write(writes)
        written.append(len(writes))

    monkeypatch.setattr(transactions, "write", counted)
    return written


def test_a_delete_is_bounded_and_the_next_one_carries_on(
    seo, account, monkeypatch, transactions_written
):
    """A request deletes MAX_DELETED_REPORTS (500; 60 here) at most, then answers 202;
    the next one carries on, reading and writing none of the deleted reports again."""
    monkeypatch.setattr(projects, "MAX_DELETED_REPORTS", 60)
    lists.stored_reports(account.id, "example.com", 70)
    lists.stored_reports(account.id, "keep.example", 2)
    transactions_written.clear()
    first = seo.delete("/api/v1/projects/example.com")
    assert first.body == {
        "id": "example.com",
        "object": "project",
        "deleted": False,
        "reports": 60,
        "status": 202,
    }
    # a whole chunk, then the 11 that reach the bound, each with the project's row
    assert [size - 1 for size in transactions_written] == [CHUNK, 60 - CHUNK]
    assert project_rows(seo)["example.com"]["reports"] == report_count(seo, "example.com") == 10
    transactions_written.clear()
    second = seo.delete("/api/v1/projects/example.com")
    assert (second.status, second.body["deleted"], second.body["reports"]) == (200, True, 10)
    assert [size - 1 for size in transactions_written] == [10]
    assert report_count(seo, "example.com") == 0
    assert list(project_rows(seo)) == ["keep.example"]
    assert seo.delete("/api/v1/projects/example.com").status == 404


@pytest.mark.slow  # over 2 s: make test-slow
def test_the_delete_bound_on_dynamodb_local(dynamodb_local_env, transactions_written, monkeypatch):
    """At the real bound, on real DynamoDB semantics (index lag included)."""
    monkeypatch.setattr(projects, "DELETE_SECONDS", 600.0)  # a loaded machine is no cut
    lists.stored_reports("7", "example.com", projects.MAX_DELETED_REPORTS + 5)
    transactions_written.clear()
    first = projects.delete("7", "example.com")
    assert (first.reports, first.finished) == (projects.MAX_DELETED_REPORTS, False)
    assert sum(size - 1 for size in transactions_written) == projects.MAX_DELETED_REPORTS
    assert stored_projects.exists("7", "example.com")
    second = projects.delete("7", "example.com")
    assert (second.reports, second.finished) == (5, True)
    assert not stored_projects.exists("7", "example.com")


def test_a_delete_stopped_midway_leaves_a_consistent_project(seo, account, monkeypatch):
    add_reports(account.id, "example.com", CHUNK + 21, score=90)
    real_write = transactions.write
    calls = []

    def dies_on_the_second_transaction(writes: Any) -> None:
        calls.append(len(writes))
        if len(calls) == 2:
            raise RuntimeError("the function was stopped here")
        real_write(writes)

    monkeypatch.setattr(transactions, "write", dies_on_the_second_transaction)
    assert seo.delete("/api/v1/projects/example.com").status == 500
    monkeypatch.setattr(transactions, "write", real_write)
    row = project_rows(seo)["example.com"]
    assert row["reports"] == report_count(seo, "example.com") == 21
    finished = seo.delete("/api/v1/projects/example.com")
    assert (finished.status, finished.body["reports"]) == (200, 21)
    assert report_count(seo, "example.com") == 0
    assert not stored_projects.exists(account.id, "example.com")


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_on_dynamodb_local(dynamodb_local_env):
    """Real DynamoDB semantics: transactions of 100 writes, index lag, conditions."""
    add_reports("7", "example.com", 105, score=60)
    add_reports("7", "keep.example", 1)
    deletion = projects.delete("7", "example.com")
    assert (deletion.reports, deletion.finished) == (105, True)
    assert not stored_projects.exists("7", "example.com")
    assert stored_projects.exists("7", "keep.example")
    with pytest.raises(errors.NotFound):
        projects.delete("7", "example.com")
