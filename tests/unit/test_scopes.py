"""The rule of which records a key limited to websites and projects sees (core.scopes)."""

from __future__ import annotations

import pytest

from sitelens.core import scopes

LIMITED = scopes.Scope("read", websites=frozenset({5}), projects=frozenset({"example.com"}))


@pytest.mark.parametrize(
    ("collection", "record", "seen"),
    [
        ("websites", {"id": 5}, True),
        ("websites", {"id": 6}, False),
        ("reports", {"project": "example.com"}, True),
        ("reports", {"project_key": "7#example.com"}, True),  # a slim index entry
        ("reports", {"project": "other.com"}, False),
        ("projects", {"project": "example.com"}, True),
        ("goals", {"website_id": 5}, True),
        ("goals", {"website_id": "6"}, False),
        ("audits", {"url": "https://www.Example.com/shop"}, True),
        ("audits", {"url": "https://other.com/"}, False),
        ("audits", {"url": "not a url"}, False),
        ("anything", {"name": "no website, no project"}, False),  # fail closed
    ],
)
def test_a_limited_key_sees_only_what_it_lists(collection, record, seen):
    assert LIMITED.admits(collection, record) is seen
    assert scopes.EVERYTHING.admits(collection, record)


def test_a_key_listing_websites_only_sees_no_project():
    websites_only = scopes.Scope("write", websites=frozenset({5}))
    assert websites_only.limited and not websites_only.sees_project("example.com")
    assert websites_only.admits("websites", {"id": 5})
