"""GET /api/v1/usage: what an agency and each of its workspaces used in a month, in
billable events (pageviews and custom events the aggregator counted), and their total;
a workspace sees its own alone, and only admins see any."""

from __future__ import annotations

from typing import Any

import pytest

from sitelens.accounts import usage
from sitelens.core import clock
from tests.conftest import Client
from tests.fixtures.analytics import CHROME, receive, run

FORBIDDEN = {"message": "Forbidden.", "status": 403}


def inside(workspace: dict[str, Any]) -> dict[str, str]:
    return {"Sitelens-Workspace": str(workspace["id"])}


def send(page: str, event: str | None = None, ip: str = "192.0.2.44") -> None:
    form: dict[str, Any] = {"page": page}
    if event is not None:
        form["event"] = {"name": event}
    reply = Client("AnalyticsApi", None).request(
        "POST", "/api/event", json_body=form, key=None,
        headers={"User-Agent": CHROME}, source_ip=ip,
    )  # fmt: skip
    assert reply.status == 202, reply.body


def count_all() -> None:
    assert run("HitsQueue", receive("HitsQueue")) == {"batchItemFailures": []}


def website(client: Client, domain: str, **headers: str) -> int:
    reply = client.post("/api/v1/websites", {"domain": domain}, headers=headers)
    assert reply.status == 201, reply.body
    return int(reply.data["id"])


def used(websites: int, pageviews: int, custom_events: int) -> dict[str, int]:
    return {
        "websites": websites,
        "pageviews": pageviews,
        "custom_events": custom_events,
        "billable_events": pageviews + custom_events,
    }


def test_an_agency_sees_its_own_usage_each_workspace_s_and_the_total(analytics, seo):
    client_a = analytics.post("/api/v1/workspaces", {"name": "Client A"}).data
    client_b = analytics.post("/api/v1/workspaces", {"name": "Client B"}).data
    website(analytics, "agency.example")
    website(analytics, "a.example", **inside(client_a))
    website(analytics, "a2.example", **inside(client_a))
    send("https://agency.example/")
    send("https://a.example/")
    send("https://a.example/pricing", ip="192.0.2.45")
    send("https://a2.example/", event="Signup")
    send("https://a2.example/", event="Signup", ip="192.0.2.46")
    count_all()

    reply = analytics.get("/api/v1/usage")
    assert reply.status == 200, reply.body
    today = clock.now().date()
    assert reply.data == {
        "month": today.strftime("%Y-%m"),
        "first_day": today.replace(day=1).isoformat(),
        "last_day": today.isoformat(),
        "account": {"id": int(analytics_account_id(analytics)), "name": "Acme", **used(1, 1, 0)},
        "workspaces": [
            {"id": client_a["id"], "name": "Client A", **used(2, 2, 2)},
            {"id": client_b["id"], "name": "Client B", **used(0, 0, 0)},
        ],
        "total": used(3, 3, 2),
    }
    assert seo.get("/api/v1/usage").data == reply.data  # on both bases
    # in a workspace, by the agency's header: that workspace alone
    within = analytics.get("/api/v1/usage", headers=inside(client_a)).data
    assert within["account"] == {"id": client_a["id"], "name": "Client A", **used(2, 2, 2)}
    assert within["workspaces"] == [] and within["total"] == used(2, 2, 2)
    # a month before any hit counts nothing, and says which days it read
    before = analytics.get("/api/v1/usage", query={"month": "2025-02"}).data
    assert (before["first_day"], before["last_day"]) == ("2025-02-01", "2025-02-28")
    assert before["total"] == used(3, 0, 0)


def analytics_account_id(client: Client) -> str:
    return str(client.get("/api/v1/account").data["id"])


def test_another_agency_s_usage_is_out_of_reach(analytics, other_analytics):
    workspace = analytics.post("/api/v1/workspaces", {"name": "Client A"}).data
    website(analytics, "a.example", **inside(workspace))
    send("https://a.example/")
    count_all()
    theirs = other_analytics.get("/api/v1/usage").data
    assert theirs["workspaces"] == [] and theirs["total"] == used(0, 0, 0)
    assert other_analytics.get("/api/v1/usage", headers=inside(workspace)).status == 404


def test_only_an_admin_s_unlimited_key_reads_usage(analytics, join):
    _, editor = join("editor@example.com", "editor")
    assert Client("AnalyticsApi", editor).get("/api/v1/usage").body == FORBIDDEN
    _, admin = join("admin@example.com", "admin")
    assert Client("AnalyticsApi", admin).get("/api/v1/usage").status == 200
    limited = analytics.post("/api/v1/keys", {"name": "l", "projects": "example.com"})
    assert Client("AnalyticsApi", limited.data["key"]).get("/api/v1/usage").body == FORBIDDEN


@pytest.mark.parametrize(
    ("month", "sentence"),
    [
        ("2026-13", "The month field must be a month in the format YYYY-MM, "),
        ("26-01", "The month field must be a month in the format YYYY-MM, "),
        ("1969-12", "The month field must be a month in the format YYYY-MM, "),
        ("9999-01", "The month field must be a month in the format YYYY-MM, "),
        ("2999-01", "The month field must not be a future month."),
    ],
)
def test_an_invalid_month_is_422(analytics, month, sentence):
    reply = analytics.get("/api/v1/usage", query={"month": month})
    assert reply.status == 422, reply.body
    assert reply.body["message"]["month"][0].startswith(sentence)


def test_past_the_bound_of_websites_the_answer_is_409(analytics, monkeypatch):
    monkeypatch.setattr(usage, "MAX_WEBSITES", 2)
    workspace = analytics.post("/api/v1/workspaces", {"name": "Client A"}).data
    website(analytics, "agency.example")
    website(analytics, "a.example", **inside(workspace))
    assert analytics.get("/api/v1/usage").status == 200
    website(analytics, "a2.example", **inside(workspace))
    reply = analytics.get("/api/v1/usage")
    assert reply.status == 409
    assert "Sitelens-Workspace" in reply.body["message"]
    # each workspace, asked alone, is within the bound
    assert analytics.get("/api/v1/usage", headers=inside(workspace)).data["total"] == used(2, 0, 0)
