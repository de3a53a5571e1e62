"""Websites: the analytics collection's records and the rules of their fields.

`inputs` (what a request may carry), `rules` (domain, IP and parameter rules) and
`records` (the operations below); storage is `sitelens.data.websites`, counting is
`sitelens.analytics`.
"""

from sitelens.websites.records import create, delete, get, list_page, show, stored, update

__all__ = ["create", "delete", "get", "list_page", "show", "stored", "update"]
