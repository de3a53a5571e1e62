"""A saved segment on the share dashboard (`?segment=<id>`, JSON and page): every figure is
the query API's under the segment's filters, from visits sent as the script sends them,
through API Gateway events on moto and the local DuckDB warehouse; a segment the website
lacks is 422, and the unsegmented dashboard stays as it was."""

from __future__ import annotations

import pytest

from sitelens.analytics import dashboard
from tests.fixtures.local_warehouse import local_warehouse
from tests.integration.share.test_share_dashboard import DAYS, ask, public, share, visits

pytestmark = pytest.mark.usefixtures("local_warehouse")
__all__ = ["local_warehouse", "public"]  # fixtures
FIREFOX = [["is", "visit:browser", ["Firefox"]]]


@pytest.mark.slow  # a whole dashboard under a segment (15 questions), and 9 to compare: ~4 s
def test_the_share_dashboard_under_a_segment_is_the_query_api_s(
    analytics, account, public, monkeypatch
):
    site = visits(analytics, monkeypatch)  # Ben and Cleo on Firefox
    made = analytics.post(
        f"/api/v1/websites/{site}/segments", json_body={"name": "Firefox", "filters": FIREFOX}
    ).data
    shown = share(public, **dict(zip(("from", "to"), DAYS, strict=True)), segment=str(made["id"]))
    assert shown["segment"] == {"id": made["id"], "name": "Firefox"}  # never its filters
    assert shown["vitals"] is None  # asked by page, device, country and time only
    totals = ask(
        analytics,
        site,
        metrics=list(dashboard.TOTALS),
        date_range=list(DAYS),
        filters=FIREFOX,
        include={"comparisons": {"mode": "previous_period"}},
    )["results"][0]["metrics"]
    assert [shown["totals"][name]["value"] for name in dashboard.TOTALS] == totals
    assert shown["totals"]["visitors"]["value"] == 2  # of 3
    for name, (dimension, metrics) in dashboard.BREAKDOWNS.items():
        asked = ask(
            analytics,
            site,
            metrics=list(metrics),
            date_range=list(DAYS),
            dimensions=[dimension],
            filters=FIREFOX,
            pagination={"limit": 10},
        )
        assert shown[name] == [
            {"value": r["dimensions"][0], **dict(zip(metrics, r["metrics"], strict=True))}
            for r in asked["results"]
        ], name
    assert share(public)["totals"]["visitors"]["value"] == 3  # unsegmented, as it was
    page = public.get(
        "/share/shop.example", query={"from": DAYS[0], "to": DAYS[1], "segment": str(made["id"])}
    )
    assert page.status == 200


def test_a_segment_the_website_lacks_is_422_before_anything_is_asked(analytics, account, public):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data["id"]
    analytics.post(f"/api/v1/websites/{site}/segments", json_body={"name": "F", "filters": FIREFOX})
    for wrong in ("2", "x", "-1", "0"):
        refused = public.get(
            "/api/v1/share/websites/shop.example",
            query={"from": DAYS[0], "to": DAYS[1], "segment": wrong},
        )
        assert refused.status == 422, refused.body
        assert list(refused.body["message"]) == ["segment"]
    # another website's segment of the same account: not this dashboard's
    other = analytics.post("/api/v1/websites", {"domain": "other.example"}).data["id"]
    analytics.post(
        f"/api/v1/websites/{other}/segments", json_body={"name": "F", "filters": FIREFOX}
    )
    second = analytics.post(
        f"/api/v1/websites/{other}/segments", json_body={"name": "G", "filters": FIREFOX}
    ).data["id"]
    refused = public.get("/api/v1/share/websites/shop.example", query={"segment": str(second)})
    assert refused.status == 422
