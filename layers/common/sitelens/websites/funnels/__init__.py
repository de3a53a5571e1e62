"""A website's saved funnels: a name and 2 to 8 of its goals in order, kept on the
website's own item beside its goals (`data.funnels`) and asked by id of
`POST /api/v1/funnels/query` (`funnel_id`), the share dashboard and the digests.

`inputs` (what a funnels request may carry), `rules` (bounds and sentences), `records`
(list, create, change, delete).
"""

from sitelens.websites.funnels.records import create, delete, get, list_all, update

__all__ = ["create", "delete", "get", "list_all", "update"]
