"""What a reports or projects request may carry: create, update and list inputs."""

from __future__ import annotations

from typing import Annotated, ClassVar

from sitelens.records.inputs import (
    Exportable,
    Flag,
    ListQuery,
    PrivacyFields,
    SearchText,
    WebUrl,
    choice,
)
from sitelens.reports import rules

Url = WebUrl


class ReportCreate(PrivacyFields):
    url: Url


class ReportUpdate(PrivacyFields):
    results: Flag | None = None


class ReportListQuery(ListQuery, Exportable):
    search_by: Annotated[str, choice("url")] = "url"
    result: Annotated[str, choice(*rules.RESULTS)] | None = None
    project: SearchText | None = None
    sort_by: Annotated[str, choice("id", "generated_at", "url", "result")] = "id"

    # `result` first: its index is the denser of the two when both are given.
    filter_fields: ClassVar[tuple[str, ...]] = ("result", "project")

    def filters(self) -> dict[str, str]:
        found = super().filters()
        if "project" in found:
            found["project"] = rules.project_name(found["project"])
        return found


class ProjectListQuery(ListQuery, Exportable):
    search_by: Annotated[str, choice("project")] = "project"
    sort_by: Annotated[str, choice("project", "created_at")] = "created_at"
