"""The MCP server's tools held to the API they stand for: each names a route the template
deploys, takes that route's input model (its fields, its defaults), and declares the route's
documented answer as its output schema, a valid JSON Schema with an object at its root."""

from __future__ import annotations

import jsonschema
import pytest

from sitelens.edge.mcp_server import contract, transport
from sitelens.local import template
from sitelens.reports.inputs import ReportListQuery
from sitelens.websites.annotations.inputs import AnnotationCreate
from sitelens.websites.inputs import WebsiteListQuery

pytestmark = pytest.mark.unit

ROUTES = {(r.method, r.path) for r in template.routes(template.load())}
TOOLS = sorted(transport.TOOLS)


@pytest.mark.parametrize("name", TOOLS)
def test_each_tool_stands_for_a_deployed_route(name):
    tool = transport.TOOLS[name]
    assert (tool.route.method, tool.route.path) in ROUTES


@pytest.mark.parametrize("name", TOOLS)
def test_each_output_schema_is_the_route_s_documented_answer(name):
    schema = contract.output_schema(transport.TOOLS[name].route)
    if name == "audit_diff":  # the route answers CSV; the tool pages its rows
        assert schema is None
        return
    assert schema is not None and schema["type"] == "object"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_inputs_are_the_api_s_models_with_the_path_s_ids():
    tools = transport.TOOLS
    listed = tools["list_websites"].inputs.model_json_schema()["properties"]
    assert set(WebsiteListQuery.model_fields) <= set(listed)
    made = tools["create_annotation"].inputs.model_json_schema()
    assert set(made["required"]) == {"website_id", "date", "text"}
    assert set(AnnotationCreate.model_fields) < set(made["properties"])
    reports = tools["list_reports"].inputs.model_json_schema()["properties"]
    assert set(ReportListQuery.model_fields) <= set(reports)
    assert reports["format"]["const"] == "json"  # CSV is a file for people


def test_a_read_key_sees_the_tools_whose_routes_read():
    writes = {name for name, tool in transport.TOOLS.items() if tool.writes}
    assert writes == {"create_annotation", "start_export", "create_report", "start_audit"}
    assert not transport.TOOLS["query_stats"].writes  # POST /api/v1/query only reads
