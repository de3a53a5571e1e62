"""The analytics API's operations as tools: websites, statistics (Plausible's v2 query),
realtime, goals, funnels, annotations and exports. Each calls what its route's handler
calls and answers with that route's body."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict

from sitelens import websites
from sitelens.analytics import exports, queries, realtime
from sitelens.analytics.exports import ExportCreate
from sitelens.edge.mcp_server.calls import RecordId, Route, Tool, caller, page_of, shown
from sitelens.records.inputs import Input
from sitelens.websites import annotations as notes
from sitelens.websites import funnels, goals
from sitelens.websites.annotations.inputs import AnnotationCreate
from sitelens.websites.inputs import WebsiteListQuery


class OfWebsite(Input):
    """A website of the account, by its id."""

    website_id: RecordId


class ListWebsites(WebsiteListQuery):
    """`GET /api/v1/websites`'s query: a page of websites, then `cursor` for the next."""


class QueryStats(Input):
    """Plausible's Stats API v2 body, as `POST /api/v1/query` takes it (docs/query.md):
    `site_id`, `metrics`, `date_range`, and optionally `dimensions`, `filters`,
    `order_by`, `include` and `pagination`; the query checks every field itself."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)

    site_id: int | list[int]
    metrics: list[str]
    date_range: str | list[str]
    dimensions: list[str] | None = None
    filters: list[Any] | None = None
    order_by: list[Any] | None = None
    include: dict[str, Any] | None = None
    pagination: dict[str, int] | None = None


class CreateAnnotation(AnnotationCreate, OfWebsite):
    """`POST /api/v1/websites/{id}/annotations`: a date or time, a text, a link."""


class StartExport(ExportCreate, OfWebsite):
    """`POST /api/v1/websites/{id}/exports`: the raw events of `from`..`to` (UTC days)."""


class OfExport(OfWebsite):
    export_id: RecordId


def _site(fields: OfWebsite) -> dict[str, str]:
    return {"id": str(fields.website_id)}


WEBSITES = Route("GET", "/api/v1/websites")
QUERY = Route("POST", "/api/v1/query")
REALTIME = Route("GET", "/api/v1/stats/{id}/realtime")
GOALS = Route("GET", "/api/v1/websites/{id}/goals")
FUNNELS = Route("GET", "/api/v1/websites/{id}/funnels")
ANNOTATIONS = Route("GET", "/api/v1/websites/{id}/annotations")
NEW_ANNOTATION = Route("POST", "/api/v1/websites/{id}/annotations")
NEW_EXPORT = Route("POST", "/api/v1/websites/{id}/exports")
EXPORT = Route("GET", "/api/v1/websites/{id}/exports/{export_id}")


def list_websites(fields: ListWebsites) -> dict[str, Any]:
    WEBSITES.permit({})
    page = websites.list_page(caller().account_id, fields)
    return page_of(WEBSITES, {}, page)


def query_stats(fields: QueryStats) -> dict[str, Any]:
    QUERY.permit({})  # as the route's: the websites it names are read within the key's scope
    return queries.run(caller().account_id, fields.model_dump(exclude_none=True))


def realtime_visitors(fields: OfWebsite) -> dict[str, Any]:
    REALTIME.permit(_site(fields))
    return shown(realtime.now(caller().account_id, fields.website_id))


def list_goals(fields: OfWebsite) -> dict[str, Any]:
    GOALS.permit(_site(fields))
    return shown(goals.list_all(caller().account_id, fields.website_id))


def list_funnels(fields: OfWebsite) -> dict[str, Any]:
    FUNNELS.permit(_site(fields))
    return shown(funnels.list_all(caller().account_id, fields.website_id))


def list_annotations(fields: OfWebsite) -> dict[str, Any]:
    ANNOTATIONS.permit(_site(fields))
    return shown(notes.list_all(caller().account_id, fields.website_id))


def create_annotation(fields: CreateAnnotation) -> dict[str, Any]:
    NEW_ANNOTATION.permit(_site(fields))
    return shown(notes.create(caller().account_id, fields.website_id, fields), 201)


def start_export(fields: StartExport) -> dict[str, Any]:
    NEW_EXPORT.permit(_site(fields))
    return shown(exports.request_export(caller().account_id, fields.website_id, fields), 202)


def get_export(fields: OfExport) -> dict[str, Any]:
    EXPORT.permit(_site(fields))
    found = exports.get(caller().account_id, fields.website_id, fields.export_id)
    return shown(found)


READ_ONLY = {"readOnlyHint": True}
TOOLS = (
    Tool(
        "list_websites",
        "A page of the account's websites (id, domain, settings); pass `meta.next_cursor` "
        "back as `cursor` for the next page.",
        WEBSITES,
        ListWebsites,
        list_websites,
        "List websites",
        READ_ONLY,
    ),
    Tool(
        "query_stats",
        "Statistics of one or more websites with Plausible's Stats API v2 body: metrics "
        "(visitors, visits, pageviews, bounce_rate, visit_duration, events...), a date_range "
        "('day', '7d', '30d', 'month', 'year' or two ISO dates), dimensions ('visit:source', "
        "'event:page', 'time:day'...) and filters ([operator, dimension, values]).",
        QUERY,
        QueryStats,
        query_stats,
        "Query statistics",
        READ_ONLY,
    ),
    Tool(
        "realtime_visitors",
        "Visitors of a website in the last five minutes, with their pages and sources.",
        REALTIME,
        OfWebsite,
        realtime_visitors,
        "Realtime visitors",
        READ_ONLY,
    ),
    Tool("list_goals", "A website's goals.", GOALS, OfWebsite, list_goals, "List goals", READ_ONLY),
    Tool(
        "list_funnels",
        "A website's saved funnels and their steps.",
        FUNNELS,
        OfWebsite,
        list_funnels,
        "List funnels",
        READ_ONLY,
    ),
    Tool(
        "list_annotations",
        "A website's annotations (dated notes on its charts), by date.",
        ANNOTATIONS,
        OfWebsite,
        list_annotations,
        "List annotations",
        READ_ONLY,
    ),
    Tool(
        "create_annotation",
        "Add an annotation to a website: a `date` (YYYY-MM-DD, or a time), a `text`, a `link`.",
        NEW_ANNOTATION,
        CreateAnnotation,
        create_annotation,
        "Create an annotation",
    ),
    Tool(
        "start_export",
        "Export a website's raw events of `from`..`to` (UTC days) as Parquet or CSV; poll "
        "`get_export` with the returned id until it is done, for its download URL.",
        NEW_EXPORT,
        StartExport,
        start_export,
        "Start an export",
    ),
    Tool(
        "get_export",
        "An export's status, and its download URL once done.",
        EXPORT,
        OfExport,
        get_export,
        "Get an export",
        READ_ONLY,
    ),
)
