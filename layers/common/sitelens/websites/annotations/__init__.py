"""A website's annotations: marks on its timeline (a deploy, a campaign, an outage), each a
date or a moment, a text and an optional link, returned with the query API's time series.

`inputs` (what a request may carry), `rules` (their bounds), `records` (the operations);
storage is `sitelens.data.annotations`.
"""

from sitelens.websites.annotations.records import create, delete, get, list_all, update

__all__ = ["create", "delete", "get", "list_all", "update"]
