"""template.yaml is the single source: routes, indexes and permissions agree with the code."""

from __future__ import annotations

import json

from sitelens.data import projects, reports, websites
from sitelens.edge import routes
from sitelens.local import routes as route_table
from sitelens.local import template

TEMPLATE = template.load()
# Each collection with the table that holds it.
COLLECTIONS = {
    "WebsitesTable": websites.COLLECTION,
    "ReportsTable": reports.COLLECTION,
    "ProjectsTable": projects.COLLECTION,
}


def test_routes_json_is_generated_from_the_template():
    packaged = json.loads(routes.PACKAGED.read_text())
    assert packaged == route_table.from_template(), "run `make routes`"


def test_every_route_path_answers_other_methods_with_405():
    """API Gateway answers a method no route has with its own 403 (our 404), unless the
    path has an ANY route: the fallback's, which answers 405 with Allow."""
    found = template.routes(TEMPLATE)
    fallback = {(r.api, r.path) for r in found if r.function == "FallbackFunction"}
    paths = {(r.api, r.path) for r in found}
    assert sorted(paths - fallback) == []


def test_every_list_order_and_filter_has_its_index():
    tables = template.tables(TEMPLATE)
    for logical_id, collection in COLLECTIONS.items():
        props = tables[logical_id]
        indexes = {
            index["IndexName"]: [k["AttributeName"] for k in index["KeySchema"]]
            for index in props.get("GlobalSecondaryIndexes", [])
        }
        orders = [collection.key, *collection.orders]
        for filter_name in (None, *collection.filters):
            for order in orders:
                name, part, sort = collection.index(order, filter_name)
                if name is None:
                    keys = [k["AttributeName"] for k in props["KeySchema"]]
                    assert keys == [part, sort]
                else:
                    assert indexes.get(name) == [part, sort], (logical_id, name)


def test_no_function_may_scan():
    text = (template.DEFAULT_PATH).read_text()
    assert "dynamodb:Scan" not in text and "dynamodb:*" not in text


def test_both_apis_and_outputs():
    resources = TEMPLATE["Resources"]
    for api in ("AnalyticsApi", "SeoApi"):
        assert resources[api]["Type"] == "AWS::Serverless::Api"
        responses = resources[api]["Properties"]["GatewayResponses"]
        for kind in ("UNAUTHORIZED", "MISSING_AUTHENTICATION_TOKEN", "THROTTLED", "DEFAULT_5XX"):
            assert kind in responses
    assert {"AnalyticsBaseUrl", "SeoBaseUrl"} <= set(TEMPLATE["Outputs"])


def test_the_deployed_stack_never_allows_private_urls():
    assert "SITELENS_ALLOW_PRIVATE_URLS" not in template.DEFAULT_PATH.read_text()


def test_every_function_runs_python_3_13_on_the_layer():
    function_globals = TEMPLATE["Globals"]["Function"]
    assert function_globals["Runtime"] == "python3.13"
    assert function_globals["Layers"] == [{"Ref": "CommonLayer"}]
    layer = TEMPLATE["Resources"]["CommonLayer"]
    assert layer["Metadata"]["BuildMethod"] == "makefile"
