"""A website's saved segments: a name and a set of the query API's filters, kept on the
website's own item beside its goals and funnels (`data.segments`), and asked of
`POST /api/v1/query`, `POST /api/v1/funnels/query` and `POST /api/v1/journeys/query` as
`["is", "segment", [id]]`, which `expanded` puts their filters in place of.

`rules` (bounds and the filters' check), `inputs` (what a segments request may carry),
`records` (list, create, change, delete, expand, find one by id).
"""

from sitelens.analytics.segments.records import (
    create,
    delete,
    expanded,
    get,
    list_all,
    named,
    update,
)

__all__ = ["create", "delete", "expanded", "get", "list_all", "named", "update"]
