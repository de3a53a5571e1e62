"""Goals CRUD at /api/v1/websites/{id}/goals, through API Gateway events on moto: what a
user sees (status, body) and what is stored, unhappy paths included."""

from __future__ import annotations

import pytest

from sitelens.websites.goals import rules


@pytest.fixture
def website(analytics):
    reply = analytics.post("/api/v1/websites", {"domain": "goals.example"})
    assert reply.status == 201
    return reply.data["id"]


def test_goals_are_created_listed_renamed_and_deleted(analytics, website):
    base = f"/api/v1/websites/{website}/goals"
    assert analytics.get(base).body == {"data": [], "status": 200}
    signup = analytics.post(base, {"event_name": "Signup"})
    assert signup.status == 201
    assert signup.data["event_name"] == "Signup"
    assert signup.data["display_name"] == "Signup"
    assert signup.data["goal_type"] == "event"
    blog = analytics.post(base, json_body={"page_path": "/blog/**"})
    assert blog.status == 201
    assert (blog.data["goal_type"], blog.data["display_name"]) == ("page", "Visit /blog/**")
    assert blog.data["id"] == signup.data["id"] + 1
    listed = analytics.get(base)
    assert [goal["display_name"] for goal in listed.data] == ["Signup", "Visit /blog/**"]
    one = analytics.get(f"{base}/{blog.data['id']}")
    assert one.data == blog.data
    renamed = analytics.put(f"{base}/{blog.data['id']}", {"display_name": "Read the blog"})
    assert renamed.status == 200
    assert renamed.data["display_name"] == "Read the blog"
    assert renamed.data["page_path"] == "/blog/**"
    gone = analytics.delete(f"{base}/{signup.data['id']}")
    assert gone.body == {"id": signup.data["id"], "object": "goal", "deleted": True, "status": 200}
    assert [goal["id"] for goal in analytics.get(base).data] == [blog.data["id"]]
    # an id is never given again
    again = analytics.post(base, {"event_name": "Signup"})
    assert again.data["id"] == blog.data["id"] + 1
    # the website itself is unchanged by its goals
    assert analytics.get(f"/api/v1/websites/{website}").data["domain"] == "goals.example"


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({}, "event_name"),
        ({"event_name": "Signup", "page_path": "/thanks"}, "event_name"),
        ({"event_name": ""}, "event_name"),
        ({"event_name": "x" * (rules.MAX_NAME_LENGTH + 1)}, "event_name"),
        ({"event_name": "pageview"}, "event_name"),
        ({"page_path": "blog"}, "page_path"),
        ({"page_path": "/a?b=1"}, "page_path"),
        ({"page_path": "/" + "a" * rules.MAX_PATH_LENGTH}, "page_path"),
        ({"page_path": "/a/***"}, "page_path"),
        ({"event_name": "Signup", "display_name": " "}, "display_name"),
    ],
)
def test_a_bad_goal_is_422_and_changes_nothing(analytics, website, form, field):
    base = f"/api/v1/websites/{website}/goals"
    reply = analytics.post(base, json_body=form)
    assert reply.status == 422
    assert reply.body["status"] == 422
    assert field in reply.body["message"] or "body" in reply.body["message"]
    assert analytics.get(base).data == []


def test_a_goal_is_unique_by_what_it_matches_and_by_name(analytics, website):
    base = f"/api/v1/websites/{website}/goals"
    analytics.post(base, {"event_name": "Signup"})
    analytics.post(base, {"page_path": "/thanks", "display_name": "Thanked"})
    same_event = analytics.post(base, {"event_name": "Signup", "display_name": "Other"})
    assert same_event.status == 422
    assert same_event.body["message"] == {"event_name": [rules.SAME_GOAL]}
    same_name = analytics.post(base, {"event_name": "Buy", "display_name": "Thanked"})
    assert same_name.body["message"] == {"display_name": [rules.NAME_TAKEN]}
    first = analytics.get(base).data[0]
    renamed = analytics.put(f"{base}/{first['id']}", {"display_name": "Thanked"})
    assert renamed.status == 422
    assert len(analytics.get(base).data) == 2


