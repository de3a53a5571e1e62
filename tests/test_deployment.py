"""The stack as `sam deploy` creates it (template.yaml translated by AWS's SAM translator,
tests/fixtures/deployed.py): stages, throttling, logs, tracing, queues, alarms, gateway
responses."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from sitelens.local import template
from tests.fixtures import deployed

SOURCE = template.load()
DEPLOYED = deployed.translated()
RESOURCES = DEPLOYED["Resources"]
APIS = ("AnalyticsApi", "SeoApi")
LOGS_KEPT = {"Ref": "LogRetentionDays"}


def of_type(kind: str) -> dict[str, dict[str, Any]]:
    return {name: r["Properties"] for name, r in RESOURCES.items() if r["Type"] == kind}


def stage(api: str) -> dict[str, Any]:
    [found] = [
        p for p in of_type("AWS::ApiGateway::Stage").values() if p["RestApiId"] == {"Ref": api}
    ]
    return found


def test_each_api_has_one_stage_named_by_the_parameter():
    stages = sorted(
        (p["RestApiId"]["Ref"], p["StageName"]["Ref"])
        for p in of_type("AWS::ApiGateway::Stage").values()
    )
    assert stages == [("AnalyticsApi", "StageName"), ("SeoApi", "StageName")]
    # Without Globals.Api.OpenApiVersion, SAM's deployments also create a stage "Stage".
    assert [p for p in of_type("AWS::ApiGateway::Deployment").values() if "StageName" in p] == []


def test_every_method_is_throttled_and_the_tracking_endpoint_below_the_rest():
    default = {
        "ResourcePath": "/*",
        "HttpMethod": "*",
        "ThrottlingRateLimit": {"Ref": "ThrottleRate"},
        "ThrottlingBurstLimit": {"Ref": "ThrottleBurst"},
    }
    assert stage("SeoApi")["MethodSettings"] == [default]
    assert stage("AnalyticsApi")["MethodSettings"] == [
        default,
        {
            "ResourcePath": "/~1api~1event",  # "/api/event", slashes written ~1
            "HttpMethod": "POST",
            "ThrottlingRateLimit": {"Ref": "EventThrottleRate"},
            "ThrottlingBurstLimit": {"Ref": "EventThrottleBurst"},
        },
    ]
    assert "post" in RESOURCES["AnalyticsApi"]["Properties"]["Body"]["paths"]["/api/event"]
    parameters = SOURCE["Parameters"]
    for kind in ("Rate", "Burst"):
        tracking = parameters[f"EventThrottle{kind}"]["Default"]
        assert 0 < tracking < parameters[f"Throttle{kind}"]["Default"]
    assert 0 < parameters["AccountRateLimit"]["Default"] < parameters["ThrottleRate"]["Default"]


@pytest.mark.parametrize("api", APIS)
def test_access_logs_are_json_lines_kept_for_the_retention(api):
    setting = stage(api)["AccessLogSetting"]
    group = setting["DestinationArn"]["Fn::GetAtt"][0]
    assert RESOURCES[group]["Properties"]["RetentionInDays"] == LOGS_KEPT
    line = json.loads(re.sub(r"\$context\.[\w.]+", "1", setting["Format"]))
    assert {"requestId", "method", "resource", "status", "error", "latencyMs"} <= set(line)
    # Visitors' IP addresses are never logged (README, Privacy); nor user agents.
    assert "identity" not in setting["Format"]


def test_every_function_logs_to_a_group_with_a_retention():
    groups = {
        p["LogGroupName"]["Fn::Sub"]: p
        for p in of_type("AWS::Logs::LogGroup").values()
        if "LogGroupName" in p
    }
    for function in of_type("AWS::Lambda::Function"):
        assert groups[f"/aws/lambda/${{{function}}}"]["RetentionInDays"] == LOGS_KEPT


def test_tracing_follows_the_parameter_on_functions_and_stages():
    assert DEPLOYED["Conditions"]["TracingOn"] == {"Fn::Equals": [{"Ref": "Tracing"}, "Active"]}
    for function in of_type("AWS::Lambda::Function").values():
        assert function["TracingConfig"] == {"Mode": {"Ref": "Tracing"}}
    for api in APIS:
        assert stage(api)["TracingEnabled"] == {"Fn::If": ["TracingOn", True, False]}


def test_large_responses_are_compressed():
    for api in APIS:
        assert 0 < RESOURCES[api]["Properties"]["MinimumCompressionSize"] <= 10_240


def test_each_queue_has_a_dead_letter_queue_of_its_own_with_an_alarm():
    queues = of_type("AWS::SQS::Queue")
    redrives = [p["RedrivePolicy"] for p in queues.values() if "RedrivePolicy" in p]
    dead = [redrive["deadLetterTargetArn"]["Fn::GetAtt"][0] for redrive in redrives]
    # Every queue but the dead-letter ones has one, and no two share it.
    assert len(redrives) == len(queues) - len(dead) == len(set(dead))
    alarms = of_type("AWS::CloudWatch::Alarm").values()
    for queue in dead:
        dimension = {"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}
        [alarm] = [a for a in alarms if dimension in a.get("Dimensions", [])]
        assert (alarm["Namespace"], alarm["MetricName"]) == (
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
        )
        assert (alarm["ComparisonOperator"], alarm["Threshold"]) == ("GreaterThanThreshold", 0)
        assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_visibility_timeouts_outlast_every_try_of_their_function():
    """Lambda's guidance: at least 6 x the function's timeout + the batching window."""
    functions = of_type("AWS::Lambda::Function")
    queues = of_type("AWS::SQS::Queue")
    mappings = of_type("AWS::Lambda::EventSourceMapping").values()
    assert len(mappings) == 2
    for mapping in mappings:
        queue = queues[mapping["EventSourceArn"]["Fn::GetAtt"][0]]
        timeout = functions[mapping["FunctionName"]["Ref"]]["Timeout"]
        window = mapping.get("MaximumBatchingWindowInSeconds", 0)
        assert queue["VisibilityTimeout"] >= 6 * timeout + window


@pytest.mark.parametrize("api", APIS)
def test_each_api_alarms_on_5xx_and_on_throttling(api):
    alarms = list(of_type("AWS::CloudWatch::Alarm").values())
    name = RESOURCES[api]["Properties"]["Name"]
    [errors] = [a for a in alarms if {"Name": "ApiName", "Value": name} in a.get("Dimensions", [])]
    assert (errors["Namespace"], errors["MetricName"]) == ("AWS/ApiGateway", "5XXError")
    assert {"Name": "Stage", "Value": {"Ref": "StageName"}} in errors["Dimensions"]
    log_group = stage(api)["AccessLogSetting"]["DestinationArn"]["Fn::GetAtt"][0]
    [counter] = [
        f
        for f in of_type("AWS::Logs::MetricFilter").values()
        if f["LogGroupName"] == {"Ref": log_group}
    ]
    assert counter["FilterPattern"] == '{ $.error = "THROTTLED" }'  # the stage's, not 429s of ours
    [counted] = counter["MetricTransformations"]
    [throttles] = [a for a in alarms if a["MetricName"] == counted["MetricName"]]
    assert throttles["Namespace"] == counted["MetricNamespace"]
    for alarm in (errors, throttles):
        assert (alarm["ComparisonOperator"], alarm["Threshold"]) == ("GreaterThanThreshold", 0)
        assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


# API Gateway's 4xx response types and their own statuses (API Gateway developer guide,
# "Gateway response types"). Ours differ only where the contract says so.
GATEWAY_4XX = {
    "ACCESS_DENIED": 403,
    "BAD_REQUEST_BODY": 400,
    "BAD_REQUEST_PARAMETERS": 400,
    "EXPIRED_TOKEN": 403,
    "INVALID_API_KEY": 403,
    "INVALID_SIGNATURE": 403,
    "MISSING_AUTHENTICATION_TOKEN": 404,  # an unknown route: the contract's 404, not 403
    "QUOTA_EXCEEDED": 429,
    "REQUEST_TOO_LARGE": 413,
    "RESOURCE_NOT_FOUND": 404,
    "THROTTLED": 429,
    "UNAUTHORIZED": 401,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "WAF_FILTERED": 403,
}


@pytest.mark.parametrize("api", APIS)
def test_gateway_responses_keep_each_error_s_own_status(api):
    responses = RESOURCES[api]["Properties"]["Body"]["x-amazon-apigateway-gateway-responses"]
    for kind, status in GATEWAY_4XX.items():
        assert responses[kind]["statusCode"] == str(status), kind
        body = json.loads(responses[kind]["responseTemplates"]["application/json"])
        assert body["status"] == status, kind
    # A type added later keeps its own status too: DEFAULT_4XX sets none.
    assert "statusCode" not in responses["DEFAULT_4XX"]
