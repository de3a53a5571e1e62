"""POST /api/v1/journeys/query through API Gateway events on moto and the local DuckDB
warehouse: the answers of the scripted visits, bad bodies 422 naming their field, another
account's website 404, no key 401."""

from __future__ import annotations

import pytest

from sitelens.analytics.warehouse import journeys
from tests.integration.analytics.test_warehouse import DAY
from tests.integration.goals.test_funnels import served
from tests.integration.journeys.test_journeys import NEXT_AFTER_HOME, PATHS, visits_of

pytest.importorskip("duckdb")
__all__ = ["served"]  # the local warehouse fixture
ROUTE = "/api/v1/journeys/query"


def test_the_route_answers_next_pages_and_paths(analytics, other_analytics, served):
    website = analytics.post("/api/v1/websites", {"domain": "journeys.example"}).data["id"]
    served.write(visits_of(website))
    body = {"site_id": website, "date_range": [DAY, DAY], "journey": "next_pages", "page": "/"}
    reply = analytics.post(ROUTE, json_body=body)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == NEXT_AFTER_HOME
    assert reply.body["meta"] == {"total_rows": 4}
    assert reply.body["query"] == {**body, "steps": 5, "limit": 20, "timezone": "UTC"}
    paths = analytics.post(ROUTE, json_body={**body, "journey": "paths", "page": None})
    assert paths.status == 200, paths.body
    assert paths.body["results"] == PATHS
    for wrong, field in (
        ({**body, "journey": "loops"}, "journey"),
        ({key: value for key, value in body.items() if key != "journey"}, "journey"),
        ({key: value for key, value in body.items() if key != "page"}, "page"),
        ({**body, "page": ""}, "page"),
        ({**body, "page": ["/"]}, "page"),
        ({**body, "steps": 3}, "steps"),  # of paths only
        ({**body, "journey": "paths", "steps": journeys.MAX_STEPS + 1}, "steps"),
        ({**body, "journey": "paths", "steps": 0}, "steps"),
        ({**body, "limit": journeys.MAX_ROWS + 1}, "limit"),
        ({**body, "limit": "ten"}, "limit"),
        ({**body, "metrics": ["visitors"]}, "metrics"),
        ({**body, "date_range": "forever"}, "date_range"),
        ({**body, "filters": [["is", "visit:nope", ["x"]]]}, "filters"),
        ({key: value for key, value in body.items() if key != "date_range"}, "date_range"),
    ):
        refused = analytics.post(ROUTE, json_body=wrong)
        assert refused.status == 422, (wrong, refused.body)
        assert list(refused.body["message"]) == [field]
    assert analytics.post(ROUTE, json_body=[body]).status == 422
    assert other_analytics.post(ROUTE, json_body=body).status == 404
    assert analytics.post(ROUTE, json_body=body, key=None).status == 401
