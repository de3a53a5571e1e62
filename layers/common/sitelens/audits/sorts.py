"""The orders a run's pages list may be sorted in (`sort=<name>:<asc|desc>`), each a
column of the list and the page's field it sorts by; the analysis stores each order
(`audits.columns`) and the list reads them (`audits.results`)."""

from __future__ import annotations

# sort name -> the field of the page (link_score and inlinks: the analysis's, not stored)
SORTS = {
    "response_time": "response_time_ms",
    "word_count": "words",
    "depth": "found_depth",
    "inlinks": "inlinks",
    "link_score": "link_score",
}
WAYS = ("asc", "desc")
NAMES = tuple(f"{name}:{way}" for name in SORTS for way in WAYS)  # what `sort` may be
URL_ORDER = "url"  # the list's own order, with each page's link score and inlinks
