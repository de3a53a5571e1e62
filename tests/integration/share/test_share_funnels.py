"""Saved funnels and goal conversions on the share dashboard (JSON and page) and in the
digest: each shown funnel's figures are `POST /api/v1/funnels/query`'s answer for the same
days, from visits sent as the script sends them, through API Gateway events on moto and
the local DuckDB warehouse."""

from __future__ import annotations

from typing import Any

import pytest

from sitelens.analytics import dashboard
from sitelens.core import clock, config
from sitelens.digests import composing, of_label
from tests.fixtures.local_warehouse import local_warehouse
from tests.integration.share.test_share_dashboard import (
    CHROME,
    DAYS,
    NOW,
    Visitor,
    count_everything,
    public,
    share,
    visits,
)

pytestmark = pytest.mark.usefixtures("local_warehouse")
__all__ = ["local_warehouse", "public"]  # fixtures


def funnel_query(analytics, site: int, **body: Any) -> dict[str, Any]:
    reply = analytics.post(
        "/api/v1/funnels/query", json_body={"site_id": site, "date_range": list(DAYS), **body}
    )
    assert reply.status == 200, reply.body
    answer: dict[str, Any] = reply.body
    return answer


def test_saved_funnels_are_the_funnel_query_s_on_the_dashboard_and_in_the_digest(
    analytics, account, public, monkeypatch
):
    site = visits(analytics, monkeypatch)  # goals 1 signup and 2 Visit /pricing
    # eve looks at the prices, then signs up: the one who goes all the way
    eve = Visitor(analytics, monkeypatch, "192.0.2.77", CHROME)
    eve.send(f"{DAYS[1]}T11:00:00", "/pricing")
    eve.send(f"{DAYS[1]}T11:01:00", "/signup", **{"event[name]": "signup"})
    count_everything(monkeypatch)
    base = f"/api/v1/websites/{site}/funnels"
    goals = {
        g["display_name"]: g["id"] for g in analytics.get(f"/api/v1/websites/{site}/goals").data
    }
    made = []
    for name, steps in (
        ("Pricing to signup", ["Visit /pricing", "signup"]),
        ("Signup to pricing", ["signup", "Visit /pricing"]),
        ("Again", ["Visit /pricing", "signup"]),
        ("Not shown", ["signup", "Visit /pricing"]),  # past SHOWN_FUNNELS
    ):
        reply = analytics.post(base, json_body={"name": name, "steps": [goals[s] for s in steps]})
        assert reply.status == 201, reply.body
        made.append(reply.data)

    shown = share(public)
    assert [f["name"] for f in shown["funnels"]] == [
        f["name"] for f in made[: dashboard.SHOWN_FUNNELS]
    ]
    for funnel in shown["funnels"]:
        asked = funnel_query(analytics, site, funnel_id=funnel["id"])
        assert funnel["steps"] == asked["steps"]
        assert {k: funnel[k] for k in asked["meta"]} == asked["meta"]
    first = shown["funnels"][0]
    assert [s["visitors"] for s in first["steps"]] == [
        s["visitors"]
        for s in funnel_query(analytics, site, steps=["Visit /pricing", "signup"])["steps"]
    ]
    assert first["steps"][-1]["visitors"] >= 1  # eve

    page = public.get("/share/shop.example", query={"from": DAYS[0], "to": DAYS[1]})
    assert page.status == 200
    assert 'id="funnels"' in page.body and f'id="funnel-{made[0]["id"]}"' in page.body
    assert f"Pricing to signup: {first['conversion_rate']}% of" in page.body

    monkeypatch.setenv("SITELENS_ANALYTICS_BASE_URL", "https://api.test")
    config.reset()
    message = composing.digest(account.id, "o@example.com", of_label("2026-W48"))
    assert message is not None
    text = message.get_body(("plain",)).get_content()
    week = {"date_range": ["2026-11-23", "2026-11-29"]}
    by_goal = analytics.post(
        "/api/v1/query",
        json_body={
            "site_id": site,
            "metrics": ["visitors", "conversion_rate"],
            "dimensions": ["event:goal"],
            **week,
        },
    ).body["results"]
    assert "Goal conversions:" in text
    for row in by_goal:
        visitors, rate = row["metrics"]
        assert f"    {row['dimensions'][0]}: {visitors:,} visitors, {rate}% conversion (" in text
    answer = analytics.post(
        "/api/v1/funnels/query", json_body={"site_id": site, "funnel_id": made[0]["id"], **week}
    ).body
    line = (
        f"    Pricing to signup: {answer['meta']['conversion_rate']}% converted"
        f" ({answer['steps'][-1]['visitors']:,} of {answer['meta']['entering_visitors']:,}"
        " entering visitors)"
    )
    assert line in text
    assert "Not shown" not in text
    html = message.get_body(("html",)).get_content()
    assert 'data-funnel="Pricing to signup"' in html and 'data-goal="signup"' in html


def test_none_saved_is_null_and_a_funnel_whose_goal_was_deleted_is_left_off(
    analytics, account, public, monkeypatch
):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data["id"]
    goals_path = f"/api/v1/websites/{site}/goals"
    steps = [
        analytics.post(goals_path, {"event_name": name}).data["id"] for name in ("a", "b", "gone")
    ]
    monkeypatch.setattr(clock, "now", lambda: NOW)  # the share page's "today"; no visits
    shown = share(public)
    assert shown["funnels"] is None and shown["goals"] == []
    base = f"/api/v1/websites/{site}/funnels"
    assert analytics.post(base, json_body={"name": "Whole", "steps": steps[:2]}).status == 201
    assert analytics.post(base, json_body={"name": "Broken", "steps": steps[1:]}).status == 201
    assert analytics.delete(f"{goals_path}/{steps[2]}").status == 200
    monkeypatch.setattr(dashboard, "FRESH_SECONDS", 0)
    funnels = share(public)["funnels"]
    assert [f["name"] for f in funnels] == ["Whole"]
    assert [s["visitors"] for s in funnels[0]["steps"]] == [0, 0]
    # a goal deleted after the website was read: the funnel's answer is None, not a 422
    broken = {"site_id": site, "date_range": list(DAYS), "funnel_id": 2}
    assert dashboard.funnel_answer(account.id, broken) is None
