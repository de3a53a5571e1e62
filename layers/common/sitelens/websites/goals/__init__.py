"""A website's goals: what counts as a conversion (a custom event by name, or a pageview
of a path pattern), kept on the website's own item and read with it by the query API.

`inputs` (what a goals request may carry), `records` (list, create, change, delete); the
stored shape is read by `sitelens.analytics.warehouse.goals`, which matches rows to goals.
"""

from sitelens.websites.goals.records import create, delete, get, list_all, update

__all__ = ["create", "delete", "get", "list_all", "update"]