def test_a_website_has_at_most_max_goals(analytics, website, monkeypatch):
    monkeypatch.setattr(rules, "MAX_GOALS", 2)
    base = f"/api/v1/websites/{website}/goals"
    assert analytics.post(base, {"event_name": "A"}).status == 201
    assert analytics.post(base, {"event_name": "B"}).status == 201
    third = analytics.post(base, {"event_name": "C"})
    assert third.status == 422
    assert "goals" in third.body["message"]


def test_goals_of_another_account_or_missing_are_404(analytics, other_analytics, website):
    base = f"/api/v1/websites/{website}/goals"
    goal = analytics.post(base, {"event_name": "Signup"}).data
    for reply in (
        other_analytics.get(base),
        other_analytics.post(base, {"event_name": "Steal"}),
        other_analytics.get(f"{base}/{goal['id']}"),
        other_analytics.put(f"{base}/{goal['id']}", {"display_name": "Mine"}),
        other_analytics.delete(f"{base}/{goal['id']}"),
        analytics.get(f"{base}/999"),
        analytics.get(f"{base}/abc"),
        analytics.put(f"{base}/999", {"display_name": "X"}),
        analytics.delete(f"{base}/0"),
        analytics.get("/api/v1/websites/999/goals"),
    ):
        assert reply.status == 404, reply.body
        assert reply.body == {"message": "Resource not found.", "status": 404}
    assert analytics.get(base).data == [goal]
    assert analytics.get(base, key=None).status == 401


def test_goals_created_at_once_all_land_and_a_website_update_keeps_them(analytics, website):
    from concurrent.futures import ThreadPoolExecutor

    base = f"/api/v1/websites/{website}/goals"
    with ThreadPoolExecutor(5) as pool:  # four goals and a website update, at once
        made = [pool.submit(analytics.post, base, {"event_name": f"Event {n}"}) for n in range(4)]
        changed = pool.submit(analytics.put, f"/api/v1/websites/{website}", {"favorite": 1})
        replies = [future.result() for future in made]
    assert changed.result().status == 200
    assert [reply.status for reply in replies] == [201] * 4
    stored = analytics.get(base).data
    assert sorted(goal["event_name"] for goal in stored) == [f"Event {n}" for n in range(4)]
    assert sorted(goal["id"] for goal in stored) == sorted(reply.data["id"] for reply in replies)
    assert len({goal["id"] for goal in stored}) == 4
    assert analytics.put(f"/api/v1/websites/{website}", {"email": 1}).status == 200
    assert len(analytics.get(base).data) == 4


def test_goals_too_large_beside_the_website_s_lists_are_422(analytics, website, monkeypatch):
    from sitelens.data import transactions

    monkeypatch.setattr(transactions, "ITEM_BUDGET_BYTES", 600)  # a website item is ~500 B
    base = f"/api/v1/websites/{website}/goals"
    refused = analytics.post(base, {"event_name": "x" * 120, "display_name": "y" * 120})
    assert refused.status == 422
    assert refused.body["message"] == {"goals": [rules.TOO_LARGE]}
    monkeypatch.undo()
    assert analytics.get(base).data == []


def test_the_document_states_the_server_s_rules():
    """What the schema allows the server takes (the contract test's premise): the patterns
    and lengths of goals and annotations are the code's."""
    from sitelens.local import openapi
    from sitelens.websites.annotations import rules as annotation_rules

    schemas = openapi.document("analytics")["components"]["schemas"]
    goal = schemas["GoalCreate"]["properties"]
    assert goal["page_path"]["pattern"] == rules.PATH_PATTERN
    assert goal["page_path"]["maxLength"] == rules.MAX_PATH_LENGTH
    assert goal["event_name"]["maxLength"] == rules.MAX_NAME_LENGTH
    assert goal["event_name"]["not"]["enum"] == list(rules.RESERVED_NAMES)
    annotation = schemas["AnnotationCreate"]["properties"]
    assert annotation["date"]["pattern"] == annotation_rules.DATE_PATTERN
    assert annotation["link"]["pattern"] == annotation_rules.LINK_PATTERN
    assert annotation["link"]["maxLength"] == annotation_rules.MAX_LINK_LENGTH
    assert annotation["text"]["maxLength"] == annotation_rules.MAX_TEXT_LENGTH
