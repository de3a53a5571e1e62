"""422 messages repeat at most a short prefix of what the caller sent (`errors.echoed`)."""

from __future__ import annotations

import pytest

from sitelens.core.errors import MAX_ECHOED, echoed

JUNK = "z" * 2_000  # one line, invalid for every field; every field of a body at once fits
LONG_LINE = "z" * 60_000  # one line nearly as long as a body may be
# every field of every operation that takes input: (API, method, path, fields)
OPERATIONS = [
    ("analytics", "POST", "/api/v1/websites", ["domain", "privacy", "password", "email",
     "exclude_bots", "exclude_params", "exclude_ips"]),
    ("analytics", "PUT", "/api/v1/websites/1", ["privacy", "password", "email", "exclude_bots",
     "exclude_params", "exclude_ips", "favorite"]),
    ("analytics", "GET", "/api/v1/websites", ["search", "search_by", "favorite", "sort_by",
     "sort", "per_page", "cursor"]),
    ("analytics", "GET", "/api/v1/stats/1", ["name", "from", "to", "search", "sort_by", "sort",
     "per_page", "cursor"]),
    ("analytics", "POST", "/api/event", ["page"]),
    ("seo", "POST", "/api/v1/reports", ["url", "privacy", "password"]),
    ("seo", "PUT", "/api/v1/reports/1", ["privacy", "password", "results"]),
    ("seo", "GET", "/api/v1/reports", ["search", "search_by", "result", "project", "sort_by",
     "sort", "per_page", "cursor"]),
    ("seo", "GET", "/api/v1/projects", ["search", "search_by", "sort_by", "sort", "per_page",
     "cursor"]),
]  # fmt: skip


def test_echoed_keeps_short_input_and_cuts_long_input():
    assert echoed("x" * MAX_ECHOED) == "x" * MAX_ECHOED
    assert echoed("x" * (MAX_ECHOED + 1)) == "x" * (MAX_ECHOED - 1) + "…"


@pytest.mark.parametrize(("field", "sentence"), [
    ("exclude_ips", "is not a valid IP address or CIDR range."),
    ("exclude_params", "is not a valid query parameter name."),
])  # fmt: skip
def test_a_bad_line_is_quoted_by_its_first_100_characters(analytics, field, sentence):
    reply = analytics.post(
        "/api/v1/websites", {"domain": "example.com", field: f"203.0.113.7\n{LONG_LINE}/x\nfbclid"}
    )
    assert reply.status == 422
    assert reply.body["message"] == {field: ["z" * 99 + "… " + sentence]}


@pytest.mark.parametrize(("api", "method", "path", "fields"), OPERATIONS)
@pytest.mark.parametrize("shape", ["form", "json list", "json object"])
def test_no_message_repeats_more_than_100_characters_of_input(
    analytics, seo, api, method, path, fields, shape
):
    client = {"analytics": analytics, "seo": seo}[api]
    sent: dict = {
        "form": dict.fromkeys(fields, JUNK),
        "json list": {field: [JUNK, JUNK] for field in fields},
        "json object": {field: {JUNK: JUNK} for field in fields},
    }[shape]
    key = None if path == "/api/event" else "default"
    if method == "GET":
        if shape != "form":
            return  # a query string carries text only
        reply = client.request(method, path, query=sent, key=key)
    elif shape == "form":
        reply = client.request(method, path, form=sent, key=key)
    else:
        reply = client.request(method, path, json_body=sent, key=key)
    assert reply.status == 422, reply.body
    for sentences in reply.body["message"].values():
        for sentence in sentences:
            # the input (all "z") is echoed at most MAX_ECHOED characters, in one place; a
            # sentence may be long for its own words (the list of allowed values)
            assert "z" * (MAX_ECHOED + 1) not in sentence
            assert sentence.count("z") <= MAX_ECHOED + 1
