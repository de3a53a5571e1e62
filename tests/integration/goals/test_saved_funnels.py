"""Saved funnels at /api/v1/websites/{id}/funnels, through API Gateway events on moto, and
asked by `funnel_id` of POST /api/v1/funnels/query on the local DuckDB warehouse: what a
user sees (status, body) and what is stored, unhappy paths included."""

from __future__ import annotations

import pytest

from sitelens.records.inputs import MAX_NAME_LENGTH
from sitelens.websites.funnels import rules
from tests.integration.goals.test_funnels import DAY, EXPECTED, rows_of, served

pytest.importorskip("duckdb")
__all__ = ["served"]  # the local warehouse fixture


@pytest.fixture
def website(analytics):
    reply = analytics.post("/api/v1/websites", {"domain": "saved-funnels.example"})
    assert reply.status == 201
    return reply.data["id"]


@pytest.fixture
def goal_ids(analytics, website):
    base = f"/api/v1/websites/{website}/goals"
    made = [
        analytics.post(base, {"page_path": "/", "display_name": "Home"}),
        analytics.post(base, {"page_path": "/pricing", "display_name": "Pricing"}),
        analytics.post(base, {"event_name": "signup", "display_name": "Signup"}),
    ]
    return [reply.data["id"] for reply in made]


def test_funnels_are_created_listed_changed_and_deleted(analytics, website, goal_ids):
    base = f"/api/v1/websites/{website}/funnels"
    assert analytics.get(base).body == {"data": [], "status": 200}
    made = analytics.post(base, json_body={"name": "Sign-up", "steps": goal_ids})
    assert made.status == 201, made.body
    assert (made.data["name"], made.data["steps"], made.data["website_id"]) == (
        "Sign-up",
        goal_ids,
        website,
    )
    # a form gives the steps as comma-separated ids
    short = analytics.post(base, {"name": "Short", "steps": f"{goal_ids[0]},{goal_ids[2]}"})
    assert short.status == 201, short.body
    assert short.data["steps"] == [goal_ids[0], goal_ids[2]]
    assert [f["name"] for f in analytics.get(base).data] == ["Sign-up", "Short"]
    assert analytics.get(f"{base}/{made.data['id']}").data == made.data
    renamed = analytics.patch(f"{base}/{made.data['id']}", json_body={"name": "Signups"})
    assert renamed.status == 200
    assert (renamed.data["name"], renamed.data["steps"]) == ("Signups", goal_ids)
    reordered = analytics.put(f"{base}/{made.data['id']}", json_body={"steps": goal_ids[::-1]})
    assert reordered.data["steps"] == goal_ids[::-1]
    gone = analytics.delete(f"{base}/{short.data['id']}")
    assert gone.body == {"id": short.data["id"], "object": "funnel", "deleted": True, "status": 200}
    assert [f["id"] for f in analytics.get(base).data] == [made.data["id"]]
    assert analytics.get(f"{base}/{short.data['id']}").status == 404
    assert analytics.get(f"{base}/abc").status == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "F"}, "steps"),
        ({"steps": "GOALS"}, "name"),
        ({"name": "", "steps": "GOALS"}, "name"),
        ({"name": " ", "steps": "GOALS"}, "name"),
        ({"name": "x" * (MAX_NAME_LENGTH + 1), "steps": "GOALS"}, "name"),
        ({"name": "F", "steps": [1]}, "steps"),
        ({"name": "F", "steps": list(range(1, 10))}, "steps"),
        ({"name": "F", "steps": [1, 1]}, "steps"),
        ({"name": "F", "steps": [1, "x"]}, "steps"),
        ({"name": "F", "steps": [1, True]}, "steps"),
        ({"name": "F", "steps": [1, 999]}, "steps"),  # no such goal of the website
    ],
)
def test_a_bad_funnel_is_422_and_changes_nothing(analytics, website, goal_ids, body, field):
    base = f"/api/v1/websites/{website}/funnels"
    body = {key: goal_ids if value == "GOALS" else value for key, value in body.items()}
    reply = analytics.post(base, json_body=body)
    assert reply.status == 422, reply.body
    assert list(reply.body["message"]) == [field]
    assert analytics.get(base).data == []


def test_names_are_unique_and_a_website_has_at_most_ten(analytics, website, goal_ids):
    base = f"/api/v1/websites/{website}/funnels"
    for n in range(rules.MAX_FUNNELS):
        assert analytics.post(base, json_body={"name": f"F{n}", "steps": goal_ids}).status == 201
    again = analytics.post(base, json_body={"name": "F0", "steps": goal_ids})
    assert again.body["message"] == {"funnels": [rules.TOO_MANY]}
    first = analytics.get(base).data[0]["id"]
    taken = analytics.patch(f"{base}/{first}", json_body={"name": "F1"})
    assert taken.body["message"] == {"name": [rules.NAME_TAKEN]}
    assert analytics.patch(f"{base}/{first}", json_body={}).status == 422
    assert len(analytics.get(base).data) == rules.MAX_FUNNELS


