"""Saved segments at /api/v1/websites/{id}/segments, through API Gateway events on moto,
and asked as `["is", "segment", [id]]` of POST /api/v1/query, /api/v1/funnels/query and
/api/v1/journeys/query on the local DuckDB warehouse: what a user sees (status, body) and
what is stored, unhappy paths included."""

from __future__ import annotations

import pytest

from sitelens.analytics.segments import rules
from sitelens.analytics.warehouse import filters
from sitelens.records.inputs import MAX_NAME_LENGTH
from tests.integration.analytics.test_warehouse import DAY
from tests.integration.goals.test_funnels import served
from tests.integration.journeys.test_journeys import visits_of

pytest.importorskip("duckdb")
__all__ = ["served"]  # the local warehouse fixture

GOOGLE = [["is", "visit:source", ["Google"]]]
PAGES = [["or", [["contains", "event:page", ["pric"]], ["is", "event:page", ["/blog"]]]]]


@pytest.fixture
def website(analytics):
    reply = analytics.post("/api/v1/websites", {"domain": "segments.example"})
    assert reply.status == 201
    return reply.data["id"]


def test_segments_are_created_listed_changed_and_deleted(analytics, website):
    base = f"/api/v1/websites/{website}/segments"
    assert analytics.get(base).body == {"data": [], "status": 200}
    made = analytics.post(base, json_body={"name": "From Google", "filters": GOOGLE})
    assert made.status == 201, made.body
    assert (made.data["name"], made.data["filters"], made.data["website_id"]) == (
        "From Google",
        GOOGLE,
        website,
    )
    # a form gives the filters as JSON text
    form = analytics.post(
        base,
        {
            "name": "Pricing or blog",
            "filters": '[["or", [["contains",'
            ' "event:page", ["pric"]], ["is", "event:page", ["/blog"]]]]]',
        },
    )
    assert form.status == 201, form.body
    assert form.data["filters"] == PAGES
    assert [s["name"] for s in analytics.get(base).data] == ["From Google", "Pricing or blog"]
    assert analytics.get(f"{base}/{made.data['id']}").data == made.data
    renamed = analytics.patch(f"{base}/{made.data['id']}", json_body={"name": "Google"})
    assert (renamed.status, renamed.data["name"], renamed.data["filters"]) == (
        200,
        "Google",
        GOOGLE,
    )
    changed = analytics.put(f"{base}/{made.data['id']}", json_body={"filters": PAGES})
    assert changed.data["filters"] == PAGES
    gone = analytics.delete(f"{base}/{form.data['id']}")
    assert gone.body == {"id": form.data["id"], "object": "segment", "deleted": True, "status": 200}
    assert [s["id"] for s in analytics.get(base).data] == [made.data["id"]]
    assert analytics.get(f"{base}/{form.data['id']}").status == 404
    assert analytics.delete(f"{base}/{form.data['id']}").status == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "S"}, "filters"),
        ({"filters": GOOGLE}, "name"),
        ({"name": " ", "filters": GOOGLE}, "name"),
        ({"name": "x" * (MAX_NAME_LENGTH + 1), "filters": GOOGLE}, "name"),
        ({"name": "S", "filters": []}, "filters"),
        ({"name": "S", "filters": "not json"}, "filters"),
        ({"name": "S", "filters": [["is", "visit:nope", ["x"]]]}, "filters"),
        ({"name": "S", "filters": [["equals", "event:page", ["/"]]]}, "filters"),
        ({"name": "S", "filters": [["matches", "event:page", ["(?=x)"]]]}, "filters"),
        ({"name": "S", "filters": [["is", "event:page", ["/"]]] * 21}, "filters"),
        ({"name": "S", "filters": [["is", "segment", [1]]]}, "filters"),  # no nesting
        ({"name": "S", "filters": [["is", "event:page", ["/" + "x" * 999] * 5]]}, "filters"),
    ],
)
def test_a_bad_segment_is_422_and_changes_nothing(analytics, website, body, field):
    base = f"/api/v1/websites/{website}/segments"
    reply = analytics.post(base, json_body=body)
    assert reply.status == 422, reply.body
    assert list(reply.body["message"]) == [field]
    assert analytics.get(base).data == []


