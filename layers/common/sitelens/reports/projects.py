"""Projects: the hosts an account has reports of, with their mean score."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sitelens import listing
from sitelens.data import projects as stored_projects

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