def test_another_website_s_goal_and_another_account_s_website(
    analytics, other_analytics, website, goal_ids
):
    other_site = analytics.post("/api/v1/websites", {"domain": "other-site.example"}).data["id"]
    theirs = analytics.post(f"/api/v1/websites/{other_site}/goals", {"event_name": "x"}).data["id"]
    base = f"/api/v1/websites/{website}/funnels"
    mixed = analytics.post(base, json_body={"name": "F", "steps": [goal_ids[0], theirs]})
    assert mixed.status == 422
    made = analytics.post(base, json_body={"name": "F", "steps": goal_ids}).data
    for call in (
        lambda: other_analytics.get(base),
        lambda: other_analytics.get(f"{base}/{made['id']}"),
        lambda: other_analytics.post(base, json_body={"name": "G", "steps": goal_ids}),
        lambda: other_analytics.patch(f"{base}/{made['id']}", json_body={"name": "G"}),
        lambda: other_analytics.delete(f"{base}/{made['id']}"),
    ):
        assert call().status == 404
    assert analytics.get(f"{base}/{made['id']}").data == made
    assert analytics.get(base, key=None).status == 401


def test_a_saved_funnel_answers_as_its_steps_do(analytics, website, goal_ids, served):
    served.write(rows_of(website))
    base = f"/api/v1/websites/{website}/funnels"
    saved = analytics.post(base, json_body={"name": "Sign-up", "steps": goal_ids}).data
    by_id = {"site_id": website, "date_range": [DAY, DAY], "funnel_id": saved["id"]}
    reply = analytics.post("/api/v1/funnels/query", json_body=by_id)
    assert reply.status == 200, reply.body
    assert {k: reply.body[k] for k in ("steps", "meta")} == EXPECTED
    by_names = {**by_id, "steps": ["Home", "Pricing", "Signup"]}
    del by_names["funnel_id"]
    assert (
        analytics.post("/api/v1/funnels/query", json_body=by_names).body["steps"]
        == (reply.body["steps"])
    )
    for wrong, field in (
        ({**by_id, "steps": ["Home", "Pricing"]}, "steps"),
        ({**by_id, "funnel_id": saved["id"] + 1}, "funnel_id"),
        ({**by_id, "funnel_id": "1"}, "funnel_id"),
        ({**by_id, "site_id": [website, website + 1]}, "site_id"),
    ):
        refused = analytics.post("/api/v1/funnels/query", json_body=wrong)
        assert refused.status in (404, 422), refused.body
        if refused.status == 422:
            assert list(refused.body["message"]) == [field]
    # a goal deleted under a saved funnel: the funnel stays, and asking it says which step
    assert analytics.delete(f"/api/v1/websites/{website}/goals/{goal_ids[1]}").status == 200
    assert analytics.get(f"{base}/{saved['id']}").data["steps"] == goal_ids
    gone = analytics.post("/api/v1/funnels/query", json_body=by_id)
    assert gone.status == 422
    assert "Step 2" in gone.body["message"]["funnel_id"][0]


def test_scoped_keys(analytics, website, goal_ids):
    """A key limited to another website sees none of these funnels (and may not create one:
    403, as every create outside a key's scope); a read key lists them but writes none."""
    base = f"/api/v1/websites/{website}/funnels"
    made = analytics.post(base, json_body={"name": "F", "steps": goal_ids}).data
    other = analytics.post("/api/v1/websites", {"domain": "elsewhere.example"}).data["id"]
    limited = analytics.post("/api/v1/keys", {"name": "k", "websites": str(other)}).data["key"]
    assert analytics.get(base, key=limited).status == 404
    assert analytics.get(f"{base}/{made['id']}", key=limited).status == 404
    assert (
        analytics.post(base, json_body={"name": "G", "steps": goal_ids}, key=limited).status == 403
    )
    reader = analytics.post("/api/v1/keys", {"name": "r", "access": "read"}).data["key"]
    assert analytics.get(base, key=reader).data == [made]
    for reply in (
        analytics.post(base, json_body={"name": "G", "steps": goal_ids}, key=reader),
        analytics.patch(f"{base}/{made['id']}", json_body={"name": "G"}, key=reader),
        analytics.delete(f"{base}/{made['id']}", key=reader),
    ):
        assert reply.status == 403, reply.body
    assert analytics.get(base).data == [made]