def test_names_are_unique_and_a_website_has_at_most_twenty(analytics, website):
    base = f"/api/v1/websites/{website}/segments"
    for n in range(rules.MAX_SEGMENTS):
        assert analytics.post(base, json_body={"name": f"S{n}", "filters": GOOGLE}).status == 201
    again = analytics.post(base, json_body={"name": "S0", "filters": GOOGLE})
    assert again.body["message"] == {"segments": [rules.TOO_MANY]}
    first = analytics.get(base).data[0]["id"]
    taken = analytics.patch(f"{base}/{first}", json_body={"name": "S1"})
    assert taken.body["message"] == {"name": [rules.NAME_TAKEN]}
    assert analytics.patch(f"{base}/{first}", json_body={}).status == 422
    assert len(analytics.get(base).data) == rules.MAX_SEGMENTS


def test_another_account_reaches_no_segment(analytics, other_analytics, website):
    base = f"/api/v1/websites/{website}/segments"
    made = analytics.post(base, json_body={"name": "S", "filters": GOOGLE}).data
    for call in (
        lambda: other_analytics.get(base),
        lambda: other_analytics.get(f"{base}/{made['id']}"),
        lambda: other_analytics.post(base, json_body={"name": "T", "filters": GOOGLE}),
        lambda: other_analytics.patch(f"{base}/{made['id']}", json_body={"name": "T"}),
        lambda: other_analytics.delete(f"{base}/{made['id']}"),
    ):
        assert call().status == 404
    assert analytics.get(f"{base}/{made['id']}").data == made
    assert analytics.get(base, key=None).status == 401


def _results(reply) -> list:
    assert reply.status == 200, reply.body
    return reply.body["results"]


def test_a_query_with_a_segment_answers_as_with_its_filters(analytics, website, served):
    served.write(visits_of(website))
    base = f"/api/v1/websites/{website}/segments"
    google = analytics.post(base, json_body={"name": "Google", "filters": GOOGLE}).data["id"]
    pages = analytics.post(base, json_body={"name": "Pages", "filters": PAGES}).data["id"]
    question = {
        "site_id": website,
        "date_range": [DAY, DAY],
        "metrics": ["visitors", "visits", "pageviews", "bounce_rate"],
        "dimensions": ["event:page"],
    }
    for segment, stored in ((google, GOOGLE), (pages, PAGES)):
        by_segment = {**question, "filters": [["is", "segment", [segment]]]}
        by_filters = {**question, "filters": stored}
        found = _results(analytics.post("/api/v1/query", json_body=by_segment))
        assert found == _results(analytics.post("/api/v1/query", json_body=by_filters))
        assert found  # a question with an answer
    # beside other filters (and), its id as digits too
    both = {**question, "filters": [["is", "segment", [str(pages)]], *GOOGLE]}
    expected = {**question, "filters": [*PAGES, *GOOGLE]}
    reply = analytics.post("/api/v1/query", json_body=both)
    assert _results(reply) == _results(analytics.post("/api/v1/query", json_body=expected))
    assert reply.body["query"]["filters"] == both["filters"]  # echoed as asked
    # journeys and funnels take segments too
    journey = {"site_id": website, "date_range": [DAY, DAY], "journey": "paths"}
    segmented = {**journey, "filters": [["is", "segment", [google]]]}
    paths = _results(analytics.post("/api/v1/journeys/query", json_body=segmented))
    assert [(r["path"], r["visits"]) for r in paths] == [(["/", "/pricing", "/signup"], 1)]


def test_a_segment_of_another_website_or_account_is_refused(
    analytics, other_analytics, website, served
):
    served.write(visits_of(website))
    mine = analytics.post(
        f"/api/v1/websites/{website}/segments", json_body={"name": "S", "filters": GOOGLE}
    ).data["id"]
    other_site = analytics.post("/api/v1/websites", {"domain": "other.example"}).data["id"]
    theirs_site = other_analytics.post("/api/v1/websites", {"domain": "theirs.example"}).data["id"]
    theirs_base = f"/api/v1/websites/{theirs_site}/segments"
    # ids count per website: their second segment has an id no segment of mine has
    other_analytics.post(theirs_base, json_body={"name": "T", "filters": GOOGLE})
    theirs = other_analytics.post(theirs_base, json_body={"name": "U", "filters": GOOGLE})
    theirs = theirs.data["id"]
    question = {"site_id": website, "date_range": [DAY, DAY], "metrics": ["visitors"]}
    for site, segment in ((other_site, mine), (website, theirs), (website, mine + 99)):
        body = {**question, "site_id": site, "filters": [["is", "segment", [segment]]]}
        refused = analytics.post("/api/v1/query", json_body=body)
        assert refused.status == 422, refused.body
        assert refused.body["message"] == {"filters": [rules.NOT_SAVED.format(id=segment)]}
    # their website with my segment: their website is not mine to ask
    mixed = {**question, "site_id": theirs_site, "filters": [["is", "segment", [mine]]]}
    assert analytics.post("/api/v1/query", json_body=mixed).status == 404
    for wrong in (
        [["is_not", "segment", [mine]]],
        [["not", ["is", "segment", [mine]]]],
        [["is", "segment", [mine, mine]]],
        [["is", "segment", ["x"]]],
        [["is", "segment", [True]]],
        [["is", "segment", mine]],
    ):
        refused = analytics.post("/api/v1/query", json_body={**question, "filters": wrong})
        assert refused.status == 422, (wrong, refused.body)
        assert list(refused.body["message"]) == ["filters"]


def test_a_segment_counts_in_the_query_s_bound_of_filters(analytics, website, served):
    many = [["is", "event:page", [f"/{n}"]] for n in range(filters.MAX_CONDITIONS)]
    segment = analytics.post(
        f"/api/v1/websites/{website}/segments", json_body={"name": "Many", "filters": many}
    ).data["id"]
    question = {"site_id": website, "date_range": [DAY, DAY], "metrics": ["visitors"]}
    alone = {**question, "filters": [["is", "segment", [segment]]]}
    assert analytics.post("/api/v1/query", json_body=alone).status == 200
    more = {**question, "filters": [["is", "segment", [segment]], *GOOGLE]}
    refused = analytics.post("/api/v1/query", json_body=more)
    assert refused.body["message"] == {"filters": [f"At most {filters.MAX_CONDITIONS} filters."]}


def test_a_funnel_with_a_segment_answers_as_with_its_filters(analytics, website, served):
    from tests.integration.goals.test_funnels import rows_of

    served.write(rows_of(website))
    goals = f"/api/v1/websites/{website}/goals"
    analytics.post(goals, {"page_path": "/", "display_name": "Home"})
    analytics.post(goals, {"page_path": "/pricing", "display_name": "Pricing"})
    segment = analytics.post(
        f"/api/v1/websites/{website}/segments", json_body={"name": "G", "filters": GOOGLE}
    ).data["id"]
    body = {"site_id": website, "date_range": [DAY, DAY], "steps": ["Home", "Pricing"]}
    by_segment = {**body, "filters": [["is", "segment", [segment]]]}
    found = analytics.post("/api/v1/funnels/query", json_body=by_segment)
    assert found.status == 200, found.body
    assert [step["visitors"] for step in found.body["steps"]] == [1, 1]  # a, from Google
    written = analytics.post("/api/v1/funnels/query", json_body={**body, "filters": GOOGLE})
    assert found.body["steps"] == written.body["steps"]
